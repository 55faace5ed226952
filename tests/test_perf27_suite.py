"""perf27: range loops of any step are counted loops (ember/library/builtins/ranges.py
`loop_next`): the same values as CPython's range for every step, bound and direction, including
bounds at the int64 limits, and the loop variable after the loop keeps its last value."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from ember import njit

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def walk(start, stop, step):
    """(count, xor of the values, first, last, the loop variable after the loop)."""
    count = 0
    mixed = 0
    first = -7
    i = -9
    for i in range(start, stop, step):
        if count == 0:
            first = i
        count += 1
        mixed ^= i
    last = i if count else -8
    return count, mixed, first, last, i


def python_length(start, stop, step) -> int:
    return max(0, (stop - start + step - (1 if step > 0 else -1)) // step)


BOUNDS = sorted(
    {INT64_MIN, INT64_MIN + 1, INT64_MIN + 2, -(2**62), -5, -1, 0, 1, 2, 3, 10, 17}
    | {2**62, INT64_MAX - 2, INT64_MAX - 1, INT64_MAX}
)
STEPS = sorted(
    {INT64_MIN, INT64_MIN + 1, -(2**62), -(2**61), -7, -3, -2, -1, 1, 2, 3, 5}
    | {2**61, 2**62, INT64_MAX - 1, INT64_MAX}
)


def test_every_step_and_bound_as_cpython():
    """Positive, negative and huge steps, empty ranges, bounds at the int64 limits (the step
    past the last value would overflow: it must not matter)."""
    compiled = njit(walk)
    checked = 0
    for start in BOUNDS:
        for stop in BOUNDS:
            for step in STEPS:
                if python_length(start, stop, step) > 40:
                    continue
                assert compiled(start, stop, step) == walk(start, stop, step), (start, stop, step)
                checked += 1
    assert checked > 1500


def test_long_ranges_count_and_end_as_cpython():
    compiled = njit(walk)
    for start, stop, step in [
        (0, 100_000, 3),
        (99_999, -1, -7),
        (-50_000, 50_000, 13),
        (INT64_MAX - 300_000, INT64_MAX, 11),
        (INT64_MIN + 300_000, INT64_MIN, -11),
        (5, 1_000, 1),
        (1_000, 5, -1),
    ]:
        assert compiled(start, stop, step) == walk(start, stop, step)


def test_zero_step_raises_before_the_loop():
    compiled = njit(walk)
    with pytest.raises(ValueError, match="must not be zero"):
        compiled(0, 10, 0)
    with pytest.raises(ValueError, match="must not be zero"):
        walk(0, 10, 0)


def constant_steps(n):
    """Constant steps other than 1 (a counted loop each) and the unit step (its own form),
    nested, with break and continue, and the loop variables read after the loops."""
    total = 0
    j = -1
    k = -1
    for i in range(n - 1, -1, -1):
        for j in range(i, n, 3):
            if j % 5 == 4:
                continue
            total += j * (i + 1)
        for k in range(0, i, 2):
            if k > 7:
                break
            total -= k
    return total, i if n > 0 else -2, j, k


def test_constant_steps_nested_as_cpython():
    compiled = njit(constant_steps)
    for n in range(0, 30):
        assert compiled(n) == constant_steps(n), n


def unsigned_walk(start, stop, step):
    count = 0
    total = np.uint64(0)
    for i in range(start, stop, step):
        count += 1
        total += i
    return count, total


def test_unsigned_ranges_as_cpython():
    compiled = njit(unsigned_walk)
    top = 2**64 - 1
    for start, stop, step in [
        (0, 10, 3),
        (top - 10, top, 4),
        (top - 10, top, 2**63),
        (0, top, 2**63 + 5),
        (5, 5, 2),
        (7, 3, 2),
    ]:
        args = tuple(np.uint64(v) for v in (start, stop, step))
        count, total = compiled(*args)
        values = range(start, stop, step)
        assert count == len(values)
        assert int(total) == sum(values) % 2**64


def strided_peak(values, start, step):
    best = values[0]
    for i in range(start, values.shape[0], step):
        if values[i] > best:
            best = values[i]
    return best


def test_strided_extremum_scan_as_python():
    """The scan LLVM now vectorizes (a max reduction, branch left unmarked) for every step."""
    compiled = njit(strided_peak)
    rng = np.random.default_rng(27)
    for n in (1, 2, 7, 64, 1000, 4099):
        values = rng.integers(-(10**12), 10**12, n)
        for start in (0, 1, n // 2):
            for step in (1, 2, 3, 8, 33, n, n + 1, -1, -3):
                assert compiled(values, start, step) == strided_peak(values, start, step)


def test_counted_range_loop_has_no_saturating_step():
    """The loop's exit is a count, not a saturating `next < stop` (no trip count for LLVM)."""
    compiled = njit(strided_peak)
    compiled(np.arange(10), 0, 3)
    (text,) = compiled.inspect_llvm().values()
    assert "sadd.sat" not in text


