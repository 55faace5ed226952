"""Numba extension code in the style of awkward's numba connector, with `numba` spelled `ember`:
view types subclassing Numba's abstract kinds, "getiter"/"iternext" lowerings through
`iternext_impl`, `@bound_function` methods, `np.arrayobj.populate_array` views, extension-owned
memory returned as arrays, `numba.cpython.unicode` helpers and dtype specs. Expected values come
from NumPy and CPython on the same inputs.
"""

from __future__ import annotations

import ctypes
import gc

import numpy as np
import pytest
from ember.core.imputils import RefType, impl_ret_new_ref, iternext_impl, lower_builtin

import ember as numba
import ember.core.typing.npydecl
import ember.np.arrayobj
from ember.core import cgutils, types
from ember.core.typing import templates
from ember.cpython import unicode as numba_unicode
from ember.extending import (
    NativeValue,
    intrinsic,
    lower_getattr_generic,
    models,
    overload,
    register_jitable,
    register_model,
    typeof_impl,
    unbox,
)

# ============================================================================ a span view


class SpanType(types.IterableType, types.Sized):
    """A window [start, stop) over a 1d float64 array, as awkward's ArrayView is."""

    def __init__(self):
        super().__init__(name="pkgs9b.Span")

    @property
    def iterator_type(self):
        return SpanIteratorType(self)


class SpanIteratorType(types.common.SimpleIteratorType):
    def __init__(self, span_type):
        super().__init__(f"pkgs9b.SpanIterator({span_type})", types.float64)
        self.span_type = span_type


span_type = SpanType()
array_type = types.float64[::1]


@register_model(SpanType)
class SpanModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [("array", array_type), ("start", types.intp), ("stop", types.intp)]
        super().__init__(dmm, fe_type, members)


@numba.core.datamodel.registry.register_default(SpanIteratorType)
class SpanIteratorModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [
            ("span", fe_type.span_type),
            ("at", types.EphemeralPointer(types.intp)),
        ]
        super().__init__(dmm, fe_type, members)


@intrinsic
def make_span(typingctx, array, start, stop):
    if array != array_type:
        return None

    def codegen(context, builder, sig, args):
        proxy = context.make_helper(builder, span_type)
        proxy.array, proxy.start, proxy.stop = args
        context.nrt.incref(builder, array_type, args[0])
        return impl_ret_new_ref(context, builder, span_type, proxy._getvalue())

    return span_type(array_type, types.intp, types.intp), codegen


@templates.infer
class SpanGetiter(templates.AbstractTemplate):
    key = "getiter"

    def generic(self, args, kws):
        if len(args) == 1 and not kws and isinstance(args[0], SpanType):
            return templates.signature(args[0].iterator_type, args[0])


@lower_builtin("getiter", SpanType)
def span_getiter(context, builder, sig, args):
    iterator = context.make_helper(builder, sig.return_type)
    iterator.span = args[0]
    start = context.make_helper(builder, span_type, args[0]).start
    iterator.at = cgutils.alloca_once_value(builder, start)
    context.nrt.incref(builder, span_type, args[0])
    return impl_ret_new_ref(context, builder, sig.return_type, iterator._getvalue())


@lower_builtin("iternext", SpanIteratorType)
@iternext_impl(RefType.BORROWED)
def span_iternext(context, builder, sig, args, result):
    iterator = context.make_helper(builder, sig.args[0], args[0])
    span = context.make_helper(builder, span_type, iterator.span)
    at = builder.load(iterator.at)
    is_valid = builder.icmp_signed("<", at, span.stop)
    result.set_valid(is_valid)
    with builder.if_then(is_valid, likely=True):
        array = context.make_array(array_type)(context, builder, value=span.array)
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [at])
        result.yield_(builder.load(pointer))
        builder.store(cgutils.increment_index(builder, at), iterator.at)


@templates.infer_getattr
class SpanAttributes(templates.AttributeTemplate):
    key = SpanType

    @templates.bound_function("Span.scaled_first")
    def resolve_scaled_first(self, span, args, kws):
        if len(args) == 1 and not kws and isinstance(args[0], types.Float):
            return types.float64(types.float64)
        raise numba.core.errors.NumbaTypeError("Span.scaled_first takes one float")

    @templates.bound_function("Span.fill")
    def resolve_fill(self, span, args, kws):
        if len(args) == 1 and not kws and isinstance(args[0], types.Float):
            return types.none(args[0])

    def generic_resolve(self, span, attr):
        if attr == "width":
            return types.intp


@lower_getattr_generic(SpanType)
def span_getattr(context, builder, typ, value, attr):
    proxy = context.make_helper(builder, typ, value)
    return builder.sub(proxy.stop, proxy.start)


@lower_builtin("Span.scaled_first", SpanType, types.Float)
def span_scaled_first(context, builder, sig, args):
    def first_times(array, start, factor):
        return array[start] * factor

    proxy = context.make_helper(builder, span_type, args[0])
    inner = types.float64(array_type, types.intp, types.float64)
    return context.compile_internal(
        builder, first_times, inner, [proxy.array, proxy.start, args[1]]
    )


