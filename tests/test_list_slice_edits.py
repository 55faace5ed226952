"""`del xs[i]`, `del xs[a:b:k]` and `xs[a:b:k] = ys` on lists in compiled code, against CPython
running the same function."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

slice_bound = st.one_of(st.none(), st.integers(-8, 8))


def edit(n, index, start, stop, step, width):
    xs = [float(i) for i in range(n)]
    removed = xs[:]
    if -n <= index < n:
        del removed[index]
    cut = xs[:]
    del cut[start:stop:step]
    replaced = xs[:]
    replaced[start:stop] = [100.0 + k for k in range(width)]
    aliased = xs[:]
    aliased[start:stop] = aliased
    return removed, cut, replaced, aliased


compiled_edit = njit(edit)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 7),
    st.integers(-8, 8),
    slice_bound,
    slice_bound,
    st.sampled_from([None, 1, 2, 3, -1, -2]),
    st.integers(0, 4),
)
def test_deleting_and_replacing_slices_matches_python(n, index, start, stop, step, width):
    assert compiled_edit(n, index, start, stop, step, width) == edit(
        n, index, start, stop, step, width
    )


def extended(n, start, step, width):
    xs = [i for i in range(n)]
    xs[start::step] = [-k for k in range(width)]
    return xs


@pytest.mark.parametrize("args", [(6, 0, 2, 3), (6, 1, 2, 3), (5, -1, -2, 3), (7, 0, 3, 3)])
def test_extended_slices_take_a_list_of_their_length(args):
    assert njit(extended)(*args) == extended(*args)


@pytest.mark.parametrize("args", [(6, 0, 2, 2), (5, 0, 2, 1)])
def test_a_wrong_length_for_an_extended_slice_raises_value_error(args):
    with pytest.raises(ValueError, match="extended slice"):
        extended(*args)
    with pytest.raises(ValueError, match="extended slice"):
        njit(extended)(*args)


def delete_at(xs, index):
    del xs[index]


def test_deleting_past_the_end_raises_index_error():
    with pytest.raises(IndexError, match="list assignment index out of range"):
        njit(delete_at)([1.0, 2.0], 2)
