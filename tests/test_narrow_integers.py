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

INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                  np.uint64, np.bool_]  # fmt: skip

BINARY_OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "==", "!=",
                    "<", "<=", ">", ">="]  # fmt: skip
COMPARISON_UFUNCS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
TWO_OPERAND_UFUNCS = [*COMPARISON_UFUNCS, "add", "subtract", "multiply", "true_divide",
                      "floor_divide", "remainder", "power", "left_shift", "right_shift",
                      "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or",
                      "logical_xor", "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot",
                      "copysign", "fmod", "logaddexp"]  # fmt: skip


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
        with pytest.raises(TypingError, match="does not support"):
            compute_ember()
        return
    with np.errstate(all="ignore"):
        actual = compute_ember()
    assert_same_values(actual, expected, label)


def _ember_counterpart(error: Exception) -> type | tuple:
    """What ember raises where NumPy raises `error`: the same class, or a TypingError at
    compile time where NumPy rejects the operand types (UFuncTypeError)."""
    if isinstance(error, TypeError):
        return (TypingError, TypeError)
    return type(error)


def _needs_float16(expected) -> bool:
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
        numpy = (lambda a, s, o, fn=fn: fn(s, a)) if scalar_left else (
            lambda a, s, o, fn=fn: fn(a, s))  # fmt: skip
        forms.append(Form(expression, numpy, f"return {expression}"))
    return forms


def ufunc_forms(names) -> list[Form]:
    return [Form(f"np.{name}(a, s)", lambda a, s, o, u=getattr(np, name): u(a, s),
                 f"return np.{name}(a, s)") for name in names]  # fmt: skip


def inplace_forms(symbols) -> list[Form]:
    def numpy(a, s, o, symbol):
        namespace = {"a": a, "s": s}
        exec(f"a {symbol}= s", namespace)  # noqa: S102 - the operator under test
        return namespace["a"]

    return [Form(f"a {symbol}= s", functools.partial(numpy, symbol=symbol),
                 f"a {symbol}= s\n        return a") for symbol in symbols]  # fmt: skip


def out_forms(names) -> list[Form]:
    return [Form(f"np.{name}(a, s, out=o)", lambda a, s, o, u=getattr(np, name): u(a, s, out=o),
                 f"return np.{name}(a, s, out=o)") for name in names]  # fmt: skip


# `**` is compared with np.power: NumPy's operator turns `bool_array ** 2` into np.square (int8)
OPERATORS = {**{symbol: eval(f"lambda x, y: x {symbol} y") for symbol in BINARY_OPERATORS},  # noqa: S307
             "**": np.power}  # fmt: skip


@functools.cache
def compiled_group(bodies: tuple[str, ...]):
    """One jitted `f(a, s, o, k)` running body number k: the forms of a group share one
    compilation (and must share a result type)."""
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
            jitted = compiled_group((form.body,))
            check_one(form, array, probe, out, lambda a, s, o: jitted(a, s, o, 0))
            continue
        groups.setdefault(str(np.asarray(expected).dtype), []).append(form)
    for group in groups.values():
        jitted = compiled_group(tuple(form.body for form in group))
        for k, form in enumerate(group):
            for scalar in scalars:
                check_one(form, array, scalar, out, lambda a, s, o, k=k: jitted(a, s, o, k))


def check_one(form: Form, array, scalar, out, run) -> None:
    assert_same_outcome(
        lambda: form.numpy(array.copy(), scalar, out.copy()),
        lambda: run(array.copy(), scalar, out.copy()),
        (array.dtype.name, form.label, scalar),
    )  # fmt: skip


def by_scalar_type(scalars: list) -> list[list]:
    """Scalars ember types as int64 apart from those it types as uint64 (one compilation
    each)."""
    signed = [v for v in scalars if v < 2**63]
    unsigned = [v for v in scalars if v >= 2**63]
    return [group for group in (signed, unsigned) if group]


# ---------------------------------------------------------------------------- the table

DTYPE_IDS = [np.dtype(d).name for d in INTEGER_DTYPES]
OPERATOR_UFUNCS = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder",
                   "power", "left_shift", "right_shift", "bitwise_and", "bitwise_or",
                   "bitwise_xor", *COMPARISON_UFUNCS]  # fmt: skip
OTHER_UFUNCS = [name for name in TWO_OPERAND_UFUNCS if name not in OPERATOR_UFUNCS]
NO_OUT = np.zeros(0)
# Each array operation costs tens of milliseconds of LLVM time: the table checks every
# operator and ufunc on every dtype, the scalar-first forms and the operators' own ufuncs
# (the same loops) on fewer.
SCALAR_FIRST = ["-", "//", "**", "<<", "<", ">="]
FEW_FORMS = ["+", "<", "==", ">=", "-", "//"]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=DTYPE_IDS)
def test_operators_and_ufuncs_with_scalars_at_the_limits(dtype):
    forms = [*operator_forms(BINARY_OPERATORS), *operator_forms(SCALAR_FIRST, True),
             *ufunc_forms(OTHER_UFUNCS)]  # fmt: skip
    if dtype in (np.uint8, np.bool_):
        forms += ufunc_forms(OPERATOR_UFUNCS)
    signed, *unsigned = by_scalar_type(scalars_for(dtype))
    check_forms(forms, sample_array(dtype), signed, NO_OUT)
    for scalars in unsigned:  # 2**63 and beyond: typed uint64 by ember
        few = [*operator_forms(FEW_FORMS), *operator_forms(["-"], True),
               *ufunc_forms(["maximum", "logical_and"])]  # fmt: skip
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
