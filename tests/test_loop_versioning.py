"""Blockwise loops (ember/lowering/deferred_checks.py): a loop whose checked conversions are
stored into arrays the caller sees runs a block at a time -- a check pass, then the unchecked
body or, if a check failed, the checked one -- and leaves CPython's exception and CPython's
array contents: every iteration before the failing one stored, none after it."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.lowering.deferral_plan import BLOCK, BLOCK_BYTES, SHORT, items_per_block


def to_int(a, out):
    for i in range(a.size):
        out[i] = int(a[i] * 255.0)


def rounded(a, out):
    for i in range(a.shape[0]):
        out[i] = int(round(a[i] * 10.0))


def floored(a, out):
    for i in range(a.shape[0]):
        out[i] = int(math.floor(a[i] * 4.0))


def roots(a, out):
    for i in range(a.shape[0]):
        out[i] = math.sqrt(a[i]) * 2.0


def counted(a, out):
    """A scalar carried across blocks, read after the loop and returned."""
    total = 0
    for i in range(a.shape[0]):
        k = int(a[i] * 3.0)
        total += k
        out[i] = k
    return total


def compounded(a, out):
    """The checked value depends on a scalar carried from iteration to iteration."""
    x = 0.0
    for i in range(a.shape[0]):
        x = x * 0.5 + a[i]
        out[i] = int(x)
    return x


def stepped(a, out):
    """Backwards with a stride: the block's range state is cut and put back."""
    for i in range(a.shape[0] - 1, -1, -3):
        out[i] = int(a[i] * 2.0)


def divided(a, out):
    """A check that is not deferred (the division by zero) in the check pass."""
    for i in range(a.shape[0]):
        out[i] = int(a[i]) + 1.0 / (a[i] - 2.0)


def branchy(a, out):
    """Stores under a branch the check pass follows as the body does."""
    for i in range(a.shape[0]):
        if a[i] > 0.5:
            out[i] = int(a[i] * 8.0)
        else:
            out[i] = -int(a[i] * 2.0)


def two_loops(a, out):
    """Two blockwise loops in turn, the second storing what the first stored into `out`."""
    for i in range(a.shape[0]):
        out[i] = int(a[i] * 4.0)
    total = 0
    for i in range(a.shape[0]):
        total += round(a[i] * 2.0)
        a[i] = float(total)
    return total


def two_outputs(a, low, high):
    for i in range(a.shape[0]):
        low[i] = int(math.floor(a[i]))
        high[i] = int(math.ceil(a[i]))


def rows(m, out):
    """The inner loop, entered once per row, runs in blocks each time."""
    for r in range(m.shape[0]):
        for c in range(m.shape[1]):
            out[r, c] = int(m[r, c] * 255.0)


def doubled_in_place(a):
    """Reads what it stores (same array): keeps the checked path."""
    for i in range(a.shape[0]):
        a[i] = int(a[i] * 2.0)


def with_scratch(a, out):
    """An array of its own next to the caller's: freed when the loop raises."""
    scratch = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        k = int(a[i] * 2.0)
        scratch[i] = k
        out[i] = k
    return scratch.sum()


KERNELS = {
    to_int: np.int64,
    rounded: np.int64,
    floored: np.int32,
    roots: np.float64,
    counted: np.int64,
    compounded: np.int64,
    stepped: np.int64,
    divided: np.float64,
    branchy: np.int64,
    two_loops: np.int64,
}
COMPILED = {k: ember.njit(k) for k in [*KERNELS, two_outputs, rows, doubled_in_place, with_scratch]}
BAD = {roots: -1.0, divided: 2.0}  # their own failing value (besides NaN and infinities)


def outcome(func, *args):
    """(what it returned or raised, each array argument's contents afterwards)."""
    try:
        result = ("value", func(*args))
    except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
        result = (type(error), str(error))
    return result, [
        np.array(arg, dtype=float if arg.dtype == object else arg.dtype)
        for arg in args
        if isinstance(arg, np.ndarray)
    ]


