"""parvec5: `ufunc.reduce(where=, out=, keepdims=True over a tuple of axes)` against NumPy;
NumPy's float16 loops of small-integer operands (values rounded as NumPy's float16 loops round);
@vectorize kernels returning IntEnum members; Numba's ParallelDiagnostics queries and
`ir_utils` getitem/setitem helpers."""

import contextlib
import enum
import io

import numpy as np
import pytest

import ember
from ember import njit, prange, vectorize
from ember.errors import TypingError
from tests.oracle import assert_frees_all, assert_same_array


def _outcome(func, *args):
    """(result, None) or (None, exception class) of one call."""
    try:
        return func(*args), None
    except Exception as error:  # noqa: BLE001 - the class is what the caller compares
        return None, type(error)


def _check(py_func, *args):
    """The jitted function gives NumPy's result, or raises NumPy's exception class (NumPy's
    AxisError as the ValueError it derives from, as ember's other axis checks raise)."""
    expected, expected_error = _outcome(py_func, *args)
    got, got_error = _outcome(njit(py_func), *args)
    if expected_error is np.exceptions.AxisError:
        expected_error = ValueError
    assert got_error is expected_error, (got_error, expected_error)
    if expected_error is None:
        assert_same_array(got, expected)


_CUBE = np.arange(24.0).reshape(2, 3, 4) - 7.5
_MASK = (np.arange(24).reshape(2, 3, 4) % 3) != 0
_SMALL_INTS = (np.arange(24).reshape(2, 3, 4) * 5 - 40).astype(np.int8)


# ---------------------------------------------------------------- reduce: keepdims and a tuple


def keep_02(a):
    return np.add.reduce(a, axis=(0, 2), keepdims=True)


def keep_all(a):
    return np.add.reduce(a, axis=(0, 1, 2), keepdims=True)


def keep_negative(a):
    return np.multiply.reduce(a, axis=(-1,), keepdims=True)


def keep_empty_tuple(a):
    return np.add.reduce(a, axis=(), keepdims=True)


def keep_duplicate(a):
    return np.add.reduce(a, axis=(1, -2), keepdims=True)


def keep_out_of_range(a):
    return np.add.reduce(a, axis=(0, 3), keepdims=True)


@pytest.mark.parametrize(
    "py_func",
    [
        keep_02,
        keep_all,
        keep_negative,
        keep_empty_tuple,
        keep_duplicate,
        keep_out_of_range,
    ],  # fmt: skip
)
@pytest.mark.parametrize("array", [_CUBE, _SMALL_INTS, np.zeros((0, 3, 2))])
def test_keepdims_with_a_tuple_of_axes_is_numpys(py_func, array):
    _check(py_func, array)


# ---------------------------------------------------------------- reduce: where=


def where_axis1(a, m):
    return np.add.reduce(a, axis=1, where=m)


def where_all(a, m):
    return np.add.reduce(a, axis=None, where=m)


def where_tuple_keepdims(a, m):
    return np.add.reduce(a, axis=(0, 2), where=m, keepdims=True)


def where_initial(a, m):
    return np.add.reduce(a, axis=2, where=m, initial=10)


def where_maximum_initial(a, m):
    return np.maximum.reduce(a, axis=0, where=m, initial=-100)


def where_multiply_dtype(a, m):
    return np.multiply.reduce(a, axis=-1, where=m, dtype=np.float64)


def where_broadcast_row(a, m):
    return np.add.reduce(a, axis=0, where=m[0, 0])


def where_nothing(a, m):
    return np.add.reduce(a, axis=0, where=False)


@pytest.mark.parametrize(
    "py_func",
    [
        where_axis1,
        where_all,
        where_tuple_keepdims,
        where_initial,
        where_maximum_initial,
        where_multiply_dtype,
        where_broadcast_row,
        where_nothing,
    ],  # fmt: skip
)
@pytest.mark.parametrize("array", [_CUBE, _SMALL_INTS])
def test_reduce_where_is_numpys(py_func, array):
    _check(py_func, array, _MASK)


