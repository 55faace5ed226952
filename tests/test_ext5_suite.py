"""Extension-author names and C interop found missing by Numba's own test modules: the
`numba.core.unsafe` / `numba.cpython.unsafe` intrinsics, `make_overload_template`, ctypes and
cffi functions as `types.ExternalFunctionPointer` (arguments, py_object callbacks), and the way
an extension's failing @overload surfaces."""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np
import pytest

import ember
from ember import errors, literally, njit, types
from ember.core.unsafe.bytes import memcpy_region
from ember.core.unsafe.refcount import dump_refcount
from ember.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from ember.cpython.unsafe.tuple import build_full_slice_tuple
from ember.errors import TypingError, UnsupportedError
from ember.extending import intrinsic, overload
from ember.np.unsafe.ndarray import empty_inferred, to_fixed_tuple
from ember.typing.templates import make_overload_template
from tests.oracle import assert_frees_all

# ------------------------------------------------------------------ build_full_slice_tuple


@njit
def full_slices(a, n):
    return a[build_full_slice_tuple(literally(n))]


@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 2)])
def test_full_slice_tuple_indexes_every_item_of_the_first_n_axes(shape):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    for n in range(1, len(shape) + 1):
        got = full_slices(a, n)
        np.testing.assert_array_equal(got, a[(slice(None),) * n])
        assert got.shape == a.shape
    with pytest.raises(TypingError, match="too many indices"):
        full_slices(a, len(shape) + 1)


def test_full_slice_tuple_of_a_constant_size_and_its_python_twin():
    @njit
    def none_and_two(a):
        return build_full_slice_tuple(0), a[build_full_slice_tuple(2)].sum()

    a = np.arange(6.0).reshape(2, 3)
    empty, total = none_and_two(a)
    assert empty == () and total == 15.0
    assert build_full_slice_tuple(3) == (slice(None),) * 3  # called from Python too


# ------------------------------------------------------------------ numba.core.unsafe


@njit
def copy_bytes(dst, dst_index, src, src_index, nbytes):
    memcpy_region(dst.ctypes.data, dst_index, src.ctypes.data, src_index, nbytes, 1)


@pytest.mark.parametrize(
    "dst_index, src_index, nbytes", [(4, 1, 5), (0, 0, 10), (9, 0, 1), (3, 3, 0), (0, 7, 3)]
)
def test_memcpy_region_copies_bytes_between_offsets(dst_index, src_index, nbytes):
    dst = np.zeros(10, dtype=np.int8)
    src = np.arange(10, 20, dtype=np.int8)
    expected = dst.copy()
    expected[dst_index : dst_index + nbytes] = src[src_index : src_index + nbytes]
    copy_bytes(dst, dst_index, src, src_index, nbytes)
    np.testing.assert_array_equal(dst, expected)


def test_memcpy_region_needs_addresses_and_a_constant_alignment():
    @njit
    def from_floats(x):
        memcpy_region(x, 0, x, 0, 1, 1)

    with pytest.raises(TypingError, match="between addresses"):
        from_floats(1.5)

    @njit
    def runtime_align(a, n):
        memcpy_region(a.ctypes.data, 0, a.ctypes.data, 0, 1, n)

    with pytest.raises(TypingError, match="constant integer"):
        runtime_align(np.zeros(2, np.int8), 1)


def test_dump_refcount_prints_the_type_and_each_array_count(capsys):
    @njit
    def dump(borrowed):
        owned = np.ones(3)
        dump_refcount(owned)
        dump_refcount((owned, borrowed, 7))
        return owned.sum()

    assert dump(np.zeros(2)) == 3.0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "dump refct of array(float64, 1d, C)",
        "  array 0: refct 1",  # made by the function, held once
        "dump refct of Tuple(array(float64, 1d, C), array(float64, 1d, C), int64)",
        "  array 0: refct 1",
        "  array 1: borrowed from Python",  # the caller's array has no meminfo
    ]
    assert_frees_all(dump, lambda: np.zeros(2), calls=20)


def test_empty_inferred_is_a_clear_unsupported_error():
    @njit
    def inferred():
        s = empty_inferred((3,))
        s[0] = 1.5
        return s

    with pytest.raises(UnsupportedError, match=r"np.empty\(shape, dtype\)"):
        inferred()


