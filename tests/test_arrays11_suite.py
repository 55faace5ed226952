"""arrays11: np.pad (every mode), np.dtype(object) as a value, and NumPy keywords and functions
added this round; each compiled function compared with NumPy running the same Python function on
many inputs (C, Fortran, strided, empty, NaN)."""

import warnings

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError
from tests.oracle import assert_frees_all

RNG = np.random.default_rng(11)


def _exactly(got, want):
    """Same dtype, shape and values (NaN where NumPy has NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), (got, want)


def _close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)


def _same_outcome(jitted, func, *args, compare=_exactly):
    """jitted(*args) gives NumPy's value, or raises the exception type NumPy raises."""
    try:
        want = func(*args)
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        with pytest.raises(type(error)):
            jitted(*args)
        return
    compare(jitted(*args), want)


# ---------------------------------------------------------------------------- np.pad


def _pads(a):
    """Every mode and keyword form on one 2-d array."""
    return (
        np.pad(a, ((1, 2), (0, 3)), constant_values=((7, 8), (9, 10))),
        np.pad(a, ((3, 1), (2, 0)), mode="edge"),
        np.pad(a, ((7, 1), (2, 9)), mode="wrap"),
        np.pad(a, ((7, 1), (2, 9)), mode="reflect", reflect_type="odd"),
        np.pad(a, ((7, 1), (2, 9)), mode="symmetric", reflect_type="odd"),
        np.pad(a, ((3, 1), (2, 4)), mode="maximum"),
        np.pad(a, ((3, 1), (2, 4)), mode="mean", stat_length=((1, 2), (3, 1))),
        np.pad(a, ((3, 1), (2, 4)), mode="linear_ramp", end_values=((1, -2), (5, 0))),
        np.pad(a, 1, mode="empty").shape,
    )


