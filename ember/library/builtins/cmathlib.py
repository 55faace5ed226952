"""The `cmath` module in compiled code, giving what CPython's cmath gives: the same bits,
special values, signed zeros and the ValueError/OverflowError it raises.

Finite arguments run CPython's own algorithms (cmath_finite.py). Where a part is infinite or
NaN, CPython answers from tables of special values that depend only on the class of each part
(-inf, negative, -0, +0, positive, +inf, nan); those tables are read off CPython's own cmath
the first time a function is compiled, so compiled code follows the interpreter it runs in.
Cells whose answer depends on the finite part's value (`exp(inf + 2j)`) go to the C library's
complex functions (`cexp`, C99 Annex G, the rules CPython follows).
"""

from __future__ import annotations

import cmath
import itertools
import math

from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.extending import overload
from ember.library.builtins import cmath_finite
from ember.library.builtins.number_methods import libm_hypot
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- C library calls


def _declare_c_function(name: str):
    """A placeholder whose compiled calls go to the C library's `c<name>` (complex128)."""

    def c_function(z):
        return getattr(cmath, name)(z)

    c_function.__name__ = c_function.__qualname__ = f"c{name}"

    @registry.typer(c_function)
    def _type(args, kws):
        return signature(types.complex128, types.complex128)

    @lower_builtin(c_function, types.complex128)
    def _lower(context, builder, sig, args):
        double = llvm.DoubleType()
        parts = [builder.extract_value(args[0], i) for i in (0, 1)]
        fnty = llvm.FunctionType(llvm.LiteralStructType([double, double]), [double, double])
        module = builder.module
        symbol = f"c{name}"
        function = module.globals.get(symbol) or llvm.Function(module, fnty, symbol)
        return builder.call(function, parts)  # {re, im}: the C ABI of double complex

    return c_function


# ---------------------------------------------------------------------------- special values

# CPython's classes of a double, in the order of its special-value tables.
NINF, NEG, NZERO, PZERO, POS, PINF, NAN = range(7)
_SAMPLES = {
    NINF: (-math.inf,),
    NEG: (-2.5, -0.375),  # angles whose sines and cosines differ in sign, as do their doubles
    NZERO: (-0.0,),
    PZERO: (0.0,),
    POS: (0.375, 2.5),
    PINF: (math.inf,),
    NAN: (math.nan,),
}
FIXED, FROM_C, DOMAIN_ERROR = 0, 1, 2


@njit(error_model="numpy")
def classify(x):
    if x != x:
        return 6
    if x == math.inf:
        return 5
    if x == -math.inf:
        return 0
    if x == 0.0:
        return 2 if math.copysign(1.0, x) < 0.0 else 3
    return 1 if x < 0.0 else 4


def _same(a: complex, b: complex) -> bool:
    return all(
        (x != x and y != y) or (x == y and math.copysign(1.0, x) == math.copysign(1.0, y))
        for x, y in ((a.real, b.real), (a.imag, b.imag))
    )


def _special_table(function) -> tuple[tuple, tuple]:
    """(kind, value) per class pair (index 7 * class(x) + class(y)), from CPython's
    `function(x, y)`; pairs of finite classes are not special (FROM_C)."""
    kinds = [FROM_C] * 49
    values = [0j] * 49
    for i, j in itertools.product(range(7), range(7)):
        if {i, j}.isdisjoint({NINF, PINF, NAN}):
            continue
        outcomes = []
        for x, y in itertools.product(_SAMPLES[i], _SAMPLES[j]):
            try:
                outcomes.append(complex(function(x, y)))
            except ValueError:
                outcomes.append(ValueError)
        if all(o is ValueError for o in outcomes):
            kinds[7 * i + j] = DOMAIN_ERROR
        elif ValueError not in outcomes and all(_same(o, outcomes[0]) for o in outcomes):
            kinds[7 * i + j] = FIXED
            values[7 * i + j] = outcomes[0]
    return tuple(kinds), tuple(values)


# ---------------------------------------------------------------------------- the functions

# name -> what a finite argument with an infinite result raises (None: nothing)
_FUNCTIONS = {
    "sqrt": None, "exp": OverflowError, "log": ValueError, "log10": ValueError,
    "sin": OverflowError, "cos": OverflowError, "tan": None, "asin": None, "acos": None,
    "atan": ValueError, "sinh": OverflowError, "cosh": OverflowError, "tanh": None,
    "asinh": None, "acosh": None, "atanh": ValueError,
}  # fmt: skip


def _c_function(name: str):
    return _c_functions.get(name) or _c_functions.setdefault(name, _declare_c_function(name))


def _finite_function(name: str):
    """What finite arguments of `name` are computed by: CPython's own algorithm (the same bits
    as the interpreter, and faster than the C library's), else the C library's c<name>."""
    own = getattr(cmath_finite, name, None)
    return own if own is not None else _c_function(name)


@njit(error_model="numpy")
def _may_be_infinite(z):
    """For a function without a bound past which alone its result can be infinite: always."""
    return True


