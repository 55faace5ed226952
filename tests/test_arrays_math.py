"""Arithmetic on arrays: Python operators with broadcasting and NumPy's type promotion,
in-place operators, comparisons, ufuncs called from compiled code, np.where; differential
against NumPy on several dtypes and layouts."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from oracle import for_types
from test_arrays_support import LAYOUTS, assert_same, live_allocations, sample

from ember import TypingError, njit


def close(got, expected):
    """Values equal up to float rounding (libm vs NumPy's SIMD routines), same dtype."""
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape
    np.testing.assert_allclose(
        got,
        expected,
        rtol=1e-6 if _is_single(expected) else 1e-13,
        atol=1e-6 if _is_single(expected) else 1e-14,
        equal_nan=True,
    )


def _is_single(value) -> bool:
    return np.asarray(value).dtype in (np.float32, np.complex64)


# ---------------------------------------------------------------------------- binary operators

BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}  # fmt: skip


def _jit_binary(fn):
    return njit(lambda a, b: fn(a, b))


def _jit_unary(fn):
    return njit(lambda a: fn(a))


_BINARY_JIT = {name: _jit_binary(fn) for name, fn in BINARY.items()}

DTYPE_PAIRS = [
    (np.int64, np.int64),
    (np.int32, np.float32),
    (np.uint8, np.int16),
    (np.float64, np.float64),
    (np.float32, np.float64),
    (np.bool_, np.bool_),
    (np.complex128, np.float64),
]


def _operands(dtype_a, dtype_b, shape_a=(3, 4), shape_b=(3, 4)):
    a = sample(dtype_a, shape_a, seed=1)
    b = sample(dtype_b, shape_b, seed=2)
    if np.issubdtype(b.dtype, np.integer) and not np.issubdtype(b.dtype, np.bool_):
        b = np.where(b == 0, np.ones_like(b), b)  # no integer division by zero
        b = np.abs(b) % 5 + (b == 0)  # small non-negative exponents and shift counts
        b = b.astype(dtype_b)
    return a, b


def _numpy_or_none(fn, *args):
    try:
        with np.errstate(all="ignore"):
            return fn(*args)
    except (TypeError, ValueError):
        return None


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dtypes", DTYPE_PAIRS, ids=lambda d: f"{d[0].__name__}-{d[1].__name__}")
def test_binary_operators_array_array(op, dtypes):
    a, b = _operands(*dtypes)
    expected = _numpy_or_none(BINARY[op], a, b)
    compiled = for_types(_BINARY_JIT[op], a, b)
    if expected is None:
        with pytest.raises(TypingError):
            compiled(a, b)
        return
    with live_allocations():
        close(compiled(a, b), expected)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "<", "=="])
@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float32, np.float64])
@pytest.mark.parametrize("scalar", [3, 2.5])
def test_binary_operators_with_python_scalars(op, dtype, scalar):
    a, _ = _operands(dtype, dtype)
    for left, right in ((a, scalar), (scalar, a)):
        if op == "**" and isinstance(left, (int, float)):
            left = 2  # keep powers of integers non-negative
        expected = _numpy_or_none(BINARY[op], left, right)
        if expected is None:
            continue
        close(for_types(_BINARY_JIT[op], left, right)(left, right), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_broadcasting_across_layouts(layout):
    a = sample(np.float64, (4, 5), layout)
    column = sample(np.float64, (4, 1), seed=3)
    row = sample(np.float64, (5,), layout if layout != "F" else "C", seed=4)
    add = _BINARY_JIT["+"]
    mul = _BINARY_JIT["*"]
    close(add(a, row), a + row)
    close(mul(a, column), a * column)
    close(add(column, row), column + row)
    close(add(a[::-1, 1:], row[1:]), a[::-1, 1:] + row[1:])


def test_broadcast_mismatch_raises():
    with pytest.raises(ValueError, match="broadcast"):
        _BINARY_JIT["+"](np.zeros(3), np.zeros(4))


def test_zero_d_and_empty_operands():
    close(_BINARY_JIT["+"](np.array(2.0), np.arange(3.0)), np.array(2.0) + np.arange(3.0))
    close(_BINARY_JIT["*"](np.zeros((0, 3)), np.ones(3)), np.zeros((0, 3)) * np.ones(3))


UNARY = {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "abs": abs}
_UNARY_JIT = {name: _jit_unary(fn) for name, fn in UNARY.items()}


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32, np.bool_, np.complex64])
def test_unary_operators(name, dtype):
    a = sample(dtype, (2, 5), "N")
    expected = _numpy_or_none(UNARY[name], a)
    if expected is None:
        with pytest.raises(TypingError):
            _UNARY_JIT[name](a)
        return
    close(_UNARY_JIT[name](a), expected)


