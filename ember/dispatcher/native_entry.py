"""Native CPython entry points for ember-compiled functions, generated without a C compiler.

Consumes specializations ``(arg_kinds, ret_kind, target)`` of the ember native calling convention
and produces an LLVM ``METH_FASTCALL | METH_KEYWORDS`` entry function plus the builtin wrapping it.
"""

from __future__ import annotations

import ctypes
import itertools
import re
import types
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir

__all__ = [
    "Kind",
    "PyLayout",
    "SimpleMCJIT",
    "build_entry_module",
    "compile_entry",
    "default_jit",
    "fast_path_supported",
    "flatten_arg_types",
    "make_pycfunction",
    "probe_layout",
    "return_memory_type",
]

from ember.dispatcher.entry_boxing import ResultBoxing
from ember.dispatcher.entry_keywords import KeywordPlacement
from ember.dispatcher.entry_lists import ListArgumentCodegen
from ember.dispatcher.entry_strings import DeferredString, StringArgumentCodegen
from ember.dispatcher.entry_unboxing import ArgumentUnboxing
from ember.dispatcher.native_arrays import ArrayCodegen
from ember.dispatcher.object_layout import (  # noqa: F401 - re-exported
    _CAPI_SIGNATURES,
    _F32,
    _F64,
    _FAST_PATH_SCALARS,
    _I8,
    _I32,
    _I64,
    _INT_KINDS,
    _LONGLONG,
    _NPY_C_CONTIGUOUS,
    _NPY_F_CONTIGUOUS,
    _NPY_WRITEABLE,
    _NUMPY_SCALAR_VALUE_OFFSET,
    _PTR,
    _PTR_SIZE,
    _SCALAR_KINDS,
    _SSIZE,
    METH_FASTCALL,
    METH_KEYWORDS,
    AddModule,
    ArrayKind,
    ConstantKind,
    InstanceKind,
    Kind,
    NumpyCAPI,
    NumpyLayout,
    OptionalKind,
    PyLayout,
    ReflectedListKind,
    Specialization,
    StringKind,
    _capi_address,
    _check_kind,
    _FunctionPointer,
    _object_constant,
    _read_ptr,
    _read_ssize,
    fast_path_supported,
    flatten_arg_types,
    native_function_type,
    numpy_capi,
    numpy_layout,
    numpy_scalar_type,
    probe_layout,
    return_memory_type,
)
from ember.lowering.callconv import EXCINFO_TYPE as _EXCINFO

# --------------------------------------------------------------------------------------------
# Entry-function code generation
# --------------------------------------------------------------------------------------------


