"""Stage 7: the process-wide LLVM JIT: host target machine, O3 pipeline (O1 for huge functions)
and MCJIT engine.

llvmlite is imported here, lazily, on the first compilation, so `import ember` stays cheap.
"""

from __future__ import annotations

import threading
from functools import cached_property

import llvmlite.binding as llvm_binding

from ember import config
from ember.lowering import stack_check

# A loop whose body may raise (int(x) of a NaN, a bounds check) has a second exit; without
# -unroll-runtime-multi-exit LLVM will not unroll it at all (histogram: 1.4x slower).
# A float sum (`s += x[i] ** 3`) may vectorize its body and still add in order (an ordered
# reduction: the same result as Python's loop); LLVM allows that on x86 only when asked
# (-force-ordered-reductions), and its cost model still decides (sixth_power_sum: 4.3x -> 1.0x
# Numba), but a sum of gathered items or of math calls made lane by lane runs faster scalar:
# such a module is optimized again with those loops not vectorized
# (ember/codegen/ordered_reductions). Not with EMBER_DEBUGINFO: such loops lose the
# line tables gdb and perf read.
_PIPELINE_OPTIONS = ("-unroll-runtime-multi-exit", "-force-ordered-reductions")


def _pipeline_options(ordered_reductions: bool) -> tuple[str, ...]:
    ordered = ordered_reductions and not config.DEBUGINFO
    return _PIPELINE_OPTIONS if ordered else _PIPELINE_OPTIONS[:1]


