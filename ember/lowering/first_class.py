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


def select_by_index(builder, index: llvm.Value, values: list) -> llvm.Value:
    """values[index] of an i32 index into a run-time choice (a chain of selects)."""
    result = values[0]
    for position, value in enumerate(values[1:], start=1):
        is_this = builder.icmp_unsigned("==", index, llvm.Constant(INDEX, position))
        result = builder.select(is_this, value, result)
    return result


def switch_over(builder, index: llvm.Value, cases: list, make_case, result_type) -> llvm.Value:
    """The value `make_case(case)` gives for cases[index]: a switch with one block per case
    and a phi of their values."""
    unreachable = builder.append_basic_block("choice.none")
    done = builder.append_basic_block("choice.done")
    switch = builder.switch(index, unreachable)
    results: list[tuple[Any, llvm.Block]] = []
    for position, case in enumerate(cases):
        block = builder.append_basic_block(f"choice.{position}")
        switch.add_case(llvm.Constant(INDEX, position), block)
        builder.position_at_end(block)
        results.append((make_case(case), builder.block))
        builder.branch(done)
    builder.position_at_end(unreachable)
    builder.unreachable()
    builder.position_at_end(done)
    phi = builder.phi(result_type)
    for value, block in results:
        phi.add_incoming(value, block)
    return phi


@lower_cast(types.DispatcherChoice, types.DispatcherChoice)
def widen_choice(context, builder, from_type, to_type, value) -> llvm.Value:
    """Renumber an index of a smaller choice into a larger one."""
    renumbered = [llvm.Constant(INDEX, to_type.index_of(d)) for d in from_type.dispatchers]
    return select_by_index(builder, value, renumbered)


@box(types.DispatcherType)
def box_function(typ, value, c) -> llvm.Value:
    """A jitted function returned to Python is its dispatcher object."""
    obj = c.pyapi.borrow_constant(typ.dispatcher)
    c.pyapi.incref(obj)
    return obj


@box(types.DispatcherChoice)
def box_choice(typ, value, c) -> llvm.Value:
    objects = [c.pyapi.borrow_constant(dispatcher) for dispatcher in typ.dispatchers]
    obj = select_by_index(c.builder, value, objects)
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

    def call(dispatcher: Any) -> llvm.Value:
        member = dispatcher.type_call(arg_types, kw_types)
        return lowerer.call_dispatcher(
            types.DispatcherType(dispatcher), expr, Signature(sig.return_type, member.args)
        )

    result_type = lowerer.context.value_type(sig.return_type)
    return switch_over(builder, index, list(choice.dispatchers), call, result_type)
