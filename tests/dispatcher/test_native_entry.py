"""Tests for ember.dispatcher.native_entry: LLVM-generated METH_FASTCALL entry points."""

from __future__ import annotations

import collections
import contextlib
import ctypes
import gc
import importlib.util
import math
import sys
import timeit
import tracemalloc
import types
import weakref
from pathlib import Path

import pytest

try:
    from ember.dispatcher import native_entry as ne
except ImportError:  # package __init__ files may not exist yet
    _PATH = Path(__file__).resolve().parents[2] / "ember" / "dispatcher" / "native_entry.py"
    _SPEC = importlib.util.spec_from_file_location("_ember_native_entry_under_test", _PATH)
    ne = importlib.util.module_from_spec(_SPEC)
    sys.modules[_SPEC.name] = ne
    _SPEC.loader.exec_module(ne)


TARGETS_IR = r"""
define i32 @t_add_i64(ptr %ret, ptr %exc, ptr %env, i64 %a, i64 %b) {
  %s = add i64 %a, %b
  store i64 %s, ptr %ret
  ret i32 0
}

define i32 @t_add_f64(ptr %ret, ptr %exc, ptr %env, double %a, double %b) {
  %s = fadd double %a, %b
  store double %s, ptr %ret
  ret i32 0
}

define i32 @t_raise7(ptr %ret, ptr %exc, ptr %env, i64 %a) {
  store i32 7, ptr %exc
  ret i32 1
}

; ((int64, float64)) -> (float64, int64): (b * 2, a + 1)
define i32 @t_swap(ptr %ret, ptr %exc, ptr %env, i64 %a, double %b) {
  %d = fmul double %b, 2.0
  store double %d, ptr %ret
  %p1 = getelementptr {double, i64}, ptr %ret, i32 0, i32 1
  %a1 = add i64 %a, 1
  store i64 %a1, ptr %p1
  ret i32 0
}

define i32 @t_cadd(ptr %ret, ptr %exc, ptr %env, double %ar, double %ai, double %br,
                   double %bi) {
  %r = fadd double %ar, %br
  %i = fadd double %ai, %bi
  store double %r, ptr %ret
  %pi = getelementptr {double, double}, ptr %ret, i32 0, i32 1
  store double %i, ptr %pi
  ret i32 0
}

define i32 @t_not(ptr %ret, ptr %exc, ptr %env, i8 %x) {
  %y = xor i8 %x, 1
  store i8 %y, ptr %ret
  ret i32 0
}

define i32 @t_none(ptr %ret, ptr %exc, ptr %env, i64 %x) {
  ret i32 0
}

; (none, int64) -> int64: 3 * b  (the none argument flattens to nothing)
define i32 @t_none_arg(ptr %ret, ptr %exc, ptr %env, i64 %b) {
  %r = mul i64 %b, 3
  store i64 %r, ptr %ret
  ret i32 0
}

; ((int64, (float64, bool))) -> float64: a + b + c
define i32 @t_nested(ptr %ret, ptr %exc, ptr %env, i64 %a, double %b, i8 %c) {
  %af = sitofp i64 %a to double
  %cf = uitofp i8 %c to double
  %s1 = fadd double %af, %b
  %s2 = fadd double %s1, %cf
  store double %s2, ptr %ret
  ret i32 0
}

; (int64) -> ((int8, uint64, float32, complex64), bool, none)
define i32 @t_mixed(ptr %ret, ptr %exc, ptr %env, i64 %x) {
  %inner = getelementptr {{i8, i64, float, {float, float}}, i8, i8}, ptr %ret, i32 0, i32 0
  %x8 = trunc i64 %x to i8
  store i8 %x8, ptr %inner
  %pu = getelementptr {i8, i64, float, {float, float}}, ptr %inner, i32 0, i32 1
  store i64 -1, ptr %pu
  %pf = getelementptr {i8, i64, float, {float, float}}, ptr %inner, i32 0, i32 2
  store float 1.5, ptr %pf
  %pc = getelementptr {i8, i64, float, {float, float}}, ptr %inner, i32 0, i32 3
  store float 0.25, ptr %pc
  %pci = getelementptr {float, float}, ptr %pc, i32 0, i32 1
  store float -4.0, ptr %pci
  %pb = getelementptr {{i8, i64, float, {float, float}}, i8, i8}, ptr %ret, i32 0, i32 1
  store i8 1, ptr %pb
  ret i32 0
}

define i32 @t_id_i32(ptr %ret, ptr %exc, ptr %env, i32 %x) {
  store i32 %x, ptr %ret
  ret i32 0
}
"""

