"""prange loops under parallel=True: every function runs three ways (CPython, njit,
njit(parallel=True)) with equal results; parfor counts and the reasons loops stay serial."""

import numpy as np
import pytest
from parallel_helpers import parfor_count, serial_reasons, three_ways

import ember
from ember import njit, prange

rng = np.random.default_rng(12)
VECTOR = rng.random(1003)
MATRIX = rng.random((37, 13))
INTS = rng.integers(0, 1000, 555)


# ---------------------------------------------------------------------------- reductions


def sum_of(a):
    s = 0.0
    for i in prange(len(a)):
        s += a[i]
    return s


def five_reductions(a):
    s, p, hi, lo, count = 0.0, 1.0, -np.inf, np.inf, 0
    for i in prange(len(a)):
        s += a[i]
        p *= 1.0 + a[i] / 1000
        hi = max(hi, a[i])
        lo = min(a[i], lo)
        if a[i] > 0.5:
            count += 1
    return s, p, hi, lo, count


def bit_reductions(x):
    any_bits, all_bits, parity = 0, -1, 0
    for i in prange(len(x)):
        any_bits |= x[i]
        all_bits &= x[i] | 1
        parity ^= x[i]
    return any_bits, all_bits, parity


def subtract_from_start(a):
    s = 10.0
    t = 5
    for i in prange(3, len(a) - 2):
        s -= a[i]
        t *= 1
    return s, t


def written_out_reduction(a):
    s = 0.0
    for i in prange(len(a)):
        s = s + a[i] * i
    return s


def bool_reductions(a):
    seen, every = False, True
    for i in prange(len(a)):
        seen |= a[i] > 0.99
        every &= a[i] >= 0.0
    return seen, every


def int_max(x):
    best = -(2**62)
    for i in prange(len(x)):
        best = max(best, x[i] * 3 - 7)
    return best


@pytest.mark.parametrize(
    "fn, data, exact",
    [
        (sum_of, VECTOR, False),
        (five_reductions, VECTOR, False),
        (bit_reductions, INTS, True),
        (subtract_from_start, VECTOR, False),
        (written_out_reduction, VECTOR, False),
        (bool_reductions, VECTOR, True),
        (int_max, INTS, True),
    ],
)
def test_scalar_reductions_run_as_one_parfor(fn, data, exact):
    parallel = three_ways(fn, data, exact=exact)
    assert parfor_count(parallel) == 1


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 1000])
def test_reductions_over_short_and_empty_ranges(n):
    parallel = three_ways(five_reductions, VECTOR[:n])
    assert parfor_count(parallel) == 1


def rows_summed_inplace(m):
    acc = np.zeros(m.shape[1])
    for i in prange(m.shape[0]):
        acc += m[i]
    return acc


def rows_summed_new(m):
    acc = np.ones(m.shape[1])
    for i in prange(m.shape[0]):
        acc = acc + m[i] * 2
    return acc


def rows_multiplied(m):
    acc = np.full(m.shape[1], 2.0)
    for i in prange(m.shape[0]):
        acc *= 1.0 + m[i] / 10
    return acc


@pytest.mark.parametrize("fn", [rows_summed_inplace, rows_summed_new, rows_multiplied])
def test_array_valued_reductions(fn):
    parallel = three_ways(fn, MATRIX)
    assert parfor_count(parallel) == 1


def test_array_reduction_of_an_argument_updates_it_in_place():
    def accumulate(acc, m):
        for i in prange(m.shape[0]):
            acc += m[i]
        return acc

    parallel = njit(parallel=True)(accumulate)
    acc = np.zeros(MATRIX.shape[1])
    result = parallel(acc, MATRIX)
    np.testing.assert_allclose(acc, MATRIX.sum(axis=0), rtol=1e-12)
    assert result is acc or np.shares_memory(result, acc)


# ---------------------------------------------------------------------------- loop shapes


def scaled_rows(m):
    out = np.empty_like(m)
    for i in prange(m.shape[0]):
        for j in range(m.shape[1]):
            out[i, j] = m[i, j] * 2 + i
    return out


def nested_pranges(m):
    out = np.zeros(m.shape)
    for i in prange(m.shape[0]):
        for j in prange(m.shape[1]):
            out[i, j] = m[i, j] + j
    return out


