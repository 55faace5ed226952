"""Issue 4: the extension API (`ember.extending`, seed 004) and ember's library built on it.

Expected values are computed independently: by CPython on the same inputs, by hand, or by
reading the data a native implementation wrote.
"""

from __future__ import annotations

import ctypes
import math
import operator
import re
import sys

import numpy as np
import pytest
from llvmlite import ir as llvm

import ember
import ember.extending as extending
from ember import njit, types
from ember.errors import TypingError
from ember.extending import (
    AbstractTemplate,
    AttributeTemplate,
    CallableTemplate,
    ConcreteTemplate,
    NativeValue,
    box,
    cgutils,
    infer,
    infer_getattr,
    infer_global,
    intrinsic,
    lower_builtin,
    lower_cast,
    lower_getattr,
    lower_getattr_generic,
    lower_setattr_generic,
    make_attribute_wrapper,
    models,
    overload,
    overload_attribute,
    overload_method,
    register_model,
    register_typeof_hook,
    signature,
    type_callable,
    typeof_impl,
    unbox,
)
from ember.lowering.registry import registry as lowering_registry
from ember.typing.templates import registry as typing_registry

# ============================================================================ the Interval type
# The walk-through of docs/extending.md: a Python class, its ember type, a data model, typeof,
# attributes, a constructor, a method, a property, and boxing both ways.


class Interval:
    """A half-open interval [lo, hi)."""

    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi

    def __repr__(self):
        return f"Interval({self.lo!r}, {self.hi!r})"


class IntervalType(types.Type):
    def __init__(self):
        super().__init__(name="Interval")


interval_type = IntervalType()


@typeof_impl.register(Interval)
def typeof_interval(val, c):
    return interval_type


@register_model(IntervalType)
class IntervalModel(models.StructModel):
    def __init__(self, dmm, fe_type):  # Numba's spelling of a model constructor
        members = [("lo", types.float64), ("hi", types.float64)]
        models.StructModel.__init__(self, dmm, fe_type, members)


make_attribute_wrapper(IntervalType, "lo", "lo")
make_attribute_wrapper(IntervalType, "hi", "hi")


@intrinsic
def new_interval(typingctx, lo, hi):
    """Build the native struct from two float64 (the arguments are converted to float64)."""
    sig = interval_type(types.float64, types.float64)

    def codegen(context, builder, signature, args):
        interval = cgutils.create_struct_proxy(interval_type)(context, builder)
        interval.lo, interval.hi = args
        return interval._getvalue()

    return sig, codegen


@overload(Interval)
def interval_constructor(lo, hi):
    if isinstance(lo, (types.Integer, types.Float)) and isinstance(
        hi, (types.Integer, types.Float)
    ):

        def impl(lo, hi):
            return new_interval(lo, hi)

        return impl


@overload_method(IntervalType, "contains")
def interval_contains(interval, x):
    if isinstance(x, (types.Integer, types.Float)):

        def impl(interval, x):
            return interval.lo <= x < interval.hi

        return impl


@overload_attribute(IntervalType, "width")
def interval_width(interval):
    def get(interval):
        return interval.hi - interval.lo

    return get


@unbox(IntervalType)
def unbox_interval(typ, obj, c):
    lo_obj = c.pyapi.object_getattr_string(obj, "lo")
    hi_obj = c.pyapi.object_getattr_string(obj, "hi")
    interval = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    interval.lo = c.pyapi.float_as_double(lo_obj)
    interval.hi = c.pyapi.float_as_double(hi_obj)
    c.pyapi.decref(lo_obj)
    c.pyapi.decref(hi_obj)
    is_error = cgutils.is_not_null(c.builder, c.pyapi.err_occurred())
    return NativeValue(interval._getvalue(), is_error=is_error)


@box(IntervalType)
def box_interval(typ, val, c):
    interval = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    lo_obj = c.pyapi.float_from_double(interval.lo)
    hi_obj = c.pyapi.float_from_double(interval.hi)
    class_obj = c.pyapi.unserialize(c.pyapi.serialize_object(Interval))
    result = c.pyapi.call_function_objargs(class_obj, (lo_obj, hi_obj))
    c.pyapi.decref(lo_obj)
    c.pyapi.decref(hi_obj)
    c.pyapi.decref(class_obj)
    return result


def test_interval_typeof_and_model():
    assert ember.typeof(Interval(1.0, 2.0)) is interval_type
    assert extending.typeof(Interval(1, 2)) is interval_type
    model = models.model_of(interval_type)
    assert isinstance(model, IntervalModel)
    assert model.member_names == ["lo", "hi"]
    assert model.get_member_fe_type("hi") is types.float64
    assert str(model.value_type) == "{double, double}"


