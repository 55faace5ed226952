"""Runs one generated program under its CPython reference and under `ember.njit`, and compares
return values, raised exception types and the arguments' contents afterwards.

`check(job)` returns {"status": ok | mismatch | leak | unsupported | crash | invalid,
"detail": str, "input": index of the first differing input}; with `job["memory"] = n` each
input is also called n more times and must leave no runtime allocation live. `serve()` answers
jobs read as JSON lines on stdin (the subprocess side of `pool`).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import os
import sys
import tempfile
import traceback
import warnings

import numpy as np

from tools.fuzzing.reference import HELPERS, reference_source

# Errors a valid generated program never raises in CPython: the program itself is wrong.
INVALID = (NameError, UnboundLocalError, TypeError, AttributeError, RecursionError, SyntaxError)
ARG_NAMESPACE = {"np": np, "nan": math.nan, "inf": math.inf}


def same(a, b) -> bool:
    """Equal in type and value: NaN equals NaN, -0.0 differs from 0.0, dtypes must agree."""
    a = a.item() if isinstance(a, np.generic) else a
    b = b.item() if isinstance(b, np.generic) else b
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and _same_elements(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def _same_elements(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind != "f":
        return bool(np.array_equal(a, b))
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return False
    ok = ~nan_a
    same_signs = np.array_equal(np.signbit(a[ok]), np.signbit(b[ok]))
    return bool(np.array_equal(a[ok], b[ok]) and same_signs)


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) < 300 else text[:300] + "..."


def _run(func, args):
    """(kind, value, arguments afterwards): kind is "ret" or "exc" (value: exception type name)."""
    args = copy.deepcopy(args)
    try:
        return "ret", func(*args), args
    except Exception as error:  # noqa: BLE001 - any exception is an observable outcome
        return "exc", error, args


def _load_ember(source: str, functions: list[str], boundscheck: bool, workdir: str):
    """Import `source` from a real file (ember reads source lines for its messages), then
    replace each generated function by its `njit` dispatcher (helpers are called by name)."""
    import ember

    path = os.path.join(workdir, "fuzzprog.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(f"fuzzprog_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in filter(lambda name: hasattr(module, name), functions):  # shrinking deletes some
        setattr(module, name, ember.njit(boundscheck=boundscheck)(getattr(module, name)))
    return module.f


def _load_reference(source: str):
    namespace = dict(HELPERS, __name__="fuzzref")
    exec(compile(reference_source(source), "<fuzz reference>", "exec"), namespace)
    return namespace["f"]


def _compile_failure(error: Exception, jitted) -> dict | None:
    """An error ember raised while compiling: unsupported (typing) or a crash (internal)."""
    from ember.errors import EmberError, TypingError, UnsupportedError

    first = str(error).strip().splitlines()[-1:] or [""]
    if isinstance(error, (TypingError, UnsupportedError)):
        return {"status": "unsupported", "detail": f"{type(error).__name__}: {first[0]}"}
    if isinstance(error, EmberError) or not jitted.signatures:
        where = traceback.format_exception(error)[-3:]
        return {"status": "crash", "detail": "internal compiler error: " + "".join(where)}
    return None


def check(job: dict) -> dict:
    """Runs `job` (source, inputs, functions, boundscheck) and compares both sides."""
    warnings.simplefilter("ignore")
    try:
        reference = _load_reference(job["source"])
    except Exception as error:  # noqa: BLE001
        return {"status": "invalid", "detail": f"reference does not load: {error!r}", "input": -1}
    with tempfile.TemporaryDirectory(prefix="emberfuzz") as workdir:
        try:
            jitted = _load_ember(job["source"], job["functions"], job["boundscheck"], workdir)
        except Exception as error:  # noqa: BLE001
            return {"status": "invalid", "detail": f"source does not load: {error!r}", "input": -1}
        for index, text in enumerate(job["inputs"]):
            outcome = _compare(reference, jitted, eval(text, dict(ARG_NAMESPACE)))
            if outcome is None and job.get("memory"):
                outcome = _leak(jitted, eval(text, dict(ARG_NAMESPACE)), job["memory"])
            if outcome is not None:
                outcome["input"] = index
                return outcome
    return {"status": "ok", "detail": "", "input": -1}


def _leak(jitted, args, calls: int) -> dict | None:
    """Calls `jitted` `calls` times: the runtime's live allocations must end where they began
    (results dropped, raised exceptions included)."""
    import gc

    import ember

    _run(jitted, args)  # compiled, and any first-call caches filled
    gc.collect()
    before = ember.runtime.stats().live
    for _ in range(calls):
        try:
            jitted(*args)
        except Exception:  # noqa: BLE001, S110 - raising paths must free too
            pass
    gc.collect()
    live = ember.runtime.stats().live - before
    if live == 0:
        return None
    return {"status": "leak", "detail": f"{live} blocks still live after {calls} calls"}


def _compare(reference, jitted, args) -> dict | None:
    expected = _run(reference, args)
    if expected[0] == "exc" and isinstance(expected[1], INVALID):
        return {"status": "invalid", "detail": f"reference raised {expected[1]!r}"}
    got = _run(jitted, args)
    if got[0] == "exc":
        failure = _compile_failure(got[1], jitted)
        if failure is not None:
            return failure
    detail = _difference(expected, got)
    return None if detail is None else {"status": "mismatch", "detail": detail}


def _difference(expected, got) -> str | None:
    def shown(outcome):
        kind, value, _ = outcome
        return f"raised {type(value).__name__}: {value}" if kind == "exc" else _describe(value)

    if expected[0] != got[0]:
        return f"CPython {shown(expected)}; ember {shown(got)}"
    if expected[0] == "exc" and type(expected[1]).__name__ != type(got[1]).__name__:
        return f"CPython {shown(expected)}; ember {shown(got)}"
    if expected[0] == "ret" and not same(expected[1], got[1]):
        return f"CPython returned {shown(expected)}; ember returned {shown(got)}"
    for k, (before, after) in enumerate(zip(expected[2], got[2])):
        if not same(before, after):
            return f"argument {k} afterwards: CPython {_describe(before)}; ember {_describe(after)}"
    return None


def serve() -> None:
    """Answers JSON jobs from stdin, one per line, with JSON results on stdout."""
    import ember  # noqa: F401 - imported before the "ready" line, outside every job's timeout

    out = sys.stdout
    sys.stdout = sys.stderr  # a generated print() must not corrupt the protocol
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        job = json.loads(line)
        try:
            result = check(job)
        except Exception:  # noqa: BLE001 - report, keep serving
            result = {"status": "crash", "detail": traceback.format_exc()[-800:], "input": -1}
        out.write(json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
