"""What perf21's speed-ups keep: extremum scans restarted per row keep LLVM's select (the same
results as the interpreter on NaN, ties, infinities, empty rows); loops using complex(...),
`.real` and `.imag` defer their math checks (the same values, and CPython's ValueError for
`math.cos(inf)` raised after the loop, with nothing stored by the caller's arrays before it)."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import assert_frees_all

from ember import njit

FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)


def _outcome(function, *args):
    try:
        value = function(*args)
    except (OverflowError, ValueError, ZeroDivisionError) as error:
        return type(error).__name__
    return value


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, complex) or isinstance(b, complex):
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b, equal_nan=True)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


# ---------------------------------------------------------------------------- extremum scans


def row_cummax_sum(m):
    total = 0.0
    for i in range(m.shape[0]):
        tmp = np.empty(m.shape[1])
        best = m[i, 0] if m.shape[1] else 0.0
        for j in range(m.shape[1]):
            if m[i, j] > best:
                best = m[i, j]
            tmp[j] = best
        total += tmp.sum()
    return total


def global_min_2d(m):
    best = np.inf
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] < best:
                best = m[i, j]
    return best


def row_minima(m):
    out = np.empty(m.shape[0])
    for i in range(m.shape[0]):
        lo = np.inf
        for v in m[i]:
            if v <= lo:
                lo = v
        out[i] = lo
    return out


def _marked_unlikely(func) -> bool:
    """Whether a branch of `func`'s optimized IR carries the unlikely mark (1:1000)."""
    compiled = njit(func)
    compiled(np.zeros((2, 3)))
    (optimized,) = compiled.inspect_llvm().values()
    return re.search(r'"branch_weights", i32 (1, i32 1000|1000, i32 1)}', optimized) is not None


@pytest.mark.parametrize(
    ("func", "marked"), [(row_cummax_sum, False), (global_min_2d, True), (row_minima, False)]
)
def test_only_scans_not_restarted_by_an_outer_loop_are_marked(func, marked):
    assert _marked_unlikely(func) is marked


SCANS = {f.__name__: (f, njit(f)) for f in (row_cummax_sum, global_min_2d, row_minima)}


@pytest.mark.parametrize("name", SCANS)
@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(0, 4),
    cols=st.integers(0, 9),
    data=st.lists(st.sampled_from([-np.inf, -2.5, 0.0, -0.0, 1.0, 1.0, 3.5, np.inf, np.nan])),
)
def test_extremum_scans_equal_python(name, rows, cols, data):
    func, compiled = SCANS[name]
    cells = (data * (rows * cols + 1))[: rows * cols] if data else [0.0] * (rows * cols)
    m = np.array(cells, dtype=np.float64).reshape(rows, cols)
    assert _same(compiled(m), func(m))


def test_row_scan_frees_its_scratch_arrays():
    assert_frees_all(njit(row_cummax_sum), lambda: np.random.default_rng(1).random((5, 7)))


# ---------------------------------------------------------------------------- complex loops


def phase_rotate_power(z, omega):
    total = 0.0
    for i in range(z.shape[0]):
        w = z[i] * complex(math.cos(omega * i), math.sin(omega * i))
        total += w.real * w.real + w.imag * w.imag
    return total


def rotate_into(z, omega, out):
    for i in range(z.shape[0]):
        w = z[i] * complex(math.cos(omega * i), math.sin(omega * i))
        out[i] = w.real - w.imag
    return out


PHASE_ROTATE_POWER = njit(phase_rotate_power)


@settings(max_examples=80, deadline=None)
@given(
    parts=st.lists(st.tuples(FLOATS, FLOATS), max_size=12),
    omega=st.one_of(FLOATS, st.sampled_from([0.0, 0.01, -1.5, math.inf, math.nan])),
)
def test_complex_loop_with_deferred_checks_equals_python(parts, omega):
    z = np.array([complex(a, b) for a, b in parts], dtype=np.complex128)
    expected = _outcome(phase_rotate_power, z, omega)
    assert _same(_outcome(PHASE_ROTATE_POWER, z, omega), expected)


