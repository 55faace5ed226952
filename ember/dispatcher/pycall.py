"""The general Python-to-native call: converts Python values to the flattened native arguments
with ctypes, calls a compiled specialization and boxes its result.

Used for argument kinds the generated fast entry does not handle (narrow integers, float32,
NumPy scalars, conversions to explicit signatures, arrays).

Arrays cross as the flattened fields of ember's array model (ember/lowering/models.py): an
ndarray passed in is borrowed (meminfo NULL, parent = the ndarray's address); see
`ember/runtime/boxing.py` for how returned arrays become ndarrays again.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any

from ember import types
from ember.lowering.callconv import STATUS_OK, ExcInfoRecord, raise_static_exception
from ember.runtime import boxing as arrayboxing
from ember.runtime import nrt, string_boxing
from ember.typing.signature import Signature

_INTEGER_CTYPES = {
    (8, True): ctypes.c_int8, (16, True): ctypes.c_int16, (32, True): ctypes.c_int32,
    (64, True): ctypes.c_int64, (8, False): ctypes.c_uint8, (16, False): ctypes.c_uint16,
    (32, False): ctypes.c_uint32, (64, False): ctypes.c_uint64,
}  # fmt: skip


def _argument_ctypes(typ: types.Type) -> list:
    """The ctypes of the flattened native arguments of `typ` (mirrors the data models)."""
    typ = _held_type(typ)
    if isinstance(typ, types.Array):
        return arrayboxing.argument_ctypes(typ)
    if isinstance(typ, types.PythonBuffer):  # passed as the array over its memory
        return arrayboxing.argument_ctypes(typ.as_array)
    if isinstance(typ, types.Boolean):
        return [ctypes.c_uint8]
    if isinstance(typ, types.Integer):
        return [_INTEGER_CTYPES[typ.bitwidth, typ.signed]]
    if isinstance(typ, types.Float):
        return [ctypes.c_float if typ.bitwidth == 32 else ctypes.c_double]
    if isinstance(typ, types.Complex):
        return _argument_ctypes(typ.underlying_float) * 2
    if isinstance(typ, types.BaseTuple):
        return [c for member in typ.types for c in _argument_ctypes(member)]
    if isinstance(typ, (types.NoneType, types.Dummy)):
        return []
    if isinstance(typ, types.Optional):  # {data, valid}, flattened
        return [*_argument_ctypes(typ.type), ctypes.c_uint8]
    if isinstance(typ, (types.List, types.HashTable)):
        return [ctypes.c_void_p]  # its meminfo (ListModel, HashTableModel)
    if isinstance(typ, types.ManagedStruct):
        return [ctypes.c_void_p, ctypes.c_void_p]  # meminfo, data (InstanceModel)
    if isinstance(typ, (types.UnicodeType, types.BytesType)):
        return string_boxing.ARGUMENT_CTYPES
    if isinstance(typ, types.NumPyRandomGeneratorType):
        # {meminfo, bitgen_t*, the Generator}: ember/library/numpy/random/generator.py
        return [ctypes.c_void_p] * 3
    if isinstance(typ, types.Record):  # {meminfo, parent, data} (RecordModel)
        return [ctypes.c_void_p] * 3
    if isinstance(typ, (types.CharSeq, types.UnicodeCharSeq)):  # its bytes' address
        return [ctypes.c_void_p]
    if isinstance(typ, types.SliceType):  # {start, stop, step} (SliceModel)
        return [ctypes.c_int64] * 3
    raise TypeError(f"can't unbox {typ} type: ember cannot pass a value of it from Python")


@functools.cache  # a ctypes Structure class costs ~50 us to make: boxing items asks per item
def _memory_ctype(typ: types.Type) -> Any:
    """The ctypes layout of `typ` in memory, as the callee stores it at retptr."""
    if isinstance(typ, types.Array):
        return arrayboxing.memory_ctype(typ)
    if isinstance(typ, types.Boolean):
        return ctypes.c_uint8
    if isinstance(typ, (types.Integer, types.Float)):
        return _argument_ctypes(typ)[0]
    if isinstance(typ, types.Complex):
        part = _argument_ctypes(typ.underlying_float)[0]
        return type(
            "complex_memory", (ctypes.Structure,), {"_fields_": [("re", part), ("im", part)]}
        )
    if isinstance(typ, types.BaseTuple):
        fields = [(f"f{i}", _memory_ctype(m)) for i, m in enumerate(typ.types)]
        return type("tuple_memory", (ctypes.Structure,), {"_fields_": fields})
    if isinstance(typ, (types.NoneType, types.Dummy)):
        return type("empty_memory", (ctypes.Structure,), {"_fields_": []})
    if isinstance(typ, (types.List, types.Generator, types.HashTable)):
        return type(
            "list_memory", (ctypes.Structure,), {"_fields_": [("meminfo", ctypes.c_void_p)]}
        )
    if isinstance(typ, types.ManagedStruct):
        return _INSTANCE_MEMORY
    if isinstance(typ, types.Optional):
        fields = [("data", _memory_ctype(typ.type)), ("valid", ctypes.c_uint8)]
        return type("optional_memory", (ctypes.Structure,), {"_fields_": fields})
    if isinstance(typ, (types.UnicodeType, types.BytesType)):
        return string_boxing.StringMemory
    if isinstance(typ, types.Record):  # {meminfo, data} (RecordModel)
        return _RECORD_MEMORY
    if isinstance(typ, types.NumPyRandomGeneratorType):
        fields = [(name, ctypes.c_void_p) for name in ("meminfo", "bitgen", "owner")]
        return type("generator_memory", (ctypes.Structure,), {"_fields_": fields})
    if isinstance(typ, (types.NPDatetime, types.NPTimedelta)):  # the int64 count
        return ctypes.c_int64
    if isinstance(typ, types.EnumMember):  # its value
        return _memory_ctype(typ.dtype)
    if isinstance(typ, types.SliceType):  # {start, stop, step} (SliceModel)
        return _SLICE_MEMORY
    raise TypeError(
        f"cannot convert native {typ} to Python object: ember cannot return a value of it"
    )


def _unconvertible_result(sig: Signature, address: int) -> Callable[..., Any]:
    """Run the function, then raise: its result exists only in compiled code (Numba's
    TypeError at the same point)."""
    run = make_invoker(Signature(types.none, sig.args), address)

    def invoke(*values: Any) -> Any:
        run(*values)
        raise TypeError(f"cannot convert native {sig.return_type} to Python object")

    return invoke


class _INSTANCE_MEMORY(ctypes.Structure):
    """A jitclass instance or structref (InstanceModel): the borrowed or owned meminfo and its
    payload."""

    _fields_ = [("meminfo", ctypes.c_void_p), ("data", ctypes.c_void_p)]


class _SLICE_MEMORY(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in ("start", "stop", "step")]


class _RECORD_MEMORY(ctypes.Structure):
    """A record (RecordModel): the owned meminfo (or NULL and the Python object holding its
    bytes) and the address of its bytes."""

    _fields_ = [
        ("meminfo", ctypes.c_void_p),
        ("parent", ctypes.c_void_p),
        ("data", ctypes.c_void_p),
    ]


def _held_type(typ: types.Type) -> types.Type:
    """A number or bool literal is passed as a value of the type it widens to."""
    if isinstance(typ, (types.IntegerLiteral, types.BooleanLiteral)):
        return typ.literal_type
    return typ


class _KeptForTheCall:
    """The `copies` entry of a buffer argument's ndarray: alive until the call returns (it is
    the parent of the arrays compiled code makes from it); nothing to write back."""

    @staticmethod
    def write_back(meminfo: None, view: Any) -> None:
        return None


_KEPT_FOR_THE_CALL = _KeptForTheCall()


def _flatten(typ: types.Type, value: Any, out: list, copies: list | None = None) -> None:
    """Append the native argument values of a Python `value` converted to `typ`. A Python list
    or set (at any depth in tuples) is copied into a native one, recorded in `copies` as
    `(value, reflector, meminfo)` for the caller to write back and release."""
    typ = _held_type(typ)
    if isinstance(typ, types.Boolean):
        out.append(1 if value else 0)
    elif isinstance(typ, types.Integer):
        value = int(value)
        if not typ.minval <= value <= typ.maxval:  # ctypes would wrap it silently
            raise OverflowError("int too big to convert")
        out.append(value)
    elif isinstance(typ, types.Float):
        out.append(float(value))
    elif isinstance(typ, types.Complex):
        value = complex(value)
        out.extend((value.real, value.imag))
    elif isinstance(typ, types.BaseTuple):
        if len(value) != len(typ.types):  # zip would drop or leave members unset
            raise ValueError(
                f"size mismatch for tuple, expected {len(typ.types)} element(s) but got "
                f"{len(value)}"
            )
        for member, item in zip(typ.types, value):
            _flatten(member, item, out, copies)
    elif (
        copies is not None
        and isinstance(typ, (types.List, types.Set))
        and type(value)
        in (
            list,
            set,
        )
    ):
        from ember.dispatcher.reflection import reflector

        passing = reflector(typ)
        shared = next(
            (meminfo for seen, same, meminfo in copies if seen is value and same is passing), None
        )
        if shared is not None:  # the same Python list passed twice: one native list, as Numba
            from ember.runtime.nrt import runtime

            runtime().incref(shared)  # each copy record releases one reference
            copies.append((value, passing, shared))
        else:
            copies.append((value, passing, passing.to_native(value)))
        out.append(copies[-1][2])
    elif isinstance(typ, types.Array):
        arrayboxing.flatten(typ, value, out)
    elif isinstance(typ, types.PythonBuffer):  # the array over its memory, kept for the call
        from ember.dispatcher.typeof import buffer_array

        view = buffer_array(value)
        arrayboxing.flatten(typ.as_array, view, out)
        copies.append((view, _KEPT_FOR_THE_CALL, None))
    elif isinstance(typ, types.SliceType):
        from ember.library.builtins.slices import native_slice_parts

        parts = native_slice_parts(value)
        if not all(-(1 << 63) <= part < (1 << 63) for part in parts):
            raise OverflowError("slice bound too big to convert")
        out.extend(parts)
    elif isinstance(typ, (types.DictType, types.List, types.SetType)):
        out.append(value._meminfo)  # an ember.typed.Dict / List / Set lends its native container
    elif isinstance(typ, types.ClassInstanceType):  # borrowed: the box keeps its reference
        out.extend((value._meminfo, value._data))
    elif isinstance(typ, types.StructRef):  # borrowed: the proxy keeps its reference
        from ember.experimental.structref import native_arguments

        out.extend(native_arguments(typ, value))
    elif isinstance(typ, types.UnicodeType):
        if not isinstance(value, str):
            raise TypeError(f"expected a str, not {type(value).__name__}")
        out.extend(string_boxing.to_native(value))
    elif isinstance(typ, types.BytesType):  # a kind-1 string of the bytes
        if not isinstance(value, bytes):
            raise TypeError(f"expected bytes, not {type(value).__name__}")
        out.extend(string_boxing.to_native(value.decode("latin-1")))
    elif isinstance(typ, types.Record):  # its bytes, in its array or its own: writes go there
        out.extend((None, id(value), value.__array_interface__["data"][0]))
    elif isinstance(typ, (types.CharSeq, types.UnicodeCharSeq)):
        out.append(_char_seq_buffer(typ, value))
    elif isinstance(typ, types.NumPyRandomGeneratorType):  # borrowed: no meminfo
        out.extend((None, value.bit_generator.ctypes.bit_generator.value, id(value)))
    elif isinstance(typ, types.Optional):
        if value is None:  # zeroed data, not valid
            out.extend(ctype().value or 0 for ctype in _argument_ctypes(typ.type))
            out.append(0)
        else:
            _flatten(typ.type, value, out, copies)
            out.append(1)


def _char_seq_buffer(typ, value: Any) -> ctypes.c_void_p:
    """A fixed-size string argument (an 'S<n>' or 'U<n>' element): NumPy's bytes of `value`,
    cut to the size or padded with NULs, in a buffer the pointer keeps alive for the call."""
    if isinstance(typ, types.CharSeq):
        if not isinstance(value, (bytes, str)):
            raise TypeError(f"expected bytes or str for {typ}, not {type(value).__name__}")
        data = value.encode("ascii") if isinstance(value, str) else bytes(value)
    else:
        if not isinstance(value, str):
            raise TypeError(f"expected a str for {typ}, not {type(value).__name__}")
        data = value.encode("utf-32-le")
    buffer = ctypes.create_string_buffer(data[: typ.size], max(typ.size, 1))
    return ctypes.cast(buffer, ctypes.c_void_p)  # (the cast holds the buffer)


_ARGUMENT = "argument"  # memo keys (_ARGUMENT, meminfo): a Python list or set argument's copy


def _box(typ: types.Type, memory: Any, inputs: tuple = (), memo: dict | None = None) -> Any:
    if memo and isinstance(typ, (types.List, types.Set)) and (_ARGUMENT, memory.meminfo) in memo:
        nrt.runtime().decref(memory.meminfo)  # a list or set it was given: the caller's own
        return memo[_ARGUMENT, memory.meminfo]
    if isinstance(typ, types.Boolean):
        return bool(memory)
    if isinstance(typ, (types.Integer, types.Float)):
        return memory
    if isinstance(typ, types.Complex):
        return complex(memory.re, memory.im)
    if isinstance(typ, types.BaseTuple):
        memo = {} if memo is None else memo
        items = [_box(m, getattr(memory, f"f{i}"), inputs, memo) for i, m in enumerate(typ.types)]
        if isinstance(typ, types.LiteralContainer):  # a list or dict, as in CPython
            return typ.from_members(items)
        named = getattr(typ, "instance_class", None)  # a namedtuple comes back as one
        return tuple(items) if named is None else named(*items)
    if isinstance(typ, types.Array):
        return arrayboxing.box(typ, memory, inputs, memo)
    if isinstance(typ, types.Record):
        return arrayboxing.box_record(typ, memory)
    if isinstance(typ, types.ListType):  # a typed List sharing the native list
        from ember.typed.typedlist import List

        return List._from_meminfo(typ, memory.meminfo)
    if isinstance(typ, types.List):
        return box_list(typ, memory.meminfo, inputs, memo)
    if isinstance(typ, types.HashTable):
        from ember.typed import accessors

        return accessors.box(typ, memory.meminfo)
    if isinstance(typ, types.UnicodeType):
        return string_boxing.box(memory)
    if isinstance(typ, types.BytesType):
        return string_boxing.box(memory).encode("latin-1")
    if isinstance(typ, types.Optional):
        if not memory.valid:
            return None
        return _box(typ.type, memory.data, inputs, memo)
    if isinstance(typ, types.ClassInstanceType):  # the box takes over the reference
        return typ.class_type.jit_class._from_native(memory.meminfo, memory.data)
    if isinstance(typ, types.StructRef):  # the proxy takes over the reference
        from ember.experimental.structref import box_proxy

        return box_proxy(typ, memory.meminfo)
    if isinstance(typ, types.Generator):
        from ember.dispatcher.generators import box_generator

        return box_generator(typ, memory, inputs)
    if isinstance(typ, (types.NPDatetime, types.NPTimedelta)):  # (items of containers)
        from ember.dispatcher.datetime_entry import scalar_maker

        count = memory if isinstance(memory, int) else memory.value
        return scalar_maker(typ.numpy_kind, typ.unit)(count)
    if isinstance(typ, types.SliceType):
        from ember.library.builtins.slices import python_slice

        return python_slice(typ, memory.start, memory.stop, memory.step)
    if isinstance(typ, types.EnumMember):  # the very member (`Color(2) is Color.GREEN`)
        return typ.instance_class(_box(typ.dtype, memory, inputs, memo))
    if isinstance(typ, types.NumPyRandomGeneratorType):
        generator = ctypes.cast(memory.owner, ctypes.py_object).value
        if memory.meminfo:  # made in compiled code: the block held it, the caller now does
            nrt.runtime().decref(memory.meminfo)
        return generator
    return None


# Boxing one of these takes over the reference its value holds.
_BOXING_TAKES_REFERENCE = (
    types.Array,
    types.List,
    types.HashTable,
    types.UnicodeType,
    types.BytesType,
    types.ManagedStruct,
    types.Record,
)


def box_kept(typ: types.Type, memory: Any) -> Any:
    """A Python value of a member that a container keeps: references are taken for boxing."""
    _take_references(typ, memory)
    return _box(typ, memory)


def _take_references(typ: types.Type, memory: Any) -> None:
    if isinstance(typ, _BOXING_TAKES_REFERENCE):
        if memory.meminfo:
            from ember.runtime import nrt

            nrt.runtime().incref(memory.meminfo)
    elif isinstance(typ, types.BaseTuple):
        for index, member in enumerate(typ.types):
            _take_references(member, getattr(memory, f"f{index}"))
    elif isinstance(typ, types.Optional) and memory.valid:
        _take_references(typ.type, memory.data)


def box_list(typ: types.List, meminfo: int, inputs: tuple, memo: dict | None) -> list:
    """A Python list of a returned list's boxed items; takes over the list's reference."""
    from ember.lowering.boxing import item_boxer, user_boxed_item
    from ember.lowering.lists import HeaderMemory
    from ember.runtime import nrt

    if isinstance(typ.dtype, types.UnicodeType):
        return string_boxing.box_list(meminfo)
    header = HeaderMemory.from_address(nrt.data_address(meminfo))
    if user_boxed_item(typ.dtype):  # items of an extension's type: its @box, natively
        items = nrt.data_address(header.storage) if header.storage else 0
        box_item = item_boxer(typ.dtype)
        try:
            return [box_item(items, index) for index in range(header.size)]
        finally:
            nrt.runtime().decref(meminfo)
    item_ctype = _memory_ctype(typ.dtype)
    structured = issubclass(item_ctype, ctypes.Structure)
    items = nrt.data_address(header.storage) if header.storage else 0
    if isinstance(typ.dtype, types.Boolean | types.Integer | types.Float):
        # Numbers, all at once: ctypes reads the block into Python ints, floats or bools.
        result = (item_ctype * header.size).from_address(items)[:] if header.size else []
        if isinstance(typ.dtype, types.Boolean):
            result = list(map(bool, result))
        nrt.runtime().decref(meminfo)
        return result
    result = []
    for index in range(header.size):
        memory = item_ctype.from_address(items + index * ctypes.sizeof(item_ctype))
        if structured:  # boxing takes references; the list keeps its own
            _take_references(typ.dtype, memory)
        result.append(_box(typ.dtype, memory if structured else memory.value, inputs, memo))
    nrt.runtime().decref(meminfo)
    return result


def _string_meminfo_slots(arg_types: tuple) -> list[int]:
    """Positions in the flattened arguments of the meminfos of string arguments (alone or in
    tuples), which the invoker allocates and must release after the call."""
    slots: list[int] = []
    position = 0

    def walk(typ: types.Type) -> None:
        nonlocal position
        if isinstance(typ, types.BaseTuple):
            for member in typ.types:
                walk(member)
            return
        if isinstance(typ, (types.UnicodeType, types.BytesType)) or (
            isinstance(typ, types.Optional) and isinstance(typ.type, types.UnicodeType)
        ):
            slots.append(position)  # (NULL for None: releasing it does nothing)
        position += len(_argument_ctypes(typ))

    for typ in arg_types:
        walk(typ)
    return slots


def make_invoker(sig: Signature, address: int, release_gil: bool = False) -> Callable[..., Any]:
    """A Python callable running the native function at `address` on Python values, holding
    the GIL during the call unless `release_gil` (`nogil=True`), as the native entry does."""
    # Types with @box/@unbox implementations (ember.extending, issue 4) are marshalled by a
    # generated native wrapper instead of ctypes: see ember/lowering/boxing.py.
    from ember.lowering.boxing import compile_time_only, make_boxing_invoker, needs_boxing

    if compile_time_only(sig.return_type):  # compiled for a compiled caller, called from Python
        return _unconvertible_result(sig, address)
    if needs_boxing(sig):
        return make_boxing_invoker(sig, address)
    flat_ctypes = [c for arg in sig.args for c in _argument_ctypes(arg)]
    memory_type = _memory_ctype(sig.return_type)
    function_type = ctypes.CFUNCTYPE if release_gil else ctypes.PYFUNCTYPE
    prototype = function_type(
        ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, *flat_ctypes
    )
    native = prototype(address)
    arg_types = sig.args
    return_type = sig.return_type
    string_slots = _string_meminfo_slots(arg_types)
    release = None
    if string_slots:
        from ember.runtime.nrt import runtime

        release = runtime().decref

    def invoke(*values: Any) -> Any:
        flat: list = []
        native_lists = []
        result = memory_type()
        excinfo = ExcInfoRecord()
        try:  # the lists made so far are released (written back unchanged) if one fails
            for typ, value in zip(arg_types, values):
                _flatten(typ, value, flat, native_lists)
            status = native(ctypes.addressof(result), ctypes.addressof(excinfo), None, *flat)
        finally:
            for container, passing, meminfo in native_lists:
                passing.write_back(meminfo, container)
            for slot in string_slots:  # the argument copies (the callee kept its own refs)
                if slot < len(flat):  # (made before a later argument failed to convert)
                    release(flat[slot])
        if status != STATUS_OK:
            raise_static_exception(ctypes.addressof(excinfo))
        if isinstance(memory_type, type) and issubclass(memory_type, ctypes.Structure):
            memo = {(_ARGUMENT, meminfo): container for container, _, meminfo in native_lists}
            views = [view for view, kept, _ in native_lists if kept is _KEPT_FOR_THE_CALL]
            return _box(return_type, result, (*values, *views) if views else values, memo)
        return _box(return_type, result.value, values)

    return invoke
