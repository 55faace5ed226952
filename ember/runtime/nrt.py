"""NRT: the reference-counted memory behind arrays that compiled code allocates.

A MemInfo heads one 64-byte aligned block from the C library; the array data follows it, so
the data is 64-byte aligned too:

    offset  0   i64 refcount     (updated atomically)
    offset  8   ptr data         (= meminfo + 64)
    offset 16   i64 size         (bytes of data)
    offset 24   ptr destructor   (NULL, or `void dtor(ptr meminfo)` run just before the free:
                                  a list releases its storage and items there)
    offset 32   i64 capacity     (bytes of the whole block, header included)
    offset 40   ptr allocation   (what malloc returned: the block is aligned inside it)
    offset 64   data ...

The runtime is LLVM IR generated below, compiled once by the shared JIT engine and published
with `llvmlite.binding.add_symbol`, so every compiled module (and ctypes) can call it:

    ptr  ember_nrt_allocate(i64 size)    a meminfo with refcount 1, or NULL when out of memory
    ptr  ember_nrt_allocate_small(i64 size)  the same with the data right after offset 48,
                                         unaligned (strings: many small blocks)
    void ember_nrt_incref(ptr meminfo)   no-op on NULL
    void ember_nrt_decref(ptr meminfo)   frees the block when the count reaches 0; NULL: no-op
    void ember_nrt_free(ptr meminfo)

C code reaches the runtime through `ember_nrt_api`, a table of six function pointers laid out as
Numba's `NRT_api_functions` (what `NRT_get_api()` returns): allocate(size), allocate_external(
size, allocator) (the allocator is not used: ember's own allocator serves), manage_memory(data,
dtor) (a meminfo whose data is `data`, calling `dtor(data)` when the last reference goes),
acquire (incref), release (decref) and get_data.

Two atomic i64 globals count allocations and frees; `stats()` reads them. Compiled modules get
their own inlinable copies of incref/decref (`emit_incref`, `emit_decref`), which call the
shared `ember_nrt_free` on the slow path only.

Freed large blocks (1 MiB to 256 MiB) go to a small cache of `EMBER_NRT_CACHED_BLOCKS` slots
(default 4) that later allocations of a similar size take back: a fresh block costs a page fault
per page on first touch, which otherwise dominates a function that returns a new large array on
each call. `release_cached_blocks()` gives their memory back to the C library.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from dataclasses import dataclass

from llvmlite import ir as llvm

from ember import config

HEADER_SIZE = 64
SMALL_HEADER_SIZE = 48  # the header's fields, without the padding that aligns the data
ALIGNMENT = 64

_i1 = llvm.IntType(1)
_i8 = llvm.IntType(8)
_i32 = llvm.IntType(32)
_i64 = llvm.IntType(64)
_ptr = llvm.PointerType()
_void = llvm.VoidType()

ALLOCATE = "ember_nrt_allocate"
ALLOCATE_SMALL = "ember_nrt_allocate_small"
ALLOCATE_FRESH = "ember_nrt_allocate_fresh"
FREE = "ember_nrt_free"
INCREF = "ember_nrt_incref"
DECREF = "ember_nrt_decref"
RELEASE_CACHE = "ember_nrt_release_cached_blocks"
API_TABLE = "ember_nrt_api"
_ALLOCATIONS = "ember_nrt_allocations"
_FREES = "ember_nrt_frees"
_CACHE_SLOTS = "ember_nrt_cache_slots"
_CACHE_CURSOR = "ember_nrt_cache_cursor"
_CACHED_MIN = 1 << 20  # below this, the C library's own free lists reuse memory well
_CACHED_MAX = 256 << 20  # bounds what the cache may keep from the C library

# The names llvmlite's reference-count pruning pass looks for (ember/codegen/jit.py): each
# compiled module carries its own copy, kept out of line so that pass can pair them.
_MODULE_INCREF = "NRT_incref"
_MODULE_DECREF = "NRT_decref"


# ---------------------------------------------------------------------------- IR builders


def _refcount_function(module: llvm.Module, name: str, linkage: str) -> tuple:
    """`void name(ptr meminfo)` (never inlined when given a linkage, so that the pruning pass
    still sees the calls after optimization): the function, a builder at its entry and the
    meminfo argument; NULL meminfos are for the caller to skip."""
    function = llvm.Function(module, llvm.FunctionType(_void, [_ptr]), name)
    if linkage:
        function.linkage = linkage
        function.attributes.add("noinline")
        function.attributes.add("nounwind")
    (meminfo,) = function.args
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    is_null = builder.icmp_unsigned("==", meminfo, llvm.Constant(_ptr, None))
    return function, builder, meminfo, builder.not_(is_null)


def _define_incref(module: llvm.Module, name: str, linkage: str = "") -> llvm.Function:
    function, builder, meminfo, not_null = _refcount_function(module, name, linkage)
    with builder.if_then(not_null, likely=True):
        builder.atomic_rmw("add", meminfo, llvm.Constant(_i64, 1), "monotonic")
    builder.ret_void()
    return function


def _define_decref(module: llvm.Module, name: str, linkage: str = "") -> llvm.Function:
    function, builder, meminfo, not_null = _refcount_function(module, name, linkage)
    with builder.if_then(not_null, likely=True):
        old = builder.atomic_rmw("sub", meminfo, llvm.Constant(_i64, 1), "release")
        last = builder.icmp_signed("==", old, llvm.Constant(_i64, 1))
        with builder.if_then(last, likely=False):
            builder.fence("acquire")
            builder.call(_declare(module, FREE, _void, [_ptr]), [meminfo])
    builder.ret_void()
    return function


def _declare(module: llvm.Module, name: str, result: llvm.Type, args: list) -> llvm.Function:
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return llvm.Function(module, llvm.FunctionType(result, args), name)


_HUGE_PAGE_THRESHOLD = 4 << 20  # NumPy's threshold for asking Linux for huge pages
_PAGE = 4096
_PAGE_ALIGNED_FROM = 128 << 10  # glibc's default mmap threshold: chunks start 16 bytes into a page
_MADV_HUGEPAGE = 14


def _advise_huge_pages(module, builder, block, size) -> None:
    """Large blocks ask for transparent huge pages (as NumPy does on Linux): first-touch page
    faults otherwise dominate loops that fill a freshly allocated array."""
    if not sys.platform.startswith("linux"):
        return
    madvise = _declare(module, "madvise", llvm.IntType(32), [_ptr, _i64, llvm.IntType(32)])
    large = builder.icmp_unsigned(">=", size, llvm.Constant(_i64, _HUGE_PAGE_THRESHOLD))
    with builder.if_then(large, likely=False):
        address = builder.ptrtoint(block, _i64)
        start = builder.and_(
            builder.add(address, llvm.Constant(_i64, _PAGE - 1)), llvm.Constant(_i64, -_PAGE)
        )
        length = builder.and_(
            builder.sub(builder.add(address, size), start), llvm.Constant(_i64, -_PAGE)
        )
        start_pointer = builder.inttoptr(start, _ptr)
        builder.call(
            madvise, [start_pointer, length, llvm.Constant(llvm.IntType(32), _MADV_HUGEPAGE)]
        )


_DESTRUCTOR_OFFSET = 24
_DESTRUCTOR_TYPE = llvm.FunctionType(_void, [_ptr])
_CAPACITY_OFFSET = 32
_ALLOCATION_OFFSET = 40


def _offset(builder: llvm.IRBuilder, block: llvm.Value, offset: int) -> llvm.Value:
    return builder.gep(block, [llvm.Constant(_i64, offset)], inbounds=True, source_etype=_i8)


class _BlockCache:
    """Emits the cache of freed large blocks: a global array of slots that hold a block or
    NULL. A block is taken with an atomic exchange, so only its owner ever reads its header."""

    def __init__(self, module: llvm.Module, release: llvm.Function, slots: int) -> None:
        self.count = slots
        self.release = release
        self.slots = llvm.GlobalVariable(module, llvm.ArrayType(_ptr, max(slots, 1)), _CACHE_SLOTS)
        self.slots.initializer = llvm.Constant(self.slots.value_type, None)
        self.cursor = llvm.GlobalVariable(module, _i64, _CACHE_CURSOR)
        self.cursor.initializer = llvm.Constant(_i64, 0)

    def _slot(self, builder: llvm.IRBuilder, index: int | llvm.Value) -> llvm.Value:
        index = index if isinstance(index, llvm.Value) else llvm.Constant(_i64, index)
        return builder.gep(
            self.slots, [llvm.Constant(_i64, 0), index], source_etype=self.slots.value_type
        )

    def cacheable(self, builder: llvm.IRBuilder, capacity: llvm.Value) -> llvm.Value:
        above = builder.icmp_unsigned(">=", capacity, llvm.Constant(_i64, _CACHED_MIN))
        below = builder.icmp_unsigned("<=", capacity, llvm.Constant(_i64, _CACHED_MAX))
        return builder.and_(above, below)

    def emit_take(self, builder: llvm.IRBuilder, capacity: llvm.Value) -> llvm.Value:
        """A cached block holding `capacity` bytes without wasting half of itself, or NULL."""
        found = llvm.Constant(_ptr, None)
        for index in range(self.count):
            before = builder.block
            with builder.if_then(builder.icmp_unsigned("==", found, llvm.Constant(_ptr, None))):
                taken = self._take_fitting(builder, self._slot(builder, index), capacity)
                after_take = builder.block
            merged = builder.phi(_ptr)
            merged.add_incoming(found, before)
            merged.add_incoming(taken, after_take)
            found = merged
        return found

    def _take_fitting(self, builder, slot, capacity) -> llvm.Value:
        null = llvm.Constant(_ptr, None)
        block = builder.atomic_rmw("xchg", slot, null, "acq_rel")
        before = builder.block
        with builder.if_then(builder.icmp_unsigned("!=", block, null), likely=False):
            cached_capacity = builder.load(_offset(builder, block, _CAPACITY_OFFSET), typ=_i64)
            large_enough = builder.icmp_unsigned(">=", cached_capacity, capacity)
            not_wasteful = builder.icmp_unsigned(
                "<=", builder.lshr(cached_capacity, llvm.Constant(_i64, 1)), capacity
            )
            fitting = builder.and_(large_enough, not_wasteful)
            with builder.if_then(builder.not_(fitting)):
                self._put_back(builder, slot, block)
            after_check = builder.block
        fits = builder.phi(_i1)
        fits.add_incoming(llvm.Constant(_i1, 0), before)
        fits.add_incoming(fitting, after_check)
        return builder.select(fits, block, null)

    def _put_back(self, builder, slot, block) -> None:
        null = llvm.Constant(_ptr, None)
        result = builder.cmpxchg(slot, null, block, "acq_rel", "monotonic")
        with builder.if_then(builder.not_(builder.extract_value(result, 1))):
            builder.call(self.release, [block])  # the slot was refilled meanwhile

    def emit_keep(self, builder: llvm.IRBuilder, block: llvm.Value) -> None:
        """Keep `block` in the next slot (round robin); the block it displaces goes back."""
        turn = builder.atomic_rmw("add", self.cursor, llvm.Constant(_i64, 1), "monotonic")
        index = builder.urem(turn, llvm.Constant(_i64, self.count))
        displaced = builder.atomic_rmw("xchg", self._slot(builder, index), block, "acq_rel")
        with builder.if_then(builder.icmp_unsigned("!=", displaced, llvm.Constant(_ptr, None))):
            builder.call(self.release, [displaced])

    def define_release(self, module: llvm.Module) -> None:
        """`void release()`: every cached block back to the C library."""
        release = llvm.Function(module, llvm.FunctionType(_void, []), RELEASE_CACHE)
        builder = llvm.IRBuilder(release.append_basic_block("entry"))
        for index in range(self.count):
            block = builder.atomic_rmw(
                "xchg", self._slot(builder, index), llvm.Constant(_ptr, None), "acq_rel"
            )
            builder.call(self.release, [block])  # NULL: a no-op
        builder.ret_void()


def _runtime_module() -> str:
    module = llvm.Module(name="ember_nrt")
    counters = {}
    for name in (_ALLOCATIONS, _FREES):
        counter = llvm.GlobalVariable(module, _i64, name)
        counter.initializer = llvm.Constant(_i64, 0)
        counter.align = 8
        counters[name] = counter
    malloc = _declare(module, "malloc", _ptr, [_i64])
    release = _define_release_block(module)
    cache = _BlockCache(module, release, config.NRT_CACHED_BLOCKS)

    allocate = llvm.Function(module, llvm.FunctionType(_ptr, [_i64]), ALLOCATE)
    builder = llvm.IRBuilder(allocate.append_basic_block("entry"))
    (size,) = allocate.args
    total = builder.add(size, llvm.Constant(_i64, HEADER_SIZE + ALIGNMENT - 1))
    total = builder.and_(total, llvm.Constant(_i64, -ALIGNMENT))
    too_big = builder.icmp_unsigned(">", size, llvm.Constant(_i64, 2**62))  # would wrap around
    with builder.if_then(too_big, likely=False):
        builder.ret(llvm.Constant(_ptr, None))
    block = _emit_obtain_block(module, builder, cache, malloc, total)
    _emit_header(builder, counters, block, HEADER_SIZE, size)
    builder.ret(block)

    _define_allocate_small(module, counters, malloc)

    free = llvm.Function(module, llvm.FunctionType(_void, [_ptr]), FREE)
    builder = llvm.IRBuilder(free.append_basic_block("entry"))
    (block,) = free.args
    # Loaded as a typed pointer, which tells llvmlite the type of the indirect call.
    destructor_pointer = _DESTRUCTOR_TYPE.as_pointer()
    destructor = builder.load(_offset(builder, block, _DESTRUCTOR_OFFSET), typ=destructor_pointer)
    null_destructor = llvm.Constant(destructor_pointer, None)
    with builder.if_then(builder.icmp_unsigned("!=", destructor, null_destructor)):
        builder.call(destructor, [block])
    builder.atomic_rmw("add", counters[_FREES], llvm.Constant(_i64, 1), "monotonic")
    if cache.count:
        capacity = builder.load(_offset(builder, block, _CAPACITY_OFFSET), typ=_i64)
        with builder.if_then(cache.cacheable(builder, capacity), likely=False):
            cache.emit_keep(builder, block)
            builder.ret_void()
    builder.call(release, [block])
    builder.ret_void()

    cache.define_release(module)
    incref = _define_incref(module, INCREF)
    decref = _define_decref(module, DECREF)
    _define_c_api(module, allocate, incref, decref)
    return str(module)


_EXTERNAL_DTOR_OFFSET = SMALL_HEADER_SIZE  # manage_memory's block keeps the dtor as its data


def _define_c_api(module: llvm.Module, allocate, incref, decref) -> None:
    """The functions of the C API table and the table (see the module docstring)."""
    small = module.globals[ALLOCATE_SMALL]

    external = llvm.Function(
        module, llvm.FunctionType(_ptr, [_i64, _ptr]), "ember_nrt_allocate_external"
    )
    builder = llvm.IRBuilder(external.append_basic_block("entry"))
    builder.ret(builder.call(allocate, [external.args[0]]))

    run_dtor = llvm.Function(module, _DESTRUCTOR_TYPE, "ember_nrt_run_external_dtor")
    run_dtor.linkage = "internal"
    builder = llvm.IRBuilder(run_dtor.append_basic_block("entry"))
    (block,) = run_dtor.args
    dtor_type = llvm.FunctionType(_void, [_ptr]).as_pointer()  # typed: the call's type
    dtor = builder.load(_offset(builder, block, _EXTERNAL_DTOR_OFFSET), typ=dtor_type)
    with builder.if_then(builder.icmp_unsigned("!=", dtor, llvm.Constant(dtor_type, None))):
        builder.call(dtor, [builder.load(_offset(builder, block, 8), typ=_ptr)])
    builder.ret_void()

    manage = llvm.Function(module, llvm.FunctionType(_ptr, [_ptr, _ptr]), "ember_nrt_manage_memory")
    builder = llvm.IRBuilder(manage.append_basic_block("entry"))
    data, user_dtor = manage.args
    block = builder.call(small, [llvm.Constant(_i64, 8)])
    with builder.if_then(builder.icmp_unsigned("==", block, llvm.Constant(_ptr, None))):
        builder.ret(block)
    builder.store(user_dtor, _offset(builder, block, _EXTERNAL_DTOR_OFFSET))
    builder.store(data, _offset(builder, block, 8))
    builder.store(llvm.Constant(_i64, 0), _offset(builder, block, 16))
    builder.store(run_dtor, _offset(builder, block, _DESTRUCTOR_OFFSET))
    builder.ret(block)

    get_data = llvm.Function(module, llvm.FunctionType(_ptr, [_ptr]), "ember_nrt_get_data")
    builder = llvm.IRBuilder(get_data.append_basic_block("entry"))
    builder.ret(builder.load(_offset(builder, get_data.args[0], 8), typ=_ptr))

    entries = [allocate, external, manage, incref, decref, get_data]
    table = llvm.GlobalVariable(module, llvm.ArrayType(_ptr, len(entries)), API_TABLE)
    table.initializer = llvm.Constant(table.value_type, entries)
    table.global_constant = True


def _emit_header(builder, counters, block, data_offset: int, size) -> None:
    """Count the allocation and fill the header: refcount 1, data, size, no destructor."""
    builder.atomic_rmw("add", counters[_ALLOCATIONS], llvm.Constant(_i64, 1), "monotonic")
    builder.store(llvm.Constant(_i64, 1), block)
    builder.store(_offset(builder, block, data_offset), _offset(builder, block, 8))
    builder.store(size, _offset(builder, block, 16))
    builder.store(llvm.Constant(_ptr, None), _offset(builder, block, _DESTRUCTOR_OFFSET))


def _define_allocate_small(module: llvm.Module, counters: dict, malloc) -> None:
    """`ptr ember_nrt_allocate_small(i64 size)`: a block whose data follows the 48 header bytes
    unaligned (malloc's 16 bytes): a short string costs a third of an aligned block."""
    function = llvm.Function(module, llvm.FunctionType(_ptr, [_i64]), ALLOCATE_SMALL)
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    (size,) = function.args
    too_big = builder.icmp_unsigned(">", size, llvm.Constant(_i64, 2**62))
    with builder.if_then(too_big, likely=False):
        builder.ret(llvm.Constant(_ptr, None))
    total = builder.add(size, llvm.Constant(_i64, SMALL_HEADER_SIZE))
    block = builder.call(malloc, [total])
    with builder.if_then(builder.icmp_unsigned("==", block, llvm.Constant(_ptr, None))):
        builder.ret(llvm.Constant(_ptr, None))
    builder.store(block, _offset(builder, block, _ALLOCATION_OFFSET))
    builder.store(total, _offset(builder, block, _CAPACITY_OFFSET))
    _emit_header(builder, counters, block, SMALL_HEADER_SIZE, size)
    builder.ret(block)


def _define_release_block(module: llvm.Module) -> llvm.Function:
    """`void release(ptr block)`: the block's memory back to the C library (NULL: no-op)."""
    release = llvm.Function(module, llvm.FunctionType(_void, [_ptr]), "ember_nrt_release_block")
    release.linkage = "internal"
    builder = llvm.IRBuilder(release.append_basic_block("entry"))
    (block,) = release.args
    with builder.if_then(builder.icmp_unsigned("!=", block, llvm.Constant(_ptr, None))):
        allocation = builder.load(_offset(builder, block, _ALLOCATION_OFFSET), typ=_ptr)
        builder.call(_declare(module, "free", _void, [_ptr]), [allocation])
    builder.ret_void()
    return release


def _emit_aligned_malloc(builder, malloc, total) -> llvm.Value:
    """A 64-byte aligned block of `total` bytes from plain malloc, which glibc serves several
    times faster than aligned_alloc for small sizes; the block records malloc's pointer.

    A large block's data starts a page: NumPy's large arrays start 16 bytes into a page, and
    data a few cache lines past its input's page offset makes a streaming loop's loads wait on
    unrelated stores (4K aliasing: 10-20% on `(a - lo) / s` over 1M items)."""
    large = builder.icmp_unsigned(">=", total, llvm.Constant(_i64, _PAGE_ALIGNED_FROM))
    alignment = builder.select(large, llvm.Constant(_i64, _PAGE), llvm.Constant(_i64, ALIGNMENT))
    allocation = builder.call(malloc, [builder.add(total, alignment)])
    failed = builder.icmp_unsigned("==", allocation, llvm.Constant(_ptr, None))
    with builder.if_then(failed, likely=False):
        builder.ret(llvm.Constant(_ptr, None))
    data = builder.add(builder.ptrtoint(allocation, _i64), llvm.Constant(_i64, HEADER_SIZE))
    data = builder.and_(
        builder.add(data, builder.sub(alignment, llvm.Constant(_i64, 1))),
        builder.neg(alignment),
    )
    block = builder.inttoptr(builder.sub(data, llvm.Constant(_i64, HEADER_SIZE)), _ptr)
    builder.store(allocation, _offset(builder, block, _ALLOCATION_OFFSET))
    return block


def _emit_obtain_block(module, builder, cache: _BlockCache, malloc, total) -> llvm.Value:
    """A block of `total` bytes with its capacity recorded: a cached one when one fits, else
    a new one from the C library (NULL when out of memory returns NULL from the caller)."""
    found = llvm.Constant(_ptr, None)
    if cache.count:
        before = builder.block
        with builder.if_then(cache.cacheable(builder, total), likely=False):
            taken = cache.emit_take(builder, total)
            after_take = builder.block
        found = builder.phi(_ptr)
        found.add_incoming(llvm.Constant(_ptr, None), before)
        found.add_incoming(taken, after_take)
    reused = builder.icmp_unsigned("!=", found, llvm.Constant(_ptr, None))
    before = builder.block
    with builder.if_then(builder.not_(reused), likely=True):
        fresh = _emit_aligned_malloc(builder, malloc, total)
        _advise_huge_pages(module, builder, fresh, total)
        builder.store(total, _offset(builder, fresh, _CAPACITY_OFFSET))
        after_fresh = builder.block
    block = builder.phi(_ptr)
    block.add_incoming(found, before)
    block.add_incoming(fresh, after_fresh)
    return block


# ---------------------------------------------------------------------------- the runtime


class _Runtime:
    """The compiled runtime: symbol addresses and ctypes entry points."""

    def __init__(self, object_code: bytes | None = None) -> None:
        from ember.codegen.jit import engine
        from ember.codegen.symbols import publish

        jit = engine()
        if object_code is None:
            jit.add_module(_optimized_runtime_module())
        else:
            jit.add_object_code(object_code)
        self.addresses = {}
        for name in (ALLOCATE, ALLOCATE_SMALL, FREE, INCREF, DECREF):
            address = jit.address_of(name)
            publish(name, address)
            self.addresses[name] = address
        publish(ALLOCATE_FRESH, self.addresses[ALLOCATE])  # (one function, two declarations)
        self.addresses[API_TABLE] = jit.engine.get_global_value_address(API_TABLE)
        publish(API_TABLE, self.addresses[API_TABLE])
        self._allocations = ctypes.c_int64.from_address(
            jit.engine.get_global_value_address(_ALLOCATIONS)
        )
        self._frees = ctypes.c_int64.from_address(jit.engine.get_global_value_address(_FREES))
        unary = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        self.incref = unary(self.addresses[INCREF])
        self.decref = unary(self.addresses[DECREF])
        self.allocate = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64)(self.addresses[ALLOCATE])
        self.release_cached_blocks = ctypes.CFUNCTYPE(None)(jit.address_of(RELEASE_CACHE))

    def counts(self) -> tuple[int, int]:
        return self._allocations.value, self._frees.value


