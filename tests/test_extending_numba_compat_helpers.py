"""Issue 17: the lowering helpers Numba's extension authors use (`context.make_helper`,
`cgutils.*`, `context.compile_internal`, `get_constant_generic`, `cast`, `get_function`,
`impl_ret_*`) and the `c.pyapi` calls of box/unbox, each exercised from compiled code written
in Numba's style (imports changed only). Expected values come from CPython on the same inputs.
"""

from __future__ import annotations

import math
import operator
import sys
from contextlib import ExitStack

import numpy as np
import pytest
from ember.core.imputils import impl_ret_borrowed, impl_ret_new_ref, impl_ret_untracked
from ember.core.typing.templates import AttributeTemplate, signature
from hypothesis import given, settings
from hypothesis import strategies as st
from llvmlite import ir as llvm

import ember as numba
from ember import runtime
from ember.core import cgutils, types
from ember.extending import (
    NativeValue,
    box,
    infer_getattr,
    intrinsic,
    lower_builtin,
    lower_getattr,
    models,
    overload_method,
    register_model,
    type_callable,
    typeof_impl,
    unbox,
)
from ember.lowering.context import CPUContext

FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150)

# ============================================================================ a 3-vector type


class Vec3:
    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z


class Vec3Type(types.Type):
    def __init__(self):
        super().__init__(name="CompatVec3")


vec3_type = Vec3Type()
typeof_impl.register(Vec3)(lambda val, c: vec3_type)


@register_model(Vec3Type)
class Vec3Model(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [("x", types.float64), ("y", types.float64), ("z", types.float64)]
        super().__init__(dmm, fe_type, members)


@type_callable(Vec3)
def type_vec3(context):
    def typer(x, y, z):
        if all(isinstance(a, (types.Integer, types.Float)) for a in (x, y, z)):
            return vec3_type

    return typer


@lower_builtin(Vec3, types.Number, types.Number, types.Number)
def make_vec3(context, builder, sig, args):
    """Numbers of any kind are cast to float64 with `context.cast`."""
    vec = context.make_helper(builder, sig.return_type)
    for name, value, typ in zip("xyz", args, sig.args):
        setattr(vec, name, context.cast(builder, value, typ, types.float64))
    return impl_ret_new_ref(context, builder, sig.return_type, vec._getvalue())


@infer_getattr
class Vec3Attributes(AttributeTemplate):
    key = Vec3Type

    def resolve_x(self, typ):
        return types.float64

    resolve_y = resolve_z = resolve_norm = resolve_x


def _member_getter(attr):
    @lower_getattr(Vec3Type, attr)
    def vec3_member(context, builder, typ, value):
        return getattr(context.make_helper(builder, typ, value=value), attr)


for _attr in "xyz":
    _member_getter(_attr)


def _norm(x, y, z):
    return math.sqrt(x * x + y * y + z * z)


@lower_getattr(Vec3Type, "norm")
def vec3_norm(context, builder, typ, value):
    vec = context.make_helper(builder, typ, value=value)
    sig = signature(types.float64, types.float64, types.float64, types.float64)
    result = context.compile_internal(builder, _norm, sig, [vec.x, vec.y, vec.z])
    return impl_ret_untracked(context, builder, types.float64, result)


@unbox(Vec3Type)
def unbox_vec3(typ, obj, c):
    """Stops at the first failure (no C-API call may run while an exception is pending)."""
    vec = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    failed = cgutils.alloca_once_value(c.builder, cgutils.false_bit)
    with ExitStack() as stack:
        for name in "xyz":
            member = c.pyapi.object_getattr_string(obj, name)
            with cgutils.early_exit_if_null(c.builder, stack, member):
                c.builder.store(cgutils.true_bit, failed)
            native = c.pyapi.to_native_value(types.float64, member)
            c.pyapi.decref(member)
            with cgutils.early_exit_if(c.builder, stack, native.is_error):
                c.builder.store(cgutils.true_bit, failed)
            setattr(vec, name, native.value)
    return NativeValue(vec._getvalue(), is_error=c.builder.load(failed))


@box(Vec3Type)
def box_vec3(typ, val, c):
    vec = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    members = [c.pyapi.from_native_value(types.float64, getattr(vec, n)) for n in "xyz"]
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Vec3))
    result = c.pyapi.call_function_objargs(cls, members)
    for member in members:
        c.pyapi.decref(member)
    c.pyapi.decref(cls)
    return result


