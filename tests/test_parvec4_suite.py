"""parvec4: the methods of NumPy's own ufuncs in jitted code (reduce, reduceat, at, accumulate,
outer) against the same methods run by NumPy; Numba's names for identities, contexts and jit
options; the exception kinds Numba raises for empty lists and unsupported dtypes."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember import guvectorize, int64, njit, vectorize
from ember.errors import NumbaNotImplementedError, TypingError
from tests.oracle import assert_frees_all

_SCALAR_KINDS = {bool: "b", int: "iu", float: "f", complex: "c"}


def _assert_same_array(got, expected):
    """Equal arrays of one dtype; a scalar result (boxed as Python's int, float, bool, as
    Numba's are) of NumPy's kind and value."""
    if not isinstance(got, np.ndarray):
        assert np.asarray(expected).ndim == 0
        assert np.asarray(expected).dtype.kind in _SCALAR_KINDS[type(got)], (got, expected)
        assert got == expected
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@njit
def reduce_axis0(ufunc_array):
    return np.add.reduce(ufunc_array)


@njit
def add_reduce(a, axis):
    return np.add.reduce(a, axis=axis)


@njit
def multiply_reduce_all(a):
    return np.multiply.reduce(a, axis=None)


@njit
def maximum_reduce(a, axis):
    return np.maximum.reduce(a, axis=axis)


@njit
def logical_and_reduce(a):
    return np.logical_and.reduce(a)


@njit
def divide_reduce(a):
    return np.divide.reduce(a)


@njit
def add_reduce_initial(a):
    return np.add.reduce(a, axis=0, initial=10)


@njit
def add_reduce_dtype(a):
    return np.add.reduce(a, dtype=np.float32)


@njit
def subtract_reduce_tuple(a):
    return np.add.reduce(a, axis=(0, 1))


ARRAYS = [
    np.arange(12.0).reshape(3, 4) - 5.5,
    np.arange(-6, 6, dtype=np.int8).reshape(3, 4),
    np.arange(12, dtype=np.uint16).reshape(4, 3),
    (np.arange(12) % 3 == 0).reshape(2, 6),
    np.arange(24, dtype=np.int32).reshape(2, 3, 4)[:, ::2, ::-1],  # not contiguous
    np.zeros((0, 3)),
]


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("axis", [0, -1, None])
def test_add_reduce_matches_numpy_including_its_dtype(a, axis):
    # NumPy folds small integers and booleans in int64 (uint64 for unsigned ones)
    _assert_same_array(add_reduce(a, axis), np.add.reduce(a, axis=axis))


@pytest.mark.parametrize("a", ARRAYS[:5], ids=lambda a: f"{a.dtype}{a.shape}")
def test_other_reductions_match_numpy(a):
    _assert_same_array(multiply_reduce_all(a), np.multiply.reduce(a, axis=None))
    _assert_same_array(maximum_reduce(a, 0), np.maximum.reduce(a, axis=0))
    _assert_same_array(maximum_reduce(a, -1), np.maximum.reduce(a, axis=-1))
    _assert_same_array(logical_and_reduce(a), np.logical_and.reduce(a))
    _assert_same_array(add_reduce_initial(a), np.add.reduce(a, axis=0, initial=10))
    _assert_same_array(add_reduce_dtype(a), np.add.reduce(a, dtype=np.float32))
    _assert_same_array(subtract_reduce_tuple(a), np.add.reduce(a, axis=(0, 1)))


def test_divide_reduce_of_integers_folds_in_float64():
    a = np.array([100, 7, -3], dtype=np.int64)
    _assert_same_array(divide_reduce(a), np.divide.reduce(a))
    _assert_same_array(divide_reduce(a.astype(np.float32)), np.divide.reduce(a.astype("f4")))


def test_reduce_of_an_empty_line_without_identity_raises_numpys_error():
    with pytest.raises(ValueError, match="zero-size array"):
        maximum_reduce(np.zeros((3, 0)), 1)
    _assert_same_array(maximum_reduce(np.zeros((0, 3)), 1), np.zeros(0))


def test_reduce_without_a_numpy_loop_is_a_typing_error_in_numpys_words():
    @njit
    def bitwise_or_floats(a):
        return np.bitwise_or.reduce(a)

    with pytest.raises(TypingError, match="bitwise_or.reduce"):
        bitwise_or_floats(np.ones(3))


@njit
def add_reduceat(a, indices):
    return np.add.reduceat(a, indices)


@njit
def maximum_reduceat_axis1(a, indices):
    return np.maximum.reduceat(a, indices, axis=1)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.float64, np.bool_])
def test_reduceat_matches_numpy(dtype):
    a = (np.arange(10) * 37 % 11).astype(dtype)
    for indices in ([0, 4, 5, 9], [3, 1, 7], [0]):
        idx = np.array(indices)
        _assert_same_array(add_reduceat(a, idx), np.add.reduceat(a, idx))
    b = (np.arange(12) * 5 % 7).astype(dtype).reshape(3, 4)
    idx = np.array([0, 2, 1])
    _assert_same_array(maximum_reduceat_axis1(b, idx), np.maximum.reduceat(b, idx, axis=1))


@njit
def add_at(a, indices, values):
    np.add.at(a, indices, values)
    return a


@njit
def negative_at(a, indices):
    np.negative.at(a, indices)
    return a


@njit
def minimum_at(a, indices, values):
    np.minimum.at(a, indices, values)
    return a


@pytest.mark.filterwarnings("ignore::ember.errors.NumbaExperimentalFeatureWarning")
def test_at_matches_numpy_with_repeated_and_negative_indices():
    indices = np.array([0, 1, 1, -1, 3, 1])
    for dtype in (np.int8, np.int64, np.float64):
        a = np.arange(5, dtype=dtype)
        values = np.arange(6, dtype=dtype) * 3 - 7
        expected = a.copy()
        np.add.at(expected, indices, values)
        _assert_same_array(add_at(a.copy(), indices, values), expected)
        expected = a.copy()
        np.minimum.at(expected, indices, values)
        _assert_same_array(minimum_at(a.copy(), indices, values), expected)
        expected = a.copy()
        np.add.at(expected, indices, 2)
        _assert_same_array(add_at(a.copy(), indices, dtype(2)), expected)
    a = np.arange(5.0)
    expected = a.copy()
    np.negative.at(expected, indices)
    _assert_same_array(negative_at(a.copy(), indices), expected)


@njit
def accumulate_and_outer(a, b):
    return np.add.accumulate(a), np.multiply.outer(a, b), np.minimum.accumulate(a[::-1])


def test_accumulate_and_outer_match_numpy():
    a = np.array([3, -1, 4, 1, -5], dtype=np.int8)
    b = np.array([2.5, -1.0])
    got = accumulate_and_outer(a, b)
    _assert_same_array(got[0], np.add.accumulate(a))
    _assert_same_array(got[1], np.multiply.outer(a, b))
    _assert_same_array(got[2], np.minimum.accumulate(a[::-1]))


def test_numpy_ufunc_methods_work_in_a_fresh_process_without_vectorize():
    # the method typings once registered only when ember.ufuncs was imported by @vectorize
    code = textwrap.dedent(
        """
        import numpy as np
        import ember
        @ember.njit
        def f(a):
            return np.add.reduce(a), np.add.accumulate(a), np.subtract.outer(a, a).sum()
        s, acc, o = f(np.arange(4.0))
        assert s == 6.0 and list(acc) == [0.0, 1.0, 3.0, 6.0] and o == 0.0, (s, acc, o)
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_reductions_free_what_they_allocate():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert_frees_all(add_reduce, lambda: a, lambda: 1, calls=50)
    assert_frees_all(add_reduceat, lambda: a[0, 0], lambda: np.array([0, 2]), calls=50)


# ---------------------------------------------------------------- Numba's names and exceptions


def test_identity_codes_under_numbas_names():
    from ember.np.ufunc import PyUFunc_None, PyUFunc_One, PyUFunc_ReorderableNone, PyUFunc_Zero

    assert (PyUFunc_Zero, PyUFunc_One, PyUFunc_None, PyUFunc_ReorderableNone) == (0, 1, -1, -2)

    def mul(a, b):
        return a * b

    ufunc = vectorize(["float64(float64, float64)"], identity=PyUFunc_One)(mul)
    assert ufunc.identity == 1
    assert ufunc.reduce(np.zeros(0)) == 1.0  # the identity of an empty reduction
    assert ufunc.reduce(np.array([2.0, 3.0, 4.0])) == 24.0


def test_cpu_target_has_the_typing_and_target_contexts():
    from ember.core.registry import cpu_target
    from ember.lowering.context import CPUContext
    from ember.typing.context import TypingContext

    assert isinstance(cpu_target.typing_context, TypingContext)
    assert isinstance(cpu_target.target_context, CPUContext)
    assert cpu_target.typing_context is cpu_target.typing_context  # made once


def test_no_rewrites_option_is_accepted_and_changes_no_result():
    def expr(a, b):
        return np.sin(a) * b + a**2 - b / 3

    a, b = np.linspace(-2, 2, 7), np.arange(7.0)
    np.testing.assert_allclose(njit(no_rewrites=True)(expr)(a, b), expr(a, b), rtol=1e-15)


def test_an_empty_list_argument_is_a_value_error_as_in_numba():
    @njit
    def length(xs):
        return len(xs)

    with pytest.raises(ValueError, match="empty list"):
        length([])
    with pytest.raises(TypingError):
        length([])
    assert length([1, 2]) == 2


@pytest.mark.parametrize("code", ["f16", "g", "G"])
def test_from_dtype_of_an_unsupported_dtype_is_numbas_not_implemented_error(code):
    from ember.np.numpy_support import from_dtype

    with pytest.raises(NumbaNotImplementedError):
        from_dtype(np.dtype(code))
    with pytest.raises(ValueError):  # still the ValueError typeof raises
        from_dtype(np.dtype(code))
    assert from_dtype(np.dtype("f8")) == ember.float64


def test_gufunc_doc_is_the_kernels_docstring():
    @guvectorize([(int64[:], int64, int64[:])], "(n),()->(n)")
    def shifted(x, y, res):
        "x shifted by y"
        for i in range(x.shape[0]):
            res[i] = x[i] + y

    assert shifted.__doc__ == "x shifted by y"
    assert shifted.__qualname__.endswith("<locals>.shifted")
    _assert_same_array(shifted(np.arange(6).reshape(2, 3), 5), np.arange(6).reshape(2, 3) + 5)


@njit
def reductions_keeping_dims(a):
    return (
        np.add.reduce(a, axis=1, keepdims=True),
        np.maximum.reduce(a, axis=-2, keepdims=True),
        np.add.reduce(a, axis=None, keepdims=True),
        np.multiply.reduce(a[0], keepdims=True),
        np.add.reduce(a, axis=0, keepdims=False),
    )


@pytest.mark.parametrize("dtype", [np.int8, np.float64, np.bool_])
def test_reduce_keepdims_matches_numpy(dtype):
    a = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    expected = (
        np.add.reduce(a, axis=1, keepdims=True),
        np.maximum.reduce(a, axis=-2, keepdims=True),
        np.add.reduce(a, axis=None, keepdims=True),
        np.multiply.reduce(a[0], keepdims=True),
        np.add.reduce(a, axis=0, keepdims=False),
    )
    for got, want in zip(reductions_keeping_dims(a), expected):
        _assert_same_array(got, want)


def test_reduce_keepdims_with_a_tuple_of_axes_matches_numpy():
    def over_two_axes(a):
        return np.add.reduce(a, axis=(0, 1), keepdims=True)

    a = np.arange(24.0).reshape(2, 3, 4)
    got, want = njit(over_two_axes)(a), over_two_axes(a)
    assert got.shape == want.shape == (1, 1, 4)
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- ufunc loops found by test_ufuncs


def test_nan_predicates_of_datetimes_see_nat():
    for values in (
        np.array(["NaT", "2020-01-01", "1969-12-31"], dtype="M8[D]"),
        np.array([-5, "NaT", 0], dtype="m8[s]"),
    ):
        got = njit(lambda a: (np.isnan(a), np.isfinite(a), np.isinf(a)))(values)
        for g, e in zip(got, (np.isnan(values), np.isfinite(values), np.isinf(values))):
            _assert_same_array(g, e)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_rint_of_complex_rounds_both_parts_half_to_even(dtype):
    z = np.array([0.5 + 1.5j, -2.5 - 0.5j, 3.7 - 2.2j, 1e300 + 0j, complex(np.inf, -0.5)])
    z = z.astype(dtype)
    _assert_same_array(njit(lambda a: np.rint(a))(z), np.rint(z))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spacing_steps_in_the_arrays_own_float_type(dtype):
    x = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e30, -3.5, 1e-40], dtype=dtype)
    got = njit(lambda a: np.spacing(a))(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, np.spacing(x))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_power_of_zero_follows_numpy_not_python(dtype):
    z = np.array([0j, 0j, 1 + 1j, 0j, 0j, 0j, 2 - 1j], dtype=dtype)
    w = np.array([-1 + 0j, 1j, 2 + 0j, 0j, 2 + 1j, -1 + 1j, 0.5 + 0.25j], dtype=dtype)
    with np.errstate(all="ignore"):
        expected = np.power(z, w)
    for jitted in (njit(lambda a, b: np.power(a, b)), njit(lambda a, b: a**b)):
        got = jitted(z, w)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-6, equal_nan=True)
