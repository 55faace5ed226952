"""Numba's `numba.experimental.jitclass` package path: `jitclass` itself, `base.JitClassType`
(the class of every jitclass) and `_box` (a box's native addresses)."""

from ember.jitclasses import jitclass

__all__ = ["jitclass"]
