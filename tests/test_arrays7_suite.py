"""arrays7: NumPy functions and argument forms added this round (tensordot axes as lists,
einsum '...' and size-1 broadcasting, n-d gradient, np.array of a str) and the argument errors
of argpartition/allclose/angle, each compiled function compared with NumPy running the same
Python function on many inputs."""

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError
from ember.typed import List
from tests.oracle import assert_frees_all, assert_same_array

RNG = np.random.default_rng(7)


def _compiled_and_python(source: str):
    namespace = {"np": np}
    exec(source, namespace)
    return njit(namespace["f"]), namespace["f"]


def _assert_close(got, want, rtol=1e-12):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _assert_close(g, w, rtol)
        return
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape, (got_a.shape, want_a.shape)
    assert got_a.dtype == want_a.dtype, (got_a.dtype, want_a.dtype)
    np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=1e-12)


# ---------------------------------------------------------------------------- tensordot


def test_tensordot_axes_given_as_lists_of_constants():
    @njit
    def lists_in_tuple(a, b):
        return np.tensordot(a, b, axes=([1, 0], [0, 1]))

    @njit
    def list_of_lists(a, b):
        return np.tensordot(a, b, axes=[[1], [0]])

    a = RNG.normal(size=(3, 4, 5))
    b = RNG.normal(size=(4, 3, 2))
    _assert_close(lists_in_tuple(a, b), np.tensordot(a, b, axes=([1, 0], [0, 1])))
    m, n = RNG.normal(size=(2, 3)), np.arange(12).reshape(3, 4)
    _assert_close(list_of_lists(m, n), np.tensordot(m, n, axes=[[1], [0]]))
    _assert_close(list_of_lists(m, n[:, ::-1]), np.tensordot(m, n[:, ::-1], 1))
    with pytest.raises(ValueError, match="shape-mismatch"):
        lists_in_tuple(a, RNG.normal(size=(3, 4, 2)))


def test_tensordot_list_axes_of_different_lengths_is_a_typing_error():
    @njit
    def f(a, b):
        return np.tensordot(a, b, axes=([1, 0], [0]))

    with pytest.raises(TypingError, match="shape-mismatch"):
        f(np.ones((2, 3)), np.ones((3, 2)))


# ---------------------------------------------------------------------------- einsum

EINSUM_CASES = [
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ij...->...", [(3, 4, 2)]),
    ("ij,ij->i", [(3, 1), (3, 4)]),
    ("a...b,b...->a...", [(2, 3, 4), (4, 3)]),
    ("...i,...i", [(2, 1, 3), (4, 3)]),
]


def test_einsum_ellipsis_and_broadcasting_match_numpy():
    for subscripts, shapes in EINSUM_CASES:
        operands = [RNG.normal(size=shape) for shape in shapes]
        names = ", ".join(f"op{k}" for k in range(len(shapes)))
        compiled, python = _compiled_and_python(
            f"def f({names}):\n    return np.einsum({subscripts!r}, {names})\n"
        )
        _assert_close(compiled(*operands), python(*operands))


