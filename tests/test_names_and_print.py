"""The names Numba programs import from the top-level package, signatures built from them, and
`print()` inside compiled code (compared with CPython's output of the same function)."""

import numpy as np
import pytest

import ember
from ember import TypingError, njit

NUMBA_TYPE_NAMES = {  # name -> the NumPy dtype it stands for
    "b1": "bool", "bool_": "bool", "boolean": "bool", "byte": "uint8", "char": "int8",
    "uchar": "uint8", "short": "int16", "ushort": "uint16", "intc": "int32", "uintc": "uint32",
    "int_": "int64", "uint": "uint64", "long_": "int64", "ulong": "uint64", "longlong": "int64",
    "ulonglong": "uint64", "intp": "intp", "uintp": "uintp", "ssize_t": "intp", "size_t": "uintp",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16",
    "u4": "uint32", "u8": "uint64", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
    "uint64": "uint64", "f4": "float32", "f8": "float64", "float32": "float32",
    "float64": "float64", "double": "float64", "c8": "complex64", "c16": "complex128",
    "complex64": "complex64", "complex128": "complex128",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(NUMBA_TYPE_NAMES))
def test_type_names_match_numpy_dtypes(name):
    assert ember.from_dtype(np.dtype(NUMBA_TYPE_NAMES[name])) is getattr(ember, name)
    assert name in ember.__all__


def test_signatures_built_from_imported_types():
    from ember import float32, float64, int64, void

    @njit(void(float64[:, :], int64))
    def scale_rows(m, k):
        for i in range(m.shape[0]):
            m[i, :] *= k

    @njit(float64[:](float64[:]))
    def doubled(a):
        return a * 2

    @njit(float64(float32, int64))
    def times(x, n):
        return x * n

    m = np.arange(6.0).reshape(2, 3)
    scale_rows(m, 3)
    np.testing.assert_array_equal(m, np.arange(6.0).reshape(2, 3) * 3)
    np.testing.assert_array_equal(doubled(np.array([1.5, -2.0])), [3.0, -4.0])
    assert times(1.5, 3) == 4.5
    assert times.signatures[0] == (float32, int64)


def test_prange_is_a_range_in_serial_code():
    from ember import prange

    @njit
    def total(n):
        s = 0
        for i in prange(n):
            s += i * i
        return s

    assert total(10) == total.py_func(10) == 285


def _printed(capsys, func, *args):
    func(*args)
    compiled = capsys.readouterr().out
    func.py_func(*args)
    return compiled, capsys.readouterr().out


def test_print_matches_cpython(capsys):
    @njit
    def show(n, x, a, flag):
        print(n, x, -x, flag, None, 1 + 2j)
        print("n =", n, (n, (x, flag)))
        print(a, a[1:].reshape((1, 2)), (a, n))
        print()
        print(n, x, sep=", ", end=" <\n")
        return n

    compiled, expected = _printed(capsys, show, 3, 2.5, np.arange(3.0), True)
    assert compiled == expected
    compiled, expected = _printed(capsys, show, -7, float("nan"), np.array([-1.0, 0.5, 1e300]), 0)
    assert compiled == expected


def test_print_in_a_loop_frees_its_arrays(capsys):
    from ember.runtime import stats

    @njit
    def show_rows(m):
        for i in range(m.shape[0]):
            row = m[i] * 2
            print(i, row)

    m = np.arange(6).reshape(3, 2)
    show_rows(m)
    capsys.readouterr()
    before = stats()
    show_rows(m)
    after = stats()
    assert after.alloc - before.alloc == after.free - before.free == 3
    compiled = capsys.readouterr().out
    show_rows.py_func(m)
    assert compiled == capsys.readouterr().out


def test_print_rejects_what_it_cannot_show():
    @njit
    def bad(x):
        print(x, file=None)

    with pytest.raises(TypingError, match="keyword 'file'"):
        bad(1)


def test_cache_true_without_a_source_file_says_it_cannot_cache():
    """Functions typed at `python -c` have no file for their cache entries: each says so once
    (at its first compilation) and still works (tests/caching/ covers the disk cache)."""
    import subprocess
    import sys

    program = (
        "import warnings\n"
        "warnings.simplefilter('always')\n"
        "from ember import njit\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    f = njit(cache=True)(lambda x: x + 1)\n"
        "    g = njit(cache=True)(lambda x: x - 1)\n"
        "    results = f(1), g(1), f(2), f(2.5)\n"
        "print(len(seen), *results, all('Cannot cache' in str(w.message) for w in seen))\n"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert out.stdout.split() == ["2", "2", "0", "3", "3.5", "True"], out.stderr


def test_register_jitable_functions_run_in_python_and_compiled_code():
    from ember.extending import register_jitable

    @register_jitable
    def clamp(x, low, high):
        return low if x < low else high if x > high else x

    @register_jitable(fastmath=True)
    def scaled(x, k=2.0):
        return clamp(x * k, -1.0, 1.0)

    @njit
    def total(a):
        s = 0.0
        for x in a:
            s += scaled(x) + scaled(x, k=0.5)
        return s

    values = np.linspace(-2, 2, 17)
    assert clamp(5, 0, 3) == 3  # still a plain Python function
    assert total(values) == total.py_func(values)
    assert clamp(2.5, 0.0, 1.0) == 1.0


def test_print_shows_lists_sets_and_dicts_as_python(capfd):
    import ember

    @ember.njit
    def show(n):
        xs = [i * 0.5 for i in range(n)]
        names = ["x", "yz"]
        table = {"a": 1, "b": 2}
        print("values", xs, {3}, table, names, [(1, 2.5)], len(xs))
        return n

    before = ember.runtime.stats().live
    show(3)
    compiled = capfd.readouterr().out
    show.py_func(3)
    assert compiled == capfd.readouterr().out
    assert ember.runtime.stats().live == before