def test_reduce_where_with_nan_and_all_false_lines():
    a = _CUBE.copy()
    a[0, 1, 2] = np.nan
    mask = _MASK.copy()
    mask[1] = False  # whole lines excluded: the identity
    _check(where_axis1, a, mask)
    _check(where_all, a, mask)


def test_reduce_where_mask_that_cannot_broadcast_raises_value_error():
    _check(where_axis1, _CUBE, np.ones(3, dtype=np.bool_))


def test_reduce_where_without_identity_or_initial_is_refused():
    def no_identity(a, m):
        return np.maximum.reduce(a, axis=1, where=m)

    with pytest.raises(ValueError):  # NumPy's own refusal
        no_identity(_CUBE, _MASK)
    with pytest.raises(TypingError, match="to use a where mask one has to specify 'initial'"):
        njit(no_identity)(_CUBE, _MASK)


def test_reduce_where_frees_its_temporaries():
    assert_frees_all(njit(where_tuple_keepdims), lambda: _CUBE.copy(), lambda: _MASK.copy())


# ---------------------------------------------------------------- reduce: out=


def out_axis1(a):
    out = np.full((a.shape[0], a.shape[2]), -1.0)
    result = np.add.reduce(a, axis=1, out=out)
    return result, out


def out_zero_d(a):
    out = np.zeros(())
    np.add.reduce(a, axis=None, out=out)
    return out


def out_keepdims_where(a, m):
    out = np.zeros((a.shape[0], 1, a.shape[2]))
    np.add.reduce(a, axis=1, out=out, keepdims=True, where=m)
    return out


def out_wrong_shape(a):
    return np.add.reduce(a, axis=1, out=np.zeros((3, 4)))


def test_reduce_out_fills_and_returns_the_given_array():
    got_result, got_out = njit(out_axis1)(_CUBE)
    expected_result, expected_out = out_axis1(_CUBE)
    assert_same_array(got_out, expected_out)
    assert_same_array(got_result, expected_result)

    @njit
    def returns_out(a):
        out = np.zeros((2, 4))
        return np.add.reduce(a, axis=1, out=out) is out

    assert returns_out(_CUBE)


def test_reduce_out_zero_d_keepdims_and_where():
    assert_same_array(njit(out_zero_d)(_CUBE), out_zero_d(_CUBE))
    assert_same_array(njit(out_keepdims_where)(_CUBE, _MASK), out_keepdims_where(_CUBE, _MASK))


def test_reduce_out_of_the_wrong_shape_raises_value_error():
    _check(out_wrong_shape, _CUBE)


def test_reduce_out_of_the_wrong_dimensions_is_refused():
    def wrong_ndim(a):
        return np.add.reduce(a, axis=1, out=np.zeros(4))

    with pytest.raises(TypingError, match="out has 1 dimensions, the result has 2"):
        njit(wrong_ndim)(_CUBE)


def test_dufunc_reduce_takes_where():
    @vectorize(identity=0)
    def plus(x, y):
        return x + y

    def masked_sum(a, m):
        return plus.reduce(a, axis=0, where=m)

    expected = np.add.reduce(_CUBE, axis=0, where=_MASK)
    assert_same_array(njit(masked_sum)(_CUBE, _MASK), expected)


# ---------------------------------------------------------------- float16 loops


_FLOAT16_UNARY = ["exp2", "log2", "sin", "sqrt", "exp", "log", "tanh", "cbrt", "floor",
                  "deg2rad", "expm1", "log1p", "arccos"]  # fmt: skip
_FLOAT16_BINARY = ["arctan2", "hypot", "logaddexp", "power", "fmod", "float_power"]


def _small_operands(dtype):
    first = np.array([0, 1, 2, 3, 5, 7, 100, 127], dtype=np.int64).astype(dtype)
    second = np.array([1, 2, 3, 2, 1, 3, 2, 1], dtype=np.int64).astype(dtype)
    return first, second


