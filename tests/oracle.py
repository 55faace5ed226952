"""Comparison oracle shared by the differential tests: equal in type and value; and the jitted
version of a Python function for given arguments."""

import math

import ember

_dispatchers: dict = {}


def jitted(py_func, args):
    """`njit(py_func)`, one dispatcher per argument types, made once.

    That compiles exactly the specializations one shared dispatcher would, but each call runs
    the specialization of its own argument types whatever other tests compiled before; and a
    dispatcher does not rebuild its native entry (which covers all its specializations) for
    each new type a hypothesis example brings.
    """
    key = (py_func, tuple(ember.typeof(arg) for arg in args))
    if key not in _dispatchers:
        _dispatchers[key] = ember.njit(py_func)
    return _dispatchers[key]


def for_types(dispatcher, *args):
    """The function of the plain `@njit` `dispatcher` in its own dispatcher for the types of
    `args` (`jitted`): for parametrized cases that would otherwise compile dozens of
    specializations into one dispatcher, rebuilding its native entry over all of them for
    each new one."""
    return jitted(dispatcher.py_func, args)


def same(a, b) -> bool:
    """Equal in type and value; NaN equals NaN and 0.0 differs from -0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    return a == b


def assert_same_array(got, expected) -> None:
    """Equal values (NaN equal to NaN) of the same shape and dtype; a 0-d result may come back
    as a scalar."""
    import numpy as np

    got_array, expected_array = np.asarray(got), np.asarray(expected)
    assert got_array.shape == expected_array.shape, (got_array.shape, expected_array.shape)
    assert got_array.dtype == expected_array.dtype, (got_array.dtype, expected_array.dtype)
    np.testing.assert_array_equal(got_array, expected_array)


def assert_arrays_close(compiled, expected, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Nested tuples/lists of arrays or scalars: same structure, shapes and dtype kinds, values
    within the tolerances (NaN equals NaN)."""
    import numpy as np

    if isinstance(expected, (tuple, list)):
        assert len(compiled) == len(expected)
        for c, e in zip(compiled, expected):
            assert_arrays_close(c, e, rtol, atol)
        return
    assert np.shape(compiled) == np.shape(expected)
    assert np.asarray(compiled).dtype.kind == np.asarray(expected).dtype.kind
    np.testing.assert_allclose(compiled, expected, rtol=rtol, atol=atol, equal_nan=True)


def assert_frees_all(func, *make_args, calls: int = 200) -> None:
    """`func(*args)` with fresh arguments each call allocates nothing it does not free."""
    import gc

    func(*(make() for make in make_args))
    gc.collect()
    before = ember.runtime.stats()
    for _ in range(calls):
        func(*(make() for make in make_args))
    gc.collect()
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free
