"""Integer scalars meeting integer arrays narrower than 64 bits and boolean arrays (NumPy 2's
rules for Python integers): every dtype x scalars at and beyond its limits x every operator and
two-operand ufunc, in-place forms and `out=`, with the expected values, dtypes and exceptions
computed by NumPy itself."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.runtime
from ember import njit
from ember.errors import TypingError

INTEGER_DTYPES = [
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.bool_,
]

BINARY_OPERATORS = "+ - * / // % ** << >> & | ^ == != < <= > >=".split()
COMPARISON_UFUNCS = "equal not_equal less less_equal greater greater_equal".split()
OPERATOR_UFUNCS = [
    *"add subtract multiply true_divide floor_divide remainder power left_shift".split(),
    *"right_shift bitwise_and bitwise_or bitwise_xor".split(),
    *COMPARISON_UFUNCS,
]
OTHER_UFUNCS = [
    *"logical_and logical_or logical_xor maximum minimum fmax fmin".split(),
    *"arctan2 hypot copysign fmod logaddexp".split(),
]


def sample_array(dtype) -> np.ndarray:
    """The dtype's extremes and small values around zero."""
    if dtype is np.bool_:
        return np.array([False, True, True])
    info = np.iinfo(dtype)
    values = {info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2, 7}
    if info.min < 0:
        values |= {-1, -2}
    return np.array(sorted(values), dtype)


def scalars_for(dtype) -> list[int]:
    """Scalars at and beyond the dtype's limits: negative, max, max + 1, 2**63 - 1..."""
    if dtype is np.bool_:
        low, high = 0, 1
    else:
        info = np.iinfo(dtype)
        low, high = int(info.min), int(info.max)
    found = {-1, 0, 3, high, high + 1, low, low - 1, 2**63 - 1, -(2**63)}
    return sorted(v for v in found if -(2**63) <= v < 2**64)


# ---------------------------------------------------------------------------- the oracle


def numpy_outcome(compute):
    """NumPy's (result, None) or (None, exception); arithmetic warnings are not errors."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return compute(), None
        except Exception as error:  # noqa: BLE001 - the oracle's outcome, whatever it is
            return None, error


def assert_same_outcome(compute_numpy, compute_ember, label) -> None:
    expected, error = numpy_outcome(compute_numpy)
    if error is not None:
        with pytest.raises(_ember_counterpart(error)) as raised:
            compute_ember()
        if str(error).startswith("Python integer"):
            assert str(error) in str(raised.value), label
        return
    if _needs_float16(expected):
        _assert_float16_stand_in(compute_ember, expected, label)
        return
    with np.errstate(all="ignore"):
        actual = compute_ember()
    if isinstance(expected, tuple):
        assert len(actual) == len(expected), label
        for mine, theirs in zip(actual, expected):
            assert_same_values(mine, theirs, label)
    else:
        assert_same_values(actual, expected, label)


def _ember_counterpart(error: Exception) -> type | tuple:
    """What ember raises where NumPy raises `error`: the same class, or a TypingError at
    compile time where NumPy rejects the operand types (UFuncTypeError)."""
    if isinstance(error, TypeError):
        return (TypingError, TypeError)
    return type(error)


def _assert_float16_stand_in(compute_ember, expected, label) -> None:
    """NumPy computes in float16, which ember lacks: ember gives float32 arrays holding
    NumPy's float16 values, or (spacing, nextafter: float16's precision is the answer) a
    TypingError naming float16."""
    try:
        with np.errstate(all="ignore"):
            actual = compute_ember()
    except TypingError as error:
        assert "float16" in str(error), label
        return
    pairs = zip(actual, expected) if isinstance(expected, tuple) else [(actual, expected)]
    for mine, theirs in pairs:
        theirs = np.asarray(theirs)
        if theirs.dtype == np.float16:
            assert np.asarray(mine).dtype == np.float32, label
            theirs = theirs.astype(np.float32)
        np.testing.assert_array_equal(np.asarray(mine), theirs, err_msg=str(label))


def _needs_float16(expected) -> bool:
    if isinstance(expected, tuple):
        return any(_needs_float16(item) for item in expected)
    return np.asarray(expected).dtype == np.float16


def assert_same_values(actual, expected, label="") -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (label, actual.dtype, expected.dtype)
    if expected.dtype.kind == "f":
        rtol = 1e-6 if expected.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(actual, expected, rtol=rtol, equal_nan=True, err_msg=label)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=str(label))


# ---------------------------------------------------------------------------- compiled forms


@dataclass(frozen=True)
class Form:
    """One operation of the table: NumPy's spelling and the jitted body (`a`, `s`, `o`)."""

    label: str
    numpy: Callable  # (array, scalar, out) -> result
    body: str  # statements ending in a return


