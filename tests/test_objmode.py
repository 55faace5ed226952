"""`with ember.objmode(...)` blocks inside `@njit`: the block runs as Python with the live
inputs, declared outputs come back checked; results equal CPython running the same function
(`py_func`, where `objmode` is a no-op context manager)."""

from __future__ import annotations

import gc
import sys
import traceback
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
import ember.runtime
from ember import njit, objmode, types
from ember.errors import UnsupportedError
from ember.extending import (
    NativeValue,
    box,
    make_attribute_wrapper,
    models,
    register_model,
    typeof_impl,
    unbox,
)
from ember.lowering import cgutils

SCALE = 3


def python_only_sort(values):
    return np.array(sorted(values.tolist(), reverse=True))  # a list round trip: not jittable


@njit
def scalars(x, n):
    a = n + 1
    with objmode(y="float64", k="int64"):
        y = float(np.float64(x) * a)
        k = len(str(10**30 + n))  # a big integer, then a string
    return y + k


@njit
def arrays_in_and_out(x, n):
    with objmode(y="float64[:]"):
        y = python_only_sort(x) * n
    return y.sum() + y[0]


@njit
def accumulate_in_loop(n):
    total = 0
    for i in range(n):
        with objmode(t="int64"):
            t = (i * SCALE) ** 2 % 7  # SCALE: a global read at run time
        total += t
    return total


@njit
def carried_through_loop(n):
    s = 0.5
    for i in range(n):
        with objmode(s="float64"):
            s = s * 1.5 + i
    return s


@njit
def output_reassigned_after(n):
    with objmode(y="float64[:]"):
        y = np.arange(n, dtype=np.float64)
        unused = y.sum()  # noqa: F841 - a block-local variable stays in the block
    y = y * 2
    return y


@njit
def tuple_outputs(x):
    with objmode(pair="UniTuple(float64, 2)", flag="boolean", z="complex128"):
        pair = (float(x), x * 2.5)
        flag = x > 1
        z = complex(x, -x)
    return pair[0] + pair[1] + (1.0 if flag else 0.0) + z.imag


@njit
def type_objects(n):
    with objmode(b=types.float64[:], m=ember.int64, c=types.int32):
        b = np.linspace(0.0, 1.0, n)
        m = n * 7
        c = np.int32(-3)
    return b.sum() + m + c


@njit
def array_made_in_compiled_code(n):
    a = np.arange(n) * 2.0
    with objmode(b="float64[:]", m="int64"):
        b = a[::2].copy()
        m = a.shape[0]
    return b, m, a


@njit
def writes_into_argument(a):
    with objmode():
        a[:] = np.cumsum(a)
    return a.sum()


@pytest.mark.parametrize("x, n", [(1.5, 2), (-3.25, 0), (1e10, 7)])
def test_scalars_equal_cpython(x, n):
    assert scalars(x, n) == scalars.py_func(x, n)


def test_arrays_pass_in_and_come_out():
    x = np.array([3.0, -1.0, 7.5, 2.0])
    assert arrays_in_and_out(x, 3) == arrays_in_and_out.py_func(x, 3)


@pytest.mark.parametrize("n", [0, 1, 10, 57])
def test_blocks_inside_loops(n):
    assert accumulate_in_loop(n) == accumulate_in_loop.py_func(n)
    assert carried_through_loop(n) == carried_through_loop.py_func(n)


def test_output_reassigned_after_the_block():
    np.testing.assert_array_equal(output_reassigned_after(5), output_reassigned_after.py_func(5))


@given(st.floats(-1e6, 1e6, allow_nan=False))
@settings(max_examples=40, deadline=None)
def test_tuples_booleans_complex(x):
    assert tuple_outputs(x) == tuple_outputs.py_func(x)


def test_type_objects_as_declarations():
    assert type_objects(6) == pytest.approx(type_objects.py_func(6), abs=0)


def test_arrays_from_compiled_code_and_runtime_memory():
    before = ember.runtime.stats()
    for n in (1, 5, 12):
        got = array_made_in_compiled_code(n)
        want = array_made_in_compiled_code.py_func(n)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
        np.testing.assert_array_equal(got[2], want[2])
        del got
    gc.collect()
    assert ember.runtime.stats().live == before.live


def test_writes_to_an_argument_are_seen():
    a = np.arange(6.0)
    b = a.copy()
    assert writes_into_argument(a) == writes_into_argument.py_func(b)
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------- references


@njit
def passes_through(a):
    with objmode(b="float64[:]"):
        b = a
    return b.sum()


@njit
def new_output_array(n):
    with objmode(b="int64[:]"):
        b = np.arange(n)
    return b[-1]


def test_no_reference_leaks_over_many_calls():
    a = np.ones(4)
    passes_through(a)
    new_output_array(3)
    gc.collect()
    refs = sys.getrefcount(a)
    before = ember.runtime.stats()
    for _ in range(10_000):
        passes_through(a)
        new_output_array(8)
    gc.collect()
    assert sys.getrefcount(a) == refs
    assert ember.runtime.stats().live == before.live


# ---------------------------------------------------------------------------- errors


@njit
def raises_inside(x):
    with objmode(y="int64"):
        y = int(x)
        if y > 3:
            raise ValueError("too big", y)
    return y


@njit
def calls_raiser(x):
    return raises_inside(x) + 1


def test_exception_inside_propagates_with_its_line():
    assert raises_inside(2.0) == 2
    with pytest.raises(ValueError) as info:
        raises_inside(5.0)
    assert info.value.args == ("too big", 5)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].filename == __file__
    assert frames[-1].line == 'raise ValueError("too big", y)'