def test_interval_attributes_method_and_property_in_compiled_code():
    @njit
    def describe(interval):
        return (
            interval.lo,
            interval.hi,
            interval.width,
            interval.contains(2),
            interval.contains(3.5),
        )

    assert describe(Interval(1.5, 3.5)) == (1.5, 3.5, 2.0, True, False)
    assert describe(Interval(-1, 5)) == (-1.0, 5.0, 6.0, True, True)


def test_interval_method_in_a_jitted_loop():
    @njit
    def count_inside(interval, n):
        inside = 0
        for i in range(n):
            if interval.contains(i * 0.25):
                inside += 1
        return inside

    for lo, hi, n in [(1.0, 3.0, 40), (0.0, 0.25, 10), (-5.0, -1.0, 10), (2.2, 9.9, 100)]:
        expected = sum(1 for i in range(n) if lo <= i * 0.25 < hi)
        assert count_inside(Interval(lo, hi), n) == expected


def test_interval_constructed_in_a_loop_and_returned_to_python():
    @njit
    def grow(interval, steps):
        for _ in range(steps):
            interval = Interval(interval.lo - 1, interval.hi + interval.width)
        return interval

    lo, hi = 0.5, 2.0
    for _ in range(4):
        lo, hi = lo - 1, hi + (hi - lo)
    result = grow(Interval(0.5, 2.0), 4)
    assert type(result) is Interval
    assert (result.lo, result.hi) == (lo, hi) == (-3.5, 35.5)
    assert sys.getrefcount(result) == 2  # only `result` and getrefcount's argument


def test_interval_constructor_from_integers_and_mixed_return():
    @njit
    def make(lo, hi):
        interval = Interval(lo, hi)
        return interval.width, interval

    width, interval = make(2, 7)
    assert width == 5.0
    assert isinstance(interval, Interval) and (interval.lo, interval.hi) == (2.0, 7.0)


def test_interval_arguments_are_not_leaked():
    @njit
    def width(interval):
        return interval.width

    argument = Interval(1.0, 4.0)
    before = sys.getrefcount(argument), sys.getrefcount(argument.lo)
    for _ in range(100):
        assert width(argument) == 3.0
    assert (sys.getrefcount(argument), sys.getrefcount(argument.lo)) == before


def test_interval_unbox_error_and_exceptions_propagate():
    @njit
    def checked_width(interval):
        if interval.hi < interval.lo:
            raise ValueError("empty interval")
        return interval.width

    assert checked_width(Interval(0.0, 1.5)) == 1.5
    with pytest.raises(ValueError, match="empty interval"):
        checked_width(Interval(2.0, 1.0))
    with pytest.raises(TypeError, match="must be real number, not str"):
        checked_width(Interval("a", 1.0))


def test_interval_struct_attributes_are_read_only():
    @njit
    def assign(interval):
        interval.lo = 3.0
        return interval

    with pytest.raises(TypingError, match="Cannot set attribute 'lo' of Interval"):
        assign(Interval(1.0, 2.0))


def test_boxing_wrapper_mixes_user_and_builtin_types():
    @njit
    def mixed(interval, pair, flag, z, nothing, small):
        return (interval, pair[1] + interval.lo, flag, z * 2, nothing, small + 1, (1.5, flag))

    result = mixed(Interval(1.0, 3.0), (1, 2.5), True, 3j, None, np.int8(5))
    assert isinstance(result[0], Interval) and (result[0].lo, result[0].hi) == (1.0, 3.0)
    assert result[1:] == (3.5, True, 6j, None, 6, (1.5, True))
    assert [type(v) for v in result[1:6]] == [float, bool, complex, type(None), int]


# ============================================================================ a primitive type


class Meters:
    def __init__(self, value):
        self.value = value


class MetersType(types.Type):
    def __init__(self):
        super().__init__(name="Meters")


meters_type = MetersType()
Meters._ember_type_ = meters_type  # typeof through the class attribute


@register_model(MetersType)
class MetersModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, llvm.DoubleType())


@unbox(MetersType)
def unbox_meters(typ, obj, c):
    value = c.pyapi.object_getattr_string(obj, "value")
    native = c.pyapi.float_as_double(value)
    c.pyapi.decref(value)
    return NativeValue(native, is_error=cgutils.is_not_null(c.builder, c.pyapi.err_occurred()))


