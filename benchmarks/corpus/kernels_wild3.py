"""Corpus: a third batch of kernels in the style of public Numba code -- closed-form option
pricing, graph traversals on CSR arrays, union-find, ASCII parsing over uint8 buffers, DP tables,
binning, sparse scatter, k-means updates, segmented scans, Fortran-ordered loops, a radix-2 FFT,
tuple-returning accumulators, typed Dict/List in hot loops, per-item scratch arrays, small
matrix products, float32 math, boolean masks, row sorts and Python's `random` module."""

import math
import random

import numpy as np
from _backend import Dict, List, njit, types
from _corpus import Case

# ------------------------------------------------------------------------------ finance


@njit
def _normal_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_calls(spot, strike, rate, vol, t):
    out = np.empty_like(spot)
    for i in range(spot.shape[0]):
        s = spot[i]
        k = strike[i]
        sq = vol * math.sqrt(t)
        d1 = (math.log(s / k) + (rate + 0.5 * vol * vol) * t) / sq
        d2 = d1 - sq
        out[i] = s * _normal_cdf(d1) - k * math.exp(-rate * t) * _normal_cdf(d2)
    return out


def options(n):
    rng = np.random.default_rng(80)
    return rng.uniform(50, 150, n), rng.uniform(50, 150, n), 0.03, 0.25, 1.5


def asian_option_mc(s0, strike, rate, sigma, steps, paths):
    np.random.seed(81)
    dt = 1.0 / steps
    drift = (rate - 0.5 * sigma * sigma) * dt
    vol = sigma * math.sqrt(dt)
    total = 0.0
    for _ in range(paths):
        s = s0
        avg = 0.0
        for _ in range(steps):
            s *= math.exp(drift + vol * np.random.standard_normal())
            avg += s
        total += max(avg / steps - strike, 0.0)
    return math.exp(-rate) * total / paths


# ------------------------------------------------------------------------------ graphs (CSR)


def bfs_levels(indptr, indices, source):
    n = indptr.shape[0] - 1
    level = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    level[source] = 0
    queue[0] = source
    head = 0
    tail = 1
    while head < tail:
        v = queue[head]
        head += 1
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            if level[w] < 0:
                level[w] = level[v] + 1
                queue[tail] = w
                tail += 1
    return level