class JITEngine:
    """Owns the target machine and execution engine; turns LLVM modules into machine code."""

    def __init__(self, opt_level: int = config.OPT_LEVEL) -> None:
        self.opt_level = opt_level
        llvm_binding.initialize_native_target()
        llvm_binding.initialize_native_asmprinter()
        llvm_binding.initialize_native_asmparser()  # inline assembly (the stack-depth check)
        target = llvm_binding.Target.from_default_triple()
        self.target_machine = target.create_target_machine(
            cpu=llvm_binding.get_host_cpu_name(),
            features=llvm_binding.get_host_cpu_features().flatten(),
            opt=opt_level,
            codemodel="jitdefault",
        )
        self.triple = llvm_binding.get_process_triple()
        self.data_layout = str(self.target_machine.target_data)
        self.engine = llvm_binding.create_mcjit_compiler(
            llvm_binding.parse_assembly(""), self.target_machine
        )
        self.lock = threading.RLock()
        self.perf_map = _perf_map(self.engine) if config.PERF_MAP else None
        stack_check.publish_symbols()  # before any module (compiled now or loaded) links

    def _make_pass_builder(self, speed_level: int, loop_transforms: bool = True, slp: bool = True):
        """A new builder for each module: llvmlite's builder keeps what every run registers on
        it, so a reused one runs slower with each module it has optimized (3 ms a tiny module
        at first, 13 ms after 1,200; a test worker optimizes thousands). Making one costs
        about 10 microseconds."""
        tuning = llvm_binding.create_pipeline_tuning_options(speed_level)
        tuning.loop_vectorization = loop_transforms
        tuning.slp_vectorization = loop_transforms and slp
        tuning.loop_unrolling = loop_transforms
        return llvm_binding.create_pass_builder(self.target_machine, tuning)

    def parse(self, llvm_ir: str) -> llvm_binding.ModuleRef:
        module = llvm_binding.parse_assembly(llvm_ir)
        module.triple = self.triple
        module.data_layout = self.data_layout
        return module

    @cached_property
    def _reference_pruning(self) -> llvm_binding.ModulePassManager:
        """llvmlite's pass removing NRT_incref/NRT_decref pairs that cancel (in a block, in
        diamonds and fan-outs), run after inlining has put each callee's pairs next to its
        caller's: a list append in a loop then costs no atomic operation."""
        manager = llvm_binding.ModulePassManager()
        subpasses = llvm_binding.RefPruneSubpasses
        manager.add_refprune_pass(subpasses.PER_BB | subpasses.DIAMOND | subpasses.FANOUT)
        return manager

    def optimize(
        self,
        module: llvm_binding.ModuleRef,
        instructions: int = 0,
        ordered_reductions: bool = True,
        slp: bool = True,
    ) -> str:
        """Run the optimization pipeline: this engine's level, or O1 when the function being
        compiled has more than `config.LARGE_FUNCTION` instructions; float sums vectorized in
        order unless `ordered_reductions` is False (ember/codegen/ordered_reductions); straight-
        line code vectorized (SLP) unless `slp` is False (ember/codegen/slp_guard). Returns
        LLVM's report of the passes' times when `config.LLVM_PASS_TIMINGS` is on (else "")."""
        # O1 (still with inlining, loop vectorization and unrolling) for huge functions: on a
        # generated function of 800 `if` blocks (30,000 instructions), O3 spends 40% of its
        # time in correlated value propagation, whose cost grows faster than the function
        # (7x from 200 to 800 blocks); O1 leaves it and the other O2+ passes out and takes
        # half the time of O3.
        large = instructions > config.LARGE_FUNCTION
        level = min(self.opt_level, 1) if large else self.opt_level
        options = _pipeline_options(ordered_reductions)
        return self._run(module, self._make_pass_builder(level, slp=slp), options)

    def simplify(self, module: llvm_binding.ModuleRef) -> None:
        """The cheap pipeline for a callee that callers will link and optimize again."""
        # O1 without vectorization or unrolling: it shrinks the callee as the caller's inliner
        # needs, and leaves the loop transforms to the caller's pipeline, which sees the
        # callee's loops in their context.
        self._run(module, self._make_pass_builder(min(self.opt_level, 1), loop_transforms=False))

    def _run(self, module: llvm_binding.ModuleRef, builder, options: tuple[str, ...] = ()) -> str:
        """`builder`'s pipeline, with LLVM's `options` on, then the pruning of reference counts
        that cancel; LLVM's timing report of the pipeline when `config.LLVM_PASS_TIMINGS` is on.
        """
        timed = config.LLVM_PASS_TIMINGS
        with self.lock:
            if timed:
                builder.start_pass_timing()
            # LLVM's options are global to the process: on for ember's pipeline only, so that
            # another llvmlite compiler in the process (Numba) keeps its own code (kmeans_assign
            # under Numba ran 0.39-0.42 ms alone, 0.29 ms with ember's options left on).
            for option in options:
                llvm_binding.set_option("ember", option)
            try:
                builder.getModulePassManager().run(module, builder)
            finally:
                for option in options:
                    llvm_binding.set_option("ember", f"{option}=false")
            report = builder.finish_pass_timing() if timed else ""
            self._reference_pruning.run(module, builder)
        return report

    def add_module(self, module: llvm_binding.ModuleRef, instructions: int = 0) -> None:
        """Generate machine code for `module`. For a function of more than
        `config.LARGE_FUNCTION` instructions, without machine-level common subexpression
        elimination: its cost grows with the square of the function (800 `if` blocks: 40% of
        code generation, 38x the time of 200 blocks), and the IR passes did the same already.
        The option is global to LLVM and read when the code generator is set up, so it is
        turned on for this module only, under the engine's lock."""
        large = instructions > config.LARGE_FUNCTION
        with self.lock:
            self.engine.add_module(module)
            if large:
                llvm_binding.set_option("ember", "-disable-machine-cse")
            try:
                self.engine.finalize_object()
            finally:
                if large:
                    llvm_binding.set_option("ember", "-disable-machine-cse=false")
            if self.perf_map is not None:
                self.perf_map.write_loaded(self.address_of)

    def add_object_code(self, data: bytes) -> None:
        """Load a relocatable object file (from the disk cache) and resolve its symbols."""
        with self.lock:
            self.engine.add_object_file(llvm_binding.ObjectFileRef.from_data(data))
            self.engine.finalize_object()

    def object_code(self, module: llvm_binding.ModuleRef) -> bytes:
        with self.lock:
            return self.target_machine.emit_object(module)

    def address_of(self, symbol: str) -> int:
        return self.engine.get_function_address(symbol)

    def assembly(self, module: llvm_binding.ModuleRef) -> str:
        return self.target_machine.emit_assembly(module)


def _perf_map(engine):
    from ember.codegen.perfmap import PerfMap

    perf_map = PerfMap()
    perf_map.attach(engine)
    return perf_map


_engines: dict[str, JITEngine] = {}
_engine_lock = threading.Lock()


def engine() -> JITEngine:
    """The shared JIT engine for compiled functions (O3 by default), created on first use."""
    return _engine_named("functions", config.OPT_LEVEL)


def glue_engine() -> JITEngine:
    """A JIT engine with the fastest code generation, for small generated glue (the native
    call entries): their code is simple, so an optimizing backend costs ~5 ms for no gain."""
    return _engine_named("glue", 0)


def _engine_named(name: str, opt_level: int) -> JITEngine:
    found = _engines.get(name)
    if found is None:
        with _engine_lock:
            found = _engines.get(name)
            if found is None:
                found = _engines[name] = JITEngine(opt_level)
    return found
