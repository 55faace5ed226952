"""Dispatcher, typeof and extension API behaviour that real Numba programs rely on (third
round, _notes/exttests3_gaps.md): each test checks values computed by plain Python/NumPy, or
the exception Numba raises."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

# ---------------------------------------------------------------------------- slice arguments


def _sliced_sum(a, s):
    return a[s].sum()


def _slice_parts(s):
    return s.start, s.stop, s.step


_ARRAY = np.arange(12.0) * 1.5
_WARM = 20  # enough calls for the native entry to be installed


def _warmed(py_func, *args):
    compiled = njit(py_func)
    for _ in range(_WARM):
        compiled(*args)
    return compiled


_part = st.one_of(st.none(), st.integers(-20, 20))


@settings(max_examples=25, deadline=None)
@given(start=_part, stop=_part, step=st.one_of(st.none(), st.integers(-4, 4).filter(bool)))
def test_slice_arguments_through_the_native_entry_match_numpy(start, stop, step):
    compiled = _SLICED_SUM
    s = slice(start, stop, step)
    assert compiled(_ARRAY, s) == pytest.approx(_ARRAY[s].sum())


_SLICED_SUM = _warmed(_sliced_sum, _ARRAY, slice(1, 5))


def test_slice_kinds_two_and_three_parts_and_step_one():
    compiled = _warmed(_sliced_sum, _ARRAY, slice(1, 5))
    for s in (slice(2, 10, 3), slice(None, None, -1), slice(0, 6, 1), slice(None, 4), slice(3)):
        for _ in range(3):
            assert compiled(_ARRAY, s) == _ARRAY[s].sum()
    kinds = {str(sig[1]) for sig in compiled.signatures}
    assert kinds == {"slice<a:b>", "slice<a:b:c>"}  # step 1 is the two-part kind, as typeof says


def test_slice_parts_seen_by_compiled_code():
    compiled = _warmed(_slice_parts, slice(1, 2, 3))
    # Omitted parts are the sentinels of the step's direction; reading them back gives ints.
    assert compiled(slice(-3, 7, 2)) == (-3, 7, 2)
    assert compiled(slice(5, -1, -2)) == (5, -1, -2)


def test_slice_argument_errors_match_python():
    compiled = _warmed(_sliced_sum, _ARRAY, slice(1, 9, 2))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        compiled(_ARRAY, slice(1, 5, 0))
    with pytest.raises(OverflowError):
        compiled(_ARRAY, slice(1 << 70, None, 2))
    # NumPy integers and slices of other objects take the dispatcher's Python path
    assert compiled(_ARRAY, slice(np.int64(1), np.int32(9), np.int16(3))) == _ARRAY[1:9:3].sum()
