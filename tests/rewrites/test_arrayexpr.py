"""Array-expression fusion (issue 6): fused expressions give NumPy's values and dtypes,
broadcast like NumPy, allocate only their result, and show up in the IR."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember.runtime as runtime
from ember import njit


@njit
def two_operands(a, b):
    return a * b - b


@njit
def three_operands(a, b, c):
    return a * b + c


@njit
def four_operands(a, b, c, d):
    return (a - b) * (c + d)


@njit
def five_operands(a, b, c, d, e):
    return a * b + c * d - e


@njit
def six_operands(a, b, c, d, e, f):
    return a * b + c * d - e / f


@njit
def with_ufuncs(a, b):
    return np.sqrt(a * a + b * b) + np.exp(-a)


@njit
def with_scalars(a, b, scale):
    return 2 * a * b + scale * b**2 - 1.5


@njit
def comparison_chain(a, b):
    return (a + b) > (a * b)


def _arrays(shapes, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.random(shape) + 0.5).astype(dtype) for shape in shapes]


@pytest.mark.parametrize(
    ("function", "count"),
    [
        (two_operands, 2),
        (three_operands, 3),
        (four_operands, 4),
        (five_operands, 5),
        (six_operands, 6),
    ],
)
def test_fused_results_match_numpy(function, count):
    args = _arrays([(17,)] * count)
    expected = function.py_func(*args)
    got = function(*args)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-15)


def test_broadcasting_1d_against_2d_and_scalars():
    matrix, row = _arrays([(4, 5), (5,)])
    np.testing.assert_allclose(three_operands(matrix, row, 3.0), matrix * row + 3.0)
    np.testing.assert_allclose(three_operands(row, matrix, row), row * matrix + row)
    column = matrix[:, :1]
    np.testing.assert_allclose(three_operands(column, row, matrix), column * row + matrix)
    np.testing.assert_allclose(
        with_scalars(matrix, row, 0.25), with_scalars.py_func(matrix, row, 0.25)
    )


def test_mixed_dtypes_follow_numpy_promotion():
    ints = np.arange(1, 8, dtype=np.int32)
    floats32 = np.linspace(0.5, 2.0, 7, dtype=np.float32)
    floats64 = np.linspace(-1.0, 1.0, 7)
    for args in [(ints, floats32, floats64), (floats32, floats32, floats32), (ints, ints, ints)]:
        expected = three_operands.py_func(*args)
        got = three_operands(*args)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_ufuncs_and_comparisons_inside_expressions():
    a, b = _arrays([(3, 4), (3, 4)])
    np.testing.assert_allclose(with_ufuncs(a, b), with_ufuncs.py_func(a, b), rtol=1e-14)
    got = comparison_chain(a, b)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, comparison_chain.py_func(a, b))


def test_non_contiguous_and_fortran_inputs():
    base = _arrays([(6, 8)])[0]
    strided = base[::2, 1::3]
    fortran = np.asfortranarray(base[:3, :3])
    np.testing.assert_allclose(
        three_operands(strided, strided, strided), strided * strided + strided
    )
    np.testing.assert_allclose(three_operands(fortran, fortran, 1.0), fortran * fortran + 1.0)


def test_empty_arrays():
    empty = np.zeros((0, 3))
    assert three_operands(empty, empty, empty).shape == (0, 3)


def test_only_the_result_is_allocated():
    a, b, c = _arrays([(1000,)] * 3)
    three_operands(a, b, c)
    before = runtime.stats()
    result = three_operands(a, b, c)
    after = runtime.stats()
    assert after.alloc - before.alloc == 1
    del result
    assert runtime.stats().free - before.free == 1


def test_incompatible_shapes_raise_like_numpy():
    a, b = _arrays([(3,), (4,)])
    with pytest.raises(ValueError):
        three_operands(a, b, a)


def test_ir_dump_shows_the_rewrite(tmp_path):
    source = textwrap.dedent(
        """
        import numpy as np
        from ember import njit

        @njit
        def f(a0, a1, a2):
            return a0 * a1 + a2

        f(np.ones(3), np.ones(3), np.ones(3))
        """
    )
    script = tmp_path / "dump_arrayexpr.py"
    script.write_text(source)
    env = dict(os.environ, EMBER_DUMP_IR="1")
    output = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=True
    ).stdout
    before, _, after = output.partition("REWRITING:")[2].partition("_" * 60)
    assert "a0 * a1" in before and "arrayexpr" not in before
    assert "arrayexpr(ty=array(float64, 1d, C), expr=('+', [('*', [Var(a0" in after
    assert "a0 * a1" not in after
