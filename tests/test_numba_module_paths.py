"""Numba's module-level names that programs reach for: `version_info`, `jit_module`,
`numba.np.numpy_support` and `numba.cuda` (CPU-only: feature probes answer no)."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import ember


def test_version_info_has_numbas_fields_and_ember_s_version():
    from importlib.metadata import version

    assert ember.ember_version == version("ember")  # ember's own release
    # __version__: the Numba release whose API ember implements, for version checks of Numba
    assert tuple(int(p) for p in ember.__version__.split(".")) >= (0, 68, 0)
    info = ember.version_info
    assert info.string == ember.__version__
    assert info.full == tuple(int(p) for p in ember.__version__.split("."))
    assert info.short == info.full[:2] and (info.major, info.minor, info.patch) == info.full


def test_jit_module_compiles_the_functions_defined_in_the_module(tmp_path, monkeypatch):
    (tmp_path / "kernels_for_jit_module.py").write_text(
        "import math\n"
        "import ember\n"
        "from math import hypot\n"
        "def norm(x, y):\n"
        "    return math.sqrt(x * x + y * y)\n"
        "def twice_norm(x, y):\n"
        "    return 2.0 * norm(x, y)\n"
        "ember.jit_module(nopython=True)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("kernels_for_jit_module")
    try:
        assert isinstance(module.norm, ember.dispatcher.dispatcher.Dispatcher)
        assert module.twice_norm(3.0, 4.0) == 10.0
        assert module.twice_norm.py_func(3.0, 4.0) == 10.0
        assert module.hypot is __import__("math").hypot  # imported names are left alone
    finally:
        sys.modules.pop("kernels_for_jit_module", None)


@pytest.mark.parametrize("dtype", ["f4", "f8", "i1", "u2", "i8", "c16", "?"])
def test_numpy_support_converts_both_ways(dtype):
    from ember.np import numpy_support

    ember_type = numpy_support.from_dtype(np.dtype(dtype))
    assert ember_type == ember.from_dtype(dtype)
    assert numpy_support.as_dtype(ember_type) == np.dtype(dtype)


def test_cuda_is_reported_unavailable_and_its_api_raises_clearly():
    from ember import cuda

    assert cuda.is_available() is False
    assert not hasattr(cuda, "to_device")  # a probe, as programs choosing a target do
    with pytest.raises(ember.errors.UnsupportedError, match="CPU only"):
        cuda.to_device(np.zeros(3))


def test_cuda_kernels_decorate_as_without_a_gpu_and_refuse_to_run():
    from ember import cuda

    @cuda.jit(device=True)
    def device_add(a, b):
        return a + b

    @cuda.jit
    def kernel(out):
        out[0] = 1

    assert device_add.py_func(2, 3) == 5  # a module of GPU kernels imports; its Python stays
    with pytest.raises(ember.errors.UnsupportedError, match="CPU only"):
        kernel[1, 32](np.zeros(1))
    with pytest.raises(ember.errors.UnsupportedError, match="CPU only"):
        device_add(1, 2)
    with pytest.raises(ember.errors.UnsupportedError, match="with a signature"):
        cuda.jit("void(float64[:])")


def test_numba_lapack_entry_points_solve_from_compiled_code():
    """`numba.np.linalg._LAPACK().numba_xgesv(dtype)` as packages call it (quantecon)."""
    from ember.np.linalg import _LAPACK

    lapack = _LAPACK()
    letters = {ember.float64: "d", ember.complex64: "c"}

    def solve_in_place(a, b):
        pass

    @ember.extending.overload(solve_in_place)
    def _solve_in_place(a, b):
        gesv = lapack.numba_xgesv(a.dtype)
        kind = ord(letters[a.dtype])

        def impl(a, b):
            n = a.shape[-1]
            ipiv = np.empty(n, dtype=np.int32)
            return gesv(kind, n, 1 if b.ndim == 1 else b.shape[-1], a.ctypes, n, ipiv.ctypes,
                        b.ctypes, n)  # fmt: skip

        return impl

    @ember.njit
    def solve(a, b):
        a = np.asfortranarray(a)
        x = np.asfortranarray(b.copy())
        return solve_in_place(a, x), x

    a = np.array([[4.0, 1.0, 0.0], [2.0, 3.0, 1.0], [0.0, 1.0, 5.0]])
    b = np.array([1.0, 2.0, 3.0])
    for dtype in (np.float64, np.complex64):
        info, x = solve(a.astype(dtype), b.astype(dtype))
        assert info == 0
        np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-6)
    info, x = solve(np.zeros((2, 2)), np.ones(2))
    assert info == 1  # LAPACK: U(1,1) is exactly zero
    assert lapack.numba_xgesv(ember.float64) is lapack.numba_xgesv(ember.float64)
    with pytest.raises(AttributeError, match="no entry point"):
        assert lapack.numba_nosuch is None


def test_jit_functions_are_core_registry_cpu_dispatchers():
    import ember.core.dispatcher

    import ember.core.registry

    function = ember.njit(lambda x: x + 1)
    assert isinstance(function, ember.core.registry.CPUDispatcher)
    assert isinstance(function, ember.core.dispatcher.Dispatcher)
    assert not isinstance(function.py_func, ember.core.registry.CPUDispatcher)
    assert function(1) == 2