class _EntryCodegen(
    ArgumentUnboxing,
    ResultBoxing,
    KeywordPlacement,
    ArrayCodegen,
    ListArgumentCodegen,
    StringArgumentCodegen,
):
    """Emits the body of one fastcall entry function: per specialization, match, unbox, call
    and box; then the fallback and the raise paths."""

    def emit_specialization(
        self, index: int, arg_kinds: Sequence[Kind], ret_kind: Kind, target: str | int
    ) -> None:
        """Emit the match/unbox/call/box sequence; on mismatch continue with the next block."""
        b = self.builder
        next_block = self.new_block(f"spec{index + 1}")
        count = len(arg_kinds)
        required = count - min(len(self.defaults), count)
        nargs = self.nargs_arg
        if required == count:
            nargs_ok = b.icmp_signed("==", nargs, ir.Constant(_SSIZE, count))
        else:
            nargs_ok = b.and_(
                b.icmp_signed(">=", nargs, ir.Constant(_SSIZE, required)),
                b.icmp_signed("<=", nargs, ir.Constant(_SSIZE, count)),
            )
        self.continue_if(nargs_ok, next_block, f"spec{index}.match")
        arg_objs = [self.argument_or_default(position, required) for position in range(count)]
        for obj, kind in zip(arg_objs, arg_kinds, strict=True):
            self.emit_match(obj, kind, next_block)
        # Lists and strings last: copying one allocates, and it is released if a later list's
        # items send the call to the next specialization (strings, matched already, only
        # fail when out of memory). Strings, in tuples too, are placeholders until then.
        self.deferred_strings = []
        unboxed = [
            None if isinstance(kind, ReflectedListKind)
            else self.emit_unbox(obj, kind, self.fallback_block)
            for obj, kind in zip(arg_objs, arg_kinds, strict=True)
        ]  # fmt: skip
        copied_lists: list = []
        for position, (obj, kind) in enumerate(zip(arg_objs, arg_kinds, strict=True)):
            if isinstance(kind, ReflectedListKind):
                unboxed[position] = self.emit_unbox_list(obj, kind, copied_lists, next_block)
        copied_strings = self.emit_copy_deferred_strings(copied_lists)
        flat = [
            field
            for values in unboxed
            for value in values
            for field in (copied_strings[value] if isinstance(value, DeferredString) else [value])
        ]
        copied_strings = [fields[0] for fields in copied_strings.values()]

        fnty = native_function_type(arg_kinds)
        callee = self.resolve_target(target, fnty)
        ret_slot = self.alloca(return_memory_type(ret_kind), f"spec{index}.ret")
        if self._exc_slot is None:
            self._exc_slot = self.alloca(_EXCINFO, "excinfo")
        self.clear_excinfo()  # no payload unless one is set
        thread_state = self.call_capi("PyEval_SaveThread", []) if self.release_gil else None
        status = b.call(callee, [ret_slot, self._exc_slot, ir.Constant(_PTR, None), *flat])
        if thread_state is not None:
            self.call_capi("PyEval_RestoreThread", [thread_state])
        self.emit_release_strings(copied_strings)
        self.emit_reflect_lists(copied_lists)
        self.continue_if(b.icmp_signed("==", status, _I32(0)), self.raise_block, f"spec{index}.ok")
        self.copied_lists = copied_lists  # returned (alone or in a tuple): the caller's list
        self.argument_objects = arg_objs  # a returned generator keeps them alive
        b.ret(self.emit_box(ret_kind, ret_slot))
        b.position_at_end(next_block)

    def clear_excinfo(self) -> None:
        """Zero the exception record field by field: LLVM's fast instruction selector does
        not take a whole-struct store, and one such store sends its block to the slow one."""
        b = self.builder
        record = b.inttoptr(b.ptrtoint(self._exc_slot, _LONGLONG), _PTR)  # an untyped pointer
        b.store(_I32(0), record)  # the exception id
        b.store(ir.Constant(_PTR, None), self.field_ptr(record, _PTR_SIZE))  # the payload

    def resolve_target(self, target: str | int, fnty: ir.FunctionType) -> ir.Value:
        if isinstance(target, int):
            return _FunctionPointer(fnty, target)
        existing = self.module.globals.get(target)
        if existing is None:
            return ir.Function(self.module, fnty, name=target)
        if not isinstance(existing, ir.Function) or existing.function_type != fnty:
            raise TypeError(f"target {target!r} already declared with a different signature")
        return existing

    def emit_fallback(self, next_entry: int | None = None) -> None:
        """Arguments no specialization takes go to the next entry of a chain, if any, or to
        the Python fallback."""
        self.builder.position_at_end(self.fallback_block)
        if next_entry is None:
            self.emit_python_call()
        else:
            self.emit_jump(next_entry)

    def emit_python_call(self) -> None:
        """Return `fallback(*args, **kwargs)` for the call as it came in."""
        result = self.call_capi(
            "PyObject_Vectorcall",
            [_object_constant(self.fallback), self.raw_args, self.raw_nargs, self.kwnames_arg],
        )
        self.builder.ret(result)

    def emit_jump(self, entry: ir.Value | int) -> None:
        """Hand the call as it came in to another entry (a tail call: no frame is left)."""
        fnty = self.function.function_type
        entry = _FunctionPointer(fnty, entry) if isinstance(entry, int) else _Callee(entry, fnty)
        args = [self.self_arg, self.raw_args, self.raw_nargs, self.kwnames_arg]
        self.builder.ret(self.builder.call(entry, args, tail="musttail"))

    def emit_keyword_handoff(self, keyword_cell: int) -> None:
        """A call with keyword arguments goes to the entry whose address `keyword_cell` holds
        (it places them, see `build_keyword_entry_module`), or while there is none yet, to the
        Python fallback."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        with_keywords = self.new_block("kw")
        self.continue_if(b.icmp_unsigned("==", self.kwnames_arg, null), with_keywords, "spec0")
        positional = b.block
        b.position_at_end(with_keywords)
        cell = ir.Constant(_LONGLONG, keyword_cell).inttoptr(_PTR)
        keyword_entry = b.load(cell, typ=_PTR, align=_PTR_SIZE)
        to_python = self.new_block("kw.python")
        self.continue_if(b.icmp_unsigned("!=", keyword_entry, null), to_python, "kw.native")
        self.emit_jump(keyword_entry)
        b.position_at_end(to_python)
        self.emit_python_call()
        b.position_at_end(positional)

    def emit_raise(self) -> None:
        b = self.builder
        null = ir.Constant(_PTR, None)
        b.position_at_end(self.raise_block)
        if self._exc_slot is None:  # no specializations: the block is unreachable
            b.unreachable()
            return
        # raise_exception reads the id and payload from the record's address
        record_address = b.ptrtoint(self._exc_slot, _LONGLONG)
        id_obj = self.call_capi("PyLong_FromLongLong", [record_address])
        fail = self.new_block("raise.fail")
        self.continue_if(b.icmp_unsigned("!=", id_obj, null), fail, "raise.call")
        result = self.call_capi(
            "PyObject_CallOneArg", [_object_constant(self.raise_exception), id_obj]
        )
        self.call_capi("Py_DecRef", [id_obj])
        self.continue_if(b.icmp_unsigned("!=", result, null), fail, "raise.returned")
        # raise_exception returned normally: turn that into a SystemError.
        self.call_capi("Py_DecRef", [result])
        message = _cstring(self.module, "ember: raise_exception() returned without raising")
        self.call_capi("PyErr_SetString", [_object_constant(SystemError), message])
        b.branch(fail)
        b.position_at_end(fail)
        b.ret(null)


class _Callee:
    """A function pointer computed at run time (loaded from memory) as `IRBuilder.call` takes
    it: with opaque pointers the value itself does not carry the function's type."""

    def __init__(self, value: ir.Value, function_type: ir.FunctionType) -> None:
        self.value = value
        self.type = value.type
        self.function_type = function_type

    def get_reference(self) -> str:
        return self.value.get_reference()


