"""Branches on `arg is None`, `isinstance(arg, classes)`, `a.ndim` or `len(t)` decided by the
argument's type, or on constants (`if DEBUG:` with a global flag), pruned before type inference.

`def f(a, b=None): if b is None: return a; return a + b` called without b types b as none:
the test is known while compiling, and the other branch (which could not be typed: `a + None`)
is dropped, as Numba's dead-branch pruning does; likewise `if isinstance(a, str): return a + "!"`
called with an int drops the string branch. Only parameters that are never reassigned (and
variables bound once to a constant: `x = ONE`) are decided this way; a reassigned one becomes
Optional and is tested at run time. Globals and
closure variables are frozen when compiling, so a test of them alone or against constants
(`if DEBUG:`, `if LEVEL > 2:`, `if flag is True:`) is decided too.

Before:  $c = b is $none ; branch $c, 10, 20        (b: none)
After:   jump 10                                    (block 20 removed if nothing else reaches it)
"""

from __future__ import annotations

import operator

from ember import types
from ember.errors import TypingError
from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels, remove_unread_assignments
from ember.rewrites.variable_webs import split_variable_webs


def prune_none_branches(
    func_ir: ir.FunctionIR, arg_types: tuple, known: dict[str, types.Type] | None = None
) -> bool:
    """Prune the branches decided by argument types, or by the types `known` for variables
    bound once (a `literal_unroll` loop variable in one copy of the body); True when the IR
    changed."""
    known = known or {}
    definitions = func_ir._definitions
    changed = False
    for block in func_ir.blocks.values():
        branch = block.terminator
        if not isinstance(branch, ir.Branch):
            continue
        outcome = _decided(func_ir, branch.cond, definitions, arg_types, known)
        if outcome is not None:
            target = branch.truebr if outcome else branch.falsebr
            block.body[-1] = ir.Jump(target, branch.loc)
            _fold_test(func_ir, branch.cond, outcome)
            changed = True
    if changed:
        _remove_unreachable(func_ir)
        for block in func_ir.blocks.values():  # place the dels again for the new edges
            block.body = [stmt for stmt in block.body if not isinstance(stmt, ir.Del)]
        _remove_unread_constants(func_ir)
        split_variable_webs(func_ir)  # a removed join may have tied two webs of a variable
        insert_dels(func_ir)
    return changed


def prune_by_inferred_types(
    func_ir: ir.FunctionIR, arg_types: tuple, typemap_of
) -> dict[str, types.Type]:
    """Prune the `match` cases and `isinstance(value, classes)` tests decided by the types
    typing found for their subjects (`typemap_of(func_ir)`: the types of a failed inference):
    `isinstance(a[i], complex)` of a complex array drops the branch written for reals, as
    Numba decides isinstance() while typing. Returns the subject types the pruning relied
    on (empty when nothing was pruned), which the caller checks against the final typing (a
    failed inference may not have seen every definition of a variable)."""
    subjects = _typed_subjects(func_ir)
    if not subjects:
        return {}
    typemap = typemap_of(func_ir)
    known = {
        name: typemap[name]
        for name in subjects
        if name in typemap and not isinstance(typemap[name], types.Optional)
    }
    return known if known and prune_none_branches(func_ir, arg_types, known) else {}


def _typed_subjects(func_ir: ir.FunctionIR) -> set[str]:
    """The variables a match test (sequence, mapping or class pattern) or an isinstance()
    with constant classes reads: what a type found by typing can decide."""
    from ember.ir.starred import match_mapping, match_sequence

    tests = (match_mapping, match_sequence)
    subjects = set()
    definitions = func_ir._definitions
    for _, stmt in func_ir.statements():
        if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
            continue
        call = stmt.value
        callee = _single(call.func.name, definitions)
        value = getattr(callee, "value", None)
        if not isinstance(callee, ir.Global) or call.kws or call.vararg is not None:
            continue
        if len(call.args) == 1 and (value in tests or hasattr(value, "class_pattern")):
            subjects.add(call.args[0].name)
        elif value is isinstance and len(call.args) == 2:
            if _constant_classes(call.args[1], definitions) is not None:
                subjects.add(call.args[0].name)
    return subjects


def _fold_test(func_ir: ir.FunctionIR, cond: ir.Var, outcome: bool) -> None:
    """The decided test becomes its constant, so its operands (`isinstance`'s classes, such as
    `bytes`, which need not type) are left unread."""
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign) and stmt.target.name == cond.name:
            if isinstance(stmt.value, ir.Call):
                stmt.value = ir.Const(outcome, stmt.loc)


