"""Run every benchmark and print one combined table (then each benchmark's notes).

python benchmarks/run_all.py [--quick]
"""

from __future__ import annotations

import platform
import sys
import time

import bench_arrayexpr
import bench_call
import bench_compile
import bench_scalar
from _harness import format_table, import_numba, parse_args

BENCHMARKS = (bench_compile, bench_scalar, bench_call, bench_arrayexpr)


def environment() -> str:
    import llvmlite

    import ember

    numba = import_numba()
    versions = [
        f"Python {platform.python_version()}",
        f"ember {ember.__version__}",
        f"llvmlite {llvmlite.__version__}",
        f"numba {numba.__version__}" if numba else "numba not installed",
    ]
    return f"{', '.join(versions)} on {platform.machine()} {platform.processor() or ''}".strip()


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    started = time.perf_counter()
    reports = []
    for benchmark in BENCHMARKS:
        print(f"running {benchmark.__name__} ...", file=sys.stderr, flush=True)
        reports.append(benchmark.collect(args.quick))
    print(f"== ember benchmarks{' (--quick)' if args.quick else ''}: {environment()} ==")
    print(format_table([row for report in reports for row in report.rows]))
    for report in reports:
        print(f"\n{report.title}:")
        for note in report.notes:
            print(f"  * {note}")
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
