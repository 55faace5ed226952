"""pkgs11b: constructs of third-party Numba extensions (pandas' numba engine, rocket-fft...)
reproduced small: `@type_callable` typers called with keyword arguments, typed dicts of an
extension's values read back from Python.

Values are checked against CPython running the same functions (`py_func`), NumPy, or worked by
hand.
"""

import numpy as np
import pytest

import ember
from ember import types
from ember.extending import (
    box,
    lower_builtin,
    make_attribute_wrapper,
    models,
    register_model,
    type_callable,
)
from ember.lowering import cgutils
from tests.oracle import assert_frees_all

# ------------------------------------------------------------------ an extension type: Scaled


class Scaled:
    """Values with a scale factor (pure Python: what the native value boxes into)."""

    def __init__(self, values, scale=1.0):
        self.values = values
        self.scale = scale

    def total(self):
        return float(np.sum(self.values)) * self.scale


class ScaledType(types.Type):
    def __init__(self, dtype):
        self.dtype = dtype
        super().__init__(name=f"Scaled({dtype})")

    @property
    def array_type(self):
        return types.Array(self.dtype, 1, "C")


@register_model(ScaledType)
class _ScaledModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [("values", fe_type.array_type), ("scale", types.float64)]
        super().__init__(dmm, fe_type, members)


make_attribute_wrapper(ScaledType, "values", "values")
make_attribute_wrapper(ScaledType, "scale", "scale")


@type_callable(Scaled)
def _type_scaled(context):
    def typer(values, scale=None):  # pandas' Series(data, index, name=None) has this shape
        if isinstance(values, types.Array) and values.ndim == 1 and values.layout == "C":
            return ScaledType(values.dtype)

    return typer


def _make_scaled(context, builder, sig, values, scale):
    scaled = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    scaled.values = values
    scaled.scale = scale
    if context.enable_nrt:  # the struct holds its own reference to the array
        context.nrt.incref(builder, sig.args[0], values)
    return scaled._getvalue()


@lower_builtin(Scaled, types.Array)
def _scaled_unit(context, builder, sig, args):
    return _make_scaled(context, builder, sig, args[0], context.get_constant(types.float64, 1.0))


@lower_builtin(Scaled, types.Array, types.float64)
def _scaled_with_scale(context, builder, sig, args):
    return _make_scaled(context, builder, sig, args[0], args[1])


@box(ScaledType)
def _box_scaled(typ, val, c):
    scaled = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Scaled))
    values = c.box(typ.array_type, scaled.values)
    scale = c.box(types.float64, scaled.scale)
    obj = c.pyapi.call_function_objargs(cls, (values, scale))
    c.pyapi.decref(values)
    c.pyapi.decref(scale)
    c.pyapi.decref(cls)
    return obj


# ------------------------------------------------------------------ typer keyword arguments


def test_type_callable_typer_takes_keyword_arguments():
    """`Scaled(a, scale=s)`: the keyword folds into the typer's parameter order (Numba's rule),
    so the 2-argument @lower_builtin serves it; an omitted keyword uses the 1-argument one."""

    @ember.njit
    def totals(a, s):
        by_keyword = Scaled(a, scale=s)
        positional = Scaled(a, s)
        omitted = Scaled(a)
        return (
            by_keyword.values.sum() * by_keyword.scale,
            positional.values.sum() * positional.scale,
            omitted.values.sum() * omitted.scale,
        )

    for a, s in [(np.arange(5.0), 2.0), (np.array([]), -1.5), (np.array([1e300, 1e300]), 0.5)]:
        total = Scaled(a, s).total()
        assert totals(a, s) == (total, total, Scaled(a).total())


def _three_parameters(a, b=None, c=None):
    return a


