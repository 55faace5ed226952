"""Numba's dispatcher names: `nopython_signatures`, `disable_compile()`, and the TypingError
(also a TypeError) of an argument compiled code does not take."""

import pytest

import ember
from ember import types
from ember.errors import TypingError


def halve(x):
    return x / 2


def test_nopython_signatures_list_the_compiled_specializations():
    f = ember.njit(halve)
    assert f(3) == 1.5 and f(1.0) == 0.5
    found = {(tuple(sig.args), sig.return_type) for sig in f.nopython_signatures}
    assert found == {((types.int64,), types.float64), ((types.float64,), types.float64)}


def test_disable_compile_keeps_the_compiled_ones_and_refuses_new_types():
    f = ember.njit(halve)
    assert f(4.0) == 2.0
    f.disable_compile()
    assert f(3) == 1.5  # an int converts to the compiled float64 specialization
    assert len(f.overloads) == 1
    with pytest.raises(TypeError, match="No matching definition"):
        f(1 + 2j)
    f.disable_compile(False)
    assert f(1 + 2j) == (1 + 2j) / 2


def test_an_argument_of_an_unsupported_python_type_is_a_typing_error():
    f = ember.njit(halve)
    with pytest.raises(TypingError, match="argument 'x' of Python type object") as caught:
        f(object())
    assert isinstance(caught.value, TypeError)
