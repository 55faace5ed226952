"""NumPy features beyond the basics, against NumPy in value, dtype and shape on every layout:
ufuncs writing into `out=`, np.median, np.where(cond) / np.nonzero, n-d sort and argsort."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import for_types
from test_arrays_support import LAYOUTS, assert_same, live_allocations, sample

from ember import TypingError, njit

# ---------------------------------------------------------------------------- helpers


def blank(dtype, shape, layout):
    """A zeroed array of `shape` in `layout` (see `sample`), to receive an output."""
    out = sample(dtype, shape, layout)
    out[...] = 0
    return out


def with_specials(a):
    """`a` with NaN, infinities and a signed zero written into its first items, if it holds
    floats (in place, through its own layout)."""
    if a.dtype.kind in "fc":
        for index, value in zip(np.ndindex(a.shape), (np.nan, np.inf, -np.inf, -0.0)):
            a[index] = value
    return a


def assert_close_same_type(got, expected, exact: bool):
    """Same dtype and shape; values equal (exact) or within a few ulps (libm versus NumPy's
    own transcendental functions), NaN equal to NaN."""
    if exact:
        assert_same(got, expected)
        return
    assert got.dtype == expected.dtype and got.shape == expected.shape
    single = expected.dtype in (np.float32, np.complex64)
    np.testing.assert_allclose(got, expected, rtol=2e-6 if single else 1e-14, equal_nan=True)


# ---------------------------------------------------------------------------- ufuncs: out=

_FLOATS = [np.float32, np.float64]
_EXACT = {
    np.add,
    np.subtract,
    np.multiply,
    np.divide,
    np.minimum,
    np.maximum,
    np.fmin,
    np.fmax,
    np.absolute,
    np.sign,
    np.floor,
    np.ceil,
    np.isnan,
    np.isinf,
    np.isfinite,
    np.sqrt,
}
# complex division and magnitude: ember and NumPy each have their own algorithm
_EXACT_BUT_COMPLEX = {np.divide, np.absolute}


def is_exact(ufunc, dtype) -> bool:
    """Correctly rounded (or exact) in both ember and NumPy."""
    if np.dtype(dtype).kind == "c" and ufunc in _EXACT_BUT_COMPLEX:
        return False
    return ufunc in _EXACT


# each ufunc with the input dtypes to try; the output takes NumPy's result dtype
OUT_CASES = {
    np.add: [np.bool_, np.int8, np.uint16, np.int64, np.uint64, *_FLOATS, np.complex128],
    np.subtract: [np.int8, np.uint16, np.int64, *_FLOATS, np.complex64],
    np.multiply: [np.bool_, np.int32, np.uint64, *_FLOATS, np.complex128],
    np.divide: [np.int32, np.uint16, *_FLOATS, np.complex128],
    np.power: [np.int64, np.uint16, *_FLOATS],
    np.arctan2: [np.int32, *_FLOATS],
    np.minimum: [np.bool_, np.int8, np.uint16, np.int64, *_FLOATS],
    np.maximum: [np.bool_, np.int16, np.uint64, *_FLOATS],
    np.fmin: [np.int32, *_FLOATS],
    np.fmax: [np.uint8, *_FLOATS],
    **{u: [np.int16, np.int32, *_FLOATS]
       for u in (np.sqrt, np.exp, np.log, np.log1p, np.expm1, np.sin, np.cos, np.tan,
                 np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh)},
    np.absolute: [np.bool_, np.int8, np.int64, np.uint16, *_FLOATS, np.complex128],
    np.sign: [np.int8, np.int64, np.uint32, *_FLOATS],
    np.floor: [np.int32, *_FLOATS],
    np.ceil: [np.uint8, *_FLOATS],
    np.isnan: [np.int8, *_FLOATS, np.complex128],
    np.isinf: [np.int64, *_FLOATS, np.complex64],
    np.isfinite: [np.uint16, *_FLOATS, np.complex128],
}  # fmt: skip
_OUT_ARGUMENT = {
    "positional": {1: lambda u: lambda x, o: u(x, o), 2: lambda u: lambda x, y, o: u(x, y, o)},
    "keyword": {1: lambda u: lambda x, o: u(x, out=o), 2: lambda u: lambda x, y, o: u(x, y, out=o)},
}
_JITTED_OUT: dict = {}


def jitted_out(ufunc, style):
    key = (ufunc, style)
    if key not in _JITTED_OUT:
        _JITTED_OUT[key] = njit(_OUT_ARGUMENT[style][ufunc.nin](ufunc))
    return _JITTED_OUT[key]


def taking_turns(dtypes: list, others: list) -> list:
    """(dtype, other) pairs in which every dtype and every other value appear, the others
    taking turns: each pairing compiles a new specialization, so not all of them are tried."""
    count = max(len(dtypes), len(others))
    return [(dtypes[k % len(dtypes)], others[k % len(others)]) for k in range(count + 1)]


def ufunc_inputs(ufunc, dtype, layout, shape=(3, 4)):
    inputs = [with_specials(sample(dtype, shape, layout, seed)) for seed in range(ufunc.nin)]
    if ufunc is np.power and dtype not in _FLOATS:
        inputs[1] = inputs[1] % 4  # no negative integer powers
    return inputs


def _out_cases():
    """Each ufunc with each of its dtypes, the layouts and call styles taking turns (every
    pairing compiles anew, and layouts are handled by code shared by all ufuncs)."""
    layouts = [("C", "C"), ("F", "F"), ("A", "N"), ("N", "F")]
    turn = 0
    for ufunc, dtypes in OUT_CASES.items():
        for dtype in dtypes:
            layout_in, layout_out = layouts[turn % len(layouts)]
            style = ("positional", "keyword")[turn // len(layouts) % 2]
            turn += 1
            yield pytest.param(ufunc, dtype, layout_in, layout_out, style,
                               id=f"{ufunc.__name__}-{np.dtype(dtype)}-{layout_in}"
                                  f"{layout_out}-{style}")  # fmt: skip


@pytest.mark.parametrize(("ufunc", "dtype", "layout_in", "layout_out", "style"), list(_out_cases()))
def test_ufunc_writes_into_out_and_returns_it(ufunc, dtype, layout_in, layout_out, style):
    inputs = ufunc_inputs(ufunc, dtype, layout_in)
    with np.errstate(all="ignore"):
        expected = ufunc(*inputs)
    out = blank(expected.dtype, expected.shape, layout_out)
    result = for_types(jitted_out(ufunc, style), *inputs, out)(*inputs, out)
    assert result is out
    assert_close_same_type(out, expected, is_exact(ufunc, dtype))


@pytest.mark.parametrize(
    ("ufunc", "in_dtype", "out_dtype"),
    [
        (np.add, np.int8, np.float64),  # computed in int8 (wrapping), then cast, as NumPy
        (np.add, np.float64, np.float32),
        (np.multiply, np.int64, np.int8),
        (np.sqrt, np.float32, np.float64),
        (np.sqrt, np.float64, np.complex128),
        (np.isnan, np.float64, np.float64),
        (np.absolute, np.complex128, np.float32),
        (np.maximum, np.uint16, np.int32),
    ],
)
def test_out_casts_with_same_kind(ufunc, in_dtype, out_dtype):
    inputs = [np.full(5, 100, in_dtype) + np.arange(5).astype(in_dtype)] * ufunc.nin
    expected = np.zeros(5, out_dtype)
    ufunc(*inputs, out=expected)
    out = np.zeros(5, out_dtype)
    assert jitted_out(ufunc, "keyword")(*inputs, out) is out
    assert_same(out, expected)


@pytest.mark.parametrize(
    ("ufunc", "in_dtype", "out_dtype"),
    [
        (np.add, np.float64, np.int64),
        (np.divide, np.int64, np.int64),
        (np.add, np.int64, np.uint8),
        (np.add, np.int8, np.bool_),
        (np.sqrt, np.complex128, np.float64),
        (np.absolute, np.float64, np.int32),
    ],
)
def test_out_that_numpy_cannot_cast_to_is_a_typing_error(ufunc, in_dtype, out_dtype):
    inputs = [np.ones(3, in_dtype)] * ufunc.nin
    with pytest.raises(TypeError, match="same_kind"):
        ufunc(*inputs, out=np.zeros(3, out_dtype))
    with pytest.raises(TypingError, match=f"Cannot cast ufunc '{ufunc.__name__}' output"):
        jitted_out(ufunc, "positional")(*inputs, np.zeros(3, out_dtype))


def test_inputs_broadcast_to_the_shape_of_out():
    row, column = np.arange(4.0), np.arange(3.0).reshape(3, 1)
    for x, y in ((row, column), (row, 2.5), (1.5, 2.5), (row[:1], column)):
        expected = np.add(x, y, out=np.zeros((2, 3, 4)))
        out = blank(np.float64, (2, 3, 4), "N")
        assert jitted_out(np.add, "keyword")(x, y, out) is out
        assert_same(out, expected)


@pytest.mark.parametrize(
    ("x_shape", "out_shape"),
    [((3,), (4,)), ((2, 3), (1, 3)), ((2, 3), (3, 3)), ((4, 2), (4, 0))],
)
def test_out_of_a_wrong_shape_is_a_value_error(x_shape, out_shape):
    x = np.ones(x_shape)
    with pytest.raises(ValueError):
        np.add(x, 1.0, out=np.zeros(out_shape))
    with pytest.raises(ValueError, match="broadcast"):
        jitted_out(np.add, "keyword")(x, 1.0, np.zeros(out_shape))


def test_out_of_fewer_dimensions_than_the_inputs_is_a_typing_error():
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        np.sqrt(np.ones((1, 3)), out=np.zeros(3))
    with pytest.raises(TypingError, match="non-broadcastable output operand"):
        jitted_out(np.sqrt, "positional")(np.ones((1, 3)), np.zeros(3))


@njit
def add_out_none(x, y):
    return np.add(x, y, out=None)


@njit
def add_to_scalar(x, o):
    return np.add(x, 1, out=o)


def test_out_none_gives_a_new_array_and_out_must_be_an_array():
    assert_same(add_out_none(np.arange(3), 2), np.arange(3) + 2)
    with pytest.raises(TypingError, match="out must be an array"):
        add_to_scalar(np.arange(3.0), 1.0)


READ_ONLY = np.zeros(3)
READ_ONLY.flags.writeable = False


@njit
def add_into_global():
    return np.add(np.ones(3), 1.0, out=READ_ONLY)


def test_read_only_out_is_a_typing_error():
    with pytest.raises(TypingError, match="read-only"):
        add_into_global()


@njit
def fused_into_out(a, b, c, o):
    return np.add(a * b, c, out=o)


@njit
def fused_into_out_positional(a, b, c, o):
    return np.sqrt(a * b + c, o)


@njit
def out_call_feeds_an_expression(a, b, o):
    return np.multiply(a, b, o) + 1.0


@njit
def fused_in_place(a):
    return np.add(a * 2.0, a.T, a)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_array_expressions_write_into_out(layout):
    a, b, c = (sample(np.float64, (4, 4), layout, seed) for seed in range(3))
    out = blank(np.float64, (4, 4), layout)
    assert fused_into_out(a, b, c, out) is out
    assert_same(out, a * b + c)
    assert fused_into_out_positional(np.abs(a), b * b, 1.0, out) is out
    assert_same(out, np.sqrt(np.abs(a) * (b * b) + 1.0))
    result = out_call_feeds_an_expression(a, b, out)
    assert_same(out, a * b)  # the call that writes `out` is not fused away
    assert_same(result, a * b + 1.0)


def test_fused_output_overlapping_its_inputs_matches_numpy():
    a = sample(np.float64, (4, 4), "C")
    expected = a.copy()
    np.add(expected * 2.0, expected.T, expected)
    got = a.copy()
    assert fused_in_place(got) is got
    assert_same(got, expected)


@njit
def add_transposed(a):
    return np.add(a, a.T, out=a)


@njit
def add_transposed_in_place(a):
    a += a.T
    return a


@pytest.mark.parametrize("function", [add_transposed, add_transposed_in_place])
def test_out_that_is_a_permuted_view_of_an_input_reads_a_copy(function):
    a = sample(np.int64, (5, 5), "C")
    expected = a.copy()
    expected += expected.T
    assert_same(function(a), expected)


def test_ufunc_out_does_not_leak():
    a, b = sample(np.float64, (6, 5), "A"), sample(np.float64, (6, 5), "F", 1)
    out = np.zeros((6, 5))
    fused_into_out(a, b, a, out)
    add_transposed(np.ones((3, 3)))
    with live_allocations():
        for _ in range(50):
            fused_into_out(a, b, a, out)
            jitted_out(np.add, "keyword")(a, b, out)
            out_call_feeds_an_expression(a, b, out)
            add_transposed(np.ones((3, 3)))


# ---------------------------------------------------------------------------- np.median


def returned_dtype(function, *args):
    """NumPy's dtype for the scalar type the compiled `function` returns for `args`."""
    from ember.dispatcher.typeof import typeof

    function(*args)  # compiled for these argument types
    compiled = function.overloads[tuple(typeof(a) for a in args)]
    return np.dtype(str(compiled.signature.return_type).replace("bool", "bool_"))


