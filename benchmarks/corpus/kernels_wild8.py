"""Corpus: an eighth batch of kernels in the style of public Numba examples, in areas the
corpus covered thinly -- ray-casting point-in-polygon tests, int8 quantized matrix-vector
products, structured (record) arrays of particles, sets and lists as work stacks, words of a
`str`, complex64 fields, trilinear interpolation and a float32 3-d diffusion stencil, int32
Manhattan distances, softmax cross-entropy, a spring chain by velocity Verlet with a tuple
helper, trial-division factor counts, leaky integrate-and-fire neurons, matrix-chain order,
edit distance of two `str`, Cholesky solves of small batches, and an M/M/1 queue driven by
np.random.exponential."""

import math

import numpy as np
from _backend import njit
from _corpus import Case

# ------------------------------------------------------------------------------ geometry


def points_in_polygon(px, py, vx, vy):
    """Ray casting: how many points lie inside the polygon (vertices vx, vy)."""
    n = vx.shape[0]
    inside_count = 0
    for k in range(px.shape[0]):
        x = px[k]
        y = py[k]
        inside = False
        j = n - 1
        for i in range(n):
            if (vy[i] > y) != (vy[j] > y):
                cross = (vx[j] - vx[i]) * (y - vy[i]) / (vy[j] - vy[i]) + vx[i]
                if x < cross:
                    inside = not inside
            j = i
        if inside:
            inside_count += 1
    return inside_count


def star_polygon(n):
    rng = np.random.default_rng(801)
    angles = np.linspace(0.0, 2.0 * np.pi, 24, endpoint=False)
    radii = np.where(np.arange(24) % 2 == 0, 1.0, 0.45)
    return (
        rng.uniform(-1.0, 1.0, n),
        rng.uniform(-1.0, 1.0, n),
        radii * np.cos(angles),
        radii * np.sin(angles),
    )


def trilinear_sample(grid, xs, ys, zs):
    """Trilinear interpolation of a 3-d grid at points given in grid units."""
    nx, ny, nz = grid.shape
    out = np.empty(xs.shape[0])
    for p in range(xs.shape[0]):
        x = min(max(xs[p], 0.0), nx - 1.000001)
        y = min(max(ys[p], 0.0), ny - 1.000001)
        z = min(max(zs[p], 0.0), nz - 1.000001)
        i = int(x)
        j = int(y)
        k = int(z)
        fx = x - i
        fy = y - j
        fz = z - k
        c00 = grid[i, j, k] * (1 - fx) + grid[i + 1, j, k] * fx
        c01 = grid[i, j, k + 1] * (1 - fx) + grid[i + 1, j, k + 1] * fx
        c10 = grid[i, j + 1, k] * (1 - fx) + grid[i + 1, j + 1, k] * fx
        c11 = grid[i, j + 1, k + 1] * (1 - fx) + grid[i + 1, j + 1, k + 1] * fx
        c0 = c00 * (1 - fy) + c10 * fy
        c1 = c01 * (1 - fy) + c11 * fy
        out[p] = c0 * (1 - fz) + c1 * fz
    return out


def grid_and_points(n):
    rng = np.random.default_rng(802)
    grid = rng.random((32, 32, 32))
    return grid, rng.uniform(-1, 33, n), rng.uniform(-1, 33, n), rng.uniform(-1, 33, n)


def diffusion_3d_float32(u, steps):
    """Explicit 7-point diffusion on a float32 cube, fixed boundary, two swapped buffers."""
    a = u.copy()
    b = u.copy()
    n0, n1, n2 = a.shape
    r = np.float32(0.1)
    for _ in range(steps):
        for i in range(1, n0 - 1):
            for j in range(1, n1 - 1):
                for k in range(1, n2 - 1):
                    lap = (
                        a[i - 1, j, k] + a[i + 1, j, k] + a[i, j - 1, k] + a[i, j + 1, k]
                        + a[i, j, k - 1] + a[i, j, k + 1] - np.float32(6.0) * a[i, j, k]
                    )  # fmt: skip
                    b[i, j, k] = a[i, j, k] + r * lap
        a, b = b, a
    return a


