"""np.random in compiled code: seed, random/random_sample/ranf/sample, rand, randn,
standard_normal, uniform, normal, randint and random_integers, on ember's own generator state.

The generator is NumPy's legacy one (RandomState): MT19937 with NumPy's integer seeding, 53-bit
doubles, the polar Box-Muller method for normals (caching the second value) and masked rejection
for bounded integers. So `np.random.seed(s)` in compiled code, then draws, give the numbers
NumPy's global RandomState gives after `np.random.seed(s)`; the two states are separate, as
in Numba. The state lives in process-wide NumPy tables with one row per thread (see
thread_rows.py) that compiled code reaches directly: the main thread's row 0 and the workers'
rows are seeded from the OS at import (all again in a forked child), another Python thread's
when it first draws. Still shared: rows by the inner teams of nested regions under the
workqueue layer (worker t of every team draws from row t).
"""

from __future__ import annotations

import functools
import os

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.codegen.symbols import external_global
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.random.thread_rows import ROWS, register_tables, thread_row
from ember.library.numpy.support import NUMPY_ERRORS, as_type
from ember.lowering import arrays as arr
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature
from ember.typing.templates import registry

_N = 624
# A draw's entry point is inlined into the caller (its slow paths, OUT_OF_LINE, are not), so
# the lookup of the thread's state row it makes is hoisted out of the caller's loop
INLINED_DRAW = {**NUMPY_ERRORS, "_llvm_inline": "always"}
OUT_OF_LINE = {**NUMPY_ERRORS, "_llvm_inline": "never"}
# One row per thread (thread_rows.py); a constant size, so cached code indexes tables of the same
# size in every process
SLOTS = ROWS
_KEYS = np.zeros((SLOTS, _N), np.uint32)  # the MT19937 keys
_METAS = np.zeros((SLOTS, 2), np.int64)  # position in the key, "a cached normal is waiting"
_GAUSSES = np.zeros((SLOTS, 1), np.float64)  # the cached normal
_KEY, _META, _GAUSS = _KEYS[0], _METAS[0], _GAUSSES[0]  # code outside parallel regions


def _seed_python(seed: int) -> None:
    value = seed & 0xFFFFFFFF
    for pos in range(_N):
        _KEY[pos] = value
        value = (1812433253 * (value ^ (value >> 30)) + pos + 1) & 0xFFFFFFFF
    _META[:] = (_N, 0)
    _GAUSS[0] = 0.0


def seed_rows_from_os(keys: np.ndarray, metas: np.ndarray, gausses: np.ndarray, rows: slice):
    """Seed `rows` of state tables with words from os.urandom (the top bit of each key's first
    word set, as init_by_array leaves it: never an all-zero state)."""
    count = len(range(*rows.indices(keys.shape[0])))
    keys[rows] = np.frombuffer(os.urandom(4 * _N * count), np.uint32).reshape(count, _N)
    keys[rows, 0] = 0x80000000
    metas[rows] = (_N, 0)
    gausses[rows] = 0.0


def _seed_workers_from_os() -> None:
    seed_rows_from_os(_KEYS, _METAS, _GAUSSES, slice(1, None))


def _seed_all_from_os() -> None:
    seed_rows_from_os(_KEYS, _METAS, _GAUSSES, slice(None))


register_tables(lambda rows: seed_rows_from_os(_KEYS, _METAS, _GAUSSES, rows))


_seed_python(int.from_bytes(os.urandom(4), "little"))
_seed_workers_from_os()
if hasattr(os, "register_at_fork"):  # a forked child draws its own numbers (as Numba's do)
    os.register_at_fork(after_in_child=_seed_all_from_os)

# ---------------------------------------------------------------------------- state buffers


def mt_key():
    """This thread's generator key (uint32[624]); compiled code only."""
    return _KEY


def mt_meta():
    return _META


def mt_gauss():
    return _GAUSS


_BUFFERS = {mt_key: _KEYS, mt_meta: _METAS, mt_gauss: _GAUSSES}


def thread_slot(builder: llvm.IRBuilder) -> llvm.Value:
    """This thread's row of the state tables (thread_rows.py)."""
    return thread_row(builder)


