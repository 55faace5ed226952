"""Patterns from third-party Numba packages (pydata/sparse, pynndescent, stumpy) that ember
failed: small programs in their style, checked against CPython running the same code."""

import operator

import numpy as np
import pytest

import ember
from tests.oracle import assert_frees_all


def _first_gap_or_end(coords, reduce_size):
    """sparse's argmin/argmax fallback: the first coordinate not in the sorted `coords` (a 0-d
    array walks the coordinates, and `current + 1` goes into a list of ints)."""
    result = []
    current = np.array(-1, dtype=coords.dtype)
    found = False
    for idx, new in enumerate(np.nditer(np.sort(coords))):
        if new - current > 1:
            result.append(idx)
            found = True
            break
        current = new
    if not found:
        result.append(current + 1)
    if reduce_size < 0:
        result.append(-current)
    return np.array(result, dtype=np.intp)


def test_zero_d_arithmetic_is_a_scalar_in_an_int_list():
    jitted = ember.njit(_first_gap_or_end)
    cases = [
        (np.array([0, 1, 2], np.int64), 3),
        (np.array([0, 2, 3], np.int64), -1),
        (np.array([1, 0], np.int64), -1),
        (np.array([5], np.int64), 1),
    ]
    for coords, size in cases:
        np.testing.assert_array_equal(jitted(coords, size), _first_gap_or_end(coords, size))
    for fn in (jitted, _first_gap_or_end):  # NumPy's nditer refuses an empty array
        with pytest.raises(ValueError, match="zero-sized"):
            fn(np.array([], np.int64), 1)
    assert_frees_all(jitted, lambda: np.array([0, 1, 3], np.int64), lambda: -1, calls=50)


def _zero_d_results(a, m, x):
    """Operators and ufuncs whose operands are 0-d arrays and scalars (NumPy: scalars)."""
    return (
        a + 1,
        -a,
        a * 2.5,
        a // -2,
        a % -3,
        a**2,
        a > 2,
        np.sqrt(a * 1.0),
        np.add(a, a),
        np.maximum(a, x),
        np.logical_not(m),
        operator.invert(m),
        ~a,
        (a + 1) * x,
    )


def test_zero_d_operands_give_numpy_scalars():
    jitted = ember.njit(_zero_d_results)
    for value in (-7, -1, 0, 3, 2**40):
        for flag in (True, False):
            for x in (-2.5, 0.0, 4.0, np.nan):
                args = (np.array(value), np.array(flag), x)
                if value < 0 and x != x:
                    continue  # one NaN case is enough, and sqrt(-1) warns
                got, want = jitted(*args), _zero_d_results(*args)
                assert len(got) == len(want)
                for g, w in zip(got, want):
                    assert not isinstance(g, np.ndarray), (g, w)
                    np.testing.assert_equal(g, w)
                    assert np.asarray(g).dtype == np.asarray(w).dtype


def _mixed_ranks(a, v, out):
    """A 0-d array with a 1-d one stays an array; out= and in-place keep the 0-d array."""
    np.add(a, 0.5, out=out)
    a += 1
    return (a + 1) * v, a * np.ones(0), out, a


def test_zero_d_with_arrays_and_outputs_stay_arrays():
    jitted = ember.njit(_mixed_ranks)
    v = np.arange(4.0)
    got = jitted(np.array(3), v, np.zeros(()))
    want = _mixed_ranks(np.array(3), v, np.zeros(()))
    for g, w in zip(got, want):
        assert isinstance(g, np.ndarray) and g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_intrinsic_declares_an_llvm_intrinsic_through_cgutils():
    """pynndescent's popcount: an @intrinsic calling llvm.ctpop via get_or_insert_function."""
    from llvmlite import ir as llvm_ir

    from ember import types
    from ember.core import cgutils
    from ember.extending import intrinsic

    @intrinsic
    def popcount_u8(typingctx, val):
        def codegen(context, builder, sig, args):
            fnty = llvm_ir.FunctionType(args[0].type, [args[0].type])
            ctpop = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i8")
            again = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i8")
            assert again is ctpop  # one declaration per module
            return builder.call(ctpop, args)

        return types.uint8(types.uint8), codegen

    @ember.njit
    def bit_distance(x, y):
        total = 0
        for i in range(x.shape[0]):
            total += popcount_u8(x[i] ^ y[i])
        return total

    rng = np.random.default_rng(3)
    x, y = (rng.integers(0, 256, 64, dtype=np.uint8) for _ in range(2))
    want = sum(bin(int(a) ^ int(b)).count("1") for a, b in zip(x, y))
    assert bit_distance(x, y) == want
    assert bit_distance(x, x) == 0


CACHED_CALLEE_MODULE = """\
import numpy as np
import ember

@ember.njit(cache=True)
def scale_row(out, x, i):
    for j in range(x.shape[1]):
        out[i, j] = x[i, j] * 2.0 - j

@ember.njit(parallel=True)
def scale(x):
    out = np.empty_like(x)
    for i in ember.prange(x.shape[0]):
        scale_row(out, x, i)
    return out
"""

CACHED_CALLEE_DRIVER = """\
import json, warnings
import numpy as np
warnings.simplefilter("ignore")
from rows import scale, scale_row
x = np.arange(12.0).reshape(4, 3)
want = x * 2.0 - np.arange(3)
scale_row(np.empty_like(x), x, 0)  # a direct call: loaded from the cache on the second run
from_cache = [r.func_ir is None for r in scale_row.overloads.values()]
from ember.parallel.array_hazards import written_parameters
written = written_parameters(scale_row)  # what a prange body calling it may write
print(json.dumps({"equal": bool(np.array_equal(scale(x), want)), "from_cache": from_cache,
                  "written": sorted(written) if written is not None else None}))
"""


def test_prange_calling_a_callee_loaded_from_the_cache(tmp_path):
    """pynndescent: prange bodies call `cache=True` helpers; on the second run the helper comes
    from the on-disk cache (no IR to read): the entry keeps which parameters it writes."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "rows.py").write_text(CACHED_CALLEE_MODULE)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("EMBER_", "NUMBA_"))}
    environ["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    environ["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", CACHED_CALLEE_DRIVER],
            cwd=tmp_path,
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    # compiled here: it writes its first argument; loaded: the entry says so too
    assert runs[0] == {"equal": True, "from_cache": [False], "written": [0]}
    assert runs[1] == {"equal": True, "from_cache": [True], "written": [0]}
