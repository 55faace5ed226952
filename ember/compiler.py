"""The pipeline: one CompileState passed through named passes, from bytecode to machine code.

The runner times every pass (EMBER_TIMING, `Dispatcher.stats`), prints the debug dumps and
gives errors one line of context saying which compilation failed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import itertools
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType, FunctionType
from typing import Any

from ember import config, types
from ember import library_domains as library
from ember.codegen.symbols import ascii_symbol
from ember.errors import EmberError, ForceLiteralArg, TypingError
from ember.frontend.interpreter import UndefinedName
from ember.ir import nodes as ir
from ember.ir.printer import banner, dump_function
from ember.lowering.context import TargetOptions
from ember.misc import events
from ember.typing.functions import RecursionPending
from ember.typing.signature import Signature


@dataclass
class CompileState:
    """Everything one specialization's compilation reads and produces."""

    py_func: FunctionType
    arg_types: tuple
    declared_return: types.Type | None
    options: TargetOptions
    dispatcher: object = None  # the jitted function being compiled (its own name's value)
    bytecode: object = None
    cfg: object = None
    func_ir: object = None
    typing: object = None
    signature: Signature | None = None
    library: object = None
    symbol: str = ""
    inferer: object = None
    parallel_report: object = None  # what parallel=True did with each loop (ember/parallel/)
    timings: dict[str, float] = field(default_factory=dict)
    reported: bool = True  # listed by ember.compile_report() (not the annotated view's copies)
    for_caller: bool = False  # compiled to be linked into a caller: LLVM's pipeline waits


@dataclass
class CompileResult:
    """A finished specialization: its signature, native symbol and the library holding it."""

    signature: Signature
    symbol: str
    library: object
    func_ir: object
    typing: object
    timings: dict[str, float]
    py_func: FunctionType
    parallel_report: object = None
    from_cache: bool = False  # loaded from the disk cache: machine code only, no IR
    # loaded from the disk cache: the parameters whose arrays the code may write (None:
    # unknown), for the prange legality of callers (ember/parallel/array_hazards.py)
    written_params: frozenset | None = None

    @property
    def address(self) -> int:
        """The native function's address (machine code is generated on first request)."""
        return self.library.address_of(self.symbol)

    # Numba's names for what programs read from `f.overloads[sig]`.

    @functools.cached_property
    def entry_point(self) -> Callable:
        """A Python callable running this specialization alone (no dispatch, no compiling)."""
        from ember.dispatcher.pycall import make_invoker

        invoker = make_invoker(self.signature, self.address)
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):  # the function's own
            try:
                setattr(invoker, name, getattr(self.py_func, name))
            except (AttributeError, TypeError):  # a builtin invoker keeps its own
                pass
        return invoker

    @property
    def fndesc(self) -> FunctionDescription:
        return FunctionDescription(self.py_func, self.symbol, self.signature)

    @property
    def type_annotation(self) -> TypeAnnotation:
        """Prints as the source annotated with the types (`f.inspect_types()`'s text)."""
        return TypeAnnotation(self)

    @property
    def metadata(self) -> dict:
        found = {
            "pipeline_times": {"nopython": dict(self.timings)},
            "parfor_diagnostics": self.parallel_report,
            "timers": {  # Numba's: the time in the compiler, and the part spent in LLVM
                "compiler_lock": sum(self.timings.values()),
                "llvm_lock": sum(self.timings.get(p, 0.0) for p in _LLVM_PASSES),
            },
        }
        timings = getattr(self.library, "pass_timings", None)
        if timings is not None:  # config.LLVM_PASS_TIMINGS was on when it was compiled
            self.library.address_of(self.symbol)  # so that making machine code is included
            found["llvm_pass_timings"] = timings
        return found

    objectmode = False  # ember never falls back to object mode
    lifted = ()  # nor lifts loops out of one
    typing_error = None


