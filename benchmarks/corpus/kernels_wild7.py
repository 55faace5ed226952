"""Corpus: a seventh batch of kernels in the style of public Numba examples -- haversine
distances, Kahan sums, red-black SOR (ranges of step 2 from a run-time start), 2-d convolution
with reflected borders, cell lists of particles binned with np.floor, column quantiles by
sorting, Newton's method with Horner's rule, cumulative sums with resets, box filters by cumsum,
byte-level CSV scanning and Adler-32 over uint8, float32 CSR products, smooth Mandelbrot
colouring, an HMM forward pass in log space, Gotoh alignment scores, minimum-image pair energies,
histogram equalization of uint8 images, the 1-d distance transform, Bresenham rasterization,
cross-correlation lag search and a rolling z-score over a ring buffer."""

import math

import numpy as np
from _backend import njit
from _corpus import Case

# ------------------------------------------------------------------------------ geodesy


def haversine_pairs(lat1, lon1, lat2, lon2):
    """Great-circle distances (km) between paired points given in degrees."""
    n = lat1.shape[0]
    out = np.empty(n)
    for i in range(n):
        p1 = math.radians(lat1[i])
        p2 = math.radians(lat2[i])
        dp = p2 - p1
        dl = math.radians(lon2[i] - lon1[i])
        a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
        out[i] = 2.0 * 6371.0 * math.asin(math.sqrt(a))
    return out


def coordinates(n):
    rng = np.random.default_rng(701)
    return (
        rng.uniform(-90, 90, n),
        rng.uniform(-180, 180, n),
        rng.uniform(-90, 90, n),
        rng.uniform(-180, 180, n),
    )


# ------------------------------------------------------------------------------ summation


def kahan_sum(values):
    """Compensated summation (the order of operations matters: no reassociation)."""
    total = 0.0
    compensation = 0.0
    for i in range(values.shape[0]):
        y = values[i] - compensation
        t = total + y
        compensation = (t - total) - y
        total = t
    return total


def ill_conditioned(n):
    rng = np.random.default_rng(702)
    return (rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n)),)


def newton_polynomial_roots(coeffs, starts):
    """Newton's method from each start on a polynomial (coefficients lowest degree first),
    p and p' by Horner's rule from the top coefficient down (a range of step -1)."""
    degree = coeffs.shape[0] - 1
    out = np.empty_like(starts)
    for i in range(starts.shape[0]):
        x = starts[i]
        for _ in range(6):
            p = coeffs[degree]
            dp = 0.0
            for k in range(degree - 1, -1, -1):
                dp = dp * x + p
                p = p * x + coeffs[k]
            if dp == 0.0:
                break
            x -= p / dp
        out[i] = x
    return out


def polynomial_and_starts(n):
    rng = np.random.default_rng(703)
    roots = np.sort(rng.uniform(-1, 1, 7))
    return np.poly(roots)[::-1].copy(), rng.uniform(-1.0, 1.0, n)


# ------------------------------------------------------------------------------ stencils


def red_black_sor(u0, f, h, omega, sweeps):
    """Successive over-relaxation of the Poisson equation, red points then black ones: the
    inner loop steps by 2 from a start that depends on the row."""
    u = u0.copy()
    n, m = u.shape
    for _ in range(sweeps):
        for color in range(2):
            for i in range(1, n - 1):
                for j in range(1 + (i + color) % 2, m - 1, 2):
                    gs = 0.25 * (
                        u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h * h * f[i, j]
                    )
                    u[i, j] += omega * (gs - u[i, j])
    return u


def sor_problem(n):
    rng = np.random.default_rng(704)
    return np.zeros((n, n)), rng.standard_normal((n, n)), 1.0 / n, 1.7, 4


@njit
def _reflect(k, n):
    if k < 0:
        return -k - 1
    if k >= n:
        return 2 * n - k - 1
    return k