def register_state_buffer(function, table: np.ndarray, publish_symbol) -> None:
    """Make `function()` in compiled code return the calling thread's row of `table` (a
    C-contiguous (SLOTS, n) array), reached by the symbol `publish_symbol("<prefix>.<function
    name>")` publishes and returns (the prefix names the owner of the state, and its resolver
    in ember.codegen.symbols)."""
    from ember.dispatcher.typeof import typeof

    row_type = typeof(table[0])

    @registry.typer(function)
    def _typer(args, kws):
        return signature(row_type) if not args and not kws else None

    @lower_builtin(function)
    def _lower(context, builder, sig, args):
        size = table.shape[1]
        base = external_global(builder.module, publish_symbol(function.__name__))
        offset = builder.mul(thread_slot(builder), arr.const(size * table.itemsize))
        fields = arr.ArrayFields(
            llvm.Constant(arr.ptr, None),  # not runtime memory: never counted or freed
            llvm.Constant(arr.ptr, None),
            arr.const(size),
            arr.const(table.itemsize),
            builder.gep(base, [offset], inbounds=True, source_etype=llvm.IntType(8)),
            [arr.const(size)],
            [arr.const(table.itemsize)],
        )
        return arr.pack(builder, sig.return_type, fields)


def publish_symbol(symbol: str) -> str:
    """`ember.random.<mt_key|mt_meta|mt_gauss>`: this process's state table (compiled code
    reaches it by name, so cached code uses the new process's generator state). A bare name
    gets the prefix."""
    from ember.codegen.symbols import publish
    from ember.library.numpy.random import thread_rows

    name = symbol.removeprefix("ember.random.")
    symbol = f"ember.random.{name}"
    if thread_rows.publish_symbol(symbol):
        return symbol
    table = next(t for f, t in _BUFFERS.items() if f.__name__ == name)
    publish(symbol, table.ctypes.data)
    return symbol


for _function, _table in _BUFFERS.items():
    register_state_buffer(_function, _table, publish_symbol)


# ---------------------------------------------------------------------------- MT19937


def _twisted_word(upper, lower, far):
    """MT19937's next value of a key word: from the top bit of the word, the rest of the next
    word and the word 397 on."""
    y = (np.int64(upper) & 0x80000000) | (np.int64(lower) & 0x7FFFFFFF)
    return np.int64(far) ^ (y >> 1) ^ (-(y & 1) & 0x9908B0DF)


_twisted = njit(**NUMPY_ERRORS)(_twisted_word)


def _twist_impl(key):
    """The next 624 words of the key, in place. In three parts, as MT19937's reference code:
    no index wraps around inside a loop, so the loops need no `%` and vectorize."""
    for i in range(227):  # the word 397 on is still the old one
        key[i] = _twisted(key[i], key[i + 1], key[i + 397])
    for i in range(227, 623):  # ... is a new one, 227 back
        key[i] = _twisted(key[i], key[i + 1], key[i - 227])
    key[623] = _twisted(key[623], key[0], key[396])


# once in 624 draws: out of line, so that a draw (the position test, a load, the tempering) is
# small enough to inline into the caller's loop, where its row lookup is hoisted
_twist = njit(**OUT_OF_LINE)(_twist_impl)


def _temper_impl(y):
    """MT19937's tempering of one key word (an int64 holding 32 bits)."""
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


temper = njit(**NUMPY_ERRORS)(_temper_impl)


def _draw_uint32_impl(key, meta):
    """The next 32-bit output of the MT19937 state `key` (uint32[624]) at position `meta[0]`
    (624: twist first), as an int64; advances the position."""
    pos = meta[0]
    if not (0 <= pos and pos < 624):  # (never negative: said so that key[pos] needs no fix-up)
        _twist(key)
        pos = 0
    meta[0] = pos + 1
    return temper(np.int64(key[pos]))


draw_uint32 = njit(**NUMPY_ERRORS)(_draw_uint32_impl)


def _next_uint32_impl():
    return draw_uint32(mt_key(), mt_meta())


_next_uint32 = njit(**NUMPY_ERRORS)(_next_uint32_impl)


def _res53_impl(a, b):
    """A double in [0, 1) from two outputs (53 bits: genrand_res53)."""
    return ((a >> 5) * 67108864.0 + (b >> 6)) / 9007199254740992.0