def _cstring(module: ir.Module, text: str) -> ir.GlobalVariable:
    data = bytearray(text.encode("utf-8") + b"\0")
    const = ir.Constant(ir.ArrayType(_I8, len(data)), data)
    var = ir.GlobalVariable(module, const.type, name=module.get_unique_name("ember.str"))
    var.linkage = "private"
    var.global_constant = True
    var.unnamed_addr = True
    var.initializer = const
    return var


_symbol_counter = itertools.count()


def _symbol_name(name: str, unique: bool = False) -> str:
    """``ember.entry.<name>``, with a process-wide serial number if ``unique``."""
    base = "ember.entry." + (re.sub(r"[^A-Za-z0-9_.]", "_", name) or "anon")
    return f"{base}.{next(_symbol_counter)}" if unique else base


def unique_entry_symbol(name: str) -> str:
    """A new entry symbol for a function called `name`: ``ember.entry.<name>.<serial>``."""
    return _symbol_name(name, unique=True)


def build_entry_module(
    name: str,
    specializations: Sequence[Specialization],
    fallback: Callable[..., Any],
    raise_exception: Callable[[int], Any],
    *,
    layout: PyLayout | None = None,
    defaults: Sequence[object] = (),
    release_gil: bool = False,
    param_names: Sequence[str] | None = None,
    array_boxers: dict | None = None,
    memory_object_new: int | None = None,
    next_entry: int | None = None,
    keyword_cell: int | None = None,
) -> tuple[ir.Module, str]:
    """Build an LLVM module holding a ``METH_FASTCALL | METH_KEYWORDS`` entry function.

    The entry is ``PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)``, a vectorcall function as well (it ignores the offset flag of
    ``nargs``). With no keyword arguments it tries ``specializations`` in order,
    selecting the first whose arity and exact argument types (see :func:`fast_path_supported`)
    match; it unboxes the arguments, calls ``target`` in the ember native convention and
    boxes the result, or calls ``raise_exception(excinfo_address)`` when the target returns
    status 1.
    Keyword arguments, unmatched arguments and ints outside int64 go to
    ``fallback(*args, **kwargs)`` through ``PyObject_Vectorcall``.

    ``target`` is either a symbol name (declared external in the module, to be resolved by
    the JIT) or an absolute function address (embedded as a constant). The addresses of
    ``fallback``, ``raise_exception`` and the C-API are embedded too, so the caller must keep
    ``fallback`` and ``raise_exception`` alive as long as the compiled code may run.

    A link of a chain of entries (fast_entry.py) passes ``next_entry``, the address of the
    entry tried when no specialization here matches (instead of ``fallback``), and
    ``keyword_cell``, the address of a pointer to the entry that places keyword arguments
    (null until it exists: ``fallback`` then) instead of ``param_names``.

    Returns the module and the entry function's symbol name, which is unique in the process
    (``ember.entry.<name>.<serial>``) so many entries can share one JIT engine.
    """
    layout = layout or probe_layout()
    symbol = _symbol_name(name, unique=True)
    module = ir.Module(name=symbol)
    module.triple = llvm.get_process_triple()
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _SSIZE, _PTR])
    function = ir.Function(module, fnty, name=symbol)
    for arg, arg_name in zip(function.args, ("self", "args", "nargs", "kwnames"), strict=True):
        arg.name = arg_name
    codegen = _EntryCodegen(
        module,
        function,
        layout,
        fallback,
        raise_exception,
        defaults,
        release_gil,
        array_boxers,
        memory_object_new,
    )

    b = codegen.builder
    if keyword_cell is not None:
        codegen.emit_keyword_handoff(keyword_cell)
    elif param_names is None:  # keyword arguments are never on the fast path
        no_kwnames = b.icmp_unsigned("==", codegen.kwnames_arg, ir.Constant(_PTR, None))
        codegen.continue_if(no_kwnames, codegen.fallback_block, "spec0")
    else:
        codegen.emit_keyword_folding(param_names)
    for index, (arg_kinds, ret_kind, target) in enumerate(specializations):
        for kind in arg_kinds:
            _check_kind(kind)
        _check_kind(ret_kind)
        if not all(fast_path_supported(kind) for kind in arg_kinds):
            continue
        codegen.emit_specialization(index, list(arg_kinds), ret_kind, target)
    b.branch(codegen.fallback_block)
    codegen.emit_fallback(next_entry)
    codegen.emit_raise()
    codegen.finish_entry_block()
    return module, symbol