def convolve2d_reflect(image, kernel):
    """'same'-size 2-d correlation with borders reflected (scipy's mode='reflect')."""
    n, m = image.shape
    kh, kw = kernel.shape
    ch, cw = kh // 2, kw // 2
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for a in range(kh):
                ii = _reflect(i + a - ch, n)
                for b in range(kw):
                    jj = _reflect(j + b - cw, m)
                    acc += image[ii, jj] * kernel[a, b]
            out[i, j] = acc
    return out


def image_and_kernel(n):
    rng = np.random.default_rng(705)
    return rng.random((n, n)), rng.random((5, 5)) / 25.0


def box_filter_cumsum(x, width):
    """Centered moving average of odd `width` via a cumulative sum (edges: shorter windows)."""
    n = x.shape[0]
    c = np.zeros(n + 1)
    c[1:] = np.cumsum(x)
    half = width // 2
    out = np.empty(n)
    for i in range(n):
        lo = max(0, i - half)
        hi = min(n, i + half + 1)
        out[i] = (c[hi] - c[lo]) / (hi - lo)
    return out


def signal_and_width(n):
    return np.sin(np.linspace(0, 40, n)) + np.random.default_rng(706).standard_normal(n), 31


# ------------------------------------------------------------------------------ particles


def cell_list_counts(pos, box, cells):
    """Bin 2-d particles into a cells x cells grid with np.floor (periodic box), build the
    linked cell list (head / next) and count the pairs in each cell and its right neighbour."""
    n = pos.shape[0]
    head = -np.ones(cells * cells, dtype=np.int64)
    following = np.empty(n, dtype=np.int64)
    scale = cells / box
    for p in range(n):
        cx = int(np.floor(pos[p, 0] * scale)) % cells
        cy = int(np.floor(pos[p, 1] * scale)) % cells
        c = cx * cells + cy
        following[p] = head[c]
        head[c] = p
    pairs = 0
    for cx in range(cells):
        for cy in range(cells):
            right = ((cx + 1) % cells) * cells + cy
            p = head[cx * cells + cy]
            while p >= 0:
                q = head[right]
                while q >= 0:
                    pairs += 1
                    q = following[q]
                p = following[p]
    return pairs


def particles_in_box(n):
    return np.random.default_rng(707).uniform(0.0, 10.0, (n, 2)), 10.0, 32


def minimum_image_energy(pos, box, cutoff):
    """Soft pair energy under periodic boundaries: each separation wrapped by round()."""
    n = pos.shape[0]
    energy = 0.0
    cut2 = cutoff * cutoff
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dx -= box * round(dx / box)
            dy -= box * round(dy / box)
            r2 = dx * dx + dy * dy
            if r2 < cut2:
                energy += (1.0 - r2 / cut2) ** 2
    return energy


def periodic_particles(n):
    return np.random.default_rng(708).uniform(0.0, 20.0, (n, 2)), 20.0, 2.5


# ------------------------------------------------------------------------------ statistics


def column_quantiles(data, q):
    """The q-quantile of each column, sorting a copy (linear interpolation, NumPy's default)."""
    n, m = data.shape
    out = np.empty(m)
    for j in range(m):
        column = np.sort(data[:, j])
        position = q * (n - 1)
        low = int(math.floor(position))
        high = min(low + 1, n - 1)
        fraction = position - low
        out[j] = column[low] + (column[high] - column[low]) * fraction
    return out


def samples_by_column(n):
    return np.random.default_rng(709).standard_normal((n, 16)), 0.9


def cumsum_with_resets(x, resets):
    """A running sum that restarts wherever `resets` is set, and the longest positive streak."""
    out = np.empty_like(x)
    total = 0.0
    streak = 0
    longest = 0
    for i in range(x.shape[0]):
        if resets[i]:
            total = 0.0
        total += x[i]
        out[i] = total
        if x[i] > 0:
            streak += 1
            longest = max(longest, streak)
        else:
            streak = 0
    return out, longest


def values_and_resets(n):
    rng = np.random.default_rng(710)
    return rng.standard_normal(n), rng.random(n) < 0.01


