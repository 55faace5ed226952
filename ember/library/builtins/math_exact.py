"""`math` functions with exact results, and the methods of Python numbers that go with them:
isclose, fsum (exactly rounded, Shewchuk's partials as CPython), prod, comb, perm, factorial,
gcd, lcm, isqrt; `int.bit_length()`, `int.bit_count()`, `.numerator`/`.denominator`,
`as_integer_ratio()`, `float.is_integer()`; the builtins sum, any and all over
anything iterable. Written with `@overload`.

Integers are 64-bit in compiled code: where CPython's exact result would not fit (factorial(21),
comb(70, 35)), OverflowError is raised instead of wrapping.
"""

from __future__ import annotations

import math

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.builtins.numeric import as_uint64
from ember.lowering.intrinsics import call_intrinsic
from ember.misc.literal import literal_unroll
from ember.typing.overload import overload, overload_method, register_jitable
from ember.typing.overload_attribute import overload_attribute
from ember.typing.signature import signature


def _integer(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


def _real(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean, types.Float))


_INT64_MAX = 2**63 - 1
_ISQRT_MAX = math.isqrt(_INT64_MAX)
_ISQRT_UINT64_MAX = (1 << 32) - 1


# ---------------------------------------------------------------------------- closeness, sums


@overload(math.isclose)
def math_isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    if not (_real(a) and _real(b)):
        return None

    def isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
        if rel_tol < 0.0 or abs_tol < 0.0:
            raise ValueError("tolerances must be non-negative")
        if a == b:
            return True
        if math.isinf(a) or math.isinf(b):
            return False
        diff = abs(float(b) - float(a))  # as CPython: b - a of two ints may overflow int64
        return (diff <= abs(rel_tol * b)) or (diff <= abs(rel_tol * a)) or (diff <= abs_tol)

    return isclose


@overload(math.fsum)
def math_fsum(seq):
    if not _iterable_of_reals(seq):
        return None

    def fsum(seq):
        partials = [0.0]
        count = 0
        special = 0.0  # the sum of inf and nan items, as CPython keeps it
        infinities = 0.0
        for item in seq:
            x = float(item)
            original = x
            kept = 0
            for index in range(count):
                y = partials[index]
                if abs(x) < abs(y):
                    x, y = y, x
                hi = x + y
                lo = y - (hi - x)
                if lo != 0.0:
                    partials[kept] = lo
                    kept += 1
                x = hi
            count = kept
            if x != 0.0:
                if not math.isfinite(x):
                    if math.isfinite(original):
                        raise OverflowError("intermediate overflow in fsum")
                    if math.isinf(original):
                        infinities += original
                    special += original
                    count = 0
                else:
                    if count < len(partials):
                        partials[count] = x
                    else:
                        partials.append(x)
                    count += 1
        if special != 0.0:
            if math.isnan(infinities):
                raise ValueError("-inf + inf in fsum")
            return special
        return _round_partials(partials, count)

    return fsum


@register_jitable
def _round_partials(partials, count):
    """The exactly rounded sum of the non-overlapping partials (CPython's final step)."""
    if count == 0:
        return 0.0
    n = count - 1
    hi = partials[n]
    lo = 0.0
    while n > 0:
        x = hi
        n -= 1
        y = partials[n]
        hi = x + y
        yr = hi - x
        lo = y - yr
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and partials[n - 1] < 0.0) or (lo > 0.0 and partials[n - 1] > 0.0)):
        y = lo * 2.0
        x = hi + y
        yr = x - hi
        if y == yr:
            hi = x
    return hi


def _iterable_of_reals(seq) -> bool:
    item = getattr(seq, "dtype", None)
    if isinstance(seq, types.BaseTuple):
        return all(_real(member) for member in seq.types)
    if isinstance(seq, types.RangeType):
        return True
    return item is not None and _real(item)


@overload(math.prod)
def math_prod(iterable, start=1):
    if not (_iterable_of_reals(iterable) and (isinstance(start, int) or _real(start))):
        return None

    def prod(iterable, start=1):
        result = start
        for item in iterable:
            result = result * item
        return result

    return prod


# ---------------------------------------------------------------------------- integers


@overload(math.factorial)
def math_factorial(x):
    if not _integer(x):
        return None

    def factorial(x):
        if x < 0:
            raise ValueError("factorial() not defined for negative values")
        if x > 20:
            raise OverflowError("factorial() result does not fit in a 64-bit integer")
        result = 1
        for k in range(2, x + 1):
            result *= k
        return result

    return factorial


@overload(math.comb)
def math_comb(n, k):
    if not (_integer(n) and _integer(k)):
        return None

    def comb(n, k):
        if n < 0:
            raise ValueError("n must be a non-negative integer")
        if k < 0:
            raise ValueError("k must be a non-negative integer")
        if k > n:
            return 0
        k = min(k, n - k)
        result = 1
        for i in range(1, k + 1):
            # result * (n - k + i) is divisible by i; divide first so only the answer must fit
            factor, divisor = n - k + i, i
            common = math.gcd(result, divisor)
            result, divisor = result // common, divisor // common
            factor //= divisor
            if result > _INT64_MAX // factor:
                raise OverflowError("comb() result does not fit in a 64-bit integer")
            result *= factor
        return result

    return comb


