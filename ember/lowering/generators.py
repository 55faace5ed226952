"""Stage 6a for generator functions: typed IR with `yield` to three native functions.

- `symbol` (the ordinary calling convention): makes the generator, a runtime block holding the
  state {i32 resume index, arguments, saved variables, frame}, and returns it.
- `symbol$resume`: `i32 (ptr retptr, ptr excinfo, ptr env, ptr state, i8 closing)` runs the
  body from where it stopped. At a yield it saves the variables live after it, stores the item
  at retptr and returns 0; when the body ends it returns 2 (a zero item at retptr, the value
  of its `return` in the state's result field); 1 is an exception. With `closing` (CLOSE) a
  generator suspended inside a `try` resumes raising GeneratorExit there, so its `finally` and
  handlers run as Python's close() runs them; elsewhere (or with RELEASE) it releases what the
  suspended generator holds and ends it.
- `symbol$result`: `void (ptr out, ptr state)` stores a new reference to the returned value at
  `out` (StopIteration.value for Python).
- `symbol$container`: `ptr (ptr state, i32 index)` the meminfo of argument `index` when it is
  a list or set passed from Python (written back into the Python object after each step).
- the block's destructor, which closes the generator when its last reference goes.

Library code keeps iterator state in entry-block allocas; in the resume function those become
fields of the frame, so a `for` loop suspended at a yield continues where it was.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import LoweringError
from ember.ir import nodes as ir
from ember.ir.liveness import live_variables
from ember.lowering import arrays as refs
from ember.lowering import callconv
from ember.lowering import exceptions as exception_lowering
from ember.lowering.lower import FunctionLowerer, register_expression_lowerer
from ember.lowering.models import MeminfoStructModel, model_of, register_model
from ember.lowering.ownership import borrowed_arguments, moved_statements
from ember.runtime import nrt

STATUS_STOP = 2  # the body ended (StopIteration)
CLOSE, RELEASE = 1, 2  # the `closing` argument: close() as Python's, or only release
_NOT_STARTED, _FINISHED = 0, -1
_INDEX, _RESULT, _ARGS, _VARS, _FRAME = range(5)  # the result field comes first: its place
# does not depend on the function (generator_return_value reads it knowing only its type)

i8, i32, i64, ptr = refs.i8, refs.i32, refs.i64, refs.ptr
RESUME_TYPE = llvm.FunctionType(i32, [ptr, ptr, ptr, ptr, i8])

_compiled: dict[types.Generator, tuple] = {}  # generator type -> (library, resume symbol)


@register_model(types.Generator)
class GeneratorModel(MeminfoStructModel):
    """A generator is the meminfo of its state block (reference counted like a list)."""

    def __init__(self, fe_type: types.Generator) -> None:
        super().__init__(fe_type, [("meminfo", types.meminfo_pointer)])


def resume_symbol(symbol: str) -> str:
    return f"{symbol}$resume"


def compiled_resume(gen_type: types.Generator) -> tuple:
    """(library, resume symbol) of a compiled generator function."""
    found = _compiled.get(gen_type)
    if found is None or found[0] is None:
        raise LoweringError(
            f"{gen_type.gen_func.__qualname__} is still being compiled: a generator cannot "
            "iterate itself recursively"
        )
    return found


def publish_resume(gen_type: types.Generator, library: Any, symbol: str) -> None:
    """Generators of `gen_type` resume in `library` (a generator function loaded from the
    disk cache), unless compiled in this process already."""
    found = _compiled.get(gen_type)
    if found is None or found[0] is None:
        _compiled[gen_type] = (library, resume_symbol(symbol))


def declare_resume(context, module: llvm.Module, gen_type: types.Generator) -> llvm.Function:
    """The resume function of `gen_type` in `module`, its library linked in for inlining."""
    library, symbol = compiled_resume(gen_type)
    if library not in context.dependencies:
        context.dependencies.append(library)
    return context.declare_function(module, symbol, RESUME_TYPE)


def state_pointer(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return nrt.emit_data_pointer(builder, builder.extract_value(value, 0))


def _i32(value: int) -> llvm.Constant:
    return llvm.Constant(i32, value)


def result_symbol(symbol: str) -> str:
    return f"{symbol}$result"


def compiled_result_reader(gen_type: types.Generator) -> tuple:
    """(library, symbol) of the function reading what a compiled generator returned."""
    library, resume = compiled_resume(gen_type)
    return library, result_symbol(resume.removesuffix("$resume"))


def container_symbol(symbol: str) -> str:
    return f"{symbol}$container"


def compiled_container_reader(gen_type: types.Generator) -> tuple:
    """(library, symbol) of the function giving a generator's list or set argument."""
    library, resume = compiled_resume(gen_type)
    return library, container_symbol(resume.removesuffix("$resume"))


