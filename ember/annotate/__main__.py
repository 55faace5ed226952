"""`python -m ember.annotate module.py:func -o page.html`: the annotated page of jitted functions.

    python -m ember.annotate kernels.py:smooth -o smooth.html          # signatures compiled
    python -m ember.annotate kernels.py:smooth --signature "float64[:], int64" -o smooth.html
    python -m ember.annotate kernels.py --run -o pages/                 # every jitted function
    python -m ember.annotate --report kernels.py [--html -o report.html]

The module is imported under its own name (its `if __name__ == "__main__":` block does not
run) unless `--run` runs it as a script first, so that its own calls compile the functions.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys

from ember.errors import UnsupportedError


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.report:
        return _report(args)
    outputs = []
    for target in args.targets:
        path, _, name = target.partition(":")
        namespace = _load(path, args.run)
        for function in _functions(namespace, name, path):
            outputs.append((function, _page(function, args.signature)))
    for function, page in outputs:
        destination = _destination(args.output, function, len(outputs))
        page.save(destination)
        print(f"wrote {destination}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ember.annotate",
        description="Write an HTML page per jitted function, each source line shaded by what "
        "it compiled to, with its typed IR and optimized LLVM.",
    )
    parser.add_argument("targets", nargs="+", help="module.py:function, or module.py for all")
    parser.add_argument("-o", "--output", help="page.html (one function) or a folder")
    parser.add_argument(
        "-s", "--signature", help='argument types to compile for, e.g. "float64[:], int64"'
    )
    parser.add_argument("--run", action="store_true", help="run the module as __main__ first")
    parser.add_argument("--report", action="store_true", help="run the scripts, then print "
                        "ember.compile_report()")  # fmt: skip
    parser.add_argument("--html", action="store_true", help="with --report: a bar chart page")
    return parser


def _load(path: str, run: bool) -> dict:
    if not os.path.exists(path):
        raise SystemExit(f"ember.annotate: no such file: {path}")
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = "__main__" if run else os.path.splitext(os.path.basename(path))[0]
    return runpy.run_path(path, run_name=name)


def _functions(namespace: dict, name: str, path: str) -> list:
    from ember.dispatcher.dispatcher import Dispatcher

    if name:
        found = namespace.get(name)
        if found is None:
            raise SystemExit(f"ember.annotate: {path} defines no {name!r}")
        if not isinstance(found, Dispatcher):
            raise SystemExit(f"ember.annotate: {path}:{name} is not an @njit function")
        return [found]
    found = [value for value in namespace.values() if isinstance(value, Dispatcher)]
    compiled = [function for function in found if function.overloads]
    if not compiled:
        raise SystemExit(
            f"ember.annotate: {path} has no compiled @njit function: pass --run to run it "
            "first, or name one with module.py:function and --signature"
        )
    return compiled


def _page(function, signature: str | None):
    from ember.annotate import annotate

    if signature is not None:
        return annotate(function, _argument_types(signature))
    if not function.overloads:
        name = function.py_func.__qualname__
        raise SystemExit(
            f"ember.annotate: {name} has not been compiled: pass --signature "
            '"float64[:], int64" (its argument types) or --run'
        )
    return annotate(function)


def _argument_types(text: str) -> tuple:
    from ember.decorators import _parse_signature

    parsed = _parse_signature(f"({text},)" if "," not in text else f"({text})")
    return tuple(parsed.args)


def _destination(output: str | None, function, count: int) -> str:
    filename = f"{function.py_func.__qualname__}.html"
    if output is None:
        return filename
    if count > 1 or output.endswith(os.sep) or os.path.isdir(output):
        os.makedirs(output, exist_ok=True)
        return os.path.join(output, filename)
    return output


def _report(args) -> int:
    import ember

    for target in args.targets:
        _load(target.partition(":")[0], run=True)
    if args.html:
        page = ember.compile_report(html=True)
        with open(args.output or "compile_report.html", "w", encoding="utf-8") as out:
            out.write(page)
        print(f"wrote {args.output or 'compile_report.html'}")
    else:
        print(ember.compile_report())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except UnsupportedError as error:
        raise SystemExit(f"ember.annotate: {error}") from None
