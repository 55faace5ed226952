"""np.dot, `a @ b`, `a.dot(b)` and np.linalg.norm, with SciPy's BLAS for floating-point
matrix products (scipy.linalg.cython_blas exports its functions as PyCapsules).

The BLAS functions are published to the JIT with `llvmlite.binding.add_symbol` under
`ember_blas_<name>` and called with Fortran's convention (every argument by address). Row-major
products use the transpose identity: C = A @ B is C^T = B^T @ A^T in column-major order, so
C-contiguous operands need no copy; F-contiguous ones are passed transposed; others are copied.
Integer products use plain loops, as NumPy does.
"""

from __future__ import annotations

import ctypes
import functools
import inspect
import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.support import NUMPY_ERRORS, as_type, numpy_dtype
from ember.lowering import arrays as arr
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature
from ember.typing.templates import registry

_PREFIX = {types.float32: "s", types.float64: "d", types.complex64: "c", types.complex128: "z"}


@functools.cache
def blas_symbol(name: str) -> str:
    """Publish SciPy's BLAS (or LAPACK) `name` to the JIT; returns the symbol compiled code
    calls."""
    from scipy.linalg import cython_blas, cython_lapack

    from ember.codegen.symbols import publish

    exports = cython_blas.__pyx_capi__
    if name not in exports:
        exports = cython_lapack.__pyx_capi__
    capsule = exports[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, get_name(capsule))
    symbol = f"ember_blas_{name}"
    publish(symbol, address)
    return symbol


def publish_symbol(symbol: str) -> None:
    """Publish `ember_blas_<name>` again (cached code calls it by name)."""
    blas_symbol(symbol.removeprefix("ember_blas_"))


def _declare(builder, name: str, result, args):
    symbol = blas_symbol(name)
    function = builder.module.globals.get(symbol)
    if function is None:
        function = llvm.Function(builder.module, llvm.FunctionType(result, args), symbol)
    return function


def _by_address(builder, value):
    slot = arr.alloca_in_entry(builder, value.type)
    builder.store(value, slot)
    return slot


# ---------------------------------------------------------------------------- primitives


def blas_gemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc):
    """c[:m*n] = op(a) @ op(b) in column-major order (BLAS gemm, alpha=1, beta=0); compiled
    code only."""
    raise NotImplementedError("blas_gemm runs in compiled code only")


def blas_dot(n, x, incx, y, incy):
    """sum(x[i*incx] * y[i*incy]) by BLAS dot (real floats); compiled code only."""
    raise NotImplementedError("blas_dot runs in compiled code only")


def _blas_dtype(typ) -> bool:
    return isinstance(typ, types.Array) and typ.dtype in _PREFIX


@registry.typer(blas_gemm)
def _type_gemm(args, kws):
    if len(args) != 11 or not all(_blas_dtype(args[i]) for i in (5, 7, 9)):
        return None
    ints = [types.int64] * 5
    return signature(types.none, *ints, args[5], types.int64, args[7], types.int64, args[9],
                     types.int64)  # fmt: skip


@lower_builtin(blas_gemm, *([types.Type] * 11))
def _lower_gemm(context, builder, sig, args):
    dtype = sig.args[5].dtype
    i8, i32 = llvm.IntType(8), llvm.IntType(32)

    def char(value):  # 0 -> 'N', 1 -> 'T'
        flag = builder.icmp_signed("!=", value, arr.const(0))
        return _by_address(builder, builder.select(flag, llvm.Constant(i8, ord("T")),
                                                   llvm.Constant(i8, ord("N"))))  # fmt: skip

    def integer(value):
        return _by_address(builder, builder.trunc(value, i32))

    def data(typ, value):
        return arr.unpack(builder, typ, value).data

    one = _by_address(builder, context.get_constant(dtype, 1))
    zero = _by_address(builder, context.get_constant(dtype, 0))
    ta, tb, m, n, k, a, lda, b, ldb, c, ldc = args
    operands = [
        char(ta), char(tb), integer(m), integer(n), integer(k), one,
        data(sig.args[5], a), integer(lda), data(sig.args[7], b), integer(ldb), zero,
        data(sig.args[9], c), integer(ldc),
    ]  # fmt: skip
    gemm = _declare(builder, _PREFIX[dtype] + "gemm", llvm.VoidType(), [arr.ptr] * 13)
    builder.call(gemm, operands)
    return context.get_dummy_value(types.none)