def _optimized_runtime_module():
    from ember.codegen.jit import engine

    jit = engine()
    module = jit.parse(_runtime_module())
    module.verify()
    jit.optimize(module)
    return module


def _runtime_object_code() -> bytes:
    from ember.codegen.jit import engine

    return engine().object_code(_optimized_runtime_module())


_runtime: _Runtime | None = None
_runtime_lock = threading.Lock()


def runtime() -> _Runtime:
    """The process-wide runtime, compiled on first use."""
    global _runtime
    if _runtime is None:
        caching = sys.modules.get("ember.caching")
        if caching is not None and caching.in_use:  # cache=True: the runtime's code too
            publish_symbol(ALLOCATE)
            return _runtime
        with _runtime_lock:
            if _runtime is None:
                _runtime = _Runtime()
    return _runtime


@dataclass(frozen=True)
class RuntimeStats:
    """Counts of runtime allocations and frees since the process started."""

    alloc: int
    free: int

    @property
    def live(self) -> int:
        """Blocks allocated and not yet freed."""
        return self.alloc - self.free


def publish_symbol(name: str) -> None:
    """Cached code calls the runtime by name (ember/codegen/symbols.py): load it, from the disk
    cache too (a process that only loads cached code then compiles nothing at all)."""
    global _runtime
    if _runtime is None:
        from ember.caching import prebuilt_object

        with _runtime_lock:
            if _runtime is None:
                code = prebuilt_object(f"nrt{config.NRT_CACHED_BLOCKS}", _runtime_object_code)
                _runtime = _Runtime(code)