def test_type_callable_keyword_after_omitted_parameter_is_a_typing_error():
    """A keyword the typer's positional order cannot hold (after an omitted parameter) is a
    clear TypingError, as in Numba, not a crash in lowering."""

    @type_callable(_three_parameters)
    def _typer(context):
        def typer(a, b=None, c=None):
            return types.float64

        return typer

    @ember.njit
    def call(x):
        return _three_parameters(x, c=x)

    with pytest.raises(ember.errors.TypingError, match="unsupported call signature"):
        call(1.0)


# ------------------------------------------------------------------ dicts of extension values


def _scaled_by_column(values, scales):
    out = {}
    for j in range(values.shape[1]):
        out[j] = Scaled(np.ascontiguousarray(values[:, j]), scales[j])
    return out


def test_typed_dict_of_extension_values_boxes_through_its_box():
    """A returned typed Dict whose values are an extension type (pandas' DataFrame.apply with
    engine="numba" returns {column: Series}): iterating it from Python boxes each value with
    the type's @box, and nothing leaks."""
    jitted = ember.njit(_scaled_by_column)
    values = np.arange(12.0).reshape(4, 3)
    scales = np.array([1.0, -2.0, 0.5])
    got = dict(jitted(values, scales))
    expected = _scaled_by_column(values, scales)
    assert sorted(got) == sorted(expected)
    for key, scaled in expected.items():
        assert isinstance(got[key], Scaled)
        np.testing.assert_array_equal(got[key].values, scaled.values)
        assert got[key].scale == scaled.scale
    assert list(jitted(values, scales).values())[2].total() == expected[2].total()
    assert dict(jitted(np.empty((3, 0)), scales)) == {}

    def roundtrip(values, scales):
        return [s.total() for s in jitted(values, scales).values()]

    assert_frees_all(roundtrip, lambda: values.copy(), lambda: scales.copy(), calls=50)


# ------------------------------------------------------------------ register_jitable closures


def test_register_jitable_closure_compiles_per_caller_options():
    """pandas re-registers a user's function for each set of engine_kwargs (nogil, parallel):
    the implementation is compiled per set of the caller's options (Numba's rule), so a caller
    with other options sees the closure's current cells."""
    from ember.extending import register_jitable

    factor = 2

    def scaled(values):
        return values.sum() * factor

    register_jitable(scaled)

    @ember.njit(nogil=True)
    def with_nogil(values):
        return scaled(values)

    values = np.array([1.0, -2.5, 4.0])
    assert with_nogil(values) == scaled(values) == 5.0
    factor = -3
    register_jitable(scaled)

    @ember.njit
    def plain(values):
        return scaled(values)

    assert plain(values) == scaled(values) == -7.5


# ------------------------------------------------------------------ rocket-fft's registration


def _window_sum(a, start=0, stop=None):
    """sum(a[start:stop]) (pure Python: the reference and the registered global)."""
    return float(sum(a[start:stop]))


def _window_sum_stub(a, start=0, stop=None): ...


