"""Issue 17: the smaller Numba behaviours code written for Numba relies on: the read-only
`np.nditer(a)`, `inspect_types()` printing to stdout or `file=`, `get_function` in Numba's
calling form. Expected values come from NumPy / CPython on the same inputs."""

from __future__ import annotations

import ctypes
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ember import njit, runtime, types
from ember.extending import intrinsic, lower_builtin, type_callable


@njit
def nditer_items(a):
    out = []
    total = 0.0
    for x in np.nditer(a):
        out.append(x.item())
        total += x[()]
    return out, total


def _numpy_nditer(a):
    items = [x.item() for x in np.nditer(a)]
    return items, sum(items, 0.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(12.0).reshape(3, 4),
        lambda: np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        lambda: np.arange(24.0).reshape(2, 3, 4)[:, ::2, 1:],
        lambda: np.arange(5.0)[::-1],
        lambda: np.arange(6).reshape(2, 3).astype(np.int32),
        lambda: np.arange(24.0).reshape(2, 3, 4).transpose(1, 2, 0),
        lambda: np.arange(24.0).reshape(4, 6)[::-1, ::2],
        lambda: np.arange(24.0).reshape(4, 6).T[::2, ::-3],
    ],
)
def test_nditer_visits_elements_in_numpys_order(make):
    a = make()
    items, total = nditer_items(a)
    expected_items, expected_total = _numpy_nditer(a)
    assert items == expected_items
    assert total == expected_total


@settings(deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=3, max_side=4),
                  elements=st.floats(-1e6, 1e6)), st.integers(0, 5))  # fmt: skip
def test_nditer_matches_numpy(a, view):
    a = [a, a.T, a[::-1], a[..., ::2], np.asfortranarray(a), a.T[::-1]][view]
    assert nditer_items(a) == _numpy_nditer(a)


def test_nditer_of_an_empty_array_raises_numpys_error():
    with pytest.raises(ValueError) as numpy_error:
        np.nditer(np.empty((0, 3)))
    with pytest.raises(ValueError, match=str(numpy_error.value)):
        nditer_items(np.empty((0, 3)))


def test_nditer_frees_what_it_allocates():
    a = np.arange(10.0).reshape(2, 5)
    nditer_items(a)
    before = runtime.stats()
    for _ in range(5):
        nditer_items(a)
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


def test_nditer_of_several_operands_broadcasts():
    @njit
    def weighted(a, b):
        total = 0.0
        for x, y in np.nditer((a, b)):
            total += x.item() * y.item()
        return total

    a, b = np.arange(6.0).reshape(2, 3), np.array([1.0, -2.0, 0.5])
    expected = sum(x.item() * y.item() for x, y in np.nditer((a, b)))
    assert weighted(a, b) == expected


def test_inspect_types_prints_like_numba(capsys):
    @njit
    def scaled(x, n):
        return x * n

    assert scaled(1.5, 2) == 3.0
    returned = scaled.inspect_types()
    printed = capsys.readouterr().out
    assert "x * n  :: float64" in printed and printed == returned + "\n"
    buffer = io.StringIO()
    scaled.inspect_types(file=buffer)
    assert buffer.getvalue() == printed and capsys.readouterr().out == ""
    scaled.inspect_types(signature=(types.float64, types.int64), file=buffer)
    assert "x * n  :: float64" in buffer.getvalue()


class Forgetful:
    """A value whose @box returns NULL without setting an exception (a faulty extension)."""


class ForgetfulType(types.Type):
    def __init__(self):
        super().__init__(name="CompatForgetful")


def test_a_box_returning_null_silently_is_a_system_error():
    from ember.extending import NativeValue, box, models, register_model, typeof_impl, unbox

    forgetful_type = ForgetfulType()
    typeof_impl.register(Forgetful)(lambda val, c: forgetful_type)
    register_model(ForgetfulType)(models.OpaqueModel)
    unbox(ForgetfulType)(lambda typ, obj, c: NativeValue(obj))
    box(ForgetfulType)(lambda typ, val, c: c.pyapi.get_null_object())

    @njit
    def same(x):
        return x

    with pytest.raises(SystemError, match="@box of CompatForgetful returned NULL without"):
        same(Forgetful())


# ------------------------------------------------------------------ Numba's @intrinsic example


@intrinsic
def cast_int_to_byte_ptr(typingctx, src):
    # check for accepted types
    if isinstance(src, types.Integer):
        # create the expected type signature
        result_type = types.CPointer(types.uint8)
        sig = result_type(types.uintp)

        # defines the custom code generation
        def codegen(context, builder, signature, args):
            # llvm IRBuilder code here
            [src] = args
            rtype = signature.return_type
            llrtype = context.get_value_type(rtype)
            return builder.inttoptr(src, llrtype)

        return sig, codegen


def test_numbas_intrinsic_example_runs_and_prints_its_types(capsys):
    @njit("void(int64)")
    def foo(x):
        y = cast_int_to_byte_ptr(x)  # noqa: F841 - the documentation's example

    foo(0)
    foo.inspect_types()
    assert "y = $0.1  :: CPointer(uint8)" in capsys.readouterr().out


@njit
def bump(address, i, delta):
    pointer = cast_int_to_byte_ptr(address)
    old = pointer[i]
    pointer[i] = old + delta
    return old


def test_cpointer_items_read_and_written():
    buffer = (ctypes.c_uint8 * 4)(1, 2, 3, 250)
    expected = list(buffer)
    for i, delta in [(0, 5), (3, 10), (3, 1)]:
        assert bump(ctypes.addressof(buffer), i, delta) == expected[i]
        expected[i] = (expected[i] + delta) % 256  # uint8 wraps, as a C store does
    assert list(buffer) == expected


def total_of(*values):
    return sum(values)


@type_callable(total_of)
def type_total_of(context):
    def typer(*args):
        if all(isinstance(a, types.Number) for a in args):
            return types.float64

    return typer


@lower_builtin(total_of, types.VarArg(types.Any))
def lower_total_of(context, builder, sig, args):
    total = context.get_constant(types.float64, 0.0)
    for value, typ in zip(args, sig.args):
        total = builder.fadd(total, context.cast(builder, value, typ, types.float64))
    return total


def test_lower_builtin_with_vararg_of_any():
    run = njit(lambda a, b, c: total_of(a, b, c) + total_of(a))
    assert run(1, 2.5, True) == total_of(1, 2.5, True) + total_of(1)
