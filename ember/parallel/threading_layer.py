"""The threading layer: runs `worker(data, chunk)` for chunks 0..n-1 on a team of threads.

Two layers, both generated as LLVM IR and published with `add_symbol` (no C compiler):

- `omp`: libgomp's `GOMP_parallel` (the system's, or one a wheel ships in `*.libs/`);
- `workqueue`: plain pthreads, a team started per region and joined at its end.

`EMBER_THREADING_LAYER` picks one (`default` tries omp, then workqueue). Every layer runs each
chunk exactly once whatever team size it gets, so a nested region (which libgomp runs with one
thread) and regions started from several Python threads at once are safe. Native symbols:

    void ember_parallel_launch(ptr worker, ptr data, i64 nchunks)
    i64  ember_parallel_thread_id()          0 outside a parallel region
    i64  ember_parallel_get_num_threads()    this thread's setting (set_num_threads)
    void ember_parallel_set_num_threads(i64)
    i64  ember_parallel_get_chunksize()      this thread's set_parallel_chunksize hint
    void ember_parallel_set_chunksize(i64)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import site
import sys
import threading

from llvmlite import ir as llvm

from ember import config

LAUNCH = "ember_parallel_launch"
_RUN = "ember_parallel_run"  # the layer's own launch, which LAUNCH calls without the GIL
THREAD_ID = "ember_parallel_thread_id"
GET_NUM_THREADS = "ember_parallel_get_num_threads"
SET_NUM_THREADS = "ember_parallel_set_num_threads"
GET_CHUNKSIZE = "ember_parallel_get_chunksize"
SET_CHUNKSIZE = "ember_parallel_set_chunksize"

_i32 = llvm.IntType(32)
_i64 = llvm.IntType(64)
_ptr = llvm.PointerType()
_void = llvm.VoidType()
WORKER_TYPE = llvm.FunctionType(_void, [_ptr, _i64])

_CHUNKSIZE_NAMES = (GET_CHUNKSIZE, SET_CHUNKSIZE)
_LAYER_NAMES = ("default", "omp", "workqueue", "threadsafe", "forksafe", "safe", "tbb")


# ---------------------------------------------------------------------------- libraries


def _libgomp_candidates() -> list[str]:
    found = [ctypes.util.find_library("gomp") or "", "libgomp.so.1"]
    roots = [*site.getsitepackages(), site.getusersitepackages(), *sys.path]
    for root in roots:  # wheels that vendor libgomp (scikit-learn, scipy, torch...)
        found += sorted(glob.glob(os.path.join(root, "*.libs", "libgomp*.so*")))
    return [name for name in found if name]


def _load_libgomp() -> str | None:
    """Load libgomp for the JIT's symbol lookup; its path, or None when none loads."""
    import llvmlite.binding as llvm_binding

    for candidate in _libgomp_candidates():
        try:
            ctypes.CDLL(candidate, mode=ctypes.RTLD_GLOBAL)
            llvm_binding.load_library_permanently(candidate)
        except (OSError, RuntimeError):
            continue
        return candidate
    return None


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None)


def _new_pthread_key() -> int:
    key = ctypes.c_uint(0)
    if _libc().pthread_key_create(ctypes.byref(key), None) != 0:
        raise OSError("pthread_key_create failed")
    return key.value


# ---------------------------------------------------------------------------- IR helpers


def _declare(module: llvm.Module, name: str, result: llvm.Type, args: list) -> llvm.Function:
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return llvm.Function(module, llvm.FunctionType(result, args), name)


def _define(module: llvm.Module, name: str, result, args, internal: bool = False):
    function = llvm.Function(module, llvm.FunctionType(result, args), name)
    if internal:
        function.linkage = "internal"
    return function, llvm.IRBuilder(function.append_basic_block("entry"))


# The pthread keys live in memory of this process, found by symbol, so the layer's machine
# code is the same in every process and the disk cache can keep it (ember/caching/).
NTHREADS_KEY = "ember_parallel.nthreads_key"
TID_KEY = "ember_parallel.tid_key"
CHUNKSIZE_KEY = "ember_parallel.chunksize_key"


def _key_global(module: llvm.Module, name: str) -> llvm.GlobalVariable:
    holder = llvm.GlobalVariable(module, _i32, name)
    holder.linkage = "external"
    return holder


