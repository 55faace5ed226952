"""Reference counting that costs nothing where it cancels: a method taken and called in one
statement borrows its object (ember/lowering/lower.py), and llvmlite's pruning pass removes
incref/decref pairs left next to each other after inlining (ember/codegen/jit.py). Results
equal CPython's, and every block allocated is freed, including when a method outlives a
reassignment of its object."""

import gc

import numpy as np

import ember.runtime
from ember import njit


def _live() -> int:
    gc.collect()
    return ember.runtime.stats().live


@njit
def append_then_sum(n):
    xs = []
    for i in range(n):
        xs.append(i * 0.5)
    total = 0.0
    for x in xs:
        total += x
    return total, len(xs)


@njit
def method_outlives_its_variable(n):
    xs = [1.0]
    add = xs.append  # bound to the first list
    xs = [2.0, 3.0]  # the variable moves on; the method keeps the first list alive
    for i in range(n):
        add(float(i))
    return len(xs), xs[0]


@njit
def nested_lists(n):
    rows = []
    for i in range(n):
        row = []
        for j in range(i % 4):
            row.append(np.ones(j + 1) * i)
        rows.append(row)
    total = 0.0
    for row in rows:
        for a in row:
            total += a.sum()
    return total


@njit
def small_arrays_in_a_loop(n):
    total = 0.0
    for i in range(n):
        v = np.zeros(3)
        v[0] = i
        w = v[1:]
        w[0] = 2.0 * i
        total += v.sum() + w.sum()
    return total


@njit
def pop_and_append(n):
    xs = [np.arange(3.0) for _ in range(4)]
    for i in range(n):
        xs.append(xs.pop(0) + i)
    return xs[0].sum() + xs[-1].sum()


CASES = [
    (append_then_sum, (1000,)),
    (method_outlives_its_variable, (5,)),
    (nested_lists, (30,)),
    (small_arrays_in_a_loop, (100,)),
    (pop_and_append, (50,)),
]


def test_results_equal_cpython():
    for function, args in CASES:
        mine, theirs = function(*args), function.py_func(*args)
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=0)


def test_nothing_leaks_over_many_calls():
    for function, args in CASES:
        function(*args)
    before = _live()
    for _ in range(300):
        for function, args in CASES:
            function(*args)
    assert _live() == before


def test_list_append_loop_has_no_atomic_reference_counting():
    append_then_sum(3)
    optimized = append_then_sum.inspect_llvm(append_then_sum.signatures[0])
    body = optimized[optimized.index("define") :]
    loop_increfs = [line for line in body.splitlines() if "call void @NRT_incref" in line]
    assert loop_increfs == []
