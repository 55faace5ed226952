"""Python's `random` module in compiled code: seed, random, uniform, randint, randrange,
getrandbits, choice, shuffle and the float distributions, drawing exactly CPython's numbers.

The generator is CPython's: MT19937 seeded by init_by_array from the 32-bit words of abs(seed),
53-bit doubles, `_randbelow` by rejection on getrandbits, and each distribution's formula from
Lib/random.py. So `random.seed(s)` in compiled code, then draws, give the numbers the interpreter
gives after `random.seed(s)`. As in Numba, the compiled state is separate from the interpreter's
(and from np.random's): it lives in process-wide NumPy tables with a row per thread, as
np.random's (each Python thread and parallel worker draws from its own), is seeded from the OS at
import,
again in a forked child (as CPython's), and by `random.seed()` (through a ctypes callback).
The MT19937 core (twist, tempering, init_genrand) and the thread slots are np.random's.
"""

from __future__ import annotations

import ctypes
import math
import os
import random

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.random.legacy import (
    SLOTS,
    draw_double,
    draw_uint32,
    init_genrand,
    register_state_buffer,
    seed_rows_from_os,
    thread_slot,
)
from ember.library.numpy.random.thread_rows import register_tables
from ember.lowering.registry import lower_builtin
from ember.typing.overload import as_type
from ember.typing.signature import signature
from ember.typing.templates import registry

_N = 624
# The draw entry points inline into the caller (their error paths are out of line), as
# np.random's do: the thread's state row is then looked up once per loop, not once per draw
_INLINED = {"_llvm_inline": "always"}
_KEYS = np.zeros((SLOTS, _N), np.uint32)  # the MT19937 keys
_METAS = np.zeros((SLOTS, 2), np.int64)  # position in the key, "gauss's second value waits"
_GAUSSES = np.zeros((SLOTS, 1), np.float64)  # gauss's second value (CPython's gauss_next)

# CPython's constants, from the module that defines them
_TWOPI = random.TWOPI
_NV_MAGICCONST = random.NV_MAGICCONST
_LOG4 = random.LOG4
_SG_MAGICCONST = random.SG_MAGICCONST


def _seed_from_os() -> None:
    seed_rows_from_os(_KEYS, _METAS, _GAUSSES, slice(None))


register_tables(lambda rows: seed_rows_from_os(_KEYS, _METAS, _GAUSSES, rows))


def _seed_row_from_os(slot: int) -> None:
    seed_rows_from_os(_KEYS, _METAS, _GAUSSES, slice(slot, slot + 1))


_seed_from_os()
if hasattr(os, "register_at_fork"):  # a forked child draws its own numbers, as CPython's do
    os.register_at_fork(after_in_child=_seed_from_os)

# ---------------------------------------------------------------------------- state buffers


def state_key():
    """This thread's generator key (uint32[624]); compiled code only."""
    return _KEYS[0]


def state_meta():
    return _METAS[0]


def state_gauss():
    return _GAUSSES[0]


def reseed_from_os():
    """Seed this thread's state from os.urandom (random.seed() without a seed); compiled code
    only."""


_BUFFERS = {"state_key": _KEYS, "state_meta": _METAS, "state_gauss": _GAUSSES}
# A C function pointer compiled code calls with its thread slot (ctypes takes the GIL around
# the Python call)
_RESEED_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int64)(_seed_row_from_os)
_ADDRESSES = {name: buffer.ctypes.data for name, buffer in _BUFFERS.items()}
_ADDRESSES["reseed_from_os"] = ctypes.cast(_RESEED_CALLBACK, ctypes.c_void_p).value


def publish_symbol(symbol: str) -> str:
    """`ember.pyrandom.<state_key|state_meta|state_gauss|reseed_from_os>`: this process's state
    table or reseeding callback (cached code reaches the new process's by name). A bare name
    gets the prefix."""
    from ember.codegen.symbols import publish

    name = symbol.removeprefix("ember.pyrandom.")
    symbol = f"ember.pyrandom.{name}"
    publish(symbol, _ADDRESSES[name])
    return symbol


for _function in (state_key, state_meta, state_gauss):
    register_state_buffer(_function, _BUFFERS[_function.__name__], publish_symbol)


@registry.typer(reseed_from_os)
def _type_reseed(args, kws):
    return signature(types.none) if not args and not kws else None


