"""Numba's `numba.np.arrayobj` path for lowering code that builds array values itself:
`make_array(array_type)` (the struct proxy class of an array value) and `populate_array`, which
fills one from its data pointer, shape, strides, item size and owner."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember.lowering import cgutils


def make_array(array_type: Any) -> type:
    """`make_array(t)(context, builder, value=None)`: an array value's members by name
    (meminfo, parent, nitems, itemsize, data, shape, strides)."""
    return cgutils.create_struct_proxy(array_type)


def _as_aggregate(builder: llvm.IRBuilder, values: Any, aggregate_type: llvm.Type) -> llvm.Value:
    """A shape or strides given as one LLVM tuple value or as a list of intp values."""
    if not isinstance(values, (list, tuple)):
        return values
    aggregate = llvm.Constant(aggregate_type, llvm.Undefined)
    for index, value in enumerate(values):
        aggregate = builder.insert_value(aggregate, value, index)
    return aggregate


def populate_array(
    array: Any, data: Any, shape: Any, strides: Any, itemsize: Any, meminfo: Any, parent=None
) -> Any:
    """Fill the array proxy `array` (from `make_array`): `meminfo=None` makes an array no
    block owns (a view kept alive by something else), `parent=None` one with no NumPy parent;
    the item count is the product of the shape."""
    builder = array._builder  # noqa: SLF001 - the proxy's own builder
    members = array._be_type.elements  # noqa: SLF001
    index_of = array._datamodel.index_of  # noqa: SLF001
    shape = _as_aggregate(builder, shape, members[index_of("shape")])
    strides = _as_aggregate(builder, strides, members[index_of("strides")])
    nitems = llvm.Constant(cgutils.intp_t, 1)
    for dim in range(len(members[index_of("shape")].elements)):
        nitems = builder.mul(nitems, builder.extract_value(shape, dim))
    array.meminfo = meminfo if meminfo is not None else cgutils.get_null_value(cgutils.voidptr_t)
    array.parent = parent if parent is not None else cgutils.get_null_value(cgutils.voidptr_t)
    array.nitems = nitems
    array.itemsize = itemsize
    array.data = data
    array.shape = shape
    array.strides = strides
    return array
