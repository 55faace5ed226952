"""NumPy features found missing or wrong by running Numba's own test suite's use cases under
ember (np.dtype(...), np.arange step/complex forms, partitions of empty arrays...), checked
against NumPy."""

import numpy as np
import pytest

import ember


def _same(got, expected):
    assert type(got) is type(expected) or np.isscalar(got) and np.isscalar(expected)
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
    else:
        assert got == expected


# ---------------------------------------------------------------------------- np.dtype


@ember.njit
def _dtype_checks(a):
    return (
        a.dtype == np.dtype("int64"),
        a.dtype == np.dtype(np.float32),
        a.dtype != np.dtype(a.dtype),
    )


@pytest.mark.parametrize("dtype", [np.int16, np.int64, np.float32, np.float64])
def test_np_dtype_compares_with_array_dtype(dtype):
    a = np.zeros(2, dtype)
    expected = (a.dtype == np.dtype("int64"), a.dtype == np.dtype(np.float32), False)
    assert _dtype_checks(a) == expected


def test_np_dtype_returned_is_numpy_dtype():
    assert ember.njit(lambda: np.dtype("float32"))() == np.dtype("float32")


# ---------------------------------------------------------------------------- np.arange

_ARANGE_FORMS = [
    (lambda x: np.arange(7, step=max(1, abs(x))), [(4,), (-3,), (1,)]),
    (lambda a, s: np.arange(a, step=s), [(-8, -1), (4, 0.5), (3, None), (-1, 5)]),
    (lambda s, b: np.arange(2, b, step=s), [(3, None), (1, 9)]),
    (lambda a, b: np.arange(a, b, 5), [(3, None), (-8, -1), (0.5, 4)]),
    (lambda x: np.arange(x), [(4 + 4j,), (np.int8(3),), (5.5,)]),
    (lambda x: np.arange(x, 10), [(4 + 4j,), (4,)]),
    (lambda a, b, c: np.arange(a, b, c), [(0.5, 4 + 2j, 1 + 1j), (1 + 1j, 9 + 4j, 2 + 0.5j)]),
    (lambda a, b: np.arange(a, b), [(1 + 1j, 4 + 4j), (4 + 4j, 1 + 1j)]),
]


@pytest.mark.parametrize("form_index", range(len(_ARANGE_FORMS)))
def test_arange_forms_match_numpy(form_index):
    py_func, argument_sets = _ARANGE_FORMS[form_index]
    compiled = ember.njit(py_func)
    for args in argument_sets:
        _same(compiled(*args), py_func(*args))


# ---------------------------------------------------------------------------- partitions


_argpartition = ember.njit(lambda a, k: np.argpartition(a, k))
_partition = ember.njit(lambda a, k: np.partition(a, k))


def test_partitions_of_empty_arrays_accept_any_kth():
    empty = np.array([], dtype=np.int64)
    for kth in (0, 3):
        _same(_argpartition(empty, kth), np.argpartition(empty, 0))
        _same(_partition(empty, kth), np.partition(empty, 0))
    with pytest.raises(ValueError):
        _partition(np.ones(2, np.int64), 2)


# ---------------------------------------------------------------------------- identity


@ember.njit
def _identity(a, b):
    return a is b, a is not b


def test_array_identity_follows_data_shape_and_strides():
    a = np.arange(6).reshape(2, 3)
    assert _identity(a, a) == (True, False)
    assert _identity(a, a.copy()) == (False, True)
    assert _identity(a, a.T) == (False, True)
    assert _identity(a, a.astype(np.int32)) == (False, True)


# ---------------------------------------------------------------------------- rounding

_ROUND_VALUES = [-3.0, -2.5, -2.25, -1.5, 1.5, 2.25, 2.5, 2.75, 2.675, 12345.0, 0.125]
_SCALAR_KINDS = {
    "float": float,
    "float32": np.float32,
    "int": int,
    "complex": lambda x: complex(x, -x),
    "complex64": lambda x: np.complex64(complex(x, -x)),
}