def _emit_chunk_loop(builder, worker, data, first, step, count) -> None:
    """for (c = first; c < count; c += step) worker(data, c);"""
    function = builder.function
    head = function.append_basic_block("chunks.head")
    body = function.append_basic_block("chunks.body")
    done = function.append_basic_block("chunks.done")
    before = builder.block
    builder.branch(head)
    builder.position_at_end(head)
    chunk = builder.phi(_i64)
    chunk.add_incoming(first, before)
    builder.cbranch(builder.icmp_signed("<", chunk, count), body, done)
    builder.position_at_end(body)
    builder.call(worker, [data, chunk])
    chunk.add_incoming(builder.add(chunk, step), body)
    builder.branch(head)
    builder.position_at_end(done)


def _team_size(builder, nchunks) -> llvm.Value:
    """min(nchunks, this thread's num_threads), at least 1."""
    wanted = builder.call(builder.module.globals[GET_NUM_THREADS], [])
    size = builder.select(builder.icmp_signed("<", nchunks, wanted), nchunks, wanted)
    one = llvm.Constant(_i64, 1)
    return builder.select(builder.icmp_signed("<", size, one), one, size)


def _define_per_thread(module: llvm.Module, key: str, getter: str, setter: str, default: int):
    """A per-thread i64 setting in a pthread key (0 stored: `default`), as Numba keeps
    num_threads and the chunk-size hint per thread."""
    holder = _key_global(module, key)
    getspecific = _declare(module, "pthread_getspecific", _ptr, [_i32])
    setspecific = _declare(module, "pthread_setspecific", _i32, [_i32, _ptr])
    get, builder = _define(module, getter, _i64, [])
    stored = builder.ptrtoint(builder.call(getspecific, [builder.load(holder)]), _i64)
    is_unset = builder.icmp_signed("==", stored, llvm.Constant(_i64, 0))
    builder.ret(builder.select(is_unset, llvm.Constant(_i64, default), stored))
    put, builder = _define(module, setter, _void, [_i64])
    value = builder.inttoptr(put.args[0], _ptr)
    builder.call(setspecific, [builder.load(holder), value])
    builder.ret_void()


# ---------------------------------------------------------------------------- omp layer


def _omp_module(module: llvm.Module) -> None:
    thread_num = _declare(module, "omp_get_thread_num", _i32, [])
    team = _declare(module, "omp_get_num_threads", _i32, [])
    gomp_parallel = _declare(module, "GOMP_parallel", _void, [_ptr, _ptr, _i32, _i32])
    pack_type = llvm.LiteralStructType([_ptr, _ptr, _i64])

    body, builder = _define(module, "ember_omp_body", _void, [_ptr], internal=True)
    fields = [
        builder.load(builder.gep(body.args[0], [_c32(0), _c32(k)], source_etype=pack_type), typ=t)
        for k, t in enumerate((WORKER_TYPE.as_pointer(), _ptr, _i64))
    ]
    first = builder.sext(builder.call(thread_num, []), _i64)
    step = builder.sext(builder.call(team, []), _i64)
    _emit_chunk_loop(builder, fields[0], fields[1], first, step, fields[2])
    builder.ret_void()

    launch, builder = _define(module, _RUN, _void, [_ptr, _ptr, _i64], internal=True)
    pack = builder.alloca(pack_type)
    for k, value in enumerate(launch.args):
        builder.store(value, builder.gep(pack, [_c32(0), _c32(k)]))
    size = builder.trunc(_team_size(builder, launch.args[2]), _i32)
    builder.call(gomp_parallel, [body, pack, size, _c32(0)])
    builder.ret_void()

    thread_id, builder = _define(module, THREAD_ID, _i64, [])
    builder.ret(builder.sext(builder.call(thread_num, []), _i64))


def _define_launch(module: llvm.Module) -> None:
    """LAUNCH: the layer's run with the GIL released when the caller holds it, so a chunk that
    needs Python (print to a replaced sys.stdout, an exception's object) can take it on any
    thread; a caller that already released it (nogil, a nested region) keeps it released."""
    run = module.globals[_RUN]
    check = _declare(module, "PyGILState_Check", _i32, [])
    save = _declare(module, "PyEval_SaveThread", _ptr, [])
    restore = _declare(module, "PyEval_RestoreThread", _void, [_ptr])
    launch, builder = _define(module, LAUNCH, _void, [_ptr, _ptr, _i64])
    holds = builder.icmp_signed("!=", builder.call(check, []), _c32(0))
    saved = builder.alloca(_ptr)
    builder.store(llvm.Constant(_ptr, None), saved)
    with builder.if_then(holds):
        builder.store(builder.call(save, []), saved)
    builder.call(run, list(launch.args))
    with builder.if_then(holds):
        builder.call(restore, [builder.load(saved, typ=_ptr)])
    builder.ret_void()


def _c32(value: int) -> llvm.Constant:
    return llvm.Constant(_i32, value)


# ---------------------------------------------------------------------------- workqueue layer


