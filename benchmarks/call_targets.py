"""Trivial functions for `bench_call.py`: each does almost nothing, so a call costs the dispatch.

They are plain Python; the benchmark wraps each with `ember.njit` and `numba.njit`.
"""


def no_args():
    return 1


def add(a, b):
    return a + b


def add5(a, b, c, d, e):
    return a + b + c + d + e


def sum_pair(pair):
    return pair[0] + pair[1]


def add_default(a, b=2):
    return a + b


def length(arr):
    return len(arr)


def doubled(arr):
    return arr * 2.0


def tail_and_length(arr):
    return arr[1:], len(arr)