@box(MetersType)
def box_meters(typ, val, c):
    value = c.pyapi.float_from_double(val)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Meters))
    result = c.pyapi.call_function_objargs(cls, [value])
    c.pyapi.decref(value)
    c.pyapi.decref(cls)
    return result


@intrinsic
def as_meters(typingctx, x):
    return meters_type(types.float64), lambda context, builder, sig, args: args[0]


@intrinsic
def meters_value(typingctx, m):
    return types.float64(meters_type), lambda context, builder, sig, args: args[0]


@overload(operator.add)
def add_meters(a, b):
    if isinstance(a, MetersType) and isinstance(b, MetersType):
        return lambda a, b: as_meters(meters_value(a) + meters_value(b))


def test_primitive_model_and_an_operator_overload():
    assert isinstance(models.model_of(meters_type), MetersModel)

    @njit
    def total(a, b, c):
        return a + b + c

    result = total(Meters(1.5), Meters(2.0), Meters(-0.25))
    assert type(result) is Meters and result.value == 3.25

    @njit
    def numbers_still_add(x, y):
        return x + y

    assert numbers_still_add(2, 3) == 5


# ============================================================================ typeof hooks


class DeclaredOnClass:
    _numba_type_ = types.float64


class DeclaredOnInstance:
    def __init__(self, ember_type):
        self._ember_type_ = ember_type


class Protocol:
    """A family of classes no list can name: anything with `__ember_interval__`."""


def test_declared_types_on_class_and_instance():
    assert ember.typeof(DeclaredOnClass()) is types.float64
    assert ember.typeof(DeclaredOnInstance(types.int32)) is types.int32
    assert ember.typeof(DeclaredOnInstance(interval_type)) is interval_type


def test_generic_typeof_hook_without_monkeypatching():
    @register_typeof_hook
    def typeof_interval_like(val, c):
        if hasattr(type(val), "__ember_interval__"):
            assert c.purpose == "argument"
            return interval_type
        return None

    class Anything:
        __ember_interval__ = True

        def __init__(self):
            self.lo, self.hi = 3.0, 8.0

    assert ember.typeof(Anything()) is interval_type
    with pytest.raises(ValueError):
        ember.typeof(Protocol())

    @njit
    def width(interval):
        return interval.width

    assert width(Anything()) == 5.0


# ============================================================================ seed 004 examples


def test_seed_len_of_tuple_is_an_overload_in_embers_library():
    keys = [t.__name__ for t in typing_registry.functions.get(len, ())]
    assert "Overload_tuple_len" in keys

    @njit
    def lengths(a, b):
        return len(a), len(b), len(())

    assert lengths((1, 2.0, 3), (1.5,)) == (3, 1, 0)


def test_seed_len_example_for_a_new_type():
    class Bag:
        def __init__(self, n):
            self.n = n

    class BagType(types.Type):
        def __init__(self, n):
            self.n = n
            super().__init__(name=f"Bag({n})")

    typeof_impl.register(Bag)(lambda val, c: BagType(val.n))
    register_model(BagType)(models.OpaqueModel)

    @unbox(BagType)
    def unbox_bag(typ, obj, c):
        return NativeValue(c.pyapi.get_null_object())

    @overload(len)
    def bag_len(x):
        if isinstance(x, BagType):
            n = x.n

            def len_impl(x):
                return n

            return len_impl

    @njit
    def size(bag):
        return len(bag) * 10

    assert size(Bag(3)) == 30
    assert size(Bag(7)) == 70


@pytest.fixture
def restore_casts():
    saved = list(lowering_registry.casts)
    yield
    lowering_registry.casts[:] = saved


def test_seed_float_to_integer_lower_cast(restore_casts):
    @lower_cast(types.Float, types.Integer)
    def float_to_integer(context, builder, fromty, toty, val):
        lty = context.get_value_type(toty)
        if toty.signed:
            return builder.fptosi(val, lty)
        else:
            return builder.fptoui(val, lty)

    @njit("int64(float64)")
    def to_signed(x):
        return x

    @njit("uint8(float64)")
    def to_unsigned(x):
        return x

    assert to_signed(2.75) == 2 and to_signed(-2.75) == -2
    assert to_unsigned(200.5) == 200
    signed_ir = to_signed.inspect_llvm((types.float64,))
    unsigned_ir = to_unsigned.inspect_llvm((types.float64,))
    assert "fptosi double" in signed_ir and "fptosi.sat" not in signed_ir
    assert "fptoui double" in unsigned_ir and "fptoui.sat" not in unsigned_ir


