"""Corpus: a sixth batch of kernels in the style of public Numba examples -- escape-time fractals
on float pairs, k-means and SPH steps, the longest common run of int arrays, explicit
2-d heat with swapped buffers, Black-Scholes with math.erf, quadrature through a jitted function
passed as an argument, CSR and bincount histograms, sliding-window medians, RK4 on a tuple
state, a float32 bubble sort, bit loops and uint64 hashing, int32 Horner and drawdowns."""

import math

import numpy as np
from _backend import njit
from _corpus import Case

# ------------------------------------------------------------------------------ fractals


def julia_escape(width, height, cx, cy, max_iter):
    """Escape counts of the Julia set of z^2 + c, written on (real, imaginary) float pairs."""
    out = np.zeros((height, width), dtype=np.int32)
    for row in range(height):
        for col in range(width):
            zx = 1.5 * (col - width / 2) / (0.5 * width)
            zy = (row - height / 2) / (0.5 * height)
            i = 0
            while zx * zx + zy * zy < 4.0 and i < max_iter:
                tmp = zx * zx - zy * zy + cx
                zy = 2.0 * zx * zy + cy
                zx = tmp
                i += 1
            out[row, col] = i
    return out


# ------------------------------------------------------------------------------ clustering, SPH


def kmeans_step(points, centroids):
    """One Lloyd iteration: assign each point to its nearest centroid, return new centroids."""
    n, dims = points.shape
    k = centroids.shape[0]
    sums = np.zeros((k, dims))
    counts = np.zeros(k, dtype=np.int64)
    for i in range(n):
        best = 0
        best_d = np.inf
        for c in range(k):
            d = 0.0
            for j in range(dims):
                diff = points[i, j] - centroids[c, j]
                d += diff * diff
            if d < best_d:
                best_d = d
                best = c
        counts[best] += 1
        for j in range(dims):
            sums[best, j] += points[i, j]
    for c in range(k):
        if counts[c] > 0:
            for j in range(dims):
                sums[c, j] /= counts[c]
        else:
            for j in range(dims):
                sums[c, j] = centroids[c, j]
    return sums


def points_and_centroids(n):
    rng = np.random.default_rng(161)
    points = rng.normal(size=(n, 4))
    return points, points[:8].copy()


def sph_density(pos, mass, h):
    """SPH densities with the cubic spline kernel, all pairs within the smoothing length."""
    n = pos.shape[0]
    rho = np.zeros(n)
    sigma = 8.0 / (math.pi * h**3)
    for i in range(n):
        for j in range(n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            r = math.sqrt(dx * dx + dy * dy + dz * dz)
            q = r / h
            if q <= 0.5:
                w = 1.0 - 6.0 * q**2 + 6.0 * q**3
            elif q <= 1.0:
                w = 2.0 * (1.0 - q) ** 3
            else:
                w = 0.0
            rho[i] += mass[j] * sigma * w
    return rho


def sph_particles(n):
    rng = np.random.default_rng(162)
    return rng.random((n, 3)), rng.random(n) + 0.5, 0.2


# ------------------------------------------------------------------------------ dynamic programming


def int_sequences(n):
    rng = np.random.default_rng(163)
    return rng.integers(0, 4, n), rng.integers(0, 4, n + n // 7)


def longest_common_substring(a, b):
    """Length of the longest common run of two int arrays (dynamic programming on a table)."""
    n, m = a.shape[0], b.shape[0]
    table = np.zeros((n + 1, m + 1), dtype=np.int32)
    best = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                table[i, j] = table[i - 1, j - 1] + 1
                if table[i, j] > best:
                    best = table[i, j]
    return best


# ------------------------------------------------------------------------------ PDEs


def heat_2d(u0, alpha, steps):
    """Explicit 2-d heat equation with fixed borders, two buffers swapped each step."""
    u = u0.copy()
    un = u0.copy()
    n, m = u.shape
    for _ in range(steps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                un[i, j] = u[i, j] + alpha * (
                    u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4.0 * u[i, j]
                )
        u, un = un, u
    return u


def hot_plate(n):
    rng = np.random.default_rng(164)
    return rng.random((n, n)), 0.2, 20


# ------------------------------------------------------------------------------ finance


def black_scholes_erf(spot, strike, rate, vol, t):
    """European call and put prices, the normal CDF written with math.erf."""
    n = spot.shape[0]
    calls = np.empty(n)
    puts = np.empty(n)
    for i in range(n):
        sqrt_t = math.sqrt(t[i])
        d1 = (math.log(spot[i] / strike[i]) + (rate + 0.5 * vol * vol) * t[i]) / (vol * sqrt_t)
        d2 = d1 - vol * sqrt_t
        cdf1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
        cdf2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
        discount = strike[i] * math.exp(-rate * t[i])
        calls[i] = spot[i] * cdf1 - discount * cdf2
        puts[i] = calls[i] - spot[i] + discount
    return calls, puts


def option_book(n):
    rng = np.random.default_rng(165)
    return rng.uniform(50, 150, n), rng.uniform(50, 150, n), 0.03, 0.25, rng.uniform(0.1, 2.0, n)


def drawdown_duration(prices):
    """The deepest drawdown of a price series and the longest stretch below a previous peak."""
    peak = prices[0]
    deepest = 0.0
    longest = 0
    current = 0
    for i in range(prices.shape[0]):
        p = prices[i]
        if p >= peak:
            peak = p
            current = 0
        else:
            current += 1
            if current > longest:
                longest = current
            dd = (peak - p) / peak
            if dd > deepest:
                deepest = dd
    return deepest, longest


def price_path(n):
    rng = np.random.default_rng(166)
    return (100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, n))),)