@overload_method(Vec3Type, "dot")
def vec3_dot(a, b):
    if isinstance(b, Vec3Type):

        def impl(a, b):
            return a.x * b.x + a.y * b.y + a.z * b.z

        return impl


@numba.njit
def build_and_measure(x, y, z):
    v = Vec3(x, y, z)
    return v.norm, v.dot(v), v


@settings(deadline=None)
@given(FINITE, FINITE, FINITE)
def test_make_helper_cast_compile_internal_and_boxing(x, y, z):
    norm, dot, vec = build_and_measure(x, y, z)
    assert norm == _norm(x, y, z)
    assert dot == x * x + y * y + z * z
    assert (type(vec), vec.x, vec.y, vec.z) == (Vec3, x, y, z)


def test_integer_arguments_are_cast_to_float():
    norm, dot, vec = build_and_measure(3, 4, np.int32(12))
    assert (norm, dot, vec.x, vec.z) == (13.0, 169.0, 3.0, 12.0)
    assert type(vec.x) is float


def test_unbox_through_to_native_value_reports_errors():
    @numba.njit
    def norm(v):
        return v.norm

    assert norm(Vec3(2.0, 3.0, 6.0)) == 7.0
    with pytest.raises(TypeError, match="must be real number, not str"):
        norm(Vec3(2.0, "3", 6.0))
    broken = Vec3(1.0, 2.0, 3.0)
    del broken.y
    with pytest.raises(AttributeError, match="y"):
        norm(broken)


# ============================================================================ intrinsics


@intrinsic
def scaled_in_place(typingctx, vec, factor):
    """Scale a Vec3 through a pointer: `make_helper(ref=...)` and `_getpointer()`."""
    if isinstance(vec, Vec3Type) and isinstance(factor, types.Float):

        def codegen(context, builder, sig, args):
            value, scale = args
            slot = cgutils.alloca_once_value(builder, value)
            proxy = context.make_helper(builder, sig.args[0], ref=slot)
            assert proxy._getpointer() is slot
            for name in "xyz":
                setattr(proxy, name, builder.fmul(getattr(proxy, name), scale))
            return builder.load(slot)

        return vec(vec, factor), codegen


@numba.njit
def scale(x, y, z, factor):
    v = scaled_in_place(Vec3(x, y, z), factor)
    return v.x, v.y, v.z


@settings(deadline=None)
@given(FINITE, FINITE, FINITE, FINITE)
def test_struct_proxy_on_a_reference(x, y, z, factor):
    assert scale(x, y, z, factor) == (x * factor, y * factor, z * factor)


@intrinsic
def tuple_total(typingctx, tup):
    """Sum a homogeneous tuple: `unpack_tuple`, `get_constant`, `get_function(operator.add)`."""
    if isinstance(tup, types.UniTuple) and isinstance(tup.dtype, types.Float):
        item = tup.dtype

        def codegen(context, builder, sig, args):
            add = context.get_function(operator.add, signature(item, item, item))
            total = context.get_constant(item, 0.0)
            for member in cgutils.unpack_tuple(builder, args[0], len(tup)):
                total = add(builder, [total, member])
            return total

        return item(tup), codegen


run_tuple_total = numba.njit(lambda t: tuple_total(t))


@settings(deadline=None)
@given(st.lists(FINITE, min_size=1, max_size=4))
def test_unpack_tuple_and_get_function(values):
    expected = 0.0
    for value in values:
        expected += value
    assert run_tuple_total(tuple(values)) == expected


