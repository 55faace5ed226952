"""Attributes of ember ufuncs as Numba gives them: `nin`, `nout`, `nargs`, `identity` and
`signature` read inside jitted code equal the Python-side values NumPy reports; gufuncs keep
their function's `__qualname__`."""

import textwrap

import numpy as np
import pytest

from ember import guvectorize, njit, vectorize


def add(a, b):
    return a + b


def shifted(x, y, res):
    """Adds y to each element."""
    for i in range(x.shape[0]):
        res[i] = x[i] + y


def attribute_reader(ufunc, attribute):
    namespace = {}
    source = f"def read():\n    return ufunc.{attribute}\n"
    exec(textwrap.dedent(source), {"ufunc": ufunc}, namespace)
    return njit(namespace["read"])


dynamic_add = vectorize(add)
dynamic_add(1, 2)
typed_multiply = vectorize(["float64(float64, float64)", "int64(int64, int64)"], identity=1)(
    lambda a, b: a * b
)
negate = vectorize(["float64(float64)"])(lambda a: -a)


@pytest.mark.parametrize("ufunc", [dynamic_add, typed_multiply, negate])
@pytest.mark.parametrize("attribute", ["nin", "nout", "nargs", "identity", "signature"])
def test_ufunc_attributes_in_jitted_code(ufunc, attribute):
    assert attribute_reader(ufunc, attribute)() == getattr(ufunc, attribute)


def test_gufunc_keeps_qualified_name():
    def local_kernel(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] * y

    built = guvectorize(["void(int64[:], int64, int64[:])"], "(n),()->(n)")(local_kernel)
    assert built.__qualname__ == local_kernel.__qualname__
    assert built.__name__ == "local_kernel"
    module_level = guvectorize(["void(int64[:], int64, int64[:])"], "(n),()->(n)")(shifted)
    assert module_level.__qualname__ == "shifted"
    # NumPy's ufunc __doc__ leads with the call signature, then the function's docstring
    assert module_level.__doc__.rstrip().endswith("Adds y to each element.")
    np.testing.assert_array_equal(module_level(np.arange(4), 3), np.arange(4) + 3)


def test_jitted_ufunc_at_warns_experimental_and_broadcast_error():
    from ember.errors import NumbaExperimentalFeatureWarning

    add_pairs = vectorize(add)

    def add_at(a, indices, b):
        add_pairs.at(a, indices, b)

    compiled = njit(add_at)
    a = np.arange(5)
    expected = a.copy()
    np.add.at(expected, np.array([0, 3, 3]), 10)
    with pytest.warns(NumbaExperimentalFeatureWarning, match="ufunc.at feature is experimental"):
        compiled(a, np.array([0, 3, 3]), 10)
    np.testing.assert_array_equal(a, expected)
    with pytest.raises(ValueError, match="broadcast together with remapped shapes"):
        compiled(a, np.array([0, 1, 2]), np.array([1, 2]))


def test_jitted_gufunc_call_with_too_few_dimensions_says_numpys_words():
    from ember.errors import TypingError

    layout = "(n, m), (n, n, n) -> (m), (n, n)"

    @guvectorize(layout)
    def fill(x, y, res, out):
        res[0] = 123
        out[0, 0] = 456

    def call(x, y, res, out):
        fill(x, y, res, out)

    compiled = njit(call)
    x, y = np.arange(4).reshape(2, 2), np.arange(8).reshape(2, 2, 2)
    res, out = np.zeros(2, np.int64), np.zeros((2, 2), np.int64)
    compiled(x, y, res, out)
    assert res[0] == 123 and out[0, 0] == 456
    message = "fill: Input operand {} does not have enough dimensions (has {}, gufunc core with "
    with pytest.raises(TypingError) as flat_x:
        compiled(np.arange(4), y, res, out)
    assert f"{message.format(0, 1)}signature {layout} requires 2)" in str(flat_x.value)
    with pytest.raises(TypingError) as flat_y:
        compiled(x, np.arange(4).reshape(2, 2), res, out)
    assert f"{message.format(1, 2)}signature {layout} requires 3)" in str(flat_y.value)


def subtract(a, b):
    return a - b


summing = vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)(add)
differences = vectorize(["int64(int64, int64)"], identity=None)(subtract)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4)])
def test_jitted_reduce_without_axis_reduces_axis_zero(shape):
    a = np.arange(np.prod(shape)).reshape(shape)
    np.testing.assert_array_equal(njit(lambda x: summing.reduce(x))(a), np.add.reduce(a))
    np.testing.assert_array_equal(njit(lambda x: differences.reduce(x))(a), np.subtract.reduce(a))


def test_jitted_reduce_of_non_reorderable_ufunc_over_all_axes():
    from ember.errors import TypingError

    over_all = njit(lambda x: differences.reduce(x, axis=None))
    line = np.arange(10)
    assert over_all(line) == np.subtract.reduce(line, axis=None)
    with pytest.raises(TypingError, match="is not reorderable, so at most one axis"):
        over_all(np.arange(12).reshape(3, 4))


def power(a, b):
    return a**b


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_integer_power_kernel_with_negative_exponents_never_raises(target):
    # NumPy's error model, as Numba: a ** -n is 1 / a**n truncated (0 unless a is +-1), and
    # 0 ** -n converts inf to the smallest int64 (no exception, no warning)
    ufunc = vectorize(["int64(int64, int64)"], target=target)(power)
    bases = np.array([5, 0, 6, 2, -2, 1, -1, 3, -1])
    exponents = np.array([1, -1, 2, -1, -1, -5, -3, -2, -4])
    expected = [5, -(2**63), 36, 0, 0, 1, -1, 0, 1]
    np.testing.assert_array_equal(ufunc(bases, exponents), expected)
    numpy_model = njit(error_model="numpy")(power)
    assert [numpy_model(b, e) for b, e in zip(bases.tolist(), exponents.tolist())] == expected


def replace_second(x_t, z_t):
    for i in range(x_t.shape[0]):
        x_t[i] = z_t[0]


def test_writable_args_errors():
    sigs, layout = ["void(f8[:], f8[:])"], "(t),()"
    with pytest.raises(RuntimeError, match="no parameter named 'w_t'"):
        guvectorize(sigs, layout, writable_args=("w_t",))(replace_second)
    for bad in [(0, 1, 2, 5), (5,), (-1,)]:
        with pytest.raises(ValueError):
            guvectorize(sigs, layout, writable_args=bad)(replace_second)
    with pytest.raises(TypeError):
        guvectorize(sigs, layout, writable_args=(0,), target="cuda")(replace_second)
    in_place = guvectorize(sigs, layout, writable_args=("x_t",))(replace_second)
    x = np.arange(4.0)
    in_place(x, 7.0)
    np.testing.assert_array_equal(x, np.full(4, 7.0))


def test_numpy_ufunc_into_readonly_output_is_a_typing_error():
    from ember.errors import TypingError

    def sine_into(x):
        a = np.ones(x.shape, x.dtype)
        np.sin(a, x)

    frozen = np.ones(4)
    frozen.flags.writeable = False
    with pytest.raises(TypingError, match="ufunc 'sin' called with an explicit output that is"):
        njit(sine_into)(frozen)
    writable = np.zeros(4)
    njit(sine_into)(writable)
    np.testing.assert_array_equal(writable, np.sin(np.ones(4)))