# ------------------------------------------------------------------------------ random


def monte_carlo_pi_uniform(n):
    """pi from darts thrown with np.random.uniform inside the loop."""
    np.random.seed(167)
    inside = 0
    for _ in range(n):
        x = np.random.uniform(-1.0, 1.0)
        y = np.random.uniform(-1.0, 1.0)
        if x * x + y * y <= 1.0:
            inside += 1
    return 4.0 * inside / n


# ------------------------------------------------------------------------ first-class functions


@njit
def _bump(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


@njit
def _simpson(f, a, b, n):
    h = (b - a) / n
    total = f(a) + f(b)
    for i in range(1, n):
        x = a + i * h
        total += (4.0 if i % 2 == 1 else 2.0) * f(x)
    return total * h / 3.0


def simpson_of_callee(intervals, n):
    """Simpson's rule over many intervals, the integrand a jitted function passed as argument."""
    out = np.empty(intervals.shape[0])
    for k in range(intervals.shape[0]):
        out[k] = _simpson(_bump, intervals[k, 0], intervals[k, 1], n)
    return out


def intervals(n):
    rng = np.random.default_rng(168)
    a = rng.uniform(-3.0, 0.0, n)
    return np.stack((a, a + rng.uniform(0.5, 3.0, n)), axis=1), 64


# ------------------------------------------------------------------------------ sparse, histograms


def csr_row_norms_int32(indptr, values):
    """Euclidean norm of each row of a CSR matrix whose index arrays are int32."""
    n = indptr.shape[0] - 1
    out = np.zeros(n)
    for row in range(n):
        acc = 0.0
        for k in range(indptr[row], indptr[row + 1]):
            acc += values[k] * values[k]
        out[row] = math.sqrt(acc)
    return out


def csr_int32(n):
    rng = np.random.default_rng(169)
    lengths = rng.integers(0, 12, n)
    indptr = np.zeros(n + 1, dtype=np.int32)
    indptr[1:] = np.cumsum(lengths)
    return indptr, rng.normal(size=int(indptr[-1]))


def histogram2d_bincount(x, y, nx, ny):
    """A 2-d histogram of points in the unit square through np.bincount of flat bin numbers."""
    ix = np.minimum((x * nx).astype(np.int64), nx - 1)
    iy = np.minimum((y * ny).astype(np.int64), ny - 1)
    return np.bincount(ix * ny + iy, minlength=nx * ny).reshape(nx, ny)


def unit_points(n):
    rng = np.random.default_rng(170)
    return rng.random(n), rng.random(n), 40, 30


def sliding_median(x, window):
    """The median of each full window of a series, by np.median of the window slice."""
    n = x.shape[0] - window + 1
    out = np.empty(n)
    for i in range(n):
        out[i] = np.median(x[i : i + window])
    return out


def noisy_series(n):
    rng = np.random.default_rng(171)
    return rng.normal(size=n), 15


# ------------------------------------------------------------------------------ ODEs


@njit
def _lorenz(state, sigma, rho, beta):
    x, y, z = state
    return (sigma * (y - x), x * (rho - z) - y, x * y - beta * z)


def lorenz_rk4(steps, dt):
    """RK4 on the Lorenz system with the state kept as a 3-tuple."""
    s = (1.0, 1.0, 1.0)
    sigma, rho, beta = 10.0, 28.0, 8.0 / 3.0
    for _ in range(steps):
        k1 = _lorenz(s, sigma, rho, beta)
        s2 = (s[0] + 0.5 * dt * k1[0], s[1] + 0.5 * dt * k1[1], s[2] + 0.5 * dt * k1[2])
        k2 = _lorenz(s2, sigma, rho, beta)
        s3 = (s[0] + 0.5 * dt * k2[0], s[1] + 0.5 * dt * k2[1], s[2] + 0.5 * dt * k2[2])
        k3 = _lorenz(s3, sigma, rho, beta)
        s4 = (s[0] + dt * k3[0], s[1] + dt * k3[1], s[2] + dt * k3[2])
        k4 = _lorenz(s4, sigma, rho, beta)
        s = (
            s[0] + dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
            s[1] + dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
            s[2] + dt / 6.0 * (k1[2] + 2.0 * k2[2] + 2.0 * k3[2] + k4[2]),
        )
    return s


# ------------------------------------------------------------------------------ sorting float32


def bubble_sort_float32(values):
    """Bubble sort with an early exit, on a float32 copy."""
    a = values.copy()
    n = a.shape[0]
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swapped = True
        if not swapped:
            break
    return a


def float32_values(n):
    rng = np.random.default_rng(172)
    return (rng.normal(size=n).astype(np.float32),)


# ------------------------------------------------------------------------------ bits and hashing


def bit_count_loop(values):
    """Total set bits of non-negative int64 values, one bit at a time."""
    total = 0
    for i in range(values.shape[0]):
        v = values[i]
        while v:
            total += v & 1
            v >>= 1
    return total


def nonnegative_int64(n):
    rng = np.random.default_rng(173)
    return (rng.integers(0, 2**40, n),)


def splitmix64_hashes(keys):
    """splitmix64's finalizer over uint64 keys (wrapping uint64 arithmetic)."""
    out = np.empty_like(keys)
    for i in range(keys.shape[0]):
        z = keys[i] + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))
    return out


