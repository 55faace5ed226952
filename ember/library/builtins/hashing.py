"""`hash()` of numbers and tuples, equal to CPython's (so that compiled code and Python agree on
dict keys): integers modulo the Mersenne prime 2**61 - 1, floats by their exact rational value,
tuples by CPython's xxHash-based combination (3.8+). `@overload` implementations in Python.

CPython 3.10+ hashes a NaN by the identity of its float object, which compiled code does not
have: here each hash of a NaN is a fresh value from a counter (a NaN is never equal to a key, so
dicts and sets are unchanged, and many NaN keys no longer collide in one bucket).
"""

from __future__ import annotations

import functools

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload
from ember.lowering.intrinsics import call_intrinsic
from ember.typing.signature import signature

_MODULUS = (1 << 61) - 1  # sys.hash_info.modulus
_BITS = 61
_INF_HASH = 314159  # sys.hash_info.inf
_MIN_INT64_HASH = -((1 << 63) % _MODULUS)
# CPython's tuple hash constants (xxHash's primes), as the int64 values of their 64 bits
_XXPRIME_1 = 11400714785074694791 - (1 << 64)
_XXPRIME_2 = 14029467366897019727 - (1 << 64)
_XXPRIME_5 = 2870177450012600261
_LENGTH_SALT = _XXPRIME_5 ^ 3527539
_TUPLE_HASH_OF_MINUS_ONE = 1546275796
_COMPLEX_IMAG_MULTIPLIER = 1000003  # sys.hash_info.imag


@overload(hash)
def hash_overload(value):
    if isinstance(value, types.Boolean):
        return _bool_hash
    if isinstance(value, types.Integer):
        return _uint64_hash if types.unliteral(value) is types.uint64 else _int_hash
    if isinstance(value, types.Float):
        return _float_hash
    if isinstance(value, types.Complex):
        return _complex_hash
    if isinstance(value, types.BaseTuple):
        return _tuple_hash(len(value))
    if isinstance(value, (types.Array, types.List, types.HashTable)):
        return _unhashable(f"unhashable type: '{_unhashable_name(value)}'")
    return None


def _unhashable_name(value: types.Type) -> str:
    """CPython's name for a reflected list or set; Numba's type name for the others."""
    if isinstance(value, types.Set):
        return "set"
    if isinstance(value, types.List) and not isinstance(value, types.ListType):
        return "list"
    return str(value)


def _unhashable(message: str):
    """Mutable containers have no hash: CPython's TypeError when the call runs."""

    def unhashable_hash(value):
        raise TypeError(message)

    return unhashable_hash


def _bool_hash(value):
    return 1 if value else 0


def _int_hash(value):
    x = _as_int64(value)
    if x >= 0:
        return x % _MODULUS
    if x == -9223372036854775808:
        return _MIN_INT64_HASH  # -x would wrap
    h = -((-x) % _MODULUS)
    return -2 if h == -1 else h


@intrinsic
def _as_int64(typingctx, value):
    """`value` widened to int64, so that negating the narrow types' minimum cannot wrap."""

    def codegen(context, builder, sig, args):
        return context.cast(builder, args[0], sig.args[0], types.int64)

    return signature(types.int64, value), codegen


def _uint64_hash(value):
    return _unsigned_remainder(value)


@intrinsic
def _unsigned_remainder(typingctx, value):
    """`value % (2**61 - 1)` of a uint64, as an int64 (the result is below 2**61)."""

    def codegen(context, builder, sig, args):
        return builder.urem(args[0], llvm.Constant(args[0].type, _MODULUS))

    return signature(types.int64, value), codegen


def _float_hash(value):
    v = float(value)
    if v != v:
        return _fresh_nan_hash()
    if v == _INF:
        return _INF_HASH
    if v == -_INF:
        return -_INF_HASH
    m, e = _frexp(v)
    sign = 1
    if m < 0.0:
        sign = -1
        m = -m
    # the mantissa's bits, 28 at a time, folded into x modulo 2**61 - 1
    x = 0
    while m != 0.0:
        x = ((x << 28) & _MODULUS) | (x >> (_BITS - 28))
        m *= 268435456.0
        e -= 28
        y = int(m)
        m -= y
        x += y
        if x >= _MODULUS:
            x -= _MODULUS
    # times 2**e modulo 2**61 - 1 is a rotation by e modulo 61
    if e >= 0:
        e = e % _BITS
    else:
        e = _BITS - 1 - ((-1 - e) % _BITS)
    x = ((x << e) & _MODULUS) | (x >> (_BITS - e))
    x = x * sign
    return -2 if x == -1 else x


_INF = float("inf")
_NAN_HASH_COUNTER = "ember.nan_hash_counter"
_GOLDEN_RATIO_64 = 0x9E3779B97F4A7C15  # spreads consecutive counts over a table's buckets


@intrinsic
def _fresh_nan_hash(typingctx):
    """A non-negative int64 that differs from call to call (a module-wide atomic counter,
    scrambled): the stand-in for CPython's hash of a NaN by its object's address."""

    def codegen(context, builder, sig, args):
        i64 = llvm.IntType(64)
        counter = builder.module.globals.get(_NAN_HASH_COUNTER)
        if counter is None:
            counter = llvm.GlobalVariable(builder.module, i64, _NAN_HASH_COUNTER)
            counter.linkage = "internal"
            counter.initializer = llvm.Constant(i64, 0)
        count = builder.atomic_rmw("add", counter, llvm.Constant(i64, 1), "monotonic")
        scrambled = builder.mul(count, llvm.Constant(i64, _GOLDEN_RATIO_64))
        return builder.lshr(scrambled, llvm.Constant(i64, 3))

    return signature(types.int64), codegen


@intrinsic
def _frexp(typingctx, value):
    """math.frexp of a float64: (mantissa in [0.5, 1), exponent), through `llvm.frexp`."""

    def codegen(context, builder, sig, args):
        pair_type = llvm.LiteralStructType([llvm.DoubleType(), llvm.IntType(32)])
        pair = call_intrinsic(
            builder, "llvm.frexp", [args[0]], pair_type, [llvm.DoubleType(), llvm.IntType(32)]
        )
        exponent = builder.sext(builder.extract_value(pair, 1), llvm.IntType(64))
        result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        result = builder.insert_value(result, builder.extract_value(pair, 0), 0)
        return builder.insert_value(result, exponent, 1)

    return signature(types.Tuple((types.float64, types.int64)), types.float64), codegen


def _complex_hash(value):
    h = hash(value.real) + _COMPLEX_IMAG_MULTIPLIER * hash(value.imag)
    return -2 if h == -1 else h


@functools.cache
def _tuple_hash(count: int):
    """CPython's tuplehash for `count` members, unrolled (members may differ in type). The
    arithmetic is on 64-bit words: ember's integers wrap as C's unsigned ones do."""
    lines = ["def tuple_hash(t):", f"    acc = {_XXPRIME_5}"]
    for index in range(count):
        lines += [
            f"    acc += hash(t[{index}]) * {_XXPRIME_2}",
            "    acc = (acc << 31) | ((acc >> 33) & 2147483647)",
            f"    acc *= {_XXPRIME_1}",
        ]
    lines += [
        f"    acc += {count ^ _LENGTH_SALT}",
        f"    return {_TUPLE_HASH_OF_MINUS_ONE} if acc == -1 else acc",
    ]
    namespace: dict = {}
    source = "\n".join(lines)
    exec(compile(source, f"<ember hash of {count}-tuple>", "exec"), namespace)  # noqa: S102
    return namespace["tuple_hash"]
