"""Closure values: an inner function that closes over run-time values (or has run-time default
values) and is used as a value (passed to an @overload-ed function, returned). Consumes the
inliner's `bind_closure(<jitted function>, (captured values...), (run-time defaults...))` and
calls of a `types.Closure` value; produces the captured values and defaults as a struct, and a
direct call of the jitted function with the captured values as its first arguments."""

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
def bind_closure(typingctx, function, captured, defaults):
    """The closure value of `function` (the inner function taking the captured values
    first) over the tuple `captured`, with the default values `defaults` (a tuple, empty
    when its defaults are constants) of its last parameters."""
    if not (
        isinstance(function, types.DispatcherType)
        and isinstance(captured, types.BaseTuple)
        and isinstance(defaults, types.BaseTuple)
    ):
        return None
    members = (*captured.types, *defaults.types)
    env = tuple(types.unliteral(t) for t in members)
    for typ in env:
        if isinstance(typ, (types.Closure, types.DispatcherChoice)) or not typ.is_precise:
            name = function.dispatcher.py_func.__qualname__
            raise TypingError(
                f"the inner function '{name}' closes over (or has a default value of) type "
                f"{typ}, which a closure value cannot hold; pass it as an argument instead"
            )
    closure = types.Closure(function.dispatcher, env, len(defaults.types))

    def codegen(context, builder, sig, args):
        value = llvm.Constant(context.value_type(closure), llvm.Undefined)
        items = [
            (builder.extract_value(args[which], index), actual)
            for which in (1, 2)
            for index, actual in enumerate(sig.args[which].types)
        ]
        for index, ((item, actual), formal) in enumerate(zip(items, env, strict=True)):
            item = context.cast(builder, item, actual, formal)
            refs.incref(builder, formal, item)
            value = builder.insert_value(value, item, index)
        return value

    return signature(closure, function, captured, defaults), codegen


def call_closure(
    lowerer: FunctionLowerer, fnty: types.Closure, expr: ir.Call, sig: Signature
) -> llvm.Value:
    """`f(args)` of a closure value: its jitted function, called with the captured values
    first (a borrowed reference each), then the call's arguments in parameter order (the
    closure's own default values for the defaulted parameters the call leaves out)."""
    env_value = lowerer.load(expr.func)
    captured = [
        (lowerer.builder.extract_value(env_value, index), typ) for index, typ in enumerate(fnty.env)
    ]
    values = {id(var): (lowerer.load(var), lowerer.typemap[var.name]) for var in expr.sources()}

    def resolve(item):
        return captured[item] if isinstance(item, int) else values[id(item)]

    kws = dict(expr.kws)
    kws.update(fnty.omitted_defaults(len(expr.args), kws))
    items = [*range(fnty.n_captured), *expr.args]
    ordered = fnty.dispatcher.fold_call_arguments(items, kws, resolve)
    formals = (*fnty.env[: fnty.n_captured], *sig.args)
    return lowerer.call_specialization(fnty.dispatcher, formals, ordered, sig.return_type, expr.loc)


@box(types.Closure)
def box_closure(typ, value, c):
    """A closure returned to Python: functools.partial(<jitted function>, *captured values),
    which calls the compiled code as the closure does."""
    pyapi = c.pyapi
    members = [
        c.box(member, c.builder.extract_value(value, index)) for index, member in enumerate(typ.env)
    ]
    if typ.n_defaults:
        maker = pyapi.borrow_constant(_python_closure)
        head = [pyapi.borrow_constant(typ), pyapi.borrow_constant(typ.dispatcher)]
    else:
        maker = pyapi.borrow_constant(functools.partial)
        head = [pyapi.borrow_constant(typ.dispatcher)]
    result = pyapi.call_function_objargs(maker, [*head, *members])
    for member in members:
        pyapi.decref(member)
    return result


def _python_closure(typ: types.Closure, dispatcher, *members):
    """A closure value with default values of its own, for Python: calls the jitted function
    with the captured values first and the defaults the call leaves out."""
    captured = members[: typ.n_captured]

    def call(*args, **kws):
        for name, index in typ.omitted_defaults(len(args), kws).items():
            kws[name] = members[index]
        return dispatcher(*captured, *args, **kws)

    call.__name__ = call.__qualname__ = dispatcher.py_func.__name__
    return call
