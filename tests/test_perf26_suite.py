"""perf26: integer extremum updates left to LLVM's smax/smin (ember/rewrites/loop_branches.py),
and runtime-unrolled loops; results are compared with CPython running the same functions on
many inputs, corner cases included (empty, one element, negatives, the ends of each integer
type, trip counts around every unroll remainder)."""

import re
import sys
from pathlib import Path

import numpy as np

import ember

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "corpus"))
from kernels_wild6 import longest_common_substring as _longest_common_run  # noqa: E402


def _int_max_and_min(a):
    hi = -(2**63)
    lo = 2**63 - 1
    for i in range(a.shape[0]):
        if a[i] > hi:
            hi = a[i]
    for i in range(a.shape[0]):
        if a[i] < lo:
            lo = a[i]
    return hi, lo


def _max_of_positive(a):
    best = 0
    for x in a:
        if x > 0:
            if x >= best:
                best = x
    return best


def _max_and_where(a):
    best = a[0]
    where = 0
    for i in range(a.shape[0]):
        if a[i] > best:
            best = a[i]
            where = i
    return best, where


def _max_by_step(a, step):
    best = -(2**63)
    for i in range(0, a.shape[0], step):
        if a[i] > best:
            best = a[i]
    return best


def _max_while(a):
    best = -(2**63)
    i = 0
    while i < a.shape[0]:
        if a[i] > best:
            best = a[i]
        i += 1
    return best


def _weights(function, *args) -> str:
    compiled = ember.njit(function)
    compiled(*args)
    (optimized,) = compiled.inspect_llvm().values()
    return optimized


_UNLIKELY = re.compile(r'"branch_weights", i32 (1, i32 1000|1000, i32 1)}')


def test_integer_extremum_updates_are_left_to_llvm_and_argmax_stays_marked():
    ints = np.arange(5)
    assert not _UNLIKELY.search(_weights(_int_max_and_min, ints))
    assert not _UNLIKELY.search(_weights(_longest_common_run, ints, ints))
    assert _UNLIKELY.search(_weights(_max_and_where, ints))  # updates an index too
    assert _UNLIKELY.search(_weights(_int_max_and_min, np.arange(5.0)))  # floats: kept
    assert not _UNLIKELY.search(_weights(_max_by_step, ints, 2))  # any step: a counted loop
    assert _UNLIKELY.search(_weights(_max_while, ints))  # a while loop: kept


def test_longest_common_run_matches_python():
    compiled = ember.njit(_longest_common_run)
    rng = np.random.default_rng(26)
    for n, m, symbols in [(0, 0, 2), (0, 5, 2), (1, 1, 1), (7, 3, 2), (40, 33, 3), (90, 120, 4)]:
        a, b = rng.integers(0, symbols, n), rng.integers(0, symbols, m)
        assert compiled(a, b) == _longest_common_run(a, b), (n, m)


def test_integer_extrema_of_every_integer_type_match_python():
    rng = np.random.default_rng(261)
    extremes, positive, where, by_step, in_while = (
        ember.njit(f)
        for f in (_int_max_and_min, _max_of_positive, _max_and_where, _max_by_step, _max_while)
    )
    for dtype in (np.int8, np.uint8, np.int32, np.int64):
        info = np.iinfo(dtype)
        for n in (0, 1, 2, 7, 8, 9, 31, 64, 65, 200):
            a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
            if n > 3:
                a[n // 2] = info.max
                a[n // 3] = info.min
            assert extremes(a) == _int_max_and_min(a), (dtype, n)
            assert positive(a) == _max_of_positive(a), (dtype, n)
            if n:
                assert where(a) == _max_and_where(a), (dtype, n)
            for step in (1, 2, 3, -1):
                assert by_step(a, step) == _max_by_step(a, step), (dtype, n, step)
            assert in_while(a) == _max_while(a), (dtype, n)


def _shifted_sums(a, b, start, stop, step):
    """Loops LLVM unrolls at run time: an elementwise update and a scalar recurrence."""
    total = 0.0
    for i in range(start, stop, step):
        b[i] = 3.0 * a[i] + b[i]
        total = total * 0.5 + a[i]
    return total


def _byte_gray(rgb, out):
    for i in range(rgb.shape[0]):
        for j in range(rgb.shape[1]):
            red, green, blue = int(rgb[i, j, 0]), int(rgb[i, j, 1]), int(rgb[i, j, 2])
            out[i, j] = (77 * red + 150 * green + 29 * blue) >> 8


def test_runtime_unrolled_loops_match_python_at_every_remainder():
    compiled = ember.njit(_shifted_sums)
    a = np.linspace(-3.0, 5.0, 40)
    for stop in range(0, 40):
        for start, step in ((0, 1), (3, 1), (1, 3), (stop - 1, -1)):
            if start < 0:
                continue
            b_ref, b_got = np.cos(a), np.cos(a)
            expected = _shifted_sums(a, b_ref, start, stop, step)
            assert compiled(a, b_got, start, stop, step) == expected, (start, stop, step)
            assert np.array_equal(b_got, b_ref)
    gray = ember.njit(_byte_gray)
    rng = np.random.default_rng(262)
    for rows, cols in ((0, 0), (1, 1), (3, 5), (4, 9), (2, 17)):
        rgb = rng.integers(0, 256, (rows, cols, 3), dtype=np.uint8)
        expected, got = np.zeros((rows, cols), np.uint8), np.zeros((rows, cols), np.uint8)
        _byte_gray(rgb, expected)
        gray(rgb, got)
        assert np.array_equal(got, expected)