def reflected_arguments(gen_type: types.Generator) -> list[int]:
    """The indexes of the arguments that are lists or sets (reflected: Python's own)."""
    return [i for i, t in enumerate(gen_type.arg_types) if isinstance(t, (types.List, types.Set))]


def _result_data_type(context, gen_type: types.Generator) -> llvm.Type:
    if gen_type.return_type is types.none:
        return llvm.LiteralStructType([])
    return context.data_type(gen_type.return_type)


def load_return_value(context, builder: llvm.IRBuilder, gen_type, state: llvm.Value):
    """A new reference to the value the finished generator at `state` returned (zero while
    it runs: the field is zeroed until its `return`)."""
    model = model_of(gen_type.return_type)
    head = llvm.LiteralStructType([i32, _result_data_type(context, gen_type)])
    field = builder.gep(state, [_i32(0), _i32(_RESULT)], inbounds=True, source_etype=head)
    value = model.from_data(builder, builder.load(field, typ=model.data_type))
    refs.incref(builder, gen_type.return_type, value)
    return value


class _FrameBuilder(llvm.IRBuilder):
    """Turns library code's entry-block allocas into frame fields of the generator state, and
    moves their entry-block initial stores to the first run (the state starts zeroed)."""

    def __init__(self, block: llvm.Block, lowerer: GeneratorLowerer) -> None:
        super().__init__(block)
        self.lowerer = lowerer
        self.in_frame = True

    def alloca(self, typ, size=None, name=""):
        if not self.in_frame or size is not None:
            return super().alloca(typ, size, name)
        return self.lowerer.frame_field(self, typ, name)

    def store(self, value, pointer, align=None):
        lowerer = self.lowerer
        if id(pointer) in lowerer.frame_pointers and self.block is lowerer.entry:
            block, anchor = self._block, self._anchor
            self.position_at_end(lowerer.start)
            stored = super().store(value, pointer, align)
            self._block, self._anchor = block, anchor
            return stored
        return super().store(value, pointer, align)