def _remove_unread_constants(func_ir: ir.FunctionIR) -> None:
    """Drop globals, constants and tuples of them that nothing reads any more."""
    pure = (ir.Global, ir.FreeVar, ir.Const, ir.BuildTuple)
    remove_unread_assignments(func_ir.blocks, lambda stmt: isinstance(stmt.value, pure))


def _single(name: str, definitions: dict) -> object | None:
    found = definitions.get(name, ())
    return found[0] if len(found) == 1 else None


def _decided(
    func_ir: ir.FunctionIR, cond: ir.Var, definitions: dict, arg_types: tuple, known: dict
) -> bool | None:
    """The value of `cond` when it is `param is None` / `is not None` decided by a type,
    `if param:` with a None argument, or a test of constants."""
    constant = _constant_test(cond, definitions, arg_types, known)
    if constant is not None:
        return constant
    test = _single(cond.name, definitions)
    if isinstance(_argument_type(cond, definitions, arg_types, known), types.NoneType):
        return False
    pattern = _sequence_pattern_decided(test, definitions, arg_types, known)
    if pattern is not None:
        return pattern
    if isinstance(test, ir.Call):
        return _isinstance_decided(func_ir, test, definitions, arg_types, known)
    if not isinstance(test, ir.BinOp) or test.fn not in (operator.is_, operator.is_not):
        return None
    sides = [_single(var.name, definitions) for var in (test.lhs, test.rhs)]
    is_none_const = [isinstance(d, ir.Const) and d.value is None for d in sides]
    if is_none_const[0] == is_none_const[1]:
        return None
    param = sides[1] if is_none_const[0] else sides[0]
    pattern = _class_pattern_decided(param, definitions, arg_types, known)
    if pattern is not None:  # `case Point(...)`: its attributes are None when no Point
        return not pattern if test.fn is operator.is_ else pattern
    arg_type = _argument_type(param, definitions, arg_types, known)
    if arg_type is None or isinstance(arg_type, types.Optional):
        return None  # known only at run time
    is_none = isinstance(arg_type, types.NoneType)
    return is_none if test.fn is operator.is_ else not is_none


_COMPARISONS = (
    operator.is_,
    operator.is_not,
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
)
_NOT_CONSTANT = object()


def _constant_test(cond: ir.Var, definitions: dict, arg_types: tuple, known: dict) -> bool | None:
    """The truth of `cond` when it is a constant, `not` one, or a comparison of two."""
    value = _constant_scalar(cond, definitions)
    if value is not _NOT_CONSTANT:
        return bool(value)
    test = _single(cond.name, definitions)
    if isinstance(test, ir.UnaryOp) and test.fn is operator.not_:
        inner = _constant_test(test.value, definitions, arg_types, known)
        return None if inner is None else not inner
    if not (isinstance(test, ir.BinOp) and test.fn in _COMPARISONS):
        return None
    sides = [_semantic_constant(var, definitions, arg_types, known) for var in (test.lhs, test.rhs)]
    if _NOT_CONSTANT in sides:
        return None
    try:
        return bool(test.fn(*sides))
    except TypeError:  # (`1 < "a"`: left for typing to report)
        return None


def _constant_scalar(var: ir.Var, definitions: dict) -> object:
    """The None, bool, int, float or str a variable holds through single copies of a
    constant, a global or a closure variable, else _NOT_CONSTANT."""
    value: object = var
    for _ in range(len(definitions) + 2):
        if not isinstance(value, ir.Var):
            break
        value = _single(value.name, definitions)
    if isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):
        found = value.value
        if found is None or type(found) in (bool, int, float, str):
            return found
    return _NOT_CONSTANT


def _semantic_constant(var: ir.Var, definitions: dict, arg_types: tuple, known: dict) -> object:
    """A constant, or a value its argument's type decides: `a.ndim` of an array, `len(t)` of
    a tuple (so `if a.ndim == 1:` keeps only the branch written for a's rank, as in Numba)."""
    value = _constant_scalar(var, definitions)
    if value is not _NOT_CONSTANT:
        return value
    found = _single(var.name, definitions)
    if isinstance(found, ir.GetAttr) and found.attr == "ndim":
        owner = _argument_type(found.value, definitions, arg_types, known)
        return owner.ndim if isinstance(owner, types.Array) else _NOT_CONSTANT
    if isinstance(found, ir.Call) and len(found.args) == 1 and not found.kws:
        function = _single(found.func.name, definitions)
        owner = _argument_type(found.args[0], definitions, arg_types, known)
        if isinstance(function, ir.Global) and function.value is len:
            return len(owner) if isinstance(owner, types.BaseTuple) else _NOT_CONSTANT
    return _NOT_CONSTANT