def uint64_keys(n):
    rng = np.random.default_rng(174)
    return (rng.integers(0, 2**63, n, dtype=np.uint64),)


def horner_int32(coeffs, xs, modulus):
    """A polynomial with int32 coefficients evaluated modulo a prime at int32 points."""
    out = np.empty(xs.shape[0], dtype=np.int64)
    for i in range(xs.shape[0]):
        acc = 0
        x = xs[i]
        for k in range(coeffs.shape[0]):
            acc = (acc * x + coeffs[k]) % modulus
        out[i] = acc
    return out


def int32_poly(n):
    rng = np.random.default_rng(175)
    coeffs = rng.integers(-50, 50, 12).astype(np.int32)
    return coeffs, rng.integers(-1000, 1000, n).astype(np.int32), 1_000_003


# ------------------------------------------------------------------------------ array expressions


def nearest_neighbour_rows(queries, refs):
    """For each query row, the index of the nearest reference row by a broadcast expression."""
    out = np.empty(queries.shape[0], dtype=np.int64)
    for i in range(queries.shape[0]):
        d = np.sum((refs - queries[i]) ** 2, axis=1)
        out[i] = np.argmin(d)
    return out


def queries_and_refs(n):
    rng = np.random.default_rng(176)
    return rng.random((n, 3)), rng.random((64, 3))


