"""`ember.stencil` (seed 000): every stencil is checked against an independent computation
written here (NumPy slicing, or a pure-Python loop over the interior), called from Python,
inside `njit` and inside `njit(parallel=True)`; plus the ValueErrors and a leak check."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember.runtime
from ember import TypingError, njit, stencil
from ember.errors import NumbaValueError

# ------------------------------------------------------------------ the three calling modes

_CALLERS = {  # (number of inputs, with out=) -> a function calling the stencil `s` that way
    (1, False): lambda s: lambda a: s(a),
    (2, False): lambda s: lambda a, b: s(a, b),
    (3, False): lambda s: lambda a, b, c: s(a, b, c),
    (1, True): lambda s: lambda a, out: s(a, out=out),
    (2, True): lambda s: lambda a, b, out: s(a, b, out=out),
}


def jitted(stencil_func, count, with_out=False, parallel=False):
    """`stencil_func` called from a jitted function taking `count` inputs (and `out`)."""
    caller = _CALLERS[count, with_out](stencil_func)
    return njit(parallel=True)(caller) if parallel else njit(caller)


def in_every_mode(stencil_func, *args):
    """The results of `stencil_func(*args)` from Python, njit and njit(parallel=True)."""
    return {
        "python": stencil_func(*args),
        "njit": jitted(stencil_func, len(args))(*args),
        "parallel": jitted(stencil_func, len(args), parallel=True)(*args),
    }


def assert_every_mode(stencil_func, args, expected, exact=False):
    for mode, got in in_every_mode(stencil_func, *args).items():
        assert got.dtype == expected.dtype, mode
        assert got.shape == expected.shape, mode
        if exact:
            np.testing.assert_array_equal(got, expected, err_msg=mode)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=mode)


# ------------------------------------------------------------------ an independent oracle


class _RelativeView:
    """Reads `array` relative to a centre point, as a stencil kernel's relative index does."""

    def __init__(self, array, centre):
        self.array = array
        self.centre = centre

    def __getitem__(self, offsets):
        offsets = offsets if isinstance(offsets, tuple) else (offsets,)
        return self.array[tuple(c + o for c, o in zip(self.centre, offsets))]


def python_stencil(kernel, args, neighborhood, cval=0, dtype=np.float64, relative=None):
    """The stencil by definition, looping in Python: each point whose neighborhood fits inside
    the first array gets the kernel (run in CPython on relative views); the rest is cval."""
    first = args[0]
    relative = relative if relative is not None else range(len(args))
    result = np.full(first.shape, cval, dtype=dtype)
    for point in np.ndindex(*first.shape):
        fits = all(
            0 <= p + low and p + high < n
            for p, n, (low, high) in zip(point, first.shape, neighborhood)
        )
        if fits:
            views = [_RelativeView(a, point) if i in relative else a for i, a in enumerate(args)]
            result[point] = kernel(*views)
    return result


# ------------------------------------------------------------------ kernels


@stencil
def laplacian(a):
    return a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1] - 4 * a[0, 0]


def laplacian_by_slicing(a, cval=0.0):
    expected = np.full(a.shape, cval, dtype=a.dtype)
    if a.shape[0] > 2 and a.shape[1] > 2:
        expected[1:-1, 1:-1] = (
            a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1]
        )
    return expected


@stencil
def mean3x3(a):
    top = a[-1, -1] + a[-1, 0] + a[-1, 1]
    middle = a[0, -1] + a[0, 0] + a[0, 1]
    bottom = a[1, -1] + a[1, 0] + a[1, 1]
    return (top + middle + bottom) / 9


@stencil(neighborhood=((-2, 2),))
def moving_average(a):
    total = 0.0
    for k in range(-2, 3):
        total += a[k]
    return total / 5


@stencil(neighborhood=((-1, 1), (-1, 1)))
def box_sum(a):
    total = 0.0
    for di in range(-1, 2):
        for dj in range(-1, 2):
            total += a[di, dj]
    return total


LAPLACIAN_CALLERS = {
    "njit": jitted(laplacian, 1),
    "parallel": jitted(laplacian, 1, parallel=True),
}


# ------------------------------------------------------------------ results


def test_laplacian_matches_numpy_slicing():
    a = np.random.default_rng(1).random((7, 9))
    assert_every_mode(laplacian, (a,), laplacian_by_slicing(a))


def test_neighborhood_is_inferred_from_constant_indices():
    fresh = stencil(laplacian.kernel_ws)
    assert fresh.neighborhood is None  # known after the first compilation, as in Numba
    fresh(np.zeros((3, 3)))
    assert fresh.neighborhood == ((-1, 1), (-1, 1))


