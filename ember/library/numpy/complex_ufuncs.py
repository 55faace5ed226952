"""NumPy's unary ufuncs on complex numbers: the C library's complex functions (`cexp`, `clog`,
`csqrt`, the trigonometric and hyperbolic ones, as NumPy calls them on Linux) and NumPy's own
formulas for exp2, log2, log10, expm1, log1p, reciprocal and sign. complex64 is computed in
double precision and rounded (NumPy uses the float versions: the last bit may differ).

A kernel takes and returns `{re, im}` LLVM values; ufuncs.py routes complex loops here.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from llvmlite import ir as llvm

from ember.lowering.intrinsics import call_c_library, call_intrinsic

_f64 = llvm.DoubleType()
_PAIR = llvm.LiteralStructType([_f64, _f64])

_C99 = {
    np.exp: "cexp", np.log: "clog", np.sqrt: "csqrt", np.sin: "csin", np.cos: "ccos",
    np.tan: "ctan", np.arcsin: "casin", np.arccos: "cacos", np.arctan: "catan",
    np.sinh: "csinh", np.cosh: "ccosh", np.tanh: "ctanh", np.arcsinh: "casinh",
    np.arccosh: "cacosh", np.arctanh: "catanh",
}  # fmt: skip


def complex_kernel(ufunc: np.ufunc) -> Callable | None:
    """`lower(builder, value) -> value` for a unary ufunc on complex numbers, or None."""
    if ufunc in _C99:
        return lambda builder, value: _in_double(builder, value, _c99(_C99[ufunc]))
    derived = _DERIVED.get(ufunc)
    if derived is None:
        return None
    return lambda builder, value: _in_double(builder, value, derived)


def _in_double(builder, value, compute: Callable):
    """Run `compute(builder, re, im) -> (re, im)` in double precision on a complex value."""
    part = value.type.elements[0]
    re, im = (builder.extract_value(value, k) for k in (0, 1))
    if part != _f64:
        re, im = builder.fpext(re, _f64), builder.fpext(im, _f64)
    re, im = compute(builder, re, im)
    if part != _f64:
        re, im = builder.fptrunc(re, part), builder.fptrunc(im, part)
    result = llvm.Constant(value.type, llvm.Undefined)
    return builder.insert_value(builder.insert_value(result, re, 0), im, 1)


def _c99(name: str) -> Callable:
    """A C99 `double complex name(double complex)`: on x86-64 its parts travel in two
    registers, which LLVM spells as two doubles in and a {double, double} out."""

    def compute(builder, re, im):
        result = _call_pair(builder, name, [re, im])
        return builder.extract_value(result, 0), builder.extract_value(result, 1)

    return compute


def _call_pair(builder, name: str, operands: list) -> llvm.Value:
    from ember.codegen.symbols import libm_symbol

    symbol = libm_symbol(name)
    function = builder.module.globals.get(symbol)
    if function is None:
        function = llvm.Function(builder.module, llvm.FunctionType(_PAIR, [_f64, _f64]), symbol)
    return builder.call(function, operands)


def _scaled_log(factor: float) -> Callable:
    def compute(builder, re, im):
        re, im = _c99("clog")(builder, re, im)
        scale = llvm.Constant(_f64, factor)
        return builder.fmul(re, scale), builder.fmul(im, scale)

    return compute


# NumPy's constants (npy_math.h), written out: 1 / log(10) rounds differently in the last bit
_LOGE2 = 0.693147180559945309417232121458176568
_LOG2E = 1.442695040888963407359924681001892137
_LOG10E = 0.434294481903251827651128918916605082


def _exp2(builder, re, im):
    scale = llvm.Constant(_f64, _LOGE2)
    return _c99("cexp")(builder, builder.fmul(re, scale), builder.fmul(im, scale))


def _expm1(builder, re, im):
    half = builder.fmul(im, llvm.Constant(_f64, 0.5))
    a = call_c_library(builder, "sin", [half])
    twice_a_squared = builder.fmul(llvm.Constant(_f64, 2.0), builder.fmul(a, a))
    real = builder.fsub(
        builder.fmul(call_c_library(builder, "expm1", [re]), call_c_library(builder, "cos", [im])),
        twice_a_squared,
    )
    imag = builder.fmul(call_c_library(builder, "exp", [re]), call_c_library(builder, "sin", [im]))
    return real, imag


def _log1p(builder, re, im):
    shifted = builder.fadd(re, llvm.Constant(_f64, 1.0))
    magnitude = call_c_library(builder, "hypot", [shifted, im])
    return call_c_library(builder, "log", [magnitude]), call_c_library(
        builder, "atan2", [im, shifted]
    )


def _reciprocal(builder, re, im):
    """1 / z by Smith's method, as NumPy divides."""
    one = llvm.Constant(_f64, 1.0)
    real_bigger = builder.fcmp_ordered(
        "<=", call_intrinsic(builder, "llvm.fabs", [im]), call_intrinsic(builder, "llvm.fabs", [re])
    )
    # |im| <= |re|: r = im/re, d = re + im*r -> (1/d, -r/d); else r = re/im, d = re*r + im
    # -> (r/d, -1/d)
    ratio_a = builder.fdiv(im, re)
    denom_a = builder.fadd(re, builder.fmul(im, ratio_a))
    ratio_b = builder.fdiv(re, im)
    denom_b = builder.fadd(builder.fmul(re, ratio_b), im)
    real = builder.select(real_bigger, builder.fdiv(one, denom_a), builder.fdiv(ratio_b, denom_b))
    imag = builder.select(
        real_bigger,
        builder.fneg(builder.fdiv(ratio_a, denom_a)),
        builder.fneg(builder.fdiv(one, denom_b)),
    )
    return real, imag


