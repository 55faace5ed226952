"""NumPy features found missing or wrong by running Numba's test-suite use cases under ember
(second round: array-like arguments to argwhere/atleast_*/broadcast_to, as_strided forms, ...),
each checked against NumPy itself."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember


def _same(got, expected):
    """Same Python kind, and for arrays the same dtype, shape and (NaN-aware) values."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, equal_nan=True)
    else:
        assert np.isscalar(got) and (got == expected or (got != got and expected != expected))


# ---------------------------------------------------------------------------- array-likes


@ember.njit
def _argwhere(a):
    return np.argwhere(a)


@pytest.mark.parametrize(
    "value",
    [
        3,
        0,
        False,
        2 + 1j,
        np.nan,
        (1.0, 0.0, 2.0),
        ((1.5, 0.0), (3.0, 4.0)),
        (),
        (True, False, True),
        np.array(5),
        np.array(0),
    ],  # fmt: skip
)
def test_argwhere_of_scalars_tuples_and_0d_arrays(value):
    _same(_argwhere(value), np.argwhere(value))


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
                  elements=st.sampled_from([0.0, 1.0, np.nan])))  # fmt: skip
@settings(max_examples=25, deadline=None)
def test_argwhere_matches_numpy(a):
    _same(_argwhere(a), np.argwhere(a))


@ember.njit
def _atleast_several(a, b):
    return np.atleast_1d(a, b), np.atleast_2d(a, b), np.atleast_3d(a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        (np.array(1), np.array(2j)),
        (np.arange(5), np.ones((2, 3), np.complex128)),
        (np.arange(24).reshape(2, 3, 4)[:, ::2], 4.5),
    ],  # fmt: skip
)
def test_atleast_nd_of_several_arrays_gives_a_tuple(a, b):
    got = _atleast_several(a, b)
    _same(got, (np.atleast_1d(a, b), np.atleast_2d(a, b), np.atleast_3d(a, b)))


def test_atleast_nd_of_one_array_stays_an_array():
    a = np.arange(3.0)
    _same(ember.njit(lambda x: np.atleast_2d(x))(a), np.atleast_2d(a))


@ember.njit
def _broadcast_to(a, shape):
    return np.broadcast_to(a, shape)


@pytest.mark.parametrize(
    "a, shape",
    [((1, 2), (2, 2)), (np.array(5), ()), (123, ()), (True, ()), ((1.5,), (3, 2))],
)
def test_broadcast_to_of_tuples_and_empty_shape(a, shape):
    _same(_broadcast_to(a, shape), np.broadcast_to(a, shape))


@ember.njit
def _as_strided_strides_only(a, strides):
    return np.lib.stride_tricks.as_strided(a, strides=strides)


def test_as_strided_with_strides_only_keeps_the_shape():
    a = np.arange(24)
    _same(_as_strided_strides_only(a, (16,)), np.lib.stride_tricks.as_strided(a, strides=(16,)))
    b = np.arange(24.0).reshape(6, 4)
    _same(_as_strided_strides_only(b, (16, 8)), np.lib.stride_tricks.as_strided(b, strides=(16, 8)))


# ---------------------------------------------------------------------------- digitize / extract


@ember.njit
def _digitize(x, bins, right):
    return np.digitize(x, bins, right)


_EDGES = [0.0, 1.0, 2.0, 3.0, np.nan, -np.inf, np.inf]


@given(
    st.lists(st.sampled_from(_EDGES), max_size=6),
    st.booleans(),
    hnp.arrays(np.float64, st.integers(0, 6), elements=st.sampled_from([-1.0, 1.5, 2.0, np.nan])),
    st.booleans(),
)
@settings(max_examples=25, deadline=None)
def test_digitize_with_nan_edges_matches_numpy(edges, descending, x, right):
    bins = np.sort(np.array(edges, np.float64))
    if descending:
        bins = bins[::-1]
    _same(_digitize(x, bins, right), np.digitize(x, bins, right))


def test_digitize_of_lists_and_its_monotonic_check():
    _same(_digitize([1, 5, 4, 10], [1, 5, 10], False), np.digitize([1, 5, 4, 10], [1, 5, 10]))
    _same(
        _digitize(np.arange(4.0), [3.0, 0.5], True), np.digitize(np.arange(4.0), [3.0, 0.5], True)
    )
    with pytest.raises(ValueError, match="monotonically"):
        _digitize(np.arange(3.0), np.array([0.0, 0.0, 1.0, 0.0]), False)


@ember.njit
def _extract(condition, arr):
    return np.extract(condition, arr)


