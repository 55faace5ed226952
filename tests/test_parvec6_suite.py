"""parvec6: ufunc call keywords (casting=, order=, subok=, signature=, where= without out=),
NumPy's positional order of `ufunc.reduce`, nested prange loops, and allocations hoisted out
of prange bodies, against NumPy and the functions run by CPython."""

import warnings

import numpy as np
import pytest

from ember import njit, prange
from ember.errors import TypingError
from tests.oracle import assert_frees_all, assert_same_array


def _numpy(py_func, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return py_func(*args)


_MATRIX = np.array([[-2.5, -1.5, -0.5], [0.5, 1.5, 2.5]])
_SPECIALS = np.array([-7.9, -0.5, 0.0, 0.5, 3.5, 1e10, np.nan, np.inf])

# ---------------------------------------------------------------- ufunc call keywords


def test_casting_keyword_allows_what_numpy_allows():
    def unsafe_out(x, out):
        np.add(x, 1.5, out, casting="unsafe")
        return out

    def unsafe_dtype(x):
        return np.multiply(x, 3, dtype=np.int64, casting="unsafe")

    def same_kind(x):
        return np.sqrt(x, casting="same_kind")

    def no_cast(x):
        return np.add(x, x, casting="no")

    for py_func, args in [
        (unsafe_out, (_MATRIX, np.zeros((2, 3), np.int64))),
        (unsafe_out, (np.arange(5.0), np.zeros(5, np.int32))),
        (unsafe_dtype, (_MATRIX,)),
        (same_kind, (_SPECIALS,)),
        (no_cast, (_SPECIALS,)),
        (no_cast, (np.arange(4, dtype=np.int8),)),
    ]:
        fresh = [a.copy() for a in args]
        assert_same_array(njit(py_func)(*fresh), py_func(*[a.copy() for a in args]))


def test_casting_keyword_refusals_have_numpys_words():
    def safe_out(x, out):
        return np.add(x, 1, out=out, casting="safe")

    def no_cast(x, y):
        return np.add(x, y, casting="no")

    def equiv_cast(x):
        return np.add(x, 1, casting="equiv", dtype=np.float32)

    def safe_dtype(x):
        return np.multiply(x, 2, dtype=np.int32, casting="safe")

    for py_func, args in [
        (safe_out, (np.ones(3), np.zeros(3, np.float32))),
        (no_cast, (np.ones(3), np.ones(3, np.float32))),
        (no_cast, (np.ones(3, np.int8), np.ones(3, np.int16))),
        (equiv_cast, (np.ones(3),)),
        (safe_dtype, (np.ones(3, np.int64),)),
    ]:
        with pytest.raises(TypeError) as numpy_error:  # NumPy: UFuncTypeError
            py_func(*args)
        with pytest.raises(TypingError) as ember_error:
            njit(py_func)(*args)
        rule = str(numpy_error.value).split("casting rule ")[1][:8]
        assert f"Cannot cast ufunc '{py_func.__code__.co_names[1]}'" in str(ember_error.value)
        assert f"with casting rule {rule}" in str(ember_error.value)


def test_bad_keyword_values_are_refused_when_compiling():
    with pytest.raises(TypingError, match="casting must be one of"):
        njit(lambda x: np.add(x, 1, casting="bad"))(np.ones(2))
    with pytest.raises(TypingError, match="order must be one of"):
        njit(lambda x: np.sin(x, order="X"))(np.ones(2))
    with pytest.raises(TypingError, match="cannot specify both 'signature' and 'dtype'"):
        njit(lambda x: np.add(x, 1, signature="dd->d", dtype=np.float64))(np.ones(2))
    with pytest.raises(TypingError, match="typecode"):
        njit(lambda x: np.add(x, 1, signature="d->d"))(np.ones(2))


def test_signature_keyword_picks_numpys_loop():
    cases = [
        lambda x: np.add(x, 1, signature="ff->f"),
        lambda x: np.add(x, 1, signature=(np.float32, None, None)),
        lambda x: np.add(x, 1, signature=(None, None, np.float32)),
        lambda x: np.multiply(x, x, signature="ll->l", casting="unsafe"),
        lambda x: np.negative(x, signature="d->d"),
        lambda x: np.less(x, 0.5, signature=(None, None, np.bool_)),
    ]
    for py_func in cases:
        for x in (_MATRIX, _SPECIALS[:-3], np.arange(-3, 3, dtype=np.int16)):
            assert_same_array(njit(py_func)(x), _numpy(py_func, x))


def test_order_and_subok_keywords():
    def each(x):
        return (
            np.add(x, 1, order="F"),
            np.sin(x, order="C"),
            np.sin(x, order="A"),
            np.cos(x, order="K"),
            np.exp(x, subok=True),
        )

    fortran = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    for x in (fortran, np.ascontiguousarray(fortran), fortran[:, ::2]):
        got, expected = njit(each)(x), each(x)
        for g, e in zip(got, expected):
            assert_same_array(g, e)
        assert got[0].flags.f_contiguous and got[1].flags.c_contiguous
        assert got[2].flags.f_contiguous == expected[2].flags.f_contiguous


def test_where_without_out_zeroes_what_the_mask_excludes():
    # NumPy leaves those elements uninitialized and warns; compiled code makes them 0
    def masked(x, mask):
        return np.add(x, 1, where=mask)

    def explicit_none(x, mask):
        return np.sqrt(x, where=mask, out=None)

    def scalar_mask(x, flag):
        return np.multiply(x, 2.0, where=flag)

    def wider_mask(x, mask):
        return np.subtract(x, 1.0, where=mask)

    row_mask = np.array([True, False, True])
    with pytest.warns(UserWarning, match="'where' used without 'out'"):
        got = njit(masked)(_MATRIX, row_mask)
    assert_same_array(got, np.where(row_mask, _MATRIX + 1, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # out=None said so: no warning, as in NumPy
        got = njit(explicit_none)(np.abs(_SPECIALS), _SPECIALS > 0)
    assert_same_array(got, np.where(_SPECIALS > 0, np.sqrt(np.abs(_SPECIALS)), 0.0))
    with pytest.warns(UserWarning):
        scaled = njit(scalar_mask)
        assert_same_array(scaled(_MATRIX, True), _MATRIX * 2.0)
        assert_same_array(scaled(_MATRIX, False), np.zeros_like(_MATRIX))
    with pytest.warns(UserWarning):
        got = njit(wider_mask)(np.arange(3.0), np.eye(3, dtype=np.bool_))
    assert_same_array(got, np.where(np.eye(3, dtype=np.bool_), np.arange(3.0) - 1.0, 0.0))
    with pytest.warns(UserWarning), pytest.raises(ValueError):
        njit(wider_mask)(np.arange(3.0), np.ones(4, np.bool_))  # does not broadcast


def test_where_without_out_frees_its_result():
    with pytest.warns(UserWarning):
        masked = njit(lambda x, m: np.add(x, 1.0, where=m).sum())
        assert_frees_all(masked, lambda: np.arange(50.0), lambda: np.arange(50) % 3 == 0, calls=50)


# ---------------------------------------------------------------- ufunc.reduce positions


def test_reduce_takes_numpys_positional_out_and_initial():
    def into_out(a, out):
        np.add.reduce(a, 0, None, out)
        return out

    def initial_and_both(a, out):
        return (
            np.add.reduce(a, 1, None, None, False, 10.0),
            np.multiply.reduce(a, 1, None, out, False, 2.0),
        )

    def numbas_order(a):  # Numba's reduce(array, axis, dtype, initial): a number fourth
        return np.add.reduce(a, 0, None, 5.0)

    matrix = np.arange(12.0).reshape(3, 4) - 4
    assert_same_array(njit(into_out)(matrix, np.zeros(4)), np.add.reduce(matrix, 0))
    got = njit(initial_and_both)(matrix, np.zeros(3))
    for g, e in zip(got, initial_and_both(matrix, np.zeros(3))):
        assert_same_array(g, e)
    assert_same_array(njit(numbas_order)(matrix), np.add.reduce(matrix, 0, initial=5.0))


# ---------------------------------------------------------------- nested prange


def _report(func, *args):
    func(*args)
    (result,) = func.overloads.values()
    return result.metadata["parfor_diagnostics"]


def test_nested_prange_matches_python_and_is_counted():
    def table(n, m):
        a = np.empty((n, m))
        for i in prange(n):
            for j in prange(m):
                a[i, j] = i * 10 - j
        return a

    def pair_sum(b):
        acc = 0.0
        for i in prange(len(b) - 2):
            for j in prange(len(b) - 1):
                acc += b[i] * b[j + 1]
        return acc

    jitted = njit(parallel=True)(table)
    for n, m in [(0, 3), (1, 1), (3, 0), (7, 5), (64, 33)]:
        assert_same_array(jitted(n, m), table(n, m))
    summed = njit(parallel=True)(pair_sum)
    for size in (0, 2, 3, 50):
        b = np.cos(np.arange(size, dtype=np.float64))
        np.testing.assert_allclose(summed(b), pair_sum(b), rtol=1e-12)
    report = _report(njit(parallel=True)(table), 4, 4)
    assert report.count_parfors() == 2
    ((outer, inner),) = report.nested_fusion_info.items()
    assert inner == [outer - 1]  # the inner loop numbered first, as Numba numbers them
    assert "nested, runs serially" in report.format(2)


# ---------------------------------------------------------------- allocation hoisting


def scratch_kinds(n, m):
    out = np.empty((n, 4))
    for i in prange(n):
        z = np.zeros(m)
        o = np.ones((m, 2), dtype=np.int32)
        f = np.full(m, i * 0.5)  # a new value each iteration: refilled with it
        e = np.empty(m)
        for j in range(m):
            z[j] += i + j
            o[j, 1] += j
            e[j] = z[j] * 2
        view = z[1:]
        out[i, 0] = z.sum() + view.sum()
        out[i, 1] = o.sum()
        out[i, 2] = f.sum()
        out[i, 3] = e.sum()
    return out


def scratch_rows(m):
    rows = np.zeros((m.shape[0], m.shape[1]))
    total = 0.0
    for i in prange(m.shape[0]):
        row = np.zeros(m.shape[1])
        row[: i % m.shape[1]] = m[i, : i % m.shape[1]]
        rows[i] = row  # copied into the result: the buffer may be reused
        total += row.max()
    return rows, total


def growing(n):
    acc = 0.0
    for i in prange(n):
        t = np.ones(i + 1)  # its size changes: allocated each iteration
        acc += t.sum()
    return acc


def test_hoisted_allocations_give_pythons_results():
    kinds = njit(parallel=True)(scratch_kinds)
    for n, m in [(0, 3), (1, 1), (5, 2), (97, 6)]:
        assert_same_array(kinds(n, m), scratch_kinds(n, m))
    rows = njit(parallel=True)(scratch_rows)
    data = np.arange(60.0).reshape(12, 5) - 17
    got, expected = rows(data), scratch_rows(data)
    assert_same_array(got[0], expected[0])
    assert got[1] == expected[1]
    assert njit(parallel=True)(growing)(40) == growing(40)


def test_hoisting_is_reported_and_refused_where_unsafe():
    kinds = _report(njit(parallel=True)(scratch_kinds), 3, 2)
    assert sorted(name for _, name in kinds.hoisted_allocations()) == ["e", "f", "o", "z"]
    assert "allocation of z hoisted" in kinds.format(2)
    rows = _report(njit(parallel=True)(scratch_rows), np.ones((3, 2)))
    assert [name for _, name in rows.hoisted_allocations()] == ["row"]
    assert _report(njit(parallel=True)(growing), 5).hoisted_allocations() == []

    def kept_in_a_tuple(n):
        acc = 0.0
        for i in prange(n):
            t = np.zeros(3)
            pair = (t, i)
            pair[0][0] = i
            acc += pair[0][0]
        return acc

    report = _report(njit(parallel=True)(kept_in_a_tuple), 6)
    assert report.hoisted_allocations() == []
    assert njit(parallel=True)(kept_in_a_tuple)(6) == kept_in_a_tuple(6)


def test_hoisted_allocations_are_freed():
    assert_frees_all(njit(parallel=True)(scratch_kinds), lambda: 40, lambda: 3, calls=30)


# ---------------------------------------------------------------- fusion through a[:]


def test_whole_slice_assignment_fuses_with_its_producer():
    def filled(n):
        a = np.ones(n)
        a[:] = 7
        return a

    def through_views(n):
        a = np.arange(n) * 1.0
        b = a[:]
        a[:] = b[::-1] + a  # reversed: reads other elements, must not fuse wrongly
        c = a[0:]
        c[:] = c * 2
        return a, b

    report = _report(njit(parallel=True)(filled), 5)
    assert report.count_parfors() == 1
    jitted, views = njit(parallel=True)(filled), njit(parallel=True)(through_views)
    for n in (0, 1, 4, 1001):
        assert_same_array(jitted(n), filled(n))
        for got, expected in zip(views(n), through_views(n)):
            assert_same_array(got, expected)
