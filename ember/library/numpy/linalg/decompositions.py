"""np.linalg decompositions on SciPy's LAPACK: cholesky, eigh, eigvalsh, eig, eigvals, svd,
svdvals, qr, lstsq, pinv, matrix_rank (tol=), cond, slogdet and matrix_power, for float32,
float64, complex64 and complex128 matrices (eig and eigvals of real matrices with real
eigenvalues, as in Numba), and np.roots (eigenvalues of the companion matrix; real
coefficients give real roots only, as in Numba).
(`svd(a, compute_uv=False)` changes the result's type with a value, so it is refused: use
`np.linalg.svdvals(a)`.)

One primitive, `lapack(routine, *operands)`, calls any LAPACK routine with Fortran's convention:
integers pass as int32 by address, floats by address, arrays by their data pointer, and one-letter
strings as characters; LAPACK's `info` is appended and returned. The implementations are Python
that allocates column-major work arrays and calls it, as NumPy's own wrappers do.
"""

from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.extending import overload
from ember.library.numpy.linalg.products import (
    _WIDE,
    MISMATCHED_SYSTEM,
    LinAlgError,
    _by_address,
    _check_square_jit,
    _column_major,
    _complex_unit,
    _declare,
    _linalg_dtype,
    _real_unit,
    check_matrix,
    in_double,
    lapack_getrf,
)
from ember.library.numpy.support import NUMPY_ERRORS, as_type, make_pysig
from ember.lowering import arrays as arr
from ember.lowering.registry import VarArgs, lower_builtin
from ember.typing.signature import Signature
from ember.typing.templates import registry


def lapack(routine, *operands):
    """Call the LAPACK `routine` (a constant name such as 'dpotrf') on `operands` and return
    its info. Compiled code only."""
    raise NotImplementedError("lapack() runs in compiled code only")


def _lapack_operand(typ) -> bool:
    if isinstance(typ, types.StringLiteral):
        return len(typ.literal_value) == 1
    return isinstance(types.unliteral(typ), (types.Integer, types.Float, types.Array))


@registry.typer(lapack)
def _type_lapack(args, kws):
    if kws or not args or not isinstance(args[0], types.StringLiteral):
        return None
    if not all(_lapack_operand(t) for t in args[1:]):
        return None
    operands = tuple(t if isinstance(t, types.StringLiteral) else types.unliteral(t) for t in args)
    return Signature(types.int64, operands)


@lower_builtin(lapack, VarArgs(types.Type))
def _lower_lapack(context, builder, sig, args):
    routine = sig.args[0].literal_value
    pointers = [_operand_pointer(builder, typ, value) for typ, value in zip(sig.args[1:], args[1:])]
    info = _by_address(builder, llvm.Constant(llvm.IntType(32), 0))
    function = _declare(builder, routine, llvm.VoidType(), [arr.ptr] * (len(pointers) + 1))
    builder.call(function, [*pointers, info])
    return builder.sext(builder.load(info, typ=llvm.IntType(32)), arr.i64)


def _operand_pointer(builder, typ, value):
    if isinstance(typ, types.StringLiteral):
        return _by_address(builder, llvm.Constant(llvm.IntType(8), ord(typ.literal_value)))
    if isinstance(typ, types.Array):
        return arr.unpack(builder, typ, value).data
    if isinstance(typ, types.Integer):
        return _by_address(builder, builder.trunc(value, llvm.IntType(32)))
    return _by_address(builder, value)


def _matrix_dtype(a, name: str) -> str | None:
    """The dtype np.linalg.`name` computes a 2-d array `a` in; None when `a` is no array."""
    if not isinstance(a, types.Array):
        return None
    check_matrix(a, name)
    return _linalg_dtype(a)


_column_major_jit = njit(**NUMPY_ERRORS)(_column_major)

_PREFIXES = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}

# Words of the generated sources that differ between real and complex LAPACK routines:
# (real text, complex text). RWORK* are the complex routines' real work arrays.
_KIND_WORDS = {
    "SYEVD": ("syevd", "heevd"),
    "ORGQR": ("orgqr", "ungqr"),
    "EIGH_RWORK": ("", "rwork, rwork.shape[0], "),
    "GEEV_IMAG": ("imaginary, ", ""),
    "GEEV_RWORK": ("", "rwork, "),
    "GESDD_RWORK": ("", "rwork, "),
    "GELSD_RWORK": ("", "rwork, "),
}