@dataclass(frozen=True)
class FunctionDescription:
    """Numba's `FunctionDescriptor` fields of a specialization: names and types."""

    py_func: FunctionType
    llvm_func_name: str
    signature: Signature
    native = True

    @property
    def mangled_name(self) -> str:
        return self.llvm_func_name

    unique_name = mangled_name

    @property
    def qualname(self) -> str:
        return self.py_func.__qualname__

    @property
    def modname(self) -> str:
        return self.py_func.__module__

    @property
    def argtypes(self) -> tuple:
        return self.signature.args

    @property
    def restype(self) -> types.Type:
        return self.signature.return_type

    def __repr__(self) -> str:
        return f"<function descriptor {self.llvm_func_name!r}>"


@dataclass(frozen=True)
class TypeAnnotation:
    """The annotated source of one specialization, built when printed."""

    result: CompileResult

    @property
    def typemap(self) -> dict:
        """Numba's `type_annotation.typemap`: each variable's type by name (arguments keep
        their names; empty for a specialization loaded from the disk cache)."""
        typing = self.result.typing
        return {} if typing is None else dict(typing.typemap)

    @property
    def calltypes(self) -> dict:
        """Numba's `type_annotation.calltypes`: each call expression's signature."""
        typing = self.result.typing
        return {} if typing is None else dict(typing.calltypes)

    @property
    def blocks(self) -> dict:
        """Numba's `type_annotation.blocks`: the typed function's IR blocks by label."""
        func_ir = self.result.func_ir
        return {} if func_ir is None else func_ir.blocks

    def __str__(self) -> str:
        from ember.typing.annotate import annotate

        if self.result.func_ir is None:  # loaded from the disk cache: machine code only
            return f"# {self.result.py_func.__qualname__}: loaded from the cache, no IR kept"
        return annotate(self.result.func_ir, self.result.typing)


@dataclass
class CompileRecord:
    """One compilation as `ember.compile_report()` lists it (ember/annotate/report.py)."""

    qualname: str
    arg_types: tuple
    return_type: object
    timings: dict[str, float]
    symbol: str
    library: Callable[[], object]  # a weak reference: the report does not keep code alive
    cached: bool = False  # loaded from the disk cache rather than compiled


compile_log: list[CompileRecord] = []


def record_compilation(result: CompileResult, cached: bool = False) -> None:
    if config.TIMING and not compile_log:
        _report_at_exit()
    compile_log.append(
        CompileRecord(
            result.py_func.__qualname__,
            result.signature.args,
            result.signature.return_type,
            result.timings,
            result.symbol,
            weakref.ref(result.library),
            cached,
        )
    )


def _report_at_exit() -> None:
    import atexit

    from ember.annotate.report import print_report_at_exit

    atexit.register(print_report_at_exit)


# ------------------------------------------------------------------------------ passes

_CO_GENERATOR = 0x20  # a code flag: the function contains `yield`


def analyze_bytecode(state: CompileState) -> None:
    from ember.frontend.bytecode import ByteCode, uses_with_blocks

    if uses_with_blocks(state.py_func.__code__):
        _extract_objmode_blocks(state)
    state.bytecode = ByteCode(state.py_func)
    state.cfg = state.bytecode.control_flow_graph()
    if config.DUMP_CFG:
        print(state.cfg.dump(), end="")


def _extract_objmode_blocks(state: CompileState) -> None:
    """`with objmode(...)` blocks become calls of Python functions (ember/frontend/
    objmode_blocks.py, typed and lowered by ember/lowering/objmode.py)."""
    from ember.frontend.objmode_blocks import extract_objmode_blocks
    from ember.lowering.objmode import register_blocks

    owner = state.py_func
    state.py_func, blocks = extract_objmode_blocks(owner)
    register_blocks(blocks, owner)


