"""The exceptions users of ember catch: typing failures, unsupported constructs, locations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ember.ir.nodes import Loc


class EmberError(Exception):
    """Base of ember's compile-time errors; carries the source location when one is known."""

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        self.msg = message
        self.loc = loc
        self.contexts: tuple[str, ...] = ()
        super().__init__(self._render())

    def _render(self) -> str:
        """What failed (outermost compilation first), where, then the cause on the last line."""
        where = [self.loc.describe()] if self.loc is not None else []
        return "\n".join([*self.contexts, *where, self.msg])

    def detached(self) -> EmberError:
        """A copy without a traceback: what a dispatcher keeps and raises again for a failed
        compilation (the traceback's frames would keep the failing call's arguments alive)."""
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy.args = self.args
        return copy

    def with_context(self, context: str) -> EmberError:
        """A copy with a first line saying which compilation failed (kept short: one line).

        A copy, so that an error a dispatcher keeps and raises again (a failed compilation)
        does not grow one more context line each time it passes through another compilation.
        """
        if not context:
            return self
        copy = self.detached()
        copy.contexts = (context, *getattr(self, "contexts", ()))
        copy.args = (copy._render(),)
        return copy


class TypingError(EmberError):
    """Type inference could not give every variable one type, or an operation has no typing."""


class ArgumentTypeError(TypingError, TypeError):
    """A call's argument of a Python type compiled code does not take: a TypingError, as
    Numba raises, and a TypeError, Python's kind for a wrong argument."""


class ArgumentValueError(TypingError, ValueError):
    """An argument value ember cannot compile for (an empty list: no item type); a ValueError
    too, as Numba raises one."""


class ForceLiteralArg(EmberError):
    """Typing needs some arguments of the function being compiled as literal types (Numba's
    `literally`): `indices` are their positions. The caller compiles a specialization for the
    arguments' values instead; raised out of type inference, never shown for a valid request.
    """

    def __init__(
        self,
        indices: frozenset[int] | set[int],
        message: str,
        loc: Loc | None = None,
        requested_type: Any = None,
    ) -> None:
        self.indices = frozenset(indices)
        self.requested_type = requested_type  # literally(argtype) in an overload function
        super().__init__(message, loc)


class CompileTimeValueReturned(TypingError, TypeError):
    """A value that exists only while compiling (a module, a function) returned to Python: a
    TypeError too, as Numba raises when it cannot convert the native value."""


class UnsupportedError(EmberError):
    """The source uses a Python construct ember does not compile."""


KWARGS_PARAMETERS_MESSAGE = (
    "**kwargs parameters are not supported in nopython mode: name the keyword parameters, "
    "or pass a typed Dict"
)


class LoweringError(EmberError):
    """Code generation failed for a typed statement (an ember bug or a missing implementation)."""


class CompilerError(EmberError):
    """An internal invariant was broken, e.g. a rewrite that never stops matching."""


class EmberWarning(Warning):
    """Base of ember's warnings."""


NumbaError = EmberError


class EmberPerformanceWarning(EmberWarning):
    """Code that compiles but runs slower than it could (Numba's NumbaPerformanceWarning)."""


class EmberDeprecationWarning(EmberWarning, DeprecationWarning):
    """A feature that will go away (Numba's NumbaDeprecationWarning)."""


class EmberPendingDeprecationWarning(EmberWarning, PendingDeprecationWarning):
    """A feature that will be deprecated (Numba's NumbaPendingDeprecationWarning)."""


# Numba's names, so that `from numba.core.errors import ...` runs with `import ember as numba`
NumbaWarning = EmberWarning
NumbaPerformanceWarning = EmberPerformanceWarning
NumbaDeprecationWarning = EmberDeprecationWarning
NumbaPendingDeprecationWarning = EmberPendingDeprecationWarning


def _numba_error(name: str, base: type, doc: str) -> type:
    return type(name, (base,), {"__doc__": doc, "__module__": __name__})


# Numba's other error classes, with its hierarchy, for code that raises or catches them
# (`raise NumbaValueError(...)` in an @overload is a TypingError, as in Numba).
NumbaTypeError = _numba_error("NumbaTypeError", TypingError, "A TypeError found when typing.")
NumbaValueError = _numba_error("NumbaValueError", TypingError, "A ValueError when typing.")
NumbaAttributeError = _numba_error("NumbaAttributeError", TypingError, "An AttributeError.")
NumbaAssertionError = _numba_error("NumbaAssertionError", TypingError, "An AssertionError.")
NumbaNotImplementedError = _numba_error("NumbaNotImplementedError", TypingError, "Not done.")
NumbaKeyError = _numba_error("NumbaKeyError", TypingError, "A KeyError found when typing.")
NumbaIndexError = _numba_error("NumbaIndexError", TypingError, "An IndexError when typing.")