@pytest.mark.parametrize("kind", sorted(_SCALAR_KINDS))
def test_round_scalars_match_numpy(kind):
    with_decimals = ember.njit(lambda v, d: np.around(v, d))
    plain = ember.njit(lambda v: np.round(v))
    for raw in _ROUND_VALUES:
        value = _SCALAR_KINDS[kind](raw)
        for decimals in (2, 1, 0, -1, -2):
            expected = np.round(value, decimals)
            got = with_decimals(value, decimals)
            assert got == expected and type(got) is type(expected.item()), (value, decimals)
        assert plain(value) == np.round(value)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.complex64])
def test_round_arrays_match_numpy(dtype):
    method = ember.njit(lambda a, d: a.round(d))
    into = ember.njit(lambda a, d, o: np.around(a, d, o))
    a = (np.array(_ROUND_VALUES[:10]) * 3).astype(dtype).reshape(2, 5)
    for decimals in (1, 0, -1):
        _same(method(a, decimals), np.round(a, decimals))
        if decimals >= 0 or a.dtype.kind != "i":  # NumPy refuses int out= for negative decimals
            got, expected = np.zeros_like(a), np.zeros_like(a)
            np.round(a, decimals, expected)
            assert into(a, decimals, got) is not None
            np.testing.assert_array_equal(got, expected)


def test_round_out_keeps_strides_and_checks_shape():
    into = ember.njit(lambda a, d, o: np.around(a, d, o))
    a = np.array(_ROUND_VALUES)
    np.testing.assert_array_equal(
        into(a[::2], 1, np.zeros(6, np.float32)), np.round(a[::2], 1).astype(np.float32)
    )
    with pytest.raises(ValueError, match="invalid output shape"):
        into(a, 0, np.zeros(3))


def test_partitions_of_sequences_and_nd_arrays():
    argpartition, partition = _argpartition, _partition
    descending = np.arange(47)[::-1]
    for a in (descending, descending.tolist(), tuple(descending.tolist())):
        assert argpartition(a, 6)[6] == np.argpartition(a, 6)[6]
        assert partition(a, -16)[-16] == np.partition(a, -16)[-16]
    x = np.random.default_rng(3).random((2, 3, 4, 5))
    for k in (0, 2, -1):
        np.testing.assert_array_equal(partition(x, k)[..., k], np.sort(x)[..., k])
        picked = np.take_along_axis(x, argpartition(x, k), -1)[..., k]
        np.testing.assert_array_equal(picked, np.sort(x)[..., k])
    _same(argpartition((), 0), np.argpartition((), 0))
    _same(partition((), 0), np.partition((), 0))
    with pytest.raises(ValueError, match="kth must be scalar or 1-D"):
        argpartition(np.arange(4), np.ones((2, 2), np.int64))


# ---------------------------------------------------------------------------- clip


@pytest.mark.parametrize("form", ["np", "method_kw"])
def test_clip_with_out_and_array_bounds(form):
    call = {
        "np": lambda a, lo, hi, out: np.clip(a, lo, hi, out),
        "np_kw": lambda a, lo, hi, out: np.clip(a, lo, hi, out=out),
        "method": lambda a, lo, hi, out: a.clip(lo, hi, out),
        "method_kw": lambda a, lo, hi, out: a.clip(lo, hi, out=out),
    }[form]
    compiled = ember.njit(call)
    a = np.linspace(-10, 10, 40).reshape(5, 2, 4)
    bounds = [(0, None), (None, 0), (-5, 5), (np.arange(-8, 0.0).reshape(2, 4), 5), (None, None)]
    for low, high in bounds:
        if low is None and high is None:
            with pytest.raises(ValueError):
                compiled(a, low, high, None)
            continue
        _same(compiled(a, low, high, None), np.clip(a, low, high))
        got, expected = np.empty_like(a), np.empty_like(a)
        assert compiled(a, low, high, got) is got
        np.testing.assert_array_equal(got, call(a, low, high, expected))


# ---------------------------------------------------------------------------- array-likes


def test_asarray_of_lists_of_tuples():
    asarray = ember.njit(lambda a, d: np.asarray(a, dtype=d))
    rows = [(1, 2, 3), (4, 5, 6)]
    _same(asarray(rows, None), np.asarray(rows))
    _same(asarray(rows, np.complex128), np.asarray(rows, dtype=np.complex128))