@registry.typer(blas_dot)
def _type_dot(args, kws):
    if len(args) != 5 or not (_blas_dtype(args[1]) and args[1].dtype is args[3].dtype):
        return None
    if isinstance(args[1].dtype, types.Complex):
        return None
    return signature(args[1].dtype, types.int64, args[1], types.int64, args[3], types.int64)


@lower_builtin(blas_dot, *([types.Type] * 5))
def _lower_dot(context, builder, sig, args):
    dtype = sig.args[1].dtype
    i32 = llvm.IntType(32)
    n, x, incx, y, incy = args
    operands = [
        _by_address(builder, builder.trunc(n, i32)),
        arr.unpack(builder, sig.args[1], x).data,
        _by_address(builder, builder.trunc(incx, i32)),
        arr.unpack(builder, sig.args[3], y).data,
        _by_address(builder, builder.trunc(incy, i32)),
    ]
    dot = _declare(builder, _PREFIX[dtype] + "dot", context.value_type(dtype), [arr.ptr] * 5)
    return builder.call(dot, operands)


# ---------------------------------------------------------------------------- implementations


def _matmul_blas(a, b):
    """2-d @ 2-d for BLAS dtypes (same dtype on both sides)."""
    m, k = a.shape
    k2, n = b.shape
    if k != k2:
        raise ValueError("incompatible array sizes: the inner dimensions differ")
    out = np.empty((m, n), a.dtype)
    if m == 0 or n == 0:
        return out
    if k == 0:
        out[:] = 0
        return out
    size = a.itemsize
    # A as stored: row-major (ld = row stride) or column-major (ld = column stride)
    if a.strides[1] == size and a.strides[0] % size == 0 and a.strides[0] >= k * size:
        ta, lda, a_ready = 0, a.strides[0] // size, a
    elif a.strides[0] == size and a.strides[1] % size == 0 and a.strides[1] >= m * size:
        ta, lda, a_ready = 1, a.strides[1] // size, a
    else:
        ta, lda, a_ready = 0, k, np.ascontiguousarray(a)
    if b.strides[1] == size and b.strides[0] % size == 0 and b.strides[0] >= n * size:
        tb, ldb, b_ready = 0, b.strides[0] // size, b
    elif b.strides[0] == size and b.strides[1] % size == 0 and b.strides[1] >= k * size:
        tb, ldb, b_ready = 1, b.strides[1] // size, b
    else:
        tb, ldb, b_ready = 0, n, np.ascontiguousarray(b)
    # C^T (n x m, column-major) = op(B^T) @ op(A^T)
    blas_gemm(tb, ta, n, m, k, b_ready, ldb, a_ready, lda, out, n)
    return out


@functools.cache
def _matmul_loops(dtype_name: str):
    """2-d @ 2-d with plain loops (integers, booleans). Sums run in 64 bits and are narrowed
    at the end, which wraps as NumPy's own integer loops do (a boolean is any product)."""
    np_type = np.dtype(dtype_name).type
    wide = np.uint64 if np.dtype(dtype_name).kind == "u" else np.int64

    def sums(a, b):
        m, k = a.shape
        k2, n = b.shape
        if k != k2:
            raise ValueError("incompatible array sizes: the inner dimensions differ")
        out = np.zeros((m, n), wide)
        for i in range(m):
            for p in range(k):
                x = a[i, p]
                for j in range(n):
                    out[i, j] += x * b[p, j]
        return out

    if np_type is wide:
        return sums
    wide_sums = njit(**NUMPY_ERRORS)(sums)

    def narrowed(a, b):
        return wide_sums(a, b).astype(np_type)

    return narrowed


