"""np.linalg and the matrix products over float32/float64/complex64/complex128, C/F/strided
layouts, empty and 1 x 1 matrices, against NumPy: values within the dtype's tolerance (ember
computes in double precision, as NumPy does), factorizations by reconstruction where LAPACK
chooses signs or phases, NumPy's error types, and no leaked allocations on the error paths."""

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from ember.core.runtime import rtsys
from ember.errors import TypingError

RNG = np.random.default_rng(7)


def _matrix(m, n, dtype, layout="C"):
    a = RNG.normal(size=(m, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.normal(size=(m, n))
    if layout == "strided":  # every other row and column of a bigger matrix
        big = np.zeros((2 * m, 2 * n), dtype)
        big[::2, ::2] = a
        return big[::2, ::2]
    return np.array(a, dtype=dtype, order=layout)


def _tolerance(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def _close(got, expected, dtype):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _close(g, e, dtype)
        return
    expected = np.asarray(expected)
    assert np.shape(got) == expected.shape
    if expected.ndim:  # scalars box as Python numbers; arrays keep NumPy's dtype
        assert np.asarray(got).dtype == expected.dtype
    tol = _tolerance(dtype)
    scale = float(np.abs(expected).max()) if expected.size else 1.0
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(scale, 1.0))


@njit
def _hermitian(a):
    return a @ a.conj().T + a.shape[0] * np.eye(a.shape[0], dtype=a.dtype)


FUNCTIONS = {
    "inv": lambda a: np.linalg.inv(a),
    "det": lambda a: np.linalg.det(a),
    "slogdet": lambda a: np.linalg.slogdet(a),
    "solve": lambda a: np.linalg.solve(a, a[:, 0] + 1),
    "cholesky": lambda a: np.linalg.cholesky(_hermitian(a)),
    "eigvalsh": lambda a: np.linalg.eigvalsh(_hermitian(a)),
    "eigvals sum": lambda a: np.linalg.eigvals(_hermitian(a)).sum(),
    "matrix_power 3": lambda a: np.linalg.matrix_power(a, 3),
    "matrix_power -2": lambda a: np.linalg.matrix_power(a, -2),
    "cond": lambda a: np.linalg.cond(a),
    "cond 1": lambda a: np.linalg.cond(a, 1),
    "trace": lambda a: np.trace(a, 1),
    "svd values": lambda a: np.linalg.svd(a)[1],
    "pinv": lambda a: np.linalg.pinv(a),
    "matrix_rank": lambda a: np.linalg.matrix_rank(a),
    "norm 2": lambda a: np.linalg.norm(a, 2),
    "norm nuc": lambda a: np.linalg.norm(a, "nuc"),
    "qr r magnitudes": lambda a: np.abs(np.linalg.qr(a)[1]),
    "lstsq": lambda a: np.linalg.lstsq(a, a[:, 0] + 1, rcond=None),
}
SQUARE_ONLY = {"inv", "det", "slogdet", "solve", "cholesky", "eigvalsh",
               "eigvals sum", "matrix_power 3", "matrix_power -2", "cond 1"}  # fmt: skip


# float32 runs the float64 code and rounds (as NumPy does), complex64 the complex128 code: the
# two cover every implementation; each meets a different layout. (Compilations are the cost.)
CASES = [(np.float32, "F"), (np.complex128, "strided")]


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("dtype, layout", CASES, ids=["float32 F", "complex128 strided"])
def test_matches_numpy_over_dtypes_and_layouts(name, dtype, layout):
    func = FUNCTIONS[name]
    compiled = njit(func)
    shapes = [(4, 4), (1, 1)] if name in SQUARE_ONLY else [(4, 4), (5, 3), (3, 5), (1, 1)]
    for shape in shapes:
        a = _matrix(*shape, dtype, layout)
        _close(compiled(a), func(a), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=["float32", "complex128"])
def test_factorizations_reconstruct(dtype):
    a = _matrix(5, 3, dtype, "F")
    tol = _tolerance(dtype) * 10
    u, s, vt = njit(lambda a: np.linalg.svd(a, False))(a)
    np.testing.assert_allclose((u * s) @ vt, a, atol=tol)
    assert u.flags.f_contiguous and vt.flags.f_contiguous
    q, r = njit(lambda a: np.linalg.qr(a))(a)
    np.testing.assert_allclose(q @ r, a, atol=tol)
    h = _hermitian(_matrix(4, 4, dtype))
    values, vectors = njit(lambda a: np.linalg.eigh(a))(h)
    np.testing.assert_allclose(vectors @ np.diag(values) @ vectors.conj().T, h, atol=tol * 10)
    lower = njit(lambda a: np.linalg.cholesky(a))(h)
    assert lower.flags.c_contiguous and np.allclose(np.triu(lower, 1), 0)
    np.testing.assert_allclose(lower @ lower.conj().T, h, rtol=tol * 10)


def test_eig_of_a_complex_matrix():
    a = _matrix(4, 4, np.complex128)
    values, vectors = njit(lambda a: np.linalg.eig(a))(a)
    np.testing.assert_allclose(a @ vectors, vectors * values, atol=1e-10)
    np.testing.assert_allclose(np.sort_complex(values), np.sort_complex(np.linalg.eigvals(a)))


@pytest.mark.parametrize(
    "func",
    [
        lambda a: np.linalg.inv(a),
        lambda a: np.linalg.det(a),
        lambda a: np.linalg.slogdet(a),
        lambda a: np.linalg.eigvalsh(a),
        lambda a: np.linalg.svd(a)[1],
        lambda a: np.linalg.pinv(a),
        lambda a: np.linalg.matrix_rank(a),
        lambda a: np.trace(a, -1),
    ],
)
def test_empty_matrices(func):
    a = np.zeros((0, 0), np.complex64)
    _close(njit(func)(a), func(a), np.complex64)


# ---------------------------------------------------------------------------- products


def _operands():
    return [
        _matrix(2, 3, np.float64),
        _matrix(3, 2, np.complex64, "F"),
        np.arange(3.0),
        np.arange(4, dtype=np.float32)[::2],
        2.5,
        1 - 2j,
    ]


@pytest.mark.parametrize("func", [np.kron, np.outer], ids=["kron", "outer"])
def test_kron_and_outer_of_every_operand_pair(func):
    compiled = njit(lambda a, b: func(a, b))
    for a in _operands():
        for b in _operands():
            expected = func(a, b)
            got = compiled(a, b)
            assert np.shape(got) == np.shape(expected)
            np.testing.assert_allclose(got, expected, rtol=1e-6)
            assert np.asarray(got).dtype == np.asarray(expected).dtype


def test_outer_and_dot_write_into_out():
    outer = njit(lambda a, b, out: np.outer(a, b, out=out))
    dot = njit(lambda a, b, out: np.dot(a, b, out=out))
    a, b = _matrix(2, 3, np.complex128), _matrix(3, 4, np.complex128, "F")
    for compiled, func, shape in ((outer, np.outer, (6, 12)), (dot, np.dot, (2, 4))):
        out = np.zeros(shape, np.complex128)
        assert compiled(a, b, out) is out
        np.testing.assert_allclose(out, func(a, b))
    with pytest.raises(ValueError, match="incompatible output array size"):
        dot(a, b, np.zeros((4, 2), np.complex128))


@settings(max_examples=25, deadline=None)
@given(
    rows=st.integers(0, 6),
    columns=st.integers(0, 6),
    offset=st.integers(-8, 8),
    dtype=st.sampled_from([np.int8, np.float32, np.complex128]),
    transpose=st.booleans(),
)
def test_trace_with_offset(rows, columns, offset, dtype, transpose):
    a = (np.arange(rows * columns) % 7 - 3).astype(dtype).reshape(rows, columns)
    a = a.T if transpose else a
    assert njit(lambda a, k: np.trace(a, k))(a, offset) == np.trace(a, offset)


def test_vdot_conjugates_the_first_vector():
    a = np.array([1 + 2j, 3j, -1 + 0.5j])
    b = np.array([2 - 1j, 1 + 1j, 4j])
    compiled = njit(lambda a, b: np.vdot(a, b))
    assert compiled(a, b) == np.vdot(a, b)
    assert compiled(a[::2], b[::2]) == np.vdot(a[::2], b[::2])


# ---------------------------------------------------------------------------- errors


def _live_blocks() -> int:
    gc.collect()
    stats = rtsys.get_allocation_stats()
    return stats.alloc - stats.free


ERRORS = [
    (lambda a: np.linalg.inv(a), np.zeros((3, 3)), np.linalg.LinAlgError, "Singular matrix"),
    (lambda a: np.linalg.solve(a, a[0]), np.ones((2, 2)), np.linalg.LinAlgError, "singular"),
    (lambda a: np.linalg.inv(a), np.ones((2, 3)), np.linalg.LinAlgError, "must be square"),
    (lambda a: np.linalg.cholesky(a), -np.eye(3), np.linalg.LinAlgError, "positive definite"),
    (lambda a: np.linalg.solve(a, np.ones(3)), np.eye(2), ValueError, "Incompatible"),
    (lambda a: np.linalg.lstsq(a, np.ones(3)), np.eye(2), np.linalg.LinAlgError, "Incompatible"),
    (lambda a: np.dot(a, a), np.ones((3, 2)), ValueError, "incompatible array sizes"),
]


@pytest.mark.parametrize("func, arg, error, text", ERRORS)
def test_errors_as_numpy_raises_them_without_leaks(func, arg, error, text):
    with pytest.raises(error):
        func(arg)
    compiled = njit(func)
    with pytest.raises(error, match=text):
        compiled(arg)
    before = _live_blocks()
    for _ in range(3):
        with pytest.raises(error):
            compiled(arg)
    assert _live_blocks() == before


@pytest.mark.parametrize("name", ["inv", "det", "cholesky", "svd", "qr", "cond", "slogdet"])
def test_vectors_are_refused_with_numbas_words(name):
    func = getattr(np.linalg, name)
    with pytest.raises(TypingError, match=rf"np.linalg.{name}\(\) only supported on 2-D arrays"):
        njit(lambda a: func(a))(np.ones(3))
