"""The CPU target context: what lowering asks about types, constants, casts and implementations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import LoweringError
from ember.lowering import callconv, stack_check
from ember.lowering.context_numba import NumbaContextMixin
from ember.lowering.models import model_of
from ember.lowering.registry import registry
from ember.parallel.options import ParallelOptions
from ember.typing.context import PLAIN_NUMBER_TYPES
from ember.typing.signature import Signature

FASTMATH_FLAGS = frozenset({"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})


def fastmath_option(value: Any) -> bool | frozenset:
    """`fastmath=` as users give it (a bool, a set of LLVM flags, or a dict of flag: bool) as
    the value TargetOptions keeps; ValueError for anything else."""
    if isinstance(value, bool) or value is None or type(value).__name__ == "bool_":  # np.bool_
        return bool(value)
    if not isinstance(value, (set, frozenset, dict)):
        raise ValueError(
            f"Expected fastmath option(s) to be either a bool, dict or set, not {value!r}"
        )
    unknown = set(value) - FASTMATH_FLAGS
    if unknown:
        raise ValueError(
            f"Unrecognized fastmath flags: {sorted(unknown)}; LLVM's flags are "
            f"{sorted(FASTMATH_FLAGS)}"
        )
    if isinstance(value, dict):
        return frozenset(flag for flag, wanted in value.items() if wanted)
    return frozenset(value)


LLVM_INLINE_ATTRIBUTES = {"auto": None, "never": "noinline", "always": "alwaysinline"}


def llvm_inline_option(value: str) -> str:
    """`value` of the `_llvm_inline` jit option, checked."""
    if value not in LLVM_INLINE_ATTRIBUTES:
        choices = ", ".join(sorted(LLVM_INLINE_ATTRIBUTES))
        raise ValueError(f"_llvm_inline must be one of {choices}, not {value!r}")
    return value


def error_model_option(value: str) -> str:
    """`@jit(error_model=...)`: 'python' (raise) or 'numpy' (inf/nan, no checks)."""
    if value not in ("python", "numpy"):
        raise ValueError(f"error_model must be 'python' or 'numpy', not {value!r}")
    return value


@dataclass(frozen=True)
class TargetOptions:
    """The per-function options users pass to `@jit` that change generated code."""

    error_model: str = "python"
    fastmath: bool | frozenset = False
    boundscheck: bool = False
    nogil: bool = False
    parallel: ParallelOptions | None = None  # None: serial (prange runs as range)
    debug: bool = False  # DWARF line tables (ember/codegen/debuginfo.py)
    locals: tuple = ()  # (variable name, declared type) pairs from `@jit(locals={...})`
    nrt: bool = True  # False (`_nrt=False`): Numba's rule without its runtime (no_runtime.py)
    # ember's own helpers only (never inherited by the overloads they call): "never" keeps a
    # rarely run slow path (a generator's refill loop) out of its callers, so they stay small
    # enough to inline; "always" inlines a library entry point (a random draw) whatever LLVM's
    # cost model says, so what it looks up once per call (the thread's state row) is hoisted
    # out of the caller's loop. "auto": LLVM decides.
    llvm_inline: str = "auto"

    @property
    def fastmath_flags(self) -> tuple[str, ...]:
        if self.fastmath is True:
            return ("fast",)
        if not self.fastmath:
            return ()
        return tuple(sorted(self.fastmath))


class CPUContext(NumbaContextMixin):
    """Target facts for the host CPU plus access to the lowering registry."""

    deferred_checks = None  # the function being lowered's DeferredChecks, if it defers any

    def __init__(self, options: TargetOptions | None = None) -> None:
        _load_implementations()
        self.options = options or TargetOptions()
        self.registry = registry
        self.dependencies: list = []  # libraries whose code this function calls
        self.waiting_for: list = []  # functions still being compiled that it calls (recursion)
        # public symbol -> body, for recursive functions lowered behind an unwinding entry
        self.recursion_bodies: dict[str, llvm.Function] = {}
        # function -> the IR block being lowered in it (set by the lowerer), and the blocks
        # whose stack check is emitted: one check covers the block's later recursive calls,
        # made from the same frame at the same stack depth
        self.block_in_progress: dict[llvm.Function, int] = {}
        self._stack_checked: set[tuple] = set()
        self._implementations: dict[tuple, Any] = {}  # see find_implementation

    # ------------------------------------------------------------------ types and constants

    def value_type(self, typ: types.Type) -> llvm.Type:
        return model_of(typ).value_type

    def data_type(self, typ: types.Type) -> llvm.Type:
        return model_of(typ).data_type

    # Numba's spellings, used by extension code (`@lower_cast`, `@intrinsic` codegen).
    get_value_type = value_type
    get_data_type = data_type
    get_argument_type = value_type  # ember passes every value as its value type
    get_return_type = value_type

    def get_data_model(self, typ: types.Type) -> Any:
        return model_of(typ)

    def get_constant(self, typ: types.Type, value: Any) -> llvm.Value:
        """An LLVM constant of `typ` holding the Python `value`."""
        if isinstance(typ, types.Dummy):  # a literal string has no runtime data
            return llvm.Constant(self.value_type(typ), None)
        typ = types.unliteral(typ)
        if isinstance(typ, types.Boolean):
            return llvm.Constant(llvm.IntType(1), int(bool(value)))
        if isinstance(typ, types.Integer):
            bits = int(value) & ((1 << typ.bitwidth) - 1)
            if typ.signed and bits >> (typ.bitwidth - 1):
                bits -= 1 << typ.bitwidth  # spelled as LLVM prints it: i32 -1
            return llvm.Constant(self.value_type(typ), bits)
        if isinstance(typ, types.Float):
            return llvm.Constant(self.value_type(typ), float(value))
        if isinstance(typ, types.Complex):
            value = complex(value)
            part = typ.underlying_float
            return llvm.Constant.literal_struct(
                [self.get_constant(part, value.real), self.get_constant(part, value.imag)]
            )
        if isinstance(typ, types.BaseTuple):
            return llvm.Constant.literal_struct(
                [self.get_constant(t, v) for t, v in zip(typ.types, value)]
            )
        if isinstance(typ, (types.NoneType, types.Dummy)):
            return llvm.Constant(self.value_type(typ), None)
        if isinstance(typ, types.SliceType):  # a frozen slice: (start, stop, step) as passed in
            from ember.library.builtins.slices import native_slice_parts

            return llvm.Constant.literal_struct(
                [self.get_constant(types.int64, part) for part in native_slice_parts(value)]
            )
        if isinstance(typ, types.Optional):  # None: zeroed and not valid
            if value is None:
                return llvm.Constant(self.value_type(typ), None)
            return llvm.Constant.literal_struct(
                [self.get_constant(typ.type, value), llvm.Constant(llvm.IntType(1), 1)]
            )
        raise LoweringError(f"cannot make a constant of type {typ} from {value!r}")

    def get_dummy_value(self, typ: types.Type | None = None) -> llvm.Value:
        """The value of a type without data (Numba's spelling takes no type: a null pointer)."""
        if typ is None:
            return llvm.Constant(llvm.PointerType(), None)
        return llvm.Constant(self.value_type(typ), None)

    # ------------------------------------------------------------------ conversions

    def cast(self, builder: llvm.IRBuilder, value, from_type: types.Type, to_type: types.Type):
        """Convert `value` from one type to another (the one home of conversion code)."""
        if from_type is to_type:
            return value
        if types.is_numpy_scalar(from_type) or types.is_numpy_scalar(to_type):
            from_type, to_type = types.plain_number(from_type), types.plain_number(to_type)
            if from_type is to_type:  # np.int64 and int64 hold the same value
                return value
        impl = self.registry.find_cast(from_type, to_type)
        if impl is None:
            raise LoweringError(f"no conversion from {from_type} to {to_type}")
        return impl(self, builder, from_type, to_type, value)

    def is_true(self, builder: llvm.IRBuilder, typ: types.Type, value) -> llvm.Value:
        """Python truthiness of `value` as an i1."""
        return self.cast(builder, value, typ, types.boolean)

    # ------------------------------------------------------------------ implementations

    def find_implementation(self, key: Any, sig: Signature):
        """The registered `impl(context, builder, sig, args)` of `key` for `sig` (on plain
        numbers, searched once per key and argument types: a long function repeats them)."""
        if all(type(t) in PLAIN_NUMBER_TYPES for t in sig.args):
            try:
                memo = (key, sig.args, len(self.registry.functions.get(key, ())))
                impl = self._implementations.get(memo)
            except TypeError:  # an unhashable key
                memo = impl = None
            if impl is None:
                impl = self.registry.find_function(key, sig.args)
                if memo is not None and impl is not None:
                    self._implementations[memo] = impl
        else:
            impl = self.registry.find_function(key, sig.args)
        if impl is None:
            name = getattr(key, "__name__", key)
            raise LoweringError(f"no implementation of {name} for {sig}")
        return impl

    def get_function(self, key: Any, sig: Signature):
        """Numba's spelling: a callable `impl(builder, args)` lowering `key` for `sig`."""
        impl = self.find_implementation(key, sig)
        return lambda builder, args: impl(self, builder, sig, list(args))

    def call_implementation(self, builder, key: Any, sig: Signature, args: list):
        value = self.find_implementation(key, sig)(self, builder, sig, args)
        if sig.return_type is types.none and isinstance(value.type, llvm.PointerType):
            # Numba's `get_dummy_value()` (a null pointer) from an extension returning None
            return self.get_dummy_value(types.none)
        return value

    def call_compiled(self, builder: llvm.IRBuilder, target: Any, args: list) -> llvm.Value:
        """Call another compiled function (a CompileResult) with values already of its
        argument types; its exception, if any, propagates out of the current function."""
        if target.library is not None and target.library not in self.dependencies:
            self.dependencies.append(target.library)
        elif target.library is None:  # still being compiled: the call closes a recursion cycle
            self._check_stack_before_recursing(builder, target)
        callee = self.recursion_bodies.get(target.symbol)
        if callee is None:
            fnty = callconv.function_type(target.signature)
            callee = self.declare_function(builder.module, target.symbol, fnty)
        # A local exception slot (copied out only on error) keeps the caller's excinfo
        # pointer out of the callee's arguments, which frees a register in recursive code.
        local_excinfo = callconv.alloca_in_entry(builder, callconv.EXCINFO_TYPE, name="callee.exc")
        is_error, result = callconv.call(builder, callee, target.signature, args, local_excinfo)
        with builder.if_then(is_error, likely=False):
            record = builder.load(local_excinfo, typ=callconv.EXCINFO_TYPE)
            callconv.return_exception_record(builder, builder.function, record)
        return result

    def _check_stack_before_recursing(self, builder: llvm.IRBuilder, target: Any) -> None:
        # At the call rather than on entry, so a recursion's base case needs no stack frame.
        unwinding = builder.function in self.recursion_bodies.values()
        if target.symbol != builder.function.name and target.symbol not in self.recursion_bodies:
            self.waiting_for.append(target)  # mutual recursion: linked when it is done
        block = (builder.function, self.block_in_progress.get(builder.function))
        if block in self._stack_checked:
            return
        if block[1] is not None:
            self._stack_checked.add(block)
        callee = target.state.py_func.__qualname__
        stack_check.emit_check(self, builder, callee, unwinding)

    def raise_error(
        self,
        builder: llvm.IRBuilder,
        exc_class: type,
        *exc_args: Any,
        site: callconv.RaiseSite | None = None,
    ) -> None:
        """Emit a static raise from the current native function (after raising a deferred
        check's failure, which happened first, if there is one); `site`: the `raise` statement
        it stands for, shown as the traceback's last frame."""
        deferred = self.deferred_checks
        if deferred is not None and deferred.raises_first(builder):
            deferred.raise_pending(builder)
        exc_id = callconv.static_exceptions.register(exc_class, exc_args, site)
        callconv.return_exception(builder, builder.function, exc_id)

    def guard(self, builder: llvm.IRBuilder, condition, exc_class: type, *exc_args) -> None:
        """Raise `exc_class(*exc_args)` when `condition` (i1) holds (or, in a loop deferring its
        checks, record that it held: ember/lowering/deferred_checks.py)."""
        deferred = self.deferred_checks
        if deferred is not None and deferred.deferring(builder):
            if deferred.record(builder, condition, exc_class, exc_args):
                return
        with builder.if_then(condition, likely=False):
            self.raise_error(builder, exc_class, *exc_args)

    def apply_fastmath(self, instruction) -> Any:
        """The instruction with the function's fast-math flags: an arithmetic instruction, or a
        call of a math function (`call fast double @llvm.sin.f64`)."""
        for flag in self.options.fastmath_flags:
            if isinstance(instruction, llvm.CallInstr):
                instruction.fastmath.add(flag)
            else:
                instruction.flags.append(flag)
        return instruction

    # ------------------------------------------------------------------ external functions

    @staticmethod
    def declare_function(module: llvm.Module, name: str, fnty: llvm.FunctionType):
        existing = module.globals.get(name)
        if existing is not None:
            return existing
        return llvm.Function(module, fnty, name)


def _load_implementations() -> None:
    """Import the modules whose import registers casts and primitive operators."""
    from ember import library_domains as library

    library.load_core()
    import ember.lowering.casts  # noqa: F401
    import ember.lowering.numbers  # noqa: F401
