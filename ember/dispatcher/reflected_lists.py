"""Generated native code for Python lists passed to compiled code (Numba's reflected lists):
per list type, `unbox(list) -> meminfo` builds the native list item by item, and
`reflect(list, meminfo)` writes the callee's changes back into the same Python list.

Items cross as the native entry crosses arguments: numbers are converted (an int in a list of
floats), strings copied, arrays borrowed (meminfo NULL, parent = the ndarray: writes reach the
caller's array), tuples member by member, jitclass boxes share their instance. Every item must
be of the list's item type (typed from its first item, as Numba does): TypeError otherwise.
After the call the Python list is rewritten only when an item differs from the object at its
place (the objects that did not change are kept: an int stays an int in a list of floats).
"""

from __future__ import annotations

import ctypes
import itertools
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.dispatcher.entry_unboxing import ArgumentUnboxing
from ember.dispatcher.native_arrays import ArrayCodegen
from ember.dispatcher.object_layout import (
    _I32,
    _I64,
    _PTR,
    _PTR_SIZE,
    _SSIZE,
    _object_constant,
    numpy_layout,
    probe_layout,
)
from ember.lowering import arrays as refs
from ember.lowering import lists
from ember.lowering.boxing import BoxContext, extension_boxed
from ember.lowering.context import CPUContext
from ember.lowering.models import model_of
from ember.lowering.pyapi import PythonAPI
from ember.runtime import nrt

_NULL = llvm.Constant(_PTR, None)
_serial = itertools.count()


class _RaiseToPython(CPUContext):
    """Lowering helpers' errors (a failed allocation) become a pending Python exception and
    the generated function returns `failure`."""

    def __init__(self, failure: llvm.Constant) -> None:
        super().__init__()
        self.failure = failure

    def raise_error(self, builder: llvm.IRBuilder, exc_class: type, *exc_args: Any) -> None:
        message = str(exc_args[0]) if exc_args else exc_class.__name__
        PythonAPI(self, builder, []).err_set_string(exc_class, message)
        builder.ret(self.failure)


