"""Window functions, array queries (np.shape, np.isscalar, np.finfo...), index grids,
np.geomspace, np.diag(k=), np.asarray of scalars and tuples, `a.ctypes` and scalar views in
compiled code, against NumPy."""

import numpy as np
import pytest

import ember
from ember.errors import TypingError


@ember.njit
def _windows(m, beta):
    return np.bartlett(m), np.blackman(m), np.hamming(m), np.hanning(m), np.kaiser(m, beta)


@pytest.mark.parametrize("m", [-1, 0, 1, 2, 5, 8, 13])
def test_windows_match_numpy(m):
    for beta in (0.0, 3.5, 14.0):
        got = _windows(m, beta)
        expected = (np.bartlett(m), np.blackman(m), np.hamming(m), np.hanning(m),
                    np.kaiser(m, beta))  # fmt: skip
        for g, e in zip(got, expected):
            assert g.dtype == np.float64
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-15)


@ember.njit
def _queries(a):
    return (np.shape(a), np.size(a), np.ndim(a), np.isscalar(a), np.iscomplexobj(a),
            np.isrealobj(a), np.iscomplex(a), np.isreal(a))  # fmt: skip


@ember.njit
def _scalar_queries(x):
    return np.shape(x), np.size(x), np.ndim(x), np.isscalar(x), np.iscomplex(x), np.isreal(x)


@pytest.mark.parametrize(
    "a",
    [np.ones((2, 3)), np.arange(4), np.array([1 + 0j, 2j, -3.5 + 0j]), np.zeros((0, 2)),
     np.ones((3, 4))[:, ::2]],
)  # fmt: skip
def test_array_queries(a):
    got = _queries(a)
    expected = (np.shape(a), np.size(a), np.ndim(a), np.isscalar(a), np.iscomplexobj(a),
                np.isrealobj(a), np.iscomplex(a), np.isreal(a))  # fmt: skip
    assert got[:6] == expected[:6]
    np.testing.assert_array_equal(got[6], expected[6])
    np.testing.assert_array_equal(got[7], expected[7])


@pytest.mark.parametrize("x", [2.5, -3, 1 + 2j, 4 + 0j])
def test_scalar_queries(x):
    expected = (np.shape(x), np.size(x), np.ndim(x), np.isscalar(x), np.iscomplex(x),
                np.isreal(x))  # fmt: skip
    assert _scalar_queries(x) == expected


@ember.njit
def _chkfinite(a):
    return np.asarray_chkfinite(a)


def test_asarray_chkfinite():
    a = np.array([1.0, -2.0, 3.5])
    np.testing.assert_array_equal(_chkfinite(a), a)
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="infs or NaNs"):
            _chkfinite(np.array([1.0, bad]))


@ember.njit
def _limits(a, i):
    f64, f32 = np.finfo(np.float64), np.finfo(a.dtype)
    return (f64.eps, f64.max, f64.tiny, f64.bits, f32.eps, f32.max, np.finfo(np.float32).bits,
            np.iinfo(np.int32).max, np.iinfo(np.uint8).min, np.iinfo(i.dtype).min,
            np.iinfo(np.int16).bits)  # fmt: skip


def test_finfo_and_iinfo():
    got = _limits(np.ones(2, np.float32), np.ones(2, np.int64))
    f32 = np.finfo(np.float32)
    expected = (np.finfo(np.float64).eps, np.finfo(np.float64).max, np.finfo(np.float64).tiny,
                64, float(f32.eps), float(f32.max), 32, 2**31 - 1, 0, -(2**63), 16)  # fmt: skip
    assert got == expected


def test_finfo_of_integers_is_a_typing_error():
    with pytest.raises(TypingError):
        ember.njit(lambda: np.finfo(np.int64).eps)()


@ember.njit
def _triangle_indices(n, k, m, a):
    return (
        np.tril_indices(n),
        np.triu_indices(n, k),
        np.tril_indices(n, k, m),
        np.triu_indices(n, k, m),
        np.tril_indices_from(a),
        np.triu_indices_from(a, k),
    )


