"""`@jitclass` (Numba's `numba.experimental.jitclass`): classes whose instances live in
runtime-managed memory and whose methods are compiled. See decorator.py for the pieces."""

from ember.dispatcher.typeof import typeof_impl
from ember.jitclasses.box import JitClassMeta
from ember.jitclasses.decorator import jitclass


@typeof_impl.register(JitClassMeta)
def _typeof_jitclass(value: JitClassMeta):
    """The class itself, used as a value in compiled code (instances type through the box
    class's `_ember_type_`)."""
    return value.class_type


__all__ = ["jitclass"]
