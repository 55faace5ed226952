"""Types of callables and namespaces: library functions, jitted dispatchers, modules, exceptions."""

from __future__ import annotations

import weakref
from typing import Any

from ember.types.abstract import Dummy, Opaque, Type, forget_interned

# The words that open the report of a call no implementation accepts (Numba's `_header_lead`:
# programs and tests look for them).
_header_lead = "No implementation of function"
# Why an implementation was rejected, as Numba words it (`_err_reasons`).
_err_reasons = {"specific_error": "Rejected as the implementation raised a specific error:\n{}"}


class Function(Dummy):
    """A global callable typed by the typing registry; `key` is the Python object itself."""

    def __init__(self, typing_key: Any) -> None:
        typing_key = _key_of_templates(typing_key)
        self.typing_key = typing_key
        name = getattr(typing_key, "__qualname__", None) or repr(typing_key)
        module = getattr(typing_key, "__module__", None)
        super().__init__(f"Function({module}.{name})" if module else f"Function({name})")

    @property
    def key(self) -> Any:
        return self.typing_key

    def _rebuild_args(self) -> tuple:
        return (self.typing_key,)


def _is_template(value: Any) -> bool:
    """A typing template class (Numba code passes templates to `types.Function`)."""
    if not isinstance(value, type):
        return False
    from ember.typing.templates import FunctionTemplate

    return issubclass(value, FunctionTemplate)


def _key_of_templates(value: Any) -> Any:
    """What `Function(value)` types calls of: the value itself, or the key shared by a template
    or a tuple of templates (as in Numba, templates of different keys cannot mix)."""
    templates = (value,) if _is_template(value) else value
    if not (isinstance(templates, tuple) and templates and all(map(_is_template, templates))):
        return value
    keys = {id(item.key): item.key for item in templates}
    if len(keys) > 1:
        raise ValueError(f"incompatible templates: {list(keys.values())}")
    key = templates[0].key
    _adopt_templates(key, templates)
    return key


def _adopt_templates(key: Any, templates: tuple) -> None:
    """Calls of `Function(template)` are typed by that template, registered or not (a typeof
    hook may return the type of a template it never registered, as in Numba)."""
    from ember.typing.templates import registry

    try:
        known = registry.functions.get(key, ())
    except TypeError:  # an unhashable key: no template can be registered for it
        return
    for template in templates:
        if template not in known:
            registry.register_global(key, template)


class Callable(Type):
    """Numba's abstract base of callable types: a subclass answers `get_call_type(context,
    args, kws)` with a signature (or None) and lists what it resolved in
    `get_call_signatures()`."""

    def get_call_type(self, context: Any, args: tuple, kws: dict) -> Any:
        raise NotImplementedError

    def get_call_signatures(self) -> tuple[list, bool]:
        raise NotImplementedError

    def get_impl_key(self, sig: Any) -> Any:
        return self


class NumberClass(Function):
    """A NumPy scalar class used as a function or dtype (`np.float64(x)`), Numba's
    `NumberClass`: `NumberClass(float64)` or the class itself; `instance_type` is what it
    makes."""

    def __init__(self, instance_type: Any) -> None:
        import numpy as np

        scalar_class = (
            instance_type
            if isinstance(instance_type, type)
            else np.dtype(str(instance_type)).type  # an ember scalar type, named as NumPy's
        )
        super().__init__(scalar_class)
        self.name = f"class({np.dtype(scalar_class)})"

    @property
    def instance_type(self) -> Type:
        import numpy as np

        from ember.dispatcher.typeof import dtype_to_type

        return dtype_to_type(np.dtype(self.typing_key))


class FunctionType(Type):
    """Numba's first-class function type, `FunctionType(float64(float64))`: the address of a C
    function of that signature. A `@cfunc` has this type; a jitted function converts to it
    where one is declared (ember/lowering/function_pointers.py). Calls go through the address
    (an exception raised inside is reported as unraisable, and the call returns zero)."""

    def __init__(self, signature: Any) -> None:
        if isinstance(signature, str):
            from ember.decorators import _parse_signature

            signature = _parse_signature(signature)
        if getattr(signature, "return_type", None) is None:
            raise TypeError(f"FunctionType needs a signature with a return type, not {signature}")
        self.signature = signature
        args = ", ".join(str(arg) for arg in signature.args)
        super().__init__(f"FunctionType[{signature.return_type}({args})]")

    @property
    def key(self) -> Any:
        return (self.signature.return_type, tuple(self.signature.args))

    @property
    def ftype(self) -> FunctionType:
        """Numba's name: the function type itself."""
        return self

    def _rebuild_args(self) -> tuple:
        return (self.signature,)


