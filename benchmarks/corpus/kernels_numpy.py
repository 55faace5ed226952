"""Corpus: NumPy-style kernels as users write them -- array expressions on slices, boolean
masks, axis reductions, small `np.dot` calls in loops, an implicit-midpoint ODE solver that
steps small arrays, and library calls (quantiles, norms, histograms, partitions, covariances)."""

import numpy as np
from _backend import njit
from _corpus import Case


def vector(n, seed=0):
    return np.random.default_rng(seed).random(n)


def matrix(rows, cols, seed=0):
    return np.random.default_rng(seed).random((rows, cols))


# ------------------------------------------------------------------------------ slices


def finite_difference(x):
    return x[1:] - x[:-1]


def smooth_slices(a):
    return 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]


def heat_steps(u0, steps, r):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def diff_loop(x):
    out = np.empty(x.shape[0] - 1)
    for i in range(x.shape[0] - 1):
        out[i] = x[i + 1] - x[i]
    return out


@njit
def oscillator(y, omega):
    dy = np.empty(2)
    dy[0] = y[1]
    dy[1] = -omega * omega * y[0]
    return dy


def implicit_midpoint(y0, dt, steps, omega):
    y = y0.copy()
    for _ in range(steps):
        guess = y + 0.5 * dt * oscillator(y, omega)
        for _ in range(3):
            guess = y + 0.5 * dt * oscillator(guess, omega)
        y = 2.0 * guess - y
    return y


# ------------------------------------------------------------------------------ masks


def masked_sum(a, threshold):
    return a[a > threshold].sum()


def relu_where(a):
    return np.where(a > 0.0, a, 0.0)


def count_in_band(a, lo, hi):
    mask = (a > lo) & (a < hi)
    return np.count_nonzero(mask), a[mask].mean()


def sieve(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            is_prime[i * i :: i] = False
        i += 1
    return np.nonzero(is_prime)[0]


# ------------------------------------------------------------------------------ reductions


def row_sums(m):
    return m.sum(axis=1)


def column_means(m):
    return m.sum(axis=0) / m.shape[0]


def row_argmax(m):
    return np.argmax(m, axis=1)


def fortran_row_sums(m):
    return np.asfortranarray(m).sum(axis=1)


def softmax_rows(m):
    out = np.empty_like(m)
    for i in range(m.shape[0]):
        e = np.exp(m[i] - m[i].max())
        out[i] = e / e.sum()
    return out


def cumulative_max_drawdown(prices):
    returns = np.cumsum(prices - prices.mean())
    peak = returns.copy()
    for i in range(1, peak.shape[0]):
        if peak[i - 1] > peak[i]:
            peak[i] = peak[i - 1]
    return (peak - returns).max()


# ------------------------------------------------------------------------------ np.dot


def rotate_points(points, angle):
    c, s = np.cos(angle), np.sin(angle)
    rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    out = np.empty_like(points)
    for i in range(points.shape[0]):
        out[i] = np.dot(rotation, points[i])
    return out


def row_dots(a, b):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.dot(a[i], b[i])
    return out


def matvec(m, v):
    return np.dot(m, v)


def power_iteration(m, steps):
    v = np.ones(m.shape[0])
    for _ in range(steps):
        w = m @ v
        v = w / np.sqrt(np.dot(w, w))
    return v


# ------------------------------------------------------------------------------ library calls


def tail_percentile(a):
    return np.percentile(a, 90.0)


def vector_norm(a):
    return np.linalg.norm(a)


def histogram_counts(a):
    return np.histogram(a, bins=50)[0]


def nearest_per_row(m):
    total = 0
    for i in range(m.shape[0]):
        total += m[i].argmin()
    return total


def row_argmax_short(m):
    return np.argmax(m, axis=1)


def where_positions(a):
    return np.where(a > 0.5)[0]


def median_by_partition(a):
    return np.partition(a, a.shape[0] // 2)[a.shape[0] // 2]


def covariance(m):
    return np.cov(m)


def sorted_list_median(a):
    values = list(a)
    values.sort()
    return values[len(values) // 2]


def trajectory_from_scalars(steps, dt):
    """Small arrays from scalars in a loop: `np.array([x, y, z])` per step."""
    out = np.empty((steps, 3))
    x, y, z = 1.0, 0.0, 0.0
    for i in range(steps):
        x, y, z = x - dt * y, y + dt * x, z + dt
        out[i] = np.array([x, y, z])
    return out


CASES = [
    Case(finite_difference, lambda n: (vector(n),), 100, 1_000_000, "slices"),
    Case(smooth_slices, lambda n: (vector(n),), 100, 1_000_000, "slices"),
    Case(heat_steps, lambda n: (vector(n), 50, 0.25), 100, 10_000, "slices"),
    Case(diff_loop, lambda n: (vector(n),), 100, 1_000_000, "slices"),
    Case(
        implicit_midpoint,
        lambda n: (np.array([1.0, 0.0]), 0.01, n, 2.0),
        10,
        50_000,
        "small allocations",
    ),
    Case(masked_sum, lambda n: (vector(n), 0.3), 100, 1_000_000, "masks"),
    Case(relu_where, lambda n: (vector(n) - 0.5,), 100, 1_000_000, "masks"),
    Case(count_in_band, lambda n: (vector(n), 0.2, 0.6), 100, 1_000_000, "masks"),
    Case(sieve, lambda n: (n,), 100, 1_000_000, "masks"),
    Case(row_sums, lambda n: (matrix(n, n),), 10, 1000, "axis reductions"),
    Case(column_means, lambda n: (matrix(n, n),), 10, 1000, "axis reductions"),
    Case(row_argmax, lambda n: (matrix(n, n),), 10, 1000, "axis reductions"),
    Case(fortran_row_sums, lambda n: (matrix(n, n),), 10, 1000, "axis reductions"),
    Case(softmax_rows, lambda n: (matrix(n, 64),), 10, 10_000, "axis reductions"),
    Case(cumulative_max_drawdown, lambda n: (vector(n),), 100, 1_000_000, "prefix sums"),
    Case(rotate_points, lambda n: (matrix(n, 3), 0.3), 10, 100_000, "np.dot"),
    Case(row_dots, lambda n: (matrix(n, 3), matrix(n, 3, 1)), 10, 200_000, "np.dot"),
    Case(matvec, lambda n: (matrix(n, n), vector(n)), 10, 1000, "np.dot"),
    Case(power_iteration, lambda n: (matrix(n, n), 20), 10, 300, "np.dot"),
    Case(tail_percentile, lambda n: (vector(n),), 100, 200_000, "library calls"),
    Case(vector_norm, lambda n: (vector(n),), 100, 200_000, "library calls"),
    Case(histogram_counts, lambda n: (vector(n),), 100, 200_000, "library calls"),
    Case(nearest_per_row, lambda n: (matrix(n, 10),), 10, 20_000, "library calls"),
    Case(row_argmax_short, lambda n: (matrix(n, 10),), 10, 20_000, "library calls"),
    Case(where_positions, lambda n: (vector(n),), 100, 200_000, "library calls"),
    Case(median_by_partition, lambda n: (vector(n),), 100, 200_000, "library calls"),
    Case(covariance, lambda n: (matrix(5, n),), 10, 20_000, "library calls"),
    Case(sorted_list_median, lambda n: (vector(n),), 100, 50_000, "lists"),
    Case(trajectory_from_scalars, lambda n: (n, 0.01), 10, 100_000, "small allocations"),
]