def test_exception_crosses_jitted_callers():
    assert calls_raiser(1.0) == 2
    with pytest.raises(ValueError, match="too big"):
        calls_raiser(9.0)


@njit
def caught_in_compiled_code(x):
    try:
        with objmode(y="float64"):
            y = 1.0 / x
    except ZeroDivisionError:
        y = -1.0
    return y


@njit
def not_caught_by_other_class(x):
    try:
        with objmode(y="float64"):
            y = 1.0 / x
    except KeyError:
        y = -1.0
    return y


def test_try_except_in_compiled_code_matches_the_real_class():
    assert caught_in_compiled_code(4.0) == caught_in_compiled_code.py_func(4.0)
    assert caught_in_compiled_code(0.0) == caught_in_compiled_code.py_func(0.0) == -1.0
    with pytest.raises(ZeroDivisionError):
        not_caught_by_other_class(0.0)


@njit
def wrong_output_type(x):
    with objmode(y="float64[:]"):
        y = [x, x]
    return y


@njit
def out_of_range(x):
    with objmode(y="int8"):
        y = x * 1000
    return y


def test_output_mismatch_names_variable_and_types():
    with pytest.raises(TypeError) as info:
        wrong_output_type(1.0)
    message = str(info.value)
    assert "'y'" in message and "array(float64, 1d, A)" in message and "list" in message
    with pytest.raises(TypeError, match="'y' was declared as int8"):
        out_of_range(1)


def test_return_inside_a_block_is_refused():
    @njit
    def returns_early(x):
        with objmode(y="int64"):
            y = x
            return y
        return 0

    with pytest.raises(UnsupportedError, match="'return' inside a 'with objmode' block"):
        returns_early(1)


def test_bad_type_string_is_refused():
    @njit
    def bad_type(x):
        with objmode(y="float65"):
            y = x
        return y

    with pytest.raises(UnsupportedError, match="objmode output 'y'"):
        bad_type(1.0)


def test_unmarshallable_input_is_refused():
    @njit
    def iterator_input(n):
        xs = iter(range(n))  # (lists, sets and typed containers cross: test_containers_suite2)
        with objmode(y="int64"):
            y = next(xs)
        return y

    with pytest.raises(Exception, match="input 'xs'"):
        iterator_input(1)


# ---------------------------------------------------------------------------- other spellings


def test_objmode_is_a_noop_context_manager_in_python():
    with objmode(y="int64"):
        y = 3
    assert y == 3
    with objmode:
        pass


def test_numba_paths():
    from ember.core.withcontexts import objmode_context

    assert ember.objmode is objmode_context


def test_closures_nogil_and_no_outputs(capsys):
    def make(k):
        @njit(nogil=True)
        def g(x):
            with objmode(z="int64"):
                z = x * k + SCALE
            with objmode():
                print("z is", z, {"k": k})
            return z

        return g

    assert make(5)(2) == 13
    assert capsys.readouterr().out == "z is 13 {'k': 5}\n"


SEEN: list = []


@njit
def hands_over(a):
    with objmode(b="float64[:]"):
        SEEN.append(a)
        b = a[::-1]
    with objmode():
        SEEN.append(b)
    return b


def test_arrays_keep_identity_and_memory():
    SEEN.clear()
    a = np.arange(5.0)
    b = hands_over(a)
    assert SEEN[0] is a  # the argument itself, not a copy or a view
    assert np.shares_memory(SEEN[1], a) and np.shares_memory(b, a)
    np.testing.assert_array_equal(b, a[::-1])
    SEEN.clear()


def test_nopython_false_uses_nopython_where_it_types():
    fallback = ember.jit(nopython=False)(lambda x: x * 2)
    assert fallback(21) == 42 and list(fallback.nopython.overloads) == [(ember.int64,)]
    with pytest.warns(ember.errors.EmberWarning, match="falls back to object mode"):
        assert fallback(Fraction(1, 3)) == Fraction(2, 3)  # no nopython type for a Fraction
    assert fallback(1.5) == 3.0 and (ember.float64,) in fallback.nopython.overloads


class Span:
    """A user class that compiled code sees as a struct (its @box/@unbox cross objmode too)."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi


class SpanType(types.Type):
    def __init__(self):
        super().__init__(name="ObjModeTestSpan")


span_type = SpanType()


@typeof_impl.register(Span)
def _typeof_span(val, c):
    return span_type


@register_model(SpanType)
class _SpanModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        models.StructModel.__init__(self, dmm, fe_type, [("lo", types.float64)])


make_attribute_wrapper(SpanType, "lo", "lo")


@unbox(SpanType)
def _unbox_span(typ, obj, c):
    lo_obj = c.pyapi.object_getattr_string(obj, "lo")
    span = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    span.lo = c.pyapi.float_as_double(lo_obj)
    c.pyapi.decref(lo_obj)
    return NativeValue(
        span._getvalue(), is_error=cgutils.is_not_null(c.builder, c.pyapi.err_occurred())
    )


@box(SpanType)
def _box_span(typ, val, c):
    span = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    lo_obj = c.pyapi.float_from_double(span.lo)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Span))
    result = c.pyapi.call_function_objargs(cls, (lo_obj, lo_obj))
    c.pyapi.decref(lo_obj)
    c.pyapi.decref(cls)
    return result


@njit
def widen(span):
    with objmode(out=span_type):
        out = Span(span.lo - 1.5, None)
    return out.lo


def test_types_with_box_and_unbox_cross_a_block():
    assert widen(Span(4.0, 0)) == widen.py_func(Span(4.0, 0)) == 2.5
