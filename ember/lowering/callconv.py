"""The native calling convention: `i32 fn(ptr retptr, ptr excinfo, ptr env, flattened args...)`.

Status 0 means the result is at `retptr`; status 1 means an exception was raised and
`excinfo` (an EXCINFO_TYPE record) holds its id in the process-wide exception table below and
the meminfo of the values it carries (NULL when every argument is a compile-time constant).
"""

from __future__ import annotations

import ctypes
import functools
import linecache
import threading
import types
from dataclasses import dataclass
from typing import Any

from llvmlite import ir as llvm

from ember.lowering.models import model_of
from ember.typing.signature import Signature

STATUS_OK = 0
STATUS_EXCEPTION = 1

_status_type = llvm.IntType(32)
_exception_id_type = llvm.IntType(32)
_pointer = llvm.PointerType()
EXCINFO_TYPE = llvm.LiteralStructType([_exception_id_type, _pointer])  # {id, payload meminfo}
PAYLOAD_SLOT_SIZE = 8  # each run-time argument of a raised exception takes 8-byte slots:
# a str's or bytes' slots: (offset of its characters, length, kind)
PAYLOAD_SLOTS = {"int": 1, "uint": 1, "float": 1, "bool": 1, "str": 3, "bytes": 3}


class ExcInfoRecord(ctypes.Structure):
    """EXCINFO_TYPE for callers in Python (ctypes): the exception id and its payload."""

    _fields_ = [("exc_id", ctypes.c_int32), ("payload", ctypes.c_void_p)]


@dataclass(frozen=True)
class RaiseSite:
    """Where a `raise` or `assert` stands in the source: the traceback of the exception it
    raises ends in a frame at this line, as if the function had run in the interpreter."""

    filename: str
    line: int
    function: str
    end_col: int | None = None  # where the raised expression ends on the line, when known


@dataclass(frozen=True)
class PayloadSlot:
    """An exception argument known only at run time: slot `index` of the payload, read back
    as `kind` ('int', 'uint', 'float' or 'bool')."""

    index: int
    kind: str


@dataclass(frozen=True)
class ShapesText:
    """An exception message naming shapes known only at run time: `template` with its k-th
    `{}` replaced by a tuple of `ranks[k]` ints read from the payload's slots (from slot 0),
    written as Python writes a tuple: `(5,)`, `(2, 5)`."""

    template: str
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class DeferredText:
    """An exception message Python writes when the exception is raised:
    `template.format(*slots)` of payload slots (types.DeferredText made it in compiled code)."""

    template: str
    slots: tuple[PayloadSlot, ...]


class StaticExceptions:
    """Exceptions whose class and arguments are compile-time constants, by integer id.

    An id is derived from the class's name and the arguments' text, so the same exception gets
    the same id in every process: code loaded from the disk cache raises what it raised where
    it was compiled, once its entries are registered again (`restore`).
    """

    def __init__(self) -> None:
        self._ids: dict[tuple, int] = {}
        self._entries: dict[int, tuple[type, tuple, RaiseSite | None]] = {
            0: (SystemError, ("no exception",), None)
        }
        self._recorders: list[set[int]] = []
        self.unstable: set[int] = set()  # ids moved off their derived value by a collision
        self._lock = threading.Lock()

    def register(self, exc_class: type, exc_args: tuple, site: RaiseSite | None = None) -> int:
        key = (exc_class, exc_args, site)
        with self._lock:
            found = self._ids.get(key)
            if found is None:
                found = _stable_id(*key)
                while found in self._entries and self._entries[found] != key:
                    self.unstable.add(found)
                    found = found % 0x7FFFFFFF + 1
                self._entries[found] = key
                self._ids[key] = found
            for recorder in self._recorders:
                recorder.add(found)
            return found

    def recording(self) -> _Recording:
        """`with static_exceptions.recording() as ids:` collects the ids registered inside."""
        return _Recording(self)

    def entry(self, exc_id: int) -> tuple[type, tuple, RaiseSite | None]:
        return self._entries[exc_id]

    def restore(
        self, exc_id: int, exc_class: type, exc_args: tuple, site: RaiseSite | None = None
    ) -> bool:
        """Register an entry read from the disk cache under its id; False on a clash."""
        key = (exc_class, exc_args, site)
        with self._lock:
            existing = self._entries.get(exc_id)
            if existing is not None:
                return existing == key
            if _stable_id(*key) != exc_id:
                return False
            self._entries[exc_id] = key
            self._ids.setdefault(key, exc_id)
            return True

    def build(self, exc_id: int, payload: int = 0) -> BaseException:
        exc_class, exc_args = self.parts(exc_id, payload)
        return exc_class(*exc_args)

    def parts(self, exc_id: int, payload: int = 0) -> tuple[Any, tuple]:
        """(a callable making the exception, its arguments, read from the payload)."""
        exc_class, exc_args, _ = self._entries[exc_id]
        if exc_class is PythonExceptionRaised:
            return take_python_exception, ()
        if payload:
            exc_args = tuple(_read_payload(payload, arg) for arg in exc_args)
        return exc_class, exc_args

    def entries(self) -> list[tuple[int, type, tuple, RaiseSite | None]]:
        """(id, class, arguments, raise site) of every exception registered so far."""
        with self._lock:
            return [(exc_id, *entry) for exc_id, entry in self._entries.items()]