def assert_same_as_python(kernel, a, *outs):
    """Run CPython's kernel (on Python floats read from `a`) and ember's on copies of the same
    arrays; compare what they return or raise and every array's contents afterwards."""
    python_floats = a.astype(object) if outs else np.copy(a)  # (in place: NumPy's stores)
    expected = outcome(kernel, python_floats, *map(np.copy, outs))
    got = outcome(COMPILED[kernel], np.copy(a), *map(np.copy, outs))
    assert got[0][0] == expected[0][0]
    if expected[0][0] == "value":
        assert got[0][1] == pytest.approx(expected[0][1])
    else:
        assert got[0][1] == expected[0][1]
    for got_array, expected_array in zip(got[1], expected[1]):
        np.testing.assert_array_equal(got_array, expected_array)
    return expected[0][0]


def sample(n: int, kernel=to_int) -> np.ndarray:
    """Values every kernel converts or roots without error (and stores into a uint8)."""
    return np.linspace(0.0, 1.0, n) if kernel is not divided else np.linspace(3.0, 9.0, n)


WIDE = items_per_block(8)  # a block of 8-byte items (int64, float64 outputs): fewer than BLOCK
SIZES = [0, 1, SHORT - 1, SHORT, WIDE - 1, WIDE, WIDE + 1, WIDE + SHORT, BLOCK - 1, BLOCK]
SIZES += [BLOCK + 1, BLOCK + SHORT, 3 * WIDE + 5, 2 * BLOCK + 37]
POSITIONS = [0, 1, WIDE - 1, WIDE, WIDE + 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * WIDE - 1, 3 * WIDE]
POSITIONS += [3 * WIDE + 1, 2 * BLOCK - 1, 2 * BLOCK, 2 * BLOCK + 36]


@pytest.mark.parametrize("kernel", list(KERNELS), ids=lambda k: k.__name__)
@pytest.mark.parametrize("n", SIZES)
def test_no_failure(kernel, n):
    out = np.full(n, -9, dtype=KERNELS[kernel])
    assert assert_same_as_python(kernel, sample(n, kernel), out) == "value"