def strided_to_int(a, start, step, out):
    """A loop storing into the caller's array with a deferred int() check: it runs block by
    block (keep_items cuts its range iterator to a block's values)."""
    for i in range(start, a.shape[0], step):
        out[i] = int(a[i] * 4.0)
    return out


def strided_int_sum(a, start, step):
    """A loop that can run again from its entry (a replay) when a check fails."""
    total = 0
    for i in range(start, a.shape[0], step):
        total += int(a[i] * 2.0)
    return total


def _outcome(function, *args):
    try:
        return function(*args)
    except (ValueError, OverflowError) as error:
        return type(error), str(error)


def test_deferred_checks_over_strided_ranges_as_python():
    """Stores before the failing value are done, none after; the same exception; for steps
    that span several blocks of the blockwise loop."""
    to_int, int_sum = njit(strided_to_int), njit(strided_int_sum)
    n = 2_000
    for failing in (None, 0, 3, 769, 1_500, n - 1):
        for bad in (math.nan, math.inf, -math.inf):
            a = np.linspace(-3.0, 5.0, n)
            if failing is not None:
                a[failing] = bad
            for start, step in ((0, 1), (0, 3), (1, 2), (n - 1, -1), (n - 2, -3), (5, 7)):
                mine, theirs = np.full(n, 11), np.full(n, 11)
                expected = _outcome(strided_to_int, a, start, step, theirs)
                got = _outcome(to_int, a, start, step, mine)
                assert type(got) is type(expected) and (
                    isinstance(got, np.ndarray) or got == expected
                )
                np.testing.assert_array_equal(mine, theirs)
                expected_sum = _outcome(strided_int_sum, a, start, step)
                assert _outcome(int_sum, a, start, step) == expected_sum


# ------------------------------------------------------------------ SLP-packed loop counters


def _corpus_kernel(name: str):
    """A kernel of benchmarks/corpus, plain Python (its module loaded as the corpus does)."""
    corpus = str(Path(__file__).resolve().parents[1] / "benchmarks" / "corpus")
    if corpus not in sys.path:
        sys.path.insert(0, corpus)
    from _corpus import load

    return load("python")[name].func


def test_counters_are_not_packed_into_vectors():
    """Two counters of one loop stay scalar (slp_guard.packs_loop_counters turns SLP off for
    the module): no `<2 x i64>` phi in the optimized loop, and the counts are Python's."""
    field_stats = _corpus_kernel("csv_field_stats")
    compiled = njit(field_stats)
    rng = np.random.default_rng(5)
    alphabet = np.frombuffer(b"ab,\n", dtype=np.uint8)
    for n in (0, 1, 2, 5, 100, 10_001):
        buffer = alphabet[rng.integers(0, 4, n)]
        assert compiled(buffer) == field_stats(buffer)
    (text,) = compiled.inspect_llvm().values()
    assert "phi <2 x i64>" not in text


