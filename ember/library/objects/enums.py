"""Enum members and classes in compiled code: boxing, constants, `.value`/`.name`, `==`/`is`,
`hash`, `Color(value)` lookup, `len` of and iteration over a class (as Numba's enum support).
An IntEnum member otherwise passes as its int (ember/typing/context.py)."""

from __future__ import annotations

import operator

from ember import types
from ember.errors import LoweringError, TypingError
from ember.extending import overload, overload_attribute, overload_method
from ember.lowering.boxing import NativeValue
from ember.lowering.registry import (
    box,
    lower_builtin,
    lower_cast,
    lower_constant,
    lower_getattr,
    lower_getattr_generic,
    unbox,
)
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, infer_getattr, registry

# ------------------------------------------------------------------ crossing into Python


@unbox(types.EnumMember)
def _unbox_member(typ, obj, c):
    value_obj = c.pyapi.object_getattr_string(obj, "_value_")  # `value` is a property
    native = c.unbox(typ.dtype, value_obj)
    c.pyapi.decref(value_obj)
    return native


@box(types.EnumMember)
def _box_member(typ, val, c):
    """The very member object: the class called with the value (`Color(2) is Color.GREEN`)."""
    value_obj = c.box(typ.dtype, val)
    class_obj = c.pyapi.unserialize(c.pyapi.serialize_object(typ.instance_class))
    member = c.pyapi.call_function_objargs(class_obj, (value_obj,))
    c.pyapi.decref(value_obj)
    c.pyapi.decref(class_obj)
    return member


@unbox(types.EnumClass)
def _unbox_class(typ, obj, c):
    """An enum class passed in: its type says everything (one type per class)."""
    return NativeValue(c.context.get_dummy_value(typ))


@lower_constant(types.EnumMember)
def _member_constant(context, builder, ty, pyval):
    return context.get_constant_generic(builder, ty.dtype, pyval.value)


@lower_constant(types.EnumClass)
def _class_constant(context, builder, ty, pyval):
    return context.get_dummy_value(ty)


@lower_cast(types.IntEnumMember, types.Number)
def _member_as_number(context, builder, fromty, toty, val):
    """An IntEnum member used as an int (or whatever its int converts to)."""
    return context.cast(builder, val, fromty.dtype, toty)


@lower_cast(types.EnumMember, types.Boolean)
def _member_truth(context, builder, fromty, toty, val):
    """A plain Enum member is true (CPython's default; a class's own `__bool__` is not
    compiled)."""
    own_truth = [k for k in fromty.instance_class.__mro__ if "__bool__" in vars(k)]
    if isinstance(fromty, types.IntEnumMember) and own_truth and own_truth[0] is int:
        return context.is_true(builder, fromty.dtype, val)  # int's truth, as CPython
    if own_truth:
        raise LoweringError(
            f"the truth of a {fromty.instance_class.__qualname__} member "
            "(a class with its own __bool__) is not supported"
        )
    return context.get_constant(types.boolean, True)


# ------------------------------------------------------------------ attributes


@infer_getattr
class _EnumClassAttributes(AttributeTemplate):
    """`Color.RED`: a member of the class (aliases included)."""

    key = types.EnumClass

    def generic_resolve(self, ty, attr):
        if attr in ty.instance_class.__members__:
            return ty.member_type
        return None


@lower_getattr_generic(types.EnumClass)
def _class_member(context, builder, ty, value, attr):
    member = ty.instance_class.__members__[attr]
    return context.get_constant_generic(builder, ty.dtype, member.value)


@infer_getattr
class _EnumMemberAttributes(AttributeTemplate):
    key = types.EnumMember

    def resolve_value(self, ty):
        return ty.dtype


@lower_getattr(types.EnumMember, "value")
def _member_value(context, builder, ty, value):
    return value  # a member is held as its value


@overload_attribute(types.EnumMember, "name")
def _member_name(member):
    return _by_value(member.instance_class, "name")


@overload(str)
def _member_str(member):
    """`str(Color.RED)` is 'Color.RED' (an IntEnum's is its int's, as CPython 3.11+ says)."""
    if isinstance(member, types.EnumMember):
        return _by_value(member.instance_class, "str")
    return None


@overload(repr)
def _member_repr(member):
    if isinstance(member, types.EnumMember):
        return _by_value(member.instance_class, "repr")
    return None


@overload(format)
def _member_format(member, spec=""):
    """`f"{Color.RED}"`: CPython formats an Enum member with an empty spec as its str."""
    empty = spec == "" or isinstance(spec, types.Omitted)
    empty = empty or (isinstance(spec, types.StringLiteral) and spec.literal_value == "")
    if isinstance(member, types.EnumMember) and empty:
        spell = _by_value(member.instance_class, "str")
        return lambda member, spec="": spell(member)
    return None


# ------------------------------------------------------------------ comparisons and hash


def _member_pair(args) -> bool:
    return len(args) == 2 and all(isinstance(a, types.EnumMember) for a in args)


_UNRELATED = (types.Number, types.UnicodeType, types.StringLiteral, types.NoneType)


def _is_plain_member(typ: types.Type) -> bool:
    return isinstance(typ, types.EnumMember) and not isinstance(typ, types.IntEnumMember)


for _op in (operator.eq, operator.ne):

    @registry.typer(_op)
    def _type_equality(args, kws):
        """Members of one class compare by value; of two classes they differ, except IntEnum
        members, which then compare as ints (the typing context's fallback), as they do with
        numbers. A plain Enum member never equals a number, string or None (CPython's
        identity `==`)."""
        if len(args) != 2:
            return None
        if _member_pair(args):
            both_int = not any(_is_plain_member(a) for a in args)
            return None if both_int and args[0] is not args[1] else signature(types.boolean, *args)
        for member, other in (args, args[::-1]):
            if _is_plain_member(member) and isinstance(other, _UNRELATED):
                return signature(types.boolean, *args)
        return None


