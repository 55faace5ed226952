"""Corpus: kernels in the style of public Numba code not covered by the other modules -- sparse
CSR products, 2-d histograms, interpolation with searchsorted, uint8 image filters, byte and
string scanning, run-length encoding, min/max scans, Morton codes, tuple-returning helpers,
while loops that exit early, hand-written 2-d stencils, small 3x3 algebra in loops, Ising and
option-pricing Monte Carlo, exponential moving averages and Horner polynomials."""

import math

import numpy as np
from _backend import njit
from _corpus import Case

# ------------------------------------------------------------------------------ sparse, bins


def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for row in range(n):
        acc = 0.0
        for k in range(indptr[row], indptr[row + 1]):
            acc += data[k] * x[indices[k]]
        y[row] = acc
    return y


def csr_matrix(n):
    rng = np.random.default_rng(30)
    per_row = 8
    indices = np.sort(rng.integers(0, n, size=(n, per_row)), axis=1).ravel().astype(np.int32)
    indptr = np.arange(0, n * per_row + 1, per_row).astype(np.int32)
    return indptr, indices, rng.normal(size=n * per_row), rng.normal(size=n)


def histogram_2d(x, y, bins, lo, hi):
    counts = np.zeros((bins, bins), dtype=np.int64)
    scale = bins / (hi - lo)
    for i in range(x.shape[0]):
        bx = int((x[i] - lo) * scale)
        by = int((y[i] - lo) * scale)
        if 0 <= bx < bins and 0 <= by < bins:
            counts[bx, by] += 1
    return counts


def points_2d(n):
    rng = np.random.default_rng(31)
    return rng.normal(size=n), rng.normal(size=n), 32, -3.0, 3.0