@pytest.mark.parametrize("kernel", list(KERNELS), ids=lambda k: k.__name__)
@pytest.mark.parametrize("bad", ["own", np.nan, np.inf, -np.inf])
def test_failure_at_block_edges(kernel, bad):
    """The failing element first or last in a block, at the start, the end, in the tail."""
    n = 2 * BLOCK + 37
    bad = BAD.get(kernel, np.nan) if bad == "own" else bad
    for position in POSITIONS + [n // 2, n - 1]:
        a = sample(n, kernel)
        a[position] = bad
        out = np.full(n, -9, dtype=KERNELS[kernel])
        assert_same_as_python(kernel, a, out)


@pytest.mark.parametrize(
    "n", [1, 2, SHORT - 1, SHORT, BLOCK - 1, BLOCK, BLOCK + 1, BLOCK + SHORT - 1, BLOCK + SHORT]
)
def test_failure_in_short_arrays(n):
    for position in {0, n // 2, n - 1, n - SHORT, n - SHORT + 1}:
        if position < 0:
            continue
        for dtype in (np.uint8, np.int32, np.int64):
            a = sample(n)
            a[position] = np.inf
            assert assert_same_as_python(to_int, a, np.zeros(n, dtype)) is OverflowError


def test_first_of_two_failures_decides():
    a = sample(3 * BLOCK)
    a[2 * BLOCK + 5], a[BLOCK + 9] = np.nan, -np.inf  # the infinity comes first
    assert assert_same_as_python(to_int, a, np.zeros(a.size, np.int64)) is OverflowError
    a = sample(3 * BLOCK, divided)
    a[BLOCK + 9], a[BLOCK + 3] = np.nan, 2.0  # the division by zero first, in the same block
    assert assert_same_as_python(divided, a, np.zeros(a.size)) is ZeroDivisionError


@pytest.mark.parametrize("n", [0, 5, BLOCK + 3])
def test_two_output_arrays(n):
    for position in [None, 0, n - 1]:
        a = np.linspace(-2.0, 2.0, n)
        if position is not None and n:
            a[position] = np.nan
        low, high = np.zeros(n, np.int64), np.zeros(n, np.int32)
        assert_same_as_python(two_outputs, a, low, high)


@pytest.mark.parametrize("shape, failing", [((3, 700), (2, 600)), ((4, 5), (1, 4)), ((2, 0), None)])
def test_inner_loop_entered_per_row(shape, failing):
    m = np.linspace(0.0, 1.0, shape[0] * shape[1]).reshape(shape)
    if failing is not None:
        m[failing] = np.nan
    assert_same_as_python(rows, m, np.zeros(shape, np.uint8))


def test_stepped_range_failing_in_a_later_block():
    a = sample(8 * BLOCK)
    a[a.size - 1 - 3 * (2 * BLOCK + 5)] = np.inf  # the loop's iteration 2 * BLOCK + 5
    assert assert_same_as_python(stepped, a, np.zeros(a.size, np.int64)) is OverflowError


def test_overlap_that_creates_a_failure():
    """out[i] = sqrt(a[i]) - 3 with out one element ahead of a: the value read at i + 1 is
    the one just stored (sqrt(16) - 3 = 1, then sqrt(1) - 3 = -2, then sqrt(-2) raises)."""

    def shrink(a, out):
        for i in range(a.shape[0]):
            out[i] = math.sqrt(a[i]) - 3.0

    compiled = ember.njit(shrink)
    for n in (10, BLOCK + 10):
        expected, got = np.full(n, 16.0), np.full(n, 16.0)
        with pytest.raises(ValueError, match="math domain error"):
            shrink(expected[:-1], expected[1:])
        with pytest.raises(ValueError, match="math domain error"):
            compiled(got[:-1], got[1:])
        np.testing.assert_array_equal(got, expected)


def test_index_error_with_boundscheck():
    """A bounds check in the check pass sends the block to its checked copy, which raises
    IndexError where CPython does (stores before it done)."""

    def shifted(a, out):
        for i in range(out.shape[0]):
            out[i] = int(a[i + 1] * 2.0)

    compiled = ember.njit(boundscheck=True)(shifted)
    for n in (3, BLOCK, BLOCK + 2):
        a, expected, got = sample(n), np.zeros(n, np.int64), np.zeros(n, np.int64)
        with pytest.raises(IndexError):
            shifted(a.astype(object), expected)
        with pytest.raises(IndexError):
            compiled(a, got)
        np.testing.assert_array_equal(got, expected)


def test_array_read_and_stored_keeps_checked_path():
    a = sample(BLOCK + 5)
    a[BLOCK + 2] = np.nan
    assert assert_same_as_python(doubled_in_place, a) is ValueError


def test_huge_value_raises_as_a_lone_int():
    """A huge finite value flags the block, whose checked copy raises OverflowError at it (as a
    lone int() does), the stores before it made, none after."""
    a = sample(2 * BLOCK)
    a[[3, BLOCK + 1]] = [1e300, -1e300]
    out = np.zeros(a.size, np.int64)
    with pytest.raises(OverflowError, match="beyond int64"):
        COMPILED[to_int](a, out)
    np.testing.assert_array_equal(out[:3], [int(x * 255.0) for x in a[:3]])
    assert not out[3:].any()
    with pytest.raises(OverflowError, match="beyond int64"):
        ember.njit(lambda x: int(x))(1e300 * 255.0)


def test_failure_frees_the_functions_array():
    a = sample(3 * BLOCK)
    a[BLOCK + 7] = np.nan
    out = np.zeros(a.size, np.int64)
    COMPILED[with_scratch](sample(4), np.zeros(4, np.int64))  # compiled before counting
    before = ember.runtime.stats()
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        COMPILED[with_scratch](a, out)
    assert ember.runtime.stats().live == before.live
    np.testing.assert_array_equal(out[: BLOCK + 7], [int(x * 2.0) for x in a[: BLOCK + 7]])
    assert not out[BLOCK + 7 :].any()


special = st.sampled_from([np.nan, np.inf, -np.inf, -1.0, 2.0])


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2 * BLOCK + 40),
    st.lists(st.tuples(st.floats(0.0, 1.0, exclude_max=True), special), max_size=3),
    st.sampled_from(list(KERNELS)),
)
def test_same_as_python(n, failures, kernel):
    a = sample(n, kernel)
    for where, value in failures:
        if n:
            a[int(where * n)] = value
    assert_same_as_python(kernel, a, np.full(n, 7, dtype=KERNELS[kernel]))