class _ListCodegen(ArgumentUnboxing, ArrayCodegen):
    """Emits one function of a reflected list type, matching and unboxing items as the native
    entry matches and unboxes arguments (entry_unboxing.py, native_arrays.py)."""

    def __init__(self, module: llvm.Module, function: llvm.Function, failure, keepalive: list):
        self.module = module
        self.function = function
        self.layout = probe_layout()
        self._entry = function.append_basic_block("entry")
        self.alloca_builder = llvm.IRBuilder(self._entry)
        self.builder = llvm.IRBuilder(function.append_basic_block("body"))
        self._capi: dict = {}
        self._overflow_slot = None
        self.context = _RaiseToPython(failure)
        self.pyapi = PythonAPI(self.context, self.builder, keepalive)
        self.c = BoxContext(self.context, self.builder, self.pyapi)

    # ------------------------------------------------------------------ items in

    def unbox_item(self, typ: types.Type, obj: llvm.Value, fail: llvm.Block, exact: bool):
        """The native value of item `obj` (a new reference); `fail` when it is not a `typ`
        (a Python exception may be pending there). Numbers are converted, or with `exact`
        taken only from the Python class that typeof gives `typ` (other lists are left to
        the dispatcher's Python path, which types them)."""
        b = self.builder
        if isinstance(typ, (types.Number, types.Boolean)):
            if exact:
                python_class = _EXACT_NUMBER_CLASSES.get(typ)
                if python_class is None:
                    b.branch(fail)
                    b.position_at_end(self.new_block("never"))
                    return llvm.Constant(model_of(typ).value_type, None)
                self.continue_if(self._is_exactly(obj, python_class), fail, "exact_number")
            native = self.c.unbox(typ, obj)
            self.continue_if(b.not_(native.is_error), fail, "number_ok")
            return native.value
        if isinstance(typ, types.UnicodeType):
            self.continue_if(self._is_exactly(obj, str), fail, "str_ok")
            native = self.c.unbox(typ, obj)
            self.continue_if(b.not_(native.is_error), fail, "str_copied")
            return native.value
        if isinstance(typ, types.BaseTuple):
            return self._unbox_tuple(typ, obj, fail, exact)
        if extension_boxed(typ):
            return self._unbox_extension(typ, obj, fail)
        kind = _entry_kind(typ)
        self.emit_match(obj, kind, fail)
        value = model_of(typ).from_arguments(b, self.emit_unbox(obj, kind, fail))
        refs.incref(b, typ, value)  # an instance: the list holds a reference of its own
        return value

    def _unbox_extension(self, typ: types.Type, obj: llvm.Value, fail: llvm.Block):
        """An item of an extension's type: typeof must give `typ` (as Numba checks each
        item), then the type's @unbox makes the native value (which the list owns)."""
        self.continue_if(self._typed_as(typ, obj), fail, "extension_item_type")
        native = self.c.unbox(typ, obj)
        if native.is_error is not None:
            self.continue_if(self.builder.not_(native.is_error), fail, "extension_item_ok")
        if native.cleanup is not None:
            native.cleanup()
        return native.value

    def _typed_as(self, typ: types.Type, obj: llvm.Value) -> llvm.Value:
        """i1: `typeof(obj) == typ`, asked of Python, where an extension types its values (a
        failing typeof leaves its exception pending, and answers false)."""
        pyapi = self.pyapi
        answer = pyapi.call_function_objargs(
            pyapi.borrow_constant(_is_typed_as), [obj, pyapi.borrow_constant(typ)]
        )
        same = self.builder.icmp_unsigned("==", answer, pyapi.borrow_constant(True))
        pyapi.decref(answer)
        return same

    def _unbox_tuple(self, typ: types.BaseTuple, obj: llvm.Value, fail: llvm.Block, exact: bool):
        b = self.builder
        self.continue_if(self._is_exactly(obj, _tuple_class(typ)), fail, "tuple_ok")
        size = self.load_field(obj, self.layout.var_size_offset, _SSIZE, 8)
        self.continue_if(b.icmp_signed("==", size, _SSIZE(len(typ.types))), fail, "size_ok")
        value = llvm.Constant(model_of(typ).value_type, llvm.Undefined)
        for index, member in enumerate(typ.types):
            member_fail = self._releasing(typ, value, index, fail)
            item = self.unbox_item(member, self.tuple_item(obj, index), member_fail, exact)
            value = b.insert_value(value, item, index)
        return value

    def _releasing(self, typ: types.BaseTuple, value, count: int, fail: llvm.Block):
        """A block releasing the first `count` members of `value`, then going to `fail`."""
        owned = [index for index in range(count) if refs.needs_refcount(typ.types[index])]
        if not owned:
            return fail
        block = self.new_block("release_members")
        with self.builder.goto_block(block):
            for index in owned:
                member = self.builder.extract_value(value, index)
                refs.decref(self.builder, typ.types[index], member)
            self.builder.branch(fail)
        return block

    # ------------------------------------------------------------------ items compared

    def check_same(self, typ: types.Type, value: llvm.Value, obj: llvm.Value, differ) -> None:
        """Branch to `differ` unless `obj` is what `value` would box to (raises nothing)."""
        b = self.builder
        if isinstance(typ, (types.Number, types.Boolean)):
            native = self.c.unbox(typ, obj)
            converted = self.new_block("converted")
            cleared = self.new_block("not_a_number")
            b.cbranch(native.is_error, cleared, converted)
            with b.goto_block(cleared):
                self.pyapi.err_clear()
                b.branch(differ)
            b.position_at_end(converted)
            self.continue_if(_same_number(b, typ, value, native.value), differ, "same_number")
        elif isinstance(typ, types.UnicodeType):
            self._check_same_str(value, obj, differ)
        elif isinstance(typ, types.BaseTuple):
            self.continue_if(self._is_exactly(obj, _tuple_class(typ)), differ, "tuple_same_type")
            size = self.load_field(obj, self.layout.var_size_offset, _SSIZE, 8)
            same_size = b.icmp_signed("==", size, _SSIZE(len(typ.types)))
            self.continue_if(same_size, differ, "tuple_same_size")
            for index, member in enumerate(typ.types):
                item = b.extract_value(value, index)
                self.check_same(member, item, self.tuple_item(obj, index), differ)
        elif isinstance(typ, types.Array):
            self._check_same_array(typ, value, obj, differ)
        elif extension_boxed(typ):
            self._check_same_extension(typ, value, obj, differ)
        elif isinstance(typ, types.DispatcherType):  # the very jitted function
            self.emit_match(obj, _entry_kind(typ), differ)
        elif isinstance(typ, (types.NPDatetime, types.NPTimedelta)):  # same unit and count
            kind = _entry_kind(typ)
            self.emit_match(obj, kind, differ)
            count = self.emit_unbox(obj, kind, differ)[0]
            self.continue_if(b.icmp_signed("==", count, value), differ, "same_datetime")
        else:  # a jitclass box: the same instance
            kind = _entry_kind(typ)
            self.emit_match(obj, kind, differ)
            meminfo = self.emit_unbox(obj, kind, differ)[0]
            same = b.icmp_unsigned("==", meminfo, b.extract_value(value, 0))
            self.continue_if(same, differ, "same_instance")

    def _check_same_extension(self, typ: types.Type, value, obj: llvm.Value, differ) -> None:
        """`obj` unboxes to the same bytes as `value` (then the object is kept)."""
        from ember.lowering import strings

        b = self.builder
        self.continue_if(self._typed_as(typ, obj), self._cleared(differ), "extension_same_type")
        native = self.c.unbox(typ, obj)
        if native.is_error is not None:
            self.continue_if(b.not_(native.is_error), self._cleared(differ), "extension_same_ok")
        if native.cleanup is not None:
            native.cleanup()
        model = model_of(typ)
        slots = [self.alloca(model.data_type, "extension_bytes") for _ in range(2)]
        for slot, item in zip(slots, (value, native.value)):
            b.store(llvm.Constant(model.data_type, None), slot)  # padding compares equal
            b.store(model.as_data(b, item), slot)
        size = _I64(self.context.get_abi_sizeof(model.data_type))
        equal = b.icmp_signed("==", strings.compare_bytes(b, *slots, size), _I32(0))
        refs.decref(b, typ, native.value)
        self.continue_if(equal, differ, "extension_same_bytes")

    def _cleared(self, differ: llvm.Block) -> llvm.Block:
        """A block clearing any pending exception, then going to `differ` (comparing raises
        nothing)."""
        block = self.new_block("cleared")
        with self.builder.goto_block(block):
            self.pyapi.err_clear()
            self.builder.branch(differ)
        return block

    def _check_same_str(self, value: llvm.Value, obj: llvm.Value, differ) -> None:
        from ember.library.interop.boxing import compact_str_fields
        from ember.lowering import strings

        b = self.builder
        self.continue_if(self._is_exactly(obj, str), differ, "str_same_type")
        compact, kind, data, length = compact_str_fields(b, obj)
        same = b.and_(compact, b.icmp_signed("==", kind, strings.kind(b, value)))
        same = b.and_(same, b.icmp_signed("==", length, strings.length(b, value)))
        self.continue_if(same, differ, "str_same_shape")
        nbytes = b.mul(length, kind)
        equal = strings.compare_bytes(b, data, strings.data(b, value), nbytes)
        self.continue_if(b.icmp_signed("==", equal, _I32(0)), differ, "str_same_text")

    def _check_same_array(self, typ: types.Array, value, obj: llvm.Value, differ) -> None:
        """The very ndarray `obj` (its data, shape and strides), as borrowed or adopted."""
        b = self.builder
        layout = numpy_layout()
        same = b.icmp_unsigned("==", b.extract_value(value, 1), obj)
        self.continue_if(same, differ, "array_same_parent")
        data = self.load_field(obj, layout.data, _PTR, _PTR_SIZE)
        same = b.icmp_unsigned("==", data, b.extract_value(value, 4))
        dims = self.load_field(obj, layout.dimensions, _PTR, _PTR_SIZE)
        strides = self.load_field(obj, layout.strides, _PTR, _PTR_SIZE)
        for k in range(typ.ndim):
            extent = self.load_field(dims, 8 * k, _I64, 8)
            stride = self.load_field(strides, 8 * k, _I64, 8)
            same = b.and_(same, b.icmp_signed("==", extent, b.extract_value(value, [5, k])))
            same = b.and_(same, b.icmp_signed("==", stride, b.extract_value(value, [6, k])))
        self.continue_if(same, differ, "array_same_view")

    # ------------------------------------------------------------------ items out

    def box_item(self, typ: types.Type, value: llvm.Value) -> llvm.Value:
        """A new reference to the Python object of `value` (NULL with an exception set); the
        list keeps its own reference."""
        b = self.builder
        if isinstance(typ, types.Array):  # its own ndarray when it still views all of it
            slot = self.alloca(_PTR, "boxed_array")
            parent = b.extract_value(value, 1)
            done = self.new_block("array_boxed")
            new = self.new_block("array_new")
            self.continue_if(b.icmp_unsigned("!=", parent, _NULL), new, "array_has_parent")
            self.check_same(typ, value, parent, new)
            self.pyapi.incref(parent)
            b.store(parent, slot)
            b.branch(done)
            b.position_at_end(new)
            b.store(self.c.box(typ, value), slot)
            b.branch(done)
            b.position_at_end(done)
            return b.load(slot, typ=_PTR)
        if isinstance(typ, types.ClassInstanceType):
            meminfo = b.extract_value(value, 0)
            nrt.emit_incref(b, meminfo)  # the new box takes this reference
            make = self.pyapi.borrow_constant(typ.class_type.jit_class._from_native)
            address = self.pyapi.long_from_voidptr(meminfo)
            boxed = self.pyapi.call_function_objargs(make, [address])
            self.pyapi.decref(address)
            return boxed
        return self.c.box(typ, value)

    # ------------------------------------------------------------------ helpers

    def _is_exactly(self, obj: llvm.Value, cls: type) -> llvm.Value:
        return self.builder.icmp_unsigned("==", self.ob_type(obj), _object_constant(cls))


