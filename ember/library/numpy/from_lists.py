"""`np.array` and `np.asarray` of lists: a list of numbers gives a 1-d array; lists (or
homogeneous tuples) nested to any depth, with numbers, equal-shaped arrays or tuples of mixed
numbers as leaves, an array of that many more dimensions (ValueError at run time when the
lengths differ).
`array_of_display` serves `np.array([x, y])` of a list display, which ember/rewrites/
array_displays.py turns into a tuple: no list is built when the items are numbers."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.creation import nested_items
from ember.library.numpy.support import from_numpy_dtype, numpy_dtype, parse_dtype

_RAGGED = (
    "setting an array element with a sequence: the nested lists have different lengths "
    "(an inhomogeneous shape)"
)


def _nesting(obj_type: types.Type) -> tuple[int, types.Type, int, int] | None:
    """(sequence levels, number type, leaf array dimensions, row length) of a nest of lists or
    homogeneous tuples whose leaves are numbers or arrays, or rows of numbers of mixed types
    (`[(1, 2.5), (3, 4.5)]`: a row length, 2, else 0); None for anything else, and for a nest
    of tuples of numbers alone (np_array_from_tuples in creation.py builds those)."""
    levels, has_list, typ = 0, False, obj_type
    while isinstance(typ, (types.List, types.UniTuple)):
        if isinstance(typ, types.List):
            if not typ.is_precise:
                return None
            has_list = True
        levels, typ = levels + 1, types.unliteral(typ.dtype)
    if levels and has_list and isinstance(typ, types.Number):
        return levels, typ, 0, 0
    if levels and isinstance(typ, types.Array):
        return levels, typ.dtype, typ.ndim, 0
    if levels and has_list and isinstance(typ, types.Tuple) and typ.types:
        members = [types.unliteral(t) for t in typ.types]
        if all(isinstance(t, types.Number) for t in members):
            common = np.result_type(*(numpy_dtype(t) for t in members))
            return levels, from_numpy_dtype(common), 0, len(members)
    return None


def _natural_dtype(item: types.Type) -> types.Type:
    """NumPy's dtype for Python numbers of this type (integers are 64-bit)."""
    if isinstance(item, types.Integer):
        return types.int64 if item.signed else types.uint64
    return item


def _converter_source(levels: int, leaf_ndim: int, row: int = 0) -> str:
    """A function filling a new array from `levels` nested sequences whose leaves are numbers
    (leaf_ndim 0), leaf_ndim-d arrays, or tuples of `row` numbers (a last dimension of that
    length, filled item by item). The shape is read along the first items (a level after an
    empty one has length 0); every other row is checked against it (NumPy's ValueError for a
    ragged nest)."""
    ndim = levels + (leaf_ndim or (1 if row else 0))
    lines = ["def convert(obj, dtype=None):"]
    lines += [f"    n{d} = 0" for d in range(1, ndim - (1 if row else 0))]
    if row:
        lines.append(f"    n{levels} = {row}")
    lines += ["    n0 = len(obj)", "    row0 = obj"]
    indent = "    "
    for d in range(1, levels):
        lines += [f"{indent}if n{d - 1}:", f"{indent}    row{d} = row{d - 1}[0]"]
        indent += "    "
        lines.append(f"{indent}n{d} = len(row{d})")
    if leaf_ndim:
        lines += [
            f"{indent}if n{levels - 1}:",
            f"{indent}    leaf_shape = row{levels - 1}[0].shape",
        ]
        lines += [f"{indent}    n{levels + k} = leaf_shape[{k}]" for k in range(leaf_ndim)]
    shape = ", ".join(f"n{d}" for d in range(ndim))
    lines.append(f"    out = np.empty(({shape},), np_type)")
    indent = "    "
    for d in range(levels):
        source = "obj" if d == 0 else f"item{d}"
        lines.append(f"{indent}for i{d} in range(n{d}):")
        indent += "    "
        lines.append(f"{indent}item{d + 1} = {source}[i{d}]")
        if d + 1 < levels:
            lines += [
                f"{indent}if len(item{d + 1}) != n{d + 1}:",
                f"{indent}    raise ValueError(RAGGED)",
            ]
    index = ", ".join(f"i{d}" for d in range(levels))
    if leaf_ndim:
        leaf_shape = ", ".join(f"n{d}" for d in range(levels, ndim))
        lines += [
            f"{indent}if item{levels}.shape != ({leaf_shape},):",
            f"{indent}    raise ValueError(RAGGED)",
        ]
    if row:
        lines += [f"{indent}out[{index}, {k}] = item{levels}[{k}]" for k in range(row)]
    else:
        lines.append(f"{indent}out[{index}] = item{levels}")
    lines.append("    return out")
    return "\n".join(lines) + "\n"