def test_to_fixed_tuple_of_a_2d_array_names_its_dimensions():
    @njit
    def first_two(a):
        return to_fixed_tuple(a, 2)

    assert first_two(np.array([4.0, 5.0, 6.0])) == (4.0, 5.0)
    with pytest.raises(TypingError, match="Not supported on array.ndim=2"):
        first_two(np.zeros((2, 2)))


# ------------------------------------------------------------------ bit counts: errors


lz = njit(lambda *x: leading_zeros(*x))
tz = njit(lambda *x: trailing_zeros(*x))


@pytest.mark.parametrize("value", [1, 2, 12, 2**40, 2**62 + 8, -1, -(2**63)])
def test_bit_counts_match_python_bit_arithmetic(value):
    unsigned = value & (2**64 - 1)
    assert lz(value) == 64 - unsigned.bit_length()
    assert tz(value) == (unsigned & -unsigned).bit_length() - 1


@pytest.mark.parametrize(
    "func, name", [(lz, "leading_zeros"), (tz, "trailing_zeros")], ids=["lz", "tz"]
)
def test_bit_count_errors_name_the_function(func, name):
    with pytest.raises(TypingError) as info:
        func(2.0)
    assert f"{name} is only defined for integers, but value passed was 'float64'." in str(
        info.value
    )
    with pytest.raises(TypingError, match=rf"{name}\(\) too many positional arguments"):
        func(1, 2)
    with pytest.raises(TypingError, match=rf"{name}\(\) missing a required argument: 'x'"):
        func()
    assert leading_zeros._name == "leading_zeros"


def test_intrinsic_called_with_the_wrong_arguments_says_which():
    @intrinsic
    def add_one(typingctx, x):
        sig = x(x)

        def codegen(context, builder, signature, args):
            return builder.add(args[0], args[0].type(1))

        return sig, codegen

    @njit
    def good(v):
        return add_one(v)

    @njit
    def bad(v):
        return add_one(v, v)

    assert good(41) == 42
    with pytest.raises(TypingError, match=r"add_one\(\) too many positional arguments"):
        bad(1)


# ------------------------------------------------------------------ templates and types


def test_make_overload_template_and_function_types_of_templates():
    def stub_a():
        pass

    def stub_b():
        pass

    def ol():
        pass

    first = make_overload_template(stub_a, ol, {}, True, "never")
    second = make_overload_template(stub_b, ol, {}, True, "never")
    assert first.key is stub_a and second.key is stub_b
    assert types.Function(first) is types.Function(stub_a)
    assert types.Function((first, first)) is types.Function(stub_a)
    with pytest.raises(ValueError, match="incompatible templates:"):
        types.Function((first, second))


def test_tuple_from_types_is_uniform_when_members_agree():
    assert types.Tuple.from_types([types.int64] * 3) is types.UniTuple(types.int64, 3)
    mixed = types.BaseTuple.from_types([types.int64, types.float64])
    assert isinstance(mixed, types.Tuple) and mixed.types == (types.int64, types.float64)
    assert str(types.ellipsis) == "..."


def test_format_msg_fills_arguments_but_keeps_final_braces():
    path = r"C:\\Users\\{fa977bf3}\\file.py"
    assert errors._format_msg("Error at {0}", (path,), {}) == f"Error at {path}"
    assert errors._format_msg("Pass {abc123}", (), {}) == "Pass {abc123}"
    assert errors._format_msg("{a}-{b}", (), {"a": 1, "b": 2}) == "1-2"


# ------------------------------------------------------------------ ctypes and cffi functions

_libm = ctypes.CDLL(ctypes.util.find_library("m"))
c_sin = _libm.sin
c_sin.argtypes, c_sin.restype = [ctypes.c_double], ctypes.c_double
c_cos = _libm.cos
c_cos.argtypes, c_cos.restype = [ctypes.c_double], ctypes.c_double
c_pow = _libm.pow
c_pow.argtypes, c_pow.restype = [ctypes.c_double, ctypes.c_double], ctypes.c_double