@njit
def median(a):
    return np.median(a)


@njit
def median_along(a, axis):
    return np.median(a, axis=axis)


def assert_median(a, expected):
    """ember's median of `a` equals NumPy's `expected`, in value and dtype; `a` unchanged."""
    before = a.copy()
    compiled = for_types(median, a)
    got = compiled(a)
    assert returned_dtype(compiled, a) == np.asarray(expected).dtype
    np.testing.assert_equal(got, expected)
    assert_same(a, before)


REAL_DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float32,
               np.float64]  # fmt: skip


@pytest.mark.parametrize(("dtype", "layout"), taking_turns(REAL_DTYPES, LAYOUTS), ids=str)
@pytest.mark.parametrize("shape", [(1,), (7,), (8,), (3, 4), (2, 3, 5)], ids=str)
def test_median_of_the_whole_array(dtype, layout, shape):
    a = sample(dtype, shape, layout)
    assert_median(a, np.median(a))


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0,), (0, 3)], ids=str)
def test_median_of_an_empty_array_is_nan(dtype, shape):
    a = np.zeros(shape, dtype)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = np.median(a)
    assert_median(a, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_median_with_nan_is_nan(dtype, layout):
    a = sample(dtype, (5, 6), layout)
    a[3, 2] = np.nan
    assert_median(a, np.median(a))


@pytest.mark.parametrize(
    "values",
    [
        np.arange(5000.0),
        np.arange(5000.0)[::-1],
        np.full(4001, 2.5),
        np.tile([3, 1, 2], 1500).astype(np.int16),
        np.random.default_rng(1).integers(-3, 4, 4096),
        np.random.default_rng(2).standard_normal(3001).astype(np.float32),
        np.array([np.inf, -np.inf, 1.0, -0.0, 0.0, np.inf]),
    ],
    ids=["ascending", "descending", "constant", "periodic", "ties", "normal32", "infinities"],
)
def test_median_of_larger_and_adversarial_inputs(values):
    assert_median(values, np.median(values))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_median_along_an_axis(dtype, layout, axis):
    a = sample(dtype, (4, 5, 6), layout)
    if dtype in (np.float32, np.float64):
        a[1, 2, 3] = np.nan
    before = a.copy()
    assert_same(for_types(median_along, a, axis)(a, axis), np.median(a, axis=axis))
    assert_same(a, before)
    matrix = a[0]
    along_rows = for_types(median_along, matrix, axis % 2)
    assert_same(along_rows(matrix, axis % 2), np.median(matrix, axis=axis % 2))


def test_median_along_an_axis_of_a_vector_and_of_empty_lanes():
    v = sample(np.int32, (9,), "N")
    assert returned_dtype(median_along, v, 0) == np.float64
    assert median_along(v, -1) == np.median(v, axis=-1)
    empty = np.zeros((2, 0))
    assert_same(median_along(empty, 0), np.median(empty, axis=0))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = np.median(empty, axis=1)
    assert_same(median_along(empty, 1), expected)


def test_median_errors_are_clear():
    with pytest.raises(np.exceptions.AxisError):
        median_along(np.ones((2, 3)), 2)
    with pytest.raises(np.exceptions.AxisError):
        median_along(np.ones(3), -2)
    with pytest.raises(TypingError, match="np.median of complex arrays is not supported"):
        median(np.ones(3, np.complex128))
    a = np.arange(6.0).reshape(2, 3)  # a tuple of axes: NumPy's answer (arrays10)
    assert median_along(a, (0, 1)) == np.median(a, (0, 1))


@given(
    st.lists(
        st.one_of(st.floats(allow_nan=False, allow_infinity=True, width=64), st.just(np.nan)),
        max_size=60,
    ),
    st.sampled_from([np.float32, np.float64]),
)
@settings(max_examples=200, deadline=None)
def test_median_of_random_floats_matches_numpy(values, dtype):
    with np.errstate(all="ignore"):
        a = np.array(values, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.median(a)
    got = median(a)
    assert returned_dtype(median, a) == expected.dtype
    np.testing.assert_equal(got, expected)


@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=40))
@settings(max_examples=150, deadline=None)
def test_median_of_random_int64_matches_numpy(values):
    a = np.array(values, np.int64)
    assert median(a) == np.median(a)