def test_asarray_of_tuple_of_lists_built_inside():
    @ember.njit
    def build():
        return np.asarray(([1, 2], [3, 4]))

    _same(build(), np.asarray(([1, 2], [3, 4])))


_ARRAY_EQUAL_PAIRS = [
    ((1, 2, 3), (1, 2, 3)),
    (2, 2),
    (True, True),
    (True, 2),
    (True, 1),
    (np.arange(3), (0, 1, 2)),
    (np.arange(3), np.arange(3).reshape(1, 3)),
    ([1, 2], (1, 2)),
    (1.5, np.array(1.5)),
]


@pytest.mark.parametrize("pair", range(len(_ARRAY_EQUAL_PAIRS)))
def test_array_equal_of_array_likes(pair):
    a, b = _ARRAY_EQUAL_PAIRS[pair]
    assert ember.njit(lambda a, b: np.array_equal(a, b))(a, b) == np.array_equal(a, b)


def test_split_of_lists_and_tuples():
    array_split = ember.njit(lambda a, i: np.array_split(a, i, axis=0))
    for a, indices in [(list(range(4)), [1, 4, 72]), (tuple(range(8)), 3), (list(range(4)), 3)]:
        got, expected = array_split(a, indices), np.array_split(a, indices)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)


# ---------------------------------------------------------------------------- cumulative dtype=


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex64])
def test_cumsum_cumprod_with_dtype(dtype):
    along = ember.njit(lambda a, dtype, axis: a.cumsum(axis=axis, dtype=dtype))
    flat = ember.njit(lambda a, dtype: np.cumprod(a, dtype=dtype))
    a = np.arange(1, 25.0).reshape(2, 4, 3) / 7
    for axis in (0, 2, -1):
        got, expected = along(a, dtype, axis), a.cumsum(axis=axis, dtype=dtype)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    got, expected = flat(a[:, :2], dtype), np.cumprod(a[:, :2], dtype=dtype)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6)


# ---------------------------------------------------------------------------- bincount, convolve


def test_bincount_of_lists_and_its_errors():
    weighted = ember.njit(lambda a, w, m: np.bincount(a, w, m))
    plain = ember.njit(lambda a: np.bincount(a))
    _same(plain([1, 2, 5, 2]), np.bincount([1, 2, 5, 2]))
    for a, w, m in [([1, 2, 5, 2], [1.0, 2, 3, 4], 0), (np.array([1, 2]), [3, 4], 5)]:
        _same(weighted(a, w, m), np.bincount(a, w, m))
    with pytest.raises(ValueError, match="non-negative"):
        plain([2, -1])
    with pytest.raises(ValueError, match="same length"):
        weighted([2, 1], [0.0], 0)
    with pytest.raises(ValueError, match="minlength"):
        weighted(np.array([1]), np.array([1.0]), -1)


def test_convolve_and_correlate_with_a_mode_variable():
    convolve = ember.njit(lambda a, v, mode: np.convolve(a, v, mode=mode))
    correlate = ember.njit(lambda a, v, mode: np.correlate(a, v, mode))
    a, v = np.arange(5.0), np.array([1, 2, 3j])
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(convolve(a, v, mode), np.convolve(a, v, mode))
        np.testing.assert_allclose(correlate(v, a, mode), np.correlate(v, a, mode))
    with pytest.raises(ValueError):
        convolve(a, v, "middle")


# ---------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "argmin", "argmax"])
def test_reduction_along_the_axis_of_a_vector_is_a_scalar(name):
    function = ember.njit(eval(f"lambda a: np.{name}(a, axis=0)"))  # noqa: S307
    method = ember.njit(eval(f"lambda a: a.{name}(axis=-1)"))  # noqa: S307
    for a in (np.array([3.0, 1, 4, 1.5]), np.arange(1, 5)):
        expected = getattr(np, name)(a, axis=0)
        for got in (function(a), method(a)):
            assert not isinstance(got, np.ndarray)
            assert got == expected