class _Recording:
    def __init__(self, table: StaticExceptions) -> None:
        self.table = table
        self.ids: set[int] = set()

    def __enter__(self) -> set[int]:
        self.table._recorders.append(self.ids)
        return self.ids

    def __exit__(self, *exc_info: object) -> None:
        recorders = self.table._recorders  # by identity: nested recordings may be equal sets
        del recorders[next(i for i, ids in enumerate(recorders) if ids is self.ids)]


def _stable_id(exc_class: type, exc_args: tuple, site: RaiseSite | None = None) -> int:
    """A positive 31-bit id from the class's qualified name, the arguments' repr and the raise
    site."""
    import hashlib

    text = f"{exc_class.__module__}.{exc_class.__qualname__}{exc_args!r}"
    if site is not None:
        text += repr(site)
    value = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "little")
    return value % 0x7FFFFFFF + 1


class PythonExceptionRaised(BaseException):
    """The entry of an exception raised by Python code that compiled code called (an objmode
    block): the exception object itself waits in this thread's slot until the Python-side
    entry raises it, traceback and all."""


# Keyed by the native thread id, not a threading.local: a thread Python did not start (a
# parallel region's worker) gets a new thread state at each PyGILState_Ensure, and a
# threading.local does not outlive the state. Changed only with the GIL held.
_python_exceptions: dict[int, BaseException] = {}


def keep_python_exception(exc: BaseException) -> None:
    """Hold `exc` (called with the GIL, by generated code) for `take_python_exception`."""
    _python_exceptions[threading.get_ident()] = exc


def keep_exception_made_by(exc_class: type, *args: object) -> None:
    """Hold `exc_class(*args)` (or what its constructor raised), called by generated code
    raising an exception whose arguments it boxed."""
    try:
        exc = exc_class(*args)
    except BaseException as error:  # noqa: BLE001 - it becomes the exception raised
        exc = error
    keep_python_exception(exc)


def take_python_exception() -> BaseException:
    exc = _python_exceptions.pop(threading.get_ident(), None)
    return exc if exc is not None else SystemError("ember: a Python exception was lost")


def peek_python_exception() -> BaseException:
    """The held Python exception, left held (str(e) of a caught one)."""
    exc = _python_exceptions.get(threading.get_ident())
    return exc if exc is not None else SystemError("ember: a Python exception was lost")


def python_exception_matches(*classes: type) -> bool:
    """Whether the held Python exception is an instance of one of `classes` (an `except`
    clause; passed one by one, so builtin classes are found by symbol in a cached entry)."""
    return isinstance(_python_exceptions.get(threading.get_ident()), classes)


python_exception_keepalive: list = []  # `except` class tuples that generated code points at

static_exceptions = StaticExceptions()


_PAYLOAD_CTYPES = {
    "int": ctypes.c_int64,
    "uint": ctypes.c_uint64,
    "float": ctypes.c_double,
    "bool": ctypes.c_bool,
}


_string_from_kind_and_data = ctypes.pythonapi.PyUnicode_FromKindAndData
_string_from_kind_and_data.restype = ctypes.py_object
_string_from_kind_and_data.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ssize_t]