def _sign(builder, re, im):
    """NumPy 2's sign of a complex number: z / |z| (0 for 0; an infinite part counts as ±1,
    the other as 0; NaN when both parts are infinite or one is NaN)."""
    zero, nan = llvm.Constant(_f64, 0.0), llvm.Constant(_f64, math.nan)
    magnitude = call_c_library(builder, "hypot", [re, im])
    inf = llvm.Constant(_f64, math.inf)
    re_inf = builder.fcmp_ordered("==", call_intrinsic(builder, "llvm.fabs", [re]), inf)
    im_inf = builder.fcmp_ordered("==", call_intrinsic(builder, "llvm.fabs", [im]), inf)
    one = llvm.Constant(_f64, 1.0)

    def unit_or_zero(is_inf, part):
        return builder.select(is_inf, call_intrinsic(builder, "llvm.copysign", [one, part]), zero)

    real = builder.fdiv(re, magnitude)
    imag = builder.fdiv(im, magnitude)
    infinite = builder.or_(re_inf, im_inf)
    real = builder.select(infinite, unit_or_zero(re_inf, re), real)
    imag = builder.select(infinite, unit_or_zero(im_inf, im), imag)
    both_inf = builder.and_(re_inf, im_inf)
    any_nan = builder.or_(
        builder.fcmp_unordered("uno", re, re), builder.fcmp_unordered("uno", im, im)
    )
    invalid = builder.or_(both_inf, builder.and_(any_nan, builder.not_(infinite)))
    real, imag = builder.select(invalid, nan, real), builder.select(invalid, nan, imag)
    is_zero = builder.fcmp_ordered("==", magnitude, zero)
    return builder.select(is_zero, zero, real), builder.select(is_zero, zero, imag)


_DERIVED = {
    np.exp2: _exp2,
    np.log2: _scaled_log(_LOG2E),
    np.log10: _scaled_log(_LOG10E),
    np.expm1: _expm1,
    np.log1p: _log1p,
    np.reciprocal: _reciprocal,
    np.sign: _sign,
}
