"""Corpus: simulation and bookkeeping kernels in the style of public Numba examples -- n-body
and particle updates, Floyd-Warshall, Game of Life, k-means assignment, 2-d smoothing, running
extrema and products, Monte Carlo with np.random in the loop, typed List/Dict bookkeeping,
integer hashing and bit tricks, and float32 kernels."""

import math

import numpy as np
from _backend import Dict, List, njit, types
from _corpus import Case

# ------------------------------------------------------------------------------ particles


def nbody_accelerations(pos, mass, softening):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        ax = ay = az = 0.0
        for j in range(n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            inv_r3 = (dx * dx + dy * dy + dz * dz + softening**2) ** -1.5
            ax += mass[j] * dx * inv_r3
            ay += mass[j] * dy * inv_r3
            az += mass[j] * dz * inv_r3
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az
    return acc


def leapfrog_orbits(pos, vel, dt, steps):
    pos = pos.copy()
    vel = vel.copy()
    for _ in range(steps):
        for i in range(pos.shape[0]):
            r = math.sqrt(pos[i, 0] ** 2 + pos[i, 1] ** 2)
            scale = -dt / (r * r * r)
            vel[i, 0] += scale * pos[i, 0]
            vel[i, 1] += scale * pos[i, 1]
            pos[i, 0] += dt * vel[i, 0]
            pos[i, 1] += dt * vel[i, 1]
    return pos


def bodies(n):
    rng = np.random.default_rng(11)
    return rng.normal(size=(n, 3)), rng.uniform(0.5, 1.5, n), 0.1


def orbits(n):
    rng = np.random.default_rng(12)
    angle = rng.uniform(0, 2 * np.pi, n)
    radius = rng.uniform(1.0, 2.0, n)
    pos = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    vel = np.stack([-np.sin(angle), np.cos(angle)], axis=1) / np.sqrt(radius)[:, None]
    return pos, vel, 0.001, 50


# ------------------------------------------------------------------------------ grids


def floyd_warshall(dist):
    d = dist.copy()
    n = d.shape[0]
    for k in range(n):
        for i in range(n):
            dik = d[i, k]
            for j in range(n):
                if dik + d[k, j] < d[i, j]:
                    d[i, j] = dik + d[k, j]
    return d


def game_of_life(board, steps):
    rows, cols = board.shape
    current = board.copy()
    nxt = np.empty_like(board)
    for _ in range(steps):
        for i in range(rows):
            for j in range(cols):
                alive = 0
                for di in (-1, 0, 1):
                    for dj in (-1, 0, 1):
                        if di != 0 or dj != 0:
                            alive += current[(i + di) % rows, (j + dj) % cols]
                if current[i, j] == 1:
                    nxt[i, j] = 1 if alive == 2 or alive == 3 else 0
                else:
                    nxt[i, j] = 1 if alive == 3 else 0
        current, nxt = nxt, current
    return current


def gaussian_smooth(img):
    out = img.copy()
    for i in range(1, img.shape[0] - 1):
        for j in range(1, img.shape[1] - 1):
            out[i, j] = (
                4.0 * img[i, j]
                + 2.0 * (img[i - 1, j] + img[i + 1, j] + img[i, j - 1] + img[i, j + 1])
                + img[i - 1, j - 1]
                + img[i - 1, j + 1]
                + img[i + 1, j - 1]
                + img[i + 1, j + 1]
            ) / 16.0
    return out


def graph(n):
    rng = np.random.default_rng(13)
    d = rng.uniform(1.0, 10.0, (n, n))
    d[rng.random((n, n)) < 0.7] = np.inf
    np.fill_diagonal(d, 0.0)
    return (d,)


def board(n):
    return (np.random.default_rng(14).integers(0, 2, (n, n)).astype(np.int64), 4)


def image(n):
    return (np.random.default_rng(15).random((n, n)),)


# ------------------------------------------------------------------------------ clustering


def kmeans_assign(points, centroids):
    n, k = points.shape[0], centroids.shape[0]
    labels = np.empty(n, dtype=np.int64)
    counts = np.zeros(k, dtype=np.int64)
    for i in range(n):
        best = np.inf
        best_j = 0
        for j in range(k):
            d = 0.0
            for c in range(points.shape[1]):
                diff = points[i, c] - centroids[j, c]
                d += diff * diff
            if d < best:
                best = d
                best_j = j
        labels[i] = best_j
        counts[best_j] += 1
    return labels, counts


def clusters(n):
    rng = np.random.default_rng(16)
    return rng.random((n, 4)), rng.random((8, 4))


# ------------------------------------------------------------------------------ running ops


def running_argmax(a):
    out = np.empty(a.shape[0], dtype=np.int64)
    best = a[0]
    where = 0
    for i in range(a.shape[0]):
        if a[i] > best:
            best = a[i]
            where = i
        out[i] = where
    return out


def cumulative_product_clipped(a):
    out = np.empty_like(a)
    acc = 1.0
    for i in range(a.shape[0]):
        acc *= a[i]
        if acc > 1e6:
            acc = 1e6
        out[i] = acc
    return out


def logistic_map(r, x0, n):
    x = x0
    total = 0.0
    for _ in range(n):
        x = r * x * (1.0 - x)
        total += x
    return total


# ------------------------------------------------------------------------------ random


def monte_carlo_integral(n):
    np.random.seed(3)
    total = 0.0
    for _ in range(n):
        x = np.random.random()
        total += math.exp(-x * x)
    return total / n


def random_normal_walk(n):
    np.random.seed(4)
    x = 0.0
    far = 0.0
    for _ in range(n):
        x += np.random.normal(0.0, 1.0)
        far = max(far, abs(x))
    return far


# ------------------------------------------------------------------------------ bookkeeping


def dict_counts(values):
    counts = Dict.empty(key_type=types.int64, value_type=types.int64)
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    top = 0
    for key in counts:
        top = max(top, counts[key])
    return len(counts), top


def list_of_peaks(a):
    peaks = List.empty_list(types.int64)
    for i in range(1, a.shape[0] - 1):
        if a[i] > a[i - 1] and a[i] >= a[i + 1]:
            peaks.append(i)
    total = 0
    for p in peaks:
        total += p
    return len(peaks), total


def small_ints(n):
    return (np.random.default_rng(17).integers(0, 1000, n),)


def wiggly(n):
    return (np.random.default_rng(18).random(n),)


# ------------------------------------------------------------------------------ integers


def fnv_hashes(values):
    out = np.empty(values.shape[0], dtype=np.uint64)
    for i in range(values.shape[0]):
        h = np.uint64(14695981039346656037)
        v = np.uint64(values[i])
        for _ in range(8):
            h ^= v & np.uint64(0xFF)
            h *= np.uint64(1099511628211)
            v >>= np.uint64(8)
        out[i] = h
    return out


def xorshift_sum(seed, n):
    x = np.uint64(seed)
    total = np.uint64(0)
    for _ in range(n):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        total += x >> np.uint64(40)
    return total


def popcount_total(values):
    total = 0
    for i in range(values.shape[0]):
        x = values[i]
        while x:
            x &= x - 1
            total += 1
    return total


def bit_reverse(n_bits):
    n = 1 << n_bits
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = 0
        x = i
        for _ in range(n_bits):
            r = (r << 1) | (x & 1)
            x >>= 1
        out[i] = r
    return out


def counting_sort(values, k):
    counts = np.zeros(k, dtype=np.int64)
    for v in values:
        counts[v] += 1
    out = np.empty_like(values)
    pos = 0
    for v in range(k):
        for _ in range(counts[v]):
            out[pos] = v
            pos += 1
    return out


def uint_values(n):
    return (np.random.default_rng(19).integers(0, 2**62, n),)


# ------------------------------------------------------------------------------ float32


def float32_smooth(a):
    out = np.empty_like(a)
    out[0] = a[0]
    out[-1] = a[-1]
    for i in range(1, a.shape[0] - 1):
        out[i] = np.float32(0.25) * a[i - 1] + np.float32(0.5) * a[i] + np.float32(0.25) * a[i + 1]
    return out


def float32_norms(m):
    out = np.empty(m.shape[0], dtype=np.float32)
    for i in range(m.shape[0]):
        s = np.float32(0.0)
        for j in range(m.shape[1]):
            s += m[i, j] * m[i, j]
        out[i] = math.sqrt(s)
    return out


@njit
def _rhs(y, omega):
    return y[1], -omega * omega * y[0]


def rk4_oscillator(y0, omega, dt, steps):
    y = (y0[0], y0[1])
    for _ in range(steps):
        k1 = _rhs(y, omega)
        k2 = _rhs((y[0] + 0.5 * dt * k1[0], y[1] + 0.5 * dt * k1[1]), omega)
        k3 = _rhs((y[0] + 0.5 * dt * k2[0], y[1] + 0.5 * dt * k2[1]), omega)
        k4 = _rhs((y[0] + dt * k3[0], y[1] + dt * k3[1]), omega)
        y = (
            y[0] + dt / 6.0 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]),
            y[1] + dt / 6.0 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]),
        )
    return y