def _workqueue_module(module: llvm.Module) -> None:
    """A team of pthreads per region: thread t runs chunks t, t+T, ...; the caller is t=0."""
    holder = _key_global(module, TID_KEY)
    getspecific = _declare(module, "pthread_getspecific", _ptr, [_i32])
    setspecific = _declare(module, "pthread_setspecific", _i32, [_i32, _ptr])
    create = _declare(module, "pthread_create", _i32, [_ptr, _ptr, _ptr, _ptr])
    join = _declare(module, "pthread_join", _i32, [_i64, _ptr])
    # {worker, data, nchunks, tid, team, pthread handle}
    pack_type = llvm.LiteralStructType([_ptr, _ptr, _i64, _i64, _i64, _i64])

    def field(builder, pack, k, typ):
        etype = None if isinstance(pack.type, type(pack_type.as_pointer())) else pack_type
        return builder.load(builder.gep(pack, [_c32(0), _c32(k)], source_etype=etype), typ=typ)

    start, builder = _define(module, "ember_wq_start", _ptr, [_ptr], internal=True)
    worker, data, nchunks, tid, team = (
        field(builder, start.args[0], k, t)
        for k, t in enumerate((WORKER_TYPE.as_pointer(), _ptr, _i64, _i64, _i64))
    )
    key = builder.load(holder)
    saved = builder.call(getspecific, [key])
    tagged = builder.inttoptr(builder.add(tid, llvm.Constant(_i64, 1)), _ptr)
    builder.call(setspecific, [key, tagged])
    _emit_chunk_loop(builder, worker, data, tid, team, nchunks)
    builder.call(setspecific, [key, saved])
    builder.ret(llvm.Constant(_ptr, None))

    launch, builder = _define(module, _RUN, _void, [_ptr, _ptr, _i64], internal=True)
    team = _team_size(builder, launch.args[2])
    packs = builder.alloca(pack_type, size=team)
    with _for_range(builder, team) as t:
        pack = builder.gep(packs, [t])
        for k, value in enumerate((*launch.args, t, team, llvm.Constant(_i64, 0))):
            builder.store(value, builder.gep(pack, [_c32(0), _c32(k)]))
    with _for_range(builder, team, first=1) as t:
        pack = builder.gep(packs, [t])
        handle = builder.gep(pack, [_c32(0), _c32(5)])
        status = builder.call(create, [handle, llvm.Constant(_ptr, None), start, pack])
        with builder.if_then(builder.icmp_signed("!=", status, _c32(0)), likely=False):
            builder.call(start, [pack])  # no thread to be had: run its chunks here
            builder.store(llvm.Constant(_i64, 0), handle)
    builder.call(start, [packs])
    with _for_range(builder, team, first=1) as t:
        handle = field(builder, builder.gep(packs, [t]), 5, _i64)
        with builder.if_then(builder.icmp_signed("!=", handle, llvm.Constant(_i64, 0))):
            builder.call(join, [handle, llvm.Constant(_ptr, None)])
    builder.ret_void()

    thread_id, builder = _define(module, THREAD_ID, _i64, [])
    tag = builder.ptrtoint(builder.call(getspecific, [builder.load(holder)]), _i64)
    is_outside = builder.icmp_signed("==", tag, llvm.Constant(_i64, 0))
    inside = builder.sub(tag, llvm.Constant(_i64, 1))
    builder.ret(builder.select(is_outside, llvm.Constant(_i64, 0), inside))


class _for_range:
    """`with _for_range(builder, n, first) as i:` emits `for (i = first; i < n; i++)`."""

    def __init__(self, builder, count, first: int = 0) -> None:
        self.builder, self.count, self.first = builder, count, first

    def __enter__(self):
        builder = self.builder
        function = builder.function
        self.head = function.append_basic_block("for.head")
        self.body = function.append_basic_block("for.body")
        self.done = function.append_basic_block("for.done")
        before = builder.block
        builder.branch(self.head)
        builder.position_at_end(self.head)
        self.index = builder.phi(_i64)
        self.index.add_incoming(llvm.Constant(_i64, self.first), before)
        builder.cbranch(builder.icmp_signed("<", self.index, self.count), self.body, self.done)
        builder.position_at_end(self.body)
        return self.index

    def __exit__(self, *exc) -> None:
        builder = self.builder
        self.index.add_incoming(builder.add(self.index, llvm.Constant(_i64, 1)), builder.block)
        builder.branch(self.head)
        builder.position_at_end(self.done)


# ---------------------------------------------------------------------------- the layer


