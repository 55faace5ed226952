"""ember's type lattice: every type a value can have in compiled code, interned with a typecode."""

import sys as _sys

from ember.types.abstract import Dummy, Opaque, PyObject, Type, pyobject, type_from_typecode
from ember.types.arrays import (
    Array,
    ArrayIterator,
    DType,
    EllipsisType,
    EnumerateType,
    RawPointer,
    SliceType,
    ZipType,
    data_pointer,
    ellipsis_type,
    meminfo_pointer,
    pyobject_pointer,
    slice2_type,
    slice3_type,
)
from ember.types.classes import (
    ClassInstanceType,
    ClassType,
    DeferredType,
    ManagedStruct,
    deferred_type,
)
from ember.types.containers import (
    BaseTuple,
    DeferredText,
    NamedTuple,
    NamedTupleClass,
    NamedUniTuple,
    Pair,
    RangeIteratorType,
    RangeType,
    Tuple,
    UniTuple,
    UniTupleIterator,
    is_named_tuple,
    make_named_tuple,
    make_tuple,
    range_iter64_type,
    range_state64_type,
    widened,
)
from ember.types.datetimes import NPDatetime, NPTimedelta
from ember.types.dicts import (
    DictType,
    DictView,
    HashTable,
    HashTableIterator,
    Set,
    SetType,
    TypeRef,
    empty_dict,
    empty_set,
    empty_typed_set,
    unsupported_key,
)
from ember.types.enums import (
    EnumClass,
    EnumMember,
    IntEnumClass,
    IntEnumMember,
    enum_class_type,
    enum_member_type,
)
from ember.types.functions import (
    BoundFunction,
    Callable,
    Closure,
    DispatcherChoice,
    DispatcherType,
    ExceptionClass,
    ExceptionClassChoice,
    ExceptionInstance,
    ExternalFunction,
    ExternalFunctionPointer,
    Function,
    FunctionType,
    Module,
    NumberClass,
    Omitted,
    WrapperAddressProtocol,
    exception_class_members,
    ffi_forced_object,
)
from ember.types.generators import Generator
from ember.types.lists import (
    List,
    ListIterator,
    ListType,
    Undefined,
    items_of,
    undefined,
    unsupported_item,
)
from ember.types.literal_containers import (
    InitialValueDict,
    InitialValueList,
    LiteralContainer,
    LiteralList,
    LiteralStrKeyDict,
)
from ember.types.numba_names import *  # noqa: F403 - Numba's alias names are public names
from ember.types.numba_names import late_name
from ember.types.optional import Optional, optional
from ember.types.pointers import (
    AnyType,
    CPointer,
    EphemeralPointer,
    MemInfoPointer,
    VarArg,
    voidptr,
)
from ember.types.random import (
    NumPyRandomBitGeneratorType,
    NumPyRandomGeneratorType,
    npy_bitgen,
    npy_rng,
)
from ember.types.records import NestedArray, Record, RecordField
from ember.types.scalars import *  # noqa: F403 - the scalar instances are the public names
from ember.types.scalars import (
    Boolean,
    BooleanLiteral,
    Complex,
    Float,
    Integer,
    IntegerLiteral,
    Literal,
    NoneType,
    Number,
    StringLiteral,
    constant_int_type,
    integer_type,
    literal,
    maybe_literal,
    unliteral,
    wrapped_constant,
)
from ember.types.strings import (
    BytesIterator,
    BytesType,
    CharSeq,
    UnicodeCharSeq,
    UnicodeIterator,
    UnicodeType,
    bytes_type,
    element_value_type,
    unicode_type,
)
from ember.types.structref import StructRef, StructRefPayload

Any = AnyType("any")  # assigned, not imported: the star import above would bring typing.Any

__all__ = [name for name in dir() if not name.startswith("_") and name != "late_name"]

# Numba's submodules of `numba.core.types` (`types.common.SimpleIteratorType`,
# `types.misc.Opaque`, `types.npytypes.Array`...): ember keeps their names in this one module.
for _submodule in ("common", "misc", "npytypes", "iterators", "function_type"):
    _sys.modules[f"{__name__}.{_submodule}"] = _sys.modules[__name__]
common = misc = npytypes = iterators = function_type = _sys.modules[__name__]


def __getattr__(name: str):
    return late_name(__name__, name)
