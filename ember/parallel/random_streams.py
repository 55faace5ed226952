"""Independent random streams for `np.random` calls made parallel: the array is cut into chunks
of CHUNK items, each filled by its own MT19937 generator seeded with one draw of the serial
generator, so threads share no state and `np.random.seed(s)` still makes the results repeat
(for any number of threads). Arrays under two chunks, and the tail after the last full chunk,
are drawn from the serial generator as serial code draws them.
"""

from __future__ import annotations

import numpy as np

from ember.decorators import njit
from ember.library.numpy.random.legacy import _mask_above, _twist
from ember.library.numpy.random.legacy import temper as _temper

CHUNK = 1 << 15  # items per chunk: seeding a generator costs about 1500 draws' work
_N = 624


@njit
def full_chunks(n):
    """How many chunks to fill in parallel: none for fewer than two (the serial stream)."""
    return n // CHUNK if n >= 2 * CHUNK else 0


@njit
def chunk_seeds(count):
    """One 32-bit seed per chunk, drawn in order from the serial generator."""
    seeds = np.empty(count, np.int64)
    for c in range(count):
        seeds[c] = np.random.randint(0, 1 << 32)
    return seeds


@njit
def _seeded_key(seed):
    """MT19937's key after init_genrand(seed) (as np.random.seed(seed))."""
    key = np.empty(_N, np.uint32)
    value = seed & 0xFFFFFFFF
    for pos in range(_N):
        key[pos] = value
        value = (1812433253 * (value ^ (value >> 30)) + pos + 1) & 0xFFFFFFFF
    return key


@njit
def _refill(key, doubles):
    """The next 312 doubles in [0, 1) of the generator (one twist: 624 outputs, 53 bits
    from each pair, as NumPy's legacy random_sample)."""
    _twist(key)
    for j in range(_N // 2):
        a = _temper(np.int64(key[2 * j])) >> 5
        b = _temper(np.int64(key[2 * j + 1])) >> 6
        doubles[j] = (a * 67108864.0 + b) / 9007199254740992.0


@njit
def uniform_chunk(out, low, high, seed):
    """Fill `out` with low + (high - low) * U[0, 1) from a generator seeded with `seed`."""
    key = _seeded_key(seed)
    doubles = np.empty(_N // 2)
    n = out.shape[0]
    for start in range(0, n, _N // 2):
        _refill(key, doubles)
        for j in range(min(_N // 2, n - start)):
            out[start + j] = low + (high - low) * doubles[j]


@njit
def normal_chunk(out, loc, scale, seed):
    """Fill `out` with loc + scale * N(0, 1) by the polar method, both values of each pair
    used in order (as NumPy's legacy generator gives them)."""
    key = _seeded_key(seed)
    doubles = np.empty(_N // 2)
    used = _N // 2
    n = out.shape[0]
    i = 0
    while i < n:
        r2 = 0.0
        x1 = x2 = 0.0
        while r2 >= 1.0 or r2 == 0.0:
            if used == _N // 2:  # all 312 used (they go in pairs)
                _refill(key, doubles)
                used = 0
            x1 = 2.0 * doubles[used] - 1.0
            x2 = 2.0 * doubles[used + 1] - 1.0
            used += 2
            r2 = x1 * x1 + x2 * x2
        f = np.sqrt(-2.0 * np.log(r2) / r2)
        out[i] = loc + scale * (f * x2)
        if i + 1 < n:
            out[i + 1] = loc + scale * (f * x1)
        i += 2


@njit
def uniform_serial(out, low, high):
    """Fill `out` from the serial generator, item by item as np.random.uniform(low, high, n)."""
    for i in range(out.shape[0]):
        out[i] = np.random.uniform(low, high)


@njit
def normal_serial(out, loc, scale):
    for i in range(out.shape[0]):
        out[i] = np.random.normal(loc, scale)


@njit
def exponential_chunk(out, scale, unused, seed):
    """Fill `out` with scale * -log(1 - U[0, 1)) (NumPy's legacy exponential)."""
    uniform_chunk(out, 0.0, 1.0, seed)
    for i in range(out.shape[0]):
        out[i] = scale * -np.log(1.0 - out[i])


@njit
def exponential_serial(out, scale, unused):
    for i in range(out.shape[0]):
        out[i] = np.random.exponential(scale)


@njit
def lognormal_chunk(out, mean, sigma, seed):
    """Fill `out` with exp(mean + sigma * N(0, 1)), the normals as normal_chunk draws them."""
    normal_chunk(out, 0.0, 1.0, seed)
    for i in range(out.shape[0]):
        out[i] = np.exp(mean + sigma * out[i])


@njit
def lognormal_serial(out, mean, sigma):
    for i in range(out.shape[0]):
        out[i] = np.random.lognormal(mean, sigma)


@njit
def randint_chunk(out, low, high, seed):
    """Fill `out` with integers in [low, high) by NumPy's legacy masked rejection (one 32-bit
    output per draw, two above 2**32), from a generator seeded with `seed`."""
    key = _seeded_key(seed)
    span = np.uint64(high - low - 1)
    mask = _mask_above(span)
    wide = span > 0xFFFFFFFF
    pos = _N  # the first draw twists the seeded key
    for i in range(out.shape[0]):
        value = np.uint64(0)
        while span != 0:
            if pos == _N:
                _twist(key)
                pos = 0
            value = np.uint64(_temper(np.int64(key[pos])))
            pos += 1
            if wide:
                if pos == _N:
                    _twist(key)
                    pos = 0
                value = (value << 32) | np.uint64(_temper(np.int64(key[pos])))
                pos += 1
            value &= mask
            if value <= span:
                break
        out[i] = low + np.int64(value)


@njit
def randint_serial(out, low, high):
    for i in range(out.shape[0]):
        out[i] = np.random.randint(low, high)


@njit
def no_check(a, b):
    """The argument check of uniform and normal draws: none."""


@njit
def check_scale(scale, unused):
    if scale < 0:
        raise ValueError("scale < 0")


@njit
def check_sigma(mean, sigma):
    if sigma < 0:
        raise ValueError("sigma < 0")


@njit
def check_bounds(low, high):
    if high <= low:
        raise ValueError("low >= high")
