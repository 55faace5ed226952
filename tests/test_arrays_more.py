"""Matrix products on BLAS (np.dot, `@`, a.dot), np.linalg.norm, np.random (reproducing
NumPy's legacy RandomState after seeding) and enumerate/zip over arrays and ranges."""

from __future__ import annotations

import numpy as np
import pytest
from test_arrays_support import LAYOUTS, live_allocations, sample

from ember import TypingError, njit

# ---------------------------------------------------------------------------- products


@njit
def matmul(a, b):
    return a @ b


@njit
def np_dot(a, b):
    return np.dot(a, b)


@njit
def method_dot(a, b):
    return a.dot(b)


def _close(got, expected):
    expected_array = np.asarray(expected)
    assert np.asarray(got).shape == expected_array.shape
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype
    single = expected_array.dtype in (np.float32, np.complex64)
    np.testing.assert_allclose(got, expected, rtol=1e-4 if single else 1e-12,
                               atol=1e-4 if single else 1e-12)  # fmt: skip


@pytest.mark.parametrize("layout_a", LAYOUTS)
@pytest.mark.parametrize("layout_b", ["C", "F", "A"])
def test_matrix_products_across_layouts(layout_a, layout_b):
    a = sample(np.float64, (4, 3), layout_a, seed=1)
    b = sample(np.float64, (3, 5), layout_b, seed=2)
    with live_allocations():
        _close(matmul(a, b), a @ b)
        _close(np_dot(a, b), np.dot(a, b))
        _close(method_dot(a.T, a), a.T @ a)


@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.complex128, np.complex128),
                                    (np.int64, np.int64), (np.int32, np.float64),
                                    (np.float32, np.float64)],
                         ids=lambda d: f"{d[0].__name__}-{d[1].__name__}")  # fmt: skip
def test_matrix_products_dtypes(dtypes):
    a = sample(dtypes[0], (3, 4), seed=3)
    b = sample(dtypes[1], (4, 2), seed=4)
    _close(matmul(a, b), a @ b)
    v = sample(dtypes[1], (4,), seed=5)
    _close(matmul(a, v), a @ v)
    w = sample(dtypes[0], (3,), seed=6)
    _close(np_dot(w, a), np.dot(w, a))
    _close(np_dot(v, v), np.dot(v, v))


