"""Cases found by running Numba's parallel test suite's usecases against ember: each runs under
CPython, serial njit and njit(parallel=True) (repeated) and must agree."""

import numpy as np
from test_parallel_numpy import (  # noqa: F401 - the fixture applies here too
    check,
    every_item_is_worth_a_thread,
)


def gathers_through_shifted_indices(arr, offset, flag):
    first = np.arange(arr.size)
    second = np.arange(offset, arr.size + offset)
    if flag:
        left = first[first]
        right = second[first]
    else:
        left = first[first - 1]  # index -1 wraps to the last element
        right = second[first - 1]
    return left / right


def test_gather_reads_the_index_array_written_by_an_earlier_loop():
    # the gather left[...] reads the array `first - 1` fills: fusion must not move it above
    # the loop that fills it
    for flag in (True, False):
        check(gathers_through_shifted_indices, np.arange(40), 10, flag, repeats=5)
    # hand-worked: with flag, left[i] = i and right[i] = i + 10
    expected = np.arange(40) / (np.arange(40) + 10)
    np.testing.assert_array_equal(
        gathers_through_shifted_indices(np.arange(40), 10, True), expected
    )
