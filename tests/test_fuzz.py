"""The differential fuzzer (tools/fuzz.py): a fixed-seed batch finds no mismatch and no crash;
its reference encodes README's deliberate differences; crashes, hangs and mismatches are
reported; failures shrink and become regression tests."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools import fuzz  # noqa: E402
from tools.fuzzing import reference  # noqa: E402
from tools.fuzzing.generator import FEATURES, generate  # noqa: E402
from tools.fuzzing.pool import Worker  # noqa: E402
from tools.fuzzing.regression import write_regression  # noqa: E402
from tools.fuzzing.shrink import shrink  # noqa: E402
from tools.fuzzing.worker import check, same  # noqa: E402


def test_fixed_seed_batch_has_no_mismatch_and_no_crash(capsys):
    # Scalars, control flow, calls and exceptions: the array and list programs still find an
    # open memory bug now and then (tests/regressions/test_fuzz_4_442.py, xfail).
    features = "int,float,loops,tuples,calls,recursion,exceptions"
    args = fuzz.parse_args(
        ["--seed", "7", "--count", "40", "--workers", "2", "--no-write", "--features", features]
    )
    counts, failures = fuzz.fuzz(args)
    assert sum(counts.values()) == 40
    details = [f"program {k}: {r['status']}: {r['detail']}\n{j['source']}" for k, j, r in failures]
    assert not failures, "\n\n".join(details)
    assert counts["unsupported"] <= 10  # the generator writes what ember compiles


def test_programs_are_deterministic_valid_python_using_every_feature():
    sources = [generate(f"3-{k}", 8).source for k in range(60)]
    assert sources == [generate(f"3-{k}", 8).source for k in range(60)]
    for source in sources:
        compile(source, "<generated>", "exec")
        compile(reference.reference_source(source), "<reference>", "exec")
    text = "\n".join(sources)
    for construct in (
        "while ",
        "for ",
        "break",
        "continue",
        "try:",
        "except",
        "np.zeros",
        ".append(",
        " // ",
        " ** ",
        " << ",
        "h0(",
        "[(",
        ".sum()",
        ":, ",
    ):
        assert construct in text, construct  # fmt: skip


def test_features_restrict_what_is_generated():
    text = "\n".join(generate(f"4-{k}", 8, {"int", "loops"}).source for k in range(30))
    assert "np." not in text and "try:" not in text and "def h" not in text
    assert "for " in text
    assert set(FEATURES) >= {"int", "float", "arrays", "lists", "exceptions"}


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        ("+", 2**63 - 1, 1, -(2**63)),  # wraps at 64 bits
        ("*", 2**62, 4, 0),
        ("<<", 3, 63, -(2**63)),
        ("<<", 1, 64, 0),  # `x << 64` is 0
        (">>", -5, 100, -1),
        ("//", -(2**63), -1, -(2**63)),
        ("**", 3, 41, 3**41 % 2**64 - 2**64),
        ("**", 2.0, -1, 0.5),
        ("//", -7, 2, -4),
        ("%", -7.5, 2.0, 0.5),
    ],
)
def test_reference_integer_arithmetic_wraps_as_documented(op, a, b, expected):
    assert same(reference._bin(op, a, b), expected)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: reference._bin("**", 3, -1), ValueError),  # int ** negative int
        (lambda: reference._bin("**", 0, -1), ZeroDivisionError),
        (lambda: reference._bin("**", -8.0, 0.5), ValueError),  # CPython: a complex
        (lambda: reference._bin("<<", 1, -1), ValueError),
        (lambda: reference._int(math.nan), ValueError),
        (lambda: reference._int(math.inf), OverflowError),
    ],
)
def test_reference_raises_as_documented(call, error):
    with pytest.raises(error):
        call()


def test_reference_conversions_and_reductions_follow_the_readme():
    for convert in (reference._int, reference._floor):
        for huge in (1e300, -1e300, 2.0**63):
            with pytest.raises(OverflowError):
                convert(huge)
        assert convert(-(2.0**63)) == -(2**63)
    assert reference._floor(-2.5) == -3
    assert same(reference._min(1, 2.0), 1.0) and same(reference._max(3, 2), 3)
    assert same(reference._neg(-(2**63)), -(2**63)) and same(reference._abs(-(2**63)), -(2**63))
    values = np.array([1e16, 1.0, -1e16, 1.0])
    assert same(reference._sum(values), ((1e16 + 1.0) - 1e16) + 1.0)  # sequential, not pairwise
    assert same(reference._amax(np.array([-0.0, 0.0])), 0.0)
    assert same(reference._amin(np.array([0.0, -0.0])), -0.0)
    assert math.isnan(reference._amax(np.array([1.0, math.nan, 2.0])))
    assert same(reference._s(np.float64(2.5)), 2.5) and same(reference._s(np.int64(3)), 3)


def test_reference_rewrites_operators_and_keeps_in_place_updates():
    source = "def f(a, x):\n    a[0] += x\n    a -= 1.0\n    return -x * 2, a.sum()\n"
    namespace = dict(reference.HELPERS)
    exec(compile(reference.reference_source(source), "<ref>", "exec"), namespace)
    a = np.array([1.0, 2.0])
    assert same(namespace["f"](a, 2**62), (-(2**63), 1.0 + 2**62 + 1.0 - 2.0))
    assert same(a, np.array([2.0**62, 1.0]))  # the caller's array changed in place


def test_same_is_strict_about_types_zeros_nan_and_dtypes():
    assert same(math.nan, math.nan) and not same(0.0, -0.0) and not same(1, 1.0)
    assert not same(True, 1) and same((1, [2.5]), (1, [2.5]))
    assert same(np.array([math.nan, -0.0]), np.array([math.nan, -0.0]))
    assert not same(np.array([0.0]), np.array([-0.0]))
    assert not same(np.array([1, 2]), np.array([1.0, 2.0]))


def job_for(source, inputs=("(3,)",), functions=("f",)):
    return {"source": source, "inputs": list(inputs), "functions": list(functions),
            "boundscheck": False}  # fmt: skip


def test_check_compares_values_exceptions_and_mutation():
    ok = job_for("def f(n):\n    return (n * 3) // 2, n % -2\n", ["(3,)", "(-7,)"])
    assert check(ok)["status"] == "ok"
    raises = job_for("def f(n):\n    return n // (n - n)\n")
    assert check(raises)["status"] == "ok"  # ZeroDivisionError on both sides
    unsupported = job_for("def f(n):\n    class A:\n        pass\n    return n\n")
    assert check(unsupported)["status"] == "unsupported"


def test_pool_reports_crashes_and_hangs_and_keeps_going():
    worker = Worker(timeout=5)
    try:
        killed = worker.run(job_for("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"))
        assert killed["status"] == "crash" and "died" in killed["detail"]
        hang = worker.run(job_for("def f(n):\n    while True:\n        pass\n"))
        assert hang["status"] == "crash" and "timeout" in hang["detail"]
        assert worker.run(job_for("def f(n):\n    return n + 1\n"))["status"] == "ok"
    finally:
        worker.close()


def test_shrink_keeps_the_failure_and_removes_the_rest(tmp_path):
    source = (
        "def f(n):\n    a = n + 1\n    b = a * 2\n    if b > 3:\n        b = b - 1\n"
        "    c = (b + 1234) * 7\n    return c\n"
    )
    job = job_for(source, ["(1,)", "(2,)", "(3,)"])

    def run(candidate):  # stands in for ember: fails while 1234 is still there
        compile(candidate["source"], "<candidate>", "exec")
        failing = "1234" in candidate["source"]
        return {"status": "mismatch" if failing else "ok", "detail": "x", "input": 0}

    small, result = shrink(job, {"status": "mismatch", "detail": "x", "input": 1}, run)
    assert result["status"] == "mismatch" and "1234" in small["source"]
    assert small["inputs"] == ["(2,)"]
    assert len(small["source"]) < len(source) / 2, small["source"]
    path = write_regression(9, 4, small, result, folder=tmp_path)
    assert path.name == "test_fuzz_9_4.py"
    compile(path.read_text(), str(path), "exec")
    assert "1234" in path.read_text()


def test_reference_folds_fortran_arrays_in_memory_order():
    values = np.array([[1e16, 1.0], [-1e16, 1.0]])
    assert same(reference._sum(values), ((1e16 + 1.0) - 1e16) + 1.0)
    assert same(reference._sum(values.T), ((1e16 + 1.0) - 1e16) + 1.0)  # memory order
    assert same(reference._sum(values[:, ::-1]), ((1.0 + 1e16) + 1.0) - 1e16)
