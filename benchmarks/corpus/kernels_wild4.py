"""Corpus: a fourth batch of kernels in the style of public Numba code -- float32 and int16
stencils written by hand, complex128 loops, 3-d loops over Fortran arrays, small matrix inverses
and solves in loops, number parsing over uint8 buffers, np.searchsorted in loops, cumulative
products, popcounts and other bit tricks, sparse COO accumulation and reductions over tuples."""

import numpy as np
from _corpus import Case

# ------------------------------------------------------------------------------ float32 stencils


def upwind_advection_float32(q, c, steps):
    """First-order upwind steps of q_t + u q_x = 0 (c = u dt / dx > 0), periodic."""
    n = q.shape[0]
    cur = q.copy()
    nxt = np.empty_like(q)
    for _ in range(steps):
        for i in range(n):
            nxt[i] = cur[i] - c * (cur[i] - cur[i - 1])
        cur, nxt = nxt, cur
    return cur


def sobel_magnitude_float32(img):
    n, m = img.shape
    out = np.zeros((n, m), dtype=np.float32)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            gx = (
                img[i - 1, j + 1] + 2 * img[i, j + 1] + img[i + 1, j + 1]
                - img[i - 1, j - 1] - 2 * img[i, j - 1] - img[i + 1, j - 1]
            )  # fmt: skip
            gy = (
                img[i + 1, j - 1] + 2 * img[i + 1, j] + img[i + 1, j + 1]
                - img[i - 1, j - 1] - 2 * img[i - 1, j] - img[i - 1, j + 1]
            )  # fmt: skip
            out[i, j] = np.sqrt(gx * gx + gy * gy)
    return out


def moving_average_float32(x, window):
    n = x.shape[0]
    out = np.empty(n - window + 1, dtype=np.float32)
    acc = np.float32(0.0)
    for i in range(window):
        acc += x[i]
    out[0] = acc / window
    for i in range(window, n):
        acc += x[i] - x[i - window]
        out[i - window + 1] = acc / window
    return out


def f32_image(n):
    return (np.random.default_rng(110).random((n, n)).astype(np.float32),)


# -------------------------------------------------------------------------- int16 / uint8 images


def box_blur_int16(img):
    n, m = img.shape
    out = np.empty_like(img)
    for i in range(n):
        for j in range(m):
            if i == 0 or j == 0 or i == n - 1 or j == m - 1:
                out[i, j] = img[i, j]
            else:
                s = 0
                for di in range(-1, 2):
                    for dj in range(-1, 2):
                        s += img[i + di, j + dj]
                out[i, j] = s // 9
    return out


def int16_image(n):
    return (np.random.default_rng(111).integers(-2000, 2000, (n, n)).astype(np.int16),)


def rgb_to_gray(rgb):
    n, m, _ = rgb.shape
    out = np.empty((n, m), dtype=np.uint8)
    for i in range(n):
        for j in range(m):
            r = np.uint32(rgb[i, j, 0])
            g = np.uint32(rgb[i, j, 1])
            b = np.uint32(rgb[i, j, 2])
            out[i, j] = (r * 77 + g * 150 + b * 29) >> 8
    return out


def rgb_image(n):
    return (np.random.default_rng(112).integers(0, 256, (n, n, 3)).astype(np.uint8),)


def threshold_count_int16(img, lo, hi):
    count = 0
    total = 0
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            v = img[i, j]
            if lo <= v < hi:
                count += 1
                total += v
    return count, total


# ------------------------------------------------------------------------------ complex128


def mandelbrot_counts(xs, ys, max_iter):
    out = np.empty((ys.shape[0], xs.shape[0]), dtype=np.int32)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            c = complex(xs[j], ys[i])
            z = 0j
            k = 0
            while k < max_iter and (z.real * z.real + z.imag * z.imag) <= 4.0:
                z = z * z + c
                k += 1
            out[i, j] = k
    return out


def grid(n):
    return np.linspace(-2.0, 0.6, n), np.linspace(-1.2, 1.2, n), 60


def complex_horner(coeffs, z):
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        acc = 0j
        for c in coeffs:
            acc = acc * z[i] + c
        out[i] = acc
    return out


def complex_samples(n):
    rng = np.random.default_rng(113)
    z = rng.normal(size=n) * 0.5 + 1j * rng.normal(size=n) * 0.5
    coeffs = rng.normal(size=8) + 1j * rng.normal(size=8)
    return coeffs, z


