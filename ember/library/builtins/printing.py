"""`print()` in compiled code: typed values -> a call of Python's own `print` under the GIL.

Numbers, booleans, None and tuples are boxed natively; an array is handed over as the address
of its native struct and shown through a temporary NumPy copy; a constant string is a constant.
So the text is exactly what CPython prints for the same values. `sep=` and `end=` take constant
strings, `flush=` True or False.
"""

from __future__ import annotations

import inspect
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.lowering.boxing import BoxContext
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.models import model_of
from ember.lowering.pyapi import PythonAPI
from ember.lowering.registry import VarArgs, lower_builtin
from ember.lowering.registry import registry as lowering_registry
from ember.typing.signature import Signature
from ember.typing.templates import registry

_KEYWORDS = ("sep", "end", "flush")
_DEFAULTS = (" ", "\n", False)
_KEEPALIVE: list = []  # the Python objects compiled print calls refer to, for the process


# boxed from their native memory: containers as copies, jitclass instances and structrefs as
# the objects themselves
_SHOWN_FROM_MEMORY = (types.List, types.HashTable, types.ManagedStruct)


def _printable(typ: types.Type) -> bool:
    if isinstance(typ, types.BaseTuple):
        return all(_printable(member) for member in typ.types)
    if isinstance(typ, (types.Array, types.StringLiteral, types.Number, types.Boolean)):
        return True
    if isinstance(typ, (*_SHOWN_FROM_MEMORY, types.RangeType)):
        return True
    if isinstance(typ, types.NoneType) or _has_print_item(typ):
        return True
    return lowering_registry.find_box(typ) is not None


def _has_print_item(typ: types.Type) -> bool:
    """An extension type printed by its own `'print_item'` lowering (Numba's protocol)."""
    return lowering_registry.find_function("print_item", (typ,)) is not None


def _print_pysig(count: int) -> inspect.Signature:
    positional = [
        inspect.Parameter(f"value{index}", inspect.Parameter.POSITIONAL_ONLY)
        for index in range(count)
    ]
    keywords = [
        inspect.Parameter("sep", inspect.Parameter.KEYWORD_ONLY, default=" "),
        inspect.Parameter("end", inspect.Parameter.KEYWORD_ONLY, default="\n"),
        inspect.Parameter("flush", inspect.Parameter.KEYWORD_ONLY, default=False),
    ]
    return inspect.Signature(positional + keywords)


@registry.typer(print)
def _type_print(args, kws):
    unknown = set(kws) - set(_KEYWORDS)
    if unknown:
        raise TypingError(
            f"print() keyword {sorted(unknown)[0]!r} is not supported in compiled code; "
            "only sep= and end= (constant strings) and flush= (a constant) are"
        )
    for name in ("sep", "end"):
        if name in kws and not isinstance(kws[name], (types.StringLiteral, types.NoneType)):
            raise TypingError(f"print({name}=...) must be a constant string, not {kws[name]}")
    if "flush" in kws and not isinstance(kws["flush"], (types.BooleanLiteral, types.NoneType)):
        raise TypingError(f"print(flush=...) must be True or False, not {kws['flush']}")
    for typ in args:
        if not _printable(typ):
            raise TypingError(f"print() cannot show a value of type {typ} in compiled code")
    keyword_types = tuple(
        kws.get(name, types.literal(default)) for name, default in zip(_KEYWORDS, _DEFAULTS)
    )
    return Signature(types.none, (*args, *keyword_types), pysig=_print_pysig(len(args)))


@lower_builtin(print, VarArgs(types.Type))
def lower_print(context, builder, sig, args):
    pyapi = PythonAPI(context, builder, _KEEPALIVE)
    c = BoxContext(context, builder, pyapi)
    gil = pyapi.gil_ensure()
    *value_types, sep_type, end_type, flush_type = sig.args
    if any(_has_print_item(typ) for typ in value_types):
        _print_items(c, value_types, args, sep_type, end_type)
        pyapi.gil_release(gil)
        return context.get_dummy_value(types.none)
    values = pyapi.tuple_new(len(value_types))
    for index, (typ, value) in enumerate(zip(value_types, args)):
        pyapi.tuple_setitem(values, index, _to_python(c, typ, value))
    flush = isinstance(flush_type, types.BooleanLiteral) and flush_type.literal_value
    call_args = [
        _keyword_text(pyapi, sep_type),
        _keyword_text(pyapi, end_type),
        pyapi.borrow_constant(bool(flush)),
    ]
    printer = pyapi.borrow_constant(_print_values)
    pyapi.decref(pyapi.call_function_objargs(printer, [values, *call_args]))
    pyapi.decref(values)
    pyapi.err_clear()  # print() failing (closed stdout) must not leave an error pending
    pyapi.gil_release(gil)
    return context.get_dummy_value(types.none)