# ---------------------------------------------------------------------------- in place


@njit
def inplace_all(a, b, s):
    a += b
    a -= s
    a *= 2
    a /= 4
    a **= 2
    return a


@njit
def inplace_int(a, b):
    a += b
    a //= 2
    a %= 7
    a <<= 1
    a |= 1
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
def test_inplace_operators(layout):
    a = sample(np.float64, (3, 4), layout)
    b = sample(np.float64, (4,), seed=5)
    expected = inplace_all.py_func(a.copy(), b, 1.5)
    got_target = a.copy() if layout == "C" else a
    result = inplace_all(got_target, b, 1.5)
    assert result is got_target
    close(result, expected)
    ints = sample(np.int32, (3, 4), layout)
    close(inplace_int(ints.copy(), np.int32(3)), inplace_int.py_func(ints.copy(), np.int32(3)))


@njit
def accumulate_overlap(a):
    a[1:] += a[:-1]
    return a


def test_inplace_with_overlapping_operands():
    a = np.arange(6.0)
    expected = a.copy()
    expected[1:] += expected[:-1].copy()
    with live_allocations():
        close(accumulate_overlap(a), expected)


@njit
def int_plus_float_inplace(a):
    a += 1.5
    return a


@njit
def readonly_inplace(a):
    a += 1
    return a


def test_inplace_casting_and_readonly_errors():
    with pytest.raises(TypingError, match="same_kind"):
        int_plus_float_inplace(np.zeros(3, np.int64))
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(TypingError, match="read-only"):
        readonly_inplace(ro)


# ---------------------------------------------------------------------------- ufuncs

UNARY_UFUNCS = [np.sqrt, np.exp, np.log, np.sin, np.cos, np.tan, np.arcsin, np.arctan,
                np.tanh, np.exp2, np.log2, np.log10, np.log1p, np.expm1, np.floor, np.ceil,
                np.trunc, np.rint, np.absolute, np.sign, np.square, np.negative, np.isnan,
                np.isinf, np.isfinite, np.logical_not, np.deg2rad, np.cbrt]  # fmt: skip
_UNARY_UFUNC_JIT = {u: _jit_unary(u) for u in UNARY_UFUNCS}


@pytest.mark.parametrize("ufunc", UNARY_UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_unary_ufuncs(ufunc, dtype):
    a = sample(dtype, (3, 4), "A")
    if dtype is not np.int64:
        a = a / np.asarray(8, dtype)  # within arcsin's domain; some negatives give NaN logs
        a[0, 0] = np.nan
    expected = _numpy_or_none(ufunc, a)
    close(_UNARY_UFUNC_JIT[ufunc](a), expected)


@pytest.mark.parametrize("ufunc", [np.sqrt, np.sin, np.floor, np.isnan, np.absolute],
                         ids=lambda u: u.__name__)  # fmt: skip
def test_ufuncs_on_scalars_give_scalars(ufunc):
    for value in (2.25, -1.5, 7):
        expected = _numpy_or_none(ufunc, value)
        got = _UNARY_UFUNC_JIT[ufunc](value)
        assert not isinstance(got, np.ndarray)
        np.testing.assert_allclose(got, expected, equal_nan=True)


BINARY_UFUNCS = [np.add, np.subtract, np.multiply, np.true_divide, np.power, np.minimum,
                 np.maximum, np.fmin, np.fmax, np.arctan2, np.hypot, np.copysign,
                 np.logical_and, np.logical_or, np.logical_xor, np.equal, np.less,
                 np.floor_divide, np.remainder, np.fmod, np.logaddexp]  # fmt: skip
_BINARY_UFUNC_JIT = {u: _jit_binary(u) for u in BINARY_UFUNCS}


@pytest.mark.parametrize("ufunc", BINARY_UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.int64)],
                         ids=["f8-f8", "f4-i8"])  # fmt: skip
