"""`f(*t)`, `f(a, *t, b)`, `obj.method(*t)` and `(a, *t)` in compiled code, each against the
interpreter running the same function; a non-tuple or `**kwargs` is refused clearly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from ember.errors import TypingError, UnsupportedError


def _total(*args):
    s = 0.0
    for a in args:
        s += a
    return s


def _digits(x, y, z):
    return x * 100 + y * 10 + z


_compiled_total = njit(_total)
_compiled_digits = njit(_digits)


def _forwards(t):
    return _compiled_total(*t)


def _surrounds(a, t, b):
    return _compiled_total(a, *t, b), _compiled_total(*t, *t)


def _displays(t):
    return (1, *t), (*t,), (*t, *t, 2)


_compiled_forwards = njit(_forwards)
_compiled_surrounds = njit(_surrounds)
_compiled_displays = njit(_displays)


def _python_forwards(t):
    return _total(*t)


def _python_surrounds(a, t, b):
    return _total(a, *t, b), _total(*t, *t)


@settings(max_examples=25, deadline=None)
@given(st.tuples(st.floats(-50, 50), st.floats(-5, 5), st.floats(0, 9)))
def test_star_arguments_match_the_interpreter(t):
    t = (t[0], t[1], float(int(t[2])))  # mixed integral and fractional floats
    assert _compiled_forwards(t) == _python_forwards(t)
    assert _compiled_surrounds(1.5, t, -2.0) == _python_surrounds(1.5, t, -2.0)
    assert _compiled_displays(t) == _displays(t)


def test_star_of_an_array_shape_and_a_method():
    @njit
    def shaped(a, dims):
        return _compiled_digits(*a.shape), a.reshape(*dims), np.zeros((2, *a.shape[1:])).shape

    a = np.arange(6.0).reshape(1, 2, 3)
    digits, reshaped, grown = shaped(a, (3, 2))
    assert digits == _digits(*a.shape)
    np.testing.assert_array_equal(reshaped, a.reshape(3, 2))
    assert grown == (2, 2, 3)


def test_star_of_a_list_or_kwargs_is_refused():
    @njit
    def from_list(values):
        return _compiled_digits(*values)

    with pytest.raises(TypingError, match="unpacks only a tuple"):
        from_list([1, 2, 3])

    @njit
    def with_kwargs(x):
        return _compiled_digits(**{"x": x, "y": 1, "z": 2})

    with pytest.raises(UnsupportedError, match="kwargs"):
        with_kwargs(1)

    @njit
    def spread_list_display(t):
        return [0, *t]

    assert spread_list_display((1, 2)) == [0, 1, 2]  # a list display, built by extend