def _assert_float16_values(got, expected):
    """NumPy gives float16; ember gives float32 holding exactly NumPy's values."""
    expected = np.asarray(expected)
    if expected.dtype == np.float16:
        assert np.asarray(got).dtype == np.float32
        expected = expected.astype(np.float32)
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("name", _FLOAT16_UNARY)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_])
def test_unary_float16_loops_give_numpys_values(name, dtype):
    ufunc = getattr(np, name)
    a, _ = _small_operands(dtype)
    with np.errstate(all="ignore"):
        expected = ufunc(a)
    _assert_float16_values(njit(lambda x: ufunc(x))(a), expected)


@pytest.mark.parametrize("name", _FLOAT16_BINARY)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_binary_float16_loops_give_numpys_values(name, dtype):
    ufunc = getattr(np, name)
    a, b = _small_operands(dtype)
    with np.errstate(all="ignore"):
        expected = ufunc(a, b)
    _assert_float16_values(njit(lambda x, y: ufunc(x, y))(a, b), expected)


def test_float16_rounding_overflows_to_infinity_like_numpy():
    big = np.array([15, 16, 17, -30], dtype=np.int8)  # exp2(16) = 65536 > float16's max
    with np.errstate(all="ignore"):
        expected = np.exp2(big)
    assert np.isinf(expected[1]) and np.isinf(expected[2])
    _assert_float16_values(njit(lambda x: np.exp2(x))(big), expected)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.uint16])
@pytest.mark.parametrize("name", ["exp2", "log2"])
def test_small_integer_scalars(dtype, name):
    ufunc = getattr(np, name)
    for value in (2, 3, 7):
        x = dtype(value)
        got = njit(lambda v: ufunc(v))(x)
        assert got == ufunc(x).astype(np.float64)


def test_modf_and_frexp_of_small_integers():
    a, _ = _small_operands(np.int8)
    frac, whole = njit(lambda x: np.modf(x))(a)
    _assert_float16_values(frac, np.modf(a)[0])
    _assert_float16_values(whole, np.modf(a)[1])
    mantissa, exponent = njit(lambda x: np.frexp(x))(a)
    _assert_float16_values(mantissa, np.frexp(a)[0])
    assert_same_array(exponent, np.frexp(a)[1])


@pytest.mark.parametrize("name", ["spacing", "nextafter"])
def test_ufuncs_answering_float16_precision_are_refused(name):
    ufunc = getattr(np, name)
    a, _ = _small_operands(np.int8)
    call = njit(lambda x: ufunc(x)) if ufunc.nin == 1 else njit(lambda x: ufunc(x, x))
    with pytest.raises(TypingError, match="float16.*convert the operands to float32 first"):
        call(a)


def test_float16_loops_in_parallel_array_expressions():
    @njit(parallel=True)
    def scaled(a):
        return np.sqrt(a) * 2

    a, _ = _small_operands(np.uint8)
    expected = (np.sqrt(a) * 2).astype(np.float32)  # float16 * 2 is exact in float16
    np.testing.assert_array_equal(scaled(a), expected)


# ---------------------------------------------------------------- @vectorize and IntEnum


class Level(enum.IntEnum):
    LOW = 3
    HIGH = 9


def _grade(x):
    return Level.HIGH if x > 0 else Level.LOW


@pytest.mark.parametrize("signatures", [[], ["int64(int64)"]])
def test_vectorize_kernel_returning_an_int_enum_member(signatures):
    ufunc = vectorize(signatures)(_grade) if signatures else vectorize(_grade)
    values = np.array([5, -1, 0, 7, -8])
    expected = np.array([int(_grade(v)) for v in values])
    got = ufunc(values)
    assert_same_array(got, expected)

    @njit
    def inside(a, x):
        return ufunc(a), ufunc(x)

    array_result, scalar_result = inside(values, 4)
    assert_same_array(array_result, expected)
    assert scalar_result == int(Level.HIGH)


# ---------------------------------------------------------------- parallel diagnostics