def test_median_does_not_leak():
    a = sample(np.float64, (6, 7), "F")
    median(a)
    median_along(a, 1)
    with live_allocations():
        for _ in range(50):
            median(a)
            median_along(a, 0)
            median_along(a, 1)


# ---------------------------------------------------------------------------- np.where(cond)

NONZERO = {
    "np.where": njit(lambda a: np.where(a)),
    "np.nonzero": njit(lambda a: np.nonzero(a)),
    "a.nonzero": njit(lambda a: a.nonzero()),
}


@pytest.mark.parametrize(
    ("dtype", "layout"),
    taking_turns([np.bool_, np.int8, np.uint64, np.float32, np.complex128], LAYOUTS),
    ids=str,
)
@pytest.mark.parametrize("shape", [(9,), (4, 5), (2, 3, 4), (0,), (3, 0)], ids=str)
@pytest.mark.parametrize("name", NONZERO)
def test_indices_of_nonzero_items(name, dtype, layout, shape):
    a = sample(dtype, shape, layout) if all(shape) else np.zeros(shape, dtype)
    assert_same(for_types(NONZERO[name], a)(a), np.nonzero(a))


@njit
def where_mask(a, b):
    return np.where(a > b)


def test_where_of_a_condition_and_the_three_argument_form_still_works():
    a, b = sample(np.float64, (5, 4), "F"), sample(np.float64, (5, 4), "N", 1)
    assert_same(where_mask(a, b), np.where(a > b))
    three = njit(lambda c, x, y: np.where(c, x, y))
    assert_same(three(a > b, a, 0.5), np.where(a > b, a, 0.5))


