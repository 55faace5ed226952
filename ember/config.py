"""Every EMBER_* environment variable, read in one place at import time (each falls back to
Numba's NUMBA_* spelling, so existing Numba setups keep working)."""

from __future__ import annotations

import importlib
import os
import struct
import sys


def _setting(name: str) -> str | None:
    value = os.environ.get(name)
    return os.environ.get("NUMBA_" + name.removeprefix("EMBER_")) if value is None else value


def _flag(name: str, default: bool = False) -> bool:
    value = _setting(name)
    if value is None:
        return default
    return value.strip().lower() not in ("", "0", "false", "no", "off")


def _int(name: str, default: int) -> int:
    value = _setting(name)
    return int(value) if value and value.strip() else default


DUMP_CFG = _flag("EMBER_DUMP_CFG")
DUMP_IR = _flag("EMBER_DUMP_IR")
DUMP_ANNOTATION = _flag("EMBER_DUMP_ANNOTATION")
DUMP_LLVM = _flag("EMBER_DUMP_LLVM")
DUMP_OPTIMIZED = _flag("EMBER_DUMP_OPTIMIZED")
DUMP_ASSEMBLY = _flag("EMBER_DUMP_ASSEMBLY")
DUMP_STENCIL = _flag("EMBER_DUMP_STENCIL")  # the Python source generated for each @stencil
TIMING = _flag("EMBER_TIMING")  # each pass's time per compilation, and a report at exit
LLVM_PASS_TIMINGS = _flag("EMBER_LLVM_PASS_TIMINGS")  # LLVM's pass report in get_metadata()
DEBUGINFO = _flag("EMBER_DEBUGINFO")  # default of `debug=`: DWARF line tables for gdb and perf
PERF_MAP = _flag("EMBER_PERF_MAP")  # /tmp/perf-<pid>.map entries for every jitted function
# Bounds checking: 1 forces it on for every function, 0 off (even boundscheck=True), unset or
# empty leaves each function's boundscheck= option to decide (Numba's three states).
_BOUNDSCHECK_SETTING = (_setting("EMBER_BOUNDSCHECK") or "").strip()
BOUNDSCHECK = _flag("EMBER_BOUNDSCHECK") if _BOUNDSCHECK_SETTING else None
VERIFY_IR = _flag("EMBER_VERIFY_IR")
OPT_LEVEL = _int("EMBER_OPT", 3)
# Functions with more LLVM instructions than this (before optimization) get the O1 pipeline:
# O2/O3 passes such as correlated value propagation grow faster than the function.
LARGE_FUNCTION = _int("EMBER_LARGE_FUNCTION", 10_000)
# Calls a function takes through the Python path (10-50 us each) before its native call entry
# is built (about 1.5 ms, then 0.1-0.3 us a call). 0: built right after the first compile, so
# the second call is already native (Numba's second call costs 1-5 us).
CALLS_BEFORE_ENTRY = _int("EMBER_CALLS_BEFORE_ENTRY", 0)
NUM_THREADS = _int("EMBER_NUM_THREADS", os.cpu_count() or 1)  # threads of parallel regions
NUMBA_NUM_THREADS = NUM_THREADS  # Numba's names for the same facts
NUMBA_DEFAULT_NUM_THREADS = os.cpu_count() or 1
THREADING_LAYER = (_setting("EMBER_THREADING_LAYER") or "default").strip().lower() or "default"
# The layers `default` tries, in order (Numba's list also names tbb, which ember does not have).
THREADING_LAYER_PRIORITY = (_setting("EMBER_THREADING_LAYER_PRIORITY") or "omp workqueue").split()
# `@jit`/`@njit`/`@jitclass` return the Python function or class unchanged (for debugging);
# read when decorating, so setting `ember.config.DISABLE_JIT = True` first also works.
DISABLE_JIT = _flag("EMBER_DISABLE_JIT")
DEBUG_ARRAY_OPT = _int("EMBER_DEBUG_ARRAY_OPT", 0)  # IR between parallel sub-passes
DEBUG_ARRAY_OPT_STATS = _flag("EMBER_DEBUG_ARRAY_OPT_STATS")  # what became a parfor, and why not
# 1-4: each parallel=True function's diagnostics printed when compiled (`parallel_diagnostics`)
PARALLEL_DIAGNOSTICS = _int("EMBER_PARALLEL_DIAGNOSTICS", 0)
NRT_CACHED_BLOCKS = _int("EMBER_NRT_CACHED_BLOCKS", 4)  # freed large blocks kept for reuse
CACHE_DIR = (_setting("EMBER_CACHE_DIR") or "").strip()  # where cache=True entries go
DEBUG_CACHE = _flag("EMBER_DEBUG_CACHE")  # print each cache hit and miss, and why it missed

# Facts about the machine that Numba's config exposes and programs branch on.
MACHINE_BITS = struct.calcsize("P") * 8
IS_32BITS = MACHINE_BITS == 32
IS_WIN32 = sys.platform.startswith("win32")
IS_OSX = sys.platform.startswith("darwin")
PYVERSION = sys.version_info[:2]
OPT = OPT_LEVEL  # Numba's name
DEBUGINFO_DEFAULT = DEBUGINFO  # Numba's name
# Numba switches ember has no counterpart for, at the values that say "not in effect".
DEBUG = DEVELOPER_MODE = FULL_TRACEBACKS = SHOW_HELP = DUMP_BYTECODE = False
USING_SVML = False  # ember's math calls go to libm, never to Intel's SVML
DISABLE_PERFORMANCE_WARNINGS = True  # ember emits no performance warnings


def reload_config() -> None:
    """Read the environment variables again (Numba's `config.reload_config()`), e.g. after a
    program sets `os.environ['NUMBA_DISABLE_JIT']`; this module object keeps its identity.
    The thread count cannot change once the threading layer runs (its threads and the
    compiled parallel regions are sized by it): RuntimeError, the old count kept."""
    threads = NUM_THREADS
    importlib.reload(sys.modules[__name__])
    if NUM_THREADS != threads and _threads_launched():
        wanted = NUM_THREADS
        _keep_thread_count(threads)
        raise RuntimeError(
            "Cannot set NUMBA_NUM_THREADS to a different value once the threads have been "
            f"launched (currently have {threads}, trying to set {wanted}); set it before the "
            "first parallel function runs, or use set_num_threads(n) to use fewer threads"
        )


def _threads_launched() -> bool:
    layer_module = sys.modules.get("ember.parallel.threading_layer")
    return getattr(layer_module, "_layer", None) is not None


def _keep_thread_count(threads: int) -> None:
    global NUM_THREADS, NUMBA_NUM_THREADS
    NUM_THREADS = NUMBA_NUM_THREADS = threads