def test_inferred_neighborhood_always_holds_the_centre():
    @stencil
    def behind(a):
        return a[-2] - a[-1]

    a = np.arange(6.0) ** 2
    expected = np.zeros(6)
    expected[2:] = a[:-2] - a[1:-1]  # the last point's neighborhood fits: it is computed
    assert_every_mode(behind, (a,), expected)
    assert behind.neighborhood == ((-2, 0),)


def test_mean_of_a_3x3_window():
    a = np.random.default_rng(2).random((6, 5))
    expected = np.zeros_like(a)
    expected[1:-1, 1:-1] = (
        sum(
            a[1 + di : a.shape[0] - 1 + di, 1 + dj : a.shape[1] - 1 + dj]
            for di in (-1, 0, 1)
            for dj in (-1, 0, 1)
        )
        / 9
    )
    assert_every_mode(mean3x3, (a,), expected)


def test_moving_average_loops_over_the_given_neighborhood():
    a = np.random.default_rng(3).random(12)
    expected = np.zeros(12)
    for i in range(2, 10):
        expected[i] = sum(a[i - 2 : i + 3]) / 5
    assert_every_mode(moving_average, (a,), expected)
    assert moving_average.neighborhood == ((-2, 2),)


def test_two_dimensional_neighborhood_loops():
    a = np.random.default_rng(4).random((5, 6))
    expected = python_stencil(box_sum.kernel_ws, (a,), ((-1, 1), (-1, 1)))
    assert_every_mode(box_sum, (a,), expected)


def test_neighborhood_wider_than_the_indices_widens_the_border():
    @stencil(neighborhood=((-2, 1),))
    def diff(a):
        return a[1] - a[-1]

    a = np.arange(8.0) ** 2
    expected = np.zeros(8)
    expected[2:7] = a[3:8] - a[1:6]
    assert_every_mode(diff, (a,), expected)


def test_neighborhood_without_the_centre():
    @stencil(neighborhood=((1, 2),))
    def ahead(a):
        return a[1] + a[2]

    a = np.arange(6.0)
    expected = np.array([3.0, 5.0, 7.0, 9.0, 0.0, 0.0])
    assert_every_mode(ahead, (a,), expected)


