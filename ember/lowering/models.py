"""Data models: how each ember type is laid out as an LLVM value, in memory and as arguments.

One model per type class, registered with `register_model` (seed 004): the only place that
knows a type's representation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from llvmlite import ir as llvm

from ember import library_domains as library
from ember import types

_models: dict[type, Callable[[types.Type], DataModel]] = {}


def register_model(type_class: type) -> Callable:
    """Class decorator: `@register_model(MyType) class MyModel(StructModel): ...`.

    Both constructor spellings work: ember's `__init__(self, fe_type)` and Numba's
    `__init__(self, dmm, fe_type)` (then `dmm` is `default_manager`), so a Numba model class
    such as `StructModel.__init__(self, dmm, fe_type, members)` ports unchanged.
    """

    def decorate(model_class: type[DataModel]) -> type[DataModel]:
        if _takes_manager(model_class):
            _models[type_class] = lambda typ: model_class(default_manager, typ)
        else:
            _models[type_class] = model_class
        return model_class

    return decorate


def _takes_manager(model_class: type) -> bool:
    """Whether the constructor has Numba's two required parameters `(dmm, fe_type)`."""
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = list(inspect.signature(model_class.__init__).parameters.values())[1:]
    required = [p for p in parameters if p.kind in positional and p.default is p.empty]
    return len(required) >= 2


_instances: dict[types.Type, DataModel] = {}

# A constant number or bool typed as a literal is held as a value of the type it widens to.
_models[types.IntegerLiteral] = _models[types.BooleanLiteral] = lambda typ: model_of(
    typ.literal_type
)
# An enum member is held as its value.
_models[types.EnumMember] = lambda typ: model_of(typ.dtype)


def model_of(typ: types.Type) -> DataModel:
    """The (cached) data model of a type, found by walking its class hierarchy."""
    found = _instances.get(typ)
    if found is not None:
        return found
    library.load_for_types((typ,))  # the model may be registered by a library domain
    for klass in type(typ).__mro__:
        make_model = _models.get(klass)
        if make_model is not None:
            found = make_model(typ)
            _instances[typ] = found
            return found
    raise NotImplementedError(f"no data model for type {typ}")


class DataModelManager:
    """Numba's `dmm` argument: ember keeps one process-wide table of models; this is its face."""

    def lookup(self, fe_type: types.Type) -> DataModel:
        return model_of(fe_type)

    __getitem__ = lookup

    def register(self, type_class: type, model_class: type[DataModel]) -> None:
        register_model(type_class)(model_class)


default_manager = DataModelManager()


