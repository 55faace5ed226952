"""These tests exercise the native call entry: build it at a function's second call."""

import pytest

from ember import config


@pytest.fixture(autouse=True)
def entry_at_the_second_call(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 1)
