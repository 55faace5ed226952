"""numbers7: dunder methods of numbers, NaN hashes, tuples sliced by global slices, slices
returned to Python, records compared / gathered into arrays / held by jitclasses, datetime
constructors of run-time values and clearer builtin errors; differential against CPython and
NumPy running the same functions."""

import math
from enum import Enum, IntEnum

import numpy as np
import pytest

import ember
from ember.core.inline_closurecall import length_of_iterator
from ember.errors import TypingError
from ember.experimental import jitclass
from tests.oracle import assert_frees_all, assert_same_array, same

# ---------------------------------------------------------------------------- dunder methods


def _number_dunders(x, y):
    return (
        x.__hash__(),
        x.__add__(y),
        x.__radd__(y),
        x.__sub__(y),
        x.__rsub__(y),
        x.__mul__(y),
        x.__rmul__(y),
        x.__eq__(y),
        x.__ne__(y),
        x.__lt__(y),
        x.__ge__(y),
        x.__neg__(),
        x.__pos__(),
        x.__abs__(),
        x.__bool__(),
        x.__int__(),
        x.__float__(),
        x.__trunc__(),
    )


def _division_dunders(x, y):
    return (x.__truediv__(y), x.__floordiv__(y), x.__mod__(y), x.__rfloordiv__(y), x.__pow__(2))


def test_number_dunder_methods_are_the_operators():
    ints = ember.njit(_number_dunders)
    floats = ember.njit(_number_dunders)
    for x, y in [(7, 2), (-7, 2), (0, -3), (2**40, 5), (True, 3)]:
        assert same(ints(x, y), _number_dunders(x, y)), (x, y)
    for x, y in [(2.5, 1.0), (-3.5, 0.25), (0.0, -0.0), (1e15, 1e300), (-1e-300, math.inf)]:
        assert same(floats(x, y), _number_dunders(x, y)), (x, y)
    divide = ember.njit(_division_dunders)
    for x, y in [(7, 2), (-7, 2), (7, -3), (-9, -4)]:
        assert same(divide(x, y), _division_dunders(x, y)), (x, y)


def test_dunders_of_constants_tuples_and_strings():
    @ember.njit
    def constants(t, s):
        return (
            (3).__add__(4),
            (2.5).__mul__(2),
            t.__hash__(),
            s.__hash__(),
            getattr(t, "__hash__")(),  # noqa: B009 - getattr itself is tested
        )

    t, s = (5, 6, 7), "abc"
    assert constants(t, s) == (7, 5.0, hash(t), hash(s), hash(t))


def test_dunder_with_a_wider_operand_is_not_implemented():
    # (1).__add__(2.5) is NotImplemented in CPython: compiled code refuses it
    @ember.njit
    def int_plus_float(x, y):
        return x.__add__(y)

    assert (1).__add__(2.5) is NotImplemented
    with pytest.raises(TypingError, match="NotImplemented"):
        int_plus_float(1, 2.5)


# ---------------------------------------------------------------------------- hashes of NaN


def test_each_nan_hash_is_fresh_and_sets_keep_nans_apart():
    @ember.njit
    def hashes_and_counts(a):
        seen = set()
        counts = {}
        for v in a:
            seen.add(v)
            counts[v] = counts.get(v, 0) + 1
        return hash(a[0]), hash(a[1]), len(seen), len(counts), hash(1.5)

    a = np.array([np.nan, np.nan, 1.0, 1.0, -0.0, 0.0])
    h0, h1, distinct, keys, plain = hashes_and_counts(a)
    assert h0 != h1 and min(h0, h1) >= 0  # CPython 3.10+: each NaN object hashes apart
    as_python = a.tolist()  # distinct float objects, as the compiled values are
    assert (distinct, keys, plain) == (
        len(set(as_python)),
        len(dict.fromkeys(as_python)),
        (1.5).__hash__(),
    )


# ---------------------------------------------------------------------------- slices

_TUPLE = (1, 2, 3, 4)
_SLICES = [
    slice(*parts)
    for parts in [(None, 2), (1, None), (None, None, -1), (3, 0, -2), (-3, None), (1, 3, 2)]
]


def test_tuples_sliced_by_global_and_free_slices():
    for window in _SLICES:

        @ember.njit
        def by_free_slice():
            return _TUPLE[window], _TUPLE[window][::-1]

        assert by_free_slice() == (_TUPLE[window], _TUPLE[window][::-1]), window


