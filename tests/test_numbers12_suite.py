"""numbers12: NumPy scalars of 64 bits are strong beside arrays (NEP 50), Python numbers weak;
uint64 with a constant int that is not negative stays uint64. NumPy (the py_func) is the
oracle throughout."""

import warnings

import numpy as np

import ember
from ember import njit, types


def _same(got, expected):
    """Equal values and dtypes (NumPy's result is the reference), item by item for tuples."""
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's overflow warnings: the values are compared
        return fn(*args)


_ARRAYS = (
    np.array([-3, 1, 7, 100], np.int8),
    np.array([0, 1, 7, 200], np.uint8),
    np.array([-3, 1, 7, 70000], np.int32),
    np.array([1.5, -2.25, 0.1, 3e5], np.float32),
    np.array([1.5 + 1j, -2.25, 0.1j, 3], np.complex64),
)


def _beside_arrays(a8, u8, i32, f32, c64, s):
    return a8 + s, s - u8, i32 * s, f32 * s, s / f32, c64 + s, a8 == s


def test_scalars_beside_arrays_promote_as_numpy():
    """NumPy scalars (np.int64(100), np.float64(0.1)...) are strong: `int8_array +
    np.int64(100)` is int64; Python numbers are weak: `int8_array + 100` is int8."""
    jitted = ember.njit(_beside_arrays)
    scalars = (np.int64(100), np.uint64(5), np.float64(0.1), np.complex128(0.5 + 2j), 100, 0.1)
    for s in scalars:
        _same(jitted(*_ARRAYS, s), _quiet(_beside_arrays, *_ARRAYS, s))
    int8_plus = jitted(*_ARRAYS, np.int64(100))[0]
    assert int8_plus.dtype == np.int64 and int8_plus[3] == 200  # no int8 wrap to -56
    assert jitted(*_ARRAYS, 100)[0].dtype == np.int8


def _made_inside(a8, f32, k, x, items):
    n = np.int64(k)
    return (
        a8 + n, a8 * (n + 1), a8 - (-n), a8 + items[0], a8 + k, a8 + int(n),
        f32 * np.float64(x), f32 * x, f32 + items[1] * 0.5, np.add(a8, n),
        np.where(a8 > 0, a8, n), a8 + np.int64(k) // 2, [a8 + item for item in items],
    )  # fmt: skip


def test_numpy_scalars_made_in_compiled_code_are_strong():
    """np.int64(k), an array's item (indexed or iterated) and arithmetic on them are NumPy
    scalars, as in NumPy; int(n), a Python int argument and constants stay weak."""
    jitted = ember.njit(_made_inside)
    a8 = np.array([-3, 1, 7, 100], np.int8)
    f32 = np.array([1.5, -2.25, 0.1, 3e5], np.float32)
    items = np.array([100.0, 0.1])
    for k, x in ((100, 0.1), (-7, 2.5), (0, -1e-3)):
        _same(jitted(a8, f32, k, x, items), _quiet(_made_inside, a8, f32, k, x, items))
    items_int = np.array([100, 3])
    _same(jitted(a8, f32, 5, 0.5, items_int), _quiet(_made_inside, a8, f32, 5, 0.5, items_int))


def test_python_number_and_numpy_scalar_arguments_compile_apart():
    """f(a, 100) and f(a, np.int64(100)) are two specializations (weak and strong), also
    once the native entry takes the calls; an explicit signature takes both."""
    jitted = ember.njit(lambda a, s: a + s)
    a8 = np.array([100, -100], np.int8)
    for _ in range(40):  # past the calls that install the native entry
        assert jitted(a8, np.int64(100)).dtype == np.int64
        assert jitted(a8, 100).dtype == np.int8
        assert jitted(a8, np.float64(0.5)).dtype == np.float64
        assert jitted(a8, 0.5).dtype == np.float64  # int8 with a Python float: float64
    assert list(jitted(a8, np.int64(100))) == [200, 0]
    kinds = sorted(str(type(sig[1]).__name__) for sig in jitted.signatures)
    assert kinds == ["Float", "Integer", "NumPyFloat", "NumPyInteger"]
    assert ember.typeof(np.int64(1)) is types.int64  # typeof keeps Numba's answer
    explicit = ember.njit("float64(float64)")(lambda x: x * 2.0)
    for _ in range(40):
        assert explicit(np.float64(1.25)) == 2.5 and explicit(1.25) == 2.5
    assert len(explicit.signatures) == 1


def _inplace(a, s):
    a += s
    return a


def test_in_place_operators_with_numpy_scalars():
    jitted = ember.njit(_inplace)
    for values, s in (
        (np.array([1, 2], np.int8), np.int64(100)),
        (np.array([1.5, 2.0], np.float32), np.float64(0.1)),
        (np.array([1, 2], np.int64), np.int64(3)),
    ):
        _same(jitted(values.copy(), s), _inplace(values.copy(), s))


def _uint64_with_constants(u):
    return (
        u + 1, u - 1, u * 2, u // 3, u % 7, u | 1, u & 255, u ^ 1, u ** 1, (u + 1) // 2,
        1 + u, u - 5, u >> 1, u / 2,
    )  # fmt: skip


def test_uint64_with_a_constant_stays_uint64():
    """NumPy's values: np.uint64(2**64 - 2) + 1 is 2**64 - 1 (Numba's int64 gives -1);
    below zero it wraps as NumPy's uint64 does."""
    jitted = ember.njit(_uint64_with_constants)
    for value in (2**64 - 2, 2**63, 2**63 - 1, 3, 0):
        got = jitted(np.uint64(value))
        expected = _quiet(_uint64_with_constants, np.uint64(value))
        for g, e in zip(got, expected):
            assert g == e and type(g) is type(e.item()), (value, g, e)

    @ember.njit
    def count_up(n):
        u = np.uint64(2**64 - 10)
        for _ in range(n):
            u += 1
        return u

    assert count_up(5) == 2**64 - 5


def test_extensions_registered_for_plain_numbers_take_numpy_scalars():
    """An extension's lowering registered for float64 and int64 instances serves the NumPy
    scalars that array items and np.float64 arguments are (same values, same data)."""
    from ember.extending import lower_builtin, type_callable

    def weighted(x, k):
        return x * k + 1.0

    @type_callable(weighted)
    def type_weighted(context):
        def typer(x, k):
            if isinstance(x, types.Float) and isinstance(k, types.Integer):
                return types.float64
            return None

        return typer

    @lower_builtin(weighted, types.float64, types.int64)
    def lower_weighted(context, builder, sig, args):
        x, k = args
        scaled = builder.fmul(x, builder.sitofp(k, x.type))
        return builder.fadd(scaled, x.type(1.0))

    @njit
    def over_items(values, counts):
        total = 0.0
        for i in range(values.size):
            total += weighted(values[i], counts[i])
        return total

    @njit
    def once(x, k):
        return weighted(x, k)

    values, counts = np.array([0.5, -2.0, 3.25]), np.array([3, 0, -2])
    assert over_items(values, counts) == sum(weighted(v, int(c)) for v, c in zip(values, counts))
    for x, k in ((np.float64(1.5), np.int64(4)), (1.5, 4), (np.float64(-0.0), 7)):
        assert once(x, k) == weighted(float(x), int(k))