@pytest.mark.parametrize(
    "kernel, dtype, stored",
    [
        (to_int, np.uint8, "<8 x i8>"),
        (to_int, np.int64, "x i64>"),
        (roots, np.float64, "x double>"),
    ],
)
def test_check_pass_and_body_vectorize(kernel, dtype, stored):
    compiled = ember.njit(kernel)
    compiled(sample(4), np.zeros(4, dtype))
    code = "\n".join(compiled.inspect_llvm().values())
    stores = [line for line in code.splitlines() if "store <" in line]
    assert any(stored in line for line in stores)
    assert "load <" in code and "x double>" in code


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64, np.float64])
def test_block_buffers_hold_a_kilobyte_at_most(dtype):
    """A block runs BLOCK iterations, fewer when a buffer of BLOCK items would pass
    BLOCK_BYTES (float64 outputs: 2 KB blocks ran sqrt_into 1.09-1.13x Numba, 1 KB 1.02-1.08x):
    the range is cut to that many items and the buffer holds that many."""
    kernel = roots if dtype == np.float64 else to_int
    itemsize = np.dtype(dtype).itemsize
    items = min(BLOCK, BLOCK_BYTES // itemsize)
    assert items_per_block(itemsize) == items
    compiled = ember.njit(kernel)
    compiled(sample(4), np.zeros(4, dtype))
    code = "\n".join(compiled.inspect_llvm().values())
    cuts = {
        line.split(", i64 ")[-1] for line in code.splitlines() if "call i64 @llvm.umin.i64(" in line
    }
    assert cuts == {f"{items})"}
    placed_page = 4096 if itemsize >= 4 else 0
    assert f"alloca [{items * itemsize + placed_page} x i8]" in code


def scaled_into(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 255.0


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64])
def test_float_stores_into_int_arrays_vectorize(dtype):
    """A float stored into an int array (no check: NumPy's cast, as in Numba) converts all
    lanes at once, values beyond the conversion's range and NaN as one conversion does (README:
    uint8 and int32 through int32, as NumPy's cast; int64 saturating; NaN as 0)."""
    compiled = ember.njit(scaled_into)
    a = np.linspace(-1.0, 1.0, 300)
    out = np.zeros(a.size, dtype)
    compiled(a, out)
    np.testing.assert_array_equal(out, (a * 255.0).astype(np.int64).astype(dtype))
    edges = np.array([np.nan, np.inf, -np.inf, 1e300])
    compiled(edges, out[:4])
    one = ember.njit(lambda x: np.int64(x))
    if dtype == np.int64:
        expected = np.array([one(x) for x in edges * 255.0])
    else:
        with np.errstate(invalid="ignore"):
            expected = (edges * 255.0).astype(dtype)  # NumPy's int32 conversion, then the wrap
        expected[0] = 0  # NaN
    np.testing.assert_array_equal(out[:4], expected)
    assert "fptosi <" in "\n".join(compiled.inspect_llvm().values())


def powers_into(a, out, n):
    for i in range(a.shape[0]):
        out[i] = a[i] ** n


@pytest.mark.parametrize("n", [3, 20, -1])
@pytest.mark.parametrize("position, bad", [(None, None), (0, 0.0), (BLOCK + 3, 0.0), (7, 1e200)])
def test_run_time_powers(n, position, bad):
    """x ** n, its exponent known at run time (beyond 15 the check pass leaves for the
    checked copy at once): ZeroDivisionError, OverflowError and values as CPython's (which
    may round its pow one unit off: ember's is correctly rounded)."""
    compiled = COMPILED.setdefault(powers_into, ember.njit(powers_into))
    a = np.linspace(0.5, 1.5, 2 * BLOCK)
    if position is not None:
        a[position] = bad
    expected_result, expected_contents = outcome(powers_into, a.astype(object), np.zeros(a.size), n)
    result, contents = outcome(compiled, a, np.zeros(a.size), n)
    assert result == expected_result
    np.testing.assert_allclose(contents[1], expected_contents[1], rtol=1e-15, atol=0)


