"""ext7: overload signatures that keep omitted arguments apart from passed ones
(`types.Omitted`), and the extension-API fixes of this round.

Values are checked against CPython running the same functions (`py_func`), NumPy, or worked by
hand.
"""

import gc
import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import ember
from ember import types
from ember.extending import (
    NativeValue,
    box,
    lower_builtin,
    make_attribute_wrapper,
    models,
    overload,
    overload_method,
    register_model,
    type_callable,
    typeof_impl,
    unbox,
)

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------ omitted vs passed arguments


def clipped_norm(v, limit=math.inf):
    """Euclidean norm of `v`, capped at `limit` (none by default) (pure Python: the reference)."""
    return min(math.sqrt(sum(x * x for x in v)), limit)


@overload(clipped_norm)
def _clipped_norm(v, limit=math.inf):
    if not isinstance(limit, types.Type):  # omitted: no cap to apply

        def uncapped(v, limit=math.inf):
            total = 0.0
            for x in v:
                total += x * x
            return math.sqrt(total)

        return uncapped

    def capped(v, limit=math.inf):
        total = 0.0
        for x in v:
            total += x * x
        return min(math.sqrt(total), limit)

    return capped


def test_an_overload_may_choose_by_whether_an_argument_was_passed():
    """A passed float `limit` and the omitted float default type alike; the overload chooses a
    different implementation for each, and both calls work in one process."""

    @ember.njit
    def passed(v, cap):
        return clipped_norm(v, cap)

    @ember.njit
    def by_keyword(v, cap):
        return clipped_norm(v, limit=cap)

    @ember.njit
    def omitted(v):
        return clipped_norm(v)

    vectors = [np.array([3.0, 4.0]), np.array([]), np.array([1e200, 1e200]), np.ones(7) * -2.0]
    for v in vectors:
        assert omitted(v) == clipped_norm(v.tolist())
        for cap in (0.5, 5.0, 1e300, math.inf, -1.0):
            assert passed(v, cap) == clipped_norm(v.tolist(), cap)
            assert by_keyword(v, cap) == clipped_norm(v.tolist(), cap)


def test_an_overload_method_may_choose_by_whether_an_argument_was_passed():
    """`start.step(n)` / `start.step()` on a number: the omitted `n` means 'by one' and is
    lowered as a different implementation from a passed int."""

    @overload_method(types.Integer, "ext7_step")
    def _step(self, n=1):
        if not isinstance(n, types.Type):
            return lambda self, n=1: self + 1
        return lambda self, n=1: self + n * 10  # passed: steps of ten

    @ember.njit
    def both(x, n):
        return x.ext7_step(), x.ext7_step(n), x.ext7_step(n=n)

    for x, n in [(0, 1), (-7, 3), (2**62, 0), (5, -2)]:
        assert both(x, n) == (x + 1, x + n * 10, x + n * 10)


def test_ufunc_reduce_with_and_without_where_in_one_process():
    """The reported case: np.add.reduce with a run-time `where` flag, then without it."""

    @ember.njit
    def masked(a, flag):
        return np.add.reduce(a, axis=0, keepdims=True, where=flag)

    @ember.njit
    def plain(a):
        return np.add.reduce(a, axis=0, keepdims=True)

    a = np.arange(12.0).reshape(4, 3)
    for flag in (True, False):
        expected = np.add.reduce(a, axis=0, keepdims=True, where=flag)
        np.testing.assert_array_equal(masked(a, flag), expected)
    np.testing.assert_array_equal(plain(a), np.add.reduce(a, axis=0, keepdims=True))


def test_omitted_types_are_distinct_per_default_value():
    assert types.Omitted(1) is types.Omitted(1)
    assert types.Omitted(1) is not types.Omitted(1.0)
    assert types.Omitted(None) is not types.Omitted(False)
    shared = [1, 2]
    assert types.Omitted(shared) is types.Omitted(shared)  # an unhashable default: by identity
    assert types.Omitted(shared) is not types.Omitted([1, 2])


# ------------------------------------------------------------------ lists of an extension's type