def test_lower_cast_dispatches_on_both_types(restore_casts):
    seen = []

    @lower_cast(types.Float, types.Integer)
    def record(context, builder, fromty, toty, val):
        seen.append((fromty, toty))
        return builder.fptosi(val, context.get_value_type(toty))

    @njit("int32(float32)")
    def narrow(x):
        return x

    assert narrow(np.float32(-7.9)) == -7
    assert seen == [(types.float32, types.int32)]


# ---------------------------------------------------------------------------- array examples


def _arrays_or_skip(probe, *args):
    """Skip (with the reason) unless ember can compile the array features a test needs."""
    try:
        njit(probe)(*args)
    except Exception as error:  # noqa: BLE001 - any failure means "not supported yet"
        last = str(error).strip().splitlines()[-1] if str(error).strip() else ""
        pytest.skip(
            f"ember cannot compile these array operations yet: {type(error).__name__}: {last}"
        )


@pytest.fixture
def restore_np_where():
    """This test's np.where overload takes every array call: remove it afterwards, so later
    tests in the same worker get NumPy's np.where again."""
    from ember.lowering.registry import registry as lowering
    from ember.typing.templates import registry as typing

    saved = [list(r.functions.get(np.where, [])) for r in (typing, lowering)]
    yield
    for r, templates in zip((typing, lowering), saved):
        r.functions[np.where] = templates


def test_seed_np_where_overload(restore_np_where):
    def probe(cond, x, y):
        res = np.empty_like(x)
        cf, xf, rf = cond.flat, x.flat, res.flat
        for i in range(cond.size):
            rf[i] = xf[i] if cf[i] else y.flat[i]
        for idx, c in np.ndenumerate(cond):
            res[idx] = x[idx] if c else y[idx]
        return res, np.full_like(x[0], x[0]), x.shape != cond.shape

    a = np.arange(6.0)
    _arrays_or_skip(probe, a > 2, a, -a)

    asked = []

    @overload(np.where)
    def where(cond, x, y):
        asked.append((cond, x, y))
        if isinstance(cond, types.Array):
            if not (isinstance(x, types.Array) and isinstance(y, types.Array)):
                return None  # decline: the registration outlives this test (scalars after it)
            if all(ty.layout == "C" for ty in (cond, x, y)):

                def where_impl(cond, x, y):
                    shape = cond.shape
                    if x.shape != shape or y.shape != shape:
                        raise ValueError("all inputs should have the same shape")
                    res = np.empty_like(x)
                    cf = cond.flat
                    xf = x.flat
                    yf = y.flat
                    rf = res.flat
                    for i in range(cond.size):
                        rf[i] = xf[i] if cf[i] else yf[i]
                    return res
            else:

                def where_impl(cond, x, y):
                    shape = cond.shape
                    if x.shape != shape or y.shape != shape:
                        raise ValueError("all inputs should have the same shape")
                    res = np.empty_like(x)
                    for idx, c in np.ndenumerate(cond):
                        res[idx] = x[idx] if c else y[idx]
                    return res
        else:

            def where_impl(cond, x, y):
                scal = x if cond else y
                return np.full_like(scal, scal)

        return where_impl

    @njit
    def select(cond, x, y):
        return np.where(cond, x, y)

    x = np.arange(12.0).reshape(3, 4)
    y = -x
    for cond in (x > 4, (x % 3 == 0)[:, ::-1], np.zeros((3, 4), dtype=bool)):
        np.testing.assert_array_equal(select(cond, x, y), np.where(cond, x, y))
    with pytest.raises(ValueError, match="same shape"):
        select(x > 4, x, y[:2])


def test_seed_nbytes_overload_attribute():
    def probe(arr):
        return arr.size * arr.itemsize

    _arrays_or_skip(probe, np.arange(3.0))

    @overload_attribute(types.Array, "nbytes")
    def array_nbytes(arr):
        def get(arr):
            return arr.size * arr.itemsize

        return get

    @njit
    def nbytes(arr):
        return arr.nbytes

    for arr in (np.arange(10.0), np.zeros((3, 5), np.int32), np.ones(7, np.uint8)[::2]):
        assert nbytes(arr) == arr.nbytes


def test_seed_take_overload_method():
    def probe(arr, indices):
        n = indices.shape[0]
        res = np.empty(n, arr.dtype)
        for i in range(n):
            res[i] = arr[indices[i]]
        return res

    _arrays_or_skip(probe, np.arange(5.0), np.array([1, 3]))

    @overload_method(types.Array, "take")
    def array_take(arr, indices):
        if isinstance(indices, types.Array):

            def take_impl(arr, indices):
                n = indices.shape[0]
                res = np.empty(n, arr.dtype)
                for i in range(n):
                    res[i] = arr[indices[i]]
                return res

            return take_impl

    @njit
    def take(arr, indices):
        return arr.take(indices)

    arr = np.arange(10.0) ** 2
    indices = np.array([9, 0, 4, 4, -1])
    np.testing.assert_array_equal(take(arr, indices), arr.take(indices))