MIXED_RET = (("int8", "uint64", "float32", "complex64"), "bool", "none")


@pytest.fixture(scope="module")
def targets() -> dict[str, int]:
    lookup = ne.default_jit().add_module(TARGETS_IR)
    names = [
        "t_add_i64",
        "t_add_f64",
        "t_raise7",
        "t_swap",
        "t_cadd",
        "t_not",
        "t_none",
        "t_none_arg",
        "t_nested",
        "t_mixed",
        "t_id_i32",
    ]
    return {name: lookup(name) for name in names}


class Recorder:
    """Fallback stand-in: records calls and returns a marker tuple."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple, dict]] = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return ("fallback", args, kwargs)


def exception_id(excinfo_address: int) -> int:
    """The id field of the exception record the entry hands to raise_exception."""
    return ctypes.c_int32.from_address(excinfo_address).value


def raise_exception(excinfo_address: int) -> None:
    exc_id = exception_id(excinfo_address)
    if exc_id == 7:
        raise ValueError("exception id 7")
    raise RuntimeError(f"unknown exception id {exc_id}")


def compile_(specs, fallback=None, raise_exc=raise_exception, name="f"):
    fallback = fallback if fallback is not None else Recorder()
    return ne.compile_entry(name, specs, fallback, raise_exc), fallback


# ------------------------------------------------------------------------------------------
# Results against Python
# ------------------------------------------------------------------------------------------


def test_is_real_builtin(targets):
    f, _ = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])], name="add")
    assert type(f) is types.BuiltinFunctionType
    assert f.__name__ == "add"
    assert repr(f) == "<built-in function add>"


def test_add_int64(targets):
    f, fb = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])])
    cases = [(1, 2), (0, 0), (-1, 1), (-5, -7), (2**29, 2**29), (2**40, -3)]
    cases += [(2**62, 2**62 - 1), (-(2**63), 0), (2**63 - 1, 0), (-(2**31), -(2**31))]
    for a, b in cases:
        assert f(a, b) == a + b
        assert type(f(a, b)) is int
    assert f(2**62, 2**62) == -(2**63)  # native int64 wraparound, as compiled code does
    assert fb.calls == []


def test_add_float64(targets):
    f, fb = compile_([(["float64", "float64"], "float64", targets["t_add_f64"])])
    for a, b in [(1.5, 2.25), (-0.0, 0.0), (1e300, 1e300), (float("nan"), 1.0)]:
        r = f(a, b)
        assert type(r) is float
        assert r == a + b or (math.isnan(r) and math.isnan(a + b))
    assert fb.calls == []


def test_tuple_arg_and_return(targets):
    f, fb = compile_([([("int64", "float64")], ("float64", "int64"), targets["t_swap"])])
    assert f((3, 1.25)) == (2.5, 4)
    assert type(f((3, 1.25))) is tuple
    assert fb.calls == []
    # Wrong size, wrong member types, tuple subclass: fallback.
    point = collections.namedtuple("point", "a b")
    for arg in [(3,), (3, 1.25, 0), (3.0, 1.25), (3, 1), point(3, 1.25), [3, 1.25]]:
        assert f(arg) == ("fallback", (arg,), {})
    assert len(fb.calls) == 6


def test_complex_add(targets):
    f, _ = compile_([(["complex128", "complex128"], "complex128", targets["t_cadd"])])
    a, b = complex(1.5, -2.0), complex(0.25, 8.0)
    assert f(a, b) == a + b
    assert type(f(a, b)) is complex
    assert f(1j, 1.0) == ("fallback", (1j, 1.0), {})


def test_bool_not(targets):
    f, _ = compile_([(["bool"], "bool", targets["t_not"])])
    assert f(True) is False
    assert f(False) is True
    assert f(1) == ("fallback", (1,), {})  # int is not bool
    assert f(None) == ("fallback", (None,), {})


def test_bool_is_not_int64(targets):
    f, _ = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])])
    assert f(True, 1) == ("fallback", (True, 1), {})


def test_none_return_and_none_arg(targets):
    f, _ = compile_([(["int64"], "none", targets["t_none"])])
    assert f(5) is None
    g, _ = compile_([(["none", "int64"], "int64", targets["t_none_arg"])])
    assert g(None, 5) == 15
    assert g(0, 5) == ("fallback", (0, 5), {})


def test_nested_tuple_arg(targets):
    f, _ = compile_([([("int64", ("float64", "bool"))], "float64", targets["t_nested"])])
    assert f((2, (0.5, True))) == 3.5
    assert f((2, (0.5, False))) == 2.5
    assert f((2, (0.5, 1))) == ("fallback", ((2, (0.5, 1)),), {})
    assert f((2, [0.5, True])) == ("fallback", ((2, [0.5, True]),), {})


def test_mixed_return_kinds(targets):
    f, _ = compile_([(["int64"], MIXED_RET, targets["t_mixed"])])
    assert f(-5) == ((-5, 2**64 - 1, 1.5, complex(0.25, -4.0)), True, None)
    assert f(300) == ((44, 2**64 - 1, 1.5, complex(0.25, -4.0)), True, None)  # int8 trunc
    inner = f(1)[0]
    assert [type(v) for v in inner] == [int, int, float, complex]


def test_specializations_in_order(targets):
    specs = [
        (["int64", "int64"], "int64", targets["t_add_i64"]),
        (["float64", "float64"], "float64", targets["t_add_f64"]),
        ([("int64", "float64")], ("float64", "int64"), targets["t_swap"]),
    ]
    f, fb = compile_(specs)
    assert f(1, 2) == 3
    assert f(1.5, 2.0) == 3.5
    assert f((1, 2.0)) == (4.0, 2)
    assert fb.calls == []
    assert f(1, 2.0) == ("fallback", (1, 2.0), {})
    assert f() == ("fallback", (), {})
    assert f(1, 2, 3) == ("fallback", (1, 2, 3), {})


def test_symbol_target(targets):
    # A target given by name is declared in the entry module and resolved by the JIT.
    f, _ = compile_([(["int64", "int64"], "int64", "t_add_i64")])
    assert f(40, 2) == 42


def test_non_fast_path_kinds_fall_back(targets):
    f, fb = compile_([(["int32"], "int32", targets["t_id_i32"])])
    assert f(3) == ("fallback", (3,), {})
    assert fb.calls == [((3,), {})]


def test_same_name_entries_are_distinct(targets):
    f, _ = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])], name="same")
    g, _ = compile_([(["float64", "float64"], "float64", targets["t_add_f64"])], name="same")
    assert f(1, 2) == 3
    assert g(1.0, 2.0) == 3.0
    assert g(1, 2) == ("fallback", (1, 2), {})


def test_invalid_kind_rejected(targets):
    with pytest.raises(TypeError):
        ne.build_entry_module("bad", [(["int128"], "int64", 1)], print, print)


# ------------------------------------------------------------------------------------------
# Fallback paths
# ------------------------------------------------------------------------------------------


def test_fallback_for_unmatched_types(targets):
    f, fb = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])])
    assert f("a", "b") == ("fallback", ("a", "b"), {})
    assert f(1, "b") == ("fallback", (1, "b"), {})
    assert f(1.0, 2) == ("fallback", (1.0, 2), {})
    assert len(fb.calls) == 3


def test_fallback_for_kwargs(targets):
    f, fb = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])])
    assert f(1, b=2) == ("fallback", (1,), {"b": 2})
    assert f(a=1, b=2) == ("fallback", (), {"a": 1, "b": 2})
    empty: dict = {}
    assert f(1, 2, **empty) == 3  # empty **kwargs arrive as kwnames=NULL
    assert fb.calls == [((1,), {"b": 2}), ((), {"a": 1, "b": 2})]


def test_int_overflow_falls_back(targets):
    f, fb = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])])
    assert f(2**70, 1) == ("fallback", (2**70, 1), {})
    assert f(1, 2**63) == ("fallback", (1, 2**63), {})
    assert f(1, -(2**63) - 1) == ("fallback", (1, -(2**63) - 1), {})
    assert len(fb.calls) == 3


def test_fallback_exception_propagates(targets):
    def fallback(*args, **kwargs):
        raise KeyError("from fallback")

    f, _ = compile_([(["int64"], "none", targets["t_none"])], fallback=fallback)
    with pytest.raises(KeyError, match="from fallback"):
        f("x")


# ------------------------------------------------------------------------------------------
# Exceptions
# ------------------------------------------------------------------------------------------


def test_exception_propagation(targets):
    seen = []

    def raise_exc(excinfo_address):
        assert type(excinfo_address) is int
        seen.append(exception_id(excinfo_address))
        raise_exception(excinfo_address)

    f, _ = compile_([(["int64"], "int64", targets["t_raise7"])], raise_exc=raise_exc)
    with pytest.raises(ValueError, match="exception id 7"):
        f(1)
    assert seen == [7]
    assert type(seen[0]) is int


def test_raise_exception_returning_normally_is_system_error(targets):
    f, _ = compile_([(["int64"], "int64", targets["t_raise7"])], raise_exc=lambda exc_id: None)
    with pytest.raises(SystemError, match="returned without raising"):
        f(1)


# ------------------------------------------------------------------------------------------
# Reference counting and lifetime
# ------------------------------------------------------------------------------------------

N_LOOP = 100_000


def test_no_leak_of_arguments(targets):
    specs = [
        ([("int64", "float64")], ("float64", "int64"), targets["t_swap"]),
        (["complex128", "complex128"], "complex128", targets["t_cadd"]),
    ]
    f, _ = compile_(specs)
    arg_tuple = (12345678, 1.5)
    big = 2**40 + 17
    c = complex(1.0, 2.0)
    big_tuple = (big, 2.5)
    before = [sys.getrefcount(o) for o in (arg_tuple, big, c, big_tuple)]
    for _ in range(N_LOOP):
        f(arg_tuple)
        f(big_tuple)
        f(c, c)
    after = [sys.getrefcount(o) for o in (arg_tuple, big, c, big_tuple)]
    assert before == after


def test_no_leak_of_fallback_results(targets):
    sentinel = object()

    def fallback(*args, **kwargs):
        return sentinel

    f, _ = compile_([(["int64"], "int64", targets["t_add_i64"])], fallback=fallback)
    arg = "not an int"
    before = (sys.getrefcount(sentinel), sys.getrefcount(arg))
    for _ in range(N_LOOP):
        f(arg)
        f(arg, key=1)
    assert (sys.getrefcount(sentinel), sys.getrefcount(arg)) == before


def test_singleton_refcounts_balanced(targets):
    f_not, _ = compile_([(["bool"], "bool", targets["t_not"])])
    f_none, _ = compile_([(["int64"], "none", targets["t_none"])])
    f_mixed, _ = compile_([(["int64"], MIXED_RET, targets["t_mixed"])])
    gc.collect()
    before = [sys.getrefcount(o) for o in (True, False, None)]
    for _ in range(N_LOOP):
        f_not(True)
        f_not(False)
        f_none(1)
        f_mixed(1)
    after = [sys.getrefcount(o) for o in (True, False, None)]
    # Exact balance is expected; allow a tiny slack for unrelated interpreter activity.
    assert all(abs(a - b) < 50 for a, b in zip(after, before, strict=True)), (before, after)


def test_no_leak_on_exception_path(targets):
    f, _ = compile_([(["int64"], "int64", targets["t_raise7"])])
    arg = 2**50
    before = sys.getrefcount(arg)
    for _ in range(10_000):
        with contextlib.suppress(ValueError):
            f(arg)
    assert sys.getrefcount(arg) == before


def test_memory_stable_over_many_calls(targets):
    specs = [
        ([("int64", "float64")], ("float64", "int64"), targets["t_swap"]),
        (["int64"], MIXED_RET, targets["t_mixed"]),
        (["float64", "float64"], "float64", targets["t_add_f64"]),
    ]
    f, _ = compile_(specs)
    arg = (2**45, 0.5)
    for _ in range(1000):  # warm free lists
        f(arg), f(3), f(0.5, 0.25)
    gc.collect()
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(N_LOOP):
            f(arg)
            f(3)
            f(0.5, 0.25)
        gc.collect()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A leaked result per call would be several megabytes.
    assert end - start < 64 * 1024, end - start


def test_keepalive_owned_by_builtin(targets):
    class Fallback:
        def __call__(self, *args):
            return "fb"

    fb = Fallback()
    ref = weakref.ref(fb)
    f = ne.compile_entry("f", [(["int64"], "int64", targets["t_add_i64"])], fb, raise_exception)
    del fb
    gc.collect()
    assert ref() is not None
    assert f("x") == "fb"
    assert fb_in_keepalive(f, ref())
    del f
    gc.collect()
    assert ref() is None


def fb_in_keepalive(f, obj) -> bool:
    return any(item is obj for item in f.__self__.keepalive)


# ------------------------------------------------------------------------------------------
# Call overhead (printed, not asserted)
# ------------------------------------------------------------------------------------------


def test_call_overhead_report(targets):
    entry, _ = compile_([(["int64", "int64"], "int64", targets["t_add_i64"])], name="entry")

    def f(a, b):
        return a + b

    n = 1_000_000
    results = {}
    for label, fn in [("native entry(1, 2)", entry), ("python f(1, 2)", f)]:
        best = min(timeit.repeat("fn(1, 2)", globals={"fn": fn}, number=n, repeat=5))
        results[label] = best / n * 1e9
    print()
    for label, ns in results.items():
        print(f"{label:>20}: {ns:6.1f} ns/call")
    assert entry(1, 2) == f(1, 2)