def generate_ir(state: CompileState) -> None:
    from ember.frontend.interpreter import build_ir
    from ember.ir.liveness import insert_dels, strip_dels
    from ember.rewrites.unbound_locals import raise_unbound_reads
    from ember.rewrites.variable_webs import split_variable_webs

    state.func_ir = build_ir(state.bytecode, state.cfg, self_reference=state.dispatcher)
    if state.func_ir.makes_functions():
        from ember.frontend.inline_closures import inline_inner_functions
        from ember.stencils.inner_kernels import make_inner_stencils

        make_inner_stencils(state.func_ir, state.py_func.__globals__)
        inline_inner_functions(state.func_ir, _jitted_function_of)
    raise_unbound_reads(state.func_ir)  # reading an unassigned local raises, as in CPython
    split_variable_webs(state.func_ir)  # a variable rebound to another type: one name per web
    strip_dels(state.func_ir)  # the source's `del x` has done its work: liveness places dels
    insert_dels(state.func_ir)
    if config.DUMP_IR:
        print(banner(f"IR DUMP: {state.py_func.__qualname__}"))
        print(dump_function(state.func_ir))


def _jitted_function_of(value: object) -> FunctionType | dict | None:
    from ember.dispatcher.dispatcher import Dispatcher
    from ember.library.builtins.key_functions import BY_BUILTIN

    if isinstance(value, Dispatcher):
        return value.py_func
    try:
        return BY_BUILTIN.get(value)  # sorted(xs, key=lambda ...)
    except TypeError:  # an unhashable global
        return None


def rewrite_untyped(state: CompileState) -> None:
    from ember.rewrites.prune_none import prune_none_branches
    from ember.rewrites.registry import rewrite_registry

    rewrite_registry.apply("before-inference", state.func_ir)
    parallel = state.options.parallel
    if parallel is not None and parallel.prange:
        from ember.parallel.pndindex import rewrite_pndindex_loops

        rewrite_pndindex_loops(state.func_ir)  # pndindex loops become prange loops
    if prune_none_branches(state.func_ir, state.arg_types) and config.DUMP_IR:
        print(banner(f"IR AFTER PRUNING DECIDED BRANCHES: {state.py_func.__qualname__}"))
        print(dump_function(state.func_ir))
    _unroll_literal_loops(state)


def _unroll_literal_loops(state: CompileState, everywhere: bool = False) -> bool:
    """`for x in literal_unroll(t)` (or a plain `for` over a tuple whose members differ in
    type): one copy of the loop body per member of the tuple. `everywhere` (once typing
    failed): plain loops over tuples the function computes too. True if a loop unrolled."""
    from ember.misc.literal import literal_unroll
    from ember.rewrites.literal_unroll import may_loop_over_mixed_tuple

    namespace = state.py_func.__globals__
    code = state.py_func.__code__
    cells = zip(code.co_freevars, state.py_func.__closure__ or ())
    closure = {name: _cell_value(cell) for name, cell in cells}
    if not (
        everywhere
        or any(
            name == "literal_unroll" or closure.get(name, namespace.get(name)) is literal_unroll
            for code in _nested_codes(code)  # inner functions are inlined
            for name in code.co_names + code.co_freevars
        )
        or may_loop_over_mixed_tuple(state.func_ir, state.arg_types)
    ):
        return False
    from ember.rewrites.literal_unroll import unroll_literal_loops as unroll
    from ember.rewrites.prune_none import prune_none_branches

    def prune(func_ir, known):
        return prune_none_branches(func_ir, state.arg_types, known)

    return unroll(state.func_ir, _tolerant_typemap(state), prune, everywhere)


def _tolerant_typemap(state: CompileState):
    """func_ir -> the types an inference of it finds before it fails (for rewrites that
    need the types of some variables of a function that does not type yet)."""
    from ember.rewrites.literal_unroll import tolerant_typemap
    from ember.typing.context import TypingContext
    from ember.typing.infer import TypeInferer

    def make_inferer(func_ir):
        inferer = TypeInferer(
            TypingContext(), func_ir, state.arg_types, state.declared_return, state.options.locals
        )
        inferer.target_options = state.options
        return inferer

    return tolerant_typemap(make_inferer)


def _prune_by_inferred_types(state: CompileState, typemap_of) -> dict:
    """`match` cases and isinstance() tests decided by the type of a value the function
    computes (`case int(v):` of `y = x + 1`, `isinstance(a[i], complex)`), found by typing:
    pruned, the function types again. `typemap_of(func_ir)` gives the types; returns the
    subject types relied on (empty if none was)."""
    from ember.rewrites.prune_none import prune_by_inferred_types

    return prune_by_inferred_types(state.func_ir, state.arg_types, typemap_of)


