"""Stage 6a for exceptions: exception values made and raised by compiled code, `except`
matching, and the routing of every raise inside a `try` body to its handler block.

An exception value is {payload meminfo, id}: the id names (class, arguments) in
`callconv.static_exceptions`, where an argument known only at run time is a `PayloadSlot`
read from the payload. A raise stores the value in the function's excinfo record and returns
status 1; inside a protected block that return becomes a jump to a landing pad, which takes
the record, releases what the dead variables own and enters the handler block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import UnsupportedError
from ember.ir import nodes as ir
from ember.ir.liveness import live_variables
from ember.lowering import arrays as refs
from ember.lowering import callconv
from ember.lowering.first_class import select_by_index, switch_over
from ember.lowering.models import PrimitiveModel, register_model
from ember.lowering.registry import box, lower_cast
from ember.rewrites.static_raise import MISSING, constant_value, single_definitions
from ember.runtime import nrt

if TYPE_CHECKING:
    from ember.lowering.lower import FunctionLowerer

_i1 = llvm.IntType(1)
_i8 = llvm.IntType(8)
_i32 = llvm.IntType(32)
_i64 = llvm.IntType(64)
_double = llvm.DoubleType()
_ptr = llvm.PointerType()


# ---------------------------------------------------------------------------- making and raising


@lower_cast(types.ExceptionInstance, types.ExceptionInstance)
def _same_layout(context, builder, from_type, to_type, value):
    """Every exception class has one layout: a merge of two classes is the value itself."""
    return value


def make_exception(lowerer: FunctionLowerer, expr: ir.Call, exc_class: type) -> llvm.Value:
    """`E(args...)`: constant arguments go into the table entry, the others into a payload."""
    if expr.kws:
        raise UnsupportedError(
            f"{exc_class.__name__}(...) with keyword arguments is not supported in nopython "
            "mode; pass the arguments by position",
            expr.loc,
        )
    definitions = _definitions_of(lowerer)
    template: list[Any] = []
    runtime_args: list[tuple[llvm.Value, types.Type, str]] = []
    slots = 0
    if any(
        constant_value(var, definitions) is MISSING and not _in_payload(lowerer.typemap[var.name])
        for var in expr.args
    ):
        return _python_exception(lowerer, expr, exc_class)
    for var in expr.args:
        constant = constant_value(var, definitions)
        if constant is not MISSING:
            template.append(constant)
            continue
        typ, value = lowerer.typemap[var.name], lowerer.load(var)
        members = [(typ, value)]
        if isinstance(typ, types.DeferredText):
            members = [(t, lowerer.builder.extract_value(value, k)) for k, t in enumerate(typ)]
        read_back = []
        for member_type, member in members:
            kind = _payload_kind(member_type)
            read_back.append(callconv.PayloadSlot(slots, kind))
            runtime_args.append((member, member_type, kind))
            slots += callconv.PAYLOAD_SLOTS[kind]
        if isinstance(typ, types.DeferredText):
            template.append(callconv.DeferredText(typ.template, tuple(read_back)))
        else:
            template.extend(read_back)
    site = raise_site(lowerer, expr.loc)
    exc_id = callconv.static_exceptions.register(exc_class, tuple(template), site)
    payload = _fill_payload(lowerer, runtime_args) if runtime_args else llvm.Constant(_ptr, None)
    value = llvm.Constant(llvm.LiteralStructType([_ptr, _i32]), [None, exc_id])
    return lowerer.builder.insert_value(value, payload, 0)


@register_model(types.ExceptionClassChoice)
class ExceptionClassChoiceModel(PrimitiveModel):
    """The index of the chosen class in `exc_classes`."""

    def __init__(self, fe_type: types.ExceptionClassChoice) -> None:
        super().__init__(fe_type, _i32)


@lower_cast(types.ExceptionClass, types.ExceptionClassChoice)
def _class_to_choice(context, builder, from_type, to_type, value):
    return llvm.Constant(_i32, to_type.index_of(from_type.exc_class))


@lower_cast(types.ExceptionClassChoice, types.ExceptionClassChoice)
def _widen_class_choice(context, builder, from_type, to_type, value):
    """Renumber an index of a smaller choice into a larger one."""
    renumbered = [llvm.Constant(_i32, to_type.index_of(c)) for c in from_type.exc_classes]
    return select_by_index(builder, value, renumbered)


@box(types.ExceptionClassChoice)
def _box_class_choice(typ, value, c):
    """A chosen class returned to Python is the class object."""
    classes = [c.pyapi.borrow_constant(exc_class) for exc_class in typ.exc_classes]
    obj = select_by_index(c.builder, value, classes)
    c.pyapi.incref(obj)
    return obj


def make_chosen_exception(
    lowerer: FunctionLowerer, choice: types.ExceptionClassChoice, expr: ir.Call
) -> llvm.Value:
    """`E(args...)` where E is one of several classes: switch on the index and make each
    class's exception as `make_exception` does (they share one layout)."""
    result_type = lowerer.context.value_type(types.ExceptionInstance(BaseException))
    return switch_over(
        lowerer.builder,
        lowerer.load(expr.func),
        list(choice.exc_classes),
        lambda exc_class: make_exception(lowerer, expr, exc_class),
        result_type,
    )