def test_slices_returned_to_python():
    @ember.njit
    def windows(n, w):
        return [slice(max(i - w, 0), min(i + w + 1, n)) for i in range(n)]

    @ember.njit
    def passed_back(s):
        return s

    expected = [slice(max(i - 2, 0), min(i + 3, 5)) for i in range(5)]
    assert windows(5, 2) == expected
    for s in [
        slice(1, 4, 2),
        slice(1, 2),
        slice(3, None, -2),
        slice(None, None, -1),
        slice(1, None),
    ]:
        back = passed_back(s)
        assert (back.start, back.stop, back.step) == (s.start, s.stop, s.step)
    # an omitted forward start is 0 in compiled code: it comes back as 0, the same slice
    assert passed_back(slice(None, 3)) == slice(0, 3)


def test_length_of_iterator():
    @ember.njit
    def lengths(n, xs, a):
        return (
            length_of_iterator(iter(range(n))),
            length_of_iterator(iter(xs)),
            length_of_iterator(iter(a)),
        )

    for n in (5, 0, -5):
        xs = [1.5] * (max(n, 0) + 1)
        assert lengths(n, xs, np.ones(abs(n))) == (max(n, 0), len(xs), abs(n))


# ---------------------------------------------------------------------------- np.array / errors


def test_array_of_empty_tuples():
    @ember.njit
    def of_empty_rows(xs):
        return np.array(xs), np.int8(xs), np.array(xs, np.complex64)

    for got, expected in zip(of_empty_rows([(), (), ()]), of_empty_rows.py_func([(), (), ()])):
        assert_same_array(got, expected)


def test_builtin_error_messages():
    @ember.njit
    def sum_from(t, start):
        return sum(t, start)

    @ember.njit
    def enumerate_from_float():
        total = 0
        for i, _ in enumerate((1, 2), 1.5):
            total += i
        return total

    @ember.njit
    def hasattr_by_branch(pred):
        name = "__hash__" if pred > 3 else "__str__"
        return hasattr(1, name)

    with pytest.raises(TypingError, match=r"sum\(\) can't sum strings \[use ''.join"):
        sum_from((1, 2), "a")
    with pytest.raises(TypingError, match=r"sum\(\) can't sum bytes"):
        sum_from((1, 2), b"a")
    with pytest.raises(TypingError, match="'float' object cannot be interpreted as an integer"):
        enumerate_from_float()
    with pytest.raises(TypingError, match="must be a literal string"):
        hasattr_by_branch(6)


# ---------------------------------------------------------------------------- datetimes


def test_datetime_constructors_of_run_time_values():
    @ember.njit
    def build(n, d, t, d0, t0):
        return (
            np.timedelta64(n, "D"),
            np.timedelta64(n, "ms"),
            np.datetime64(n, "h"),
            np.datetime64(d),
            np.timedelta64(t),
            d0.dtype.type(d0),
            t0.dtype.type(t0),
        )

    for n in (0, 5, -3, 10**6):
        args = (
            n,
            np.datetime64("2020-01-02"),
            np.timedelta64(7, "s"),
            np.array(np.datetime64("2016-01-01T10", "h")),
            np.array(np.timedelta64(3, "h")),
        )
        got, expected = build(*args), build.py_func(*args)
        assert got == expected and [g.dtype for g in got] == [e.dtype for e in expected]


# ---------------------------------------------------------------------------- records

_DT = np.dtype([("x", np.float64), ("n", np.int32), ("v", np.int16, (2,)), ("s", "S3")])


def _records():
    a = np.zeros(5, _DT)
    a["x"] = [1.0, 1.0, np.nan, 1.0, 1.0]
    a["n"] = [1, 1, 1, 2, 1]
    a["v"][4] = [0, 1]
    a["s"] = [b"ab", b"ab", b"ab", b"ab", b"ac"]
    return a


def test_record_equality_is_numpys():
    @ember.njit
    def compare_all(a):
        out = []
        for i in range(len(a)):
            for j in range(len(a)):
                out.append((a[i] == a[j], a[i] != a[j]))
        return out

    a = _records()
    expected = [(bool(a[i] == a[j]), bool(a[i] != a[j])) for i in range(5) for j in range(5)]
    assert compare_all(a) == expected