def cube32(n):
    return np.random.default_rng(803).random((n, n, n)).astype(np.float32), 4


# ------------------------------------------------------------------------ integer kernels


def quantized_matvec(weights, x, scale):
    """int8 weights times an int8 vector, accumulated in int32, dequantized to float32."""
    rows, cols = weights.shape
    out = np.empty(rows, dtype=np.float32)
    for r in range(rows):
        acc = np.int32(0)
        for c in range(cols):
            acc += np.int32(weights[r, c]) * np.int32(x[c])
        out[r] = np.float32(acc) * scale
    return out


def int8_layer(n):
    rng = np.random.default_rng(804)
    return (
        rng.integers(-127, 128, (n, 256)).astype(np.int8),
        rng.integers(-127, 128, 256).astype(np.int8),
        np.float32(0.002),
    )


def manhattan_nearest_int32(points, queries):
    """For each query, the smallest Manhattan distance to any point (int32 coordinates)."""
    best_total = 0
    for q in range(queries.shape[0]):
        best = 2**31 - 1
        for p in range(points.shape[0]):
            d = abs(points[p, 0] - queries[q, 0]) + abs(points[p, 1] - queries[q, 1])
            if d < best:
                best = d
        best_total += best
    return best_total


def int32_points(n):
    rng = np.random.default_rng(805)
    return (
        rng.integers(0, 10_000, (n, 2)).astype(np.int32),
        rng.integers(0, 10_000, (200, 2)).astype(np.int32),
    )


def prime_factor_counts(n):
    """Number of prime factors (with multiplicity) of every integer below n, by trial division."""
    out = np.zeros(n, dtype=np.int64)
    for v in range(2, n):
        m = v
        count = 0
        d = 2
        while d * d <= m:
            while m % d == 0:
                m //= d
                count += 1
            d += 1
        if m > 1:
            count += 1
        out[v] = count
    return out


def matrix_chain_cost(dims):
    """Fewest scalar multiplications to multiply a chain of matrices (dims[i] x dims[i+1])."""
    n = dims.shape[0] - 1
    cost = np.zeros((n, n), dtype=np.int64)
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            best = -1
            for k in range(i, j):
                c = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if best < 0 or c < best:
                    best = c
            cost[i, j] = best
    return cost[0, n - 1]


def chain_dims(n):
    return (np.random.default_rng(806).integers(5, 100, n + 1),)


# ---------------------------------------------------------------------- records and sets


def record_kinetic_energy(particles):
    """Total kinetic energy of particles in a structured array, and the fastest one's index."""
    total = 0.0
    fastest = -1
    top = -1.0
    for i in range(particles.shape[0]):
        p = particles[i]
        v2 = p["vx"] * p["vx"] + p["vy"] * p["vy"] + p["vz"] * p["vz"]
        total += 0.5 * p["mass"] * v2
        if v2 > top:
            top = v2
            fastest = i
    return total, fastest


PARTICLE = np.dtype(
    [("mass", np.float64), ("vx", np.float64), ("vy", np.float64), ("vz", np.float64)]
)


def particle_records(n):
    rng = np.random.default_rng(807)
    particles = np.zeros(n, dtype=PARTICLE)
    particles["mass"] = rng.uniform(0.5, 2.0, n)
    for name in ("vx", "vy", "vz"):
        particles[name] = rng.standard_normal(n)
    return (particles,)


def distinct_pair_sums(a):
    """How many distinct values a[i] + a[i + 1] takes (a set of ints)."""
    seen = set()
    for i in range(a.shape[0] - 1):
        seen.add(a[i] + a[i + 1])
    return len(seen)


def clustered_ints(n):
    return (np.random.default_rng(808).integers(0, 5_000, n),)


def reachable_by_stack(indptr, indices, start):
    """Depth-first search with a list as the stack: how many nodes are reachable."""
    n = indptr.shape[0] - 1
    visited = np.zeros(n, dtype=np.bool_)
    stack = [start]
    count = 0
    while len(stack) > 0:
        node = stack.pop()
        if visited[node]:
            continue
        visited[node] = True
        count += 1
        for e in range(indptr[node], indptr[node + 1]):
            nxt = indices[e]
            if not visited[nxt]:
                stack.append(nxt)
    return count