@pytest.mark.parametrize(
    "condition, arr",
    [
        ((True, 1.0, 0.0), np.arange(3.0)),
        ((1, 1.0, 0, 2j), np.arange(6.0).reshape(2, 3)),
        ([1, 0], 5.0),
        ((), np.arange(3)),
    ],  # fmt: skip
)
def test_extract_of_tuple_list_and_scalar_arguments(condition, arr):
    _same(_extract(condition, arr), np.extract(condition, arr))


# ---------------------------------------------------------------------------- 0-d array indices


@ember.njit
def _index_with_0d(a, i, j):
    return a[i, j], a[i][j], a[i, 1:], a[::2, j]


@given(st.integers(-4, 3), st.integers(-5, 4), st.sampled_from([np.int16, np.int32, np.uint8]))
@settings(max_examples=25, deadline=None)
def test_0d_integer_arrays_index_like_integers(i, j, dtype):
    a = np.arange(20).reshape(4, 5)
    i_0d, j_0d = np.array(i).astype(dtype), np.array(j).astype(dtype)
    if dtype is np.uint8 and (i < 0 or j < 0):
        return
    _same(_index_with_0d(a, i_0d, j_0d), (a[i_0d, j_0d], a[i_0d][j_0d], a[i_0d, 1:], a[::2, j_0d]))


def test_0d_integer_array_index_assigns():
    @ember.njit
    def assign(a, i, v):
        a[i] = v
        return a

    expected = np.arange(5.0)
    expected[np.array(-2)] = 7.5
    _same(assign(np.arange(5.0), np.array(-2), 7.5), expected)


# ---------------------------------------------------------------------------- np.polynomial

_poly = np.polynomial.polynomial
_polyutils = np.polynomial.polyutils


@ember.njit
def _poly_arithmetic(c1, c2):
    return (
        _poly.polyadd(c1, c2),
        _poly.polysub(c1, c2),
        _poly.polymul(c1, c2),
        _poly.polydiv(c1, c2),
    )


def _numpy_poly_arithmetic(c1, c2):
    return (
        _poly.polyadd(c1, c2),
        _poly.polysub(c1, c2),
        _poly.polymul(c1, c2),
        _poly.polydiv(c1, c2),
    )


_coefficients = hnp.arrays(
    np.float64, st.integers(1, 5), elements=st.sampled_from([0.0, 1.0, -2.0, 0.5, 3.0])
)


@given(_coefficients, _coefficients.filter(lambda c: c[np.nonzero(c)[0][-1:]].size > 0))
@settings(max_examples=25, deadline=None)
def test_polynomial_arithmetic_matches_numpy(c1, c2):
    c2 = c2[: np.nonzero(c2)[0][-1] + 1]  # a divisor ending in a zero raises in both
    _same(_poly_arithmetic(c1, c2), _numpy_poly_arithmetic(c1, c2))


@pytest.mark.parametrize(
    "c1, c2",
    [
        ([1, 2, 3], 2.5),
        ((1, 2, 0), np.array([3])),
        (np.array([1j, 2]), np.array([0.0, 0, 1.5])),
        (np.array([1.0, 2.0], np.float32), np.array([0.5], np.float32)),
    ],  # fmt: skip
)
def test_polynomial_arithmetic_of_mixed_arguments(c1, c2):
    _same(_poly_arithmetic(c1, c2), _numpy_poly_arithmetic(c1, c2))


def test_polynomial_errors_match_numpy():
    with pytest.raises(ZeroDivisionError):
        _poly_arithmetic(np.array([1.0, 2.0]), np.array([0.0, 0.0]))
    with pytest.raises(ValueError, match="empty"):
        _poly_arithmetic(np.array([1.0]), np.empty(0))
    with pytest.raises(ValueError, match="non-negative"):
        ember.njit(lambda c, m: _poly.polyint(c, m))(np.ones(2), -1)


@pytest.mark.parametrize(
    "x", [2.5, np.arange(3), np.arange(6.0).reshape(2, 3)[:, ::2], np.array(2.0), np.empty(0)]
)
@pytest.mark.parametrize("c", [[1, 2, 3], np.array([1.0, -2.0]), np.arange(4).reshape(2, 2)])
def test_polyval_matches_numpy(x, c):
    _same(ember.njit(lambda x, c: _poly.polyval(x, c))(x, c), _poly.polyval(x, c))
    tensor_off = ember.njit(lambda x, c: _poly.polyval(x, c, False))
    try:
        expected = _poly.polyval(x, c, False)
    except ValueError:  # the columns and x do not broadcast
        with pytest.raises(ValueError):
            tensor_off(x, c)
        return
    _same(tensor_off(x, c), expected)


