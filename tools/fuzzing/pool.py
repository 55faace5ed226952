"""A pool of worker subprocesses (`worker.serve`) with a timeout per job, so a segfault or a
hang in compiled code becomes a "crash" result instead of ending the fuzzer. Workers run with
glibc's heap checks where the system has them, so a program that corrupts the heap fails
itself (with glibc's message) rather than a later program in the same process."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 300.0
JOBS_PER_PROCESS = 40  # compiled code accumulates in a process: start afresh now and then
MALLOC_DEBUG = Path("/lib/x86_64-linux-gnu/libc_malloc_debug.so.0")


def _heap_checks() -> dict:
    """glibc's checked malloc (every free validated, freed memory filled with a pattern)."""
    if not MALLOC_DEBUG.exists():
        return {}
    return {"LD_PRELOAD": str(MALLOC_DEBUG), "MALLOC_CHECK_": "3", "MALLOC_PERTURB_": "165"}


def _cause(stderr) -> str:
    """What a dead worker said: glibc's or CPython's fatal message, else its last line."""
    stderr.seek(0)
    lines = [line.strip() for line in stderr.read().splitlines() if line.strip()]
    fatal = [line for line in lines if re.search(r"Fatal Python error|malloc|free\(|corrupt", line)]
    chosen = fatal[:1] or lines[-1:]
    return f": {chosen[0][:200]}" if chosen else ""


class Worker:
    """One `python -c serve()` subprocess, restarted after a crash, a timeout or many jobs."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.process: subprocess.Popen | None = None
        self.jobs = 0
        self.stderr = tempfile.TemporaryFile(mode="w+")

    def _start(self) -> subprocess.Popen:
        self.stderr.seek(0)
        self.stderr.truncate()
        env = {**os.environ, **_heap_checks()}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        code = "from tools.fuzzing.worker import serve; serve()"
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=str(ROOT),
            env=env,
            text=True,
        )
        # Imports are not the program's time: wait for the worker's "ready" line first.
        ready, _, _ = select.select([process.stdout], [], [], STARTUP_SECONDS)
        if not ready or not process.stdout.readline():
            process.kill()
            raise RuntimeError("a fuzzing worker did not start")
        return process

    def run(self, job: dict) -> dict:
        if self.process is None or self.jobs >= JOBS_PER_PROCESS:
            self.close()
            self.process = self._start()
            self.jobs = 0
        self.jobs += 1
        process = self.process
        try:
            process.stdin.write(json.dumps(job) + "\n")
            process.stdin.flush()
        except BrokenPipeError:
            return self._died()
        ready, _, _ = select.select([process.stdout], [], [], self.timeout)
        if not ready:
            self.close()
            return {"status": "crash", "detail": f"timeout after {self.timeout:g} s", "input": -1}
        line = process.stdout.readline()
        if not line:
            return self._died()
        return json.loads(line)

    def _died(self) -> dict:
        code = self.process.wait()
        self.process = None
        said = _cause(self.stderr)
        return {"status": "crash", "detail": f"worker died (exit status {code}){said}", "input": -1}

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def run_all(
    jobs: Iterable[tuple[object, dict]],
    workers: int,
    timeout: float,
    on_result: Callable[[object, dict, Worker], None],
) -> None:
    """Runs (key, job) pairs on `workers` subprocesses; `on_result(key, result, worker)` is
    called under a lock, in completion order."""
    iterator = iter(jobs)
    lock = threading.Lock()

    def loop() -> None:
        worker = Worker(timeout)
        try:
            while True:
                with lock:
                    item = next(iterator, None)
                if item is None:
                    return
                key, job = item
                result = worker.run(job)
                with lock:
                    on_result(key, result, worker)
        finally:
            worker.close()

    threads = [threading.Thread(target=loop) for _ in range(max(1, workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
