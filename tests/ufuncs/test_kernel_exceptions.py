"""An exception raised by a @vectorize or @guvectorize kernel is raised by the ufunc call (in
the serial and parallel loops, and for dynamic ufuncs): elementwise loops skip only the
failing elements, gufunc loops stop at the first failure. Expected values come from running
the kernel's Python function element by element."""

import numpy as np
import pytest

from ember import guvectorize, njit, vectorize
from ember.ufuncs.threads import MIN_PARALLEL_WORK


def checked_sqrt(value):
    if value < 0.0:
        raise ValueError("Value must be positive")
    return value**0.5


def scale_checked(inp, n, out):
    for i in range(inp.shape[0]):
        if inp[i] < 0:
            raise ValueError("Value must be positive")
        out[i] = inp[i] * n[0]


def elementwise_in_python(fn, values, out):
    """What the loop leaves in `out`: every element whose call did not raise."""
    raised = None
    for k, value in enumerate(values):
        try:
            out[k] = fn(value)
        except ValueError as error:
            raised = raised or error
    return raised


@pytest.mark.parametrize("target", ["cpu", "parallel"])
@pytest.mark.parametrize("size", [6, MIN_PARALLEL_WORK + 6])
def test_elementwise_kernel_exception_is_raised_and_others_are_computed(target, size):
    ufunc = vectorize(["float64(float64)"], target=target)(checked_sqrt)
    values = np.resize(np.array([1.0, 4.0, -2.0, 9.0, -1.0, 16.0]), size)
    expected = np.zeros_like(values)
    python_error = elementwise_in_python(checked_sqrt, values, expected)
    out = np.zeros_like(values)
    with pytest.raises(ValueError, match="Value must be positive"):
        ufunc(values, out)
    assert python_error is not None
    np.testing.assert_array_equal(out, expected)


def test_no_exception_when_no_element_raises():
    ufunc = vectorize(["float64(float64)"])(checked_sqrt)
    values = np.arange(5.0)
    np.testing.assert_array_equal(ufunc(values), [checked_sqrt(v) for v in values])


def test_dynamic_ufunc_and_call_from_jitted_code_raise():
    dynamic = vectorize(checked_sqrt)
    with pytest.raises(ValueError, match="positive"):
        dynamic(np.array([1.0, -1.0]))

    @njit
    def call(a):
        return dynamic(a)

    with pytest.raises(ValueError, match="positive"):
        call(np.array([1.0, -1.0]))


def test_message_with_runtime_values():
    def check_small(v):
        if v > 3:
            raise IndexError(f"too big: {v}")
        return v

    ufunc = vectorize(["int64(int64)"])(check_small)
    with pytest.raises(IndexError, match="too big: 4"):  # the first failing element's
        ufunc(np.arange(8))


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_gufunc_kernel_exception_stops_the_loop(target):
    gufunc = guvectorize(["int32[:], int32[:], int32[:]"], "(n),()->(n)", target=target)(
        scale_checked
    )
    values = np.array([1, 2, -3, 4], dtype=np.int32)
    expected = np.zeros_like(values)
    with pytest.raises(ValueError):
        scale_checked(values, np.array([2], dtype=np.int32), expected)
    out = np.zeros_like(values)
    with pytest.raises(ValueError, match="positive"):
        gufunc(values, 2, out)
    np.testing.assert_array_equal(out, expected)  # [2, 4, 0, 0]: the call bailed out