def cosine_similarity_max(a, b):
    """For each row of `a`, the highest cosine similarity with a row of `b`."""
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        na = np.linalg.norm(a[i])
        best = -1.0
        for j in range(b.shape[0]):
            s = np.dot(a[i], b[j]) / (na * np.linalg.norm(b[j]))
            if s > best:
                best = s
        out[i] = best
    return out


def embedding_rows(n):
    rng = np.random.default_rng(177)
    return rng.normal(size=(n, 16)), rng.normal(size=(32, 16))


def gini_coefficient(x):
    """The Gini coefficient from the sorted values and their cumulative sum."""
    s = np.sort(x)
    n = s.shape[0]
    cum = np.cumsum(s)
    return (n + 1 - 2.0 * np.sum(cum) / cum[-1]) / n


def incomes(n):
    rng = np.random.default_rng(178)
    return (rng.lognormal(0.0, 1.0, n),)


def inverse_distance_weights(xs, ys, values, gx, gy):
    """Inverse-distance-weighted interpolation (power 2) at grid points, with `** -2`."""
    out = np.empty(gx.shape[0])
    for g in range(gx.shape[0]):
        num = 0.0
        den = 0.0
        for k in range(xs.shape[0]):
            d = math.sqrt((xs[k] - gx[g]) ** 2 + (ys[k] - gy[g]) ** 2) + 1e-9
            w = d**-2
            num += w * values[k]
            den += w
        out[g] = num / den
    return out


def scattered_samples(n):
    rng = np.random.default_rng(179)
    return rng.random(200), rng.random(200), rng.random(200), rng.random(n), rng.random(n)


# ------------------------------------------------------------------------------ NumPy in loops


def masked_row_means(x, threshold):
    """The mean of each row's values above a threshold, by boolean indexing of the row."""
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        row = x[i]
        picked = row[row > threshold]
        out[i] = picked.mean() if picked.size > 0 else 0.0
    return out


def rows_and_threshold(n):
    rng = np.random.default_rng(180)
    return rng.normal(size=(n, 32)), 0.25


def gather_rows_sum(x, idx):
    """Sums of rows picked by an index array (fancy indexing), one group at a time."""
    out = np.zeros(x.shape[1])
    for g in range(idx.shape[0]):
        out += x[idx[g]].sum(axis=0)
    return out


def matrix_and_groups(n):
    rng = np.random.default_rng(181)
    return rng.random((500, 8)), rng.integers(0, 500, (n, 6))


def where_clip_steps(x, steps):
    """Repeated np.where / np.abs / np.sqrt array expressions on a whole vector."""
    y = x.copy()
    for _ in range(steps):
        y = np.where(y > 1.0, np.sqrt(np.abs(y)), y * 1.01 + 0.001)
    return y


def vector_and_steps(n):
    rng = np.random.default_rng(182)
    return rng.random(n) * 2.0, 50


def sort_each_window(x, window):
    """The trimmed mean of each window: np.sort of a slice copy, middle half averaged."""
    n = x.shape[0] - window + 1
    out = np.empty(n)
    lo, hi = window // 4, window - window // 4
    for i in range(n):
        s = np.sort(x[i : i + window])
        out[i] = s[lo:hi].mean()
    return out


def random_ints_walk(n):
    """A lattice walk with np.random.randint steps, counting returns to the origin."""
    np.random.seed(183)
    x = 0
    y = 0
    returns = 0
    for _ in range(n):
        d = np.random.randint(0, 4)
        if d == 0:
            x += 1
        elif d == 1:
            x -= 1
        elif d == 2:
            y += 1
        else:
            y -= 1
        if x == 0 and y == 0:
            returns += 1
    return returns


