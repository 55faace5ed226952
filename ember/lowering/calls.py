"""Lowering of calls: library functions and methods, jitted functions (the dispatcher's
compiled specializations), first-class functions and extension callables, mixed into
FunctionLowerer. Consumes typed `ir.Call` expressions; produces the call's LLVM value."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.errors import LoweringError, UnsupportedError
from ember.ir import nodes as ir
from ember.lowering import exceptions as exception_lowering
from ember.lowering import first_class
from ember.typing.signature import Signature
from ember.typing.templates import calls_a_method


class CallLowering:
    """FunctionLowerer's part that lowers `ir.Call` expressions."""

    def _lower_call(self, expr: ir.Call, result_type: types.Type) -> llvm.Value:
        fnty = self.typemap[expr.func.name]
        sig = self.calltypes[expr]
        if isinstance(fnty, types.DispatcherType):
            return self.call_dispatcher(fnty, expr, sig)
        if isinstance(fnty, types.DispatcherChoice):
            return first_class.call_choice(self, fnty, expr, sig)
        if isinstance(fnty, types.ExceptionClass):
            return exception_lowering.make_exception(self, expr, fnty.exc_class)
        if isinstance(fnty, types.ExceptionClassChoice):
            return exception_lowering.make_chosen_exception(self, fnty, expr)
        if isinstance(fnty, types.Closure):  # an inner function over run-time values
            from ember.lowering.closures import call_closure

            return call_closure(self, fnty, expr, sig)
        if isinstance(fnty, types.ExternalFunctionPointer):  # a ctypes or cffi function
            from ember.lowering.function_pointers import call_external_function

            return call_external_function(self, fnty, expr, sig)
        if sig.pysig is not None:
            args = self._folded_arguments(fnty, expr, sig)
        elif expr.kws:
            raise LoweringError(f"keyword arguments are not supported for {fnty}", expr.loc)
        else:
            args = [self.load_as(var, typ) for var, typ in zip(expr.args, sig.args)]
        called = called_method(fnty)
        if called is not None:
            this, attr = called
            receiver = self.context.cast(self.builder, self.load(expr.func), this, sig.recvr)
            full_sig = Signature(sig.return_type, (sig.recvr, *sig.args))
            key = fnty.typing_key if isinstance(fnty, types.BoundFunction) else (type(this), attr)
            return self.context.call_implementation(self.builder, key, full_sig, [receiver, *args])
        if isinstance(fnty, types.Function):
            return self.context.call_implementation(self.builder, fnty.typing_key, sig, args)
        if isinstance(fnty, types.FunctionType):  # a first-class function: call its address
            from ember.lowering.function_pointers import call_function_pointer

            pointer = self.load(expr.func)
            return call_function_pointer(self.context, self.builder, fnty, pointer, args)
        if isinstance(fnty, types.Callable):  # an extension's callable type: its @lower_builtin
            key = fnty.get_impl_key(sig)
            return self.context.call_implementation(self.builder, key, sig, args)
        raise LoweringError(f"cannot call a value of type {fnty}", expr.loc)

    def _folded_arguments(self, fnty: types.Type, expr: ir.Call, sig: Signature) -> list:
        """Argument values in the callee's parameter order (`sig.pysig`): positional, then
        keyword arguments by name, then the defaults of omitted parameters as constants."""
        params = list(sig.pysig.parameters.values())
        if called_method(fnty) is not None:
            params = params[1:]  # the receiver is passed apart
        keywords = dict(expr.kws)
        values = []
        for index, (param, typ) in enumerate(zip(params, sig.args)):
            if index < len(expr.args):
                values.append(self.load_as(expr.args[index], typ))
            elif param.name in keywords:
                values.append(self.load_as(keywords[param.name], typ))
            else:
                values.append(self.context.get_constant_generic(self.builder, typ, param.default))
        return values

    def call_dispatcher(self, fnty: types.DispatcherType, expr: ir.Call, sig: Signature):
        dispatcher = fnty.dispatcher
        values = {id(var): self.load(var) for var in expr.sources()}
        arg_types = {id(var): self.typemap[var.name] for var in expr.sources()}
        ordered = dispatcher.fold_call_arguments(
            expr.args, dict(expr.kws), lambda var: (values[id(var)], arg_types[id(var)])
        )
        return self.call_specialization(dispatcher, sig.args, ordered, sig.return_type, expr.loc)

    def call_specialization(self, dispatcher, formals, ordered, return_type, loc) -> llvm.Value:
        """Call `dispatcher`'s specialization for `formals` with the (value, type) pairs of
        `fold_call_arguments`; the result as `return_type`."""
        args = []
        for formal, (value, actual) in zip(formals, ordered):
            if value is None:  # an omitted argument: its default, as a constant
                args.append(self.context.get_constant(formal, actual))
            elif isinstance(value, list):  # the extra arguments, packed as the *args tuple
                args.append(self._pack_tuple(value, formal))
            else:
                args.append(self.context.cast(self.builder, value, actual, formal))
        target = dispatcher.compiled_for_call(formals)
        if target.signature is None:  # still being typed: a cycle through another function
            raise UnsupportedError(
                f"mutual recursion: the return type of {dispatcher.py_func.__qualname__} is not "
                f"known yet when {self.func_ir.qualname} calls it; give it a return path that "
                "does not recurse before the recursive one, or an explicit signature",
                loc,
            )
        result = self.context.call_compiled(self.builder, target, args)
        callee_return = target.signature.return_type
        return self.context.cast(self.builder, result, callee_return, return_type)

    def _pack_tuple(self, items: list, tuple_type: types.BaseTuple) -> llvm.Value:
        packed = llvm.Constant(self.context.value_type(tuple_type), llvm.Undefined)
        for index, ((value, actual), formal) in enumerate(zip(items, tuple_type.types)):
            item = self.context.cast(self.builder, value, actual, formal)
            packed = self.builder.insert_value(packed, item, index)
        return packed


def called_method(fnty: types.Type) -> tuple[types.Type, str] | None:
    """(receiver type, method name) when calling a value of `fnty` calls a method: a bound
    method, or a value whose type has a `__call__` method (a jitclass instance, a type, an
    enum class)."""
    if isinstance(fnty, types.BoundFunction):
        return fnty.this, fnty.attr
    if calls_a_method(fnty):
        return fnty, "__call__"
    return None
