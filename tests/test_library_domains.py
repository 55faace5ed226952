"""The library registers its domains lazily (ember/library_domains.py): a fresh process that
compiles scalar code imports none of the string, container, generator, pointer, math, print,
cmath or parallel modules, and code that needs them afterwards, in the same process, compiles
and agrees with CPython; a domain reached only through a type (a list of strings passed in, a
generator made inside) or a global (cmath.sqrt) is registered by it, without the fallback that
registers everything after a failed compilation."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAZY_MODULES = (
    "ember.library.strings.core",
    "ember.library.strings.format",
    "ember.library.containers.dicts",
    "ember.library.containers.lists",
    "ember.library.containers.sets",
    "ember.library.objects.generators",
    "ember.library.interop.pointers",
    "ember.library.builtins.cmathlib",
    "ember.library.builtins.mathlib",
    "ember.library.builtins.printing",
    "ember.parallel.library",
    "ember.lowering.powers",
)


def run_fresh(body: str) -> str:
    """stdout of `body` run in a fresh interpreter that sees this checkout of ember."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_scalar_compile_leaves_other_domains_unimported_then_they_work():
    out = run_fresh(
        f"""
        import sys
        import ember
        from ember import library_domains as library

        def add(a, b):
            return a + b

        assert ember.njit(add)(2, 3.5) == add(2, 3.5)
        lazy = {LAZY_MODULES!r}
        imported = sorted(m for m in lazy if m in sys.modules)
        print("after scalar:", imported, library.loaded_domains())
        assert "numpy" not in sys.modules

        def word_counts(text):
            counts = {{}}
            for word in text.split():
                counts[word.upper()] = counts.get(word.upper(), 0) + len(word)
            return counts

        def joined(n):
            return "-".join([str(i * i) for i in range(n)])

        for text in ("a bb a ccc", "", "x y z x y x"):
            assert ember.njit(word_counts)(text) == word_counts(text), text
        for n in (0, 1, 7):
            assert ember.njit(joined)(n) == joined(n), n
        print("after strings:", library.loaded_domains())
        """
    )
    assert "after scalar: [] ()" in out
    loaded = out.split("after strings:")[1]
    assert "containers" in loaded and "strings" in loaded and "generators" not in loaded


@pytest.mark.parametrize(
    ("body", "domain"),
    [
        (
            """
            def f(words):
                return sum([len(w.strip()) for w in words])
            arg = ember.typed.List([" ab ", "c", "  "])
            expected = sum(len(w.strip()) for w in arg)
            """,
            "strings",
        ),
        (
            """
            import cmath
            def f(x):
                return cmath.sqrt(complex(x, 1.0)).real
            arg = 2.0
            expected = cmath.sqrt(complex(2.0, 1.0)).real
            """,
            "cmath",
        ),
        (
            """
            def squares(n):
                for i in range(n):
                    yield i * i
            def f(n):
                total = 0
                for v in squares(n):
                    total += v
                return total
            squares = ember.njit(squares)
            arg = 6
            expected = sum(i * i for i in range(6))
            """,
            "generators",
        ),
        (
            """
            import random
            def f(seed):
                random.seed(seed)
                return random.randint(1, 100) + random.random()
            arg = 7
            random.seed(7)
            expected = random.randint(1, 100) + random.random()
            """,
            "random",
        ),
    ],
)
def test_a_domain_is_registered_by_the_type_or_global_that_needs_it(body, domain):
    spy_on_fallback = """
        import ember
        from ember import library_domains as library
        retries = []
        load_all = library.load_all
        library.load_all = lambda: retries.append(1) or load_all()
        """
    out = run_fresh(
        textwrap.dedent(spy_on_fallback)
        + textwrap.dedent(body)
        + "\nassert ember.njit(f)(arg) == expected, (ember.njit(f)(arg), expected)\n"
        + "print(library.loaded_domains(), len(retries))\n"
    )
    domains, retries = out.strip().rsplit(" ", 1)
    assert domain in domains
    assert retries == "0"  # registered by its trigger, not by the fallback after a failure


def test_a_domain_no_trigger_claims_is_registered_by_the_fallback():
    out = run_fresh(
        """
        import ember
        from ember import library_domains

        # as if no trigger claimed anything
        library_domains.load_for_types = library_domains.load_for_value = lambda found: None

        def parts(text):
            return len(text.split("-")) + len(text.upper())

        assert ember.njit(parts)("a-bb-c") == parts("a-bb-c")
        print(library_domains.loaded_domains())
        """
    )
    assert "strings" in out and "containers" in out