_EXACT_NUMBER_CLASSES = {
    types.float64: float,
    types.int64: int,
    types.boolean: bool,
    types.complex128: complex,
}


def _is_typed_as(obj: Any, typ: types.Type) -> bool:
    """Whether typeof gives `obj` the type `typ` (run from generated code)."""
    from ember.dispatcher.typeof import typeof_or_none

    return typeof_or_none(obj) == typ


def _tuple_class(typ: types.BaseTuple) -> type:
    return getattr(typ, "instance_class", None) or tuple


def _entry_kind(typ: types.Type) -> Any:
    from ember.dispatcher.fast_entry import value_kind

    kind = value_kind(typ)
    if kind is None:
        raise TypeError(f"a list of {typ} cannot be passed from Python")
    return kind


def _same_number(builder: llvm.IRBuilder, typ: types.Type, left, right) -> llvm.Value:
    """Equal numbers; floats compare by their bits (a NaN is itself, -0.0 is not 0.0)."""
    if isinstance(typ, types.Complex):
        part = typ.underlying_float
        real, imag = (
            _same_number(
                builder, part, builder.extract_value(left, i), builder.extract_value(right, i)
            )
            for i in (0, 1)
        )
        return builder.and_(real, imag)
    if isinstance(typ, types.Float):
        as_int = llvm.IntType(typ.bitwidth)
        left, right = builder.bitcast(left, as_int), builder.bitcast(right, as_int)
    return builder.icmp_unsigned("==", left, right)


