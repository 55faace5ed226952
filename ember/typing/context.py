"""The typing context: resolves the type of constants, globals, calls, operators and attributes.

It consults the template registry that the library (`ember/library/`) fills in.
"""

from __future__ import annotations

import enum
import sys
import types as pytypes
from typing import Any

from ember import library_domains as library
from ember import types
from ember.typing.conversions import unify_pair
from ember.typing.functions import type_choice_call
from ember.typing.signature import Signature
from ember.typing.templates import apply_template, calls_a_method, registry


class TypingContext:
    """Typing questions asked by type inference; holds instantiated templates."""

    def __init__(self) -> None:
        _load_library()
        self.registry = registry
        self._templates: dict[Any, list] = {}
        self._attribute_templates: list = []
        self._loaded_attributes = 0
        self._operator_signatures: dict[tuple, Signature | None] = {}

    def refresh(self) -> None:
        """Numba's call after registering typings: ember's registry is read live (templates
        registered later are seen by the next compilation), so there is nothing to reload."""

    # ------------------------------------------------------------------ values

    def resolve_value_type(self, value: Any) -> types.Type | None:
        """The type of a constant or global value seen at compile time, or None."""
        if isinstance(value, types.ExternalFunction):  # a C function by name: its own type
            return value
        if isinstance(value, types.Type):
            return types.TypeRef(value)
        scalar = _SCALAR_TYPES.get(type(value))
        if scalar is not None:
            return scalar
        if isinstance(value, int) and not isinstance(value, enum.Enum):  # IntEnum: typeof
            return types.constant_int_type(types.wrapped_constant(value))
        if value is None:
            return types.none
        if value is type(None):  # NoneType, as isinstance()'s class: the type of None
            return types.TypeRef(types.none)
        if isinstance(value, str):
            return types.StringLiteral(value)
        if isinstance(value, bytes):  # b'ab' in code, a global bytes: a constant
            return types.bytes_type
        if isinstance(value, tuple) and not hasattr(type(value), "_fields"):  # namedtuples below
            members = [self.resolve_value_type(item) for item in value]
            return None if None in members else types.make_tuple(members)
        if isinstance(value, pytypes.ModuleType):
            return types.Module(value)
        if isinstance(value, type) and issubclass(value, types.Type):  # a type class (Numba's)
            return types.TypeRef(value)
        if isinstance(value, type) and issubclass(value, BaseException):
            return types.ExceptionClass(value)
        declared = self._declared_type(value)
        if declared is not None:
            return declared
        fingerprint_type = _dispatcher_type(value)
        if fingerprint_type is not None:
            return fingerprint_type
        library.load_for_value(value)
        if self._is_registered(value):
            return types.Function(value)
        from ember.dispatcher.typeof import typeof_constant

        found = typeof_constant(value)
        if isinstance(found, types.Array):  # a global array is frozen, as in Numba
            return found.copy(layout="C", readonly=True)
        if type(value).__module__ == "numpy":  # a global np.int64(5): strong, as an argument
            return types.numpy_scalar(found)
        return found

    def _declared_type(self, value: Any) -> types.Type | None:
        """The type `infer_global(value, type)` gave a global, or None."""
        try:
            return self.registry.global_types.get(value)
        except TypeError:  # unhashable
            return None

    def _is_registered(self, value: Any) -> bool:
        try:
            return value in self.registry.functions
        except TypeError:  # unhashable
            return False

    # ------------------------------------------------------------------ calls

    def templates_for(self, key: Any) -> list:
        cached = self._templates.get(key)
        if cached is None or len(cached) != len(self.registry.functions.get(key, ())):
            cached = [template(self) for template in self.registry.functions.get(key, ())]
            self._templates[key] = cached
        return cached

    def resolve_function_type(
        self, fnty: types.Type, args: tuple, kws: dict, literals: tuple | None = None
    ) -> Signature | None:
        """The signature of calling a value of type `fnty` with these argument types.
        `literals`: (argument types, keyword types) with the call's constants as literal types,
        for the templates and jitted functions that ask for literals."""
        if isinstance(fnty, types.Function):
            return self._apply_templates(fnty.typing_key, args, kws, literals)
        if isinstance(fnty, types.BoundFunction) and fnty.template is not None:
            return self._template_method_call(fnty, args, kws, literals)
        if isinstance(fnty, types.BoundFunction):
            return self._method_call(fnty.this, fnty.attr, args, kws, literals)
        if isinstance(fnty, types.DispatcherType):
            return fnty.dispatcher.type_call(*(literals or (args, kws)))
        if isinstance(fnty, types.DispatcherChoice):
            return type_choice_call(fnty, args, kws)
        if isinstance(fnty, types.ExceptionClass):
            return Signature(types.ExceptionInstance(fnty.exc_class), args)
        if isinstance(fnty, types.ExceptionClassChoice):
            return Signature(types.ExceptionInstance(BaseException), args)
        if isinstance(fnty, types.ExternalFunctionPointer):  # a ctypes or cffi function
            return fnty.get_call_type(self, args, kws)
        if isinstance(fnty, types.FunctionType):  # a first-class function: its signature
            return _function_pointer_call(fnty, args, kws)
        if isinstance(fnty, types.Callable):  # an extension's callable type types itself
            return fnty.get_call_type(self, args, kws)
        if calls_a_method(fnty):
            return self._method_call(fnty, "__call__", args, kws, literals)
        return None

    def _method_call(
        self, this: types.Type, attr: str, args: tuple, kws: dict, literals: tuple | None = None
    ) -> Signature | None:
        """`this.attr(*args)`: the method's signature, with the receiver apart (`recvr`)."""
        if literals is not None:
            literals = ((this, *literals[0]), literals[1])
        sig = self._apply_templates((type(this), attr), (this, *args), kws, literals)
        if sig is None:
            return None
        return Signature(sig.return_type, sig.args[1:], recvr=sig.args[0], pysig=sig.pysig)

    def _template_method_call(
        self, fnty: types.BoundFunction, args: tuple, kws: dict, literals: tuple | None
    ) -> Signature | None:
        """A method with a template of its own (Numba's `BoundFunction(template, this)`): the
        template types the arguments without the receiver."""
        sig = apply_template(fnty.template(self), args, kws, literals)
        if sig is not None and sig.recvr is None:
            sig = sig.replace(recvr=fnty.this)
        return sig

    def _apply_templates(
        self, key: Any, args: tuple, kws: dict, literals: tuple | None = None
    ) -> Signature | None:
        library.load_for_types(args)
        library.load_for_types(kws.values())
        for template in self.templates_for(key):
            sig = apply_template(template, args, kws, literals)
            if sig is not None:
                return sig
        if any(isinstance(t, types.Optional) for t in (*args, *kws.values())):
            # Numba's rule: an Optional(T) argument is used as a T, checked at run time
            if literals is not None:
                literals = (_unwrap_optionals(literals[0]), _unwrap_optionals(literals[1]))
            return self._apply_templates(
                key, _unwrap_optionals(args), _unwrap_optionals(kws), literals
            )
        if any(isinstance(t, types.IntEnumMember) for t in (*args, *kws.values())):
            # an IntEnum member is an int wherever nothing takes it as a member (`m * 2`)
            if literals is not None:
                literals = (_as_integers(literals[0]), _as_integers(literals[1]))
            return self._apply_templates(key, _as_integers(args), _as_integers(kws), literals)
        if any(isinstance(t, types.ArrayCompatible) for t in args):
            found = _as_arrays(self, key, args, kws)
            if found is not None:
                return found
        if _numpy_function(key):  # NumPy's functions take a number as a 0-d array
            from ember.lowering.scalar_arguments import typed_with_scalars_as_arrays

            return typed_with_scalars_as_arrays(key, args, kws, self._apply_templates)
        return None

    def resolve_operator(
        self, fn: Any, args: tuple, literal_args: tuple | None = None
    ) -> Signature | None:
        """The signature of `fn(*args)` for an operator; on plain numbers, looked up once per
        operator and argument types (a long function repeats the same few, sweep after sweep).
        `literal_args`: the types with constant operands as literals, asked when `args` find
        nothing (as for calls)."""
        if literal_args is not None:
            return self._apply_templates(fn, args, {}, (literal_args, {}))
        if not all(type(t) in PLAIN_NUMBER_TYPES for t in args):
            return self._apply_templates(fn, args, {})
        key = (fn, args, len(self.registry.functions.get(fn, ())))  # new overloads: look again
        try:
            return self._operator_signatures[key]
        except KeyError:
            found = self._operator_signatures[key] = self._apply_templates(fn, args, {})
            return found

    # ------------------------------------------------------------------ attributes

    def resolve_getattr(self, value_type: types.Type, attr: str) -> types.Type | None:
        if isinstance(value_type, types.Optional):  # checked for None when lowered
            value_type = value_type.type
        if isinstance(value_type, types.Module):
            if not hasattr(value_type.pymod, attr):
                return None
            return self.resolve_value_type(getattr(value_type.pymod, attr))
        library.load_for_types((value_type,))
        self._load_attribute_templates()
        for template in self._attribute_templates:
            if isinstance(value_type, template.key):
                found = template.resolve(value_type, attr)
                if found is not None:
                    return found
        methods = self.registry.functions.get((type(value_type), attr), ())
        if any(_offers_method(template, value_type) for template in methods):
            return types.BoundFunction(value_type, attr)
        if isinstance(value_type, types.StringLiteral):  # "-".join(...): a string's methods
            return self.resolve_getattr(value_type.literal_type, attr)
        return None

    def resolve_setattr(self, target: types.Type, attr: str, value: types.Type):
        """The signature `none(target, attribute type)` of `target.attr = value`, or None."""
        if isinstance(target, types.Optional):  # checked for None when lowered
            return self.resolve_setattr(target.type, attr, value)
        for template in self._templates_of(target):
            sig = template.resolve_setattr(target, attr, value)
            if sig is not None:
                return sig
        return None

    def resolve_delattr(self, target: types.Type, attr: str) -> Signature | None:
        for template in self._templates_of(target):
            sig = template.resolve_delattr(target, attr)
            if sig is not None:
                return sig
        return None

    def _templates_of(self, value_type: types.Type) -> list:
        library.load_for_types((value_type,))
        self._load_attribute_templates()
        return [t for t in self._attribute_templates if isinstance(value_type, t.key)]

    def _load_attribute_templates(self) -> None:
        if self._loaded_attributes != len(self.registry.attributes):
            self._attribute_templates = [t(self) for t in self.registry.attributes]
            self._loaded_attributes = len(self.registry.attributes)

    # ------------------------------------------------------------------ merges

    def unify_pair(self, first: types.Type, second: types.Type) -> types.Type | None:
        return unify_pair(first, second)

    # Numba's spellings, for extension code handed a typing context (`typingctx`)

    def unify_pairs(self, first: types.Type, second: types.Type) -> types.Type | None:
        return unify_pair(first, second)

    def unify_types(self, *candidates: types.Type) -> types.Type | None:
        """The one type all `candidates` convert to, or None."""
        unified = candidates[0] if candidates else None
        for candidate in candidates[1:]:
            if unified is None:
                return None
            unified = unify_pair(unified, candidate)
        return unified

    def can_convert(self, from_type: types.Type, to_type: types.Type) -> Any:
        """The kind of implicit conversion (a `Conversion`), or None."""
        from ember.typing.conversions import can_convert

        return can_convert(from_type, to_type)

    def resolve_overload(
        self, key: Any, cases: list, args: tuple, kws: dict, allow_ambiguous: bool = True
    ) -> Signature | None:
        """The best of the signatures `cases` for these argument types (TypeError when two
        tie and `allow_ambiguous` is False; the first of them otherwise)."""
        from ember.typing.templates import choose_best, rank

        try:
            return choose_best(list(cases), tuple(args), str(key))
        except TypeError:
            if not allow_ambiguous:
                raise
        scores = [(rank(case.args, tuple(args)), index) for index, case in enumerate(cases)]
        best = min((score[:3], index) for score, index in scores if score is not None)
        return cases[best[1]]  # the first declared of the equally good ones, as Numba