def _generated(name: str, source: str, dtype_name: str) -> object:
    """Run `source` for one dtype: '@' in routine names is the LAPACK prefix (s, d, c, z) and
    the _KIND_WORDS pick the real or complex routine's words; `dtype` and `real` (its real
    counterpart) are in scope."""
    is_complex = dtype_name.startswith("complex")
    for word, choices in sorted(_KIND_WORDS.items(), key=lambda item: -len(item[0])):
        source = source.replace(word, choices[is_complex])
    namespace = {
        "np": np,
        "dtype": np.dtype(dtype_name).type,
        "real": np.empty(0, dtype_name).real.dtype.type,
        "lapack": lapack,
        "LinAlgError": LinAlgError,
        "MISMATCHED_SYSTEM": "Incompatible dimensions: " + MISMATCHED_SYSTEM,
        "square": _check_square_jit,
        "column_major": _column_major_jit,
    }
    exec(source.replace("@", _PREFIXES[dtype_name]), namespace)  # noqa: S102 - fixed source
    return namespace[name]


def _register(key, params: str, name: str, source: str) -> None:
    """`source` defines `name` for one float dtype; '@' in routine names stands for s or d."""

    @functools.cache
    def impl_for(dtype_name: str):
        return _generated(name, source, dtype_name)

    _per_dtype(key, params, impl_for)


def _per_dtype(key, params: str, impl_for) -> None:
    """Implement `key` for float and complex matrices with `impl_for(dtype_name)`."""

    def select(a, *rest):
        dtype = _matrix_dtype(a, key.__name__)
        return None if dtype is None else in_double(impl_for, dtype)

    select.__signature__ = make_pysig(params)  # NumPy's parameters
    overload(key, jit_options=NUMPY_ERRORS)(select)


# ---------------------------------------------------------------------------- cholesky, eigh

_register(
    np.linalg.cholesky,
    "a",
    "cholesky",
    """
def cholesky(a):
    # C order, as NumPy returns it: read column-major, the copy is a's transpose, whose upper
    # factor (LAPACK's "U", from a's lower triangle) is the transpose of a's lower factor
    n = square(a)
    lower = np.empty((n, n), dtype)
    lower[:, :] = a
    if n and lapack("@potrf", "U", n, lower, n) > 0:
        raise LinAlgError("Matrix is not positive definite.")
    for i in range(n):
        for j in range(i + 1, n):
            lower[i, j] = 0
    return lower
""",
)

_EIGH = """
def eigh(a):
    n = square(a)
    vectors = column_major(a.astype(dtype))
    values = np.empty(n, real)
    if n == 0:
        return values, vectors
    work = np.empty(1 + 6 * n + 2 * n * n, dtype)
    rwork = np.empty(1 + 5 * n + 2 * n * n, real)
    iwork = np.empty(3 + 5 * n, np.int32)
    info = lapack("@SYEVD", "V", "L", n, vectors, n, values, work, work.shape[0], EIGH_RWORK
                  iwork, iwork.shape[0])
    if info > 0:
        raise LinAlgError("Eigenvalues did not converge")
    return values, vectors
"""
_register(np.linalg.eigh, "a", "eigh", _EIGH)

_register(
    np.linalg.eigvalsh,
    "a",
    "eigvalsh",
    """
def eigvalsh(a):
    n = square(a)
    scratch = column_major(a.astype(dtype))
    values = np.empty(n, real)
    if n == 0:
        return values
    work = np.empty(2 * n + 1, dtype)
    rwork = np.empty(n + 1, real)
    iwork = np.empty(1, np.int32)
    if lapack("@SYEVD", "N", "L", n, scratch, n, values, work, work.shape[0], EIGH_RWORK
              iwork, 1) > 0:
        raise LinAlgError("Eigenvalues did not converge")
    return values
""",
)

