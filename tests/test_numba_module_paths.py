"""Numba's module-level names that programs reach for: `version_info`, `jit_module`,
`numba.np.numpy_support` and `numba.cuda` (CPU-only: feature probes answer no)."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import ember


def test_version_info_has_numbas_fields_and_ember_s_version():
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
    assert not hasattr(cuda, "jit")  # a probe, as programs choosing a target do
    with pytest.raises(ember.errors.UnsupportedError, match="CPU only"):
        cuda.to_device(np.zeros(3))


def test_jit_functions_are_core_registry_cpu_dispatchers():
    import ember.core.dispatcher

    import ember.core.registry

    function = ember.njit(lambda x: x + 1)
    assert isinstance(function, ember.core.registry.CPUDispatcher)
    assert isinstance(function, ember.core.dispatcher.Dispatcher)
    assert not isinstance(function.py_func, ember.core.registry.CPUDispatcher)
    assert function(1) == 2