def _read_payload(payload: int, arg: object) -> object:
    if not isinstance(arg, (PayloadSlot, ShapesText, DeferredText)):
        return arg
    from ember.runtime.nrt import data_address

    if isinstance(arg, DeferredText):
        return arg.template.format(*(_read_payload(payload, slot) for slot in arg.slots))
    base = data_address(payload)
    if isinstance(arg, ShapesText):
        ints = list((ctypes.c_int64 * sum(arg.ranks)).from_address(base))
        starts = [sum(arg.ranks[:k]) for k in range(len(arg.ranks))]
        shapes = [tuple(ints[at : at + rank]) for at, rank in zip(starts, arg.ranks)]
        return arg.template.format(*(str(shape) for shape in shapes))
    address = base + arg.index * PAYLOAD_SLOT_SIZE
    if arg.kind == "str":
        offset, length, kind = (ctypes.c_int64 * 3).from_address(address)
        return _string_from_kind_and_data(kind, base + offset, length)
    if arg.kind == "bytes":
        offset, length, _ = (ctypes.c_int64 * 3).from_address(address)
        return ctypes.string_at(base + offset, length)
    return _PAYLOAD_CTYPES[arg.kind].from_address(address).value


def raise_static_exception(excinfo_address: int) -> None:
    """Raise the exception compiled code reported in the EXCINFO_TYPE record at this address
    (called by the Python-side entries); the record's payload reference is released."""
    exc_id = ctypes.c_int32.from_address(excinfo_address).value
    payload = ctypes.c_void_p.from_address(excinfo_address + 8).value or 0
    try:
        exc_class, exc_args = static_exceptions.parts(exc_id, payload)
    finally:
        if payload:
            from ember.runtime.nrt import runtime

            runtime().decref(payload)
    site = static_exceptions.entry(exc_id)[2]
    if site is None:
        raise exc_class(*exc_args)
    code, name = _raising_code(site)
    exec(code, {name: exc_class, _ARGUMENTS: exc_args})  # noqa: S102 - see _raising_code


_ARGUMENTS = "_0"  # the name the raising code reads the exception's arguments from


@functools.lru_cache(maxsize=4096)
def _raising_code(site: RaiseSite) -> tuple[types.CodeType, str]:
    """Code that makes the exception (calling the class the returned name will hold) and
    raises it from `site`'s line of its file, in a frame named after its function: the
    traceback ends at the user's `raise` line, and an error in the exception's own __init__
    shows under it, as in CPython. The statement covers the line's text exactly (the name's
    length makes it so), so the traceback marks no columns under it."""
    text = linecache.getline(site.filename, site.line).rstrip()
    stripped = text.lstrip()
    indent = text[: len(text) - len(stripped)]
    call = f"(*{_ARGUMENTS})"
    end = len(text.encode())
    if stripped.startswith("raise ") and site.end_col is not None:
        end = site.end_col  # the raised expression's end: a trailing comment stays unmarked
    name_length = end - len(indent.encode()) - len("raise ") - len(call)
    if site.line < 2 or name_length < 1:
        name = "__ember_exception__"
        source = "\n" * (site.line - 1) + f"raise {name}{call}"
    else:
        name = "_" * name_length
        source = "\n" * (site.line - 2) + f"if 1:\n{indent or ' '}raise {name}{call}\n"
    code = compile(source, site.filename, "exec")
    return code.replace(co_name=site.function), name


def function_type(sig: Signature, in_registers: bool = False) -> llvm.FunctionType:
    """The convention's type; `in_registers` (a recursion's internal body, see
    `returns_in_registers`): `{status, result}` returned by value, the unused `retptr` left for
    LLVM to delete, so a recursive call keeps its result out of memory."""
    flat_args = [t for arg in sig.args for t in model_of(arg).argument_types()]
    returned = _status_type
    if in_registers:
        returned = llvm.LiteralStructType([_status_type, model_of(sig.return_type).data_type])
    return llvm.FunctionType(returned, [_pointer, _pointer, _pointer, *flat_args])


