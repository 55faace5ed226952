"""`@jitclass` (Numba's `numba.experimental.jitclass`): classes whose instances live in
runtime-managed memory and whose methods are compiled. See decorator.py for the pieces."""

from ember.dispatcher.typeof import register_typeof_hook, typeof_impl
from ember.jitclasses.box import JitClassMeta
from ember.jitclasses.decorator import compiled_class_of, jitclass


@typeof_impl.register(JitClassMeta)
def _typeof_jitclass(value: JitClassMeta):
    """The class itself, used as a value in compiled code (instances type through the box
    class's `_ember_type_`)."""
    return value.class_type


@register_typeof_hook
def _typeof_class_def(value):
    """The undecorated class seen from compiled code (a method naming its own class through a
    closure, `jitclass(spec)(make_class())`) stands for its jitclass."""
    found = compiled_class_of(value)
    return None if found is None else found.class_type


__all__ = ["jitclass"]