@intrinsic
def triangle(typingctx, n):
    """0 + 1 + ... + (n - 1) with `for_range`, `alloca_once` and `if_unlikely` for n < 0."""
    if isinstance(n, types.Integer):

        def codegen(context, builder, sig, args):
            (count,) = args
            total = cgutils.alloca_once(builder, count.type, name="total")
            builder.store(context.get_constant_generic(builder, sig.return_type, 0), total)
            negative = builder.icmp_signed("<", count, count.type(0))
            with cgutils.if_unlikely(builder, negative):
                builder.store(count.type(-1), total)
            with cgutils.for_range(builder, count) as loop:
                builder.store(builder.add(builder.load(total), loop.index), total)
            return builder.load(total)

        return types.int64(types.int64), codegen


@pytest.mark.parametrize("n", [-3, 0, 1, 2, 10, 1000])
def test_for_range_alloca_once_and_if_unlikely(n):
    run = numba.njit(lambda n: triangle(n))
    assert run(n) == (-1 if n < 0 else sum(range(n)))


@intrinsic
def pick(typingctx, index, a, b, c):
    """The `index`-th of three int64s through a stack array made with `pack_array`."""
    if isinstance(index, types.Integer) and all(t == types.int64 for t in (a, b, c)):

        def codegen(context, builder, sig, args):
            index, *values = args
            array = cgutils.pack_array(builder, values)
            slot = cgutils.alloca_once_value(builder, array)
            zero = context.get_constant(types.intp, 0)
            pointer = builder.gep(slot, [zero, index], inbounds=True)
            return builder.load(pointer)

        return types.int64(index, a, b, c), codegen


@pytest.mark.parametrize("i", [0, 1, 2])
def test_pack_array(i):
    run = numba.njit(lambda i, a, b, c: pick(i, a, b, c))
    assert run(i, 10, -20, 2**40) == (10, -20, 2**40)[i]


@intrinsic
def nonzero_address(typingctx, address):
    """`cgutils.is_not_null` on a pointer made from an integer."""
    if isinstance(address, types.Integer):

        def codegen(context, builder, sig, args):
            pointer = builder.inttoptr(args[0], cgutils.voidptr_t)
            return cgutils.is_not_null(builder, pointer)

        return types.boolean(address), codegen


def test_is_not_null():
    run = numba.njit(lambda a: nonzero_address(a))
    assert [run(a) for a in (0, 1, 4096)] == [False, True, True]


@intrinsic
def same_array(typingctx, arr):
    """Return the argument itself: `impl_ret_borrowed` counts the new reference."""
    if isinstance(arr, types.Array):

        def codegen(context, builder, sig, args):
            return impl_ret_borrowed(context, builder, sig.return_type, args[0])

        return arr(arr), codegen


def test_impl_ret_borrowed_keeps_reference_counts_balanced():
    @numba.njit
    def twice(n):
        a = np.arange(n) * 2.0
        b = same_array(a)
        return b.sum() + a[0]

    before = runtime.stats()
    for n in (1, 5, 100):
        assert twice(n) == float(np.arange(n).sum() * 2)
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free > 0


def test_value_and_data_types_and_constants():
    context = CPUContext()
    assert context.get_value_type(types.boolean) == llvm.IntType(1)
    assert context.get_data_type(types.boolean) == llvm.IntType(8)
    assert context.get_value_type(types.float32) == llvm.FloatType()
    pair = types.UniTuple(types.int32, 2)
    assert context.get_value_type(pair) == llvm.LiteralStructType([llvm.IntType(32)] * 2)
    constant = context.get_constant_generic(None, pair, (7, -1))
    assert str(constant) == "{i32, i32} {i32 7, i32 -1}"


# ============================================================================ c.pyapi


class Cents:
    """An amount of money as an integer number of cents."""

    def __init__(self, cents):
        self.cents = cents

    def __index__(self):
        return self.cents


class CentsType(types.Type):
    def __init__(self):
        super().__init__(name="CompatCents")


cents_type = CentsType()
typeof_impl.register(Cents)(lambda val, c: cents_type)


@register_model(CentsType)
class CentsModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("amount", types.intp)])