@functools.cache
def _converter(levels: int, leaf_ndim: int, row: int, dtype_name: str):
    namespace = {"np": np, "np_type": np.dtype(dtype_name).type, "RAGGED": _RAGGED}
    exec(_converter_source(levels, leaf_ndim, row), namespace)  # noqa: S102 - fixed names only
    convert = namespace["convert"]
    convert.__module__ = __name__
    return convert


def _of_empty_tuples(obj: types.Type) -> bool:
    """A list of empty tuples (`[(), ()]`): NumPy makes it an (n, 0) array."""
    return isinstance(obj, types.List) and obj.dtype == types.Tuple(())


def _records_of(obj: types.Type) -> types.Record | None:
    """The record type of a list or homogeneous tuple of records (`[a[0], a[2]]`)."""
    if isinstance(obj, (types.List, types.UniTuple)) and isinstance(obj.dtype, types.Record):
        return obj.dtype
    return None


def _array_of_records(record: types.Record, dtype: types.Type | None):
    """A 1-d array of the records' dtype holding a copy of each record's bytes."""
    if dtype not in (None, types.none) and parse_dtype(dtype) != record:
        raise TypingError(f"np.array of {record} records with another dtype ({dtype})")
    np_dtype = numpy_dtype(record)

    def impl(obj, dtype=None):
        out = np.empty(len(obj), np_dtype)
        for i in range(len(obj)):
            out[i] = obj[i]
        return out

    return impl


def _select(obj, dtype):
    record = _records_of(obj)
    if record is not None:
        return _array_of_records(record, dtype)
    if _of_empty_tuples(obj):
        np_type = np.dtype(numpy_dtype(parse_dtype(dtype or types.none, default=types.float64)))
        return lambda obj, dtype=None: np.empty((len(obj), 0), np_type)
    found = _nesting(obj)
    if found is None:
        return None
    levels, item, leaf_ndim, row = found
    natural = _natural_dtype(item) if leaf_ndim == 0 else item
    result = parse_dtype(dtype or types.none, default=natural)
    return _converter(levels, leaf_ndim, row, numpy_dtype(result).name)


def _depth_and_leaves(typ: types.Type) -> tuple[int, list] | None:
    """(nesting depth, number types at the leaves) of a nest of lists, tuples and arrays of
    numbers whose branches all have one depth; None for anything else."""
    typ = types.unliteral(typ)
    if isinstance(typ, types.Number):
        return 0, [typ]
    if isinstance(typ, types.Array) and isinstance(typ.dtype, types.Number):
        return typ.ndim, [typ.dtype]
    if isinstance(typ, (types.List, types.UniTuple)) and not (
        isinstance(typ, types.List) and not typ.is_precise
    ):
        inner = _depth_and_leaves(typ.dtype)
        return None if inner is None else (inner[0] + 1, inner[1])
    if isinstance(typ, types.Tuple) and typ.types:
        inner = [_depth_and_leaves(t) for t in typ.types]
        if None in inner or len({depth for depth, _ in inner}) != 1:
            return None
        return inner[0][0] + 1, [leaf for _, leaves in inner for leaf in leaves]
    return None


def _mixed_rows(obj: types.Type, dtype):
    """np.array of a tuple of rows of different types (`([1, 2.5], [3, 4])`): each row
    converted on its own to the common dtype, then stacked (ValueError when their shapes
    differ)."""
    if not isinstance(obj, types.Tuple) or nested_items(obj) is not None:
        return None
    found = _depth_and_leaves(obj)
    if found is None or found[0] < 2:
        return None
    python_numbers = [_natural_dtype(t) if isinstance(t, types.Integer) else t for t in found[1]]
    natural = from_numpy_dtype(np.result_type(*(numpy_dtype(t) for t in python_numbers)))
    result = numpy_dtype(parse_dtype(dtype or types.none, default=natural)).name
    return _stacked_rows(len(obj), result)