def _report(func, *args):
    func(*args)
    (result,) = func.overloads.values()
    return result.metadata["parfor_diagnostics"]


def test_parfor_diagnostics_answers_numbas_queries():
    @njit(parallel=True)
    def two_loops(n):
        a = np.ones(n)
        b = np.argmin(a)
        acc = 0.0
        for i in prange(n):
            acc += a[i]
        return acc + b

    report = _report(two_loops, 10)
    assert report.count_parfors() == report.parfor_count - len(report.fused) >= 1
    assert ("argmin", "numpy") in [entry[0] for entry in report.replaced_fns.values()]
    assert report.hoisted_allocations() == []
    assert report.nested_fusion_info == {}
    for kept, absorbed in report.fusion_info.items():
        assert kept not in absorbed
    for level in range(1, 5):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            report.dump(level)
        assert printed.getvalue() == report.format(level) + "\n"


def test_fusion_info_lists_the_fused_loops():
    @njit(parallel=True)
    def fused(n):
        a = np.ones(n)
        b = np.zeros(n)
        return a + b

    report = _report(fused, 10)
    absorbed = [loop for loops in report.fusion_info.values() for loop in loops]
    assert len(absorbed) == len(report.fused) == 2  # np.ones and np.zeros into a + b
    assert report.count_parfors() == 1


# ---------------------------------------------------------------- ir_utils helpers


def test_ir_utils_getitem_and_setitem_helpers():
    from ember.core import ir_utils
    from ember.ir import nodes

    loc = nodes.Loc("<test>", 1)
    array, index, value, target = (nodes.Var(name, loc) for name in ("a", "i", "v", "t"))
    getitem = nodes.Assign(target, nodes.GetItem(array, index, loc), loc)
    static = nodes.Assign(target, nodes.StaticGetItem(array, 2, None, loc), loc)
    setitem = nodes.SetItem(array, index, value, loc)
    other = nodes.Assign(target, nodes.Const(1, loc), loc)
    assert ir_utils.is_getitem(getitem) and ir_utils.is_getitem(static)
    assert not ir_utils.is_getitem(setitem) and not ir_utils.is_getitem(other)
    assert ir_utils.is_setitem(setitem) and not ir_utils.is_setitem(getitem)
    assert ir_utils.index_var_of_get_setitem(getitem) is index
    assert ir_utils.index_var_of_get_setitem(static) is None
    assert ir_utils.index_var_of_get_setitem(setitem) is index
    assert ir_utils.index_var_of_get_setitem(other) is None


def test_numba_module_path_for_ir_utils():
    assert ember.core.ir_utils.is_getitem is not None


# ---------------------------------------------------------------- numba.np.ufunc_db


def test_ufunc_db_lists_the_compiled_ufuncs_and_their_loops():
    from ember.core.registry import cpu_target
    from ember.np import ufunc_db

    ufuncs = ufunc_db.get_ufuncs()
    assert {np.add, np.sin, np.hypot} <= ufuncs
    info = ufunc_db.get_ufunc_info(np.add)
    assert {"dd->d", "ll->l", "??->?"} <= set(info)
    assert "ee->e" not in info  # float16: no ember dtype
    assert cpu_target.target_context.get_ufunc_info(np.add) is info
    bad = object()
    with pytest.raises(KeyError) as raised:
        ufunc_db.get_ufunc_info(bad)
    assert raised.value.args == (bad,)


def test_ufunc_db_element_lowering_from_an_intrinsic():
    from ember import types
    from ember.extending import intrinsic
    from ember.np import ufunc_db

    @intrinsic
    def element_hypot(typingctx, x, y):
        sig = types.float64(types.float64, types.float64)

        def codegen(context, builder, sig, args):
            return ufunc_db.get_ufunc_info(np.hypot)["dd->d"](context, builder, sig, args)

        return sig, codegen

    @njit
    def call(x, y):
        return element_hypot(x, y)

    for x, y in [(3.0, 4.0), (-5.0, 12.0), (np.inf, np.nan), (0.0, -0.0), (1e308, 1e308)]:
        assert np.array_equal(call(x, y), np.hypot(x, y), equal_nan=True)


