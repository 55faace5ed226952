"""Exceptions raised with run-time strings (f-strings, arguments) carry them to Python."""

import pytest

import ember
from ember import njit


@njit
def check_positive(x, name):
    if x < 0:
        raise ValueError(f"{name} must be positive, got {x}", name, x * 2.5)
    return x


@njit
def guarded(x):
    try:
        check_positive(x, "n")
    except ValueError:
        return -1
    return 1


@pytest.mark.parametrize("name", ["size", "größe ✓", "名前", "🙂 emoji", ""])
def test_message_and_arguments_reach_python(name):
    with pytest.raises(ValueError) as raised:
        check_positive(-3, name)
    with pytest.raises(ValueError) as expected:
        check_positive.py_func(-3, name)
    assert raised.value.args == expected.value.args


def test_payload_memory_is_released():
    before = ember.runtime.stats().live
    for _ in range(20):
        with pytest.raises(ValueError):
            check_positive(-1.5, "x")
        assert guarded(-1) == -1 and guarded(2) == 1
    assert ember.runtime.stats().live == before