@functools.cache
def _stacked_rows(count: int, dtype_name: str):
    lines = ["def stack(obj, dtype=None):", "    first = np.asarray(obj[0], DT)"]
    lines.append(f"    out = np.empty(({count},) + first.shape, DT)")
    lines.append("    out[0] = first")
    for k in range(1, count):
        lines.append(f"    row = np.asarray(obj[{k}], DT)")
        lines.append("    if row.shape != first.shape:\n        raise ValueError(RAGGED)")
        lines.append(f"    out[{k}] = row")
    lines.append("    return out")
    namespace = {"np": np, "DT": np.dtype(dtype_name).type, "RAGGED": _RAGGED}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed names and integers
    return namespace["stack"]


@overload(np.array)
def array_from_list(obj, dtype=None):
    return _select(obj, dtype) or _mixed_rows(obj, dtype)


@overload(np.asarray)
def asarray_from_list(a, dtype=None):
    return _select(a, dtype) or _mixed_rows(a, dtype)


def _array_of_values(a, dtype=None):
    return np.array(a, dtype)


@overload(np.asarray)
def asarray_of_values(a, dtype=None):
    """np.asarray of a number (a 0-d array) or a rectangular nest of tuples: a new array."""
    return _array_of_values if nested_items(a) is not None else None


def array_of_display(items, dtype=None):
    """np.array of the list display that ember/rewrites/array_displays.py made the tuple
    `items` (nested displays nested tuples); compiled code only."""
    raise NotImplementedError("array_of_display runs in compiled code only")


@overload(array_of_display)
def _select_array_of_display(items, dtype=None):
    found = nested_items(items)
    if found is not None and found[0] and found[0][0]:  # a rectangular nest of numbers
        return _array_of_tuple
    return _relisted(types.unliteral(items))


def _array_of_tuple(items, dtype=None):
    return np.array(items, dtype)


@functools.cache
def _relisted(items_type: types.BaseTuple):
    """np.array of the lists the tuple displays were (arrays, ragged rows): the list path."""

    def display(typ, path: str) -> str:
        if isinstance(typ, types.BaseTuple):
            return "[" + ", ".join(display(t, f"{path}[{i}]") for i, t in enumerate(typ)) + "]"
        return path

    # a named list, not a display passed to the call: the rewrite leaves it alone
    source = f"def impl(items, dtype=None):\n    values = {display(items_type, 'items')}\n" \
             "    return np.array(values, dtype)\n"  # fmt: skip
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - a template over fixed names and indices
    impl = namespace["impl"]
    impl.__module__ = __name__
    return impl


# ---------------------------------------------------------------------------- of a str


_ARRAY_OF_TEXT = """
def array_of_text(obj, dtype=None):
    out = np.empty((), TEXT_DTYPE)
    out[()] = obj
    return out
"""


@functools.cache
def _array_of_text_impl(length: int):
    """A 0-d '<U{length}' array holding the text (NumPy's np.array('...'))."""
    namespace = {"np": np, "TEXT_DTYPE": np.dtype(f"<U{max(length, 1)}")}
    exec(_ARRAY_OF_TEXT, namespace)  # noqa: S102 - fixed text
    impl = namespace["array_of_text"]
    impl.__module__ = __name__
    return impl


def _select_text(obj, dtype):
    if dtype not in (None, types.none) and not isinstance(dtype, types.NoneType):
        return None
    if isinstance(obj, types.StringLiteral):
        return _array_of_text_impl(len(obj.literal_value))
    return None  # a str variable: typing retries with its constant value, if it has one


@overload(np.array)
def _array_of_str(obj, dtype=None):
    return _select_text(obj, dtype)


@overload(np.asarray)
def _asarray_of_str(a, dtype=None):
    return _select_text(a, dtype)


@overload(np.asarray)
def _asarray_of_typed_list_of_objects(a, dtype=None):
    """A typed List of items no array holds (None, dicts, str): refused by name."""
    if isinstance(a, types.ListType) and isinstance(
        a.dtype, (types.NoneType, types.DictType, types.UnicodeType)
    ):
        raise TypingError("asarray support for List is limited to Boolean and Number types")
    return None
