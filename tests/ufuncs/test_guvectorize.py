"""`@guvectorize`: generalized NumPy ufuncs whose loops call ember-compiled kernels on
sub-array views, checked against the same kernel run by CPython on NumPy arrays and against
plain NumPy."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import ember
from ember import guvectorize, njit
from ember.ufuncs import GUFunc
from ember.ufuncs.gufunc import parse_layout


def add_scalar(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + y


def total(x, out):
    acc = 0
    for i in range(x.shape[0]):
        acc += x[i]
    out[0] = acc


def matmul_kernel(a, b, out):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = 0.0
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            out[i, j] = acc


def moving_average(x, window, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        if i >= window:
            acc -= x[i - window]
        out[i] = acc / min(i + 1, window)


def reference_gufunc(py_func, layout: str, out_dtypes, *inputs):
    """The kernel run by CPython over every loop index (np.vectorize with the layout), as
    `py_func(*inputs, *outputs)` writing its outputs."""
    parsed = parse_layout(layout)

    def call(*args):
        sizes = {}
        for arg, dims in zip(args, parsed.inputs):
            sizes.update(zip(dims, np.shape(arg)))
        outputs = [np.zeros([sizes[d] for d in dims] or [1], dtype)
                   for dims, dtype in zip(parsed.outputs, out_dtypes)]  # fmt: skip
        py_func(*args, *outputs)
        results = [o if dims else o[0] for o, dims in zip(outputs, parsed.outputs)]
        return results[0] if len(results) == 1 else tuple(results)

    return np.vectorize(call, signature=layout.replace(" ", ""))(*inputs)


ADD_SIGS = [f"void({t}[:], {t}, {t}[:])" for t in ("float64", "int64", "float32", "complex128")]
add_scalar_gufunc = guvectorize(ADD_SIGS, "(n),()->(n)")(add_scalar)
total_gufunc = guvectorize(
    ["void(float64[:], float64[:])", "void(int32[:], int64[:])", "void(uint8[:], uint8[:])"],
    "(n)->()",
)(total)
matmul = guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])"], "(m,n),(n,p)->(m,p)")(
    matmul_kernel
)


def test_is_a_genuine_generalized_ufunc():
    f = add_scalar_gufunc
    assert isinstance(f, np.ufunc)
    assert f.signature == "(n),()->(n)"
    assert (f.nin, f.nout) == (2, 1) and f.types == ["dd->d", "ll->l", "ff->f", "DD->D"]


@pytest.mark.parametrize("dtype", ["f8", "i8", "f4", "c16"])
def test_dtype_families_match_cpython(dtype):
    x = (np.arange(12) * 3 - 7).astype(dtype).reshape(3, 4)
    y = np.array([1, 2, 5]).astype(dtype)[:, None]
    result = add_scalar_gufunc(x, y)
    assert result.dtype == np.dtype(dtype)
    expected = reference_gufunc(add_scalar, "(n),()->(n)", [dtype], x, y)
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("loop_ndim", [0, 1, 2])
def test_loop_dimensions_from_zero_to_two_and_broadcasting(loop_ndim):
    shape = (2, 3)[:loop_ndim]
    a = np.random.default_rng(1).uniform(-1, 1, (*shape, 4, 5))
    b = np.random.default_rng(2).uniform(-1, 1, (5, 3))  # no loop dimensions: broadcast
    np.testing.assert_allclose(matmul(a, b), a @ b, rtol=1e-12)
    assert matmul(a, b).shape == (*shape, 4, 3)


def test_scalar_outputs_and_layouts_of_inputs():
    m = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(total_gufunc(m), m.sum(axis=-1))
    np.testing.assert_array_equal(total_gufunc(np.asfortranarray(m)), m.sum(axis=-1))
    np.testing.assert_array_equal(total_gufunc(m[:, ::2, ::-1]), m[:, ::2, ::-1].sum(axis=-1))
    np.testing.assert_array_equal(total_gufunc(m, axis=1), m.sum(axis=1))
    ints = np.arange(10, dtype=np.int32).reshape(2, 5)
    assert total_gufunc(ints).dtype == np.int64
    np.testing.assert_array_equal(total_gufunc(ints), ints.sum(axis=1))
    wrapped = total_gufunc(np.full(300, 200, dtype=np.uint8))
    assert wrapped == (300 * 200) % 256  # uint8 accumulation wraps, as compiled code does


def test_outputs_written_in_place():
    x = np.arange(6.0).reshape(2, 3)
    out = np.full((2, 3), -1.0)
    returned = add_scalar_gufunc(x, 10.0, out)
    assert returned is out
    np.testing.assert_array_equal(out, x + 10.0)
    column = np.zeros((3, 2)).T  # a non-contiguous output
    add_scalar_gufunc(x, 1.0, out=column)
    np.testing.assert_array_equal(column, x + 1.0)


def test_empty_loop_and_core_dimensions():
    assert add_scalar_gufunc(np.empty((0, 3)), 1.0).shape == (0, 3)
    np.testing.assert_array_equal(total_gufunc(np.empty((2, 0))), [0.0, 0.0])


def test_moving_average_matches_numpy():
    x = np.random.default_rng(3).uniform(0, 10, (4, 50))
    smooth = guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->(n)")(moving_average)
    expected = reference_gufunc(moving_average, "(n),()->(n)", ["f8"], x, 5)
    np.testing.assert_allclose(smooth(x, 5), expected, rtol=1e-12)
    window = np.convolve(x[0], np.ones(5), "valid") / 5
    np.testing.assert_allclose(smooth(x, 5)[0, 4:], window, rtol=1e-12)


def test_several_outputs():
    def min_max(x, low, high):
        low[0] = x[0]
        high[0] = x[0]
        for v in x:
            low[0] = min(low[0], v)
            high[0] = max(high[0], v)

    f = guvectorize(["void(float64[:], float64[:], float64[:])"], "(n)->(),()")(min_max)
    m = np.random.default_rng(4).uniform(-5, 5, (3, 7))
    low, high = f(m)
    np.testing.assert_array_equal(low, m.min(axis=1))
    np.testing.assert_array_equal(high, m.max(axis=1))


def test_writable_args_write_into_inputs():
    def double_in_place(x, out):
        for i in range(x.shape[0]):
            x[i] *= 2
            out[i] = x[i]

    sig = ["void(float64[:], float64[:])"]
    by_name = guvectorize(sig, "(n)->(n)", writable_args=("x",))(double_in_place)
    by_index = guvectorize(sig, "(n)->(n)", writable_args=(0,))(double_in_place)
    x = np.arange(4.0)
    np.testing.assert_array_equal(by_name(x), [0.0, 2.0, 4.0, 6.0])
    np.testing.assert_array_equal(x, [0.0, 2.0, 4.0, 6.0])
    strided = np.arange(8.0)[::2]
    by_index(strided)
    np.testing.assert_array_equal(strided, [0.0, 4.0, 8.0, 12.0])
    with pytest.raises(ValueError, match="writable_args"):
        guvectorize(sig, "(n)->(n)", writable_args=("nope",))(double_in_place)


def test_parallel_target_matches_serial():
    sig = ["void(float64[:,:], float64[:,:], float64[:,:])"]
    parallel = guvectorize(sig, "(m,n),(n,p)->(m,p)", target="parallel")(matmul_kernel)
    a = np.random.default_rng(5).uniform(-1, 1, (400, 8, 6))
    b = np.random.default_rng(6).uniform(-1, 1, (400, 6, 7))
    np.testing.assert_array_equal(parallel(a, b), matmul(a, b))
    np.testing.assert_allclose(parallel(a, b), a @ b, rtol=1e-12)
    np.testing.assert_array_equal(parallel(a[:1], b[:1]), matmul(a[:1], b[:1]))


def test_unsupported_dtypes_raise_numpys_type_error():
    with pytest.raises(TypeError, match="not supported for the input types"):
        add_scalar_gufunc(np.array(["a"]), "b")


# ---------------------------------------------------------------------------- lazy


def test_lazy_gufunc_compiles_per_dtypes_and_needs_outputs():
    lazy = guvectorize("(n)->()")(total)
    assert isinstance(lazy, GUFunc)
    assert lazy.types == []
    out = np.zeros(2)
    lazy(np.ones((2, 3)), out)
    np.testing.assert_array_equal(out, [3.0, 3.0])
    ints = np.zeros(2, dtype=np.int32)
    lazy(np.arange(6, dtype=np.int32).reshape(2, 3), ints)
    np.testing.assert_array_equal(ints, [3, 12])
    assert lazy.types == ["d->d", "i->i"]
    with pytest.raises(TypeError, match="Too few arguments"):
        lazy(np.ones((2, 3)))
    lazy.disable_compile()
    with pytest.raises(TypeError):
        lazy(np.ones((2, 3), dtype=np.complex128), np.zeros(2, dtype=np.complex128))


def test_lazy_gufunc_scalar_inputs():
    lazy = guvectorize("(n),()->(n)")(add_scalar)
    out = np.empty((2, 3))
    x = np.arange(6.0).reshape(2, 3)
    lazy(x, 2.5, out)
    np.testing.assert_array_equal(out, x + 2.5)


# ---------------------------------------------------------------------------- errors


def test_errors_at_decoration():
    sig = ["void(float64[:], float64[:])"]
    for bad in ["(n->(n)", "n->n", "(n)->", "(n),(m)->"]:  # "(n),(m)": only inputs, valid
        with pytest.raises(ValueError, match="invalid gufunc layout"):
            guvectorize(sig, bad)(lambda a, b: None)
    with pytest.raises(TypeError, match="has 3 operands but function"):
        guvectorize(sig, "(n),(n)->(n)")(lambda a, b: None)
    with pytest.raises(TypeError, match="Signature mismatch"):
        guvectorize(["void(float64[:])"], "(n)->(n)")(lambda a, b: None)
    with pytest.raises(NameError, match="undefined output symbols: v,z"):  # Numba's rule
        guvectorize(sig, "(x),(x)->(x,z,v)")(lambda a, b, c: None)
    with pytest.raises(TypeError, match="type and shape signature mismatch for arg #1"):
        guvectorize(["void(float64[:,:], float64[:])"], "(n)->(n)")(lambda a, b: None)
    with pytest.raises(TypeError, match="scalar type float64 given for non scalar argument #2"):
        guvectorize(["void(float64[:], float64)"], "(n)->()")(lambda a, b: None)


def test_layout_parsing():
    layout = parse_layout("(m, n),(n,p) -> (m,p)")
    assert layout.inputs == (("m", "n"), ("n", "p")) and layout.outputs == (("m", "p"),)
    assert layout.dimension_names == ["m", "n", "p"]
    assert parse_layout("()->()").operands == ((), ())


# ---------------------------------------------------------------------------- pickling


def test_pickles_by_value():
    clone = pickle.loads(pickle.dumps(add_scalar_gufunc))
    assert clone.signature == "(n),()->(n)" and clone.types == add_scalar_gufunc.types
    np.testing.assert_array_equal(clone(np.arange(3.0), 1.0), [1.0, 2.0, 3.0])
    lazy = guvectorize("(n)->()")(total)
    lazy(np.ones(3), np.zeros(1))
    copy = pickle.loads(pickle.dumps(lazy))
    out = np.zeros(1)
    copy(np.arange(4.0), out)
    assert out[0] == 6.0 and copy.types == ["d->d"]


# ---------------------------------------------------------------------------- jitted code


def _double_into(x, out):
    for i in range(x.shape[0]):
        out[i] = 2 * x[i]


@njit
def call_add_scalar(x, y):
    return add_scalar_gufunc(x, y)


@njit
def call_total(m):
    return total_gufunc(m)


@njit
def call_matmul_into(a, b, out):
    matmul(a, b, out)
    return out


@njit
def call_lazy(x, out):
    lazy_gufunc(x, out)
    return out


lazy_gufunc = guvectorize("(n)->(n)")(_double_into)


def test_callable_in_jitted_code_with_broadcasting():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(call_add_scalar(x, 2.5), add_scalar_gufunc(x, 2.5))
    np.testing.assert_array_equal(call_add_scalar(np.arange(4), 1), add_scalar_gufunc(
        np.arange(4), 1))  # fmt: skip
    m = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(call_total(m), m.sum(axis=-1))
    np.testing.assert_array_equal(call_total(m[:, ::2, ::-1]), m[:, ::2, ::-1].sum(axis=-1))
    a = np.random.default_rng(7).uniform(-1, 1, (3, 4, 5))
    b = np.random.default_rng(8).uniform(-1, 1, (1, 5, 2))  # loop dimension of size 1
    out = np.zeros((3, 4, 2))
    assert call_matmul_into(a, b, out) is out
    np.testing.assert_allclose(out, a @ b, rtol=1e-12)
    with pytest.raises(ValueError, match="broadcast"):
        call_matmul_into(a, np.ones((2, 5, 2)), out)


def test_lazy_gufunc_in_jitted_code_compiles_for_its_dtypes():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = np.zeros((2, 3), dtype=np.int32)
    np.testing.assert_array_equal(call_lazy(x, out), 2 * x)
    assert "ii->i" not in lazy_gufunc.types and lazy_gufunc.types == ["i->i"]


@pytest.mark.parametrize(
    "x_shape, out_shape",
    [((1, 5), (5,)), ((3, 5), (1, 5)), ((3, 5), (2, 5)), ((2, 3, 5), (3, 5))],
)
def test_jitted_calls_need_outputs_of_the_whole_loop_shape(x_shape, out_shape):
    """As in Numba's compiled calls (and unlike NumPy for size-1 loop dimensions), an output
    passed in is never broadcast."""
    x, out = np.ones(x_shape), np.zeros(out_shape)
    with pytest.raises(ValueError, match="Loop and array shapes are incompatible|broadcast"):
        call_lazy(x, out)
    assert not out.any()  # refused before the kernel ran


def test_jitted_calls_free_what_they_allocate():
    m = np.arange(12.0).reshape(3, 4)
    call_total(m)
    before = ember.runtime.stats()
    for _ in range(3):
        call_total(m)
    after = ember.runtime.stats()
    assert after.live == before.live and after.alloc > before.alloc


def test_typeof_gives_the_function_type():
    assert ember.typeof(add_scalar_gufunc) == ember.types.Function(add_scalar_gufunc)
    assert ember.typeof(lazy_gufunc) == ember.types.Function(lazy_gufunc)


def test_signatures_as_ember_type_objects():
    sig = ember.void(ember.float64[:], ember.float64, ember.float64[:])
    f = guvectorize([sig], "(n),()->(n)")(add_scalar)
    np.testing.assert_array_equal(f(np.arange(3.0), 1.0), [1.0, 2.0, 3.0])


def replace_every_other(x, value):
    for t in range(0, x.shape[0], 2):
        x[t] = value[0]


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_layout_without_outputs_updates_writable_inputs_in_place(target):
    gufunc = guvectorize(["void(f8[:], f8[:])"], "(t),()", writable_args=("x",), target=target)(
        replace_every_other
    )
    assert (gufunc.nin, gufunc.nout) == (2, 0)
    for dtype in ("f8", "f4"):  # f4 is cast into a copy that is written back
        got, expected = np.zeros(7, dtype), np.zeros(7, dtype)
        assert gufunc(got, 3) == ()
        replace_every_other(expected, np.array([3.0]))
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("identity", [0, 1, None, "reorderable"])
def test_gufunc_identity_option(identity):
    gufunc = guvectorize(["void(f8[:], f8[:], f8[:])"], "(n),(n)->(n)", identity=identity)(
        lambda a, b, out: None
    )
    assert gufunc.identity == (None if identity == "reorderable" else identity)


def test_dynamic_gufunc_exports_numpys_methods():
    @guvectorize("(),()->()")
    def add_into(x, y, res):
        res[0] = x + y

    a, b = np.array([1, 2, 3, 4]), np.array([4, 3, 2, 1])
    res = np.zeros(4, dtype=np.int64)
    add_into(a, b, res)  # compiles the int64 loop
    np.testing.assert_array_equal(res, a + b)
    assert add_into.signature is None and add_into.identity is None
    assert add_into.reduce(a) == np.add.reduce(a)
    np.testing.assert_array_equal(add_into.accumulate(a), np.add.accumulate(a))
    np.testing.assert_array_equal(add_into.outer([0, 1], [1, 2]), np.add.outer([0, 1], [1, 2]))
    np.testing.assert_array_equal(add_into.reduceat(a, [0, 2]), np.add.reduceat(a, [0, 2]))
    got, expected = a.copy(), a.copy()
    add_into.at(got, [0, 1], np.array([1, 2]))
    np.add.at(expected, [0, 1], np.array([1, 2]))
    np.testing.assert_array_equal(got, expected)

    @guvectorize("(n)->(n)")
    def running_sum(x, res):
        acc = 0
        for i in range(x.shape[0]):
            acc += x[i]
            res[i] = acc

    running_sum(a, res)
    with pytest.raises(RuntimeError, match="Reduction not defined on ufunc with signature"):
        running_sum.reduce(a)


def test_shape_errors_of_gufunc_calls_in_jitted_code():
    @guvectorize("(n),(n) -> ()")
    def first_only(x, y, res):
        res[0] = x[0] + y[0]

    @njit
    def call(x, y, res):
        first_only(x, y, res)

    # NumPy's own message quotes the layout as written
    with pytest.raises(ValueError, match=r"signature \(n\),\(n\) -> \(\)"):
        first_only(np.ones((5, 2)), np.ones(3), np.zeros(5))
    with pytest.raises(ValueError, match="Operand has a mismatch in one of its core dimensions"):
        call(np.ones((5, 2)), np.ones(3), np.zeros(5))
    # an output passed in is not broadcast: fewer loop dimensions, or a size-1 loop axis
    for res in (np.zeros(3), np.zeros((5, 1))):
        with pytest.raises(ValueError, match="Loop and array shapes are incompatible"):
            call(np.ones((5, 3, 2)), np.ones(2), res)
    res = np.zeros((5, 3))
    x = np.arange(30.0).reshape(5, 3, 2)
    call(x, np.ones(2), res)
    np.testing.assert_array_equal(res, x[..., 0] + 1.0)


def test_core_mismatch_of_an_output_is_reported_before_loop_shapes():
    @guvectorize("(n),(m) -> (n)")
    def set_first(x, y, res):
        res[0] = 123

    @njit
    def call(x, y, res):
        set_first(x, y, res)

    x, y, res = np.empty((5, 3, 2)), np.empty(3), np.zeros((5, 3))
    with pytest.raises(ValueError, match="core dimension"):  # NumPy's check
        set_first(x, y, res)
    with pytest.raises(ValueError, match="Operand has a mismatch in one of its core dimensions"):
        call(x, y, res)
