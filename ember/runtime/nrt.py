"""NRT: the reference-counted memory behind arrays that compiled code allocates.

A MemInfo heads one 64-byte aligned block from the C library; the array data follows it, so
the data is 64-byte aligned too:

    offset  0   i64 refcount     (updated atomically)
    offset  8   ptr data         (= meminfo + 64)
    offset 16   i64 size         (bytes of data)
    offset 24   ptr destructor   (NULL, or `void dtor(ptr meminfo)` run just before the free:
                                  a list releases its storage and items there)
    offset 64   data ...

The runtime is LLVM IR generated below, compiled once by the shared JIT engine and published
with `llvmlite.binding.add_symbol`, so every compiled module (and ctypes) can call it:

    ptr  ember_nrt_allocate(i64 size)    a meminfo with refcount 1, or NULL when out of memory
    void ember_nrt_incref(ptr meminfo)   no-op on NULL
    void ember_nrt_decref(ptr meminfo)   frees the block when the count reaches 0; NULL: no-op
    void ember_nrt_free(ptr meminfo)

Two atomic i64 globals count allocations and frees; `stats()` reads them. Compiled modules get
their own inlinable copies of incref/decref (`emit_incref`, `emit_decref`), which call the
shared `ember_nrt_free` on the slow path only.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from dataclasses import dataclass

from llvmlite import ir as llvm

HEADER_SIZE = 64
ALIGNMENT = 64

_i8 = llvm.IntType(8)
_i32 = llvm.IntType(32)
_i64 = llvm.IntType(64)
_ptr = llvm.PointerType()
_void = llvm.VoidType()

ALLOCATE = "ember_nrt_allocate"
FREE = "ember_nrt_free"
INCREF = "ember_nrt_incref"
DECREF = "ember_nrt_decref"
_ALLOCATIONS = "ember_nrt_allocations"
_FREES = "ember_nrt_frees"

_INLINE_INCREF = "ember.nrt.incref"
_INLINE_DECREF = "ember.nrt.decref"


# ---------------------------------------------------------------------------- IR builders


def _refcount_function(module: llvm.Module, name: str, linkage: str) -> tuple:
    """`void name(ptr meminfo)` (inlined everywhere when given a linkage): the function, a
    builder at its entry and the meminfo argument; NULL meminfos are for the caller to skip."""
    function = llvm.Function(module, llvm.FunctionType(_void, [_ptr]), name)
    if linkage:
        function.linkage = linkage
        function.attributes.add("alwaysinline")
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


def _destructor_slot(builder: llvm.IRBuilder, meminfo: llvm.Value) -> llvm.Value:
    offset = llvm.Constant(_i64, _DESTRUCTOR_OFFSET)
    return builder.gep(meminfo, [offset], inbounds=True, source_etype=_i8)


def _runtime_module() -> str:
    module = llvm.Module(name="ember_nrt")
    counters = {}
    for name in (_ALLOCATIONS, _FREES):
        counter = llvm.GlobalVariable(module, _i64, name)
        counter.initializer = llvm.Constant(_i64, 0)
        counter.align = 8
        counters[name] = counter
    aligned_alloc = _declare(module, "aligned_alloc", _ptr, [_i64, _i64])
    libc_free = _declare(module, "free", _void, [_ptr])

    allocate = llvm.Function(module, llvm.FunctionType(_ptr, [_i64]), ALLOCATE)
    builder = llvm.IRBuilder(allocate.append_basic_block("entry"))
    (size,) = allocate.args
    total = builder.add(size, llvm.Constant(_i64, HEADER_SIZE + ALIGNMENT - 1))
    total = builder.and_(total, llvm.Constant(_i64, -ALIGNMENT))
    too_big = builder.icmp_unsigned("<", total, size)  # wrapped around
    with builder.if_then(too_big, likely=False):
        builder.ret(llvm.Constant(_ptr, None))
    block = builder.call(aligned_alloc, [llvm.Constant(_i64, ALIGNMENT), total])
    failed = builder.icmp_unsigned("==", block, llvm.Constant(_ptr, None))
    with builder.if_then(failed, likely=False):
        builder.ret(llvm.Constant(_ptr, None))
    _advise_huge_pages(module, builder, block, total)
    builder.atomic_rmw("add", counters[_ALLOCATIONS], llvm.Constant(_i64, 1), "monotonic")
    builder.store(llvm.Constant(_i64, 1), block)
    data = builder.gep(block, [llvm.Constant(_i64, HEADER_SIZE)], source_etype=_i8)
    builder.store(data, builder.gep(block, [llvm.Constant(_i64, 8)], source_etype=_i8))
    builder.store(size, builder.gep(block, [llvm.Constant(_i64, 16)], source_etype=_i8))
    builder.store(llvm.Constant(_ptr, None), _destructor_slot(builder, block))
    builder.ret(block)

    free = llvm.Function(module, llvm.FunctionType(_void, [_ptr]), FREE)
    builder = llvm.IRBuilder(free.append_basic_block("entry"))
    # Loaded as a typed pointer, which tells llvmlite the type of the indirect call.
    destructor_pointer = _DESTRUCTOR_TYPE.as_pointer()
    destructor = builder.load(_destructor_slot(builder, free.args[0]), typ=destructor_pointer)
    with builder.if_then(
        builder.not_(
            builder.icmp_unsigned("==", destructor, llvm.Constant(destructor_pointer, None))
        )
    ):
        builder.call(destructor, [free.args[0]])
    builder.atomic_rmw("add", counters[_FREES], llvm.Constant(_i64, 1), "monotonic")
    builder.call(libc_free, [free.args[0]])
    builder.ret_void()

    _define_incref(module, INCREF)
    _define_decref(module, DECREF)
    return str(module)


# ---------------------------------------------------------------------------- the runtime


class _Runtime:
    """The compiled runtime: symbol addresses and ctypes entry points."""

    def __init__(self) -> None:
        import llvmlite.binding as llvm_binding

        from ember.codegen.jit import engine

        jit = engine()
        module = jit.parse(_runtime_module())
        module.verify()
        jit.optimize(module)
        jit.add_module(module)
        self.addresses = {}
        for name in (ALLOCATE, FREE, INCREF, DECREF):
            address = jit.address_of(name)
            llvm_binding.add_symbol(name, address)
            self.addresses[name] = address
        self._allocations = ctypes.c_int64.from_address(
            jit.engine.get_global_value_address(_ALLOCATIONS)
        )
        self._frees = ctypes.c_int64.from_address(jit.engine.get_global_value_address(_FREES))
        unary = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        self.incref = unary(self.addresses[INCREF])
        self.decref = unary(self.addresses[DECREF])
        self.allocate = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64)(self.addresses[ALLOCATE])

    def counts(self) -> tuple[int, int]:
        return self._allocations.value, self._frees.value


_runtime: _Runtime | None = None
_runtime_lock = threading.Lock()


def runtime() -> _Runtime:
    """The process-wide runtime, compiled on first use."""
    global _runtime
    if _runtime is None:
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


def stats() -> RuntimeStats:
    """How many blocks compiled code has allocated and freed so far."""
    return RuntimeStats(*runtime().counts())


def refcount(meminfo: int) -> int:
    """The current reference count of a meminfo (for tests and debugging)."""
    return ctypes.c_int64.from_address(meminfo).value


def data_address(meminfo: int) -> int:
    return ctypes.c_void_p.from_address(meminfo + 8).value or 0


# ---------------------------------------------------------------------------- code emission


def _inline(module: llvm.Module, name: str, define) -> llvm.Function:
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return define(module, name, "internal")


def emit_incref(builder: llvm.IRBuilder, meminfo: llvm.Value) -> None:
    """`incref(meminfo)` in the current function (inlined; NULL is a no-op)."""
    runtime()
    builder.call(_inline(builder.module, _INLINE_INCREF, _define_incref), [meminfo])


def emit_decref(builder: llvm.IRBuilder, meminfo: llvm.Value) -> None:
    """`decref(meminfo)`: frees the block when the last reference goes (NULL is a no-op)."""
    runtime()
    builder.call(_inline(builder.module, _INLINE_DECREF, _define_decref), [meminfo])


def emit_allocate(builder: llvm.IRBuilder, size: llvm.Value) -> llvm.Value:
    """A new meminfo of `size` data bytes (refcount 1), or NULL when out of memory."""
    runtime()
    return builder.call(_declare(builder.module, ALLOCATE, _ptr, [_i64]), [size])


def emit_set_destructor(
    builder: llvm.IRBuilder, meminfo: llvm.Value, destructor: llvm.Function
) -> None:
    """Run `destructor(meminfo)` when the block's last reference goes, before it is freed."""
    builder.store(destructor, _destructor_slot(builder, meminfo))


def emit_data_pointer(builder: llvm.IRBuilder, meminfo: llvm.Value) -> llvm.Value:
    """The data pointer of a meminfo made by `emit_allocate`."""
    return builder.gep(meminfo, [llvm.Constant(_i64, HEADER_SIZE)], inbounds=True, source_etype=_i8)
