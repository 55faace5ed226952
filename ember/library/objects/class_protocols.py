"""The protocol dunders of jitclass instances in compiled code: truth (`if obj:`, `bool(obj)`,
`not obj` through `__bool__`, else `__len__`, else always true, as in Python), `str(obj)` /
`repr(obj)` through `__str__` / `__repr__`, iteration (`for x in obj`) through `__iter__`,
the number conversions (`complex`/`float`/`int`/`operator.index`, with Python's fallbacks to
`__float__` and `__index__`) and `!=` as the negation of `__eq__` when there is no `__ne__`.

An iterator lives in the frame of the function iterating it, so an `__iter__` written as
`return iter(<expression>)` is compiled as a function returning the expression, which the
caller iterates; an `__iter__` that is a generator is called as it is.
"""

from __future__ import annotations

import ast
import functools
import inspect
import operator
import textwrap
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError, UnsupportedError
from ember.lowering import arrays as refs
from ember.lowering.registry import lower_builtin, lower_cast
from ember.typing.signature import Signature
from ember.typing.templates import registry

Instance = types.ClassInstanceType


def _compiled(dispatcher: Any, arg_types: tuple) -> Any:
    """The compiled specialization of a dunder (compiling it on first use)."""
    dispatcher.type_call(arg_types, {})
    return dispatcher.compiled_for_call(arg_types)


def _call(context, builder, dispatcher: Any, arg_types: tuple, args: list, to_type: types.Type):
    target = _compiled(dispatcher, arg_types)
    result = context.call_compiled(builder, target, args)
    return context.cast(builder, result, target.signature.return_type, to_type)


# ---------------------------------------------------------------------------- truth


@lower_cast(Instance, types.Boolean)
def instance_truth(context, builder, from_type, to_type, value):
    methods = from_type.jit_methods
    if "__bool__" in methods:
        return _call(context, builder, methods["__bool__"], (from_type,), [value], types.boolean)
    if "__len__" in methods:
        size = _call(context, builder, methods["__len__"], (from_type,), [value], types.int64)
        return builder.icmp_signed("!=", size, llvm.Constant(size.type, 0))
    return llvm.Constant(llvm.IntType(1), 1)


@registry.typer(operator.not_)
def _type_not(args, kws):
    """`not obj`: lowered as `not` of the truth above."""
    if len(args) == 1 and isinstance(args[0], Instance):
        return Signature(types.boolean, args)
    return None


# ---------------------------------------------------------------------------- str, repr


def _text_method(fn: Any, instance: types.Type) -> Any:
    """The dunder that `str`/`repr` of an instance runs (str falls back to __repr__)."""
    if not isinstance(instance, Instance):
        return None
    methods = instance.jit_methods
    names = ("__str__", "__repr__") if fn is str else ("__repr__",)
    return next((methods[name] for name in names if name in methods), None)


def _text_typer(fn: Any):
    def type_text(args, kws):
        if kws or len(args) != 1:
            return None
        dispatcher = _text_method(fn, args[0])
        if dispatcher is None:
            return None
        sig = dispatcher.type_call(tuple(args), {})
        if not isinstance(types.unliteral(sig.return_type), types.UnicodeType):
            raise UnsupportedError(f"{fn.__name__}() of a jitclass instance must return a str")
        return Signature(types.unicode_type, sig.args)

    return type_text


def _text_lowering(fn: Any):
    def lower_text(context, builder, sig, args):
        dispatcher = _text_method(fn, sig.args[0])
        return _call(context, builder, dispatcher, tuple(sig.args), args, sig.return_type)

    return lower_text


for _fn in (str, repr):
    registry.typer(_fn)(_text_typer(_fn))
    lower_builtin(_fn, Instance)(_text_lowering(_fn))


# ---------------------------------------------------------------------------- conversions

# the dunders each conversion tries, in Python's order, and how it converts what they return
_CONVERSIONS = {
    complex: ("__complex__", "__float__", "__index__"),
    float: ("__float__", "__index__"),
    int: ("__int__", "__index__"),
    operator.index: ("__index__",),
}