def operator_forms(symbols, scalar_left: bool = False) -> list[Form]:
    forms = []
    for symbol in symbols:
        expression = f"s {symbol} a" if scalar_left else f"a {symbol} s"
        fn = OPERATORS[symbol]
        numpy = (
            (lambda a, s, o, fn=fn: fn(s, a)) if scalar_left else (lambda a, s, o, fn=fn: fn(a, s))
        )
        forms.append(Form(expression, numpy, f"return {expression}"))
    return forms


def _call_ufunc(name, a, s, o, with_out=False):
    ufunc = getattr(np, name)
    return ufunc(a, s, out=o) if with_out else ufunc(a, s)


def ufunc_forms(names) -> list[Form]:
    return [
        Form(
            f"np.{name}(a, s)",
            functools.partial(_call_ufunc, name),
            f"return np.{name}(a, s)",
        )
        for name in names
    ]


def inplace_forms(symbols) -> list[Form]:
    def numpy(a, s, o, symbol):
        namespace = {"a": a, "s": s}
        exec(f"a {symbol}= s", namespace)  # noqa: S102 - the operator under test
        return namespace["a"]

    return [
        Form(
            f"a {symbol}= s",
            functools.partial(numpy, symbol=symbol),
            f"a {symbol}= s\n        return a",
        )
        for symbol in symbols
    ]


def out_forms(names) -> list[Form]:
    return [
        Form(
            f"np.{name}(a, s, out=o)",
            functools.partial(_call_ufunc, name, with_out=True),
            f"return np.{name}(a, s, out=o)",
        )
        for name in names
    ]


# `**` is compared with np.power: NumPy's operator turns `bool_array ** 2` into np.square (int8)
OPERATORS = {
    **{symbol: eval(f"lambda x, y: x {symbol} y") for symbol in BINARY_OPERATORS},  # noqa: S307
    "**": np.power,
}


@functools.cache
def compiled_group(bodies: tuple[str, ...], dtype: np.dtype | None = None):
    """One jitted `f(a, s, o, k)` running body number k: the forms of a group share one
    compilation (and must share a result type). A dispatcher per array `dtype`, when given:
    one for all dtypes would rebuild its native entry over all their specializations for
    each new one."""
    lines = ["def f(a, s, o, k):"]
    for k, body in enumerate(bodies):
        lines += [f"    if k == {k}:", f"        {body}"]
    lines.append(f"    {bodies[-1]}".replace("\n        ", "\n    "))
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - sources built above
    return njit(namespace["f"])


def check_forms(forms: list[Form], array: np.ndarray, scalars: list, out: np.ndarray) -> None:
    """Every form against NumPy for every scalar. Forms NumPy rejects for their types (or
    computes in float16, which ember lacks) are checked alone; the others are grouped by
    NumPy's result dtype into one compiled function per group."""
    groups: dict[str, list[Form]] = {}
    probe = type(scalars[0])(1)  # NumPy's result dtype does not depend on a Python int's value
    for form in forms:
        expected, error = numpy_outcome(lambda: form.numpy(array.copy(), probe, out.copy()))
        if isinstance(error, TypeError) or (error is None and _needs_float16(expected)):
            jitted = compiled_group((form.body,), array.dtype)
            check_one(form, array, probe, out, lambda a, s, o: jitted(a, s, o, 0))
            continue
        groups.setdefault(str(np.asarray(expected).dtype), []).append(form)
    for group in groups.values():
        jitted = compiled_group(tuple(form.body for form in group), array.dtype)
        for k, form in enumerate(group):
            for scalar in scalars:
                check_one(form, array, scalar, out, lambda a, s, o, k=k: jitted(a, s, o, k))


def check_one(form: Form, array, scalar, out, run) -> None:
    assert_same_outcome(
        lambda: form.numpy(array.copy(), scalar, out.copy()),
        lambda: run(array.copy(), scalar, out.copy()),
        (array.dtype.name, form.label, scalar),
    )


def by_scalar_type(scalars: list) -> list[list]:
    """Scalars ember types as int64 apart from those it types as uint64 (one compilation
    each)."""
    signed = [v for v in scalars if v < 2**63]
    unsigned = [v for v in scalars if v >= 2**63]
    return [group for group in (signed, unsigned) if group]


# ---------------------------------------------------------------------------- the table

