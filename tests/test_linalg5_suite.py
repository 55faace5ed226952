"""linalg5: np.roots of complex coefficients, polynomial argument errors, as_series of a 1-d
array, and np.polynomial.Polynomial built in compiled code; differential against NumPy."""

import numpy as np
import numpy.polynomial.polynomial as poly
import numpy.polynomial.polyutils as pu
import pytest

import ember
from ember.errors import TypingError
from tests.oracle import assert_frees_all


@ember.njit
def _roots(p):
    return np.roots(p)


def _assert_same_roots(got, expected, tol):
    """The same multiset of roots (the order of conjugates is arbitrary)."""
    assert got.shape == expected.shape
    for root in expected:
        assert np.min(np.abs(got - root)) <= tol * max(1.0, abs(root))
    for root in got:
        assert np.min(np.abs(expected - root)) <= tol * max(1.0, abs(root))


COMPLEX_COEFFICIENTS = [
    [1, 3 + 1j, 2],
    [1, 6 + 1j, 11, 6],
    [0, 0, 0, 1 + 1j, 3, 2],
    [1 + 1j, 1, 0, 0, 0],
    [2j, -1, 0.5 - 3j],
]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("coefficients", COMPLEX_COEFFICIENTS)
def test_roots_of_complex_coefficients_match_numpy(coefficients, dtype):
    p = np.array(coefficients, dtype=dtype)
    got, expected = _roots(p), np.roots(p)
    assert got.dtype == dtype
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    _assert_same_roots(got, expected, tol)


def test_roots_of_complex_zeros_and_constants_are_empty_or_zero():
    assert _roots(np.zeros(3, np.complex128)).shape == (0,)
    assert _roots(np.array([1 + 1j])).shape == (0,)
    np.testing.assert_array_equal(_roots(np.array([0, 0, 1 + 1j, 0, 0])), np.zeros(2))


def test_roots_of_real_coefficients_still_real():
    p = np.array([1.0, -6.0, 11.0, -6.0])
    got = _roots(p)
    assert got.dtype == np.float64
    np.testing.assert_allclose(np.sort(got), [1.0, 2.0, 3.0])


def test_real_roots_that_are_complex_name_eigvals_and_the_way_out():
    with pytest.raises(ValueError, match=r"eigvals\(\) argument must not cause a domain change"):
        _roots(np.array([7.0, 2.0, 0.0, 1.0]))
    got = _roots(np.array([7.0, 2.0, 0.0, 1.0]).astype(np.complex128))
    _assert_same_roots(got, np.roots([7, 2, 0, 1]), 1e-10)


def test_roots_free_their_memory():
    assert_frees_all(_roots, lambda: np.array([1, 3 + 1j, 2]))


# ---------------------------------------------------------------------------- argument errors


@ember.njit
def _polyadd(c1, c2):
    return poly.polyadd(c1, c2)


@ember.njit
def _polyint(c, m):
    return poly.polyint(c, m)


@ember.njit
def _polyval(x, c):
    return poly.polyval(x, c)


@ember.njit
def _polyval_tensor(x, c, tensor):
    return poly.polyval(x, c, tensor)


@ember.njit
def _trimseq(seq):
    return pu.trimseq(seq)


@ember.njit
def _as_series(a, trim):
    return pu.as_series(a, trim)


@pytest.mark.parametrize(
    ("func", "args", "message"),
    [
        (_polyadd, ("abc", np.arange(3)), 'The argument "c1" must be array-like'),
        (_polyadd, (np.arange(3), "abc"), 'The argument "c2" must be array-like'),
        (_polyint, ("abc", 1), 'The argument "c" must be array-like'),
        (_polyint, (np.arange(3), 1.5), 'The argument "m" must be an integer'),
        (_polyint, (("a", "b"), 1), "Input dtype must be scalar"),
        (_polyval, (3, "abc"), 'The argument "c" must be array-like'),
        (_polyval, ("abc", 3), 'The argument "x" must be array-like'),
        (_trimseq, ("abc",), 'The argument "seq" must be array-like'),
        (_trimseq, (np.arange(4).reshape(2, 2),), "Coefficient array is not 1-d"),
        (_as_series, ("abc", True), 'The argument "alist" must be array-like'),
        (_as_series, (np.arange(4), "abc"), 'The argument "trim" must be boolean'),
        (_polyval_tensor, (3.0, np.arange(3), "abc"), 'The argument "tensor" must be boolean'),
    ],
)
def test_polynomial_functions_name_the_bad_argument(func, args, message):
    with pytest.raises(TypingError, match=message):
        func(*args)