def column_standardize(x):
    """Columns to zero mean and unit variance with axis reductions and broadcasting."""
    n = x.shape[0]
    mu = x.sum(axis=0) / n
    centred = x - mu
    sd = np.sqrt((centred**2).sum(axis=0) / n)
    return centred / sd


def tall_matrix(n):
    rng = np.random.default_rng(184)
    return (rng.normal(size=(n, 12)),)


def round_to_grid(x, step):
    """Values snapped to a grid with np.round and counted per grid cell through int()."""
    counts = np.zeros(64, dtype=np.int64)
    for i in range(x.shape[0]):
        k = int(np.round(x[i] / step))
        if 0 <= k < 64:
            counts[k] += 1
    return counts


def grid_values(n):
    rng = np.random.default_rng(185)
    return rng.random(n) * 6.4, 0.1


def strided_peak(values, step):
    """The largest of every `step`-th int64 value (a subsampled scan, step known at run time)."""
    best = values[0]
    for i in range(0, values.shape[0], step):
        if values[i] > best:
            best = values[i]
    return best


def int64_values(n):
    rng = np.random.default_rng(186)
    return rng.integers(0, 10**9, n), 3


CASES = [
    Case(julia_escape, lambda n: (n, n, -0.8, 0.156, 200), 20, 400, "fractals"),
    Case(kmeans_step, points_and_centroids, 50, 300_000, "clustering", rtol=1e-8),
    Case(sph_density, sph_particles, 30, 1500, "particles", rtol=1e-8),
    Case(longest_common_substring, int_sequences, 30, 2000, "dynamic programming"),
    Case(heat_2d, hot_plate, 10, 300, "stencils", rtol=1e-8),
    Case(black_scholes_erf, option_book, 100, 1_000_000, "finance", rtol=1e-8),
    Case(drawdown_duration, price_path, 100, 3_000_000, "finance", rtol=1e-8),
    Case(monte_carlo_pi_uniform, lambda n: (n,), 100, 1_000_000, "random"),
    Case(simpson_of_callee, intervals, 20, 20_000, "first-class functions", rtol=1e-8),
    Case(csr_row_norms_int32, csr_int32, 100, 500_000, "sparse", rtol=1e-8),
    Case(histogram2d_bincount, unit_points, 100, 2_000_000, "counting"),
    Case(sliding_median, noisy_series, 100, 200_000, "rolling"),
    Case(lorenz_rk4, lambda n: (n, 1e-5), 100, 1_000_000, "ode", rtol=1e-6),
    Case(bubble_sort_float32, float32_values, 50, 3000, "sorting"),
    Case(bit_count_loop, nonnegative_int64, 100, 300_000, "bits"),
    Case(splitmix64_hashes, uint64_keys, 100, 2_000_000, "bits"),
    Case(horner_int32, int32_poly, 100, 1_000_000, "int32"),
    Case(nearest_neighbour_rows, queries_and_refs, 30, 50_000, "array expressions"),
    Case(cosine_similarity_max, embedding_rows, 20, 5000, "small np.dot", rtol=1e-8),
    Case(gini_coefficient, incomes, 100, 2_000_000, "sorting", rtol=1e-8),
    Case(inverse_distance_weights, scattered_samples, 20, 20_000, "powers", rtol=1e-8),
    Case(masked_row_means, rows_and_threshold, 20, 100_000, "boolean masks", rtol=1e-8),
    Case(gather_rows_sum, matrix_and_groups, 20, 100_000, "fancy indexing", rtol=1e-8),
    Case(where_clip_steps, vector_and_steps, 100, 100_000, "array expressions", rtol=1e-8),
    Case(
        sort_each_window, lambda n: (*noisy_series(n)[:1], 16), 100, 100_000, "sorting", rtol=1e-8
    ),
    Case(random_ints_walk, lambda n: (n,), 100, 1_000_000, "random"),
    Case(column_standardize, tall_matrix, 20, 500_000, "axis reductions", rtol=1e-8),
    Case(round_to_grid, grid_values, 100, 2_000_000, "float/int conversions"),
    Case(strided_peak, int64_values, 100, 200_000, "strided"),
]