_EIG = """
def eig_parts(a):
    n = square(a)
    scratch = column_major(a.astype(dtype))
    values = np.empty(n, dtype)
    imaginary = np.zeros(n, real)
    rwork = np.empty(max(2 * n, 1), real)
    vectors = np.empty((n, n) if WANT else (1, 1), dtype).T
    left = np.empty((1, 1), dtype)
    if n == 0:
        return values, vectors
    query = np.empty(1, dtype)
    lapack("@geev", "N", JOB, n, scratch, n, values, GEEV_IMAG left, 1, vectors, max(n, 1),
           query, -1, GEEV_RWORK)
    work = np.empty(max(int(query[0].real), 1), dtype)
    info = lapack("@geev", "N", JOB, n, scratch, n, values, GEEV_IMAG left, 1, vectors,
                  max(n, 1), work, work.shape[0], GEEV_RWORK)
    if info > 0:
        raise LinAlgError("Eigenvalues did not converge")
    for value in imaginary:
        if value != 0.0:
            raise ValueError("NAME() argument must not cause a domain change: its eigenvalues "
                             "are complex; convert the matrix to complex first")
    return values, vectors
"""


@functools.cache
def _eig_impl(dtype_name: str, want_vectors: bool):
    """A complex matrix, or a real matrix with real eigenvalues (as Numba: complex ones are a
    ValueError, since the result type cannot depend on the values)."""
    source = _EIG.replace("JOB", '"V"' if want_vectors else '"N"')
    source = source.replace("WANT", str(want_vectors))
    source = source.replace("NAME", "eig" if want_vectors else "eigvals")
    parts = njit(**NUMPY_ERRORS)(_generated("eig_parts", source, dtype_name))
    if want_vectors:

        def eig(a):
            return parts(a)

        return eig

    def eigvals(a):
        return parts(a)[0]

    return eigvals


_per_dtype(np.linalg.eig, "a", lambda dtype: _eig_impl(dtype, True))
_per_dtype(np.linalg.eigvals, "a", lambda dtype: _eig_impl(dtype, False))


# ---------------------------------------------------------------------------- svd and users

_SVD = """
def svd_parts(a):
    m, n = a.shape
    k = min(m, n)
    scratch = column_major(a.astype(dtype))
    values = np.empty(k, real)
    u = np.empty((m, m) if WANT else (1, 1), dtype).T
    vt = np.empty((n, n) if WANT else (1, 1), dtype).T
    if k == 0:
        return u, values, vt
    iwork = np.empty(8 * k, np.int32)
    rwork = np.empty(max(7 * k, 5 * k * k + 5 * k, 2 * max(m, n) * k + 2 * k * k + k), real)
    query = np.empty(1, dtype)
    lapack("@gesdd", JOB, m, n, scratch, m, values, u, max(m, 1), vt, max(n, 1), query, -1,
           GESDD_RWORK iwork)
    work = np.empty(max(int(query[0].real), 1), dtype)
    info = lapack("@gesdd", JOB, m, n, scratch, m, values, u, max(m, 1), vt, max(n, 1), work,
                  work.shape[0], GESDD_RWORK iwork)
    if info > 0:
        raise LinAlgError("SVD did not converge")
    return u, values, vt
"""


@functools.cache
def _svd_parts_impl(dtype_name: str, want_vectors: bool):
    """(u, s, vt) with full u and vt (Fortran order), or only s (u and vt are 1 x 1)."""
    source = _SVD.replace("JOB", '"A"' if want_vectors else '"N"')
    source = source.replace("WANT", str(want_vectors))
    return njit(**NUMPY_ERRORS)(_generated("svd_parts", source, dtype_name))


@functools.cache
def _svd_impl(dtype_name: str):
    parts = _svd_parts_impl(dtype_name, True)

    def svd(a, full_matrices):
        u, values, vt = parts(a)
        if not full_matrices:
            k = values.shape[0]
            return np.asfortranarray(u[:, :k]), values, np.asfortranarray(vt[:k, :])
        return u, values, vt

    return svd


_per_dtype(
    np.linalg.svd, "a, full_matrices=True", _svd_impl
)  # compute_uv=False: np.linalg.svdvals(a)


@functools.cache
def _svdvals_impl(dtype_name: str):
    values_only = _svd_parts_impl(dtype_name, False)

    def svdvals(x):
        return values_only(x)[1]

    return svdvals


if hasattr(np.linalg, "svdvals"):
    _per_dtype(np.linalg.svdvals, "x", _svdvals_impl)


@functools.cache
def _pinv_impl(dtype_name: str):
    parts = _svd_parts_impl(dtype_name, True)

    def pinv(a, rcond):
        m, n = a.shape
        u, values, vt = parts(a)
        k = values.shape[0]
        cutoff = rcond * (values.max() if k else 0.0)
        out = np.zeros((m, n), u.dtype).T  # F order, as Numba returns it
        for index in range(k):  # V diag(1/s) U^H over the singular values kept
            if values[index] > cutoff:
                out += np.outer(np.conj(vt[index, :]), np.conj(u[:, index])) / values[index]
        return out

    return pinv