DTYPE_IDS = [np.dtype(d).name for d in INTEGER_DTYPES]
NO_OUT = np.zeros(0)
# Each array operation costs tens of milliseconds of LLVM time: the table checks every
# operator and ufunc on every dtype, the scalar-first forms and the operators' own ufuncs
# (the same loops) on fewer.
SCALAR_FIRST = ["-", "//", "**", "<<", "<", ">="]
FEW_FORMS = ["+", "<", "==", ">=", "-", "//"]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=DTYPE_IDS)
def test_operators_and_ufuncs_with_scalars_at_the_limits(dtype):
    forms = [
        *operator_forms(BINARY_OPERATORS),
        *operator_forms(SCALAR_FIRST, True),
        *ufunc_forms(OTHER_UFUNCS),
    ]
    if dtype in (np.uint8, np.bool_):
        forms += ufunc_forms(OPERATOR_UFUNCS)
    signed, *unsigned = by_scalar_type(scalars_for(dtype))
    check_forms(forms, sample_array(dtype), signed, NO_OUT)
    for scalars in unsigned:  # 2**63 and beyond: typed uint64 by ember
        few = [
            *operator_forms(FEW_FORMS),
            *operator_forms(["-"], True),
            *ufunc_forms(["maximum", "logical_and"]),
        ]
        check_forms(few, sample_array(dtype), scalars, NO_OUT)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=DTYPE_IDS)
def test_inplace_operators_and_out(dtype):
    array = sample_array(dtype)
    signed = by_scalar_type(scalars_for(dtype))[0]
    inplace = inplace_forms(["+", "-", "*", "//", "**", "<<", ">>", "&", "^"])
    check_forms(inplace, array, signed, NO_OUT)
    for out_dtype in (np.int64, dtype):
        out = np.zeros(array.shape, out_dtype)
        check_forms(out_forms(["add", "floor_divide", "less"]), array, signed, out)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=DTYPE_IDS)
def test_float_scalars_with_integer_arrays(dtype):
    forms = [*operator_forms(["+", "/", "//", "<"]), *operator_forms(["-"], True)]
    check_forms(forms, sample_array(dtype), [2.5, -1.5, 0.0, 1e300, float(2**63)], NO_OUT)


# ---------------------------------------------------------------------------- the cases


@njit
def count_below(a, n):
    return (a < n * 1000).sum()


@njit
def masks(a):
    return (a > -5).all(), (a == 256).sum(), a[a < 300].size, np.where(a > -1, 1, 0).sum()


def test_the_reported_wrong_answers_are_right():
    assert count_below(np.array([1, 2, 3], np.int16), 100) == 3
    u8 = np.array([1, 2, 200], np.uint8)
    assert masks(u8) == (True, 0, 3, 3)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        compiled_group(("return a + s",))(u8, 300, NO_OUT, 0)


@njit
def fused(a, b, n):
    return (a + b < n) & (a * 2 > -n), a * b + n, np.add(a - n, b, out=np.empty_like(a))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32])
def test_fused_array_expressions(dtype):
    a = sample_array(dtype)
    b = a[::-1].copy()
    info = np.iinfo(dtype)
    for n in (0, 3, info.max, info.max + 1, info.min - 1, 10**6, -(10**6)):
        assert_same_outcome(
            lambda: ((a + b < n) & (a * 2 > -n), a * b + n, np.add(a - n, b, out=np.empty_like(a))),
            lambda: fused(a, b, n),
            (dtype, n),
        )


@njit
def store_element(a, v):
    a[1] = v
    return a


@njit
def store_slice(a, v):
    a[1:] = v
    return a


@njit
def store_masked(a, v):
    a[a > 0] = v
    return a


@njit
def fill(a, v):
    a.fill(v)
    return a


@njit
def full(a, v):
    return np.full(3, v, a.dtype), np.full_like(a, v)


@njit
def clip(a, low, high):
    return np.clip(a, low, high), a.clip(low, high)


def _numpy_store(kind):
    def store(a, v):
        if kind == "element":
            a[1] = v
        elif kind == "slice":
            a[1:] = v
        elif kind == "masked":
            a[a > 0] = v
        else:
            a.fill(v)
        return a

    return store


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint16, np.uint64, np.bool_], ids=lambda d: np.dtype(d).name
)
def test_storing_variables_follows_numpy_casting(dtype):
    """A variable stored into a narrower array wraps, as `astype` converts (and as Numba
    stores): compiled code cannot tell a Python int from a value computed from narrow elements,
    whose arithmetic NumPy wraps in the narrow type. Floats truncate. Constants are checked
    (see below)."""
    array = sample_array(dtype)
    for value in [*scalars_for(dtype), 2.7, -0.5]:
        as_numpy = value if isinstance(value, float) else _wrapped(value, dtype)
        for kind, jitted in (
            ("element", store_element),
            ("slice", store_slice),
            ("masked", store_masked),
            ("fill", fill),
        ):
            assert_same_outcome(
                lambda: _numpy_store(kind)(array.copy(), as_numpy),
                lambda: jitted(array.copy(), value),
                (dtype, kind, value),
            )
        assert_same_outcome(
            lambda: (np.full(3, as_numpy, array.dtype), np.full_like(array, as_numpy)),
            lambda: full(array, value),
            (dtype, "full", value),
        )


