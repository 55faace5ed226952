"""Deep recursion in compiled code raises RecursionError instead of overflowing the stack."""

import threading

import numpy as np
import pytest

import ember
from ember.lowering import stack_check

pytestmark = pytest.mark.skipif(
    not stack_check.supported(), reason="the stack-depth check is built for x86-64 Linux only"
)

TOO_DEEP = 50_000_000  # far beyond any thread's stack at a few dozen bytes per frame


@ember.njit
def depth(n):
    """Branches on its callee's result, so every level needs a frame (`1 + depth(n - 1)`
    would become a loop: see test_a_recursion_adding_to_its_result_needs_no_stack)."""
    if n == 0:
        return 0
    below = depth(n - 1)
    return below + 1 if below >= 0 else below


@ember.njit
def count_down(n):
    if n == 0:
        return 0
    return 1 + count_down(n - 1)


@ember.njit
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@ember.njit
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@ember.njit
def array_depth(n, a):
    """Owns an array in every frame, so an overflow must release each one on the way out."""
    if n == 0:
        return a.sum()
    b = a + 1.0
    return array_depth(n - 1, b) - 1.0


@ember.njit
def divide_at_bottom(n, d):
    if n == 0:
        return 10 // d
    return divide_at_bottom(n - 1, d)


@ember.njit
def depth_or_minus_one(n):
    try:
        return depth(n)
    except RecursionError:
        return -1


def test_moderate_depths_match_python():
    for n in (0, 1, 7, 900):
        assert depth(n) == depth.py_func(n)
        assert is_even(n) == is_even.py_func(n)
        assert is_odd(n) == is_odd.py_func(n)


def test_a_recursion_adding_to_its_result_needs_no_stack():
    """Its body cannot raise, so it returns its result directly (no status, no out-pointer)
    and LLVM turns the recursion into a loop with an accumulator: any depth gives the value
    Python would give with an unlimited stack."""
    assert count_down(900) == count_down.py_func(900)
    assert count_down(TOO_DEEP) == TOO_DEEP


def test_too_deep_raises_recursion_error_naming_the_function():
    with pytest.raises(RecursionError, match="compiled function depth"):
        depth(TOO_DEEP)
    assert depth(12_345) == 12_345  # the function and the thread are fine afterwards


def test_mutual_recursion_too_deep_raises():
    with pytest.raises(RecursionError, match="is_(even|odd)"):
        is_even(TOO_DEEP)
    assert is_even(1000) is True


def test_overflow_with_owned_arrays_releases_every_frame():
    a = np.arange(4.0)
    assert array_depth(50, a) == pytest.approx(array_depth.py_func(50, a))
    before = ember.runtime.stats().live
    with pytest.raises(RecursionError):
        array_depth(TOO_DEEP, a)
    assert ember.runtime.stats().live == before


def test_ordinary_exceptions_still_propagate_from_depth():
    with pytest.raises(ZeroDivisionError):
        divide_at_bottom(10_000, 0)
    assert divide_at_bottom(10_000, 3) == 3
    with pytest.raises(RecursionError):  # the resume point was restored after the exception
        divide_at_bottom(TOO_DEEP, 3)


def test_compiled_caller_can_catch_it():
    assert depth_or_minus_one(TOO_DEEP) == -1
    assert depth_or_minus_one(321) == 321


@pytest.mark.parametrize("stack_size", [256 * 1024, 4 * 1024 * 1024])
def test_threads_with_small_stacks_raise_too(stack_size):
    outcome = []

    def run():
        try:
            depth(TOO_DEEP)
        except RecursionError:
            outcome.append("RecursionError")
        outcome.append(depth(1000))

    previous = threading.stack_size(stack_size)
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(previous)
    assert outcome == ["RecursionError", 1000]