_per_dtype(np.linalg.pinv, "a, rcond=1e-15", _pinv_impl)


@functools.cache
def _matrix_rank_impl(dtype_name: str, default_tol: bool):
    """NumPy's rank: singular values computed in double, rounded to the input's precision and
    compared with that precision's tolerance."""
    parts = _svd_parts_impl(_WIDE.get(dtype_name, dtype_name), False)
    eps = float(np.finfo(np.dtype(dtype_name)).eps)
    real_type = np.empty(0, dtype_name).real.dtype.type

    def matrix_rank(A, tol):
        m, n = A.shape
        values = parts(A)[1].astype(real_type)
        if values.shape[0] == 0:
            return 0
        tolerance = values.max() * max(m, n) * eps if default_tol else tol
        return int((values > tolerance).sum())

    return matrix_rank


def _vector_rank(A, tol):
    return int(not np.all(A == 0))


@overload(np.linalg.matrix_rank, jit_options=NUMPY_ERRORS)
def _select_matrix_rank(A, tol=None):
    tol = as_type(tol)
    default_tol = isinstance(tol, types.NoneType)
    if not (default_tol or isinstance(types.unliteral(tol), (types.Integer, types.Float))):
        return None
    if isinstance(A, types.Array) and A.ndim == 1:
        return _vector_rank
    dtype = _matrix_dtype(A, "matrix_rank")
    return None if dtype is None else _matrix_rank_impl(dtype, default_tol)


# ---------------------------------------------------------------------------- cond


@functools.cache
def _cond_impl(dtype_name: str, p_kind: str):
    """NumPy's cond: the ratio of extreme singular values for p None, 2 and -2; otherwise
    norm(x, p) * norm(inv(x), p). `p_kind` is "none", "number", "fro" or "nuc"."""
    parts = _svd_parts_impl(dtype_name, False)

    def by_singular_values(x, p):
        values = parts(x)[1]
        if values.shape[0] == 0:
            raise LinAlgError("cond is not defined on empty arrays: Arrays cannot be empty")
        if p == -2:
            return values[-1] / values[0]
        return values[0] / values[-1]

    def by_norms(x, p):
        if x.shape[0] != x.shape[1]:
            raise LinAlgError("Last 2 dimensions of the array must be square.")
        return np.linalg.norm(x, p) * np.linalg.norm(np.linalg.inv(x), p)

    singular_jit = njit(**NUMPY_ERRORS)(by_singular_values)
    norms_jit = njit(**NUMPY_ERRORS)(by_norms)
    if p_kind == "none":
        return lambda x, p: singular_jit(x, 2)
    if p_kind == "fro":
        return lambda x, p: np.linalg.norm(x, "fro") * np.linalg.norm(np.linalg.inv(x), "fro")
    if p_kind == "nuc":
        return lambda x, p: np.linalg.norm(x, "nuc") * np.linalg.norm(np.linalg.inv(x), "nuc")

    def cond(x, p):
        if p == 2 or p == -2:
            return singular_jit(x, p)
        return norms_jit(x, p)

    return cond


@overload(np.linalg.cond, jit_options=NUMPY_ERRORS)
def _select_cond(x, p=None):
    p = as_type(p)
    dtype = _matrix_dtype(x, "cond")
    if dtype is None:
        return None
    if isinstance(p, types.NoneType):
        kind = "none"
    elif getattr(p, "literal_value", None) in ("fro", "nuc"):
        kind = p.literal_value
    elif isinstance(types.unliteral(p), (types.Integer, types.Float)):
        kind = "number"
    else:
        return None
    return in_double(functools.partial(_cond_impl, p_kind=kind), dtype)


# ---------------------------------------------------------------------------- roots