def fits_in_registers(sig: Signature) -> bool:
    """Whether the result is one scalar (an integer, a float or a pointer)."""
    data_type = model_of(sig.return_type).data_type
    return isinstance(data_type, (llvm.IntType, llvm.FloatType, llvm.DoubleType, llvm.PointerType))


def returns_in_registers(func: llvm.Function) -> bool:
    return isinstance(func.function_type.return_type, llvm.LiteralStructType)


def _return_status(builder: llvm.IRBuilder, func: llvm.Function, status: int, data=None) -> None:
    status_value = llvm.Constant(_status_type, status)
    if not returns_in_registers(func):
        builder.ret(status_value)
        return
    pair_type = func.function_type.return_type
    pair = builder.insert_value(llvm.Constant(pair_type, llvm.Undefined), status_value, 0)
    if data is not None:
        pair = builder.insert_value(pair, data, 1)
    builder.ret(pair)


def decode_arguments(builder: llvm.IRBuilder, sig: Signature, func: llvm.Function) -> list:
    """The typed argument values of `func`, rebuilt from its flattened LLVM arguments."""
    flat = list(func.args[3:])
    values = []
    for arg_type in sig.args:
        model = model_of(arg_type)
        count = len(model.argument_types())
        values.append(model.from_arguments(builder, flat[:count]))
        flat = flat[count:]
    return values


def return_value(builder: llvm.IRBuilder, sig: Signature, func: llvm.Function, value) -> None:
    from ember.lowering import arrays_record_returns as records

    if records.returns_record(sig.return_type):
        arguments = decode_arguments(builder, sig, func)
        value = records.keep_for_caller(builder, sig, arguments, value)
    data = model_of(sig.return_type).as_data(builder, value)
    if returns_in_registers(func):
        _return_status(builder, func, STATUS_OK, data)
        return
    builder.store(data, func.args[0])
    builder.ret(llvm.Constant(_status_type, STATUS_OK))


def return_exception(builder: llvm.IRBuilder, func: llvm.Function, exc_id: int) -> None:
    record = llvm.Constant(EXCINFO_TYPE, [exc_id, None])
    return_exception_record(builder, func, record)


def return_exception_record(builder: llvm.IRBuilder, func: llvm.Function, record) -> None:
    """Report the EXCINFO_TYPE value `record` (its payload reference passes to the caller)."""
    builder.store(record, func.args[1])
    _return_status(builder, func, STATUS_EXCEPTION)


def call(
    builder: llvm.IRBuilder,
    callee: llvm.Function,
    sig: Signature,
    args: list,
    excinfo: llvm.Value,
) -> tuple[llvm.Value, llvm.Value]:
    """Call `callee`; returns (is_error i1, result value). The caller's excinfo is reused."""
    ret_model = model_of(sig.return_type)
    flat = []
    for arg_type, value in zip(sig.args, args):
        flat.extend(model_of(arg_type).as_arguments(builder, value))
    null = llvm.Constant(_pointer, None)
    if returns_in_registers(callee):
        pair = builder.call(callee, [null, excinfo, null, *flat])
        status, data = builder.extract_value(pair, 0), builder.extract_value(pair, 1)
    else:
        retptr = alloca_in_entry(builder, ret_model.data_type)
        status = builder.call(callee, [retptr, excinfo, null, *flat])
        data = builder.load(retptr, typ=ret_model.data_type)
    is_error = builder.icmp_signed("!=", status, llvm.Constant(_status_type, STATUS_OK))
    return is_error, ret_model.from_data(builder, data)


def alloca_in_entry(builder: llvm.IRBuilder, typ: llvm.Type, name: str = "") -> llvm.Value:
    """An alloca in the function's entry block, so mem2reg can promote it."""
    saved = builder.block
    position_in_entry(builder)
    slot = builder.alloca(typ, name=name)
    builder.position_at_end(saved)
    return slot


def position_in_entry(builder: llvm.IRBuilder) -> None:
    """Put `builder` at the end of its function's entry block, before the terminator if there
    is one. (llvmlite's position_before searches the block's list: quadratic in the number
    of slots, seconds for a function of a thousand blocks.)"""
    entry = builder.function.entry_basic_block
    builder.position_at_end(entry)
    if entry.is_terminated:
        builder._anchor = len(entry.instructions) - 1  # noqa: SLF001 - llvmlite's cursor
