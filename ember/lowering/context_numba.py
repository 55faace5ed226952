"""The target context's helpers under Numba's names (`context.make_helper`,
`compile_internal`, `get_constant_generic`, ...) for lowering code written against Numba's
extension API, plus `impl_ret_*`, `iternext_impl` and `RefType` (Numba's `numba.core.imputils`)."""

from __future__ import annotations

import enum
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.lowering import cgutils
from ember.typing.signature import Signature

# Objects referred to by generated code made through `get_python_api`: they live as long as
# the process, as the code that points at them may.
_KEEPALIVE: list = []


class _CallConv:
    """`context.call_conv`: raising from lowering code, in Numba's words."""

    def __init__(self, context: Any) -> None:
        self._context = context

    def return_user_exc(self, builder, exc: type, exc_args: tuple = (), loc: Any = None) -> None:
        """Leave the current function raising `exc(*exc_args)` (constant arguments)."""
        self._context.raise_error(builder, exc, *exc_args)

    def guard_error(self, builder, condition, exc: type, exc_args: tuple = ()) -> None:
        self._context.guard(builder, condition, exc, *exc_args)


class _NRTContext:
    """`context.nrt`: reference counting and memory blocks of ember's runtime, under Numba's
    names, for lowering code that manages the references its values hold."""

    def incref(self, builder: llvm.IRBuilder, typ: types.Type, value: llvm.Value) -> None:
        """Count a new reference to every block `value` (of `typ`) holds."""
        from ember.lowering import arrays

        arrays.incref(builder, typ, value)

    def decref(self, builder: llvm.IRBuilder, typ: types.Type, value: llvm.Value) -> None:
        """Release a reference to every block `value` (of `typ`) holds."""
        from ember.lowering import arrays

        arrays.decref(builder, typ, value)

    def meminfo_alloc(self, builder: llvm.IRBuilder, size: llvm.Value) -> llvm.Value:
        """A new block of `size` bytes (an i64) with one reference: its meminfo."""
        from ember.runtime import nrt

        return nrt.emit_allocate(builder, _as_i64(builder, size))

    def meminfo_data(self, builder: llvm.IRBuilder, meminfo: llvm.Value) -> llvm.Value:
        """The address of a block's data."""
        from ember.runtime import nrt

        return nrt.emit_load_data_pointer(builder, meminfo)

    def __getattr__(self, name: str) -> Any:
        from ember.errors import UnsupportedError

        raise UnsupportedError(
            f"context.nrt.{name} is not provided by ember: its runtime offers incref, decref, "
            "meminfo_alloc and meminfo_data to lowering code"
        )


def _as_i64(builder: llvm.IRBuilder, value: llvm.Value | int) -> llvm.Value:
    i64 = llvm.IntType(64)
    if isinstance(value, int):
        return llvm.Constant(i64, value)
    if value.type.width < 64:
        return builder.zext(value, i64)
    return value