# ============================================================================ typing templates


def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@infer_global(clamp)
class ClampTemplate(ConcreteTemplate):
    cases = [
        signature(types.int64, types.int64, types.int64, types.int64),
        signature(types.float64, types.float64, types.float64, types.float64),
    ]


@lower_builtin(clamp, types.Integer, types.Integer, types.Integer)
@lower_builtin(clamp, types.Float, types.Float, types.Float)
def lower_clamp(context, builder, sig, args):
    x, lo, hi = args
    if isinstance(sig.return_type, types.Integer):
        x = builder.select(builder.icmp_signed("<", x, lo), lo, x)
        return builder.select(builder.icmp_signed(">", x, hi), hi, x)
    x = builder.select(builder.fcmp_ordered("<", x, lo), lo, x)
    return builder.select(builder.fcmp_ordered(">", x, hi), hi, x)


def test_concrete_template_with_infer_global_decorator_and_lower_builtin():
    assert ClampTemplate.key is clamp

    @njit
    def use(x, y):
        return clamp(x, 0, 10), clamp(y, -1.0, 1.0), clamp(x, 0.5, 2.5)

    for x, y in [(-3, 0.25), (4, 7.0), (12, -9.5)]:
        assert use(x, y) == (clamp(x, 0, 10), clamp(y, -1.0, 1.0), clamp(float(x), 0.5, 2.5))


def hypot3(x, y, z):
    return math.sqrt(x * x + y * y + z * z)


@infer
class Hypot3Template(AbstractTemplate):
    key = hypot3

    def generic(self, args, kws):
        if len(args) == 3 and not kws and all(isinstance(a, types.Number) for a in args):
            return signature(types.float64, types.float64, types.float64, types.float64)
        return None


@lower_builtin(hypot3, types.Float, types.Float, types.Float)
def lower_hypot3(context, builder, sig, args):
    total = llvm.Constant(llvm.DoubleType(), 0.0)
    for value in args:
        total = builder.fadd(total, builder.fmul(value, value))
    from ember.lowering.intrinsics import call_intrinsic

    return call_intrinsic(builder, "llvm.sqrt", [total])


def test_abstract_template_with_infer():
    @njit
    def norm(x, y, z):
        return hypot3(x, y, z)

    assert norm(1, 2, 2) == 3.0
    assert norm(0.5, -1.5, 3.0) == hypot3(0.5, -1.5, 3.0)


def scaled(x, factor=2):
    return x * factor


@type_callable(scaled)
def type_scaled(context):
    def typer(x, factor=None):
        if isinstance(x, types.Float) and (factor is None or isinstance(factor, types.Integer)):
            return x
        return None

    return typer


@lower_builtin(scaled, types.Float, types.Integer)
def lower_scaled(context, builder, sig, args):
    x, factor = args
    return builder.fmul(x, context.cast(builder, factor, sig.args[1], sig.return_type))


def test_type_callable_functional_template():
    assert any(issubclass(t, CallableTemplate) for t in typing_registry.functions.get(scaled, ()))

    @njit
    def use(x):
        return scaled(x, 3)

    assert use(1.25) == 3.75

    @njit
    def wrong(x):
        return scaled(x, 3)

    with pytest.raises(TypingError, match="scaled"):
        wrong(2)  # the typer declines int64


@infer_getattr
class ComplexConjugateParts(AttributeTemplate):
    key = types.Complex

    def resolve_swapped(self, ty):
        return ty


@lower_getattr(types.Complex, "swapped")
def complex_swapped(context, builder, typ, value):
    real, imag = builder.extract_value(value, 0), builder.extract_value(value, 1)
    return builder.insert_value(builder.insert_value(value, imag, 0), real, 1)


def test_infer_getattr_and_lower_getattr():
    @njit
    def swap(z):
        return z.swapped

    assert swap(1.5 - 2.0j) == complex(-2.0, 1.5)


# ============================================================================ overloads