def phase_rotate_sum(z, omega):
    total = 0j
    w = 1 + 0j
    step = complex(np.cos(omega), np.sin(omega))
    for i in range(z.shape[0]):
        total += z[i] * w
        w *= step
    return total


# ------------------------------------------------------------------------------ Fortran 3-d


def fortran_weighted_sum3(a, w):
    ni, nj, nk = a.shape
    total = 0.0
    for k in range(nk):
        for j in range(nj):
            for i in range(ni):
                total += a[i, j, k] * w[i]
    return total


def fortran_divergence3(u, v, w):
    ni, nj, nk = u.shape
    out = np.zeros_like(u)
    for k in range(1, nk - 1):
        for j in range(1, nj - 1):
            for i in range(1, ni - 1):
                out[i, j, k] = (
                    u[i + 1, j, k] - u[i - 1, j, k]
                    + v[i, j + 1, k] - v[i, j - 1, k]
                    + w[i, j, k + 1] - w[i, j, k - 1]
                ) * 0.5  # fmt: skip
    return out


def fortran_cube(n):
    rng = np.random.default_rng(114)
    return np.asfortranarray(rng.random((n, n, n))), rng.random(n)


def fortran_fields(n):
    rng = np.random.default_rng(115)
    return tuple(np.asfortranarray(rng.random((n, n, n))) for _ in range(3))


# ------------------------------------------------------------------------------ small matrices


def inverse_3x3_batch(mats):
    out = np.empty_like(mats)
    for k in range(mats.shape[0]):
        a = mats[k]
        c00 = a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1]
        c01 = a[1, 2] * a[2, 0] - a[1, 0] * a[2, 2]
        c02 = a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]
        det = a[0, 0] * c00 + a[0, 1] * c01 + a[0, 2] * c02
        inv = 1.0 / det
        out[k, 0, 0] = c00 * inv
        out[k, 1, 0] = c01 * inv
        out[k, 2, 0] = c02 * inv
        out[k, 0, 1] = (a[0, 2] * a[2, 1] - a[0, 1] * a[2, 2]) * inv
        out[k, 1, 1] = (a[0, 0] * a[2, 2] - a[0, 2] * a[2, 0]) * inv
        out[k, 2, 1] = (a[0, 1] * a[2, 0] - a[0, 0] * a[2, 1]) * inv
        out[k, 0, 2] = (a[0, 1] * a[1, 2] - a[0, 2] * a[1, 1]) * inv
        out[k, 1, 2] = (a[0, 2] * a[1, 0] - a[0, 0] * a[1, 2]) * inv
        out[k, 2, 2] = (a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]) * inv
    return out


def well_conditioned(n):
    rng = np.random.default_rng(116)
    return (rng.random((n, 3, 3)) + 3.0 * np.eye(3),)


def linalg_inv_trace(mats):
    total = 0.0
    for k in range(mats.shape[0]):
        inv = np.linalg.inv(mats[k])
        total += np.trace(inv)
    return total


# ------------------------------------------------------------------------------ byte parsing


def parse_decimals(buf):
    """Sum of the comma-separated decimals (digits, an optional '.' and fraction) in `buf`."""
    total = 0.0
    value = 0.0
    scale = 0.0
    for i in range(buf.shape[0]):
        c = buf[i]
        if c == 44:  # ','
            total += value
            value = 0.0
            scale = 0.0
        elif c == 46:  # '.'
            scale = 0.1
        elif scale == 0.0:
            value = value * 10.0 + (c - 48)
        else:
            value += (c - 48) * scale
            scale *= 0.1
    return total + value


