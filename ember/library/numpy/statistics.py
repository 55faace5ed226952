"""NaN-ignoring reductions, order statistics and covariances, written in Python and compiled by
ember: nansum, nanprod, nancumsum, nancumprod, nanmean, nanvar, nanstd, nanmax, nanmin,
nanargmax, nanargmin, nanmedian, percentile, quantile, nanpercentile, nanquantile (NumPy's
default 'linear' method; q a number, array or tuple), ptp, average, cov and corrcoef (y=, rowvar=,
and for cov bias= and ddof=).

Each takes a whole array (no `axis`), as in Numba. Sums run in element order, so the last bits
of nansum/nanmean/nanvar can differ from NumPy's pairwise sums. Quantiles select in O(n) rather
than sort; cov multiplies by BLAS, as NumPy does.
"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.reductions import complex_better_jit
from ember.library.numpy.sorting import select_kth_number
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_integer, is_number


def _real_array(typ) -> bool:
    return is_array(typ) and isinstance(typ.dtype, (types.Integer, types.Float, types.Boolean))


def _numeric_array(typ) -> bool:
    """An array of numbers: integers, floats, booleans or complex numbers."""
    return _real_array(typ) or (is_array(typ) and isinstance(typ.dtype, types.Complex))


def _float_array(typ) -> bool:
    return is_array(typ) and isinstance(typ.dtype, types.Float)


def _register(key, float_impl, plain_reduction, complex_impl=None):
    """`float_impl` for float arrays (`complex_impl` for complex ones); integer and bool arrays
    hold no NaN, so the plain NumPy reduction serves them."""
    plain_impl = _plain_impl(plain_reduction)

    @overload(key, jit_options=NUMPY_ERRORS)
    def select(a):
        if isinstance(a, (types.List, types.BaseTuple)) and _numeric_dimensions(a):
            return lambda a: key(np.asarray(a))  # a sequence: as the array NumPy makes of it
        if _float_array(a):
            return float_impl
        if is_array(a) and isinstance(a.dtype, types.Complex):
            return complex_impl
        return plain_impl if _real_array(a) else None


def _plain_impl(reduction):
    def plain(a):
        return reduction(a)

    return plain


# ---------------------------------------------------------------------------- sums and moments


def _nansum(a):
    total = np.zeros(1, a.dtype)[0]
    for x in a.flat:
        if x == x:
            total += x
    return total


def _nanprod(a):
    total = np.ones(1, a.dtype)[0]
    for x in a.flat:
        if x == x:
            total *= x
    return total


def _count_and_sum(a, zero):
    """How many items are not NaN, and their sum (from `zero`: 0.0, or 0j for complex)."""
    count, total = 0, zero
    for x in a.flat:
        if x == x:  # False when either part of a complex number is NaN, as np.isnan
            count += 1
            total += x
    return count, total


_count_and_sum_jit = njit(**NUMPY_ERRORS)(_count_and_sum)


def _nanmean(a):
    count, total = _count_and_sum_jit(a, 0.0)
    return total / count if count else np.nan


def _nan_variance(a, zero):
    """The mean squared modulus of the non-NaN items' deviations (NumPy's variance, of real
    and of complex numbers alike); `zero` (0.0 or 0j) starts their sum."""
    count, total = _count_and_sum_jit(a, zero)
    if count == 0:
        return np.nan
    mean = total / count
    squares = 0.0
    for x in a.flat:
        if x == x:
            deviation = x - mean
            squares += deviation.real * deviation.real + deviation.imag * deviation.imag
    return squares / count


_nan_variance_jit = njit(**NUMPY_ERRORS)(_nan_variance)


def _nanvar(a):
    return _nan_variance_jit(a, 0.0)


def _nanstd(a):
    return np.sqrt(_nan_variance_jit(a, 0.0))


def _nancumsum(a):
    return np.cumsum(np.where(np.isnan(a), 0.0, a))


def _nancumprod(a):
    return np.cumprod(np.where(np.isnan(a), 1.0, a))


def _nanmean_complex(a):
    count, total = _count_and_sum_jit(a, 0j)
    return total / count if count else complex(np.nan, np.nan)


def _nanvar_complex(a):
    return _nan_variance_jit(a, 0j)


def _nanstd_complex(a):
    return np.sqrt(_nan_variance_jit(a, 0j))


_register(np.nansum, _nansum, np.sum, _nansum)
_register(np.nancumsum, _nancumsum, np.cumsum, _nancumsum)
_register(np.nancumprod, _nancumprod, np.cumprod, _nancumprod)
_register(np.nanprod, _nanprod, np.prod, _nanprod)
_register(np.nanmean, _nanmean, np.mean, _nanmean_complex)
_register(np.nanvar, _nanvar, np.var, _nanvar_complex)
_register(np.nanstd, _nanstd, np.std, _nanstd_complex)


# ---------------------------------------------------------------------------- extremes


def _nan_extreme_index(a, largest):
    """The first index of the largest (smallest) non-NaN item; -1 when all are NaN."""
    found = -1
    best = np.zeros(1, a.dtype)[0]
    index = 0
    for x in a.flat:
        if x == x and (found < 0 or (x > best if largest else x < best)):
            found, best = index, x
        index += 1
    return found


_nan_extreme_index_jit = njit(**NUMPY_ERRORS)(_nan_extreme_index)


def _nan_extreme(a, largest):
    if a.size == 0:
        raise ValueError("zero-size array to reduction operation which has no identity")
    index = _nan_extreme_index_jit(a, largest)
    return a.ravel()[index] if index >= 0 else np.nan


_nan_extreme_jit = njit(**NUMPY_ERRORS)(_nan_extreme)


def _nanmax(a):
    return _nan_extreme_jit(a, True)


def _nanmin(a):
    return _nan_extreme_jit(a, False)


def _nanargmax(a):
    index = _nan_extreme_index_jit(a, True)
    if index < 0:
        raise ValueError("All-NaN slice encountered")
    return index


def _nanargmin(a):
    index = _nan_extreme_index_jit(a, False)
    if index < 0:
        raise ValueError("All-NaN slice encountered")
    return index


def _complex_nan_extreme(a, largest):
    """NumPy's nanmax/nanmin of complex items (by real, then imaginary part), NaN skipped."""
    if a.size == 0:
        raise ValueError("zero-size array to reduction operation which has no identity")
    found = False
    best = a.ravel()[0]  # all NaN: NumPy gives the first
    for x in a.flat:
        if x == x and (not found or complex_better_jit(x, best, largest)):
            found, best = True, x
    return best


