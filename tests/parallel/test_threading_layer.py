"""The parallel API and the threading layers: prange outside parallel code, the parallel=
option, thread counts, thread ids, both layers running every chunk exactly once."""

import ctypes
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from parallel_helpers import parfor_count, report_of

import ember
from ember import config, njit, prange
from ember.parallel import threading_layer as tl
from ember.parallel.lowering import do_scheduling
from ember.parallel.options import ParallelOptions, parse_parallel_option

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_prange_is_range_in_python_and_in_serial_code():
    assert list(prange(5)) == list(range(5))
    assert list(ember.prange(2, 9, 3)) == [2, 5, 8]

    @njit
    def total(n):
        s = 0
        for i in prange(1, n, 2):
            s += i
        return s

    assert total(10) == sum(range(1, 10, 2))


def test_parallel_option_accepts_numba_spellings():
    assert parse_parallel_option(True) == ParallelOptions()
    assert parse_parallel_option(False) is None
    assert parse_parallel_option({"fusion": False}) == ParallelOptions(fusion=False)
    with pytest.raises(ValueError, match="unknown parallel option"):
        njit(parallel={"fusoin": False})
    with pytest.raises(TypeError, match="must be True or False"):
        njit(parallel={"prange": 1})
    with pytest.raises(TypeError, match="parallel must be"):
        njit(parallel="yes")


def test_prange_switched_off_runs_serially_and_says_so():
    def total(a):
        s = 0.0
        for i in prange(len(a)):
            s += a[i]
        return s

    a = np.arange(100.0)
    off = njit(parallel={"prange": False})(total)
    assert off(a) == total(a)
    assert parfor_count(off) == 0
    assert any("prange loops run as range" in note for note in report_of(off).notes)


def test_parallel_diagnostics_prints_loops_and_reasons(capsys):
    @njit(parallel=True)
    def two_loops(a):
        s = 0.0
        for i in prange(len(a)):
            s += a[i]
        b = a.copy()
        for i in prange(1, len(a)):
            b[i] = b[i - 1]
        return s, b

    two_loops(np.arange(10.0))
    two_loops.parallel_diagnostics(level=2)
    text = capsys.readouterr().out
    assert "Parallel for-loop #" in text and "reduction: s (+)" in text
    assert "stays serial" in text and "cross-iteration dependence" in text
    with pytest.raises(ValueError):
        two_loops.parallel_diagnostics(level=5)


def test_thread_count_settings():
    assert ember.get_num_threads() == config.NUM_THREADS
    assert ember.get_thread_id() == 0
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1

        @njit(parallel=True)
        def ids(n):
            out = np.zeros(n, dtype=np.int64)
            for i in prange(n):
                out[i] = ember.get_thread_id()
            return out, ember.get_num_threads()

        out, count = ids(50)
        assert count == 1 and not out.any()
    finally:
        ember.set_num_threads(config.NUM_THREADS)
    with pytest.raises(ValueError, match="between 1 and"):
        ember.set_num_threads(config.NUM_THREADS + 1)
    with pytest.raises(ValueError):
        ember.set_num_threads(0)
    with pytest.raises(TypeError):
        ember.set_num_threads(1.5)


def test_set_num_threads_is_per_thread():
    seen = []

    def other():
        seen.append(ember.get_num_threads())

    ember.set_num_threads(1)
    try:
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
    finally:
        ember.set_num_threads(config.NUM_THREADS)
    assert seen == [config.NUM_THREADS]


def test_jitted_set_num_threads_checks_its_argument():
    @njit
    def set_to(n):
        ember.set_num_threads(n)
        return ember.get_num_threads()

    try:
        assert set_to(1) == 1
        with pytest.raises(ValueError, match="between 1 and"):
            set_to(config.NUM_THREADS + 5)
    finally:
        ember.set_num_threads(config.NUM_THREADS)


@pytest.mark.parametrize("count, chunks", [(0, 1), (1, 2), (10, 3), (11, 4), (7, 7), (100, 2)])
def test_do_scheduling_splits_into_near_equal_pieces(count, chunks):
    pieces = do_scheduling(count, chunks)
    assert len(pieces) == chunks
    assert pieces[0][0] == 0 and pieces[-1][1] == count
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))
    sizes = [hi - lo for lo, hi in pieces]
    assert max(sizes) - min(sizes) <= 1