def _pass_mixed_tuples_to_generator_expressions(state: CompileState) -> bool:
    """`sum(f(x) for x in t)` over a tuple of mixed types, found by typing: the generator
    expression gets the tuple (its loop unrolls), the function types again."""
    from ember.rewrites.literal_unroll import pass_mixed_tuples_to_generator_expressions

    return pass_mixed_tuples_to_generator_expressions(state.func_ir, _tolerant_typemap(state))


def _cell_value(cell) -> object:
    """A closure cell's value, None while it is empty (an inner function not yet defined)."""
    try:
        return cell.cell_contents
    except ValueError:
        return None


def _nested_codes(code: CodeType) -> list[CodeType]:
    """`code` and the code of the functions, lambdas and comprehensions defined inside it."""
    found = [code]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found += _nested_codes(const)
    return found


def infer_types(state: CompileState) -> None:
    from ember.typing.context import TypingContext
    from ember.typing.infer import TypeInferer

    generator = state.py_func.__code__.co_flags & _CO_GENERATOR
    if generator:
        from ember.typing.generators import generator_result

    def run_inference():
        inferer = TypeInferer(
            TypingContext(),
            state.func_ir,
            state.arg_types,
            state.declared_return,
            state.options.locals,
            returns_to_python=not state.for_caller,
        )
        inferer.target_options = state.options  # overload implementations compile with them
        state.inferer = inferer  # self-recursive calls read the return type inferred so far
        state.typing = inferer.infer()
        return inferer

    relied_on: dict = {}  # subject types a pruning decided isinstance()/match cases by
    with _noting_sent_values(state.func_ir if generator else None):
        inferer, first_error = _infer_with_retries(state, run_inference, relied_on)
    # branches typing decides that typed anyway still count for the types (`y // 2` of a
    # float in an `isinstance(y, int)` branch would make the result float): pruned too
    pruned = _prune_by_inferred_types(state, lambda _: state.typing.typemap)
    if pruned:
        relied_on.update(pruned)
        inferer = run_inference()
    _check_pruning_types(relied_on, state.typing.typemap, first_error)
    if generator:
        generator_result(state.py_func, state.arg_types, inferer, state.typing)
    state.signature = Signature(state.typing.return_type, state.arg_types)
    if not state.options.nrt:
        from ember.typing.no_runtime import check_returned_arrays

        check_returned_arrays(state.func_ir, inferer)
    if config.DUMP_ANNOTATION:
        from ember.typing.annotate import annotate

        print(annotate(state.func_ir, state.typing))


_TYPING_ATTEMPTS = 4  # typing, then a retry after each rewrite a failed typing asked for


def _infer_with_retries(state: CompileState, run_inference, relied_on: dict) -> tuple:
    """(inferer, the first typing error or None): a plain loop over a tuple of mixed types the
    function computes (`a.shape + (1.5,)`), or a branch typing can decide, is found by a
    failed typing: unrolled or pruned (the subject types it relied on go to `relied_on`),
    the function types again."""
    first_error = None
    for attempt in range(_TYPING_ATTEMPTS):
        try:
            return run_inference(), first_error
        except TypingError as error:
            if attempt == _TYPING_ATTEMPTS - 1:
                raise
            first_error = first_error or error
            pruned = {}
            if not (
                _unroll_literal_loops(state, everywhere=True)
                or (pruned := _prune_by_inferred_types(state, _tolerant_typemap(state)))
                or _pass_mixed_tuples_to_generator_expressions(state)
            ):
                raise
            relied_on.update(pruned)
    raise AssertionError("unreachable")


@contextlib.contextmanager
def _noting_sent_values(func_ir):
    """A generator whose `yield` expressions' values are used and whose typing fails: the
    error says that value is always None (nothing can be sent into a compiled generator)."""
    try:
        yield
    except TypingError as error:
        if func_ir is not None and _reads_yield_values(func_ir):
            error.msg += (
                "\n(the value of a `yield` expression is always None in compiled code: "
                "generator.send() is not supported; pass the values as arguments instead)"
            )
            error.args = (error._render(),)
        raise