def _sequence_pattern_decided(
    test: object, definitions: dict, arg_types: tuple, known: dict
) -> bool | None:
    """A `case (x, y):` test decided by the subject's type: `match_sequence(subject)` (and
    `match_mapping(subject)` of `case {"k": v}:`), and
    `len(subject) == 2` (or `>=` with a star) of a tuple, whose other branch (unpacking a
    tuple of another length) could not be typed."""
    from ember.ir.starred import match_mapping, match_sequence
    from ember.library.builtins.starred import is_mapping_type, is_sequence_type

    def called(call: object, function: object) -> ir.Var | None:
        """The one argument of `call` when it calls the global `function`."""
        if not (isinstance(call, ir.Call) and len(call.args) == 1 and not call.kws):
            return None
        callee = _single(call.func.name, definitions)
        return call.args[0] if isinstance(callee, ir.Global) and callee.value is function else None

    def subject_type(subject: ir.Var) -> types.Type | None:
        return _subject_type(subject, definitions, arg_types, known)

    for test_of, is_kind in ((match_sequence, is_sequence_type), (match_mapping, is_mapping_type)):
        subject = called(test, test_of)
        if subject is not None:
            typ = subject_type(subject)
            undecided = typ is None or isinstance(typ, types.Optional)  # (typing refuses it)
            return None if undecided else is_kind(typ)
    if not (isinstance(test, ir.BinOp) and test.fn in _COMPARISONS[2:]):
        return None
    subject = called(_single(test.lhs.name, definitions), len)
    count = _constant_scalar(test.rhs, definitions)
    if subject is None or type(count) is not int:
        return None
    typ = subject_type(subject)
    return bool(test.fn(len(typ), count)) if isinstance(typ, types.BaseTuple) else None


def _class_pattern_decided(
    value: object, definitions: dict, arg_types: tuple, known: dict
) -> bool | None:
    """Whether a class pattern (`case Point(x, y):`, a call of a class_matcher function)
    matches, decided by the subject's type."""
    from ember.library.builtins.sequences import is_instance_of

    if not (isinstance(value, ir.Call) and len(value.args) == 1):
        return None
    callee = _single(value.func.name, definitions)
    cls = getattr(getattr(callee, "value", None), "class_pattern", None)
    if not isinstance(callee, ir.Global) or cls is None:
        return None
    typ = _subject_type(value.args[0], definitions, arg_types, known)
    if typ is None or isinstance(typ, types.Optional):
        return None  # known only at run time
    try:
        return is_instance_of(typ, (cls,))
    except TypingError as error:  # a class compiled code does not know
        raise TypingError(f"class pattern {cls.__name__}(...): {error}", value.loc) from None


def _subject_type(
    subject: ir.Var, definitions: dict, arg_types: tuple, known: dict
) -> types.Type | None:
    """The type of a `match` subject known before typing (it passes from case to case)."""
    origins = ir.copied_values(subject, definitions)
    origin = origins[0] if len(origins) == 1 else None
    if isinstance(origin, ir.BuildTuple):
        return types.Tuple([types.none] * len(origin.items))  # only its length counts
    if isinstance(origin, ir.Arg):
        return arg_types[origin.index] if origin.index < len(arg_types) else None
    return _argument_type(subject, definitions, arg_types, known)


def _isinstance_decided(
    func_ir: ir.FunctionIR, call: ir.Call, definitions: dict, arg_types: tuple, known: dict
) -> bool | None:
    """The value of `isinstance(param, classes)` with constant classes, from param's type
    (a parameter reassigned later is decided by the definition that reaches the test)."""
    from ember.library.builtins.sequences import is_instance_of

    function = _single(call.func.name, definitions)
    if not (isinstance(function, ir.Global) and function.value is isinstance):
        return None
    if len(call.args) != 2 or call.kws or call.vararg is not None:
        return None
    subject: object = call.args[0]
    if subject.name not in known and len(definitions.get(subject.name, ())) > 1:
        reaching = _reaching_values(func_ir, call, subject.name)
        subject = reaching[0] if len(reaching) == 1 else None
    arg_type = _argument_type(subject, definitions, arg_types, known)
    classes = _constant_classes(call.args[1], definitions)
    if arg_type is None or classes is None or isinstance(arg_type, types.Optional):
        return None  # known only at run time
    return is_instance_of(arg_type, classes)