def stats() -> RuntimeStats:
    """How many blocks compiled code has allocated and freed so far."""
    return RuntimeStats(*runtime().counts())


def release_cached_blocks() -> None:
    """Give the memory of freed large blocks that ember keeps for reuse back to the C library
    (at most `EMBER_NRT_CACHED_BLOCKS` blocks of up to 256 MiB each)."""
    runtime().release_cached_blocks()


def refcount(meminfo: int) -> int:
    """The current reference count of a meminfo (for tests and debugging)."""
    return ctypes.c_int64.from_address(meminfo).value


def data_address(meminfo: int) -> int:
    return ctypes.c_void_p.from_address(meminfo + 8).value or 0


def data_size(meminfo: int) -> int:
    """The size in bytes of the block's data, as allocated (the header's size field)."""
    return ctypes.c_int64.from_address(meminfo + 16).value


# ---------------------------------------------------------------------------- code emission


def _in_module(module: llvm.Module, name: str, define) -> llvm.Function:
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return define(module, name, "linkonce_odr")  # linked modules share one copy


def emit_incref(builder: llvm.IRBuilder, meminfo: llvm.Value) -> None:
    """`incref(meminfo)` in the current function (NULL is a no-op)."""
    runtime()
    builder.call(_in_module(builder.module, _MODULE_INCREF, _define_incref), [meminfo])