class ExternalFunctionPointer(FunctionType):
    """Numba's type of a C function object from Python (a ctypes or cffi function):
    `get_pointer(obj)` gives an object's address; `cconv` names a calling convention (None: C's).
    Functions of one signature and kind share the type, so a jitted function taking them as
    arguments compiles once per signature. A `ffi_forced_object` parameter takes any value,
    passed as a Python object."""

    def __init__(self, sig: Any, get_pointer: Any, cconv: Any = None) -> None:
        if sig.return_type is ffi_forced_object:
            raise TypeError("ember cannot call a C function returning a Python object (py_object)")
        self.get_pointer = get_pointer
        self.cconv = cconv
        super().__init__(sig)
        args = ", ".join(str(arg) for arg in sig.args)
        self.name = f"ExternalFunctionPointer(({args}) -> {sig.return_type}, cconv={cconv})"

    @property
    def sig(self) -> Any:
        return self.signature

    @property
    def key(self) -> Any:
        sig = self.signature
        return (sig.return_type, tuple(sig.args), self.cconv, self.get_pointer)

    def _rebuild_args(self) -> tuple:
        return (self.signature, self.get_pointer, self.cconv)

    def get_call_type(self, context: Any, args: tuple, kws: dict) -> Any:
        """The declared signature when the arguments pass as the C parameters (see
        ember/library/interop/ctypes_functions.py)."""
        from ember.library.interop.ctypes_functions import c_call_signature

        return c_call_signature(self.signature, args, kws)


class ExternalFunction(ExternalFunctionPointer):
    """Numba's `types.ExternalFunction(symbol, sig)`: the C function named `symbol` (in a
    library loaded with `llvmlite.binding.load_library_permanently`, or published with
    `add_symbol`), called by name from compiled code. An instance is its own type where used
    as a global."""

    def __init__(self, symbol: str, sig: Any) -> None:
        self.symbol = symbol
        super().__init__(sig, _symbol_address)
        self.name = f"ExternalFunction({symbol}, {sig})"

    @property
    def key(self) -> Any:
        return (self.symbol, self.signature.return_type, tuple(self.signature.args))

    def _rebuild_args(self) -> tuple:
        return (self.symbol, self.signature)


def _symbol_address(function: ExternalFunction) -> int:
    """The address the process resolves an ExternalFunction's symbol to (0: not found)."""
    import llvmlite.binding as llvm_binding

    return llvm_binding.address_of_symbol(function.symbol) or 0


class _ForcedObject(Opaque):
    """A C parameter of type `PyObject *` (ctypes' `py_object`): the argument is boxed."""


ffi_forced_object = _ForcedObject("ffi_forced_object")


class WrapperAddressProtocol:
    """Numba's protocol for an object that is a C function: subclasses define
    `__wrapper_address__()` (the function's address) and `signature()` (its signature); an
    instance passed to a jitted function is a `FunctionType(signature())`."""

    def __wrapper_address__(self) -> int:
        raise NotImplementedError

    def signature(self) -> Any:
        raise NotImplementedError


class BoundFunction(Dummy):
    """A method looked up on a value (`x.conjugate`): the receiver type plus the method name.

    Numba's spelling `BoundFunction(template_class, this)` gives the method its own typing
    template (its `generic(args, kws)` types a call's arguments without the receiver) and
    lowers the call by the template's key (`@lower_builtin(template.key, ThisType, ...)`).
    """

    def __init__(self, this: Any, attr: Any) -> None:
        self.template = None
        if isinstance(this, type) and isinstance(attr, Type):  # Numba's (template, this)
            self.template, this = this, attr
            key = self.template.key
            attr = key if isinstance(key, str) else getattr(key, "__name__", repr(key))
        self.this = this
        self.attr = attr
        super().__init__(f"BoundFunction({this}.{attr})")

    @property
    def key(self) -> Any:
        if self.template is not None:  # one method per template key (the first template)
            return (self.this, self.attr, "template")
        return (self.this, self.attr)

    @property
    def typing_key(self) -> Any:
        """What its lowering is registered under: a template's key, else (type class, name)."""
        if self.template is not None:
            return self.template.key
        return (type(self.this), self.attr)

    def _rebuild_args(self) -> tuple:
        if self.template is not None:
            return (self.template, self.this)
        return (self.this, self.attr)