def _same_tuple(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _exactly(g, w)


def test_pad_every_mode():
    """Corners take the values the earlier axes put there; pads wider than the array repeat
    (wrap) or reflect again and again (reflect/symmetric, even and odd), as in NumPy; modes
    other than 'constant' raise NumPy's ValueError on an empty axis."""
    jitted = njit(_pads)
    for a in (
        np.arange(12.0).reshape(3, 4),
        np.arange(12.0).reshape(4, 3) ** 1.5,
        np.array([[1.5]]),
        np.array([[np.nan, 1.0], [2.0, -3.0]]),
        np.array([[4.0, 1.0, -2.0, 8.5, 0.0]]),
        np.zeros((0, 3)),
    ):
        _same_outcome(jitted, _pads, a, compare=_same_tuple)


def _pad_views(a):
    return (np.pad(a, ((2, 5), (3, 1)), "reflect"),)


PAD_VIEWS = njit(_pad_views)  # one dispatcher: the layouts test and the frees test share it


def _pads_1d(a):
    return (
        np.pad(a, (6, 9), "symmetric", reflect_type="odd"),
        np.pad(a, 2, "median", stat_length=2),
        np.pad(a, (2, 3), "linear_ramp", end_values=(-3, 7)),
    )


def test_pad_layouts_ranks_and_dtypes():
    """Fortran and strided views; 1-d integers (means rounded half to even, ramps floored as in
    NumPy 2); empty axes ('constant' pads them, other modes raise NumPy's ValueError); 3-d;
    complex."""
    views = PAD_VIEWS
    wide = np.arange(30.0).reshape(5, 6)
    for a in (np.asfortranarray(wide), wide[::2, ::-2]):
        _same_outcome(views, _pad_views, a, compare=_same_tuple)
    jitted = njit(_pads_1d)
    for a in (np.arange(5) ** 2, np.array([3, 8, 1, 6, 2]), np.array([7])):
        _same_tuple(jitted(a), _pads_1d(a))
    cube = njit(lambda a: np.pad(a, ((1, 0), (0, 2), (3, 1)), "symmetric"))
    a = np.arange(24.0).reshape(2, 3, 4)
    _exactly(cube(a), np.pad(a, ((1, 0), (0, 2), (3, 1)), "symmetric"))
    ramp = njit(lambda a: np.pad(a, (1, 2), "linear_ramp"))
    c = np.arange(6).reshape(2, 3) + 1j
    _exactly(ramp(c), np.pad(c, (1, 2), "linear_ramp"))


def test_pad_errors_and_frees():
    negative = njit(lambda a: np.pad(a, -1))
    with pytest.raises(ValueError, match="negative"):
        negative(np.arange(3.0))
    no_values = njit(lambda a: np.pad(a, 1, "maximum", stat_length=0))
    with pytest.raises(ValueError, match="stat_length of 0"):
        no_values(np.arange(3.0))
    for source in (
        lambda a, m: np.pad(a, 1.5),
        lambda a, m: np.pad(a, 1, m),
        lambda a, m: np.pad(a, 1, "foo"),
        lambda a, m: np.pad(a, (1, 2, 3)),
    ):
        with pytest.raises(TypingError, match="np.pad"):
            njit(source)(np.arange(3.0), "edge")
    zero_d = njit(lambda a: np.pad(a, 2, "edge"))
    _exactly(zero_d(np.array(4.0)), np.pad(np.array(4.0), 2, "edge"))
    fortran = np.asfortranarray(np.arange(12.0).reshape(3, 4))  # compiled by the layouts test
    assert_frees_all(PAD_VIEWS, lambda: fortran.copy(order="F"), calls=20)


# ---------------------------------------------------------------------------- np.dtype(object)


def _uses_dtype(x, dt):
    return x + 1, dt == np.float64, dt == np.dtype("O"), dt.kind, dt.itemsize, dt, np.dtype(dt)


def test_object_dtype_is_a_value():
    """np.dtype(object) passes in, compares, answers .kind/.itemsize and goes back out as itself
    (numpy-groupies hands it to its jitted loops)."""
    jitted = njit(_uses_dtype)
    for dt in (np.dtype(object), np.dtype("f8"), np.dtype(np.int32)):
        got = jitted(2, dt)
        assert got == _uses_dtype(2, dt)
    assert njit(lambda dt: 7)(np.dtype(object)) == 7


@pytest.mark.parametrize(
    "body",
    [
        "np.zeros(n, dt)",
        "np.empty((n, 2), dtype=dt)",
        "np.full(n, 1, dt)",
        "np.arange(n).astype(dt)",
        "np.array([1, 2], dt)",
        "np.asarray(np.arange(n), dtype=dt)",
        "np.sum(np.arange(n), dtype=dt)",
    ],
)
def test_object_dtype_arrays_are_refused(body):
    """Making an array of Python objects in compiled code: a TypingError naming dtype=object,
    never a lowering crash."""
    namespace = {"np": np}
    exec(f"def make(n, dt):\n    return {body}\n", namespace)  # noqa: S102
    with pytest.raises(TypingError, match="dtype=object"):
        njit(namespace["make"])(3, np.dtype(object))


# ---------------------------------------------------------------------------- np.diff ends


def _diffs(a):
    return (
        np.diff(a, prepend=0.0),
        np.diff(a, 2, 0, prepend=a[-1:], append=np.full((1, a.shape[1]), 7.0)),
        np.diff(a, 1, -2, append=5),
    )


def test_diff_prepend_append():
    """Numbers join as one-item-thick blocks, arrays as they are, before differencing along
    the axis (C, Fortran, strided-empty and NaN inputs); n=0 returns the array itself."""
    jitted = njit(_diffs)
    for a in (np.arange(12.0).reshape(3, 4), np.zeros((0, 2)), np.array([[np.nan, 1.0]])):
        _same_tuple(jitted(a), _diffs(a))
    fortran = njit(lambda a: np.diff(a, axis=0, prepend=-1.0))
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4) ** 2)
    _exactly(fortran(a), fortran.py_func(a))
    ints = njit(lambda a: (np.diff(a, prepend=1), np.diff(a, append=np.array([2.5]))))
    a = np.arange(5) ** 2
    _same_tuple(ints(a), ints.py_func(a))
    unchanged = njit(lambda a: np.diff(a, 0, append=1))
    _exactly(unchanged(a), a)