@unbox(CentsType)
def unbox_cents(typ, obj, c):
    """`number_as_ssize_t` calls the object's `__index__`; -1 plus an exception on error."""
    amount = c.pyapi.number_as_ssize_t(obj)
    cents = c.context.make_helper(c.builder, typ)
    cents.amount = amount
    failed = cgutils.is_not_null(c.builder, c.pyapi.err_occurred())
    return NativeValue(cents._getvalue(), is_error=failed)


@box(CentsType)
def box_cents(typ, val, c):
    cents = c.context.make_helper(c.builder, typ, value=val)
    amount = c.pyapi.long_from_longlong(cents.amount)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Cents))
    result = c.pyapi.call_function_objargs(cls, (amount,))
    c.pyapi.decref(amount)
    c.pyapi.decref(cls)
    return result


@intrinsic
def cents_amount(typingctx, cents):
    if isinstance(cents, CentsType):

        def codegen(context, builder, sig, args):
            return context.make_helper(builder, sig.args[0], value=args[0]).amount

        return types.intp(cents), codegen


@intrinsic
def make_cents(typingctx, amount):
    if isinstance(amount, types.Integer):

        def codegen(context, builder, sig, args):
            cents = context.make_helper(builder, sig.return_type)
            cents.amount = context.cast(builder, args[0], sig.args[0], types.intp)
            return cents._getvalue()

        return cents_type(amount), codegen


@numba.njit
def add_interest(money, percent):
    amount = cents_amount(money)
    return make_cents(amount + amount * percent // 100)


@settings(deadline=None)
@given(st.integers(-(2**40), 2**40), st.integers(0, 100))
def test_number_as_ssize_t_and_long_from_longlong(amount, percent):
    result = add_interest(Cents(amount), percent)
    assert type(result) is Cents
    assert result.cents == amount + amount * percent // 100


def test_number_as_ssize_t_overflow_is_reported():
    with pytest.raises(OverflowError):
        add_interest(Cents(2**70), 1)
    refs = sys.getrefcount(Cents)
    for _ in range(20):
        add_interest(Cents(5), 10)
    assert sys.getrefcount(Cents) == refs


# ============================================================================ containers via pyapi


class Record(dict):
    """A dict with keys 'n' (an int) and 'x' (a float), typed as one native struct."""


class RecordType(types.Type):
    def __init__(self):
        super().__init__(name="CompatRecord")


record_type = RecordType()
typeof_impl.register(Record)(lambda val, c: record_type)


@register_model(RecordType)
class RecordModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("n", types.int64), ("x", types.float64)])


@unbox(RecordType)
def unbox_record(typ, obj, c):
    """Items read with object_getitem on string keys made by string_from_constant_string."""
    record = c.context.make_helper(c.builder, typ)
    for name, member_type in (("n", types.int64), ("x", types.float64)):
        key = c.pyapi.string_from_constant_string(name)
        item = c.pyapi.object_getitem(obj, key)
        c.pyapi.decref(key)
        with cgutils.if_likely(c.builder, cgutils.is_not_null(c.builder, item)):
            setattr(record, name, c.pyapi.to_native_value(member_type, item).value)
            c.pyapi.decref(item)
    failed = cgutils.is_not_null(c.builder, c.pyapi.err_occurred())
    return NativeValue(record._getvalue(), is_error=failed)


@box(RecordType)
def box_record(typ, val, c):
    """A Record made by calling the class on a dict built with dict_new/dict_setitem_string,
    with a list of both values under 'both' (list_new/list_setitem) and a `tag` attribute
    set through call_method('__setitem__', ...)."""
    record = c.context.make_helper(c.builder, typ, value=val)
    n_obj = c.pyapi.long_from_longlong(record.n)
    x_obj = c.pyapi.float_from_double(record.x)
    items = c.pyapi.dict_new()
    c.pyapi.dict_setitem_string(items, "n", n_obj)
    c.pyapi.dict_setitem_string(items, "x", x_obj)
    both = c.pyapi.list_new(c.context.get_constant(types.intp, 2))
    for index, obj in enumerate((n_obj, x_obj)):
        c.pyapi.incref(obj)  # list_setitem steals a reference
        c.pyapi.list_setitem(both, c.context.get_constant(types.intp, index), obj)
    c.pyapi.dict_setitem_string(items, "both", both)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Record))
    result = c.pyapi.call_function_objargs(cls, (items,))
    tag_key = c.pyapi.string_from_constant_string("tag")
    tag = c.pyapi.string_from_constant_string("made in ember")
    c.pyapi.decref(c.pyapi.call_method(result, "__setitem__", (tag_key, tag)))
    for obj in (n_obj, x_obj, items, both, cls, tag_key, tag):
        c.pyapi.decref(obj)
    return result