_SCALAR_TYPES = {
    bool: types.boolean,
    float: types.float64,
    complex: types.complex128,
    type(None): types.none,
}


# Argument types whose operator signatures and implementations depend on nothing but the
# types themselves: the lookups of them are memoized per compilation.
PLAIN_NUMBER_TYPES = frozenset(
    {types.Integer, types.Float, types.Complex, types.Boolean, types.IntegerLiteral}
)


def _unwrap_optionals(values: Any) -> Any:
    """Argument types (a tuple, or a dict of keyword types) with Optional(T) read as T."""
    if isinstance(values, dict):
        return {name: _unwrap_optionals((t,))[0] for name, t in values.items()}
    return tuple(t.type if isinstance(t, types.Optional) else t for t in values)


def _as_arrays(context: TypingContext, key: Any, args: tuple, kws: dict) -> Signature | None:
    """Numba's array protocol: an extension type standing for an array is typed as one."""
    from ember.lowering.array_compatible import stands_for_array, typed_as_arrays

    if not any(stands_for_array(t) for t in args):
        return None
    return typed_as_arrays(context, key, args, kws, context._apply_templates)


def _numpy_function(key: Any) -> bool:
    """A function of NumPy's namespace (np.mean, np.linalg.norm), not an operator or method."""
    return callable(key) and (getattr(key, "__module__", None) or "").startswith("numpy")


