"""`ember.typed.Dict()` and `Dict.empty(key_type, value_type)` inside compiled code: ordinary
dicts (an empty `Dict()` is typed by what is later stored in it, as `{}` is)."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.extending import lower_builtin, overload
from ember.library.containers import hashtables as ht
from ember.library.containers.dicts import class_method, yields_pairs
from ember.lowering import arrays as refs
from ember.lowering import dicts as table
from ember.misc.literal import literal_unroll
from ember.typed import accessors
from ember.typed.typeddict import Dict, new_dict
from ember.typing.signature import signature
from ember.typing.templates import registry


def dict_empty(key_type, value_type, n_keys=0):
    """`Dict.empty` as compiled code calls it."""
    return Dict.empty(key_type, value_type, n_keys)


@registry.typer(Dict)
def _type_typed_dict(args, kws):
    if not args and not kws:
        return signature(types.empty_dict)
    return None


def _instance(typ: types.Type) -> types.Type | None:
    if isinstance(typ, types.TypeRef):
        return typ.instance_type
    if isinstance(typ, (types.DictType, types.ListType)) and typ.is_precise:
        return typ  # an empty typed container stands for its type, as in Numba
    return None


def item_type_of(typ: types.Type) -> types.Type | None:
    """The type a `key_type=`/`value_type=`/`item_type` argument names: an ember type object,
    or a NumPy scalar class (`np.int64`), which Numba accepts too; None for anything else."""
    if isinstance(typ, types.Function):
        # imported here: its module imports NumPy, which a program of lists and dicts of
        # numbers and strings never needs
        from ember.library.numpy.support import scalar_class_type

        return scalar_class_type(typ.typing_key)
    return _instance(typ)


@overload(dict_empty)
@overload(new_dict)
def _dict_empty_overload(key_type, value_type, n_keys=0):
    if item_type_of(key_type) is not None and item_type_of(value_type) is not None:
        return lambda key_type, value_type, n_keys=0: _empty_of(key_type, value_type)


@overload(Dict)
def typed_dict_from_pairs(pairs):
    """`Dict(iterable of (key, value))` (a typed dict, as `Dict()` is); a mapping, a
    non-iterable or items that are not pairs have no implementation, as in Numba."""
    if isinstance(pairs, types.HashTable) or not yields_pairs(pairs):
        return None

    def from_pairs(pairs):
        made = Dict()
        for key, value in pairs:
            made[key] = value
        return made

    def from_tuple_of_pairs(pairs):  # pairs of different types: `((1, "a"), (2, "bc"))`
        made = Dict()
        for pair in literal_unroll(pairs):
            made[pair[0]] = pair[1]
        return made

    if isinstance(pairs, types.BaseTuple) and not isinstance(pairs, types.UniTuple):
        return from_tuple_of_pairs
    return from_pairs


def _empty_of(key_type, value_type):
    raise NotImplementedError("runs only in compiled code")


@registry.typer(_empty_of)
def _type_empty_of(args, kws):
    key_type, value_type = map(item_type_of, args)
    ht.check_key(key_type)
    return signature(types.DictType(key_type, value_type), *args)


@registry.typer(accessors.empty_dict)
def _type_empty_dict_of(args, kws):
    if len(args) == 1 and isinstance(_instance(args[0]), types.DictType):
        return signature(args[0].instance_type, *args)
    return None


@registry.typer(accessors.dict_at)
def _type_dict_at(args, kws):
    if len(args) == 2 and isinstance(_instance(args[1]), types.DictType):
        return signature(args[1].instance_type, types.int64, args[1])
    return None


@lower_builtin(accessors.dict_at, types.Integer, types.TypeRef)
def container_at(context, builder, sig, args):
    """A new reference to the dict (or list: typed_lists.py) at a meminfo address (the
    variable releases it)."""
    meminfo = builder.inttoptr(args[0], refs.ptr)
    value = builder.insert_value(
        llvm.Constant(context.value_type(sig.return_type), None), meminfo, 0
    )
    refs.incref(builder, sig.return_type, value)
    return value


@lower_builtin(Dict)
@lower_builtin(_empty_of, types.Type, types.Type)
@lower_builtin(accessors.empty_dict, types.TypeRef)
def new_dict(context, builder, sig, args):
    return table.allocate(context, builder, sig.return_type)


class_method(Dict, "empty", dict_empty)