def random_graph(n):
    rng = np.random.default_rng(82)
    degree = rng.integers(1, 8, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(degree)
    indices = rng.integers(0, n, indptr[-1]).astype(np.int32)
    return indptr, indices, 0


@njit
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def union_find_components(u, v, n):
    parent = np.arange(n)
    count = n
    for i in range(u.shape[0]):
        a = _find(parent, u[i])
        b = _find(parent, v[i])
        if a != b:
            parent[a] = b
            count -= 1
    return count


def edge_list(n):
    rng = np.random.default_rng(83)
    return rng.integers(0, n, n), rng.integers(0, n, n), n


def csr_transpose_matvec(indptr, indices, data, x, ncols):
    out = np.zeros(ncols)
    for row in range(indptr.shape[0] - 1):
        xr = x[row]
        for e in range(indptr[row], indptr[row + 1]):
            out[indices[e]] += data[e] * xr
    return out


def sparse_rows(n):
    indptr, indices, _ = random_graph(n)
    data = np.random.default_rng(84).random(indices.shape[0])
    return indptr, indices, data, np.random.default_rng(85).random(n), n


# ------------------------------------------------------------------------------ bytes / text


def sum_csv_ints(buf):
    total = 0
    value = 0
    negative = False
    for i in range(buf.shape[0]):
        c = int(buf[i])
        if c == 45:  # '-'
            negative = True
        elif 48 <= c <= 57:
            value = value * 10 + (c - 48)
        else:
            total += -value if negative else value
            value = 0
            negative = False
    return total + (-value if negative else value)


def csv_bytes(n):
    numbers = np.random.default_rng(86).integers(-99999, 99999, n // 6)
    text = ",".join(str(x) for x in numbers).encode()
    return (np.frombuffer(text, dtype=np.uint8).copy(),)


def caesar_shift(text, k):
    out = np.empty_like(text)
    for i in range(text.shape[0]):
        c = text[i]
        if 97 <= c <= 122:
            out[i] = (c - 97 + k) % 26 + 97
        else:
            out[i] = c
    return out


def lower_text(n):
    rng = np.random.default_rng(87)
    return rng.integers(95, 123, n).astype(np.uint8), 3


# ------------------------------------------------------------------------------ DP


def lis_length(a):
    tails = np.empty(a.shape[0], dtype=a.dtype)
    size = 0
    for x in a:
        lo = 0
        hi = size
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        tails[lo] = x
        if lo == size:
            size += 1
    return size


def coin_change_ways(coins, target):
    ways = np.zeros(target + 1, dtype=np.int64)
    ways[0] = 1
    for c in coins:
        for v in range(c, target + 1):
            ways[v] = (ways[v] + ways[v - c]) % 1_000_000_007
    return ways[target]


def smith_waterman(a, b):
    n, m = a.shape[0], b.shape[0]
    h = np.zeros((n + 1, m + 1), dtype=np.int32)
    best = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = 3 if a[i - 1] == b[j - 1] else -3
            v = max(0, h[i - 1, j - 1] + s, h[i - 1, j] - 2, h[i, j - 1] - 2)
            h[i, j] = v
            if v > best:
                best = v
    return best


def dna_pair(n):
    rng = np.random.default_rng(88)
    return rng.integers(0, 4, n).astype(np.uint8), rng.integers(0, 4, n).astype(np.uint8)


# ------------------------------------------------------------------------------ binning / scans


def fixed_width_histogram(a, lo, hi, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for x in a:
        if lo <= x < hi:
            counts[int((x - lo) / width)] += 1
    return counts


def segmented_cumsum(values, starts):
    out = np.empty_like(values)
    acc = 0.0
    for i in range(values.shape[0]):
        if starts[i]:
            acc = 0.0
        acc += values[i]
        out[i] = acc
    return out


def segments(n):
    rng = np.random.default_rng(89)
    return rng.random(n), rng.random(n) < 0.05


def cumulative_trapezoid(y, dx):
    out = np.empty(y.shape[0])
    out[0] = 0.0
    for i in range(1, y.shape[0]):
        out[i] = out[i - 1] + 0.5 * dx * (y[i] + y[i - 1])
    return out


# ------------------------------------------------------------------------------ k-means, layouts


def kmeans_update(points, labels, k):
    sums = np.zeros((k, points.shape[1]))
    counts = np.zeros(k, dtype=np.int64)
    for i in range(points.shape[0]):
        c = labels[i]
        counts[c] += 1
        for d in range(points.shape[1]):
            sums[c, d] += points[i, d]
    for c in range(k):
        if counts[c] > 0:
            for d in range(points.shape[1]):
                sums[c, d] /= counts[c]
    return sums


def labelled_points(n):
    rng = np.random.default_rng(90)
    return rng.random((n, 4)), rng.integers(0, 16, n), 16


def fortran_matmul(a, b):
    n, m = a.shape
    p = b.shape[1]
    out = np.zeros((p, n)).T  # Fortran-ordered
    for j in range(p):
        for k in range(m):
            bkj = b[k, j]
            for i in range(n):
                out[i, j] += a[i, k] * bkj
    return out


def fortran_pair(n):
    rng = np.random.default_rng(91)
    return np.asfortranarray(rng.random((n, n))), np.asfortranarray(rng.random((n, n)))


def gather_float32(values, index):
    total = np.float32(0.0)
    for i in range(index.shape[0]):
        total += values[index[i]] * np.float32(0.5)
    return total


def f32_with_int32_index(n):
    rng = np.random.default_rng(92)
    return rng.random(n, dtype=np.float32), rng.integers(0, n, n).astype(np.int32)


# ------------------------------------------------------------------------------ complex, tuples


def fft_radix2(x):
    n = x.shape[0]
    a = x.copy()
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j |= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    length = 2
    while length <= n:
        w_len = complex(math.cos(-2 * math.pi / length), math.sin(-2 * math.pi / length))
        for start in range(0, n, length):
            w = 1 + 0j
            half = length // 2
            for k in range(half):
                u = a[start + k]
                v = a[start + k + half] * w
                a[start + k] = u + v
                a[start + k + half] = u - v
                w *= w_len
        length <<= 1
    return a


def pow2_signal(n):
    size = 1 << max(1, int(math.log2(n)))
    rng = np.random.default_rng(93)
    return (rng.random(size) + 1j * rng.random(size),)


@njit
def _welford(count, mean, m2, x):
    count += 1
    delta = x - mean
    mean += delta / count
    m2 += delta * (x - mean)
    return count, mean, m2


def welford_variance(a):
    count, mean, m2 = 0, 0.0, 0.0
    for x in a:
        count, mean, m2 = _welford(count, mean, m2, x)
    return mean, m2 / count


def binary_gcd_total(a, b):
    total = 0
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        while y:
            x, y = y, x % y
        total += x
    return total


def int_pairs(n):
    rng = np.random.default_rng(94)
    return rng.integers(1, 10**9, n), rng.integers(1, 10**9, n)


# ------------------------------------------------------------------------------ containers


def first_index_dict(a):
    first = Dict.empty(key_type=types.int64, value_type=types.int64)
    total = 0
    for i in range(a.shape[0]):
        v = a[i]
        if v in first:
            total += i - first[v]
        else:
            first[v] = i
    return total


def pairs_below(a, limit):
    found = List()
    for i in range(a.shape[0]):
        if a[i] < limit:
            found.append((i, a[i]))
    total = 0.0
    for i, v in found:
        total += i * v
    return total


# ------------------------------------------------------------------------------ small arrays


def triangle_areas(verts, tris):
    total = 0.0
    for t in range(tris.shape[0]):
        e1 = np.empty(3)
        e2 = np.empty(3)
        for d in range(3):
            e1[d] = verts[tris[t, 1], d] - verts[tris[t, 0], d]
            e2[d] = verts[tris[t, 2], d] - verts[tris[t, 0], d]
        cx = e1[1] * e2[2] - e1[2] * e2[1]
        cy = e1[2] * e2[0] - e1[0] * e2[2]
        cz = e1[0] * e2[1] - e1[1] * e2[0]
        total += 0.5 * math.sqrt(cx * cx + cy * cy + cz * cz)
    return total


def mesh(n):
    rng = np.random.default_rng(95)
    return rng.random((n, 3)), rng.integers(0, n, (n, 3))


def transform_chain(mats, v):
    out = np.empty((mats.shape[0], 3))
    p = v.copy()
    for i in range(mats.shape[0]):
        p = mats[i] @ p
        norm = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
        p = p / norm
        out[i] = p
    return out


def rotations(n):
    rng = np.random.default_rng(96)
    return rng.random((n, 3, 3)) + np.eye(3), np.ones(3)


# ------------------------------------------------------------------------------ float32, masks


def gelu_float32(a):
    out = np.empty_like(a)
    c = np.float32(math.sqrt(2.0 / math.pi))
    for i in range(a.shape[0]):
        x = a[i]
        out[i] = (
            np.float32(0.5)
            * x
            * (np.float32(1.0) + math.tanh(c * (x + np.float32(0.044715) * x * x * x)))
        )
    return out


def f32_signed(n):
    return (np.random.default_rng(97).normal(size=n).astype(np.float32),)


def clip_outliers(a, k):
    mean = a.mean()
    std = a.std()
    b = a.copy()
    high = b > mean + k * std
    low = b < mean - k * std
    b[high] = mean + k * std
    b[low] = mean - k * std
    return b.sum(), np.count_nonzero(high | low)


def normal_values(n):
    return np.random.default_rng(98).normal(size=n), 1.5


def top_k_per_row(m, k):
    out = np.empty((m.shape[0], k))
    for i in range(m.shape[0]):
        row = np.sort(m[i])
        out[i] = row[-k:]
    return out


def rows_for_topk(n):
    return np.random.default_rng(99).random((n, 32)), 4


# ------------------------------------------------------------------------------ scalar loops


def leibniz_pi(n):
    total = 0.0
    sign = 1.0
    for k in range(n):
        total += sign / (2 * k + 1)
        sign = -sign
    return 4.0 * total


def xorshift32_total(n):
    x = 2463534242
    total = 0
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        total += x & 0xFF
    return total


def dice_mean(n):
    random.seed(12)
    total = 0
    for _ in range(n):
        total += random.randint(1, 6)
    return total / n


def python_random_hits(n):
    random.seed(13)
    hits = 0
    for _ in range(n):
        if random.random() < 0.3:
            hits += 1
    return hits / n


CASES = [
    Case(black_scholes_calls, options, 100, 500_000, "finance"),
    Case(asian_option_mc, lambda n: (100.0, 100.0, 0.03, 0.2, 50, n), 4, 10_000, "random"),
    Case(bfs_levels, random_graph, 100, 300_000, "graphs"),
    Case(union_find_components, edge_list, 100, 300_000, "graphs"),
    Case(csr_transpose_matvec, sparse_rows, 100, 300_000, "sparse"),
    Case(sum_csv_ints, csv_bytes, 600, 2_000_000, "bytes"),
    Case(caesar_shift, lower_text, 100, 2_000_000, "bytes"),
    Case(
        lis_length,
        lambda n: (np.random.default_rng(100).random(n),),
        100,
        300_000,
        "dynamic programming",
    ),
    Case(
        coin_change_ways,
        lambda n: (np.array([1, 2, 5, 10, 20, 50, 100, 200]), n),
        100,
        500_000,
        "dynamic programming",
    ),
    Case(smith_waterman, dna_pair, 20, 800, "dynamic programming"),
    Case(
        fixed_width_histogram,
        lambda n: (np.random.default_rng(101).normal(size=n), -3.0, 3.0, 64),
        100,
        1_000_000,
        "histograms",
    ),
    Case(segmented_cumsum, segments, 100, 1_000_000, "scans"),
    Case(
        cumulative_trapezoid,
        lambda n: (np.random.default_rng(102).random(n), 0.01),
        100,
        1_000_000,
        "scans",
    ),
    Case(kmeans_update, labelled_points, 100, 300_000, "k-means"),
    Case(fortran_matmul, fortran_pair, 8, 150, "fortran order"),
    Case(gather_float32, f32_with_int32_index, 100, 1_000_000, "float32", rtol=1e-3),
    Case(fft_radix2, pow2_signal, 64, 1 << 16, "complex"),
    Case(
        welford_variance,
        lambda n: (np.random.default_rng(103).random(n),),
        100,
        1_000_000,
        "tuples",
    ),
    Case(binary_gcd_total, int_pairs, 100, 100_000, "while loops"),
    Case(
        first_index_dict,
        lambda n: (np.random.default_rng(104).integers(0, 5000, n),),
        100,
        200_000,
        "typed containers",
    ),
    Case(
        pairs_below,
        lambda n: (np.random.default_rng(105).random(n), 0.5),
        100,
        500_000,
        "typed containers",
    ),
    Case(triangle_areas, mesh, 100, 200_000, "small allocations"),
    Case(transform_chain, rotations, 20, 20_000, "small matrices"),
    # (1 + tanh(..) cancels for x < -2: an ulp of tanh is 1e-5 of the result)
    Case(gelu_float32, f32_signed, 100, 1_000_000, "float32 math", rtol=1e-4),
    Case(clip_outliers, normal_values, 100, 1_000_000, "boolean masks"),
    Case(top_k_per_row, rows_for_topk, 20, 50_000, "sorting"),
    Case(leibniz_pi, lambda n: (n,), 100, 2_000_000, "loops"),
    Case(xorshift32_total, lambda n: (n,), 100, 2_000_000, "bits"),
    # (Numba seeds `random` its own way: the two agree on the statistics, not the numbers)
    Case(dice_mean, lambda n: (n,), 100, 1_000_000, "random", rtol=0.02),
    Case(python_random_hits, lambda n: (n,), 100, 1_000_000, "random", rtol=0.02),
]
