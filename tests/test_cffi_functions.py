"""cffi functions called from compiled code (an ABI-mode library and a compiled out-of-line
module), passed as arguments, and `ffi.from_buffer` of arrays; checked against the same C
functions called from Python."""

import ctypes.util
import importlib
import math
import sys

import numpy as np
import pytest

from ember import njit, types
from ember.core.typing import cffi_utils
from ember.errors import TypingError

cffi = pytest.importorskip("cffi")

_DECLARATIONS = """
typedef struct _pair { double real; double imag; } pair;
bool is_positive(double x);
int combine(int a, int b, int c);
void scaled_sin(int n, double* x, double* y);
void halve_f32(int n, float* x);
void real_parts(pair* c, double* real, int n);
"""
_SOURCE = """
#include <math.h>
#include <stdbool.h>
typedef struct _pair { double real; double imag; } pair;
static bool is_positive(double x) { return x > 0; }
static int combine(int a, int b, int c) { return a + b * c; }
static void scaled_sin(int n, double* x, double* y) {
    for (int i = 0; i < n; i++) y[i] = 2.0 * sin(x[i]);
}
static void halve_f32(int n, float* x) { for (int i = 0; i < n; i++) x[i] = x[i] / 2; }
static void real_parts(pair* c, double* real, int n) {
    for (int i = 0; i < n; i++) real[i] = c[i].real;
}
"""


@pytest.fixture(scope="module")
def libm():
    ffi = cffi.FFI()
    ffi.cdef("double sin(double x); double cos(double x);")
    return ffi, ffi.dlopen(ctypes.util.find_library("m"))


@pytest.fixture(scope="module")
def ool(tmp_path_factory):
    """An out-of-line module compiled for these tests, registered as Numba's users do."""
    ffi = cffi.FFI()
    ffi.set_source("ember_cffi_testmod", _SOURCE)
    ffi.cdef(_DECLARATIONS)
    where = tmp_path_factory.mktemp("cffi")
    ffi.compile(tmpdir=str(where))
    sys.path.insert(0, str(where))
    try:
        module = importlib.import_module("ember_cffi_testmod")
    finally:
        sys.path.remove(str(where))
    cffi_utils.register_module(module)
    cffi_utils.register_type(module.ffi.typeof("pair"), types.complex128)
    return module


def test_abi_mode_functions_called_as_globals(libm):
    _, lib = libm
    sin, cos = lib.sin, lib.cos

    @njit
    def difference(x):
        return sin(x) - cos(x)

    for x in (-1.25, 0.0, 0.5, 3.0):
        assert difference(x) == math.sin(x) - math.cos(x)


def test_cffi_functions_as_arguments_share_one_specialization(libm, ool):
    _, lib = libm

    @njit
    def pick(fa, fb, x):
        return fa(x) if x > 0 else fb(x)

    for fa, fb in ((lib.sin, lib.cos), (lib.cos, lib.sin)):
        for x in (1.0, -1.0):
            assert pick(fa, fb, x) == (fa(x) if x > 0 else fb(x))
    assert len(pick.signatures) == 1


def test_out_of_line_functions(ool):
    combine, is_positive = ool.lib.combine, ool.lib.is_positive

    @njit
    def use(a, b, c, x):
        return combine(a, b, c), is_positive(x)

    for a, b, c, x in ((1, 2, 3, 0.5), (-4, 5, -6, -0.5), (0, 0, 0, 0.0)):
        assert use(a, b, c, x) == (combine(a, b, c), is_positive(x))


def test_from_buffer_passes_arrays_in_place(ool):
    ffi, scaled_sin, halve = ool.ffi, ool.lib.scaled_sin, ool.lib.halve_f32

    @njit
    def run(x, y, z):
        scaled_sin(len(x), ffi.from_buffer(x), ffi.from_buffer(y))
        halve(z.size, ffi.from_buffer(z))

    x = np.linspace(-3, 3, 11)
    y = np.zeros_like(x)
    z = np.arange(6, dtype=np.float32).reshape(2, 3)
    run(x, y, z)
    np.testing.assert_array_equal(y, 2.0 * np.sin(x))
    np.testing.assert_array_equal(z, np.arange(6, dtype=np.float32).reshape(2, 3) / 2)


def test_from_buffer_of_a_registered_struct_type(ool):
    ffi, real_parts = ool.ffi, ool.lib.real_parts

    @njit
    def reals(c, out):
        real_parts(ffi.from_buffer(c), ffi.from_buffer(out), len(c))

    c = np.arange(5) + 1j * np.arange(10, 15)
    out = np.zeros(5)
    reals(c, out)
    np.testing.assert_array_equal(out, c.real)


@pytest.mark.parametrize(
    "array, message",
    [
        (np.arange(10.0)[::2], "unsupported on non-contiguous buffers"),
        (np.asfortranarray(np.ones((2, 3))), "only supports multidimensional arrays with C layout"),
    ],
)
def test_from_buffer_refuses_memory_c_cannot_walk(ool, array, message):
    ffi, scaled_sin = ool.ffi, ool.lib.scaled_sin

    @njit
    def run(x, y):
        scaled_sin(x.size, ffi.from_buffer(x), ffi.from_buffer(y))

    with pytest.raises(TypingError, match=message):
        run(array, np.zeros(array.size))


def test_map_type_reads_c_declarations(ool):
    ffi = ool.ffi
    signature = cffi_utils.map_type(ffi.typeof(ool.lib.combine))
    assert signature.args == (types.intc, types.intc, types.intc)
    assert signature.return_type == types.intc
    assert cffi_utils.map_type(ffi.typeof("float *")) == types.CPointer(types.float32)
    assert cffi_utils.map_type(ffi.typeof("void *")) == types.voidptr
    assert cffi_utils.map_type(ffi.typeof("unsigned short")) == types.uint16
    record = cffi_utils.map_type(ffi.typeof("struct _pair"), use_record_dtype=False)
    assert record == types.complex128  # registered
    assert cffi_utils.is_cffi_func(ool.lib.combine) and not cffi_utils.is_cffi_func(math.sin)
    reader = cffi.FFI()
    reader.cdef("typedef struct { double a; int b; float c; } triple;")
    fields = cffi_utils.map_type(reader.typeof("triple"), use_record_dtype=True).fields
    assert [(name, fields[name][0], fields[name][1]) for name in ("a", "b", "c")] == [
        ("a", types.float64, 0),
        ("b", types.int32, 8),
        ("c", types.float32, 12),
    ]
