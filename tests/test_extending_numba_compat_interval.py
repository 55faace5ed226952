"""Issue 17: the Interval example of Numba's documentation ("Extending Numba - Example: an
interval type"), written out from the documentation's description with only the imports changed
(`numba` -> `ember`), runs unchanged. Expected values are computed by CPython on the same inputs.

Two flavours of its box/unbox are exercised: the current documentation's (ExitStack with
`cgutils.early_exit_if_null`, `c.box`/`c.unbox`) and the older one built from `c.pyapi`
number calls (`float_as_double`, `float_from_double`, `err_occurred`).
"""

from __future__ import annotations

import math
import sys
from contextlib import ExitStack

import pytest

import ember as numba
from ember import njit
from ember.core import cgutils, types
from ember.extending import (
    NativeValue,
    as_numba_type,
    box,
    lower_builtin,
    lower_constant,
    make_attribute_wrapper,
    models,
    overload_attribute,
    register_model,
    type_callable,
    typeof_impl,
    unbox,
)


class Interval:
    """A half-open interval on the real number line."""

    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi

    def __repr__(self):
        return f"Interval({self.lo:f}, {self.hi:f})"

    @property
    def width(self):
        return self.hi - self.lo


class IntervalType(types.Type):
    def __init__(self):
        super().__init__(name="NumbaDocInterval")


interval_type = IntervalType()


@typeof_impl.register(Interval)
def typeof_index(val, c):
    return interval_type


as_numba_type.register(Interval, interval_type)


@type_callable(Interval)
def type_interval(context):
    def typer(lo, hi):
        if isinstance(lo, types.Float) and isinstance(hi, types.Float):
            return interval_type

    return typer


@register_model(IntervalType)
class IntervalModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [("lo", types.float64), ("hi", types.float64)]
        models.StructModel.__init__(self, dmm, fe_type, members)


make_attribute_wrapper(IntervalType, "lo", "lo")
make_attribute_wrapper(IntervalType, "hi", "hi")


@overload_attribute(IntervalType, "width")
def get_width(interval):
    def getter(interval):
        return interval.hi - interval.lo

    return getter


@lower_builtin(Interval, types.Float, types.Float)
def impl_interval(context, builder, sig, args):
    typ = sig.return_type
    lo, hi = args
    interval = cgutils.create_struct_proxy(typ)(context, builder)
    interval.lo = lo
    interval.hi = hi
    return interval._getvalue()


@unbox(IntervalType)
def unbox_interval(typ, obj, c):
    """Convert an Interval object to a native interval structure."""
    is_error_ptr = cgutils.alloca_once_value(c.builder, cgutils.false_bit)
    interval = cgutils.create_struct_proxy(typ)(c.context, c.builder)

    with ExitStack() as stack:
        lo_obj = c.pyapi.object_getattr_string(obj, "lo")
        with cgutils.early_exit_if_null(c.builder, stack, lo_obj):
            c.builder.store(cgutils.true_bit, is_error_ptr)
        lo_native = c.unbox(types.float64, lo_obj)
        c.pyapi.decref(lo_obj)
        with cgutils.early_exit_if(c.builder, stack, lo_native.is_error):
            c.builder.store(cgutils.true_bit, is_error_ptr)

        hi_obj = c.pyapi.object_getattr_string(obj, "hi")
        with cgutils.early_exit_if_null(c.builder, stack, hi_obj):
            c.builder.store(cgutils.true_bit, is_error_ptr)
        hi_native = c.unbox(types.float64, hi_obj)
        c.pyapi.decref(hi_obj)
        with cgutils.early_exit_if(c.builder, stack, hi_native.is_error):
            c.builder.store(cgutils.true_bit, is_error_ptr)

        interval.lo = lo_native.value
        interval.hi = hi_native.value

    return NativeValue(interval._getvalue(), is_error=c.builder.load(is_error_ptr))


