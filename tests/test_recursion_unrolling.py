"""Self-recursive functions have a copy of themselves inlined (ember/codegen/recursion_unrolling):
results, exceptions and the recursion limit stay those of CPython."""

import ctypes
import sys

import numpy as np
import pytest

import ember
from ember.codegen.jit import engine
from ember.codegen.recursion_unrolling import unroll_self_recursion


@ember.njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@ember.njit
def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


@ember.njit
def float_power(x, k):
    if k == 0:
        return 1.0
    half = float_power(x, k // 2)
    return half * half * (x if k % 2 else 1.0)


@ember.njit
def merge_sort(a):
    if a.size <= 1:
        return a.copy()
    middle = a.size // 2
    left, right = merge_sort(a[:middle]), merge_sort(a[middle:])
    out = np.empty_like(a)
    i = j = 0
    for k in range(a.size):
        if j == right.size or (i < left.size and left[i] <= right[j]):
            out[k] = left[i]
            i += 1
        else:
            out[k] = right[j]
            j += 1
    return out


@ember.njit
def countdown_fails_at(n, failing):
    if n == failing:
        raise ValueError("reached the failing level")
    if n == 0:
        return 0
    return 1 + countdown_fails_at(n - 1, failing)


def test_integer_recursions_match_cpython():
    for n in range(0, 26):
        assert fib(n) == fib.py_func(n)
    for m in range(0, 3):
        for n in range(0, 6):
            assert ackermann(m, n) == ackermann.py_func(m, n)
    assert ackermann(3, 5) == 253  # 2 ** (n + 3) - 3


def test_float_recursion_matches_cpython_bit_for_bit():
    for x in (0.0, -1.5, 1.0000001, 3.0, 1e-300, float("inf")):
        for k in range(0, 40):
            assert repr(float_power(x, k)) == repr(float_power.py_func(x, k))


def test_recursion_owning_arrays_sorts_and_frees():
    rng = np.random.default_rng(7)
    merge_sort(np.ones(3))
    before = ember.runtime.stats().live
    for size in (0, 1, 2, 7, 64, 1000):
        a = rng.normal(size=size)
        np.testing.assert_array_equal(merge_sort(a), np.sort(a, kind="stable"))
    assert ember.runtime.stats().live == before


def test_exception_deep_in_the_recursion_reaches_python():
    assert countdown_fails_at(50, -1) == 50
    for failing in (0, 1, 2, 3, 17, 50):
        with pytest.raises(ValueError, match="reached the failing level"):
            countdown_fails_at(50, failing)


def test_deep_recursion_still_raises_recursion_error():
    limit = sys.getrecursionlimit()
    with pytest.raises(RecursionError, match="maximum recursion depth exceeded"):
        fib(10**7)
    assert sys.getrecursionlimit() == limit
    assert fib(20) == 6765  # the thread's stack and resume point are intact


_HAND_WRITTEN = r"""
define i64 @"fib.ir$1"(i64 %n) {
entry:
  %small = icmp slt i64 %n, 2
  br i1 %small, label %base, label %step
base:
  ret i64 %n
step:
  %n1 = sub i64 %n, 1
  %n2 = sub i64 %n, 2
  %a = call i64 @"fib.ir$1"(i64 %n1)
  %b = call i64 @"fib.ir$1"(i64 %n2)
  %sum = add i64 %a, %b
  ret i64 %sum
}
"""


def _self_calls(module, name):
    function = module.get_function(name)
    return sum(
        1
        for block in function.blocks
        for instruction in block.instructions
        if instruction.opcode == "call" and list(instruction.operands)[-1].name == name
    )


def test_hand_written_recursion_is_unrolled_and_keeps_its_value():
    jit = engine()
    module = jit.parse(_HAND_WRITTEN)
    jit.optimize(module)
    unrolled = unroll_self_recursion(jit, module)
    unrolled.verify()
    names = {f.name for f in unrolled.functions}
    assert not any(name.endswith(".unrolled") for name in names)  # copies inlined and dropped
    assert _self_calls(unrolled, "fib.ir$1") >= 1
    # The unrolled function still computes Fibonacci numbers.
    unrolled.name = "unrolled_test_module"
    jit.add_module(unrolled)
    address = jit.address_of("fib.ir$1")
    fib_ir = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(address)
    for n in range(25):
        assert fib_ir(n) == fib.py_func(n)


def test_functions_marked_noinline_are_left_alone():
    jit = engine()
    module = jit.parse(_HAND_WRITTEN.replace("(i64 %n) {", "(i64 %n) noinline {", 1))
    jit.optimize(module)
    before = str(module)
    assert unroll_self_recursion(jit, module) is module
    assert str(module) == before