class Span:
    """An extension's value type: two floats, boxed and unboxed by the extension."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __eq__(self, other):
        return isinstance(other, Span) and (self.lo, self.hi) == (other.lo, other.hi)

    def __repr__(self):
        return f"Span({self.lo}, {self.hi})"


class SpanType(types.Type):
    def __init__(self):
        super().__init__(name="ext7Span")


span_type = SpanType()
typeof_impl.register(Span)(lambda value, c: span_type)


@type_callable(Span)
def _type_span(context):
    def typer(lo, hi):
        if isinstance(lo, types.Float) and isinstance(hi, types.Float):
            return span_type

    return typer


@register_model(SpanType)
class _SpanModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("lo", types.float64), ("hi", types.float64)])


make_attribute_wrapper(SpanType, "lo", "lo")
make_attribute_wrapper(SpanType, "hi", "hi")


@lower_builtin(Span, types.Float, types.Float)
def _make_span(context, builder, sig, args):
    from ember.core import cgutils

    span = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    span.lo, span.hi = args
    return span._getvalue()


@unbox(SpanType)
def _unbox_span(typ, obj, c):
    from ember.core import cgutils

    span = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    lo, hi = (c.pyapi.object_getattr_string(obj, name) for name in ("lo", "hi"))
    span.lo, span.hi = c.pyapi.float_as_double(lo), c.pyapi.float_as_double(hi)
    c.pyapi.decref(lo)
    c.pyapi.decref(hi)
    failed = cgutils.is_not_null(c.builder, c.pyapi.err_occurred())
    return NativeValue(span._getvalue(), is_error=failed)


@box(SpanType)
def _box_span(typ, val, c):
    from ember.core import cgutils

    span = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    lo, hi = c.pyapi.float_from_double(span.lo), c.pyapi.float_from_double(span.hi)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Span))
    made = c.pyapi.call_function_objargs(cls, (lo, hi))
    for obj in (lo, hi, cls):
        c.pyapi.decref(obj)
    return made


def test_lists_of_an_extension_type_are_built_and_returned_to_python():
    """Appended, displayed, and returned (each item through the extension's @box)."""

    @ember.njit
    def spans(bounds):
        out = []
        for i in range(bounds.shape[0]):
            out.append(Span(bounds[i, 0], bounds[i, 1]))
        return out

    @ember.njit
    def twice(s):
        return [s, Span(s.hi, s.lo)], (s, s.hi - s.lo)

    def spans_py(bounds):
        return [Span(lo, hi) for lo, hi in bounds.tolist()]

    for bounds in (np.array([[0.0, 1.0], [-2.5, 3.0], [math.inf, -0.0]]), np.empty((0, 2))):
        assert spans(bounds) == spans_py(bounds)
    made = spans(np.array([[1.0, 2.0]] * 3))
    assert len({id(item) for item in made}) == 3  # a new object per item
    assert twice(Span(1.5, 4.0)) == ([Span(1.5, 4.0), Span(4.0, 1.5)], (Span(1.5, 4.0), 2.5))


def test_a_python_list_of_an_extension_type_is_passed_and_written_back():
    """Each item unboxed by the extension's @unbox; after the call the list holds what the
    callee made of it (unchanged items stay the very objects)."""

    @ember.njit
    def widths(spans):
        return [s.hi - s.lo for s in spans]

    @ember.njit
    def widen_second(spans, by):
        spans[1] = Span(spans[1].lo - by, spans[1].hi + by)
        spans.append(Span(by, by))

    def widen_second_py(spans, by):
        spans[1] = Span(spans[1].lo - by, spans[1].hi + by)
        spans.append(Span(by, by))

    made = [Span(0.0, 1.0), Span(2.0, 5.5), Span(-1.0, -1.0)]
    expected = [s.hi - s.lo for s in made]
    for _ in range(40):  # the dispatcher's own path, then its native entry
        assert widths(made) == expected
    for by in (0.5, -2.0):
        mine, theirs = list(made), list(made)
        widen_second(mine, by)
        widen_second_py(theirs, by)
        assert mine == theirs
        assert mine[0] is made[0] and mine[2] is made[2]
    with pytest.raises(TypeError):
        widths([Span(0.0, 1.0), Span("a", 1.0)])


# ------------------------------------------------------------------ context.nrt


class Scaled:
    """An extension's value holding an array: its model counts a reference to it."""

    def __init__(self, data, scale):
        self.data, self.scale = np.asarray(data, dtype=np.float64), float(scale)


class ScaledType(types.Type):
    def __init__(self):
        super().__init__(name="ext7Scaled")


scaled_type = ScaledType()
typeof_impl.register(Scaled)(lambda value, c: scaled_type)


@register_model(ScaledType)
class _ScaledModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("data", types.float64[::1]), ("scale", types.float64)])


make_attribute_wrapper(ScaledType, "data", "data")
make_attribute_wrapper(ScaledType, "scale", "scale")


@type_callable(Scaled)
def _type_scaled(context):
    return lambda data, scale: scaled_type


@lower_builtin(Scaled, types.Array, types.Float)
def _make_scaled(context, builder, sig, args):
    from ember.core import cgutils

    made = cgutils.create_struct_proxy(scaled_type)(context, builder)
    made.data, made.scale = args
    context.nrt.incref(builder, sig.args[0], args[0])  # the argument was borrowed
    return made._getvalue()