def test_typeof_a_ctypes_function_is_an_external_function_pointer_by_signature():
    ty_sin, ty_cos = ember.typeof(c_sin), ember.typeof(c_cos)
    assert isinstance(ty_sin, types.ExternalFunctionPointer)
    assert ty_sin is ty_cos  # one type per signature
    assert ty_sin.sig.args == (types.float64,) and ty_sin.sig.return_type is types.float64
    assert ty_sin.get_pointer(c_sin) == ctypes.cast(c_sin, ctypes.c_void_p).value
    assert ty_sin.get_pointer(c_sin) != ty_cos.get_pointer(c_cos)
    assert ember.typeof(c_pow) is not ty_sin
    from ember.core.typing import ctypes_utils  # Numba's path

    assert ctypes_utils.make_function_type(c_cos) is ty_sin
    assert ctypes_utils.is_ctypes_funcptr(c_cos) and not ctypes_utils.is_ctypes_funcptr(math.cos)


def test_ctypes_functions_as_arguments_share_one_specialization():
    @njit
    def apply_both(f, g, x):
        return f(x) - g(x)

    for f, g in [(c_sin, c_cos), (c_cos, c_sin), (c_sin, c_sin)]:
        for x in (0.0, 1.0, -2.5, 1e-300, math.pi):
            expected = (math.sin if f is c_sin else math.cos)(x) - (
                math.sin if g is c_sin else math.cos
            )(x)
            assert apply_both(f, g, x) == expected
    assert len(apply_both.overloads) == 1


def test_ctypes_function_of_two_arguments_as_argument_and_global():
    @njit
    def call(f, x, y):
        return f(x, y)

    @njit
    def call_global(x, y):
        return c_pow(x, y)

    for x, y in [(2.0, 10.0), (9.0, 0.5), (-2.0, 3.0), (0.0, 0.0)]:
        assert call(c_pow, x, y) == math.pow(x, y)
        assert call_global(x, y) == math.pow(x, y)


def test_py_object_callback_receives_the_boxed_value():
    seen = []

    def remember(obj):
        seen.append(obj)
        return len(obj)

    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object)(remember)

    @njit(nogil=True)
    def call(a, f):
        return callback(a) + f(a)

    arr = np.array([b"what", b"no"], dtype="S10")
    assert call(arr, callback) == 4
    assert len(seen) == 2
    np.testing.assert_array_equal(seen[0], arr)
    assert all(isinstance(s, np.ndarray) for s in seen)
    seen.clear()
    assert_frees_all(call, lambda: arr, lambda: callback, calls=10)


def test_a_c_function_returning_a_python_object_is_rejected():
    returns_object = ctypes.CFUNCTYPE(ctypes.py_object)(lambda: 1)
    with pytest.raises(TypingError, match="cannot pass"):
        ember.typeof(returns_object)


def test_void_pointer_result_stores_into_an_integer_array():
    @ctypes.CFUNCTYPE(ctypes.c_void_p)
    def address():
        return 0xDEADBEEF

    @njit((types.uintp[::1],))
    def store(a):
        ptr = address()
        a[0] = ptr
        return ptr

    a = np.zeros(2, dtype=np.uintp)
    assert store(a) == 0xDEADBEEF
    assert a.tolist() == [0xDEADBEEF, 0]


def test_array_of_the_wrong_dtype_names_the_c_function_type():
    copy = ctypes.CDLL(None).memcpy
    copy.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]
    copy.argtypes += [ctypes.c_size_t]
    copy.restype = ctypes.c_void_p

    @njit
    def duplicate(x):
        out = np.empty_like(x)
        copy(out.ctypes, x.ctypes, x.size * 8)
        return out

    x = np.array([1.5, -2.0, np.nan])
    np.testing.assert_array_equal(duplicate(x), x)
    with pytest.raises(TypingError, match="No implementation of function ExternalFunctionPointer"):
        duplicate(np.zeros(2, np.float32))


def test_cffi_functions_are_external_function_pointers_too():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    ffi.cdef("double sin(double); double cos(double);")
    lib = ffi.dlopen(ctypes.util.find_library("m"))
    ty_sin, ty_cos = ember.typeof(lib.sin), ember.typeof(lib.cos)
    assert isinstance(ty_sin, types.ExternalFunctionPointer) and ty_sin is ty_cos
    assert ty_sin is not ember.typeof(c_sin)  # another way to read the address
    assert ty_sin.get_pointer(lib.sin) == ember.typeof(c_sin).get_pointer(c_sin)

    @njit
    def call(f, x):
        return f(x)

    assert call(lib.sin, 0.5) == math.sin(0.5)
    assert call(lib.cos, 0.5) == math.cos(0.5)
    assert len(call.overloads) == 1


