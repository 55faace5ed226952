"""np.argmin / np.argmax and 2-d reductions along an axis under parallel=True: three ways
(CPython with NumPy as the oracle, njit, njit(parallel=True)) with equal results, ties and NaNs
across the blocks the parallel loop splits the array into, parfor counts per option, and the
reasons the cases left serial give."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parallel_helpers import shared_dispatchers
from parallel_helpers import three_ways as three_ways_copying

import ember
from ember import njit

rng = np.random.default_rng(11)
SIZE = 3 * 4096 + 17  # argmin / argmax take 4096 items per iteration


def three_ways(fn, *args, exact=False):
    """parallel_helpers.three_ways on the arguments as given (the functions here write no
    argument; a copy would make strided views contiguous), with the session's dispatchers of
    `fn` for the types of `args`: parameters of the same types compile once."""
    return three_ways_copying(fn, *args, exact=exact, copy_args=False, shared=True)


def conversions(dispatcher, *args):
    found = dispatcher.overloads[tuple(ember.typeof(a) for a in args)]
    return found.parallel_report.conversions()


def notes(dispatcher, *args):
    found = dispatcher.overloads[tuple(ember.typeof(a) for a in args)]
    return found.parallel_report.notes


# ---------------------------------------------------------------------------- argmin / argmax


def arg_both(a):
    return np.argmin(a), np.argmax(a)


def arg_methods(a):
    return a.argmin(), a.argmax()


@pytest.mark.parametrize("fn", [arg_both, arg_methods])
@pytest.mark.parametrize(
    "array",
    [
        rng.random(SIZE),
        rng.integers(-3, 3, SIZE).astype(np.int32),  # many ties: the first one wins
        rng.integers(-3, 3, SIZE).astype(np.float64)[::3],  # strided
        rng.random((97, 211)),  # n-d: a flat index
        np.asfortranarray(rng.integers(0, 9, (60, 300))),
        np.array([4.0]),
    ],
    ids=["float", "int-ties", "strided", "2d", "fortran", "one"],
)
def test_arg_extremes_three_ways(fn, array):
    parallel = three_ways(fn, array, exact=True)
    assert conversions(parallel, array) == {"np.argmin": 1, "np.argmax": 1}


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, SIZE - 1), max_size=4),
    st.lists(st.integers(0, SIZE - 1), max_size=4),
)
def test_first_extreme_and_first_nan_win_across_blocks(extremes, nans):
    a = np.ones(SIZE)
    a[extremes] = [-5.0, 7.0, -5.0, 7.0][: len(extremes)]
    a[nans] = np.nan
    got = shared_dispatchers(arg_both, a)[1](a)
    assert got == (np.argmin(a), np.argmax(a))


def test_empty_array_raises_as_serial():
    with pytest.raises(ValueError) as serial:
        shared_dispatchers(arg_both, np.empty(0))[0](np.empty(0))
    with pytest.raises(ValueError) as parallel:
        shared_dispatchers(arg_both, np.empty(0))[1](np.empty(0))
    assert str(parallel.value) == str(serial.value)


def test_reduction_switch_off_keeps_argmin_serial():
    off = njit(parallel={"reduction": False})(arg_both)
    a = rng.random(SIZE)
    assert off(a) == arg_both(a)
    assert conversions(off, a) == {}


# ---------------------------------------------------------------------------- along an axis


def along_axes(a):
    return (
        a.sum(axis=0),
        np.sum(a, axis=1),
        a.mean(0),
        np.mean(a, axis=-1),
        np.min(a, axis=0),
        a.max(axis=1),
        np.prod(a, axis=0),
        np.amax(a, axis=-2),
    )


def two_axes(a):
    return a.sum(axis=0), a.max(axis=1), np.min(a, axis=0)


def test_axis_reductions_three_ways():
    a = rng.random((601, 41))  # axis 0 takes 256 rows per iteration: 2 blocks and a part
    parallel = three_ways(along_axes, a)
    counts = conversions(parallel, a)
    assert sum(counts.values()) == 8
    assert counts["np.sum(axis=0)"] == 1 and counts["np.max(axis=-2)"] == 1


@pytest.mark.parametrize(
    "a",
    [
        np.asfortranarray(rng.random((300, 26))),
        rng.integers(-9, 9, (530, 30)).astype(np.int64),
        rng.random((1100, 70))[::2, 3::2],  # strided view
        rng.random((5, 3)),  # under one block
    ],
    ids=["fortran", "int", "strided", "small"],
)
def test_axis_reductions_of_other_layouts_three_ways(a):
    parallel = three_ways(two_axes, a)
    assert conversions(parallel, a) == {"np.sum(axis=0)": 1, "np.max(axis=1)": 1,
                                        "np.min(axis=0)": 1}  # fmt: skip


def test_axis_extremes_propagate_nan():
    a = rng.random((600, 30))
    a[3, 20] = np.nan
    a[300, 5] = np.nan
    a[500, 7] = np.nan
    for got, expected in zip(shared_dispatchers(two_axes, a)[1](a), two_axes(a)):
        np.testing.assert_allclose(got, expected, rtol=1e-12)  # NaN equals NaN here


def sums_2d(a):
    return a.sum(axis=0), a.sum(axis=1)


def minimum_rows(a):
    return np.min(a, axis=1)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0)])
def test_empty_axis_reductions_match_numpy(shape):
    three_ways(sums_2d, np.empty(shape))
    a = np.empty(shape)
    parallel = shared_dispatchers(minimum_rows, a)[1]
    try:
        expected = minimum_rows(a)
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error)):
            parallel(a)
    else:
        np.testing.assert_array_equal(parallel(a), expected)


def axis_of_4d(a):
    return a.sum(axis=1)


def runtime_axis(a, k):
    return a.sum(axis=k)


def test_unsupported_axis_reductions_stay_serial_with_a_reason():
    block = rng.random((4, 5, 6, 2))
    parallel = three_ways(axis_of_4d, block)
    assert conversions(parallel, block) == {}
    assert any("2-d and 3-d" in note for note in notes(parallel, block)), notes(parallel, block)
    square = rng.random((6, 6))
    parallel = three_ways(runtime_axis, square, 1)
    assert conversions(parallel, square, 1) == {}
    assert any("constant axis" in note for note in notes(parallel, square, 1))


def test_repeated_parallel_axis_calls_agree():
    a = rng.random((1000, 64))
    expected = two_axes(a)
    parallel = shared_dispatchers(two_axes, a)[1]
    for _ in range(10):
        for got, want in zip(parallel(a), expected):
            np.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------------------- 3-d axes


def along_3d_axes(a):
    return (
        a.sum(axis=0), np.sum(a, axis=1), a.sum(axis=2), np.prod(a, axis=-1),
        np.mean(a, axis=0), a.mean(axis=1), np.mean(a, axis=-1),
        np.min(a, axis=2), np.max(a, axis=1), np.min(a, axis=0), a.max(axis=-3),
    )  # fmt: skip


@pytest.mark.parametrize(
    "a",
    [
        rng.random((5, 7, 9)),
        rng.random((1, 2, 300)),
        np.asfortranarray(rng.random((6, 3, 4))),
        rng.random((8, 6, 10))[::2, :, 1::3],
        rng.integers(-9, 9, (4, 5, 6)).astype(np.int64),
    ],
)
def test_3d_axis_reductions_three_ways(a):
    parallel = three_ways(along_3d_axes, a)
    counts = conversions(parallel, a)
    assert sum(counts.values()) == 11
    assert counts["np.sum(axis=2)"] == 1 and counts["np.max(axis=-3)"] == 1


def test_3d_axis_extremes_propagate_nan_and_repeat():
    a = rng.random((6, 40, 50))
    a[1, 2, 3] = a[4, 30, 0] = a[5, 39, 49] = np.nan
    expected = along_3d_axes(a)
    parallel = shared_dispatchers(along_3d_axes, a)[1]
    for _ in range(10):
        for got, want in zip(parallel(a), expected):
            np.testing.assert_allclose(got, want, rtol=1e-12)  # NaN equals NaN here


def minimum_0(a):
    return np.min(a, axis=0)


def minimum_1(a):
    return np.min(a, axis=1)


def minimum_2(a):
    return np.min(a, axis=2)


_MINIMA_3D = (minimum_0, minimum_1, minimum_2)


def sums_3d(a):
    return a.sum(axis=0), a.sum(axis=1), a.sum(axis=2)


@pytest.mark.parametrize("shape", [(0, 3, 4), (3, 0, 4), (3, 4, 0), (0, 0, 0)])
def test_empty_3d_axis_reductions_match_numpy(shape):
    a = np.empty(shape)
    three_ways(sums_3d, a)
    for minimum in _MINIMA_3D:
        parallel = shared_dispatchers(minimum, a)[1]
        try:
            expected = minimum(a)
        except ValueError as error:
            with pytest.raises(ValueError, match=str(error)):
                parallel(a)
        else:
            np.testing.assert_array_equal(parallel(a), expected)