_complex_nan_extreme_jit = njit(**NUMPY_ERRORS)(_complex_nan_extreme)


def _complex_nanmax(a):
    return _complex_nan_extreme_jit(a, True)


def _complex_nanmin(a):
    return _complex_nan_extreme_jit(a, False)


_register(np.nanmax, _nanmax, np.max, _complex_nanmax)
_register(np.nanmin, _nanmin, np.min, _complex_nanmin)
_register(np.nanargmax, _nanargmax, np.argmax)
_register(np.nanargmin, _nanargmin, np.argmin)


# ---------------------------------------------------------------------------- quantiles


def _lerp(low, high, gamma):
    """NumPy's 'linear' interpolation between neighbouring order statistics, term for term."""
    difference = high - low
    if gamma >= 0.5:
        return high - difference * (1.0 - gamma)
    return low + difference * gamma


_lerp_jit = njit(**NUMPY_ERRORS)(_lerp)


def _neighbours(n, q):
    """The ranks below and above the virtual index q * (n - 1), and its fractional part."""
    virtual = q * (n - 1)
    below = min(max(int(np.floor(virtual)), 0), n - 1)
    above = min(below + 1, n - 1)
    return below, above, virtual - below


_neighbours_jit = njit(**NUMPY_ERRORS)(_neighbours)


def _lerp_sorted(ordered, q):
    """The 'linear' quantile of sorted values."""
    below, above, gamma = _neighbours_jit(ordered.shape[0], q)
    return _lerp_jit(float(ordered[below]), float(ordered[above]), gamma)


_lerp_sorted_jit = njit(**NUMPY_ERRORS)(_lerp_sorted)


def _lerp_selected(values, q):
    """The 'linear' quantile of NaN-free values, found by selection in O(n): reorders
    `values` so the rank below is in place and every item after it is no smaller."""
    below, above, gamma = _neighbours_jit(values.shape[0], q)
    select_kth_number(values, below)
    low = values[below]
    high = values[below + 1 :].min() if above > below else low
    return _lerp_jit(low, high, gamma)


_lerp_selected_jit = njit(**NUMPY_ERRORS)(_lerp_selected)


def _float_values(a, drop_nan):
    """The items as a new float64 array (NaNs dropped when `drop_nan`); empty when a NaN
    decides the answer (all NaN, or any NaN when they are kept)."""
    flat = a.ravel().astype(np.float64)
    if drop_nan:
        return flat[flat == flat]
    for value in flat:
        if value != value:
            return flat[:0]
    return flat