def test_reduction_along_a_missing_axis_of_a_vector_raises():
    with pytest.raises(np.exceptions.AxisError):
        ember.njit(lambda a: a.sum(axis=1))(np.ones(3))


@pytest.mark.parametrize(
    "value",
    [
        np.float64(0.5),
        np.float32(21.0),
        np.int32(21),
        np.True_,
        3,
        np.datetime64("2020-01-01"),
        np.datetime64("NaT"),
        np.timedelta64(5, "m"),
    ],  # fmt: skip
)
def test_extremes_of_a_scalar(value):
    amax = ember.njit(lambda a: np.amax(a))
    minimum = ember.njit(lambda a: np.min(a))
    for got in (amax(value), minimum(value)):
        if isinstance(value, np.datetime64) and np.isnat(value):
            assert np.isnat(got)
        else:
            assert got == np.amax(value) and type(got) in (type(value), type(np.amax(value).item()))


# ---------------------------------------------------------------------------- cov, corrcoef


@pytest.mark.parametrize(
    "x", [(1.0, 2, 3), [1, 2, 4], ((1.0, 2), (3.0, 4), (5.0, 7)), 3.5, [(1, 2, 3), (4, 5, 7)]]
)
def test_corrcoef_and_cov_of_array_likes(x):
    corrcoef = ember.njit(lambda x, y, rowvar: np.corrcoef(x, y, rowvar))
    cov = ember.njit(lambda m: np.cov(m))
    with np.errstate(all="ignore"):
        expected = np.corrcoef(x, None, True)
        expected_cov = np.cov(x) if np.ndim(x) else None
    got = corrcoef(x, None, True)
    assert np.shape(got) == np.shape(expected)
    assert isinstance(got, np.ndarray) == (np.ndim(expected) > 0)
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)
    if expected_cov is not None:
        _same(cov(x), expected_cov)


def test_corrcoef_with_y_tuple():
    corrcoef = ember.njit(lambda x, y, rowvar: np.corrcoef(x, y, rowvar))
    x, y = np.arange(4.0), (1, 3, 2, 7)
    _same(corrcoef(x, y, False), np.corrcoef(x, y, False))


# ---------------------------------------------------------------------------- complex extremes

_COMPLEX = np.array([1 + 2j, 3 - 1j, 3 + 0.5j, -2 + 9j, 3 + 0.5j])


@pytest.mark.parametrize(
    "a",
    [_COMPLEX.astype(np.complex64), _COMPLEX.reshape(1, 5), np.array([1 + 1j, complex(np.nan, 0)])],
)
def test_max_min_of_complex_arrays(a):
    for name, compiled in [("max", ember.njit(lambda a: a.max())),
                           ("min", ember.njit(lambda a: np.min(a))),
                           ("amax", ember.njit(lambda a: np.amax(a)))]:  # fmt: skip
        got, expected = compiled(a), getattr(np, name)(a)
        assert got == expected or (np.isnan(got) and np.isnan(expected))


@pytest.mark.parametrize("name", ["nanmax", "nanmin", "nansum", "nanprod"])
def test_nan_reductions_of_complex_arrays(name):
    compiled = ember.njit(eval(f"lambda a: np.{name}(a)"))  # noqa: S307
    with_nan = np.array([1 + 2j, 3 - 1j, complex(np.nan, 1), 3 + 0.5j, -2 + 9j])
    for a in (
        with_nan.astype(np.complex64),
        with_nan.reshape(5, 1),
        np.array([complex(np.nan, 0)]),
    ):
        with np.errstate(all="ignore"):
            expected = getattr(np, name)(a)
        np.testing.assert_allclose(compiled(a), expected, rtol=1e-6, equal_nan=True)


# ---------------------------------------------------------------------------- where, copy


@pytest.mark.parametrize(
    "args",
    [
        (0, 4.0, np.int32(5)),
        (1, np.int32(4), np.complex64(5 + 0j)),
        (True, False, True),
        (True, np.arange(3), 7),
        (np.array([True, False]), 1.5, 2),
    ],  # fmt: skip
)
def test_where_of_scalars_is_a_0d_array(args):
    _same(ember.njit(lambda c, x, y: np.where(c, x, y))(*args), np.where(*args))