def _print_items(c: BoxContext, value_types: list, args: list, sep_type, end_type) -> None:
    """Print item by item, as Numba does when an extension type prints itself: its
    `'print_item'` lowering writes it, any other value is written as Python shows it."""
    sep = sep_type.literal_value if isinstance(sep_type, types.StringLiteral) else " "
    end = end_type.literal_value if isinstance(end_type, types.StringLiteral) else "\n"
    for index, (typ, value) in enumerate(zip(value_types, args)):
        if index:
            c.pyapi.print_string(sep)
        if _has_print_item(typ):
            item_sig = Signature(types.none, (typ,))
            c.context.call_implementation(c.builder, "print_item", item_sig, [value])
        else:
            shown = _to_python(c, typ, value)
            c.pyapi.print_object(shown)
            c.pyapi.decref(shown)
    c.pyapi.print_string(end)
    c.pyapi.err_clear()  # as print(): a closed stdout must not leave an error pending


def _keyword_text(pyapi: PythonAPI, typ: types.Type) -> llvm.Value:
    if isinstance(typ, types.StringLiteral):
        return pyapi.borrow_constant(typ.literal_value)
    return pyapi.borrow_none()


def _to_python(c: BoxContext, typ: types.Type, value: llvm.Value) -> llvm.Value:
    """A new reference to a Python object showing `value` (see the module docstring)."""
    pyapi, builder = c.pyapi, c.builder
    if isinstance(typ, types.StringLiteral):
        obj = pyapi.borrow_constant(typ.literal_value)
        pyapi.incref(obj)
        return obj
    if isinstance(typ, (types.Array, *_SHOWN_FROM_MEMORY)):
        model = model_of(typ)
        slot = alloca_in_entry(builder, model.data_type, "print.value")
        builder.store(model.as_data(builder, value), slot)
        address = pyapi.long_from_longlong(builder.ptrtoint(slot, pyapi.longlong))
        viewer = pyapi.borrow_constant(_array_copy if isinstance(typ, types.Array) else _copy)
        shown = pyapi.call_function_objargs(viewer, [pyapi.borrow_constant(typ), address])
        pyapi.decref(address)
        return shown
    if isinstance(typ, types.RangeType):  # range(start, stop[, step]) as CPython shows it
        bounds = [c.box(typ.dtype, builder.extract_value(value, index)) for index in range(3)]
        shown = pyapi.call_function_objargs(pyapi.borrow_constant(range), bounds)
        for bound in bounds:
            pyapi.decref(bound)
        return shown
    if isinstance(typ, types.BaseTuple):
        result = pyapi.tuple_new(len(typ))
        for index, member in enumerate(typ.types):
            item = _to_python(c, member, builder.extract_value(value, index))
            pyapi.tuple_setitem(result, index, item)
        named = getattr(typ, "instance_class", None)
        if named is not None:  # a namedtuple shows as its class does: P(x=1, y=2)
            plain = result
            result = pyapi.call(pyapi.borrow_constant(named), plain)
            pyapi.decref(plain)
        if isinstance(typ, types.LiteralContainer):  # a list or dict, as the display made
            plain = result
            rebuild = pyapi.borrow_constant(typ.from_members)
            result = pyapi.call_function_objargs(rebuild, [plain])
            pyapi.decref(plain)
        return result
    boxed = c.box(typ, value)
    if typ in _NARROW_FLOATS:  # shown as NumPy shows it: np.float32(0.1) prints 0.1
        plain = boxed
        boxed = pyapi.call_function_objargs(pyapi.borrow_constant(_numpy_scalar(typ)), [plain])
        pyapi.decref(plain)
    return boxed


_NARROW_FLOATS = (types.float32, types.complex64)


def _numpy_scalar(typ: types.Type) -> Any:
    import numpy as np

    return np.float32 if typ == types.float32 else np.complex64


def _print_values(values: tuple, sep: str | None, end: str | None, flush: bool) -> None:
    print(*values, sep=sep, end=end, flush=flush)


def _copy(typ: types.Type, address: int) -> Any:
    """A Python copy of the list, set or dict whose native value is at `address` (a jitclass
    instance or structref: the object itself)."""
    from ember.dispatcher.pycall import _memory_ctype, box_kept

    return _plain(box_kept(typ, _memory_ctype(typ).from_address(address)))


def _plain(shown: Any) -> Any:
    """Typed lists and dicts (a dict's list values) as the lists and dicts CPython shows."""
    from ember.typed import Dict, List

    if isinstance(shown, (dict, Dict)):
        return {key: _plain(value) for key, value in shown.items()}
    if isinstance(shown, (list, List)):
        return [_plain(item) for item in shown]
    return shown


def _array_copy(typ: types.Array, address: int) -> Any:
    """A NumPy copy of the array whose native struct is at `address` (valid during the call)."""
    import numpy as np

    from ember.runtime.boxing import _interface, memory_ctype

    memory = memory_ctype(typ).from_address(address)
    interface = _interface(typ, memory, tuple(memory.shape), tuple(memory.strides))

    class _View:
        __array_interface__ = interface

    return np.array(_View(), copy=True)