_float_values_jit = njit(**NUMPY_ERRORS)(_float_values)


def _quantile_of(a, q, drop_nan):
    values = _float_values_jit(a, drop_nan)
    if values.shape[0] == 0:  # all NaN, or a NaN propagates
        return np.nan
    return _lerp_selected_jit(values, q)


_quantile_of_jit = njit(**NUMPY_ERRORS)(_quantile_of)

# Up to this many quantiles select one by one (O(n) each); more sort once.
_MOST_SELECTIONS = 8


def _check_fraction(q, scale):
    if not (0.0 <= q <= 1.0):
        if scale == 100.0:
            raise ValueError("Percentiles must be in the range [0, 100]")
        raise ValueError("Quantiles must be in the range [0, 1]")


_check_fraction_jit = njit(**NUMPY_ERRORS)(_check_fraction)


@functools.cache
def _make_quantile(scale: float, drop_nan: bool):
    def scalar_q(a, q):
        fraction = q / scale
        _check_fraction_jit(fraction, scale)
        if a.size == 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        return _quantile_of_jit(a, fraction, drop_nan)

    def array_q(a, q):
        fractions = q.astype(np.float64).ravel() / scale
        for fraction in fractions:
            _check_fraction_jit(fraction, scale)
        if a.size == 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        values = _float_values_jit(a, drop_nan)
        count = fractions.shape[0]
        out = np.full(count, np.nan)
        if values.shape[0] == 0:
            return out.reshape(q.shape)
        if count > _MOST_SELECTIONS:
            values.sort()
        for i in range(count):
            if count > _MOST_SELECTIONS:
                out[i] = _lerp_sorted_jit(values, fractions[i])
            else:
                out[i] = _lerp_selected_jit(values, fractions[i])
        return out.reshape(q.shape)

    array_q_jit = njit(**NUMPY_ERRORS)(array_q)

    def sequence_q(a, q):
        return array_q_jit(a, np.asarray(q))

    def select(a, q):
        if not _real_array(a):
            return None
        if is_number(q) and not isinstance(types.unliteral(q), types.Complex):
            return scalar_q
        if isinstance(q, (types.BaseTuple, types.List)):
            return sequence_q
        return array_q if _real_array(q) else None

    return select


@overload(np.percentile, jit_options=NUMPY_ERRORS)
def _np_percentile(a, q):
    return _make_quantile(100.0, drop_nan=False)(a, q)


@overload(np.quantile, jit_options=NUMPY_ERRORS)
def _np_quantile(a, q):
    return _make_quantile(1.0, drop_nan=False)(a, q)


@overload(np.nanpercentile, jit_options=NUMPY_ERRORS)
def _np_nanpercentile(a, q):
    return _make_quantile(100.0, drop_nan=True)(a, q)


@overload(np.nanquantile, jit_options=NUMPY_ERRORS)
def _np_nanquantile(a, q):
    return _make_quantile(1.0, drop_nan=True)(a, q)


def _nanmedian(a):
    if a.size == 0:
        return np.nan
    return _quantile_of_jit(a, 0.5, True)


_register(np.nanmedian, _nanmedian, np.median)


# ---------------------------------------------------------------------------- spread, weights


def _ptp(a):
    return a.max() - a.min()


@functools.cache
def _ptp_integers(dtype_name: str):
    np_type = getattr(np, dtype_name)

    def ptp(a):
        return np_type(a.max() - a.min())  # in the array's dtype, wrapping as NumPy's

    return ptp


@overload(np.ptp, jit_options=NUMPY_ERRORS)
def _select_ptp(a):
    if not is_array(a):
        return None
    if isinstance(a.dtype, types.Boolean):
        raise TypingError(
            "np.ptp of booleans: numpy boolean subtract, the `-` operator, is not supported; "
            "convert the array to integers first"
        )
    if isinstance(a.dtype, types.Integer):
        return _ptp_integers(a.dtype.name)
    return _ptp if isinstance(a.dtype, (types.Float, types.Complex)) else None


def _average(a, axis, weights):
    return np.mean(a)


def _average_weighted(a, axis, weights):
    if weights.shape != a.shape:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    scale = weights.sum()
    if scale == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return (a * weights).sum() / scale


@overload(np.average, jit_options=NUMPY_ERRORS)
def _select_average(a, axis=None, weights=None):
    axis = as_type(axis)
    weights = as_type(weights)
    if not (_numeric_array(a) and isinstance(axis, types.NoneType)):
        return None
    if weights is None or isinstance(weights, types.NoneType):
        return _average
    return _average_weighted if _numeric_array(weights) else None