def test_where_with_nan_counts_nan_as_true():
    a = np.array([0.0, np.nan, -0.0, 2.0])
    assert_same(NONZERO["np.where"](a), np.where(a))


# ---------------------------------------------------------------------------- sort, argsort


def with_ties_and_nan(dtype, shape, layout, seed=0):
    """Few distinct values (many ties), plus NaNs in float arrays."""
    a = sample(dtype, shape, layout, seed)
    if a.dtype.kind in "iu":
        a //= 7
    elif a.dtype.kind == "f":
        a[...] = np.round(a / 2)
        for count, index in enumerate(np.ndindex(a.shape)):
            if count % 5 == 3:
                a[index] = np.nan
    return a


def copy_in(layout, a):
    """A copy of `a` in `layout` (see `sample`)."""
    b = blank(a.dtype, a.shape, layout)
    b[...] = a
    return b


ARGSORT = {
    "np.argsort": njit(lambda a, axis: np.argsort(a, axis=axis)),
    "a.argsort": njit(lambda a, axis: a.argsort(axis=axis)),
    "np.argsort stable": njit(lambda a, axis: np.argsort(a, axis, kind="stable")),
    "a.argsort mergesort": njit(lambda a, axis: a.argsort(axis, "mergesort")),
}


@pytest.mark.parametrize("name", ARGSORT)
@pytest.mark.parametrize(
    ("dtype", "layout"),
    taking_turns([np.bool_, np.int8, np.uint32, np.int64, *_FLOATS], LAYOUTS),
    ids=str,
)
@pytest.mark.parametrize(("shape", "axis"), [((11,), 0), ((11,), -1), ((4, 7), -1), ((4, 7), 0),
                                             ((3, 4, 5), 1), ((3, 4, 5), -1), ((2, 0, 3), 2)],
                         ids=str)  # fmt: skip