@lower_builtin("Span.fill", SpanType, types.Float)
def span_fill(context, builder, sig, args):
    proxy = context.make_helper(builder, span_type, args[0])
    array = context.make_array(array_type)(context, builder, value=proxy.array)
    one = context.get_constant(types.intp, 1)
    with cgutils.for_range_slice(builder, proxy.start, proxy.stop, one) as (index, count):
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [index])
        builder.store(builder.fadd(args[1], builder.sitofp(count, args[1].type)), pointer)
    return context.get_dummy_value()  # Numba's None: a null pointer


def test_span_subclasses_numbas_kinds_and_iterates_through_iternext_impl():
    assert isinstance(span_type, types.IterableType) and isinstance(span_type, types.Sized)
    assert not isinstance(types.int64, SpanType)  # a subclass is checked as an ordinary class
    iterator_type = span_type.iterator_type
    assert isinstance(iterator_type, types.IteratorType)
    assert (
        iterator_type.yield_type is types.float64 and iterator_type.iterator_type is iterator_type
    )

    @numba.njit
    def total(values, start, stop):
        result = 0.0
        count = 0
        for item in make_span(values, start, stop):
            result += item * (count + 1)
            count += 1
        return result, count

    values = np.linspace(-2.5, 7.0, 11)
    for start, stop in [(0, 11), (3, 8), (5, 5), (9, 4), (10, 11)]:
        expected = sum(v * (k + 1) for k, v in enumerate(values[start:stop]))
        got, count = total(values, start, stop)
        assert count == max(0, stop - start)
        assert got == pytest.approx(expected, rel=1e-12, abs=0.0)


def test_bound_function_methods_and_a_none_method_returning_a_null_pointer():
    @numba.njit
    def use(values, start, stop, factor, fill_value):
        span = make_span(values, start, stop)
        first = span.scaled_first(factor)
        span.fill(fill_value)
        return first, span.width

    values = np.arange(8, dtype=np.float64) * 1.5
    expected = values.copy()
    first, width = use(values, 2, 6, -3.0, 9.25)
    assert first == 3.0 * -3.0 and width == 4
    expected[2:6] = 9.25 + np.arange(4)  # the loop's count is added
    np.testing.assert_array_equal(values, expected)

    @numba.njit
    def wrong(values):
        return make_span(values, 0, 1).scaled_first(1)

    with pytest.raises(numba.core.errors.TypingError, match="scaled_first takes one float"):
        wrong(values)


# ============================================================================ array views