@lower_builtin(reseed_from_os)
def _lower_reseed(context, builder, sig, args):
    symbol = publish_symbol("reseed_from_os")
    function = builder.module.globals.get(symbol)
    if function is None:
        callback_type = llvm.FunctionType(llvm.VoidType(), [llvm.IntType(64)])
        function = llvm.Function(builder.module, callback_type, symbol)
    builder.call(function, [thread_slot(builder)])
    return context.get_dummy_value(types.none)


# ---------------------------------------------------------------------------- the generator


@njit(**_INLINED)
def _next_uint32():
    return draw_uint32(state_key(), state_meta())


@njit(**_INLINED)
def _random():
    return draw_double(state_key(), state_meta())


@njit
def _init_by_array(key, low, high, length):
    """MT19937's init_by_array on the key words (low, high)[:length] (int64 arithmetic wraps;
    the low 32 bits are exact)."""
    init_genrand(key, 19650218)
    i = 1
    j = 0
    for _ in range(max(_N, length)):
        previous = np.int64(key[i - 1])
        word = low if j == 0 else high
        key[i] = ((np.int64(key[i]) ^ ((previous ^ (previous >> 30)) * 1664525)) + word + j) & (
            0xFFFFFFFF
        )
        i += 1
        j += 1
        if i >= _N:
            key[0] = key[_N - 1]
            i = 1
        if j >= length:
            j = 0
    for _ in range(_N - 1):
        previous = np.int64(key[i - 1])
        key[i] = ((np.int64(key[i]) ^ ((previous ^ (previous >> 30)) * 1566083941)) - i) & (
            0xFFFFFFFF
        )
        i += 1
        if i >= _N:
            key[0] = key[_N - 1]
            i = 1
    key[0] = 0x80000000


@njit(**_INLINED)
def _bits(k):
    """getrandbits(k) for 1 <= k <= 64 as an int64 (k = 64 wraps): the first word is the low
    one, as in CPython."""
    if k <= 32:
        return _next_uint32() >> (32 - k)
    low = _next_uint32()
    return ((_next_uint32() >> (64 - k)) << 32) | low


@njit(**_INLINED)
def _randbelow(n):
    """An int in [0, n) for n >= 1 (CPython's _randbelow_with_getrandbits)."""
    k = n.bit_length()
    r = _bits(k)
    while r >= n:
        r = _bits(k)
    return r


# ---------------------------------------------------------------------------- the API


def _is_int(typ) -> bool:
    return isinstance(types.unliteral(as_type(typ)), (types.Integer, types.Boolean))


def _is_number(typ) -> bool:
    return isinstance(types.unliteral(as_type(typ)), (types.Integer, types.Boolean, types.Float))


@njit
def _seed_magnitude(magnitude):
    """Seed from the 64 bits of abs(seed), in an int64 (CPython keys init_by_array with its
    32-bit words; masking drops the sign an arithmetic shift copies)."""
    low = magnitude & 0xFFFFFFFF
    high = (magnitude >> 32) & 0xFFFFFFFF
    _init_by_array(state_key(), low, high, 2 if high != 0 else 1)
    meta = state_meta()
    meta[0] = _N
    meta[1] = 0


def _seed_signed(a=None, version=2):
    n = np.int64(a)
    _seed_magnitude(-n if n < 0 else n)  # -2**63 too: its wrapped negation has 2**63's bits


def _seed_unsigned(a=None, version=2):
    _seed_magnitude(np.int64(a))  # the same 64 bits


def _seed_none(a=None, version=2):
    reseed_from_os()


@overload(random.seed)
def _select_seed(a=None, version=2):
    # `version` changes only how str and bytes seed: an integer's or None's seeding ignores it
    if not _is_int(version):
        return None
    a = types.unliteral(as_type(a))
    if isinstance(a, types.NoneType):
        return _seed_none
    if isinstance(a, types.Integer) and not a.signed:
        return _seed_unsigned
    return _seed_signed if _is_int(a) else None


@overload(random.random, jit_options=_INLINED)
def _select_random():
    return lambda: _random()


def _uniform(a, b):
    return a + (b - a) * _random()


@overload(random.uniform, jit_options=_INLINED)
def _select_uniform(a, b):
    return _uniform if _is_number(a) and _is_number(b) else None


def _getrandbits(k):
    if k < 0:
        raise ValueError("number of bits must be non-negative")
    if k > 64:  # the result would not fit the 64-bit integer compiled code returns
        raise OverflowError("getrandbits in compiled code draws at most 64 bits")
    if k == 0:
        return np.uint64(0)
    return np.uint64(_bits(k))


@overload(random.getrandbits)
def _select_getrandbits(k):
    return _getrandbits if _is_int(k) else None