# ---------------------------------------------------------------------------- the functions


def _emit_unbox(module: llvm.Module, list_type: types.List, keepalive: list, exact: bool):
    """`ptr unbox(PyObject *list)`: a new native list's meminfo, or NULL with an exception;
    `exact`: NULL without one for an empty list or items typeof would type otherwise."""
    role = "unbox_exact" if exact else "unbox"
    function = _new_function(module, llvm.FunctionType(_PTR, [_PTR]), role)
    gen = _ListCodegen(module, function, _NULL, keepalive)
    b, pyapi, dtype = gen.builder, gen.pyapi, list_type.dtype
    py_list = function.args[0]
    count = pyapi.list_size(py_list)
    if exact:  # an empty list has no item type: typeof refuses it
        empty = gen.new_block("empty")
        with b.goto_block(empty):
            b.ret(_NULL)
        gen.continue_if(b.icmp_signed(">", count, _SSIZE(0)), empty, "has_items")
    value = lists.allocate(gen.context, b, list_type, count)
    storage = lists.storage_of(b, value)
    fail = gen.new_block("bad_item")
    with refs.for_range(b, count) as index:
        item = gen.unbox_item(dtype, pyapi.list_getitem(py_list, index), fail, exact)
        pointer = lists.item_pointer(gen.context, b, list_type, value, index, storage)
        refs.store_value(b, dtype, item, pointer)
        lists.set_length(b, value, b.add(index, _I64(1)))  # what the destructor releases
    b.ret(b.extract_value(value, 0))
    b.position_at_end(fail)
    if exact:
        pyapi.err_clear()
    else:
        with b.if_then(b.icmp_unsigned("==", pyapi.err_occurred(), _NULL)):
            message = f"can't unbox heterogeneous list: an item is not {dtype}"
            pyapi.err_set_string(TypeError, message)
    nrt.emit_decref(b, b.extract_value(value, 0))
    b.ret(_NULL)
    gen.finish_entry_block()
    return function.name