_res53 = njit(**NUMPY_ERRORS)(_res53_impl)


def _draw_double_across_impl(key, meta):
    """draw_double where the two outputs are not both in the key (a twist comes first or
    between them): once in 312 draws, so out of line."""
    a = draw_uint32(key, meta)
    return _res53(a, draw_uint32(key, meta))


_draw_double_across = njit(**OUT_OF_LINE)(_draw_double_across_impl)


def _draw_double_impl(key, meta):
    """A double in [0, 1) from the next two outputs of the state. The usual case (both words in
    the key) is a few instructions that inline into the caller's loop."""
    pos = meta[0]
    if 0 <= pos and pos < 623:
        meta[0] = pos + 2
        return _res53(temper(np.int64(key[pos])), temper(np.int64(key[pos + 1])))
    return _draw_double_across(key, meta)


draw_double = njit(**NUMPY_ERRORS)(_draw_double_impl)


def _next_double_impl():
    return draw_double(mt_key(), mt_meta())


_next_double = njit(**NUMPY_ERRORS)(_next_double_impl)


def _next_gauss_impl():
    meta = mt_meta()
    cached = mt_gauss()
    if meta[1] != 0:
        meta[1] = 0
        value = cached[0]
        cached[0] = 0.0
        return value
    x1 = 2.0 * _next_double() - 1.0
    x2 = 2.0 * _next_double() - 1.0
    r2 = x1 * x1 + x2 * x2
    while r2 >= 1.0 or r2 == 0.0:
        x1 = 2.0 * _next_double() - 1.0
        x2 = 2.0 * _next_double() - 1.0
        r2 = x1 * x1 + x2 * x2
    f = np.sqrt(-2.0 * np.log(r2) / r2)
    cached[0] = f * x1
    meta[1] = 1
    return f * x2


_next_gauss = njit(**NUMPY_ERRORS)(_next_gauss_impl)


def _mask_above_impl(span):
    """The smallest all-ones mask covering `span` (NumPy's masked rejection)."""
    mask = span
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    return mask | (mask >> 32)


_mask_above = njit(**NUMPY_ERRORS)(_mask_above_impl)


def _bounded_wide_impl(low, span, mask):
    """_bounded for a span over 32 bits (two outputs a draw): rare, so out of line."""
    value = ((np.uint64(_next_uint32()) << 32) | np.uint64(_next_uint32())) & mask
    while value > span:
        value = ((np.uint64(_next_uint32()) << 32) | np.uint64(_next_uint32())) & mask
    return low + np.int64(value)


_bounded_wide = njit(**OUT_OF_LINE)(_bounded_wide_impl)


def _bounded_impl(low, high):
    """An int64 in [low, high) by NumPy's legacy masked rejection."""
    if high <= low:
        raise ValueError("low >= high")
    span = np.uint64(high - low - 1)
    if span == 0:
        return low
    mask = _mask_above(span)
    if span > 0xFFFFFFFF:
        return _bounded_wide(low, span, mask)
    while True:  # (one draw in the code, not one before the loop and one in it: smaller)
        value = np.uint64(_next_uint32()) & mask
        if value <= span:
            return low + np.int64(value)


_bounded = njit(**NUMPY_ERRORS)(_bounded_impl)


# ---------------------------------------------------------------------------- the API


def _init_genrand_impl(key, seed):
    """MT19937's init_genrand: the key from a 32-bit seed (int64 arithmetic wraps; the low 32
    bits are exact)."""
    value = seed & 0xFFFFFFFF
    for pos in range(624):
        key[pos] = value
        value = (1812433253 * (value ^ (value >> 30)) + pos + 1) & 0xFFFFFFFF


init_genrand = njit(**NUMPY_ERRORS)(_init_genrand_impl)


def _seed(seed):
    if seed < 0 or seed > 0xFFFFFFFF:
        raise ValueError("Seed must be between 0 and 2**32 - 1")
    init_genrand(mt_key(), seed)
    meta = mt_meta()
    meta[0] = 624
    meta[1] = 0
    mt_gauss()[0] = 0.0