@pytest.mark.parametrize("trim", [True, False])
@pytest.mark.parametrize(
    "alist",
    [
        np.arange(4),
        np.array([1.5, 0.0, 0.0]),
        np.arange(6).reshape(2, 3),
        [np.array([1, 2, 0]), np.array([5, 0])],
        ([1, 2, 3, 4, 0], [1, 2, 3]),
        (2, [1.1, 0.0]),
        ((0, 0, 1e-3, 0, 0), (1j, 2, 3j, 0, 0)),
    ],
)
def test_as_series_of_an_array_gives_one_series_per_row_or_number(alist, trim):
    got, expected = _as_series(alist, trim), pu.as_series(alist, trim)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype


# ---------------------------------------------------------------------------- Polynomial


@ember.njit
def _polynomial3(c, domain, window):
    return poly.Polynomial(c, domain, window)


@ember.njit
def _polynomial1(c):
    return poly.Polynomial(c)


@ember.njit
def _polynomial_parts(c, domain):
    p = poly.Polynomial(c, domain)
    return p.coef.sum(), p.domain[0], p.domain[1], p.window[0], p.window[1]


PARTS = [np.array([0, 1]), np.array([0.0, 1.0]), np.array([-2.5, 4.0])]


@pytest.mark.parametrize("coef", [np.array([0, 1]), np.array([1.5, -2.0, 3.0]), [1, 2, 3]])
def test_polynomial_with_default_interval_matches_numpy(coef):
    got, expected = _polynomial1(coef), poly.Polynomial(coef)
    assert isinstance(got, poly.Polynomial)
    for name in ("coef", "domain", "window"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
        assert getattr(got, name).dtype == getattr(expected, name).dtype
    assert got == expected


@pytest.mark.parametrize("window", PARTS)
@pytest.mark.parametrize("domain", PARTS)
def test_polynomial_with_domain_and_window_matches_numpy(domain, window):
    coef = np.array([3, 0, 1])
    got, expected = _polynomial3(coef, domain, window), poly.Polynomial(coef, domain, window)
    assert got == expected
    np.testing.assert_array_equal(got.domain, expected.domain)
    np.testing.assert_array_equal(got.window, expected.window)
    assert got(0.75) == pytest.approx(expected(0.75))


def test_polynomial_attributes_in_compiled_code():
    coef, domain = np.array([1.0, 2.0, 4.0]), np.array([2, 6])
    assert _polynomial_parts(coef, domain) == (7.0, 2.0, 6.0, -1.0, 1.0)


def test_polynomial_interval_of_wrong_size_and_2d_coefficients_raise():
    two, three = np.array([1, 2]), np.array([1, 2, 3])
    with pytest.raises(ValueError, match="Domain has wrong number of elements."):
        _polynomial3(two, three, two)
    with pytest.raises(ValueError, match="Window has wrong number of elements."):
        _polynomial3(two, two, three)
    with pytest.raises(TypingError, match="Coefficient array is not 1-d"):
        _polynomial3(np.arange(4).reshape(2, 2), two, two)


def test_polynomial_frees_its_memory():
    assert_frees_all(_polynomial3, lambda: np.arange(3), lambda: np.array([0, 1]),
                     lambda: np.array([0.0, 2.0]))  # fmt: skip
    assert_frees_all(_polynomial_parts, lambda: np.arange(3.0), lambda: np.array([0, 1]))


# ---------------------------------------------------------------------------- records

RECORD = np.dtype([("a", np.float64), ("b", np.int64)])


@ember.njit
def _filled_records(n):
    out = np.empty(n, RECORD)
    for i in range(n):
        out[i].a = 1.5 * i
        out[i].b = 7 * i
    return out


@ember.njit
def _record_of_a_temporary(n):
    r = _filled_records(n)[n - 1]  # the array dies here; the record must stay readable
    overwrite = np.full(4 * n, -1.0)
    again = np.full(2 * n, -2.0)
    return r.a + overwrite[0] * 0 + again[0] * 0, r.b


@ember.njit
def _record_of_a_dead_variable(n):
    records = _filled_records(n)
    r = records[1]
    total = 0.0
    for _ in range(n):
        total += np.full(2 * n, -3.0)[0]
    return r.a, r.b, total


@ember.njit
def _records_of_temporaries_in_a_loop(n):
    total = 0.0
    for i in range(1, n):
        r = _filled_records(n)[i]
        total += r.a + np.full(2 * n, -3.0)[1] * 0
    return total


@ember.njit
def _record_then_raise(n):
    r = _filled_records(n)[0]
    if n > 3:
        raise ValueError("too many")
    return r.b


@pytest.mark.parametrize("n", [2, 5, 9])
def test_a_record_keeps_the_array_it_was_read_from(n):
    assert _record_of_a_temporary(n) == (1.5 * (n - 1), 7 * (n - 1))
    assert _record_of_a_dead_variable(n) == (1.5, 7, -3.0 * n)
    assert _records_of_temporaries_in_a_loop(n) == sum(1.5 * i for i in range(1, n))


def test_records_of_dead_arrays_free_their_arrays_on_every_exit():
    for func in (_record_of_a_temporary, _record_of_a_dead_variable):
        assert_frees_all(func, lambda: 5, calls=50)
    assert_frees_all(_records_of_temporaries_in_a_loop, lambda: 6, calls=50)
    assert_frees_all(_record_then_raise, lambda: 2, calls=50)

    def raising(n):
        with pytest.raises(ValueError, match="too many"):
            _record_then_raise(n)

    assert_frees_all(raising, lambda: 5, calls=50)


def test_make_c_struct_lays_out_fields_as_ctypes_does():
    import ctypes

    class Reference(ctypes.Structure):
        _fields_ = [("apple", ctypes.c_int32), ("mango", ctypes.c_int8), ("pear", ctypes.c_double)]

    record = ember.types.Record.make_c_struct(
        [("apple", ember.types.int32), ("mango", ember.types.int8), ("pear", ember.types.float64)]
    )
    assert len(record) == 3
    for name in ("apple", "mango", "pear"):
        assert record.offset(name) == getattr(Reference, name).offset
    assert record.size == ctypes.sizeof(Reference)
    assert record.dtype.isalignedstruct


TITLED = np.dtype([(("x", "s0"), "i4"), (("y", "s1"), "i4"), ("z", "f8")])  # (title, name)


def _write_through_titles(a):
    for i in range(a.size):
        a[i]["s0"] = 2 * (i + 1)
        a[i]["x"] += -1
        a[i]["s1"] = 3 * i
        a[i]["z"] = a[i]["y"] + 0.5
    return a


def test_titled_fields_reach_the_field_and_keep_the_dtype():
    from ember.np import numpy_support

    record = numpy_support.from_dtype(TITLED)
    assert len(record.fields) == len(TITLED.fields)
    assert record.is_title("x") and not record.is_title("s0") and not record.is_title("z")
    assert numpy_support.as_dtype(record) == TITLED
    expected = _write_through_titles(np.zeros(4, TITLED))
    got = ember.njit(_write_through_titles)(np.zeros(4, TITLED))
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


CHARS = np.dtype([("m", np.int32), ("n", "S5"), ("u", "U3")])


def _set_bytes_field(ary, i, cs):
    ary[i].n = cs


def _set_text_field(ary, i, cs):
    ary[i].u = cs


@pytest.mark.parametrize(
    ("field", "setter", "values"),
    [
        ("n", _set_bytes_field, ["", "0xa", "abcde", "abcdefgh"]),
        ("u", _set_text_field, ["", "é", "abc", "abcdef"]),
    ],
)
def test_fixed_size_string_arguments_from_python_cut_or_pad_as_numpy(field, setter, values):
    from ember.np import numpy_support

    record = numpy_support.from_dtype(CHARS)
    sig = (record[::1], ember.types.intp, record.typeof(field))
    entry = ember.njit(sig)(setter).overloads[sig].entry_point
    expected, got = np.recarray(len(values), dtype=CHARS), np.recarray(len(values), dtype=CHARS)
    expected[:], got[:] = 0, 0
    for i, value in enumerate(values):
        setter(expected, i, value)
        entry(got, i, value)
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(TypeError, match="expected"):
        entry(got, 0, 12)


def test_record_type_takes_numbas_keywords_and_matches_the_dtype():
    from ember.np import numpy_support

    nested = ember.types.NestedArray(ember.types.float64, (4,))
    spelled = ember.types.Record(fields=[("a", {"type": nested, "offset": 0})], size=32)
    assert spelled == numpy_support.from_dtype(np.dtype([("a", np.float64, (4,))]))
