"""Differential fuzzer: random programs run under CPython and ember, compared; failures shrunk
and written to tests/regressions/. Last line: `N programs, M mismatches, K crashes, U
unsupported` (leaks and programs the generator got wrong count as mismatches).

    python tools/fuzz.py --seed 1 --count 200 [--size 8] [--features int,float,loops] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.fuzzing.generator import FEATURES, generate  # noqa: E402
from tools.fuzzing.pool import Worker, run_all  # noqa: E402
from tools.fuzzing.regression import write_regression  # noqa: E402
from tools.fuzzing.shrink import shrink  # noqa: E402

FAILURES = ("mismatch", "leak", "crash", "invalid")


def program_seed(seed: int, index: int) -> str:
    """The generator's seed of program `index` in a run: stable across Python versions."""
    return f"{seed}-{index}"


def make_job(seed: int, index: int, size: int, features: set[str], memory: int = 0) -> dict:
    program = generate(program_seed(seed, index), size, features)
    return {
        "source": program.source,
        "inputs": program.inputs,
        "functions": program.functions,
        "boundscheck": program.boundscheck,
        "memory": memory,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--size", type=int, default=8, help="statements in the main function")
    parser.add_argument(
        "--features", default=",".join(FEATURES), help=f"comma-separated, of {','.join(FEATURES)}"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--timeout",
        type=float,
        default=180.0,
        help="seconds per program (compiling is slow on a busy machine)",
    )
    parser.add_argument(
        "--memory",
        type=int,
        default=0,
        metavar="CALLS",
        help="also call each program CALLS times per input: no runtime allocation may stay live",
    )
    parser.add_argument("--shrink-seconds", type=float, default=300.0, help="per failure")
    parser.add_argument("--no-shrink", action="store_true", help="report failures unshrunk")
    parser.add_argument("--no-write", action="store_true", help="write no regression tests")
    parser.add_argument("--verbose", "-v", action="store_true", help="print unsupported too")
    args = parser.parse_args(argv)
    args.features = {f for f in args.features.split(",") if f}
    unknown = args.features - set(FEATURES)
    if unknown:
        parser.error(f"unknown features {sorted(unknown)}; choose from {','.join(FEATURES)}")
    return args


def fuzz(args: argparse.Namespace) -> tuple[Counter, list[tuple[int, dict, dict]]]:
    """Runs the batch; returns the count per status and the failing (index, job, result)."""
    counts: Counter = Counter()
    failures: list[tuple[int, dict, dict]] = []

    def jobs_by_index(index: int) -> dict:
        return make_job(args.seed, index, args.size, args.features, args.memory)

    jobs = ((k, jobs_by_index(k)) for k in range(args.count))

    def on_result(index: int, result: dict, _worker) -> None:
        counts[result["status"]] += 1
        done = sum(counts.values())
        if done % 100 == 0:
            print(f"... {done} programs: {dict(counts)}", file=sys.stderr, flush=True)
        if result["status"] in FAILURES:
            failures.append((index, jobs_by_index(index), result))
            print(f"program {index}: {result['status']}: {result['detail'][:300]}", flush=True)
        elif result["status"] == "unsupported" and args.verbose:
            print(f"program {index}: unsupported: {result['detail'][:200]}", flush=True)

    run_all(jobs, args.workers, args.timeout, on_result)
    return counts, sorted(failures, key=lambda item: item[0])


def report_failure(args: argparse.Namespace, index: int, job: dict, result: dict) -> None:
    if result["status"] == "invalid":  # a generator bug, not an ember bug: show the program
        print(f"--- program {index} is invalid ({result['detail']}):\n{job['source']}")
        return
    if not args.no_shrink:
        worker = Worker(args.timeout)
        try:
            job, result = shrink(job, result, worker.run, args.shrink_seconds)
        finally:
            worker.close()
    print(f"--- program {index} ({result['status']}): {result['detail'][:500]}")
    print(job["source"] + f"inputs: {job['inputs']}")
    if not args.no_write:
        print(f"written: {write_regression(args.seed, index, job, result)}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    counts, failures = fuzz(args)
    for index, job, result in failures:
        report_failure(args, index, job, result)
    mismatches = counts["mismatch"] + counts["leak"] + counts["invalid"]
    print(
        f"{args.count} programs, {mismatches} mismatches, {counts['crash']} crashes, "
        f"{counts['unsupported']} unsupported"
    )
    return 1 if mismatches or counts["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
