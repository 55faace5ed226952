"""Builds a dispatcher's native entry: generated code that matches Python argument types against
the compiled specializations and calls their machine code, falling back to the dispatcher's
Python path for anything else (see native_entry.py). It grows in links, one per batch of new
specializations (EntryChain).

The top link is installed as the dispatcher's vectorcall function (call_slots.py), so calling
a jitted function from Python runs no Python-level code on the fast path.
"""

from __future__ import annotations

import ctypes
import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ember import types
from ember.codegen.jit import glue_engine
from ember.dispatcher import native_entry
from ember.dispatcher.datetime_entry import datetime_array_kind, datetime_kind
from ember.dispatcher.entry_buffers import BufferKind, bytearray_kind, memoryview_kind
from ember.dispatcher.entry_records import RecordKind, record_kind
from ember.dispatcher.entry_slices import slice_kind
from ember.dispatcher.entry_templates import link_text
from ember.dispatcher.memory_object import memory_object_type
from ember.dispatcher.object_layout import (
    DtypeObject,
    ExactScalarKind,
    GeneratorKind,
    NamedTupleKind,
    SetKind,
)
from ember.lowering.callconv import raise_static_exception

if TYPE_CHECKING:
    from ember.dispatcher.dispatcher import Dispatcher


def value_kind(typ: types.Type) -> Any:
    """The native-entry kind of a type (a name or a tuple of kinds), or None."""
    if isinstance(typ, types.Boolean):
        return "bool"
    if isinstance(typ, (types.Integer, types.Float, types.Complex)):
        return typ.name
    if isinstance(typ, types.NoneType):
        return "none"
    if isinstance(typ, types.UnicodeType | types.BytesType):
        return native_entry.StringKind(of_bytes=isinstance(typ, types.BytesType))
    if isinstance(typ, (types.NPDatetime, types.NPTimedelta)):
        return datetime_kind(typ)
    if isinstance(typ, types.Optional):  # returned only: None or a boxed scalar
        inner = value_kind(typ.type)
        usable = isinstance(inner, str | native_entry.StringKind | native_entry.ArrayKind)
        return native_entry.OptionalKind(inner) if usable else None
    if isinstance(typ, types.ClassType):  # a jitclass passed as an argument: the class
        return native_entry.ConstantKind(typ.jit_class)
    if isinstance(typ, types.DispatcherType):  # a jitted function passed as an argument
        return native_entry.ConstantKind(typ.dispatcher)
    if isinstance(typ, types.LiteralContainer):  # boxed as a list or dict by its @box
        return None
    if isinstance(typ, types.BaseTuple):
        members = tuple(value_kind(t) for t in typ.types)
        if None in members:
            return None
        named = getattr(typ, "instance_class", None) if types.is_named_tuple(typ) else None
        return members if named is None else NamedTupleKind(members, named)
    if isinstance(typ, types.ClassInstanceType):  # a jitclass box
        from ember.jitclasses.box import instance_kind

        return instance_kind(typ)
    if isinstance(typ, types.StructRef):  # a structref proxy
        from ember.experimental.structref import proxy_kind

        return proxy_kind(typ)
    if isinstance(typ, types.DictType):  # an ember.typed.Dict
        from ember.typed.typeddict import dict_kind

        return dict_kind(typ)
    if isinstance(typ, types.Set) and not isinstance(typ, types.SetType):  # returned only
        item = value_kind(typ.key_type)
        return SetKind(item) if item is not None and _set_item_kind(item) else None
    if isinstance(typ, types.SetType):  # an ember.typed.Set
        from ember.typed.typedset import set_kind

        return set_kind(typ)
    if isinstance(typ, types.List):  # an ember.typed.List (Python lists: argument_kind)
        from ember.typed.typedlist import list_kind

        return list_kind(typ)
    if isinstance(typ, types.Record):
        return record_kind(typ)
    if isinstance(typ, types.Generator):  # returned only
        from ember.dispatcher.generators import native_boxer

        return GeneratorKind(native_boxer(typ))
    if isinstance(typ, types.Array):
        if isinstance(typ.dtype, types.Record | types.UnicodeCharSeq | types.CharSeq):
            from ember.library.numpy.support import numpy_dtype

            dtype = DtypeObject(numpy_dtype(typ.dtype))
        else:
            dtype = value_kind(typ.dtype)
        if not isinstance(dtype, str | DtypeObject):
            return None
        return native_entry.ArrayKind(dtype, typ.ndim, typ.layout, typ.readonly)
    return None


