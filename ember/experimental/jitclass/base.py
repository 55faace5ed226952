"""Numba's `numba.experimental.jitclass.base.JitClassType`: the metaclass of jitclasses, so
`isinstance(C, JitClassType)` tells a jitclass from a plain class."""

from ember.jitclasses.box import JitClassMeta as JitClassType

__all__ = ["JitClassType"]