def f32(n, seed=20):
    return (np.random.default_rng(seed).random(n).astype(np.float32),)


CASES = [
    Case(nbody_accelerations, bodies, 10, 400, "particles"),
    Case(leapfrog_orbits, orbits, 10, 2000, "particles"),
    Case(floyd_warshall, graph, 8, 150, "grids"),
    Case(game_of_life, board, 8, 120, "grids"),
    Case(gaussian_smooth, image, 8, 800, "grids"),
    Case(kmeans_assign, clusters, 20, 100_000, "clustering"),
    Case(running_argmax, wiggly, 100, 1_000_000, "running ops"),
    Case(cumulative_product_clipped, lambda n: (wiggly(n)[0] + 0.6,), 100, 10**6, "running ops"),
    Case(logistic_map, lambda n: (3.7, 0.3, n), 100, 1_000_000, "running ops"),
    Case(monte_carlo_integral, lambda n: (n,), 100, 1_000_000, "random"),
    Case(random_normal_walk, lambda n: (n,), 100, 300_000, "random"),
    Case(dict_counts, small_ints, 100, 200_000, "typed containers"),
    Case(list_of_peaks, wiggly, 100, 1_000_000, "typed containers"),
    Case(fnv_hashes, uint_values, 100, 200_000, "integers"),
    Case(xorshift_sum, lambda n: (88172645463325252, n), 100, 1_000_000, "integers"),
    Case(popcount_total, uint_values, 100, 200_000, "integers"),
    Case(bit_reverse, lambda n: (int(math.log2(n)),), 64, 1 << 18, "integers"),
    Case(counting_sort, lambda n: (small_ints(n)[0], 1000), 100, 1_000_000, "integers"),
    Case(float32_smooth, f32, 100, 1_000_000, "float32", rtol=1e-6),
    Case(
        float32_norms,
        lambda n: (np.random.default_rng(21).random((n, 16)).astype(np.float32),),
        20,
        100_000,
        "float32",
        rtol=1e-5,
    ),
    Case(rk4_oscillator, lambda n: ((1.0, 0.0), 2.0, 0.001, n), 100, 200_000, "tuples"),
]