class DispatcherType(Dummy):
    """Another jitted function, called from compiled code with compile-time resolution."""

    def __init__(self, dispatcher: Any) -> None:
        # Held weakly (as in Numba): a jitted function made at run time (a closure per call)
        # is freed with its compiled code once unused. Its interned entry goes with it, so a
        # later object reusing its id() gets a type of its own.
        identity = (type(self), id(dispatcher))
        self._identity = identity[1]
        # (the default argument: at interpreter exit this module's globals may be gone first)
        self._dispatcher = weakref.ref(
            dispatcher, lambda _, forget=forget_interned: forget(identity)
        )
        name = getattr(getattr(dispatcher, "py_func", None), "__qualname__", None)
        super().__init__(f"type(CPUDispatcher({name or type(dispatcher).__qualname__}))")

    @property
    def dispatcher(self) -> Any:
        found = self._dispatcher()
        if found is None:
            raise ReferenceError(f"the jitted function of {self} no longer exists")
        return found

    @property
    def key(self) -> Any:
        return self._identity

    def __eq__(self, other: object) -> bool:  # identity, and a dead one equals nothing (Numba)
        return other is self and self._dispatcher() is not None

    __hash__ = Type.__hash__

    def _rebuild_args(self) -> tuple:
        return (self.dispatcher,)


class Closure(Callable):
    """An inner function that closes over run-time values, used as a value (passed to an
    @overload-ed or jitted function, returned to a jitted caller): the value is the captured
    values (of types `env`); a call calls `dispatcher`, the inner function taking them as its
    first parameters (frontend/genexpr.py closure_function_of). The last `n_defaults` members
    of `env` are the default values of its last parameters, evaluated where the `def` (or
    lambda) ran (`lambda v, k=k: v + k` in a loop): a call that omits one passes it."""

    def __init__(self, dispatcher: Any, env: tuple, n_defaults: int = 0) -> None:
        self.dispatcher = dispatcher
        self.env = tuple(env)
        self.n_defaults = n_defaults
        captured = ", ".join(str(t) for t in self.env)
        given = f"; {n_defaults} defaults" if n_defaults else ""
        super().__init__(f"closure({dispatcher.py_func.__qualname__}; {captured}{given})")

    @property
    def key(self) -> Any:
        return (self.dispatcher, self.env, self.n_defaults)

    def _rebuild_args(self) -> tuple:
        return (self.dispatcher, self.env, self.n_defaults)

    @property
    def n_captured(self) -> int:
        """How many members of `env` the function takes first (the rest are defaults)."""
        return len(self.env) - self.n_defaults

    def omitted_defaults(self, n_args: int, kws: Any) -> dict[str, int]:
        """{parameter: index in env} of the defaulted parameters a call with `n_args`
        positional arguments and keywords `kws` leaves out."""
        if not self.n_defaults:
            return {}
        code = self.dispatcher.py_func.__code__
        params = code.co_varnames[self.n_captured : code.co_argcount]
        first = len(params) - self.n_defaults
        return {
            name: self.n_captured + index
            for index, name in enumerate(params[first:])
            if first + index >= n_args and name not in kws
        }

    def get_call_type(self, context: Any, args: tuple, kws: dict) -> Any:
        from ember.typing.signature import Signature

        kws = dict(kws)
        for name, index in self.omitted_defaults(len(args), kws).items():
            kws[name] = self.env[index]
        captured = self.env[: self.n_captured]
        sig = self.dispatcher.type_call((*captured, *args), kws)
        if sig is None:
            return None
        return Signature(sig.return_type, sig.args[len(captured) :])

    def get_call_signatures(self) -> tuple[list, bool]:
        return [], True


class DispatcherChoice(Type):
    """One of several jitted functions, chosen at run time (`f = g if c else h`, `(g, h)[i]`).

    The value is the index of the chosen function in `dispatchers`; a call switches on it
    and calls each candidate's specialization directly (so LLVM can still inline them).
    """

    def __init__(self, dispatchers: Any) -> None:
        unique = {id(d): d for d in dispatchers}.values()
        self.dispatchers = tuple(sorted(unique, key=lambda d: (d.py_func.__qualname__, id(d))))
        names = ", ".join(d.py_func.__qualname__ for d in self.dispatchers)
        super().__init__(f"DispatcherChoice({names})")

    @property
    def key(self) -> Any:
        return tuple(id(d) for d in self.dispatchers)

    def _rebuild_args(self) -> tuple:
        return (self.dispatchers,)

    def index_of(self, dispatcher: Any) -> int:
        return next(i for i, d in enumerate(self.dispatchers) if d is dispatcher)


