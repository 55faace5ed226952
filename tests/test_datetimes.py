"""datetime64 / timedelta64 in compiled code: arguments and results of every unit, arithmetic
and comparisons with NumPy's unit promotion and NaT rules, np.isnat, array expressions,
reductions and sorting; each compared with what NumPy (the py_func) gives."""

import itertools
import operator
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.errors import TypingError

D = np.datetime64
T = np.timedelta64

# Three units per kind (a day-based, an hour-based and a calendar one), so that every pair of
# units is met while the number of compiled specializations stays small.
DATETIMES = [
    D("2020-02-29"), D("1969-12-31"), D("1900-03-01"), D("NaT", "D"),
    D("2021-06-15T13", "h"), D("1950-01-01T05", "h"), D("NaT", "h"),
    D("2020-03", "M"), D("1960-11", "M"), D("NaT", "M"),
]  # fmt: skip
TIMEDELTAS = [
    T(3, "D"), T(-2, "D"), T("NaT", "D"), T(0, "D"), T(7, "h"), T(-90, "h"), T("NaT", "h"),
    T(-3, "M"), T(14, "M"),
]  # fmt: skip
EVERY_UNIT = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
NUMBERS = [3, -2, 0, 2.5, -0.5, float("nan")]


def same(got, want) -> bool:
    """Equal values of equal types; NaT equals NaT and nan equals nan here."""
    if isinstance(want, np.ndarray):
        if not isinstance(got, np.ndarray) or got.dtype != want.dtype or got.shape != want.shape:
            return False
        if want.dtype.kind in "mM":
            return bool((got.view(np.int64) == want.view(np.int64)).all())
        return bool(np.array_equal(got, want, equal_nan=want.dtype.kind == "f"))
    if isinstance(want, (np.datetime64, np.timedelta64)):
        return (
            type(got) is type(want)
            and got.dtype == want.dtype
            and (got.astype(np.int64) == want.astype(np.int64))
        )
    if isinstance(want, (float, np.floating)) and np.isnan(want):
        return np.isnan(got)
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(map(same, got, want))
    python_class = _PYTHON_CLASS.get(type(want).__mro__[1], type(want))
    return got == want and type(got) in (type(want), python_class)


# ember returns Python numbers where NumPy's scalars give NumPy numbers (as Numba does).
_PYTHON_CLASS = {np.floating: float, np.signedinteger: int, np.generic: bool}