def test_cval_fills_the_border():
    @stencil(cval=-1.5)
    def smooth(a):
        return 0.25 * a[-1] + 0.5 * a[0] + 0.25 * a[1]

    a = np.random.default_rng(5).random(9)
    expected = np.full(9, -1.5)
    expected[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    assert_every_mode(smooth, (a,), expected)


def test_cval_of_another_kind_that_converts_safely():
    @stencil(cval=7)
    def half(a):
        return a[-1] * 0.5

    a = np.arange(5, dtype=np.int64)
    expected = np.array([7.0, 0.0, 0.5, 1.0, 1.5])
    assert_every_mode(half, (a,), expected)


def test_out_keeps_its_border_and_is_returned():
    a = np.random.default_rng(6).random((5, 4))
    expected = laplacian_by_slicing(a)
    expected[0, :] = expected[-1, :] = expected[:, 0] = expected[:, -1] = 9.0
    for mode, call in [
        ("python", lambda a, out: laplacian(a, out=out)),
        ("njit", jitted(laplacian, 1, with_out=True)),
        ("parallel", jitted(laplacian, 1, with_out=True, parallel=True)),
    ]:
        out = np.full_like(a, 9.0)
        returned = call(a, out)
        np.testing.assert_allclose(out, expected, rtol=1e-12, err_msg=mode)
        np.testing.assert_array_equal(returned, out)


def test_out_of_a_kind_the_result_converts_to():
    @stencil
    def total(a, b):
        return a[-1] + b[1]

    a, b = np.arange(6, dtype=np.int64), np.arange(6, dtype=np.int64) * 10
    out = np.full(6, 0.5, dtype=np.float32)
    total(a, b, out=out)
    expected = np.array([0.5, 20, 31, 42, 53, 0.5], dtype=np.float32)
    np.testing.assert_array_equal(out, expected)
    out = np.full(6, 0.5, dtype=np.float32)
    jitted(total, 2, with_out=True)(a, b, out)
    np.testing.assert_array_equal(out, expected)


def test_several_inputs():
    @stencil
    def advect(u, v):
        return u[0, 0] * (v[0, 1] - v[0, -1]) + u[-1, 0]

    rng = np.random.default_rng(7)
    u, v = rng.random((4, 6)), rng.random((4, 6))
    expected = np.zeros((4, 6))
    expected[1:, 1:-1] = u[1:, 1:-1] * (v[1:, 2:] - v[1:, :-2]) + u[:-1, 1:-1]
    assert_every_mode(advect, (u, v), expected)


def test_scalar_arguments():
    @stencil
    def scaled(a, factor, shift):
        return a[-1] * factor + shift

    a = np.arange(6.0)
    expected = np.zeros(6)
    expected[1:] = a[:-1] * 3 + 0.5
    assert_every_mode(scaled, (a, 3, 0.5), expected)


def test_standard_indexing_reads_an_argument_normally():
    @stencil(standard_indexing=("weights",))
    def weighted(a, weights):
        return a[-1] * weights[0] + a[0] * weights[1] + a[1] * weights[2]

    a = np.random.default_rng(8).random(10)
    weights = np.array([0.2, 0.5, 0.3])
    expected = np.zeros(10)
    expected[1:-1] = a[:-2] * 0.2 + a[1:-1] * 0.5 + a[2:] * 0.3
    assert_every_mode(weighted, (a, weights), expected)


def test_standard_indexing_with_a_neighborhood_loop():
    @stencil(standard_indexing=("weights",), neighborhood=((-1, 1), (-1, 1)))
    def convolve(a, weights):
        total = 0.0
        for di in range(3):
            for dj in range(3):
                total += weights[di, dj] * a[di - 1, dj - 1]
        return total

    rng = np.random.default_rng(9)
    a, weights = rng.random((6, 7)), rng.random((3, 3))
    expected = np.zeros((6, 7))
    for di in range(3):
        for dj in range(3):
            expected[1:-1, 1:-1] += weights[di, dj] * a[di : 4 + di, dj : 5 + dj]
    assert_every_mode(convolve, (a, weights), expected)


def test_returns_inside_control_flow():
    @stencil
    def upwind(a, velocity):
        if velocity > 0:
            return a[0] - a[-1]
        return a[1] - a[0]

    a = np.arange(7.0) ** 2
    forward, backward = np.zeros(7), np.zeros(7)
    forward[1:-1] = a[1:-1] - a[:-2]
    backward[1:-1] = a[2:] - a[1:-1]
    assert_every_mode(upwind, (a, 1.0), forward)
    assert_every_mode(upwind, (a, -1.0), backward)


def test_float32_input_keeps_float32():
    @stencil
    def pair(a):
        return a[-1] + a[1]

    a = np.linspace(0, 1, 9, dtype=np.float32)
    expected = np.zeros(9, dtype=np.float32)
    expected[1:-1] = a[:-2] + a[2:]
    assert_every_mode(pair, (a,), expected, exact=True)


def test_integer_input_gives_integers():
    a = np.arange(20, dtype=np.int64).reshape(4, 5) ** 2
    assert_every_mode(laplacian, (a,), laplacian_by_slicing(a), exact=True)


def test_boolean_result():
    @stencil
    def is_peak(a):
        return a[0] > a[-1] and a[0] > a[1]

    a = np.array([1.0, 3.0, 2.0, 5.0, 4.0, 4.0])
    expected = np.array([False, True, False, True, False, False])
    assert_every_mode(is_peak, (a,), expected, exact=True)


def test_strided_and_fortran_inputs():
    base = np.random.default_rng(10).random((8, 10))
    for a in (base[::2, 1::3], np.asfortranarray(base)):
        assert_every_mode(laplacian, (a,), laplacian_by_slicing(a))


def test_kernel_uses_globals_closures_and_jitted_helpers():
    scale = 2.5

    @njit
    def squared(x):
        return x * x

    @stencil
    def energy(a):
        return scale * squared(a[1] - a[-1]) + np.float64(1)

    a = np.arange(6.0) ** 1.5
    expected = np.zeros(6)
    expected[1:-1] = 2.5 * (a[2:] - a[:-2]) ** 2 + 1
    assert_every_mode(energy, (a,), expected)


def test_two_stencils_with_the_same_kernel_name_stay_apart():
    def make_scaled(factor):
        @stencil
        def scaled(a):
            return a[0] * factor

        return scaled

    double, triple = make_scaled(2.0), make_scaled(3.0)

    @njit
    def both(a):
        return double(a) + triple(a)

    np.testing.assert_array_equal(both(np.arange(4.0)), np.arange(4.0) * 5)


def test_generated_source_is_inspectable():
    laplacian(np.zeros((3, 3)))
    sources = "\n".join(laplacian.inspect_source().values())
    assert "a[i0 - 1, i1] + a[i0 + 1, i1]" in sources
    assert "for i0 in range(1, a.shape[0] - 1):" in sources


# ------------------------------------------------------------------ random shapes and values

_floats = st.floats(-1e6, 1e6, allow_nan=False, width=64)
_small_matrices = hnp.array_shapes(min_dims=2, max_dims=2, max_side=7)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, _small_matrices, elements=_floats))
def test_laplacian_on_random_arrays(a):
    """Arrays of one or two rows (smaller than the kernel) are all border."""
    expected = laplacian_by_slicing(a)
    np.testing.assert_allclose(laplacian(a), expected, rtol=1e-12, atol=1e-6)
    for mode, call in LAPLACIAN_CALLERS.items():
        np.testing.assert_allclose(call(a), expected, rtol=1e-12, atol=1e-6, err_msg=mode)