@pytest.mark.parametrize("n, k, m", [(3, 0, 4), (4, 1, 2), (3, -1, 3), (0, 0, 0), (2, 5, 3)])
def test_triangle_indices(n, k, m):
    a = np.ones((n, m))
    got = _triangle_indices(n, k, m, a)
    expected = (
        np.tril_indices(n),
        np.triu_indices(n, k),
        np.tril_indices(n, k, m),
        np.triu_indices(n, k, m),
        np.tril_indices_from(a),
        np.triu_indices_from(a, k),
    )
    for g, e in zip(got, expected):
        for part_got, part_expected in zip(g, e):
            np.testing.assert_array_equal(part_got, part_expected)


@ember.njit
def _indices_2d(shape):
    return np.indices(shape)


@ember.njit
def _indices_3d(shape):
    return np.indices(shape)


def test_indices():
    for shape in [(2, 3), (0, 4), (1, 1)]:
        np.testing.assert_array_equal(_indices_2d(shape), np.indices(shape))
    np.testing.assert_array_equal(_indices_3d((2, 1, 3)), np.indices((2, 1, 3)))


@ember.njit
def _geomspace(start, stop, num, endpoint):
    return np.geomspace(start, stop, num, endpoint)


@pytest.mark.parametrize(
    "start, stop, num, endpoint",
    [(1.0, 1000.0, 4, True), (-1.0, -100.0, 3, True), (2.0, 32.0, 5, False), (1.0, 2.0, 0, True),
     (5.0, 0.5, 7, True), (3.0, 3.0, 1, True)],
)  # fmt: skip
def test_geomspace(start, stop, num, endpoint):
    expected = np.geomspace(start, stop, num, endpoint=endpoint)
    np.testing.assert_allclose(_geomspace(start, stop, num, endpoint), expected, rtol=1e-13)


def test_geomspace_of_zero_raises():
    with pytest.raises(ValueError, match="zero"):
        _geomspace(0.0, 1.0, 3, True)


@ember.njit
def _diag(v, k):
    return np.diag(v, k)


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 6])
def test_diag_with_offsets(k):
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(_diag(m, k), np.diag(m, k))
    np.testing.assert_array_equal(_diag(m[:, ::-1], k), np.diag(m[:, ::-1], k))
    v = np.array([1, -2, 3])
    np.testing.assert_array_equal(_diag(v, k), np.diag(v, k))


@ember.njit
def _asarray_values(x, t):
    return np.asarray(x), np.asarray(t), np.asarray(t, np.float32)


def test_asarray_of_numbers_and_tuples():
    for x, t in [(3.0, (1, 2, 3)), (-2, ((1.5, 2.0), (3.0, 4.0)))]:
        got = _asarray_values(x, t)
        expected = (np.asarray(x), np.asarray(t), np.asarray(t, np.float32))
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g, e)
            assert g.dtype == e.dtype and g.shape == e.shape


@ember.njit
def _ctypes(a):
    return a.ctypes.data, a.ctypes.shape, a.ctypes.strides


def test_ctypes_data_is_the_address():
    a = np.arange(12.0).reshape(3, 4)
    for view in (a, a[1:], a[:, ::2]):
        assert _ctypes(view) == (view.ctypes.data, view.shape, view.strides)


@ember.njit
def _views(x, i):
    return x.view(np.int64), i.view(np.uint64), np.float32(x).view(np.int32)


def test_scalar_views_reinterpret_bits():
    for x, i in [(3.5, -1), (-0.0, 7), (np.inf, 2**62)]:
        expected = (np.float64(x).view(np.int64), np.int64(i).view(np.uint64),
                    np.float32(x).view(np.int32))  # fmt: skip
        assert _views(x, i) == expected


def test_scalar_view_of_another_width_is_a_typing_error():
    with pytest.raises(TypingError):
        ember.njit(lambda x: x.view(np.int32))(1.5)