def test_overload_with_defaults_keywords_and_varargs():
    def affine(x, scale=2.0, offset=0):
        return x * scale + offset

    @overload(affine)
    def affine_overload(x, scale=2.0, offset=0):
        def impl(x, scale=2.0, offset=0):
            return x * scale + offset

        return impl

    def total(*values):
        return sum(values)

    @overload(total)
    def total_overload(*values):
        def impl(*values):
            result = 0.0
            for i in range(len(values)):
                result += values[i]
            return result

        return impl

    @njit
    def use(x):
        return (
            affine(x),
            affine(x, 3.0),
            affine(x, offset=1),
            affine(x, offset=1, scale=10.0),
            total(x, 2.0, 3.5),
        )

    x = 1.5
    assert use(x) == (
        affine(x),
        affine(x, 3.0),
        affine(x, offset=1),
        affine(x, offset=1, scale=10.0),
        total(x, 2.0, 3.5),
    )


def test_overload_returning_none_declines_to_the_next_implementation():
    def kind(x):
        pass

    @overload(kind)
    def kind_int(x):
        if isinstance(x, types.Integer):
            return lambda x: 1

    @overload(kind)
    def kind_float(x):
        if isinstance(x, types.Float):
            return lambda x: 2

    @njit
    def kinds(a, b):
        return kind(a), kind(b)

    assert kinds(3, 4.0) == (1, 2)

    @njit
    def unsupported(z):
        return kind(z)

    with pytest.raises(TypingError, match=r"No implementation of function .*kind"):
        unsupported(1j)


def test_overload_method_on_a_base_class_serves_subclasses():
    @overload_method(types.Number, "twice")
    def number_twice(x):
        def impl(x):
            return x + x

        return impl

    @njit
    def twice(a, b, c):
        return a.twice(), b.twice(), c.twice()

    assert twice(21, 1.25, 1 + 2j) == (42, 2.5, 2 + 4j)


def test_overload_follows_the_callers_error_model():
    @njit
    def python_model(a, b):
        return divmod(a, b)

    @njit(error_model="numpy")
    def numpy_model(a, b):
        return divmod(a, b)

    with pytest.raises(ZeroDivisionError, match="float divmod()"):
        python_model(1.0, 0.0)
    quotient, remainder = numpy_model(1.0, 0.0)
    assert math.isnan(remainder) and (math.isinf(quotient) or math.isnan(quotient))
    with pytest.raises(ZeroDivisionError):
        python_model(7, 0)


# ---------------------------------------------------------------------------- intrinsics


@intrinsic
def popcount(typingctx, value):
    if isinstance(value, types.Integer):

        def codegen(context, builder, sig, args):
            from ember.lowering.intrinsics import call_intrinsic

            return call_intrinsic(builder, "llvm.ctpop", list(args))

        return signature(value, value), codegen
    return None


def test_intrinsic():
    @njit
    def bits(x):
        return popcount(x)

    for x in (0, 1, 255, 2**40 + 3, -1):
        assert bits(x) == bin(x & (2**64 - 1)).count("1")
    with pytest.raises(TypeError, match="only be called from jitted code"):
        popcount(3)

    @njit
    def bad(x):
        return popcount(x)

    with pytest.raises(TypingError, match="popcount"):
        bad(1.5)


# ---------------------------------------------------------------------------- setattr, delattr


class Cells:
    """Four doubles in C memory, named a, b, c, d (a mutable, pointer-backed value)."""

    def __init__(self, *values):
        self.buf = (ctypes.c_double * 4)(*values)

    @property
    def address(self):
        return ctypes.addressof(self.buf)


class CellsType(types.Type):
    def __init__(self):
        super().__init__(name="Cells")


cells_type = CellsType()
typeof_impl.register(Cells)(lambda val, c: cells_type)
register_model(CellsType)(models.OpaqueModel)
_NAMES = "abcd"
_DOUBLE = llvm.DoubleType()


@unbox(CellsType)
def unbox_cells(typ, obj, c):
    address = c.pyapi.object_getattr_string(obj, "address")
    pointer = c.builder.inttoptr(c.pyapi.long_as_longlong(address), llvm.PointerType())
    c.pyapi.decref(address)
    return NativeValue(pointer, is_error=cgutils.is_not_null(c.builder, c.pyapi.err_occurred()))


@infer_getattr
class CellsAttributes(AttributeTemplate):
    key = CellsType

    def generic_resolve(self, typ, attr):
        return types.float64 if attr in _NAMES else None


def _slot(builder, pointer, attr):
    index = llvm.Constant(llvm.IntType(64), _NAMES.index(attr))
    return builder.gep(pointer, [index], source_etype=_DOUBLE)


@lower_getattr_generic(CellsType)
def cells_getattr(context, builder, typ, value, attr):
    return builder.load(_slot(builder, value, attr), typ=_DOUBLE)