@functools.cache
def _dot_vectors(dtype_name: str, use_blas: bool):
    """1-d . 1-d: BLAS dot for real floats with positive strides, else a loop."""
    np_type = np.dtype(dtype_name).type

    def loop(a, b):
        n = a.shape[0]
        if b.shape[0] != n:
            raise ValueError("incompatible array sizes: the vectors have different lengths")
        total = np_type(0)
        for i in range(n):
            total += a[i] * b[i]
        return np_type(total)  # integers sum in 64 bits: NumPy's dtype, wrapped as NumPy's

    if not use_blas:
        return loop
    fallback = njit(**NUMPY_ERRORS)(loop)

    def with_blas(a, b):
        n = a.shape[0]
        size = a.itemsize
        if (b.shape[0] == n and n > 0 and a.strides[0] > 0 and b.strides[0] > 0
                and a.strides[0] % size == 0 and b.strides[0] % size == 0):  # fmt: skip
            return blas_dot(n, a, a.strides[0] // size, b, b.strides[0] // size)
        return fallback(a, b)

    return with_blas


@functools.cache
def _product_impl(a_ndim: int, b_ndim: int, use_blas: bool, dtype_name: str, cast_a: bool,
                  cast_b: bool):  # fmt: skip
    """The implementation of a @ b for these operand ranks (1 or 2), casting to the common
    dtype first when the operands differ."""
    np_type = np.dtype(dtype_name).type
    if a_ndim == 1 and b_ndim == 1:
        core = njit(**NUMPY_ERRORS)(_dot_vectors(dtype_name, use_blas))
    else:
        core = njit(**NUMPY_ERRORS)(_matmul_blas if use_blas else _matmul_loops(dtype_name))

    if a_ndim == 1 and b_ndim == 1:
        if cast_a and cast_b:

            def impl(a, b):
                return core(a.astype(np_type), b.astype(np_type))
        elif cast_a:

            def impl(a, b):
                return core(a.astype(np_type), b)
        elif cast_b:

            def impl(a, b):
                return core(a, b.astype(np_type))
        else:

            def impl(a, b):
                return core(a, b)

        return impl
    # matrix products: cast, lift vectors to matrices, multiply, drop the lifted dimension
    lift_a = "a.reshape(1, a.shape[0])" if a_ndim == 1 else "a"
    lift_b = "b.reshape(b.shape[0], 1)" if b_ndim == 1 else "b"
    if cast_a:
        lift_a = lift_a.replace("a", "a.astype(np_type)", 1) if a_ndim == 2 else (
            "a.astype(np_type).reshape(1, a.shape[0])")  # fmt: skip
    if cast_b:
        lift_b = lift_b.replace("b", "b.astype(np_type)", 1) if b_ndim == 2 else (
            "b.astype(np_type).reshape(b.shape[0], 1)")  # fmt: skip
    drop = ""
    if a_ndim == 1:
        drop = ".reshape(out.shape[1])"
    elif b_ndim == 1:
        drop = ".reshape(out.shape[0])"
    source = f"def impl(a, b):\n    out = core({lift_a}, {lift_b})\n    return out{drop}\n"
    namespace = {"core": core, "np_type": np_type, "np": np}
    exec(source, namespace)  # noqa: S102 - a template over the fixed names above
    impl = namespace["impl"]
    impl.__module__ = __name__
    return impl


def _select_product(a, b):
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        return None
    if a.ndim not in (1, 2) or b.ndim not in (1, 2):
        raise TypingError(f"ember's matrix product takes 1-d and 2-d arrays, not {a} and {b}")
    common = np.result_type(numpy_dtype(a.dtype), numpy_dtype(b.dtype))
    from ember.library.numpy.support import from_numpy_dtype

    dtype = from_numpy_dtype(common)
    use_blas = dtype in _PREFIX
    if a.ndim == 1 and b.ndim == 1 and isinstance(dtype, types.Complex):
        use_blas = False  # complex dot returns by value: Fortran's ABI for it varies
    return _product_impl(a.ndim, b.ndim, use_blas, common.name, a.dtype is not dtype,
                         b.dtype is not dtype)  # fmt: skip


@functools.cache
def _product_into(product):
    """np.dot(a, b, out=out): the product written into `out`, which is returned."""
    product_jit = njit(**NUMPY_ERRORS)(product)

    def dot_into(a, b, out):
        result = product_jit(a, b)
        if out.shape != result.shape:
            raise ValueError("incompatible output array size: out must have the shape of "
                             "the product")  # fmt: skip
        out[...] = result
        return out

    return dot_into


@overload(np.dot, jit_options=NUMPY_ERRORS)
def _np_dot(a, b, out=None):
    out = as_type(out)
    product = _select_product(a, b)
    if product is None or isinstance(out, types.NoneType):
        return product if product is None else _drop_out(product)
    result_ndim = a.ndim + b.ndim - 2
    common = np.result_type(numpy_dtype(a.dtype), numpy_dtype(b.dtype))
    if not (isinstance(out, types.Array) and out.ndim == result_ndim and result_ndim > 0):
        raise TypingError(f"np.dot(): out must be a {result_ndim}-d array, not {out}")
    if numpy_dtype(out.dtype) != common:
        raise TypingError(f"np.dot() arguments must all have the same dtype: out is {out.dtype}, "
                          f"the product {common}")  # fmt: skip
    return _product_into(product)


@functools.cache
def _drop_out(product):
    product_jit = njit(**NUMPY_ERRORS)(product)
    return lambda a, b, out=None: product_jit(a, b)


@overload(np.matmul, jit_options=NUMPY_ERRORS)
def _np_matmul(a, b):
    return _select_product(a, b)


@overload_method(types.Array, "dot", jit_options=NUMPY_ERRORS)
def _array_dot(self, b):
    return _select_product(self, b)


@overload(operator.matmul, jit_options=NUMPY_ERRORS)
def _operator_matmul(a, b):
    return _select_product(a, b)


# ---------------------------------------------------------------------------- norm


# Below this many items a loop beats the call into BLAS.
_BLAS_NORM_LENGTH = 32
# The longest run one BLAS call takes (its lengths are 32-bit integers).
_BLAS_CHUNK = 2**30


def _sum_of_squares(flat):
    """The sum of |x|**2 over the 1-d array `flat`, in float64 (compiled code only)."""
    raise NotImplementedError("_sum_of_squares runs in compiled code only")


def _squares_real(flat):
    total = 0.0
    for value in flat:
        total += float(value) * float(value)  # integers: no overflow in the square
    return total


def _squares_complex(flat):
    total = 0.0
    for value in flat:
        total += float(value.real) * float(value.real) + float(value.imag) * float(value.imag)
    return total


_squares_real_jit = njit(**NUMPY_ERRORS)(_squares_real)


def _squares_blas(flat):
    """x . x by BLAS dot, as NumPy computes the 2-norm, for long float64 vectors."""
    n = flat.shape[0]
    size = flat.itemsize
    stride = flat.strides[0]
    if n >= _BLAS_NORM_LENGTH and stride > 0 and stride % size == 0:
        total = 0.0
        for start in range(0, n, _BLAS_CHUNK):  # BLAS counts in 32 bits
            part = flat[start : start + _BLAS_CHUNK]
            total += blas_dot(part.shape[0], part, stride // size, part, stride // size)
        return total
    return _squares_real_jit(flat)


@overload(_sum_of_squares, jit_options=NUMPY_ERRORS)
def _select_sum_of_squares(flat):
    if isinstance(flat.dtype, types.Complex):
        return _squares_complex
    return _squares_blas if flat.dtype == types.float64 else _squares_real


def _norm_vector(x, ord):
    if ord == 2:
        return float(np.sqrt(_sum_of_squares(x.ravel())))
    x = x.ravel()
    n = x.shape[0]
    if n == 0:
        return 0.0
    magnitude = np.abs(x)
    if ord == np.inf:
        return float(magnitude.max())
    if ord == -np.inf:
        return float(magnitude.min())
    if ord == 0:
        return float((x != 0).sum())
    if ord == 1:
        return float(magnitude.sum())
    return float(((magnitude**ord).sum()) ** (1.0 / ord))


def _norm_frobenius(x, ord):
    return np.sqrt(_sum_of_squares(x.ravel()))


def _norm_matrix(x, ord):
    magnitude = np.abs(x)
    if ord == 1:
        return float(magnitude.sum(axis=0).max())
    if ord == -1:
        return float(magnitude.sum(axis=0).min())
    if ord == np.inf:
        return float(magnitude.sum(axis=1).max())
    if ord == -np.inf:
        return float(magnitude.sum(axis=1).min())
    if ord == 2 or ord == -2:
        values = _singular_values(x)
        return float(values[0] if ord == 2 else values[-1])
    raise ValueError("Invalid norm order for matrices.")


def _singular_values(x):
    """The singular values of x in float64, largest first (compiled code only)."""
    raise NotImplementedError("_singular_values runs in compiled code only")


def _real_singular_values(x):
    return np.linalg.svd(x.astype(np.float64))[1]


def _complex_singular_values(x):
    return np.linalg.svd(x.astype(np.complex128))[1]


@overload(_singular_values, jit_options=NUMPY_ERRORS)
def _select_singular_values(x):
    if isinstance(x.dtype, types.Complex):
        return _complex_singular_values
    return _real_singular_values


def _norm_nuclear(x, ord):
    return float(_singular_values(x).sum())


@overload(np.linalg.norm, jit_options=NUMPY_ERRORS)
def _select_norm(x, ord=None):
    ord = as_type(ord)
    if not isinstance(x, types.Array) or isinstance(x.dtype, types.Boolean):
        return None
    if isinstance(ord, types.NoneType):
        return _norm_frobenius
    text = getattr(ord, "literal_value", None)
    if x.ndim == 2 and text in ("fro", "nuc"):
        return _norm_frobenius if text == "fro" else _norm_nuclear
    if not isinstance(types.unliteral(ord), (types.Integer, types.Float)):
        return None
    if x.ndim == 1:
        return _norm_vector
    if x.ndim == 2:
        return _norm_matrix
    return None


# ---------------------------------------------------------------------- LAPACK: solve, inv, det


def lapack_gesv(n, nrhs, a, ipiv, b):
    """Solve a x = b in place (LAPACK gesv; `a` and `b` column-major with leading dimension
    n, `ipiv` int32[n]); returns LAPACK's info. Compiled code only."""
    raise NotImplementedError("lapack_gesv runs in compiled code only")


def lapack_getrf(n, a, ipiv):
    """LU-factorize the column-major n x n `a` in place (LAPACK getrf); returns info."""
    raise NotImplementedError("lapack_getrf runs in compiled code only")


@registry.typer(lapack_gesv)
def _type_gesv(args, kws):
    if len(args) != 5 or not (_blas_dtype(args[2]) and args[4].dtype is args[2].dtype):
        return None
    return signature(types.int64, types.int64, types.int64, args[2], args[3], args[4])


@registry.typer(lapack_getrf)
def _type_getrf(args, kws):
    if len(args) != 3 or not _blas_dtype(args[1]):
        return None
    return signature(types.int64, types.int64, args[1], args[2])


def _int32(builder, value):
    return _by_address(builder, builder.trunc(value, llvm.IntType(32)))


@lower_builtin(lapack_gesv, *([types.Type] * 5))
def _lower_gesv(context, builder, sig, args):
    dtype = sig.args[2].dtype
    n, nrhs, a, ipiv, b = args
    info = _by_address(builder, llvm.Constant(llvm.IntType(32), 0))
    size = _int32(builder, n)
    operands = [
        size, _int32(builder, nrhs), arr.unpack(builder, sig.args[2], a).data, size,
        arr.unpack(builder, sig.args[3], ipiv).data, arr.unpack(builder, sig.args[4], b).data,
        size, info,
    ]  # fmt: skip
    gesv = _declare(builder, _PREFIX[dtype] + "gesv", llvm.VoidType(), [arr.ptr] * 8)
    builder.call(gesv, operands)
    return builder.sext(builder.load(info, typ=llvm.IntType(32)), arr.i64)


@lower_builtin(lapack_getrf, *([types.Type] * 3))
def _lower_getrf(context, builder, sig, args):
    dtype = sig.args[1].dtype
    n, a, ipiv = args
    info = _by_address(builder, llvm.Constant(llvm.IntType(32), 0))
    size = _int32(builder, n)
    operands = [size, size, arr.unpack(builder, sig.args[1], a).data, size,
                arr.unpack(builder, sig.args[2], ipiv).data, info]  # fmt: skip
    getrf = _declare(builder, _PREFIX[dtype] + "getrf", llvm.VoidType(), [arr.ptr] * 6)
    builder.call(getrf, operands)
    return builder.sext(builder.load(info, typ=llvm.IntType(32)), arr.i64)


def _column_major(a):
    """A column-major copy of a 2-d array (its transpose's C copy, transposed back)."""
    return a.T.copy().T


LinAlgError = np.linalg.LinAlgError  # a global name: `raise LinAlgError(...)` is static
# NumPy's wording first, then Numba's (programs and tests match either)
_SINGULAR = "Singular matrix: Matrix is singular to machine precision."
MISMATCHED_SYSTEM = "Incompatible array sizes, system is not dimensionally valid."


def _check_square(a):
    n = a.shape[0]
    if a.shape[1] != n:
        raise LinAlgError("Last 2 dimensions of the array must be square.")
    return n


_check_square_jit = njit(**NUMPY_ERRORS)(_check_square)


@functools.cache
def _solve_impl(dtype_name: str, vector: bool):
    np_type = np.dtype(dtype_name).type
    column_major = njit(**NUMPY_ERRORS)(_column_major)
    check = _check_square_jit

    if vector:

        def impl(a, b):
            n = check(a)
            if b.shape[0] != n:
                raise LinAlgError(MISMATCHED_SYSTEM)  # a ValueError too, as NumPy raises
            x = b.astype(np_type)
            if n > 0 and lapack_gesv(n, 1, column_major(a.astype(np_type)),
                                     np.empty(n, np.int32), x) > 0:  # fmt: skip
                raise LinAlgError(_SINGULAR)
            return x

    else:

        def impl(a, b):
            n = check(a)
            if b.shape[0] != n:
                raise LinAlgError(MISMATCHED_SYSTEM)  # a ValueError too, as NumPy raises
            x = column_major(b.astype(np_type))
            if n > 0 and lapack_gesv(n, b.shape[1], column_major(a.astype(np_type)),
                                     np.empty(n, np.int32), x) > 0:  # fmt: skip
                raise LinAlgError(_SINGULAR)
            return x

    return impl


def check_matrix(a, name: str) -> None:
    """Numba's TypingError for an array np.linalg.`name` takes only as a matrix (NumPy's
    stacked matrices are not supported)."""
    if a.ndim != 2:
        raise TypingError(f"np.linalg.{name}() only supported on 2-D arrays, not {a}")


def _linalg_dtype(*arrays) -> str | None:
    common = np.result_type(
        *(numpy_dtype(a.dtype) for a in arrays),
        np.float64
        if all(isinstance(a.dtype, (types.Integer, types.Boolean)) for a in arrays)
        else np.float32,
    )
    return common.name if common.name in ("float32", "float64", "complex64", "complex128") else (
        None)  # fmt: skip


# NumPy computes every np.linalg routine in double precision (float32 and complex64 inputs
# too) and rounds the results to the input's precision: ember does the same.
_WIDE = {"float32": "float64", "complex64": "complex128"}


def narrow(value):
    """A float64/complex128 result (an array, a number or a tuple of them) rounded to
    float32/complex64; other values as they are. Compiled code only."""
    raise NotImplementedError("narrow runs in compiled code only")


_NARROW = {types.float64: np.float32, types.complex128: np.complex64}


@overload(narrow, jit_options=NUMPY_ERRORS)
def _select_narrow(value):
    if isinstance(value, types.BaseTuple):
        items = ", ".join(f"narrow(value[{i}])" for i in range(len(value)))
        namespace = {"narrow": narrow}
        exec(f"def narrow_tuple(value):\n    return ({items},)\n", namespace)  # noqa: S102
        return namespace["narrow_tuple"]
    target = _NARROW.get(value.dtype if isinstance(value, types.Array) else value)
    if target is None:
        return lambda value: value
    if isinstance(value, types.Array) and value.layout == "F":  # keep Fortran order
        return lambda value: value.T.astype(target).T
    if isinstance(value, types.Array):
        return lambda value: value.astype(target)
    return lambda value: target(value)


def in_double(impl_for, dtype_name: str):
    """impl_for(dtype_name), run in float64/complex128 with its results narrowed when
    dtype_name is float32/complex64, as NumPy computes. impl_for must be cached (the same
    implementation for the same dtype)."""
    if dtype_name not in _WIDE:
        return impl_for(dtype_name)
    return _narrowed(impl_for(_WIDE[dtype_name]))


@functools.cache
def _narrowed(impl):
    core = njit(**NUMPY_ERRORS)(impl)
    names = ", ".join(inspect.signature(impl).parameters)
    namespace = {"core": core, "narrow": narrow}
    exec(f"def in_double({names}):\n    return narrow(core({names}))\n", namespace)  # noqa: S102
    wrapper = namespace["in_double"]
    wrapper.__module__ = __name__
    return wrapper


@overload(np.linalg.solve, jit_options=NUMPY_ERRORS)
def _select_solve(a, b):
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        return None
    if a.ndim != 2 or b.ndim not in (1, 2):
        raise TypingError("ember's np.linalg.solve takes a 2-d matrix and a 1-d or 2-d right side")
    dtype = _linalg_dtype(a, b)
    if dtype is None:
        return None
    return in_double(functools.partial(_solve_impl, vector=b.ndim == 1), dtype)


@functools.cache
def _inv_impl(dtype_name: str):
    solve = njit(**NUMPY_ERRORS)(_solve_impl(dtype_name, False))
    np_type = np.dtype(dtype_name).type

    def impl(a):
        return solve(a, np.eye(a.shape[0], dtype=np_type))

    return impl


@functools.cache
def _stacked_impl(name: str, dtype_name: str):
    """np.linalg.`name` (inv or det) of a stack of matrices (the last two axes): one call per
    matrix, in NumPy's result shape."""
    inv = name == "inv"
    out_shape = "(count, a.shape[-2], a.shape[-1])" if inv else "count"
    source = f"""
def stacked(a):
    count = 1
    for size in a.shape[:-2]:
        count *= size
    matrices = np.ascontiguousarray(a).reshape((count, a.shape[-2], a.shape[-1]))
    out = np.empty({out_shape}, np.{dtype_name})
    for i in range(count):
        out[i] = np.linalg.{name}(matrices[i])
    return out.reshape({"a.shape" if inv else "a.shape[:-2]"})
"""
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - fixed names
    return namespace["stacked"]


@overload(np.linalg.inv, jit_options=NUMPY_ERRORS)
def _select_inv(a):
    if not isinstance(a, types.Array):
        return None
    dtype = _linalg_dtype(a)
    if a.ndim > 2 and dtype is not None:
        return _stacked_impl("inv", dtype)
    check_matrix(a, "inv")
    dtype = _linalg_dtype(a)
    return None if dtype is None else in_double(_inv_impl, dtype)


@functools.cache
def _det_impl(dtype_name: str):
    """NumPy's determinant: the LU factors' signs and the sum of the logarithms of their
    magnitudes, then sign * exp(sum) (so results match NumPy's to the last bit)."""
    np_type = np.dtype(dtype_name).type
    real_type = np.empty(0, dtype_name).real.dtype.type
    column_major = njit(**NUMPY_ERRORS)(_column_major)
    unit = _complex_unit if np.issubdtype(np_type, np.complexfloating) else _real_unit
    check = _check_square_jit

    def impl(a):
        n = check(a)
        lu = column_major(a.astype(np_type))
        pivots = np.empty(max(n, 1), np.int32)
        if n == 0:
            return np_type(1)
        if lapack_getrf(n, lu, pivots) > 0:
            return np_type(0)
        sign = np_type(1)
        log_magnitude = real_type(0)
        for i in range(n):
            magnitude = np.abs(lu[i, i])
            sign = sign * unit(lu[i, i], magnitude)
            if pivots[i] != i + 1:
                sign = -sign
            log_magnitude += np.log(magnitude)
        return sign * np.exp(log_magnitude)

    return impl


@njit(**NUMPY_ERRORS)
def _real_unit(value, magnitude):
    return -1.0 if value < 0 else 1.0


@njit(**NUMPY_ERRORS)
def _complex_unit(value, magnitude):
    return value / magnitude


@overload(np.linalg.det, jit_options=NUMPY_ERRORS)
def _select_det(a):
    if not isinstance(a, types.Array):
        return None
    dtype = _linalg_dtype(a)
    if a.ndim > 2 and dtype is not None:
        return _stacked_impl("det", dtype)
    check_matrix(a, "det")
    dtype = _linalg_dtype(a)
    return None if dtype is None else in_double(_det_impl, dtype)
