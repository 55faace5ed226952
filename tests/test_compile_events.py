"""Compiler events (Numba's `numba.core.event`, here `ember.core.event`): listeners see a start
and an end of each compilation and of each compiler pass, and each specialization's metadata
holds its compiler timers."""

import pytest

from ember import njit
from ember.core import event as ev
from ember.errors import TypingError


def _fresh():
    @njit
    def double(x):
        return x + x

    return double


def test_a_recorder_sees_the_start_and_end_of_each_compilation():
    double = _fresh()
    with ev.install_recorder("numba:compile") as recorder:
        double(1)
        double(2)  # compiled already: no events
        double(1.5)
    kinds = [(event.status, event.data["args"]) for _, event in recorder.buffer]
    assert [status for status, _ in kinds] == [ev.EventStatus.START, ev.EventStatus.END] * 2
    assert len({args for _, args in kinds}) == 2
    assert all(event.data["dispatcher"] is double for _, event in recorder.buffer)
    assert "numba:compile" not in ev._registered


def test_a_listener_sees_the_specialization_only_at_the_end():
    double = _fresh()
    seen = []

    class Watcher(ev.Listener):
        def on_start(self, event):
            seen.append(("start", event.data["args"] in double.overloads))

        def on_end(self, event):
            seen.append(("end", event.data["args"] in double.overloads, event.is_failed))

    watcher = Watcher()
    ev.register("numba:compile", watcher)
    try:
        double(3)
    finally:
        ev.unregister("numba:compile", watcher)
    assert seen == [("start", False), ("end", True, False)]


def test_a_failed_compilation_ends_with_its_exception():
    @njit
    def broken(x):
        return x.no_such_attribute

    with ev.install_recorder("numba:compile") as recorder:
        with pytest.raises(TypingError):
            broken(1)
    start, end = (event for _, event in recorder.buffer)
    assert start.is_start and end.is_end and end.is_failed and not start.is_failed


def test_pass_events_name_every_pass_of_a_compilation():
    double = _fresh()
    with ev.install_recorder("numba:run_pass") as recorder:
        double(4)
    names = [event.data["name"] for _, event in recorder.buffer if event.is_start]
    assert names[0] == "bytecode analysis" and "type inference" in names
    assert all(event.data["qualname"].endswith("double") for _, event in recorder.buffer)


def test_timers_and_metadata():
    double = _fresh()
    durations = []
    with ev.install_timer("numba:compile", durations.append) as timer:
        double(5)
    assert timer.done and durations == [timer.duration] and timer.duration > 0
    timers = double.get_metadata(double.signatures[0])["timers"]
    assert 0 < timers["llvm_lock"] <= timers["compiler_lock"]
