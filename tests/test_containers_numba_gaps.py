"""Container and string behaviours that Numba's own tests exercise and ember once missed (found
by running Numba's test modules against ember): each checked against CPython running the
same function, or against the exception Python raises."""

import pytest

from ember import njit


def _repeat(n, times):
    return list(range(n)) * times


def _repeat_in_place(n, times):
    items = list(range(n))
    items *= times
    return items


@pytest.mark.parametrize("repeat", [_repeat, _repeat_in_place])
def test_list_repeat_matches_python(repeat):
    for n, times in [(3, 2), (0, 5), (2, -1), (4, 0)]:
        assert njit(repeat)(n, times) == repeat(n, times)


@pytest.mark.parametrize("repeat", [_repeat, _repeat_in_place])
@pytest.mark.parametrize("times", [2**58, 2**62])
def test_list_repeat_too_big_raises_memory_error(repeat, times):
    # CPython raises MemoryError (or OverflowError) before allocating; so must compiled code
    with pytest.raises(MemoryError):
        njit(repeat)(1, times)