@overload(np.random.seed, jit_options=NUMPY_ERRORS)
def _select_seed(seed):
    return _seed if isinstance(types.unliteral(seed), types.Integer) else None


def _is_size(typ) -> bool:
    typ = types.unliteral(typ)
    if isinstance(typ, types.Integer):
        return True
    return isinstance(typ, types.BaseTuple) and all(
        isinstance(types.unliteral(t), types.Integer) for t in typ.types
    )


def sized(name: str, size) -> bool:
    """False for size=None, True for an int or a tuple of ints; any other size is a TypingError
    naming the function (np.random.`name`, or `name` itself when it has a dot)."""
    if isinstance(types.unliteral(size), types.NoneType):
        return False
    if _is_size(size):
        return True
    function = name if "." in name else f"np.random.{name}"
    raise TypingError(f"{function}(): size should be int or tuple of ints or None, got {size}")


def _negative_impl(x):
    """NumPy's "< 0" parameter check: true for -0.0, false for NaN."""
    return x < 0 or (x == 0 and np.signbit(x))


_negative = njit(**NUMPY_ERRORS)(_negative_impl)


def _check_uniform_impl(low, high):
    if not np.isfinite(high - low):
        raise OverflowError("Range exceeds valid bounds")


def _check_normal_impl(loc, scale):
    if _negative(scale):
        raise ValueError("scale < 0")


_CHECKS = {
    "uniform": njit(**NUMPY_ERRORS)(_check_uniform_impl),
    "normal": njit(**NUMPY_ERRORS)(_check_normal_impl),
}


@functools.cache
def _sampler(kind: str, sized: bool):
    """Implementations of (low/loc, high/scale, size) for one distribution: a scalar when
    `size` is None, else an array filled in order."""
    draw = {
        "uniform": lambda: _next_double,
        "normal": lambda: _next_gauss,
    }[kind]()
    check = _CHECKS[kind]  # NumPy's, on the parameters
    if not sized:
        if kind == "uniform":

            def scalar(a, b, size):
                check(a, b)
                return a + (b - a) * draw()

        else:

            def scalar(a, b, size):
                check(a, b)
                return a + b * draw()

        return scalar
    if kind == "uniform":

        def filled(a, b, size):
            check(a, b)
            out = np.empty(size)
            flat = out.ravel()
            for i in range(flat.shape[0]):
                flat[i] = a + (b - a) * draw()
            return out

    else:

        def filled(a, b, size):
            check(a, b)
            out = np.empty(size)
            flat = out.ravel()
            for i in range(flat.shape[0]):
                flat[i] = a + b * draw()
            return out

    return filled


def _number(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Float, types.Boolean))


# kind -> (parameters, checks, the draw) for array parameters (broadcast_params.py)
_BROADCAST_ROWS = {
    "uniform": (["low", "high"], [("not np.isfinite(high - low)", "Range exceeds valid bounds",
                "OverflowError")], "low + (high - low) * uniform()"),
    "normal": (["loc", "scale"], [("negative(scale)", "scale < 0")], "loc + scale * gauss()"),
}  # fmt: skip


@functools.cache
def _broadcast_sampler(kind: str, sized: bool):
    from ember.library.numpy.random.broadcast_params import broadcast_impl

    names, checks, draw = _BROADCAST_ROWS[kind]
    helpers = {"np": np, "negative": _negative, "uniform": _next_double, "gauss": _next_gauss}
    return broadcast_impl(kind, names, checks, draw, "float64", helpers, sized)


def _select_distribution(kind: str):
    def select(a, b, size):
        from ember.library.numpy.random.broadcast_params import has_array, numeric_parameters

        if has_array([a, b]):
            return (
                _broadcast_sampler(kind, sized(kind, size)) if numeric_parameters([a, b]) else None
            )
        if not (_number(a) and _number(b)):
            return None
        return _sampler(kind, sized(kind, size))

    return select


@overload(np.random.uniform, jit_options=INLINED_DRAW)
def _np_random_uniform(low=0.0, high=1.0, size=None):
    low = as_type(low)
    high = as_type(high)
    size = as_type(size)
    return _select_distribution("uniform")(low, high, size)


