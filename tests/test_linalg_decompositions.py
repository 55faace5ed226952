"""np.linalg cholesky, eigh, eigvalsh, svd, svdvals, qr, lstsq, pinv, matrix_rank, slogdet and
matrix_power against NumPy: values to rounding, factorizations by reconstruction (eigenvector
and singular vector signs are LAPACK's choice), errors as NumPy raises them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ember import njit

RNG = np.random.default_rng(2)
SQUARE = RNG.normal(size=(4, 4))
SPD = SQUARE @ SQUARE.T + 4 * np.eye(4)
TALL = RNG.normal(size=(5, 3))
WIDE = RNG.normal(size=(3, 5))
RHS = RNG.normal(size=5)


def _outcome(func, *args):
    try:
        return func(*args), None
    except (np.linalg.LinAlgError, ValueError) as error:
        return None, type(error)


def _close(compiled, expected):
    if isinstance(expected, tuple):
        for c, e in zip(compiled, expected, strict=True):
            _close(c, e)
        return
    assert np.shape(compiled) == np.shape(expected)
    np.testing.assert_allclose(compiled, expected, rtol=1e-9, atol=1e-11)


def _check(func, *args):
    expected, expected_error = _outcome(func, *args)
    compiled, compiled_error = _outcome(njit(func), *args)
    assert compiled_error == expected_error
    if expected_error is None:
        _close(compiled, expected)


CASES = {
    "cholesky": (lambda a: np.linalg.cholesky(a), SPD),
    "cholesky not positive": (lambda a: np.linalg.cholesky(a), SQUARE),
    "eigvalsh": (lambda a: np.linalg.eigvalsh(a), SPD),
    "eigh values": (lambda a: np.linalg.eigh(a)[0], SPD),
    "svd values": (lambda a: np.linalg.svd(a)[1], TALL),
    "svdvals": (lambda a: np.linalg.svdvals(a), WIDE),
    "pinv tall": (lambda a: np.linalg.pinv(a), TALL),
    "pinv wide": (lambda a: np.linalg.pinv(a), WIDE),
    "matrix_rank": (lambda a: np.linalg.matrix_rank(a), TALL),
    "matrix_rank deficient": (lambda a: np.linalg.matrix_rank(a @ a.T), TALL),
    "lstsq": (lambda a: np.linalg.lstsq(a, a[:, 0] + 1.0), TALL),
    "lstsq wide": (lambda a: np.linalg.lstsq(a, a[:, 1]), WIDE),
    "lstsq columns": (lambda a: np.linalg.lstsq(a, np.stack((a[:, 0], a[:, 2]), 1)), TALL),
    "lstsq rcond": (lambda a: np.linalg.lstsq(a, a[:, 0] * 2, rcond=1e-3), TALL),
    "slogdet": (lambda a: np.linalg.slogdet(a), SQUARE),
    "slogdet singular": (lambda a: np.linalg.slogdet(a * 0), SQUARE),
    "float32 eigvalsh": (lambda a: np.linalg.eigvalsh(a.astype(np.float32)).astype(np.float64)
                         .round(3), SPD),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_decompositions_match_numpy(name):
    func, arg = CASES[name]
    _check(func, arg)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, -1, -3])
def test_matrix_power(n):
    _check(lambda a: np.linalg.matrix_power(a, n), SQUARE)
    if n >= 0:
        _check(lambda a: np.linalg.matrix_power(a, n), np.arange(9).reshape(3, 3))


@njit
def _factors(a):
    u, s, vt = np.linalg.svd(a)
    q, r = np.linalg.qr(a)
    return u, s, vt, q, r


@njit
def _eigen(a):
    return np.linalg.eigh(a)


@pytest.mark.parametrize("matrix", [TALL, WIDE, SQUARE])
def test_factorizations_reconstruct_their_matrix(matrix):
    u, s, vt, q, r = _factors(matrix)
    k = s.shape[0]
    np.testing.assert_allclose((u[:, :k] * s) @ vt[:k], matrix, atol=1e-12)
    np.testing.assert_allclose(u.T @ u, np.eye(u.shape[0]), atol=1e-12)
    np.testing.assert_allclose(q @ r, matrix, atol=1e-12)
    assert q.shape == np.linalg.qr(matrix)[0].shape and r.shape == np.linalg.qr(matrix)[1].shape
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(matrix)[1]), atol=1e-12)


def test_eigh_vectors_diagonalize():
    values, vectors = _eigen(SPD)
    np.testing.assert_allclose(SPD @ vectors, vectors * values, atol=1e-10)
    np.testing.assert_allclose(values, np.linalg.eigh(SPD)[0], rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)),
                  elements=st.floats(-100, 100)))  # fmt: skip
def test_hypothesis_svd_and_lstsq(matrix):
    u, s, vt, q, r = _factors(matrix)
    k = s.shape[0]
    np.testing.assert_allclose((u[:, :k] * s) @ vt[:k], matrix, atol=1e-9)
    np.testing.assert_allclose(s, np.linalg.svd(matrix)[1], rtol=1e-9, atol=1e-9)


@njit
def _eigen_general(a):
    return np.linalg.eig(a), np.linalg.eigvals(a)


@pytest.mark.parametrize("matrix", [SPD, np.triu(SQUARE), np.diag([3.0, -1.0, 2.0])])
def test_eig_of_matrices_with_real_eigenvalues(matrix):
    (values, vectors), only_values = _eigen_general(matrix)
    np.testing.assert_allclose(matrix @ vectors, vectors * values, atol=1e-10)
    np.testing.assert_allclose(np.sort(values), np.sort(np.linalg.eigvals(matrix).real))
    np.testing.assert_array_equal(only_values, values)


def test_eig_refuses_complex_eigenvalues():
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +i and -i
    with pytest.raises(ValueError, match="domain change"):
        _eigen_general(rotation)
