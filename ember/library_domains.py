"""When each domain of ember's library (ember/library/) is registered: the core modules by the
first compilation (or the first import of any library module), every other domain when a
compilation first meets one of its types or globals. Consumes types and global values seen while
compiling; produces imported (hence registered) library modules."""

from __future__ import annotations

import importlib
import operator
from functools import reduce
from typing import Any

from ember import types
from ember.ir import displays

# What every compilation may need (scalars, tuples, ranges, math...), registered in this order
# by the first compilation: a scalar function pays for nothing else.
CORE_MODULES = (
    "ember.library.interop.boxing",
    "ember.library.numpy.boxing",
    "ember.library.builtins.numeric",
    "ember.library.interop.ctypes_functions",  # typeof of ctypes functions (arguments too)
    "ember.library.interop.cffi_functions",  # typeof of cffi functions and FFI objects
    "ember.library.objects.function_tuples",
    "ember.library.objects.literals",
    "ember.library.builtins.hashing",
    "ember.library.builtins.math_exact",
    "ember.library.builtins.number_methods",
    "ember.library.objects.optional",
    "ember.library.builtins.ranges",
    "ember.library.builtins.enumerate_zip",
    "ember.library.builtins.sequences",
    "ember.library.builtins.slices",
    "ember.library.containers.tuples",
    "ember.library.objects.typerefs",
    "ember.lowering.function_pointers",  # types.FunctionType arguments (unboxing, casts)
)


_STRING_MODULES = (
    "ember.library.strings.core",
    "ember.library.strings.bytes",
    "ember.library.strings.bytes_methods",
    "ember.library.strings.case",
    "ember.library.strings.convert",
    "ember.library.strings.format",
    "ember.library.strings.percent",
    "ember.library.strings.methods",
    "ember.library.strings.more_methods",
    "ember.library.strings.representation",
    "ember.library.strings.unbound_methods",
)