def _set_item_kind(kind: Any) -> bool:
    """Whether the entry boxes set items of this kind: numbers, strings, tuples of them."""
    if isinstance(kind, tuple):
        return bool(kind) and all(_set_item_kind(member) for member in kind)
    if isinstance(kind, native_entry.StringKind):
        return True
    return isinstance(kind, str) and kind != "none"


def argument_kind(typ: types.Type) -> Any:
    """The native-entry kind of an argument of type `typ`: a Python list (copied in and
    written back) for a reflected list, a typed list for a `ListType`; other types as
    `value_kind`."""
    if isinstance(typ, types.List) and not isinstance(typ, types.ListType):
        from ember.dispatcher.reflected_lists import converters
        from ember.dispatcher.typeof import reflectable_item

        if reflectable_item(typ.dtype):
            return _reflected_kind(typ, converters(typ).addresses, list)
    if isinstance(typ, types.Set) and not isinstance(typ, types.SetType):
        return _reflected_set_kind(typ)
    if isinstance(typ, types.Array) and isinstance(typ.dtype, types.NPDatetime | types.NPTimedelta):
        return datetime_array_kind(typ)
    if isinstance(typ, types.EnumMember):
        return _enum_kind(typ)
    if isinstance(typ, types.SliceType):  # arguments only: a returned slice is boxed in Python
        return slice_kind(typ)
    if isinstance(typ, types.ByteArray):
        return bytearray_kind(typ)
    if isinstance(typ, types.MemoryView):
        return memoryview_kind(typ)
    return value_kind(typ)


def _reflected_set_kind(typ: types.Set) -> Any:
    """A Python set argument's kind: copied in through a list of its items, written back
    after the call; items the entry boxes in sets only (None: the Python path)."""
    from ember.dispatcher.reflected_sets import set_converters
    from ember.dispatcher.typeof import reflectable_item

    item = value_kind(typ.dtype)
    if item is None or not _set_item_kind(item) or not reflectable_item(typ.dtype):
        return None
    return _reflected_kind(typ, set_converters(typ).addresses, set)


def _reflected_kind(typ: types.Type, addresses: dict, container: type) -> Any:
    """The kind of a Python list or set argument passed through its converters' functions."""
    roles = (addresses["unbox_exact"], addresses["reflect"], addresses["release"])
    return native_entry.ReflectedListKind(typ, *roles, container=container)


_MAX_ENUM_MEMBERS = 32  # selected by identity, one compare each


def _enum_kind(typ: types.EnumMember) -> Any:
    """An enum member argument's kind: its class and its members' values (None: Python path)."""
    import enum

    from ember.dispatcher.object_layout import EnumKind

    if issubclass(typ.instance_class, enum.Flag):  # combined flags are made at run time
        return None
    value = value_kind(typ.dtype)
    members = tuple((member, member.value) for member in typ.instance_class)
    if not isinstance(value, str) or not 0 < len(members) <= _MAX_ENUM_MEMBERS:
        return None
    if not isinstance(typ.dtype, types.Integer | types.Float):
        return None
    return EnumKind(typ.instance_class, value, members)


def _positional_defaults(py_func: Callable) -> tuple | None:
    """Defaults of trailing positional parameters, or None when the fast path cannot bind
    the parameters positionally (keyword-only parameters; *args after parameters with
    defaults)."""
    defaults = tuple(py_func.__defaults__ or ())
    if _takes_star_args(py_func) and defaults:
        return None
    for p in inspect.signature(py_func).parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL):
            return None
    return defaults


def _takes_star_args(py_func: Callable) -> bool:
    return bool(py_func.__code__.co_flags & inspect.CO_VARARGS)


def _spread_star_args(arg_types: tuple) -> tuple | None:
    """The argument types of a *args function's overload as the call passes them: its last
    type (the *args tuple) spread into one per argument (they flatten alike in the native
    convention); None if that is not a tuple."""
    star = arg_types[-1] if arg_types else None
    if not isinstance(star, types.BaseTuple) or types.is_named_tuple(star):
        return None
    return (*arg_types[:-1], *star.types)


def _has_machine_code(result: Any) -> bool:
    return getattr(result.library, "has_machine_code", True)


