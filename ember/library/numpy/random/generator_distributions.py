"""The distribution methods of `numpy.random.Generator` in compiled code: NumPy's argument checks
and messages, then NumPy's own C function for each number (generator.py's machinery)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload_method
from ember.library.numpy.random.generator import (
    _binomial_draw,
    _call_c,
    _draw,
    check_argument,
    check_size,
    distribution_method,
)
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_none, numpy_dtype, parse_dtype
from ember.lowering import arrays as refs
from ember.typing.signature import signature

_SCALE = [("negative(scale)", "scale < 0")]
_P_IN_0_1 = [("not (0 <= p <= 1)", "p < 0, p > 1 or p is NaN")]
_P_ABOVE_0 = [("not (0 < p <= 1)", "p <= 0, p > 1 or p contains NaNs")]

# name -> (C function, parameters with defaults, checks (condition, message));
# NumPy's checks let NaN through unless they say so, and count -0.0 as negative
_CONTINUOUS = {
    "random": ("random_standard_uniform", "", []),
    "standard_normal": ("random_standard_normal", "", []),
    "standard_cauchy": ("random_standard_cauchy", "", []),
    "normal": ("random_normal", "loc=0.0, scale=1.0", _SCALE),
    "exponential": ("random_exponential", "scale=1.0", _SCALE),
    "standard_gamma": ("random_standard_gamma", "shape", [("negative(shape)", "shape < 0")]),
    "gamma": ("random_gamma", "shape, scale=1.0", [("negative(shape)", "shape < 0"), *_SCALE]),
    "beta": ("random_beta", "a, b", [("a <= 0", "a <= 0"), ("b <= 0", "b <= 0")]),
    "chisquare": ("random_chisquare", "df", [("df <= 0", "df <= 0")]),
    "lognormal": ("random_lognormal", "mean=0.0, sigma=1.0", [("negative(sigma)", "sigma < 0")]),
    "laplace": ("random_laplace", "loc=0.0, scale=1.0", _SCALE),
    "logistic": ("random_logistic", "loc=0.0, scale=1.0", _SCALE),
    "gumbel": ("random_gumbel", "loc=0.0, scale=1.0", _SCALE),
    "weibull": ("random_weibull", "a", [("negative(a)", "a < 0")]),
    "pareto": ("random_pareto", "a", [("a <= 0", "a <= 0")]),
    "power": ("random_power", "a", [("a <= 0", "a <= 0")]),
    "rayleigh": ("random_rayleigh", "scale=1.0", _SCALE),
    "standard_t": ("random_standard_t", "df", [("df <= 0", "df <= 0")]),
    "triangular": ("random_triangular", "left, mode, right", [("left > mode", "left > mode"),
                   ("mode > right", "mode > right"), ("left == right", "left == right")]),
    "vonmises": ("random_vonmises", "mu, kappa", [("negative(kappa)", "kappa < 0")]),
    "wald": ("random_wald", "mean, scale", [("mean <= 0", "mean <= 0"),
             ("scale <= 0", "scale <= 0")]),
    "f": ("random_f", "dfnum, dfden", [("dfnum <= 0", "dfnum <= 0"),
          ("dfden <= 0", "dfden <= 0")]),
    "noncentral_chisquare": ("random_noncentral_chisquare", "df, nonc",
                             [("df <= 0", "df <= 0"), ("negative(nonc)", "nonc < 0")]),
    "noncentral_f": ("random_noncentral_f", "dfnum, dfden, nonc", [("dfnum <= 0", "dfnum <= 0"),
                     ("dfden <= 0", "dfden <= 0"), ("negative(nonc)", "nonc < 0")]),
}  # fmt: skip

# these also take dtype=np.float32, drawing with NumPy's <C function>_f
_SINGLE_PRECISION = ("random", "standard_normal", "standard_gamma")

_DISCRETE = {
    "poisson": ("random_poisson", "lam=1.0", [("lam < 0 or np.isnan(lam)",
                "lam < 0 or lam is NaN"), ("lam > 9.223372006484771e18", "lam value too large")]),
    "geometric": ("random_geometric", "p", _P_ABOVE_0),
    "logseries": ("random_logseries", "p", [("not (0 <= p < 1)", "p < 0, p >= 1 or p is NaN")]),
    "zipf": ("random_zipf", "a", [("not a > 1", "a <= 1 or a is NaN")]),
    "negative_binomial": ("random_negative_binomial", "n, p", [("np.isnan(n)",
                          "n must not be NaN"), ("n <= 0", "n <= 0"), *_P_ABOVE_0]),
}  # fmt: skip

_HYPERGEOMETRIC_CHECKS = [
    ("ngood >= 1000000000 or nbad >= 1000000000",
     "both ngood and nbad must be less than 1000000000"),
    ("ngood + nbad < nsample", "ngood + nbad < nsample"),
    ("ngood < 0", "ngood < 0"),
    ("nbad < 0", "nbad < 0"),
    ("nsample < 0", "nsample < 0"),
]  # fmt: skip


def _register() -> None:
    for name, (c_name, params, checks) in _CONTINUOUS.items():
        count = params.count(",") + 1 if params else 0
        single = _draw(f"{c_name}_f", count, single=True) if name in _SINGLE_PRECISION else None
        distribution_method(name, params, checks, _draw(c_name, count), float32_draw=single)
    for name, (c_name, params, checks) in _DISCRETE.items():
        draw = _draw(c_name, params.count(",") + 1, integer_result=True)
        distribution_method(name, params, checks, draw, np.int64)
    hypergeometric = _draw("random_hypergeometric", 3, True, integer_parameters=True)
    distribution_method(
        "hypergeometric", "ngood, nbad, nsample", _HYPERGEOMETRIC_CHECKS, hypergeometric, np.int64
    )
    distribution_method(
        "binomial", "n, p", [*_P_IN_0_1, ("n < 0", "n < 0")], _binomial_draw, np.int64
    )


_register()


# ---------------------------------------------------------------------------- standard_exponential


@intrinsic
def _exponential_fill(typingctx, rng, inverse, out):
    """NumPy's random_standard_exponential[_inv]_fill[_f](bitgen, n, out) over `out` (a
    contiguous float64 or float32 array): Ziggurat, or inversion with `inverse`."""

    def codegen(context, builder, sig, args):
        bitgen = builder.extract_value(args[0], 1)
        fields = refs.unpack(builder, sig.args[2], args[2])
        suffix = "_f" if sig.args[2].dtype == types.float32 else ""
        zig, inv = (f"random_standard_exponential{kind}_fill{suffix}" for kind in ("", "_inv"))
        with builder.if_else(args[1]) as (then, otherwise):
            with then:
                _call_c(builder, inv, llvm.VoidType(), [bitgen, fields.nitems, fields.data])
            with otherwise:
                _call_c(builder, zig, llvm.VoidType(), [bitgen, fields.nitems, fields.data])
        return context.get_dummy_value(types.none)

    return signature(types.none, types.npy_rng, types.boolean, out), codegen


def _inverse_method_impl(method):
    if method == "inv":
        return True
    if method != "zig":
        raise ValueError("method must be either 'inv' or 'zig'")
    return False


_inverse_method = njit(**NUMPY_ERRORS)(_inverse_method_impl)


@overload_method(types.NumPyRandomGeneratorType, "standard_exponential", jit_options=NUMPY_ERRORS)
def _standard_exponential(self, size=None, dtype=None, method="zig"):
    size, dtype, method = map(as_type, (size, dtype, method))
    check_size(size)
    try:
        result = numpy_dtype(parse_dtype(dtype)) if not is_none(dtype) else np.dtype(np.float64)
    except (TypingError, TypeError, ValueError, NotImplementedError):
        result = None
    check_argument("dtype", dtype, result in (np.float32, np.float64), "[np.float32, np.float64]")
    check_argument("method", method, isinstance(types.unliteral(method), types.UnicodeType),
                   "['zig', 'inv']")  # fmt: skip
    result = result.type
    if is_none(size):

        def one(self, size=None, dtype=None, method="zig"):
            out = np.empty(1, result)
            _exponential_fill(self, _inverse_method(method), out)
            return out[0]

        return one

    def many(self, size=None, dtype=None, method="zig"):
        out = np.empty(size, result)
        _exponential_fill(self, _inverse_method(method), out.reshape(-1))
        return out

    return many