def sparse_graph(n):
    rng = np.random.default_rng(809)
    degrees = rng.integers(1, 5, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(degrees)
    return indptr, rng.integers(0, n, indptr[-1]), 0


# --------------------------------------------------------------------------------- strings


def word_length_histogram(text):
    """Histogram of word lengths (words split on spaces) in a str, capped at 15."""
    counts = np.zeros(16, dtype=np.int64)
    length = 0
    for ch in text:
        if ch == " ":
            if length > 0:
                counts[min(length, 15)] += 1
            length = 0
        else:
            length += 1
    if length > 0:
        counts[min(length, 15)] += 1
    return counts


def sentence_text(n):
    rng = np.random.default_rng(810)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, k)) for k in rng.integers(1, 12, n // 6 + 1)]
    return (" ".join(words),)


def edit_distance_str(s, t):
    """Levenshtein distance of two str, two rows of an int array."""
    m = len(t)
    previous = np.arange(m + 1)
    current = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, len(s) + 1):
        current[0] = i
        si = s[i - 1]
        for j in range(1, m + 1):
            cost = 0 if si == t[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        previous, current = current, previous
    return previous[m]


def two_strings(n):
    rng = np.random.default_rng(811)
    letters = np.array(list("acgt"))
    return "".join(rng.choice(letters, n)), "".join(rng.choice(letters, n))


# ------------------------------------------------------------------------- complex, ML


def complex64_field_energy(field, k):
    """Energy of a complex64 field after a phase ramp exp(i k x) (complex64 arithmetic)."""
    n = field.shape[0]
    total = np.float32(0.0)
    step = np.complex64(complex(math.cos(k), math.sin(k)))
    phase = np.complex64(1.0)
    for i in range(n):
        z = field[i] * phase
        total += z.real * z.real + np.float32(0.5) * z.imag * z.imag
        phase *= step
    return total


def complex64_field(n):
    rng = np.random.default_rng(812)
    field = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    return field, 0.01


def softmax_cross_entropy(logits, labels):
    """Mean cross-entropy of rows of logits against integer labels (max subtracted)."""
    rows, classes = logits.shape
    total = 0.0
    for r in range(rows):
        top = logits[r, 0]
        for c in range(1, classes):
            if logits[r, c] > top:
                top = logits[r, c]
        s = 0.0
        for c in range(classes):
            s += math.exp(logits[r, c] - top)
        total += math.log(s) + top - logits[r, labels[r]]
    return total / rows


def logits_and_labels(n):
    rng = np.random.default_rng(813)
    return rng.standard_normal((n, 10)) * 3.0, rng.integers(0, 10, n)


def leaky_integrate_fire(currents, dt, tau, threshold):
    """Leaky integrate-and-fire neurons driven by currents[t, n]: spike counts per neuron."""
    steps, neurons = currents.shape
    v = np.zeros(neurons)
    spikes = np.zeros(neurons, dtype=np.int64)
    decay = math.exp(-dt / tau)
    for t in range(steps):
        for n in range(neurons):
            v[n] = v[n] * decay + currents[t, n] * dt
            if v[n] >= threshold:
                spikes[n] += 1
                v[n] = 0.0
    return spikes


def input_currents(n):
    return np.random.default_rng(814).uniform(0.0, 3.0, (n, 100)), 0.1, 2.0, 1.0


# --------------------------------------------------------------------- physics, solvers


@njit
def _spring_forces(x_left, x, x_right, k):
    """Forces on a chain node from its two neighbours, and the stored energy of the left
    spring."""
    stretch = x - x_left - 1.0
    force = k * (x_right - x - 1.0) - k * stretch
    return force, 0.5 * k * stretch * stretch


def spring_chain_verlet(x0, steps, dt):
    """A chain of unit masses joined by springs (rest length 1), ends fixed: velocity Verlet,
    returns the final potential energy."""
    n = x0.shape[0]
    x = x0.copy()
    v = np.zeros(n)
    a = np.zeros(n)
    energy = 0.0
    for _ in range(steps):
        energy = 0.0
        for i in range(1, n - 1):
            f, e = _spring_forces(x[i - 1], x[i], x[i + 1], 4.0)
            a[i] = f
            energy += e
        for i in range(1, n - 1):
            v[i] += a[i] * dt
            x[i] += v[i] * dt
    return energy


def chain_positions(n):
    rng = np.random.default_rng(815)
    return np.arange(float(n)) + rng.uniform(-0.1, 0.1, n), 20, 0.01


def cholesky_solve_batch(mats, rhs):
    """Solve each small SPD system by a hand-written Cholesky factorization and two
    triangular solves; returns the solutions."""
    batch, n, _ = mats.shape
    out = np.empty((batch, n))
    low = np.zeros((n, n))
    y = np.empty(n)
    for b in range(batch):
        for i in range(n):
            for j in range(i + 1):
                s = mats[b, i, j]
                for k in range(j):
                    s -= low[i, k] * low[j, k]
                if i == j:
                    low[i, i] = math.sqrt(s)
                else:
                    low[i, j] = s / low[j, j]
        for i in range(n):
            s = rhs[b, i]
            for k in range(i):
                s -= low[i, k] * y[k]
            y[i] = s / low[i, i]
        for i in range(n - 1, -1, -1):
            s = y[i]
            for k in range(i + 1, n):
                s -= low[k, i] * out[b, k]
            out[b, i] = s / low[i, i]
    return out


def spd_systems(n):
    rng = np.random.default_rng(816)
    m = rng.standard_normal((n, 5, 5))
    mats = np.einsum("bij,bkj->bik", m, m) + 5.0 * np.eye(5)
    return mats, rng.standard_normal((n, 5))


def mm1_mean_wait(arrivals, service_rate, seed):
    """Mean waiting time of an M/M/1 queue by Lindley's recursion, exponential service."""
    np.random.seed(seed)
    wait = 0.0
    total = 0.0
    for i in range(1, arrivals.shape[0]):
        service = np.random.exponential(1.0 / service_rate)
        gap = arrivals[i] - arrivals[i - 1]
        wait = max(0.0, wait + service - gap)
        total += wait
    return total / arrivals.shape[0]


def arrival_times(n):
    return np.cumsum(np.random.default_rng(817).exponential(1.0, n)), 1.25, 7


# --------------------------------------------------------------- more library and modulo


def periodic_wrap_positions(x, v, box, steps, dt):
    """Particles moving in a periodic box: positions wrapped by float `%` each step."""
    pos = x.copy()
    for _ in range(steps):
        for i in range(pos.shape[0]):
            pos[i] = (pos[i] + v[i] * dt) % box
    return pos


def box_particles(n):
    rng = np.random.default_rng(818)
    return rng.uniform(0.0, 10.0, n), rng.standard_normal(n) * 5.0, 10.0, 10, 0.1


def poisson_log_likelihood(counts, rates):
    """Log-likelihood of Poisson counts: k log(lam) - lam - lgamma(k + 1)."""
    total = 0.0
    for i in range(counts.shape[0]):
        k = counts[i]
        lam = rates[i]
        total += k * math.log(lam) - lam - math.lgamma(k + 1.0)
    return total


def counts_and_rates(n):
    rng = np.random.default_rng(819)
    rates = rng.uniform(0.5, 20.0, n)
    return rng.poisson(rates).astype(np.float64), rates


def spatial_hash_counts(xs, ys, cell):
    """Points per occupied grid cell in a dict keyed by (ix, iy); returns the largest count
    and the number of occupied cells."""
    counts = {}
    for i in range(xs.shape[0]):
        key = (int(math.floor(xs[i] / cell)), int(math.floor(ys[i] / cell)))
        if key in counts:
            counts[key] += 1
        else:
            counts[key] = 1
    largest = 0
    for v in counts.values():
        if v > largest:
            largest = v
    return largest, len(counts)


def scattered_points(n):
    rng = np.random.default_rng(820)
    return rng.standard_normal(n) * 30.0, rng.standard_normal(n) * 30.0, 1.5


def window_sum_slices(x, width):
    """Largest mean over windows of `width`, each summed with np.sum of a slice."""
    best = -np.inf
    for i in range(x.shape[0] - width + 1):
        m = np.sum(x[i : i + width]) / width
        if m > best:
            best = m
    return best


def series_and_width(n):
    return np.random.default_rng(821).standard_normal(n), 16


def polar_bins(xs, ys, rings, sectors, radius):
    """Histogram of points over (ring, sector) bins of a disc, by hypot and atan2."""
    hist = np.zeros((rings, sectors), dtype=np.int64)
    for i in range(xs.shape[0]):
        r = math.hypot(xs[i], ys[i])
        if r >= radius:
            continue
        theta = math.atan2(ys[i], xs[i]) + math.pi
        ring = int(r / radius * rings)
        sector = min(int(theta / (2.0 * math.pi) * sectors), sectors - 1)
        hist[ring, sector] += 1
    return hist


def disc_points(n):
    rng = np.random.default_rng(822)
    return rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n), 8, 16, 1.0


