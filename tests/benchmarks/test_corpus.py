"""The benchmark corpus as a compatibility check: every kernel of benchmarks/corpus compiles under
ember, returns what the pure-Python function (NumPy included) returns on its small input, and
frees every block it allocates. Nothing is timed here."""

import gc
import sys
from pathlib import Path

import pytest

import ember

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"
sys.path.insert(0, str(CORPUS))

from _corpus import agree, jitted, load  # noqa: E402

PYTHON_CASES = load("python")

# Kernels ember cannot run yet: name -> what goes wrong. Strict, so a fix shows up as XPASS.
KNOWN_FAILURES: dict[str, str] = {}


@pytest.fixture(scope="module")
def ember_cases():
    return load("ember")


def params():
    for name in PYTHON_CASES:
        marks = []
        if name in KNOWN_FAILURES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[name]))
        yield pytest.param(name, marks=marks, id=name)


def test_corpus_is_large_and_spread():
    topics = {case.topic for case in PYTHON_CASES.values()}
    assert len(PYTHON_CASES) >= 60
    assert len(topics) >= 25


@pytest.mark.parametrize("name", params())
def test_kernel_equals_python(name, ember_cases):
    case, reference = ember_cases[name], PYTHON_CASES[name]
    expected = reference.func(*reference.build(reference.small))
    compiled = jitted(case, "ember")
    args = case.build(case.small)
    assert agree(expected, compiled(*args), case.rtol)
    gc.collect()
    before = ember.runtime.stats().live
    got = compiled(*args)
    assert agree(expected, got, case.rtol)
    del got
    gc.collect()
    assert ember.runtime.stats().live == before