def _reaching_values(func_ir: ir.FunctionIR, expr: ir.Expr, name: str) -> list:
    """The values of the assignments to `name` that reach the statement computing `expr`."""
    predecessors = func_ir.predecessors()
    pending = [
        (label, index)
        for label, block in func_ir.blocks.items()
        for index, stmt in enumerate(block.body)
        if isinstance(stmt, ir.Assign) and stmt.value is expr
    ]
    found, seen = [], set()
    while pending:
        label, end = pending.pop()
        for stmt in reversed(func_ir.blocks[label].body[:end]):
            if isinstance(stmt, ir.Assign) and stmt.target.name == name:
                if not any(stmt.value is value for value in found):
                    found.append(stmt.value)
                break
        else:
            for predecessor in predecessors[label]:
                if predecessor not in seen:
                    seen.add(predecessor)
                    pending.append((predecessor, len(func_ir.blocks[predecessor].body)))
    return found


def _constant_classes(var: ir.Var, definitions: dict) -> tuple | None:
    """The classes a variable holding a global class or a tuple of them stands for."""
    value = _single(var.name, definitions)
    if isinstance(value, ir.BuildTuple):
        parts = [_constant_classes(item, definitions) for item in value.items]
        return None if None in parts else tuple(c for part in parts for c in part)
    constant = _constant_value(value, definitions)
    found = constant if isinstance(constant, tuple) else (constant,)
    return found if all(isinstance(c, type) for c in found) else None


def _constant_value(value: object, definitions: dict) -> object:
    """The object a global, a free variable or `module.name` of one stands for, else None."""
    if isinstance(value, (ir.Global, ir.FreeVar)):
        return value.value
    if isinstance(value, ir.GetAttr):
        owner = _constant_value(_single(value.value.name, definitions), definitions)
        return getattr(owner, value.attr, None) if owner is not None else None
    return None


def _argument_type(
    value: object, definitions: dict, arg_types: tuple, known: dict
) -> types.Type | None:
    """The type of the argument, known variable or constant a chain of single copies starts
    from, or None."""
    for _ in range(len(definitions) + 2):
        if isinstance(value, ir.Arg):
            return arg_types[value.index] if value.index < len(arg_types) else None
        if isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):
            return _constant_type(value.value)
        if isinstance(value, ir.Yield):  # nothing can be sent into a compiled generator
            return types.none
        if isinstance(value, ir.StaticGetItem):  # `i, x = (k, item)` of an unrolled enumerate
            value = _display_item(value, definitions)
        if not isinstance(value, ir.Var):
            return None
        if value.name in known:
            return known[value.name]
        value = _single(value.name, definitions)
    return None


def _display_item(getitem: ir.StaticGetItem, definitions: dict) -> ir.Var | None:
    """Item `getitem.index` of the tuple display `getitem.value` holds (unpacked or not)."""
    source = ir.origin_of(getitem.value, definitions)
    if isinstance(source, ir.ExhaustIter):
        source = ir.origin_of(source.value, definitions)
    if not (isinstance(source, ir.BuildTuple) and type(getitem.index) is int):
        return None
    return (
        source.items[getitem.index]
        if -len(source.items) <= getitem.index < len(source.items)
        else None
    )


_CONSTANT_CLASSES = (type(None), bool, int, float, complex, str, bytes, tuple)


def _constant_type(value: object) -> types.Type | None:
    """The type of a constant (`x = 1`, or a frozen global) an isinstance() test reads."""
    if type(value) not in _CONSTANT_CLASSES:
        return None
    from ember.dispatcher.typeof import typeof_or_none

    return typeof_or_none(value)


def _remove_unreachable(func_ir: ir.FunctionIR) -> None:
    reached = set()
    pending = [func_ir.entry]
    while pending:
        label = pending.pop()
        if label not in reached:
            reached.add(label)
            pending.extend(func_ir.successors(label))  # (exception handlers included)
    for label in list(func_ir.blocks):
        if label not in reached:
            del func_ir.blocks[label]
            func_ir.exception_handlers.pop(label, None)
