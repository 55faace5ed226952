"""`@jit(forceobj=True)`: functions compiled to object-mode machine code (every value a Python
object, operations as C-API calls) give what CPython gives on the same inputs: big integers,
strings, dicts, sets, f-strings, exceptions with their line, `with`, closures, imports."""

from __future__ import annotations

import colorsys
import dataclasses
import difflib
import fnmatch
import gc
import heapq
import html
import posixpath
import shlex
import statistics
import string
import sys
import textwrap
import threading
import traceback
import tracemalloc
import urllib.parse

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import jit


def both(func, *args, **kwargs):
    """(object mode result, CPython result) of the same call."""
    return func(*args, **kwargs), func.py_func(*args, **kwargs)


@jit(forceobj=True)
def mixed(a, b=3):
    d = {"x": a, "y": [b, 2**100]}
    s = f"{a}-{b!r}:{d['y'][1]:x}|{a!s:>6}"
    total = 0
    for i in range(10):
        if i % 2:
            total += i * a
        else:
            total -= 1
    xs = [i * i for i in range(5)]
    p, q = divmod(total, 7)
    return s, d, total, xs, p, q, int(np.sum(np.arange(b)))


@pytest.mark.parametrize("a, b", [(2, 3), (-7, 0), (10**30, 5), (2.5, 4)])
def test_mixed_objects_equal_cpython(a, b):
    got, want = both(mixed, a, b=b)
    assert got == want


@jit(forceobj=True)
def arith(x, y):
    out = [x + y, x - y, x * y, x**2, -x, ~y, x & y, x | y, x ^ y, x == y, x < y, x >= y]
    if y:
        out += [x // y, x % y, x / y]
    if 0 <= y < 200:
        out += [x << y, x >> y]
    return out


@given(st.integers(), st.integers(min_value=-(2**70), max_value=2**70))
@settings(max_examples=60, deadline=None)
def test_integer_arithmetic_is_pythons(x, y):
    assert arith(x, y) == arith.py_func(x, y)


@jit(forceobj=True)
def text(words, sep):
    joined = sep.join(w.upper() for w in words if w)
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    first, *rest = words
    return joined, sorted(counts.items()), first, rest, "a" in joined, joined[::-1][:3]


@given(st.lists(st.text(max_size=5), min_size=1, max_size=8), st.text(max_size=2))
@settings(max_examples=60, deadline=None)
def test_strings_dicts_unpacking(words, sep):
    assert text(words, sep) == text.py_func(words, sep)


@jit(forceobj=True)
def control_flow(n):
    out = []
    i = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 3 == 0:
            continue
        out.append(i)
    s = {x % 4 for x in out}
    d = {x: x * x for x in out if x > 2}
    return out, s, d, any(x > 5 for x in out), (i if i else None), not out, 3 in s, i is None


@pytest.mark.parametrize("n", [0, 1, 7, 30])
def test_loops_comprehensions_conditionals(n):
    got, want = both(control_flow, n)
    assert got == want


def test_closures_varargs_keywords_defaults():
    def outer(k):
        @jit(forceobj=True)
        def inner(x, *args, key=3, **kw):
            g = lambda v: v + k  # noqa: E731
            a, *rest = args
            return g(x), a, rest, key, kw

        return inner

    fn = outer(10)
    assert both(fn, 1, 2, 3, 4, key=5, zz=6)[0] == both(fn, 1, 2, 3, 4, key=5, zz=6)[1]
    assert fn(1, 2) == fn.py_func(1, 2)


def test_prints_and_library_calls(capsys):
    @jit(forceobj=True)
    def report(values):
        import math

        arr = np.asarray(values, dtype=np.float64)
        print("mean", arr.mean(), "sqrt", math.sqrt(len(values)), sep="|")
        return float(np.median(arr))

    assert report([1.0, 5.0, 2.0]) == 2.0
    assert capsys.readouterr().out == "mean|2.6666666666666665|sqrt|1.7320508075688772\n"


# ---------------------------------------------------------------------------- exceptions


@jit(forceobj=True)
def handles(x):
    try:
        y = 10 // x
    except ZeroDivisionError as e:
        y = str(e)
    except (TypeError, ValueError):
        y = "bad"
    else:
        y = y + 1
    finally:
        z = 1
    return y, z


@pytest.mark.parametrize("x", [2, 0, "s", -3])
def test_try_except_else_finally(x):
    assert handles(x) == handles.py_func(x)


@jit(forceobj=True)
def raiser(x):
    if x > 1:
        raise ValueError("big", x)
    return x


def test_exception_reaches_caller_with_its_line():
    with pytest.raises(ValueError) as info:
        raiser(5)
    assert info.value.args == ("big", 5)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.filename, last.name, last.line) == (
        __file__,
        "raiser",
        'raise ValueError("big", x)',
    )