@intrinsic
def record_scaled(typingctx, record, factor):
    if isinstance(record, RecordType) and isinstance(factor, types.Integer):

        def codegen(context, builder, sig, args):
            value = context.make_helper(builder, sig.args[0], value=args[0])
            result = context.make_helper(builder, sig.return_type)
            result.n = builder.mul(value.n, args[1])
            as_float = context.cast(builder, args[1], sig.args[1], types.float64)
            result.x = builder.fmul(value.x, as_float)
            return result._getvalue()

        return record(record, factor), codegen


def test_pyapi_dicts_lists_strings_and_methods():
    scale = numba.njit(lambda r, k: record_scaled(r, k))
    result = scale(Record(n=7, x=1.5), 3)
    assert type(result) is Record
    assert result == {"n": 21, "x": 4.5, "both": [21, 4.5], "tag": "made in ember"}
    with pytest.raises(KeyError, match="x"):
        scale(Record(n=1), 2)
    refs = sys.getrefcount(Record)
    for _ in range(20):
        scale(Record(n=1, x=2.0), 2)
    assert sys.getrefcount(Record) == refs


# ============================================================================ arrays


@intrinsic
def item_at(typingctx, arr, i, j):
    """`arr[i, j]` (negative indices wrap, out of range raises) via make_array and
    get_item_pointer, in Numba's style."""
    if isinstance(arr, types.Array) and arr.ndim == 2:

        def codegen(context, builder, sig, args):
            aryty = sig.args[0]
            ary = context.make_array(aryty)(context, builder, value=args[0])
            indices = [
                context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], sig.args[1:])
            ]
            pointer = cgutils.get_item_pointer(
                context, builder, aryty, ary, indices, wraparound=True, boundscheck=True
            )
            return builder.load(pointer)

        return arr.dtype(arr, i, j), codegen


@numba.njit
def corners(a):
    return item_at(a, 0, 0) + item_at(a, -1, -1) * 10 + item_at(a, 1, -2) * 100


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(12.0).reshape(3, 4),
        lambda: np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        lambda: np.arange(48.0).reshape(6, 8)[::2, ::-2],
        lambda: np.arange(12, dtype=np.int32).reshape(3, 4),
    ],
)
def test_make_array_and_get_item_pointer(make):
    a = make()
    assert corners(a) == a[0, 0] + a[-1, -1] * 10 + a[1, -2] * 100
    with pytest.raises(IndexError):
        numba.njit(lambda a: item_at(a, 3, 0))(a)


# ======================================================================= arrays with user types


@numba.njit
def shifted(vec, a):
    return a + vec.x, a[1:], a


def test_arrays_cross_the_boxing_wrapper_of_user_types():
    """A call involving a @box/@unbox type runs through the boxing wrapper: arrays go in
    without a copy and come out as new arrays, views or the argument itself."""
    a = np.arange(6.0)
    expected_shifted = a + 1.5
    moved, view, same = shifted(Vec3(1.5, 0.0, 0.0), a)
    np.testing.assert_array_equal(moved, expected_shifted)
    assert same is a and np.shares_memory(view, a)
    view[0] = 100.0
    assert a[1] == 100.0
    strided = np.arange(12.0).reshape(3, 4)[:, ::2]
    moved, view, same = shifted(Vec3(-1.0, 0.0, 0.0), strided)
    np.testing.assert_array_equal(moved, strided - 1.0)
    assert same is strided
    before = runtime.stats()
    for _ in range(10):
        shifted(Vec3(1.0, 2.0, 3.0), a)
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 10
