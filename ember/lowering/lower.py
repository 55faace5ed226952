"""Stage 6a: typed IR to an LLVM function in the native calling convention (nopython mode).

Every IR variable gets a stack slot in the entry block (LLVM's mem2reg turns them into SSA),
except, in long functions, block-local temporaries, kept as SSA values from the start
(ember/lowering/block_values.py).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import EmberError, LoweringError
from ember.ir import nodes as ir
from ember.library.builtins import ranges as range_builtins
from ember.lowering import arrays as refs
from ember.lowering import callconv, classes, lists, optional, stack_check, typed_pointers
from ember.lowering import exceptions as exception_lowering
from ember.lowering.block_values import block_local_values, is_long
from ember.lowering.calls import CallLowering
from ember.lowering.context import LLVM_INLINE_ATTRIBUTES, CPUContext
from ember.lowering.deferred_loops import DeferredLoopLowering
from ember.lowering.float_bounds import narrow_guards
from ember.lowering.int_ranges import (
    VariableRanges,
    divisors_varying_in_loops,
    no_wrap_operations,
    non_negative_differences,
    non_negative_indices,
    unsigned_divisions,
)
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.loop_iterators import loop_range_iterators, unit_step_iterators
from ember.lowering.models import model_of
from ember.lowering.ownership import borrowed_arguments, lent_method_reads, moved_statements
from ember.typing.infer import TypingResult
from ember.typing.signature import Signature

if TYPE_CHECKING:
    from ember.codegen.library import CodeLibrary


class FunctionLowerer(CallLowering, DeferredLoopLowering):
    """Emit one function's LLVM IR into `module` under `symbol`."""

    borrowed_fields: frozenset[str] = frozenset()  # jitclass field reads (set by `lower`)
    statement_locations = None  # with `debug=True`, gives each statement's code its line
    no_wrap: frozenset[int] = frozenset()  # int64 operations that cannot overflow (int_ranges)
    unsigned: frozenset[int] = frozenset()  # int64 `//` and `%` of non-negative operands
    varying_divisors: frozenset[int] = frozenset()  # `//` and `%` by a divisor the loop changes
    non_negative: frozenset[int] = frozenset()  # int64 subtractions never negative
    non_negative_indices: frozenset[str] = frozenset()  # array indices never negative
    loop_range_iterators: frozenset[str] = frozenset()  # range iterators only a loop reads
    unit_step_iterators: frozenset[str] = frozenset()  # those of a constant step 1

    def __init__(
        self,
        context: CPUContext,
        module: llvm.Module,
        func_ir: ir.FunctionIR,
        typing: TypingResult,
        sig: Signature,
        symbol: str,
    ) -> None:
        self.context = context
        self.module = module
        self.func_ir = func_ir
        self.typemap = typing.typemap
        self.calltypes = typing.calltypes
        self.rhs_types = typing.rhs_types
        self.sig = sig
        self.symbol = symbol
        self.slots: dict[str, llvm.Value] = {}
        self.block_locals: frozenset[str] = frozenset()  # names kept as SSA values (lower())
        self.local_values: dict[str, llvm.Value] = {}
        self.constants = self._numeric_constants()
        self.dependencies: list[CodeLibrary] = context.dependencies

    # ------------------------------------------------------------------ driver

    def lower(self) -> llvm.Function:
        unwinding = stack_check.supported() and self._recurses_owning_nothing()
        name = f"{self.symbol}.body" if unwinding else self.symbol
        # (parfors return their own i32 status from the function: parallel ones keep memory)
        in_registers = (
            unwinding
            and callconv.fits_in_registers(self.sig)
            and self.context.options.parallel is None
        )
        fnty = callconv.function_type(self.sig, in_registers)
        self.function = llvm.Function(self.module, fnty, name)
        inline_attribute = LLVM_INLINE_ATTRIBUTES[self.context.options.llvm_inline]
        if inline_attribute is not None:
            self.function.attributes.add(inline_attribute)
        if unwinding:
            self.function.linkage = "internal"
            self.context.recursion_bodies[self.symbol] = self.function
        names = ["retptr", "excinfo", "env", *self._argument_names()]
        for arg, name in zip(self.function.args, names):
            arg.name = name
        entry = self.function.append_basic_block("entry")
        self.llvm_blocks = {
            label: self.function.append_basic_block(f"B{label}")
            for label in sorted(self.func_ir.blocks)
        }
        self.builder = typed_pointers.IRBuilder(entry)  # (extension code casts pointers)
        self.arg_values = callconv.decode_arguments(self.builder, self.sig, self.function)
        self.borrowed_fields = classes.borrowed_field_reads(self.func_ir, self.typemap)
        self.borrowed_args = borrowed_arguments(self.func_ir) | self.borrowed_fields
        self.moves = moved_statements(self.func_ir, self.borrowed_args) | lent_method_reads(
            self.func_ir, self.typemap
        )
        self.lent_methods = self._lent_method_names()  # they borrow their receiver's reference
        self.exception_routing = exception_lowering.ExceptionRouting(self)
        ranges = VariableRanges(self.func_ir, self.typemap)
        boundscheck = refs.boundscheck_enabled(self.context)
        self.no_wrap = no_wrap_operations(ranges, self.calltypes, boundscheck)
        self.unsigned = unsigned_divisions(ranges, self.calltypes)
        self.varying_divisors = divisors_varying_in_loops(self.func_ir, self.calltypes)
        self.non_negative = non_negative_differences(self.func_ir, self.typemap, self.no_wrap)
        self.non_negative_indices = non_negative_indices(ranges)
        self.loop_range_iterators = loop_range_iterators(self.func_ir, self.typemap)
        self.unit_step_iterators = unit_step_iterators(self.func_ir, self.loop_range_iterators)
        self.builder.branch(self.llvm_blocks[self.func_ir.entry])
        self.statement_locations = self._statement_locations()
        if self.statement_locations is None and is_long(self.func_ir):  # (debug: all slots)
            self.block_locals = block_local_values(self.func_ir, self.typemap)
        deferred = self._deferred_checks()
        for label in sorted(self.func_ir.blocks):
            if deferred is not None and deferred.lowered_in_blocks(label):
                continue  # (only as copies: _lower_second_copies)
            self.builder.position_at_end(self.llvm_blocks[label])
            self.context.block_in_progress[self.function] = label
            first_new_block = len(self.function.blocks)
            if deferred is not None:
                deferred.enter_block(self.builder, label)
            block = self.func_ir.blocks[label]
            for stmt in block.body:
                if deferred is not None:
                    deferred.recording = id(stmt) in deferred.plan.deferred
                    if isinstance(stmt, ir.Jump | ir.Branch):
                        deferred.before_jump(self.builder, label, block.successors())
                self._lower_statement(stmt)
            self.exception_routing.lowered_block(label, first_new_block)
        if deferred is not None:
            self._lower_second_copies(deferred)
            deferred.finish(self.context.raise_error)
            self.context.deferred_checks = deferred.enclosing
        if self.statement_locations is not None:  # exits' clean-up: the `def` line
            self.statement_locations.before(self.builder, self.func_ir.loc)
        self.exception_routing.finish()
        self._release_at_exits()
        narrow_guards(self.function)
        if unwinding:
            qualname = self.func_ir.qualname
            stack_check.define_unwinding_entry(self.context, self.function, self.symbol, qualname)
        return self.function

    def _recurses_owning_nothing(self) -> bool:
        """Whether this function calls one still being compiled (it closes a recursion cycle)
        and owns no reference-counted value that an unwinding overflow would leak."""
        if any(refs.needs_refcount(typ) for typ in self.typemap.values()):
            return False
        for block in self.func_ir.blocks.values():
            for stmt in block.body:
                call = getattr(stmt, "value", None)
                if not isinstance(call, ir.Call):
                    continue
                fnty = self.typemap.get(call.func.name)
                if isinstance(fnty, types.DispatcherType):
                    target = fnty.dispatcher.compiled_for_call(self.calltypes[call].args)
                    if target.library is None:
                        return True
        return False

    def _release_at_exits(self) -> None:
        """Exception exits release every owned variable; all exits release iterator state."""
        owned = [(slot, self.typemap[name]) for name, slot in self.slots.items() if self.owns(name)]
        refs.release_at_exits(self.builder, self.function, owned)

    def owns(self, name: str) -> bool:
        """Whether variable `name`'s slot holds a reference of its own (arguments and lent
        methods borrow theirs), which an exception leaving its scope must release."""
        return (
            refs.needs_refcount(self.typemap[name])
            and name not in self.borrowed_args
            and name not in self.lent_methods
        )

    def _lent_method_names(self) -> set[str]:
        return {
            stmt.target.name
            for block in self.func_ir.blocks.values()
            for stmt in block.body
            if isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.GetAttr)
            and id(stmt.value) in self.moves
        }

    def _argument_names(self) -> list[str]:
        """`arg.a` per parameter (the seed's names); `arg.a.0`, `arg.a.1`... when flattened."""
        names = []
        for name, arg_type in zip(self.func_ir.arg_names, self.sig.args):
            count = len(model_of(arg_type).argument_types())
            names += [f"arg.{name}"] if count == 1 else [f"arg.{name}.{i}" for i in range(count)]
        return names

    def _statement_locations(self) -> Any:
        if not self.context.options.debug:
            return None
        from ember.codegen.debuginfo import StatementLocations

        return StatementLocations(self.module, self.func_ir)

    def _lower_statement(self, stmt: ir.Stmt) -> None:
        if self.statement_locations is not None:
            self.statement_locations.before(self.builder, stmt.loc)
        try:
            handler = _STATEMENT_LOWERERS[type(stmt)]
        except KeyError:
            raise LoweringError(f"cannot lower statement {stmt}", stmt.loc) from None
        try:
            handler(self, stmt)
        except EmberError as error:
            if error.loc is not None:
                raise
            raise type(error)(error.msg, stmt.loc) from None  # say which line failed

    # ------------------------------------------------------------------ variables

    def _slot(self, name: str) -> llvm.Value:
        slot = self.slots.get(name)
        if slot is None:
            value_type = self.context.value_type(self.typemap[name])
            slot = callconv.alloca_in_entry(self.builder, value_type, name=name)
            if refs.needs_refcount(self.typemap[name]):  # owns nothing until assigned
                refs.store_in_entry(self.builder, llvm.Constant(value_type, None), slot)
            self.slots[name] = slot
        return slot

    def load(self, var: ir.Var) -> llvm.Value:
        constant = self.constants.get(var.name)
        if constant is not None:
            return constant
        if var.name in self.block_locals:
            return self.local_values[var.name]
        return self.builder.load(self._slot(var.name))

    def _numeric_constants(self) -> dict[str, llvm.Value]:
        """Variables assigned exactly once, from a numeric constant: loads of them become the
        constant itself, so implementations can specialize (e.g. `n // 2` -> a shift)."""
        assignments: dict[str, list] = {}
        for _, stmt in self.func_ir.statements():
            for target in stmt.targets():
                value = stmt.value if isinstance(stmt, ir.Assign) else None
                assignments.setdefault(target.name, []).append(value)
        constants = {}
        for name, values in assignments.items():
            typ = self.typemap.get(name)
            if len(values) != 1 or not isinstance(values[0], ir.Const):
                continue
            if isinstance(typ, (types.Integer, types.Float)) and not isinstance(
                values[0].value, bool
            ):
                constants[name] = self.context.get_constant(typ, values[0].value)
        return constants

    def load_as(self, var: ir.Var, to_type: types.Type) -> llvm.Value:
        return self.context.cast(self.builder, self.load(var), self.typemap[var.name], to_type)

    def store(self, name: str, value: llvm.Value) -> None:
        if name in self.block_locals:
            self.local_values[name] = value
        else:
            self.builder.store(value, self._slot(name))

    # ------------------------------------------------------------------ statements

    def _lower_assign(self, stmt: ir.Assign) -> None:
        target_type = self.typemap[stmt.target.name]
        value_type = self.rhs_types.get(stmt, target_type)  # rewrites' new statements
        if isinstance(stmt.value, ir.Var):
            value = self.load(stmt.value)
            if id(stmt) not in self.moves:  # a move takes over the source's reference
                value = self.borrowed(value_type, value)
        elif stmt.target.name in self.borrowed_fields:  # `obj.field`: obj's reference to it
            receiver = stmt.value.value
            receiver_type = self.typemap[receiver.name]
            value = classes.read_field(
                self.builder, receiver_type, self.load(receiver), stmt.value.attr
            )
        else:
            value = _EXPRESSION_LOWERERS[type(stmt.value)](self, stmt.value, value_type)
        value = self.context.cast(self.builder, value, value_type, target_type)
        if stmt.target.name in self.non_negative_indices:
            self._assume_non_negative(value)
        if refs.needs_refcount(target_type) and stmt.target.name not in self.borrowed_args:
            refs.decref(self.builder, target_type, self.load(stmt.target))  # the old value
        self.store(stmt.target.name, value)

    def borrowed(self, typ: types.Type, value: llvm.Value) -> llvm.Value:
        """Make a new reference of a value read from a variable (expression results are new
        references; only arrays, and values holding them, emit anything)."""
        refs.incref(self.builder, typ, value)
        return value

    def _lower_del(self, stmt: ir.Del) -> None:
        """Release what the variable owns (only reference-counted types emit code)."""
        typ = self.typemap.get(stmt.name)
        if typ is None or not refs.needs_refcount(typ) or stmt.name in self.borrowed_args:
            return
        slot = self._slot(stmt.name)
        if id(stmt) not in self.moves:  # after a move, the reference lives on elsewhere
            refs.decref(self.builder, typ, self.builder.load(slot))
        self.builder.store(llvm.Constant(self.context.value_type(typ), None), slot)

    def _lower_jump(self, stmt: ir.Jump) -> None:
        self.builder.branch(self.llvm_blocks[stmt.target])

    def _lower_branch(self, stmt: ir.Branch) -> None:
        cond_type = self.typemap[stmt.cond.name]
        truth = self.context.is_true(self.builder, cond_type, self.load(stmt.cond))
        branch = self.builder.cbranch(
            truth, self.llvm_blocks[stmt.truebr], self.llvm_blocks[stmt.falsebr]
        )
        if stmt.likely is False:
            branch.set_weights([1, 1000])

    def _lower_return(self, stmt: ir.Return) -> None:
        value = self.load_as(stmt.value, self.sig.return_type)
        callconv.return_value(self.builder, self.sig, self.function, value)

    def _lower_static_raise(self, stmt: ir.StaticRaise) -> None:
        site = exception_lowering.raise_site(self, stmt.loc)
        self.context.raise_error(self.builder, stmt.exc_class, *stmt.exc_args, site=site)

    def _lower_setitem(self, stmt: ir.SetItem) -> None:
        target_type = self.typemap[stmt.target.name]
        if stmt.fills_display and isinstance(target_type, types.LiteralStrKeyDict):
            return  # built with its members (containers/literal_containers.py)
        sig = self.calltypes[stmt]
        if isinstance(target_type, types.Optional):  # CPython's TypeError for None
            target = self.load(stmt.target)
            optional.check_subscriptable(self.context, self.builder, target_type, target, True)
        args = [self.load_as(v, t) for v, t in zip((stmt.target, stmt.index, stmt.value), sig.args)]
        self.context.call_implementation(self.builder, operator.setitem, sig, args)

    def _lower_attribute_statement(self, stmt: ir.SetAttr | ir.DelAttr) -> None:
        """`obj.attr = v` / `del obj.attr` through `@lower_setattr` (or the delete registry)."""
        sig = self.calltypes[stmt]
        target_type = self.typemap[stmt.target.name]
        if isinstance(target_type, types.Optional):
            target_type = target_type.type
        setting = isinstance(stmt, ir.SetAttr)
        registry = self.context.registry
        found = (registry.find_setattr if setting else registry.find_delattr)(
            target_type, stmt.attr
        )
        if found is None:
            raise LoweringError(f"no implementation of {stmt} for {target_type}", stmt.loc)
        impl, is_generic = found
        operands = (stmt.target, stmt.value) if setting else (stmt.target,)
        declared = self.typemap[stmt.target.name]
        if isinstance(declared, types.Optional):  # None has no attributes
            target = optional.unwrap_for_attribute(
                self.context, self.builder, declared, self.load(stmt.target), stmt.attr
            )
            args = [
                target,
                *(self.load_as(var, typ) for var, typ in zip(operands[1:], sig.args[1:])),
            ]
        else:
            args = [self.load_as(var, typ) for var, typ in zip(operands, sig.args)]
        extra = (stmt.attr,) if is_generic else ()
        impl(self.context, self.builder, sig, args, *extra)

    # ------------------------------------------------------------------ expressions

    def _lower_arg(self, expr: ir.Arg, result_type: types.Type) -> llvm.Value:
        if expr.name in self.borrowed_args:  # the caller's reference outlives this call
            return self.arg_values[expr.index]
        return self.borrowed(result_type, self.arg_values[expr.index])

    def _lower_constant(self, expr: ir.Const, result_type: types.Type) -> llvm.Value:
        return self.context.get_constant_generic(self.builder, result_type, expr.value)

    def _lower_global(self, expr: ir.Global | ir.FreeVar, result_type: types.Type) -> llvm.Value:
        if isinstance(result_type, types.Dummy):
            return self.context.get_dummy_value(result_type)
        return self._frozen_constant(result_type, expr.value)

    def _frozen_constant(self, typ: types.Type, value: Any) -> llvm.Value:
        """A global's value: arrays (also inside tuples, as `index = (slice(1, 3), np.arange(2))`
        in a closure) become frozen array constants."""
        if isinstance(typ, types.Array):
            return refs.array_constant(typ, value, self.module)
        if isinstance(typ, types.BaseTuple) and _holds_array(typ):
            members = [self._frozen_constant(t, v) for t, v in zip(typ.types, value)]
            return llvm.Constant.literal_struct(members)
        return self.context.get_constant_generic(self.builder, typ, value)

    def _lower_operator(self, expr: Any, result_type: types.Type) -> llvm.Value:
        sig = self.calltypes[expr]
        operands = expr.sources()
        operand_types = [self.typemap[var.name] for var in operands]
        if any(isinstance(t, types.Optional) for t in operand_types):  # CPython's TypeError
            values = [self.load(var) for var in operands]
            optional.check_operands(self.context, self.builder, expr, operand_types, values, sig)
        args = [self.load_as(var, typ) for var, typ in zip(operands, sig.args)]
        key = expr.fn
        if isinstance(expr, ir.InplaceBinOp) and not self.context.registry.find_function(
            key, sig.args
        ):
            key = expr.immutable_fn
        if id(expr) in self.unsigned:  # the same bits, divided without sign fix-ups
            key = expr.immutable_fn if isinstance(expr, ir.InplaceBinOp) else expr.fn
            sig = Signature(types.uint64, (types.uint64, types.uint64))
        self.context.divisor_varies = id(expr) in self.varying_divisors
        try:
            result = self.context.call_implementation(self.builder, key, sig, args)
        finally:
            self.context.divisor_varies = False
        if id(expr) in self.no_wrap:
            _mark_no_signed_wrap(result)
        if id(expr) in self.non_negative:  # (a range's value minus its lower bound)
            self._assume_non_negative(result)
        return result

    def _assume_non_negative(self, value: llvm.Value) -> None:
        is_non_negative = self.builder.icmp_signed(">=", value, llvm.Constant(value.type, 0))
        call_intrinsic(self.builder, "llvm.assume", [is_non_negative], llvm.VoidType(), [])

    def _lower_getattr(self, expr: ir.GetAttr, result_type: types.Type) -> llvm.Value:
        value_type = self.typemap[expr.value.name]
        if isinstance(value_type, types.Module):
            constant = getattr(value_type.pymod, expr.attr)
            if isinstance(result_type, types.Dummy):
                return self.context.get_dummy_value(result_type)
            return self._frozen_constant(result_type, constant)  # as the global it is
        value = self.load(expr.value)
        if isinstance(value_type, types.Optional):  # None has no attributes
            value = optional.unwrap_for_attribute(
                self.context, self.builder, value_type, value, expr.attr
            )
            value_type = value_type.type
        if isinstance(result_type, types.BoundFunction):
            if isinstance(value_type, types.StringLiteral):  # "-".join(...): a value now
                return self.context.cast(self.builder, value, value_type, result_type.this)
            return value if id(expr) in self.moves else self.borrowed(result_type, value)
        if isinstance(value_type, types.ExceptionInstance) and expr not in self.calltypes:
            if expr.attr == "args":  # rebuilt from the exception table entry
                return self.exception_routing.caught_args(value, result_type)
        if isinstance(value_type, types.ExceptionInstance):  # e.code: the Python object's
            from ember.library.builtins.caught_exceptions import caught_attribute

            return caught_attribute(self.context, self.builder, value, expr.attr, result_type)
        found = self.context.registry.find_getattr(value_type, expr.attr)
        if found is None:
            raise LoweringError(f"no implementation of attribute '{expr.attr}' of {value_type}")
        impl, is_generic = found
        if is_generic:
            return impl(self.context, self.builder, value_type, value, expr.attr)
        return impl(self.context, self.builder, value_type, value)

    def _lower_getitem(self, expr: Any, result_type: types.Type) -> llvm.Value:
        value_type = self.typemap[expr.value.name]
        if (
            isinstance(expr, ir.StaticGetItem)
            and isinstance(value_type, types.BaseTuple)
            and not isinstance(value_type, types.LiteralStrKeyDict)  # by key: its getitem
        ):
            tup = self.load(expr.value)
            if isinstance(expr.index, slice):  # a new tuple of the chosen members
                item = llvm.Constant(self.context.value_type(result_type), llvm.Undefined)
                for position, index in enumerate(range(len(value_type))[expr.index]):
                    member = self.builder.extract_value(tup, index)
                    item = self.builder.insert_value(item, member, position)
            else:
                item = self.builder.extract_value(tup, expr.index % len(value_type))
            return self.borrowed(result_type, item)
        sig = self.calltypes[expr]
        if isinstance(value_type, types.Optional):  # CPython's TypeError for None
            container = self.load(expr.value)
            optional.check_subscriptable(self.context, self.builder, value_type, container)
        index_var = expr.index if isinstance(expr, ir.GetItem) else expr.index_var
        args = [self.load_as(expr.value, sig.args[0]), self.load_as(index_var, sig.args[1])]
        item = self.context.call_implementation(self.builder, operator.getitem, sig, args)
        if isinstance(value_type, types.BaseTuple):  # tuple items are borrowed from the tuple
            return self.borrowed(result_type, item)
        return item

    def _lower_build_tuple(self, expr: ir.BuildTuple, result_type: types.Type) -> llvm.Value:
        result = llvm.Constant(self.context.value_type(result_type), llvm.Undefined)
        for index, (var, member) in enumerate(zip(expr.items, result_type.types)):
            item = self.borrowed(member, self.load_as(var, member))
            result = self.builder.insert_value(result, item, index)
        return result

    def _lower_build_list(self, expr: ir.BuildList, result_type: types.List) -> llvm.Value:
        if isinstance(result_type, types.LiteralList):  # stored as a tuple of its items
            return self._lower_build_tuple(expr, result_type)
        dtype = result_type.dtype
        items = [self.borrowed(dtype, self.load_as(var, dtype)) for var in expr.items]
        return lists.build(self.context, self.builder, result_type, items)

    def _lower_getiter(self, expr: ir.GetIter, result_type: types.Type) -> llvm.Value:
        sig = self.calltypes[expr]
        args = [self.load_as(expr.value, sig.args[0])]
        return self.context.call_implementation(self.builder, iter, sig, args)

    def _lower_iternext(self, expr: ir.IterNext, result_type: types.Type) -> llvm.Value:
        iterator_type = self.typemap[expr.value.name]
        sig = Signature(result_type, (iterator_type,))
        if expr.value.name in self.loop_range_iterators:
            unit = expr.value.name in self.unit_step_iterators
            state = self.load(expr.value)
            return range_builtins.loop_next(self.context, self.builder, sig, state, unit)
        return self.context.call_implementation(self.builder, next, sig, [self.load(expr.value)])

    def _lower_pair_part(self, expr: Any, result_type: types.Type) -> llvm.Value:
        index = 0 if isinstance(expr, ir.PairFirst) else 1
        return self.borrowed(result_type, self.builder.extract_value(self.load(expr.value), index))

    def _lower_exhaust_iter(self, expr: ir.ExhaustIter, result_type: types.Type) -> llvm.Value:
        sig = self.calltypes.get(expr)
        if sig is not None:  # not a tuple (an array): its implementation makes the tuple
            value = self.load_as(expr.value, sig.args[0])
            return self.context.call_implementation(self.builder, ir.ExhaustIter, sig, [value])
        return self.borrowed(result_type, self.load(expr.value))

    def _lower_cast(self, expr: ir.Cast, result_type: types.Type) -> llvm.Value:
        source_type = self.typemap[expr.value.name]
        value = self.borrowed(source_type, self.load(expr.value))
        if _holds_string_literal(source_type):  # its characters become a value here
            value = self.context.cast(self.builder, value, source_type, result_type)
        return value


