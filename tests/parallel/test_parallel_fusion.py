"""Fusion of adjacent parfors under parallel=True: loops of equal iteration space fuse (with
independent statements moved out of the way), and never when a loop reads another's output
at other elements, reads its reduction result, or may share memory with it. Every function
runs three ways with equal results and repeated parallel calls; diagnostics name what fused."""

import numpy as np
import pytest
from test_parallel_numpy import (  # noqa: F401 - the fixture applies here too
    _PARALLEL,
    check,
    compiled,
    every_item_is_worth_a_thread,
    report,
    same,
)

import ember
from ember import prange

rng = np.random.default_rng(9)
VECTOR = rng.random(999)


def fused_kernel(a):
    n = len(a)
    b = np.zeros(n)
    for i in prange(n):
        b[i] = np.sqrt(a[i]) * 2.0
    scale = 3.0 * n  # independent: moves above the first loop
    total = np.sum(b)
    top = np.max(a)
    return total / scale, top, b


def reversed_read(a):
    n = len(a)
    b = np.empty(n)
    for i in prange(n):
        b[i] = a[i] + 1.0
    c = np.empty(n)
    for i in prange(n):
        c[i] = b[n - 1 - i]
    return c


def shifted_read(a):
    n = len(a)
    b = np.empty(n)
    for i in prange(n):
        b[i] = a[i] * 2.0
    c = np.zeros(n)
    for i in prange(n):
        c[i] = b[(i + 1) % n]
    return c


def whole_array_read(a):
    n = len(a)
    b = np.empty(n)
    for i in prange(n):
        b[i] = a[i] * 2.0
    c = np.empty(n)
    for i in prange(n):
        c[i] = b[i] / np.sum(b)
    return c


def centred(a):
    m = np.mean(a)
    out = np.empty(len(a))
    for i in prange(len(a)):
        out[i] = a[i] - m  # reads the first loop's reduction result
    return out


def centred_sum(a):
    m = np.sum(a) / len(a)
    out = np.empty(len(a))
    for i in prange(len(a)):
        out[i] = a[i] - m
    return out


def shared_reduction(a):
    s = 0.0
    for i in prange(len(a)):
        s += a[i]
    for i in prange(len(a)):
        s += 2.0 * a[i]  # the same reduction variable: the loops stay apart
    return s


def two_reductions(a):
    s = 0.0
    for i in prange(len(a)):
        s += a[i]
    t = 0.0
    for i in prange(len(a)):
        t += a[i] * a[i]
    return s, t


def through_a_view(a):
    n = len(a)
    b = np.empty(n)
    v = b[::-1]
    for i in prange(n):
        b[i] = a[i] * 2.0
    c = np.empty(n)
    for i in prange(n):
        c[i] = v[i]
    return c


def different_sizes(a, m):
    n = len(a)
    b = np.zeros(n)
    for i in prange(n):
        b[i] = a[i]
    c = np.zeros(m)
    for i in prange(m):
        c[i] = a[i] * 2
    return b, c


def elementwise_chain(a):
    b = a * 2.0  # an array expression: a fresh array of a's shape
    c = np.empty(b.shape[0])
    for i in prange(b.shape[0]):
        c[i] = b[i] + 1.0
    for i in prange(len(a)):
        c[i] += a[i]
    return c, np.min(c)


def in_place_then_read(a):
    n = len(a)
    b = a.copy()
    for i in prange(n):
        b[i] *= 2.0
    for i in prange(n):
        b[i] += b[i]
    return b


def fusions(rep) -> list:
    return [(kept, absorbed) for kept, absorbed, _ in rep.fused]


def test_fused_kernel():
    rep = check(fused_kernel, VECTOR, repeats=20)
    assert rep.parfor_count == 4  # np.zeros, prange, np.sum, np.max
    # np.zeros' fill, the prange loop and np.sum run as one loop; np.max of floats runs over
    # blocks (a different iteration space)
    assert len(rep.fused) == 2
    unfused = compiled(fused_kernel, fusion=False)
    same(unfused(VECTOR), fused_kernel(VECTOR))
    rep = report(unfused, VECTOR)
    assert rep.parfor_count == 4 and rep.fused == []


@pytest.mark.parametrize("fn", [reversed_read, shifted_read, whole_array_read])
def test_never_fuses_a_read_at_other_elements(fn):
    rep = check(fn, VECTOR, repeats=10)
    reasons = " ".join(why for _, _, why in rep.not_fused)
    assert "other elements" in reasons
    # np.zeros' fill fuses with the loop that writes the array (np.empty has no loop)
    assert len(rep.fused) == (1 if fn is shifted_read else 0)


def test_reduction_result_and_shared_reduction_variable():
    rep = check(centred, VECTOR, repeats=10)
    assert rep.fused == []  # np.mean's empty-array test sits between the loops
    rep = check(centred_sum, VECTOR, repeats=10)
    # m needs the sum (which, of an array passed in, also goes by blocks: another space)
    why = rep.not_fused[0][2]
    assert rep.fused == [] and ("cannot move" in why or "not known to be equal" in why)
    rep = check(shared_reduction, VECTOR, repeats=10)
    assert rep.fused == [] and "reduction variable" in rep.not_fused[0][2]


def test_two_independent_reductions_fuse():
    rep = check(two_reductions, VECTOR, repeats=20)
    assert rep.parfor_count == 2 and len(rep.fused) == 1


