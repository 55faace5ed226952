"""Corpus: arithmetic kernels as users write them -- powers, transcendental loops, integer `//`
and `%`, float/int conversions, complex numbers. Each kernel is a plain function; its `Case`
gives the input builder and the sizes (see _corpus.py)."""

import cmath
import math

import numpy as np
from _backend import njit
from _corpus import Case


def uniform(n, low=0.0, high=1.0, seed=0):
    return np.random.default_rng(seed).uniform(low, high, n)


def one_array(n):
    return (uniform(n, 0.1, 2.0),)


# ------------------------------------------------------------------------------ powers


def polynomial_powers(x):
    total = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        total += v**2 + 0.5 * v**3 - v**4
    return total


def cube_array(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] ** 3
    return out


def sixth_power_sum(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] ** 6
    return s


def sqrt_by_power(a):
    s = 0.0
    for v in a:
        s += v**0.5
    return s


def kepler_periods(semi_major_axes):
    periods = np.empty(semi_major_axes.shape[0])
    for i in range(semi_major_axes.shape[0]):
        periods[i] = 2.0 * math.pi * semi_major_axes[i] ** 1.5
    return periods


def harmonic_by_power(a):
    total = 0.0
    for i in range(a.size):
        total += a[i] ** -1
    return total


def power_n(a, n):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] ** n
    return acc


def integer_cubes(n):
    total = 0
    for i in range(n):
        total += (i % 1000) ** 3
    return total


def squared_distance(x, y):
    d = 0.0
    for i in range(x.shape[0]):
        d += (x[i] - y[i]) ** 2
    return math.sqrt(d)


def two_arrays(n):
    return uniform(n, -1.0, 1.0, 1), uniform(n, -1.0, 1.0, 2)


# ------------------------------------------------------------------------------ transcendental


def sin_cos_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * math.cos(x[i])
    return s