# ---------------------------------------------------------------------------- covariance


def _centred(rows):
    variables, count = rows.shape
    centred = np.empty((variables, count), rows.dtype)
    for i in range(variables):
        centred[i] = rows[i] - rows[i].mean()
    return centred


_centred_jit = njit(**NUMPY_ERRORS)(_centred)


def _covariance(rows, ddof):
    """NumPy's cov of the variables in `rows` (one per row, observations along the row)."""
    variables, count = rows.shape
    centred = _centred_jit(rows)
    out = (centred @ centred.T) / np.float64(max(count - ddof, 0))  # BLAS, as NumPy's dot
    for i in range(variables):  # NumPy's product is symmetric (BLAS syrk); make this one so
        for j in range(i + 1, variables):
            out[j, i] = out[i, j]
    return out


def _covariance_complex(rows, ddof):
    """NumPy's cov of complex variables: deviations times conjugated deviations; Hermitian."""
    variables, count = rows.shape
    centred = _centred_jit(rows)
    out = (centred @ np.conj(centred.T)) / np.float64(max(count - ddof, 0))
    for i in range(variables):
        for j in range(i + 1, variables):
            out[j, i] = np.conj(out[i, j])
    return out


def _observations(m, rowvar, one_row_stays):
    """The variables of `m` as float64 rows (a 1-d m is one variable). NumPy 2 transposes any
    2-d m for rowvar=False, but a y of one row stays one variable (`one_row_stays`)."""
    rows = np.atleast_2d(m).astype(np.float64)
    if not rowvar and (m.ndim != 1 if not one_row_stays else rows.shape[0] != 1):
        return np.ascontiguousarray(rows.T)
    return rows


def _observations_complex(m, rowvar, one_row_stays):
    """The variables of `m` as complex128 rows."""
    rows = np.atleast_2d(m).astype(np.complex128)
    if not rowvar and (m.ndim != 1 if not one_row_stays else rows.shape[0] != 1):
        return np.ascontiguousarray(rows.T)
    return rows


def _correlation(c):
    """NumPy's corrcoef from a covariance: divide by each standard deviation, clip to [-1, 1]."""
    stddev = np.sqrt(np.diag(c))
    n = c.shape[0]
    out = np.empty_like(c)
    for i in range(n):
        for j in range(n):
            value = c[i, j] / stddev[i] / stddev[j]
            out[i, j] = min(max(value, -1.0), 1.0)
    return out


def _correlation_complex(c):
    """corrcoef of complex variables: the real and imaginary parts each clipped to [-1, 1]."""
    stddev = np.sqrt(np.diag(c).real)
    n = c.shape[0]
    out = np.empty_like(c)
    for i in range(n):
        for j in range(n):
            value = c[i, j] / stddev[i] / stddev[j]
            out[i, j] = complex(min(max(value.real, -1.0), 1.0), min(max(value.imag, -1.0), 1.0))
    return out


@functools.cache
def _cov_namespace(complex_numbers: bool) -> dict:
    """The compiled helpers of cov/corrcoef for real or for complex variables."""
    helpers = {
        "_observations": _observations_complex if complex_numbers else _observations,
        "_covariance": _covariance_complex if complex_numbers else _covariance,
        "_correlation": _correlation_complex if complex_numbers else _correlation,
    }
    return {"np": np, **{name: njit(**NUMPY_ERRORS)(f) for name, f in helpers.items()}}


@functools.cache
def _cov_impl(with_y: bool, ddof_given: bool, correlate: bool, scalar: bool, complex_numbers: bool):
    """cov/corrcoef for each combination of argument kinds; `scalar` (one 1-d variable, no y)
    gives a 0-d array for cov, as NumPy's squeeze, and a number for corrcoef, as NumPy."""
    rows = "_observations(m, rowvar, False)"
    if with_y:
        rows = (
            "np.concatenate((_observations(m, rowvar, False), _observations(y, rowvar, True)), 0)"
        )
    ddof = "ddof" if ddof_given else "(0 if bias else 1)"
    result = f"_covariance(rows_, {ddof})"
    if correlate:
        result = f"_correlation({result})"
    source = f"""
def cov(m, y, rowvar, bias, ddof):
    rows_ = {rows}
    out = {result}
    return {("out[0, 0]" if correlate else "out.reshape(())") if scalar else "out"}
"""
    namespace = dict(_cov_namespace(complex_numbers))
    exec(source, namespace)  # noqa: S102 - fixed text and booleans
    return namespace["cov"]