def _emit_release(module: llvm.Module) -> str:
    """`void release(ptr meminfo)`: drop a native list (NULL: nothing)."""
    function = _new_function(module, llvm.FunctionType(llvm.VoidType(), [_PTR]), "release")
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    nrt.emit_decref(builder, function.args[0])
    builder.ret_void()
    return function.name


def _emit_reflect(module: llvm.Module, list_type: types.List, keepalive: list) -> str:
    """`int reflect(PyObject *list, ptr meminfo)`: the Python list takes the native list's
    items if any differs (0, or -1 with an exception); the native list is released."""
    fnty = llvm.FunctionType(_I32, [_PTR, _PTR])
    function = _new_function(module, fnty, "reflect")
    failure = _I32(-1)
    gen = _ListCodegen(module, function, failure, keepalive)
    b, pyapi, dtype = gen.builder, gen.pyapi, list_type.dtype
    py_list, meminfo = function.args
    value = b.insert_value(llvm.Constant(model_of(list_type).value_type, None), meminfo, 0)
    count = lists.length(b, value)
    old_count = pyapi.list_size(py_list)
    storage = lists.storage_of(b, value)

    def item_at(index):
        pointer = lists.item_pointer(gen.context, b, list_type, value, index, storage)
        return refs.load_value(b, dtype, pointer)

    changed = gen.new_block("changed")
    gen.continue_if(b.icmp_signed("==", count, old_count), changed, "same_size")
    with refs.for_range(b, count) as index:
        gen.check_same(dtype, item_at(index), pyapi.list_getitem(py_list, index), changed)
    nrt.emit_decref(b, meminfo)
    b.ret(_I32(0))

    b.position_at_end(changed)
    new_list = pyapi.list_new(count)
    with b.if_then(b.icmp_unsigned("==", new_list, _NULL), likely=False):
        nrt.emit_decref(b, meminfo)
        b.ret(failure)
    with refs.for_range(b, count) as index:
        item = item_at(index)
        boxed, kept, stored = (gen.new_block(name) for name in ("box", "kept", "stored"))
        gen.continue_if(b.icmp_signed("<", index, old_count), boxed, "had_item")
        old_item = pyapi.list_getitem(py_list, index)
        gen.check_same(dtype, item, old_item, boxed)
        b.branch(kept)
        b.position_at_end(kept)
        pyapi.incref(old_item)
        pyapi.list_setitem(new_list, index, old_item)
        b.branch(stored)
        b.position_at_end(boxed)
        made = gen.box_item(dtype, item)
        with b.if_then(b.icmp_unsigned("==", made, _NULL), likely=False):
            pyapi.decref(new_list)
            nrt.emit_decref(b, meminfo)
            b.ret(failure)
        pyapi.list_setitem(new_list, index, made)
        b.branch(stored)
        b.position_at_end(stored)
    status = pyapi.list_setslice(py_list, _SSIZE(0), old_count, new_list)
    pyapi.decref(new_list)
    nrt.emit_decref(b, meminfo)
    b.ret(status)
    gen.finish_entry_block()
    return function.name