@pytest.mark.parametrize(
    "c", [[1, 2, 3], np.array([0.0]), np.arange(4).reshape(2, 2), np.array([1j, np.nan])]
)
@pytest.mark.parametrize("m", [0, 3])
def test_polyint_matches_numpy(c, m):
    _same(ember.njit(lambda c, m: _poly.polyint(c, m))(c, m), _poly.polyint(c, m))
    with_constants = ember.njit(lambda c: _poly.polyint(c, 2, 3.0, 1.5, 2))
    _same(with_constants(c), _poly.polyint(c, 2, 3.0, 1.5, 2))


def test_as_series_and_trimseq_match_numpy():
    rows = np.arange(6.0).reshape(2, 3)
    mixed = (np.arange(3), [1.5, 0.0], 2)
    got = ember.njit(lambda a: _polyutils.as_series(a))(rows)
    assert isinstance(got, list)
    _same(tuple(got), tuple(_polyutils.as_series(rows)))
    got = ember.njit(lambda a: _polyutils.as_series(a, False))(mixed)
    _same(tuple(got), tuple(_polyutils.as_series(mixed, False)))
    got = ember.njit(lambda a: _polyutils.as_series(a))(mixed)
    _same(tuple(got), tuple(_polyutils.as_series(mixed)))
    trim = ember.njit(lambda a: _polyutils.trimseq(a))
    for seq in (np.array([1.0, 0, 0]), np.array([0.0, 0]), np.array([1.0, 0, 2])):
        _same(trim(seq), _polyutils.trimseq(seq))


# ---------------------------------------------------------------------------- np.interp

_interp = ember.njit(lambda x, xp, fp: np.interp(x, xp, fp))
_interp_ends = ember.njit(lambda x, xp, fp, left, right: np.interp(x, xp, fp, left, right))
_SAMPLES = [np.nan, np.inf, -np.inf, 0.0, 1.0, 2.0, 3.0, 4.5]


@given(
    st.lists(st.sampled_from(_SAMPLES), min_size=1, max_size=11),
    st.data(),
    st.booleans(),
    st.booleans(),
)
@settings(max_examples=25, deadline=None)
def test_interp_with_non_finite_points_matches_numpy(xp_list, data, sort_xp, complex_fp):
    """Infinite and NaN sample points and values, exact hits, unsorted xp: NumPy's answers."""
    n = len(xp_list)
    xp = np.sort(np.array(xp_list)) if sort_xp else np.array(xp_list)
    fp = np.array(data.draw(st.lists(st.sampled_from(_SAMPLES), min_size=n, max_size=n)))
    if complex_fp:
        fp = fp + 1j * fp[::-1]
    x = np.array(data.draw(st.lists(st.sampled_from([*_SAMPLES, -1.0, 2.5, 10.0]), max_size=7)))
    with np.errstate(invalid="ignore"):
        expected = np.interp(x, xp, fp)
    _same(_interp(x, xp, fp), expected)


@pytest.mark.parametrize(
    "x, xp, fp",
    [
        ((1.5, 2.0, 3.5), (1, 2, 3), (4, 5, 6)),
        (2, [1, 2, 3], (4, 5, 6)),
        (np.array(2.5), np.arange(3.0), np.arange(3.0)),
        (np.arange(12.0).reshape(3, 4)[:, ::2] / 3, np.arange(3), np.arange(3) * 2.0),
    ],  # fmt: skip
)
def test_interp_of_sequences_scalars_and_views(x, xp, fp):
    _same(_interp(x, xp, fp), np.interp(x, xp, fp))


def test_interp_left_right_and_errors():
    x, xp = np.arange(-1, 5.0), np.arange(3.0)
    for fp in (xp * 2, xp * 1j):
        _same(_interp_ends(x, xp, fp, -7.0, 9.0), np.interp(x, xp, fp, -7.0, 9.0))
    with pytest.raises(ValueError, match="empty"):
        _interp(x, np.empty(0), np.empty(0))
    with pytest.raises(ValueError, match="same length"):
        _interp(x, xp, xp[:2])


# ---------------------------------------------------------------------------- isclose / allclose

_CLOSE_VALUES = np.array([0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-9, 1e10])
_isclose = ember.njit(lambda a, b, r, t: np.isclose(a, b, rtol=r, atol=t))
_allclose = ember.njit(lambda a, b, r, t: np.allclose(a, b, rtol=r, atol=t))


