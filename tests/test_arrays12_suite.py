"""arrays12: NumPy's combined advanced indexing (index arrays beside slices, integers and other
index arrays, index arrays of rank 2 and more), and the NumPy functions added this round; each
compiled function compared with NumPy running the same Python function on many inputs."""

import numpy as np

from ember import njit
from tests.oracle import assert_frees_all
from tests.test_arrays11_suite import _exactly, _same_outcome

A3 = np.arange(60.0).reshape(3, 4, 5)
RNG = np.random.default_rng(12)


def _copies(*args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


# ---------------------------------------------------------------------------- reading


def after_a_slice(a, i, j):
    return a[1:, i, j]  # adjacent index arrays: their dimension stays in place


def apart(a, i, j):
    return a[i, 1:, j]  # a slice between them: their dimension goes first


def integer_apart(a, k, i):
    return a[k, :, i]  # an integer counts as an index array: (len(i), 4)


def before_a_step(a, i, j):
    return a[i, j, ::2]


def after_an_ellipsis(a, i, j):
    return a[..., i, j]


def mask_apart(a, m, i):
    return a[m, 1:, i]


def rank_two(a, i):
    return a[i]


def open_mesh(a, r, c):
    return a[np.ix_(r, c)]


# pairs of index arrays for the (3, 4, 5) array: negative, broadcast length 1, empty, too
# large (IndexError), different lengths (IndexError)
PAIRS = [
    (np.array([0, 2, 1]), np.array([1, -1, 0])),
    (np.array([-1]), np.array([0, 1, 2, 3])),
    (np.array([2, 0]), np.array([3])),
    (np.zeros(0, np.int64), np.zeros(0, np.int64)),
    (np.array([0, 3]), np.array([1, 1])),
    (np.array([0, 1, 2]), np.array([1, 2])),
    (np.array([-4, 0]), np.array([1, 1])),
]


def test_index_arrays_beside_slices_match_numpy():
    for func in (after_a_slice, apart, before_a_step, after_an_ellipsis):
        jitted = njit(func)
        for i, j in PAIRS:
            _same_outcome(jitted, func, A3, i, j)
    jitted = njit(integer_apart)
    for k in (0, 2, -1, 3, -4):
        for i in (np.array([4, 0, -5]), np.array([1]), np.zeros(0, np.int64), np.array([5])):
            _same_outcome(jitted, integer_apart, A3, k, i)


def test_masks_and_index_arrays_of_rank_two():
    jitted = njit(mask_apart)
    for m in (np.array([True, False, True]), np.array([False] * 3), np.array([True, False])):
        for i in (np.array([0, 4]), np.array([3]), np.array([1, 2, 3])):
            _same_outcome(jitted, mask_apart, A3, m, i)
    a = np.arange(24).reshape(4, 6)
    jitted = njit(rank_two)
    for i in (np.array([[0, 1], [3, -1]]), np.zeros((0, 2), np.int64), np.array([[4]])):
        _same_outcome(jitted, rank_two, a, i)
    jitted = njit(open_mesh)
    for r, c in ((np.array([0, 3, 1]), np.array([5, -6])), (np.array([2]), np.array([0, 1]))):
        _same_outcome(jitted, open_mesh, a, r, c)
    _same_outcome(jitted, open_mesh, a, np.array([0]), np.array([6]))


# ---------------------------------------------------------------------------- assignment


def store_after_a_slice(a, i, j, v):
    a[1:, i, j] = v
    return a


def store_apart(a, i, j, v):
    a[i, 1:, j] = v
    return a


def add_apart(a, k, i, v):
    a[k, :, i] += v
    return a


def store_rank_two(a, i, v):
    a[i] = v
    return a


def test_assignments_broadcast_values_as_numpy():
    # one number and one array shape per function (each dtype and rank compiles once)
    every_shape = (
        7.5,
        np.array([1.0, 2.0]),
        np.arange(8.0).reshape(2, 4),
        np.array([[3.0], [4.0]]),
    )
    for func, values in ((store_after_a_slice, every_shape[::2]), (store_apart, every_shape[1::2])):
        jitted = njit(func)
        for v in values:
            for i, j in PAIRS:
                _same_outcome(jitted, func, *_copies(A3, i, j, v))
    jitted = njit(add_apart)
    for v in (1.0, np.arange(8.0).reshape(2, 4)):
        for i in (np.array([0, 0, 4]), np.array([-1, 2])):
            _same_outcome(jitted, add_apart, *_copies(A3, 1, i, v))
    jitted = njit(store_rank_two)
    a = np.zeros((4, 3))
    for v in (2.0, np.array([1.0, 2.0, 3.0])):
        _same_outcome(jitted, store_rank_two, *_copies(a, np.array([[0, 3], [-1, 1]]), v))


def test_combined_indexing_frees_what_it_allocates():
    assert_frees_all(
        njit(mask_apart), lambda: A3, lambda: np.array([True, False, True]), lambda: np.array([1])
    )


# ---------------------------------------------------------------------------- np.unique(axis=)


def unique_rows_and_extras(a):
    return (np.unique(a, axis=0), *np.unique(a, True, True, True, axis=-1))


def _same_arrays(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _exactly(g, w)


def test_unique_along_an_axis():
    inputs = [
        np.array([[1, 2], [3, 4], [1, 2], [0, 9]]),
        np.array([[3, 1, 3], [2, 0, 2]]),
        np.zeros((4, 0), np.int64),
        np.zeros((0, 3), np.int64),
        np.array([[5, 5, 5]]),
        RNG.integers(0, 2, (30, 3)),
    ]
    jitted = njit(unique_rows_and_extras)
    for a in inputs:
        _same_outcome(jitted, unique_rows_and_extras, a, compare=_same_arrays)
    a3 = RNG.integers(0, 2, (3, 4, 2)).astype(np.float64)
    a3[1, 2, 0] = np.nan  # NaN rows stay apart, as NumPy's
    _same_outcome(njit(lambda a: np.unique(a, axis=1)), lambda a: np.unique(a, axis=1), a3)


# ---------------------------------------------------------------------------- np.roll layout


def roll_pairs(a):
    return np.roll(a, (1, -2), axis=(0, -1))


def test_roll_keeps_the_layout_numpy_gives():
    base = np.arange(24.0).reshape(2, 3, 4)
    inputs = [np.asfortranarray(base), base.transpose(1, 0, 2), base[:, ::-1, ::2]]
    jitted = njit(roll_pairs)
    for a in inputs:
        got, want = jitted(a), roll_pairs(a)
        _exactly(got, want)
        assert got.strides == want.strides, (got.strides, want.strides)


# ---------------------------------------------------------------------------- order= and copy=


def orders_and_copies(a):
    return (
        a.copy(order="F"),
        a.copy("C"),
        a.copy(order="A"),
        np.reshape(a, (2, 6), order="F"),
        np.reshape(a, (4, 3), order="C"),
        a.astype(np.float64, copy=False),
        a.astype(np.int32, copy=False),
        a.astype(np.float64, copy=True),
    )


def test_copy_reshape_order_and_astype_copy():
    jitted = njit(orders_and_copies)
    for a in (np.arange(12.0).reshape(3, 4), np.asfortranarray(np.arange(12.0).reshape(3, 4))):
        got, want = jitted(a), orders_and_copies(a)
        for g, w in zip(got, want):
            _exactly(g, w)
            assert (g.flags.c_contiguous, g.flags.f_contiguous) == (
                w.flags.c_contiguous,
                w.flags.f_contiguous,
            )
        assert got[5] is a  # copy=False and the same dtype: the array itself, as NumPy
        assert got[7] is not a and not np.shares_memory(got[7], a)


# ---------------------------------------------------------------------------- polyder, polyint


def derivatives_and_integrals(p, m, k):
    return np.polyder(p, m), np.polyint(p, m), np.polyint(p, m, 2.5), np.polyint(p, m, k)


def test_polyder_and_polyint_match_numpy():
    jitted = njit(derivatives_and_integrals)
    k = np.array([1.0, -2.0, 0.5])
    for p in (np.array([1.0, 2.0, 3.0, 4.0]), np.array([-0.5]), np.zeros(0)):
        for m in (1, 2, 3, 5):
            _same_outcome(jitted, derivatives_and_integrals, p, m, k, compare=_close_arrays)
    for m, ks in ((-1, k), (3, k[:2])):  # NumPy's ValueErrors
        _same_outcome(jitted, derivatives_and_integrals, np.ones(3), m, ks)
    p = np.array([3, 0, 2], np.int32)  # integer coefficients: NumPy's int64 derivative
    _exactly(njit(lambda p: np.polyder(p, 2))(p), np.polyder(p, 2))


def _close_arrays(got, want):
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-13)


# ---------------------------------------------------------------------------- quantile method=

QUANTILE_FRACTIONS = np.array([0.0, 0.125, 0.3, 0.375, 0.5, 0.625, 0.875, 1.0])


def quantile_methods(a, q):
    return (
        np.quantile(a, q, method="lower"),
        np.quantile(a, q, method="higher"),
        np.quantile(a, q, method="nearest"),  # virtual index halves round to even
        np.percentile(a, q * 100, method="midpoint"),
        np.quantile(a, q, method="linear"),
    )


def test_quantile_methods_match_numpy():
    jitted = njit(quantile_methods)
    for a in (np.array([3.5, -1.0, 2.0, 8.0, 0.5]), np.array([1.0, np.nan, 3.0]), np.ones(1)):
        _same_outcome(jitted, quantile_methods, a, QUANTILE_FRACTIONS, compare=_same_arrays)
        for q in (0.375, 0.5, 1.5):  # 1.5: NumPy's ValueError
            _same_outcome(jitted, quantile_methods, a, q, compare=_same_arrays)
    ints = np.array([7, 1, 4, 4, 9, 2])
    _same_outcome(jitted, quantile_methods, ints, QUANTILE_FRACTIONS, compare=_same_arrays)
    _same_outcome(jitted, quantile_methods, np.zeros(0), 0.5)  # NumPy's IndexError