def _specialization(arg_types: tuple, result: Any, exact_scalars: bool) -> tuple | None:
    """`(arg_kinds, ret_kind, address)` of one compiled specialization, or None when the
    native entry cannot take its arguments or box its result. `exact_scalars`: a Python
    number and a NumPy scalar of 64 bits are told apart (they compile apart)."""
    arg_kinds = [argument_kind(t) for t in arg_types]
    if exact_scalars:
        arg_kinds = [_exact_scalar_kind(k, t) for k, t in zip(arg_kinds, arg_types)]
    ret_kind = value_kind(result.signature.return_type)
    if ret_kind is None or None in arg_kinds:
        return None
    returns_arrays = bool(_array_types(result.signature.return_type))
    if returns_arrays and any(_views_need_their_argument(k) for k in arg_kinds):
        return None  # the Python path finds the argument such a view lies in
    if _holds(ret_kind, native_entry.ConstantKind):
        return None  # functions and classes returned are boxed by the Python path
    if not all(native_entry.fast_path_supported(k) for k in arg_kinds):
        return None
    return (arg_kinds, ret_kind, result.address)


_EXACT_SCALAR_NAMES = frozenset({"int64", "uint64", "float64", "complex128"})


def _exact_scalar_kind(kind: Any, typ: types.Type) -> Any:
    """An argument's scalar kind matched by its exact class: np.int64(5) takes the NumPy
    scalar's specialization (types.np_int64), 5 the Python int's."""
    if isinstance(kind, str) and kind in _EXACT_SCALAR_NAMES:
        return ExactScalarKind(kind, types.is_numpy_scalar(typ))
    return kind


def _views_need_their_argument(kind: Any) -> bool:
    """Whether an array viewing this argument's memory may have no parent the entry can
    name: a view of a bytearray or memoryview, or a record's sub-array field."""
    if isinstance(kind, native_entry.ArrayKind | RecordKind) and isinstance(
        kind.dtype, DtypeObject
    ):
        return _has_subarray_fields(kind.dtype.dtype)
    return isinstance(kind, BufferKind)


def _has_subarray_fields(dtype: Any) -> bool:
    if dtype.subdtype is not None:
        return True
    fields = dtype.fields or {}
    return any(_has_subarray_fields(field[0]) for field in fields.values())


def _holds(kind: Any, kind_class: type) -> bool:
    if isinstance(kind, tuple):
        return any(_holds(member, kind_class) for member in kind)
    return isinstance(kind, kind_class)


def _array_types(typ: types.Type) -> list[types.Array]:
    """The array types a result of type `typ` holds: itself, or inside tuples, optionals and
    lists, which the native entry boxes."""
    if isinstance(typ, types.Optional):
        return _array_types(typ.type)
    if isinstance(typ, types.BaseTuple):
        return [found for member in typ.types for found in _array_types(member)]
    if isinstance(typ, types.List) and not isinstance(typ, types.ListType):
        return _array_types(typ.dtype)
    return [typ] if isinstance(value_kind(typ), native_entry.ArrayKind) else []


def _array_boxers(results: list) -> dict:
    """One Python boxer per array kind these results hold (`_array_types`):
    `boxer(result_address, parent)`."""
    from ember.runtime.boxing import box_at

    boxers: dict = {}
    for result in results:
        for typ in _array_types(result.signature.return_type):
            boxers.setdefault(value_kind(typ), functools.partial(box_at, typ))
    return boxers


class FastEntry:
    """A compiled entry: the builtin (for direct use) and the address of its function, which
    is both a fastcall and a vectorcall function."""

    def __init__(self, builtin: Callable, address: int) -> None:
        self.builtin = builtin
        self.address = address


class _Link:
    """One entry of a chain: the specializations it matches (with their compile results)."""

    def __init__(self, specializations: list, results: list, entry: FastEntry) -> None:
        self.specializations = specializations
        self.results = results
        self.entry = entry


# The top MERGE_WIDTH links of a chain merge into one when their sizes are within the same
# power of MERGE_WIDTH: a chain of n specializations is at most about
# (MERGE_WIDTH - 1) * log(n, MERGE_WIDTH) links deep (each a few compares on the way to the
# right one), and each specialization is emitted again only about log(n, MERGE_WIDTH) times.
MERGE_WIDTH = 4