@pytest.mark.parametrize("rtol, atol", [(1e-5, 1e-8), (0.0, 0.0), (np.inf, 0.0), (1.0, 1.0)])
def test_isclose_treats_infinities_as_numpy(rtol, atol):
    """An infinite b is close only to the same infinity, whatever the tolerances."""
    a, b = _CLOSE_VALUES[:, None] * np.ones(8), _CLOSE_VALUES[None, :] * np.ones((8, 1))
    with np.errstate(invalid="ignore"):
        _same(_isclose(a, b, rtol, atol), np.isclose(a, b, rtol=rtol, atol=atol))
        _same(_isclose(0, _CLOSE_VALUES, rtol, atol), np.isclose(0, _CLOSE_VALUES, rtol, atol))
        assert _isclose(-np.inf, np.inf, rtol, atol) == np.isclose(-np.inf, np.inf, rtol, atol)
        expected = np.allclose(_CLOSE_VALUES, _CLOSE_VALUES[::-1], rtol=rtol, atol=atol)
        assert _allclose(_CLOSE_VALUES, _CLOSE_VALUES[::-1], rtol, atol) == expected


# ---------------------------------------------------------------------------- nan_to_num, isposinf

_nan_to_num = ember.njit(
    lambda x, copy, nan, posinf, neginf: np.nan_to_num(
        x, copy=copy, nan=nan, posinf=posinf, neginf=neginf
    )
)


@pytest.mark.parametrize(
    "x",
    [
        np.nan,
        -np.inf,
        3,
        complex(np.nan, np.inf),
        np.array([np.nan, np.inf, -np.inf, 2.0]),
        np.array([1, 2]),
        np.array([complex(np.nan, -np.inf), 1j]),
        np.array([np.nan, np.inf], np.float32),
        np.arange(6.0).reshape(2, 3)[:, ::2] / 0,
    ],  # fmt: skip
)
@pytest.mark.parametrize("posinf, neginf", [(None, None), (11.0, -5.0), (None, -5.0)])
def test_nan_to_num_scalars_ints_complex_and_bounds(x, posinf, neginf):
    with np.errstate(invalid="ignore"):
        expected = np.nan_to_num(x, nan=7.0, posinf=posinf, neginf=neginf)
    got = _nan_to_num(x, True, 7.0, posinf, neginf)
    if np.isscalar(expected):
        assert np.isscalar(got) and np.array_equal(got, expected, equal_nan=True)
    else:
        _same(got, expected)


def test_nan_to_num_without_copy_writes_into_the_view():
    base = np.array([[np.nan, 1.0, np.inf], [-np.inf, 2.0, np.nan]])
    ours, theirs = base.copy(), base.copy()
    got = _nan_to_num(ours[:, ::2], False, 0.0, None, None)
    np.nan_to_num(theirs[:, ::2], copy=False)
    _same(ours, theirs)
    _same(got, theirs[:, ::2])


def test_isposinf_isneginf_with_out():
    x = np.array([1.0, np.inf, -np.inf])
    positive = ember.njit(lambda x, out: np.isposinf(x, out))
    negative = ember.njit(lambda x, out: np.isneginf(x, out))
    _same(positive(x, None), np.isposinf(x, None))
    _same(negative(x, np.zeros(3)), np.isneginf(x, np.zeros(3)))
    _same(negative(-np.inf, np.zeros(2, bool)), np.isneginf(-np.inf, np.zeros(2, bool)))


# ---------------------------------------------------------------------------- complex max/min

_COMPLEX_EDGES = [complex(r, i) for r in (0.0, 1.0, np.nan, -np.inf) for i in (0.0, 1.0, np.nan)]


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum, np.fmax, np.fmin])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_maximum_minimum_follow_numpy_order_and_nans(ufunc, dtype):
    pairs = [(x, y) for x in _COMPLEX_EDGES for y in _COMPLEX_EDGES]
    a = np.array([x for x, _ in pairs], dtype)
    b = np.array([y for _, y in pairs], dtype)
    out = np.empty(len(pairs), dtype)
    ember.njit(lambda x, y, o: ufunc(x, y, o))(a, b, out)
    with np.errstate(invalid="ignore"):
        expected = ufunc(a, b)
    real = np.float32 if dtype is np.complex64 else np.float64
    np.testing.assert_array_equal(out.view(real), expected.view(real))