def _wrapped(value: int, dtype):
    """`value` (an int64, or a uint64 beyond it, as ember types it) cast to `dtype`."""
    wide = np.array(value, np.int64 if value < 2**63 else np.uint64)
    return wide.astype(dtype)[()]


@pytest.mark.parametrize("value", [300, -1, 2**63 - 1])
def test_storing_constants_follows_numpy_for_python_ints(value):
    """NumPy raises OverflowError for a Python int that does not fit: a constant of the source
    is one, so it fails to compile with NumPy's message."""
    namespace = {"np": np}
    body = f"""
def element(a):
    a[0] = {value}
    return a
def slices(a):
    a[1:] = {value}
    return a
def filled(a):
    a.fill({value})
    return a
def full(a):
    return np.full(2, {value}, np.uint8)
"""
    exec(body, namespace)  # noqa: S102 - the constant must appear in the source
    message = f"Python integer {value} out of bounds for uint8"
    for name in ("element", "slices", "filled", "full"):
        with pytest.raises(OverflowError, match=message):
            namespace[name](np.zeros(3, np.uint8))
        with pytest.raises(OverflowError, match=message):
            njit(namespace[name])(np.zeros(3, np.uint8))
    fits = njit(namespace["element"])(np.zeros(3, np.int64))
    assert fits[0] == value


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64], ids=lambda d: np.dtype(d).name)
def test_clip_with_integer_bounds(dtype):
    array = sample_array(dtype)
    scalars = by_scalar_type(scalars_for(dtype))[0]
    for low in scalars:
        for high in scalars:
            assert_same_outcome(
                lambda: (np.clip(array, low, high), array.clip(low, high)),
                lambda: clip(array, low, high),
                (dtype, low, high),
            )


@njit
def where_choices(a, v):
    return np.where(a > 1, a, v), np.where(a > 1, v, a), np.where(a > 1, 1, v)


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.uint16, np.bool_], ids=lambda d: np.dtype(d).name
)
def test_where_with_scalar_choices(dtype):
    """NumPy 2.4 casts a scalar choice unsafely (`np.where(c, uint8s, 300)` holds 44)."""
    array = sample_array(dtype)
    for value in scalars_for(dtype):
        assert_same_outcome(
            lambda: (
                np.where(array > 1, array, value),
                np.where(array > 1, value, array),
                np.where(array > 1, 1, value),
            ),
            lambda: where_choices(array, value),
            (dtype, value),
        )


@njit
def products(a, b, m, n):
    return np.dot(a, b), a @ b, m @ n, np.dot(m, a), a.dot(b)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=DTYPE_IDS)
def test_dot_and_matmul_keep_numpys_dtype(dtype):
    rng = np.random.default_rng(7)
    a, b = (rng.integers(0, 120, 5).astype(dtype) for _ in range(2))
    m, n = rng.integers(0, 120, (3, 5)).astype(dtype), rng.integers(0, 120, (5, 4)).astype(dtype)
    results = products(a, b, m, n)
    expected = (np.dot(a, b), a @ b, m @ n, np.dot(m, a), a.dot(b))
    for mine, theirs in zip(results, expected):
        np.testing.assert_array_equal(mine, theirs)
    name = "bool" if dtype is np.bool_ else np.dtype(dtype).name
    (compiled,) = [r for args, r in products.overloads.items() if str(args[0].dtype) == name]
    returned = [str(t) for t in compiled.signature.return_type.types]
    assert returned[0] == returned[1] == returned[4] == name
    assert np.asarray(results[2]).dtype == expected[2].dtype
    assert np.asarray(results[3]).dtype == expected[3].dtype


@njit
def histogram(a, bins):
    return np.histogram(a, bins)


def test_histogram_needs_a_positive_number_of_bins():
    a = np.arange(10.0)
    for bins in (0, -3):
        with pytest.raises(ValueError, match="`bins` must be positive"):
            np.histogram(a, bins)
        with pytest.raises(ValueError, match="`bins` must be positive"):
            histogram(a, bins)