def test_launch_runs_every_chunk_exactly_once():
    layer = tl.layer()
    counts = (ctypes.c_int64 * 64)()
    lock = threading.Lock()

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)
    def worker(data, chunk):
        with lock:
            counts[chunk] += 1

    launch = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(
        layer.addresses[tl.LAUNCH]
    )
    for nchunks in (0, 1, 2, 5, 64):
        for k in range(64):
            counts[k] = 0
        launch(ctypes.cast(worker, ctypes.c_void_p), None, nchunks)
        assert list(counts[:nchunks]) == [1] * nchunks and not any(counts[nchunks:])


_LAYER_SCRIPT = textwrap.dedent(
    """
    import numpy as np, ember
    from ember import njit, prange

    @njit(parallel=True)
    def work(a):
        s = 0.0
        out = np.empty_like(a)
        for i in prange(len(a)):
            out[i] = a[i] * 2
            s += a[i]
        return s, out

    a = np.arange(1000.0)
    s, out = work(a)
    assert s == a.sum() and (out == a * 2).all()
    print(ember.threading_layer())
    """
)


@pytest.mark.parametrize("requested, expected", [("workqueue", "workqueue"), ("omp", "omp")])
def test_threading_layer_chosen_by_environment(requested, expected):
    if requested == "omp" and tl._load_libgomp() is None:
        pytest.skip("libgomp is not available")
    env = dict(os.environ, EMBER_THREADING_LAYER=requested, PYTHONPATH=REPO)
    done = subprocess.run(
        [sys.executable, "-c", _LAYER_SCRIPT], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


@pytest.mark.parametrize(
    "priority, expected", [("workqueue omp", "workqueue"), ("tbb omp workqueue", "omp")]
)
def test_default_layer_follows_the_priority_list(priority, expected):
    if expected == "omp" and tl._load_libgomp() is None:
        pytest.skip("libgomp is not available")
    env = dict(os.environ, NUMBA_THREADING_LAYER_PRIORITY=priority, PYTHONPATH=REPO)
    env.pop("EMBER_THREADING_LAYER", None)
    env.pop("NUMBA_THREADING_LAYER", None)
    done = subprocess.run(
        [sys.executable, "-c", _LAYER_SCRIPT], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


def test_unknown_threading_layer_is_a_clear_error():
    env = dict(os.environ, EMBER_THREADING_LAYER="nosuch", PYTHONPATH=REPO)
    done = subprocess.run(
        [sys.executable, "-c", "import ember; ember.threading_layer()"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "is not a threading layer" in done.stderr


def test_debug_array_opt_prints_the_parfor():
    script = textwrap.dedent(
        """
        import numpy as np
        from ember import njit, prange

        @njit(parallel=True)
        def total(a):
            s = 0.0
            for i in prange(len(a)):
                s += a[i]
            return s

        assert total(np.arange(10.0)) == 45.0
        """
    )
    env = dict(os.environ, EMBER_DEBUG_ARRAY_OPT="1", EMBER_DEBUG_ARRAY_OPT_STATS="1")
    env["PYTHONPATH"] = REPO
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "---begin parfor 0---" in out and "----end parfor 0----" in out
    assert "$parfor.s = reduce(+, s)" in out and "Parallel for-loop #" in out


_PRINT_IN_REGION_SCRIPT = textwrap.dedent(
    """
    import contextlib, io
    import numpy as np
    from ember import njit, prange

    @njit(parallel=True)
    def shout(n):
        total = 0
        for i in prange(n):
            print(i)  # sys.stdout is a Python object here: printing needs the GIL
            total += i
        return total

    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        total = shout(12)
    assert total == sum(range(12)), total
    assert sorted(int(line) for line in captured.getvalue().split()) == list(range(12))
    print("ok")
    """
)


@pytest.mark.parametrize("requested", ["workqueue", "omp"])
def test_chunks_needing_the_gil_do_not_deadlock(requested):
    """The region runs without the caller's GIL, so a chunk on another thread can take it
    (before, print to a redirected sys.stdout inside prange hung forever)."""
    if requested == "omp" and tl._load_libgomp() is None:
        pytest.skip("libgomp is not available")
    env = dict(os.environ, EMBER_THREADING_LAYER=requested, PYTHONPATH=REPO)
    done = subprocess.run(
        [sys.executable, "-c", _PRINT_IN_REGION_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
