"""Small code-generation helpers for extension code, under Numba's `cgutils` names.

`create_struct_proxy(typ)(context, builder, value=..., ref=...)` reads and writes the members of
a StructModel-backed value by name through a stack slot (or the memory `ref` points at), so
`_getvalue()`, `_setvalue()` and `_getpointer()` all work; LLVM's mem2reg removes the slot.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, NamedTuple

from llvmlite import ir as llvm

from ember import types
from ember.lowering import typed_pointers
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.models import StructModel, model_of

bool_t = llvm.IntType(1)
int8_t = llvm.IntType(8)
int32_t = llvm.IntType(32)
int64_t = llvm.IntType(64)
intp_t = llvm.IntType(64)
voidptr_t = llvm.PointerType()

true_bit = llvm.Constant(bool_t, 1)
false_bit = llvm.Constant(bool_t, 0)
true_byte = llvm.Constant(int8_t, 1)
false_byte = llvm.Constant(int8_t, 0)


# ------------------------------------------------------------------ values and tests


def is_null(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_unsigned("==", value, llvm.Constant(value.type, None))


def is_not_null(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_unsigned("!=", value, llvm.Constant(value.type, None))


def get_null_value(typ: llvm.Type) -> llvm.Constant:
    return llvm.Constant(typ, None)


def is_true(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_unsigned("!=", value, llvm.Constant(value.type, 0))


def is_false(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_unsigned("==", value, llvm.Constant(value.type, 0))


def increment_index(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    """`value + 1` for an index (no signed wrap)."""
    return builder.add(value, llvm.Constant(value.type, 1), flags=("nsw",))


def as_bool_bit(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_unsigned("!=", value, llvm.Constant(value.type, 0))


def pack_array(builder: llvm.IRBuilder, values: Sequence, ty: llvm.Type | None = None):
    """An LLVM array value holding `values` (all of one type, or `ty` for an empty list)."""
    item_type = ty if ty is not None else values[0].type
    result = llvm.Constant(llvm.ArrayType(item_type, len(values)), llvm.Undefined)
    for index, value in enumerate(values):
        result = builder.insert_value(result, value, index)
    return result


def pack_struct(builder: llvm.IRBuilder, values: Sequence) -> llvm.Value:
    """A literal struct value holding `values`."""
    result = llvm.Constant(llvm.LiteralStructType([v.type for v in values]), llvm.Undefined)
    for index, value in enumerate(values):
        result = builder.insert_value(result, value, index)
    return result


def unpack_tuple(builder: llvm.IRBuilder, tup: llvm.Value, count: int | None = None) -> list:
    """The members of an aggregate value (a tuple's struct, an array) as a list."""
    if count is None:
        aggregate = tup.type
        count = aggregate.count if isinstance(aggregate, llvm.ArrayType) else len(aggregate)
    return [builder.extract_value(tup, index) for index in range(count)]


def get_or_insert_function(module: llvm.Module, fnty: llvm.FunctionType, name: str):
    """The function `name` declared in `module` (an LLVM intrinsic such as "llvm.ctpop.i8" or
    an external symbol), declared with `fnty` when it is not there yet."""
    from ember.lowering.context import CPUContext  # the context imports helpers from here

    return CPUContext.declare_function(module, name, fnty)


# ------------------------------------------------------------------ memory


def alloca_once(
    builder: llvm.IRBuilder,
    typ: llvm.Type,
    size: llvm.Value | int | None = None,
    name: str = "",
    zfill: bool = False,
) -> llvm.Value:
    """A stack slot allocated once, in the function's entry block (`size` items of `typ`)."""
    if size is None:
        slot = alloca_in_entry(builder, typ, name)
    else:
        saved = builder.block
        builder.position_at_start(builder.function.entry_basic_block)
        count = llvm.Constant(intp_t, size) if isinstance(size, int) else size
        slot = builder.alloca(typ, size=count, name=name)
        builder.position_at_end(saved)
    if zfill:
        builder.store(llvm.Constant(typ, None), slot)
    return slot


def alloca_once_value(
    builder: llvm.IRBuilder, value: llvm.Value, name: str = "", zfill: bool = False
) -> llvm.Value:
    """A stack slot (in the entry block) initialised here with `value`."""
    slot = alloca_once(builder, value.type, name=name, zfill=zfill)
    builder.store(value, slot)
    return slot


def pointer_add(
    builder: llvm.IRBuilder, ptr: llvm.Value, offset: llvm.Value | int, return_type=None
) -> llvm.Value:
    """`ptr` moved by `offset` bytes, as `return_type` (a pointer type; default: ptr's type)."""
    if isinstance(offset, int):
        offset = llvm.Constant(intp_t, offset)
    address = builder.add(builder.ptrtoint(ptr, intp_t), offset)
    return builder.inttoptr(address, return_type or ptr.type)


def gep_inbounds(builder: llvm.IRBuilder, ptr: llvm.Value, *indices: int, source_etype=None):
    return gep(builder, ptr, *indices, source_etype=source_etype, inbounds=True)


def gep(builder, ptr, *indices, source_etype=None, inbounds: bool = False, name: str = ""):
    """getelementptr with Python ints turned into i32 constants; `source_etype` (the pointee
    type) is needed for an opaque `ptr` only."""
    idx = [llvm.Constant(int32_t, i) if isinstance(i, int) else i for i in indices]
    if not ptr.type.is_opaque:
        source_etype = None
    return builder.gep(ptr, idx, inbounds=inbounds, name=name, source_etype=source_etype)


# ------------------------------------------------------------------ control flow


def if_likely(builder: llvm.IRBuilder, condition: llvm.Value) -> Any:
    return builder.if_then(condition, likely=True)


def if_unlikely(builder: llvm.IRBuilder, condition: llvm.Value) -> Any:
    return builder.if_then(condition, likely=False)


def ifnot(builder: llvm.IRBuilder, condition: llvm.Value) -> Any:
    return builder.if_then(builder.not_(condition))


@contextmanager
def early_exit_if(builder: llvm.IRBuilder, stack: ExitStack, condition: llvm.Value) -> Iterator:
    """The body runs when `condition` holds; everything after it, until `stack` closes, runs
    only when it does not (Numba's ExitStack idiom for a chain of fallible steps)."""
    then, otherwise = stack.enter_context(builder.if_else(condition, likely=False))
    with then:
        yield
    stack.enter_context(otherwise)


def early_exit_if_null(builder: llvm.IRBuilder, stack: ExitStack, obj: llvm.Value) -> Any:
    return early_exit_if(builder, stack, is_null(builder, obj))


class Loop(NamedTuple):
    """What `for_range` yields: the current `index` and a `do_break()` leaving the loop."""

    index: llvm.Value
    do_break: Any


@contextmanager
def for_range(
    builder: llvm.IRBuilder, count: llvm.Value, start: llvm.Value | None = None, intp=None
) -> Iterator[Loop]:
    """`for index in range(start or 0, count)`: the body is emitted inside the `with`."""
    int_type = intp if intp is not None else count.type
    start = llvm.Constant(int_type, 0) if start is None else start
    with _counted_loop(builder, start, count, llvm.Constant(int_type, 1)) as (loop, _):
        yield loop


@contextmanager
def for_range_slice(builder, start, stop, step, intp=None, inc: bool = True) -> Iterator:
    """`for index in range(start, stop, step)` (step > 0 when `inc`, < 0 otherwise); yields
    (index, count of iterations done before this one), as Numba's does."""
    with _counted_loop(builder, start, stop, step, inc) as (loop, count):
        yield loop.index, count


@contextmanager
def _counted_loop(builder, start, stop, step, inc: bool = True) -> Iterator:
    """The loop of `for_range` and `for_range_slice`: yields (Loop, iterations done)."""
    function = builder.function
    cond_block = function.append_basic_block("for.cond")
    body_block = function.append_basic_block("for.body")
    incr_block = function.append_basic_block("for.incr")
    end_block = function.append_basic_block("for.end")
    before = builder.block
    builder.branch(cond_block)
    builder.position_at_end(cond_block)
    index = builder.phi(start.type, name="for.index")
    index.add_incoming(start, before)
    count = builder.phi(start.type, name="for.count")
    count.add_incoming(llvm.Constant(start.type, 0), before)
    compare = "<" if inc else ">"
    builder.cbranch(builder.icmp_signed(compare, index, stop), body_block, end_block)
    builder.position_at_end(body_block)
    yield Loop(index, lambda: builder.branch(end_block)), count
    if not builder.block.is_terminated:
        builder.branch(incr_block)
    builder.position_at_end(incr_block)
    index.add_incoming(builder.add(index, step), incr_block)
    count.add_incoming(builder.add(count, llvm.Constant(start.type, 1)), incr_block)
    builder.branch(cond_block)
    builder.position_at_end(end_block)


# ------------------------------------------------------------------ array items


def get_item_pointer(context, builder, aryty, ary, inds, wraparound=False, boundscheck=False):
    """A pointer to `ary[inds]` (`ary`: the array's struct proxy, `context.make_array`)."""
    shape = unpack_tuple(builder, ary.shape, aryty.ndim)
    strides = unpack_tuple(builder, ary.strides, aryty.ndim)
    return get_item_pointer2(
        context, builder, ary.data, shape, strides, aryty.layout, inds, wraparound, boundscheck,
        dtype=aryty.dtype,
    )  # fmt: skip


def get_item_pointer2(
    context, builder, data, shape, strides, layout, inds,
    wraparound=False, boundscheck=False, dtype=None,
):  # fmt: skip
    """A pointer to the item at integer indices `inds` (strides in bytes): negative indices
    count from the end with `wraparound`; `boundscheck` raises IndexError when out of range."""
    offset = llvm.Constant(intp_t, 0)
    for index, extent, stride in zip(inds, shape, strides):
        index = builder.sext(index, intp_t) if index.type.width < 64 else index
        if wraparound:
            negative = builder.icmp_signed("<", index, index.type(0))
            index = builder.select(negative, builder.add(index, extent), index)
        if boundscheck:
            outside = builder.or_(
                builder.icmp_signed("<", index, index.type(0)),
                builder.icmp_signed(">=", index, extent),
            )
            context.guard(builder, outside, IndexError, "index is out of bounds")
        offset = builder.add(offset, builder.mul(index, stride))
    address = builder.gep(data, [offset], source_etype=int8_t)
    if dtype is None:
        return address
    return typed_pointer(builder, address, context.get_data_type(dtype))


def typed_pointer(builder: llvm.IRBuilder, pointer: llvm.Value, pointee: llvm.Type):
    """`pointer` as a `pointee*`, so that Numba-style `builder.load(ptr)` / `store` know the
    type. (IRBuilder.bitcast would return an opaque pointer unchanged: pointers compare equal.)"""
    cast = llvm.instructions.CastInstr(builder.block, "bitcast", pointer, pointee.as_pointer())
    builder._insert(cast)  # noqa: SLF001 - the builder has no public "emit this instruction"
    return cast


def raw_memcpy(builder: llvm.IRBuilder, dst, src, count, itemsize, align: int = 1) -> None:
    """Numba's: copy `count` items of `itemsize` bytes from `src` to `dst`."""
    from ember.lowering.arrays import memcpy

    count, itemsize = (_as_i64(value) for value in (count, itemsize))
    memcpy(builder, dst, src, builder.mul(count, itemsize))


def memcpy(builder: llvm.IRBuilder, dst, src, count) -> None:
    """Numba's: copy `count` items of `dst`'s pointee type (bytes through an opaque pointer)."""
    pointee = getattr(dst.type, "pointee", None)
    itemsize = 1 if pointee is None else _abi_size(pointee)
    raw_memcpy(builder, dst, src, count, itemsize)


def _as_i64(value) -> llvm.Value:
    return llvm.Constant(llvm.IntType(64), value) if isinstance(value, int) else value


def _abi_size(typ: llvm.Type) -> int:
    from ember.lowering.context_numba import _target_data

    return typ.get_abi_size(_target_data())


# ------------------------------------------------------------------ structs by member name


class _StructProxy:
    """Members of one StructModel-backed value by name (see `create_struct_proxy`)."""

    _fe_type: types.Type

    def __init__(
        self,
        context: Any,
        builder: llvm.IRBuilder,
        value: llvm.Value | None = None,
        ref: llvm.Value | None = None,
    ) -> None:
        model = model_of(self._fe_type)
        if not isinstance(model, StructModel):
            raise TypeError(f"{self._fe_type} is not backed by a StructModel")
        if value is not None and ref is not None:
            raise TypeError("give a struct proxy either value= or ref=, not both")
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_builder", builder)
        object.__setattr__(self, "_datamodel", model)
        object.__setattr__(self, "_be_type", model.value_type)
        if ref is None:
            ref = alloca_once(builder, model.value_type, zfill=value is None)
            if value is not None:
                builder.store(value, ref)
        object.__setattr__(self, "_value", ref)

    def _get_ptr_by_index(self, index: int) -> llvm.Value:
        return gep_inbounds(self._builder, self._value, 0, index, source_etype=self._be_type)

    def _get_ptr_by_name(self, name: str) -> llvm.Value:
        return self._get_ptr_by_index(self._index(name))

    def _index(self, name: str) -> int:
        model = object.__getattribute__(self, "_datamodel")
        name = getattr(model, "member_aliases", {}).get(name, name)
        if name not in model.member_names:
            raise AttributeError(f"{self._fe_type} has no member {name!r}")
        return model.index_of(name)

    def __getattr__(self, name: str) -> llvm.Value:
        if name.startswith("_"):
            raise AttributeError(name)
        derived = getattr(self._datamodel, "derived_members", {}).get(name)
        if derived is not None:  # a member of Numba's layout ember's model computes
            return derived(self._builder, self._getvalue())
        member = self[self._index(name)]
        if name == "data" and isinstance(self._fe_type, types.Array):  # Numba's `dtype*`
            return self._typed_data(member)
        return member

    def _typed_data(self, data: llvm.Value) -> llvm.Value:
        try:
            item = model_of(self._fe_type.dtype).data_type
        except NotImplementedError:  # records: items are bytes, left opaque
            return data
        return typed_pointers.typed(self._builder, data, item)

    def __setattr__(self, name: str, member: llvm.Value) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, member)
            return
        if name in getattr(self._datamodel, "derived_members", {}):
            return  # computed from the other members: nothing to store
        self[self._index(name)] = member

    def __getitem__(self, index: int) -> llvm.Value:
        member_type = self._be_type.elements[index]
        return self._builder.load(self._get_ptr_by_index(index), typ=member_type)

    def __setitem__(self, index: int, member: llvm.Value) -> None:
        expected = self._be_type.elements[index]
        if member.type != expected:
            raise TypeError(
                f"member {self._datamodel.member_names[index]!r} of {self._fe_type} is "
                f"{expected}, got a value of LLVM type {member.type}"
            )
        self._builder.store(member, self._get_ptr_by_index(index))

    def __len__(self) -> int:
        return len(self._datamodel.member_names)

    def _getvalue(self) -> llvm.Value:
        return self._builder.load(self._value, typ=self._be_type)

    def _setvalue(self, value: llvm.Value) -> None:
        self._builder.store(value, self._value)

    def _getpointer(self) -> llvm.Value:
        return self._value


def create_struct_proxy(fe_type: types.Type, kind: str = "value") -> type:
    """A class whose instances `(context, builder, value=None, ref=None)` view a struct value
    (or the struct `ref` points at) by member name."""
    if kind != "value":
        raise NotImplementedError(f"create_struct_proxy(kind={kind!r}): only 'value' is offered")
    return type(f"StructProxy_{fe_type}", (_StructProxy,), {"_fe_type": fe_type})
