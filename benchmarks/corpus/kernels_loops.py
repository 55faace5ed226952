"""Corpus: explicit loops over arrays as users write them -- C, Fortran and strided 2-d/3-d
loops, row views passed to helpers, prefix sums, small allocations per iteration, float32 and
small-integer data, a 1-d convolution and Lennard-Jones forces."""

import math

import numpy as np
from _backend import njit
from _corpus import Case


def matrix(n, order="C", seed=0):
    return np.asarray(np.random.default_rng(seed).random((n, n)), order=order)


# ------------------------------------------------------------------------------ 2-d and 3-d


def matmul_loops(a, b):
    n, k = a.shape
    m = b.shape[1]
    c = np.zeros((n, m))
    for i in range(n):
        for p in range(k):
            aip = a[i, p]
            for j in range(m):
                c[i, j] += aip * b[p, j]
    return c


def fortran_column_sums(f):
    out = np.zeros(f.shape[1])
    for j in range(f.shape[1]):
        for i in range(f.shape[0]):
            out[j] += f[i, j]
    return out


def fortran_scale_c_order(f):
    out = np.empty_like(f)
    for i in range(f.shape[0]):
        for j in range(f.shape[1]):
            out[i, j] = 2.0 * f[i, j] + 1.0
    return out


def strided_sum(a):
    view = a[::2, ::3]
    s = 0.0
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            s += view[i, j]
    return s


def transpose_copy(a):
    n, m = a.shape
    out = np.empty((m, n))
    for i in range(n):
        for j in range(m):
            out[j, i] = a[i, j]
    return out


def jacobi_step(u):
    out = u.copy()
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    return out


def laplacian_3d(u):
    nx, ny, nz = u.shape
    out = np.zeros_like(u)
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                out[i, j, k] = (
                    u[i - 1, j, k]
                    + u[i + 1, j, k]
                    + u[i, j - 1, k]
                    + u[i, j + 1, k]
                    + u[i, j, k - 1]
                    + u[i, j, k + 1]
                    - 6.0 * u[i, j, k]
                )
    return out


def box_blur(img):
    h, w = img.shape
    out = np.zeros((h, w))
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            acc = 0.0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    acc += img[y + dy, x + dx]
            out[y, x] = acc / 9.0
    return out


def volume_fortran_sum(v):
    total = 0.0
    for k in range(v.shape[2]):
        for j in range(v.shape[1]):
            for i in range(v.shape[0]):
                total += v[i, j, k] * (i + 1)
    return total


def cube(n, order="C"):
    return (np.asarray(np.random.default_rng(1).random((n, n, n)), order=order),)


# ------------------------------------------------------------------------------ row views


@njit
def distance(p, q):
    d = 0.0
    for k in range(p.shape[0]):
        diff = p[k] - q[k]
        d += diff * diff
    return math.sqrt(d)


def pairwise_distances(points):
    n = points.shape[0]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = distance(points[i], points[j])
    return out


@njit
def norm(row):
    s = 0.0
    for v in row:
        s += v * v
    return math.sqrt(s)


def normalize_rows(m):
    out = np.empty_like(m)
    for i in range(m.shape[0]):
        row = m[i]
        out[i] = row / norm(row)
    return out


def closest_pair(points):
    best = np.inf
    for i in range(points.shape[0]):
        for j in range(i + 1, points.shape[0]):
            d = distance(points[i], points[j])
            if d < best:
                best = d
    return best


def points3(n, seed=2):
    return (np.random.default_rng(seed).random((n, 3)),)


# ------------------------------------------------------------------------------ prefix sums


def prefix_sum(a):
    out = np.empty_like(a)
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i]
        out[i] = acc
    return out


def moving_average(a, window):
    csum = np.zeros(a.shape[0] + 1)
    for i in range(a.shape[0]):
        csum[i + 1] = csum[i] + a[i]
    out = np.empty(a.shape[0] - window + 1)
    for i in range(out.shape[0]):
        out[i] = (csum[i + window] - csum[i]) / window
    return out