def emit_decref(builder: llvm.IRBuilder, meminfo: llvm.Value) -> None:
    """`decref(meminfo)`: frees the block when the last reference goes (NULL is a no-op)."""
    runtime()
    builder.call(_in_module(builder.module, _MODULE_DECREF, _define_decref), [meminfo])


def emit_allocate(builder: llvm.IRBuilder, size: llvm.Value) -> llvm.Value:
    """A new meminfo of `size` data bytes (refcount 1), or NULL when out of memory."""
    runtime()
    return builder.call(_declare(builder.module, ALLOCATE, _ptr, [_i64]), [size])


def emit_allocate_fresh(builder: llvm.IRBuilder, size: llvm.Value) -> llvm.Value:
    """`emit_allocate` declared like malloc: the block aliases nothing the caller holds, so
    LLVM keeps its fields in registers until it escapes (a generator's state, consumed by the
    loop that made it). Only there: on other code the attribute changed LLVM's choices for
    the worse (an insertion sort on a copy: 0.93x -> 1.15x of Numba)."""
    runtime()
    function = _declare(builder.module, ALLOCATE_FRESH, _ptr, [_i64])
    function.return_value.add_attribute("noalias")
    return builder.call(function, [size])


def emit_allocate_small(builder: llvm.IRBuilder, size: llvm.Value) -> llvm.Value:
    """Like `emit_allocate`, but the data (at the header's `data` pointer, 16-byte aligned)
    directly follows the header fields: for many small blocks such as strings."""
    runtime()
    return builder.call(_declare(builder.module, ALLOCATE_SMALL, _ptr, [_i64]), [size])


