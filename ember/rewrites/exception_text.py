"""Stage 3: `str(e)` and `print(e)` of an exception caught by `except ... as e` show its text,
made from its arguments as CPython does ('' for none, str(arg) for one, the tuple's repr for
more, and repr(arg) for a KeyError's one): ember/library/builtins/exception_text.py.

Before:  $s = call $str(e)                           (e: caught by an `except ... as e`)
After:   $a = getattr(e, args); $f = global(exception_text); $k = const(False)
         $t = call $f($a, $k); $s = call $str($t)

`e.args` is known only for the exceptions the function raises itself (typing/exceptions.py),
so their classes tell whether `e` is a KeyError: when some are and others are not, or a
`raise` names no class, `e` is left alone (str(e) then fails to type, as before).
"""

from __future__ import annotations

from ember.ir import nodes as ir
from ember.ir.exception_text import exception_text
from ember.rewrites.registry import Rewrite, register_rewrite

_SHOWING = (str, print)


@register_rewrite("before-inference")
class RewriteExceptionText(Rewrite):
    """Give str() and print() the text of a caught exception instead of the exception."""

    def match(self, func_ir, block, typemap, calltypes) -> bool:
        if not hasattr(self, "caught"):  # once per function: the rewrite adds no exceptions
            self.caught = _caught_names(func_ir)
            self.key_error = _raises_key_errors(func_ir)
        if not self.caught or self.key_error is None:
            return False
        self.showing = {
            stmt.target.name
            for stmt in block.body
            if isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, (ir.Global, ir.FreeVar))
            and any(stmt.value.value is function for function in _SHOWING)
        }
        self.block = block
        return any(self._shows_caught(stmt) for stmt in block.body)

    def _shows_caught(self, stmt: ir.Stmt) -> bool:
        """Whether `stmt` is str(e) or print(..., e, ...) of a caught exception."""
        return (
            isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.Call)
            and stmt.value.func.name in self.showing
            and any(arg.name in self.caught for arg in stmt.value.args)
        )

    def apply(self) -> ir.Block:
        body: list[ir.Stmt] = []
        for stmt in self.block.body:
            if self._shows_caught(stmt):
                call = stmt.value
                temporaries: list[str] = []
                call.args = [self._text_of(arg, body, temporaries) for arg in call.args]
                body.append(stmt)
                body.extend(ir.Del(name, stmt.loc) for name in temporaries)
            else:
                body.append(stmt)
        self.block.body = body
        return self.block

    def _text_of(self, arg: ir.Var, body: list, temporaries: list) -> ir.Var:
        if arg.name not in self.caught:
            return arg
        loc = arg.loc
        parts = ("args", "fn", "key", "text")
        names = [f"$exc_text.{arg.name}.{len(body)}.{part}" for part in parts]
        args, function, key_error, text = (ir.Var(name, loc) for name in names)
        body.append(ir.Assign(args, ir.GetAttr(arg, "args", loc), loc))
        body.append(ir.Assign(function, ir.Global("exception_text", exception_text, loc), loc))
        body.append(ir.Assign(key_error, ir.Const(self.key_error, loc), loc))
        body.append(ir.Assign(text, ir.Call(function, [args, key_error], [], loc), loc))
        temporaries.extend(names)
        return text


def _raises_key_errors(func_ir: ir.FunctionIR) -> bool | None:
    """True when every exception the function raises is a KeyError, False when none is, None
    when it is mixed or unknown."""
    definitions: dict[str, list] = {}
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            definitions.setdefault(stmt.target.name, []).append(stmt.value)
    found: set[bool] = set()
    for block in func_ir.blocks.values():
        raised = block.terminator
        if isinstance(raised, ir.StaticRaise):
            found.add(issubclass(raised.exc_class, KeyError))
        elif isinstance(raised, ir.Raise):
            exc_class = _raised_class(raised.exception, definitions)
            if exc_class is None:
                return None
            if exc_class is not _RERAISE:
                found.add(issubclass(exc_class, KeyError))
    return None if len(found) > 1 else found == {True}


_RERAISE = object()  # `raise e` of a caught exception: the class it was raised with


def _raised_class(var: ir.Var, definitions: dict) -> type | object | None:
    """The class `raise var` raises (E or E(...) of a global class), _RERAISE, or None."""
    for _ in range(16):
        values = definitions.get(var.name, [])
        if len(values) != 1:
            return None
        value = values[0]
        if isinstance(value, ir.Var):
            var = value
        elif isinstance(value, ir.Call):
            var = value.func
        elif isinstance(value, ir.CaughtException):
            return _RERAISE
        elif isinstance(value, (ir.Global, ir.FreeVar)) and isinstance(value.value, type):
            return value.value if issubclass(value.value, BaseException) else None
        else:
            return None
    return None


def _caught_names(func_ir: ir.FunctionIR) -> set[str]:
    """Variables every definition of which is a caught exception (or a copy of one)."""
    definitions: dict[str, list] = {}
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            definitions.setdefault(stmt.target.name, []).append(stmt.value)
    caught = {
        name
        for name, values in definitions.items()
        if all(isinstance(value, ir.CaughtException) for value in values)
    }
    while True:
        found = {
            name
            for name, values in definitions.items()
            if name not in caught
            and all(isinstance(value, ir.Var) and value.name in caught for value in values)
        }
        if not found:
            return caught
        caught |= found