def test_einsum_broadcast_errors():
    @njit
    def f(a, b):
        return np.einsum("...i,...i->...", a, b)

    with pytest.raises(ValueError, match="einsum"):
        f(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(TypingError, match="ellipsis"):
        njit(lambda a: np.einsum("...i->i", a))(np.ones((2, 2)))
    with pytest.raises(TypingError, match="more labels"):
        njit(lambda a: np.einsum("...ijk", a))(np.ones((2, 2)))


# ---------------------------------------------------------------------------- gradient

GRADIENT_CASES = [
    ("np.gradient(a, b, edge_order=2)", "yx"),
    ("np.gradient(a, 2.0, edge_order=2)", "y"),
    ("np.gradient(a.T, b, axis=-2)", "mx"),
    ("np.gradient(a, 2.0, b)", "mx"),
    ("np.gradient(a, axis=(0, 2))", "c"),
    ("np.gradient(a[:, ::2])", "i"),
    ("np.gradient(a)", "z"),
]


def test_gradient_matches_numpy():
    values = {
        "y": RNG.normal(size=7),
        "x": None,
        "m": RNG.normal(size=(4, 5)),
        "c": RNG.normal(size=(3, 4, 5)).astype(np.float32),
        "i": np.arange(12).reshape(3, 4) ** 2 - 20,
        "z": RNG.normal(size=5) + 1j * RNG.normal(size=5),
    }
    for expr, kinds in GRADIENT_CASES:
        args = [values[kinds[0]]]
        if len(kinds) > 1:  # coordinates along the axis used: irregular, increasing
            length = args[0].shape[-1]
            args.append(np.cumsum(RNG.random(length)) + 0.1)
        names = ", ".join("ab"[: len(args)])
        compiled, python = _compiled_and_python(f"def f({names}):\n    return {expr}\n")
        rtol = 1e-5 if args[0].dtype == np.float32 else 1e-12
        _assert_close(compiled(*args), python(*args), rtol)


def test_gradient_errors_match_numpy():
    y = RNG.normal(size=7)
    m = RNG.normal(size=(4, 5))
    cases = [
        ("np.gradient(a, b, edge_order=c)", (y[:1], 1.0, 1)),
        ("np.gradient(a, b, edge_order=c)", (y[:2], 1.0, 2)),
        ("np.gradient(a, b, edge_order=c)", (y, y[:3], 1)),
        ("np.gradient(a, b, edge_order=c)", (y, y, 3)),
        ("np.gradient(a, axis=b)", (m, 2)),
        ("np.gradient(a, axis=(1, 1))", (m,)),
    ]
    for expr, args in cases:
        names = ", ".join("abc"[: len(args)])
        compiled, python = _compiled_and_python(f"def f({names}):\n    return {expr}\n")
        with pytest.raises(ValueError) as expected:  # AxisError is a ValueError too
            python(*args)
        with pytest.raises(type(expected.value), match=str(expected.value)[:20]):
            compiled(*args)
    with pytest.raises(TypingError, match="dtype bool"):
        njit(lambda a: np.gradient(a))(np.ones(3, np.bool_))


def test_gradient_frees_its_results():
    @njit
    def f(a):
        gx, gy = np.gradient(a)
        return gx.sum() + gy.sum()

    assert_frees_all(f, lambda: np.arange(20.0).reshape(4, 5))


# ---------------------------------------------------------------------------- array of a str


def test_array_of_a_constant_str_is_a_0d_unicode_array():
    def kinds():
        s = "大处 着眼"
        return np.asarray("hello world"), np.array(""), np.asarray(s)

    for got, want in zip(njit(kinds)(), kinds(), strict=True):
        assert_same_array(got, want)


def test_asarray_of_typed_list_of_objects_is_refused():
    strings = List()
    strings.append("a")
    with pytest.raises(TypingError, match="limited to Boolean and Number"):
        njit(lambda x: np.asarray(x))(strings)


# ---------------------------------------------------------------------------- argument errors


def test_argpartition_argument_errors():
    f = njit(lambda a, k: np.argpartition(a, k))
    for a, kth, message in [
        (4, 0, "must be an array-like"),
        ("Sausages", 0, "must be an array-like"),
        (np.array(1), 0, "at least 1-D"),
        (np.arange(10), 9.0, "must be integer"),
        (np.arange(10), (3.3, 4.4), "must be integer"),
    ]:
        with pytest.raises(TypingError, match=message):
            f(a, kth)
    a = RNG.normal(size=9)
    for kth in (0, 4, -1, (1, 5)):
        got = f(a, kth)
        np.testing.assert_array_equal(np.sort(a[got]), np.sort(a))
        for k in np.atleast_1d(kth):
            assert a[got][k] == np.sort(a)[k]


def test_allclose_argument_errors_and_broadcasting():
    f = njit(lambda a, b, r, t, e: np.allclose(a, b, r, t, e))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        f(np.ones(3), np.ones(2), 1e-5, 1e-8, False)
    for args, message in [
        (("hello", 3, 1e-5, 1e-8, False), '"a" must be array-like'),
        ((3, "hello", 1e-5, 1e-8, False), '"b" must be array-like'),
        ((2, 3, False, 1e-8, False), '"rtol" must be a floating point'),
        ((2, 3, 1e-5, False, False), '"atol" must be a floating point'),
        ((2, 3, 1e-5, 1e-8, 1), '"equal_nan" must be a boolean'),
    ]:
        with pytest.raises(TypingError, match=message):
            f(*args)
    x = np.array([1.0, np.nan, 1e10])
    for b, equal_nan in [(x, True), (x, False), (x + 1e-9, True), (x * 1.001, True)]:
        assert f(x, b, 1e-5, 1e-8, equal_nan) == np.allclose(x, b, 1e-5, 1e-8, equal_nan)
    assert f(np.ones((2, 3)), 1.0, 1e-5, 1e-8, False) is True


def test_angle_of_a_str_is_a_typing_error():
    with pytest.raises(TypingError, match='"z" must be a complex'):
        njit(lambda z: np.angle(z))("hello")


# ---------------------------------------------------------------------------- cov, corrcoef


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's: one observation per variable
def test_cov_and_corrcoef_of_one_row_match_numpy():
    """NumPy 2 transposes any 2-d m for rowvar=False (one row: one observation of each
    variable); a tuple of one row is one variable: a scalar result, as NumPy's."""

    def stats(m):
        return np.cov(m, rowvar=False), np.corrcoef(m, rowvar=False)

    def one_row(m):
        return np.cov(m), np.corrcoef(m)

    for m in (np.array([[1.1, 2.2, 1.5]]), np.array([[1.1, 2.2], [1.5, 3.0], [0.5, 1.0]])):
        for got, want in zip(njit(stats)(m), stats(m), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    row = ((1.1, 2.2, 1.5),)
    for got, want in zip(njit(one_row)(row), one_row(row), strict=True):
        assert np.ndim(got) == np.ndim(want) == 0
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_numpy_scalar_instance_as_dtype():
    @njit
    def f(n):
        return np.eye(n, dtype=np.complex64(1)), np.zeros(n, dtype=np.int16(3))

    for got, want in zip(f(3), (np.eye(3, dtype=np.complex64), np.zeros(3, np.int16)), strict=True):
        assert_same_array(got, want)


# ---------------------------------------------------------------------------- searchsorted, select


def test_searchsorted_follows_numpys_search_step_for_step():
    """NumPy's bounds carry over between values: an unsorted `a` (its positions are NumPy's
    choice, not a contract) still gives NumPy's answers, NaN and inf included."""
    left = njit(lambda a, v: np.searchsorted(a, v))
    right = njit(lambda a, v: np.searchsorted(a, v, side="right"))
    pool = np.array([*range(-5, 30), *[np.nan] * 5, *[np.inf] * 3, *[-np.inf] * 3])
    for i in range(150):
        a = RNG.choice(pool, RNG.choice([5, 10, 25]))
        v = RNG.choice(pool, 10 + i % 3 - 1)
        for sample in (a, np.sort(a)):
            np.testing.assert_array_equal(left(sample, v), np.searchsorted(sample, v))
            np.testing.assert_array_equal(
                right(sample, v), np.searchsorted(sample, v, side="right")
            )
    empty = np.zeros(0)
    np.testing.assert_array_equal(left(pool, empty), np.searchsorted(pool, empty))


def test_select_result_dtype_promotes_with_the_default():
    f = njit(lambda c, ch, d: np.select(c, ch, d))
    x = np.arange(10)
    cases = [
        ([x < 3, x > 5], [x, x**2], 15.3),
        ([x < 3, x > 5], [x.astype(np.int32), x.astype(np.int32)], 7),
        ([x < 3, x > 5], [x.astype(np.float32), -x.astype(np.float32)], 0.5),
        ([x < 3], [x * 1j], 2),
    ]
    for condlist, choices, default in cases:
        assert_same_array(f(condlist, choices, default), np.select(condlist, choices, default))


# ---------------------------------------------------------------------------- small matrices


def test_unwrap_keeps_numpys_dtype():
    """Integers with an integer period unwrap in integers (an odd period has no ambiguous
    boundary); float32 stays float32 (the period is a Python number to NumPy)."""
    f = njit(lambda p, period: np.unwrap(p, period=period))
    cases = [
        (np.array([0, 75, 150, 225, 300, 180]), 360),
        (np.array([2, 3, 4, 5, 2, 3, 4, 5]), 255),
        (np.array([0, 2, 4, 6, -2, 1, 9, -7]), 4),
        (np.array([0, 2, 4, 6, -2, 1, 9, -7]), 5),
        (np.array([0, 2, 4, 6, -2, 1]), 2 * np.pi),
    ]
    for p, period in cases:
        assert_same_array(f(p, period), np.unwrap(p, period=period))
    p32 = np.linspace(0, 20, 9).astype(np.float32)
    got, want = njit(lambda p: np.unwrap(p))(p32), np.unwrap(p32)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_triangles_of_vectors_negative_tri_sizes_and_boolean_vander():
    def shapes(v, n):
        return np.tril(v), np.triu(v, 1), np.tril(v, -1), np.tri(n), np.tri(3, n), np.tri(n, 3, 1)

    for v, n in ((np.arange(4.0), -2), (np.arange(3), 2), (np.zeros(0), 0)):
        for got, want in zip(njit(shapes)(v, n), shapes(v, n), strict=True):
            assert_same_array(got, want)
    x = np.array([True, False, True])
    assert_same_array(njit(lambda x: np.vander(x, 3, True))(x), np.vander(x, 3, True))


def test_trim_zeros_with_a_runtime_trim_string():
    f = njit(lambda a, trim: np.trim_zeros(a, trim))
    cases = [
        (np.array([0, 1, 2, 0, 0]), "FB"),
        (np.array([0, 1, 2, 0]), "B"),
        (np.array([0, 0, 1, 2, 5, 0]), "f"),
        (np.array([0, 0, 1, 0]), "bf"),
        (np.zeros(3, np.int64), "fb"),
    ]
    for a, trim in cases:
        assert_same_array(f(a, trim), np.trim_zeros(a, trim))


# ---------------------------------------------------------------------------- scalar questions


def test_iscomplexobj_of_optionals_none_and_str():
    @njit
    def maybe(x, cond):
        y = x if cond else None
        return np.iscomplexobj(y), np.isrealobj(y)

    for x in (1, 1 + 0j, np.asarray([3, 1 + 0j]), "hello world", np.arange(2.0)):
        for cond in (True, False):
            y = x if cond else None
            assert maybe(x, cond) == (np.iscomplexobj(y), np.isrealobj(y))


def test_uint64_compared_with_a_bool():
    f = njit(lambda a, b: (a == b, a < b, a > b))
    for a in (np.uint64(2**63), np.uint64(1), np.uint64(0)):
        for b in (True, False):
            assert f(a, b) == (a == b, a < b, a > b)
    values = np.array([0, 1, 2**63], np.uint64)
    np.testing.assert_array_equal(
        njit(lambda a, b: np.isin(a, b))(values, np.array([True])),
        np.isin(values, np.array([True])),
    )


def test_cross_diagflat_delete_vander_of_lists_and_tuples():
    def forms(a, b, v, arr, obj):
        return (np.cross(a, b), np.diagflat(v, -1), np.delete(arr, obj), np.delete(arr, 1),
                np.vander(arr, 3, True))  # fmt: skip

    args = ((1, 2, 3), [4.5, 5.0, 6.0], ((1, 2), (3, 4)), [1, 2, 3, 4], [0, 3])
    for got, want in zip(njit(forms)(*args), forms(*args), strict=True):
        assert_same_array(got, want)
    with pytest.raises(TypingError, match="Integer dtype"):
        njit(lambda a, o: np.delete(a, o))([1, 2, 3], [1.0])


def test_complex_geomspace_matches_numpy():
    f = njit(lambda a, b, n, endpoint: np.geomspace(a, b, n, endpoint))
    cases = [(1, 1j, 5), (1 + 1j, 1000 + 1000j, 4), (-1j, -100j, 3), (3j, -3j, 5), (1j, 1, 1)]
    for start, stop, num in cases:
        for endpoint in (True, False):
            want = np.geomspace(start, stop, num, endpoint)
            got = f(complex(start), complex(stop), num, endpoint)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)
    with pytest.raises(ValueError, match="cannot include zero"):
        f(0j, 1j, 3, True)


def test_delete_with_a_slice_and_unsupported_positions():
    """np.delete(a, slice) deletes from the flattened array (it recursed without end before);
    positions it cannot take are a TypingError, not a recursion."""
    f = njit(lambda a, o: np.delete(a, o))
    grid = np.arange(12).reshape(3, 4)
    for a, obj in [(np.arange(10), slice(10)), (grid, slice(None, None, -3)), (grid, slice(7, 99))]:
        assert_same_array(f(a, obj), np.delete(a, obj))
    assert_same_array(f([1, 2, 3, 4], slice(1, 3)), np.delete([1, 2, 3, 4], slice(1, 3)))
    with pytest.raises(TypingError):
        f(np.arange(10), 1.5)