@stencil(cval=-7)
def lopsided(a, b, scale):
    return a[-2, 1] * scale + b[0, -1] - b[1, 0]


LOPSIDED_CALLERS = {
    "njit": jitted(lopsided, 3),
    "parallel": jitted(lopsided, 3, parallel=True),
}


@settings(max_examples=60, deadline=None)
@given(
    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6),
    st.integers(-50, 50),
    st.data(),
)
def test_two_integer_inputs_on_random_shapes(shape, scale, data):
    a = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(-1000, 1000)))
    b = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(-1000, 1000)))
    expected = python_stencil(
        lopsided.kernel_ws,
        (a, b, scale),
        ((-2, 1), (-1, 1)),
        cval=-7,
        dtype=np.int64,
        relative=(0, 1),
    )
    np.testing.assert_array_equal(lopsided(a, b, scale), expected)
    for mode, call in LOPSIDED_CALLERS.items():
        np.testing.assert_array_equal(call(a, b, scale), expected, err_msg=mode)


@settings(max_examples=15, deadline=None)
@given(
    st.integers(-3, 3).flatmap(lambda low: st.tuples(st.just(low), st.integers(low, 3))),
    hnp.arrays(np.float64, st.integers(1, 9), elements=_floats),
    st.floats(-10, 10, allow_nan=False),
)
def test_any_one_dimensional_neighborhood(bounds, a, cval):
    """Neighborhoods on one side of the centre too; the border is wherever one does not fit."""
    low, high = bounds

    @stencil(neighborhood=(bounds,), cval=cval)
    def window_sum(a):
        total = 0.0
        for k in range(low, high + 1):
            total += a[k]
        return total

    expected = python_stencil(window_sum.kernel_ws, (a,), (bounds,), cval=cval)
    np.testing.assert_allclose(window_sum(a), expected, rtol=1e-12, atol=1e-6)


# ------------------------------------------------------------------ errors


def test_neighborhood_of_the_wrong_dimension():
    @stencil(neighborhood=((-1, 1),))
    def first_row(a):
        return a[0, 0]

    with pytest.raises(ValueError, match=r"neighborhood .* has 1 dimension\(s\) but the input"):
        first_row(np.zeros((3, 3)))


def test_neighborhood_must_be_pairs():
    with pytest.raises(ValueError, match=r"one \(low, high\) pair of integers"):
        stencil(neighborhood=((1, -1),))
    with pytest.raises(ValueError, match=r"one \(low, high\) pair of integers"):
        stencil(neighborhood=(-1, 1))


def test_index_outside_the_given_neighborhood():
    @stencil(neighborhood=((-1, 1),))
    def too_far(a):
        return a[2]

    with pytest.raises(ValueError, match=r"index a\[2\] lies outside the given neighborhood"):
        too_far(np.zeros(5))


def test_non_constant_index_needs_a_neighborhood():
    @stencil
    def looping(a):
        total = 0.0
        for k in range(-1, 2):
            total += a[k]
        return total

    with pytest.raises(ValueError, match=r"a\[k\] is not constant.*pass neighborhood="):
        looping(np.zeros(5))


def test_index_with_the_wrong_number_of_components():
    with pytest.raises(ValueError, match=r"index a\[-1, 0\] has 2 component\(s\) but"):
        laplacian(np.zeros(5))


def test_inputs_of_different_shapes():
    @stencil
    def pair(a, b):
        return a[0] + b[1]

    message = "input 'b' has a different shape from 'a'"
    for call in (pair, jitted(pair, 2)):
        with pytest.raises(ValueError, match=message):
            call(np.zeros(5), np.zeros(6))
    with pytest.raises(ValueError, match="'b' is 2-d but 'a' is 1-d"):
        pair(np.zeros(5), np.zeros((5, 1)))