class NumbaContextMixin:
    """Methods a Numba extension calls on its `context` argument (see module doc)."""

    enable_nrt = True

    @property
    def call_conv(self) -> _CallConv:
        return _CallConv(self)

    @property
    def nrt(self) -> _NRTContext:
        return _NRTContext()

    @property
    def typing_context(self) -> Any:
        from ember.typing.context import TypingContext

        return TypingContext()

    def refresh(self) -> None:
        """Numba's call after registering lowerings: ember's registry is read live."""

    # ------------------------------------------------------------------ structs and tuples

    def make_helper(self, builder: llvm.IRBuilder, typ: types.Type, value=None, ref=None):
        """A proxy on a StructModel value of `typ`: members by name, `_getvalue()`."""
        return cgutils.create_struct_proxy(typ)(self, builder, value=value, ref=ref)

    def make_complex(self, builder: llvm.IRBuilder, typ: types.Complex, value=None):
        """A proxy on a complex value: `.real`, `.imag`, `_getvalue()`."""
        return self.make_helper(builder, typ, value=value)

    def make_array(self, typ: types.Type) -> type:
        """The struct proxy class of an array type: members meminfo, parent, nitems,
        itemsize, data, shape, strides (use with `cgutils.get_item_pointer`)."""
        return cgutils.create_struct_proxy(typ)

    def make_tuple(self, builder: llvm.IRBuilder, typ: types.Type, values: list) -> llvm.Value:
        result = llvm.Constant(self.get_value_type(typ), llvm.Undefined)
        for index, value in enumerate(values):
            result = builder.insert_value(result, value, index)
        return result

    def pack_value(self, builder, typ: types.Type, value, ptr) -> None:
        """Store `value` at `ptr` in its in-memory form."""
        builder.store(self.get_data_model(typ).as_data(builder, value), ptr)

    def unpack_value(self, builder, typ: types.Type, ptr) -> llvm.Value:
        """Load a value of `typ` stored at `ptr` in its in-memory form."""
        model = self.get_data_model(typ)
        return model.from_data(builder, builder.load(ptr, typ=model.data_type))

    # ------------------------------------------------------------------ constants

    def get_constant_generic(self, builder: llvm.IRBuilder, typ: types.Type, value: Any):
        """The native value of a Python constant: a `@lower_constant` implementation when one
        matches `typ` (it may emit code with `builder`), else `get_constant`."""
        impl = self.registry.find_constant(typ)
        if impl is not None:
            return impl(self, builder, typ, value)
        if isinstance(typ, types.BaseTuple) and any(
            self.registry.find_constant(member) for member in typ.types
        ):  # a member made by code (a tuple of bytes): the tuple is built member by member
            tuple_value = llvm.Constant(self.get_value_type(typ), llvm.Undefined)
            for index, (member, item) in enumerate(zip(typ.types, value)):
                native = self.get_constant_generic(builder, member, item)
                tuple_value = builder.insert_value(tuple_value, native, index)
            return tuple_value
        if isinstance(typ, types.Array):
            return self.make_constant_array(builder, typ, value)
        return self.get_constant(typ, value)

    def make_constant_array(self, builder: llvm.IRBuilder, typ: types.Array, ary: Any):
        """An array value of `typ` holding a frozen copy of the NumPy array `ary`, as a global
        array is (its data lives in the compiled module)."""
        from ember.lowering.arrays import array_constant

        return array_constant(typ, ary, builder.module)

    def get_constant_null(self, typ: types.Type) -> llvm.Constant:
        return llvm.Constant(self.get_value_type(typ), None)

    def get_constant_undef(self, typ: types.Type) -> llvm.Constant:
        return llvm.Constant(self.get_value_type(typ), llvm.Undefined)

    def insert_const_string(self, module: llvm.Module, text: str) -> llvm.Value:
        """A pointer to a NUL-terminated constant copy of `text` in `module`."""
        data = bytearray(text.encode("utf-8") + b"\0")
        const = llvm.Constant(llvm.ArrayType(llvm.IntType(8), len(data)), data)
        variable = llvm.GlobalVariable(module, const.type, module.get_unique_name("ember.cstr"))
        variable.linkage = "private"
        variable.global_constant = True
        variable.initializer = const
        return variable

    def add_dynamic_addr(self, builder: llvm.IRBuilder, intaddr: int, info: str = "") -> Any:
        """A pointer constant (an `i8*`, as Numba's, so that a bitcast to a function pointer
        type is a real cast) for an absolute address known now (valid in this process)."""
        return llvm.Constant(cgutils.intp_t, intaddr).inttoptr(cgutils.int8_t.as_pointer())

    def get_function_pointer_type(self, typ: types.Type) -> llvm.Type:
        """The LLVM pointer type of a C function of `typ` (an ExternalFunctionPointer, e.g. from
        `ctypes_utils.make_function_type`), for a bitcast before `call_function_pointer`."""
        from ember.lowering.function_pointers import c_function_type

        return c_function_type(self, typ.signature).as_pointer()

    def call_function_pointer(self, builder: llvm.IRBuilder, funcptr, args, cconv=None):
        """Call the C function `funcptr` (of a `get_function_pointer_type` type) with `args`."""
        return builder.call(funcptr, list(args), cconv=cconv)

    def get_ufunc_info(self, ufunc_key: Any) -> dict:
        """A NumPy ufunc's element lowering per loop (`numba.np.ufunc_db.get_ufunc_info`)."""
        from ember.np import ufunc_db

        return ufunc_db.get_ufunc_info(ufunc_key)

    def get_abi_sizeof(self, lltype: llvm.Type) -> int:
        return lltype.get_abi_size(_target_data())

    def get_abi_alignment(self, lltype: llvm.Type) -> int:
        return lltype.get_abi_alignment(_target_data())

    # ------------------------------------------------------------------ calls

    def compile_internal(
        self,
        builder: llvm.IRBuilder,
        impl: Any,
        sig: Signature,
        args: list,
        locals: dict | None = None,
        **jit_options: Any,
    ) -> llvm.Value:
        """Compile the Python function `impl` for `sig` and call it with `args` (`locals` is
        accepted and, as by `@jit`, not needed: ember infers the types of locals).
        `jit_options` (ember's addition, e.g. `error_model="numpy"`) apply on top of the
        caller's options."""
        from ember.typing.overload import implementation_of

        return implementation_of(impl, jit_options).call(self, builder, sig, list(args))

    def get_python_api(self, builder: llvm.IRBuilder) -> Any:
        from ember.lowering.pyapi import PythonAPI

        return PythonAPI(self, builder, _KEEPALIVE)