def test_cos_of_infinity_raises_before_any_store_is_seen():
    compiled = njit(rotate_into)
    z = np.ones(600, dtype=np.complex128)  # (more than one block of the blockwise loop)
    for omega in (0.25, -3.0, math.inf, -math.inf, math.nan):
        mine, theirs = np.zeros(600), np.zeros(600)
        expected = _outcome(rotate_into, z, omega, theirs)
        got = _outcome(compiled, z, omega, mine)
        assert isinstance(expected, str) is math.isinf(omega)
        assert _same(got, expected)
        assert np.array_equal(mine, theirs, equal_nan=True)  # (inf: i = 0 stored, cos(nan))


# ---------------------------------------------------------------------------- ordered sums


def trapezoid_sin(n, h):
    s = 0.5 * (math.sin(0.0) + math.sin(math.pi))
    for i in range(1, n):
        s += math.sin(i * h)
    return s * h


def sum_of_exps_float32(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += math.exp(a[i] - a[0])  # (compiled, math.exp of a float32 is a float32, as Numba's)
    return s


def sum_of_exps_in_float32(a):
    """The reference: CPython's loop with each exp rounded to float32, as compiled code types it."""
    s = 0.0
    for i in range(a.shape[0]):
        s += float(np.float32(math.exp(np.float32(a[i] - a[0]))))
    return s


TRAPEZOID_SIN = njit(trapezoid_sin)
SUM_OF_EXPS = njit(sum_of_exps_float32)


@settings(max_examples=60, deadline=None)
@given(st.integers(-3, 300), st.one_of(FLOATS, st.floats(-4.0, 4.0)))
def test_sum_of_sines_equals_cpython_bit_for_bit(n, h):
    assert _same(_outcome(TRAPEZOID_SIN, n, h), _outcome(trapezoid_sin, n, h))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-80.0, 80.0, width=32) | st.sampled_from([np.inf, -np.inf, np.nan])))
def test_float32_sum_of_exps_equals_cpython(values):
    a = np.array(values, dtype=np.float32)
    got, expected = _outcome(SUM_OF_EXPS, a), _outcome(sum_of_exps_in_float32, a)
    if isinstance(expected, float) and math.isfinite(expected):
        assert math.isclose(got, expected, rel_tol=1e-6)
    else:
        assert _same(got, expected)


def module_summing_calls(intrinsic: str, lanes: str, same_block: bool = True) -> str:
    """A block adding the results of a math intrinsic on a vector to a float sum in order."""
    split = "br label %next\nnext:" if not same_block else ""
    vector = f"<4 x {lanes}>"
    widened = (
        f"fpext {vector} %c to <4 x double>"
        if lanes == "float"
        else "fadd <4 x double> %c, zeroinitializer"
    )
    return f"""
declare {vector} @llvm.{intrinsic}.v4{_short(lanes)}({vector})
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
define double @f(ptr %p, double %s) {{
entry:
  %v = load {vector}, ptr %p
  %c = call {vector} @llvm.{intrinsic}.v4{_short(lanes)}({vector} %v)
  {split}
  %d = {widened}
  %r = call double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %d)
  ret double %r
}}
"""


def _short(lanes: str) -> str:
    return {"double": "f64", "float": "f32"}[lanes]


def test_the_detector_wants_a_float64_call_computed_lane_by_lane_beside_an_ordered_sum():
    import llvmlite.binding as llvm_binding

    from ember.codegen.ordered_reductions import sums_gathered_items

    def detected(text: str) -> bool:
        return sums_gathered_items(llvm_binding.parse_assembly(text))

    assert detected(module_summing_calls("sin", "double"))
    assert detected(module_summing_calls("exp", "double"))
    assert not detected(module_summing_calls("sqrt", "double"))  # (a vector instruction)
    assert not detected(module_summing_calls("fabs", "double"))
    assert not detected(module_summing_calls("exp", "float"))  # (float32 lanes: a gain)
    assert not detected(module_summing_calls("sin", "double", same_block=False))


