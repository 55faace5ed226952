"""arrays5: NumPy functions and argument forms added this round (einsum, tensordot, lexsort,
sort_complex, i0, compress, cumulative_sum, initial=, mean(dtype=), axis forms, tuple axes,
item), each compiled function compared with NumPy running the same Python function on many
inputs: dtypes, empty arrays, negative indices and axes, strided and transposed views."""

import math

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError
from tests.oracle import assert_frees_all, jitted

RNG = np.random.default_rng(5)


def _layouts(a):
    """The array, a transposed (F) view, a strided view and a reversed view."""
    yield a
    yield a.T
    if a.ndim and a.shape[0] > 1:
        yield a[::2]
        yield a[::-1]


def _check(py_func, *args, rtol=1e-12):
    got = jitted(py_func, args)(*args)  # one dispatcher per argument types: each compiles once
    want = py_func(*args)
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape, (got_a.shape, want_a.shape)
    if isinstance(got, np.ndarray):  # numbers come back as Python's int, float, complex
        assert got_a.dtype == want_a.dtype, (got_a.dtype, want_a.dtype)
    else:
        assert got_a.dtype.kind == want_a.dtype.kind or want_a.dtype.kind in "biu"
    if want_a.dtype.kind in "fc":
        np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=1e-300, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_a, want_a)


def _matrices():
    yield np.arange(12.0).reshape(3, 4)
    yield RNG.normal(size=(5, 3))
    yield np.arange(24, dtype=np.int32).reshape(4, 6) - 7
    yield np.zeros((0, 3))
    yield np.zeros((3, 0))