@lower_setattr_generic(CellsType)
def cells_setattr(context, builder, sig, args, attr):
    target, value = args
    builder.store(value, _slot(builder, target, attr))


@overload_attribute(CellsType, "total")
def cells_total(cells):
    def get(cells):
        return cells.a + cells.b + cells.c + cells.d

    def set(cells, value):
        share = value / 4
        cells.a = share
        cells.b = share
        cells.c = share
        cells.d = share

    def delete(cells):
        cells.a = 0.0
        cells.b = 0.0
        cells.c = 0.0
        cells.d = 0.0

    return get, set, delete


def test_lower_setattr_and_getattr_generic():
    @njit
    def update(cells, x):
        cells.a = x
        cells.b = cells.a * 2
        cells.d = 1  # an int64 converted to the attribute's float64
        return cells.a + cells.b + cells.c

    cells = Cells(1.0, 2.0, 3.0, 4.0)
    assert update(cells, 10.0) == 33.0
    assert list(cells.buf) == [10.0, 20.0, 3.0, 1.0]


def test_overload_attribute_getter_setter_deleter():
    @njit
    def cycle(cells, value):
        before = cells.total
        cells.total = value
        middle = cells.total
        del cells.total
        return before, middle

    cells = Cells(1.0, 2.0, 3.0, 4.0)
    assert cycle(cells, 8) == (10.0, 8.0)
    assert list(cells.buf) == [0.0, 0.0, 0.0, 0.0]

    @njit
    def set_only(cells):
        cells.total = 2.0

    set_only(cells)
    assert list(cells.buf) == [0.5, 0.5, 0.5, 0.5]


def test_setting_an_unknown_attribute_is_a_typing_error():
    @njit
    def bad(cells):
        cells.e = 1.0

    with pytest.raises(TypingError, match="Cannot set attribute 'e' of Cells"):
        bad(Cells())

    @njit
    def bad_delete(cells):
        del cells.a

    with pytest.raises(TypingError, match="Cannot delete attribute 'a' of Cells"):
        bad_delete(Cells())


# ============================================================================ errors


def opaque_helper(x):
    pass


@overload(opaque_helper)
def opaque_helper_overload(x):
    if isinstance(x, types.Float):

        def impl(x):
            pair = (x, 1)
            return pair + 1.0

        return impl
    if isinstance(x, types.Integer):
        return x.no_such_attribute  # a bug in the overload function itself


def test_failing_overload_names_overload_argument_types_and_inner_location():
    @njit
    def user(v):
        return opaque_helper(v) * 2

    with pytest.raises(TypingError) as info:
        user(1.5)
    message = str(info.value)
    assert re.search(r"overload of [\w.]*opaque_helper ", message)
    assert "for argument types (float64)" in message
    assert "opaque_helper_overload" in message
    assert "return opaque_helper(v) * 2" in message  # the call site
    assert re.search(r'test_extending.py", line \d+:\s+return pair \+ 1.0', message)
    assert "No implementation of operator +" in message


def test_overload_function_raising_propagates_its_own_error():
    """As Numba 0.68 (new-style error capturing): a bug in an extension's overload function
    is its own exception, raised from the overload function's line."""

    @njit
    def user(v):
        return opaque_helper(v)

    with pytest.raises(AttributeError, match="no_such_attribute") as info:
        user(3)
    assert "return x.no_such_attribute" in str(info.traceback[-1].statement)


# ============================================================================ ember's library


def _body(dispatcher) -> list[str]:
    """The optimized LLVM body of a dispatcher's only specialization, names normalised."""
    (result,) = dispatcher.overloads.values()
    text = result.library.optimized_ir
    start = text.index("define", max(0, text.index(f'@"{result.symbol}"') - 300))
    body = text[text.index("{", start) + 1 : text.index("\n}", start)]
    body = re.sub(r'%"?[-\w.$]+"?', "%v", body)
    body = re.sub(r"^[-\w.$]+:", "label:", body, flags=re.MULTILINE)
    body = re.sub(r", !prof !\d+|;.*", "", body)
    # a raise's exception record: its id also names the raise's source line
    body = re.sub(r"\{ i32 \d+, ptr null \}", "{ i32 <exception>, ptr null }", body)
    return [line.strip() for line in body.splitlines() if line.strip()]


def _calls(lines: list[str]) -> list[str]:
    return [line for line in lines if " call " in line and "@llvm." not in line]


