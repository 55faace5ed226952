"""@stencil called from njit(parallel=True): the generated loop nest runs its outer loop in
parallel (unless parallel={'stencil': False}), with the same result as serial code."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ember import njit, stencil

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@stencil
def laplacian(a):
    return a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1] - 4 * a[0, 0]


@stencil(neighborhood=((-2, 2),))
def window_mean(a):
    total = 0.0
    for k in range(-2, 3):
        total += a[k]
    return total / 5


def _by_slicing(a):
    out = np.zeros_like(a)
    out[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1]
    return out


@pytest.mark.parametrize("shape", [(3, 3), (4, 7), (101, 67)])
def test_laplacian_under_parallel_matches_numpy(shape):
    def run(a):
        return laplacian(a)

    a = np.random.default_rng(1).random(shape)
    expected = _by_slicing(a)
    for dispatcher in (njit(run), njit(parallel=True)(run), njit(parallel={"stencil": False})(run)):
        np.testing.assert_allclose(dispatcher(a), expected, rtol=1e-13, atol=1e-13)


def test_kernel_with_its_own_loop_under_parallel():
    def run(a):
        return window_mean(a)

    a = np.arange(50.0)
    expected = np.zeros_like(a)
    expected[2:-2] = np.convolve(a, np.ones(5) / 5, mode="valid")
    np.testing.assert_allclose(njit(parallel=True)(run)(a), expected, rtol=1e-13)


_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from ember import njit, stencil

    @stencil
    def lap(a):
        return a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1] - 4 * a[0, 0]

    def run(a):
        return lap(a)

    njit(parallel=OPTION)(run)(np.ones((20, 20)))
    """
)


@pytest.mark.parametrize("option, parallel", [("True", True), ("{'stencil': False}", False)])
def test_stencil_loop_becomes_a_parfor_only_when_allowed(option, parallel, tmp_path):
    env = dict(os.environ, EMBER_DEBUG_ARRAY_OPT_STATS="1", PYTHONPATH=REPO)
    script = tmp_path / "stencil_script.py"  # a file: @stencil reads its kernel's source
    script.write_text(_SCRIPT.replace("OPTION", option))
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    stencil_report = done.stdout.split("Function lap_stencil")[1]
    assert ("(stencil)" in stencil_report) is parallel  # the loop the stencil made