# ---------------------------------------------------------------------------- einsum


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 5)]),
    ("ij->", [(3, 5)]),
    ("i,i", [(6,), (6,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij,ij->i", [(4, 3), (4, 3)]),
    ("i j , j k -> k i", [(2, 3), (3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,jk->ik", [(0, 3), (3, 2)]),
    ("ij,jk->ik", [(2, 0), (0, 2)]),
]


@pytest.mark.parametrize(("subscripts", "shapes"), EINSUM_CASES)
def test_einsum_matches_numpy(subscripts, shapes):
    operands = [RNG.normal(size=shape) for shape in shapes]
    names = ", ".join(f"op{k}" for k in range(len(shapes)))
    source = f"def f({names}):\n    return np.einsum({subscripts!r}, {names})\n"
    namespace = {"np": np}
    exec(source, namespace)
    _check(namespace["f"], *operands)
    if len(operands) == 2 and operands[0].ndim == 2 and operands[0].size:
        _check(namespace["f"], operands[0].T.copy().T, operands[1][::1])


def test_einsum_of_integers_views_and_complex():
    def matmul(a, b):
        return np.einsum("ij,jk->ik", a, b)

    ints = np.arange(20, dtype=np.int64).reshape(4, 5) - 9
    _check(matmul, ints, ints.T)
    _check(matmul, ints[::2], ints[::-1].T)
    complex_ = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))
    _check(matmul, complex_, complex_.T)
    _check(matmul, ints.astype(np.float32), ints.T.astype(np.float64))


def test_einsum_errors():
    @njit
    def bad_extent(a, b):
        return np.einsum("ij,jk->ik", a, b)

    with pytest.raises(ValueError, match="einsum"):
        bad_extent(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(TypingError, match="labels"):
        njit(lambda a: np.einsum("ijk->i", a))(np.ones((2, 2)))
    with pytest.raises(TypingError, match="ellipsis"):
        njit(lambda a: np.einsum("...i->i", a))(np.ones((2, 2)))
    with pytest.raises(TypingError, match="output subscript"):
        njit(lambda a: np.einsum("ij->k", a))(np.ones((2, 2)))


def test_einsum_frees_its_result():
    @njit
    def f(a, b):
        return np.einsum("ij,jk->ik", a, b).sum()

    assert_frees_all(f, lambda: np.ones((3, 4)), lambda: np.ones((4, 2)))


# ---------------------------------------------------------------------------- tensordot


def test_tensordot_int_axes():
    a = RNG.normal(size=(3, 4, 5))
    b = RNG.normal(size=(4, 5, 2))
    _check(lambda a, b: np.tensordot(a, b), a, b)
    _check(lambda a, b: np.tensordot(a, b, 2), a, b)
    _check(lambda a, b: np.tensordot(a, b, axes=0), a[:, :2, :1], b[:1])
    _check(lambda a, b: np.tensordot(a, b, 1), a[:, :, :4], b)
    m = np.arange(12).reshape(3, 4)
    _check(lambda a, b: np.tensordot(a, b, 1), m, m.T)
    _check(lambda a, b: np.tensordot(a, b, 2), m, m)  # a 0-d array, as NumPy


def test_tensordot_axis_pairs():
    a = RNG.normal(size=(3, 4, 5))
    b = RNG.normal(size=(5, 3, 2))
    _check(lambda a, b: np.tensordot(a, b, axes=((0, 2), (1, 0))), a, b)
    _check(lambda a, b: np.tensordot(a, b, axes=(2, 0)), a, b)
    _check(lambda a, b: np.tensordot(a, b, axes=(-1, 0)), a[::-1], b)
    _check(lambda a, b: np.tensordot(a, b, axes=((0,), (1,))), a.T.T, b)
    empty = np.zeros((0, 5))
    _check(lambda a, b: np.tensordot(a, b, axes=(1, 0)), empty, b[:, 0, :])


def test_tensordot_errors():
    @njit
    def f(a, b):
        return np.tensordot(a, b, axes=(1, 0))

    with pytest.raises(ValueError, match="shape-mismatch"):
        f(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(TypingError):
        njit(lambda a, b: np.tensordot(a, b, 3))(np.ones((2, 2)), np.ones((2, 2)))
    assert_frees_all(f, lambda: np.ones((3, 4)), lambda: np.ones((4, 2)))


# ---------------------------------------------------------------------------- sorting


def test_lexsort_tuples_and_rows():
    def two(a, b):
        return np.lexsort((a, b))

    def three(a, b, c):
        return np.lexsort((a, b, c))

    def rows(k):
        return np.lexsort(k)

    for n in (0, 1, 7, 50):
        a = RNG.integers(0, 3, n)
        b = RNG.integers(0, 3, n).astype(np.float64)
        c = RNG.integers(-2, 2, n).astype(np.int32)
        _check(two, a, b)
        _check(three, a, b, c)
        _check(three, a[::-1], b, c)
        _check(rows, np.stack((a, b.astype(np.int64), c.astype(np.int64))))
    _check(two, np.array([1.0, np.nan, 0.0, np.nan]), np.array([0, 0, 0, 0]))
    with pytest.raises(ValueError, match="same shape"):
        njit(two)(np.ones(3), np.ones(4))


def test_sort_complex_dtypes():
    for values in (
        np.array([3, 1, 2], np.int8),
        np.array([3, 1, 2], np.uint16),
        np.array([3, -1, 2], np.int64),
        np.array([3.5, -1.0, 2.0], np.float32),
        np.array([1 + 2j, 1 + 1j, -3 + 0j, 0 - 1j]),
        np.array([1 + 2j, 1 + 1j], np.complex64),
        np.zeros(0),
    ):
        _check(lambda a: np.sort_complex(a), values)
    _check(lambda a: np.sort_complex(a), np.array([[3, 1], [0, -2]], np.int32))


# ---------------------------------------------------------------------------- i0, real_if_close


def test_i0_against_numpy():
    xs = np.concatenate(
        (np.linspace(-40, 40, 161), [0.0, 1e-300, 8.0, 29.99, 30.0, 30.01, 300.0, 700.0])
    )
    _check(lambda a: np.i0(a), xs, rtol=1e-13)
    _check(lambda a: np.i0(a), xs.reshape(-1, 1)[::3], rtol=1e-13)
    _check(lambda a: np.i0(a), xs.astype(np.float32), rtol=1e-6)
    _check(lambda a: np.i0(a), np.arange(-5, 6), rtol=1e-13)
    _check(lambda a: np.i0(a), np.zeros((0, 2)))
    got = njit(lambda x: np.i0(x))(np.array([np.nan, np.inf, -np.inf]))
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == np.inf
    assert math.isclose(njit(lambda x: np.i0(x))(2.5), float(np.i0(2.5)), rel_tol=1e-14)
    with pytest.raises(TypingError, match="complex"):
        njit(lambda x: np.i0(x))(np.ones(2, np.complex128))


def test_real_if_close_of_real_arrays_and_refusal_of_complex():
    a = np.arange(5.0)
    _check(lambda a: np.real_if_close(a), a)
    with pytest.raises(TypingError, match="a.real"):
        njit(lambda a: np.real_if_close(a))(a + 0j)


# ---------------------------------------------------------------------------- cumulative_*


def test_cumulative_sum_and_prod():
    def flat(x):
        return np.cumulative_sum(x)

    def along(x, axis):
        return np.cumulative_sum(x, axis=axis)

    def initial(x, axis):
        return np.cumulative_sum(x, axis=axis, include_initial=True)

    def product(x, axis):
        return np.cumulative_prod(x, axis=axis, include_initial=True)

    def typed(x):
        return np.cumulative_sum(x, dtype=np.float32)

    _check(flat, np.arange(6, dtype=np.int8))
    _check(flat, np.zeros(0))
    _check(typed, np.arange(6))
    for m in _matrices():
        for view in _layouts(m):
            for axis in (0, 1, -1):
                _check(along, view, axis)
                _check(initial, view, axis)
                _check(product, view % 5 if view.dtype.kind == "i" else view, axis)
    with pytest.raises(TypingError, match="axis is required"):
        njit(flat)(np.ones((2, 2)))


# ---------------------------------------------------------------------------- compress


def test_compress_along_axes_and_flat():
    def flat(c, a):
        return np.compress(c, a)

    def along(c, a, axis):
        return np.compress(c, a, axis)

    def method(a, c):
        return a.compress(c, axis=0)

    m = np.arange(20.0).reshape(4, 5)
    for view in _layouts(m):
        for axis in (0, 1, -1):
            n = view.shape[axis]
            _check(along, RNG.integers(0, 2, n).astype(np.bool_), view, axis)
            _check(along, np.zeros(n, np.bool_), view, axis)
            _check(along, np.ones(n - 1, np.bool_), view, axis)  # shorter: truncated
        _check(flat, np.array([True, False, True]), view)
        _check(method, view, np.array([False, True]))
    _check(along, [True, False, True], m, 0)
    with pytest.raises(IndexError):
        njit(along)(np.ones(5, np.bool_), m, 0)


# ---------------------------------------------------------------------------- initial=


def test_sum_prod_with_initial():
    def sum_all(a):
        return np.sum(a, initial=5)

    def sum_axis(a, axis):
        return a.sum(axis=axis, initial=1.5)

    def prod_axis(a, axis):
        return np.prod(a, axis, initial=2)

    for m in _matrices():
        for view in _layouts(m):
            _check(sum_all, view)
            for axis in (0, -1):
                _check(sum_axis, view, axis)
                _check(prod_axis, view, axis)
    _check(sum_all, np.arange(5, dtype=np.int8))
    _check(sum_all, np.array([True, False, True]))
    _check(sum_axis, np.arange(5.0, dtype=np.float32), 0)


def test_max_min_with_initial():
    def max_all(a):
        return np.max(a, initial=4)

    def min_method(a):
        return a.min(initial=-1.0)

    def max_axis(a, axis):
        return np.max(a, axis=axis, initial=3)

    def amin_axis(a, axis):
        return np.amin(a, axis, initial=2)

    for m in _matrices():
        for view in _layouts(m):
            _check(max_all, view)
            _check(min_method, view)
            for axis in (0, 1, -1):
                _check(max_axis, view, axis)
                _check(amin_axis, view, axis)
    _check(max_all, np.zeros(0, np.int64))  # empty: the initial value
    _check(max_all, np.array([1.0, np.nan, 9.0]))
    _check(max_axis, np.array([[1.0, np.nan], [9.0, 0.0]]), 0)
    _check(max_axis, np.arange(6.0), 0)
    with pytest.raises(np.exceptions.AxisError):
        njit(max_axis)(np.ones((2, 2)), 2)


def test_initial_reductions_free_their_temporaries():
    @njit
    def f(a):
        return np.max(a, axis=0, initial=1.0).sum() + np.sum(a, 1, initial=2.0).sum()

    assert_frees_all(f, lambda: np.ones((3, 4)))


# ---------------------------------------------------------------------------- mean(dtype=), ptp


def test_mean_with_dtype():
    def plain(a):
        return np.mean(a, dtype=np.float32)

    def along(a, axis):
        return a.mean(axis=axis, dtype=np.float64)

    def complex_mean(a):
        return np.mean(a, 0, np.complex128)

    for m in _matrices():
        for view in _layouts(m):
            if view.size:
                _check(plain, view, rtol=1e-5)
                _check(complex_mean, view) if view.shape[0] else None
            for axis in (0, -1):
                if view.shape[axis]:
                    _check(along, view, axis)
    _check(plain, np.arange(10, dtype=np.int16), rtol=1e-6)


def test_ptp_along_an_axis():
    def ptp(a, axis):
        return np.ptp(a, axis=axis)

    for m in _matrices():
        for view in _layouts(m):
            for axis in (0, 1, -1):
                if view.shape[axis]:
                    _check(ptp, view, axis)
    _check(ptp, np.array([[100, -100], [-100, 100]], np.int8), 0)  # wraps, as NumPy
    _check(ptp, np.arange(5.0), 0)
    _check(lambda a: np.ptp(a, None), np.arange(5.0))


def test_percentile_and_quantile_along_an_axis():
    def percentile(a, q, axis):
        return np.percentile(a, q, axis=axis)

    def quantile(a, q, axis):
        return np.quantile(a, q, axis)

    def nanquantile(a, axis):
        return np.nanquantile(a, 0.25, axis=axis)

    cube = RNG.normal(size=(3, 4, 5))
    for view in (cube, cube.T, cube[::2, :, ::-1]):
        for axis in (0, 1, 2, -1):
            _check(percentile, view, 30.0, axis)
            _check(quantile, view, np.array([0.0, 0.5, 1.0]), axis)
    _check(quantile, np.arange(7.0), 0.5, 0)
    _check(percentile, np.zeros((0, 4)), 50.0, 1)
    with_nan = cube.copy()
    with_nan[0, 0, :2] = np.nan
    _check(nanquantile, with_nan, 2)
    with pytest.raises(np.exceptions.AxisError):
        njit(percentile)(cube, 50.0, 3)


# ---------------------------------------------------------------------------- tuple axes and reps


def test_tile_with_tuple_reps():
    def tile(a, reps):
        return np.tile(a, reps)

    for a in (np.arange(3), np.arange(6.0).reshape(2, 3), np.zeros((0, 2)), np.ones((2, 1, 2))):
        for view in _layouts(a):
            for reps in ((2,), (2, 3), (1, 0), (3, 1, 2), (2, 2, 2, 2)):
                _check(tile, view, reps)
    _check(tile, 7.5, (2, 3))
    with pytest.raises(ValueError, match="negative"):
        njit(tile)(np.arange(3), (2, -1))


def test_expand_dims_flip_roll_with_tuple_axes():
    def expand(a, axes):
        return np.expand_dims(a, axes)

    def flip(a, axes):
        return np.flip(a, axes)

    def roll(a, shift, axes):
        return np.roll(a, shift, axes)

    def roll_flat(a):
        return np.roll(a, (1, 3))

    m = np.arange(24.0).reshape(2, 3, 4)
    for view in (m, m[:, ::-1, ::2]):  # C-contiguous, and strided with a reversed axis
        for axes in ((0,), (0, 1), (-1, 0), (1, 3, 4)):
            _check(expand, view, axes)
        for axes in ((0,), (0, 2), (-1, 1, 0)):
            _check(flip, view, axes)
        _check(roll, view, (1, -2), (0, 2))
        _check(roll, view, 5, (1, 2))
        _check(roll, view, (1, 2), 2)
        _check(roll, view, (3, 4, -7), (0, 1, 2))
        _check(roll_flat, view)
    _check(roll, np.zeros((0, 3)), (1, 1), (0, 1))
    with pytest.raises(ValueError, match="repeated axis"):
        njit(expand)(m, (0, 0))
    with pytest.raises(ValueError, match="repeated axis"):
        njit(flip)(m, (1, -2))
    with pytest.raises(np.exceptions.AxisError):
        njit(expand)(m, (0, 5))


# ---------------------------------------------------------------------------- insert, delete


def test_delete_along_an_axis():
    def delete(a, obj, axis):
        return np.delete(a, obj, axis=axis)

    def delete_slice(a, axis):
        return np.delete(a, slice(0, None, 2), axis)

    m = np.arange(20).reshape(4, 5)
    for view in _layouts(m):
        for axis in (0, 1, -1):
            n = view.shape[axis]
            _check(delete, view, 0, axis)
            _check(delete, view, -1, axis)
            _check(delete, view, np.array([0, n - 1, -1]), axis)
            _check(delete_slice, view, axis)
    with pytest.raises(IndexError):
        njit(delete)(m, 4, 0)
    _check(lambda a, obj: np.delete(a, obj, None), m, 3)


def test_insert_along_an_axis():
    def insert(a, obj, values, axis):
        return np.insert(a, obj, values, axis=axis)

    m = np.arange(12).reshape(3, 4)
    for view in _layouts(m):
        for axis in (0, 1, -1):
            n = view.shape[axis]
            for obj in (0, 1, n, -1, -n):
                _check(insert, view, obj, 99, axis)
                _check(insert, view, obj, 2.7, axis)  # cast to the array's dtype
        _check(insert, view, 1, np.arange(view.shape[1]), 0)
        _check(insert, view, 1, np.arange(view.shape[0]), 1)
        _check(insert, view, 1, np.arange(2 * view.shape[1]).reshape(2, -1), 0)
    _check(insert, np.zeros((0, 3)), 0, 5.0, 0)
    with pytest.raises(IndexError):
        njit(insert)(m, 5, 1, 0)

    @njit
    def freed(a):
        return np.insert(a, 1, 0, axis=1).sum() + np.delete(a, 0, axis=0).sum()

    assert_frees_all(freed, lambda: np.ones((3, 4)))


# ---------------------------------------------------------------------------- item


def test_item_with_indices():
    def flat(a, i):
        return a.item(i)

    def packed(a, i, j):
        return a.item((i, j))

    def separate(a, i, j):
        return a.item(i, j)

    m = np.arange(12).reshape(3, 4) * 1.5
    for view in _layouts(m):
        for i in range(-view.size, view.size):
            assert njit(flat)(view, i) == view.item(i)
        rows, cols = view.shape
        for i in range(-rows, rows):
            for j in range(-cols, cols):
                assert njit(packed)(view, i, j) == view.item((i, j))
                assert njit(separate)(view, i, j) == view.item(i, j)
    for bad in (12, -13):
        with pytest.raises(IndexError):
            njit(flat)(m, bad)
    with pytest.raises(IndexError):
        njit(packed)(m, 3, 0)
    with pytest.raises(IndexError):
        njit(separate)(m, 0, -5)
    with pytest.raises(TypingError, match="one index per dimension"):
        njit(lambda a: a.item(1, 2, 3))(m)


# ---------------------------------------------------------------------------- frombuffer


def test_frombuffer_of_bytearrays_and_arrays():
    @njit
    def view(buffer, count, offset):
        return np.frombuffer(buffer, dtype=np.int16, count=count, offset=offset)

    raw = bytearray(range(16))
    for count, offset in ((-1, 0), (3, 2), (0, 16), (-1, 4)):
        got = view(raw, count, offset)
        np.testing.assert_array_equal(got, np.frombuffer(raw, np.int16, count, offset))
    with pytest.raises(ValueError, match="smaller"):
        view(raw, 9, 0)
    with pytest.raises(ValueError, match="multiple"):
        view(raw, -1, 1)

    @njit
    def of_array(a):
        return np.frombuffer(a, np.complex64)

    ints = np.arange(8, dtype=np.int32)
    np.testing.assert_array_equal(of_array(ints), np.frombuffer(ints, np.complex64))
    np.testing.assert_array_equal(of_array(ints.reshape(2, 4)), np.frombuffer(ints, np.complex64))
    with pytest.raises(ValueError, match="contiguous"):
        of_array(ints[::2])
    with pytest.raises(TypingError, match="buffer-like"):
        njit(lambda b: np.frombuffer(b))(None)

    @njit
    def owned(n):
        return np.frombuffer(np.arange(n, dtype=np.int64), np.int32).sum()

    assert owned(6) == np.frombuffer(np.arange(6, dtype=np.int64), np.int32).sum()
    assert_frees_all(owned, lambda: 6)

    @njit
    def of_constant():
        return np.frombuffer(b"foo!", dtype=np.uint8)

    got = of_constant()  # outlives the constant's storage: a copy, still read-only
    np.testing.assert_array_equal(got, np.frombuffer(b"foo!", np.uint8))
    assert not got.flags.writeable

    @njit
    def constant_sum():
        return np.frombuffer(b"\x01\x02\x03\x04", dtype=np.int16).sum()

    assert constant_sum() == np.frombuffer(b"\x01\x02\x03\x04", np.int16).sum()
    assert_frees_all(constant_sum)


# ---------------------------------------------------------------------------- nonzero, views


def test_nonzero_of_strings_and_zero_d_refusal():
    def nonzero(a):
        return np.nonzero(a)

    def count(a):
        return np.count_nonzero(a)

    words = np.array(["Hello", "", "world", ""])
    got, want = njit(nonzero)(words), np.nonzero(words)
    np.testing.assert_array_equal(got[0], want[0])
    assert njit(count)(words) == np.count_nonzero(words)
    values = np.array([0.0, np.nan, -0.0, 1e-300, 0j.real])
    np.testing.assert_array_equal(njit(nonzero)(values)[0], np.nonzero(values)[0])
    with pytest.raises(TypingError, match="0d arrays"):
        njit(nonzero)(np.array(1.5).reshape(()))


def test_contiguous_copies_of_zero_d_arrays_share_memory():
    def c_order(a):
        return np.ascontiguousarray(a)

    def f_order(a):
        return np.asfortranarray(a)

    for function in (c_order, f_order):
        compiled = njit(function)
        for a in (np.array(2.5).reshape(()), np.arange(6.0), np.arange(6.0).reshape(2, 3).T):
            got, want = compiled(a), function(a)
            np.testing.assert_array_equal(got, want)
            assert got.shape == want.shape
            assert np.shares_memory(got, a) == np.shares_memory(want, a)


# ---------------------------------------------------------------------------- bounds checking

_BOUNDS_PROGRAM = """
import numpy as np
from ember import njit
results = []
for option in (None, True, False):
    f = njit(lambda x: x[3]) if option is None else njit(boundscheck=option)(lambda x: x[3])
    try:
        f(np.arange(3))
        results.append("none")
    except IndexError:
        results.append("IndexError")
print(",".join(results))
"""


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("", "none,IndexError,none"),  # each function's option decides
        ("1", "IndexError,IndexError,IndexError"),  # forced on
        ("0", "none,none,none"),  # forced off, even boundscheck=True (Numba's rule)
    ],
)
def test_boundscheck_environment_setting(setting, expected):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.endswith("_BOUNDSCHECK")}
    env["NUMBA_BOUNDSCHECK"] = setting
    done = subprocess.run(
        [sys.executable, "-c", _BOUNDS_PROGRAM], env=env, capture_output=True, text=True
    )
    assert done.stdout.strip() == expected, done.stderr


# ---------------------------------------------------------------------------- setitem, take


def test_store_of_a_zero_d_array_into_an_element():
    @njit
    def store(a, index, value):
        a[index] = value
        return a

    cases = [
        (np.zeros(3), 0, np.array(3.14)),
        (np.zeros(3), -1, np.array(2, np.int64)),
        (np.zeros(3, np.int64), 1, np.array(7, np.int64)),
        (np.zeros(3, np.complex128), 2, np.array(2 + 3j)),
        (np.zeros((2, 3)), (1, -2), np.array(5.5)),
        (np.zeros((3, 2)).T, (1, 2), np.array(1.25)),
    ]
    for a, index, value in cases:
        want = a.copy()
        want[index] = value
        np.testing.assert_array_equal(store(a.copy(), index, value), want)
    with pytest.raises(TypingError, match="real"):
        store(np.zeros(3), 0, np.array(1j))


def test_take_along_an_axis_of_a_vector_and_bad_axes():
    def take(a, indices, axis):
        return np.take(a, indices, axis=axis)

    for index in (0, 4, -1, -5):
        _check(take, np.arange(5), index, 0)
    _check(take, np.arange(9).reshape(3, 3), np.array([0, 2]), -1)
    _check(take, np.arange(9).reshape(3, 3), 1, -2)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dim"):
        njit(take)(np.arange(9).reshape(3, 3), np.array([0, 1, 2]), 2)


MEMORYVIEW_ATTRIBUTES = [
    "shape", "strides", "ndim", "itemsize", "nbytes", "readonly", "contiguous", "c_contiguous",
    "f_contiguous",
]  # fmt: skip


@pytest.mark.parametrize("attribute", MEMORYVIEW_ATTRIBUTES)
def test_memoryview_attributes_match_python(attribute):
    namespace: dict = {}
    exec(f"def get(m):\n    return m.{attribute}\n", namespace)
    get = njit(namespace["get"])
    arrays = (
        np.arange(6).reshape(2, 3),
        np.arange(6.0)[::2],
        np.arange(6).reshape(2, 3).T,
        np.zeros(0, np.int8),
        np.arange(4.0, dtype=np.float32),
    )
    for array in arrays:
        view = memoryview(array)
        assert get(view) == getattr(view, attribute)
    for raw in (b"xyz", bytearray(b"xyz")):
        assert get(memoryview(raw)) == getattr(memoryview(raw), attribute)