def test_vector_products_and_edge_shapes():
    v = sample(np.float64, (7,), "N", seed=8)
    _close(np_dot(v, v[::-1]), np.dot(v, v[::-1]))
    _close(matmul(np.zeros((0, 3)), np.ones((3, 2))), np.zeros((0, 2)))
    _close(matmul(np.ones((2, 0)), np.ones((0, 3))), np.zeros((2, 3)))
    with pytest.raises(ValueError):
        matmul(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(TypingError, match="1-d and 2-d"):
        matmul(np.ones((2, 2, 2)), np.ones((2, 2)))


def test_large_product_uses_blas_correctly():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((130, 70))
    b = rng.standard_normal((70, 90))
    _close(matmul(a, b), a @ b)
    _close(matmul(a[::2, 1:], b[1:, ::3]), a[::2, 1:] @ b[1:, ::3])


@njit
def norm(x):
    return np.linalg.norm(x)


@njit
def norm_ord(x, ord):
    return np.linalg.norm(x, ord)


def test_norms():
    v = sample(np.float64, (9,), "A", seed=9)
    m = sample(np.float64, (3, 4), "F", seed=10)
    _close(norm(v), np.linalg.norm(v))
    _close(norm(m), np.linalg.norm(m))
    _close(norm(sample(np.complex128, (5,), seed=11)),
           np.linalg.norm(sample(np.complex128, (5,), seed=11)))  # fmt: skip
    for order in (1, 2, 3, np.inf, -np.inf, 0):
        _close(norm_ord(v, order), np.linalg.norm(v, order))
    for order in (1, np.inf, -1, -np.inf):
        _close(norm_ord(m, order), np.linalg.norm(m, order))


# ---------------------------------------------------------------------------- random


def _draws(seed):
    np.random.seed(seed)
    return (
        np.random.random(),
        np.random.rand(3),
        np.random.randn(2, 2),
        np.random.uniform(1.0, 5.0, 4),
        np.random.normal(2.0, 3.0),
        np.random.randint(0, 10, (3,)),
        np.random.randint(1 << 40),
        np.random.standard_normal(3),
        np.random.randint(-5, 5),
        np.random.random((2, 3)),
        np.random.random_sample(2),
        np.random.rand(),
        np.random.normal(0.0, 1.0, (2, 2)),
    )


_draws_jit = njit(_draws)


@pytest.mark.parametrize("seed", [0, 1, 42, 2**32 - 1])
def test_random_matches_numpys_legacy_generator(seed):
    got = _draws_jit(seed)
    expected = _draws(seed)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


@njit
def uniform_stats(n):
    total = 0.0
    for _ in range(n):
        total += np.random.random()
    return total / n


def test_random_state_is_separate_from_numpys_and_advances():
    np.random.seed(3)
    first = uniform_stats(1)
    second = uniform_stats(1)
    assert first != second
    assert abs(uniform_stats(20000) - 0.5) < 0.02


def test_bad_seed_and_bounds():
    with pytest.raises(ValueError):
        njit(lambda: np.random.seed(-1))()
    with pytest.raises(ValueError):
        njit(lambda: np.random.randint(3, 3))()


# ---------------------------------------------------------------------------- enumerate, zip


@njit
def enumerate_array(a):
    total = 0.0
    for i, x in enumerate(a):
        total += i * x
    for i, x in enumerate(a, 10):
        total -= i * x
    return total


@njit
def zip_arrays(a, b, n):
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    for x, k in zip(a, range(n)):
        total += x + k
    for i, (x, y) in enumerate(zip(a, b[::-1])):
        total += i * (x - y)
    return total


@njit
def rows_enumerated(m):
    out = np.zeros(m.shape[1])
    for i, row in enumerate(m):
        out += i * row
    for top, bottom in zip(m, m[::-1]):
        out += top * bottom
    return out


@njit
def ranges_only(n):
    total = 0
    for i, j in enumerate(range(n, 0, -1)):
        total += i * j
    for a, b, c in zip(range(n), range(1, n), range(2, n + 5)):
        total += a * b - c
    return total


@pytest.mark.parametrize("layout", LAYOUTS)
def test_enumerate_and_zip(layout):
    a = sample(np.float64, (6,), layout, seed=1)
    b = sample(np.float64, (8,), seed=2)
    assert enumerate_array(a) == enumerate_array.py_func(a)
    assert zip_arrays(a, b, 4) == zip_arrays.py_func(a, b, 4)
    m = sample(np.float64, (4, 3), layout, seed=3)
    with live_allocations():
        np.testing.assert_array_equal(rows_enumerated(m), rows_enumerated.py_func(m))
    assert ranges_only(7) == ranges_only.py_func(7)


# ---------------------------------------------------------------------------- LAPACK


@njit
def solve(a, b):
    return np.linalg.solve(a, b)


@njit
def inverse(a):
    return np.linalg.inv(a)


@njit
def determinant(a):
    return np.linalg.det(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
def test_solve_inv_det(dtype):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((5, 5)) * 4).astype(dtype) + 10 * np.eye(5, dtype=dtype)
    b = rng.standard_normal(5).astype(dtype if dtype is not np.int64 else np.float64)
    rhs = rng.standard_normal((5, 2))
    _close(solve(a, b), np.linalg.solve(a, b))
    _close(solve(np.asfortranarray(a), rhs), np.linalg.solve(a, rhs))
    _close(inverse(a[::-1]), np.linalg.inv(a[::-1]))
    _close(determinant(a), np.linalg.det(a))


def test_determinant_is_numpys_to_the_last_bit():
    """NumPy takes sign * exp(sum of log |u_ii|) of the LU factors, not their product:
    det([[2, 1], [1, 3]]) is 5.000000000000001."""
    assert determinant(np.array([[2.0, 1.0], [1.0, 3.0]])) == 5.000000000000001
    rng = np.random.default_rng(8)
    for n in (1, 2, 3, 4):
        for _ in range(4):
            a = rng.standard_normal((n, n))
            assert determinant(a) == np.linalg.det(a)
            z = a + 1j * rng.standard_normal((n, n))
            assert determinant(z) == np.linalg.det(z)
    with np.errstate(invalid="ignore"):
        for special in ([[np.inf, 1.0], [1.0, 1.0]], [[np.nan, 1.0], [1.0, 1.0]], np.zeros((0, 0))):
            a = np.array(special)
            np.testing.assert_equal(determinant(a), np.linalg.det(a))


def test_singular_and_non_square_matrices():
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        solve(np.ones((3, 3)), np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        inverse(np.ones((2, 3)))
    assert determinant(np.ones((3, 3))) == 0.0


# ---------------------------------------------------------------------------- more functions

_RNG = np.random.default_rng(11)
_M = _RNG.standard_normal((3, 4))
_V = _RNG.integers(0, 6, 10)
_X = np.sort(_RNG.random(8))

FUNCTIONS = {
    "clip": (lambda a: np.clip(a, -0.5, 0.5), (_M,)),
    "clip_method": (lambda a: a.clip(-0.1, 0.2), (_M,)),
    "round": (lambda a: np.round(a, 2), (_M,)),
    "around": (lambda a: np.around(a), (_M,)),
    "round_method": (lambda a: a.round(1), (_M.T,)),
    "concatenate": (lambda a: np.concatenate((a, a[:1] * 2)), (_M,)),
    "concatenate_axis1": (lambda a: np.concatenate((a, a[:, :2]), axis=1), (_M,)),
    "stack": (lambda a: np.stack((a, a * 2)), (_M,)),
    "stack_last": (lambda a: np.stack((a, a), axis=-1), (_M,)),
    "vstack_1d": (lambda v: np.vstack((v, v)), (_V,)),
    "vstack": (lambda a: np.vstack((a, a[1:])), (_M,)),
    "hstack_1d": (lambda v: np.hstack((v, v[:3])), (_V,)),
    "hstack": (lambda a: np.hstack((a, a)), (_M,)),
    "count_nonzero": (lambda v: np.count_nonzero(v), (_V,)),
    "flatnonzero": (lambda v: np.flatnonzero(v), (_V,)),
    "argwhere": (lambda a: np.argwhere(a > 0), (_M,)),
    "nonzero": (lambda a: np.nonzero(a > 0), (_M,)),
    "nonzero_method": (lambda v: v.nonzero(), (_V,)),
    "diff": (lambda v: np.diff(v), (_V,)),
    "diff2": (lambda v: np.diff(v, 2), (_V,)),
    "isclose": (lambda a: np.isclose(a, a + 1e-9), (_M,)),
    "allclose": (lambda a: np.allclose(a, a * 1.1), (_M,)),
    "unique": (lambda v: np.unique(v), (_V,)),
    "searchsorted": (lambda x: np.searchsorted(x, 0.5), (_X,)),
    "searchsorted_right": (lambda x: np.searchsorted(x, x[2:5], side="right"), (_X,)),
    "bincount": (lambda v: np.bincount(v), (_V,)),
    "bincount_weights": (lambda v: np.bincount(v, np.ones(10) * 0.5, 8), (_V,)),
    "outer": (lambda x: np.outer(x, x[:3]), (_X,)),
    "trace": (lambda a: np.trace(a), (_M,)),
    "diag_of_matrix": (lambda a: np.diag(a), (_M,)),
    "diag_of_vector": (lambda x: np.diag(x), (_X,)),
    "interp": (lambda x: np.interp(np.linspace(-0.5, 1.5, 7), x, x * 2), (_X,)),
    "interp_scalar": (lambda x: np.interp(0.3, x, x * 2), (_X,)),
    "histogram": (lambda a: np.histogram(a, 5), (_M,)),
    "histogram_range": (lambda a: np.histogram(a, 4, (-1.0, 1.0)), (_M,)),
    "flip": (lambda a: np.flip(a), (_M,)),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_more_numpy_functions(name):
    func, args = FUNCTIONS[name]
    expected = func(*args)
    with live_allocations():
        got = njit(func)(*args)
        pairs = zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]
        for g, e in pairs:
            assert np.asarray(g).shape == np.asarray(e).shape
            np.testing.assert_allclose(g, e, rtol=1e-12)
        del got, g, pairs
