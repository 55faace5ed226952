"""ndarray subclasses (np.memmap, a library's own subclass such as stumpy's mparray) pass to
compiled code as their array, as in Numba: read, written in place, returned unchanged; a
subclass with a type of its own keeps it, a masked array is still refused."""

from __future__ import annotations

import numpy as np
import pytest

from ember import njit, typeof, types
from ember.errors import TypingError


class Tagged(np.ndarray):
    """A subclass adding nothing compiled code needs."""


@njit
def total(a):
    return a.sum()


@njit
def scale_in_place(a, factor):
    for i in range(a.shape[0]):
        a[i] *= factor


@njit
def same(a):
    return a


def test_a_subclass_passes_as_its_array(tmp_path):
    tagged = np.arange(5.0).view(Tagged)
    assert typeof(tagged) == types.Array(types.float64, 1, "C")
    assert total(tagged) == np.arange(5.0).sum()
    scale_in_place(tagged, 3.0)
    np.testing.assert_array_equal(np.asarray(tagged), np.arange(5.0) * 3.0)
    assert same(tagged) is tagged  # returned as the object passed in

    mapped = np.memmap(tmp_path / "data.bin", dtype=np.float64, mode="w+", shape=(4,))
    mapped[:] = [1.0, 2.0, 3.0, 4.0]
    scale_in_place(mapped, 2.0)
    mapped.flush()
    again = np.memmap(tmp_path / "data.bin", dtype=np.float64, mode="r", shape=(4,))
    np.testing.assert_array_equal(again, [2.0, 4.0, 6.0, 8.0])
    assert total(again) == 20.0
    with pytest.raises(TypingError):  # a read-only map stays read-only
        scale_in_place(again, 2.0)


def test_a_masked_array_is_still_refused():
    with pytest.raises(TypingError, match="mask"):
        total(np.ma.masked_array([1.0, 2.0], mask=[False, True]))