def _randrange_below(start, stop=None, step=1):
    if step != 1:
        raise TypeError("Missing a non-None stop argument")
    if start > 0:
        return _randbelow(np.int64(start))
    raise ValueError("empty range for randrange()")


@njit(_llvm_inline="never")
def _empty_range(start, stop, width):
    """randrange's error for an empty range: out of line, so the entry points stay small enough
    to inline and the thread's state row is looked up once per loop, not once per draw."""
    raise ValueError(
        "empty range for randrange() (" + str(start) + ", " + str(stop) + ", " + str(width) + ")"
    )


def _randrange_between(start, stop=None, step=1):
    width = np.int64(stop) - np.int64(start)
    if width <= 0:
        _empty_range(np.int64(start), np.int64(stop), width)
    return start + _randbelow(width)


_randrange_between_jit = njit(_llvm_inline="always")(_randrange_between)


def _randrange_stepped(start, stop=None, step=1):
    if step == 1:
        return _randrange_between_jit(start, stop)
    width = np.int64(stop) - np.int64(start)
    if step > 0:
        n = (width + step - 1) // step
    elif step < 0:
        n = (width + step + 1) // step
    else:
        raise ValueError("zero step for randrange()")
    if n <= 0:
        raise ValueError("empty range for randrange()")
    return start + step * _randbelow(n)


@overload(random.randrange)
def _select_randrange(start, stop=None, step=1):
    # an omitted step and a passed one type alike: the implementations test its value
    if not (_is_int(start) and _is_int(step)):
        return None
    if isinstance(as_type(stop), types.NoneType):
        return _randrange_below
    return _randrange_stepped if _is_int(stop) else None


def _randint(a, b):
    return _randrange_between_jit(a, np.int64(b) + 1)


@overload(random.randint, jit_options=_INLINED)
def _select_randint(a, b):
    return _randint if _is_int(a) and _is_int(b) else None


def _choice(seq):
    n = len(seq)
    if n == 0:
        raise IndexError("Cannot choose from an empty sequence")
    return seq[_randbelow(n)]


@overload(random.choice)
def _select_choice(seq):
    seq = types.unliteral(as_type(seq))
    if isinstance(seq, types.Array) and seq.ndim >= 1:
        return _choice
    if isinstance(seq, (types.List, types.UniTuple, types.UnicodeType)):
        return _choice
    return None


def _shuffle(x):
    for i in range(len(x) - 1, 0, -1):
        j = _randbelow(i + 1)
        x[i], x[j] = x[j], x[i]


def _shuffle_rows(x):
    """The rows of an n-d array in CPython's order for a list of them (swapping copies: the
    interpreter's tuple swap of two row views would duplicate one)."""
    for i in range(len(x) - 1, 0, -1):
        j = _randbelow(i + 1)
        row = x[i].copy()
        x[i] = x[j]
        x[j] = row


@overload(random.shuffle)
def _select_shuffle(x):
    x = as_type(x)
    if isinstance(x, types.Array) and x.ndim >= 1:
        if x.readonly:
            raise TypingError("random.shuffle() cannot shuffle a read-only array in place")
        return _shuffle if x.ndim == 1 else _shuffle_rows
    return _shuffle if isinstance(x, types.List) else None


# ---------------------------------------------------------------------------- distributions


def _gauss(mu=0.0, sigma=1.0):
    meta = state_meta()
    if meta[1] != 0:
        meta[1] = 0
        z = state_gauss()[0]
    else:
        x2pi = _random() * _TWOPI
        g2rad = math.sqrt(-2.0 * math.log(1.0 - _random()))
        z = math.cos(x2pi) * g2rad
        state_gauss()[0] = math.sin(x2pi) * g2rad
        meta[1] = 1
    return mu + z * sigma


@overload(random.gauss)
def _select_gauss(mu=0.0, sigma=1.0):
    return _gauss if _is_number(mu) and _is_number(sigma) else None


@njit
def _standard_normal():
    """Kinderman and Monahan's ratio method (CPython's normalvariate with mu 0, sigma 1)."""
    while True:
        u1 = _random()
        u2 = 1.0 - _random()
        z = _NV_MAGICCONST * (u1 - 0.5) / u2
        if z * z / 4.0 <= -math.log(u2):
            return z


def _normalvariate(mu=0.0, sigma=1.0):
    return mu + _standard_normal() * sigma


@overload(random.normalvariate)
def _select_normalvariate(mu=0.0, sigma=1.0):
    return _normalvariate if _is_number(mu) and _is_number(sigma) else None


def _lognormvariate(mu, sigma):
    return math.exp(mu + _standard_normal() * sigma)