def column_writes(m):
    out = np.zeros((m.shape[1], m.shape[0]))
    for j in prange(m.shape[0]):
        out[:, j] = m[j] * 3
    return out


def row_view_writes(m):
    out = np.zeros_like(m)
    for i in prange(m.shape[0]):
        row = out[i]
        for j in range(m.shape[1]):
            row[j] = m[i, j] - 1
    return out


def private_temporaries(m):
    out = np.zeros(m.shape[0])
    for i in prange(m.shape[0]):
        tmp = np.empty(m.shape[1])
        for j in range(m.shape[1]):
            tmp[j] = m[i, j] ** 2
        out[i] = tmp.sum()
    return out


def stepped_backwards(a):
    s = 0.0
    for i in prange(len(a) - 1, -1, -3):
        s += a[i] * i
    return s


def negative_start(a):
    s = 0.0
    for i in prange(-5, 5):
        s += a[i] * i
    return s


def start_and_stop(a):
    out = np.zeros_like(a)
    for i in prange(4, len(a) - 4):
        out[i] = a[i - 4] + a[i + 4]
    return out


def continue_inside(a):
    out = np.zeros_like(a)
    for i in prange(len(a)):
        if i % 3 == 0:
            continue
        out[i] = a[i] * 2
    return out


@njit
def _squared(x):
    return x * x


def calls_jitted_function(a):
    s = 0.0
    for i in prange(len(a)):
        s += _squared(a[i])
    return s


@pytest.mark.parametrize(
    "fn, data",
    [
        (scaled_rows, MATRIX),
        (nested_pranges, MATRIX),
        (column_writes, MATRIX),
        (row_view_writes, MATRIX),
        (private_temporaries, MATRIX),
        (stepped_backwards, VECTOR),
        (negative_start, VECTOR),
        (start_and_stop, VECTOR),
        (continue_inside, VECTOR),
        (calls_jitted_function, VECTOR),
    ],
)
def test_loop_shapes_become_one_parfor(fn, data):
    parallel = three_ways(fn, data)
    assert parfor_count(parallel) == 1  # a nested prange runs serially inside the outer one


def test_prange_inside_a_serial_loop_is_parallel():
    def repeated(m, times):
        total = 0.0
        for _ in range(times):
            for i in prange(m.shape[0]):
                total += m[i, 0]
        return total

    parallel = three_ways(repeated, MATRIX, 5)
    assert parfor_count(parallel) == 1


def test_two_loops_are_two_parfors():
    def two(a):
        b = np.empty_like(a)
        for i in prange(len(a)):
            b[i] = a[i] * 2
        s = 0.0
        for i in prange(len(b)):
            s += b[i]
        return s

    parallel = three_ways(two, VECTOR)
    assert parfor_count(parallel) == 2


def test_thread_id_inside_a_parfor_is_within_the_team():
    @njit(parallel=True)
    def thread_ids(n):
        out = np.zeros(n, dtype=np.int64)
        for i in prange(n):
            out[i] = ember.get_thread_id()
        return out

    ids = thread_ids(100)
    assert ids.min() == 0 and ids.max() < ember.get_num_threads()
    assert np.all(np.diff(ids) >= 0)  # a static schedule: chunks in order


# ---------------------------------------------------------------------------- legality


def prefix_dependence(a):
    b = a.copy()
    for i in prange(1, len(b)):
        b[i] = b[i - 1] + 1.0
    return b


def decaying_sum(a):
    t = 0.0
    for i in prange(len(a)):
        t = t * 0.5 + a[i]  # reads the previous iteration's t: not a reduction
    return t


def early_exit(a):
    s = 0.0
    for i in prange(len(a)):
        if a[i] > 0.9:
            break
        s += a[i]
    return s


def reads_its_reduction(a):
    s = 0.0
    for i in prange(len(a)):
        s += a[i] + s * 0.001
    return s


def floor_divides(a):
    acc = 10000
    for _i in prange(4):
        acc //= 2
    return acc


def mixed_operators(a):
    s = 1.0
    for i in prange(len(a)):
        s += a[i]
        s *= 1.0001
    return s