@overload(math.perm)
def math_perm(n, k=None):
    if not _integer(n):
        return None
    if k is None or isinstance(k, types.NoneType):

        def perm_all(n, k=None):
            return math.perm(n, n)

        return perm_all
    if not _integer(k):
        return None

    def perm(n, k=None):
        if n < 0:
            raise ValueError("n must be a non-negative integer")
        if k < 0:
            raise ValueError("k must be a non-negative integer")
        if k > n:
            return 0
        result = 1
        for factor in range(n - k + 1, n + 1):
            if result > _INT64_MAX // factor:
                raise OverflowError("perm() result does not fit in a 64-bit integer")
            result *= factor
        return result

    return perm


@overload(math.gcd)
def math_gcd(a, b):
    if not (_integer(a) and _integer(b)):
        return None
    if any(types.unliteral(t) is types.uint64 for t in (a, b)):
        return _gcd_unsigned

    def gcd(a, b):
        a, b = abs(a), abs(b)
        while b:
            a, b = b, a % b
        return a

    return gcd


def _gcd_unsigned(a, b):
    """gcd in uint64, when one operand is a uint64 (mixed with a signed one, the remainders
    would be int64 or float64): |a| as uint64 is exact even for -2**63."""
    a, b = as_uint64(abs(a)), as_uint64(abs(b))
    while b:
        a, b = b, a % b
    return a