@overload(random.lognormvariate)
def _select_lognormvariate(mu, sigma):
    return _lognormvariate if _is_number(mu) and _is_number(sigma) else None


def _expovariate(lambd):
    return -math.log(1.0 - _random()) / lambd


@overload(random.expovariate)
def _select_expovariate(lambd):
    return _expovariate if _is_number(lambd) else None


def _paretovariate(alpha):
    return (1.0 - _random()) ** (-1.0 / alpha)


@overload(random.paretovariate)
def _select_paretovariate(alpha):
    return _paretovariate if _is_number(alpha) else None


def _weibullvariate(alpha, beta):
    return alpha * (-math.log(1.0 - _random())) ** (1.0 / beta)


@overload(random.weibullvariate)
def _select_weibullvariate(alpha, beta):
    return _weibullvariate if _is_number(alpha) and _is_number(beta) else None


def _triangular_mode(low=0.0, high=1.0, mode=None):
    u = _random()
    if high == low:  # CPython's ZeroDivisionError path
        return float(low)
    c = (mode - low) / (high - low)
    if u > c:
        u = 1.0 - u
        c = 1.0 - c
        low, high = high, low
    return low + (high - low) * math.sqrt(u * c)


def _triangular_middle(low=0.0, high=1.0, mode=None):
    u = _random()
    c = 0.5
    if u > c:
        u = 1.0 - u
        c = 1.0 - c
        low, high = high, low
    return low + (high - low) * math.sqrt(u * c)


@overload(random.triangular)
def _select_triangular(low=0.0, high=1.0, mode=None):
    if not (_is_number(low) and _is_number(high)):
        return None
    if isinstance(as_type(mode), types.NoneType):
        return _triangular_middle
    return _triangular_mode if _is_number(mode) else None


@njit
def _gamma(alpha, beta):
    if alpha <= 0.0 or beta <= 0.0:
        raise ValueError("gammavariate: alpha and beta must be > 0.0")
    if alpha > 1.0:
        # Cheng (1977), as CPython
        ainv = math.sqrt(2.0 * alpha - 1.0)
        bbb = alpha - _LOG4
        ccc = alpha + ainv
        while True:
            u1 = _random()
            if not 1e-7 < u1 < 0.9999999:
                continue
            u2 = 1.0 - _random()
            v = math.log(u1 / (1.0 - u1)) / ainv
            x = alpha * math.exp(v)
            z = u1 * u1 * u2
            r = bbb + ccc * v - x
            if r + _SG_MAGICCONST - 4.5 * z >= 0.0 or r >= math.log(z):
                return x * beta
    if alpha == 1.0:
        return -math.log(1.0 - _random()) * beta
    # alpha in (0, 1): algorithm GS of Kennedy and Gentle, as CPython
    while True:
        u = _random()
        b = (math.e + alpha) / math.e
        p = b * u
        if p <= 1.0:
            x = p ** (1.0 / alpha)
        else:
            x = -math.log((b - p) / alpha)
        u1 = _random()
        if p > 1.0:
            if u1 <= x ** (alpha - 1.0):
                return x * beta
        elif u1 <= math.exp(-x):
            return x * beta


def _gammavariate(alpha, beta):
    return _gamma(float(alpha), float(beta))


@overload(random.gammavariate)
def _select_gammavariate(alpha, beta):
    return _gammavariate if _is_number(alpha) and _is_number(beta) else None


def _betavariate(alpha, beta):
    y = _gamma(float(alpha), 1.0)
    if y != 0.0:
        return y / (y + _gamma(float(beta), 1.0))
    return 0.0


@overload(random.betavariate)
def _select_betavariate(alpha, beta):
    return _betavariate if _is_number(alpha) and _is_number(beta) else None


def _vonmisesvariate(mu, kappa):
    if kappa <= 1e-6:
        return _TWOPI * _random()
    s = 0.5 / kappa
    r = s + math.sqrt(1.0 + s * s)
    while True:
        u1 = _random()
        z = math.cos(math.pi * u1)
        d = z / (r + z)
        u2 = _random()
        if u2 < 1.0 - d * d or u2 <= (1.0 - d) * math.exp(d):
            break
    q = 1.0 / r
    f = (q + z) / (1.0 + q * z)
    if _random() > 0.5:
        return (mu + math.acos(f)) % _TWOPI
    return (mu - math.acos(f)) % _TWOPI


@overload(random.vonmisesvariate)
def _select_vonmisesvariate(mu, kappa):
    return _vonmisesvariate if _is_number(mu) and _is_number(kappa) else None