def reduced_and_written(a):
    b = np.zeros(3)
    for i in prange(len(a)):
        b += a[i]
        b[0] = b[1]
    return b


def same_element_written(a):
    b = np.zeros(3)
    for i in prange(len(a)):
        b[0] = a[i]
    return b


def list_append(n):
    out = [0]
    for i in prange(n):
        out.append(i)
    return len(out)


@pytest.mark.parametrize(
    "fn, data, reason",
    [
        (prefix_dependence, VECTOR, "cross-iteration dependence"),
        (decaying_sum, VECTOR, "is not a reduction"),
        (early_exit, VECTOR, "leave the loop early"),
        (reads_its_reduction, VECTOR, "also reads it"),
        (floor_divides, VECTOR, "is not a reduction"),
        (mixed_operators, VECTOR, "different operators"),
        (reduced_and_written, VECTOR, "also reads it"),
        (same_element_written, VECTOR, "does not hold the loop index"),
        (list_append, 20, "may be modified"),
    ],
)
def test_dependent_loops_stay_serial_and_say_why(fn, data, reason):
    parallel = three_ways(fn, data, exact=True)
    assert parfor_count(parallel) == 0
    (found,) = serial_reasons(parallel)
    assert reason in found


def test_callee_that_writes_its_argument_keeps_the_loop_serial():
    @njit
    def bump(arr, k):
        arr[0] += k

    def calls_writer(a):
        for _i in prange(len(a)):
            bump(a, 1.0)
        return a

    bump(np.zeros(2), 1.0)  # compiled, so the parallel pass can see that it writes
    parallel = three_ways(calls_writer, VECTOR.copy())
    assert parfor_count(parallel) == 0


# ---------------------------------------------------------------------------- exceptions and memory


def test_exception_inside_a_parfor_reaches_the_caller():
    @njit(parallel=True)
    def checked(a):
        s = 0.0
        for i in prange(len(a)):
            if a[i] < 0:
                raise ValueError("negative item")
            s += a[i]
        return s

    a = np.arange(100.0)
    assert checked(a) == a.sum()
    a[77] = -1.0
    with pytest.raises(ValueError, match="negative item"):
        checked(a)


def test_arrays_allocated_inside_are_freed_also_when_raising():
    @njit(parallel=True)
    def doubled_rows(m):
        acc = np.zeros(m.shape[1])
        for i in prange(m.shape[0]):
            t = m[i] * 2
            if t[0] > 100:
                raise ValueError("too big")
            acc += t
        return acc

    m = rng.random((50, 4))
    doubled_rows(m)
    before = ember.runtime.stats()
    for _ in range(5):
        np.testing.assert_allclose(doubled_rows(m), (m * 2).sum(axis=0), rtol=1e-12)
    m[40, 0] = 1000.0
    with pytest.raises(ValueError, match="too big"):
        doubled_rows(m)
    after = ember.runtime.stats()
    assert after.live - before.live == 0


def test_error_model_applies_inside_parfors():
    def divide(a, b):
        out = np.empty_like(a)
        for i in prange(len(a)):
            out[i] = a[i] // b[i]
        return out

    a, b = np.ones(10), np.zeros(10)
    with pytest.raises(ZeroDivisionError):
        njit(parallel=True)(divide)(a, b)
    got = njit(parallel=True, error_model="numpy")(divide)(a, b)
    assert np.all(np.isinf(got))


def start_from_a_constant_variable(a):
    first = 0  # a constant start >= 0: the body's loop has one copy
    out = np.zeros_like(a)
    for i in prange(first, len(a)):
        out[i] = a[i] * 2.0 + a[i - 1]
    return out


def start_from_an_argument(a, first):
    s = 0.0
    for i in prange(first, 7):  # may be negative: a[i] wraps around
        s += a[i] * (i + 10)
    return s


def test_constant_and_argument_starts_three_ways():
    parallel = three_ways(start_from_a_constant_variable, VECTOR, exact=True)
    assert parfor_count(parallel) == 1
    for first in (-9, -1, 0, 3):
        parallel = three_ways(start_from_an_argument, VECTOR, first)
    assert parfor_count(parallel) == 1