def _mark_no_signed_wrap(value: llvm.Value) -> None:
    """Flag the int64 add/sub/mul that computed `value` (int_ranges proved it cannot wrap)."""
    opname = getattr(value, "opname", None)
    if opname in ("add", "sub", "mul") and "nsw" not in value.flags:
        value.flags.append("nsw")


def _holds_string_literal(typ: types.Type) -> bool:
    if isinstance(typ, types.BaseTuple):
        return any(_holds_string_literal(member) for member in typ.types)
    return isinstance(typ, types.StringLiteral)


_STATEMENT_LOWERERS = {
    ir.Assign: FunctionLowerer._lower_assign,
    ir.Del: FunctionLowerer._lower_del,
    ir.Jump: FunctionLowerer._lower_jump,
    ir.Branch: FunctionLowerer._lower_branch,
    ir.Return: FunctionLowerer._lower_return,
    ir.StaticRaise: FunctionLowerer._lower_static_raise,
    ir.Raise: exception_lowering.lower_raise,
    ir.SetItem: FunctionLowerer._lower_setitem,
    ir.SetAttr: FunctionLowerer._lower_attribute_statement,
    ir.DelAttr: FunctionLowerer._lower_attribute_statement,
}

_EXPRESSION_LOWERERS = {
    ir.Arg: FunctionLowerer._lower_arg,
    ir.Const: FunctionLowerer._lower_constant,
    ir.Global: FunctionLowerer._lower_global,
    ir.FreeVar: FunctionLowerer._lower_global,
    ir.BinOp: FunctionLowerer._lower_operator,
    ir.InplaceBinOp: FunctionLowerer._lower_operator,
    ir.UnaryOp: FunctionLowerer._lower_operator,
    ir.Call: FunctionLowerer._lower_call,
    ir.GetAttr: FunctionLowerer._lower_getattr,
    ir.GetItem: FunctionLowerer._lower_getitem,
    ir.StaticGetItem: FunctionLowerer._lower_getitem,
    ir.BuildTuple: FunctionLowerer._lower_build_tuple,
    ir.BuildList: FunctionLowerer._lower_build_list,
    ir.GetIter: FunctionLowerer._lower_getiter,
    ir.IterNext: FunctionLowerer._lower_iternext,
    ir.PairFirst: FunctionLowerer._lower_pair_part,
    ir.PairSecond: FunctionLowerer._lower_pair_part,
    ir.ExhaustIter: FunctionLowerer._lower_exhaust_iter,
    ir.Cast: FunctionLowerer._lower_cast,
    ir.CaughtException: exception_lowering.lower_caught_exception,
    ir.ExceptionMatch: exception_lowering.lower_exception_match,
}


def register_expression_lowerer(expr_class: type, lowerer) -> None:
    """Let a later stage (array expressions, parfors) lower its own expression kind."""
    _EXPRESSION_LOWERERS[expr_class] = lowerer


def register_statement_lowerer(stmt_class: type, lowerer) -> None:
    _STATEMENT_LOWERERS[stmt_class] = lowerer


def _holds_array(typ: types.Type) -> bool:
    if isinstance(typ, types.Array):
        return True
    return isinstance(typ, types.BaseTuple) and any(_holds_array(t) for t in typ.types)
