"""Scalar loop kernels shared by `bench_scalar.py`, written once in plain Python.

Each kernel has an equivalent C function of the same name in `scalar_kernels.c`. The module is
loaded afresh for every JIT (see `bench_scalar.load_kernels`), so that recursive calls such as
`fib` resolve to that JIT's own dispatcher through the module globals.
"""

import math


def leibniz_pi(terms):
    """Partial sum of the Leibniz series for pi: float division in a counted loop."""
    total = 0.0
    sign = 1.0
    for k in range(terms):
        total += sign / (2 * k + 1)
        sign = -sign
    return 4.0 * total


def collatz_steps(limit):
    """Total Collatz steps of every start below `limit`: integer `%`, `//` and a while loop."""
    total = 0
    for start in range(1, limit):
        n = start
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            total += 1
    return total


def trapezoid_sin(intervals):
    """Trapezoid rule for the integral of sin over [0, pi] (exactly 2): a math call per step."""
    width = math.pi / intervals
    total = 0.5 * (math.sin(0.0) + math.sin(math.pi))
    for i in range(1, intervals):
        total += math.sin(i * width)
    return total * width


def count_primes(limit):
    """Primes below `limit` by trial division: nested loops, `%` and an early break."""
    count = 0
    for n in range(2, limit):
        is_prime = True
        d = 2
        while d * d <= n:
            if n % d == 0:
                is_prime = False
                break
            d += 1
        if is_prime:
            count += 1
    return count


def logistic_map(steps):
    """Mean of the chaotic logistic map x -> r x (1 - x): a serial float recurrence."""
    r = 3.9
    x = 0.5
    total = 0.0
    for _ in range(steps):
        x = r * x * (1.0 - x)
        total += x
    return total / steps


def fib(n):
    """Naive recursive Fibonacci: call overhead of a compiled function calling itself."""
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