# ---------------------------------------------------------------------------- partition axis


def _partitions(a):
    return (
        np.partition(a, 1, axis=0),
        np.partition(a, -2, axis=None),
        np.argpartition(a, (0, 2), axis=-2),
        np.partition(a, 2, 1),
    )


def test_partition_along_any_axis():
    """The kth items are the sorted ones, smaller before and larger after, along axis 0, the
    last axis and the flattened array (NumPy promises nothing more of the order)."""
    jitted = njit(_partitions)
    for a in (RNG.standard_normal((4, 5)), RNG.integers(0, 5, (3, 6)).astype(float)):
        by_rows, flat, arg_two, by_cols = jitted(a)
        rows, cols = np.sort(a, axis=0), np.sort(a, axis=-1)
        assert np.array_equal(by_rows[1], rows[1])
        assert np.all(by_rows[:1] <= by_rows[1]) and np.all(by_rows[2:] >= by_rows[1])
        assert flat.shape == (a.size,) and flat[-2] == np.sort(a, axis=None)[-2]
        assert np.array_equal(np.take_along_axis(a, arg_two, 0)[[0, 2]], rows[[0, 2]])
        assert np.array_equal(by_cols[:, 2], cols[:, 2])
        for got, want in zip(jitted(a), _partitions(a)):
            assert got.dtype == want.dtype and got.shape == want.shape
    strided = njit(lambda a, axis: np.partition(a, 1, axis=axis))
    a = RNG.standard_normal((6, 8))[::2, ::-2]
    assert np.array_equal(strided(a, 0)[1], np.sort(a, axis=0)[1])
    with pytest.raises(np.exceptions.AxisError):
        strided(a, 2)


# ---------------------------------------------------------------------------- put_along_axis


def _put_along(a, indices, values, axis):
    out = a.copy()
    np.put_along_axis(out, indices, values, axis)
    return out


def test_put_along_axis():
    """NumPy's broadcasting of indices and values (scalar or array), negative indices, later
    duplicates winning, its IndexError out of bounds, and axis=None on a Fortran array."""
    jitted = njit(_put_along)
    a = RNG.standard_normal((3, 4))
    for indices, values, axis in (
        (np.argsort(a, 1)[:, :1], np.array(-1.0), 1),
        (np.argsort(a, 0)[:2], np.arange(8.0).reshape(2, 4), 0),
        (np.array([[0, 3, -1]]), np.array([[5.0], [6.0], [7.0]]), 1),
        (np.array([[1], [2], [0]]), np.array(9.0), -1),
        (np.array([[0, 0]]), np.array([[1.0, 2.0]]), 1),
        (np.array([[5]]), np.array(1.0), 1),
    ):
        _same_outcome(jitted, _put_along, a, indices, values, axis)
    f = np.asfortranarray(a)
    for indices in (np.array([0, 5, -1]), np.array([11, 0])):
        _exactly(jitted(f, indices, 3.0, None), _put_along(f, indices, 3.0, None))


# ---------------------------------------------------------------------------- linspace, nanarg*


def _linspaces(n):
    return (
        np.linspace(0, 1, n, endpoint=False, retstep=True),
        np.linspace(-3, 7, n, dtype=np.int64),
        np.linspace(2.5, 1, n, True, True, np.float32),
        np.linspace(1j, 2, n, retstep=True),
    )