def _as_integers(values: Any) -> Any:
    """Argument types (a tuple, or a dict of keyword types) with IntEnum members read as their
    integer type."""
    if isinstance(values, dict):
        return {name: _as_integers((t,))[0] for name, t in values.items()}
    return tuple(t.dtype if isinstance(t, types.IntEnumMember) else t for t in values)


def _dispatcher_type(value: Any) -> types.Type | None:
    from ember.dispatcher.dispatcher import Dispatcher

    if isinstance(value, Dispatcher):
        return types.DispatcherType(value)
    return None


def _load_library() -> None:
    """Import the modules whose import registers operator and library typings (arrays and
    NumPy once NumPy itself is imported: scalar code never pays for it)."""
    library.load_core()
    import ember.typing.arith  # noqa: F401

    if "numpy" in sys.modules:
        import ember.library.numpy.register  # noqa: F401


def _offers_method(template: type, receiver: types.Type) -> bool:
    """Whether a method template serves this receiver (a classmethod serves one class only)."""
    accepts = getattr(template, "accepts_receiver", None)
    return accepts is None or accepts(receiver)


def _function_pointer_call(fnty: types.FunctionType, args: tuple, kws: dict) -> Signature | None:
    """A call of a FunctionType value: its arguments convert to the declared ones."""
    declared = fnty.signature
    if kws or len(args) != len(declared.args):
        return None
    from ember.typing.conversions import can_convert

    if any(can_convert(a, d) is None for a, d in zip(args, declared.args)):
        return None
    return Signature(declared.return_type, tuple(declared.args))


# Numba's names for the typing context class (numba.core.typing.context.Context, BaseContext)
Context = BaseContext = TypingContext
