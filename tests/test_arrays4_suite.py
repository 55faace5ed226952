"""arrays4: records returned between compiled functions, and NumPy functions checked against
NumPy on many inputs (dtypes, C/F/strided layouts, empty arrays, NaN)."""

import numpy as np
import pytest

from ember import njit
from tests.oracle import assert_frees_all

POINT = np.dtype([("a", np.int64), ("b", np.float64)])


# ---------------------------------------------------------------- records returned between jits


@njit
def _local_point(n):
    points = np.zeros(n, POINT)
    for i in range(n):
        points[i].a = i * 7
        points[i].b = i * 0.5
    return points[n - 1]


@njit
def _point_of(points, i):
    return points[i]


def test_record_of_a_local_array_survives_its_return_to_a_compiled_caller():
    @njit
    def caller(n):
        r = _local_point(n)
        reuse = np.full(3 * n, 99)  # would take the freed array's memory
        more = np.ones(1000)
        return r.a, r.b, reuse.sum() + more.sum()

    for n in (1, 2, 5, 40):
        assert caller(n) == ((n - 1) * 7, (n - 1) * 0.5, 99 * 3 * n + 1000.0)


def test_record_returned_through_two_compiled_callers():
    @njit
    def middle(n):
        return _local_point(n)

    @njit
    def outer(n):
        r = middle(n)
        junk = np.full(8, -1)
        return r.a + junk[0] + 1, r.b

    assert outer(4) == (21, 1.5)
    assert middle(4).a == 21  # to Python: a copy of the bytes the callee kept


def test_record_of_an_argument_still_writes_through_to_it():
    @njit
    def set_through(points, i, value):
        r = _point_of(points, i)
        r.a = value

    points = np.zeros(4, POINT)
    set_through(points, 2, 17)
    assert points["a"].tolist() == [0, 0, 17, 0]
    reversed_points = np.zeros(4, POINT)[::-1]  # negative strides: still the argument's bytes
    set_through(reversed_points, 0, 5)
    assert reversed_points["a"].tolist() == [5, 0, 0, 0]


def test_record_of_a_record_argument_writes_through():
    @njit
    def same(r):
        return r

    @njit
    def set_via_same(points):
        same(points[1]).b = 2.5

    points = np.zeros(3, POINT)
    set_via_same(points)
    assert points["b"].tolist() == [0.0, 2.5, 0.0]


def test_record_returns_in_a_loop_free_their_arrays():
    @njit
    def total(n):
        s = 0
        for k in range(1, n):
            s += _local_point(k).a
        return s

    assert total(6) == sum((k - 1) * 7 for k in range(1, 6))
    assert_frees_all(total, lambda: 6)


# ---------------------------------------------------------------- inputs of many kinds

_RNG = np.random.default_rng(1234)
_CUBE = _RNG.standard_normal((3, 4, 5))
_GRID = np.arange(12.0).reshape(3, 4)


def _with_nan(a):
    a = a.copy()
    a[a > 6] = np.nan
    return a


ARRAYS = {
    "C": _GRID,
    "F": _GRID.T,
    "cube": _CUBE,
    "strided": _CUBE[:, ::2, ::-1],
    "fortran_cube": np.asfortranarray(_CUBE),
    "int32": np.arange(12, dtype=np.int32).reshape(4, 3),
    "float32": (_GRID * 1.37).astype(np.float32),
    "complex": _GRID + 1j * _GRID[::-1],
    "empty_rows": np.empty((0, 3)),
    "nan": _with_nan(_GRID),
    "bool": (_GRID % 3 == 0),
}


