"""Long functions compile in time close to linear in their size (benchmarks/bench_compile.py
measures it; nothing is timed here): what the faster paths produce must stay correct.

- a generated function of 300 `if/else` blocks, optimized by the O1 pipeline that functions over
  `config.LARGE_FUNCTION` instructions get, agrees with CPython on many inputs;
- a loop kernel compiled through that pipeline agrees too (vectorization stays on);
- block-local temporaries are the variables lowered as SSA values in long functions, and
  varied code lowered that way (loops, arrays, lists, exceptions) agrees with CPython;
- the garbage collector, paused while compiling, is back on afterwards, even after an error.
"""

import gc
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import config
from ember.codegen import jit as jit_module
from ember.errors import TypingError
from ember.lowering import block_values
from ember.lowering.block_values import block_local_values

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from generated_blocks import ARRAY_LENGTH, block_function  # noqa: E402

BLOCKS = 300
generated = block_function(BLOCKS, "generated_300")
optimized_sizes: list[int] = []


@pytest.fixture(scope="module")
def large():
    """The 300-block function, compiled once; records the size the optimizer was told."""
    original = jit_module.JITEngine.optimize

    def spy(self, module, instructions=0, *options):
        optimized_sizes.append(instructions)
        return original(self, module, instructions, *options)

    jit_module.JITEngine.optimize = spy
    try:
        compiled = ember.njit(generated)
        compiled(np.zeros(ARRAY_LENGTH), 0.0)
    finally:
        jit_module.JITEngine.optimize = original
    return compiled


def test_large_function_takes_the_large_pipeline(large):
    assert max(optimized_sizes) > config.LARGE_FUNCTION


def test_large_function_agrees_with_python_on_many_inputs(large):
    rng = np.random.default_rng(20)
    for scale in (1e-3, 1.0, 10.0, 1e6):
        for _ in range(25):
            a = rng.normal(0.0, scale, ARRAY_LENGTH)
            x = float(rng.normal(0.0, scale))
            assert large(a, x) == generated(a, x)


_finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


@settings(max_examples=60, deadline=None)
@given(st.lists(_finite, min_size=ARRAY_LENGTH, max_size=ARRAY_LENGTH), _finite)
def test_large_function_corner_values(large, items, x):
    a = np.array(items)
    assert large(a, x) == generated(a, x)


def test_special_values_follow_python(large):
    for a, x in ((np.full(ARRAY_LENGTH, np.nan), 0.0), (np.full(ARRAY_LENGTH, np.inf), -1.0)):
        with np.errstate(invalid="ignore"):  # inf - inf in the Python reference
            expected = generated(a, x)
        got = large(a, x)
        assert got == expected or (np.isnan(got) and np.isnan(expected))


def _saxpy_sum(a, b, factor):
    total = 0.0
    for i in range(a.size):
        b[i] = factor * a[i] + b[i]
        total += b[i]
    return total


def test_loop_kernel_through_the_large_pipeline(monkeypatch):
    monkeypatch.setattr(config, "LARGE_FUNCTION", 0)  # every function counts as large
    compiled = ember.njit(_saxpy_sum)
    for n in (0, 1, 7, 64, 1001):
        a, b = np.arange(n, dtype=np.float64), np.linspace(0.0, 1.0, n)
        b_expected = b.copy()
        expected = _saxpy_sum(a, b_expected, 1.5)
        assert compiled(a, b, 1.5) == expected
        np.testing.assert_array_equal(b, b_expected)


def _mixed(a, n):
    total = 0.0
    for i in range(n):
        t = a[i] * 2.0
        total += t
    xs = [total]
    return xs[0] + n


def test_block_local_values_are_single_block_temporaries():
    compiled = ember.njit(_mixed)
    a = np.arange(5.0)
    assert compiled(a, 5) == _mixed(a, 5)
    result = next(iter(compiled.overloads.values()))
    locals_ = block_local_values(result.func_ir, result.typing.typemap)
    typemap = result.typing.typemap
    assert "t" in locals_ and "i" in locals_  # assigned once, read in their block only
    assert "total" not in locals_  # assigned in two blocks
    assert "a" not in locals_ and "n" not in locals_  # read in other blocks
    assert not any(typemap[name].__class__.__name__ == "List" for name in locals_)


def _collatz(limit):
    longest = 0
    for start in range(1, limit):
        n, steps = start, 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        longest = max(longest, steps)
    return longest


def _prefix_and_list(a):
    out = np.empty_like(a)
    running = 0.0
    kept = []
    for i in range(a.size):
        running += a[i] * 0.5 - 1.0
        out[i] = running
        if running > 0.0:
            kept.append(i)
    return out.sum() + len(kept), (running, a.shape[0])


def _guarded(x, y):
    try:
        if y == 0:
            raise ZeroDivisionError("y is zero")
        value = x // y + x % y
    except ZeroDivisionError:
        value = -1
    return value * 2 + (1 if x > y else 0)


def test_short_functions_through_block_local_values(monkeypatch):
    monkeypatch.setattr(block_values, "LONG_FUNCTION", 0)  # every function counts as long
    collatz, prefix, guarded = (ember.njit(f) for f in (_collatz, _prefix_and_list, _guarded))
    assert collatz(300) == _collatz(300)
    rng = np.random.default_rng(3)
    for n in (0, 1, 5, 100):
        a = rng.normal(0.0, 3.0, n)
        got, expected = prefix(a), _prefix_and_list(a)
        assert got[1] == expected[1] and np.isclose(got[0], expected[0], rtol=1e-12, atol=0)
    for x in range(-7, 8):
        for y in range(-3, 4):
            assert guarded(x, y) == _guarded(x, y)


def _bad(x):
    return x + "text"


def test_collector_back_on_after_compiling():
    assert gc.isenabled()
    ember.njit(lambda x: x + 1)(1)
    assert gc.isenabled()
    with pytest.raises(TypingError):
        ember.njit(_bad)(1)
    assert gc.isenabled()


def test_collector_stays_off_when_the_program_turned_it_off():
    gc.disable()
    try:
        ember.njit(lambda x: x * 3)(2)
        assert not gc.isenabled()
    finally:
        gc.enable()