def test_array_of_records_copies_their_bytes():
    @ember.njit
    def gathered(a):
        b = np.array([a[2], a[0]])
        b[0].x = 100.0  # a copy: a is unchanged
        evens = np.array([a[i] for i in range(len(a)) if a[i].n % 2 == 0])
        return b, evens

    a = _records()
    b, evens = gathered(a)
    expected_b = np.array([a[2], a[0]])
    expected_b[0]["x"] = 100.0
    assert b.dtype == _DT and b.tobytes() == expected_b.tobytes()
    assert evens.tobytes() == a[a["n"] % 2 == 0].tobytes()
    assert a.tobytes() == _records().tobytes()
    assert_frees_all(gathered, _records, calls=50)


_SIMPLE = np.dtype([("x", np.float64), ("n", np.int64)])


@jitclass([("r", ember.from_dtype(_SIMPLE)), ("w", ember.float64)])
class _Holder:
    def __init__(self, w):
        self.w = w

    def hold(self, r):
        self.r = r

    def value(self):
        return self.r.x * self.w + self.r.n

    def bump(self):
        self.r.n += 1


def test_jitclass_record_field():
    a = np.zeros(3, _SIMPLE)
    a["x"], a["n"] = [1.5, 2.5, 3.5], [1, 2, 3]
    holder = _Holder(2.0)
    with pytest.raises(AttributeError, match="read before it is assigned"):
        holder.value()
    holder.hold(a[1])
    assert holder.value() == 2.5 * 2.0 + 2
    holder.bump()  # the field views the array's bytes, as a[1] does in NumPy
    assert a["n"].tolist() == [1, 3, 3]

    @ember.njit
    def held_past_its_array(n):
        b = np.zeros(n, _SIMPLE)
        for i in range(n):
            b[i].x, b[i].n = i * 1.5, i
        h = _Holder(10.0)
        h.hold(b[n - 1])
        return h

    kept = held_past_its_array(4)
    assert kept.value() == 4.5 * 10.0 + 3 and tuple(kept.r) == (4.5, 3)
    assert_frees_all(lambda n: held_past_its_array(n).value(), lambda: 4, calls=50)


# ---------------------------------------------------------------------------- truth values


class _Level(IntEnum):
    OFF = 0
    ON = 1


def _truths(n, xs):
    def gen(k):
        yield k

    return (
        bool(range(n)),
        bool(range(n, 0, -1)),
        1 if range(0, n, 2) else 0,
        bool(iter(xs)),
        bool(slice(1, n)),
        bool(zip(xs, xs)),
        bool(enumerate(xs)),
        bool(gen(n)),
        bool(_Level.OFF),
        bool(_Level.ON),
        not _Level(n % 2),
    )


def test_truth_of_ranges_iterators_slices_and_int_enums():
    truths = ember.njit(_truths)
    for n in (-2, 0, 1, 5):
        assert truths(n, [1.5, 2.5]) == _truths(n, [1.5, 2.5]), n


def test_zero_d_view_width_message():
    @ember.njit
    def view_as_int8(x):
        return np.int32(x).view(np.int8)

    with pytest.raises(TypingError, match="only supported if the itemsize is unchanged"):
        view_as_int8(1)


def test_record_array_item_assigned_a_tuple():
    @ember.njit
    def fill(a):
        for i in range(len(a)):
            a[i] = (i * 1.5, i - 2)  # stored field by field, converted as NumPy does
        a[-1] = (True, 7.9)
        return a

    got = fill(np.zeros(4, _SIMPLE))
    expected = fill.py_func(np.zeros(4, _SIMPLE))
    assert got.tobytes() == expected.tobytes()

    @ember.njit
    def too_short(a):
        a[0] = (1.5,)

    with pytest.raises(TypingError, match="a tuple of 1 items in a record of 2 fields"):
        too_short(np.zeros(2, _SIMPLE))


# ---------------------------------------------------------------------------- optional args


def test_optional_buffer_and_list_arguments():
    @ember.njit((ember.types.Optional(ember.types.MemoryView(ember.types.uint8, 1, "C")),))
    def first_plus_length(m):
        return -1 if m is None else m[0] + len(m)

    @ember.njit((ember.types.Optional(ember.types.List(ember.types.int64, reflected=True)),))
    def appended(xs):
        if xs is None:
            return -1
        xs.append(5)
        return len(xs)

    assert first_plus_length(memoryview(bytearray(b"xyz"))) == ord("x") + 3
    assert first_plus_length(None) == -1
    xs = [1, 2]
    assert appended(xs) == 3 and xs == [1, 2, 5]  # reflected back, as a plain list argument
    assert appended(None) == -1
    assert_frees_all(appended, lambda: [1, 2, 3], calls=50)


# ---------------------------------------------------------------------------- enum spellings


