"""Operations on literal lists and literal str-keyed dicts (ember/types/literal_containers.py):
length, constant indexing, membership, counting and unrolling work as on the tuple that stores
them; a dict display of constant keys becomes one; every mutation is a TypingError."""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import lower_builtin, lower_cast, overload, overload_method
from ember.library.containers.tuples import may_equal
from ember.lowering import arrays as refs
from ember.misc.literal import literal_unroll
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry

_LIST_MUTATORS = ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse")
_DICT_MUTATORS = ("pop", "popitem", "clear", "setdefault", "update")
_UNKNOWN_KEY = (  # Numba's words for d[key] and d.get(key), "{item}" and all
    "Cannot get{item}() on a literal dictionary, return type cannot be statically determined: "
    "the key must be a constant string"
)
LIST_MUTATION = "Cannot mutate a literal list"
DICT_MUTATION = "Cannot mutate a literal dictionary"


# ---------------------------------------------------------------------------- dict displays


def literal_dict_display(args: tuple) -> types.LiteralStrKeyDict | None:
    """The type of `{k1: v1, ...}` (argument types k1, v1, k2, v2...) when every key is a
    constant string: a later repeat of a key replaces its value but keeps its place."""
    keys = args[::2]
    if not all(isinstance(k, types.StringLiteral) for k in keys):
        return None
    return types.LiteralStrKeyDict(_last_of_each_key(args).items())


def _last_of_each_key(args: tuple) -> dict:
    """{key StringLiteral: value} of display arguments (key, value, key, value...)."""
    return dict(zip(args[::2], args[1::2]))


def build_literal_dict(context, builder, sig, args):
    """The tuple of a literal dict display's values (borrowed arguments: each gains a
    reference), the last one given for a repeated key."""
    dict_type = sig.return_type
    typed_args = list(zip(sig.args, args))
    chosen = {key: value for (key, _), value in zip(typed_args[::2], typed_args[1::2])}
    result = llvm.Constant(context.value_type(dict_type), llvm.Undefined)
    for position, (key, member) in enumerate(dict_type.pairs):
        value_type, value = chosen[key]
        refs.incref(builder, value_type, value)
        value = context.cast(builder, value, value_type, types.unliteral(member))
        result = builder.insert_value(result, value, position)
    return result


# ---------------------------------------------------------------------------- reading


@registry.typer(operator.getitem)
def _type_literal_dict_getitem(args, kws):
    """`d['a']`: the member of a constant key (a key known only at run time has no type)."""
    container, key = args
    if not isinstance(container, types.LiteralStrKeyDict):
        return None
    if not isinstance(key, types.StringLiteral):
        raise TypingError(_UNKNOWN_KEY)
    if key.literal_value not in container.fields:
        raise TypingError(  # Numba's words, then which dict
            f"Key {key.literal_value!r} is not in dict. (the literal dict {container} has no "
            "such key)"
        )
    return signature(container.types[container.fields.index(key.literal_value)], *args)


@lower_builtin(operator.getitem, types.LiteralStrKeyDict, types.StringLiteral)
def literal_dict_getitem(context, builder, sig, args):
    """The member, borrowed from the tuple (as the lowering expects of tuple items)."""
    container_type, key = sig.args
    return builder.extract_value(args[0], container_type.fields.index(key.literal_value))


@overload_method(types.LiteralStrKeyDict, "get")
def literal_dict_get(d, key, default=None):
    if not isinstance(key, types.StringLiteral):
        raise TypingError(_UNKNOWN_KEY)
    if key.literal_value in d.fields:
        return lambda d, key, default=None: d[key]
    return lambda d, key, default=None: default


@overload(operator.contains)
def literal_dict_contains(d, key):
    """`'a' in d`: decided while compiling for a constant key, else by comparing the keys."""
    if not isinstance(d, types.LiteralStrKeyDict):
        return None
    if isinstance(key, types.StringLiteral):
        found = key.literal_value in d.fields
        return lambda d, key: found
    if not isinstance(key, types.UnicodeType):
        return lambda d, key: False
    keys = d.fields

    def contains(d, key):
        for k in literal_unroll(keys):
            if k == key:
                return True
        return False

    return contains