def _agree(py_func, a, rtol=1e-12):
    """The compiled result equals NumPy's: shape, dtype, values (NaN = NaN), or the same
    exception type."""
    try:
        expected = py_func(a)
    except Exception as exc:  # noqa: BLE001 - the compiled function must raise the same
        with pytest.raises(type(exc)):
            njit(py_func)(a)
        return
    got = njit(py_func)(a)
    scalar = not isinstance(expected, np.ndarray)  # (boxed as a Python number, as in Numba)
    expected, got = np.asarray(expected), np.asarray(got)
    assert got.shape == expected.shape
    assert got.dtype.kind == expected.dtype.kind if scalar else got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=rtol, equal_nan=True)


AXIS_FUNCTIONS = {
    "var_axis0": lambda a: np.var(a, axis=0),
    "var_last": lambda a: np.var(a, axis=-1),
    "std_ddof": lambda a: np.std(a, axis=1, ddof=1),
    "var_method": lambda a: a.var(axis=0),
    "std_method": lambda a: a.std(axis=1, ddof=1),
    "nanvar": lambda a: np.nanvar(a, axis=0),
    "nanstd": lambda a: np.nanstd(a, axis=1),
    "average": lambda a: np.average(a, axis=1),
    "weighted_average": lambda a: np.average(a, axis=0, weights=np.arange(1.0, a.shape[0] + 1)),
    "weighted_same_shape": lambda a: np.average(a, axis=1, weights=np.ones(a.shape) * 2),
    "flip_axis": lambda a: np.flip(a, 0),
    "flip_last": lambda a: np.flip(a, axis=-1),
    "roll_axis": lambda a: np.roll(a, 2, axis=1),
    "roll_back": lambda a: np.roll(a, -1, 0),
    "repeat_axis": lambda a: np.repeat(a, 2, axis=1),
    "repeat_rows": lambda a: np.repeat(a, 3, axis=0),
    "repeat_method": lambda a: a.repeat(2, axis=-1),
    "repeat_counts": lambda a: np.repeat(a, np.arange(a.shape[0]), axis=0),
    "concatenate_flat": lambda a: np.concatenate((a, a[:1]), axis=None),
    "ravel_f": lambda a: np.ravel(a, order="F"),
    "ravel_c": lambda a: np.ravel(a, "C"),
    "flatten_f": lambda a: a.flatten("F"),
    "squeeze_axis": lambda a: np.squeeze(a[:1], axis=0),
    "squeeze_method": lambda a: a[:, :1].squeeze(1),
    "squeeze_not_one": lambda a: np.squeeze(a, axis=0),
    "astype_keeps_order": lambda a: a.astype(np.complex128),
    "asarray_dtype": lambda a: np.asarray(a, np.complex64),
}


# (every kind costs one compilation per function: the kinds cover layouts, dtypes, empty, NaN)
AXIS_KINDS = ["F", "strided", "int32", "float32", "complex", "empty_rows", "nan"]


@pytest.mark.parametrize("kind", AXIS_KINDS)
@pytest.mark.parametrize("name", AXIS_FUNCTIONS)
def test_axis_forms_match_numpy(name, kind):
    a = ARRAYS[kind]
    if name == "average" and a.size == 0:
        pytest.skip("NumPy's own ZeroDivisionError comes from Python's float division")
    if name.startswith("nan") and a.dtype.kind == "b":
        pytest.skip("NumPy refuses booleans in nanvar (a ufunc loop error)")
    rtol = 2e-6 if a.dtype == np.float32 else 1e-10  # sums in another order than NumPy's
    _agree(AXIS_FUNCTIONS[name], a, rtol)


MATRIX_FUNCTIONS = {
    "diagonal": lambda a: a.diagonal(),
    "diagonal_above": lambda a: a.diagonal(1),
    "diagonal_below": lambda a: np.diagonal(a, -1),
    "diagonal_outside": lambda a: np.diagonal(a, 7),
    "trace_method": lambda a: a.trace(),
    "trace_offset": lambda a: a.trace(-1),
}


