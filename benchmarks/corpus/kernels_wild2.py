"""Corpus: more kernels in the style of public Numba code -- float32 stencils with explicit
indices, int32 prefix scans, early-exit while loops, tuple-returning helpers, complex128 signal
loops, per-row scratch arrays, float32 exp/log, integer bit tricks, two-pointer merges of sorted
arrays, searchsorted histograms, row argmax, reverse loops, zip/enumerate iteration and int16
audio clipping."""

import math

import numpy as np
from _backend import njit
from _corpus import Case

# ------------------------------------------------------------------------------ float32 stencils


def laplace_float32(u):
    h, w = u.shape
    out = np.zeros_like(u)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
    return out


def gauss_blur3_float32(img):
    h, w = img.shape
    out = np.empty_like(img)
    out[:] = img
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            acc = (
                img[i - 1, j - 1]
                + 2 * img[i - 1, j]
                + img[i - 1, j + 1]
                + 2 * img[i, j - 1]
                + 4 * img[i, j]
                + 2 * img[i, j + 1]
                + img[i + 1, j - 1]
                + 2 * img[i + 1, j]
                + img[i + 1, j + 1]
            )
            out[i, j] = acc / 16
    return out


def field32(n):
    return (np.random.default_rng(60).random((n, n)).astype(np.float32),)


# ------------------------------------------------------------------------------ int32 scans


def cumsum_int32(a):
    out = np.empty_like(a)
    acc = 0
    for i in range(a.shape[0]):
        acc += a[i]
        out[i] = acc
    return out


def compact_positive_int32(a):
    out = np.empty_like(a)
    k = 0
    for i in range(a.shape[0]):
        if a[i] > 0:
            out[k] = a[i]
            k += 1
    return out[:k]


def ints32(n):
    return (np.random.default_rng(61).integers(-1000, 1000, n, dtype=np.int32),)


# ------------------------------------------------------------------------------ while / break


def first_above_per_row(m, limit):
    out = np.full(m.shape[0], -1, dtype=np.int64)
    for i in range(m.shape[0]):
        j = 0
        while j < m.shape[1]:
            if m[i, j] > limit:
                out[i] = j
                break
            j += 1
    return out


def rows_for_search(n):
    return np.random.default_rng(62).random((n, 200)), 0.995


# ------------------------------------------------------------------------------ tuple helpers


@njit
def _to_polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


def polar_moments(x, y):
    r_sum = 0.0
    t_sum = 0.0
    for i in range(x.shape[0]):
        r, t = _to_polar(x[i], y[i])
        r_sum += r
        t_sum += t * r
    return r_sum, t_sum


@njit
def _min_max_pair(a, b):
    if a < b:
        return a, b
    return b, a


def sorted_pair_spread(x, y):
    total = 0.0
    for i in range(x.shape[0]):
        lo, hi = _min_max_pair(x[i], y[i])
        total += hi - lo
    return total


def xy(n):
    rng = np.random.default_rng(63)
    return rng.normal(size=n), rng.normal(size=n)


# ------------------------------------------------------------------------------ complex128


def complex_fir(signal, taps):
    n, m = signal.shape[0], taps.shape[0]
    out = np.zeros(n - m + 1, dtype=np.complex128)
    for i in range(n - m + 1):
        acc = 0j
        for k in range(m):
            acc += signal[i + k] * taps[k]
        out[i] = acc
    return out


def complex_signal(n):
    rng = np.random.default_rng(64)
    signal = rng.normal(size=n) + 1j * rng.normal(size=n)
    taps = rng.normal(size=16) + 1j * rng.normal(size=16)
    return signal, taps


def phase_rotate_power(z, omega):
    total = 0.0
    for i in range(z.shape[0]):
        w = z[i] * complex(math.cos(omega * i), math.sin(omega * i))
        total += w.real * w.real + w.imag * w.imag
    return total


# ------------------------------------------------------------------------------ scratch arrays


def row_cummax_sum(m):
    total = 0.0
    for i in range(m.shape[0]):
        tmp = np.empty(m.shape[1])
        best = m[i, 0]
        for j in range(m.shape[1]):
            if m[i, j] > best:
                best = m[i, j]
            tmp[j] = best
        total += tmp.sum()
    return total


def matrix_rows(n):
    return (np.random.default_rng(65).random((n, 32)),)


# ------------------------------------------------------------------------------ float32 exp/log


def logsumexp_rows_float32(m):
    out = np.empty(m.shape[0], dtype=np.float32)
    for i in range(m.shape[0]):
        top = m[i, 0]
        for j in range(1, m.shape[1]):
            if m[i, j] > top:
                top = m[i, j]
        s = 0.0
        for j in range(m.shape[1]):
            s += math.exp(m[i, j] - top)
        out[i] = top + math.log(s)
    return out