def test_packs_loop_counters_reads_the_pattern():
    from ember.codegen.slp_guard import packs_loop_counters

    packed = """
    loop:
      %1 = phi <2 x i64> [ zeroinitializer, %entry ], [ %3, %loop ]
      %2 = insertelement <2 x i64> <i64 poison, i64 1>, i64 %x, i64 0
      %3 = add <2 x i64> %1, %2
    """
    widened = """
    loop:
      %vec.phi = phi <8 x i64> [ zeroinitializer, %entry ], [ %3, %loop ]
      %wide = load <8 x i64>, ptr %p
      %3 = add <8 x i64> %vec.phi, %wide
      %s = insertelement <8 x i64> poison, i64 %x, i64 0
    """
    assert packs_loop_counters(packed)
    assert not packs_loop_counters(widened)


# ------------------------------------------------------------------ deferred checks with radians


def great_circle(lat1, lon1, lat2, lon2):
    n = lat1.shape[0]
    out = np.empty(n)
    for i in range(n):
        p1 = math.radians(lat1[i])
        p2 = math.radians(lat2[i])
        dl = math.radians(lon2[i] - lon1[i])
        a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
        out[i] = 2.0 * math.degrees(math.asin(math.sqrt(a)))
    return out


def test_radians_loops_defer_their_checks_and_raise_as_python():
    """math.radians / math.degrees cannot raise, so the loop defers its math checks (it runs
    again with them in place when one fails): the same values, the same exception."""
    compiled = njit(great_circle)
    rng = np.random.default_rng(9)
    n = 300
    coordinates = [rng.uniform(-90, 90, n), rng.uniform(-180, 180, n)] * 2
    np.testing.assert_allclose(compiled(*coordinates), great_circle(*coordinates), rtol=1e-12)
    for position in (0, 150, n - 1):
        for bad in (math.inf, -math.inf, math.nan):
            broken = [c.copy() for c in coordinates]
            broken[0][position] = bad
            expected = _outcome(great_circle, *broken)
            got = _outcome(compiled, *broken)
            if isinstance(expected, tuple):
                assert got == expected
            else:
                np.testing.assert_array_equal(got, expected)
    (text,) = compiled.inspect_llvm().values()
    assert ".checked" in text  # (the copy with the checks in place, run after a failure)


# ------------------------------------------------------------------ libm calls without errno


def asin_checked_only(x):
    math.asin(x)  # (the result unused: only its ValueError matters)
    return x


def great_circle_into(lat1, lon1, lat2, lon2, out):
    for i in range(lat1.shape[0]):
        a = math.sin((lat2[i] - lat1[i]) / 2) ** 2 + math.cos(lat1[i]) * math.cos(lat2[i]) * (
            math.sin((lon2[i] - lon1[i]) / 2) ** 2
        )
        out[i] = math.asin(math.sqrt(a)) + math.atan(a) + math.tanh(a)
    return out


def test_libm_calls_whose_result_goes_unused_are_dropped():
    """A libm call (not an LLVM intrinsic) reads and writes no memory (compiled code never
    reads errno): LLVM drops it when its result is unused; Python's errors stay."""
    compiled = njit(asin_checked_only)
    assert compiled(0.5) == 0.5
    with pytest.raises(ValueError, match="math domain error"):
        compiled(2.0)
    (text,) = compiled.inspect_llvm().values()
    assert "call double @asin" not in text


def test_blockwise_loop_with_libm_calls_as_python():
    """A loop storing into the caller's array runs block by block; its unchecked copy only
    copies the buffered results (no libm call left alive there): values and errors as Python."""
    compiled = njit(great_circle_into)
    rng = np.random.default_rng(11)
    n = 700
    coordinates = [rng.uniform(-1.5, 1.5, n), rng.uniform(-3.0, 3.0, n)] * 2
    for position in (None, 0, 300, n - 1):
        broken = [c.copy() for c in coordinates]
        if position is not None:
            broken[0][position] = math.inf
        mine, theirs = np.full(n, 7.0), np.full(n, 7.0)
        expected = _outcome(great_circle_into, *broken, theirs)
        got = _outcome(compiled, *broken, mine)
        assert type(got) is type(expected)
        if isinstance(expected, tuple):
            assert got == expected
        np.testing.assert_allclose(mine, theirs, rtol=1e-13)
    (text,) = compiled.inspect_llvm().values()
    assert "blockwise" in text
