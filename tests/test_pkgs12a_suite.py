"""Patterns from third-party Numba packages (quantecon, numba-stats) run under ember: a
jitted algorithm taking a jitted objective, compiled once per objective by a jitted wrapper
and later called straight from Python."""

import numpy as np

import ember


@ember.njit
def _square(x):
    return x * x


@ember.njit
def _shifted(x):
    return (x - 1.5) ** 2


@ember.njit
def _absolute(x):
    return abs(x + 0.25)


@ember.njit
def _cube(x):
    return x * x * x


def _minimum_on_grid(fun, grid):
    best = grid[0]
    best_value = fun(grid[0])
    for x in grid[1:]:
        value = fun(x)
        if value < best_value:
            best, best_value = x, value
    return best, best_value


_algorithm = ember.njit(_minimum_on_grid)


@ember.njit
def _wrapper(fun, grid):
    return _algorithm(fun, grid)


def _machine_code_made(dispatcher):
    return {
        arg_types[0].dispatcher.py_func.__name__: result.library.has_machine_code
        for arg_types, result in dispatcher.overloads.items()
    }


def test_python_call_does_not_make_machine_code_for_overloads_only_jitted_callers_use():
    grid = np.linspace(-3.0, 3.0, 61)
    objectives = (_square, _shifted, _absolute)
    for fun in objectives:  # one overload of _algorithm each, compiled for _wrapper alone
        assert _wrapper(fun, grid) == _minimum_on_grid(fun.py_func, grid)
    assert not any(_machine_code_made(_algorithm).values())

    # From Python with a new objective: only that overload gets machine code (quantecon's
    # nelder-mead tests paid LLVM's whole pipeline once per earlier objective here).
    assert _algorithm(_cube, grid) == _minimum_on_grid(_cube.py_func, grid)
    assert _machine_code_made(_algorithm) == {
        "_square": False,
        "_shifted": False,
        "_absolute": False,
        "_cube": True,
    }
    # The others still run from Python when asked (and join the native entry then).
    for _ in range(3):
        for fun in (*objectives, _cube):
            assert _algorithm(fun, grid) == _minimum_on_grid(fun.py_func, grid)
            assert _algorithm(fun, grid[::-1]) == _minimum_on_grid(fun.py_func, grid[::-1])
    assert all(_machine_code_made(_algorithm).values())
    linked = [spec for link in _algorithm._entry_chain.links for spec in link.specializations]
    assert len(linked) == 8  # four objectives, contiguous and reversed grids


def _scaled_sum(x, scale):
    total = x.dtype.type(0)
    for value in x:
        total += value * scale
    return total


def test_eager_signatures_make_machine_code_only_for_the_one_called():
    # numba-stats' style: explicit float32 and float64 signatures over read-only arrays of any
    # layout; the C-contiguous float64 array passed converts to the float64 one.
    signatures = [
        ember.float32(ember.types.Array(ember.float32, 1, "A", readonly=True), ember.float32),
        ember.float64(ember.types.Array(ember.float64, 1, "A", readonly=True), ember.float64),
    ]
    jitted = ember.njit(signatures)(_scaled_sum)
    values = np.array([0.5, -1.25, 3.0, np.inf, -np.inf, 2.0**60, -(2.0**60)])
    for stop in range(len(values) + 1):
        for scale in (1.0, -0.5, 0.0):
            with np.errstate(invalid="ignore"):  # inf * 0 and inf - inf in the oracle
                expected = _scaled_sum(values[:stop], scale)
            got = jitted(values[:stop], scale)
            assert got == expected or (np.isnan(got) and np.isnan(expected))
    assert jitted._entries  # the native entry was built at the first call
    made = {args[0].dtype.name: r.library.has_machine_code for args, r in jitted.overloads.items()}
    assert made == {"float32": False, "float64": True}