def interp_sorted(xp, fp, x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        j = np.searchsorted(xp, x[i])
        if j == 0:
            out[i] = fp[0]
        elif j == xp.shape[0]:
            out[i] = fp[-1]
        else:
            t = (x[i] - xp[j - 1]) / (xp[j] - xp[j - 1])
            out[i] = fp[j - 1] + t * (fp[j] - fp[j - 1])
    return out


def interp_points(n):
    rng = np.random.default_rng(32)
    xp = np.sort(rng.uniform(0, 10, 1000))
    return xp, np.sin(xp), rng.uniform(-1, 11, n)


def bisect_left(a, value):
    lo, hi = 0, a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


def count_in_ranges(sorted_values, lows, highs):
    total = 0
    for i in range(lows.shape[0]):
        total += bisect_left(sorted_values, highs[i]) - bisect_left(sorted_values, lows[i])
    return total


def ranges(n):
    rng = np.random.default_rng(33)
    lows = rng.uniform(0, 1, n)
    return np.sort(rng.uniform(0, 1, 10_000)), lows, lows + 0.01


bisect_left = njit(bisect_left)

# ------------------------------------------------------------------------------ images, bytes


def sobel_uint8(img):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            gx = (
                int(img[i - 1, j + 1])
                + 2 * int(img[i, j + 1])
                + int(img[i + 1, j + 1])
                - int(img[i - 1, j - 1])
                - 2 * int(img[i, j - 1])
                - int(img[i + 1, j - 1])
            )
            gy = (
                int(img[i + 1, j - 1])
                + 2 * int(img[i + 1, j])
                + int(img[i + 1, j + 1])
                - int(img[i - 1, j - 1])
                - 2 * int(img[i - 1, j])
                - int(img[i - 1, j + 1])
            )
            g = abs(gx) + abs(gy)
            out[i, j] = 255 if g > 255 else g
    return out


def brighten_uint8(img, gain, offset):
    out = np.empty_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            v = img[i, j] * gain + offset
            out[i, j] = min(max(v, 0.0), 255.0)
    return out


def uint8_image(n):
    return (np.random.default_rng(34).integers(0, 256, size=(n, n)).astype(np.uint8),)


def word_count_bytes(buf):
    words = 0
    lines = 0
    in_word = False
    for i in range(buf.shape[0]):
        c = buf[i]
        if c == 10:
            lines += 1
        if c == 32 or c == 10 or c == 9:
            in_word = False
        elif not in_word:
            in_word = True
            words += 1
    return words, lines


def text_bytes(n):
    rng = np.random.default_rng(35)
    letters = rng.integers(97, 123, n).astype(np.uint8)
    letters[rng.random(n) < 0.15] = 32
    letters[rng.random(n) < 0.01] = 10
    return (letters,)


def vowel_count(text):
    count = 0
    for ch in text:
        if ch in "aeiou":
            count += 1
    return count


def text(n):
    rng = np.random.default_rng(36)
    return ("".join(chr(c) for c in rng.integers(97, 123, n)),)


# ------------------------------------------------------------------------------ scans, bits


def run_lengths(values):
    n = values.shape[0]
    starts = np.empty(n, dtype=np.int64)
    lengths = np.empty(n, dtype=np.int64)
    runs = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and values[j] == values[i]:
            j += 1
        starts[runs] = i
        lengths[runs] = j - i
        runs += 1
        i = j
    return starts[:runs], lengths[:runs]


def runs(n):
    return (np.random.default_rng(37).integers(0, 3, n) // 2,)


def running_min_max(a):
    lo = np.empty_like(a)
    hi = np.empty_like(a)
    lo[0] = hi[0] = a[0]
    for i in range(1, a.shape[0]):
        lo[i] = min(lo[i - 1], a[i])
        hi[i] = max(hi[i - 1], a[i])
    return lo, hi


def morton_codes(x, y):
    out = np.empty(x.shape[0], dtype=np.uint64)
    for i in range(x.shape[0]):
        code = 0
        for b in range(16):
            code |= ((int(x[i]) >> b) & 1) << (2 * b)
            code |= ((int(y[i]) >> b) & 1) << (2 * b + 1)
        out[i] = code
    return out


def grid_points(n):
    rng = np.random.default_rng(38)
    return rng.integers(0, 1 << 16, n).astype(np.uint32), rng.integers(0, 1 << 16, n).astype(
        np.uint32
    )


def parity_and_zeros(values):
    odd = 0
    zeros = 0
    for i in range(values.shape[0]):
        v = values[i]
        p = 0
        while v:
            p ^= 1
            v &= v - 1
        odd += p
        v = values[i]
        if v == 0:
            zeros += 64
        else:
            while v & 1 == 0:
                zeros += 1
                v >>= 1
    return odd, zeros


def words64(n):
    return (np.random.default_rng(39).integers(0, 1 << 62, n),)


# ------------------------------------------------------------------------------ helpers, loops


def segment_stats(a, start, stop):
    total = 0.0
    low = a[start]
    high = a[start]
    for i in range(start, stop):
        total += a[i]
        low = min(low, a[i])
        high = max(high, a[i])
    return total / (stop - start), low, high


def windowed_stats(a, window):
    n = a.shape[0] // window
    out = np.empty((n, 3))
    for k in range(n):
        mean, low, high = segment_stats(a, k * window, (k + 1) * window)
        out[k, 0] = mean
        out[k, 1] = low
        out[k, 2] = high
    return out


segment_stats = njit(segment_stats)


def first_duplicate_gap(a):
    best = a.shape[0]
    for i in range(a.shape[0]):
        j = i + 1
        while j < a.shape[0] and j - i < best:
            if a[j] == a[i]:
                best = j - i
                break
            j += 1
    return best


def spread_ints(n):
    return (np.random.default_rng(40).integers(0, 4 * n, n),)


def wave_step(u, u_prev, c2, steps):
    u = u.copy()
    u_prev = u_prev.copy()
    h, w = u.shape
    nxt = np.zeros_like(u)
    for _ in range(steps):
        for i in range(1, h - 1):
            for j in range(1, w - 1):
                lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
                nxt[i, j] = 2.0 * u[i, j] - u_prev[i, j] + c2 * lap
        u_prev, u, nxt = u, nxt, u_prev
    return u


def wave_field(n):
    rng = np.random.default_rng(41)
    u = rng.normal(size=(n, n)) * 0.01
    return u, u.copy(), 0.2, 10


def solve_3x3_batch(mats, rhs):
    out = np.empty_like(rhs)
    for k in range(mats.shape[0]):
        m = mats[k]
        b = rhs[k]
        det = (
            m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
            - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
            + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0])
        )
        for c in range(3):
            mc = m.copy()
            mc[:, c] = b
            out[k, c] = (
                mc[0, 0] * (mc[1, 1] * mc[2, 2] - mc[1, 2] * mc[2, 1])
                - mc[0, 1] * (mc[1, 0] * mc[2, 2] - mc[1, 2] * mc[2, 0])
                + mc[0, 2] * (mc[1, 0] * mc[2, 1] - mc[1, 1] * mc[2, 0])
            ) / det
    return out


