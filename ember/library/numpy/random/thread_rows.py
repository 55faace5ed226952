"""Which row of the random state tables (np.random's and random's) the calling thread draws
from, as IR: worker t > 0 of a parallel region takes row t % WORKER_ROWS; any other thread (a
Python thread, a region's caller, a worker running a nested region) its own row, given on its
first draw (the main thread row 0; others a free row of the last THREAD_ROWS, seeded from the
OS, reclaimed when its thread has ended) and remembered in a pthread key."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable

from llvmlite import ir as llvm

from ember.lowering.function_pointers import _Callee

# Constants (not the thread count), so cached code indexes tables of the same size everywhere
WORKER_ROWS = 64
THREAD_ROWS = 64
ROWS = WORKER_ROWS + THREAD_ROWS

_i32 = llvm.IntType(32)
_i64 = llvm.IntType(64)
_ptr = llvm.PointerType()
_KEY_SYMBOL = "ember.random.row_key"
_ASSIGN_SYMBOL = "ember.random.assign_row"
_SLOT_FUNCTION = "ember.random.thread_row"

_reseeders: list[Callable[[slice], None]] = []
_owners: dict[int, threading.Thread] = {}  # row -> the thread drawing from it
_lock = threading.Lock()


def register_tables(reseed: Callable[[slice], None]) -> None:
    """`reseed(rows)` seeds those rows of one owner's tables from the OS; called for a row
    when a new thread takes it."""
    _reseeders.append(reseed)


def current_thread_row() -> int:
    """The calling thread's own row (the main thread's is 0), taking a free one if it has
    none: Python code (numba._helperlib) and compiled code (once per thread) agree on it."""
    thread = threading.current_thread()
    if thread is threading.main_thread():
        return 0
    with _lock:
        for row, owner in _owners.items():
            if owner is thread:
                return row
        for row, owner in list(_owners.items()):
            if not owner.is_alive():
                del _owners[row]
        free = [r for r in range(WORKER_ROWS, ROWS) if r not in _owners]
        if not free:  # more live threads than rows: this one shares a row
            return WORKER_ROWS + threading.get_ident() % THREAD_ROWS
        row = free[0]
        _owners[row] = thread
        for reseed in _reseeders:
            reseed(slice(row, row + 1))
        return row


_ASSIGN_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int64)(current_thread_row)  # takes the GIL
_row_key = ctypes.c_uint32(0)


def _ensure_key() -> None:
    if _row_key.value == 0:
        from ember.parallel.threading_layer import _new_pthread_key

        _row_key.value = _new_pthread_key() + 1  # stored + 1: 0 means "not made yet"


def publish_symbol(name: str) -> bool:
    """Publish `name` if it is one of this module's symbols (the key, the callback)."""
    from ember.codegen.symbols import publish

    if name == _KEY_SYMBOL:
        _ensure_key()
        publish(name, ctypes.addressof(_row_key))
        return True
    if name == _ASSIGN_SYMBOL:
        publish(name, ctypes.cast(_ASSIGN_CALLBACK, ctypes.c_void_p).value)
        return True
    return False


def _own_row_function(module: llvm.Module, worker_id: llvm.Function | None) -> llvm.Function:
    """`i64 thread_row()` in `module`: the row rule of the module docstring."""
    found = module.globals.get(_SLOT_FUNCTION)
    if found is not None:
        return found
    from ember.codegen.symbols import external_global
    from ember.parallel.threading_layer import _declare

    publish_symbol(_KEY_SYMBOL)
    publish_symbol(_ASSIGN_SYMBOL)
    function = llvm.Function(module, llvm.FunctionType(_i64, []), _SLOT_FUNCTION)
    function.linkage = "internal"
    # kept out of line: a call marked readnone is one LLVM hoists out of loops (the body's
    # first-draw assignment writes, and inlined it would pin the lookup to every draw).
    # Speculatable: hoisted from a draw made only on some iterations too (a thread's row is
    # the same wherever it is looked up, and looking it up early only assigns it early).
    # (llvmlite's attribute list lacks these two: added past its check.)
    function.attributes.add("noinline")
    for attribute in ("speculatable", "willreturn"):
        set.add(function.attributes, attribute)
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    if worker_id is not None:
        worker = builder.call(worker_id, [])
        in_team = builder.icmp_signed(">", worker, llvm.Constant(_i64, 0))
        with builder.if_then(in_team):
            builder.ret(builder.and_(worker, llvm.Constant(_i64, WORKER_ROWS - 1)))
    getspecific = _declare(module, "pthread_getspecific", _ptr, [_i32])
    setspecific = _declare(module, "pthread_setspecific", _i32, [_i32, _ptr])
    stored_key = builder.load(external_global(module, _KEY_SYMBOL, _i32), typ=_i32)
    key = builder.sub(stored_key, llvm.Constant(_i32, 1))
    known = builder.ptrtoint(builder.call(getspecific, [key]), _i64)
    with builder.if_then(builder.icmp_signed("!=", known, llvm.Constant(_i64, 0))):
        builder.ret(builder.sub(known, llvm.Constant(_i64, 1)))
    assign = external_global(module, _ASSIGN_SYMBOL)
    row = builder.call(_Callee(assign, llvm.FunctionType(_i64, [])), [])
    builder.call(setspecific, [key, builder.inttoptr(builder.add(row, llvm.Constant(_i64, 1)),
                                                     _ptr)])  # fmt: skip
    builder.ret(row)
    return function


def thread_row(builder: llvm.IRBuilder) -> llvm.Value:
    """The calling thread's row. The call reads nothing the function writes, so LLVM may hoist
    it out of loops: a thread's row is fixed while a function runs."""
    from ember.parallel import threading_layer

    try:
        worker_id = threading_layer.declare_symbol(builder.module, threading_layer.THREAD_ID)
    except ValueError:  # no threading layer (EMBER_THREADING_LAYER names none): no workers
        worker_id = None
    function = _own_row_function(builder.module, worker_id)
    return builder.call(function, [], attrs=("nounwind", "readnone"))