@pytest.mark.parametrize("value", [6, (1, 2, 3), [1.0, 2.0, 3.0], 2.5])
def test_copy_of_array_likes(value):
    _same(ember.njit(lambda a: np.copy(a))(value), np.copy(value))


def test_asfortranarray_of_0d_array():
    _same(ember.njit(lambda a: np.asfortranarray(a))(np.array(3)), np.asfortranarray(np.array(3)))


@pytest.mark.parametrize("name", ["nanmin", "nanmax", "nansum", "nanmean"])
def test_nan_reductions_of_sequences(name):
    compiled = ember.njit(eval(f"lambda a: np.{name}(a)"))  # noqa: S307
    for a in ([1, 6, 4, 2], (1.5, np.nan, 3.0), ((1.0, 2), (np.nan, 0))):
        assert compiled(a) == getattr(np, name)(a)


def test_sum_and_prod_with_bool_dtype():
    whole = ember.njit(lambda a, d: a.sum(dtype=d))
    along = ember.njit(lambda a, d: a.sum(axis=1, dtype=d))
    product = ember.njit(lambda a, d: np.prod(a, dtype=d))
    for a in (np.zeros((2, 3, 2), bool), np.arange(12).reshape(2, 3, 2) % 5 == 0):
        assert whole(a, np.bool_) == np.sum(a, dtype=np.bool_)
        assert product(a, np.bool_) == np.prod(a, dtype=np.bool_)
        _same(along(a, np.bool_), a.sum(axis=1, dtype=np.bool_))


def test_take_with_lists_and_tuples_of_indices():
    method = ember.njit(lambda a, i: a.take(i))
    along = ember.njit(lambda a, i: np.take(a, i, axis=0))
    a = np.arange(12.0).reshape(4, 3)
    for indices in ([1, 5, 1, 11], (0, 2), ((1, 2), (3, 4))):
        _same(method(a, indices), np.take(a, indices))
    _same(along(a, [0, 3, -1]), np.take(a, [0, 3, -1], axis=0))
    with pytest.raises(IndexError):
        method(a, [1, 12])


def test_where_with_sequences():
    where = ember.njit(lambda c, x, y: np.where(c, x, y))
    a = np.asfortranarray(np.arange(50.0).reshape(25, 2))
    cases = [([True, False], a, -a), ((True, False), (1, 2), 3.5),
             ([True, False], np.arange(2, dtype=np.float32), 3.5)]  # fmt: skip
    for condition, x, y in cases:
        _same(where(condition, x, y), np.where(condition, x, y))
    with pytest.raises(ValueError):
        where([True, True], np.ones((4, 5)), np.ones((5, 5)))


def test_allclose_and_isclose_of_two_numbers():
    allclose = ember.njit(lambda a, b, rtol, atol, nan: np.allclose(a, b, rtol, atol, nan))
    isclose = ember.njit(lambda a, b: np.isclose(a, b))
    for a, b in [(1.0, 1.0), (1.0, 1.1), (np.nan, np.nan), (np.inf, np.inf), (2, 2)]:
        for equal_nan in (True, False):
            assert allclose(a, b, 1e-5, 1e-8, equal_nan) == np.allclose(a, b, 1e-5, 1e-8, equal_nan)
        assert isclose(a, b) == np.isclose(a, b)


# ---------------------------------------------------------------------------- frozen indices


@pytest.mark.parametrize(
    "index",
    [
        (slice(4, 5), 3, np.arange(5), 1),
        (Ellipsis, 1, np.arange(5)),
        (slice(None, None, -2), 1),
        (slice(1, 3), np.array([True, False, True, False, False, True])),
        (slice(1, None),),
    ],  # fmt: skip
)
def test_index_tuple_from_a_closure(index):
    a = np.arange(5 * 6 * 7 * 8).reshape(5, 6, 7, 8)

    def get_item(array):
        return array[index]  # `index` is frozen into the compiled code, slices and arrays too

    _same(ember.njit(get_item)(a), a[index])
