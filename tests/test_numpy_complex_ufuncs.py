"""NumPy's unary ufuncs on complex arrays and scalars (ember/library/numpy/complex_ufuncs.py):
bit for bit NumPy's complex128 results, special values included; complex64 computed in double
precision and rounded (NumPy's single-precision functions are off by a few units in the last
place, or more where they cancel)."""

import warnings

import numpy as np
import pytest

from ember import njit

NAMES = ["exp", "log", "sqrt", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
         "tanh", "arcsinh", "arccosh", "arctanh", "exp2", "expm1", "log2", "log10", "log1p",
         "reciprocal", "sign"]  # fmt: skip
SPECIAL = [0, -0.0, 1j, -1j, np.inf, -np.inf, complex(np.inf, np.inf), complex(np.nan, 1),
           complex(1, np.nan), complex(0, np.inf), complex(np.inf, 0), 1e300 + 1e300j, 1e-300j,
           complex(-np.inf, np.nan), complex(np.nan, -np.inf), 1 + 0j, -1 + 0j]  # fmt: skip


def _compiled(name):
    namespace = {"np": np}
    exec(f"def f(z, s):\n    return np.{name}(z), np.{name}(s)\n", namespace)
    return njit(namespace["f"]), namespace["f"]


def _same_bits(a, b) -> bool:
    def agree(x, y):
        return (x == y) | (np.isnan(x) & np.isnan(y))

    return bool(np.all(agree(a.real, b.real) & agree(a.imag, b.imag)))


@pytest.mark.parametrize("name", NAMES)
def test_complex128_equals_numpy_bit_for_bit(name):
    rng = np.random.default_rng(1)
    z = np.concatenate([rng.normal(0, 3, 3000) + 1j * rng.normal(0, 3, 3000), SPECIAL])
    compiled, plain = _compiled(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (mine, mine_scalar), (theirs, theirs_scalar) = compiled(z, z[1]), plain(z, z[1])
    assert mine.dtype == theirs.dtype == np.complex128
    assert _same_bits(mine, theirs)
    assert _same_bits(np.asarray(mine_scalar), np.asarray(theirs_scalar))


@pytest.mark.parametrize("name", NAMES)
def test_complex64_is_the_double_result_rounded(name):
    rng = np.random.default_rng(2)
    z = (rng.normal(0, 2, 2000) + 1j * rng.normal(0, 2, 2000)).astype(np.complex64)
    compiled, plain = _compiled(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mine = compiled(z, z[0])[0]
        rounded = plain(z.astype(np.complex128), 0j)[0].astype(np.complex64)
        numpys = plain(z, z[0])[0]
    assert mine.dtype == numpys.dtype == np.complex64
    assert _same_bits(mine, rounded)
    finite = np.isfinite(numpys)
    np.testing.assert_allclose(
        mine[finite], numpys[finite], rtol=0, atol=1e-4 * np.abs(numpys[finite]).max()
    )
