"""Lowering of `arrayexpr` (stage 5a): one broadcasting loop computes the whole expression tree
per element and writes the only array it allocates, the result (or the given output array)."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.ir import nodes as ir
from ember.library.numpy.ufuncs import (
    OPERATOR_UFUNCS,
    apply_loop,
    fill_output,
    numpy_context,
    prepare_scalars,
    resolve_loop,
    result_type,
)
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering.lower import FunctionLowerer, register_expression_lowerer
from ember.parallel import arrayexpr as parallel_arrayexpr
from ember.rewrites.arrayexpr import ArrayExpr


def _ufunc_of(op: Any) -> Any:
    return OPERATOR_UFUNCS.get(op, op)


def _node_types(tree: Any, typemap: dict, found: dict) -> types.Type:
    """The type each subtree has as an unfused operation would (array or scalar); records the
    NumPy loop chosen for every operation node in `found`."""
    if isinstance(tree, ir.Var):
        return types.unliteral(typemap[tree.name])
    op, children = tree
    child_types = tuple(_node_types(child, typemap, found) for child in children)
    loop = resolve_loop(_ufunc_of(op), child_types)
    found[id(tree)] = (loop, child_types)
    return result_type(loop, child_types)


def lower_array_expr(lowerer: FunctionLowerer, expr: ArrayExpr, result_type_: types.Type):
    context = numpy_context(lowerer.context)
    builder = lowerer.builder
    loops: dict[int, tuple] = {}
    _node_types(expr.tree, lowerer.typemap, loops)
    leaves = expr.leaves()
    leaf_types = [types.unliteral(lowerer.typemap[v.name]) for v in leaves]
    operands = [
        kernels.operand(builder, typ, lowerer.load(var)) for typ, var in zip(leaf_types, leaves)
    ]
    position = {var.name: index for index, var in enumerate(leaves)}
    out_type = result_type_
    prepared = _prepare_scalar_leaves(context, builder, expr.tree, loops, operands, position)

    def evaluate(b: llvm.IRBuilder, tree: Any, items: list) -> tuple[llvm.Value, types.Type]:
        if isinstance(tree, ir.Var):
            index = position[tree.name]
            return items[index], operands[index].dtype
        loop, _ = loops[id(tree)]
        scalar_types, scalar_values, finish = prepared[id(tree)]
        values, dtypes = [], []
        for child, typ, value in zip(tree[1], scalar_types, scalar_values):
            if isinstance(typ, types.Array):
                value, typ = evaluate(b, child, items)
            values.append(value)
            dtypes.append(typ)
        return finish(b, apply_loop(context, b, loop, dtypes, values)), loop.out_type

    def body(b: llvm.IRBuilder, items: list) -> llvm.Value:
        value, dtype = evaluate(b, expr.tree, items)
        return context.cast(b, value, dtype, out_type.dtype)

    if expr.out is not None:
        result = lowerer.load(expr.out)
        fill_output(context, builder, out_type, result, operands, body)
        arr.incref(builder, out_type, result)  # the expression's value is `out`
        return result
    shapes = [op.fields.shape for op in operands if op.is_array]
    shape = kernels.broadcast_shapes(context, builder, shapes)
    result = arr.allocate(context, builder, out_type, shape, order=out_type.layout)
    fields = arr.unpack(builder, out_type, result)
    if parallel_arrayexpr.parallel_enabled(lowerer.context):
        release = lambda b: arr.decref(b, out_type, result)  # noqa: E731 - on a worker's error
        parallel_arrayexpr.elementwise(context, builder, out_type, fields, operands, body, release)
        return result
    kernels.elementwise(context, builder, out_type, fields, operands, body)
    return result


def _prepare_scalar_leaves(context, builder, tree, loops, operands, position) -> dict:
    """For each operation node, before the loop: (child types, scalar values, finish) from
    `prepare_scalars` (range checks, exact comparisons); array children keep their array type
    and a placeholder value, computed per element."""
    prepared: dict[int, tuple] = {}

    def visit(node: Any) -> None:
        if isinstance(node, ir.Var):
            return
        loop, child_types = loops[id(node)]
        values = []
        for child, typ in zip(node[1], child_types):
            scalar_leaf = isinstance(child, ir.Var) and not isinstance(typ, types.Array)
            values.append(operands[position[child.name]].value if scalar_leaf else None)
            visit(child)
        prepared[id(node)] = prepare_scalars(context, builder, loop, child_types, values)

    visit(tree)
    return prepared


register_expression_lowerer(ArrayExpr, lower_array_expr)