def function_members(typ: Type) -> tuple | None:
    """The jitted functions a value of `typ` may be (a choice or one function), else None."""
    if isinstance(typ, DispatcherType):
        return (typ.dispatcher,)
    if isinstance(typ, DispatcherChoice):
        return typ.dispatchers
    return None


def unify_functions(first: Type, second: Type) -> DispatcherChoice | FunctionType | None:
    """Two jitted-function types merge into a run-time choice among all their members; with a
    first-class function type, jitted functions become that type (their C entries)."""
    if isinstance(second, FunctionType):
        first, second = second, first
    if isinstance(first, FunctionType):
        return first if first == second or function_members(second) is not None else None
    members = (function_members(first), function_members(second))
    if None in members:
        return None
    return DispatcherChoice(members[0] + members[1])


class Module(Dummy):
    """A Python module used as a namespace (`math.sqrt`, `np.float64`)."""

    def __init__(self, pymod: Any) -> None:
        self.pymod = pymod
        super().__init__(f"Module({pymod.__name__})")

    @property
    def key(self) -> Any:
        return self.pymod

    def _rebuild_args(self) -> tuple:
        return (self.pymod,)


class Omitted(Dummy):
    """The type of an argument a call left to its default, in the signatures of overloads
    (Numba's): a call omitting an argument and one passing a value of its default's type are
    different signatures, so an overload may choose a different implementation for each."""

    def __init__(self, value: Any) -> None:
        self.value = value
        super().__init__(f"omitted(default={value!r})")

    @property
    def key(self) -> Any:
        try:
            hash(self.value)
        except TypeError:  # a list or an array as a default: the object itself (held here)
            return (type(self.value), id(self.value))
        return (type(self.value), self.value)  # omitted(1) is not omitted(1.0)

    def _rebuild_args(self) -> tuple:
        return (self.value,)


class ExceptionClass(Dummy):
    """A builtin exception class, callable with constant arguments for a static raise."""

    def __init__(self, exc_class: type) -> None:
        self.exc_class = exc_class
        super().__init__(f"exception class({exc_class.__name__})")

    @property
    def key(self) -> Any:
        return self.exc_class

    def _rebuild_args(self) -> tuple:
        return (self.exc_class,)


class ExceptionClassChoice(Type):
    """One of several exception classes, chosen at run time (`E = ValueError if c else
    KeyError`): the index of the class in `exc_classes`; a call makes the chosen class's
    exception (ember/lowering/exceptions.py)."""

    def __init__(self, exc_classes: Any) -> None:
        unique = {c: None for c in exc_classes}
        self.exc_classes = tuple(sorted(unique, key=lambda c: (c.__qualname__, id(c))))
        names = ", ".join(c.__name__ for c in self.exc_classes)
        super().__init__(f"exception class choice({names})")

    @property
    def key(self) -> Any:
        return self.exc_classes

    def _rebuild_args(self) -> tuple:
        return (self.exc_classes,)

    def index_of(self, exc_class: type) -> int:
        return self.exc_classes.index(exc_class)


def exception_class_members(typ: Type) -> tuple | None:
    """The exception classes a value of `typ` may be (a choice or one class), else None."""
    if isinstance(typ, ExceptionClass):
        return (typ.exc_class,)
    if isinstance(typ, ExceptionClassChoice):
        return typ.exc_classes
    return None


def unify_exception_classes(first: Type, second: Type) -> ExceptionClassChoice | None:
    """Two exception-class types merge into a run-time choice among all their classes."""
    members = (exception_class_members(first), exception_class_members(second))
    if None in members:
        return None
    return ExceptionClassChoice(members[0] + members[1])


class ExceptionInstance(Type):
    """An exception made or caught in compiled code: its id in the exception table and the
    meminfo of the run-time values among its arguments (ember/lowering/exceptions.py)."""

    def __init__(self, exc_class: type) -> None:
        self.exc_class = exc_class
        super().__init__(f"exception({exc_class.__name__})")

    @property
    def key(self) -> Any:
        return self.exc_class

    def _rebuild_args(self) -> tuple:
        return (self.exc_class,)