def test_a_sum_of_sines_is_left_scalar():
    TRAPEZOID_SIN(10, 0.1)
    optimized = "\n".join(TRAPEZOID_SIN.inspect_llvm().values())
    assert "llvm.sin.v" not in optimized
    assert "llvm.vector.reduce.fadd" not in optimized


# ---------------------------------------------------------------------------- shutdown


def test_an_array_alive_at_interpreter_exit_is_released_silently():
    import subprocess
    import sys
    from pathlib import Path

    program = (
        "import numpy as np\n"
        "from ember import njit\n"
        "import json\n"
        "json.made = njit(lambda n: np.arange(n) * 2)(1000)\n"  # (freed late at shutdown)
        "print(int(json.made.sum()))\n"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 0
    assert done.stdout.split() == [str(sum(range(1000)) * 2)]
    assert "Exception ignored" not in done.stderr


# ---------------------------------------------------------------------------- per loop


def cubes_and_sines(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i] * a[i]
    t = 0.0
    for i in range(a.shape[0]):
        t += math.sin(a[i] * 0.5 + i)
    return s, t


CUBES_AND_SINES = njit(cubes_and_sines)


def test_only_the_losing_loop_of_a_module_is_kept_scalar():
    CUBES_AND_SINES(np.ones(4))
    optimized = "\n".join(CUBES_AND_SINES.inspect_llvm().values())
    assert "call double @llvm.vector.reduce.fadd" in optimized  # the cubes: in order, vectors
    assert "llvm.sin.v" not in optimized  # the sines: scalar


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e5, 1e5) | st.sampled_from([np.inf, -np.inf, np.nan]), max_size=70))
def test_a_module_of_mixed_sums_equals_cpython_bit_for_bit(values):
    a = np.array(values, dtype=np.float64)
    expected = _outcome(cubes_and_sines, a)
    got = _outcome(CUBES_AND_SINES, a)
    if isinstance(expected, str):
        assert got == expected
    else:
        assert all(_same(g, e) for g, e in zip(got, expected, strict=True))


NESTED_LOOPS_IR = """
define void @f(i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [0, %entry], [%i1, %outer.latch]
  br label %"inner.body"
"inner.body":
  %j = phi i64 [0, %outer], [%j1, %"inner.body"]
  %j1 = add i64 %j, 1
  %more = icmp slt i64 %j1, %n
  br i1 %more, label %"inner.body", label %outer.latch
outer.latch:
  %i1 = add i64 %i, 1
  %again = icmp slt i64 %i1, %n
  br i1 %again, label %outer, label %done, !prof !0
done:
  br label %exit
exit:
  ret void
}
!0 = !{!"branch_weights", i32 1, i32 2}
"""


def test_each_back_edge_gets_its_own_loop_number_and_forward_branches_none():
    import llvmlite.binding as llvm_binding

    from ember.codegen.ordered_reductions import tag_loops

    tagged = tag_loops(NESTED_LOOPS_IR)
    latches = [line for line in tagged.text.splitlines() if "!llvm.loop" in line]
    assert len(latches) == 2
    assert 'label %"inner.body", label %outer.latch, !llvm.loop' in latches[0]
    assert "label %outer, label %done, !prof !0, !llvm.loop" in latches[1]
    assert sorted(tagged.loop_ids) == [0, 1]
    unvectorized = tagged.without_vectorization({1})
    assert unvectorized.count("llvm.loop.vectorize.enable") == 1
    for text in (tagged.text, unvectorized):
        llvm_binding.parse_assembly(text).verify()  # (well-formed metadata)