def test_library_divmod_min_max_len_degrees_are_overloads():
    def kinds(key):
        return [t.__name__ for t in typing_registry.functions.get(key, ())]

    assert any(name.startswith("Overload_") for name in kinds(divmod))
    assert "Overload_tuple_min" in kinds(min) and "Overload_tuple_max" in kinds(max)
    assert "Overload_tuple_len" in kinds(len)
    assert "Overload_degrees" in kinds(math.degrees)
    assert "Overload_radians" in kinds(math.radians)


@pytest.mark.parametrize(
    ("a", "b"),
    [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 5), (2**62, -3), (7.5, 2.0), (-7.5, 2.0),
     (7.5, -0.5), (1, 0.3), (-0.0, 1.0), (3, True)],
)  # fmt: skip
def test_divmod_matches_python(a, b):
    @njit
    def dm(a, b):
        return divmod(a, b)

    assert dm(a, b) == divmod(a, b)
    assert [type(v) for v in dm(a, b)] == [type(v) for v in divmod(a, b)]


def test_min_max_of_tuples_match_python():
    @njit
    def extremes(t):
        return min(t), max(t)

    for tup in [(3, 1, 2), (5,), (2, 2, 1, 9, -4), (-1, -1)]:
        assert extremes(tup) == (min(tup), max(tup))
    for tup in [(3.5, 1.25, 2.0), (1.0, float("nan"), 0.5), (float("nan"), 1.0)]:
        got, expected = extremes(tup), (min(tup), max(tup))
        assert [math.isnan(v) for v in got] == [math.isnan(v) for v in expected]
        assert [v for v in got if v == v] == [v for v in expected if v == v]

    @njit
    def mixed(t):
        return min(t), max(t)

    assert mixed((3, 1.5, 2)) == (1.5, 3.0)


def test_degrees_radians_match_cpython_bit_for_bit():
    @njit
    def convert(x):
        return math.degrees(x), math.radians(x)

    rng = np.random.default_rng(4)
    for x in [*rng.uniform(-1e6, 1e6, 200), *rng.uniform(-10, 10, 200), 0.0, -0.0, 1e308]:
        assert convert(float(x)) == (math.degrees(x), math.radians(x))
    assert convert(3) == (math.degrees(3), math.radians(3))


def test_library_overloads_inline_to_the_same_code_as_hand_written_python():
    """After inlining, no call is left, and the code equals that of the same operations
    written inline (names aside)."""

    @njit
    def dm_int(a, b):
        return divmod(a, b)

    @njit
    def dm_int_inline(a, b):
        return a // b, a % b

    @njit
    def dm_float(a, b):
        return divmod(a, b)

    @njit
    def dm_float_inline(a, b):
        if b == 0.0:
            raise ZeroDivisionError("float divmod()")
        return a // b, a % b

    @njit
    def largest(t):
        return max(t)

    @njit
    def largest_inline(t):
        return max(t[0], t[1], t[2])

    @njit
    def deg(x):
        return math.degrees(x)

    @njit
    def deg_inline(x):
        return x * 57.29577951308232

    @njit
    def length(t):
        return len(t)

    @njit
    def length_inline(t):
        return 3

    cases = [
        (dm_int, dm_int_inline, (7, 2)),
        (dm_float, dm_float_inline, (7.0, 2.0)),
        (largest, largest_inline, ((3, 1, 2),)),
        (deg, deg_inline, (1.0,)),
        (length, length_inline, ((1, 2.0, 3),)),
    ]
    for library, inline, args in cases:
        assert library(*args) == inline(*args)
        unoptimized = library.overloads[tuple(ember.typeof(a) for a in args)].library.llvm_ir
        assert " call " in unoptimized  # the overload's specialization is called...
        assert _calls(_body(library)) == []  # ...and inlined away
        assert _body(library) == _body(inline), library.__name__


# ============================================================================ the public module


def test_public_names():
    expected = {
        "overload", "overload_method", "overload_attribute", "make_attribute_wrapper",
        "intrinsic", "typeof_impl", "type_callable", "infer", "infer_global", "infer_getattr",
        "register_model", "models", "lower_builtin", "lower_getattr", "lower_getattr_generic",
        "lower_setattr", "lower_setattr_generic", "lower_cast", "box", "unbox", "NativeValue",
        "ConcreteTemplate", "AbstractTemplate", "AttributeTemplate", "CallableTemplate",
        "signature",
    }  # fmt: skip
    assert expected <= set(extending.__all__)
    for name in expected:
        assert getattr(extending, name) is not None
    for model in ("PrimitiveModel", "StructModel", "OpaqueModel"):
        assert isinstance(getattr(models, model), type)