def test_argsort_along_an_axis_is_numpys_stable_argsort(name, dtype, layout, shape, axis):
    # ember's argsort is always a stable merge sort, so it equals NumPy's stable one on ties
    a = with_ties_and_nan(dtype, shape, layout) if 0 not in shape else np.zeros(shape, dtype)
    before = a.copy()
    argsort = for_types(ARGSORT[name], a, axis)
    assert_same(argsort(a, axis), np.argsort(a, axis=axis, kind="stable"))
    assert_same(a, before)


def test_argsort_without_an_axis_and_flattened():
    a = with_ties_and_nan(np.float64, (3, 5), "F")
    assert_same(njit(lambda a: a.argsort())(a), np.argsort(a, kind="stable"))
    assert_same(njit(lambda a: np.argsort(a, axis=None))(a), np.argsort(a, None, kind="stable"))


SORT = {
    "np.sort": njit(lambda a, axis: np.sort(a, axis=axis)),
    "np.sort quicksort": njit(lambda a, axis: np.sort(a, axis, kind="quicksort")),
    "np.sort stable": njit(lambda a, axis: np.sort(a, axis=axis, kind="stable")),
}


def _sorted_in_place(a, axis):
    a.sort(axis=axis)
    return a


def _sorted_in_place_by_kind(a, axis):
    a.sort(axis, "mergesort")
    return a