class ThreadingLayer:
    """The compiled layer: its name, symbol addresses and ctypes entry points."""

    def __init__(self, requested: str) -> None:
        from ember.codegen.jit import engine
        from ember.codegen.symbols import publish

        self.name = self._choose(requested)
        key_names = (NTHREADS_KEY, TID_KEY, CHUNKSIZE_KEY)
        self._keys = [ctypes.c_uint32(_new_pthread_key()) for _ in key_names]
        for name, key in zip(key_names, self._keys):
            publish(name, ctypes.addressof(key))
        jit = engine()
        code = _cached_object_code(self.name)
        if code is None:
            jit.add_module(_optimized_module(self.name))
        else:
            jit.add_object_code(code)
        self.addresses = {}
        for name in (LAUNCH, THREAD_ID, GET_NUM_THREADS, SET_NUM_THREADS, *_CHUNKSIZE_NAMES):
            self.addresses[name] = jit.address_of(name)
            publish(name, self.addresses[name])
        self.thread_id = ctypes.CFUNCTYPE(ctypes.c_int64)(self.addresses[THREAD_ID])
        self.get_num_threads = ctypes.CFUNCTYPE(ctypes.c_int64)(self.addresses[GET_NUM_THREADS])
        self.set_num_threads = ctypes.CFUNCTYPE(None, ctypes.c_int64)(
            self.addresses[SET_NUM_THREADS]
        )
        self.get_chunksize = ctypes.CFUNCTYPE(ctypes.c_int64)(self.addresses[GET_CHUNKSIZE])
        self.set_chunksize = ctypes.CFUNCTYPE(None, ctypes.c_int64)(self.addresses[SET_CHUNKSIZE])

    def _choose(self, requested: str) -> str:
        if requested not in _LAYER_NAMES:
            raise ValueError(
                f"EMBER_THREADING_LAYER={requested!r} is not a threading layer; "
                f"choose one of {', '.join(_LAYER_NAMES)}"
            )
        if requested in ("tbb", "safe"):
            raise ValueError("the TBB threading layer is not available in ember; use 'omp'")
        if requested == "workqueue":
            return "workqueue"
        if requested == "omp":
            self.library = _load_libgomp()
            if self.library is None:
                raise ValueError(
                    "the 'omp' threading layer needs libgomp, which could not be loaded"
                )
            return "omp"
        for name in config.THREADING_LAYER_PRIORITY:
            if name == "workqueue":
                return "workqueue"
            if name == "omp":
                self.library = _load_libgomp()
                if self.library is not None:
                    return "omp"
        return "workqueue"


def _optimized_module(name: str):
    """The layer `name` ('omp' or 'workqueue') as an optimized LLVM module."""
    from ember.codegen.jit import engine

    module = llvm.Module("ember_threading_layer")
    _define_per_thread(module, NTHREADS_KEY, GET_NUM_THREADS, SET_NUM_THREADS, config.NUM_THREADS)
    _define_per_thread(module, CHUNKSIZE_KEY, *_CHUNKSIZE_NAMES, 0)
    if name == "omp":
        _omp_module(module)
    else:
        _workqueue_module(module)
    _define_launch(module)
    jit = engine()
    parsed = jit.parse(str(module))
    parsed.verify()
    jit.optimize(parsed)
    return parsed


def _cached_object_code(name: str) -> bytes | None:
    """The layer's object code from the disk cache when `cache=True` is in use (a warm process
    then optimizes nothing), else None: compile it here."""
    caching = sys.modules.get("ember.caching")
    if caching is None or not caching.in_use:
        return None
    from ember.codegen.jit import engine

    def build() -> bytes:
        return engine().object_code(_optimized_module(name))

    # "v2": the layer gained the chunk-size functions; older cached code lacks them
    return caching.prebuilt_object(f"threading-v2-{name}-{config.NUM_THREADS}", build)


_layer: ThreadingLayer | None = None
_layer_lock = threading.Lock()


def layer() -> ThreadingLayer:
    """The process-wide threading layer, built on first use."""
    global _layer
    if _layer is None:
        with _layer_lock:
            if _layer is None:
                _layer = ThreadingLayer(config.THREADING_LAYER)
    return _layer


def declare_launch(module: llvm.Module) -> llvm.Function:
    """`ember_parallel_launch` in `module` (the layer is built first, so the JIT finds it)."""
    layer()
    return _declare(module, LAUNCH, _void, [_ptr, _ptr, _i64])


def declare_symbol(module: llvm.Module, name: str) -> llvm.Function:
    """One of the layer's `i64 ()` / `void (i64)` functions, declared in `module`."""
    layer()
    if name in (SET_NUM_THREADS, SET_CHUNKSIZE):
        return _declare(module, name, _void, [_i64])
    return _declare(module, name, _i64, [])