@overload(math.lcm)
def math_lcm(a, b):
    if not (_integer(a) and _integer(b)):
        return None

    def lcm(a, b):
        if a == 0 or b == 0:
            return 0
        reduced, other = abs(a // math.gcd(a, b)), abs(b)
        if reduced > _INT64_MAX // other:
            raise OverflowError("lcm() result does not fit in a 64-bit integer")
        return reduced * other

    return lcm


def _fold(binary, empty: int):
    """math.gcd / math.lcm of any number of integers (Python 3.9+): `binary` folded over them
    from `empty` (gcd() is 0, lcm() is 1; one argument gives its absolute value)."""

    def overload_many(*args):
        if len(args) == 2 or not all(_integer(a) for a in args):
            return None  # two arguments: the overloads above

        def fold(*args):
            result = empty
            for item in literal_unroll(args):
                result = binary(result, item)
            return result

        if len(args) == 0:
            return lambda *args: empty
        if len(args) == 1:
            return lambda *args: abs(args[0])
        return fold

    return overload_many


overload(math.gcd)(_fold(math.gcd, 0))
overload(math.lcm)(_fold(math.lcm, 1))


@overload(math.isqrt)
def math_isqrt(n):
    if not _integer(n):
        return None

    def isqrt(n):
        if n < 0:
            raise ValueError("isqrt() argument must be nonnegative")
        root = int(math.sqrt(float(n)))
        while root * root > n:  # the float estimate may be one too large or small
            root -= 1
        while root < _ISQRT_MAX and (root + 1) * (root + 1) <= n:
            root += 1
        return root

    def unsigned_isqrt(n):
        # uint64 arithmetic throughout: the root of 2**64 - 1 is 2**32 - 1, whose square an
        # int64 would wrap; the float estimate of n near 2**64 is 2**32, one too large
        root = as_uint64(min(int(math.sqrt(float(n))), _ISQRT_UINT64_MAX))
        while root * root > n:
            root -= as_uint64(1)
        while root < _ISQRT_UINT64_MAX and (root + as_uint64(1)) * (root + as_uint64(1)) <= n:
            root += as_uint64(1)
        return root

    unsigned = isinstance(n, types.Integer) and not n.signed
    return unsigned_isqrt if unsigned else isqrt


# ---------------------------------------------------------------------------- methods


@overload_method(types.Integer, "bit_length")
def int_bit_length(x):
    def bit_length(x):
        # the magnitude as a uint64: -x of int8's minimum is still -128 (NumPy's wrap), and
        # int64's minimum has no int64 negation
        magnitude = _magnitude(x)
        length = 0
        while magnitude:
            magnitude >>= 1
            length += 1
        return length

    return bit_length


@register_jitable
def _magnitude(x):
    """|x| as a uint64: exact for every integer type's minimum too."""
    magnitude = as_uint64(x)
    if x < 0:
        magnitude = as_uint64(0) - magnitude
    return magnitude


@intrinsic
def _popcount(typingctx, value):
    """The number of one bits of a uint64 (one instruction where the CPU has it)."""
    if value is not types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return call_intrinsic(builder, "llvm.ctpop", list(args))

    return signature(types.uint64, value), codegen


@overload_method(types.Integer, "bit_count")
def int_bit_count(x):
    """int.bit_count(): the one bits of |x| (Python 3.10), an int64."""

    def bit_count(x):
        return int(_popcount(_magnitude(x)))

    return bit_count


@overload_attribute(types.Integer, "numerator")
def int_numerator(x):
    return lambda x: x


@overload_attribute(types.Integer, "denominator")
def int_denominator(x):
    return lambda x: 1


@overload_method(types.Integer, "as_integer_ratio")
def int_as_integer_ratio(x):
    return lambda x: (x, 1)


@overload_method(types.Float, "as_integer_ratio")
def float_as_integer_ratio(x):
    """CPython's exact (numerator, denominator), the denominator a power of two: OverflowError
    where either would not fit int64 (a huge float, or a fraction below 2**-62: 0.1's
    denominator is 2**55, 1e-20's is beyond)."""

    def as_integer_ratio(x):
        if math.isnan(x):
            raise ValueError("cannot convert NaN to integer ratio")
        if math.isinf(x):
            raise OverflowError("cannot convert Infinity to integer ratio")
        mantissa, exponent = math.frexp(float(x))
        while mantissa != math.floor(mantissa):
            mantissa *= 2.0
            exponent -= 1
        numerator = int(mantissa)  # at most 53 bits
        if exponent > 0:
            # (the numerator is odd here: only -1 << 63 fits with 64 bits)
            beyond = _magnitude(numerator).bit_length() + exponent > 63
            if beyond and not (numerator == -1 and exponent == 63):
                raise OverflowError("integer ratio of this float does not fit int64")
            return numerator << exponent, 1
        if exponent < -62:
            raise OverflowError("integer ratio of this float does not fit int64")
        return numerator, 1 << -exponent

    return as_integer_ratio


@overload_method(types.Float, "is_integer")
def float_is_integer(x):
    def is_integer(x):
        return math.isfinite(x) and x % 1.0 == 0.0

    return is_integer


# ---------------------------------------------------------------------------- sum, any, all


def _iterable(typ) -> bool:
    """What sum, any and all loop over: 1-d arrays, ranges, lists, tuples of one type,
    strings, sets, dicts, their views and any iterator (2-d arrays iterate over rows)."""
    if isinstance(typ, types.Array):
        return typ.ndim == 1
    return iterator_of(typ) is not None


def _numbers(typ) -> bool:
    iterator = iterator_of(typ)
    return iterator is not None and isinstance(iterator.yield_type, (types.Number, types.Boolean))


@overload(sum)
def array_rows_sum(iterable, start=0):
    """sum() of the rows of an n-d array (n > 1) from an array `start`: a new array, as
    CPython adds NumPy's rows one by one (`start` itself is left as it is)."""
    if not (isinstance(iterable, types.Array) and iterable.ndim > 1):
        return None
    if not isinstance(start, types.Array):
        return None

    def total(iterable, start=0):
        result = start.copy()  # the rows are added to a new array: start is not changed
        for row in iterable:
            result = result + row
        return result

    return total


# CPython refuses these starts of sum(), pointing at join
_JOINED_STARTS = (
    (types.UnicodeType, "strings [use ''.join(seq) instead]"),
    (types.BytesType, "bytes [use b''.join(seq) instead]"),
    (types.ByteArray, "bytearray [use b''.join(seq) instead]"),
)


@overload(sum)
def sum_with_string_start(iterable, start=0):
    for kind, advice in _JOINED_STARTS:
        if isinstance(types.unliteral(start), kind):
            raise TypingError(f"sum() can't sum {advice}")
    return None


@overload(sum)
def builtin_sum(iterable, start=0):
    """sum() of the numbers of a 1-d array, a range, a list, a tuple, a set, a generator or
    any iterator."""
    if not (_iterable(iterable) and _numbers(iterable)):
        return None
    if not (isinstance(start, int) or isinstance(types.unliteral(start), types.Number)):
        return None
    if isinstance(iterable, types.Array) and not _real(iterable.dtype):
        return None

    def total(iterable, start=0):
        result = start
        for item in iterable:
            result += item
        return result

    return total


@overload(any)
def builtin_any(iterable):
    if isinstance(iterable, types.BaseTuple) and not isinstance(iterable, types.UniTuple):
        return _any_member
    if not _iterable(iterable):
        return None

    def any_true(iterable):
        for item in iterable:
            if item:
                return True
        return False

    return any_true


def _any_member(iterable):
    for item in literal_unroll(iterable):
        if item:
            return True
    return False


@overload(all)
def builtin_all(iterable):
    if isinstance(iterable, types.BaseTuple) and not isinstance(iterable, types.UniTuple):
        return _all_members
    if not _iterable(iterable):
        return None

    def all_true(iterable):
        for item in iterable:
            if not item:
                return False
        return True

    return all_true


def _all_members(iterable):
    for item in literal_unroll(iterable):
        if not item:
            return False
    return True