def test_linspace_retstep_and_dtype():
    """retstep=True returns NumPy's step (NaN when there is no interval); integer dtypes are
    floored as in NumPy 2."""
    jitted = njit(_linspaces)
    for n in (0, 1, 2, 5, 7):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = _linspaces(n)
        got = jitted(n)
        for g, w in zip(got, want):
            if isinstance(w, tuple):
                _exactly(g[0], w[0])
                assert g[1] == w[1] or (np.isnan(g[1]) and np.isnan(w[1]))
            else:
                _exactly(g, w)


def _nanargs(a, axis):
    return np.nanargmax(a, axis), np.nanargmin(a, axis=axis)


def test_nanargmax_nanargmin_along_an_axis():
    jitted = njit(_nanargs)
    a = np.array([[np.nan, 1.0, 3.0], [2.0, np.nan, -1.0]])
    for axis in (0, 1, -1, -2):
        _same_tuple(jitted(a, axis), _nanargs(a, axis))
    with pytest.raises(ValueError, match="All-NaN"):
        jitted(np.array([[np.nan, 1.0], [np.nan, 2.0]]), 0)
    ints = np.arange(6).reshape(2, 3) % 4
    _same_tuple(jitted(ints, 1), _nanargs(ints, 1))


# ---------------------------------------------------------------------------- meshgrid


def _grids(x, y, z):
    return (
        np.meshgrid(x, y, z),
        np.meshgrid(x, y, z, indexing="ij", sparse=True),
        np.meshgrid(x),
        np.meshgrid(x, y, indexing="ij", sparse=True),
        np.meshgrid(x, y.reshape(2, 2), copy=False),
    )


def test_meshgrid_any_count_sparse():
    """One to three inputs (n-d inputs raveled), 'xy' swapping the first two axes, sparse
    grids shaped for broadcasting; each grid keeps its input's dtype."""
    jitted = njit(_grids)
    x, y, z = np.arange(3.0)[::-1], np.arange(4.0) * 0.5, np.arange(2)
    for got, want in zip(jitted(x, y, z), _grids(x, y, z)):
        _same_tuple(got, want)


# ---------------------------------------------------------------------------- trapezoid n-d


def _trapezoids(y, x):
    return (
        np.trapezoid(y),
        np.trapezoid(y, dx=0.5, axis=0),
        np.trapezoid(y, x[: y.shape[1]]),
        np.trapezoid(y, np.cumsum(np.ones_like(y), 0), axis=0),
        np.trapezoid(y, axis=-2),
    )


def test_trapezoid_along_an_axis():
    """n-d y along any axis, with dx, 1-d coordinates or coordinates of y's shape (NumPy sums
    pairwise: equal to rounding)."""
    jitted = njit(_trapezoids)
    x = np.linspace(0, 1, 10) ** 2
    for y in (
        RNG.standard_normal((3, 4)),
        np.zeros((2, 1)),
        np.array([[np.nan, 1.0], [2.0, 3.0]]),
    ):
        for got, want in zip(jitted(y, x), _trapezoids(y, x)):
            _close(got, want)
    cube = np.arange(24.0).reshape(2, 3, 4)
    _close(njit(lambda y: np.trapezoid(y, axis=1))(cube), np.trapezoid(cube, axis=1))


# ---------------------------------------------------------------------------- ix_, diag_indices


def _index_grids(a, rows, cols, mask):
    return (
        np.ix_(rows, cols),
        np.ix_(rows, mask, cols),
        np.diag_indices(3),
        np.diag_indices(2, 3),
        np.diag_indices_from(a[:, :3]),
        np.ix_(mask),
    )


def test_ix_and_diag_indices():
    """Open meshes (boolean inputs stand for their nonzero positions) and diagonal indices, as
    NumPy's tuples of intp arrays; unequal dimensions raise NumPy's ValueError."""
    jitted = njit(_index_grids)
    args = (np.arange(12.0).reshape(3, 4), np.array([2, 0]), np.array([1, 3, 3]))
    args += (np.array([True, False, True]),)
    for got, want in zip(jitted(*args), _index_grids(*args)):
        _same_tuple(got, want)
    with pytest.raises(ValueError, match="equal length"):
        njit(lambda a: np.diag_indices_from(a))(np.zeros((2, 3)))