def numpy_result(func, *args):
    """What NumPy gives (the exception class when it refuses)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return func(*args)
        except (TypeError, ValueError) as error:
            return type(error)


def check(jitted, *args) -> None:
    want = numpy_result(jitted.py_func, *args)
    if isinstance(want, type):
        with pytest.raises(TypingError):
            jitted(*args)
        return
    got = jitted(*args)
    assert same(got, want), (args, got, want)


def _jit(func):
    return ember.njit(func)


ADD = _jit(lambda a, b: a + b)
SUB = _jit(lambda a, b: a - b)
MUL = _jit(lambda a, b: a * b)
DIV = _jit(lambda a, b: a / b)
FLOORDIV = _jit(lambda a, b: a // b)
MOD = _jit(lambda a, b: a % b)
COMPARE = _jit(lambda a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b))
LESS = _jit(lambda a, b: a < b)
NOT_EQUAL = _jit(lambda a, b: a != b)
UNARY = _jit(lambda a: (-a, abs(a), +a))
IDENTITY = _jit(lambda a: a)
ISNAT = _jit(lambda a: np.isnat(a))


@pytest.mark.parametrize("unit", EVERY_UNIT)
def test_round_trip_and_isnat_of_every_unit(unit):
    for value in (D(-1234567, unit), D(987, unit), D("NaT", unit), T(-5, unit), T("NaT", unit)):
        check(IDENTITY, value)
        check(ISNAT, value)


def test_mixed_fine_units():
    """Units a thousand apart, both ways, and weeks against days."""
    values = [D(-1500, "ms"), D("NaT", "us"), T(3, "ns"), T(2, "W"), T(-3, "D")]
    for a, b in itertools.product(values, repeat=2):
        check(SUB, a, b)
        check(LESS, a, b)


@pytest.mark.parametrize("op", [SUB, COMPARE], ids=["sub", "compare"])
def test_datetime_with_datetime(op):
    for a, b in itertools.product(DATETIMES, repeat=2):
        check(op, a, b)


@pytest.mark.parametrize("op", [ADD, SUB], ids=["add", "sub"])
def test_datetime_with_timedelta(op):
    for a, b in itertools.product(DATETIMES, TIMEDELTAS):
        check(op, a, b)
        if op is ADD:
            check(op, b, a)


@pytest.mark.parametrize(
    "op", [ADD, SUB, DIV, FLOORDIV, MOD, COMPARE], ids=["add", "sub", "div", "floordiv", "mod",
                                                         "compare"]
)  # fmt: skip
def test_timedelta_with_timedelta(op):
    for a, b in itertools.product(TIMEDELTAS, repeat=2):
        check(op, a, b)


@pytest.mark.parametrize("op", [MUL, DIV, FLOORDIV], ids=["mul", "div", "floordiv"])
def test_timedelta_with_number(op):
    for a, b in itertools.product(TIMEDELTAS, NUMBERS):
        check(op, a, b)
        if op is MUL:
            check(op, b, a)


def test_unary():
    for value in TIMEDELTAS:
        check(UNARY, value)


def test_truth():
    truth = _jit(lambda a: (bool(a), 1 if a else 0))
    for value in (T(0, "D"), T(-2, "D"), T("NaT", "D"), D(0, "D"), D("NaT", "D"), D(1, "D")):
        check(truth, value)


def test_incompatible_units_name_them():
    with pytest.raises(TypingError, match=r"\[Y\].*\[D\]"):
        ADD(T(1, "Y"), T(1, "D"))


# ---------------------------------------------------------------------------- arrays

DAYS = np.array(["2020-01-01", "NaT", "1969-07-20", "1900-02-28", "2038-01-19"], "M8[D]")
HOURS = np.array([5, -7, np.iinfo(np.int64).min, 0, 26], "m8[h]")


def test_array_arguments_results_and_elements():
    check(IDENTITY, DAYS)
    check(IDENTITY, DAYS[::2])
    element = _jit(lambda a, i: a[i])
    for i in range(len(DAYS)):
        check(element, DAYS, i)
        check(element, HOURS, i)


@ember.njit
def _store(a, i, value):
    a[i] = value
    return a


@pytest.mark.parametrize(
    "value", [D("2000-01-01"), D("NaT", "D"), D("1969-12-31T13", "h"), D("2000-01-01T13", "h"),
              D("1800-05", "M")],
)  # fmt: skip
def test_element_store(value):
    """Into a coarser unit the value rounds down (before 1970 too), as NumPy stores it."""
    got = _store(DAYS.copy(), 1, value)
    want = _store.py_func(DAYS.copy(), 1, value)
    assert same(got, want)


def test_store_of_the_other_kind_is_refused():
    with pytest.raises(TypingError, match="timedelta64"):
        _store(DAYS.copy(), 1, T(1, "D"))


EXTREMES = [_jit(lambda a: a.min()), _jit(lambda a: np.max(a)), _jit(lambda a: a.argmax()),
            _jit(lambda a: np.argmin(a))]  # fmt: skip
SORTS = [_jit(lambda a: np.sort(a)), _jit(lambda a: a.argsort())]


@pytest.mark.parametrize(
    "values", [DAYS, DAYS[[0, 2, 3, 4]], DAYS[::2], HOURS, DAYS.reshape(1, 5)],
    ids=["days", "days_without_nat", "strided", "hours", "2d"],
)  # fmt: skip
def test_reductions(values):
    for op in EXTREMES:
        check(op, values)


def test_timedelta_sums():
    total = _jit(lambda a: (a.sum(), np.sum(a)))
    for values in (HOURS, HOURS[[0, 1, 3]], HOURS[::2], HOURS[:0], np.array([], "m8[D]")):
        check(total, values)


def test_sorting_puts_nat_last():
    values = np.array(["2020-01-01", "NaT", "1969-07-20", "NaT", "1900-02-28", "1969-07-20"],
                      "M8[D]")  # fmt: skip
    for op in SORTS:
        check(op, values)


def test_where_and_view():
    choose = _jit(lambda a, b: np.where(np.isnat(a), b, a))
    check(choose, DAYS, D("2000-01-01T06", "h"))
    check(choose, DAYS, DAYS[::-1])
    check(choose, HOURS, T(0, "h"))
    check(_jit(lambda a: a.view(np.int64)), DAYS)
    check(_jit(lambda a: a.view("m8[h]")), HOURS[::2])
    check(choose, DAYS, T(1, "D"))  # NumPy casts the timedelta to a datetime


def test_inplace_operators_write_into_the_array():
    @ember.njit
    def shift(a, by):
        alias = a
        a += by
        alias -= by + by
        return alias

    @ember.njit
    def scale(a, k):
        a *= k
        return a

    # into days, hours round down as NumPy stores them
    for values, by in ((DAYS, T(2, "D")), (HOURS, T(-3, "h")), (HOURS, T(2, "D")),
                       (DAYS, T(1, "h"))):  # fmt: skip
        mine, theirs = values.copy(), values.copy()
        assert same(shift(mine, by), shift.py_func(theirs, by))
        assert same(mine, theirs)
    mine, theirs = HOURS.copy(), HOURS.copy()
    assert same(scale(mine, -3), scale.py_func(theirs, -3))
    assert same(mine, theirs)


def test_empty_reduction_raises():
    with pytest.raises(ValueError, match="zero-size"):
        EXTREMES[0](DAYS[:0])


def test_builtin_min_max_of_two():
    pair = _jit(lambda a, b: (max(a, b), min(a, b)))
    for a, b in itertools.product([D("2020-01-01"), D("1969-01-01"), D("NaT", "D")], repeat=2):
        check(pair, a, b)


def test_creation_with_datetime_dtype():
    check(_jit(lambda n: np.zeros(n, dtype="datetime64[D]")), 3)
    check(_jit(lambda n: np.empty(n, dtype="timedelta64[ns]").shape), 4)


ARRAY_PAIRS = [
    (DAYS, DAYS[::-1]), (DAYS, D("2000-01-01T12", "h")), (D("1999-12-31", "D"), DAYS[::2]),
    (DAYS, HOURS), (HOURS, HOURS[::-1]), (T("NaT", "D"), HOURS), (-2, HOURS), (HOURS, 2.5),
]  # fmt: skip


@pytest.mark.parametrize(
    "op", [ADD, SUB, MUL, DIV, FLOORDIV, MOD, LESS, NOT_EQUAL],
    ids=["add", "sub", "mul", "div", "floordiv", "mod", "less", "not_equal"],
)  # fmt: skip
def test_array_expressions(op):
    for a, b in ARRAY_PAIRS:
        if op is NOT_EQUAL and np.asarray(a).dtype.kind != np.asarray(b).dtype.kind:
            continue  # NumPy answers True there; ember refuses (test_datetime_vs_timedelta...)
        check(op, a, b)


def test_datetime_vs_timedelta_equality_is_refused():
    with pytest.raises(TypingError, match="not_equal"):
        NOT_EQUAL(DAYS, HOURS)


def test_array_ufunc_calls():
    check(_jit(lambda a: np.isnat(a)), DAYS)
    check(_jit(lambda a, b: np.subtract(a, b)), DAYS, D("1999-12-31T23", "h"))
    check(_jit(lambda a, b: np.maximum(a, b)), HOURS, HOURS[::-1])
    check(_jit(lambda a, b: np.fmin(a, b)), HOURS, HOURS[::-1])
    check(_jit(lambda a: np.negative(a)), HOURS)
    check(_jit(lambda a: np.absolute(a)), HOURS)
    check(_jit(lambda a: np.sign(a)), HOURS)
    check(_jit(lambda a, b: np.fmax(a, b)), DAYS, DAYS[::-1])
    check(_jit(lambda a, b: np.minimum(a, b)), D("NaT", "D"), D("2000-01-01", "D"))


def test_constructors_from_constants():
    check(_jit(lambda: np.timedelta64(3, "h")))
    check(_jit(lambda: np.datetime64("2020-01-01")))
    check(_jit(lambda a: a + np.timedelta64(1, "D")), DAYS)
    with pytest.raises(TypingError, match="constant"):  # (an integer count may vary)
        _jit(lambda x: np.timedelta64(x, "D"))(3.5)


def test_calendar_units_convert_through_the_calendar():
    months = np.array(["1969-02", "2000-02", "1600-03", "2100-12", "NaT"], "M8[M]")
    years = np.array(["1969", "2000", "1600", "2100", "NaT"], "M8[Y]")
    check(SUB, months, D("1970-01-01", "D"))
    check(LESS, months, D("2000-01-01", "D"))
    check(SUB, years, D("1970-01-01T00:00:00", "s"))


def _binary(op):
    return _jit(lambda a, b: op(a, b))


def test_numpy_operator_table_matches():
    """Every operator on scalar pairs of mixed kinds agrees with NumPy (sampled)."""
    values = [D("2020-05-05T10", "h"), T(2, "W"), 4]
    for op in (operator.add, operator.sub):
        jitted = _binary(op)
        for a, b in itertools.product(values, repeat=2):
            if isinstance(a, int) and isinstance(b, int):
                continue
            check(jitted, a, b)


def test_record_fields():
    @ember.njit
    def shift(r, i):
        r[i]["t"] = r[i]["t"] + np.timedelta64(1, "s")
        return r[i]["t"], r[0]["t"]

    records = np.zeros(3, dtype=[("t", "M8[ns]"), ("w", "f8")])
    records["t"] = np.array(["2020-01-01", "NaT", "1960-05-05T01:02:03.000000004"], "M8[ns]")
    expected_records = records.copy()
    want = shift.py_func(expected_records, 2)
    assert same(shift(records, 2), want)
    assert same(records["t"], expected_records["t"])


COUNTS = st.integers(-(10**12), 10**12) | st.sampled_from([0, -1, 1, np.iinfo(np.int64).min])


@settings(max_examples=30, deadline=None)
@given(a=COUNTS, b=COUNTS, units=st.sampled_from([("D", "h"), ("h", "D"), ("s", "s")]))
def test_counts_and_units(a, b, units):
    """Any counts (NaT among them, as the int64 minimum) agree with NumPy."""
    first, second = units
    check(SUB, D(a, first), D(b, second))
    check(ADD, D(a, first), T(b, second))
    check(COMPARE, T(a, first), T(b, second))
    check(FLOORDIV, T(a, first), T(b, second))
    check(SUB, D(a, "M"), D(b, second))


CACHED_PROGRAM = """
import numpy as np, ember