def _reads_yield_values(func_ir) -> bool:
    results = {
        stmt.target.name
        for _, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Yield)
    }
    return any(
        var.name in results
        for _, stmt in func_ir.statements()
        if not isinstance(stmt, ir.Del)
        for var in stmt.sources()
    )


def _check_pruning_types(relied_on: dict, typemap: dict, error: Exception | None) -> None:
    """A pruning decided by a failed inference's types stands only if the final types
    agree (a variable typed before inference saw all its definitions may widen)."""
    for name, typ in relied_on.items():
        if name in typemap and types.unliteral(typemap[name]) != types.unliteral(typ):
            raise error or TypingError(f"the type of {name!r} changed after pruning branches")


def parallelize(state: CompileState) -> None:
    from ember.parallel.passes import parallelize as run_parallel_passes

    run_parallel_passes(state)


def rewrite_typed(state: CompileState) -> None:
    from ember.rewrites.edge_copies import copy_on_edges
    from ember.rewrites.loop_branches import reshape_loops
    from ember.rewrites.registry import rewrite_registry

    rewrite_registry.apply(
        "after-inference", state.func_ir, state.typing.typemap, state.typing.calltypes
    )
    if copy_on_edges(state.func_ir, state.typing.typemap) and config.DUMP_IR:
        print(banner(f"IR AFTER COPYING ON EDGES: {state.py_func.__qualname__}"))
        print(dump_function(state.func_ir))
    if reshape_loops(state.func_ir, state.typing.typemap) and config.DUMP_IR:
        print(banner(f"IR AFTER RESHAPING LOOPS: {state.py_func.__qualname__}"))
        print(dump_function(state.func_ir))


def lower_nopython(state: CompileState) -> None:
    from ember.codegen.library import CodeLibrary
    from ember.lowering.callconv import static_exceptions

    state.symbol = state.symbol or _symbol_name(state.py_func, state.arg_types)
    state.library = CodeLibrary(state.symbol)
    with static_exceptions.recording() as exception_ids:
        _lower_into_library(state)
    state.library.exception_ids = exception_ids


def _lower_into_library(state: CompileState) -> None:
    from ember.lowering.context import CPUContext
    from ember.lowering.lower import FunctionLowerer

    lowering = (
        state.library.module,
        state.func_ir,
        state.typing,
        state.signature,
        state.symbol,
    )
    if state.py_func.__code__.co_flags & _CO_GENERATOR:
        from ember.lowering.generators import lower_generator

        lowerer = lower_generator(CPUContext(state.options), *lowering, state.library)
    else:
        lowerer = FunctionLowerer(CPUContext(state.options), *lowering)
        lowerer.lower()
    state.library.export(state.symbol)
    for dependency in lowerer.dependencies:
        state.library.add_dependency(dependency)
    for compiling in lowerer.context.waiting_for:
        state.library.waiting_for.append(compiling)
        compiling.dependents.append(state.library)


def compile_machine_code(state: CompileState) -> None:
    if not state.for_caller:  # else done when a caller links it (see CodeLibrary.finalize)
        state.library.finalize()


PIPELINE: list[tuple[str, Callable[[CompileState], None]]] = [
    ("bytecode analysis", analyze_bytecode),
    ("IR generation", generate_ir),
    ("untyped rewrites", rewrite_untyped),
    ("type inference", infer_types),
    ("auto-parallelization", parallelize),
    ("typed rewrites", rewrite_typed),
    ("nopython lowering", lower_nopython),
    ("machine code", compile_machine_code),
]

# The passes that generate and optimize LLVM code (Numba's "llvm_lock" timer).
_LLVM_PASSES = ("nopython lowering", "machine code")

# Passes that run only when their predicate holds.
OPTIONAL_PASSES: dict[str, Callable[[CompileState], bool]] = {
    "auto-parallelization": lambda state: state.options.parallel is not None,
}

