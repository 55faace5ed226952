"""A compiled unit: one LLVM module plus the libraries it calls, linked, optimized and JIT-ed.

Callees are linked into the caller's module (as internal copies) so LLVM can inline them.
"""

from __future__ import annotations

import time
from functools import cached_property

from llvmlite import ir as llvm

from ember import config
from ember.codegen.jit import engine
from ember.codegen.ordered_reductions import losing_loops, sums_gathered_items, tag_loops
from ember.codegen.pass_timings import PassTimings
from ember.codegen.recursion_unrolling import unroll_self_recursion
from ember.codegen.slp_guard import packs_loop_counters, selects_alternate_compares
from ember.errors import CompilerError
from ember.ir.printer import banner

_SECOND_ROUND = "ember.optimize_twice"


def request_second_round(module: llvm.Module) -> None:
    """Ask for the optimization pipeline to run twice over `module`: a loop that inlines a
    generator's resume function takes its final shape only once the first round has threaded
    the resume's state machine, too late for that round to keep the state in registers."""
    if _SECOND_ROUND not in module.namedmetadata:
        module.add_named_metadata(_SECOND_ROUND)


class CodeLibrary:
    """Collects an LLVM module and its dependencies; `finalize()` makes machine code."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.module = llvm.Module(name=name)
        jit = engine()
        self.module.triple = jit.triple
        self.module.data_layout = jit.data_layout
        self.dependencies: list[CodeLibrary] = []
        self.exported: set[str] = set()
        # Functions that were still being compiled when this one called them (mutual
        # recursion): their machine code is found by symbol, so it must exist first.
        self.waiting_for: list = []
        self.broken: str | None = None
        self.exception_ids: set[int] = set()  # static exceptions its own code raises
        self._linkable = None  # optimized, callees linked: for machine code and the disk cache
        self._for_callers = None  # simplified, callees linked: what callers link
        self._pending_module = None
        self.llvm_ir = ""
        self.finalized = False
        self.codegen_seconds: float | None = None  # machine code is made on first need
        self.instructions = 0  # LLVM instructions of its own functions, counted by finalize()
        self.optimize_twice = False  # set by finalize(): see request_second_round
        self.slp = True  # straight-line vectorization (off again when it packs min with max)
        self.pass_timings = PassTimings(name) if config.LLVM_PASS_TIMINGS else None

    def add_dependency(self, library: CodeLibrary) -> None:
        if library is not self and library not in self.dependencies:
            self.dependencies.append(library)

    def export(self, symbol: str) -> None:
        self.exported.add(symbol)

    def finalize(self) -> None:
        """Link, verify and optimize the module, once. A compilation for a caller defers it
        (ember/compiler.py): a library that is only typed against, such as the copy of an
        overload compiled for the typing of a call and then compiled again for the caller's
        options, never pays for LLVM's pipeline; linking or calling it finalizes it first."""
        if self.finalized:
            return
        with engine().lock:  # the first call from Python may race a compilation linking it
            if not self.finalized:
                self._optimize()

    def _optimize(self) -> None:
        jit = engine()
        module = self._parsed_and_linked()
        self.instructions = self._instruction_count()  # the pipelines' choice (ember/codegen/jit)
        self.optimize_twice = any(
            _SECOND_ROUND in library.module.namedmetadata for library in self.linked_libraries()
        )
        self._run_pipelines(module, ordered_reductions=True)
        if self.slp and (selects_alternate_compares(module) or packs_loop_counters(module)):
            # (min and max, or loop counters, packed together: see slp_guard)
            self.slp = False
            module = self._parsed_and_linked()
            self._run_pipelines(module, ordered_reductions=True)
        if sums_gathered_items(module):  # a float sum vectorized at a loss
            module = self._optimized_losing_sums_scalar()
        module = unroll_self_recursion(jit, module)
        self._linkable = module.clone()
        self._for_callers = None  # callers link the optimized module from now on
        self._pending_module = module
        self.finalized = True  # before the dumps, which read the finalized library
        if config.DUMP_OPTIMIZED:
            print(banner(f"OPTIMIZED DUMP {self.name}"), self.optimized_ir, "=" * 80, sep="\n")
        if config.DUMP_ASSEMBLY:
            print(banner(f"ASSEMBLY {self.name}"), self.assembly, "=" * 80, sep="\n")

    def _optimized_losing_sums_scalar(self):
        """The module optimized again from the start, the loops whose float sums vectorized at
        a loss not vectorized, the others as before (ember/codegen/ordered_reductions); every
        float sum scalar when those loops cannot be told apart."""
        jit = engine()
        tagged = tag_loops(str(self._parsed_and_linked()))
        module = jit.parse(tagged.text)
        self._run_pipelines(module, ordered_reductions=True)
        losers = losing_loops(module)
        if losers:
            module = jit.parse(tagged.without_vectorization(losers))
            self._run_pipelines(module, ordered_reductions=True)
        if losers is None or sums_gathered_items(module):
            module = self._parsed_and_linked()
            self._run_pipelines(module, ordered_reductions=False)
        return module

    def _run_pipelines(self, module, ordered_reductions: bool) -> None:
        optimize = engine().optimize
        args = (module, self.instructions, ordered_reductions, self.slp)
        full = "full optimization" if ordered_reductions else "again, float sums scalar"
        self._timed(f"Module passes ({full})", optimize, *args)
        if self.optimize_twice:  # (a generator made here may be consumed by a callee)
            self._timed("Module passes (second round)", optimize, *args)

    def _timed(self, stage: str, run_pipeline, *args) -> None:
        started = time.perf_counter()
        report = run_pipeline(*args)
        if self.pass_timings is not None:
            self.pass_timings.record(stage, time.perf_counter() - started, report)

    def _instruction_count(self) -> int:
        """Instructions of this library's own functions (not yet optimized, callees apart)."""
        return sum(
            len(block.instructions)
            for function in self.module.functions
            for block in function.blocks
        )

    @property
    def has_machine_code(self) -> bool:
        """Whether the native code exists already (asking for an address costs no LLVM work)."""
        return self.finalized and self._pending_module is None

    def _ensure_machine_code(self) -> None:
        """Generate machine code on first need: code that is only ever inlined into callers
        (library overloads, helpers) never pays for it."""
        self.finalize()
        if self._pending_module is None:
            return
        for library in self._libraries_called_by_symbol():
            library._ensure_machine_code()
        jit = engine()
        with jit.lock:
            if self._pending_module is not None:
                started = time.perf_counter()
                jit.add_module(self._pending_module, self.instructions)
                self.codegen_seconds = time.perf_counter() - started  # ember.compile_report
                if self.pass_timings is not None:
                    self.pass_timings.record("Finalize object", self.codegen_seconds)
                self._pending_module = None

    def _libraries_called_by_symbol(self) -> list[CodeLibrary]:
        """Libraries of mutually recursive callees, here or in linked dependencies."""
        found: list[CodeLibrary] = []
        pending, seen = [self], set()
        while pending:
            library = pending.pop()
            if id(library) in seen:
                continue
            seen.add(id(library))
            if library.broken is not None:
                raise CompilerError(library.broken)
            for compiling in library.waiting_for:
                if compiling.library is None:
                    raise CompilerError(f"{compiling.symbol} is still being compiled")
                found.append(compiling.library)
            pending += library.dependencies
        return [library for library in found if library is not self]

    def _parsed_and_linked(self):
        """This module parsed, verified, with its callees' linkable modules linked in."""
        if not self.llvm_ir:
            self.llvm_ir = str(self.module)
            if config.DUMP_LLVM:
                print(banner(f"LLVM DUMP {self.name}"), self.llvm_ir, "=" * 80, sep="\n")
        module = engine().parse(self.llvm_ir)
        self._link_dependencies(module)
        module.verify()
        return module

    def _linkable_for_callers(self):
        """The module a caller links: the optimized one when this library was finalized, else
        one only simplified (ember/codegen/jit), since the caller's pipeline optimizes the
        callee again anyway. A library only ever linked (an overload's implementation, a
        helper) so skips a full pipeline: a third of the compile-heavy tests' time."""
        if self.finalized:
            return self._linkable
        if self._for_callers is None:
            module = self._parsed_and_linked()
            engine().simplify(module)
            self._for_callers = unroll_self_recursion(engine(), module)
        return self._for_callers

    def _link_dependencies(self, module) -> None:
        linked: set[str] = set()
        for library in self.dependencies:  # each already carries copies of its own callees
            copy = library._linkable_for_callers().clone()
            linked.update(f.name for f in copy.functions if not f.is_declaration)
            module.link_in(copy)
        for function in module.functions:
            if function.name in linked and function.name not in self.exported:
                function.linkage = "private"  # no symbol: never found by name

    def address_of(self, symbol: str) -> int:
        self._ensure_machine_code()
        return engine().address_of(symbol)

    # ------------------------------------------------------------------ for the disk cache

    def linked_libraries(self) -> list[CodeLibrary]:
        """This library and every library linked into it, transitively."""
        found, pending = {}, [self]
        while pending:
            library = pending.pop()
            if id(library) not in found:
                found[id(library)] = library
                pending += library.dependencies
        return list(found.values())

    def object_code(self) -> bytes:
        """The optimized module (callees linked in) as a relocatable object file."""
        self.finalize()
        return engine().object_code(self._linkable.clone())

    def external_symbols(self) -> list[str]:
        """Names the machine code needs from outside (runtime, C-API, libm...)."""
        self.finalize()
        module = self._linkable
        names = [f.name for f in module.functions if f.is_declaration]
        names += [g.name for g in module.global_variables if g.is_declaration]
        return sorted(name for name in names if not name.startswith("llvm."))

    @cached_property
    def optimized_ir(self) -> str:
        self.finalize()
        return str(self._linkable)

    @cached_property
    def assembly(self) -> str:
        self.finalize()
        return engine().assembly(self._linkable.clone())

    def get_llvm_str(self) -> str:
        """Numba's name for `optimized_ir`."""
        return self.optimized_ir

    def get_asm_str(self) -> str:
        """Numba's name for `assembly`."""
        return self.assembly
