"""`@vectorize` and DUFunc: genuine NumPy ufuncs whose loops run ember-compiled kernels,
checked against the same kernel run by `np.vectorize` (CPython) and against plain NumPy."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, vectorize
from ember.errors import UnsupportedError
from ember.ufuncs import DUFunc
from ember.ufuncs.threads import MIN_PARALLEL_WORK

FAMILIES = {
    "bool": ["b1"],
    "signed": ["i1", "i2", "i4", "i8"],
    "unsigned": ["u1", "u2", "u4", "u8"],
    "float": ["f4", "f8"],
    "complex": ["c8", "c16"],
}
ALL_DTYPES = [np.dtype(code) for codes in FAMILIES.values() for code in codes]
_TYPE_NAMES = {np.dtype("b1"): "boolean"}


def type_name(dtype: np.dtype) -> str:
    return _TYPE_NAMES.get(dtype, dtype.name)


def reference(py_func, dtype, *args):
    """The kernel run by CPython on every element, with NumPy scalars of the operands' dtypes
    (float32 stays float32), converted to `dtype` (integers wrapped to its width, as compiled
    integer arithmetic does)."""
    dtype = np.dtype(dtype)
    arrays = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    flat = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    with np.errstate(all="ignore"):
        results = [py_func(*(a[i] for a in flat)) for i in range(math.prod(shape))]
    values = np.empty(len(results), dtype=object)
    values[:] = results
    if dtype.kind in "iu":
        bits = 8 * dtype.itemsize
        values = np.array([int(v) % (1 << bits) for v in values], dtype=np.uint64)
        return values.astype(f"u{dtype.itemsize}").view(dtype).reshape(shape)
    return values.astype(dtype).reshape(shape)


def sample(dtype: np.dtype, shape, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(1, 50, shape).astype(dtype)
    values = rng.uniform(-10, 10, shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(-10, 10, shape)
    return values.astype(dtype)


def multiply_add(a, b):
    return a * b + a


def select_larger(a, b):
    if a > b:
        return a
    return b


def logical_mix(a, b):
    return a != b


SIGNATURES = [f"{type_name(d)}({type_name(d)}, {type_name(d)})" for d in ALL_DTYPES
              if d.kind != "b"]  # fmt: skip
multiply_add_ufunc = vectorize(SIGNATURES)(multiply_add)
select_larger_ufunc = vectorize(
    ["int64(int64, int64)", "float64(float64, float64)", "float32(float32, float32)"]
)(select_larger)
logical_ufunc = vectorize(["boolean(boolean, boolean)"])(logical_mix)


def test_is_a_genuine_ufunc_with_numpys_attributes():
    f = multiply_add_ufunc
    assert isinstance(f, np.ufunc)
    assert (f.nin, f.nout, f.nargs) == (2, 1, 3)
    assert f.ntypes == len(SIGNATURES)
    assert f.types[0] == "bb->b" and "dd->d" in f.types and "FF->F" in f.types
    assert f.__name__ == "multiply_add" and f.identity is None
    assert f.signature is None


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "b"], ids=str)
def test_every_numeric_dtype_matches_cpython(dtype):
    a, b = sample(dtype, (4, 5), 1), sample(dtype, (4, 5), 2)
    result = multiply_add_ufunc(a, b)
    # the first loop the inputs cast to safely (Numba's and NumPy's legacy search): uint8
    # runs the int16 loop, listed before uint8's own (numba 0.68 does the same)
    first_safe = next(t for t in multiply_add_ufunc.types if np.can_cast(dtype, t[0], "safe"))
    loop_dtype = np.dtype(first_safe[-1])
    assert result.dtype == loop_dtype
    expected = reference(multiply_add, loop_dtype, a.astype(loop_dtype), b.astype(loop_dtype))
    np.testing.assert_array_equal(result, expected)


def test_booleans():
    a, b = sample(np.dtype(bool), 10, 1), sample(np.dtype(bool), 10, 2)
    np.testing.assert_array_equal(logical_ufunc(a, b), a != b)


@pytest.mark.parametrize("ndim", [0, 1, 2, 3])
def test_zero_to_three_dimensions(ndim):
    shape = (3, 4, 5)[:ndim]
    a, b = sample(np.dtype("f8"), shape, 1), sample(np.dtype("f8"), shape, 2)
    result = select_larger_ufunc(a, b)
    np.testing.assert_array_equal(result, reference(select_larger, np.float64, a, b))
    assert np.shape(result) == shape


def test_fortran_strided_negative_strides_and_broadcasting():
    base = sample(np.dtype("f8"), (6, 8), 3)
    fortran = np.asfortranarray(base)
    strided = base[::2, ::3]
    reversed_ = base[::-1, ::-2]
    row = sample(np.dtype("f8"), (8,), 4)
    column = sample(np.dtype("f8"), (6, 1), 5)
    for a, b in [(fortran, base), (strided, strided.T.T), (reversed_, reversed_ * 2),
                 (base, row), (column, row), (fortran, 2.5), (base.T, base.T)]:  # fmt: skip
        expected = reference(multiply_add, np.float64, a, b)
        np.testing.assert_array_equal(multiply_add_ufunc(a, b), expected)


def test_empty_arrays():
    for shape in [(0,), (3, 0), (0, 4, 2)]:
        a = np.empty(shape)
        result = multiply_add_ufunc(a, a)
        assert result.shape == shape and result.dtype == np.float64


def test_out_where_and_dtype():
    a, b = sample(np.dtype("f8"), 10, 1), sample(np.dtype("f8"), 10, 2)
    out = np.full(10, -1.0)
    returned = multiply_add_ufunc(a, b, out=out)
    assert returned is out
    np.testing.assert_array_equal(out, a * b + a)
    mask = a > 0
    masked = np.full(10, 99.0)
    multiply_add_ufunc(a, b, out=masked, where=mask)
    np.testing.assert_array_equal(masked, np.where(mask, a * b + a, 99.0))
    ints = np.arange(5)
    as_float32 = multiply_add_ufunc(ints, ints, dtype=np.float32)
    assert as_float32.dtype == np.float32
    np.testing.assert_array_equal(as_float32, (ints * ints + ints).astype(np.float32))


def test_numpys_loop_selection_among_the_signatures():
    # int32 inputs: the first loop they cast to safely, int64 (listed before float64)
    ints = np.arange(5, dtype=np.int32)
    assert select_larger_ufunc(ints, ints[::-1]).dtype == np.int64
    # float32 casts safely to float64, listed before float32: float64, as in Numba (the
    # first safe loop, not the exact one); float32 with int64 needs float64 too
    floats = np.arange(5, dtype=np.float32)
    assert select_larger_ufunc(floats, floats).dtype == np.float64
    assert select_larger_ufunc(floats, np.arange(5)).dtype == np.float64


def test_unsupported_dtypes_raise_numpys_type_error():
    with pytest.raises(TypeError, match="not supported for the input types"):
        select_larger_ufunc(np.array(["a"]), np.array(["b"]))
    with pytest.raises(TypeError, match="not supported for the input types"):
        select_larger_ufunc(np.array([1j]), np.array([2j]))


def plus(a, b):
    return a + b


def test_reduce_accumulate_outer_at_reduceat():
    f = vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)(plus)
    m = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(f.reduce(m), m.sum(axis=0))
    np.testing.assert_array_equal(f.reduce(m, axis=1), m.sum(axis=1))
    assert f.reduce(m, axis=None) == m.sum()  # several axes: needs the identity
    assert f.reduce(np.array([], dtype=np.int64)) == 0
    np.testing.assert_array_equal(f.accumulate(m, axis=1), np.cumsum(m, axis=1))
    np.testing.assert_array_equal(f.outer(np.arange(3), np.arange(4)), np.add.outer(
        np.arange(3), np.arange(4)))  # fmt: skip
    np.testing.assert_array_equal(f.reduceat(np.arange(8), [0, 4, 6]), [6, 9, 13])
    target = np.zeros(5)
    f.at(target, [0, 1, 1, 4], 2.0)
    np.testing.assert_array_equal(target, [2.0, 4.0, 0.0, 0.0, 2.0])
    assert f.identity == 0


def test_identity_options():
    one = vectorize(["float64(float64, float64)"], identity=1)(lambda a, b: a * b)
    assert one.identity == 1 and one.reduce(np.array([])) == 1.0
    reorderable = vectorize(["float64(float64, float64)"], identity="reorderable")(plus)
    m = np.arange(6.0).reshape(2, 3)
    assert reorderable.reduce(m, axis=None) == 15.0
    none = vectorize(["float64(float64, float64)"])(plus)
    with pytest.raises(ValueError):
        none.reduce(np.array([]))
    larger = vectorize(["float64(float64, float64)"], identity=-math.inf)(select_larger)
    assert larger.identity == -math.inf and larger.reduce(np.array([])) == -math.inf
    assert larger.reduce(np.array([3.0, 7.0, 5.0])) == 7.0


def test_kernels_follow_numpys_error_model():
    divide = vectorize(["float64(float64, float64)", "int64(int64, int64)"])(lambda a, b: a / b)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(
            divide(np.array([1.0, -1.0, 0.0]), np.zeros(3)), [math.inf, -math.inf, math.nan]
        )


def test_parallel_target_matches_serial_on_large_and_strided_inputs():
    kernel = lambda a, b, c: a * b + math.sqrt(abs(c))  # noqa: E731
    sigs = ["float64(float64, float64, float64)", "float32(float32, float32, float32)"]
    serial = vectorize(sigs)(kernel)
    parallel = vectorize(sigs, target="parallel")(kernel)
    n = 4 * MIN_PARALLEL_WORK + 7
    a, b, c = (sample(np.dtype("f8"), n, s) for s in range(3))
    np.testing.assert_array_equal(parallel(a, b, c), serial(a, b, c))
    np.testing.assert_allclose(parallel(a, b, c), a * b + np.sqrt(np.abs(c)))
    np.testing.assert_array_equal(parallel(a[::3], b[::3], 2.0), serial(a[::3], b[::3], 2.0))
    m = a[: 300 * 300].reshape(300, 300)
    np.testing.assert_array_equal(parallel(m, m.T, m[0]), serial(m, m.T, m[0]))
    small = a[:5].astype(np.float32)  # parallel: the float32 loop; serial: the float64 loop
    np.testing.assert_allclose(
        parallel(small, small, small), serial(small, small, small), rtol=1e-6
    )
    assert parallel(small, small, small).dtype == np.float32


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1,
                max_size=40), st.floats(allow_nan=True, allow_infinity=True))  # fmt: skip
def test_float_corner_cases_match_cpython(values, scalar):
    a = np.array(values)
    with np.errstate(all="ignore"):
        got = select_larger_ufunc(a, scalar)
    expected = reference(select_larger, np.float64, a, scalar)
    np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------------------- errors


def test_errors_at_decoration():
    with pytest.raises(TypeError, match="Signature mismatch: 1 argument types given"):
        vectorize(["float64(float64)"])(plus)
    with pytest.raises(UnsupportedError, match="target='cuda'"):
        vectorize(["float64(float64, float64)"], target="cuda")(plus)
    with pytest.raises(TypeError, match="unknown @vectorize option"):
        vectorize(["float64(float64, float64)"], colour="red")(plus)
    with pytest.raises(TypeError, match="take numbers"):
        vectorize(["float64(float64[:], float64)"])(plus)
    with pytest.raises(ValueError, match="identity"):
        vectorize(["float64(float64, float64)"], identity="sometimes")(plus)


# ---------------------------------------------------------------------------- DUFunc


def test_dufunc_compiles_per_new_input_dtypes_and_freezes():
    d = vectorize(plus)
    assert isinstance(d, DUFunc) and not isinstance(d, np.ufunc)
    assert d.types == [] and d.nin == 2 and d.nout == 1
    assert d(1, 2) == 3 and d.types == ["ll->l"]
    assert d(np.int32(1), np.int32(2)) == 3 and d.types == ["ll->l"]  # safe cast: no compile
    floats = np.arange(4.0)
    np.testing.assert_array_equal(d(floats, floats), floats + floats)
    assert d.types == ["ll->l", "dd->d"]
    assert isinstance(d.ufunc, np.ufunc) and d.ufunc.types == d.types
    d.disable_compile()
    c = np.array([1 + 2j])
    with pytest.raises(TypeError, match="not supported for the input types"):
        d(c, c)
    assert d.ntypes == 2


def test_dufunc_methods_compile_too():
    d = vectorize(identity=0)(plus)
    m = np.arange(6, dtype=np.int16).reshape(2, 3)
    np.testing.assert_array_equal(d.reduce(m, axis=1), m.sum(axis=1))
    assert d.types == ["hh->h"]
    np.testing.assert_array_equal(d.accumulate(np.arange(4.0)), np.cumsum(np.arange(4.0)))
    np.testing.assert_array_equal(d.outer(np.arange(2.0), np.arange(3.0)),
                                  np.add.outer(np.arange(2.0), np.arange(3.0)))  # fmt: skip
    target = np.zeros(3, dtype=np.float32)
    d.at(target, [0, 0, 2], np.float32(1.5))
    np.testing.assert_array_equal(target, [3.0, 0.0, 1.5])
    d.add("uint8(uint8, uint8)")
    assert "BB->B" in d.types


def test_dufunc_unsupported_dtype_keeps_numpys_error():
    d = vectorize(plus)
    with pytest.raises(np._core._exceptions.UFuncTypeError, match="ufunc 'plus'"):
        d(np.array(["a"]), np.array(["b"]))
    d(1.0, 2.0)
    with pytest.raises(TypeError, match="not supported for the input types"):
        d(np.array(["a"]), np.array(["b"]))


# ---------------------------------------------------------------------------- jitted code


@vectorize(["float64(float64, float64)", "int64(int64, int64)"])
def weighted(a, b):
    return 2 * a + b


@vectorize
def difference(a, b):
    return a - b


@njit
def fused(x, y):
    return weighted(x, y) * 2.0 + difference(x, y)


@njit
def scalars(x, y):
    return weighted(x, y), difference(x, y)


@njit
def into(x, y, out):
    weighted(x, y, out=out)
    return out


def test_callable_in_jitted_code_and_fused():
    x, y = sample(np.dtype("f8"), (3, 4), 1), sample(np.dtype("f8"), (4,), 2)
    np.testing.assert_array_equal(fused(x, y), (2 * x + y) * 2.0 + (x - y))
    assert "arrayexpr" in fused.inspect_types()
    assert scalars(3, 4) == (10, -1)
    assert scalars(1.5, 0.25) == (3.25, 1.25)
    out = np.zeros((3, 4))
    assert into(x, y, out) is out
    np.testing.assert_array_equal(out, 2 * x + y)


def test_typeof_and_isinstance():
    assert isinstance(weighted, np.ufunc)
    assert ember.typeof(weighted) == ember.types.Function(weighted)
    assert ember.typeof(difference) == ember.types.Function(difference)


# ---------------------------------------------------------------------------- pickling, Dask

SHIFT = 0.5


def shifted_product(a, b):
    return a * b + SHIFT


def test_pickles_by_value_and_runs_in_another_process(tmp_path):
    f = vectorize(["float64(float64, float64)"], identity=1)(shifted_product)
    d = vectorize(shifted_product)
    d(1.0, 2.0)
    clone = pickle.loads(pickle.dumps(f))
    assert isinstance(clone, np.ufunc) and clone.types == f.types and clone.identity == 1
    np.testing.assert_array_equal(clone(np.arange(3.0), 2.0), np.arange(3.0) * 2 + SHIFT)
    payload = tmp_path / "ufuncs.pkl"
    payload.write_bytes(pickle.dumps((f, d)))
    script = textwrap.dedent(
        f"""
        import pickle, numpy as np
        f, d = pickle.loads(open({str(payload)!r}, "rb").read())
        print(f(3.0, 4.0), d(np.complex64(2), np.complex64(3)).real, d.types)
        """
    )
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.split()
    assert float(output[0]) == 12.5 and float(output[1]) == 6.5
    assert output[2:] == ["['dd->d',", "'FF->D']"]  # complex64 * complex64 + a Python float


def test_runs_in_dask_array_map_blocks():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    f = vectorize(["float64(float64, float64)"])(shifted_product)
    values = np.arange(20.0).reshape(4, 5)
    array = da.from_array(values, chunks=(2, 5))
    with dask.config.set(scheduler="processes", num_workers=1):
        result = array.map_blocks(f, 2.0).compute()
    np.testing.assert_array_equal(result, values * 2.0 + SHIFT)


def test_signatures_as_ember_type_objects():
    sigs = [ember.float64(ember.float64, ember.int32), ember.int64(ember.int64, ember.int64)]
    f = vectorize(sigs)(lambda a, b: a * b)
    assert f.types == ["di->d", "ll->l"]
    assert f(2.5, np.int32(3)) == 7.5
    d = vectorize(lambda a, b: a * b)
    d.add(ember.float32(ember.float32, ember.float32))
    assert d.types == ["ff->f"]


def test_parallel_target_keeps_reductions_and_accumulations_sequential():
    # int64 first: int64 inputs would take a float64 loop listed before (the first safe one)
    sigs = ["int64(int64, int64)", "float64(float64, float64)"]
    parallel = vectorize(sigs, target="parallel", identity=0)(plus)
    n = 4 * MIN_PARALLEL_WORK
    v = np.arange(n, dtype=np.int64)
    m = np.arange(2.0 * n).reshape(2, n)
    assert parallel.reduce(v) == v.sum()
    np.testing.assert_array_equal(parallel.accumulate(v), np.cumsum(v))
    np.testing.assert_array_equal(parallel.reduce(m, axis=0), m.sum(axis=0))
    np.testing.assert_array_equal(parallel.reduce(m, axis=1), m.sum(axis=1))
    np.testing.assert_array_equal(parallel.accumulate(m, axis=1), np.cumsum(m, axis=1))
    overlapping = np.arange(n + 1.0)
    parallel(overlapping[:-1], 1.0, out=overlapping[1:])  # NumPy copies the overlapping input
    np.testing.assert_array_equal(overlapping[1:], np.arange(n) + 1.0)
    mask = v % 3 == 0
    out = np.zeros(n, dtype=np.int64)
    parallel(v, v, out=out, where=mask)
    np.testing.assert_array_equal(out, np.where(mask, 2 * v, 0))


def test_parallel_target_prefers_the_loop_of_the_inputs_own_dtype():
    # Numba makes `target='parallel'` ufuncs with their loops registered at creation, so
    # NumPy takes the exact float32 loop although the float64 loop is listed first (the
    # default target, a DUFunc, takes the first safe cast: float64).
    @vectorize(["float64(float64, float64)", "float32(float32, float32)"], target="parallel")
    def hypot_parallel(a, b):
        return (a * a + b * b) ** 0.5

    @vectorize(["float64(float64, float64)", "float32(float32, float32)"])
    def hypot_serial(a, b):
        return (a * a + b * b) ** 0.5

    a = np.arange(4, dtype=np.float32)
    b = np.ones(4, dtype=np.float32)
    expected = np.sqrt(a.astype(np.float64) ** 2 + 1.0)
    parallel_result, serial_result = hypot_parallel(a, b), hypot_serial(a, b)
    assert parallel_result.dtype == np.float32
    assert serial_result.dtype == np.float64
    np.testing.assert_allclose(parallel_result, expected, rtol=1e-6)
    np.testing.assert_array_equal(serial_result, expected)


def test_frozen_attribute_and_unknown_options():
    dynamic = vectorize(plus)
    assert dynamic._frozen is False
    dynamic._frozen = True
    with pytest.raises(ValueError):
        dynamic._frozen = False
    with pytest.raises(TypeError):  # no loop, and none may be compiled
        dynamic(np.ones(2), np.ones(2))
    for make in (lambda: vectorize(nonexistent=2)(plus), lambda: vectorize(["f8(f8, f8)"],
                 nonexistent=2)(plus)):  # fmt: skip
        with pytest.raises(KeyError, match="Unrecognized options"):  # Numba's KeyError
            make()