class DataModel:
    """Base: `value_type` in registers, `data_type` in memory, flattened `argument_types`."""

    def __init__(self, fe_type: types.Type) -> None:
        self.fe_type = fe_type

    @property
    def value_type(self) -> llvm.Type:
        raise NotImplementedError

    @property
    def data_type(self) -> llvm.Type:
        return self.value_type

    def as_data(self, builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
        return value

    def from_data(self, builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
        return value

    def argument_types(self) -> list[llvm.Type]:
        return [self.value_type]

    def as_arguments(self, builder: llvm.IRBuilder, value: llvm.Value) -> list[llvm.Value]:
        return [value]

    def from_arguments(self, builder: llvm.IRBuilder, args: list[llvm.Value]) -> llvm.Value:
        (value,) = args
        return value

    def traverse(self) -> list[tuple[int, types.Type]]:
        """(member index, member type) pairs of nested values that may own references."""
        return []


class PrimitiveModel(DataModel):
    """A scalar held in one LLVM value of `be_type`."""

    be_type: llvm.Type

    def __init__(self, fe_type: types.Type, be_type: llvm.Type | None = None, *numba) -> None:
        if isinstance(fe_type, DataModelManager):  # Numba's (dmm, fe_type, be_type)
            fe_type, be_type = be_type, (numba[0] if numba else None)
        super().__init__(fe_type)
        if be_type is not None:
            self.be_type = be_type

    @property
    def value_type(self) -> llvm.Type:
        return self.be_type


@register_model(types.Integer)
class IntegerModel(PrimitiveModel):
    def __init__(self, fe_type: types.Integer) -> None:
        super().__init__(fe_type, llvm.IntType(fe_type.bitwidth))


@register_model(types.Float)
class FloatModel(PrimitiveModel):
    def __init__(self, fe_type: types.Float) -> None:
        super().__init__(fe_type, llvm.FloatType() if fe_type.bitwidth == 32 else llvm.DoubleType())


@register_model(types.Boolean)
class BooleanModel(DataModel):
    """i1 in registers, i8 in memory and at the function boundary."""

    @property
    def value_type(self) -> llvm.Type:
        return llvm.IntType(1)

    @property
    def data_type(self) -> llvm.Type:
        return llvm.IntType(8)

    def as_data(self, builder, value):
        return builder.zext(value, self.data_type)

    def from_data(self, builder, value):
        return builder.icmp_unsigned("!=", value, llvm.Constant(self.data_type, 0))

    def argument_types(self):
        return [self.data_type]

    def as_arguments(self, builder, value):
        return [self.as_data(builder, value)]

    def from_arguments(self, builder, args):
        return self.from_data(builder, args[0])


class StructModel(DataModel):
    """A literal struct of member models; members are flattened when passed as arguments."""

    def __init__(self, fe_type: types.Type, members: list[tuple[str, types.Type]], *numba) -> None:
        if isinstance(fe_type, DataModelManager):  # Numba's (dmm, fe_type, members)
            fe_type, members = members, numba[0]
        super().__init__(fe_type)
        self.members = list(members)
        self.member_names = [name for name, _ in self.members]
        self.member_models = [model_of(t) for _, t in self.members]

    def index_of(self, name: str) -> int:
        return self.member_names.index(name)

    get_field_position = index_of  # Numba's name

    def get_member_fe_type(self, name: str) -> types.Type:
        return self.members[self.index_of(name)][1]

    @property
    def value_type(self) -> llvm.Type:
        return llvm.LiteralStructType([m.value_type for m in self.member_models])

    @property
    def data_type(self) -> llvm.Type:
        return llvm.LiteralStructType([m.data_type for m in self.member_models])

    def _convert(self, builder, value, target_type, method_name):
        result = llvm.Constant(target_type, llvm.Undefined)
        for index, member in enumerate(self.member_models):
            item = getattr(member, method_name)(builder, builder.extract_value(value, index))
            result = builder.insert_value(result, item, index)
        return result

    def as_data(self, builder, value):
        return self._convert(builder, value, self.data_type, "as_data")

    def from_data(self, builder, value):
        return self._convert(builder, value, self.value_type, "from_data")

    def argument_types(self):
        return [t for m in self.member_models for t in m.argument_types()]

    def as_arguments(self, builder, value):
        flat = []
        for index, member in enumerate(self.member_models):
            flat.extend(member.as_arguments(builder, builder.extract_value(value, index)))
        return flat

    def from_arguments(self, builder, args):
        result = llvm.Constant(self.value_type, llvm.Undefined)
        position = 0
        for index, member in enumerate(self.member_models):
            count = len(member.argument_types())
            item = member.from_arguments(builder, args[position : position + count])
            result = builder.insert_value(result, item, index)
            position += count
        return result

    def traverse(self):
        return [(index, t) for index, (_, t) in enumerate(self.members)]


@register_model(types.Complex)
class ComplexModel(StructModel):
    def __init__(self, fe_type: types.Complex) -> None:
        part = fe_type.underlying_float
        super().__init__(fe_type, [("real", part), ("imag", part)])


@register_model(types.BaseTuple)
class TupleModel(StructModel):
    def __init__(self, fe_type: types.BaseTuple) -> None:
        super().__init__(fe_type, [(f"f{i}", t) for i, t in enumerate(fe_type.types)])


@register_model(types.Closure)
class ClosureModel(StructModel):
    """The values an inner function closes over (the function itself is in the type)."""

    def __init__(self, fe_type: types.Closure) -> None:
        super().__init__(fe_type, [(f"f{i}", t) for i, t in enumerate(fe_type.env)])


@register_model(types.RangeType)
class RangeModel(StructModel):
    def __init__(self, fe_type: types.RangeType) -> None:
        dtype = fe_type.dtype
        super().__init__(fe_type, [("start", dtype), ("stop", dtype), ("step", dtype)])


@register_model(types.Pair)
class PairModel(StructModel):
    def __init__(self, fe_type: types.Pair) -> None:
        super().__init__(fe_type, [("first", fe_type.first_type), ("second", fe_type.second_type)])


class OpaqueModel(PrimitiveModel):
    """A raw pointer."""

    be_type = llvm.PointerType()

    def __init__(self, fe_type: types.Type, *numba) -> None:
        if isinstance(fe_type, DataModelManager):  # Numba's (dmm, fe_type)
            fe_type = numba[0]
        super().__init__(fe_type)


@register_model(types.RangeIteratorType)
class RangeIteratorModel(PrimitiveModel):
    """Points at mutable {next, stop, step, count} state allocated in the entry block (`count`:
    the values left, kept up to date by a `for` loop's own iterator only, see ranges.py)."""

    def __init__(self, fe_type: types.RangeIteratorType) -> None:
        self.state_type = llvm.LiteralStructType([model_of(fe_type.dtype).value_type] * 4)
        super().__init__(fe_type, self.state_type.as_pointer())


@register_model(types.Dummy)
@register_model(types.NoneType)
class EmptyModel(DataModel):
    """Types with no runtime data: an empty struct, and nothing at all as arguments."""

    @property
    def value_type(self) -> llvm.Type:
        return llvm.LiteralStructType([])

    def argument_types(self):
        return []

    def as_arguments(self, builder, value):
        return []

    def from_arguments(self, builder, args):
        return llvm.Constant(self.value_type, None)


@register_model(types.BoundFunction)
class BoundFunctionModel(DataModel):
    """A method looked up on a value carries the receiver value itself."""

    def __init__(self, fe_type: types.BoundFunction) -> None:
        super().__init__(fe_type)
        self._receiver = model_of(fe_type.this)

    @property
    def value_type(self) -> llvm.Type:
        return self._receiver.value_type

    @property
    def data_type(self) -> llvm.Type:
        return self._receiver.data_type

    def as_data(self, builder, value):
        return self._receiver.as_data(builder, value)

    def from_data(self, builder, value):
        return self._receiver.from_data(builder, value)


@register_model(types.RawPointer)
class RawPointerModel(OpaqueModel):
    """A meminfo, a PyObject* or an array's data: one opaque pointer."""


@register_model(types.PyObject)
class PyObjectModel(OpaqueModel):
    """`types.pyobject` as a member of an extension's struct: a borrowed PyObject* (Numba's
    model; nopython code itself never holds one as a value)."""


@register_model(types.MemInfoPointer)
class MemInfoPointerModel(OpaqueModel):
    """The meminfo pointer itself: the one reference incref/decref count
    (ember/lowering/arrays.py)."""


class MeminfoStructModel(StructModel):
    """A struct whose first member is the meminfo owning the value's memory: the one reference
    that incref/decref count (ember/lowering/arrays.py)."""


@register_model(types.Array)
class ArrayModel(MeminfoStructModel):
    """Numba's array layout: {meminfo, parent, nitems, itemsize, data, shape[n], strides[n]}.

    `meminfo` is NULL for arrays borrowed from Python, whose `parent` is the ndarray PyObject*;
    strides are in bytes. Only `meminfo` owns a reference (see ember/runtime/nrt.py).
    """

    def __init__(self, fe_type: types.Array) -> None:
        dims = types.UniTuple(types.intp, fe_type.ndim)
        super().__init__(
            fe_type,
            [
                ("meminfo", types.meminfo_pointer),
                ("parent", types.pyobject_pointer),
                ("nitems", types.intp),
                ("itemsize", types.intp),
                ("data", types.data_pointer),
                ("shape", dims),
                ("strides", dims),
            ],
        )


@register_model(types.List)
class ListModel(MeminfoStructModel):
    """A list is its meminfo, whose data is the list's header (ember/lowering/lists.py)."""

    def __init__(self, fe_type: types.List) -> None:
        super().__init__(fe_type, [("meminfo", types.meminfo_pointer)])


@register_model(types.ListIterator)
class ListIteratorModel(OpaqueModel):
    """A pointer to {list, next index} in the entry block of the function that made it."""


@register_model(types.ExceptionInstance)
class ExceptionModel(MeminfoStructModel):
    """{payload meminfo (NULL when every argument is a constant), id in the exception table}."""

    def __init__(self, fe_type: types.ExceptionInstance) -> None:
        super().__init__(fe_type, [("payload", types.meminfo_pointer), ("id", types.int32)])