class Domain:
    """Library modules registered together, the first time a compilation meets one of the
    domain's types (`type_classes`, by isinstance) or globals (`values`, or any value defined in
    one of `value_modules`). A plain class: a dataclass costs the first compilation more."""

    def __init__(
        self,
        name: str,
        modules: tuple[str, ...],
        type_classes: tuple[type, ...] = (),
        values: tuple[Any, ...] = (),
        value_modules: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.modules = modules
        self.type_classes = type_classes
        self.values = values
        self.value_modules = value_modules


DOMAINS = (
    Domain(
        "math",
        ("ember.library.builtins.mathlib", "ember.library.builtins.math_float_parts"),
        value_modules=("math",),
    ),
    Domain("random", ("ember.library.builtins.randomlib",), value_modules=("random",)),
    Domain("heapq", ("ember.library.builtins.heapqlib",), value_modules=("heapq", "_heapq")),
    Domain("bisect", ("ember.library.builtins.bisectlib",), value_modules=("bisect", "_bisect")),
    Domain("print", ("ember.library.builtins.printing",), values=(print,)),
    Domain(
        "functional",
        ("ember.library.builtins.functional",),
        values=(map, filter, reduce, operator.truth, operator.abs, operator.index),
    ),
    Domain("attributes", ("ember.library.objects.attributes",), values=(getattr, hasattr)),
    Domain("next", ("ember.library.builtins.next_calls",), values=(next,)),
    Domain("starred", ("ember.library.builtins.starred",), value_modules=("ember.ir.starred",)),
    Domain(
        "exception values",
        ("ember.library.builtins.caught_exceptions",),
        type_classes=(types.ExceptionInstance,),
    ),
    # x ** y on floats: looked up by the lowering key (the typing is the core's)
    Domain("powers", ("ember.lowering.powers",), values=(operator.pow,)),
    Domain(
        "cmath",
        ("ember.library.builtins.cmathlib",),
        value_modules=("cmath",),
    ),
    Domain(
        "containers",
        (
            "ember.library.containers.dicts",
            "ember.library.containers.typed_dicts",
            "ember.library.containers.lists",
            "ember.library.containers.list_methods",
            "ember.library.containers.list_operators",
            "ember.library.containers.list_sorting",
            "ember.library.containers.literal_containers",
            "ember.library.containers.namedtuples",
            "ember.library.containers.sets",
            "ember.library.containers.typed_lists",
            "ember.library.containers.typed_sets",
        ),
        type_classes=(
            types.HashTable,
            types.DictView,
            types.HashTableIterator,
            types.List,
            types.ListIterator,
            types.LiteralContainer,
            types.NamedTuple,
            types.NamedUniTuple,
            types.NamedTupleClass,
        ),
        values=(dict, list, set, frozenset, sorted, reversed),
        value_modules=(
            "ember.ir.displays",
            "ember.typed.typeddict",
            "ember.typed.typedlist",
            "ember.typed.accessors",
            "ember.typed.list_accessors",
            "ember.typed.typedset",
            "ember.typed.set_accessors",
        ),
    ),
    Domain(
        "strings",
        _STRING_MODULES,
        type_classes=(
            types.UnicodeType,
            types.StringLiteral,
            types.UnicodeIterator,
            types.BytesType,
            types.BytesIterator,
        ),
        values=(str, bytes, chr, ord, format, repr, ascii, displays.formatted_field),
    ),
    # NumPy's fixed-length strings (array elements, record fields) come with NumPy loaded:
    # their own domain keeps a program of plain strings from importing NumPy.
    Domain(
        "char arrays",
        (*_STRING_MODULES, "ember.library.numpy.char_arrays"),
        type_classes=(types.UnicodeCharSeq, types.CharSeq),
    ),
    Domain(
        "classes",  # jitclass instances and structrefs: `is`, and jitclass methods and dunders
        ("ember.library.objects.classes",),
        type_classes=(types.ManagedStruct,),
    ),
    Domain(
        "datetimes",  # NumPy's datetime64/timedelta64 (a cached function may meet them first)
        ("ember.library.numpy.datetimes",),
        type_classes=(types.NPDatetime, types.NPTimedelta),
    ),
    Domain(
        "enums",
        ("ember.library.objects.enums",),
        type_classes=(types.EnumMember, types.EnumClass),
    ),
    Domain(
        "generators",
        ("ember.library.objects.generators",),
        type_classes=(types.Generator,),
    ),
    Domain(
        "pointers",
        ("ember.library.interop.carray", "ember.library.interop.pointers"),
        type_classes=(types.CPointer,),
        value_modules=("ember.misc.carray",),
    ),
    Domain(
        "python_buffers",  # bytearray, memoryview and array.array arguments
        ("ember.library.interop.python_buffers",),
        type_classes=(types.PythonBuffer,),
    ),
    Domain(
        "parallel",
        ("ember.parallel.library",),
        value_modules=("ember.parallel.api",),  # prange (also what parfors call) and threads
    ),
)

_waiting = list(DOMAINS)  # the domains not registered yet
_by_value = {id(value): domain for domain in DOMAINS for value in domain.values}
_by_module = {module: domain for domain in DOMAINS for module in domain.value_modules}
_checked_classes: set[type] = set()  # type classes no waiting domain claims


def load_core() -> None:
    """Register the core modules (once; later calls cost an import-cache lookup each)."""
    for name in CORE_MODULES:
        importlib.import_module(name)


def load_for_types(found_types: Any) -> None:
    """Register the waiting domains that claim any of these types."""
    if not _waiting:
        return
    for typ in found_types:
        if isinstance(typ, types.Array):  # an array of strings needs the strings domain
            _load_for_class(type(typ.dtype))
        _load_for_class(type(typ))


def _load_for_class(type_class: type) -> None:
    if type_class in _checked_classes:
        return
    for domain in [d for d in _waiting if issubclass(type_class, d.type_classes)]:
        _load(domain)
    _checked_classes.add(type_class)


def load_for_value(value: Any) -> None:
    """Register the waiting domain that claims this global value (a builtin, a function of a
    module it handles) or lowering key."""
    if not _waiting:
        return
    domain = _by_value.get(id(value))
    if domain is None:
        module = getattr(value, "__module__", None)
        domain = _by_module.get(module) if isinstance(module, str) else None
    if domain is not None:
        _load(domain)


def load_all() -> bool:
    """Register every waiting domain; False when there was none (all registered before)."""
    if not _waiting:
        return False
    for domain in list(_waiting):
        _load(domain)
    return True


def loaded_domains() -> tuple[str, ...]:
    return tuple(d.name for d in DOMAINS if d not in _waiting)


def _load(domain: Domain) -> None:
    if domain not in _waiting:
        return
    _waiting.remove(domain)
    for name in domain.modules:
        importlib.import_module(name)