def test_views_of_written_arrays_are_not_fused():
    rep = check(through_a_view, VECTOR, repeats=10)
    assert any("share memory" in why for _, _, why in rep.not_fused), rep.not_fused


def test_different_sizes_are_not_fused():
    rep = check(different_sizes, VECTOR, 500, repeats=5)
    assert any("iteration spaces" in why for _, _, why in rep.not_fused)
    assert len(rep.fused) == 2  # each allocation with its own loop


def test_array_expression_shapes_and_in_place_updates():
    rep = check(elementwise_chain, VECTOR, repeats=10)
    assert len(rep.fused) >= 1
    rep = check(in_place_then_read, VECTOR, repeats=10)
    assert len(rep.fused) == 1


def test_diagnostics_report_fusion(capsys):
    check(fused_kernel, VECTOR)
    check(reversed_read, VECTOR)
    dispatcher = _PARALLEL[fused_kernel]
    dispatcher.parallel_diagnostics(level=1)
    text = capsys.readouterr().out
    assert "fused into" in text and "(np.sum)" in text and "(np.zeros)" in text
    _PARALLEL[reversed_read].parallel_diagnostics(level=3)
    assert "not fused" in capsys.readouterr().out
    for level in (2, 4):
        dispatcher.parallel_diagnostics(level=level)
        assert "reduction" in capsys.readouterr().out


def test_array_opt_stats_prints_conversions(capsys, monkeypatch):
    monkeypatch.setattr(ember.config, "DEBUG_ARRAY_OPT_STATS", True)
    compiled(two_reductions)(VECTOR)
    out = capsys.readouterr().out
    assert "fused into" in out and "Parallel for-loop" in out


def index_copy_changed(a):
    n = len(a)
    b = np.zeros(n)
    for i in prange(n):
        b[i] = a[i]
    c = np.zeros(n)
    for i in prange(n):
        k = i
        if k + 1 < n:
            k += 1
        c[i] = b[k]
    return c


def test_a_changed_copy_of_the_index_is_not_the_index():
    rep = check(index_copy_changed, VECTOR, repeats=10)
    assert any("other elements" in why for _, _, why in rep.not_fused), rep.not_fused


def test_level_four_lists_moved_statements(capsys):
    check(fused_kernel, VECTOR)
    _PARALLEL[fused_kernel].parallel_diagnostics(level=4)
    assert "(hoisted)" in capsys.readouterr().out


def test_np_random_becomes_a_parfor_of_chunks_that_does_not_fuse_with_elements():
    def noisy(n):
        return np.random.random(n).sum()

    dispatcher = compiled(noisy)
    assert 0 <= dispatcher(50) <= 50
    rep = report(dispatcher, 50)
    assert rep.conversions() == {"np.random.random": 1, "a.sum() (as np.sum)": 1}
    assert any("not known to be equal" in why for _, _, why in rep.not_fused), rep.not_fused


def time_steps(a, steps):
    n = len(a)
    total = 0.0
    for _ in range(steps):
        b = np.zeros(n)  # fuses with the loop below: both in one run of the loop body
        for i in prange(n):
            b[i] = a[i] * 0.5
        total += np.sum(b)
    return total


def grown_in_a_loop(a, steps):
    out = 0.0
    m = 3
    b = np.zeros(3)
    for k in range(steps):
        for i in prange(m):
            out += a[i]
        for i in prange(len(b)):
            out += b[i]
        b = np.ones(m + k)
    return out


def test_fusion_inside_a_serial_loop():
    rep = check(time_steps, VECTOR, 4, repeats=5)
    assert len(rep.fused) == 2
    check(grown_in_a_loop, VECTOR, 4, repeats=5)


def divide_between(a, out, k):
    n = len(a)
    for i in prange(n):
        out[i] = a[i] + 1.0
    q = 10 // k  # may raise: stays between the loops
    for i in prange(n):
        a[i] = a[i] * q
    return out


def test_a_statement_that_may_raise_does_not_cross_a_loop_with_effects():
    out = np.zeros_like(VECTOR)
    rep = check(divide_between, VECTOR, out, 3)
    assert rep.fused == [] and "cannot move" in rep.not_fused[0][2]
    serial_out, parallel_out = np.zeros_like(VECTOR), np.zeros_like(VECTOR)
    for dispatcher, target in (
        (divide_between, serial_out),
        (_PARALLEL[divide_between], parallel_out),
    ):
        with pytest.raises(ZeroDivisionError):
            dispatcher(VECTOR.copy(), target, 0)
    same(parallel_out, serial_out)  # the first loop ran before the error, as in CPython


def extremes(a):
    return np.min(a), np.max(a)


def test_blocked_min_and_max_fuse_with_each_other():
    rep = check(extremes, rng.random(10_000), repeats=10)
    assert len(rep.fused) == 1


def fill_and_extremes(a):
    b = np.empty(len(a))
    for i in prange(len(a)):
        b[i] = a[i] - 0.5
    return np.min(b), np.max(b), b.sum()


def test_extremes_of_a_local_array_fuse_with_the_loop_filling_it():
    rep = check(fill_and_extremes, VECTOR, repeats=10)
    assert len(rep.fused) == 3
    for position in (0, 500, 998):
        a = VECTOR.copy()
        a[position] = np.nan
        check(fill_and_extremes, a)
        low, high, _ = _PARALLEL[fill_and_extremes](a)
        assert np.isnan(low) and np.isnan(high)
    empty = np.empty(0)
    with pytest.raises(ValueError, match="zero-size array"):
        _PARALLEL[fill_and_extremes](empty)