def _python_exception(lowerer: FunctionLowerer, expr: ir.Call, exc_class: type) -> llvm.Value:
    """`E(args...)` with an argument no payload slot holds (a tuple, a list, an array, a
    dict): the exception is made by Python from the boxed arguments, under the GIL, and held
    for the Python-side entry (callconv.PythonExceptionRaised); `except` matches its class."""
    from ember.lowering.boxing import BoxContext
    from ember.lowering.pyapi import PythonAPI

    builder = lowerer.builder
    definitions = _definitions_of(lowerer)
    pyapi = PythonAPI(lowerer.context, builder, callconv.python_exception_keepalive)
    c = BoxContext(lowerer.context, builder, pyapi)
    gil = pyapi.gil_ensure()
    objects = [pyapi.borrow_constant(exc_class)]
    for var in expr.args:
        constant = constant_value(var, definitions)
        if constant is MISSING:
            objects.append(_boxed_argument(c, lowerer.typemap[var.name], lowerer.load(var), expr))
        else:
            objects.append(pyapi.borrow_constant(constant))
            pyapi.incref(objects[-1])
    failed = llvm.Constant(_i1, 0)
    for obj in objects[1:]:
        failed = builder.or_(failed, builder.icmp_unsigned("==", obj, pyapi.get_null_object()))
    with builder.if_else(failed, likely=False) as (boxing_failed, boxed):
        with boxing_failed:
            keeper = pyapi.borrow_constant(callconv.keep_python_exception)
            error = pyapi.err_fetch_exception()
            pyapi.decref(pyapi.call_function_objargs(keeper, [error]))
            pyapi.decref(error)
        with boxed:
            maker = pyapi.borrow_constant(callconv.keep_exception_made_by)
            pyapi.decref(pyapi.call_function_objargs(maker, objects))
    for obj in objects[1:]:
        pyapi.decref(obj)
    pyapi.gil_release(gil)
    exc_id = callconv.static_exceptions.register(callconv.PythonExceptionRaised, ())
    value = llvm.Constant(lowerer.context.value_type(types.ExceptionInstance(exc_class)), None)
    return builder.insert_value(value, llvm.Constant(_i32, exc_id), 1)


def _boxed_argument(c, typ: types.Type, value: llvm.Value, expr: ir.Call) -> llvm.Value:
    from ember.lowering.objmode import box_value

    try:
        return box_value(c, typ, value)
    except (TypeError, NotImplementedError, KeyError) as error:
        raise UnsupportedError(
            f"an exception argument of type {typ} is not supported in nopython mode: "
            f"Cannot convert native {typ} to a Python object ({error})",
            expr.loc,
        ) from None


def raise_site(lowerer: FunctionLowerer, loc: ir.Loc) -> callconv.RaiseSite:
    """The traceback frame of an exception raised at `loc` (callconv.RaiseSite)."""
    function = lowerer.func_ir.py_func.__name__
    return callconv.RaiseSite(loc.filename, loc.line, function, loc.end_col)


