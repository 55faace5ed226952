"""NumPy's `np.random.Generator` passed to compiled code (as in Numba): `g.random()`,
`g.uniform()`, `g.integers()` draw from the Generator's own bit generator, so the stream is
the one NumPy gives and continues in Python afterwards.

The native value holds the bit generator's state pointer and its `next_double`,
`next_uint64`, `next_uint32` function pointers (from `bit_generator.ctypes`) plus the Python
object; the distributions are NumPy's algorithms (Lemire's bounded integers) written in Python
and compiled by ember. Written with the extension API only.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import (
    NativeValue,
    box,
    cgutils,
    intrinsic,
    models,
    overload,
    overload_method,
    register_jitable,
    register_model,
    typeof_impl,
    unbox,
)
from ember.library.numpy_support import parse_dtype


class NumPyRandomGeneratorType(types.Type):
    def __init__(self) -> None:
        super().__init__(name="NumPyRandomGeneratorType")


generator_type = NumPyRandomGeneratorType()
typeof_impl.register(np.random.Generator)(lambda value, c: generator_type)

_POINTERS = ("state", "next_double", "next_uint64", "next_uint32")


@register_model(NumPyRandomGeneratorType)
class GeneratorModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [(name, types.intp) for name in (*_POINTERS, "parent")]
        super().__init__(dmm, fe_type, members)


def generator_pointers(generator: np.random.Generator) -> tuple[int, int, int, int]:
    """The addresses compiled code needs, from the bit generator's ctypes interface."""
    interface = generator.bit_generator.ctypes
    functions = (interface.next_double, interface.next_uint64, interface.next_uint32)
    return (interface.state_address, *(ctypes.cast(f, ctypes.c_void_p).value for f in functions))


@unbox(NumPyRandomGeneratorType)
def unbox_generator(typ, obj, c):
    helper = c.pyapi.unserialize(c.pyapi.serialize_object(generator_pointers))
    packed = c.pyapi.call_function_objargs(helper, [obj])
    c.pyapi.decref(helper)
    generator = c.context.make_helper(c.builder, typ)
    failed = cgutils.is_null(c.builder, packed)
    with cgutils.if_likely(c.builder, c.builder.not_(failed)):
        for index, name in enumerate(_POINTERS):
            address = c.pyapi.long_as_voidptr(c.pyapi.tuple_getitem(packed, index))
            setattr(generator, name, c.builder.ptrtoint(address, cgutils.intp_t))
        generator.parent = c.builder.ptrtoint(obj, cgutils.intp_t)  # borrowed for the call
        c.pyapi.decref(packed)
    return NativeValue(generator._getvalue(), is_error=failed)


@box(NumPyRandomGeneratorType)
def box_generator(typ, val, c):
    """The Generator passed in (a compiled function can only return one it was given)."""
    parent = c.context.make_helper(c.builder, typ, value=val).parent
    obj = c.builder.inttoptr(parent, c.pyapi.pyobj)
    c.pyapi.incref(obj)
    return obj


# ------------------------------------------------------------------ raw draws


def _draw(result: types.Type, pointer: str, llvm_result: llvm.Type):
    """An intrinsic calling one of the bit generator's functions on its state."""

    def definition(typingctx, generator):
        if not isinstance(generator, NumPyRandomGeneratorType):
            return None

        def codegen(context, builder, sig, args):
            fields = context.make_helper(builder, sig.args[0], value=args[0])
            function_type = llvm.FunctionType(llvm_result, [cgutils.voidptr_t])
            function = builder.inttoptr(getattr(fields, pointer), function_type.as_pointer())
            state = builder.inttoptr(fields.state, cgutils.voidptr_t)
            return builder.call(function, [state])

        return result(generator), codegen

    definition.__name__ = f"generator_{pointer}"
    return intrinsic(definition)


next_double = _draw(types.float64, "next_double", llvm.DoubleType())
next_uint64 = _draw(types.uint64, "next_uint64", llvm.IntType(64))
next_uint32 = _draw(types.uint32, "next_uint32", llvm.IntType(32))


@intrinsic
def _wide_product(typingctx, a, b):
    """(high, low) 64-bit halves of the 128-bit product of two uint64s."""
    if a == types.uint64 and b == types.uint64:

        def codegen(context, builder, sig, args):
            wide = llvm.IntType(128)
            product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
            high = builder.trunc(builder.lshr(product, wide(64)), llvm.IntType(64))
            low = builder.trunc(product, llvm.IntType(64))
            return context.make_tuple(builder, sig.return_type, [high, low])

        return types.UniTuple(types.uint64, 2)(a, b), codegen


_MAX32 = np.uint64(0xFFFFFFFF)
_MAX64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_SHIFT32 = np.uint64(32)


@register_jitable
def _bounded_lemire_uint32(generator, rng):
    """A uniform integer in [0, rng] (rng < 2**32 - 1) from 32-bit draws: Lemire's method."""
    excluded = rng + _ONE
    m = np.uint64(next_uint32(generator)) * excluded
    leftover = m & _MAX32
    if leftover < excluded:
        threshold = (_MAX32 - rng) % excluded
        while leftover < threshold:
            m = np.uint64(next_uint32(generator)) * excluded
            leftover = m & _MAX32
    return m >> _SHIFT32


@register_jitable
def _bounded_lemire_uint64(generator, rng):
    """A uniform integer in [0, rng] (rng < 2**64 - 1) from 64-bit draws: Lemire's method."""
    excluded = rng + _ONE
    high, leftover = _wide_product(next_uint64(generator), excluded)
    if leftover < excluded:
        threshold = (_MAX64 - rng) % excluded
        while leftover < threshold:
            high, leftover = _wide_product(next_uint64(generator), excluded)
    return high


