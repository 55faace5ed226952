"""DISABLE_JIT (EMBER_DISABLE_JIT, NUMBA_DISABLE_JIT, or `config.DISABLE_JIT = True` before
decorating) leaves functions and classes as plain Python; NUMBA_* settings are read as fallbacks."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember import config


@pytest.fixture
def jit_disabled(monkeypatch):
    monkeypatch.setattr(config, "DISABLE_JIT", True)


def _clip_sum(a, limit):
    total = 0.0
    for value in a:
        total += min(value, limit)
    return total


def test_decorators_return_the_python_function(jit_disabled):
    assert ember.njit(_clip_sum) is _clip_sum
    assert ember.jit(nopython=True)(_clip_sum) is _clip_sum
    assert ember.njit("float64(float64[:], float64)")(_clip_sum) is _clip_sum
    assert ember.jit(forceobj=True)(_clip_sum) is _clip_sum
    assert (
        ember.njit(parallel=True, cache=True)(_clip_sum)(np.arange(5.0), 2.5) == 8.0
    )  # 0 + 1 + 2 + 2.5 + 2.5


def test_jitclass_returns_the_class(jit_disabled):
    class Counter:
        def __init__(self, start):
            self.count = start

        def bump(self):
            self.count += 1
            return self.count

    assert ember.experimental.jitclass([("count", ember.int64)])(Counter) is Counter
    assert ember.experimental.jitclass(Counter, [("count", ember.int64)]) is Counter
    assert Counter(4).bump() == 5


def test_enabled_by_default_compiles():
    compiled = ember.njit(_clip_sum)
    assert compiled is not _clip_sum
    assert compiled(np.array([1.0, 5.0, -2.0]), 3.0) == _clip_sum(np.array([1.0, 5.0, -2.0]), 3.0)


def _run(env_name: str, code: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBER_", "NUMBA_"))}
    env[env_name] = "1"
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("env_name", ["EMBER_DISABLE_JIT", "NUMBA_DISABLE_JIT"])
def test_environment_disables_jit(env_name):
    code = """
        import ember
        def f(x):
            return x + 1
        print(ember.njit(f) is f, ember.config.DISABLE_JIT)
    """
    assert _run(env_name, code) == "True True"


def test_numba_thread_setting_is_read():
    code = """
        import ember
        print(ember.config.NUM_THREADS, ember.config.NUMBA_NUM_THREADS, ember.get_num_threads())
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBER_", "NUMBA_"))}
    env["NUMBA_NUM_THREADS"] = "1"
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "1", "1"]