class EntryChain:
    """A dispatcher's native entry, built in links as specializations appear.

    Each link matches the specializations that were new when it was built and hands any
    other call to the link below it (the bottom one: to the dispatcher's Python path), so a
    new specialization costs one small module, not a module over all of them. Keyword calls
    go to one entry per dispatcher that places them and calls the top link positionally; it
    is built at the first keyword call.
    """

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.links: list[_Link] = []  # bottom first
        self.seen: set = set()  # argument types of the overloads already considered
        # [0]: the top link's entry; [1]: the keyword entry (0 until built).
        self.cells = (ctypes.c_void_p * 2)()
        self.emitted = 0  # specializations emitted into links so far, merges included
        self.keyword_entry: Any = None

    @property
    def _defaults(self) -> tuple | None:
        return _positional_defaults(self.dispatcher.py_func)

    def extend(self, calling: Any = None) -> FastEntry | None:
        """Add a link for the overloads compiled since the last one; the new top entry, or
        None when there is nothing new the native entry can take. With `calling` (the overload
        the call from Python being made runs), overloads other than that one join only
        once they have machine code: those compiled for jitted callers alone (one per
        function argument, say) would each pay LLVM's whole pipeline here, for nothing."""
        defaults = self._defaults
        if defaults is None:
            return None
        specializations, results = self._new_specializations(calling)
        if not specializations:
            return None
        self._push(specializations, results, defaults)
        while self._top_mergeable():
            merged = self.links[-MERGE_WIDTH:]
            del self.links[-MERGE_WIDTH:]
            specializations = [spec for link in merged for spec in link.specializations]
            results = [result for link in merged for result in link.results]
            self._push(specializations, results, defaults)
        top = self.links[-1].entry
        self.cells[0] = top.address
        return top

    def _push(self, specializations: list, results: list, defaults: tuple) -> None:
        """Build a link of these specializations on top of the chain."""
        below = self.links[-1].entry if self.links else None
        entry = self._build_link(specializations, results, below, defaults)
        self.links.append(_Link(specializations, results, entry))

    def _new_specializations(self, calling: Any) -> tuple[list, list]:
        """The overloads not in a link yet that the native entry can take, but not those whose
        argument kinds an existing link matches already (that one keeps them, as before)."""
        taken = [spec[0] for link in self.links for spec in link.specializations]
        specializations, results = [], []
        star = _takes_star_args(self.dispatcher.py_func)
        for arg_types, result in list(self.dispatcher.overloads.items()):
            if arg_types in self.seen:
                continue
            if calling not in (None, result) and not _has_machine_code(result):
                continue  # not seen: a later link takes it once it is called from Python
            self.seen.add(arg_types)
            passed = _spread_star_args(arg_types) if star else arg_types
            exact = not self.dispatcher._explicit
            found = None if passed is None else _specialization(passed, result, exact)
            if found is not None and found[0] not in taken:
                taken.append(found[0])
                specializations.append(found)
                results.append(result)
        return specializations, results

    def _top_mergeable(self) -> bool:
        if len(self.links) < MERGE_WIDTH:
            return False
        sizes = {_size_class(len(link.specializations)) for link in self.links[-MERGE_WIDTH:]}
        return len(sizes) == 1

    def _build_link(
        self, specializations: list, results: list, below: FastEntry | None, defaults: tuple
    ) -> FastEntry:
        dispatcher = self.dispatcher
        fallback = dispatcher._python_call
        boxers = _array_boxers(results)
        build = functools.partial(
            native_entry.build_entry_module,
            raise_exception=raise_static_exception,
            memory_object_new=memory_object_type().constructor if boxers else None,
        )
        text, symbol = link_text(
            dispatcher.py_func.__name__,
            specializations,
            fallback,
            build,
            defaults=defaults,
            release_gil=dispatcher.options.nogil,
            array_boxers=boxers,
            next_entry=below.address if below is not None else None,
            keyword_cell=ctypes.addressof(self.cells) + ctypes.sizeof(ctypes.c_void_p),
        )
        self.emitted += len(specializations)
        jit = glue_engine()
        jit.add_module(jit.parse(text))
        address = jit.address_of(symbol)
        keepalive = [fallback, boxers, defaults, self, below, [r.library for r in results]]
        builtin = native_entry.make_pycfunction(address, dispatcher.py_func.__name__, keepalive)
        return FastEntry(builtin, address)

    def ensure_keyword_entry(self) -> None:
        """Build the entry that places keyword arguments, once the chain has a link (not for
        a *args function: its keyword calls take the Python path)."""
        if self.keyword_entry is not None or not self.links:
            return
        if _takes_star_args(self.dispatcher.py_func):
            return
        dispatcher = self.dispatcher
        fallback = dispatcher._python_call
        names = dispatcher._binder.names
        defaults = self._defaults
        module, symbol = native_entry.build_keyword_entry_module(
            dispatcher.py_func.__name__,
            fallback,
            names,
            ctypes.addressof(self.cells),
            defaults=defaults,
        )
        jit = glue_engine()
        jit.add_module(jit.parse(str(module)))
        address = jit.address_of(symbol)
        self.keyword_entry = (fallback, names, defaults)  # objects its code embeds
        self.cells[1] = address


def _size_class(size: int) -> int:
    """floor(log(size, MERGE_WIDTH)): links of one class merge."""
    found = 0
    while size >= MERGE_WIDTH:
        size //= MERGE_WIDTH
        found += 1
    return found
