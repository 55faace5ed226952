"""Numba's `numba.experimental`: `jitclass` (ember/jitclasses/)."""

from ember.jitclasses import jitclass

__all__ = ["jitclass"]