class _Color(Enum):
    RED = 1
    GREEN = 2


class _Odd(Enum):
    A = 1

    def __str__(self):
        return "odd-" + self.name


def _spellings(c, level, odd):
    return (str(c), repr(c), f"{c}", str(level), repr(level), f"{level}!", f"{level:03d}", str(odd))


def test_str_repr_and_format_of_enum_members_are_cpythons():
    spell = ember.njit(_spellings)
    for c, level in [(_Color.RED, _Level.OFF), (_Color.GREEN, _Level.ON)]:
        assert spell(c, level, _Odd.A) == _spellings(c, level, _Odd.A)


def test_truth_of_records_is_numpys():
    @ember.njit
    def truths(a):
        return [bool(a[i]) for i in range(len(a))], [1 if r else 0 for r in a]

    a = np.zeros(6, _DT)
    a["v"][1] = [0, 1]
    a["s"][2] = b"a"
    a["x"][3] = np.nan
    a["x"][4] = -0.0  # zero by value: false, though a byte is set
    a["n"][5] = -1
    expected = [bool(r) for r in a]
    assert truths(a) == (expected, [int(t) for t in expected])


def test_gcd_and_lcm_of_any_number_of_integers():
    @ember.njit
    def folds(a, b, c):
        return (
            math.gcd(a, b, c),
            math.lcm(a, b, c),
            math.gcd(),
            math.lcm(),
            math.gcd(a),
            math.lcm(-a),
            math.gcd(a, b, c, 0),
            math.lcm(a, 0, c),
        )

    for args in [(12, 18, 30), (-4, 6, 10), (0, 0, 0), (7, 3, 5), (2**40, 2**35 * 3, -(2**20))]:
        assert folds(*args) == folds.py_func(*args), args


def test_not_of_datetimes_ranges_enum_members_records_and_iterators():
    def negations(t, d, n, a, xs):
        return not t, not d, not range(n), not _Color.RED, not a[0], not iter(xs), not slice(1, n)

    negate = ember.njit(negations)
    for t, d, n in [(0, "1970-01-01", 0), (5, "2024-03-01", 3)]:
        args = (np.timedelta64(t, "s"), np.datetime64(d), n, np.zeros(1, _SIMPLE), [1])
        assert negate(*args) == negations(*args)


def test_datetime_min_max_of_mixed_units_and_diff():
    @ember.njit
    def extremes(a, b, s, m):
        return max(a, b), min(a, b), max(s, m), min(s, m)

    day, hour = np.datetime64("2024-03-01"), np.datetime64("2024-02-29T23", "h")
    got = extremes(day, hour, np.timedelta64(1, "h"), np.timedelta64(30, "m"))
    assert got == (day, hour, np.timedelta64(60, "m"), np.timedelta64(30, "m"))
    assert [g.dtype for g in got] == [np.dtype("M8[h]")] * 2 + [np.dtype("m8[m]")] * 2

    @ember.njit
    def differences(a, b, n):
        return np.diff(a), np.diff(a, n), np.diff(b, 1, 0), np.diff(b)

    a = np.array(["2024-01-03", "2024-01-01", "2024-01-10", "2024-02-01", "NaT"], "M8[D]")
    b = a[:4].reshape(2, 2)
    for n in (1, 2, 3):
        for got_diff, expected in zip(differences(a, b, n), differences.py_func(a, b, n)):
            assert_same_array(got_diff, expected)


def test_arange_of_datetimes():
    @ember.njit
    def ranges(a, b, step):
        return np.arange(a, b, step), np.arange(a, b)

    day = np.datetime64
    cases = [
        (day("2024-01-01"), day("2024-01-10"), np.timedelta64(2, "D")),
        (day("2024-01-01"), day("2024-01-02"), np.timedelta64(5, "h")),  # the finer unit
        (day("2024-01-10"), day("2024-01-01"), np.timedelta64(-3, "D")),
        (day("2024-01-10"), day("2024-01-01"), np.timedelta64(1, "D")),  # empty
    ]
    for args in cases:
        for got, expected in zip(ranges(*args), ranges.py_func(*args)):
            assert_same_array(got, expected)
    for args, message in [
        ((day("NaT", "D"), day("2024-01-01"), np.timedelta64(1, "D")), "NaT"),
        ((day("2024-01-01"), day("2024-01-05"), np.timedelta64(0, "D")), "step cannot be zero"),
    ]:
        with pytest.raises(ValueError, match=message):
            ranges(*args)
