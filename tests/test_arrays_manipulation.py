"""NumPy's reshaping and editing functions (expand_dims ... insert), the nan-functions and the
quantiles: compiled results against NumPy's on the same inputs (values, dtypes, errors)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ember import njit

RNG = np.random.default_rng(7)
MATRIX = np.arange(12.0).reshape(3, 4)
VECTOR = np.array([3.0, 1.0, 2.0, 5.0])
INTS = np.array([[4, -1, 7], [0, 2, 2]])
CUBE = np.arange(24).reshape(2, 3, 4)


def _same(compiled, expected):
    if isinstance(expected, (tuple, list)):
        assert len(compiled) == len(expected)
        for c, e in zip(compiled, expected):
            _same(c, e)
        return
    compiled, expected = np.asarray(compiled), np.asarray(expected)
    assert compiled.shape == expected.shape
    assert compiled.flags.f_contiguous == expected.flags.f_contiguous
    assert compiled.dtype.kind == expected.dtype.kind
    np.testing.assert_array_equal(compiled, expected)


def _outcome(func, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return func(*args), None
        except (ValueError, IndexError) as error:
            return None, type(error)


def _check(func, *args):
    expected, expected_error = _outcome(func, *args)
    compiled, compiled_error = _outcome(njit(func), *args)
    assert compiled_error == expected_error
    if expected_error is None:
        _same(compiled, expected)


CASES = {
    "expand_dims 0": (lambda a: np.expand_dims(a, 0), MATRIX),
    "expand_dims -1": (lambda a: np.expand_dims(a, -1), MATRIX),
    "expand_dims middle of a view": (lambda a: np.expand_dims(a[:, ::2], 1), MATRIX),
    "roll": (lambda a: np.roll(a, 5), MATRIX),
    "roll back": (lambda a: np.roll(a, -1), VECTOR),
    "roll empty": (lambda a: np.roll(a[:0], 3), VECTOR),
    "tile 2-d": (lambda a: np.tile(a, 3), MATRIX),
    "tile ints": (lambda a: np.tile(a, 2), INTS),
    "tile zero": (lambda a: np.tile(a, 0), VECTOR),
    "repeat": (lambda a: np.repeat(a, 2), MATRIX),
    "repeat method": (lambda a: a.repeat(3), INTS),
    "repeat counts": (lambda a: np.repeat(a, np.array([1, 0, 2, 1])), VECTOR),
    "repeat bad counts": (lambda a: np.repeat(a, np.array([1, 2])), VECTOR),
    "meshgrid": (lambda a: np.meshgrid(a, a[:2] * 2), VECTOR),
    "meshgrid ij": (lambda a: np.meshgrid(a, a[:3], indexing="ij"), VECTOR),
    "cross": (lambda a: np.cross(a[:3], a[1:]), VECTOR),
    "cross rows": (lambda a: np.cross(a[:, :3], a[:, 1:]), MATRIX),
    "cross ints": (lambda a: np.cross(a[0], a[1]), INTS),
    "cross bad": (lambda a: np.cross(a, a), VECTOR),
    "digitize": (lambda a: np.digitize(a, np.array([0.0, 2.0, 3.0])), VECTOR),
    "digitize right": (lambda a: np.digitize(a, np.array([0.0, 2.0, 3.0]), True), VECTOR),
    "digitize down": (lambda a: np.digitize(a, np.array([3.0, 2.0, 0.0])), VECTOR),
    "digitize down, right": (lambda a: np.digitize(a, np.array([3.0, 2.0, 0.0]), True), VECTOR),
    "digitize scalar": (lambda a: np.digitize(a[2], np.array([0.0, 2.0, 3.0]), True), VECTOR),
    "trapezoid": (lambda a: np.trapezoid(a), VECTOR),
    "trapezoid x": (lambda a: np.trapezoid(a, a * a), VECTOR),
    "trapezoid dx": (lambda a: np.trapezoid(a, dx=0.5), VECTOR),
    "asfortranarray": (lambda a: np.asfortranarray(a), MATRIX),
    "swapaxes": (lambda a: np.swapaxes(a, -1, 0), CUBE),
    "swapaxes method": (lambda a: a.swapaxes(1, 1), MATRIX),
    "swapaxes bad": (lambda a: np.swapaxes(a, 0, 3), MATRIX),
    "atleast_1d": (lambda a: np.atleast_1d(a), MATRIX),
    "atleast_2d of 1-d": (lambda a: np.atleast_2d(a), VECTOR),
    "atleast_3d of 1-d": (lambda a: np.atleast_3d(a), VECTOR),
    "atleast_3d of 2-d": (lambda a: np.atleast_3d(a), MATRIX),
    "column_stack vectors": (lambda a: np.column_stack((a, a * 2)), VECTOR),
    "column_stack matrices": (lambda a: np.column_stack((a, a)), MATRIX),
    "tril": (lambda a: np.tril(a), MATRIX),
    "triu k": (lambda a: np.triu(a, 1), MATRIX),
    "tril of 3-d": (lambda a: np.tril(a, -1), CUBE),
    "take": (lambda a: np.take(a, np.array([0, -1, 5])), MATRIX),
    "take scalar": (lambda a: a.take(3), MATRIX),
    "take out of range": (lambda a: np.take(a, np.array([100])), MATRIX),
    "delete": (lambda a: np.delete(a, -1), MATRIX),
    "delete many": (lambda a: np.delete(a, np.array([0, 2])), VECTOR),
    "append": (lambda a: np.append(a, a), MATRIX),
    "append scalar": (lambda a: np.append(a, 2.5), INTS),
    "insert": (lambda a: np.insert(a, 1, 9.0), VECTOR),
    "insert array": (lambda a: np.insert(a, -1, np.array([7.0, 8.0])), MATRIX),
    "split": (lambda a: np.split(a, 3), MATRIX),
    "split unequal": (lambda a: np.split(a, 2), MATRIX),
    "split at": (lambda a: np.split(a, np.array([2, 1, 10])), MATRIX),
    "array_split": (lambda a: np.array_split(a, 3), VECTOR),
    "array_split more than rows": (lambda a: np.array_split(a, 5), MATRIX),
}  # fmt: skip


def test_fill_diagonal_writes_in_place():
    @njit
    def marked(a):
        b = a.copy()
        np.fill_diagonal(b, -1.0)
        return b

    _same(marked(MATRIX), marked.py_func(MATRIX))


@pytest.mark.parametrize("name", list(CASES))
def test_manipulation_matches_numpy(name):
    func, arg = CASES[name]
    _check(func, arg)


NAN_FUNCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                 "nanargmax", "nanargmin", "nanmedian"]  # fmt: skip
SAMPLES = [
    RNG.normal(size=11),
    np.array([1.0, np.nan, 3.0, -2.0, np.nan]),
    np.array([np.nan, np.nan]),
    np.array([], np.float64),
    np.arange(7),
    RNG.normal(size=(3, 4)),
    np.array([2.5]),
]


@pytest.mark.parametrize("name", NAN_FUNCTIONS)
def test_nan_functions_match_numpy(name):
    func = njit(eval(f"lambda a: np.{name}(a)"))  # noqa: S307 - a fixed NumPy name
    for sample in SAMPLES:
        expected, expected_error = _outcome(func.py_func, sample)
        compiled, compiled_error = _outcome(func, sample)
        assert compiled_error == expected_error, (name, sample)
        if expected_error is None:
            np.testing.assert_allclose(compiled, expected, rtol=1e-13, atol=0, equal_nan=True)


@njit
def _percentiles(a, q):
    return np.percentile(a, q), np.nanpercentile(a, q), np.quantile(a, q / 100)


@pytest.mark.parametrize("q", [0, 12.5, 50, 99, 100, -1, 101])
def test_percentiles_equal_numpys(q):
    percentiles = _percentiles
    for sample in SAMPLES:
        expected, expected_error = _outcome(percentiles.py_func, sample, q)
        compiled, compiled_error = _outcome(percentiles, sample, q)
        assert compiled_error == expected_error, (q, sample)
        if expected_error is None:
            np.testing.assert_array_equal(np.array(compiled), np.array(expected))


def test_quantiles_of_an_array_of_q():
    @njit
    def quartiles(a):
        return np.quantile(a, np.array([0.25, 0.5, 0.75])), np.percentile(a, np.array([10, 90]))

    sample = RNG.normal(size=25)
    _same(quartiles(sample), quartiles.py_func(sample))


@njit
def _stats(a, q):
    return np.nanpercentile(a, q), np.nansum(a), np.nanmax(a), np.percentile(a, q)


@njit
def _shuffled(a, shift, count):
    bins = np.array([-10, 0, 10])
    return np.roll(a, shift), np.repeat(a, count), np.tile(a, count), np.digitize(a, bins)


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(-1e6, 1e6) | st.just(np.nan)),
    st.floats(0, 100),
)
def test_hypothesis_percentile_and_nan_reductions(values, q):
    stats = _stats
    expected, expected_error = _outcome(stats.py_func, values, q)
    compiled, compiled_error = _outcome(stats, values, q)
    assert compiled_error == expected_error
    if expected_error is None:
        np.testing.assert_array_equal(compiled[0], expected[0])
        np.testing.assert_allclose(compiled[1], expected[1], rtol=1e-9, atol=1e-6)
        np.testing.assert_array_equal(compiled[2:], expected[2:])


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.int64, st.integers(0, 12), elements=st.integers(-50, 50)),
    st.integers(-20, 20),
    st.integers(0, 3),
)
def test_hypothesis_roll_repeat_tile_digitize(values, shift, count):
    _same(_shuffled(values, shift, count), _shuffled.py_func(values, shift, count))