def _register_window_sum():
    """As rocket-fft registers numpy.fft.fft: a template placing the arguments by a stub's
    signature with fold_arguments (omitted ones as types.Omitted), one VarArg lowering."""
    import inspect

    from ember.core.typing.templates import AbstractTemplate, fold_arguments, infer_global
    from ember.core.typing.templates import signature as make_signature
    from llvmlite import ir as llvm

    pysig = inspect.signature(_window_sum_stub)

    class WindowSum(AbstractTemplate):
        key = _window_sum

        def generic(self, args, kws):
            folded = fold_arguments(
                pysig,
                args,
                kws,
                lambda index, param, value: value,
                lambda index, param, default: types.Omitted(default),
                lambda index, param, values: types.Tuple(values),
            )
            return make_signature(types.float64, *folded).replace(pysig=pysig)

    infer_global(_window_sum, types.Function(WindowSum))

    def bound(context, builder, typ, value, length, fallback):
        """An int64 bound: the omitted default or None -> `fallback`, negatives from the end."""
        if isinstance(typ, (types.Omitted, types.NoneType)) and (
            not isinstance(typ, types.Omitted) or typ.value is None
        ):
            return fallback
        if isinstance(typ, types.Omitted):
            value = llvm.Constant(llvm.IntType(64), typ.value)
        negative = builder.icmp_signed("<", value, llvm.Constant(value.type, 0))
        wrapped = builder.select(negative, builder.add(value, length), value)
        low = builder.select(
            builder.icmp_signed("<", wrapped, llvm.Constant(value.type, 0)),
            llvm.Constant(value.type, 0),
            wrapped,
        )
        return builder.select(builder.icmp_signed(">", low, length), length, low)

    @lower_builtin(_window_sum, types.VarArg(types.Any))
    def _lower(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        length = builder.extract_value(array.shape, 0)
        zero = llvm.Constant(llvm.IntType(64), 0)
        start = bound(context, builder, sig.args[1], args[1], length, zero)
        stop = bound(context, builder, sig.args[2], args[2], length, length)
        total = cgutils.alloca_once_value(builder, llvm.Constant(llvm.DoubleType(), 0.0))
        with cgutils.for_range_slice(builder, start, stop, zero.type(1)) as (index, _):
            double = llvm.DoubleType()
            item = builder.load(builder.gep(array.data, [index], source_etype=double), typ=double)
            builder.store(builder.fadd(builder.load(total), item), total)
        return builder.load(total)


_register_window_sum()


def test_fold_arguments_template_with_one_vararg_lowering():
    """Positional, keyword and omitted arguments reach the lowering placed by the stub's
    signature, omitted ones as types.Omitted with their defaults."""

    @ember.njit
    def sums(a, i, j):
        return (
            _window_sum(a),
            _window_sum(a, i),
            _window_sum(a, i, j),
            _window_sum(a, stop=j),
            _window_sum(a, start=i, stop=j),
            _window_sum(a, i, None),
        )

    a = np.array([1.5, -2.0, 4.0, 8.0, 0.25])
    for i in range(-7, 7):
        for j in range(-7, 7):
            assert sums(a, i, j) == sums.py_func(a.tolist(), i, j), (i, j)
    assert sums(np.array([]), 0, 3) == (0.0,) * 6


def test_fold_arguments_handlers_and_errors():
    """Each parameter goes through its handler in order; *args as a tuple (empty when none
    are passed); arguments that do not bind raise TypeError, as inspect's bind does."""
    import inspect

    from ember.core.typing.templates import fold_arguments

    def stub(a, b=2, *rest, c=3):
        pass

    pysig = inspect.signature(stub)

    def fold(args, kws):
        return fold_arguments(
            pysig,
            args,
            kws,
            lambda i, p, v: ("passed", i, v),
            lambda i, p, d: ("default", i, d),
            lambda i, p, vs: ("star", i, vs),
        )

    assert fold((1,), {}) == (
        ("passed", 0, 1),
        ("default", 1, 2),
        ("star", 2, ()),
        ("default", 3, 3),
    )
    assert fold((1, 5, 6, 7), {"c": 9}) == (
        ("passed", 0, 1),
        ("passed", 1, 5),
        ("star", 2, (6, 7)),
        ("passed", 3, 9),
    )
    assert fold((), {"a": 4, "b": 0})[:2] == (("passed", 0, 4), ("passed", 1, 0))
    with pytest.raises(TypeError):
        fold((), {})
    with pytest.raises(TypeError):
        fold((1,), {"d": 1})


# ------------------------------------------------------------------ ListInstance, NRT C API


def test_list_instance_reads_size_capacity_items_and_data():
    """An @intrinsic reading a reflected list with Numba's ListInstance: its size, the item
    storage (NULL for an empty list), and items by index."""
    from llvmlite import ir as llvm

    from ember.cpython.listobj import ListInstance
    from ember.extending import intrinsic

    @intrinsic
    def list_facts(typingctx, lst):
        sig = types.UniTuple(types.int64, 4)(lst)

        def codegen(context, builder, sig, args):
            instance = ListInstance(context, builder, sig.args[0], args[0])
            i64 = llvm.IntType(64)
            size = instance.size
            data = builder.ptrtoint(instance.data, i64)
            total = cgutils.alloca_once_value(builder, i64(0))
            with cgutils.for_range(builder, size) as loop:
                item = instance.getitem(loop.index)
                builder.store(builder.add(builder.load(total), item), total)
            first_via_data = cgutils.alloca_once_value(builder, i64(-1))
            with builder.if_then(builder.icmp_signed(">", size, i64(0))):
                pointer = builder.inttoptr(data, i64.as_pointer())
                builder.store(builder.load(pointer), first_via_data)
            enough_room = builder.zext(builder.icmp_signed(">=", instance.allocated, size), i64)
            facts = [size, builder.load(total), builder.load(first_via_data), enough_room]
            return context.make_tuple(builder, sig.return_type, facts)

        return sig, codegen

    @ember.njit
    def facts(n):
        lst = [0]
        lst.clear()
        for i in range(n):
            lst.append(i * i - 3)
        return list_facts(lst)

    for n in (0, 1, 2, 5, 100):
        items = [i * i - 3 for i in range(n)]
        assert facts(n) == (n, sum(items), items[0] if items else -1, 1)


def test_nrt_c_helpers_get_api_allocates_and_releases():
    """`_nrt_python.c_helpers["get_api"]`: a C function returning the runtime's API table;
    a block allocated through the table and released through it is freed."""
    import ctypes

    from ember.core.runtime import _nrt_python

    get_api = ctypes.CFUNCTYPE(ctypes.c_void_p)(_nrt_python.c_helpers["get_api"])
    table = (ctypes.c_void_p * 6).from_address(get_api())
    allocate = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t)(table[0])
    acquire, release = (ctypes.CFUNCTYPE(None, ctypes.c_void_p)(table[i]) for i in (3, 4))
    get_data = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(table[5])
    before = ember.runtime.stats()
    meminfo = allocate(64)
    data = get_data(meminfo)
    ctypes.memmove(data, bytes(range(64)), 64)
    assert ctypes.string_at(data, 64) == bytes(range(64))
    acquire(meminfo)
    release(meminfo)
    assert ember.runtime.stats().live == before.live + 1
    release(meminfo)
    assert ember.runtime.stats().live == before.live