@ember.njit(cache=True)
def hours(a, b):
    return (a - b) // np.timedelta64(1, "h"), a - b

got = hours(np.datetime64("2020-01-01"), np.datetime64("2019-12-31T01", "h"))
print(sum(hours.stats.cache_hits.values()), got[0], got[1].astype(np.int64))
"""


def test_cached_function_loads_in_a_new_process(tmp_path):
    """A function loaded from the cache meets datetime types before anything compiled."""
    (tmp_path / "program.py").write_text(CACHED_PROGRAM)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = [
        subprocess.run(
            [sys.executable, "program.py"],
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
        )  # fmt: skip
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert [run.stdout.split() for run in runs] == [["0", "23", "23"], ["1", "23", "23"]]


def test_units_are_told_apart_on_the_native_entry():
    """Scalars and arrays of one kind differ only in their unit (or its multiple): each call
    must find its own specialization, however often they alternate."""
    first = _jit(lambda a: a[0])
    plus_one = _jit(lambda x: x + 1)
    days = np.array(["2020-01-01", "NaT"], "M8[D]")
    values = [days, days.astype("M8[h]"), days.astype("M8[D]").view("m8[D]"), days[::-1]]
    scalars = [D("2020-01-01"), D("2020-01-01T05", "h"), T(3, "D"), T(3), D("NaT")]
    for _ in range(4):
        for array in values:
            check(first, array)
        for scalar in scalars:
            check(plus_one, scalar)
    with pytest.raises(TypingError, match=r"2D"):
        first(np.array([3], "M8[2D]"))
    with pytest.raises(TypeError):
        plus_one(np.datetime64(3, "2D"))


def test_unit_codes_are_numpys_enum():
    """NumPy's NPY_DATETIMEUNIT: Y M W are 0-2, 3 is the retired business day, D..as 4-13,
    generic 14."""
    from ember import types as ember_types

    expected = {"Y": 0, "M": 1, "W": 2, "D": 4, "h": 5, "m": 6, "s": 7, "ms": 8, "us": 9}
    expected.update({"ns": 10, "ps": 11, "fs": 12, "as": 13, "": 14})
    for unit, code in expected.items():
        assert ember_types.NPDatetime(unit).unit_code == code
        assert ember_types.NPTimedelta(unit).unit_code == code