def test_constant_is_the_only_mode():
    with pytest.raises(ValueError, match="'reflect' is not supported: 'constant'"):
        stencil("reflect")
    with pytest.raises(ValueError, match="'wrap' is not supported"):
        stencil(func_or_mode="wrap")
    assert stencil("constant", cval=1.0)(laplacian.kernel_ws).mode == "constant"


def test_unknown_option():
    with pytest.raises(ValueError, match="unknown stencil option.*'boundary'"):
        stencil(boundary="wrap")


def test_kernel_must_return_a_scalar():
    @stencil
    def whole(a):
        return a[0] * a  # an array; a kernel reading no relative index is refused first

    with pytest.raises(ValueError, match="must return a scalar number"):
        whole(np.zeros(4))


def test_cval_converts_to_the_return_type_or_raises():
    @stencil(cval=1.5)
    def integer_sum(a):
        return a[-1] + a[1]

    # as Numba: a float cval converts to the integer output (NumPy's unsafe cast)
    a = np.arange(5)
    expected = np.full(5, 1.5).astype(np.int64)
    expected[1:-1] = a[:-2] + a[2:]
    got = integer_sum(a)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)

    @stencil(cval=1j)
    def real_sum(a):
        return a[-1] + a[1]

    with pytest.raises(ValueError, match="cval=1j does not match the return type float64"):
        real_sum(np.arange(5.0))
    with pytest.raises(ValueError, match="cval must be a number"):
        stencil(cval="zero")


def test_out_is_checked():
    a = np.zeros((4, 4))
    with pytest.raises(ValueError, match="out has dtype int64 but stencil kernel laplacian"):
        laplacian(a, out=np.zeros((4, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="out must be a 2-d array"):
        laplacian(a, out=np.zeros(16))
    for call in (lambda a, out: laplacian(a, out=out), jitted(laplacian, 1, with_out=True)):
        with pytest.raises(ValueError, match="the out array has a different shape from 'a'"):
            call(a, np.zeros((4, 5)))


def test_standard_indexing_names_parameters():
    @stencil(standard_indexing=("w", "z"))
    def weighted(a, w):
        return a[0] * w[0]

    with pytest.raises(ValueError, match="standard_indexing names 'z', which is not a param"):
        weighted(np.zeros(3), np.ones(1))


def test_first_argument_must_be_an_array():
    @stencil(standard_indexing=("b",))
    def scaled(s, b):
        return b[0] * s

    with pytest.raises(ValueError, match="first argument of stencil scaled is the input array"):
        scaled(2.0, np.ones(3))


def test_relative_slices_need_a_given_neighborhood():
    @stencil
    def window(a):
        return a[-1:2].sum()

    with pytest.raises(ValueError, match="pass neighborhood="):
        window(np.zeros(5))


def test_parameter_named_out():
    @stencil
    def clash(a, out):
        return a[0]

    with pytest.raises(ValueError, match="parameter named 'out'"):
        clash(np.zeros(3), 1.0)


def test_errors_inside_jitted_code_are_typing_errors_saying_why():
    @stencil(neighborhood=((-1, 1),))
    def too_far(a):
        return a[2]

    with pytest.raises(TypingError, match="lies outside the given neighborhood"):
        jitted(too_far, 1)(np.zeros(5))


# ------------------------------------------------------------------ memory


def test_no_leaks():
    a = np.random.default_rng(11).random((6, 6))
    call = jitted(laplacian, 1)
    out = np.zeros_like(a)
    laplacian(a), call(a)  # compile first: compilation may keep constants alive
    gc.collect()
    before = ember.runtime.stats().live
    for _ in range(20):
        laplacian(a)
        call(a)
        laplacian(a, out=out)
    gc.collect()
    assert ember.runtime.stats().live == before


def test_out_with_cval_gets_cval_at_the_border():
    # Numba issue 3518: with out= and cval, the border of out holds cval (without cval, out's
    # border is left as it was)
    def difference(a):
        return a[0, 0] - a[1, 0]

    a = np.arange(12).reshape(3, 4)
    for cval in (7, 7.0):
        expected = np.full_like(a, int(cval))
        expected[:-1] = a[:-1] - a[1:]
        out = np.ones_like(a)
        stencil(difference, cval=cval)(a, out=out)
        np.testing.assert_array_equal(out, expected)
    out = np.ones_like(a)
    stencil(difference)(a, out=out)
    np.testing.assert_array_equal(out[-1], np.ones(4, dtype=a.dtype))
    # a complex cval cannot fill an integer out: Numba's NumbaValueError (also a ValueError)
    with pytest.raises(NumbaValueError, match="cval type does not match stencil return type"):
        stencil(difference, cval=1j)(a, out=np.ones_like(a))