# ---------------------------------------------------------------------------- a[rows, cols]


def _pick_and_store(a, rows, cols):
    out = a.copy()
    picked = a[rows, cols]
    out[rows, cols] = -1.0
    out[np.diag_indices(3)] = 7.0
    out[rows, cols] += np.arange(len(rows), dtype=np.float64)
    return picked, out


def test_one_index_array_per_axis():
    """a[rows, cols] picks elements and a[rows, cols] = v stores them: negative indices,
    length-1 index arrays broadcast, empty index arrays, NumPy's IndexError out of bounds or
    for index arrays of different lengths; a 3-d array with three and with two index arrays."""
    jitted = njit(_pick_and_store)
    a = np.arange(12.0).reshape(3, 4)
    empty = np.zeros(0, np.int64)
    for rows, cols in (
        (np.array([0, 2, -1]), np.array([1, 3, 0])),
        (np.array([1]), np.array([0, 1, 2])),
        (empty, empty),
        (np.array([0, 3]), np.array([0, 1])),
        (np.array([0, 1]), np.array([0, 1, 2])),
    ):
        _same_outcome(jitted, _pick_and_store, a, rows, cols, compare=_same_tuple)
    cube = np.arange(24).reshape(2, 3, 4)
    three = njit(lambda a, i, j, k: a[i, j, k])
    i, j, k = np.array([1, 0]), np.array([2, 2]), np.array([3, -1])
    _exactly(three(cube, i, j, k), cube[i, j, k])
    leading = njit(_pick_rows)
    i, j = np.array([1, 0, 1]), np.array([2, -3, 0])
    _same_tuple(leading(cube, i, j), _pick_rows(cube, i, j))


def _pick_rows(a, i, j):
    """Fewer index arrays than axes: the remaining axes come along."""
    out = a.copy()
    out[i, j] = 5
    return a[i, j], out


# ---------------------------------------------------------------------- ravel_multi_index, inner


def _flat_and_inner(rows, cols, a, b, v):
    return (
        np.ravel_multi_index((rows, cols), (3, 4)),
        np.inner(a, b),
        np.inner(a, v),
        np.inner(v, b),
    )


def test_ravel_multi_index_of_arrays_and_inner_of_matrices():
    jitted = njit(_flat_and_inner)
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3) ** 0.5
    v = np.array([1.0, -2.0, 0.5])
    for rows, cols in (
        (np.array([0, 2, 1]), np.array([3, 0, 1])),
        (np.array([1]), np.array([3, 0, 1])),
        (np.array([0, 3]), np.array([3, 0])),
    ):
        _same_outcome(jitted, _flat_and_inner, rows, cols, a, b, v, compare=_close_tuple)


def _close_tuple(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w)


# ---------------------------------------------------------------------------- order='F'


def _fortran_orders(a):
    return (
        a.ravel("F"),
        np.ravel(a, order="F"),
        a.reshape((4, 3), order="F"),
        np.copy(a, order="F"),
        a.reshape((2, 3, 2), order="F"),
    )


def test_fortran_order_keywords():
    """Items read and placed in Fortran order; np.copy(order='F') is Fortran-contiguous."""
    jitted = njit(_fortran_orders)
    for a in (np.arange(12.0).reshape(3, 4), np.arange(48.0).reshape(6, 8)[::2, ::-2]):
        got = jitted(a)
        _same_tuple(got, _fortran_orders(a))
        assert got[3].flags.f_contiguous
    fortran = np.asfortranarray(np.arange(12).reshape(3, 4))
    _same_tuple(jitted(fortran), _fortran_orders(fortran))