# ------------------------------------------------------------------------------ runner

_symbol_counter = itertools.count(1)


def _symbol_name(py_func: FunctionType, arg_types: tuple) -> str:
    args = ".".join(t.mangling for t in arg_types)
    name = f"{py_func.__module__}.{py_func.__qualname__}${next(_symbol_counter)}.{args}"
    return ascii_symbol(name)


def run_pipeline(state: CompileState) -> CompileResult:
    """Run every pass over `state`; failures carry one line naming what was being compiled."""
    with _collector_paused:
        _run_passes_with_whole_library_on_failure(state)
    if config.TIMING:
        print(format_timings(state))
    result = CompileResult(
        state.signature,
        state.symbol,
        state.library,
        state.func_ir,
        state.typing,
        state.timings,
        state.py_func,
        state.parallel_report,
    )
    if state.reported:
        record_compilation(result)
    return result


class _PausedCollector:
    """The cyclic garbage collector off while any thread compiles, back on after the last one.

    A compilation allocates objects by the hundred thousand (IR nodes, types, llvmlite values),
    nearly all alive until it ends; each automatic collection walks them again, so with the
    collector running, compile time grew faster than the function (800 blocks: 1.8x slower).
    Garbage made meanwhile is collected by the first collection after the compilation."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._was_enabled = False

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._depth += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._was_enabled:
                gc.enable()


_collector_paused = _PausedCollector()


def _run_passes_with_whole_library_on_failure(state: CompileState) -> None:
    """Run the passes; when they fail while some library domains are not registered yet (they
    are registered when a compilation first meets one of their types or globals: see
    ember/library_domains.py), register all of them and run the passes again from the start,
    so a domain that should have been registered but was not costs time, never a wrong error."""
    initial = dataclasses.replace(state)
    try:
        _run_passes(state)
    except (ForceLiteralArg, RecursionPending, UndefinedName):
        raise
    except EmberError:
        if not library.load_all():
            raise
        for member in dataclasses.fields(state):
            setattr(state, member.name, getattr(initial, member.name))
        state.timings = {}
        _run_passes(state)


def _run_passes(state: CompileState) -> None:
    for name, run_pass in PIPELINE:
        if name in OPTIONAL_PASSES and not OPTIONAL_PASSES[name](state):
            continue  # not run, not timed: serial functions list the same passes as before
        started = time.perf_counter()
        try:
            with _pass_event(state, name):
                run_pass(state)
        except EmberError as error:
            argtypes = ", ".join(str(t) for t in state.arg_types)
            context = f"Compiling {state.py_func.__qualname__}({argtypes}) failed in {name}:"
            raise error.with_context(context) from None
        state.timings[name] = time.perf_counter() - started
        if config.VERIFY_IR and state.func_ir is not None:
            _verify(state, name)


def _pass_event(state: CompileState, name: str) -> Any:
    """The "numba:run_pass" events of one pass (ember.core.event), when anyone listens."""
    if "numba:run_pass" not in events._registered:
        return contextlib.nullcontext()
    data = {
        "name": name,
        "qualname": state.py_func.__qualname__,
        "module": state.py_func.__module__,
        "flags": repr(state.options),
        "args": str(state.arg_types),
        "return_type": str(state.declared_return),
    }
    return events.trigger_event("numba:run_pass", data)


def _verify(state: CompileState, after_pass: str) -> None:
    from ember.ir.verify import verify_function

    typemap = state.typing.typemap if state.typing is not None else None
    try:
        verify_function(state.func_ir, typemap)
    except EmberError as error:
        raise error.with_context(f"IR verification failed after {after_pass}:") from None


def format_timings(state: CompileState) -> str:
    total = sum(state.timings.values())
    args = ", ".join(str(t) for t in state.arg_types)
    header = f"{state.py_func.__qualname__}({args}) -> {state.signature.return_type}"
    lines = [f"ember timing: {header} {total * 1e3:.2f} ms"]
    lines += [f"  {name:<20} {seconds * 1e3:8.3f} ms" for name, seconds in state.timings.items()]
    return "\n".join(lines)