def _make_helper(name: str, blow_up: type | None):
    finite_function = _finite_function(name)
    # Where a finite argument's result can only be infinite past some bound, the result is
    # tested only past it (a comparison of the argument, not a wait on the result).
    may_be_infinite = getattr(cmath_finite, f"{name}_may_overflow", _may_be_infinite)
    c_function = _c_function(name)
    kinds, values = _special_table(lambda x, y: getattr(cmath, name)(complex(x, y)))
    overflow = blow_up is OverflowError
    domain = blow_up is ValueError

    def helper(z):
        re, im = z.real, z.imag
        if math.isfinite(re) and math.isfinite(im):
            result = finite_function(z)
            if may_be_infinite(z) and (math.isinf(result.real) or math.isinf(result.imag)):
                if overflow:
                    raise OverflowError("math range error")
                if domain:
                    raise ValueError("math domain error")
            return result
        cell = 7 * classify(re) + classify(im)
        kind = kinds[cell]
        if kind == 2:
            raise ValueError("math domain error")
        if kind == 0:
            return values[cell]
        return c_function(z)

    helper.__name__ = helper.__qualname__ = f"cmath_{name}"
    return njit(error_model="numpy")(helper)


def _number(z: types.Type) -> bool:
    return isinstance(types.unliteral(z), (types.Number, types.Boolean))


_helpers: dict[str, object] = {}
_c_functions: dict[str, object] = {}


def helper(name: str, blow_up: type | None = None):
    """The compiled helper of `name` (built, with its special-value table, on first use)."""
    key = f"{name}:{blow_up}"
    found = _helpers.get(key)
    if found is None:
        found = _helpers[key] = _make_helper(name, blow_up)
    return found


def _register(name: str, blow_up: type | None) -> None:
    @overload(getattr(cmath, name))
    def cmath_function(z):
        if not _number(z):
            return None
        compiled = helper(name, blow_up)

        def impl(z):
            return compiled(complex(z))

        return impl


for _name, _blow_up in _FUNCTIONS.items():
    if _name != "log":  # with its optional base, below
        _register(_name, _blow_up)


def _log_base_helper():
    log, log_quiet = helper("log", ValueError), helper("log")

    def log_base(z, base):
        """CPython's log(z, base): log(z) / log(base), a base whose log is 0 a domain error;
        the log of z raises nothing (CPython clears that error)."""
        denominator = log(base)
        if denominator == 0:
            raise ValueError("math domain error")
        return log_quiet(z) / denominator

    return njit(error_model="numpy")(log_base)


@overload(cmath.log)
def cmath_log(z, base=None):
    if not _number(z):
        return None
    if base is None or isinstance(base, types.NoneType):
        log = helper("log", ValueError)

        def log_impl(z, base=None):
            return log(complex(z))

        return log_impl
    if _number(base):
        log_base = _helpers.get("log_base") or _helpers.setdefault("log_base", _log_base_helper())

        def log_base_impl(z, base=None):
            return log_base(complex(z), complex(base))

        return log_base_impl
    return None


@njit(error_model="numpy")
def _phase(z):
    """atan2(imag, real); CPython reports an angle that underflowed to 0 (the C library's
    range error) as OverflowError."""
    angle = math.atan2(z.imag, z.real)
    if angle == 0.0 and z.imag != 0.0 and math.isfinite(z.real):
        raise OverflowError("math range error")
    return angle


@overload(cmath.isclose)
def cmath_isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    if not (_number(a) and _number(b)):
        return None

    def isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
        if rel_tol < 0.0 or abs_tol < 0.0:
            raise ValueError("tolerances must be non-negative")
        a = complex(a) + 0j  # complex128 whatever the operand's width
        b = complex(b) + 0j
        if a == b:
            return True
        if math.isinf(a.real) or math.isinf(a.imag) or math.isinf(b.real) or math.isinf(b.imag):
            return False
        difference = b - a
        distance = libm_hypot(difference.real, difference.imag)
        return (
            distance <= rel_tol * libm_hypot(b.real, b.imag)
            or distance <= rel_tol * libm_hypot(a.real, a.imag)
            or distance <= abs_tol
        )

    return isclose


@overload(cmath.phase)
def cmath_phase(z):
    if _number(z):
        return lambda z: _phase(complex(z))
    return None


@njit(error_model="numpy")
def _polar(z):
    magnitude = libm_hypot(z.real, z.imag)
    if math.isinf(magnitude) and math.isfinite(z.real) and math.isfinite(z.imag):
        raise OverflowError("math range error")
    return magnitude, math.atan2(z.imag, z.real)


@overload(cmath.polar)
def cmath_polar(z):
    if _number(z):
        return lambda z: _polar(complex(z))
    return None


def _make_rect():
    kinds, values = _special_table(cmath.rect)

    def rect(r, phi):
        if math.isfinite(r) and math.isfinite(phi):
            return complex(r * math.cos(phi), r * math.sin(phi))
        cell = 7 * classify(r) + classify(phi)
        kind = kinds[cell]
        if kind == 2:
            raise ValueError("math domain error")
        if kind == 0:
            return values[cell]
        return complex(r * math.cos(phi), r * math.sin(phi))

    return njit(error_model="numpy")(rect)


@overload(cmath.rect)
def cmath_rect(r, phi):
    if _real(r) and _real(phi):
        rect = _helpers.get("rect") or _helpers.setdefault("rect", _make_rect())
        return lambda r, phi: rect(float(r), float(phi))
    return None


def _real(x: types.Type) -> bool:
    return isinstance(types.unliteral(x), (types.Integer, types.Float, types.Boolean))


def _register_predicate(name: str) -> None:
    test = getattr(math, name)
    if name == "isfinite":

        def predicate(z):
            c = complex(z)
            return test(c.real) and test(c.imag)

    else:

        def predicate(z):
            c = complex(z)
            return test(c.real) or test(c.imag)

    @overload(getattr(cmath, name))
    def cmath_predicate(z):
        return predicate if _number(z) else None


for _predicate in ("isnan", "isinf", "isfinite"):
    _register_predicate(_predicate)
