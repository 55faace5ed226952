"""Corpus: control-flow kernels as users write them -- recursion, small helpers called in hot
loops, tuple returns, while/break, lists, random numbers, dynamic programming on int arrays and
hand-written sorts. Each kernel is a plain function; helpers carry `@njit` as in user code."""

import math

import numpy as np
from _backend import njit
from _corpus import Case


def uniform(n, seed=0):
    return np.random.default_rng(seed).random(n)


# ------------------------------------------------------------------------------ recursion


@njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def fibonacci(n):
    return fib(n)


@njit
def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


def ackermann_grid(m, n):
    total = 0
    for j in range(n):
        total += ackermann(m, j)
    return total


@njit
def _partition(a, lo, hi):
    pivot = a[hi]
    i = lo
    for j in range(lo, hi):
        if a[j] < pivot:
            a[i], a[j] = a[j], a[i]
            i += 1
    a[i], a[hi] = a[hi], a[i]
    return i


@njit
def _quicksort(a, lo, hi):
    if lo < hi:
        p = _partition(a, lo, hi)
        _quicksort(a, lo, p - 1)
        _quicksort(a, p + 1, hi)


def quicksort(values):
    a = values.copy()
    _quicksort(a, 0, len(a) - 1)
    return a


@njit
def _merge_sort(a):
    n = a.shape[0]
    if n <= 1:
        return a.copy(), 0
    left, inv_left = _merge_sort(a[: n // 2])
    right, inv_right = _merge_sort(a[n // 2 :])
    out = np.empty(n)
    i = j = k = 0
    inversions = inv_left + inv_right
    while i < left.shape[0] and j < right.shape[0]:
        if left[i] <= right[j]:
            out[k] = left[i]
            i += 1
        else:
            out[k] = right[j]
            j += 1
            inversions += left.shape[0] - i
        k += 1
    while i < left.shape[0]:
        out[k] = left[i]
        i += 1
        k += 1
    while j < right.shape[0]:
        out[k] = right[j]
        j += 1
        k += 1
    return out, inversions


def count_inversions(values):
    return _merge_sort(values)


# ------------------------------------------------------------------------------ helpers


@njit
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def clamp_all(a, lo, hi):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = clamp(a[i], lo, hi)
    return out


@njit
def smoothstep(edge0, edge1, x):
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def smoothstep_sum(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += smoothstep(0.2, 0.8, a[i])
    return total


@njit
def min_max(a):
    lo = a[0]
    hi = a[0]
    for v in a:
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    return lo, hi


def normalize(a):
    lo, hi = min_max(a)
    return (a - lo) / (hi - lo)


@njit
def mean_variance(a):
    mean = 0.0
    m2 = 0.0
    for k in range(a.shape[0]):
        delta = a[k] - mean
        mean += delta / (k + 1)
        m2 += delta * (a[k] - mean)
    return mean, m2 / a.shape[0]


def standardize(a):
    mean, var = mean_variance(a)
    std = math.sqrt(var)
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = (a[i] - mean) / std
    return out


def divmod_digits(n):
    total = 0
    for i in range(n):
        q, r = divmod(i, 7)
        total += q * r
    return total


# ------------------------------------------------------------------------------ while / break


def first_crossing(a, threshold):
    found = -1
    for i in range(a.shape[0]):
        if a[i] > threshold:
            found = i
            break
    return found


def bisect_roots(targets):
    roots = np.empty_like(targets)
    for k in range(targets.shape[0]):
        lo, hi = 0.0, 2.0
        while hi - lo > 1e-12:
            mid = 0.5 * (lo + hi)
            if mid * mid * mid - targets[k] > 0.0:
                hi = mid
            else:
                lo = mid
        roots[k] = 0.5 * (lo + hi)
    return roots


def newton_sqrt(values):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        x = values[i]
        guess = x if x > 1.0 else 1.0
        while True:
            better = 0.5 * (guess + x / guess)
            if abs(better - guess) < 1e-12 * better:
                break
            guess = better
        out[i] = better
    return out


# ------------------------------------------------------------------------------ lists


def squares_list(n):
    values = []
    for i in range(n):
        values.append(i * 0.5)
    total = 0.0
    for v in values:
        total += v * v
    return total


def primes_below(n):
    primes = [2]
    k = 3
    while k < n:
        is_prime = True
        for p in primes:
            if p * p > k:
                break
            if k % p == 0:
                is_prime = False
                break
        if is_prime:
            primes.append(k)
        k += 2
    return len(primes), sum(primes)


def filtered_indices(a, threshold):
    picked = []
    for i in range(a.shape[0]):
        if a[i] > threshold:
            picked.append(i)
    return np.array(picked)


# ------------------------------------------------------------------------------ random


def monte_carlo_pi(n):
    np.random.seed(42)
    inside = 0
    for _ in range(n):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y <= 1.0:
            inside += 1
    return 4.0 * inside / n


def random_walk(n):
    np.random.seed(7)
    position = 0.0
    farthest = 0.0
    for _ in range(n):
        position += np.random.normal(0.0, 1.0)
        farthest = max(farthest, abs(position))
    return farthest


# ------------------------------------------------------------------------------ dynamic programming


def lcs_length(a, b):
    n, m = a.shape[0], b.shape[0]
    table = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                table[i, j] = table[i - 1, j - 1] + 1
            else:
                table[i, j] = max(table[i - 1, j], table[i, j - 1])
    return table[n, m]


def edit_distance(a, b):
    n, m = len(a), len(b)
    prev = np.arange(m + 1)
    cur = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        cur[0] = i
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev, cur = cur, prev
    return prev[m]


def knapsack(weights, values, capacity):
    best = np.zeros(capacity + 1, dtype=np.int64)
    for k in range(weights.shape[0]):
        w = weights[k]
        for c in range(capacity, w - 1, -1):
            candidate = best[c - w] + values[k]
            if candidate > best[c]:
                best[c] = candidate
    return best[capacity]


def two_sequences(n):
    rng = np.random.default_rng(8)
    return rng.integers(0, 4, n), rng.integers(0, 4, n)


def knapsack_items(n):
    rng = np.random.default_rng(9)
    return rng.integers(1, 50, n), rng.integers(1, 100, n), 20 * n


# ------------------------------------------------------------------------------ generators


@njit
def _neighbour_pairs(a):
    for i in range(a.shape[0] - 1):
        yield a[i], a[i + 1]


def path_length(a):
    total = 0.0
    for x, y in _neighbour_pairs(a):
        total += abs(y - x)
    return total


@njit
def _multiples_of(values, k):
    i = 0
    while i < values.shape[0]:
        if values[i] % k == 0:
            yield values[i]
        i += 1


def sum_of_multiples(values, k):
    total = 0
    for v in _multiples_of(values, k):
        total += v
    return total


@njit
def _squares_up_to(n):
    for i in range(n):
        yield i * i


def sum_of_squares_generated(n):
    return sum(_squares_up_to(n))


# ------------------------------------------------------------------------------ sorting


def insertion_sort(values):
    a = values.copy()
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def median_of_rows(m):
    out = np.empty(m.shape[0])
    for i in range(m.shape[0]):
        out[i] = np.median(m[i])
    return out


def rank_values(a):
    order = np.argsort(a)
    ranks = np.empty(a.shape[0], dtype=np.int64)
    for k in range(order.shape[0]):
        ranks[order[k]] = k
    return ranks


CASES = [
    Case(fibonacci, lambda n: (n,), 10, 25, "recursion"),
    Case(ackermann_grid, lambda n: (2, n), 10, 150, "recursion"),
    Case(quicksort, lambda n: (uniform(n),), 100, 100_000, "recursion"),
    Case(count_inversions, lambda n: (uniform(n),), 100, 50_000, "recursion"),
    Case(clamp_all, lambda n: (uniform(n), 0.2, 0.7), 100, 1_000_000, "helpers"),
    Case(smoothstep_sum, lambda n: (uniform(n),), 100, 1_000_000, "helpers"),
    Case(normalize, lambda n: (uniform(n),), 100, 1_000_000, "tuples"),
    Case(standardize, lambda n: (uniform(n),), 100, 1_000_000, "tuples"),
    Case(divmod_digits, lambda n: (n,), 100, 1_000_000, "tuples"),
    Case(first_crossing, lambda n: (np.linspace(0, 1, n), 0.9), 100, 1_000_000, "while/break"),
    Case(bisect_roots, lambda n: (uniform(n) * 7.0,), 100, 20_000, "while/break"),
    Case(newton_sqrt, lambda n: (uniform(n) * 100.0,), 100, 200_000, "while/break"),
    Case(squares_list, lambda n: (n,), 100, 300_000, "lists"),
    Case(primes_below, lambda n: (n,), 100, 200_000, "lists"),
    Case(filtered_indices, lambda n: (uniform(n), 0.5), 100, 300_000, "lists"),
    Case(monte_carlo_pi, lambda n: (n,), 100, 300_000, "random"),
    Case(random_walk, lambda n: (n,), 100, 200_000, "random"),
    Case(lcs_length, two_sequences, 30, 1_000, "dynamic programming"),
    Case(edit_distance, two_sequences, 30, 1_000, "dynamic programming"),
    Case(knapsack, knapsack_items, 10, 200, "dynamic programming"),
    Case(path_length, lambda n: (uniform(n),), 100, 200_000, "generators"),
    Case(
        sum_of_multiples,
        lambda n: (np.random.default_rng(4).integers(0, 1000, n), 3),
        100,
        200_000,
        "generators",
    ),
    Case(sum_of_squares_generated, lambda n: (n,), 100, 200_000, "generators"),
    Case(insertion_sort, lambda n: (uniform(n),), 100, 3_000, "sorting"),
    Case(median_of_rows, lambda n: (uniform(n * 50).reshape(n, 50),), 10, 5_000, "sorting"),
    Case(rank_values, lambda n: (uniform(n),), 100, 50_000, "sorting"),
]
