"""Loop lifting in object mode (`@jit(forceobj=True)`, `looplift=True` by default): outermost
loops that type in nopython mode run as hidden nopython functions, the others stay in object
mode; results equal CPython's, and the lifted loops show in `lifted_loops`/`inspect_types()`."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import ember
from ember import jit


@jit(forceobj=True)
def summary(values, n):
    meta = {"n": n, "tag": "run-" + str(n)}
    total = 0.0
    for i in range(n):
        total += math.sqrt(values[i % values.shape[0]]) * 0.5
    labels = []
    for key in sorted(meta):
        labels.append(f"{key}={meta[key]}")
    return total, labels


def test_lifted_and_object_mode_loops_give_cpython_results():
    values = np.arange(1.0, 8.0)
    for n in (0, 1, 10, 1000):
        total, labels = summary(values, n)
        want_total, want_labels = summary.py_func(values, n)
        assert total == pytest.approx(want_total, rel=1e-12)
        assert labels == want_labels


def test_numeric_loop_is_nopython_and_python_loop_is_not():
    summary(np.arange(1.0, 4.0), 3)
    numeric, textual = summary.lifted_loops
    (object_signature,) = summary.overloads
    assert summary.overloads[object_signature].lifted == (numeric, textual)  # Numba's spelling
    (signature,) = numeric.overloads
    assert dict(zip(numeric.span.inputs, signature)) == {
        "total": ember.float64,
        "n": ember.int64,
        "values": ember.float64[::1],
    }
    assert numeric.span.outputs == ("total",)
    assert numeric.object_mode is None
    assert textual.overloads == {} and textual.object_mode is not None
    assert "dict" in textual.reason
    out = io.StringIO()
    summary.inspect_types(file=out)
    text = out.getvalue()
    assert "LIFTED LOOP" in text and ":: float64" in text and "runs in object mode" in text


@jit(forceobj=True)
def nested_and_conditional(rows, flag):
    grid = np.zeros((rows, 3))
    if flag:
        for i in range(rows):
            for j in range(3):
                grid[i, j] = i * 10 + j
    count = 0
    while count < rows:
        count += 2
    return grid.sum(), count, str(flag)


@pytest.mark.parametrize("rows, flag", [(4, True), (5, False), (0, True)])
def test_loops_inside_branches_and_while(rows, flag):
    assert nested_and_conditional(rows, flag) == nested_and_conditional.py_func(rows, flag)
    assert len(nested_and_conditional.lifted_loops) == 2


def test_variables_of_other_loops_and_comprehensions_are_not_outputs():
    @jit(forceobj=True)
    def two_loops(xs, flag):
        out = 0
        if flag:
            for x in xs:
                out += x
        else:
            for x in xs:
                out -= x
        return [x * 2 for x in xs], out

    for flag in (True, False):
        assert two_loops([1, 2, 3], flag) == two_loops.py_func([1, 2, 3], flag)
    assert [loop.span.outputs for loop in two_loops.lifted_loops] == [("out",), ("out",)]


def test_loops_that_cannot_be_lifted_stay_in_place():
    @jit(forceobj=True)
    def early_exit(xs):
        for x in xs:
            if x > 2:
                return x
        for y in range(3):
            last = y  # assigned only in the loop, read first by the next statement: lifted
        return last

    assert early_exit([1, 5]) == 5 and early_exit([0]) == 2
    assert [loop.span.outputs for loop in early_exit.lifted_loops] == [("last",)]


def test_looplift_false_keeps_every_loop():
    @jit(forceobj=True, looplift=False)
    def plain(n):
        s = 0
        for i in range(n):
            s += i
        return s

    assert plain(10**3) == plain.py_func(10**3)
    assert plain.lifted_loops == []


def test_exception_inside_a_lifted_loop_propagates():
    @jit(forceobj=True)
    def divides(a, d):
        label = {"d": d}
        for i in range(a.shape[0]):
            a[i] = a[i] // d
        return a, label

    a = np.arange(4)
    got, label = divides(a, 2)
    np.testing.assert_array_equal(got, [0, 0, 1, 1])
    assert label == {"d": 2}
    with pytest.raises(ZeroDivisionError):
        divides(np.arange(3), 0)


def test_dump_ir_marks_lifted_loops(capsys, monkeypatch):
    from ember import config

    monkeypatch.setattr(config, "DUMP_IR", True)

    @jit(forceobj=True)
    def marked(n):
        s = 0
        for i in range(n):
            s += i
        return str(s)

    assert marked(4) == "6"
    assert "LIFTED LOOP at" in capsys.readouterr().out