@njit
def plus_one(x):
    return x + 1


@njit("int64(int64)")
def plus_one_int64(x):
    return x + 1


@njit
def first(pair):
    return pair[0]


def test_an_int_beyond_64_bits_is_an_overflow():
    for value in (2**64, -(2**63) - 1, 10**30):
        with pytest.raises(OverflowError, match="int too big to convert"):
            plus_one(value)
    with pytest.raises(OverflowError, match="int too big to convert"):
        plus_one_int64(2**63)  # the declared int64 cannot hold it
    with pytest.raises(OverflowError, match="int too big to convert"):
        first((2**64, 1))
    assert plus_one(2**63 - 2) == 2**63 - 1


def test_an_int_beyond_64_bits_converts_to_a_declared_float_or_complex():
    halve = njit("float64(float64)")(lambda x: x / 2)
    twice = njit("complex128(complex128)")(lambda z: z * 2)
    for value in (2**64, -(2**70) + 1, 10**30):
        assert halve(value) == float(value) / 2
        assert twice(value) == complex(value) * 2
    with pytest.raises(OverflowError, match="too large to convert to float"):
        halve(10**400)


@njit
def shifted_sum(a, n):
    b = a * 2
    return (b + n).sum()


def test_a_failed_range_check_frees_what_the_function_allocated():
    a = np.arange(5, dtype=np.uint8)
    shifted_sum(a, 1)
    before = ember.runtime.stats()
    for _ in range(3):
        with pytest.raises(OverflowError):
            shifted_sum(a, 1000)
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


def test_constants_that_do_not_fit_fail_at_compile_time():
    @njit
    def add_constant(a):
        return a + 300

    @njit
    def store_constant(a):
        a[0] = -1
        return a

    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        add_constant(np.zeros(2, np.uint8))
    with pytest.raises(TypingError, match="Python integer -1 out of bounds for uint16"):
        store_constant(np.zeros(2, np.uint16))
    assert add_constant(np.zeros(2, np.int16)).tolist() == [300, 300]


# ---------------------------------------------------------------------------- hypothesis

dtypes = st.sampled_from(INTEGER_DTYPES)
python_ints = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-300, 300))


@settings(max_examples=30, deadline=None)
@given(
    dtype=dtypes,
    shape=st.sampled_from([(0,), (1,), (7,), (2, 3), (3, 1, 2)]),
    scalar=python_ints,
    seed=st.integers(0, 2**32 - 1),
    symbol=st.sampled_from(["<", ">=", "==", "+", "*", "-", "//", "&"]),
)
def test_random_arrays_and_scalars(dtype, shape, scalar, seed, symbol):
    rng = np.random.default_rng(seed)
    if dtype is np.bool_:
        array = rng.integers(0, 2, shape).astype(bool)
    else:
        info = np.iinfo(dtype)
        array = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    jitted = compiled_group((f"return a {symbol} s",))
    assert_same_outcome(
        lambda: OPERATORS[symbol](array, scalar),
        lambda: jitted(array, scalar, NO_OUT, 0),
        (dtype, shape, symbol, scalar),
    )


@njit
def library_on_narrow_integers(a, b):
    return (np.kron(a, b), np.convolve(a, b), np.correlate(a, b, "full"), np.cross(a[:3], b[:3]),
            np.inner(a, b), np.vdot(a, b), np.ptp(a), np.interp(a, np.sort(b), a))  # fmt: skip


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16], ids=lambda d: np.dtype(d).name)
def test_library_functions_wrap_in_the_narrow_dtype_as_numpy(dtype):
    a = np.array([250, 3, 200, 7, 128]).astype(dtype)
    b = np.array([9, 255, 100, 2, 64]).astype(dtype)
    expected = (np.kron(a, b), np.convolve(a, b), np.correlate(a, b, "full"),
                np.cross(a[:3], b[:3]), np.inner(a, b), np.vdot(a, b), np.ptp(a),
                np.interp(a, np.sort(b), a))  # fmt: skip
    for mine, theirs in zip(library_on_narrow_integers(a, b), expected):
        if np.ndim(theirs) == 0:  # scalars come back as Python numbers: compare values
            assert mine == theirs
        else:
            assert_same_values(mine, theirs)


@njit
def contains(a, v):
    return v in a


def test_membership_compares_exactly():
    a = np.array([44, 0, 255], np.uint8)
    for value in (300, 44, -1, 255, 256, -212, 2**63 - 1):
        assert contains(a, value) == (value in a), value