@pytest.mark.parametrize("kind", [k for k, a in ARRAYS.items() if a.ndim == 2])
@pytest.mark.parametrize("name", MATRIX_FUNCTIONS)
def test_matrix_methods_match_numpy(name, kind):
    _agree(MATRIX_FUNCTIONS[name], ARRAYS[kind])


def test_searchsorted_method():
    v = np.array([1.0, 2.0, 2.0, 5.0])

    @njit
    def both(v, x):
        return v.searchsorted(x), v.searchsorted(x, side="right")

    for x in (0.0, 2.0, 4.0, 9.0):
        assert both(v, x) == (np.searchsorted(v, x), np.searchsorted(v, x, side="right"))


def test_axis_out_of_range_is_numpys_axis_error():
    for func in (lambda a: np.var(a, axis=2), lambda a: np.flip(a, -3), lambda a: np.roll(a, 1, 5)):
        with pytest.raises(np.exceptions.AxisError):
            njit(func)(_GRID)


@pytest.mark.parametrize("kind", ["C", "F", "cube", "fortran_cube", "strided"])
def test_copies_keep_numpys_layout(kind):
    """order='K' (NumPy's default) keeps a Fortran array Fortran: strides as NumPy's."""
    a = ARRAYS[kind]
    for func in (
        lambda a: a.astype(np.float32),
        lambda a: np.asarray(a, np.complex64),
        lambda a: np.round(a, 1),
        lambda a: np.nan_to_num(a),
        lambda a: np.argwhere(a > 0),
    ):
        expected, got = func(a), njit(func)(a)
        np.testing.assert_array_equal(got, expected)
        if a.flags.f_contiguous or a.flags.c_contiguous or func.__code__.co_names[-1] == "argwhere":
            assert got.strides == expected.strides


def test_axis_forms_free_their_memory():
    assert_frees_all(njit(lambda a: np.var(a, axis=1)), lambda: _CUBE.copy())
    assert_frees_all(njit(lambda a: np.repeat(a, 2, axis=0)), lambda: _GRID.copy())
    assert_frees_all(njit(lambda a: np.roll(a, 1, axis=1)), lambda: _GRID.copy())


def test_transpose_axes_by_keyword():
    a = _CUBE

    @njit
    def forms(a):
        return (
            np.transpose(a, axes=None),
            np.transpose(a, axes=(1, 0, 2)),
            a.transpose(axes=(2, 0, 1)),
            np.transpose(a, (2, 1, 0)),
        )

    for got, expected in zip(
        forms(a), (a.T, np.transpose(a, (1, 0, 2)), a.transpose(2, 0, 1), a.T)
    ):
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def test_reshape_to_another_size_names_the_size():
    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        njit(lambda a: a.reshape((5,)))(_GRID)


def test_complex_to_real_conversion_is_refused_clearly():
    """NumPy drops the imaginary part with a ComplexWarning; ember asks for .real instead."""
    from ember.errors import TypingError

    for func in (lambda a: np.asarray(a, np.float32), lambda a: a.astype(np.float64)):
        with pytest.raises(TypingError, match="real"):
            njit(func)(ARRAYS["complex"])


# ---------------------------------------------------------------- keepdims, nan* axes, order, lists

_WITH_NAN_ROWS = _with_nan(_GRID + 1)
_WITH_NAN_ROWS[0, :] = np.nan  # an all-NaN row: nanmax and nanmin give NaN there