def test_errors_from_operations_and_reraise():
    @jit(forceobj=True)
    def fails(d, key):
        try:
            return d[key]
        except KeyError:
            raise

    assert fails({1: 2}, 1) == 2
    with pytest.raises(KeyError):
        fails({}, 3)

    @jit(forceobj=True)
    def chained(x):
        try:
            return 1 / x
        except ZeroDivisionError as e:
            raise RuntimeError("wrapped") from e

    with pytest.raises(RuntimeError) as info:
        chained(0)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_globals_are_read_at_run_time():
    namespace = {"__builtins__": __builtins__}
    exec("def reads():\n    return later + 1\n", namespace)
    reads = jit(forceobj=True)(namespace["reads"])
    with pytest.raises(NameError, match="name 'later' is not defined"):
        reads()
    namespace["later"] = 41
    assert reads() == 42


def test_unbound_local_and_unpack_errors_match_cpython():
    @jit(forceobj=True)
    def unbound(flag):
        if flag:
            v = 1
        return v  # noqa: F821

    @jit(forceobj=True)
    def unpack(seq):
        a, b = seq
        return a + b

    for func, arg in ((unbound, False), (unpack, [1, 2, 3]), (unpack, [1])):
        with pytest.raises(Exception) as ours:
            func(arg)
        with pytest.raises(Exception) as theirs:
            func.py_func(arg)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)


def test_with_statement():
    @jit(forceobj=True)
    def uses_lock(lock):
        with lock:
            held = lock.locked()
        try:
            with lock:
                raise KeyError("k")
        except KeyError as e:
            message = repr(e)
        return held, message, lock.locked()

    assert uses_lock(threading.Lock()) == uses_lock.py_func(threading.Lock())


# ---------------------------------------------------------------------------- references


@jit(forceobj=True)
def shuffles(a, n):
    keep = []
    for i in range(n):
        pair = (a, i)
        keep.append(pair[0])
        keep = keep[-2:]
    try:
        {}[a.shape]
    except KeyError:
        pass
    return keep[0]


def test_no_reference_leaks():
    a = np.ones(3)
    shuffles(a, 3)
    gc.collect()
    refs = sys.getrefcount(a)
    tracemalloc.start()
    shuffles(a, 5)
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(10_000):
        assert shuffles(a, 5) is a
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert sys.getrefcount(a) == refs
    assert after - before < 10_000  # not one leaked object per call


def test_dispatcher_surface():
    @jit(forceobj=True)
    def add(x, y):
        return x + y

    assert add.signatures == []
    assert add("a", "b") == "ab" and add([1], [2]) == [1, 2]
    assert add.signatures == [("pyobject", "pyobject")]
    assert 'define ptr @"ember.objmode.add' in add.inspect_llvm()[("pyobject", "pyobject")]
    assert add.py_func(1, 2) == 3


def test_generators_yield_as_in_python():
    """As in Numba, a generator function compiles in object mode: its items are CPython's."""

    def countdown(n):
        while n > 0:
            yield n, str(n)
            n -= 1

    assert list(jit(forceobj=True)(countdown)(3)) == list(countdown(3))