# ---------------------------------------------------------------- items passed through buffers


def narrowed(a, out):
    """A float64 root stored into a float32 array (the buffer holds float32 items)."""
    for i in range(a.shape[0]):
        out[i] = math.sqrt(a[i] * 3.0)


def sometimes(a, out, flags):
    """A store only some iterations make, and a constant stored in the others."""
    for i in range(a.shape[0]):
        if a[i] > 0.25:
            out[i] = int(a[i] * 6.0)
        else:
            out[i] = 9
        flags[i] = int(a[i] * 2.0)


def into_2d(a, out):
    """Stores into two columns at a computed row, one item converted from the other."""
    for i in range(a.shape[0]):
        k = round(a[i] * 5.0)
        out[i, 0] = k
        out[-1 - i, 1] = k * 0.5


BUFFERED = {
    narrowed: lambda n: (np.zeros(n, np.float32),),
    sometimes: lambda n: (np.zeros(n, np.int16), np.zeros(n, np.bool_)),
    into_2d: lambda n: (np.zeros((n, 2), np.complex128),),
}
COMPILED.update({k: ember.njit(k) for k in BUFFERED})


@pytest.mark.parametrize("kernel", list(BUFFERED), ids=lambda k: k.__name__)
@pytest.mark.parametrize("bad", [None, np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("n", [0, 7, BLOCK, 2 * BLOCK + 37])
def test_buffered_items_of_each_dtype(kernel, bad, n):
    """The check pass computes each store's item into a buffer, the unchecked body stores it:
    float32, int16, bool and complex arrays, 2-d and negative indices, stores under a branch,
    a constant; with a failure, the stores before it are done and none after it."""
    for position in [None] if bad is None else [0, n // 2, BLOCK + 1, n - 1]:
        a = np.linspace(0.0, 1.0, n)
        if position is not None and 0 <= position < n:
            a[position] = bad
        outs = BUFFERED[kernel](n)
        assert_same_as_python(kernel, a, *outs)
    assert "blockwise.items" in "\n".join(COMPILED[kernel].inspect_llvm().values())


@pytest.mark.parametrize("offset", [0, 1, 7, 64, 255])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8])
def test_buffers_placed_against_any_output_offset(offset, dtype):
    """A buffer of items of 4 bytes or more starts, block by block, at a page offset chosen
    from the output's address: outputs at any offset into a larger array, with and without
    a failure in a later block (stores before it done, none after, nothing outside)."""
    kernel = roots if dtype == np.float64 else to_int
    n = 3 * BLOCK + 11
    for failing in (None, 2 * BLOCK + 3):
        a = sample(n)
        if failing is not None:
            a[failing] = -1.0 if kernel is roots else np.nan
        expected, got = np.full(n + 300, 5, dtype), np.full(n + 300, 5, dtype)
        expected_result = outcome(kernel, a.astype(object), expected[offset : offset + n])[0]
        result = outcome(COMPILED[kernel], a, got[offset : offset + n])[0]
        assert result == expected_result
        assert (result[0] is ValueError) == (failing is not None)
        np.testing.assert_array_equal(got, expected)


def into_timedeltas(a, out):
    for i in range(a.shape[0]):
        out[i] = int(a[i] * 2.0)


def test_unbuffered_store_still_done():
    """A store into an array of timedeltas (not numbers: no buffer) is done by the unchecked
    body itself, in every block, and a failure leaves the stores before it."""
    compiled = ember.njit(into_timedeltas)
    for failing in (None, BLOCK + 5):
        a = np.linspace(0.0, 1.0, 2 * BLOCK + 7)
        if failing is not None:
            a[failing] = np.nan
        expected, got = np.zeros(a.size, "m8[s]"), np.zeros(a.size, "m8[s]")
        assert outcome(compiled, a, got)[0] == outcome(into_timedeltas, a, expected)[0]
        np.testing.assert_array_equal(got, expected)
    assert "blockwise" in "\n".join(compiled.inspect_llvm().values())