# ---------------------------------------------------------------------------- divmod into outputs


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.float64])
def test_divmod_writes_both_outputs(dtype):
    a = np.array([7, -7, 5, 0, 100, 3], dtype)
    b = np.array([2, 3, -2, 5, 7, 0], dtype)
    positional = ember.njit(lambda a, b, o1, o2: np.divmod(a, b, o1, o2))
    keyword = ember.njit(lambda a, b, o1, o2: np.divmod(a, b, out=(o1, o2)))
    with np.errstate(all="ignore"):
        expected = np.divmod(a, b)
    for compiled in (positional, keyword):
        first, second = np.empty_like(a), np.empty_like(a)
        with np.errstate(all="ignore"):
            got = compiled(a, b, first, second)
        assert got[0] is first and got[1] is second
        _same((first, second), expected)


# ---------------------------------------------------------------------------- roll


@pytest.mark.parametrize(
    "a, shift",
    [
        (np.arange(7), True),
        (np.asfortranarray(np.arange(6.0).reshape(2, 3)), 2),
        (5, 1),
        (True, False),
        ((True, False, True), 1),
        ([1.5, 2.5, 3.5], -1),
        ((), 3),
    ],  # fmt: skip
)
def test_roll_of_array_likes_and_bool_shift(a, shift):
    _same(ember.njit(lambda a, s: np.roll(a, s))(a, shift), np.roll(a, shift))


# ---------------------------------------------------------------------------- np.recarray


def test_recarray_arguments_read_and_write_fields():
    dtype = np.dtype([("a", "<f8"), ("b", "<i2"), ("c", "<c8")])
    ours, theirs = np.recarray(3, dtype=dtype), np.recarray(3, dtype=dtype)
    for records in (ours, theirs):
        records.a, records.b, records.c = [1.5, 2.5, 3.5], [1, 2, 3], [1j, 2, 3]

    @ember.njit
    def update(ary, i, v):
        ary[i].a = v
        return ary[i].a + ary[i].b, ary.a.sum(), ary[1:].b.copy()

    got = update(ours, 0, 9.25)
    theirs[0].a = 9.25
    _same(got, (theirs[0].a + theirs[0].b, theirs.a.sum(), np.asarray(theirs[1:].b).copy()))
    _same(np.asarray(ours).view(np.uint8), np.asarray(theirs).view(np.uint8))


# ---------------------------------------------------------------------------- searchsorted

_search_left = ember.njit(lambda a, v: np.searchsorted(a, v))
_search_right = ember.njit(lambda a, v: np.searchsorted(a, v, side="right"))


@pytest.mark.parametrize(
    "a, v",
    [
        (np.array([0, 1, 1, 4, 9]), [-1, 0, 1, 2]),
        ([0, 1, 4, 9], -1),
        ((0.0, 1.0, 4.0), (1.0, 5.0)),
        ([0, 1, 1, 4], np.array([1, 3])),
        ([0, 1, 1, 4], 1),
    ],  # fmt: skip
)
def test_searchsorted_of_lists_and_tuples(a, v):
    for compiled, side in ((_search_left, "left"), (_search_right, "right")):
        got, expected = compiled(a, v), np.searchsorted(a, v, side=side)
        assert np.shape(got) == np.shape(expected) and np.array_equal(got, expected)


def test_isscalar_of_datetimes_and_timedeltas():
    isscalar = ember.njit(lambda x: np.isscalar(x))
    for value in (np.timedelta64(10, "Y"), np.datetime64("NaT"), np.datetime64("1971"), 2.0):
        assert isscalar(value) == np.isscalar(value)
    assert isscalar(np.array(1)) == np.isscalar(np.array(1))


@given(
    hnp.arrays(np.float64, st.integers(0, 6), elements=st.sampled_from([0.0, 1.0, np.nan, np.inf])),
    hnp.arrays(
        np.float64, st.integers(0, 4), elements=st.sampled_from([1.0, 1.5, np.nan, -np.inf])
    ),
)
@settings(max_examples=25, deadline=None)
def test_searchsorted_puts_nan_last_as_numpy(a, v):
    a = np.sort(a)
    _same(_search_left(a, v), np.searchsorted(a, v))
    _same(_search_right(a, v), np.searchsorted(a, v, side="right"))


def test_searchsorted_puts_nat_last_as_numpy():
    nat = np.datetime64("NaT")
    a = np.sort(np.array([5, nat, -1, 9, nat], "datetime64[ns]"))
    v = np.array([nat, 5, -3], "datetime64[ns]")
    _same(_search_left(a, v), np.searchsorted(a, v))
    _same(_search_right(a, v), np.searchsorted(a, v, side="right"))