STDLIB_CASES = [
    (colorsys.rgb_to_hsv, [(0.2, 0.4, 0.6), (1, 1, 1), (0, 0, 0)]),
    (colorsys.hls_to_rgb, [(0.2, 0.4, 0.6), (0.9, 0.5, 0.0)]),
    (posixpath.normpath, [("a//b/../c/./d",), ("/../x",), ("",)]),
    (posixpath.join, [("a", "b", "/c", "d"), ("x",)]),
    (posixpath.splitext, [("a/b.tar.gz",), (".bashrc",)]),
    (fnmatch.translate, [("*.py",), ("[!a-z]?x*",), ("[]",)]),
    (shlex.quote, [("hello world",), ("",), ("abc",)]),
    (string.capwords, [("hello  big   world",), ("a-b c", "-")]),
    (textwrap.dedent, [("  a\n    b\n  c",), ("x\n y",)]),
    (textwrap.indent, [("a\nb\n", "> ")]),
    (statistics.median, [([3, 1, 2],), ([1, 2, 3, 4],)]),
    (statistics.mode, [([1, 2, 2, 3],)]),
    (html.escape, [("<a href='x'>&</a>",)]),
    (urllib.parse.quote, [("a b/c?d=\u00e9",)]),
    (heapq.nlargest, [(3, [5, 1, 8, 3, 9, 2]), (2, [5, 1, 8], None)]),
    (difflib.get_close_matches, [("appel", ["ape", "apple", "peach", "puppy"])]),
]


@pytest.mark.parametrize("func, calls", STDLIB_CASES, ids=[f.__name__ for f, _ in STDLIB_CASES])
def test_standard_library_functions_compile_and_agree(func, calls):
    compiled = jit(forceobj=True)(func)
    for args in calls:
        assert compiled(*args) == func(*args)


def test_non_functions_are_refused_clearly():
    with pytest.raises(TypeError, match="compiles Python functions"):
        jit(forceobj=True)(urllib.parse.urlsplit)  # an lru_cache wrapper


def test_dump_llvm_shows_object_mode_ir(capsys, monkeypatch):
    from ember import config

    monkeypatch.setattr(config, "DUMP_LLVM", True)

    @jit(forceobj=True)
    def concat(a, b):
        return a + b

    assert concat("x", "y") == "xy"
    out = capsys.readouterr().out
    assert "LLVM DUMP (object mode) " in out and "define ptr" in out


@dataclasses.dataclass
class Point:
    x: int
    y: int


@jit(forceobj=True)
def classify(value):
    match value:
        case [a, b, *rest]:
            return ("seq", a, b, rest)
        case {"k": k, **others}:
            return ("map", k, others)
        case Point(x=0, y=yy):
            return ("on the y axis", yy)
        case Point(xx, yy):
            return ("point", xx, yy)
        case int(n) if n > 3:
            return ("big", n)
        case str() | bytes():
            return "text"
        case _:
            return None


@pytest.mark.parametrize(
    "value", [[1, 2, 3, 4], (5, 6), {"k": 1, "z": 2}, Point(0, 3), Point(1, 2), 7, 2, "s", 3.5]
)
def test_match_statements(value):
    assert classify(value) == classify.py_func(value)


class _Slotted:
    __slots__ = ("x",)


def _set_x(obj, value):
    obj.x = value


def _del_x(obj):
    del obj.x


def test_pyobject_signatures_compile_in_object_mode():
    """`types.pyobject` spells any Python object in an object-mode signature, as in Numba;
    attribute errors are CPython's own."""
    from ember import types

    setter = jit((types.pyobject, types.int32), forceobj=True)(_set_x)
    deleter = jit((types.pyobject,), forceobj=True)(_del_x)
    target = _Slotted()
    setter(target, 123)
    assert target.x == 123
    deleter(target)
    assert not hasattr(target, "x")
    with pytest.raises(AttributeError):
        setter(object(), 1)
    with pytest.raises(AttributeError):
        deleter(_Slotted())


def test_pyobject_in_a_nopython_signature_is_refused():
    from ember import njit, types

    with pytest.raises(TypeError, match="pyobject argument needs object mode"):
        njit((types.pyobject,))(_del_x)
