"""Fuzzer reproducer (tools/fuzz.py --seed 47, program 197), reduced by hand.

Found: crash (heap corruption after repeated calls): an exception raised by a method call
(`v.max()` of an empty array) inside `try` left the method variable, which borrows its
receiver's reference, to be released by the landing pad, and then again by the next
iteration's assignment; the receiver lost references it still had.
"""

import gc

import numpy as np

import ember
from ember import runtime, types
from ember.typed import Dict


@ember.njit
def _max_into_first(d, rounds):
    caught = 0
    for _ in range(rounds):
        for k in range(len(d)):
            try:
                v = d[k]  # a new reference to the dict's array
                v[0] = v.max()  # `v.max` is lent v's reference; raises for an empty array
            except ValueError:
                caught += 1
    return caught


def _python_reference(arrays, rounds):
    caught = 0
    for _ in range(rounds):
        for v in arrays:
            try:
                v[0] = v.max()
            except ValueError:
                caught += 1
    return caught


def test_caught_method_exception_keeps_reference_counts():
    d = Dict.empty(key_type=types.int64, value_type=types.float64[::1])
    arrays = [np.arange(3.0), np.empty(0), np.arange(2.0) - 5.0, np.empty(0)]
    for k, a in enumerate(arrays):
        d[k] = a.copy()
    expected_arrays = [a.copy() for a in arrays]
    expected = _python_reference(expected_arrays, 5)
    gc.collect()
    before = runtime.stats()
    for _ in range(20):
        assert _max_into_first(d, 5) == expected
    after = runtime.stats()
    assert after.free - before.free == after.alloc - before.alloc  # nothing the dict holds
    for k, want in enumerate(expected_arrays):
        np.testing.assert_array_equal(d[k], want)