@functools.cache
def _roots_impl(dtype_name: str):
    """NumPy's roots: the eigenvalues of the companion matrix of p without its leading and
    trailing zeros; each trailing zero is a root 0. Real coefficients give real roots, as in
    Numba (complex roots are a ValueError: the result type cannot depend on the values);
    complex coefficients give complex roots."""
    work = np.dtype(dtype_name).type
    eigvals = njit(**NUMPY_ERRORS)(_eig_impl(dtype_name, False))

    def roots(p):
        coefficients = p.astype(work)
        nonzero = np.flatnonzero(coefficients)
        if nonzero.shape[0] == 0:
            return np.empty(0, work)
        first, last = nonzero[0], nonzero[-1]
        trailing = coefficients.shape[0] - last - 1
        trimmed = coefficients[first : last + 1]
        degree = trimmed.shape[0] - 1
        out = np.zeros(degree + trailing, work)
        if degree > 0:
            companion = np.zeros((degree, degree), work)
            for i in range(1, degree):
                companion[i, i - 1] = 1.0
            companion[0, :] = -trimmed[1:] / trimmed[0]
            out[:degree] = eigvals(companion)
        return out

    return roots


@functools.cache
def _roots_float32():
    """NumPy keeps float32 coefficients' roots in float32 (found in float64 here)."""
    roots = njit(**NUMPY_ERRORS)(_roots_impl("float64"))
    return lambda p: roots(p).astype(np.float32)


def _roots_not_1d(p):
    raise ValueError("Input must be a rank-1 array.")


@overload(np.roots, jit_options=NUMPY_ERRORS)
def _select_roots(p):
    if not isinstance(p, types.Array):
        return None
    if not isinstance(p.dtype, (types.Integer, types.Float, types.Complex, types.Boolean)):
        return None
    if p.ndim != 1:
        return _roots_not_1d
    if p.dtype == types.float32:
        return _roots_float32()
    return _roots_impl(p.dtype.name if isinstance(p.dtype, types.Complex) else "float64")


# ---------------------------------------------------------------------------- qr, lstsq

_register(
    np.linalg.qr,
    "a",
    "qr",
    """
def qr(a):
    m, n = a.shape
    k = min(m, n)
    factors = column_major(a.astype(dtype))
    tau = np.empty(max(k, 1), dtype)
    r = np.zeros((n, k), dtype).T  # F order, as Numba returns q and r
    q = np.empty((k, m), dtype).T
    if k == 0:
        return np.zeros((m, 0), dtype), r
    query = np.empty(1, dtype)
    lapack("@geqrf", m, n, factors, m, tau, query, -1)
    work = np.empty(max(int(query[0].real), n, 1), dtype)
    lapack("@geqrf", m, n, factors, m, tau, work, work.shape[0])
    for i in range(k):
        for j in range(i, n):
            r[i, j] = factors[i, j]
    q[:, :] = factors[:, :k]
    lapack("@ORGQR", m, k, k, q, m, tau, query, -1)
    work = np.empty(max(int(query[0].real), k, 1), dtype)
    lapack("@ORGQR", m, k, k, q, m, tau, work, work.shape[0])
    return q, r
""",
)


@functools.cache
def _lstsq_impl(dtype_name: str, vector: bool, default_rcond: bool):
    """gelsd (SVD-based least squares), returning NumPy's (x, residuals, rank, s)."""
    source = """
def lstsq(a, b, rcond):
    m, n = a.shape
    nrhs = NRHS
    if b.shape[0] != m:
        raise LinAlgError(MISMATCHED_SYSTEM)
    rows = max(m, n, 1)
    scratch = column_major(a.astype(dtype))
    solution = np.zeros((nrhs, rows), dtype).T
    solution[:m, :] = b.astype(dtype).reshape((m, nrhs))
    values = np.empty(max(min(m, n), 1), real)
    rank = np.zeros(1, np.int32)
    cutoff = CUTOFF
    query = np.empty(1, dtype)
    rwork = np.zeros(1, real)  # the complex query's answer; stays 0 for real routines
    iquery = np.empty(1, np.int32)
    lapack("@gelsd", m, n, nrhs, scratch, max(m, 1), solution, rows, values, real(cutoff),
           rank, query, -1, GELSD_RWORK iquery)
    work = np.empty(max(int(query[0].real), 1), dtype)
    rwork = np.empty(max(int(rwork[0]), 1), real)
    iwork = np.empty(max(int(iquery[0]), 1), np.int32)
    info = lapack("@gelsd", m, n, nrhs, scratch, max(m, 1), solution, rows, values,
                  real(cutoff), rank, work, work.shape[0], GELSD_RWORK iwork)
    if info > 0:
        raise LinAlgError("SVD did not converge in Linear Least Squares")
    x = solution[:n, :].copy()
    if rank[0] == n and m > n:
        residuals = np.empty(nrhs, real)
        for j in range(nrhs):
            residuals[j] = (np.abs(solution[n:, j]) ** 2).sum()
    else:
        residuals = np.empty(0, real)
    return SHAPE_X, residuals, int(rank[0]), values[: min(m, n)].copy()
"""
    eps = float(np.finfo(np.dtype(dtype_name)).eps)
    replacements = {
        "NRHS": "1" if vector else "b.shape[1]",
        "SHAPE_X": "x[:, 0].copy()" if vector else "x",
        "CUTOFF": f"{eps!r} * max(m, n)" if default_rcond else "rcond",
    }
    for placeholder, text in replacements.items():
        source = source.replace(placeholder, text)
    return _generated("lstsq", source, dtype_name)


