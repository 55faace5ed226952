"""pkgs10b: Numba extension API used by third-party packages (numba-kdtree, galois, datashader):
C functions called by symbol name (`types.ExternalFunction`), the runtime's C API table
(`NRT_get_api()`) and owned meminfo pointers (`types.MemInfoPointer`)."""

from __future__ import annotations

import ctypes
import gc
from types import ModuleType

import llvmlite.binding as llvm_binding
import numpy as np
import pytest

import ember
from ember import njit, types
from ember.core.unsafe.nrt import NRT_get_api
from ember.experimental import structref
from ember.extending import intrinsic

# Numba's NRT_api_functions layout: allocate, allocate_external, manage_memory, acquire,
# release, get_data
_MANAGED_DTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _ApiTable(ctypes.Structure):
    _fields_ = [
        ("allocate", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t)),
        ("allocate_external", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)),
        ("manage_memory", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, _MANAGED_DTOR)),
        ("acquire", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
        ("release", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
        ("get_data", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)),
    ]


@njit
def _api_address():
    return NRT_get_api()


def _api() -> _ApiTable:
    return _ApiTable.from_address(_api_address())


def test_external_function_is_called_by_symbol_name():
    labs = types.ExternalFunction("labs", types.int64(types.int64))
    fabs = types.ExternalFunction("fabs", types.float64(types.float64))

    @njit
    def absolutes(values):
        total = 0
        for v in values:
            total += labs(v)
        return total, fabs(-2.5), labs(values[0])

    values = np.array([-(2**62), -7, 0, 3, -1, 2**40], dtype=np.int64)
    assert absolutes(values) == (sum(abs(int(v)) for v in values), 2.5, 2**62)
    assert labs.symbol == "labs" and labs.sig.args == (types.int64,)


def test_c_api_table_allocates_and_counts_references():
    api = _api()
    stats = ember.runtime.stats()
    block = api.allocate(24)
    data = api.get_data(block)
    ctypes.memmove(data, b"abcdefgh" * 3, 24)
    api.acquire(block)
    api.release(block)
    assert ember.runtime.stats().free == stats.free  # one reference left
    assert ctypes.string_at(api.get_data(block), 24) == b"abcdefgh" * 3
    other = api.allocate_external(8, None)  # served by ember's own allocator
    assert api.get_data(other)
    api.release(other)
    api.release(block)
    after = ember.runtime.stats()
    assert after.alloc - stats.alloc == 2 and after.free - stats.free == 2


# A "C library" made of ctypes callbacks published under symbol names: it wraps a value of its
# own in a meminfo through the C API, as C code built against Numba's runtime does.
_freed: list[int] = []
_buffers: dict[int, ctypes.Array] = {}


@_MANAGED_DTOR
def _free_buffer(address):
    _freed.append(ctypes.c_int64.from_address(address).value)
    del _buffers[address]


@ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
def _make_block(api_address, value):
    buffer = (ctypes.c_int64 * 1)(value)
    _buffers[ctypes.addressof(buffer)] = buffer
    return _ApiTable.from_address(api_address).manage_memory(ctypes.addressof(buffer), _free_buffer)


llvm_binding.add_symbol("pkgs10b_make_block", ctypes.cast(_make_block, ctypes.c_void_p).value)
_block_type = types.MemInfoPointer(types.voidptr)
_make = types.ExternalFunction("pkgs10b_make_block", _block_type(types.voidptr, types.int64))


@intrinsic
def _block_value(typingctx, block):
    def codegen(context, builder, signature, args):
        data = context.nrt.meminfo_data(builder, args[0])
        return builder.load(data, typ=context.get_value_type(types.int64))

    return types.int64(block), codegen


def test_meminfo_pointer_from_c_is_owned_and_released():
    @njit
    def wrapped_sum(values):
        total = 0
        for v in values:
            block = _make(NRT_get_api(), v)
            total += _block_value(block)
        return total

    values = [5, -3, 2**50, 0, 11]
    _freed.clear()
    assert wrapped_sum(values) == sum(values)
    assert _freed == values  # each block's destructor ran once, when its variable died
    assert not _buffers
    assert str(_block_type) == "memory-managed *void*" and _block_type.dtype is types.voidptr


@structref.register
class _HolderType(types.StructRef):
    pass


class _Holder(structref.StructRefProxy):
    pass


structref.define_proxy(_Holder, _HolderType, ["block", "scale"])


def test_meminfo_pointer_as_struct_field_lives_with_the_struct():
    @njit
    def make_holder(value, scale):
        return _Holder(_make(NRT_get_api(), value), scale)

    @njit
    def replace(holder, value):
        holder.block = _make(NRT_get_api(), value)  # the old block is released here

    @njit
    def read(holder):
        return _block_value(holder.block) * holder.scale

    _freed.clear()
    holder = make_holder(21, 2)
    assert read(holder) == 42 and _freed == []
    replace(holder, -4)
    assert _freed == [21] and read(holder) == -8
    del holder
    gc.collect()
    assert _freed == [21, -4] and not _buffers


_library = ModuleType("pkgs10b_library")
_library.labs = types.ExternalFunction("labs", types.int64(types.int64))
_library.table = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int64)
_library.pair = (np.arange(3.0), 2)


def test_module_attributes_lower_as_the_globals_they_are():
    @njit
    def lookups(indices):
        total = 0
        for i in indices:
            total += _library.labs(-_library.table[i]) + _library.pair[0][i % 3] * _library.pair[1]
        return total

    indices = np.array([0, 7, 3, 5, 5, 1], dtype=np.int64)
    expected = sum(abs(-int(_library.table[i])) + (i % 3) * 2.0 for i in indices)
    assert lookups(indices) == expected


def test_dufunc_compile_for_argtys_adds_loops_before_freezing():
    combine = ember.vectorize(lambda a, b: a * 2 + b)
    loop = combine._compile_for_argtys((types.uint32, types.uint32))
    assert loop.args == (types.uint32, types.uint32) and combine.types == ["II->l"]
    combine._compile_for_argtys((types.float64, types.float64), types.float64)
    assert combine._compile_for_argtys((types.float64, types.float64)).return_type == types.float64
    assert combine.types == ["II->l", "dd->d"]  # an existing loop is not compiled again
    combine._frozen = True
    a, b = np.array([0, 1, 2**31], dtype=np.uint32), np.array([7, 0, 5], dtype=np.uint32)
    assert combine(a, b).tolist() == [int(x) * 2 + int(y) for x, y in zip(a, b)]
    assert combine(np.array([1.5, -2.0]), np.array([0.25, 1.0])).tolist() == [3.25, -3.0]
    with pytest.raises(TypeError):
        combine(np.array(["a"]), np.array(["b"]))
    with pytest.raises(RuntimeError, match="compilation disabled"):
        combine._compile_for_argtys((types.int8, types.int8))
