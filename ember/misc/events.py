"""Compiler events, as Numba's `numba.core.event` (`ember.core.event`): a start and an end event
for each compilation ("numba:compile") and each compiler pass ("numba:run_pass"), broadcast to
the listeners registered for their kind (timers, recorders, or a user's `Listener`)."""

from __future__ import annotations

import abc
import enum
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class EventStatus(enum.Enum):
    START = enum.auto()
    END = enum.auto()


class Event:
    """One event: its kind ("numba:compile"), START or END, its data and, for an END that
    failed, the exception's (type, value, traceback)."""

    def __init__(
        self,
        kind: str,
        status: EventStatus,
        data: Any = None,
        exc_details: tuple | None = None,
    ) -> None:
        self._kind = kind
        self._status = status
        self._data = data
        self._exc_details = None if exc_details is None or exc_details[0] is None else exc_details

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def status(self) -> EventStatus:
        return self._status

    @property
    def data(self) -> Any:
        return self._data

    @property
    def is_start(self) -> bool:
        return self._status == EventStatus.START

    @property
    def is_end(self) -> bool:
        return self._status == EventStatus.END

    @property
    def is_failed(self) -> bool:
        return self._exc_details is not None

    def __str__(self) -> str:
        data = f"{type(self.data).__qualname__}" if self.data is not None else "None"
        return f"Event({self._kind}, {self._status}, data: {data}, exc: {self._exc_details})"

    __repr__ = __str__


_registered: dict[str, list] = defaultdict(list)


def register(kind: str, listener: Listener) -> None:
    """Send the events of `kind` to `listener` from now on."""
    _registered[kind].append(listener)


def unregister(kind: str, listener: Listener) -> None:
    """Stop sending the events of `kind` to `listener`."""
    listeners = _registered[kind]
    listeners.remove(listener)
    if not listeners:
        del _registered[kind]


def broadcast(event: Event) -> None:
    """Send `event` to every listener of its kind."""
    for listener in tuple(_registered.get(event.kind, ())):
        listener.notify(event)


def start_event(kind: str, data: Any = None) -> None:
    broadcast(Event(kind, EventStatus.START, data))


def end_event(kind: str, data: Any = None, exc_details: tuple | None = None) -> None:
    broadcast(Event(kind, EventStatus.END, data, exc_details))


@contextmanager
def trigger_event(kind: str, data: Any = None) -> Iterator[None]:
    """A START event of `kind` now and its END when the block ends (failed or not)."""
    if kind not in _registered:  # nobody listens: nothing to build
        yield
        return
    start_event(kind, data)
    try:
        yield
    except BaseException as error:
        end_event(kind, data, (type(error), error, error.__traceback__))
        raise
    end_event(kind, data)


class Listener(abc.ABC):
    """Base class of event listeners: `on_start` and `on_end` receive the events."""

    @abc.abstractmethod
    def on_start(self, event: Event) -> None: ...

    @abc.abstractmethod
    def on_end(self, event: Event) -> None: ...

    def notify(self, event: Event) -> None:
        if event.is_start:
            self.on_start(event)
        else:
            self.on_end(event)


class TimingListener(Listener):
    """The total time between the START and END events it received (nested pairs count once,
    from the outermost START)."""

    def __init__(self) -> None:
        self._depth = 0
        self._duration = 0.0
        self._started = 0.0

    def on_start(self, event: Event) -> None:
        if self._depth == 0:
            self._started = time.perf_counter()
        self._depth += 1

    def on_end(self, event: Event) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._duration += time.perf_counter() - self._started

    @property
    def done(self) -> bool:
        return self._depth == 0

    @property
    def duration(self) -> float:
        return self._duration


class RecordingListener(Listener):
    """Keeps every event it receives in `buffer`, as (time.time(), event) pairs."""

    def __init__(self) -> None:
        self.buffer: list[tuple[float, Event]] = []

    def on_start(self, event: Event) -> None:
        self.buffer.append((time.time(), event))

    def on_end(self, event: Event) -> None:
        self.buffer.append((time.time(), event))


@contextmanager
def install_listener(kind: str, listener: Listener) -> Iterator[Listener]:
    """`listener` receives the events of `kind` inside the `with` block."""
    register(kind, listener)
    try:
        yield listener
    finally:
        unregister(kind, listener)


@contextmanager
def install_timer(kind: str, callback: Any) -> Iterator[TimingListener]:
    """Time the events of `kind` inside the block; `callback(duration)` at its end."""
    timer = TimingListener()
    with install_listener(kind, timer):
        yield timer
    if timer.done:
        callback(timer.duration)


@contextmanager
def install_recorder(kind: str) -> Iterator[RecordingListener]:
    """Record the events of `kind` inside the block (the yielded listener's `buffer`)."""
    recorder = RecordingListener()
    with install_listener(kind, recorder):
        yield recorder