def _never_equal(context, builder, sig, args):
    return context.get_constant(types.boolean, False)


def _always_different(context, builder, sig, args):
    return context.get_constant(types.boolean, True)


for _other in _UNRELATED:
    for _op, _impl in ((operator.eq, _never_equal), (operator.ne, _always_different)):
        lower_builtin(_op, types.EnumMember, _other)(_impl)
        lower_builtin(_op, _other, types.EnumMember)(_impl)


for _op in (operator.is_, operator.is_not):

    @registry.typer(_op)
    def _type_identity(args, kws):
        return signature(types.boolean, *args) if _member_pair(args) else None


def _compare_members(context, builder, sig, args, same_class_op, other_class_result: bool):
    left, right = sig.args
    if left is not right:
        return context.get_constant(types.boolean, other_class_result)
    values_sig = signature(types.boolean, left.dtype, left.dtype)
    return context.call_implementation(builder, same_class_op, values_sig, args)


@lower_builtin(operator.eq, types.EnumMember, types.EnumMember)
@lower_builtin(operator.is_, types.EnumMember, types.EnumMember)
def _members_equal(context, builder, sig, args):
    return _compare_members(context, builder, sig, args, operator.eq, False)


@lower_builtin(operator.ne, types.EnumMember, types.EnumMember)
@lower_builtin(operator.is_not, types.EnumMember, types.EnumMember)
def _members_differ(context, builder, sig, args):
    return _compare_members(context, builder, sig, args, operator.ne, True)


@overload(hash)
def _member_hash(member):
    """The hash of the value (CPython hashes an Enum member by its name, which compiled code
    need not match: it only keys compiled dicts and sets)."""
    if isinstance(member, types.EnumMember) and not isinstance(member, types.IntEnumMember):
        return lambda member: hash(member.value)
    return None


# ------------------------------------------------------------------ the class as a value


@overload_method(types.EnumClass, "__call__")
def _lookup_member(cls, value):
    """`Color(2)`: the member of that value (ValueError when there is none), or a member of
    the class itself."""
    if value is cls.member_type:
        return lambda cls, value: value
    if isinstance(types.unliteral(value), (types.Number, types.IntEnumMember)):
        return _by_value(cls.instance_class, "member")
    return None


@overload(operator.getitem)
def _member_by_name(cls, name):
    """`Color["RED"]` with a constant name."""
    if isinstance(cls, types.EnumClass) and isinstance(name, types.StringLiteral):
        member = cls.instance_class.__members__.get(name.literal_value)
        if member is None:
            raise TypingError(
                f"{cls.instance_class.__qualname__} has no member {name.literal_value!r}"
            )
        return lambda cls, name: member
    return None


@overload(len)
def _class_length(cls):
    if isinstance(cls, types.EnumClass):
        count = len(cls.instance_class)
        return lambda cls: count
    return None


@registry.typer(iter)
def _type_class_iteration(args, kws):
    if len(args) != 1 or not isinstance(args[0], types.EnumClass):
        return None
    return signature(types.UniTupleIterator(_members_tuple_type(args[0])), args[0])


@lower_builtin(iter, types.EnumClass)
def _iterate_class(context, builder, sig, args):
    """`for c in Color`: iteration over the tuple of the canonical members (no aliases)."""
    (cls,) = sig.args
    tuple_type = _members_tuple_type(cls)
    values = [member.value for member in cls.instance_class]
    members = context.get_constant_generic(builder, types.UniTuple(cls.dtype, len(values)), values)
    iter_sig = signature(sig.return_type, tuple_type)
    return context.call_implementation(builder, iter, iter_sig, [members])


def _members_tuple_type(cls: types.EnumClass) -> types.UniTuple:
    return types.UniTuple(cls.member_type, len(cls.instance_class))


# ------------------------------------------------------------------ by-value dispatch


_by_value_functions: dict[tuple[type, str], object] = {}

# What a member spells, computed by CPython while compiling (the class's own __str__/__repr__)
_SPELLINGS = {
    "name": lambda member: member.name,
    "str": str,
    "repr": repr,
}


def _by_value(enum_class: type, wanted: str):
    """A Python function choosing among the canonical members by value: `name` (a member's
    name, `(member)`) or `member` (the class's member of a value, `(cls, value)`), generated
    once per class as a chain of comparisons that compiled code turns into a switch."""
    key = (enum_class, wanted)
    found = _by_value_functions.get(key)
    if found is None:
        found = _by_value_functions[key] = _generate(enum_class, wanted)
    return found


def _generate(enum_class: type, wanted: str):
    members = list(enum_class)
    scope: dict[str, object] = {"ValueError": ValueError}
    if wanted in _SPELLINGS:
        lines = ["def get(member):", "    value = member.value"]
    else:
        lines = ["def get(cls, value):"]
    for index, member in enumerate(members):
        scope[f"value{index}"] = member.value
        scope[f"member{index}"] = member
        result = repr(_SPELLINGS[wanted](member)) if wanted in _SPELLINGS else f"member{index}"
        lines += [f"    if value == value{index}:", f"        return {result}"]
    if wanted in _SPELLINGS:  # a member's value is always one of them: the last needs no test
        lines[-2:] = [f"    return {result}"]
    else:
        message = f"value is not a valid {enum_class.__qualname__}"
        lines.append(f"    raise ValueError({message!r})")
    exec("\n".join(lines), scope)  # noqa: S102 - source built above from names and indices
    return scope["get"]