def _definitions_of(lowerer: FunctionLowerer) -> dict:
    found = getattr(lowerer, "_single_definitions", None)
    if found is None:
        found = lowerer._single_definitions = single_definitions(lowerer.func_ir)
    return found


def _in_payload(typ: types.Type) -> bool:
    """Whether a run-time argument of `typ` travels in the payload (a deferred message's
    members each do)."""
    if isinstance(typ, types.DeferredText):
        return all(_payload_kind(member) is not None for member in typ)
    return _payload_kind(typ) is not None


def _payload_kind(typ: types.Type) -> str | None:
    typ = types.unliteral(typ)
    if isinstance(typ, types.Boolean):
        return "bool"
    if isinstance(typ, types.Integer):
        return "int" if typ.signed else "uint"
    if isinstance(typ, types.Float):
        return "float"
    if isinstance(typ, types.UnicodeType):
        return "str"
    if isinstance(typ, types.BytesType):  # a kind-1 string of the bytes
        return "bytes"
    return None


def _fill_payload(lowerer: FunctionLowerer, runtime_args: list[tuple[llvm.Value, Any, str]]):
    """Fixed slots, then the characters of the string arguments (a str's slots hold the byte
    offset of its characters, its length and its kind: the payload owns no references).
    `runtime_args` holds (value, its type, payload kind)."""
    builder = lowerer.builder
    fixed = callconv.PAYLOAD_SLOT_SIZE * sum(callconv.PAYLOAD_SLOTS[k] for *_, k in runtime_args)
    size = llvm.Constant(_i64, fixed)
    for value, _, kind in runtime_args:
        if kind in ("str", "bytes"):
            size = builder.add(size, _string_bytes(builder, value))
    meminfo = nrt.emit_allocate(builder, size)
    failed = builder.icmp_unsigned("==", meminfo, llvm.Constant(_ptr, None))
    lowerer.context.guard(builder, failed, MemoryError, "cannot allocate an exception")
    data = nrt.emit_data_pointer(builder, meminfo)
    index, text_at = 0, llvm.Constant(_i64, fixed)
    for value, typ, kind in runtime_args:
        typ = types.unliteral(typ)
        if kind in ("str", "bytes"):
            text_at = _store_string(builder, data, index, text_at, value)
            index += callconv.PAYLOAD_SLOTS[kind]
            continue
        if kind == "bool":
            value = builder.zext(lowerer.context.is_true(builder, typ, value), _i8)
        elif kind == "float":
            value = lowerer.context.cast(builder, value, typ, types.float64)
        elif value.type.width < 64:
            value = builder.sext(value, _i64) if kind == "int" else builder.zext(value, _i64)
        builder.store(value, _slot_address(builder, data, index))
        index += 1
    return meminfo


def _slot_address(builder, data, index: int):
    offset = llvm.Constant(_i64, index * callconv.PAYLOAD_SLOT_SIZE)
    return builder.gep(data, [offset], source_etype=_i8)


def _string_bytes(builder, text):
    """Bytes of a string value's characters (length times kind)."""
    return builder.mul(builder.extract_value(text, 2), builder.extract_value(text, 3))


def _store_string(builder, data, index: int, text_at, text):
    """Copy `text`'s characters to byte `text_at` of the payload and describe them in slots
    `index`..`index + 2`; returns where the next characters go."""
    length, kind = builder.extract_value(text, 2), builder.extract_value(text, 3)
    for k, member in enumerate((text_at, length, kind)):
        builder.store(member, _slot_address(builder, data, index + k))
    nbytes = _string_bytes(builder, text)
    target = builder.gep(data, [text_at], source_etype=_i8)
    refs.memcpy(builder, target, builder.extract_value(text, 1), nbytes)
    return builder.add(text_at, nbytes)