def test_binary_ufuncs(ufunc, dtypes):
    a = sample(dtypes[0], (3, 4), "F", seed=6)
    b = sample(dtypes[1], (4,), seed=7)
    if np.issubdtype(b.dtype, np.floating):
        b[1] = np.nan
    else:
        b = np.abs(b) % 3 + 1
    expected = _numpy_or_none(ufunc, a, b)
    if expected is None:
        with pytest.raises(TypingError):
            _BINARY_UFUNC_JIT[ufunc](a, b)
        return
    close(_BINARY_UFUNC_JIT[ufunc](a, b), expected)


@njit
def where3(c, x, y):
    return np.where(c, x, y)


def test_where():
    a = sample(np.float64, (3, 4), "C")
    close(where3(a > 0, a, -a), np.where(a > 0, a, -a))
    close(where3(a > 0, a, 0), np.where(a > 0, a, 0))
    close(where3(a[0] > 0, np.arange(4), 2.5), np.where(a[0] > 0, np.arange(4), 2.5))
    assert where3(True, 1.0, 2.0) == 1.0


@njit
def unsupported_ufunc(a):
    return np.sqrt(a)


def test_float16_results_are_float32_holding_numpys_values():
    a = np.arange(7, dtype=np.int8)
    got = unsupported_ufunc(a)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.sqrt(a).astype(np.float32))


def test_float16_precision_results_are_typing_errors():
    with pytest.raises(TypingError, match="float16"):
        njit(lambda a: np.spacing(a))(np.arange(3, dtype=np.int8))


@njit
def chain(a, b, c):
    return np.sqrt(a * a + b * b) - 2.0 * c / (1.0 + np.abs(c))


def test_expression_chains_do_not_leak():
    a, b, c = (sample(np.float64, (50,), seed=s) for s in (1, 2, 3))
    chain(a, b, c)
    with live_allocations():
        for _ in range(100):
            result = chain(a, b, c)
        close(result, chain.py_func(a, b, c))
        del result


def test_integer_division_by_zero_gives_zero_like_numpy():
    a = np.array([1, -7, 0])
    b = np.array([0, 0, 0])
    with np.errstate(all="ignore"):
        assert_same(_BINARY_JIT["//"](a, b), a // b)
        assert_same(_BINARY_JIT["%"](a, b), a % b)
        close(_BINARY_JIT["/"](a, b), a / b)


_FORTRAN = np.asfortranarray(np.arange(-6.0, 6.0).reshape(3, 4))
_ROW = np.arange(4.0)


@pytest.mark.parametrize(
    "func",
    [
        lambda f, c, r: f + f,
        lambda f, c, r: f * 2,
        lambda f, c, r: f + r,
        lambda f, c, r: f + c,
        lambda f, c, r: np.sqrt(np.abs(f)),
        lambda f, c, r: np.where(f > 0, f, 0.0),
        lambda f, c, r: f * 2 + np.sin(f) - c,
        lambda f, c, r: f.T + c.T,
        lambda f, c, r: np.add(f, 1.0),
    ],
)
def test_result_order_follows_the_inputs_like_numpy(func):
    """Fortran-ordered inputs give a Fortran-ordered result (NumPy's order='K'); any C-ordered
    full-rank operand gives a C-ordered one."""
    args = (_FORTRAN, np.ascontiguousarray(_FORTRAN), _ROW)
    expected = func(*args)
    got = njit(func)(*args)
    assert_same(got, expected)
    assert got.flags.f_contiguous == expected.flags.f_contiguous
    assert got.flags.c_contiguous == expected.flags.c_contiguous


def test_fortran_results_flow_into_further_array_code():
    @njit
    def chain(f):
        doubled = f * 2  # Fortran-ordered
        total = 0.0
        for i in range(doubled.shape[0]):
            for j in range(doubled.shape[1]):
                total += doubled[i, j] * (i + 1) - j
        return doubled.reshape(-1), doubled.T.copy(), total, doubled[1:, ::2].sum()

    assert_same(chain(_FORTRAN), chain.py_func(_FORTRAN))