@overload(operator.contains)
def literal_list_contains(container, item):
    """`x in l` for members of types an item may not compare with (those are not it)."""
    if not isinstance(container, types.LiteralList):
        return None

    def contains(container, item):
        for member in literal_unroll(container):
            if may_equal(member, item):
                return True
        return False

    return contains


@overload(iter)
def literal_dict_iter(d):
    """`for key in d`: the keys, all strings."""
    if not isinstance(d, types.LiteralStrKeyDict):
        return None
    keys = d.fields
    return lambda d: iter(_strings(keys))


@overload_method(types.LiteralStrKeyDict, "keys")
def literal_dict_keys(d):
    keys = d.fields
    return lambda d: _strings(keys)


def _strings(keys):
    """A tuple of constant strings as a tuple of strings (one type: a plain loop runs on it)."""


@overload(_strings)
def _strings_impl(keys):
    return _generated("keys", [f"keys[{i}]" for i in range(len(keys))])


@overload_method(types.LiteralStrKeyDict, "values")
def literal_dict_values(d):
    return lambda d: as_tuple(d)


@overload_method(types.LiteralStrKeyDict, "items")
def literal_dict_items(d):
    keys = d.fields
    return lambda d: _zip_pairs(keys, as_tuple(d))


def as_tuple(container):
    """The plain tuple of a literal container's members (the same stored value)."""


@registry.typer(as_tuple)
def _type_as_tuple(args, kws):
    (container,) = args
    return signature(types.make_tuple(container.types), container)


@lower_builtin(as_tuple, types.LiteralContainer)
def _lower_as_tuple(context, builder, sig, args):
    refs.incref(builder, sig.args[0], args[0])  # a new reference, as calls return
    return args[0]


def _zip_pairs(keys, values):
    """((k0, v0), (k1, v1), ...) of two tuples of one length."""


@overload(_zip_pairs)
def _zip_pairs_impl(keys, values):
    return _generated("keys, values", [f"(keys[{i}], values[{i}])" for i in range(len(keys))])


def _generated(params: str, members: list[str]):
    """A function of `params` returning the tuple of the `members` expressions (constant
    indexes: a tuple of members of different types has no run-time index)."""
    namespace: dict = {}
    exec(f"def members({params}):\n    return ({''.join(m + ', ' for m in members)})", namespace)
    return namespace["members"]


@overload_method(types.LiteralList, "copy")
@overload_method(types.LiteralStrKeyDict, "copy")
def literal_container_copy(container):
    """An immutable container: its copy is itself."""
    return lambda container: container


# ---------------------------------------------------------------------------- mutation


@registry.register_attr
class LiteralListAttributes(AttributeTemplate):
    """The list methods a literal list refuses, with the reason."""

    key = types.LiteralList

    def generic_resolve(self, value_type, attr):
        if attr in _LIST_MUTATORS:
            raise TypingError(f"{LIST_MUTATION}: list.{attr} on {value_type}")
        if attr == "index":
            raise TypingError("list.index is unsupported for literal lists")
        return None


@registry.register_attr
class LiteralDictAttributes(AttributeTemplate):
    """The dict methods a literal dict refuses."""

    key = types.LiteralStrKeyDict

    def generic_resolve(self, value_type, attr):
        if attr in _DICT_MUTATORS:
            raise TypingError(f"{DICT_MUTATION}: dict.{attr} on {value_type}")
        return None


@overload(operator.setitem)
def literal_container_setitem(container, index, value):
    _refuse_mutation(container)


@overload(operator.delitem)
def literal_container_delitem(container, index):
    _refuse_mutation(container)


def _refuse_mutation(container) -> None:
    if isinstance(container, types.LiteralList):
        raise TypingError(f"{LIST_MUTATION}: {container}")
    if isinstance(container, types.LiteralStrKeyDict):
        raise TypingError(f"{DICT_MUTATION}: {container}")


# ---------------------------------------------------------------------------- initial values


@lower_cast(types.List, types.InitialValueList)
@lower_cast(types.DictType, types.InitialValueDict)
def to_initial_value_type(context, builder, from_type, to_type, value):
    """The same list (dict): its initial value is known to the compiler only."""
    return value