def lower_raise(lowerer: FunctionLowerer, stmt: ir.Raise) -> None:
    """`raise value` (a re-raise, an exception with run-time arguments, or a class chosen at
    run time: `raise E` is `raise E()`)."""
    typ = lowerer.typemap[stmt.exception.name]
    builder = lowerer.builder
    if isinstance(typ, types.ExceptionClassChoice):
        value = make_chosen_exception(lowerer, typ, ir.Call(stmt.exception, [], [], stmt.loc))
        typ = types.ExceptionInstance(BaseException)
    else:
        value = lowerer.load(stmt.exception)
    refs.incref(builder, typ, value)  # the record's reference; the variable keeps its own
    record = llvm.Constant(callconv.EXCINFO_TYPE, llvm.Undefined)
    record = builder.insert_value(record, builder.extract_value(value, 1), 0)
    record = builder.insert_value(record, builder.extract_value(value, 0), 1)
    callconv.return_exception_record(builder, lowerer.function, record)


# ---------------------------------------------------------------------------- handlers


class ExceptionRouting:
    """Per function: which LLVM blocks each protected IR block became, the landing pads of
    the handler blocks, and the `except` switches whose cases are filled at the end."""

    def __init__(self, lowerer: FunctionLowerer) -> None:
        self.lowerer = lowerer
        self.handlers = lowerer.func_ir.exception_handlers
        self.regions: dict[int, list[llvm.Block]] = {}
        self.switches: list[tuple[Any, llvm.Block, tuple[type, ...]]] = []
        self.args_reads: list[tuple] = []  # (switch, payload, result slot, merge block, type)
        self.caught = None
        if self.handlers:
            self.caught = callconv.alloca_in_entry(
                lowerer.builder, callconv.EXCINFO_TYPE, name="caught.exc"
            )

    def lowered_block(self, label: int, first_new_block: int) -> None:
        """Remember the LLVM blocks of IR block `label` (its own and those made after
        `first_new_block`) when it is protected."""
        if label in self.handlers:
            function = self.lowerer.function
            self.regions[label] = [
                self.lowerer.llvm_blocks[label],
                *function.blocks[first_new_block:],
            ]

    def finish(self) -> None:
        """Route raises to landing pads and fill the `except` switches."""
        landing_pads: dict[int, llvm.Block] = {}
        live_in = live_variables(self.lowerer.func_ir)[0] if self.handlers else {}
        for label, blocks in self.regions.items():
            handler = self.handlers[label]
            if handler not in landing_pads:
                landing_pads[handler] = self._landing_pad(handler, live_in[handler])
            for block in blocks:
                _route_raise(self.lowerer.builder, block, landing_pads[handler])
        needed = self.switches or self.args_reads
        entries = callconv.static_exceptions.entries() if needed else []
        for switch, matched, classes in self.switches:
            for exc_id, exc_class, *_ in entries:
                if exc_class is callconv.PythonExceptionRaised:  # known only at run time
                    case = self._python_exception_case(matched, switch.default, classes)
                    switch.add_case(llvm.Constant(_i32, exc_id), case)
                # entries registered by extensions may hold instances: they match no handler
                elif isinstance(exc_class, type) and issubclass(exc_class, classes):
                    switch.add_case(llvm.Constant(_i32, exc_id), matched)
        for switch, payload, result_slot, merge, result_type in self.args_reads:
            for exc_id, _, exc_args, _ in entries:
                if _args_fit(exc_args, result_type):
                    case = self._args_case(payload, exc_args, result_type, result_slot, merge)
                    switch.add_case(llvm.Constant(_i32, exc_id), case)

    def _python_exception_case(self, matched, unmatched, classes) -> llvm.Block:
        """An exception raised by Python code (an objmode block) matches by its real class."""
        from ember.lowering.pyapi import PythonAPI

        builder = self.lowerer.builder
        case = self.lowerer.function.append_basic_block("except.python")
        builder.position_at_end(case)
        pyapi = PythonAPI(self.lowerer.context, builder, callconv.python_exception_keepalive)
        gil = pyapi.gil_ensure()
        test = pyapi.borrow_constant(callconv.python_exception_matches)
        answer = pyapi.call_function_objargs(test, [pyapi.borrow_constant(c) for c in classes])
        truth = pyapi.object_istrue(answer)
        pyapi.decref(answer)
        pyapi.gil_release(gil)
        builder.cbranch(builder.icmp_signed(">", truth, truth.type(0)), matched, unmatched)
        return case

    def _landing_pad(self, handler: int, live: set[str]) -> llvm.Block:
        """Take the raised record, release what variables dead in the handler own, enter it."""
        lowerer = self.lowerer
        builder = lowerer.builder
        pad = lowerer.function.append_basic_block(f"landing.B{handler}")
        builder.position_at_end(pad)
        record = builder.load(lowerer.function.args[1], typ=callconv.EXCINFO_TYPE)
        builder.store(record, self.caught)
        for name, slot in lowerer.slots.items():
            if name in live or name in lowerer.borrowed_args:
                continue
            typ = lowerer.typemap[name]
            if not refs.needs_refcount(typ):
                continue
            if lowerer.owns(name):  # (a lent method borrows its receiver's reference)
                refs.decref(builder, typ, builder.load(slot))
            # Emptied, as `del` leaves it: the next assignment releases the slot's old value.
            builder.store(llvm.Constant(lowerer.context.value_type(typ), None), slot)
        builder.branch(lowerer.llvm_blocks[handler])
        return pad

    def caught_exception(self) -> llvm.Value:
        builder = self.lowerer.builder
        record = builder.load(self.caught, typ=callconv.EXCINFO_TYPE)
        value = llvm.Constant(llvm.LiteralStructType([_ptr, _i32]), llvm.Undefined)
        value = builder.insert_value(value, builder.extract_value(record, 1), 0)
        return builder.insert_value(value, builder.extract_value(record, 0), 1)

    def match(self, exc_value: llvm.Value, classes: tuple[type, ...]) -> llvm.Value:
        builder = self.lowerer.builder
        function = self.lowerer.function
        matched = function.append_basic_block("except.match")
        unmatched = function.append_basic_block("except.nomatch")
        merge = function.append_basic_block("except.merge")
        switch = builder.switch(builder.extract_value(exc_value, 1), unmatched)
        self.switches.append((switch, matched, classes))
        for block in (matched, unmatched):
            builder.position_at_end(block)
            builder.branch(merge)
        builder.position_at_end(merge)
        result = builder.phi(_i1)
        result.add_incoming(llvm.Constant(_i1, 1), matched)
        result.add_incoming(llvm.Constant(_i1, 0), unmatched)
        return result

    def caught_args(self, exc_value: llvm.Value, result_type: types.BaseTuple) -> llvm.Value:
        """`e.args`: a switch on the id whose cases (filled at the end, one per table entry
        whose arguments fit `result_type`) rebuild the tuple; any other id raises."""
        lowerer = self.lowerer
        builder = lowerer.builder
        function = lowerer.function
        result_llvm = lowerer.context.value_type(result_type)
        result_slot = callconv.alloca_in_entry(builder, result_llvm)
        unknown = function.append_basic_block("args.unknown")
        merge = function.append_basic_block("args.merge")
        payload = builder.extract_value(exc_value, 0)
        switch = builder.switch(builder.extract_value(exc_value, 1), unknown)
        self.args_reads.append((switch, payload, result_slot, merge, result_type))
        builder.position_at_end(unknown)
        lowerer.context.raise_error(
            builder,
            TypeError,
            f"e.args of this exception cannot be read in compiled code as {result_type}: it "
            "was raised outside the try body (by a callee or the runtime) with other arguments",
        )
        builder.position_at_end(merge)
        return builder.load(result_slot, typ=result_llvm)  # (a generator's slot is opaque)

    def _args_case(self, payload, exc_args: tuple, result_type, result_slot, merge) -> llvm.Block:
        lowerer = self.lowerer
        builder = lowerer.builder
        case = lowerer.function.append_basic_block("args.case")
        builder.position_at_end(case)
        value = llvm.Constant(lowerer.context.value_type(result_type), llvm.Undefined)
        for index, (arg, member) in enumerate(zip(exc_args, result_type.types)):
            if isinstance(arg, callconv.PayloadSlot):
                item = _read_slot(lowerer, payload, arg, member)
            elif isinstance(member, types.UnicodeType):  # one of several constant messages
                literal = types.literal(arg)
                item = lowerer.context.get_constant(literal, arg)
                item = lowerer.context.cast(builder, item, literal, member)
            else:
                item = lowerer.context.get_constant(member, arg)
            value = builder.insert_value(value, item, index)
        builder.store(value, result_slot)
        builder.branch(merge)
        return case