def _numeric_dimensions(typ) -> int | None:
    """The dimensions of np.asarray(typ) for an array, number, or (nested) tuple or list of
    numbers; None for anything else."""
    typ = types.unliteral(typ)
    if _numeric_array(typ):
        return typ.ndim
    if isinstance(typ, types.Number):
        return 0
    if isinstance(typ, types.BaseTuple):
        inner = {_numeric_dimensions(t) for t in typ.types}
        if not inner:
            return 1
        return 1 + inner.pop() if len(inner) == 1 and None not in inner else None
    if isinstance(typ, types.List):
        inner = _numeric_dimensions(typ.dtype)
        return None if inner is None else 1 + inner
    return None


@functools.cache
def _of_array_likes(impl):
    """Tuples, lists and numbers: the covariance of the arrays NumPy makes of them."""
    impl_jit = njit(**NUMPY_ERRORS)(impl)
    return lambda m, y, rowvar, bias, ddof: impl_jit(
        np.asarray(m), y if y is None else np.asarray(y), rowvar, bias, ddof
    )


@functools.cache
def _of_one_row(impl):
    """A tuple holding one row of observations: the covariance of that row alone."""
    impl_jit = njit(**NUMPY_ERRORS)(impl)
    return lambda m, y, rowvar, bias, ddof: impl_jit(np.asarray(m[0]), y, rowvar, bias, ddof)


def _select_covariance(m, y, rowvar, bias, ddof, correlate: bool):
    rows_are_variables = rowvar is True or (
        isinstance(rowvar, types.BooleanLiteral) and rowvar.literal_value
    )
    y, rowvar, bias, ddof = (as_type(t) for t in (y, rowvar, bias, ddof))
    with_y = not isinstance(y, types.NoneType)
    m_dims = _numeric_dimensions(m)
    y_dims = _numeric_dimensions(y) if with_y else 1
    if m_dims not in (0, 1, 2) or y_dims not in (0, 1, 2):
        return None
    complex_numbers = _holds_complex(m) or (with_y and _holds_complex(y))
    if m_dims == 2 and isinstance(m, types.BaseTuple) and len(m) == 1 and not with_y:
        if rows_are_variables:  # one variable, known while compiling: NumPy's scalar result
            kinds = (1, with_y, rowvar, bias, ddof, correlate, complex_numbers)
            impl = _select_covariance_of_arrays(*kinds)
            return None if impl is None else _of_one_row(impl)
    kinds = (m_dims, with_y, rowvar, bias, ddof, correlate, complex_numbers)
    if not (is_array(m) and (not with_y or is_array(y))):
        impl = _select_covariance_of_arrays(*kinds)
        return None if impl is None else _of_array_likes(impl)
    return _select_covariance_of_arrays(*kinds)


def _holds_complex(typ) -> bool:
    """A complex array, number, or sequence with a complex number in it."""
    typ = types.unliteral(typ)
    if isinstance(typ, types.Complex):
        return True
    if is_array(typ):
        return isinstance(typ.dtype, types.Complex)
    if isinstance(typ, types.BaseTuple):
        return any(_holds_complex(t) for t in typ.types)
    if isinstance(typ, types.List):
        return _holds_complex(typ.dtype)
    return False


def _select_covariance_of_arrays(
    m_dims, with_y, rowvar, bias, ddof, correlate: bool, complex_numbers: bool
):
    flags = (rowvar, bias)
    if not all(isinstance(types.unliteral(t), (types.Boolean, types.Integer)) for t in flags):
        return None
    ddof_given = not isinstance(ddof, types.NoneType)
    if ddof_given and not is_integer(ddof):
        return None
    scalar = m_dims <= 1 and not with_y
    return _cov_impl(with_y, ddof_given, correlate, scalar, complex_numbers)


@overload(np.cov, jit_options=NUMPY_ERRORS)
def _np_cov(m, y=None, rowvar=True, bias=False, ddof=None):
    return _select_covariance(m, y, rowvar, bias, ddof, correlate=False)


@functools.cache
def _corrcoef_from_cov(cov_impl):
    """One corrcoef per covariance implementation (typing may ask twice for the same types)."""
    impl = njit(**NUMPY_ERRORS)(cov_impl)

    def corrcoef(x, y, rowvar):
        return impl(x, y, rowvar, False, None)

    return corrcoef


@overload(np.corrcoef, jit_options=NUMPY_ERRORS)
def _np_corrcoef(x, y=None, rowvar=True):
    impl = _select_covariance(x, y, rowvar, False, None, correlate=True)
    return None if impl is None else _corrcoef_from_cov(impl)