@box(ScaledType)
def _box_scaled(typ, val, c):
    from ember.core import cgutils

    made = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    data = c.box(types.float64[::1], made.data)
    scale = c.pyapi.float_from_double(made.scale)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Scaled))
    result = c.pyapi.call_function_objargs(cls, (data, scale))
    for obj in (data, scale, cls):
        c.pyapi.decref(obj)
    return result


@ember.extending.intrinsic
def _doubled_through_a_block(typingctx, x):
    """Stores x in a new runtime block, reads it back doubled, releases the block."""
    from llvmlite import ir

    def codegen(context, builder, sig, args):
        meminfo = context.nrt.meminfo_alloc(builder, ir.Constant(ir.IntType(64), 8))
        data = context.nrt.meminfo_data(builder, meminfo)
        builder.store(args[0], data)
        value = builder.load(data, typ=ir.DoubleType())
        from ember.lowering import arrays

        arrays.nrt.emit_decref(builder, meminfo)
        return builder.fadd(value, value)

    return types.float64(types.float64), codegen


def test_lowering_code_counts_references_with_context_nrt():
    from oracle import assert_frees_all

    @ember.njit
    def make(n, k):
        return Scaled(np.arange(n * 1.0), k)

    @ember.njit
    def total(n, k):
        s = Scaled(np.arange(n * 1.0), k)
        return s.data.sum() * s.scale

    @ember.njit
    def member_outlives(n):
        s = Scaled(np.arange(n * 1.0), 3.0)
        kept = s.data  # a reference of its own: still there when `s` goes
        s = Scaled(np.zeros(2), 1.0)
        return kept

    def live():
        gc.collect()
        stats = ember.runtime.stats()
        return stats.alloc - stats.free

    before = live()
    kept = member_outlives(5)
    assert live() - before == 1  # the arange block, held by the returned array
    assert kept.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    del kept
    assert live() == before

    made = make(4, 0.5)
    assert made.data.tolist() == [0.0, 1.0, 2.0, 3.0] and made.scale == 0.5
    assert [total(n, 2.0) for n in (0, 1, 5)] == [0.0, 0.0, 20.0]
    assert_frees_all(make, lambda: 5, lambda: 1.5)
    assert_frees_all(total, lambda: 5, lambda: 1.5)

    doubled = ember.njit(lambda x: _doubled_through_a_block(x))
    assert [doubled(x) for x in (1.5, -0.0, 1e308)] == [3.0, -0.0, math.inf]
    assert_frees_all(doubled, lambda: 2.0)


# ------------------------------------------------------------------ object mode and the cache


def test_caching_an_object_mode_function_with_lifted_loops_warns_when_it_compiles():
    """As Numba: the warning comes with the first compile and names the lifted code."""

    def looplifted(n):
        object()
        total = 0
        for i in range(n):
            total = total + i * i
        return total

    jitted = ember.jit(forceobj=True, cache=True)(looplifted)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert [jitted(n) for n in (0, 1, 5, 100)] == [looplifted(n) for n in (0, 1, 5, 100)]
    messages = [str(w.message) for w in caught]
    expected = 'Cannot cache compiled function "'
    assert [m for m in messages if m.startswith(expected)] == [
        m for m in messages if "as it uses lifted code" in m and "looplifted" in m
    ]
    assert len([m for m in messages if m.startswith(expected)]) == 1


# ------------------------------------------------------------------ generators and the cache

GENERATOR_MODULE = """\
import ember

@ember.njit(cache=True)
def countdown(n):
    while n > 0:
        yield n, n * 0.5
        n -= 1
    if n < 0:
        raise ValueError("negative start")
"""

GENERATOR_DRIVER = """\
import json
import gens
values = [list(gens.countdown(4)), list(gens.countdown(0))]
try:
    list(gens.countdown(-1))
except ValueError as error:
    values.append(str(error))
print(json.dumps({"values": values, "hits": sum(gens.countdown.stats.cache_hits.values())}))
"""


def test_a_generator_function_is_cached_across_processes(tmp_path):
    (tmp_path / "gens.py").write_text(GENERATOR_MODULE)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("EMBER_", "NUMBA_"))}
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(tmp_path)])
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-W", "error::UserWarning", "-c", GENERATOR_DRIVER],
            cwd=tmp_path,
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    expected = [[[n, n * 0.5] for n in (4, 3, 2, 1)], [], "negative start"]
    assert runs[0]["values"] == runs[1]["values"] == expected
    assert (runs[0]["hits"], runs[1]["hits"]) == (0, 1)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
