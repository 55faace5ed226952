"""Test-wide settings: verify the IR after every compiler pass (read by ember.config at import),
repeatable hypothesis draws, and garbage collections that scan only the current test's objects."""

import gc
import os

import pytest
from hypothesis import settings

os.environ.setdefault("EMBER_VERIFY_IR", "1")

# The suite draws the same hypothesis examples on every run, so a run that passed here passes in
# CI. `EMBER_HYPOTHESIS=explore` draws fresh random examples to hunt for new corner cases.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("EMBER_HYPOTHESIS", "repeatable"))


@pytest.fixture(autouse=True)
def _collections_see_only_new_objects():
    """Collect what earlier tests left, then freeze the survivors (compiled functions, ember's
    caches) into the permanent generation. A worker holds about a million such objects after
    a few hundred tests, and every full collection (a leak check's `gc.collect()`, or CPython's
    own) walked all of them again: a fifth of the CPU time of test_arrays, test_dicts and
    test_generators. Cyclic garbage made by this test is still collected, by the next test's
    collection at the latest."""
    gc.collect()
    gc.freeze()
    yield