MORE_FORMS = {
    "max_keepdims": lambda a: np.max(a, axis=0, keepdims=True),
    "sum_keepdims": lambda a: np.sum(a, axis=1, keepdims=True),
    "sum_keepdims_all": lambda a: np.sum(a, keepdims=True),
    "sum_method_keepdims": lambda a: a.sum(axis=1, keepdims=True),
    "argmax_keepdims": lambda a: np.argmax(a, axis=1, keepdims=True),
    "mean_keepdims_false": lambda a: np.mean(a, axis=1, keepdims=False),
    "vector_keepdims": lambda a: np.sum(a[0], axis=0, keepdims=True),
    "std_keepdims": lambda a: np.std(a, axis=0, keepdims=True),
    "median_keepdims": lambda a: np.median(a, axis=0, keepdims=True),
    "nansum_axis": lambda a: np.nansum(a, axis=0),
    "nanmax_axis": lambda a: np.nanmax(a, axis=1),
    "nanmin_axis": lambda a: np.nanmin(a, 0),
    "nanmean_axis": lambda a: np.nanmean(a, axis=1),
    "nanprod_axis": lambda a: np.nanprod(a, axis=1),
    "nanmax_vector_axis": lambda a: np.nanmax(a[1], 0),
    "nansum_vector_axis": lambda a: np.nansum(a[0], -1),
    "concatenate_list": lambda a: np.concatenate([a, a]),
    "concatenate_list_axis": lambda a: np.concatenate([a, a[:, :2]], axis=1),
    "vstack_vectors": lambda a: np.vstack([a[0], a[1]]),
    "vstack_list": lambda a: np.vstack([a, a]),
    "hstack_list": lambda a: np.hstack([a, a]),
    "stack_list": lambda a: np.stack([a, a], axis=1),
}
MORE_INPUTS = {
    "float": _GRID + 1,
    "nan": _WITH_NAN_ROWS,
    "int32": np.arange(12, dtype=np.int32).reshape(3, 4),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("kind", MORE_INPUTS)
@pytest.mark.parametrize("name", MORE_FORMS)
def test_more_forms_match_numpy(name, kind):
    _agree(MORE_FORMS[name], MORE_INPUTS[kind])


def test_fortran_order_creation():
    @njit
    def made():
        return (
            np.zeros((2, 3), order="F"),
            np.zeros((2, 3), np.int32, "F"),
            np.ones((2, 3), order="F"),
            np.full((2, 3), 1.5, order="F"),
            np.empty((4, 2), order="F"),
            np.zeros((2, 3), order="C"),
        )

    expected = (
        np.zeros((2, 3), order="F"),
        np.zeros((2, 3), np.int32, "F"),
        np.ones((2, 3), order="F"),
        np.full((2, 3), 1.5, order="F"),
        np.empty((4, 2), order="F"),
        np.zeros((2, 3)),
    )
    for got, want in zip(made(), expected):
        assert got.strides == want.strides and got.dtype == want.dtype
        if want.flags.writeable and got.shape != (4, 2):
            np.testing.assert_array_equal(got, want)


def test_keepdims_must_be_constant():
    from ember.errors import TypingError

    with pytest.raises(TypingError):
        njit(lambda a, k: np.sum(a, axis=0, keepdims=k))(_GRID, True)


def test_concatenate_list_mismatch_raises_value_error():
    with pytest.raises(ValueError, match="must match exactly"):
        njit(lambda a: np.concatenate([a, a[:, :2]], axis=0))(_GRID)


UNIQUE_INPUTS = {
    "ints": np.array([3, 1, 2, 3, 1, 5]),
    "nan_matrix": np.array([[2.0, np.nan], [np.nan, 2.0]]),
    "empty": np.array([], dtype=np.int64),
    "bools": np.array([True, False, True]),
}
UNIQUE_FORMS = {
    "counts": lambda a: np.unique(a, return_counts=True),
    "index": lambda a: np.unique(a, return_index=True),
    "inverse": lambda a: np.unique(a, return_inverse=True),
    "all": lambda a: np.unique(a, True, True, True),
    "none_given": lambda a: np.unique(a, return_counts=False),
}


@pytest.mark.parametrize("kind", UNIQUE_INPUTS)
@pytest.mark.parametrize("name", UNIQUE_FORMS)
def test_unique_extras_match_numpy(name, kind):
    a = UNIQUE_INPUTS[kind]
    expected, got = UNIQUE_FORMS[name](a), njit(UNIQUE_FORMS[name])(a)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
