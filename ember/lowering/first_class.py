"""Lowering of jitted functions used as values: the data model of a run-time choice among
jitted functions (`types.DispatcherChoice`, an i32 index), conversions into it, and its call.

A call switches on the index and calls each candidate's specialization directly, so there is
no indirect call: LLVM can inline every candidate and the branch predicts well in loops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llvmlite import ir as llvm

from ember import types
from ember.ir import nodes as ir
from ember.lowering.boxing import NativeValue
from ember.lowering.models import PrimitiveModel, register_model
from ember.lowering.registry import box, lower_cast, unbox
from ember.typing.signature import Signature

if TYPE_CHECKING:
    from ember.lowering.lower import FunctionLowerer

INDEX = llvm.IntType(32)


@register_model(types.DispatcherChoice)
class DispatcherChoiceModel(PrimitiveModel):
    def __init__(self, fe_type: types.DispatcherChoice) -> None:
        super().__init__(fe_type, INDEX)


@lower_cast(types.DispatcherType, types.DispatcherChoice)
def function_to_choice(context, builder, from_type, to_type, value) -> llvm.Value:
    return llvm.Constant(INDEX, to_type.index_of(from_type.dispatcher))


@lower_cast(types.DispatcherChoice, types.DispatcherChoice)
def widen_choice(context, builder, from_type, to_type, value) -> llvm.Value:
    """Renumber an index of a smaller choice into a larger one."""
    result = llvm.Constant(INDEX, 0)
    for position, dispatcher in enumerate(from_type.dispatchers):
        is_this = builder.icmp_unsigned("==", value, llvm.Constant(INDEX, position))
        result = builder.select(is_this, llvm.Constant(INDEX, to_type.index_of(dispatcher)), result)
    return result


@box(types.DispatcherType)
def box_function(typ, value, c) -> llvm.Value:
    """A jitted function returned to Python is its dispatcher object."""
    obj = c.pyapi.borrow_constant(typ.dispatcher)
    c.pyapi.incref(obj)
    return obj


@box(types.DispatcherChoice)
def box_choice(typ, value, c) -> llvm.Value:
    obj = c.pyapi.borrow_constant(typ.dispatchers[0])
    for position, dispatcher in enumerate(typ.dispatchers[1:], start=1):
        is_this = c.builder.icmp_unsigned("==", value, llvm.Constant(INDEX, position))
        obj = c.builder.select(is_this, c.pyapi.borrow_constant(dispatcher), obj)
    c.pyapi.incref(obj)
    return obj


@unbox(types.DispatcherType)
def unbox_function(typ, obj, c):
    """Nothing to read: the type is the function (the caller matched it)."""
    return NativeValue(c.context.get_dummy_value(typ))


def call_choice(
    lowerer: FunctionLowerer, choice: types.DispatcherChoice, expr: ir.Call, sig: Signature
) -> llvm.Value:
    """Call the candidate the index selects; each is typed for the call's own arguments."""
    builder = lowerer.builder
    arg_types = tuple(lowerer.typemap[var.name] for var in expr.args)
    kw_types = {name: lowerer.typemap[var.name] for name, var in expr.kws}
    index = lowerer.load(expr.func)
    unreachable = builder.append_basic_block("choice.none")
    done = builder.append_basic_block("choice.done")
    switch = builder.switch(index, unreachable)
    results: list[tuple[Any, llvm.Block]] = []
    for position, dispatcher in enumerate(choice.dispatchers):
        case = builder.append_basic_block(f"choice.{dispatcher.py_func.__name__}")
        switch.add_case(llvm.Constant(INDEX, position), case)
        builder.position_at_end(case)
        member = dispatcher.type_call(arg_types, kw_types)
        value = lowerer.call_dispatcher(
            types.DispatcherType(dispatcher), expr, Signature(sig.return_type, member.args)
        )
        results.append((value, builder.block))
        builder.branch(done)
    builder.position_at_end(unreachable)
    builder.unreachable()
    builder.position_at_end(done)
    phi = builder.phi(lowerer.context.value_type(sig.return_type))
    for value, block in results:
        phi.add_incoming(value, block)
    return phi
