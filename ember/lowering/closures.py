"""Closure values: an inner function that closes over run-time values and is used as a value
(passed to an @overload-ed function, returned). Consumes the inliner's
`bind_closure(<jitted function>, (captured values...))` and calls of a `types.Closure` value;
produces the captured values as a struct, and a direct call of the jitted function with
them as its first arguments."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic
from ember.lowering import arrays as refs
from ember.lowering.registry import box
from ember.typing.signature import Signature, signature

if TYPE_CHECKING:
    from ember.ir import nodes as ir
    from ember.lowering.lower import FunctionLowerer


@intrinsic
def bind_closure(typingctx, function, captured):
    """The closure value of `function` (the inner function taking the captured values
    first) over the tuple `captured`."""
    if not (isinstance(function, types.DispatcherType) and isinstance(captured, types.BaseTuple)):
        return None
    env = tuple(types.unliteral(t) for t in captured.types)
    for typ in env:
        if isinstance(typ, (types.Closure, types.DispatcherChoice)) or not typ.is_precise:
            name = function.dispatcher.py_func.__qualname__
            raise TypingError(
                f"the inner function '{name}' closes over a value of type {typ}, which a "
                "closure value cannot hold; pass it as an argument instead"
            )
    closure = types.Closure(function.dispatcher, env)

    def codegen(context, builder, sig, args):
        value = llvm.Constant(context.value_type(closure), llvm.Undefined)
        tuple_type, items = sig.args[1], args[1]
        for index, (actual, formal) in enumerate(zip(tuple_type.types, env, strict=True)):
            item = builder.extract_value(items, index)
            item = context.cast(builder, item, actual, formal)
            refs.incref(builder, formal, item)
            value = builder.insert_value(value, item, index)
        return value

    return signature(closure, function, captured), codegen


def call_closure(
    lowerer: FunctionLowerer, fnty: types.Closure, expr: ir.Call, sig: Signature
) -> llvm.Value:
    """`f(args)` of a closure value: its jitted function, called with the captured values
    first (a borrowed reference each), then the call's arguments in parameter order."""
    env_value = lowerer.load(expr.func)
    captured = [
        (lowerer.builder.extract_value(env_value, index), typ) for index, typ in enumerate(fnty.env)
    ]
    values = {id(var): (lowerer.load(var), lowerer.typemap[var.name]) for var in expr.sources()}

    def resolve(item):
        return captured[item] if isinstance(item, int) else values[id(item)]

    items = [*range(len(captured)), *expr.args]
    ordered = fnty.dispatcher.fold_call_arguments(items, dict(expr.kws), resolve)
    formals = (*fnty.env, *sig.args)
    return lowerer.call_specialization(fnty.dispatcher, formals, ordered, sig.return_type, expr.loc)


@box(types.Closure)
def box_closure(typ, value, c):
    """A closure returned to Python: functools.partial(<jitted function>, *captured values),
    which calls the compiled code as the closure does."""
    pyapi = c.pyapi
    members = [
        c.box(member, c.builder.extract_value(value, index)) for index, member in enumerate(typ.env)
    ]
    maker = pyapi.borrow_constant(functools.partial)
    result = pyapi.call_function_objargs(maker, [pyapi.borrow_constant(typ.dispatcher), *members])
    for member in members:
        pyapi.decref(member)
    return result