def rounded_invoice_total(prices, quantities, tax):
    """Line totals rounded to cents with round(x, 2), then the taxed total rounded."""
    total = 0.0
    for i in range(prices.shape[0]):
        total += round(prices[i] * quantities[i], 2)
    return round(total * (1.0 + tax), 2)


def invoice_lines(n):
    rng = np.random.default_rng(823)
    return np.round(rng.uniform(0.5, 99.0, n), 2), rng.integers(1, 20, n), 0.0825


def lorentzian_profile(x, center, width):
    """A Lorentzian (Cauchy) line shape evaluated on a grid."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = 1.0 / (1.0 + ((x[i] - center) / width) ** 2)
    return out


def line_grid(n):
    return np.linspace(-50.0, 50.0, n), 1.5, 0.8


CASES = [
    Case(points_in_polygon, star_polygon, 100, 100_000, "geometry"),
    Case(trilinear_sample, grid_and_points, 100, 500_000, "3-d loops", rtol=1e-8),
    Case(diffusion_3d_float32, cube32, 8, 64, "float32 stencils", rtol=1e-4),
    Case(quantized_matvec, int8_layer, 20, 4_000, "int8"),
    Case(manhattan_nearest_int32, int32_points, 50, 5_000, "int32"),
    Case(prime_factor_counts, lambda n: (n,), 100, 100_000, "integers"),
    Case(matrix_chain_cost, chain_dims, 10, 200, "dynamic programming"),
    Case(record_kinetic_energy, particle_records, 100, 1_000_000, "records", rtol=1e-8),
    Case(distinct_pair_sums, clustered_ints, 100, 200_000, "sets"),
    Case(reachable_by_stack, sparse_graph, 100, 200_000, "lists"),
    Case(word_length_histogram, sentence_text, 200, 500_000, "strings"),
    Case(edit_distance_str, two_strings, 30, 1_000, "strings"),
    Case(complex64_field_energy, complex64_field, 100, 1_000_000, "complex", rtol=1e-3),
    Case(softmax_cross_entropy, logits_and_labels, 50, 200_000, "transcendental", rtol=1e-8),
    Case(leaky_integrate_fire, input_currents, 20, 5_000, "simulation"),
    Case(spring_chain_verlet, chain_positions, 20, 2_000, "helpers", rtol=1e-6),
    Case(cholesky_solve_batch, spd_systems, 20, 50_000, "linear solvers", rtol=1e-8),
    Case(mm1_mean_wait, arrival_times, 100, 500_000, "random", rtol=1e-8),
    Case(periodic_wrap_positions, box_particles, 100, 200_000, "modulo", rtol=1e-8),
    Case(poisson_log_likelihood, counts_and_rates, 100, 1_000_000, "transcendental", rtol=1e-8),
    Case(spatial_hash_counts, scattered_points, 100, 200_000, "typed containers"),
    Case(window_sum_slices, series_and_width, 100, 500_000, "slices", rtol=1e-8),
    Case(polar_bins, disc_points, 100, 1_000_000, "histograms"),
    Case(rounded_invoice_total, invoice_lines, 100, 500_000, "conversions", rtol=1e-12),
    Case(lorentzian_profile, line_grid, 100, 1_000_000, "powers", rtol=1e-12),
]