def integral_image(img):
    h, w = img.shape
    out = np.zeros((h + 1, w + 1))
    for y in range(h):
        row = 0.0
        for x in range(w):
            row += img[y, x]
            out[y + 1, x + 1] = out[y, x + 1] + row
    return out


# ------------------------------------------------------------------------------ small allocations


def centroid_offsets(points):
    total = 0.0
    for i in range(points.shape[0]):
        v = np.zeros(3)
        for k in range(3):
            v[k] = points[i, k] - 0.5
        total += v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
    return total


def cross_products(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        c = np.empty(3)
        c[0] = a[i, 1] * b[i, 2] - a[i, 2] * b[i, 1]
        c[1] = a[i, 2] * b[i, 0] - a[i, 0] * b[i, 2]
        c[2] = a[i, 0] * b[i, 1] - a[i, 1] * b[i, 0]
        out[i] = c
    return out


def arange_weights(n):
    total = 0.0
    for i in range(n):
        w = np.arange(8)
        total += w[i % 8] * 0.5
    return total


# ------------------------------------------------------------------------------ dtypes


def saxpy_float32(a, x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = a * x[i] + y[i]
    return out


def dot_float32(x, y):
    acc = np.float32(0.0)
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    return acc


def int8_total(a):
    total = 0
    for i in range(a.shape[0]):
        total += int(a[i])
    return total


def threshold_uint8(img, level):
    out = np.zeros_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            if img[i, j] > level:
                out[i, j] = 255
    return out


def int32_histogram(values, bins):
    counts = np.zeros(bins, dtype=np.int32)
    for v in values:
        counts[v % bins] += 1
    return counts


def float32_pair(n):
    rng = np.random.default_rng(3)
    return np.float32(1.5), rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)


def gray_image(n):
    return np.random.default_rng(4).integers(0, 256, (n, n), dtype=np.uint8), 128


# ---------------------------------------------------------------------------- column and row scans


def tall(n, columns):
    return np.random.default_rng(12).random((n, columns))


def column_ranges(m):
    total = 0.0
    for j in range(m.shape[1]):
        column = m[:, j]
        total += column.max() - column.min() + np.argmax(column)
    return total


def argmax_of_each_row(m):
    out = np.empty(m.shape[0], np.int64)
    for i in range(m.shape[0]):
        out[i] = np.argmax(m[i])
    return out


def grid_index_sum(m):
    total = 0.0
    for index in np.ndindex(m.shape):
        total += m[index]
    return total


# ------------------------------------------------------------------------------ physics


def bounce_particles(start, start_velocities, dt, steps):
    positions = start.copy()
    velocities = start_velocities.copy()
    for _ in range(steps):
        for i in range(positions.shape[0]):
            positions[i, 0] += velocities[i, 0] * dt
            positions[i, 1] += velocities[i, 1] * dt
            if positions[i, 0] < 0 or positions[i, 0] > 1:
                velocities[i, 0] = -velocities[i, 0]
            if positions[i, 1] < 0 or positions[i, 1] > 1:
                velocities[i, 1] = -velocities[i, 1]
    return positions


def particles(n):
    rng = np.random.default_rng(11)
    return rng.random((n, 2)), rng.random((n, 2)) - 0.5, 0.01, 20


def convolve_1d(x, h):
    n, k = x.shape[0], h.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        acc = 0.0
        for j in range(k):
            acc += x[i + j] * h[k - 1 - j]
        out[i] = acc
    return out


def lennard_jones(positions, epsilon, sigma):
    n = positions.shape[0]
    forces = np.zeros_like(positions)
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = positions[i, 0] - positions[j, 0]
            dy = positions[i, 1] - positions[j, 1]
            dz = positions[i, 2] - positions[j, 2]
            r2 = dx * dx + dy * dy + dz * dz
            sr6 = (sigma**2 / r2) ** 3
            energy += 4.0 * epsilon * (sr6**2 - sr6)
            f = 24.0 * epsilon * (2.0 * sr6**2 - sr6) / r2
            forces[i, 0] += f * dx
            forces[i, 1] += f * dy
            forces[i, 2] += f * dz
            forces[j, 0] -= f * dx
            forces[j, 1] -= f * dy
            forces[j, 2] -= f * dz
    return energy, forces


def lattice(n):
    side = round(n ** (1 / 3)) + 1
    grid = np.array([(i, j, k) for i in range(side) for j in range(side) for k in range(side)])
    jitter = np.random.default_rng(5).uniform(-0.1, 0.1, grid.shape)
    return (grid[:n] * 1.1 + jitter[:n], 1.0, 1.0)


CASES = [
    Case(matmul_loops, lambda n: (matrix(n), matrix(n, seed=1)), 8, 150, "2-d loops"),
    Case(fortran_column_sums, lambda n: (matrix(n, "F"),), 8, 1000, "2-d loops"),
    Case(fortran_scale_c_order, lambda n: (matrix(n, "F"),), 8, 600, "2-d loops"),
    Case(strided_sum, lambda n: (matrix(n),), 12, 2000, "2-d loops"),
    Case(transpose_copy, lambda n: (matrix(n),), 8, 1000, "2-d loops"),
    Case(jacobi_step, lambda n: (matrix(n),), 8, 1000, "2-d loops"),
    Case(box_blur, lambda n: (matrix(n),), 8, 600, "2-d loops"),
    Case(laplacian_3d, cube, 6, 100, "3-d loops"),
    Case(volume_fortran_sum, lambda n: cube(n, "F"), 6, 100, "3-d loops"),
    Case(pairwise_distances, points3, 10, 500, "row views"),
    Case(normalize_rows, lambda n: (matrix(n),), 8, 500, "row views"),
    Case(closest_pair, points3, 10, 1000, "row views"),
    Case(prefix_sum, lambda n: (matrix(n).ravel(),), 10, 1000, "prefix sums"),
    Case(moving_average, lambda n: (matrix(n).ravel(), 16), 10, 1000, "prefix sums"),
    Case(integral_image, lambda n: (matrix(n),), 8, 1000, "prefix sums"),
    Case(centroid_offsets, lambda n: points3(n), 10, 200_000, "small allocations"),
    Case(cross_products, lambda n: (*points3(n), *points3(n, 3)), 10, 200_000, "small allocations"),
    Case(arange_weights, lambda n: (n,), 100, 200_000, "small allocations"),
    Case(saxpy_float32, float32_pair, 100, 1_000_000, "float32", rtol=1e-6),
    Case(dot_float32, lambda n: float32_pair(n)[1:], 100, 1_000_000, "float32", rtol=1e-3),
    Case(
        int8_total,
        lambda n: (np.random.default_rng(6).integers(-128, 128, n, dtype=np.int8),),
        100,
        1_000_000,
        "int8",
    ),
    Case(threshold_uint8, gray_image, 10, 1000, "uint8"),
    Case(
        int32_histogram,
        lambda n: (np.random.default_rng(7).integers(0, 10**6, n, dtype=np.int32), 100),
        100,
        1_000_000,
        "int32",
    ),
    Case(
        convolve_1d,
        lambda n: (np.random.default_rng(8).random(n), np.hanning(31)),
        100,
        200_000,
        "convolution",
    ),
    Case(lennard_jones, lattice, 20, 400, "physics"),
    Case(bounce_particles, particles, 20, 2000, "physics"),
    Case(column_ranges, lambda n: (tall(n, 8),), 10, 20_000, "scans"),
    Case(argmax_of_each_row, lambda n: (tall(n, 40),), 50, 5000, "scans"),
    Case(grid_index_sum, lambda n: (matrix(n),), 8, 300, "scans"),
]