def rolling_zscore(x, window):
    """z-score of each value against the previous `window` values, kept in a ring buffer
    with running sums (0 until the window is full)."""
    n = x.shape[0]
    ring = np.zeros(window)
    out = np.zeros(n)
    s = 0.0
    s2 = 0.0
    for i in range(n):
        if i >= window:
            mean = s / window
            var = s2 / window - mean * mean
            if var > 1e-12:
                out[i] = (x[i] - mean) / math.sqrt(var)
            old = ring[i % window]
            s -= old
            s2 -= old * old
        ring[i % window] = x[i]
        s += x[i]
        s2 += x[i] * x[i]
    return out


def series_and_window(n):
    return np.cumsum(np.random.default_rng(711).standard_normal(n)) * 0.01, 50


def cross_correlation_lag(x, y, max_lag):
    """The lag in [-max_lag, max_lag] maximizing sum x[i] * y[i + lag], and that sum."""
    n = x.shape[0]
    best_lag = 0
    best = -np.inf
    for lag in range(-max_lag, max_lag + 1):
        acc = 0.0
        for i in range(max(0, -lag), min(n, n - lag)):
            acc += x[i] * y[i + lag]
        if acc > best:
            best = acc
            best_lag = lag
    return best_lag, best


def shifted_signals(n):
    rng = np.random.default_rng(712)
    x = rng.standard_normal(n)
    return x, np.roll(x, 17) + 0.3 * rng.standard_normal(n), 64


# ------------------------------------------------------------------------------ bytes


def csv_field_stats(buffer):
    """Lines, fields and the widest field of comma-separated text held as uint8."""
    lines = 0
    fields = 0
    widest = 0
    width = 0
    for k in range(buffer.shape[0]):
        c = buffer[k]
        if c == 44 or c == 10:  # ',' or '\n'
            fields += 1
            widest = max(widest, width)
            width = 0
            if c == 10:
                lines += 1
        else:
            width += 1
    return lines, fields, widest


def csv_buffer(n):
    rng = np.random.default_rng(713)
    alphabet = np.frombuffer(b"0123456789abcdef.-,,,\n", dtype=np.uint8)
    return (alphabet[rng.integers(0, alphabet.shape[0], n)],)


def adler32(data):
    """Adler-32 checksum of a uint8 buffer (zlib's, in blocks of 5552 before the modulo)."""
    a = 1
    b = 0
    n = data.shape[0]
    start = 0
    while start < n:
        stop = min(start + 5552, n)
        for k in range(start, stop):
            a += int(data[k])
            b += a
        a %= 65521
        b %= 65521
        start = stop
    return (b << 16) | a


def random_bytes(n):
    return (np.random.default_rng(714).integers(0, 256, n).astype(np.uint8),)


def histogram_equalize(image):
    """Equalize a uint8 image: histogram, cumulative distribution, a 256-entry lookup table."""
    hist = np.zeros(256, dtype=np.int64)
    for v in image.ravel():
        hist[v] += 1
    cdf = np.cumsum(hist)
    nonzero = cdf[cdf > 0]
    cdf_min = nonzero[0]
    total = image.size
    lut = np.zeros(256, dtype=np.uint8)
    if total > cdf_min:
        for v in range(256):
            lut[v] = np.uint8(max(0, round((cdf[v] - cdf_min) * 255 / (total - cdf_min))))
    out = np.empty_like(image)
    n, m = image.shape
    for i in range(n):
        for j in range(m):
            out[i, j] = lut[image[i, j]]
    return out


def dark_image(n):
    rng = np.random.default_rng(715)
    return (np.clip(rng.normal(60, 20, (n, n)), 0, 255).astype(np.uint8),)


# ------------------------------------------------------------------------------ sparse


def csr_spmv_float32(indptr, indices, data, x):
    """y = A @ x for a float32 CSR matrix (float32 accumulation, as scipy's)."""
    n = indptr.shape[0] - 1
    y = np.zeros(n, dtype=np.float32)
    for row in range(n):
        acc = np.float32(0.0)
        for k in range(indptr[row], indptr[row + 1]):
            acc += data[k] * x[indices[k]]
        y[row] = acc
    return y


