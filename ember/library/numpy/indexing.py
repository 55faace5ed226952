"""Indexing arrays: `a[i]`, `a[i, j]`, slices with steps, `None`/`np.newaxis`, `...`, one 1-d
integer-array or boolean-mask index, and a boolean mask of the array's own shape; assignment
`a[index] = value` with scalars and broadcast arrays. Several index arrays together (and
integers apart from one) follow NumPy's combined rule in multi_index.py.

Basic indices (integers, slices, None, ...) give views that share memory; an integer or mask
array index gives a new array. Integer indices count from the end when negative; with
`boundscheck=True` (or EMBER_BOUNDSCHECK=1) an index out of range raises IndexError, otherwise
the address is computed without checks (integer-array indices are always checked).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.library.builtins.int_scalars import cast_stored
from ember.library.builtins.slices import slice_bounds
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering import lists
from ember.lowering.arrays import ArrayFields, const
from ember.lowering.registry import lower_builtin
from ember.typing.conversions import can_convert
from ember.typing.signature import signature
from ember.typing.templates import registry

_ADVANCED = ("intarray", "mask", "fullmask")


@dataclass(frozen=True)
class IndexPlan:
    """How an index applies to an array type.

    `expanded` has one (kind, item position) per dimension consumed or created, in order:
    kinds 'int', 'slice', 'full' (an implicit or `...` dimension, position None), 'newaxis',
    'intarray', 'mask' and 'fullmask'.
    """

    array_type: types.Array
    index_types: tuple
    expanded: tuple
    result: types.Type

    @property
    def is_element(self) -> bool:
        return not isinstance(self.result, types.Array)

    @property
    def advanced(self) -> str | None:
        for kind, _ in self.expanded:
            if kind in _ADVANCED:
                return kind
        return None


def _classify(array_type: types.Array, typ: types.Type, alone: bool) -> str | None:
    typ = types.unliteral(typ)
    if isinstance(typ, types.Integer):
        return "int"
    if isinstance(typ, types.SliceType):
        return "slice"
    if isinstance(typ, types.NoneType):
        return "newaxis"
    if isinstance(typ, types.EllipsisType):
        return "ellipsis"
    if isinstance(typ, types.Array):
        if isinstance(typ.dtype, types.Integer) and typ.ndim >= 1:
            return "intarray" if typ.ndim == 1 else "intarray_nd"
        if isinstance(typ.dtype, types.Boolean):
            if typ.ndim == 1 and not (alone and array_type.ndim == 1):
                return "mask"
            if alone and typ.ndim == array_type.ndim:
                return "fullmask"
            raise TypingError(
                f"a boolean index must be 1-d or have the array's {array_type.ndim} dimensions, "
                f"not {typ.ndim}"
            )
        raise TypingError(f"arrays used as indices must be integer or boolean, not {typ}")
    return None


def read_only_assignment(array_type: types.Array) -> TypingError:
    """The error for a store into a read-only array (Numba's words first)."""
    return TypingError(
        f"Cannot modify readonly array of type: {array_type}: cannot assign into a read-only "
        "array (a global, or an argument whose flags.writeable is False)"
    )


def index_kinds(array_type: types.Array, index_type: types.Type) -> list | None:
    """The kind of each item of an index (see IndexPlan); None when one is not an index."""
    items = tuple(index_type.types) if isinstance(index_type, types.BaseTuple) else (index_type,)
    items = tuple(_scalar_index_type(t) for t in items)
    kinds = [_classify(array_type, t, len(items) == 1) for t in items]
    return None if None in kinds else kinds


def several_advanced(kinds: list) -> bool:
    """Whether NumPy's combined rule applies (multi_index.py): two or more index arrays, an
    index array of rank 2 or more, or one index array with integers apart from it (its
    dimension then moves first)."""
    arrays = [k for k in kinds if k in ("intarray", "intarray_nd", "mask")]
    if len(arrays) >= 2 or "intarray_nd" in kinds:
        return True
    if not arrays:
        return False
    spots = [i for i, k in enumerate(kinds) if k in ("intarray", "mask", "int")]
    return spots[-1] - spots[0] + 1 != len(spots)


def analyze(array_type: types.Array, index_type: types.Type) -> IndexPlan | None:
    """The IndexPlan of `array_type[index_type]`; None when the index is not an array index
    or combines index arrays (multi_index.py)."""
    items = tuple(index_type.types) if isinstance(index_type, types.BaseTuple) else (index_type,)
    items = tuple(_scalar_index_type(t) for t in items)
    kinds = index_kinds(array_type, index_type)
    if kinds is None or several_advanced(kinds):
        return None
    if kinds.count("ellipsis") > 1:
        raise TypingError("an index can only have a single ellipsis ('...')")
    ndim = array_type.ndim
    consumed = sum(1 for k in kinds if k in ("int", "slice", "intarray", "mask"))
    consumed += ndim if "fullmask" in kinds else 0
    if consumed > ndim:
        raise TypingError(
            f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    expanded = []
    for position, kind in enumerate(kinds):
        if kind == "ellipsis":
            expanded += [("full", None)] * (ndim - consumed)
        else:
            expanded.append((kind, position))
    if "ellipsis" not in kinds and "fullmask" not in kinds:
        expanded += [("full", None)] * (ndim - consumed)
    result = _result_type(array_type, expanded, "ellipsis" in kinds)
    return IndexPlan(array_type, tuple(items), tuple(expanded), result)


def _result_type(array_type: types.Array, expanded: list, has_ellipsis: bool) -> types.Type:
    kinds = [kind for kind, _ in expanded]
    if "fullmask" in kinds:
        return types.Array(array_type.dtype, 1, "C")
    ndim = sum(1 for k in kinds if k != "int")
    if any(k in _ADVANCED for k in kinds):
        return types.Array(array_type.dtype, ndim, "C")
    if ndim == 0 and "newaxis" not in kinds and not has_ellipsis:
        return types.element_value_type(array_type.dtype)
    return array_type.copy(ndim=ndim, layout=_view_layout(array_type, kinds))


def _view_layout(array_type: types.Array, kinds: list) -> str:
    """'C' (or 'F') when the view of a C (or F) array is still contiguous for sure: integers
    on the outer side, then at most one unit-step slice, then whole dimensions."""
    if array_type.layout == "A":
        return "A"
    dims = [k for k in kinds if k != "newaxis"]
    if array_type.layout == "F":
        dims.reverse()
    state = "ints"
    for kind in dims:
        if kind == "int" and state == "ints":
            continue
        if kind in ("slice", "full") and state == "ints":
            state = "rest"
            continue
        if kind == "full" and state == "rest":
            continue
        return "A"
    return array_type.layout


def _is_unit_slice(typ: types.Type) -> bool:
    return isinstance(typ, types.SliceType) and not typ.has_step


# ---------------------------------------------------------------------------- typing


@registry.typer(operator.getitem)
def _type_getitem(args, kws):
    if len(args) != 2 or not isinstance(args[0], types.Array):
        return None
    plan = analyze(args[0], args[1])
    if plan is None:
        return None
    plan = _with_slice_steps(plan)
    # an item is a NumPy scalar: strong beside an array in NumPy's promotion (NEP 50)
    return signature(types.numpy_scalar(plan.result), args[0], args[1])


def _with_slice_steps(plan: IndexPlan) -> IndexPlan:
    """A slice with an explicit step is never known contiguous."""
    for kind, position in plan.expanded:
        if kind == "slice" and not _is_unit_slice(types.unliteral(plan.index_types[position])):
            if isinstance(plan.result, types.Array) and plan.advanced is None:
                result = plan.result.copy(layout="A")
                return IndexPlan(plan.array_type, plan.index_types, plan.expanded, result)
    return plan


@registry.typer(operator.setitem)
def _type_setitem(args, kws):
    if len(args) != 3 or not isinstance(args[0], types.Array):
        return None
    array_type, index_type, value_type = args
    plan = analyze(array_type, index_type)
    if plan is None:
        return None
    if array_type.readonly:
        raise read_only_assignment(array_type)
    value_type = types.unliteral(value_type)
    if isinstance(value_type, types.Array):
        if plan.is_element:  # a[i] = x: only a 0-d array of numbers stands for one number
            zero_d = value_type.ndim == 0 and isinstance(value_type.dtype, types.Number)
            if not (zero_d and _holds_numbers(array_type)):
                return None
            if isinstance(value_type.dtype, types.Complex) and _is_real(array_type.dtype):
                raise TypingError(
                    f"cannot store a {value_type} in an array of {array_type.dtype}; store "
                    "`.real`, or make the array complex"
                )
    elif _is_number_sequence(value_type) and _holds_numbers(array_type):
        # a[i] = (x, y), a[1:3] = [p, q]: into a 1-d view
        if not (isinstance(plan.result, types.Array) and plan.result.ndim == 1) or plan.advanced:
            raise TypingError(
                f"a {value_type} can be assigned to a 1-d slice of an array only, not to "
                f"{plan.result}; assign an array (np.array(...)) to broadcast it"
            )
        items = list(value_type) if isinstance(value_type, types.BaseTuple) else [value_type.dtype]
        if any(isinstance(t, types.Complex) for t in items) and _is_real(array_type.dtype):
            raise TypingError(f"cannot store the complex items of a {value_type} in an array "
                              f"of {array_type.dtype}; make the array complex")  # fmt: skip
    elif isinstance(value_type, types.Record):  # a[i] = b[j]: copies the record's bytes
        if not plan.is_element or value_type != array_type.dtype:
            return None
    elif isinstance(array_type.dtype, (types.UnicodeCharSeq, types.CharSeq)):
        return _type_string_store(plan, array_type, index_type, value_type)
    elif isinstance(value_type, types.RawPointer):  # a C function's void *: its address
        if not plan.is_element or can_convert(value_type, array_type.dtype) is None:
            return None
        return signature(types.none, array_type, index_type, array_type.dtype)
    elif not isinstance(value_type, types.Number):
        return None
    elif isinstance(value_type, types.Complex) and _is_real(array_type.dtype):
        raise TypingError(
            f"cannot store a {value_type} in an array of {array_type.dtype} (NumPy would drop "
            "the imaginary part with a ComplexWarning; Numba refuses too); store `.real` or "
            "`abs(...)`, or make the array complex"
        )
    return signature(types.none, array_type, index_type, value_type)


def _is_number_sequence(typ: types.Type) -> bool:
    """A tuple or list of numbers, whose items are stored one by one into an array view."""
    if isinstance(typ, types.BaseTuple):
        return all(isinstance(types.unliteral(t), types.Number | types.Boolean) for t in typ)
    return isinstance(typ, types.List) and isinstance(typ.dtype, types.Number | types.Boolean)


def _type_string_store(plan: IndexPlan, array_type, index_type, value_type):
    """`s[i] = 'xy'` into a string array: one element, from a `str` (or, into an 'S' array,
    `bytes` or an ASCII `str`)."""
    if not plan.is_element:
        raise TypingError(
            f"storing into a NumPy string array ({array_type}) through a slice or an index "
            "array is not supported: store one element at a time, `s[i] = text`"
        )
    if can_convert(value_type, array_type.dtype) is None:
        wanted = "a str" if isinstance(array_type.dtype, types.UnicodeCharSeq) else "bytes or a str"
        raise TypingError(f"a NumPy string array ({array_type}) stores {wanted}, not {value_type}")
    return signature(types.none, array_type, index_type, value_type)


def _holds_numbers(array_type: types.Array) -> bool:
    return isinstance(array_type.dtype, types.Number | types.Boolean)


def _is_real(dtype: types.Type) -> bool:
    return isinstance(dtype, types.Number) and not isinstance(dtype, types.Complex)


# ---------------------------------------------------------------------------- lowering helpers


def _is_0d_integer_array(typ: types.Type) -> bool:
    return isinstance(typ, types.Array) and typ.ndim == 0 and isinstance(typ.dtype, types.Integer)


def _scalar_index_type(typ: types.Type) -> types.Type:
    """NumPy reads a 0-d integer array used as an index as its integer."""
    return typ.dtype if _is_0d_integer_array(typ) else typ


def _items(builder, index_type, index_value) -> list:
    if isinstance(index_type, types.BaseTuple):
        pairs = [(t, builder.extract_value(index_value, i)) for i, t in enumerate(index_type)]
    else:
        pairs = [(index_type, index_value)]
    return [_scalar_index_value(builder, t, v) for t, v in pairs]


def _scalar_index_value(builder, typ: types.Type, value):
    if not _is_0d_integer_array(typ):
        return value
    fields = arr.unpack(builder, typ, value)
    return arr.load_item(builder, typ.dtype, arr.element_pointer(builder, typ, fields, []))


def element_address(context, builder, plan: IndexPlan, fields: ArrayFields, values: list):
    """The address of `a[i, j, ...]` when every dimension gets an integer."""
    indices = []
    for k, (_kind, position) in enumerate(plan.expanded):
        typ = plan.index_types[position]
        index = arr.wrap_index(builder, values[position], typ, fields.shape[k])
        arr.check_index(context, builder, index, fields.shape[k])
        indices.append(index)
    return arr.element_pointer(builder, plan.array_type, fields, indices)


def basic_view(
    context,
    builder,
    plan: IndexPlan,
    fields: ArrayFields,
    values: list,
    keep_advanced: bool = False,
) -> tuple[ArrayFields, int | None]:
    """The view a basic index selects (sharing the meminfo, not counted here). With
    `keep_advanced`, the advanced index's dimension is kept whole; its position in the view is
    returned too."""
    data = fields.data
    shape, strides = [], []
    dim = 0
    advanced_at = None
    for kind, position in plan.expanded:
        if kind == "newaxis":
            shape.append(const(1))
            strides.append(const(0))
            continue
        if kind == "fullmask":
            return fields, None
        size, stride = fields.shape[dim], fields.strides[dim]
        if kind == "int":
            typ = plan.index_types[position]
            index = arr.wrap_index(builder, values[position], typ, size)
            arr.check_index(context, builder, index, size)
            data = arr.offset_pointer(builder, data, builder.mul(index, stride))
        elif kind == "slice":
            start, count, step = slice_bounds(builder, values[position], size)
            data = arr.offset_pointer(builder, data, builder.mul(start, stride))
            shape.append(count)
            strides.append(builder.mul(step, stride))
        else:  # 'full', or an advanced index kept whole
            if kind in _ADVANCED:
                advanced_at = len(shape)
            shape.append(size)
            strides.append(stride)
        dim += 1
    view = ArrayFields(
        fields.meminfo,
        fields.parent,
        arr.product(builder, shape),
        fields.itemsize,
        data,
        shape,
        strides,
    )
    return view, advanced_at


def _view_type(plan: IndexPlan, ndim: int) -> types.Array:
    return plan.array_type.copy(ndim=ndim, layout="A")


# ---------------------------------------------------------------------------- getitem


@lower_builtin(operator.getitem, types.Array, types.Type)
def array_getitem(context, builder, sig, args):
    array_type, index_type = sig.args
    plan = _with_slice_steps(analyze(array_type, index_type))
    fields = arr.unpack(builder, array_type, args[0])
    values = _items(builder, index_type, args[1])
    if plan.is_element:
        pointer = element_address(context, builder, plan, fields, values)
        if isinstance(array_type.dtype, types.Record):  # a view keeping its array alive
            return arr.record_of_array(builder, array_type.dtype, fields, pointer)
        item = arr.load_item(builder, array_type.dtype, pointer)
        return context.cast(builder, item, array_type.dtype, sig.return_type)
    if plan.advanced is None:
        view, _ = basic_view(context, builder, plan, fields, values)
        arr.nrt_incref_fields(builder, view)
        return arr.pack(builder, sig.return_type, view)
    return _gather(context, builder, plan, sig.return_type, fields, values)


def _advanced_value(plan: IndexPlan, values: list):
    for kind, position in plan.expanded:
        if kind in _ADVANCED:
            return kind, plan.index_types[position], values[position]
    raise AssertionError("no advanced index")


def _gather(context, builder, plan, result_type, fields, values):
    kind, index_type, index_value = _advanced_value(plan, values)
    if kind == "fullmask":
        return _gather_full_mask(
            context, builder, plan, result_type, fields, index_type, index_value
        )
    view, axis = basic_view(context, builder, plan, fields, values, keep_advanced=True)
    positions_type, positions = _positions(
        context, builder, kind, index_type, index_value, view.shape[axis]
    )
    pos_fields = arr.unpack(builder, positions_type, positions)
    out_shape = list(view.shape)
    out_shape[axis] = pos_fields.shape[0]
    result = arr.allocate(context, builder, result_type, out_shape)
    out = arr.unpack(builder, result_type, result)
    view_type = _view_type(plan, len(view.shape))
    with arr.loop_nest(builder, out_shape) as indices:
        source = list(indices)
        source[axis] = _position_at(
            context, builder, positions_type, pos_fields, indices[axis], view.shape[axis], kind
        )
        item = arr.load_item(
            builder, plan.array_type.dtype, arr.element_pointer(builder, view_type, view, source)
        )
        arr.store_item(
            builder,
            result_type.dtype,
            item,
            arr.element_pointer(builder, result_type, out, indices),
        )
    if kind == "mask":
        arr.decref(builder, positions_type, positions)
    return result


def _positions(context, builder, kind, index_type, index_value, length):
    """For an integer array: itself. For a 1-d mask: a new int64 array of its True positions
    (IndexError when its length is not `length`)."""
    if kind == "intarray":
        return index_type, index_value
    mask = arr.unpack(builder, index_type, index_value)
    wrong = builder.icmp_signed("!=", mask.shape[0], length)
    context.guard(builder, wrong, IndexError, "boolean index did not match indexed array")
    count = _count_true(builder, index_type, mask)
    positions_type = types.Array(types.int64, 1, "C")
    positions = arr.allocate(context, builder, positions_type, [count])
    out = arr.unpack(builder, positions_type, positions)

    def flag_and_item(b, i):
        flag = arr.load_item(b, types.boolean, arr.element_pointer(b, index_type, mask, [i]))
        return flag, i

    _compact(builder, count, positions_type, out, flag_and_item)
    return positions_type, positions


def _compact(builder, count, out_type, out: ArrayFields, flag_and_item) -> None:
    """out[k] = the item of the k-th True flag, for k < `count` (the number of True flags):
    every item is stored and only a True flag's is kept, with no branch on the flags (which
    mispredicts when True and False mix). While fewer than `count` are kept a True flag lies
    ahead, so the 1-d index `i` stays in range."""
    filled_slot = arr.alloca_in_entry(builder, arr.i64, name="compact.filled")
    index_slot = arr.alloca_in_entry(builder, arr.i64, name="compact.index")
    builder.store(const(0), filled_slot)
    builder.store(const(0), index_slot)
    header = builder.append_basic_block("compact.header")
    body = builder.append_basic_block("compact.body")
    done = builder.append_basic_block("compact.done")
    builder.branch(header)
    builder.position_at_end(header)
    filled = builder.load(filled_slot, typ=arr.i64)
    builder.cbranch(builder.icmp_signed("<", filled, count), body, done)
    builder.position_at_end(body)
    i = builder.load(index_slot, typ=arr.i64)
    flag, item = flag_and_item(builder, i)
    arr.store_item(builder, out_type.dtype, item,
                   arr.element_pointer(builder, out_type, out, [filled]))  # fmt: skip
    builder.store(builder.add(filled, builder.zext(flag, arr.i64)), filled_slot)
    builder.store(builder.add(i, const(1)), index_slot)
    builder.branch(header)
    builder.position_at_end(done)


def _count_true(builder, mask_type, mask: ArrayFields):
    slot = arr.alloca_in_entry(builder, arr.i64, name="mask.count")
    builder.store(const(0), slot)
    with arr.loop_nest(builder, mask.shape) as indices:
        flag = arr.load_item(
            builder, types.boolean, arr.element_pointer(builder, mask_type, mask, indices)
        )
        builder.store(
            builder.add(builder.load(slot, typ=arr.i64), builder.zext(flag, arr.i64)), slot
        )
    return builder.load(slot, typ=arr.i64)


def _position_at(context, builder, positions_type, positions, j, length, kind):
    pointer = arr.element_pointer(builder, positions_type, positions, [j])
    value = arr.load_item(builder, positions_type.dtype, pointer)
    if kind == "mask":
        return value
    index = arr.wrap_index(builder, value, positions_type.dtype, length)
    arr.check_index(context, builder, index, length, always=True)
    return index


def _gather_full_mask(context, builder, plan, result_type, fields, mask_type, mask_value):
    mask = arr.unpack(builder, mask_type, mask_value)
    _check_mask_shape(context, builder, mask, fields)
    count = _count_true(builder, mask_type, mask)
    result = arr.allocate(context, builder, result_type, [count])
    out = arr.unpack(builder, result_type, result)
    if plan.array_type.ndim == 1:

        def flag_and_item(b, i):
            flag = arr.load_item(b, types.boolean, arr.element_pointer(b, mask_type, mask, [i]))
            pointer = arr.element_pointer(b, plan.array_type, fields, [i])
            return flag, arr.load_item(b, plan.array_type.dtype, pointer)

        _compact(builder, count, result_type, out, flag_and_item)
        return result
    slot = arr.alloca_in_entry(builder, arr.i64, name="mask.fill")
    builder.store(const(0), slot)
    with arr.loop_nest(builder, fields.shape) as indices:
        flag = arr.load_item(
            builder, types.boolean, arr.element_pointer(builder, mask_type, mask, indices)
        )
        with builder.if_then(flag):
            filled = builder.load(slot, typ=arr.i64)
            item = arr.load_item(
                builder,
                plan.array_type.dtype,
                arr.element_pointer(builder, plan.array_type, fields, indices),
            )
            arr.store_item(
                builder,
                result_type.dtype,
                item,
                arr.element_pointer(builder, result_type, out, [filled]),
            )
            builder.store(builder.add(filled, const(1)), slot)
    return result


def _check_mask_shape(context, builder, mask: ArrayFields, fields: ArrayFields) -> None:
    wrong = llvm.Constant(arr.i1, 0)
    for have, want in zip(mask.shape, fields.shape):
        wrong = builder.or_(wrong, builder.icmp_signed("!=", have, want))
    context.guard(builder, wrong, IndexError, "boolean index did not match indexed array")


# ---------------------------------------------------------------------------- setitem


@lower_builtin(operator.setitem, types.Array, types.Type, types.Type)
def array_setitem(context, builder, sig, args):
    array_type, index_type, value_type = sig.args
    plan = analyze(array_type, index_type)
    fields = arr.unpack(builder, array_type, args[0])
    values = _items(builder, index_type, args[1])
    value = args[2]
    if isinstance(value_type, types.Array) and value_type.ndim == 0:  # its one item
        source = arr.unpack(builder, value_type, value)
        value = arr.load_item(
            builder, value_type.dtype, arr.element_pointer(builder, value_type, source, [])
        )
        value_type = value_type.dtype
    if _is_number_sequence(value_type):
        view, _ = basic_view(context, builder, plan, fields, values)
        _store_sequence(context, builder, _view_type(plan, 1), view, value_type, value)
        return context.get_dummy_value(types.none)
    if not isinstance(value_type, types.Array):  # converted once, before any loop
        value = cast_stored(context, builder, value, value_type, array_type.dtype)
        value_type = array_type.dtype
    if plan.is_element:
        pointer = element_address(context, builder, plan, fields, values)
        item = context.cast(builder, value, value_type, array_type.dtype)
        arr.store_item(builder, array_type.dtype, item, pointer)
        return context.get_dummy_value(types.none)
    if plan.advanced is None:
        view, _ = basic_view(context, builder, plan, fields, values)
        view_type = _view_type(plan, len(view.shape))
        kernels.assign(context, builder, view_type, view, value_type, value)
        return context.get_dummy_value(types.none)
    _scatter(context, builder, plan, fields, values, value_type, value)
    return context.get_dummy_value(types.none)


def _store_sequence(context, builder, view_type, view: ArrayFields, sequence_type, sequence):
    """Store the items of a tuple or list into the 1-d `view`, which must be as long."""
    dtype = view_type.dtype
    if isinstance(sequence_type, types.BaseTuple):
        count = const(len(sequence_type))
    else:
        count = lists.length(builder, sequence)
    kernels.guard_shapes(
        context,
        builder,
        builder.icmp_signed("!=", count, view.shape[0]),
        ValueError,
        kernels.ASSIGN_SHAPES,
        [[view.shape[0]], [count]],
    )
    if isinstance(sequence_type, types.BaseTuple):
        for position, item_type in enumerate(sequence_type):
            item = builder.extract_value(sequence, position)
            item = cast_stored(context, builder, item, types.unliteral(item_type), dtype)
            pointer = arr.element_pointer(builder, view_type, view, [const(position)])
            arr.store_item(builder, dtype, item, pointer)
        return
    with arr.loop_nest(builder, [count]) as (position,):
        item = lists.load_item(context, builder, sequence_type, sequence, position)
        item = cast_stored(context, builder, item, sequence_type.dtype, dtype)
        pointer = arr.element_pointer(builder, view_type, view, [position])
        arr.store_item(builder, dtype, item, pointer)


def _scatter(context, builder, plan, fields, values, value_type, value):
    kind, index_type, index_value = _advanced_value(plan, values)
    dtype = plan.array_type.dtype
    if kind == "fullmask":
        mask = arr.unpack(builder, index_type, index_value)
        _check_mask_shape(context, builder, mask, fields)
        if isinstance(value_type, types.Array):
            # a[mask] = b: b holds one value per True (or broadcasts from one element)
            source = arr.unpack(builder, value_type, value)
            count = _count_true(builder, index_type, mask)
            _check_scatter_source(context, builder, value_type, source, [count])
            stride = _scalar_or_stride(builder, source)
        slot = arr.alloca_in_entry(builder, arr.i64, name="mask.fill")
        builder.store(const(0), slot)
        with arr.loop_nest(builder, fields.shape) as indices:
            flag = arr.load_item(
                builder, types.boolean, arr.element_pointer(builder, index_type, mask, indices)
            )
            with builder.if_then(flag):
                target = arr.element_pointer(builder, plan.array_type, fields, indices)
                if isinstance(value_type, types.Array):
                    filled = builder.load(slot, typ=arr.i64)
                    pointer = kernels.strided_pointer(builder, source.data, [stride], [filled])
                    item = arr.load_item(builder, value_type.dtype, pointer)
                    item = context.cast(builder, item, value_type.dtype, dtype)
                    builder.store(builder.add(filled, const(1)), slot)
                else:
                    item = context.cast(builder, value, value_type, dtype)
                arr.store_item(builder, dtype, item, target)
        return
    view, axis = basic_view(context, builder, plan, fields, values, keep_advanced=True)
    positions_type, positions = _positions(
        context, builder, kind, index_type, index_value, view.shape[axis]
    )
    pos_fields = arr.unpack(builder, positions_type, positions)
    selected = list(view.shape)
    selected[axis] = pos_fields.shape[0]
    view_type = _view_type(plan, len(view.shape))
    if isinstance(value_type, types.Array):
        source = arr.unpack(builder, value_type, value)
        _check_scatter_source(context, builder, value_type, source, selected)
        source_strides = kernels.broadcast_strides(builder, source, len(selected))
    with arr.loop_nest(builder, selected) as indices:
        target_indices = list(indices)
        target_indices[axis] = _position_at(
            context, builder, positions_type, pos_fields, indices[axis], view.shape[axis], kind
        )
        if isinstance(value_type, types.Array):
            pointer = kernels.strided_pointer(builder, source.data, source_strides, indices)
            item = context.cast(
                builder, arr.load_item(builder, value_type.dtype, pointer), value_type.dtype, dtype
            )
        else:
            item = context.cast(builder, value, value_type, dtype)
        arr.store_item(
            builder, dtype, item, arr.element_pointer(builder, view_type, view, target_indices)
        )
    if kind == "mask":
        arr.decref(builder, positions_type, positions)


def _check_scatter_source(context, builder, value_type, source, selected) -> None:
    kernels.check_broadcast_to(
        context,
        builder,
        source.shape,
        selected,
        "shape mismatch: value array could not be broadcast to indexing result",
    )


def _scalar_or_stride(builder, source: ArrayFields):
    """The stride to walk a 1-element-or-n-element source with one counter."""
    if not source.shape:
        return const(0)
    one = builder.icmp_signed("==", source.nitems, const(1))
    return builder.select(one, const(0), source.strides[-1])