def test_parallel_diagnostics_environment_variable_prints_the_report():
    import os
    import subprocess
    import sys
    import textwrap

    program = textwrap.dedent(
        """
        import numpy as np
        from ember import njit, prange

        @njit(parallel=True)
        def fill(n):
            b = np.zeros(n)
            for i in prange(n):
                b[i] = i
            return b

        assert fill(5).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
        """
    )
    env = dict(os.environ, NUMBA_PARALLEL_DIAGNOSTICS="4")
    env.pop("EMBER_PARALLEL_DIAGNOSTICS", None)
    done = subprocess.run(
        [sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "Parallel Accelerator Optimizing:  Function fill" in done.stdout
    assert "Fusing loops:" in done.stdout  # level 4 lists the fusion


@pytest.mark.parametrize(
    "array, out_dtype",
    [(np.full((2, 3), 1.7), np.int64), (np.full((2, 3), 100, np.int64), np.int8),
     (np.full((2, 3), 1 / 3), np.float32), (np.arange(6, dtype=np.int8).reshape(2, 3), np.float64)],
)  # fmt: skip
def test_reduce_out_of_another_dtype_casts_the_result_like_numpy(array, out_dtype):
    def into(a, o):
        return np.add.reduce(a, axis=1, out=o)

    expected = into(array, np.zeros(2, out_dtype))
    assert_same_array(njit(into)(array, np.zeros(2, out_dtype)), expected)


# ---------------------------------------------------------------- ufunc calls: where= and dtype=

_NUMERATORS = np.array([1.0, 2.0, 0.0, -4.0, 5.0, np.nan, np.inf])
_DENOMINATORS = np.array([2.0, 0.0, 0.0, 2.0, -0.0, 1.0, 3.0])


def safe_divide(a, b):
    return np.divide(a, b, out=np.zeros_like(a), where=b != 0)


def divide_nowhere(a, b):
    return np.divide(a, b, out=np.full_like(a, -1.0), where=False)


def divide_everywhere(a, b):
    return np.divide(a, b, out=np.full_like(a, -1.0), where=True)


def add_positional_out(a, b):
    return np.add(a, b, np.zeros_like(a), where=a > 0)


def negative_broadcast_mask(a, b):
    mask = np.array([True, False, True, False, True, False, True])
    return np.negative(a, out=np.zeros((2, a.shape[0])), where=mask)


def sqrt_in_place(a, b):
    out = np.abs(a)
    np.sqrt(out, where=a > 0, out=out)
    return out


def add_into_int8(a, b):
    return np.add(a, 1, out=np.zeros(a.shape[0], np.int8), where=a > 1)


@pytest.mark.parametrize(
    "py_func",
    [
        safe_divide,
        divide_nowhere,
        divide_everywhere,
        add_positional_out,
        negative_broadcast_mask,
        sqrt_in_place,
    ],  # fmt: skip
)
def test_ufunc_call_where_is_numpys(py_func):
    with np.errstate(all="ignore"):
        _check(py_func, _NUMERATORS, _DENOMINATORS)


def test_ufunc_call_where_into_int8_out():
    a = np.arange(-3, 5)
    assert_same_array(njit(add_into_int8)(a, None), add_into_int8(a, None))


def test_ufunc_call_where_in_a_parallel_function():
    @njit(parallel=True)
    def scaled_ratio(a, b):
        out = np.zeros_like(a)
        np.divide(a * 2, b, out=out, where=b != 0)
        return out

    a = np.arange(1000.0)
    b = a % 3
    assert_same_array(scaled_ratio(a, b), np.divide(a * 2, b, out=np.zeros_like(a), where=b != 0))


def test_ufunc_call_where_without_out_zeroes_the_masked_elements():
    # NumPy leaves them uninitialized (and warns); compiled code makes them 0 (parvec6 suite)
    with pytest.warns(UserWarning, match="'where' used without 'out'"):
        got = njit(lambda a, b: np.divide(a, b, where=b != 0))(_NUMERATORS, _DENOMINATORS)
    mask = _DENOMINATORS != 0
    assert_same_array(
        got, np.where(mask, np.divide(_NUMERATORS, np.where(mask, _DENOMINATORS, 1)), 0.0)
    )


def test_ufunc_call_where_must_be_boolean():
    with pytest.raises(TypingError, match="where= must be a bool"):
        njit(lambda a: np.sqrt(a, where=a, out=np.zeros(3)))(np.array([4.0, -1.0, 9.0]))


@pytest.mark.parametrize(
    "py_func, args",
    [(lambda a: np.sqrt(a, dtype=np.float32), (np.abs(_NUMERATORS),)),
     (lambda a: np.add(a, 1, dtype=np.float32), (np.arange(4),)),
     (lambda a: np.less(a, 2, dtype=np.bool_), (np.arange(4),)),
     (lambda a: np.multiply(a, a, dtype="f8"), (np.arange(-3, 3, dtype=np.int8),)),
     (lambda a: np.sqrt(a, dtype=np.float64), (np.arange(5, dtype=np.int8),))],
)  # fmt: skip
def test_ufunc_call_dtype_is_numpys(py_func, args):
    _check(py_func, *args)


def test_ufunc_call_dtype_that_inputs_cannot_cast_to_is_refused():
    with pytest.raises(TypeError):  # NumPy: UFuncTypeError
        np.add(np.arange(4), 1.5, dtype=np.int64)
    with pytest.raises(TypingError, match="Cannot cast ufunc 'add' input 1"):
        njit(lambda a: np.add(a, 1.5, dtype=np.int64))(np.arange(4))


def test_ufunc_call_where_frees_its_temporaries():
    assert_frees_all(njit(safe_divide), lambda: _NUMERATORS.copy(), lambda: _DENOMINATORS.copy())


def test_diagnostics_name_a_stencil_called_from_a_parallel_function():
    from ember import stencil

    @stencil
    def cross(a):
        return a[0, 1] + a[1, 0] + a[0, -1] + a[-1, 0]

    @njit(parallel=True)
    def apply(a):
        return cross(a)

    a = np.arange(36.0).reshape(6, 6)
    expected = np.zeros_like(a)
    expected[1:-1, 1:-1] = a[1:-1, 2:] + a[2:, 1:-1] + a[1:-1, :-2] + a[:-2, 1:-1]
    assert_same_array(apply(a), expected)
    text = _report(apply, a).format(1)
    assert "Calls @stencil" in text and "cross" in text
    assert "No parallel loops were found" not in text


def test_stencil_with_a_variable_index_names_the_neighborhood_option():
    from ember import stencil
    from ember.errors import StencilError

    @stencil
    def shifted(a, c, d):
        return a[-c + d]

    with pytest.raises(StencilError) as raised:
        shifted(np.arange(10.0), 1, 2)
    message = str(raised.value)
    assert "stencil kernel index is not constant, 'neighborhood' option required" in message
    assert "a[-c + d] is not constant" in message


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
)
def test_integer_reciprocal_is_numpys(dtype):
    a = np.array([-3, -2, -1, 0, 1, 2, 3, 100]).astype(dtype)
    with np.errstate(all="ignore"):
        expected = np.reciprocal(a)  # 1 and -1 themselves, other nonzero values 0
        scalars = [np.reciprocal(x) for x in a]
    reciprocal = njit(lambda x: np.reciprocal(x))
    assert_same_array(reciprocal(a), expected)
    assert [reciprocal(x) for x in a] == [int(x) for x in scalars]


def test_ufunc_call_where_true_needs_no_out():
    a = np.array([0.0, 1.0, 4.0, 9.0])
    assert_same_array(njit(lambda x: np.sqrt(x, where=True))(a), np.sqrt(a, where=True))
    assert njit(lambda x: np.sqrt(x, where=True))(16.0) == 4.0
