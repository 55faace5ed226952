"""Numba's refusals for ufunc methods in jitted code and for @guvectorize options: the error
class and the words Numba's users match."""

import warnings

import numpy as np
import pytest

from ember import guvectorize, njit, vectorize
from ember.errors import NumbaExperimentalFeatureWarning, TypingError

add = vectorize(identity=0)(lambda a, b: a + b)
negate = vectorize()(lambda a: -a)


@njit
def reduceat(array, indices, axis=0, out=None):
    return add.reduceat(array, indices, axis=axis, out=out)


@pytest.mark.parametrize(
    ("args", "kwargs", "words"),
    [
        (("abc", [1, 2]), {}, '"array" must be array-like'),
        ((np.arange(5), "abcd"), {}, '"indices" must be array-like'),
        ((np.arange(5), [1, 2]), {"out": ()}, "output must be an array"),
        ((np.arange(5), [1, 2]), {"axis": (1,)}, '"axis" must be an integer'),
    ],
)
def test_reduceat_argument_errors(args, kwargs, words):
    with pytest.raises(TypingError, match=words):
        reduceat(*args, **kwargs)


def test_unary_at_with_an_operand_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        with pytest.raises(TypingError, match="second operand provided when ufunc is unary"):
            njit(lambda a: negate.at(a, [0], 1))(np.arange(3))


def test_guvectorize_refuses_a_bad_identity_before_the_layout():
    def two_params(a, b):  # the layout needs three: the identity is reported first
        pass

    with pytest.raises(ValueError, match="identity"):
        guvectorize(["(int32[:], int32[:], int32[:])"], "(n),(n)->(n)", identity="none")(two_params)
