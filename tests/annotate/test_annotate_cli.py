"""`python -m ember.annotate module.py:func -o page.html` and `--report`, run as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from annotate_helpers import AnnotatedPageReader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNELS = textwrap.dedent(
    """
    import numpy as np
    from ember import njit

    @njit
    def scaled(a, k):
        out = np.empty_like(a)
        for i in range(a.size):
            out[i] = a[i] * k
        return out

    @njit
    def total(a):
        return a.sum()

    if __name__ == "__main__":
        print(scaled(np.ones(3), 2.0).sum(), total(np.ones(4)))
    """
)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    path = folder / "kernels.py"
    path.write_text(KERNELS)
    return path


def _annotate(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run(
        [sys.executable, "-m", "ember.annotate", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_one_function_with_a_signature(kernels, tmp_path):
    page = tmp_path / "scaled.html"
    done = _annotate(f"{kernels}:scaled", "-s", "float64[:], float64", "-o", str(page))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {page}"
    reader = AnnotatedPageReader(page.read_text())
    assert reader.lines[7].kind == "allocates"  # out = np.empty_like(a)
    assert reader.lines[9].kind == "native"  # out[i] = a[i] * k
    assert reader.variables["a"] == "array(float64, 1d, A)"
    assert reader.variables["k"] == "float64"


def test_every_function_the_script_compiles(kernels, tmp_path):
    done = _annotate(str(kernels), "--run", "-o", str(tmp_path / "pages"))
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "pages")) == ["scaled.html", "total.html"]
    assert "6.0 4.0" in done.stdout  # the script's own output: it ran as __main__
    page = (tmp_path / "pages" / "scaled.html").read_text()
    assert AnnotatedPageReader(page).variables["a"] == "array(float64, 1d, C)"


def test_uncompiled_function_says_what_to_pass(kernels):
    done = _annotate(f"{kernels}:total")
    assert done.returncode != 0
    assert "has not been compiled: pass --signature" in done.stderr
    missing = _annotate(f"{kernels}:nothing")
    assert "defines no 'nothing'" in missing.stderr


def test_compile_report_of_a_script(kernels, tmp_path):
    done = _annotate("--report", str(kernels))
    assert done.returncode == 0, done.stderr
    rows = [line.split()[0] for line in done.stdout.splitlines()[3:] if line.strip()]
    assert "scaled" in rows and "total" in rows
    chart = tmp_path / "report.html"
    done = _annotate("--report", "--html", str(kernels), "-o", str(chart))
    assert done.returncode == 0, done.stderr
    assert "<svg" in chart.read_text()