def build_keyword_entry_module(
    name: str,
    fallback: Callable[..., Any],
    param_names: Sequence[str],
    head_cell: int,
    *,
    layout: PyLayout | None = None,
    defaults: Sequence[object] = (),
) -> tuple[ir.Module, str]:
    """Build the fastcall entry a chain of entries hands keyword calls to: it places the
    keyword arguments at their parameters' positions (omitted ones at their defaults) and
    calls the entry whose address `head_cell` holds, positionally; a call it cannot place
    goes to ``fallback(*args, **kwargs)``."""
    layout = layout or probe_layout()
    symbol = _symbol_name(name + ".keywords", unique=True)
    module = ir.Module(name=symbol)
    module.triple = llvm.get_process_triple()
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _SSIZE, _PTR])
    function = ir.Function(module, fnty, name=symbol)
    codegen = _EntryCodegen(module, function, layout, fallback, None, defaults)
    codegen.emit_keyword_folding(param_names)
    b = codegen.builder
    head = b.load(ir.Constant(_LONGLONG, head_cell).inttoptr(_PTR), typ=_PTR, align=_PTR_SIZE)
    placed = [codegen.self_arg, codegen.args_arg, codegen.nargs_arg, ir.Constant(_PTR, None)]
    b.ret(b.call(_Callee(head, fnty), placed))
    codegen.emit_fallback()
    codegen.emit_raise()
    codegen.finish_entry_block()
    return module, symbol