class StencilError(NumbaValueError, ValueError):  # type: ignore[misc, valid-type]
    """A `@stencil` whose options, kernel or arguments do not fit together: a ValueError and a
    TypingError (Numba raises either, mostly as NumbaValueError), also when the stencil is
    called from jitted code."""


NumbaRuntimeError = _numba_error("NumbaRuntimeError", EmberError, "A RuntimeError.")
UntypedAttributeError = _numba_error("UntypedAttributeError", TypingError, "No such attribute.")
RequireLiteralValue = _numba_error("RequireLiteralValue", TypingError, "A literal is needed.")
LiteralTypingError = _numba_error("LiteralTypingError", TypingError, "A literal's typing failed.")
ConstantInferenceError = _numba_error("ConstantInferenceError", EmberError, "Not a constant.")
InternalError = _numba_error("InternalError", EmberError, "An ember bug.")
InternalTargetMismatchError = _numba_error("InternalTargetMismatchError", InternalError, "Bug.")
NonexistentTargetError = _numba_error("NonexistentTargetError", InternalError, "No target.")
IRError = _numba_error("IRError", EmberError, "Malformed IR.")
RedefinedError = _numba_error("RedefinedError", IRError, "A name defined twice.")
NotDefinedError = _numba_error("NotDefinedError", IRError, "A name used before definition.")
VerificationError = _numba_error("VerificationError", IRError, "IR failed verification.")
DeprecationError = _numba_error("DeprecationError", EmberError, "A removed feature was used.")
ByteCodeSupportError = _numba_error("ByteCodeSupportError", EmberError, "Unknown bytecode.")
UnsupportedBytecodeError = _numba_error("UnsupportedBytecodeError", Exception, "Bytecode.")
UnsupportedParforsError = _numba_error("UnsupportedParforsError", UnsupportedError, "Parfor.")
UnsupportedRewriteError = _numba_error("UnsupportedRewriteError", UnsupportedError, "Rewrite.")
ForbiddenConstruct = _numba_error("ForbiddenConstruct", LoweringError, "Not allowed here.")
NumbaParallelSafetyWarning = _numba_error("NumbaParallelSafetyWarning", EmberWarning, "Race.")
NumbaTypeSafetyWarning = _numba_error("NumbaTypeSafetyWarning", EmberWarning, "Unsafe cast.")
NumbaExperimentalFeatureWarning = _numba_error(
    "NumbaExperimentalFeatureWarning", EmberWarning, "An experimental feature was used."
)
NumbaInvalidConfigWarning = _numba_error("NumbaInvalidConfigWarning", EmberWarning, "Config.")
NumbaPedanticWarning = _numba_error("NumbaPedanticWarning", EmberWarning, "Pedantic.")
NumbaIRAssumptionWarning = _numba_error("NumbaIRAssumptionWarning", EmberWarning, "IR.")
NumbaDebugInfoWarning = _numba_error("NumbaDebugInfoWarning", EmberWarning, "Debug info.")
NumbaSystemWarning = _numba_error("NumbaSystemWarning", EmberWarning, "The system.")


def deprecated(replacement: Any) -> Any:
    """`@deprecated` or `@deprecated("new_name")`: calls of the decorated function warn with
    a DeprecationWarning naming it (and its replacement), as Numba's decorator does."""
    import functools
    import warnings

    new_name = replacement if isinstance(replacement, str) else None

    def decorate(func: Any) -> Any:
        @functools.wraps(func)
        def warn_then_call(*args: Any, **kwargs: Any) -> Any:
            message = f'Call to deprecated function "{func.__name__}".'
            if new_name:
                message += f'\n Use "{new_name}" instead.'
            warnings.warn(message, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return warn_then_call

    return decorate if new_name else decorate(replacement)


def _format_msg(fmt: str, args: tuple, kwargs: dict) -> str:
    """`fmt` with `args`/`kwargs` filled in; a message without them is already final, so its
    braces (a path such as `C:\\Users\\{guid}`) stay as they are (Numba's helper)."""
    if not args and not kwargs:
        return fmt
    return fmt.format(*args, **kwargs)


# What `from ember.errors import *` gives (ember's top level re-exports it, as Numba's does).
__all__ = sorted(
    name
    for name, value in list(globals().items())
    if isinstance(value, type) and issubclass(value, Exception | Warning) and name[0] != "_"
)