SORT_IN_PLACE = {
    "a.sort": njit(_sorted_in_place),
    "a.sort mergesort": njit(_sorted_in_place_by_kind),
}


@pytest.mark.parametrize(
    ("dtype", "layout"), taking_turns([np.bool_, np.int16, np.uint64, *_FLOATS], LAYOUTS), ids=str
)
@pytest.mark.parametrize(("shape", "axis"), [((40,), 0), ((40,), -1), ((5, 30), 0), ((5, 30), 1),
                                             ((3, 4, 25), 0), ((3, 25, 4), -2), ((2, 0), 0)],
                         ids=str)  # fmt: skip
def test_sort_along_an_axis(dtype, layout, shape, axis):
    a = with_ties_and_nan(dtype, shape, layout) if 0 not in shape else np.zeros(shape, dtype)
    expected = np.sort(a, axis=axis)
    turn = len(shape) + axis  # the spellings take turns: each one compiles a sort anew
    sort = for_types(list(SORT.values())[turn % len(SORT)], a, axis)
    assert_same(sort(a, axis), expected)
    b = copy_in(layout, a)
    sort_in_place = for_types(list(SORT_IN_PLACE.values())[turn % len(SORT_IN_PLACE)], b, axis)
    assert sort_in_place(b, axis) is b
    assert_same(b, expected)


def test_sort_with_axis_none_flattens():
    a = with_ties_and_nan(np.float32, (4, 6), "N")
    assert_same(njit(lambda a: np.sort(a, axis=None))(a), np.sort(a, axis=None))


@njit
def sort_by_kind(a):
    return np.sort(a, kind="bogosort")


@njit
def sort_axis(a, axis):
    return np.sort(a, axis)


def test_sort_errors_are_clear():
    with pytest.raises(TypingError, match="sort kind must be one of .*, not 'bogosort'"):
        sort_by_kind(np.ones(3))
    with pytest.raises(TypingError, match='"kind" must be a string literal'):
        njit(lambda a, kind: np.sort(a, kind=kind))(np.ones(3), "stable")
    with pytest.raises(np.exceptions.AxisError):
        sort_axis(np.ones((2, 3)), 2)
    with pytest.raises(np.exceptions.AxisError):
        ARGSORT["np.argsort"](np.ones(3), 1)
    with pytest.raises(TypingError, match="axis must be None or an integer"):
        sort_axis(np.ones(3), 1.5)


@given(
    st.lists(st.one_of(st.floats(width=32), st.just(np.nan), st.sampled_from([0.0, -0.0, 1.0]))),
    st.sampled_from([np.float32, np.float64]),
)
@settings(max_examples=150, deadline=None)
def test_argsort_of_random_floats_is_numpys_stable_argsort(values, dtype):
    a = np.array(values, dtype)
    assert_same(ARGSORT["np.argsort"](a, -1), np.argsort(a, kind="stable"))
    assert_same(SORT["np.sort"](a, -1), np.sort(a))


def test_sort_and_argsort_do_not_leak():
    a = with_ties_and_nan(np.float64, (6, 7), "F")
    for function in (*SORT.values(), *ARGSORT.values(), *SORT_IN_PLACE.values()):
        function(a.copy(), 0)
    with live_allocations():
        for _ in range(20):
            for function in (*SORT.values(), *ARGSORT.values(), *SORT_IN_PLACE.values()):
                function(a.copy(), 0)
                function(a.copy(), 1)
            NONZERO["np.where"](a)
