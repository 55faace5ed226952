"""np.array / np.asarray of a list display (ember/rewrites/array_displays.py): the same arrays
as NumPy's (values, dtype, shape), whether the tuple path or the rebuilt lists serve them, and
lists the rewrite must leave alone."""

import numpy as np
import pytest
from numpy import array as imported_array

from ember import njit
from ember.ir import nodes as ir


def same_as_numpy(func, *args):
    got = njit(func)(*args)
    expected = func(*args)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "func, args",
    [
        (lambda x, y: np.array([x, y, 3.0]), (1, 2.5)),  # int and float items: float64
        (lambda x, y: np.array([x, y], dtype=np.float32), (1, 2)),
        (lambda x, y: np.array([x, y], np.int8), (1, -2)),
        (lambda x, y: np.asarray([x, y]), (-1, 2)),
        (lambda x, y: imported_array([x, y]), (1, 2)),
        (lambda x, y: np.array([[x, y], [y, x]]), (1, 2.0)),
        (lambda x, y: np.array([[[x], [y]], [[y], [x]]]), (1.5, -2.0)),
        (lambda x, y: np.array([(x, y), (y, x)]), (1.0, 2.0)),  # tuples in the display
        (lambda x, y: np.array([x + 1j, y]), (1.0, 2.0)),
        (lambda x, y: np.array([x > 0, y > 0]), (1.0, -2.0)),
        (lambda x, y: np.array([x, True]), (3, 0)),
        (lambda x, y: np.array([x, y], dtype=np.complex128), (1, 2)),
        (lambda x, y: np.array([x if x > y else y, y]), (1.0, 2.0)),
        (lambda x, y: np.array([np.nan, x, -0.0]), (np.inf, 0)),
    ],
)
def test_displays_of_numbers(func, args):
    same_as_numpy(func, *args)


def test_rows_that_are_lists_rebuild_the_lists():
    def mixed(a, b):
        return np.array([[a[0], a[1]], list(b[:2])])

    same_as_numpy(mixed, np.arange(3.0), np.ones(3))


def test_ragged_rows_still_raise_at_run_time():
    @njit
    def ragged(x, y):
        return np.array([[x, y], [y]])

    with pytest.raises(ValueError, match="different lengths"):
        ragged(1, 2.0)


def test_a_list_read_twice_is_left_a_list():
    def twice(x, y):
        values = [x, y]
        values[0] = 7.0  # the list is mutated: it must stay one
        return np.array(values) + np.array(values)

    same_as_numpy(twice, 1.0, 2.0)


def test_in_a_loop():
    def rows(n):
        out = np.empty((n, 3))
        for i in range(n):
            out[i] = np.array([i, i * 0.5, -i])
        return out

    same_as_numpy(rows, 7)


def test_the_rewrite_replaces_the_list_display():
    from ember.rewrites.array_displays import RewriteArrayOfDisplay

    def build():
        return np.array([1.0, 1.0])

    loc = ir.Loc("<test>", 1)
    v = {name: ir.Var(name, loc) for name in ("$np", "$f", "$x", "$list", "$out")}
    body = [
        ir.Assign(v["$np"], ir.Global("np", np, loc), loc),
        ir.Assign(v["$f"], ir.GetAttr(v["$np"], "array", loc), loc),
        ir.Assign(v["$x"], ir.Const(1.0, loc), loc),
        ir.Assign(v["$list"], ir.BuildList([v["$x"], v["$x"]], loc), loc),
        ir.Assign(v["$out"], ir.Call(v["$f"], [v["$list"]], [], loc), loc),
        ir.Return(v["$out"], loc),
    ]
    block = ir.Block(0, loc, body)
    func_ir = ir.FunctionIR({0: block}, (), build, loc)
    rewrite = RewriteArrayOfDisplay(func_ir)
    assert rewrite.match(func_ir, block, None, None)
    new = rewrite.apply()
    values = [stmt.value for stmt in new.body if isinstance(stmt, ir.Assign)]
    assert not any(isinstance(value, ir.BuildList) for value in values)
    assert any(isinstance(value, ir.BuildTuple) for value in values)
    func_ir.blocks[0] = new
    assert not RewriteArrayOfDisplay(func_ir).match(func_ir, new, None, None)
