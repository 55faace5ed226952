"""A function gets its native call entry only after `config.CALLS_BEFORE_ENTRY` calls through
the Python path (ember/dispatcher/dispatcher.py): one called a few times never pays for it."""

import numpy as np

import ember
from ember import config


def scaled_sum(a, k):
    return a.sum() * k


def test_no_entry_before_the_threshold_then_native_calls(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 5)
    f = ember.njit(scaled_sum)
    a = np.arange(6.0)
    for call in range(5):
        assert f(a, call) == scaled_sum(a, call)
        assert not f._entries  # still the Python path
    assert f(a, 7) == scaled_sum(a, 7)  # the sixth call builds the entry
    assert f._entries
    slow = f._slow_calls
    for k in range(20):
        assert f(a, k) == scaled_sum(a, k)
    assert f._slow_calls == slow  # every later call is native


def test_a_new_specialization_after_the_entry_is_linked_at_its_next_call(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 3)
    f = ember.njit(scaled_sum)
    ints, floats = np.arange(4), np.arange(4.0)
    for _ in range(4):
        assert f(floats, 2) == scaled_sum(floats, 2)
    assert f(ints, 3) == scaled_sum(ints, 3)  # new types: compiled, Python path
    assert f(ints, 3) == scaled_sum(ints, 3)  # linked here
    slow = f._slow_calls
    assert f(ints, 5) == scaled_sum(ints, 5) and f(floats, 5) == scaled_sum(floats, 5)
    assert f._slow_calls == slow