def emit_set_destructor(
    builder: llvm.IRBuilder, meminfo: llvm.Value, destructor: llvm.Function
) -> None:
    """Run `destructor(meminfo)` when the block's last reference goes, before it is freed."""
    builder.store(destructor, _offset(builder, meminfo, _DESTRUCTOR_OFFSET))


def emit_api_table(builder: llvm.IRBuilder) -> llvm.Value:
    """The address of the C API table (Numba's `NRT_get_api()`), by name: valid in cached code."""
    runtime()
    module = builder.module
    table = module.globals.get(API_TABLE)
    if table is None:
        table = llvm.GlobalVariable(module, llvm.ArrayType(_ptr, 6), API_TABLE)
        table.linkage = "external"
    return builder.bitcast(table, _ptr)


def emit_data_pointer(builder: llvm.IRBuilder, meminfo: llvm.Value) -> llvm.Value:
    """The data pointer of a meminfo made by `emit_allocate`."""
    return builder.gep(meminfo, [llvm.Constant(_i64, HEADER_SIZE)], inbounds=True, source_etype=_i8)


def emit_small_data_pointer(builder: llvm.IRBuilder, meminfo: llvm.Value) -> llvm.Value:
    """The data pointer of a meminfo made by `emit_allocate_small`."""
    offset = llvm.Constant(_i64, SMALL_HEADER_SIZE)
    return builder.gep(meminfo, [offset], inbounds=True, source_etype=_i8)


def emit_load_data_pointer(builder: llvm.IRBuilder, meminfo: llvm.Value) -> llvm.Value:
    """The data pointer a meminfo records: of a block from either allocator."""
    return builder.load(_offset(builder, meminfo, 8), typ=_ptr)