# ------------------------------------------------------------------ failing @overload


def _buggy(x):
    pass


@overload(_buggy)
def _buggy_overload(x):
    if isinstance(x, types.Integer):
        return x.not_an_attribute  # a bug: surfaces as the AttributeError it is
    if isinstance(x, types.Float):
        raise TypingError("floats are refused on purpose")
    return lambda x: x


def test_an_overload_bug_propagates_as_its_own_exception():
    with pytest.raises(AttributeError, match="not_an_attribute"):

        @njit("void(int64)")
        def with_int(x):
            _buggy(x)

    @njit
    def call(x):
        return _buggy(x)

    with pytest.raises(AttributeError, match="not_an_attribute"):
        call(3)
    with pytest.raises(TypingError, match="floats are refused on purpose"):
        call(1.5)
    assert call(True) is True


# ------------------------------------------------------------------ object-mode methods


class _Account:
    def __init__(self, balance):
        self.balance = balance
        self.history = []

    @ember.jit(forceobj=True)
    def deposit(self, amount):
        self.history.append(amount)  # object mode: any Python object works
        self.balance += amount
        return self.balance

    @ember.jit(nopython=False)
    def scaled(self, factor):
        return self.balance * factor


def test_object_mode_methods_bind_their_instance_as_python_methods():
    account = _Account(10)
    assert account.deposit(5) == 15 and account.deposit(-20) == -5
    assert account.history == [5, -20]
    method = account.deposit
    assert method.__self__ is account
    assert len(method.overloads) == 1 and method.py_func.__name__ == "deposit"
    assert _Account.__dict__["deposit"].__get__(None, _Account) is _Account.__dict__["deposit"]
    with pytest.warns(errors.NumbaWarning):
        assert account.scaled(3) == -15  # falls back to object mode, bound the same way
    assert account.scaled.__self__ is account


def test_an_intrinsic_refusing_is_named_with_its_source_line():
    @intrinsic
    def needs_vector(typingctx, arr):
        if arr.ndim != 1:
            raise errors.NumbaValueError("array.ndim must be 1")
        return types.intp(arr), lambda context, builder, sig, args: context.get_constant(
            types.intp, 1
        )

    @njit
    def call(a):
        return needs_vector(a)

    assert call(np.zeros(3)) == 1
    with pytest.raises(TypingError) as info:
        call(np.zeros((2, 2)))
    line = needs_vector._defn.__code__.co_firstlineno
    assert f"Intrinsic in function 'needs_vector': File: {__file__}: Line {line}." in str(
        info.value
    )
    assert "array.ndim must be 1" in str(info.value)


# ------------------------------------------------------------------ numba.core.runtime


def test_meminfo_alloc_owns_a_new_block_until_collected():
    import gc

    from ember.core.runtime import rtsys

    gc.collect()
    before = rtsys.get_allocation_stats()
    info = rtsys.meminfo_alloc(64, safe=True)
    assert info.refcount == 1 and info.data != 0
    ctypes.memset(info.data, 0x5A, 64)  # the block's 64 bytes are usable
    assert ctypes.string_at(info.data, 64) == b"\x5a" * 64
    middle = rtsys.get_allocation_stats()
    assert (middle.alloc - before.alloc, middle.free - before.free) == (1, 0)
    del info
    gc.collect()
    after = rtsys.get_allocation_stats()
    assert (after.alloc - before.alloc, after.free - before.free) == (1, 1)
    with pytest.raises(ValueError, match="Cannot allocate a negative number of bytes: -1."):
        rtsys.meminfo_alloc(-1)
    with pytest.raises(MemoryError, match=f"Requested allocation of {2**62} bytes failed."):
        rtsys.meminfo_alloc(2**62)
    filled = rtsys.meminfo_alloc(12, safe=True)  # Numba's debugging fill
    assert ctypes.string_at(filled.data, 12) == b"\xcb" * 12