# --------------------------------------------------------------------------------------------
# Exposing the compiled entry as a builtin
# --------------------------------------------------------------------------------------------


class _PyMethodDef(ctypes.Structure):
    _fields_ = [
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    ]


_PyCFunction_NewEx = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.py_object, ctypes.py_object
)(("PyCFunction_NewEx", ctypes.pythonapi))


def make_pycfunction(
    entry_address: int,
    name: str,
    keepalive: list,
    *,
    doc: str | None = None,
    flags: int = METH_FASTCALL | METH_KEYWORDS,
) -> Callable[..., Any]:
    """Wrap the native entry at ``entry_address`` in a real builtin function.

    A ``PyMethodDef`` is allocated in ctypes memory and appended to ``keepalive``. The builtin's
    ``__self__`` is a module object whose ``keepalive`` attribute holds that list, so everything
    in it (the method def, the JIT engine, objects whose addresses the code embeds) lives as
    long as the builtin; a module as ``self`` also makes it print as ``<built-in function>``.
    """
    if not entry_address:
        raise ValueError("null entry address")
    name_bytes = name.encode("utf-8")
    doc_bytes = doc.encode("utf-8") if doc is not None else None
    method_def = _PyMethodDef(name_bytes, entry_address, flags, doc_bytes)
    keepalive.extend([method_def, name_bytes, doc_bytes])
    owner = types.ModuleType(_symbol_name(name), "Owner of a native ember entry point.")
    owner.keepalive = keepalive  # type: ignore[attr-defined]
    return _PyCFunction_NewEx(ctypes.addressof(method_def), owner, None)


# --------------------------------------------------------------------------------------------
# Default JIT and one-call compilation
# --------------------------------------------------------------------------------------------


class SimpleMCJIT:
    """Minimal MCJIT engine implementing the ``add_module`` protocol (used by the tests)."""

    def __init__(self, opt_level: int = 3) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        self.target_machine = target.create_target_machine(opt=opt_level, jit=True)
        self.opt_level = opt_level
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self.target_machine)

    def add_module(self, llvm_ir: str) -> Callable[[str], int]:
        """Parse, verify, optimise and JIT ``llvm_ir``; return a ``symbol -> address`` lookup."""
        mod = llvm.parse_assembly(llvm_ir)
        mod.triple = self.target_machine.triple
        mod.data_layout = str(self.target_machine.target_data)
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=self.opt_level)
        pb = llvm.create_pass_builder(self.target_machine, pto)
        pb.getModulePassManager().run(mod, pb)
        self.engine.add_module(mod)
        self.engine.finalize_object()
        engine = self.engine

        def lookup(symbol: str) -> int:
            address = engine.get_function_address(symbol)
            if not address:
                raise KeyError(symbol)
            return address

        return lookup


@cache
def default_jit() -> SimpleMCJIT:
    """Process-wide :class:`SimpleMCJIT`, created on first use."""
    return SimpleMCJIT()


def compile_entry(
    name: str,
    specializations: Sequence[Specialization],
    fallback: Callable[..., Any],
    raise_exception: Callable[[int], Any],
    add_module: AddModule | None = None,
    *,
    doc: str | None = None,
    keepalive: list | None = None,
) -> Callable[..., Any]:
    """Build, JIT-compile and wrap an entry function; returns the builtin.

    ``add_module(ir_text) -> lookup(symbol) -> address`` compiles the module (defaults to
    :func:`default_jit`); the lookup and ``keepalive`` (e.g. the owner of the targets' code)
    are kept alive by the returned builtin, together with ``fallback`` and ``raise_exception``.
    """
    module, symbol = build_entry_module(name, specializations, fallback, raise_exception)
    if add_module is None:
        add_module = default_jit().add_module
    lookup = add_module(str(module))
    address = lookup(symbol)
    refs = [*(keepalive or []), fallback, raise_exception, lookup]
    return make_pycfunction(address, name, refs, doc=doc)