# ------------------------------------------------------------------ views no block owns


def test_returned_view_without_meminfo_or_parent_boxes_over_the_argument():
    """rocket-fft's scipy.fft(x, overwrite_x=True) returns the input's memory as a value with
    neither meminfo nor parent (a new array object, as SciPy's): it boxes as a new ndarray
    viewing the argument (which it keeps alive), not as the argument itself."""
    import gc

    from llvmlite import ir as llvm

    from ember.extending import intrinsic

    @intrinsic
    def unowned_view(typingctx, a):
        sig = a(a)

        def codegen(context, builder, sig, args):
            array = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
            null = llvm.Constant(array.parent.type, None)
            array.meminfo = llvm.Constant(array.meminfo.type, None)
            array.parent = null
            return array._getvalue()

        return sig, codegen

    @ember.njit
    def view(a):
        return unowned_view(a)

    @ember.njit
    def view_with_flag(a, flag=True):
        return unowned_view(a) if flag else a

    for x in (np.arange(6.0), np.arange(12).reshape(3, 4), np.ones((2, 2), np.complex64).T):
        for got in (view(x), view_with_flag(x), view_with_flag(x, flag=True)):
            assert got is not x
            assert np.shares_memory(got, x)
            np.testing.assert_array_equal(got, x)
            assert got.strides == x.strides
    got = view(np.arange(1000.0))
    gc.collect()
    np.testing.assert_array_equal(got, np.arange(1000.0))  # the argument lives on in its base