def _target_data() -> Any:
    from llvmlite import binding

    from ember.codegen.jit import engine

    return binding.create_target_data(engine().data_layout)


# ------------------------------------------------------------------ Numba's imputils


def impl_ret_new_ref(context: Any, builder: llvm.IRBuilder, retty: types.Type, ret):
    """`ret` is a new reference already (what lowering implementations return)."""
    return ret


def impl_ret_borrowed(context: Any, builder: llvm.IRBuilder, retty: types.Type, ret):
    """`ret` was borrowed (e.g. one of the arguments): count the new reference."""
    from ember.lowering import arrays

    arrays.incref(builder, retty, ret)
    return ret


def impl_ret_untracked(context: Any, builder: llvm.IRBuilder, retty: types.Type, ret):
    """`ret` owns no references (numbers, booleans)."""
    return ret


class RefType(enum.Enum):
    """How a Numba-style iterator's `next` hands out its item (`@iternext_impl(RefType.X)`).
    ember treats the item of every iterator's (item, valid) pair as borrowed from the iterator,
    so the three kinds lower alike."""

    NEW = 1
    BORROWED = 2
    UNTRACKED = 3


class _IternextResult:
    """The `result` a Numba-style `next` implementation fills: `set_valid(bit)`, `yield_(item)`,
    `set_exhausted()`, `is_valid()`; held in stack slots and read back as ember's (item, valid)
    pair."""

    def __init__(self, context: Any, builder: llvm.IRBuilder, pair_type: types.Pair) -> None:
        self._builder = builder
        self._pair_llvm = context.value_type(pair_type)
        self._item = cgutils.alloca_once(builder, self._pair_llvm.elements[0], zfill=True)
        self._valid = cgutils.alloca_once_value(builder, cgutils.false_bit)

    def set_valid(self, is_valid: llvm.Value | bool = True) -> None:
        if isinstance(is_valid, bool):
            is_valid = cgutils.true_bit if is_valid else cgutils.false_bit
        self._builder.store(is_valid, self._valid)

    def set_exhausted(self) -> None:
        self.set_valid(False)

    def yield_(self, value: llvm.Value) -> None:
        self._builder.store(value, self._item)
        self.set_valid(True)

    def is_valid(self) -> llvm.Value:
        return self._builder.load(self._valid, typ=cgutils.bool_t)

    def pair(self) -> llvm.Value:
        item = self._builder.load(self._item, typ=self._pair_llvm.elements[0])
        pair = self._builder.insert_value(llvm.Constant(self._pair_llvm, llvm.Undefined), item, 0)
        return self._builder.insert_value(pair, self.is_valid(), 1)


def iternext_impl(ref_type: RefType) -> Any:
    """Numba's decorator for an iterator's `next` lowering written as
    `impl(context, builder, sig, args, result)` (registered as `@lower_builtin("iternext", T)`):
    `result.set_valid(bit)` and `result.yield_(item)` become ember's (item, valid) pair."""
    if not isinstance(ref_type, RefType):
        raise TypeError(f"iternext_impl takes a RefType (RefType.BORROWED...), not {ref_type!r}")

    def decorate(impl: Any) -> Any:
        def iternext(context, builder, sig, args):
            result = _IternextResult(context, builder, sig.return_type)
            impl(context, builder, sig, args, result)
            return result.pair()

        return iternext

    return decorate
