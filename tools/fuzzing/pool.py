"""A pool of worker subprocesses (`worker.serve`) with a timeout per job, so a segfault or a
hang in compiled code becomes a "crash" result instead of ending the fuzzer."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 300.0
JOBS_PER_PROCESS = 40  # compiled code accumulates in a process: start afresh now and then


class Worker:
    """One `python -c serve()` subprocess, restarted after a crash, a timeout or many jobs."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.process: subprocess.Popen | None = None
        self.jobs = 0

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        code = "from tools.fuzzing.worker import serve; serve()"
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
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
        return {"status": "crash", "detail": f"worker died (exit status {code})", "input": -1}

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