_SLOT_TYPES = {"int": types.int64, "uint": types.uint64, "float": types.float64}


def _read_slot(lowerer: FunctionLowerer, payload, slot: callconv.PayloadSlot, member):
    builder = lowerer.builder
    offset = llvm.Constant(_i64, slot.index * callconv.PAYLOAD_SLOT_SIZE)
    address = builder.gep(nrt.emit_data_pointer(builder, payload), [offset], source_etype=_i8)
    if slot.kind == "bool":
        truth = builder.icmp_unsigned("!=", builder.load(address, typ=_i8), llvm.Constant(_i8, 0))
        return lowerer.context.cast(builder, truth, types.boolean, member)
    stored = _SLOT_TYPES[slot.kind]
    raw = builder.load(address, typ=lowerer.context.value_type(stored))
    return lowerer.context.cast(builder, raw, stored, member)


def _args_fit(exc_args: tuple, result_type: types.BaseTuple) -> bool:
    """Whether a table entry's arguments can be read as `result_type` without loss of kind."""
    if len(exc_args) != len(result_type):
        return False
    for arg, member in zip(exc_args, result_type.types):
        if isinstance(member, types.StringLiteral):
            fits = isinstance(arg, str) and arg == member.literal_value
        elif isinstance(member, types.UnicodeType):  # constant messages (typing/exceptions.py)
            fits = isinstance(arg, str)
        elif isinstance(member, types.NoneType):
            fits = arg is None
        elif isinstance(member, types.Boolean):
            fits = _kind_of(arg) == "bool"
        elif isinstance(member, types.Integer):
            fits = _kind_of(arg) in ("bool", "int", "uint")
        elif isinstance(member, (types.Float, types.Complex)):
            fits = _kind_of(arg) in ("bool", "int", "uint", "float")
        else:
            fits = False
        if not fits:
            return False
    return True