class GeneratorLowerer(FunctionLowerer):
    """Lowers a generator function's IR into its resume function, then emits the function that
    makes the generator and the destructor (module docstring)."""

    def lower(self) -> llvm.Function:
        self.gen_type: types.Generator = self.sig.return_type
        self.state_type = self.module.context.get_identified_type(f"{self.symbol}.state")
        self.frame_types: list[llvm.Type] = []
        self.frame_pointers: set[int] = set()
        self.saved: dict[str, int] = {}  # variable -> field in the saved-variables struct
        self.yields: dict[int, tuple[llvm.Block, list[str]]] = {}  # index -> (block, saved)
        self.yield_returns: set[int] = set()
        self.protected_yields: set[int] = set()  # indexes of yields inside a `try`
        self.stored: dict[str, list] = {}  # variable -> values the body stores into it
        self.loaded_from: dict[int, str] = {}  # id(load of a variable) -> its name
        self.saves: dict[str, list] = {}  # variable -> stores saving it at yields
        self.restores: dict[str, list] = {}  # variable -> stores restoring it on resume
        function = llvm.Function(self.module, RESUME_TYPE, resume_symbol(self.symbol))
        for arg, name in zip(function.args, ("retptr", "excinfo", "env", "state", "closing")):
            arg.name = name
        self.function = function
        self.entry = function.append_basic_block("entry")
        dispatch = function.append_basic_block("dispatch")
        self.start = function.append_basic_block("start")
        self.llvm_blocks = {
            label: function.append_basic_block(f"B{label}") for label in sorted(self.func_ir.blocks)
        }
        self.builder = _FrameBuilder(self.entry, self)
        self.arg_values = [
            model_of(t).from_data(
                self.builder, self.builder.load(self._field(_ARGS, i), typ=model_of(t).data_type)
            )
            for i, t in enumerate(self.sig.args)
        ]
        self.borrowed_args = borrowed_arguments(self.func_ir)
        self.moves = moved_statements(self.func_ir, self.borrowed_args)
        self.lent_methods: set[str] = set()  # (no method borrows its receiver here)
        self.live_after = _live_after_yields(self.func_ir)
        self.exception_routing = exception_lowering.ExceptionRouting(self)
        self.builder.branch(dispatch)
        for label in sorted(self.func_ir.blocks):
            self.builder.position_at_end(self.llvm_blocks[label])
            self.lowering_label = label
            first_new_block = len(function.blocks)
            for stmt in self.func_ir.blocks[label].body:
                self._lower_statement(stmt)
            self.exception_routing.lowered_block(label, first_new_block)
        self.exception_routing.finish()
        self._pin_frame_pointers()
        actions = refs.take_exit_actions(function)
        self._finish_exits(actions)
        self._emit_dispatch(dispatch, actions)
        self.state_type.set_body(
            i32,
            _result_data_type(self.context, self.gen_type),
            llvm.LiteralStructType([model_of(t).data_type for t in self.sig.args]),
            llvm.LiteralStructType([self._saved_type(name) for name in self.saved]),
            llvm.LiteralStructType(self.frame_types),
        )
        self._emit_maker()
        self._emit_result_reader()
        self._emit_container_reader()
        return function

    # ------------------------------------------------------------------ state

    def _field(self, *path: int) -> llvm.Value:
        indices = [_i32(0), *(_i32(p) for p in path)]
        return self.builder.gep(
            self.function.args[3], indices, inbounds=True, source_etype=self.state_type
        )

    def frame_field(self, builder: llvm.IRBuilder, typ: llvm.Type, name: str) -> llvm.Value:
        """A frame field standing for an entry-block alloca (the builder is in the entry)."""
        self.frame_types.append(typ)
        pointer = builder.gep(
            self.function.args[3],
            [_i32(0), _i32(_FRAME), _i32(len(self.frame_types) - 1)],
            inbounds=True,
            name=name,
            source_etype=self.state_type,
        )
        pointer.type = typ.as_pointer()  # read like the alloca it replaces
        self.frame_pointers.add(id(pointer))
        return pointer

    def _slot(self, name: str) -> llvm.Value:
        self.builder.in_frame = False  # variables stay in registers between yields
        try:
            return super()._slot(name)
        finally:
            self.builder.in_frame = True

    def _saved_type(self, name: str) -> llvm.Type:
        return self.context.data_type(self.typemap[name])

    def _owns(self, name: str) -> bool:
        return refs.needs_refcount(self.typemap[name]) and name not in self.borrowed_args

    # ------------------------------------------------------------------ yield and return

    def _lower_statement(self, stmt: ir.Stmt) -> None:
        if isinstance(stmt, ir.Return):
            returned = self.gen_type.return_type
            if returned is not types.none:  # the state takes over the returned reference
                value = self.load_as(stmt.value, returned)
                data = model_of(returned).as_data(self.builder, value)
                self.builder.store(data, self._field(_RESULT))
            self._store_item(llvm.Constant(self.context.data_type(self.gen_type.yield_type), None))
            self.builder.ret(llvm.Constant(i32, STATUS_STOP))
            return
        super()._lower_statement(stmt)

    def _store_item(self, data: llvm.Value) -> None:
        self.builder.store(data, self.function.args[0])

    def lower_yield(self, expr: ir.Yield, result_type: types.Type) -> llvm.Value:
        builder = self.builder
        item_type = self.gen_type.yield_type
        live = self.live_after[id(expr)]
        item = self.load_as(expr.value, item_type)
        if expr.value.name in live or expr.value.name in self.borrowed_args:
            # (otherwise the item takes over the reference of a variable that dies here)
            item = self.borrowed(item_type, item)
        self._store_item(model_of(item_type).as_data(builder, item))
        saved = [
            name for name in sorted(live) if name in self.typemap and name not in self.constants
        ]
        for name in saved:  # the state takes over what the variables own
            field = self.saved.setdefault(name, len(self.saved))
            value = model_of(self.typemap[name]).as_data(builder, builder.load(self._slot(name)))
            save = builder.store(value, self._field(_VARS, field))
            self.saves.setdefault(name, []).append(save)
        builder.store(_i32(expr.index), self._field(_INDEX))
        ret = builder.ret(llvm.Constant(i32, callconv.STATUS_OK))
        self.yield_returns.add(id(ret))
        resume = self.function.append_basic_block(f"resume.{expr.index}")
        builder.position_at_end(resume)
        for name in saved:
            model = model_of(self.typemap[name])
            data = builder.load(self._field(_VARS, self.saved[name]), typ=model.data_type)
            restore = builder.store(model.from_data(builder, data), self._slot(name))
            self.restores.setdefault(name, []).append(restore)
        self.yields[expr.index] = (resume, saved)
        if self.lowering_label in self.func_ir.exception_handlers:
            # closed here: GeneratorExit raised at the yield, into the `try`'s handlers
            self.protected_yields.add(expr.index)
            closing = builder.icmp_unsigned("!=", self.function.args[4], llvm.Constant(i8, 0))
            with builder.if_then(closing, likely=False):
                self.context.raise_error(builder, GeneratorExit)
        return self.context.get_dummy_value(result_type)

    def load(self, var: ir.Var) -> llvm.Value:
        value = super().load(var)
        self.loaded_from[id(value)] = var.name
        return value

    def store(self, name: str, value: llvm.Value) -> None:
        self.stored.setdefault(name, []).append(value)
        super().store(name, value)

    def _pin_frame_pointers(self) -> None:
        """A variable that only ever holds one frame address (an iterator's state) is not
        saved at yields: resuming sets it to that address, which LLVM sees is constant, so
        a loop over the generator keeps the iterator's state in registers once inlined."""
        for name, restores in self.restores.items():
            found = self._frame_addresses(name, set())
            if found is None or len(found) != 1:
                continue
            (address,) = found.values()
            for restore in restores:
                restore.operands = [address, restore.operands[1]]
            for save in self.saves.get(name, ()):
                save.parent.instructions.remove(save)

    def _frame_addresses(self, name: str, seen: set[str]) -> dict[int, llvm.Value] | None:
        """The frame addresses variable `name` may hold, or None when it may hold others."""
        if name in seen:
            return {}
        seen.add(name)
        found: dict[int, llvm.Value] = {}
        for value in self.stored.get(name, ()):
            if id(value) in self.frame_pointers:
                found[id(value)] = value
            elif id(value) in self.loaded_from:
                inner = self._frame_addresses(self.loaded_from[id(value)], seen)
                if inner is None:
                    return None
                found.update(inner)
            else:
                return None
        return found

    # ------------------------------------------------------------------ exits

    def _finish_exits(self, actions: list) -> None:
        """Before each exit that ends the generator (its end, an exception): release what the
        frame and the arguments hold and mark it finished."""
        owned = [
            (slot, self.typemap[name]) for name, slot in self.slots.items() if self._owns(name)
        ]
        for block in list(self.function.blocks):
            if not block.is_terminated or id(block.terminator) in self.yield_returns:
                continue
            terminator = block.terminator
            if terminator.opname != "ret":
                continue
            status = terminator.operands[0]
            self.builder.position_before(terminator)
            if isinstance(status, llvm.Constant) and status.constant == callconv.STATUS_EXCEPTION:
                for slot, typ in owned:
                    refs.decref(self.builder, typ, self.builder.load(slot))
            self._emit_finish(actions)

    def _emit_finish(self, actions: list) -> None:
        builder = self.builder
        for action in actions:
            action(builder)
        for index, arg_type in enumerate(self.sig.args):
            if refs.needs_refcount(arg_type):
                refs.decref(builder, arg_type, self.arg_values[index])
        builder.store(_i32(_FINISHED), self._field(_INDEX))

    def _emit_dispatch(self, dispatch: llvm.Block, actions: list) -> None:
        """Every call enters here: resume where the generator stopped, or close it."""
        builder = self.builder
        function = self.function
        running = function.append_basic_block("run")
        closing = function.append_basic_block("close")
        ended = function.append_basic_block("ended")
        builder.position_at_end(dispatch)
        builder.cbranch(
            builder.icmp_unsigned("!=", function.args[4], llvm.Constant(i8, 0)), closing, running
        )
        builder.position_at_end(running)
        switch = builder.switch(builder.load(self._field(_INDEX), typ=i32), ended)
        switch.add_case(_i32(_NOT_STARTED), self.start)
        for index, (resume, _) in self.yields.items():
            switch.add_case(_i32(index), resume)
        builder.position_at_end(self.start)
        builder.branch(self.llvm_blocks[self.func_ir.entry])
        builder.position_at_end(ended)
        self._store_item(llvm.Constant(self.context.data_type(self.gen_type.yield_type), None))
        builder.ret(llvm.Constant(i32, STATUS_STOP))
        self._emit_close(closing, actions)

    def _emit_close(self, closing: llvm.Block, actions: list) -> None:
        """Release a suspended (or never started) generator's variables, frame and arguments."""
        builder = self.builder
        release = self.function.append_basic_block("close.release")
        done = self.function.append_basic_block("close.done")
        builder.position_at_end(closing)
        switch = builder.switch(builder.load(self._field(_INDEX), typ=i32), release)
        switch.add_case(_i32(_FINISHED), done)
        for index, (resume, saved) in self.yields.items():
            block = self.function.append_basic_block(f"close.{index}")
            if index in self.protected_yields:  # run its handlers, unless only releasing
                choose = self.function.append_basic_block(f"close.handlers.{index}")
                switch.add_case(_i32(index), choose)
                builder.position_at_end(choose)
                only_release = builder.icmp_unsigned(
                    "==", self.function.args[4], llvm.Constant(i8, RELEASE)
                )
                builder.cbranch(only_release, block, resume)
            else:
                switch.add_case(_i32(index), block)
            builder.position_at_end(block)
            for name in saved:
                if self._owns(name):
                    typ = self.typemap[name]
                    model = model_of(typ)
                    data = builder.load(self._field(_VARS, self.saved[name]), typ=model.data_type)
                    refs.decref(builder, typ, model.from_data(builder, data))
            builder.branch(release)
        builder.position_at_end(release)
        self._emit_finish(actions)
        builder.branch(done)
        builder.position_at_end(done)
        returned = self.gen_type.return_type
        if refs.needs_refcount(returned):  # closing twice releases it once
            model = model_of(returned)
            field = self._field(_RESULT)
            data = builder.load(field, typ=model.data_type)
            refs.decref(builder, returned, model.from_data(builder, data))
            builder.store(llvm.Constant(model.data_type, None), field)
        builder.ret(llvm.Constant(i32, STATUS_STOP))  # (STATUS_OK: it yielded while closing)

    # ------------------------------------------------------------------ making the generator

    def _emit_maker(self) -> None:
        """`symbol`: a zeroed state block holding new references to the arguments."""
        maker = llvm.Function(self.module, callconv.function_type(self.sig), self.symbol)
        builder = llvm.IRBuilder(maker.append_basic_block("entry"))
        args = callconv.decode_arguments(builder, self.sig, maker)
        size = builder.ptrtoint(
            builder.gep(llvm.Constant(ptr, None), [_i32(1)], source_etype=self.state_type), i64
        )
        meminfo = nrt.emit_allocate_fresh(builder, size)
        failed = builder.icmp_unsigned("==", meminfo, llvm.Constant(ptr, None))
        self.context.guard(builder, failed, MemoryError, "unable to allocate a generator")
        nrt.emit_set_destructor(builder, meminfo, self._emit_destructor())
        state = nrt.emit_data_pointer(builder, meminfo)
        refs.memset_zero(builder, state, size)
        for index, (arg_type, value) in enumerate(zip(self.sig.args, args)):
            refs.incref(builder, arg_type, value)
            field = builder.gep(
                state, [_i32(0), _i32(_ARGS), _i32(index)], source_etype=self.state_type
            )
            builder.store(model_of(arg_type).as_data(builder, value), field)
        result = builder.insert_value(
            llvm.Constant(self.context.value_type(self.gen_type), None), meminfo, 0
        )
        callconv.return_value(builder, self.sig, maker, result)

    def _emit_result_reader(self) -> None:
        """`symbol$result(out, state)`: the returned value for Python's StopIteration."""
        function = llvm.Function(
            self.module, llvm.FunctionType(llvm.VoidType(), [ptr, ptr]), result_symbol(self.symbol)
        )
        builder = llvm.IRBuilder(function.append_basic_block("entry"))
        returned = self.gen_type.return_type
        if returned is not types.none:
            value = load_return_value(self.context, builder, self.gen_type, function.args[1])
            builder.store(model_of(returned).as_data(builder, value), function.args[0])
        builder.ret_void()

    def _emit_container_reader(self) -> None:
        """`symbol$container(state, index)`: the meminfo of a list or set argument (NULL for
        other indexes)."""
        function = llvm.Function(
            self.module, llvm.FunctionType(ptr, [ptr, i32]), container_symbol(self.symbol)
        )
        builder = llvm.IRBuilder(function.append_basic_block("entry"))
        other = function.append_basic_block("other")
        switch = builder.switch(function.args[1], other)
        for index in reflected_arguments(self.gen_type):
            typ = self.sig.args[index]
            case = function.append_basic_block(f"arg{index}")
            switch.add_case(_i32(index), case)
            builder.position_at_end(case)
            model = model_of(typ)
            field = builder.gep(
                function.args[0],
                [_i32(0), _i32(_ARGS), _i32(index)],
                inbounds=True,
                source_etype=self.state_type,
            )
            value = model.from_data(builder, builder.load(field, typ=model.data_type))
            (path,) = refs.meminfo_paths(typ)
            builder.ret(builder.extract_value(value, list(path)) if path else value)
        builder.position_at_end(other)
        builder.ret(llvm.Constant(ptr, None))

    def _emit_destructor(self) -> llvm.Function:
        destructor = llvm.Function(
            self.module, llvm.FunctionType(llvm.VoidType(), [ptr]), f"{self.symbol}$close"
        )
        destructor.linkage = "internal"
        builder = llvm.IRBuilder(destructor.append_basic_block("entry"))
        item = builder.alloca(self.context.data_type(self.gen_type.yield_type))
        excinfo = builder.alloca(callconv.EXCINFO_TYPE)
        state = nrt.emit_data_pointer(builder, destructor.args[0])
        null = llvm.Constant(ptr, None)
        args = [item, excinfo, null, state, llvm.Constant(i8, CLOSE)]
        status = builder.call(self.function, args)
        # (an exception its handlers raise is dropped: nobody is there to catch it)
        yielded_again = builder.icmp_signed("==", status, llvm.Constant(i32, callconv.STATUS_OK))
        with builder.if_then(yielded_again, likely=False):  # it ignored GeneratorExit
            builder.call(self.function, [*args[:4], llvm.Constant(i8, RELEASE)])
        builder.ret_void()
        return destructor


register_expression_lowerer(ir.Yield, GeneratorLowerer.lower_yield)


def _live_after_yields(func_ir: ir.FunctionIR) -> dict[int, set[str]]:
    """For each `yield` expression (by id): the variables read after the generator resumes."""
    _, live_out = live_variables(func_ir)
    found: dict[int, set[str]] = {}
    for label, block in func_ir.blocks.items():
        live = set(live_out[label])
        for stmt in reversed(block.body):
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Yield):
                found[id(stmt.value)] = live - {stmt.target.name}
            live -= {var.name for var in stmt.targets()}
            live |= {var.name for var in stmt.sources()}
    return found


def lower_generator(context, module, func_ir, typing, sig, symbol, library) -> GeneratorLowerer:
    """Lower a generator function and record where consumers find its resume function."""
    gen_type = sig.return_type
    _compiled[gen_type] = (None, resume_symbol(symbol))  # being compiled
    lowerer = GeneratorLowerer(context, module, func_ir, typing, sig, symbol)
    lowerer.lower()
    library.export(resume_symbol(symbol))
    library.export(result_symbol(symbol))
    library.export(container_symbol(symbol))
    _compiled[gen_type] = (library, resume_symbol(symbol))
    return lowerer
