"""Language-core behaviours Numba's own test modules exercise (objmode blocks changing lists and
sets, closures passed on with *args, re-raising, transparent with-contexts): each compiled
function is checked against CPython running the same Python function.
PYTEST_DONT_REWRITE: the compiled functions use `assert`."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from ember import njit, objmode
from ember.misc.objmode import bypass_context, call_context
from tests.oracle import assert_frees_all


def differential(py_func, *args):
    """The jitted function's result (and changes to its arguments) equal CPython's."""
    expected_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = py_func(*expected_args)
    got = njit(py_func)(*got_args)
    assert got == expected
    assert got_args == expected_args
    return got


# ---------------------------------------------------------------- objmode blocks change containers


def mutate_list_in_blocks(x, z):
    x[2] = z
    with objmode():
        x[2] = 2 * x[2]
    with objmode():
        x.append(len(x))
        del x[0]
    return x


def list_made_in_one_block_changed_in_another(n):
    with objmode(y="List(int64)"):
        y = list(range(n))
    with objmode():
        y.reverse()
        y.append(-1)
    return y


def set_changed_in_block(x):
    s = {1, 2, 3}
    with objmode():
        s.add(x)
        s.discard(1)
    return len(s), sum(s)


def aliases_see_the_change(n):
    a = [1.5, 2.5]
    b = a
    with objmode():
        a.extend([float(i) for i in range(n)])
    return len(b), sum(b)


def list_cleared_in_block(x):
    with objmode():
        x.clear()
    x.append(3)
    return x


@pytest.mark.parametrize("z", [0, -7, 15])
def test_objmode_list_changes_reach_compiled_code(z):
    differential(mutate_list_in_blocks, [1, 2, 3, 4], z)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_objmode_list_from_one_block_changed_in_the_next(n):
    differential(list_made_in_one_block_changed_in_another, n)


@pytest.mark.parametrize("x", [1, 2, 9])
def test_objmode_set_changes_reach_compiled_code(x):
    differential(set_changed_in_block, x)


@pytest.mark.parametrize("n", [0, 3])
def test_objmode_list_changes_seen_through_aliases(n):
    differential(aliases_see_the_change, n)


def test_objmode_list_emptied_then_grown():
    differential(list_cleared_in_block, [4, 5, 6])


def test_objmode_list_given_a_wrong_item_raises_type_error():
    def put_string(x):
        with objmode():
            x.append("a")
        return x

    with pytest.raises(TypeError, match="heterogeneous list"):
        njit(put_string)([1])


def test_objmode_list_write_back_frees_everything():
    assert_frees_all(njit(mutate_list_in_blocks), lambda: [1, 2, 3, 4], lambda: 5)
    assert_frees_all(njit(set_changed_in_block), lambda: 4)


# ---------------------------------------------------------------- transparent with-contexts


def inside_transparent_contexts(x):
    a = x + 1
    with bypass_context:
        b = a * 2
        with call_context:
            c = b - 3
    return a, b, c


@pytest.mark.parametrize("x", [-4, 0, 10])
def test_bypass_and_call_contexts_compile_their_block_in_place(x):
    differential(inside_transparent_contexts, x)


def test_np_unused():  # numpy imported for later tests
    assert np.int64(1) == 1