def csr_float32(n):
    rng = np.random.default_rng(716)
    per_row = rng.integers(0, 12, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(per_row)
    nnz = indptr[-1]
    indices = rng.integers(0, n, nnz)
    data = rng.standard_normal(nnz).astype(np.float32)
    return indptr, indices, data, rng.standard_normal(n).astype(np.float32)


# ------------------------------------------------------------------------------ fractals


def mandelbrot_smooth(width, height, max_iter):
    """Continuous (smooth) escape values: n + 1 - log2(log|z|) past a radius of 16."""
    out = np.zeros((height, width))
    for row in range(height):
        ci = -1.2 + 2.4 * row / height
        for col in range(width):
            cr = -2.1 + 3.0 * col / width
            zr = 0.0
            zi = 0.0
            k = 0
            while zr * zr + zi * zi <= 256.0 and k < max_iter:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                k += 1
            if k < max_iter:
                modulus = math.sqrt(zr * zr + zi * zi)
                out[row, col] = k + 1 - math.log2(math.log(modulus))
    return out


# ------------------------------------------------------------------------------ sequences


def hmm_forward_log(log_start, log_trans, log_emit, observations):
    """Log-likelihood of an observation sequence (forward algorithm, log-sum-exp per state)."""
    states = log_start.shape[0]
    alpha = log_start + log_emit[:, observations[0]]
    following = np.empty(states)
    for t in range(1, observations.shape[0]):
        for j in range(states):
            peak = -np.inf
            for i in range(states):
                peak = max(peak, alpha[i] + log_trans[i, j])
            acc = 0.0
            for i in range(states):
                acc += math.exp(alpha[i] + log_trans[i, j] - peak)
            following[j] = peak + math.log(acc) + log_emit[j, observations[t]]
        alpha, following = following, alpha
    peak = alpha.max()
    return peak + math.log(np.sum(np.exp(alpha - peak)))


def hmm_model(n):
    rng = np.random.default_rng(717)
    states, symbols = 8, 6
    trans = rng.random((states, states))
    trans /= trans.sum(axis=1)[:, None]
    emit = rng.random((states, symbols))
    emit /= emit.sum(axis=1)[:, None]
    start = np.full(states, 1.0 / states)
    return np.log(start), np.log(trans), np.log(emit), rng.integers(0, symbols, n)


def gotoh_score(a, b, match, mismatch, gap_open, gap_extend):
    """Global alignment score with affine gaps (Gotoh), three DP rows kept as arrays."""
    n, m = a.shape[0], b.shape[0]
    neg = -1e18
    best = np.empty(m + 1)
    gap_a = np.empty(m + 1)
    gap_b = np.empty(m + 1)
    best[0] = 0.0
    gap_a[0] = neg
    gap_b[0] = neg
    for j in range(1, m + 1):
        gap_b[j] = -gap_open - (j - 1) * gap_extend
        gap_a[j] = neg
        best[j] = gap_b[j]
    for i in range(1, n + 1):
        diagonal = best[0]
        best[0] = -gap_open - (i - 1) * gap_extend
        gap_a[0] = best[0]
        gap_b[0] = neg
        for j in range(1, m + 1):
            gap_a[j] = max(gap_a[j] - gap_extend, best[j] - gap_open)
            gap_b[j] = max(gap_b[j - 1] - gap_extend, best[j - 1] - gap_open)
            score = match if a[i - 1] == b[j - 1] else mismatch
            current = max(diagonal + score, gap_a[j], gap_b[j])
            diagonal = best[j]
            best[j] = current
    return best[m]


def protein_pair(n):
    rng = np.random.default_rng(718)
    return rng.integers(0, 20, n), rng.integers(0, 20, n), 2.0, -1.0, 3.0, 0.5


# ------------------------------------------------------------------------------ geometry


def distance_transform_1d(f):
    """Felzenszwalb-Huttenlocher squared distance transform (lower envelope of parabolas)."""
    n = f.shape[0]
    d = np.empty(n)
    v = np.zeros(n, dtype=np.int64)
    z = np.empty(n + 1)
    k = 0
    z[0] = -np.inf
    z[1] = np.inf
    for q in range(1, n):
        s = ((f[q] + q * q) - (f[v[k]] + v[k] * v[k])) / (2.0 * q - 2.0 * v[k])
        while s <= z[k]:
            k -= 1
            s = ((f[q] + q * q) - (f[v[k]] + v[k] * v[k])) / (2.0 * q - 2.0 * v[k])
        k += 1
        v[k] = q
        z[k] = s
        z[k + 1] = np.inf
    k = 0
    for q in range(n):
        while z[k + 1] < q:
            k += 1
        d[q] = (q - v[k]) ** 2 + f[v[k]]
    return d


def sparse_sources(n):
    rng = np.random.default_rng(719)
    f = np.full(n, 1e12)
    f[rng.integers(0, n, max(1, n // 50))] = 0.0
    return (f,)


def bresenham_lines(segments, size):
    """Rasterize integer segments into a size x size grid of hit counts (Bresenham)."""
    grid = np.zeros((size, size), dtype=np.int32)
    for s in range(segments.shape[0]):
        x0, y0, x1, y1 = segments[s, 0], segments[s, 1], segments[s, 2], segments[s, 3]
        dx = abs(x1 - x0)
        dy = -abs(y1 - y0)
        sx = 1 if x0 < x1 else -1
        sy = 1 if y0 < y1 else -1
        err = dx + dy
        while True:
            grid[y0, x0] += 1
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy
    return grid


def random_segments(n):
    return np.random.default_rng(720).integers(0, 256, (n, 4)), 256


CASES = [
    Case(haversine_pairs, coordinates, 50, 1_000_000, "geodesy", rtol=1e-8),
    Case(kahan_sum, ill_conditioned, 100, 2_000_000, "summation"),
    Case(newton_polynomial_roots, polynomial_and_starts, 50, 500_000, "polynomials", rtol=1e-8),
    Case(red_black_sor, sor_problem, 12, 300, "stencils", rtol=1e-8),
    Case(convolve2d_reflect, image_and_kernel, 12, 400, "images", rtol=1e-8),
    Case(box_filter_cumsum, signal_and_width, 100, 2_000_000, "filters", rtol=1e-6),
    Case(cell_list_counts, particles_in_box, 200, 100_000, "particles"),
    Case(minimum_image_energy, periodic_particles, 50, 2_000, "particles", rtol=1e-8),
    Case(column_quantiles, samples_by_column, 50, 100_000, "statistics", rtol=1e-8),
    Case(cumsum_with_resets, values_and_resets, 200, 2_000_000, "prefix sums", rtol=1e-8),
    Case(rolling_zscore, series_and_window, 200, 1_000_000, "rolling windows", rtol=1e-6),
    Case(cross_correlation_lag, shifted_signals, 200, 20_000, "signals", rtol=1e-8),
    Case(csv_field_stats, csv_buffer, 500, 4_000_000, "bytes"),
    Case(adler32, random_bytes, 500, 4_000_000, "bytes"),
    Case(histogram_equalize, dark_image, 20, 1000, "uint8 images"),
    Case(csr_spmv_float32, csr_float32, 100, 500_000, "sparse", rtol=1e-4),
    Case(mandelbrot_smooth, lambda n: (n, n, 200), 20, 300, "fractals", rtol=1e-8),
    Case(hmm_forward_log, hmm_model, 50, 100_000, "sequences", rtol=1e-8),
    Case(gotoh_score, protein_pair, 30, 2_000, "dynamic programming"),
    Case(distance_transform_1d, sparse_sources, 100, 1_000_000, "geometry"),
    Case(bresenham_lines, random_segments, 20, 20_000, "rasterization"),
]