def systems(n):
    rng = np.random.default_rng(42)
    return rng.normal(size=(n, 3, 3)) + 3 * np.eye(3), rng.normal(size=(n, 3))


def rotate_all(rotation, points):
    out = np.empty_like(points)
    for i in range(points.shape[0]):
        out[i] = np.dot(rotation, points[i])
    return out


def rotation_and_points(n):
    c, s = math.cos(0.3), math.sin(0.3)
    rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return rotation, np.random.default_rng(43).normal(size=(n, 3))


# ------------------------------------------------------------------------------ random, series


def ising_sweeps(spins, beta, sweeps):
    spins = spins.copy()
    n = spins.shape[0]
    np.random.seed(5)
    for _ in range(sweeps * n * n):
        i = np.random.randint(0, n)
        j = np.random.randint(0, n)
        s = spins[i, j]
        nb = spins[(i + 1) % n, j] + spins[i - 1, j] + spins[i, (j + 1) % n] + spins[i, j - 1]
        d_e = 2.0 * s * nb
        if d_e <= 0.0 or np.random.random() < math.exp(-beta * d_e):
            spins[i, j] = -s
    return spins


def lattice_spins(n):
    return np.where(np.random.default_rng(44).random((n, n)) < 0.5, -1, 1), 0.4, 5


def option_price_mc(s0, strike, rate, sigma, t, paths):
    np.random.seed(6)
    drift = (rate - 0.5 * sigma * sigma) * t
    vol = sigma * math.sqrt(t)
    total = 0.0
    for _ in range(paths):
        s = s0 * math.exp(drift + vol * np.random.standard_normal())
        total += max(s - strike, 0.0)
    return math.exp(-rate * t) * total / paths


def ewma(a, alpha):
    out = np.empty_like(a)
    acc = a[0]
    for i in range(a.shape[0]):
        acc = alpha * a[i] + (1.0 - alpha) * acc
        out[i] = acc
    return out


def horner_many(coeffs, x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        acc = 0.0
        for c in coeffs:
            acc = acc * x[i] + c
        out[i] = acc
    return out


def series(n):
    return (np.random.default_rng(45).normal(size=n),)


CASES = [
    Case(csr_matvec, csr_matrix, 50, 100_000, "sparse"),
    Case(histogram_2d, points_2d, 100, 1_000_000, "histograms"),
    Case(interp_sorted, interp_points, 100, 200_000, "interpolation"),
    Case(count_in_ranges, ranges, 100, 100_000, "interpolation"),
    Case(sobel_uint8, uint8_image, 16, 500, "uint8 images"),
    Case(brighten_uint8, lambda n: (*uint8_image(n), 1.3, -10.0), 16, 1000, "uint8 images"),
    Case(word_count_bytes, text_bytes, 100, 1_000_000, "bytes"),
    Case(vowel_count, text, 100, 100_000, "strings"),
    Case(run_lengths, runs, 100, 1_000_000, "while/break"),
    Case(running_min_max, series, 100, 1_000_000, "scans"),
    Case(morton_codes, grid_points, 100, 200_000, "bits"),
    Case(parity_and_zeros, words64, 100, 200_000, "bits"),
    Case(windowed_stats, lambda n: (*series(n), 16), 100, 1_000_000, "tuples"),
    Case(first_duplicate_gap, spread_ints, 100, 20_000, "while/break"),
    Case(wave_step, wave_field, 16, 300, "stencils"),
    Case(solve_3x3_batch, systems, 20, 20_000, "small linear algebra"),
    Case(rotate_all, rotation_and_points, 20, 100_000, "small linear algebra"),
    Case(ising_sweeps, lattice_spins, 8, 64, "random"),
    Case(option_price_mc, lambda n: (100.0, 105.0, 0.02, 0.3, 1.0, n), 100, 500_000, "random"),
    Case(ewma, lambda n: (*series(n), 0.1), 100, 1_000_000, "running ops"),
    Case(horner_many, lambda n: (np.linspace(-1, 1, 8), *series(n)), 100, 500_000, "loops"),
]