@overload(np.linalg.lstsq, jit_options=NUMPY_ERRORS)
def _select_lstsq(a, b, rcond=None):
    rcond = as_type(rcond)
    if not (isinstance(b, types.Array) and b.ndim in (1, 2)):
        return None
    dtype = _matrix_dtype(a, "lstsq")
    if dtype is None or _linalg_dtype(a, b) != dtype:
        return None
    if not isinstance(rcond, types.NoneType) and not isinstance(
        types.unliteral(rcond), (types.Integer, types.Float)
    ):
        return None
    vector, default_rcond = b.ndim == 1, isinstance(rcond, types.NoneType)
    return in_double(
        functools.partial(_lstsq_impl, vector=vector, default_rcond=default_rcond), dtype
    )


# ---------------------------------------------------------------------------- slogdet, power


@functools.cache
def _slogdet_impl(dtype_name: str):
    """NumPy's slogdet: the sign (a unit complex number for complex matrices) and the sum of
    the logarithms of the LU factor's diagonal magnitudes."""
    np_type = np.dtype(dtype_name).type
    real_type = np.empty(0, dtype_name).real.dtype.type
    unit = _complex_unit if np.issubdtype(np_type, np.complexfloating) else _real_unit

    def slogdet(a):
        n = _check_square_jit(a)
        lu = _column_major_jit(a.astype(np_type))
        pivots = np.empty(max(n, 1), np.int32)
        if n == 0:
            return np_type(1.0), real_type(0.0)
        if lapack_getrf(n, lu, pivots) > 0:
            return np_type(0.0), real_type(-np.inf)
        sign = np_type(1.0)
        logdet = real_type(0.0)
        for i in range(n):
            magnitude = np.abs(lu[i, i])
            sign = np_type(sign * unit(lu[i, i], magnitude))
            if pivots[i] != i + 1:
                sign = -sign
            logdet += np.log(magnitude)
        return sign, logdet

    return slogdet


_per_dtype(np.linalg.slogdet, "a", _slogdet_impl)


def _power_by_squaring(a, n):
    """NumPy's order of products: squares of a, multiplied in as the bits of n come."""
    z = a
    n, bit = divmod(n, 2)
    result = a.copy()
    have_result = bit == 1
    while n > 0:
        z = z @ z
        n, bit = divmod(n, 2)
        if bit:
            result = z if not have_result else result @ z
            have_result = True
    return result


_power_by_squaring_jit = njit(**NUMPY_ERRORS)(_power_by_squaring)


def _matrix_power_float(a, n):
    size = _check_square_jit(a)
    if n == 0:
        return np.eye(size, dtype=a.dtype)
    base = np.linalg.inv(a) if n < 0 else a.copy()
    return _power_by_squaring_jit(base, abs(n))


def _matrix_power_int(a, n):
    size = _check_square_jit(a)
    if n < 0:
        raise ValueError("a negative power of an integer matrix is a float matrix: "
                         "convert the matrix with a.astype(np.float64) first")  # fmt: skip
    if n == 0:
        return np.eye(size, dtype=a.dtype)
    return _power_by_squaring_jit(a.copy(), n)


@overload(np.linalg.matrix_power, jit_options=NUMPY_ERRORS)
def _select_matrix_power(a, n):
    if not (isinstance(a, types.Array) and a.ndim == 2):
        return None
    if not isinstance(types.unliteral(n), types.Integer):
        return None
    if isinstance(a.dtype, (types.Float, types.Complex)):
        return _matrix_power_float
    return _matrix_power_int if isinstance(a.dtype, types.Integer) else None