@box(IntervalType)
def box_interval(typ, val, c):
    """Convert a native interval structure to an Interval object."""
    ret_ptr = cgutils.alloca_once(c.builder, c.pyapi.pyobj)
    fail_obj = c.pyapi.get_null_object()

    with ExitStack() as stack:
        interval = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
        lo_obj = c.box(types.float64, interval.lo)
        with cgutils.early_exit_if_null(c.builder, stack, lo_obj):
            c.builder.store(fail_obj, ret_ptr)

        hi_obj = c.box(types.float64, interval.hi)
        with cgutils.early_exit_if_null(c.builder, stack, hi_obj):
            c.pyapi.decref(lo_obj)
            c.builder.store(fail_obj, ret_ptr)

        class_obj = c.pyapi.unserialize(c.pyapi.serialize_object(Interval))
        with cgutils.early_exit_if_null(c.builder, stack, class_obj):
            c.pyapi.decref(lo_obj)
            c.pyapi.decref(hi_obj)
            c.builder.store(fail_obj, ret_ptr)

        # The result is not checked: the clean-up runs either way, and a failed call leaves
        # NULL with a Python exception set.
        res = c.pyapi.call_function_objargs(class_obj, (lo_obj, hi_obj))
        c.pyapi.decref(lo_obj)
        c.pyapi.decref(hi_obj)
        c.pyapi.decref(class_obj)
        c.builder.store(res, ret_ptr)

    return c.builder.load(ret_ptr)


# ------------------------------------------------------------------ the documentation's uses


@numba.jit(nopython=True)
def inside_interval(interval, x):
    return interval.lo <= x < interval.hi


@numba.jit(nopython=True)
def interval_width(interval):
    return interval.width


@numba.jit(nopython=True)
def sum_intervals(i, j):
    return Interval(i.lo + j.lo, i.hi + j.hi)


CASES = [(1.0, 3.5), (-2.25, 0.0), (0.0, 0.0), (1e300, 1e301), (-5.0, -7.5)]


@pytest.mark.parametrize("lo, hi", CASES)
def test_inside_interval_matches_python(lo, hi):
    interval = Interval(lo, hi)
    for x in (lo - 1.0, lo, (lo + hi) / 2, hi, hi + 1.0):
        assert inside_interval(interval, x) == inside_interval.py_func(interval, x)


@pytest.mark.parametrize("lo, hi", CASES)
def test_width_property_matches_python(lo, hi):
    assert interval_width(Interval(lo, hi)) == Interval(lo, hi).width


def test_constructor_and_boxing_return_a_python_interval():
    a, b = Interval(1.5, 2.0), Interval(-0.25, 10.0)
    result = sum_intervals(a, b)
    expected = sum_intervals.py_func(a, b)
    assert type(result) is Interval
    assert (result.lo, result.hi) == (expected.lo, expected.hi)
    assert repr(result) == "Interval(1.250000, 12.000000)"


def test_as_numba_type_and_typeof():
    assert numba.typeof(Interval(1.0, 2.0)) is interval_type
    assert as_numba_type(Interval) is interval_type
    assert as_numba_type(float) is types.float64


def test_unbox_error_raises_the_python_exception():
    missing_hi = Interval(1.0, 2.0)
    del missing_hi.hi
    with pytest.raises(AttributeError, match="hi"):
        inside_interval(missing_hi, 2.0)
    with pytest.raises(TypeError):
        interval_width(Interval(1.0, "not a float"))


# ------------------------------------------------------------------ the older box/unbox


class Span:
    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi


class SpanType(types.Type):
    def __init__(self):
        super().__init__(name="NumbaDocSpan")


span_type = SpanType()


@typeof_impl.register(Span)
def typeof_span(val, c):
    return span_type


@type_callable(Span)
def type_span(context):
    def typer(lo, hi):
        if isinstance(lo, types.Float) and isinstance(hi, types.Float):
            return span_type

    return typer