@intrinsic
def tail_view(typingctx, array, offset):
    """`array[offset:]` built by hand, as awkward's np.asarray lowering builds it."""
    if array != array_type or not isinstance(offset, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        source = ember.np.arrayobj.make_array(array_type)(context, builder, value=args[0])
        itemsize = context.get_constant(types.intp, 8)
        pointer_type = context.get_value_type(types.CPointer(types.float64))
        data = cgutils.pointer_add(
            builder, source.data, builder.mul(args[1], itemsize), pointer_type
        )
        length = builder.sub(builder.extract_value(source.shape, 0), args[1])
        out = ember.np.arrayobj.make_array(array_type)(context, builder)
        ember.np.arrayobj.populate_array(
            out,
            data=data,
            shape=[length],
            strides=[itemsize],
            itemsize=itemsize,
            meminfo=source.meminfo,
            parent=None,
        )
        context.nrt.incref(builder, array_type, out._getvalue())
        return out._getvalue()

    return array_type(array_type, types.intp), codegen


def test_populate_array_builds_a_view_from_its_parts():
    @numba.njit
    def tails(n, offset):
        fresh = np.arange(n) * 0.5
        return tail_view(fresh, offset).sum(), tail_view(fresh, offset).shape[0]

    for n, offset in [(10, 0), (10, 3), (10, 10), (1, 0)]:
        expected = (np.arange(n) * 0.5)[offset:]
        assert tails(n, offset) == (expected.sum(), expected.shape[0])

    from tests.oracle import assert_frees_all

    assert_frees_all(tails, lambda: 50, lambda: 7)


class Pool:
    """Memory an extension type hands to compiled code by address (awkward's buffers)."""

    def __init__(self, values):
        self.values = np.ascontiguousarray(values, dtype=np.float64)
        self.address = self.values.ctypes.data
        self.size = self.values.size


class PoolType(types.Type):
    def __init__(self):
        super().__init__(name="pkgs9b.Pool")


pool_type = PoolType()
typeof_impl.register(Pool)(lambda value, c: pool_type)


@register_model(PoolType)
class PoolModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [
            ("data", types.CPointer(types.float64)),
            ("size", types.intp),
            ("owner", types.pyobject),
        ]
        super().__init__(dmm, fe_type, members)


@unbox(PoolType)
def unbox_pool(typ, obj, c):
    address = c.pyapi.object_getattr_string(obj, "address")
    size = c.pyapi.object_getattr_string(obj, "size")
    proxy = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    pointer_type = c.context.get_value_type(types.CPointer(types.float64))
    proxy.data = c.builder.inttoptr(c.pyapi.long_as_ssize_t(address), pointer_type)
    proxy.size = c.pyapi.long_as_ssize_t(size)
    proxy.owner = obj
    c.pyapi.decref(address)
    c.pyapi.decref(size)
    is_error = cgutils.is_not_null(c.builder, c.pyapi.err_occurred())
    return NativeValue(proxy._getvalue(), is_error=is_error)


@lower_builtin(np.asarray, PoolType)
def pool_asarray(context, builder, sig, args):
    proxy = context.make_helper(builder, pool_type, args[0])
    itemsize = context.get_constant(types.intp, 8)
    out = ember.np.arrayobj.make_array(sig.return_type)(context, builder)
    ember.np.arrayobj.populate_array(
        out,
        data=proxy.data,
        shape=[proxy.size],
        strides=[itemsize],
        itemsize=itemsize,
        meminfo=None,
        parent=None,
    )
    return out._getvalue()


@templates.infer_global(np.asarray)
class PoolAsarray(templates.AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 1 and not kws and isinstance(args[0], PoolType):
            return templates.signature(array_type, args[0])


def test_an_array_in_an_extensions_memory_is_returned_as_a_view_keeping_it_alive():
    @numba.njit
    def as_array(pool):
        return np.asarray(pool)

    values = np.array([1.5, -2.0, 3.25, 8.0])
    pool = Pool(values)
    result = as_array(pool)
    np.testing.assert_array_equal(result, values)
    pool.values[1] = 42.0  # a view of the pool's memory, not a copy
    assert result[1] == 42.0
    probe = ctypes.c_double.from_address(pool.address)
    del pool
    gc.collect()
    assert result[0] == probe.value == 1.5  # the view keeps the pool (and its memory) alive


# ============================================================================ strings


@register_jitable
def rebuild(text):
    largest = 0
    for index in range(len(text)):
        largest = max(largest, numba_unicode._get_code_point(text, index))
    kind = numba_unicode._codepoint_to_kind(largest)
    out = numba_unicode._empty_string(kind, len(text), 1 if largest < 128 else 0)
    for index in range(len(text)):
        code = numba_unicode._get_code_point(text, len(text) - 1 - index)
        numba_unicode._set_code_point(out, index, code)
    return out


def test_unicode_helpers_read_and_build_strings_code_point_by_code_point():
    jitted = numba.njit(lambda text: rebuild(text))
    for text in ["", "a", "héllo wörld", "日本語のテキスト", "mixed ∑ and 😀 emoji", "\x00\xff"]:
        result = jitted(text)
        assert result == text[::-1]
        assert hash(result) == hash(text[::-1])  # kind and bytes as CPython's own

    code_point = numba.njit(lambda text, i: numba_unicode._get_code_point(text, i))
    assert code_point("a😀", 1) == ord("😀")


# ============================================================================ dtypes, literals


def make_filled(n, dtype):
    raise NotImplementedError


@overload(make_filled)
def make_filled_impl(n, dtype):
    if isinstance(dtype, types.StringLiteral):
        dt = np.dtype(dtype.literal_value)
    elif isinstance(dtype, types.DTypeSpec):
        dt = ember.core.typing.npydecl.parse_dtype(dtype)
    else:
        return None

    def impl(n, dtype):
        return np.ones(n, dt)

    return impl


def test_dtype_specs_are_parsed_as_awkwards_growable_buffer_does():
    @numba.njit
    def filled(n):
        return make_filled(n, np.float32), make_filled(n, np.int16), make_filled(n, "u1")

    a, b, c = filled(3)
    assert (a.dtype, b.dtype, c.dtype) == (np.float32, np.int16, np.uint8)
    assert a.tolist() == b.tolist() == c.tolist() == [1, 1, 1]
    assert not isinstance(types.int64, types.DTypeSpec)
    assert not isinstance(types.unicode_type, types.DTypeSpec)


def test_literals_of_unhashable_values_intern_by_their_spelling():
    first = types.StringLiteral({"__array__": "char"})
    second = types.StringLiteral({"__array__": "char"})
    other = types.StringLiteral({"__array__": "string"})
    assert first is second and first is not other
    assert first.literal_value == {"__array__": "char"}


# ============================================================================ librosa's range


def test_range_of_float_bounds_truncates_them_toward_zero_as_numba_does():
    @numba.njit
    def visited(start, stop, step):
        out = []
        for value in range(start, stop, step):
            out.append(value)
        return out

    cases = [(1.7, 5.9, 1), (-2.5, 3.0, 1), (9.99, -0.5, -2), (0.2, 0.9, 1), (7.0, 1.0, -1)]
    for start, stop, step in cases:
        assert visited(start, stop, step) == list(range(int(start), int(stop), step))
    assert numba.njit(lambda n: len(range(n)))(3.9) == 3
