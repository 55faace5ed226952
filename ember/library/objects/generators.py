"""Iterating a generator in compiled code: `iter(gen)` is the generator itself and `next`
resumes its compiled body (ember/lowering/generators.py) until it yields or ends."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.codegen.library import request_second_round
from ember.errors import UnsupportedError
from ember.extending import intrinsic, overload, overload_method
from ember.lowering import arrays as arr
from ember.lowering import callconv
from ember.lowering import generators as gen
from ember.lowering.callconv import STATUS_EXCEPTION, STATUS_OK
from ember.lowering.models import model_of
from ember.lowering.registry import lower_builtin
from ember.typing.signature import Signature, signature
from ember.typing.templates import AttributeTemplate, infer_getattr, registry

UNSUPPORTED_METHODS = {
    "send": "generator.send() is not supported: nothing can be sent into a compiled "
    "generator; pass the values as its arguments instead",
    "throw": "generator.throw() is not supported: raise the exception inside the generator",
}


@infer_getattr
class GeneratorAttributes(AttributeTemplate):
    key = types.Generator

    def generic_resolve(self, value_type, attr):
        if attr in UNSUPPORTED_METHODS:
            raise UnsupportedError(UNSUPPORTED_METHODS[attr])
        return None


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], types.Generator):
        return signature(args[0], args[0])
    return None


@lower_builtin(iter, types.Generator)
def generator_iter(context, builder, sig, args):
    arr.incref(builder, sig.args[0], args[0])  # a new reference to the same generator
    return args[0]


@registry.typer(next)
def _type_next(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], types.Generator):
        return signature(args[0].yield_type, args[0])
    return None


@lower_builtin(next, types.Generator)
def generator_next(context, builder, sig, args):
    """Resume the generator; its exception propagates out of this function. For a `for`
    loop the result is the (item, valid) pair; `next(g)` gives the item or raises
    StopIteration."""
    pair_type = types.Pair(sig.args[0].yield_type, types.boolean)
    pair = _resume(context, builder, Signature(pair_type, sig.args), args)
    if sig.return_type is pair_type:
        return pair
    ended = builder.not_(builder.extract_value(pair, 1))
    context.guard(builder, ended, StopIteration)
    return builder.extract_value(pair, 0)


@intrinsic
def _resume_step(typingctx, generator):
    """(the next item, whether there was one): `next(g, default)`'s step. An ended
    generator's item is zero, so the tuple owns no stale reference."""
    if not isinstance(generator, types.Generator):
        return None
    pair_type = types.Pair(generator.yield_type, types.boolean)

    def codegen(context, builder, sig, args):
        pair = _resume(context, builder, Signature(pair_type, sig.args), args)
        item, valid = builder.extract_value(pair, 0), builder.extract_value(pair, 1)
        item = builder.select(valid, item, llvm.Constant(item.type, None))
        result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        return builder.insert_value(builder.insert_value(result, item, 0), valid, 1)

    step_type = types.Tuple((generator.yield_type, types.boolean))
    return Signature(step_type, (generator,)), codegen


@intrinsic
def yield_from_result(typingctx, iterator):
    """The value of `yield from iterator` once it is exhausted: what a generator returned
    (zero while it runs), None for other iterators."""
    returned = iterator.return_type if isinstance(iterator, types.Generator) else types.none

    def codegen(context, builder, sig, args):
        if returned is types.none:
            return context.get_dummy_value(returned)
        state = gen.state_pointer(builder, args[0])
        return gen.load_return_value(context, builder, iterator, state)

    return Signature(returned, (iterator,)), codegen


@overload(next)
def _next_or_default(iterator, default=None):
    """`next(g, default)`: the default where the generator has ended."""
    if not isinstance(iterator, types.Generator) or default is None:
        return None
    if isinstance(default, types.Omitted):
        return None

    def advance_or_default(iterator, default=None):
        item, valid = _resume_step(iterator)
        return item if valid else default

    return advance_or_default


@intrinsic
def _close(typingctx, generator):
    """`g.close()`: a generator suspended inside a `try` runs its handlers (GeneratorExit
    raised at its yield); an exception they raise, other than GeneratorExit, propagates."""
    if not isinstance(generator, types.Generator):
        return None

    def codegen(context, builder, sig, args):
        exit_id = callconv.static_exceptions.register(GeneratorExit, ())
        status, _, excinfo, call = _call_resume(context, builder, sig.args[0], args[0], gen.CLOSE)
        yielded = builder.icmp_signed("==", status, llvm.Constant(arr.i32, STATUS_OK))
        with builder.if_then(yielded, likely=False):
            call(gen.RELEASE)
            context.raise_error(builder, RuntimeError, "generator ignored GeneratorExit")
        raised = builder.icmp_signed("==", status, llvm.Constant(arr.i32, STATUS_EXCEPTION))
        with builder.if_then(raised, likely=False):
            record = builder.load(excinfo, typ=callconv.EXCINFO_TYPE)
            exc_id = builder.extract_value(record, 0)
            other = builder.icmp_signed("!=", exc_id, llvm.Constant(exc_id.type, exit_id))
            with builder.if_then(other):
                callconv.return_exception_record(builder, builder.function, record)
        return context.get_dummy_value()

    return Signature(types.none, (generator,)), codegen


@overload_method(types.Generator, "close")
def _generator_close(generator):
    return lambda generator: _close(generator)


def _call_resume(context, builder, gen_type, value, closing: int):
    """Call the generator's resume function: (status, item pointer, excinfo pointer,
    call(closing) to call it again)."""
    resume = gen.declare_resume(context, builder.module, gen_type)
    request_second_round(builder.module)
    item_model = model_of(gen_type.yield_type)
    retptr = arr.alloca_in_entry(builder, item_model.data_type, name="gen.item")
    excinfo = arr.alloca_in_entry(builder, callconv.EXCINFO_TYPE, name="gen.exc")
    state = gen.state_pointer(builder, value)
    null = llvm.Constant(arr.ptr, None)

    def call(mode: int):
        return builder.call(resume, [retptr, excinfo, null, state, llvm.Constant(arr.i8, mode)])

    return call(closing), retptr, excinfo, call


def _resume(context, builder, sig, args):
    gen_type = sig.args[0]
    item_model = model_of(gen_type.yield_type)
    status, retptr, excinfo, _ = _call_resume(context, builder, gen_type, args[0], 0)
    raised = builder.icmp_signed("==", status, llvm.Constant(arr.i32, STATUS_EXCEPTION))
    with builder.if_then(raised, likely=False):
        record = builder.load(excinfo, typ=callconv.EXCINFO_TYPE)
        callconv.return_exception_record(builder, builder.function, record)
    valid = builder.icmp_signed("==", status, llvm.Constant(arr.i32, STATUS_OK))
    item = item_model.from_data(builder, builder.load(retptr, typ=item_model.data_type))
    pair = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    pair = builder.insert_value(pair, item, 0)
    return builder.insert_value(pair, valid, 1)