def _kind_of(arg: object) -> str | None:
    if isinstance(arg, callconv.PayloadSlot):
        return arg.kind
    if isinstance(arg, bool):
        return "bool"
    if isinstance(arg, int):
        return "int"
    if isinstance(arg, float):
        return "float"
    return None


def _route_raise(builder: llvm.IRBuilder, block: llvm.Block, landing_pad: llvm.Block) -> None:
    terminator = block.terminator
    if terminator is None or terminator.opname != "ret" or not terminator.operands:
        return
    status = terminator.operands[0]
    if not (isinstance(status, llvm.Constant) and status.constant == callconv.STATUS_EXCEPTION):
        return
    block.instructions.remove(terminator)
    block.terminator = None
    builder.position_at_end(block)
    builder.branch(landing_pad)


def lower_caught_exception(lowerer: FunctionLowerer, expr: ir.CaughtException, result_type):
    return lowerer.exception_routing.caught_exception()


def lower_exception_match(lowerer: FunctionLowerer, expr: ir.ExceptionMatch, result_type):
    """`except C:` / `except (C, D):`; a class chosen at run time (`except E:` after
    `E = ValueError if c else KeyError`) matches as the class its index selects."""
    classes_type = lowerer.typemap[expr.classes.name]
    routing, builder = lowerer.exception_routing, lowerer.builder
    exc_value, classes_value = lowerer.load(expr.exception), lowerer.load(expr.classes)
    if isinstance(classes_type, types.BaseTuple):
        members = [(m, builder.extract_value(classes_value, i)) for i, m in enumerate(classes_type)]
    else:
        members = [(classes_type, classes_value)]
    fixed = tuple(m.exc_class for m, _ in members if isinstance(m, types.ExceptionClass))
    result = routing.match(exc_value, fixed) if fixed else llvm.Constant(_i1, 0)
    for member, index in members:
        if isinstance(member, types.ExceptionClassChoice):
            each = [routing.match(exc_value, (exc_class,)) for exc_class in member.exc_classes]
            result = builder.or_(result, select_by_index(builder, index, each))
    return result