def _new_function(module: llvm.Module, fnty: llvm.FunctionType, role: str) -> llvm.Function:
    return llvm.Function(module, fnty, f"{module.name}.{role}")


class _Converters:
    """The compiled functions of one list type, all in one module: `unbox` and `reflect` for
    the dispatcher's Python path (ctypes), and the addresses of `unbox_exact`, `reflect` and
    `release` for the native entry (entry_lists.py)."""

    def __init__(self, list_type: types.List) -> None:
        from ember.codegen.jit import engine

        self.list_type = list_type
        self.keepalive: list = []
        jit = engine()
        module = llvm.Module(name=f"ember.reflected_list.{next(_serial)}")
        module.triple, module.data_layout = jit.triple, jit.data_layout
        symbols = {
            "unbox": _emit_unbox(module, list_type, self.keepalive, exact=False),
            "unbox_exact": _emit_unbox(module, list_type, self.keepalive, exact=True),
            "reflect": _emit_reflect(module, list_type, self.keepalive),
            "release": _emit_release(module),
        }
        compiled = jit.parse(str(module))
        compiled.verify()
        jit.optimize(compiled)
        jit.add_module(compiled)
        self.addresses = {role: jit.address_of(symbol) for role, symbol in symbols.items()}
        self.unbox = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object)(self.addresses["unbox"])
        self.reflect = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(
            self.addresses["reflect"]
        )

    def to_native(self, items: list) -> int:
        """A new native list (its meminfo, one reference for the caller) holding `items`."""
        if type(items) is not list:
            items = list(items)
        try:
            return self.unbox(items)
        except TypeError as error:
            differing = _first_differing_item(self.list_type.dtype, items)
            if differing is None:
                raise
            index, found = differing
            raise TypeError(
                f"can't unbox heterogeneous list: item {index} is {found}, "
                f"not {self.list_type.dtype}"
            ) from error

    def write_back(self, meminfo: int, items: list) -> None:
        """Give `items` the native list's items where they changed; releases the native
        list."""
        self.reflect(items, meminfo)


_built: dict[types.List, _Converters] = {}


def converters(list_type: types.List) -> _Converters:
    """The converters of `list_type`, compiled at the first Python list of that type."""
    found = _built.get(list_type)
    if found is None:
        found = _built[list_type] = _Converters(list_type)
    return found


def _first_differing_item(dtype: types.Type, items: list) -> tuple[int, Any] | None:
    """(index, what it is) of the first item that is not a `dtype`, for the error message."""
    from ember.dispatcher.typeof import typeof_or_none

    for index, item in enumerate(items):
        try:
            found = typeof_or_none(item)
        except Exception:  # an item ember cannot type at all
            found = None
        if found is None or _differs(found, dtype):
            return index, found if found is not None else type(item).__name__
    return None


def _differs(found: types.Type, expected: types.Type) -> bool:
    """Whether an item of type `found` cannot be unboxed as `expected` (numbers convert to
    floats and complex numbers, only integers and bools to integers)."""
    if isinstance(expected, (types.Number, types.Boolean)):
        if isinstance(expected, (types.Float, types.Complex)):
            return not isinstance(found, (types.Number, types.Boolean))
        return not isinstance(found, (types.Integer, types.Boolean))
    if isinstance(expected, types.BaseTuple) and isinstance(found, types.BaseTuple):
        return len(found.types) != len(expected.types) or any(
            _differs(member, wanted) for member, wanted in zip(found.types, expected.types)
        )
    return found != expected