def _conversion_overload(fn: Any):
    def instance_conversion(x, *rest):
        if rest or not isinstance(x, Instance):
            return None
        name = next((n for n in _CONVERSIONS[fn] if n in x.jit_methods), None)
        if name is None:
            raise TypingError(
                f"{fn.__name__}() of jitclass instance {x.classname}: the class "
                f"defines none of {', '.join(_CONVERSIONS[fn])}"
            )
        return _converting_call(fn, name)

    return instance_conversion


@functools.cache
def _converting_call(fn: Any, name: str) -> Any:
    namespace = {"convert": fn}
    source = f"def conversion(x, *rest):\n    return convert(x.{name}())\n"
    if fn is operator.index or name == _CONVERSIONS[fn][0]:
        source = f"def conversion(x, *rest):\n    return x.{name}()\n"
    exec(compile(source, f"<jitclass {fn.__name__}() through {name}>", "exec"), namespace)  # noqa: S102
    return namespace["conversion"]


def _instance_ne(x, y):
    """`x != y` for instances whose class defines `__eq__` and no `__ne__` (Python's rule)."""
    for value in (x, y):
        if isinstance(value, Instance):
            methods = value.jit_methods
            if "__eq__" in methods and "__ne__" not in methods:
                return lambda x, y: not (x == y)
    return None


def _register_overloads() -> None:
    from ember.typing.overload import overload

    for fn in _CONVERSIONS:
        overload(fn)(_conversion_overload(fn))
    overload(operator.ne)(_instance_ne)


_register_overloads()


# ---------------------------------------------------------------------------- iteration


@functools.cache
def iterable_source(dispatcher: Any) -> Any:
    """For an `__iter__` whose body is `return iter(<expression>)`: a jitted function of the
    same parameters returning the expression. None for a generator `__iter__`."""
    from ember.decorators import njit

    func = dispatcher.py_func
    if inspect.isgeneratorfunction(func):
        return None
    expression = _returned_iter_argument(func)
    if expression is None:
        raise UnsupportedError(
            f"jitclass __iter__ ({func.__qualname__}) must be `return iter(<expression>)` "
            "(e.g. return iter(self.items)) or a generator (for x in self.items: yield x)"
        )
    params = list(inspect.signature(func).parameters)
    source = f"def _iterable_of({', '.join(params)}):\n    return {expression}\n"
    namespace = dict(func.__globals__)
    exec(compile(source, inspect.getsourcefile(func) or "<jitclass>", "exec"), namespace)  # noqa: S102
    return njit(namespace["_iterable_of"])


def _returned_iter_argument(func: Any) -> str | None:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return None
    body = [stmt for stmt in tree.body[0].body if not _is_docstring(stmt)]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    call = body[0].value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "iter"
        and len(call.args) == 1
        and not call.keywords
    ):
        return None
    return ast.unparse(call.args[0])


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


@registry.typer(iter)
def _type_iter(args, kws):
    if kws or len(args) != 1 or not isinstance(args[0], Instance):
        return None
    dunder = args[0].jit_methods.get("__iter__")
    if dunder is None:
        return None
    source = iterable_source(dunder)
    if source is None:  # a generator: its generator object is the iterator
        return Signature(dunder.type_call(args, {}).return_type, args)
    from ember.typing.context import TypingContext

    iterable = source.type_call(args, {}).return_type
    inner = TypingContext().resolve_operator(iter, (iterable,))
    if inner is None:
        raise UnsupportedError(f"jitclass __iter__ returns iter() of {iterable}, not iterable")
    return Signature(inner.return_type, args)


@lower_builtin(iter, Instance)
def instance_iter(context, builder, sig, args):
    instance = sig.args[0]
    dunder = instance.jit_methods["__iter__"]
    source = iterable_source(dunder)
    if source is None:
        return _call(context, builder, dunder, (instance,), args, sig.return_type)
    target = _compiled(source, (instance,))
    iterable_type = target.signature.return_type
    iterable = context.call_compiled(builder, target, args)
    from ember.typing.context import TypingContext

    inner = TypingContext().resolve_operator(iter, (iterable_type,))
    iterator = context.call_implementation(builder, iter, inner, [iterable])
    refs.decref(builder, iterable_type, iterable)  # the iterator holds its own reference
    return iterator
