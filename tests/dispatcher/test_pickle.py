"""Jitted functions pickle by value: they rebuild and run in another process that cannot
import their module, and on Dask workers (when dask.distributed is installed)."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
import textwrap

import pytest

from ember import njit

SCALE = 3.0


@njit
def scaled(x):
    return x * SCALE


@njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def make_shifted(offset):
    @njit
    def shifted(x, y=1):
        return math.sqrt(scaled(x)) + offset + y + fib(10)

    return shifted


def expected_shifted(x, offset, y=1):
    return math.sqrt(x * SCALE) + offset + y + 55


def test_round_trip_in_process_keeps_behaviour_and_options():
    shifted = make_shifted(10)
    copy = pickle.loads(pickle.dumps(shifted))
    assert copy(3.0) == expected_shifted(3.0, 10)
    assert copy(3.0, y=2) == expected_shifted(3.0, 10, 2)
    explicit = njit("float64(float64)", error_model="numpy")(lambda x: 1.0 / x)
    clone = pickle.loads(pickle.dumps(explicit))
    assert clone.options.error_model == "numpy"
    assert clone(0.0) == math.inf
    assert len(clone.overloads) == 1


def test_runs_in_a_process_that_cannot_import_the_module(tmp_path):
    payload = tmp_path / "shifted.pkl"
    payload.write_bytes(pickle.dumps(make_shifted(7)))
    script = textwrap.dedent(
        f"""
        import pickle
        shifted = pickle.loads(open({str(payload)!r}, "rb").read())
        print(repr(shifted(12.0)), repr(shifted(12.0, y=0)))
        """
    )
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.split()
    assert float(output[0]) == expected_shifted(12.0, 7)
    assert float(output[1]) == expected_shifted(12.0, 7, 0)


def test_runs_on_dask_workers():
    distributed = pytest.importorskip("dask.distributed")
    shifted = make_shifted(1)
    with distributed.Client(processes=True, n_workers=1, threads_per_worker=1) as client:
        futures = client.map(shifted, [1.0, 4.0, 9.0])
        results = client.gather(futures)
    assert results == [expected_shifted(x, 1) for x in (1.0, 4.0, 9.0)]
