"""Corpus: a fifth batch of kernels in the style of public Numba code -- dynamic programming
(Viterbi, shortest paths on dense graphs), hand-written linear solvers (Thomas, Gauss-Seidel,
Doolittle LU), particle-in-cell deposits and bilinear resampling, bincounts, ranks from
np.argsort and rolling statistics, float32 N-body, uint32 hashing, CRC and radix sorting,
token-array processing, Monte Carlo with np.random and orientation histograms."""

import math

import numpy as np
from _corpus import Case

# ------------------------------------------------------------------------------ dynamic programming


def viterbi_path(log_start, log_trans, log_emit, observations):
    """The most likely state sequence of a hidden Markov model (log probabilities)."""
    n_states = log_start.shape[0]
    n_obs = observations.shape[0]
    score = np.empty((n_obs, n_states))
    back = np.zeros((n_obs, n_states), dtype=np.int64)
    for s in range(n_states):
        score[0, s] = log_start[s] + log_emit[s, observations[0]]
    for t in range(1, n_obs):
        for s in range(n_states):
            best = -np.inf
            arg = 0
            for r in range(n_states):
                v = score[t - 1, r] + log_trans[r, s]
                if v > best:
                    best = v
                    arg = r
            score[t, s] = best + log_emit[s, observations[t]]
            back[t, s] = arg
    path = np.empty(n_obs, dtype=np.int64)
    last = 0
    for s in range(1, n_states):
        if score[n_obs - 1, s] > score[n_obs - 1, last]:
            last = s
    path[n_obs - 1] = last
    for t in range(n_obs - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path


def hidden_markov(n):
    rng = np.random.default_rng(140)
    states, symbols = 8, 12
    start = np.log(rng.dirichlet(np.ones(states)))
    trans = np.log(rng.dirichlet(np.ones(states), size=states))
    emit = np.log(rng.dirichlet(np.ones(symbols), size=states))
    return start, trans, emit, rng.integers(0, symbols, n)


def dijkstra_dense(weights, source):
    """Shortest distances from `source` on a dense weight matrix (inf: no edge), O(n^2)."""
    n = weights.shape[0]
    dist = np.full(n, np.inf)
    done = np.zeros(n, dtype=np.bool_)
    dist[source] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not done[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u < 0:
            break
        done[u] = True
        for v in range(n):
            w = weights[u, v]
            if w < np.inf and dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    return dist


def dense_graph(n):
    rng = np.random.default_rng(141)
    w = rng.random((n, n)) * 10.0
    w[rng.random((n, n)) < 0.7] = np.inf
    return w, 0


# ------------------------------------------------------------------------------ linear solvers


def thomas_batch(lower, diag, upper, rhs):
    """Solves many tridiagonal systems (one per row) by the Thomas algorithm."""
    m, n = diag.shape
    out = np.empty((m, n))
    c = np.empty(n)
    d = np.empty(n)
    for k in range(m):
        c[0] = upper[k, 0] / diag[k, 0]
        d[0] = rhs[k, 0] / diag[k, 0]
        for i in range(1, n):
            denom = diag[k, i] - lower[k, i] * c[i - 1]
            c[i] = upper[k, i] / denom
            d[i] = (rhs[k, i] - lower[k, i] * d[i - 1]) / denom
        out[k, n - 1] = d[n - 1]
        for i in range(n - 2, -1, -1):
            out[k, i] = d[i] - c[i] * out[k, i + 1]
    return out


def tridiagonal_systems(n):
    rng = np.random.default_rng(142)
    m = max(n // 50, 2)
    lower = rng.random((m, 50))
    upper = rng.random((m, 50))
    diag = lower + upper + 1.0 + rng.random((m, 50))
    return lower, diag, upper, rng.random((m, 50))


def gauss_seidel(u, f, h, sweeps):
    """In-place Gauss-Seidel sweeps of the 2-d Poisson equation (boundary fixed)."""
    u = u.copy()
    n, m = u.shape
    h2 = h * h
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                u[i, j] = 0.25 * (
                    u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j]
                )
    return u


def poisson_grid(n):
    rng = np.random.default_rng(143)
    return rng.random((n, n)), rng.random((n, n)), 1.0 / n, 5


def lu_solve_batch(mats, rhs):
    """Doolittle LU without pivoting, then forward and back substitution, per matrix."""
    k, n, _ = mats.shape
    out = np.empty((k, n))
    lu = np.empty((n, n))
    y = np.empty(n)
    for b in range(k):
        for i in range(n):
            for j in range(n):
                lu[i, j] = mats[b, i, j]
        for p in range(n):
            for i in range(p + 1, n):
                lu[i, p] /= lu[p, p]
                for j in range(p + 1, n):
                    lu[i, j] -= lu[i, p] * lu[p, j]
        for i in range(n):
            s = rhs[b, i]
            for j in range(i):
                s -= lu[i, j] * y[j]
            y[i] = s
        for i in range(n - 1, -1, -1):
            s = y[i]
            for j in range(i + 1, n):
                s -= lu[i, j] * out[b, j]
            out[b, i] = s / lu[i, i]
    return out


def dominant_matrices(n):
    rng = np.random.default_rng(144)
    size = 6
    mats = rng.random((n, size, size)) + np.eye(size) * size
    return mats, rng.random((n, size))


# ------------------------------------------------------------------------------ particles, grids


def cic_deposit(x, y, q, nx, ny):
    """Cloud-in-cell charge deposit of particles in the unit square onto a periodic grid."""
    rho = np.zeros((nx, ny))
    for p in range(x.shape[0]):
        gx = x[p] * nx
        gy = y[p] * ny
        i = int(math.floor(gx))
        j = int(math.floor(gy))
        fx = gx - i
        fy = gy - j
        i0 = i % nx
        j0 = j % ny
        i1 = (i + 1) % nx
        j1 = (j + 1) % ny
        rho[i0, j0] += q[p] * (1.0 - fx) * (1.0 - fy)
        rho[i1, j0] += q[p] * fx * (1.0 - fy)
        rho[i0, j1] += q[p] * (1.0 - fx) * fy
        rho[i1, j1] += q[p] * fx * fy
    return rho


def charged_particles(n):
    rng = np.random.default_rng(145)
    return rng.random(n), rng.random(n), rng.random(n) - 0.5, 64, 64


def bilinear_resize(img, out_n, out_m):
    n, m = img.shape
    out = np.empty((out_n, out_m))
    sy = (n - 1) / (out_n - 1)
    sx = (m - 1) / (out_m - 1)
    for i in range(out_n):
        y = i * sy
        y0 = int(y)
        y1 = min(y0 + 1, n - 1)
        wy = y - y0
        for j in range(out_m):
            x = j * sx
            x0 = int(x)
            x1 = min(x0 + 1, m - 1)
            wx = x - x0
            top = img[y0, x0] * (1.0 - wx) + img[y0, x1] * wx
            bottom = img[y1, x0] * (1.0 - wx) + img[y1, x1] * wx
            out[i, j] = top * (1.0 - wy) + bottom * wy
    return out


def small_image(n):
    return np.random.default_rng(146).random((n // 2 + 2, n // 2 + 3)), n, n + 7


def nbody_float32(pos, mass, eps):
    """Softened gravitational accelerations, all in float32."""
    n = pos.shape[0]
    acc = np.zeros((n, 3), dtype=np.float32)
    for i in range(n):
        ax = np.float32(0.0)
        ay = np.float32(0.0)
        az = np.float32(0.0)
        for j in range(n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            r2 = dx * dx + dy * dy + dz * dz + eps
            inv = mass[j] / (r2 * np.sqrt(r2))
            ax += dx * inv
            ay += dy * inv
            az += dz * inv
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az
    return acc


def bodies32(n):
    rng = np.random.default_rng(147)
    pos = rng.random((n, 3)).astype(np.float32)
    return pos, rng.random(n).astype(np.float32), np.float32(1e-3)


# ------------------------------------------------------------------------------ counting, ranking


def weighted_bincount(labels, weights, n_bins):
    out = np.zeros(n_bins)
    for i in range(labels.shape[0]):
        out[labels[i]] += weights[i]
    return out


def labels_and_weights(n):
    rng = np.random.default_rng(148)
    return rng.integers(0, 1000, n), rng.random(n), 1000


def argsort_ranks(values):
    """Ranks 0..n-1 of the values (ties by position), through np.argsort."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(values.shape[0], dtype=np.int64)
    for k in range(order.shape[0]):
        ranks[order[k]] = k
    return ranks


def rolling_std(x, window):
    """Standard deviation over each window of `window` items, by running sums."""
    n = x.shape[0]
    out = np.empty(n - window + 1)
    s = 0.0
    s2 = 0.0
    for i in range(window):
        s += x[i]
        s2 += x[i] * x[i]
    for i in range(window, n + 1):
        mean = s / window
        out[i - window] = math.sqrt(max(s2 / window - mean * mean, 0.0))
        if i < n:
            s += x[i] - x[i - window]
            s2 += x[i] * x[i] - x[i - window] * x[i - window]
    return out


def cumulative_max_highs(x):
    """The running maximum and how many times a new high was set."""
    out = np.empty_like(x)
    highs = 0
    best = -np.inf
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
            highs += 1
        out[i] = best
    return out, highs


def normal_series(n):
    return (np.random.default_rng(149).normal(size=n).cumsum(),)


# ------------------------------------------------------------------------------ uint32 bits


def fmix32_hashes(keys):
    """MurmurHash3's 32-bit finalizer over uint32 keys (in uint64, masked to 32 bits)."""
    out = np.empty_like(keys)
    mask = np.uint64(0xFFFFFFFF)
    for i in range(keys.shape[0]):
        h = np.uint64(keys[i])
        h ^= h >> np.uint64(16)
        h = (h * np.uint64(0x85EBCA6B)) & mask
        h ^= h >> np.uint64(13)
        h = (h * np.uint64(0xC2B2AE35)) & mask
        h ^= h >> np.uint64(16)
        out[i] = h
    return out


def uint32_keys(n):
    return (np.random.default_rng(150).integers(0, 2**32, n, dtype=np.uint32),)


def crc32_bytes(data):
    """Bitwise CRC-32 (the reflected 0xEDB88320 polynomial) of a uint8 buffer."""
    crc = np.uint32(0xFFFFFFFF)
    for i in range(data.shape[0]):
        crc ^= np.uint32(data[i])
        for _ in range(8):
            if crc & np.uint32(1):
                crc = (crc >> np.uint32(1)) ^ np.uint32(0xEDB88320)
            else:
                crc = crc >> np.uint32(1)
    return crc ^ np.uint32(0xFFFFFFFF)


def byte_buffer(n):
    return (np.random.default_rng(151).integers(0, 256, n).astype(np.uint8),)


def radix_sort_uint32(keys):
    """LSD radix sort, 8 bits a pass, with counting by hand."""
    a = keys.copy()
    b = np.empty_like(a)
    counts = np.empty(256, dtype=np.int64)
    for shift in range(0, 32, 8):
        counts[:] = 0
        for i in range(a.shape[0]):
            counts[(a[i] >> shift) & 0xFF] += 1
        total = 0
        for d in range(256):
            c = counts[d]
            counts[d] = total
            total += c
        for i in range(a.shape[0]):
            d = (a[i] >> shift) & 0xFF
            b[counts[d]] = a[i]
            counts[d] += 1
        a, b = b, a
    return a


# ------------------------------------------------------------------------------ token arrays


def ngram_bucket_counts(tokens, n_buckets):
    """Counts of token trigrams hashed into buckets (a polynomial rolling hash)."""
    counts = np.zeros(n_buckets, dtype=np.int64)
    for i in range(tokens.shape[0] - 2):
        h = (tokens[i] * 1000003 + tokens[i + 1]) * 1000003 + tokens[i + 2]
        counts[h % n_buckets] += 1
    return counts


def longest_equal_run(tokens):
    """The longest run of one repeated token, and the token."""
    best = 1
    best_token = tokens[0]
    run = 1
    for i in range(1, tokens.shape[0]):
        if tokens[i] == tokens[i - 1]:
            run += 1
            if run > best:
                best = run
                best_token = tokens[i]
        else:
            run = 1
    return best, best_token


def token_ids(n):
    return (np.random.default_rng(152).integers(0, 5, n),)


# ------------------------------------------------------------------------------ Monte Carlo


def gbm_terminal_mean(s0, mu, sigma, steps, paths):
    """The mean terminal value of geometric Brownian motion paths (np.random.normal)."""
    np.random.seed(153)
    dt = 1.0 / steps
    total = 0.0
    for _ in range(paths):
        s = s0
        for _ in range(steps):
            s += mu * s * dt + sigma * s * np.random.normal(0.0, math.sqrt(dt))
        total += s
    return total / paths


def sphere_rejection_mean_z(n):
    """Uniform points in the unit ball by rejection (np.random.random in a while loop); the
    mean of z squared (1/5 in the limit)."""
    np.random.seed(154)
    total = 0.0
    for _ in range(n):
        while True:
            x = 2.0 * np.random.random() - 1.0
            y = 2.0 * np.random.random() - 1.0
            z = 2.0 * np.random.random() - 1.0
            if x * x + y * y + z * z <= 1.0:
                break
        total += z * z
    return total / n


# ------------------------------------------------------------------------------ images


def orientation_histogram(img, n_bins):
    """A histogram of gradient orientations weighted by magnitude (as in HOG)."""
    n, m = img.shape
    hist = np.zeros(n_bins)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            gx = img[i, j + 1] - img[i, j - 1]
            gy = img[i + 1, j] - img[i - 1, j]
            angle = math.atan2(gy, gx) + math.pi
            k = int(angle * n_bins / (2.0 * math.pi))
            if k >= n_bins:
                k = n_bins - 1
            hist[k] += math.sqrt(gx * gx + gy * gy)
    return hist


def box_sum_queries(table, corners, size):
    """Sums of size x size boxes at many corners of an image, from its integral image."""
    out = np.empty(corners.shape[0])
    for k in range(corners.shape[0]):
        i = corners[k, 0]
        j = corners[k, 1]
        out[k] = table[i + size, j + size] - table[i, j + size] - table[i + size, j] + table[i, j]
    return out


def image_table_and_corners(n):
    rng = np.random.default_rng(155)
    side = 512
    table = np.zeros((side + 1, side + 1))
    table[1:, 1:] = rng.random((side, side)).cumsum(axis=0).cumsum(axis=1)
    return table, rng.integers(0, side - 16, (n, 2)), 16


CASES = [
    Case(viterbi_path, hidden_markov, 50, 50_000, "dynamic programming"),
    Case(dijkstra_dense, dense_graph, 30, 1500, "graphs"),
    Case(thomas_batch, tridiagonal_systems, 100, 500_000, "linear solvers"),
    Case(gauss_seidel, poisson_grid, 10, 400, "linear solvers", rtol=1e-8),
    Case(lu_solve_batch, dominant_matrices, 20, 50_000, "linear solvers", rtol=1e-8),
    Case(cic_deposit, charged_particles, 100, 500_000, "particles", rtol=1e-8),
    Case(bilinear_resize, small_image, 20, 1500, "images"),
    Case(nbody_float32, bodies32, 30, 1500, "float32", rtol=1e-3),
    Case(weighted_bincount, labels_and_weights, 100, 1_000_000, "counting", rtol=1e-8),
    Case(argsort_ranks, normal_series, 100, 300_000, "sorting"),
    Case(rolling_std, lambda n: (*normal_series(n), 50), 100, 1_000_000, "rolling", rtol=1e-6),
    Case(cumulative_max_highs, normal_series, 100, 2_000_000, "prefix sums"),
    Case(fmix32_hashes, uint32_keys, 100, 2_000_000, "bits"),
    Case(crc32_bytes, byte_buffer, 100, 300_000, "bits"),
    Case(radix_sort_uint32, uint32_keys, 100, 500_000, "sorting"),
    Case(ngram_bucket_counts, lambda n: (*token_ids(n), 4099), 100, 2_000_000, "token arrays"),
    Case(longest_equal_run, token_ids, 100, 2_000_000, "token arrays"),
    Case(
        gbm_terminal_mean,
        lambda n: (1.0, 0.05, 0.2, 50, n),
        4,
        20_000,
        "random",
        rtol=1e-8,
    ),
    Case(sphere_rejection_mean_z, lambda n: (n,), 100, 300_000, "random", rtol=1e-8),
    Case(orientation_histogram, lambda n: (*small_image(n)[:1], 9), 20, 1000, "images", rtol=1e-8),
    Case(box_sum_queries, image_table_and_corners, 100, 500_000, "gathers", rtol=1e-8),
]