@register_jitable
def _bounded_uint64(generator, rng):
    """NumPy's random_bounded_uint64 (unmasked): a uniform integer in [0, rng]."""
    if rng == np.uint64(0):
        return rng
    if rng <= _MAX32:
        if rng == _MAX32:
            return np.uint64(next_uint32(generator))
        return _bounded_lemire_uint32(generator, rng)
    if rng == _MAX64:
        return next_uint64(generator)
    return _bounded_lemire_uint64(generator, rng)


@register_jitable
def _integer_in(generator, low, high):
    """A uniform int64 in [low, high] (NumPy's int64 path: offset plus a bounded draw)."""
    rng = np.uint64(high) - np.uint64(low)
    return np.int64(np.uint64(low) + _bounded_uint64(generator, rng))


# ------------------------------------------------------------------ the Generator's methods


@register_jitable
def _integer_bounds(low, high, endpoint):
    """[first, last] of Generator.integers(low, high, endpoint=...), with NumPy's errors."""
    if high is None:
        if not endpoint and low <= 0:
            raise ValueError("high <= 0")
        if endpoint and low < 0:
            raise ValueError("high < 0")
        return 0, (low if endpoint else low - 1)
    if not endpoint and low >= high:
        raise ValueError("low >= high")
    if endpoint and low > high:
        raise ValueError("low > high")
    return low, (high if endpoint else high - 1)


def _is_int(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


def _is_real(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Float, types.Boolean))


def _size_kind(size) -> str | None:
    """'none', 'int' or 'tuple' for a `size=` argument type, None when unsupported."""
    if size is None or isinstance(size, types.NoneType):  # omitted: the default itself
        return "none"
    if _is_int(size):
        return "int"
    if isinstance(size, types.UniTuple) and _is_int(size.dtype):
        return "tuple"
    return None


def _check_size(method: str, size) -> str:
    kind = _size_kind(size)
    if kind is None:
        raise TypingError(f"Generator.{method}(size={size}): size must be None, an int or a tuple")
    return kind


@overload_method(NumPyRandomGeneratorType, "random")
def generator_random(generator, size=None, dtype=None, out=None):
    if _check_size("random", size) == "none":

        def draw(generator, size=None, dtype=None, out=None):
            return next_double(generator)

        return draw

    def fill(generator, size=None, dtype=None, out=None):
        result = np.empty(size, np.float64)
        flat = result.reshape(result.size)
        for i in range(flat.size):
            flat[i] = next_double(generator)
        return result

    return fill


@overload_method(NumPyRandomGeneratorType, "uniform")
def generator_uniform(generator, low=0.0, high=1.0, size=None):
    if not (_is_real(low) and _is_real(high)):
        raise TypingError("Generator.uniform: low and high must be numbers (arrays unsupported)")
    scalar = _check_size("uniform", size) == "none"

    def draw(generator, low=0.0, high=1.0, size=None):
        span = high - low
        if not np.isfinite(span):
            raise OverflowError("high - low range exceeds valid bounds")
        return low + span * next_double(generator)

    def fill(generator, low=0.0, high=1.0, size=None):
        span = high - low
        if not np.isfinite(span):
            raise OverflowError("high - low range exceeds valid bounds")
        result = np.empty(size, np.float64)
        flat = result.reshape(result.size)
        for i in range(flat.size):
            flat[i] = low + span * next_double(generator)
        return result

    return draw if scalar else fill


@overload_method(NumPyRandomGeneratorType, "integers")
def generator_integers(generator, low, high=None, size=None, dtype=np.int64, endpoint=False):
    if not (_is_int(low) and (high is None or isinstance(high, types.NoneType) or _is_int(high))):
        raise TypingError("Generator.integers: low and high must be integers (arrays unsupported)")
    if dtype is not np.int64 and parse_dtype(dtype, types.int64) is not types.int64:
        raise TypingError("Generator.integers: only dtype=np.int64 (the default) is supported")
    scalar = _check_size("integers", size) == "none"

    def draw(generator, low, high=None, size=None, dtype=np.int64, endpoint=False):
        first, last = _integer_bounds(low, high, endpoint)
        return _integer_in(generator, first, last)

    def fill(generator, low, high=None, size=None, dtype=np.int64, endpoint=False):
        first, last = _integer_bounds(low, high, endpoint)
        result = np.empty(size, np.int64)
        flat = result.reshape(result.size)
        for i in range(flat.size):
            flat[i] = _integer_in(generator, first, last)
        return result

    return draw if scalar else fill


_NOT_YET = ("normal", "standard_normal", "exponential", "standard_exponential", "gamma",
            "standard_gamma", "beta", "poisson", "binomial", "choice", "shuffle", "permutation",
            "lognormal", "laplace", "chisquare", "bytes")  # fmt: skip


def _not_supported_yet(name: str) -> None:
    def refuse(generator, *args, **kws):
        raise TypingError(
            f"Generator.{name}() is not supported in compiled code yet: random, uniform and "
            f"integers are; draw the others in Python (g.{name}(...)) and pass them in"
        )

    overload_method(NumPyRandomGeneratorType, name)(refuse)


for _name in _NOT_YET:
    _not_supported_yet(_name)


@overload(np.random.default_rng)
def default_rng(seed=None):
    raise TypingError(
        "np.random.default_rng() cannot be called in compiled code (as in Numba): create the "
        "Generator in Python, rng = np.random.default_rng(seed), and pass it in as an argument"
    )