def decimal_bytes(n):
    rng = np.random.default_rng(117)
    parts = [f"{v:.3f}" for v in rng.random(n // 8 + 1) * 1000]
    return (np.frombuffer(",".join(parts).encode()[:n].rstrip(b",."), dtype=np.uint8),)


def count_words(buf):
    words = 0
    inside = False
    for i in range(buf.shape[0]):
        c = buf[i]
        blank = c == 32 or c == 10 or c == 9
        if not blank and not inside:
            words += 1
        inside = not blank
    return words


def word_text(n):
    rng = np.random.default_rng(118)
    letters = rng.integers(97, 123, n).astype(np.uint8)
    letters[rng.random(n) < 0.18] = 32
    letters[rng.random(n) < 0.02] = 10
    return (letters,)


# ------------------------------------------------------------------------------ searchsorted


def bin_by_edges(values, edges):
    counts = np.zeros(edges.shape[0] + 1, dtype=np.int64)
    for i in range(values.shape[0]):
        counts[np.searchsorted(edges, values[i])] += 1
    return counts


def sorted_edges(n):
    rng = np.random.default_rng(119)
    return rng.normal(size=n), np.sort(rng.normal(size=200))


def interp_by_search(xp, fp, x):
    out = np.empty_like(x)
    last = xp.shape[0] - 1
    for i in range(x.shape[0]):
        j = np.searchsorted(xp, x[i], side="right") - 1
        if j < 0:
            out[i] = fp[0]
        elif j >= last:
            out[i] = fp[last]
        else:
            t = (x[i] - xp[j]) / (xp[j + 1] - xp[j])
            out[i] = fp[j] + t * (fp[j + 1] - fp[j])
    return out


def interp_table(n):
    rng = np.random.default_rng(120)
    xp = np.sort(rng.random(500))
    return xp, np.sin(xp * 6.0), rng.random(n) * 1.2 - 0.1


# ------------------------------------------------------------------------------ cumulative products


def survival_curve(hazard):
    out = np.empty_like(hazard)
    s = 1.0
    for i in range(hazard.shape[0]):
        s *= 1.0 - hazard[i]
        out[i] = s
    return out


def growth_index(returns):
    return np.cumprod(1.0 + returns)


def small_rates(n):
    return (np.random.default_rng(121).random(n) * 1e-5,)


# ------------------------------------------------------------------------------ bits


def popcount_kernighan(xs):
    total = 0
    for i in range(xs.shape[0]):
        v = xs[i]
        while v:
            v &= v - np.uint64(1)
            total += 1
    return total


def hamming_swar(a, b):
    total = 0
    m1 = np.uint64(0x5555555555555555)
    m2 = np.uint64(0x3333333333333333)
    m4 = np.uint64(0x0F0F0F0F0F0F0F0F)
    h01 = np.uint64(0x0101010101010101)
    for i in range(a.shape[0]):
        x = a[i] ^ b[i]
        x -= (x >> np.uint64(1)) & m1
        x = (x & m2) + ((x >> np.uint64(2)) & m2)
        x = (x + (x >> np.uint64(4))) & m4
        total += (x * h01) >> np.uint64(56)
    return total


def uint64_words(n):
    rng = np.random.default_rng(122)
    hi = np.iinfo(np.uint64).max
    return (rng.integers(0, hi, n, dtype=np.uint64, endpoint=True),)


def uint64_pairs(n):
    return uint64_words(n)[0], uint64_words(n + 1)[0][1:]


def subset_weight_total(weights, k):
    """Sum over every k-subset of the weights (as bit masks, Gosper's hack) of its weight."""
    n = weights.shape[0]
    total = 0.0
    mask = (1 << k) - 1
    while mask < (1 << n):
        s = 0.0
        m = mask
        while m:
            low = m & -m
            s += weights[int(np.log2(low))]
            m ^= low
        total += s
        c = mask & -mask
        r = mask + c
        mask = (((r ^ mask) >> 2) // c) | r
    return total


# ------------------------------------------------------------------------------ sparse COO


def coo_matvec(rows, cols, vals, x, n):
    y = np.zeros(n)
    for k in range(vals.shape[0]):
        y[rows[k]] += vals[k] * x[cols[k]]
    return y


def coo_matrix(n):
    rng = np.random.default_rng(123)
    nnz = 8 * n
    rows = rng.integers(0, n, nnz).astype(np.int32)
    cols = rng.integers(0, n, nnz).astype(np.int32)
    return rows, cols, rng.random(nnz), rng.random(n), n


def coo_row_max(rows, vals, n):
    out = np.full(n, -np.inf)
    for k in range(vals.shape[0]):
        r = rows[k]
        if vals[k] > out[r]:
            out[r] = vals[k]
    return out


# ------------------------------------------------------------------------------ tuples


def stats_over_tuple(arrays):
    best = -np.inf
    total = 0.0
    count = 0
    for a in arrays:
        for i in range(a.shape[0]):
            v = a[i]
            total += v
            if v > best:
                best = v
        count += a.shape[0]
    return total / count, best


def three_arrays(n):
    rng = np.random.default_rng(124)
    return ((rng.random(n), rng.random(n), rng.random(n)),)


def minmax_pairs(points):
    lo = (np.inf, np.inf)
    hi = (-np.inf, -np.inf)
    for i in range(points.shape[0]):
        p = (points[i, 0], points[i, 1])
        lo = (min(lo[0], p[0]), min(lo[1], p[1]))
        hi = (max(hi[0], p[0]), max(hi[1], p[1]))
    return lo, hi


def points2(n):
    return (np.random.default_rng(125).normal(size=(n, 2)),)


# ------------------------------------------------------------------------------ geometry


def cross_rows(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i, 0] = a[i, 1] * b[i, 2] - a[i, 2] * b[i, 1]
        out[i, 1] = a[i, 2] * b[i, 0] - a[i, 0] * b[i, 2]
        out[i, 2] = a[i, 0] * b[i, 1] - a[i, 1] * b[i, 0]
    return out


def vec3_pairs(n):
    rng = np.random.default_rng(126)
    return rng.random((n, 3)), rng.random((n, 3))


def run_length_decode(values, lengths):
    out = np.empty(lengths.sum(), dtype=values.dtype)
    k = 0
    for r in range(values.shape[0]):
        v = values[r]
        for _ in range(lengths[r]):
            out[k] = v
            k += 1
    return out


def encoded_runs(n):
    rng = np.random.default_rng(127)
    return rng.integers(0, 256, n).astype(np.uint8), rng.integers(1, 9, n)


CASES = [
    Case(
        upwind_advection_float32,
        lambda n: (np.random.default_rng(129).random(n).astype(np.float32), 0.4, 50),
        100,
        100_000,
        "float32 stencils",
        rtol=1e-4,
    ),
    Case(sobel_magnitude_float32, f32_image, 20, 1000, "float32 stencils", rtol=1e-5),
    Case(
        moving_average_float32,
        lambda n: (np.random.default_rng(128).random(n).astype(np.float32), 16),
        100,
        2_000_000,
        "float32 stencils",
        rtol=1e-3,
    ),
    Case(box_blur_int16, int16_image, 20, 800, "int16 images"),
    Case(rgb_to_gray, rgb_image, 20, 1000, "int16 images"),
    Case(
        threshold_count_int16,
        lambda n: (*int16_image(n), -500, 700),
        20,
        1500,
        "int16 images",
    ),
    Case(mandelbrot_counts, grid, 20, 300, "complex"),
    Case(complex_horner, complex_samples, 100, 300_000, "complex"),
    Case(
        phase_rotate_sum,
        lambda n: (complex_samples(n)[1], 0.001),
        100,
        1_000_000,
        "complex",
        rtol=1e-6,
    ),
    Case(fortran_weighted_sum3, fortran_cube, 8, 100, "fortran order"),
    Case(fortran_divergence3, fortran_fields, 8, 80, "fortran order"),
    Case(inverse_3x3_batch, well_conditioned, 50, 200_000, "small matrices"),
    Case(linalg_inv_trace, well_conditioned, 20, 20_000, "small matrices", rtol=1e-7),
    Case(parse_decimals, decimal_bytes, 200, 2_000_000, "bytes", rtol=1e-7),
    Case(count_words, word_text, 200, 4_000_000, "bytes"),
    Case(bin_by_edges, sorted_edges, 100, 500_000, "searchsorted"),
    Case(interp_by_search, interp_table, 100, 500_000, "searchsorted"),
    Case(survival_curve, small_rates, 100, 2_000_000, "cumulative products"),
    Case(growth_index, small_rates, 100, 2_000_000, "cumulative products"),
    Case(popcount_kernighan, uint64_words, 100, 300_000, "bits"),
    Case(hamming_swar, uint64_pairs, 100, 1_000_000, "bits"),
    Case(
        subset_weight_total,
        lambda n: (np.random.default_rng(130).random(n), n // 2),
        8,
        18,
        "bits",
    ),
    Case(coo_matvec, coo_matrix, 100, 200_000, "sparse"),
    Case(
        coo_row_max,
        lambda n: (coo_matrix(n)[0], coo_matrix(n)[2], n),
        100,
        200_000,
        "sparse",
    ),
    Case(stats_over_tuple, three_arrays, 100, 1_000_000, "tuples"),
    Case(minmax_pairs, points2, 100, 1_000_000, "tuples"),
    Case(cross_rows, vec3_pairs, 100, 1_000_000, "geometry"),
    Case(run_length_decode, encoded_runs, 100, 300_000, "nested loops"),
]