def test_allocation_stats_can_be_switched_off_and_on():
    from ember.core.runtime import _nrt_python, rtsys

    assert _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_disable_stats()
    try:
        assert not _nrt_python.memsys_stats_enabled()
        with pytest.raises(RuntimeError, match="NRT stats are disabled"):
            rtsys.get_allocation_stats()
        with pytest.raises(RuntimeError, match="NRT stats are disabled"):
            _nrt_python.memsys_get_stats_mi_alloc()
    finally:
        _nrt_python.memsys_enable_stats()
    stats = rtsys.get_allocation_stats()
    assert _nrt_python.memsys_get_stats_alloc() == stats.alloc == ember.runtime.stats().alloc
    assert _nrt_python.memsys_get_stats_free() == stats.free == ember.runtime.stats().free


def test_numba_runtime_c_headers_are_a_clear_error():
    from ember.extending import include_path

    with pytest.raises(UnsupportedError, match="no C headers"):
        include_path()


def _objmode_total(items):
    return sum(len(str(item)) for item in items)  # str() of any object: object mode


_objmode_total_jit = ember.jit(forceobj=True)(_objmode_total)
_fallback_jit = ember.jit(nopython=False)(_objmode_total)


@pytest.mark.filterwarnings("ignore::ember.errors.NumbaWarning")  # the fallback's warning
def test_object_mode_and_fallback_dispatchers_pickle_by_value():
    import pickle

    items = [1, "abc", None, 2.5]
    expected = _objmode_total(items)
    for dispatcher in (_objmode_total_jit, _fallback_jit):
        assert dispatcher(items) == expected
        clone = pickle.loads(pickle.dumps(dispatcher))
        assert type(clone) is type(dispatcher) and clone is not dispatcher
        assert clone(items) == expected
        assert clone([]) == 0


# ------------------------------------------------------------------ cffi structs


_BIG_STRUCT = """
typedef struct _big_struct { int i1; float f2; double d3; float af4[9]; } big_struct;
typedef struct _error { int bits:4; } error;
typedef double (*myfunc)(big_struct*, size_t);
"""


def test_cffi_struct_with_an_array_member_maps_to_a_record():
    cffi = pytest.importorskip("cffi")
    from ember.core.typing import cffi_utils
    from ember.np.numpy_support import as_dtype

    ffi = cffi.FFI()
    ffi.cdef(_BIG_STRUCT)
    record = cffi_utils.map_type(ffi.typeof("big_struct"), use_record_dtype=True)
    assert isinstance(record, types.Record) and len(record) == 4
    assert record.typeof("af4") == types.NestedArray(types.float32, (9,))
    assert as_dtype(record.typeof("af4")) == np.dtype((np.float32, (9,)))
    assert record.size == ffi.sizeof("big_struct") and record.offset("af4") == ffi.offsetof(
        "big_struct", "af4"
    )
    sig = cffi_utils.map_type(ffi.typeof("myfunc"), use_record_dtype=True)
    assert sig.args == (types.CPointer(record), types.uintp) and sig.return_type is types.float64
    with pytest.raises(ValueError, match="field 'bits' has bitshift, this is not supported"):
        cffi_utils.map_type(ffi.typeof("error"), use_record_dtype=True)

    mydata = ffi.new("big_struct[3]")
    for i in range(3):
        mydata[i].i1, mydata[i].f2, mydata[i].d3 = i * 123, i * 213, (1 + i) * 213
        for j in range(9):
            mydata[i].af4[j] = i * 10 + j
    array = np.ndarray(buffer=ffi.buffer(mydata), dtype=as_dtype(record), shape=3)

    @njit
    def calc(base):
        total = 0.0
        for i in range(base.size):
            total += base[i].i1 * base[i].f2 / base[i].d3 + base[i].af4.sum()
        return total

    expected = sum(i * 123 * np.float32(i * 213) / ((1 + i) * 213) for i in range(3))
    expected += sum(i * 10 + j for i in range(3) for j in range(9))
    assert calc(array) == pytest.approx(expected, rel=1e-12)


def test_empty_set_argument_is_a_value_error_and_a_typing_error():
    @njit
    def size(s):
        return len(s)

    assert size({1.5, 2.5, -0.0}) == 3
    with pytest.raises(ValueError, match="cannot compute fingerprint of empty set") as raised:
        size(set())
    assert isinstance(raised.value, TypingError)