def softplus(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.log(1.0 + math.exp(-x[i]))
    return out


def scaled_sqrt(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.sqrt(a[i]) * 2.0
    return out


def gaussian_pdf(x, mu, sigma):
    out = np.empty_like(x)
    norm = 1.0 / (sigma * math.sqrt(2.0 * math.pi))
    for i in range(x.shape[0]):
        z = (x[i] - mu) / sigma
        out[i] = norm * math.exp(-0.5 * z * z)
    return out


def polar_angles(x, y):
    total = 0.0
    for i in range(x.shape[0]):
        total += math.atan2(y[i], x[i]) + math.hypot(x[i], y[i])
    return total


def trapezoid_sin(n):
    h = math.pi / n
    s = 0.5 * (math.sin(0.0) + math.sin(math.pi))
    for i in range(1, n):
        s += math.sin(i * h)
    return s * h


def tanh_layer(x, w):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = math.tanh(w * x[i]) + 0.1 * math.log1p(x[i] * x[i])
    return out


# ------------------------------------------------------------------------------ integers


def digit_sums(n):
    total = 0
    for i in range(n):
        k = i
        while k > 0:
            total += k % 10
            k //= 10
    return total


def modular_hash(n):
    acc = 0
    for i in range(n):
        acc += (i * 7919) % 1000
    return acc


def div_mod_by(n, d):
    q_sum = 0
    r_sum = 0
    for i in range(-n, n):
        q_sum += i // d
        r_sum += i % d
    return q_sum, r_sum


def gcd_table(n):
    total = 0
    for i in range(1, n):
        for j in range(1, n):
            a, b = i, j
            while b:
                a, b = b, a % b
            total += a
    return total


def collatz_longest(n):
    best = 0
    best_start = 1
    for start in range(1, n):
        k = start
        steps = 0
        while k != 1:
            if k % 2 == 0:
                k = k // 2
            else:
                k = 3 * k + 1
            steps += 1
        if steps > best:
            best = steps
            best_start = start
    return best_start, best


# ------------------------------------------------------------------------------ conversions


def to_uint8_image(a):
    out = np.empty(a.shape[0], dtype=np.uint8)
    for i in range(a.shape[0]):
        out[i] = int(a[i] * 255.0)
    return out


def quantize_into(a, out):
    for i in range(a.shape[0]):
        out[i] = int(a[i] * 255.0)
    return out


def percent_into(a, out):
    for i in range(a.shape[0]):
        out[i] = int(round(a[i] * 100.0))
    return out


def sqrt_into(a, out):
    for i in range(a.shape[0]):
        out[i] = math.sqrt(a[i]) * 2.0
    return out


def rounded_total(a):
    total = 0
    for i in range(a.shape[0]):
        total += int(round(a[i] * 100.0))
    return total


def floor_histogram(a, bins):
    counts = np.zeros(bins, dtype=np.int64)
    for i in range(a.shape[0]):
        k = int(math.floor(a[i] * bins))
        if k == bins:
            k -= 1
        counts[k] += 1
    return counts


def int_mean(values):
    s = 0.0
    for i in range(values.shape[0]):
        s += float(values[i]) / 3
    return s / values.shape[0]


def unit_interval(n):
    return (uniform(n, 0.0, 1.0, 3),)


def int_values(n):
    return (np.random.default_rng(4).integers(-1000, 1000, n),)


# ------------------------------------------------------------------------------ complex


@njit
def escape_time(c, max_iter):
    z = 0j
    for k in range(max_iter):
        z = z * z + c
        if z.real * z.real + z.imag * z.imag > 4.0:
            return k
    return max_iter


def mandelbrot(width, height, max_iter):
    image = np.zeros((height, width), dtype=np.int32)
    for row in range(height):
        for col in range(width):
            c = complex(-2.0 + 3.0 * col / width, -1.5 + 3.0 * row / height)
            image[row, col] = escape_time(c, max_iter)
    return image


def naive_dft(x):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.complex128)
    for k in range(n):
        acc = 0j
        for t in range(n):
            acc += x[t] * cmath.exp(-2j * cmath.pi * k * t / n)
        out[k] = acc
    return out


def complex_polynomial(z, coeffs):
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        acc = 0j
        for c in coeffs:
            acc = acc * z[i] + c
        out[i] = acc / (1.0 + abs(z[i]))
    return out


def complex_points(n):
    rng = np.random.default_rng(5)
    z = rng.normal(size=n) + 1j * rng.normal(size=n)
    return z, np.array([1.0 + 0j, -2.0 + 1j, 0.5j, 3.0, -1.0 - 1j])


CASES = [
    Case(polynomial_powers, one_array, 100, 1_000_000, "powers"),
    Case(cube_array, one_array, 100, 1_000_000, "powers"),
    Case(sixth_power_sum, one_array, 100, 1_000_000, "powers"),
    Case(sqrt_by_power, one_array, 100, 1_000_000, "powers"),
    Case(kepler_periods, one_array, 100, 1_000_000, "powers"),
    Case(harmonic_by_power, one_array, 100, 1_000_000, "powers"),
    Case(power_n, lambda n: (uniform(n, 0.5, 1.5), 5), 100, 1_000_000, "powers"),
    Case(integer_cubes, lambda n: (n,), 100, 1_000_000, "powers"),
    Case(squared_distance, two_arrays, 100, 1_000_000, "powers"),
    Case(sin_cos_sum, one_array, 100, 200_000, "transcendental"),
    Case(softplus, one_array, 100, 200_000, "transcendental"),
    Case(scaled_sqrt, one_array, 100, 1_000_000, "transcendental"),
    Case(gaussian_pdf, lambda n: (uniform(n, -3, 3), 0.5, 1.5), 100, 300_000, "transcendental"),
    Case(polar_angles, two_arrays, 100, 200_000, "transcendental"),
    Case(trapezoid_sin, lambda n: (n,), 100, 1_000_000, "transcendental"),
    Case(tanh_layer, lambda n: (uniform(n, -2, 2), 0.7), 100, 200_000, "transcendental"),
    Case(digit_sums, lambda n: (n,), 100, 300_000, "integers"),
    Case(modular_hash, lambda n: (n,), 100, 1_000_000, "integers"),
    Case(div_mod_by, lambda n: (n, 7), 100, 500_000, "integers"),
    Case(gcd_table, lambda n: (n,), 20, 300, "integers"),
    Case(collatz_longest, lambda n: (n,), 100, 30_000, "integers"),
    Case(to_uint8_image, unit_interval, 100, 1_000_000, "conversions"),
    Case(
        quantize_into,
        lambda n: (*unit_interval(n), np.empty(n, np.uint8)),
        100,
        1_000_000,
        "conversions",
    ),
    Case(
        percent_into,
        lambda n: (*unit_interval(n), np.empty(n, np.int32)),
        100,
        1_000_000,
        "conversions",
    ),
    Case(sqrt_into, lambda n: (*one_array(n), np.empty(n)), 100, 1_000_000, "conversions"),
    Case(rounded_total, unit_interval, 100, 1_000_000, "conversions"),
    Case(floor_histogram, lambda n: (*unit_interval(n), 64), 100, 1_000_000, "conversions"),
    Case(int_mean, int_values, 100, 1_000_000, "conversions"),
    Case(mandelbrot, lambda n: (n, n, 100), 16, 200, "complex"),
    Case(naive_dft, lambda n: (uniform(n, -1, 1),), 16, 300, "complex"),
    Case(complex_polynomial, complex_points, 100, 100_000, "complex"),
]