@register_model(SpanType)
class SpanModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        models.StructModel.__init__(
            self, dmm, fe_type, [("lo", types.float64), ("hi", types.float64)]
        )


make_attribute_wrapper(SpanType, "lo", "lo")
make_attribute_wrapper(SpanType, "hi", "hi")


@lower_builtin(Span, types.Float, types.Float)
def impl_span(context, builder, sig, args):
    span = context.make_helper(builder, sig.return_type)
    span.lo, span.hi = args
    return span._getvalue()


@unbox(SpanType)
def unbox_span(typ, obj, c):
    lo_obj = c.pyapi.object_getattr_string(obj, "lo")
    hi_obj = c.pyapi.object_getattr_string(obj, "hi")
    span = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    span.lo = c.pyapi.float_as_double(lo_obj)
    span.hi = c.pyapi.float_as_double(hi_obj)
    c.pyapi.decref(lo_obj)
    c.pyapi.decref(hi_obj)
    is_error = cgutils.is_not_null(c.builder, c.pyapi.err_occurred())
    return NativeValue(span._getvalue(), is_error=is_error)


@box(SpanType)
def box_span(typ, val, c):
    span = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    lo_obj = c.pyapi.float_from_double(span.lo)
    hi_obj = c.pyapi.float_from_double(span.hi)
    class_obj = c.pyapi.unserialize(c.pyapi.serialize_object(Span))
    res = c.pyapi.call_function_objargs(class_obj, (lo_obj, hi_obj))
    c.pyapi.decref(lo_obj)
    c.pyapi.decref(hi_obj)
    c.pyapi.decref(class_obj)
    return res


@njit
def stretch(span, factor):
    return Span(span.lo * factor, span.hi * factor)


@pytest.mark.parametrize(
    "lo, hi, factor", [(1.0, 2.0, 3.0), (-1.5, 4.25, -2.0), (0.0, 1e-300, 1e10)]
)
def test_older_box_unbox_round_trip(lo, hi, factor):
    result = stretch(Span(lo, hi), factor)
    assert type(result) is Span
    assert (result.lo, result.hi) == (lo * factor, hi * factor)


def test_older_unbox_reports_a_bad_attribute():
    with pytest.raises(TypeError) as caught:
        stretch(Span("a", 2.0), 1.0)
    with pytest.raises(TypeError) as python_error:
        math.floor("a")  # CPython's own message for a str where a float is needed
    assert "real number" in str(caught.value) and "real number" in str(python_error.value)


def test_boxing_and_unboxing_do_not_leak_references():
    lo, hi = 1.0e10 + 0.5, 2.0e10 + 0.25  # fresh float objects, counted below
    interval = Interval(lo, hi)
    inside_interval(interval, 3.0)  # compiled first: compiling keeps the class alive
    sum_intervals(interval, interval)
    before = (sys.getrefcount(lo), sys.getrefcount(hi), sys.getrefcount(Interval))
    for _ in range(50):
        inside_interval(interval, 3.0)
        sum_intervals(interval, interval)
    assert (sys.getrefcount(lo), sys.getrefcount(hi), sys.getrefcount(Interval)) == before


# ------------------------------------------------------------------ constants


@lower_constant(IntervalType)
def constant_interval(context, builder, ty, pyval):
    lo = context.get_constant(types.float64, pyval.lo)
    hi = context.get_constant(types.float64, pyval.hi)
    return cgutils.pack_struct(builder, (lo, hi))


UNIT = Interval(0.0, 1.0)


@numba.njit
def in_unit(x):
    return inside_interval(UNIT, x), UNIT.width


@pytest.mark.parametrize("x", [-0.5, 0.0, 0.5, 1.0, 2.0])
def test_a_global_interval_is_a_lower_constant(x):
    assert in_unit(x) == (inside_interval.py_func(UNIT, x), UNIT.width)