class _Scaler:
    """A callable object typed by a template its typeof hook names, never registered."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, x):
        return self.factor * x


_triple = _Scaler(3)


def test_a_function_type_of_an_unregistered_template_types_calls():
    from ember.extending import lower_builtin, typeof_impl
    from ember.typing.templates import AbstractTemplate, signature

    class TripleTemplate(AbstractTemplate):
        key = _triple

        def generic(self, args, kws):
            if len(args) == 1 and isinstance(args[0], types.Integer):
                return signature(types.int64, types.int64)
            return None

    @typeof_impl.register(_Scaler)
    def _typeof_scaler(value, c):
        return types.Function(TripleTemplate)

    @lower_builtin(_triple, types.int64)
    def _lower_triple(context, builder, sig, args):
        return builder.mul(args[0], args[0].type(_triple.factor))

    @njit
    def use(x):
        return _triple(x) + 1

    for x in (0, 7, -5, 2**40):
        assert use(x) == _triple(x) + 1
    with pytest.raises(TypingError):
        use(1.5)  # the template declines floats


class _Address:
    """An extension's own handle on a C function: only its address and signature."""

    def __init__(self, address):
        self.address = address


def test_an_extension_object_typed_as_an_external_function_pointer():
    from ember.extending import typeof_impl
    from ember.typing.signature import Signature

    def read_address(handle):
        return handle.address

    pointer_type = types.ExternalFunctionPointer(
        Signature(types.float64, (types.float64,)), read_address
    )

    @typeof_impl.register(_Address)
    def _typeof_address(value, c):
        return pointer_type

    sin_handle = _Address(ctypes.cast(c_sin, ctypes.c_void_p).value)
    cos_handle = _Address(ctypes.cast(c_cos, ctypes.c_void_p).value)

    @njit
    def call(f, x):
        return f(x)

    @njit
    def call_global(x):
        return sin_handle(x) * 2.0

    @njit
    def same(f):
        return f

    for x in (0.0, 0.25, -3.0):
        assert call(sin_handle, x) == math.sin(x)
        assert call(cos_handle, x) == math.cos(x)
        assert call_global(x) == math.sin(x) * 2.0
    assert len(call.overloads) == 1
    assert same(cos_handle) is cos_handle  # the object comes back to Python
    with pytest.raises(ValueError, match="must be a positive integer"):
        call(_Address(0), 1.0)


def test_contexts_refresh_after_late_registrations():
    from ember.core.registry import cpu_target
    from ember.extending import overload

    def late(x):
        return x

    @njit
    def use(x):
        return late(x)

    with pytest.raises(TypingError):
        use(2)

    @overload(late)
    def _late_overload(x):
        return lambda x: x * 10

    cpu_target.typing_context.refresh()  # Numba's spelling; ember reads registries live
    cpu_target.target_context.refresh()
    assert njit(use.py_func)(2) == 20  # (a failed signature stays failed, as in Numba)


def test_a_ctypes_function_is_typed_before_anything_was_compiled():
    """A fresh process: the first thing typed is a ctypes function (argument or typeof)."""
    import os
    import subprocess
    import sys

    program = (
        "import ctypes, ctypes.util, math, ember\n"
        "m = ctypes.CDLL(ctypes.util.find_library('m'))\n"
        "m.sin.argtypes, m.sin.restype = [ctypes.c_double], ctypes.c_double\n"
        "f = ember.njit(lambda fn, x: fn(x))\n"
        "assert f(m.sin, 0.5) == math.sin(0.5)\n"
        "print(ember.typeof(m.sin))\n"
    )
    root = os.path.dirname(os.path.dirname(ember.__file__))
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run(
        [sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ExternalFunctionPointer((float64) -> float64, cconv=None)"


def test_callbacks_made_per_call_are_freed_and_come_back_as_themselves():
    import gc
    import weakref

    @njit
    def call(f, x):
        return f(x)

    @njit
    def same(f):
        return f

    proto = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)
    alive = []
    for shift in range(20):
        callback = proto(lambda x, shift=shift: x * 2.0 + shift)
        assert call(callback, 1.5) == 3.0 + shift
        assert same(callback) is callback
        alive.append(weakref.ref(callback))
    del callback
    gc.collect()
    assert not any(ref() is not None for ref in alive)  # ember keeps none of them
    assert len(call.overloads) == 1