def sigmoid_float32(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = 1.0 / (1.0 + math.exp(-x[i]))
    return out


def f32_rows(n):
    return (np.random.default_rng(66).normal(size=(n, 64)).astype(np.float32),)


def f32_vector(n):
    return (np.random.default_rng(67).normal(size=n).astype(np.float32),)


# ------------------------------------------------------------------------------ bit tricks


def next_pow2_total(a):
    total = 0
    for i in range(a.shape[0]):
        v = a[i] - 1
        v |= v >> 1
        v |= v >> 2
        v |= v >> 4
        v |= v >> 8
        v |= v >> 16
        v |= v >> 32
        total += v + 1
    return total


def gray_code_roundtrip(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        g = a[i] ^ (a[i] >> 1)
        b = g
        shift = 1
        while shift < 64:
            b ^= b >> shift
            shift <<= 1
        out[i] = b
    return out


def positive_ints(n):
    return (np.random.default_rng(68).integers(1, 1 << 40, n),)


# ------------------------------------------------------------------------------ sorted arrays


def sorted_intersection_count(a, b):
    i = j = count = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] < b[j]:
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            count += 1
            i += 1
            j += 1
    return count


def two_sorted(n):
    rng = np.random.default_rng(69)
    return np.sort(rng.integers(0, 4 * n, n)), np.sort(rng.integers(0, 4 * n, n))


def searchsorted_histogram(x, edges):
    counts = np.zeros(edges.shape[0] - 1, dtype=np.int64)
    for i in range(x.shape[0]):
        k = np.searchsorted(edges, x[i], side="right") - 1
        if 0 <= k < counts.shape[0]:
            counts[k] += 1
    return counts


def uneven_edges(n):
    rng = np.random.default_rng(70)
    edges = np.sort(np.concatenate((rng.normal(size=63), [-5.0, 5.0])))
    return rng.normal(size=n), edges


def argmax_rows_loop(m):
    out = np.empty(m.shape[0], dtype=np.int64)
    for i in range(m.shape[0]):
        best = 0
        for j in range(1, m.shape[1]):
            if m[i, j] > m[i, best]:
                best = j
        out[i] = best
    return out


# ------------------------------------------------------------------------------ iteration styles


def reverse_suffix_min(a):
    out = np.empty_like(a)
    acc = np.inf
    for i in range(a.shape[0] - 1, -1, -1):
        if a[i] < acc:
            acc = a[i]
        out[i] = acc
    return out


def zip_weighted_mean(values, weights):
    num = 0.0
    den = 0.0
    for v, w in zip(values, weights):
        num += v * w
        den += w
    return num / den


def enumerate_decay(a):
    total = 0.0
    for i, v in enumerate(a):
        total += v / (i + 1)
    return total


def weights_pair(n):
    rng = np.random.default_rng(71)
    return rng.normal(size=n), rng.random(n)


def clip_gain_int16(samples, gain):
    out = np.empty_like(samples)
    for i in range(samples.shape[0]):
        v = (int(samples[i]) * gain) >> 8
        if v > 32767:
            v = 32767
        elif v < -32768:
            v = -32768
        out[i] = v
    return out


def audio16(n):
    return np.random.default_rng(72).integers(-32768, 32768, n).astype(np.int16), 384


CASES = [
    Case(laplace_float32, field32, 16, 1000, "float32 stencils", rtol=1e-5),
    Case(gauss_blur3_float32, field32, 16, 1000, "float32 stencils", rtol=1e-5),
    Case(cumsum_int32, ints32, 100, 1_000_000, "int32 scans"),
    Case(compact_positive_int32, ints32, 100, 1_000_000, "int32 scans"),
    Case(first_above_per_row, rows_for_search, 20, 20_000, "while/break"),
    Case(polar_moments, xy, 100, 200_000, "tuples"),
    Case(sorted_pair_spread, xy, 100, 1_000_000, "tuples"),
    Case(complex_fir, complex_signal, 100, 100_000, "complex"),
    Case(phase_rotate_power, lambda n: (complex_signal(n)[0], 0.01), 100, 200_000, "complex"),
    Case(row_cummax_sum, matrix_rows, 20, 50_000, "small allocations"),
    Case(logsumexp_rows_float32, f32_rows, 10, 10_000, "float32 math", rtol=1e-5),
    Case(sigmoid_float32, f32_vector, 100, 1_000_000, "float32 math", rtol=1e-6),
    Case(next_pow2_total, positive_ints, 100, 1_000_000, "bits"),
    Case(gray_code_roundtrip, positive_ints, 100, 200_000, "bits"),
    Case(sorted_intersection_count, two_sorted, 100, 1_000_000, "sorted arrays"),
    Case(searchsorted_histogram, uneven_edges, 100, 500_000, "histograms"),
    Case(argmax_rows_loop, matrix_rows, 20, 100_000, "scans"),
    Case(reverse_suffix_min, lambda n: (xy(n)[0],), 100, 1_000_000, "scans"),
    Case(zip_weighted_mean, weights_pair, 100, 1_000_000, "iteration"),
    Case(enumerate_decay, lambda n: (xy(n)[0],), 100, 1_000_000, "iteration"),
    Case(clip_gain_int16, audio16, 100, 1_000_000, "int16"),
]