@overload(np.random.normal, jit_options=INLINED_DRAW)
def _np_random_normal(loc=0.0, scale=1.0, size=None):
    loc = as_type(loc)
    scale = as_type(scale)
    size = as_type(size)
    return _select_distribution("normal")(loc, scale, size)


@functools.cache
def _standard(kind: str, sized: bool):
    sampler = njit(**NUMPY_ERRORS)(_sampler(kind, sized))

    def impl(size):
        return sampler(0.0, 1.0, size)

    return impl


def _register_standard(function, kind: str) -> None:
    @overload(function, jit_options=INLINED_DRAW)
    def _standard_sample(size=None):
        return _standard(kind, sized(function.__name__, as_type(size)))


for _function in (np.random.random, np.random.random_sample, np.random.ranf, np.random.sample):
    _register_standard(_function, "uniform")
_register_standard(np.random.standard_normal, "normal")


@functools.cache
def _dims_impl(kind: str, count: int):
    """rand(d0, d1, ...) and randn(d0, d1, ...): a scalar without dimensions."""
    sampler = njit(**NUMPY_ERRORS)(_sampler(kind, count > 0))
    names = ", ".join(f"d{i}" for i in range(count))
    shape = f"({names},)" if count else "None"
    source = f"def impl({names}):\n    return sampler(0.0, 1.0, {shape})\n"
    namespace = {"sampler": sampler}
    exec(source, namespace)  # noqa: S102 - a template over fixed names
    impl = namespace["impl"]
    impl.__module__ = __name__
    return impl


def _register_dims(function, kind: str) -> None:
    @overload(function, jit_options=INLINED_DRAW)
    def _dims(*dims):
        if all(isinstance(types.unliteral(d), types.Integer) for d in dims):
            return _dims_impl(kind, len(dims))
        return None


_register_dims(np.random.rand, "uniform")
_register_dims(np.random.randn, "normal")


def _randint_scalar(low, high, size):
    return _bounded(np.int64(low), np.int64(high))


def _randint_upper(low, high, size):
    return _bounded(np.int64(0), np.int64(low))


def _randint_array(low, high, size):
    out = np.empty(size, np.int64)
    flat = out.ravel()
    for i in range(flat.shape[0]):
        flat[i] = _bounded(np.int64(low), np.int64(high))
    return out


def _randint_upper_array(low, high, size):
    out = np.empty(size, np.int64)
    flat = out.ravel()
    for i in range(flat.shape[0]):
        flat[i] = _bounded(np.int64(0), np.int64(low))
    return out


def _integer_draw(name: str, low, high, size, impls: tuple):
    """The one of `impls` (no high, scalar; high, scalar; no high, sized; high, sized) for
    randint-like arguments, or None where they are not integers and a size."""
    high = as_type(high)
    size = as_type(size)
    if not isinstance(types.unliteral(low), types.Integer):
        return None
    no_high = isinstance(high, types.NoneType)
    if not no_high and not isinstance(types.unliteral(high), types.Integer):
        return None
    if not sized(name, size):
        return impls[0] if no_high else impls[1]
    return impls[2] if no_high else impls[3]


@overload(np.random.randint, jit_options=INLINED_DRAW)
def _select_randint(low, high=None, size=None):
    impls = (_randint_upper, _randint_scalar, _randint_upper_array, _randint_array)
    return _integer_draw("randint", low, high, size, impls)


def _random_integers_upper(low, high, size):
    return _bounded(np.int64(1), np.int64(low) + 1)


def _random_integers_upper_array(low, high, size):
    return _randint_array_jit(1, low + 1, size)


def _random_integers_scalar(low, high, size):
    return _bounded(np.int64(low), np.int64(high) + 1)


def _random_integers_array(low, high, size):
    return _randint_array_jit(low, high + 1, size)


_randint_array_jit = njit(**NUMPY_ERRORS)(_randint_array)


@overload(np.random.random_integers, jit_options=INLINED_DRAW)
def _select_random_integers(low, high=None, size=None):
    """Deprecated in NumPy: randint(low, high + 1), or randint(1, low + 1) without high."""
    impls = (
        _random_integers_upper,
        _random_integers_scalar,
        _random_integers_upper_array,
        _random_integers_array,
    )
    return _integer_draw("random_integers", low, high, size, impls)
