"""Calls to LLVM intrinsics by base name, declared on demand with their type-mangled name
(`llvm.sqrt.f64`, `llvm.fptosi.sat.i64.f64`)."""

from __future__ import annotations

import platform

from llvmlite import ir as llvm

#: The host is x86-64: target-specific intrinsics (`llvm.x86.*`) may be emitted.
X86_64 = platform.machine().lower() in ("x86_64", "amd64")


def _suffix(typ: llvm.Type) -> str:
    if isinstance(typ, llvm.IntType):
        return f"i{typ.width}"
    if isinstance(typ, llvm.DoubleType):
        return "f64"
    if isinstance(typ, llvm.FloatType):
        return "f32"
    raise TypeError(f"no intrinsic suffix for {typ}")


def call_intrinsic(
    builder: llvm.IRBuilder,
    name: str,
    operands: list,
    return_type: llvm.Type | None = None,
    overloaded: list[llvm.Type] | None = None,
) -> llvm.Value:
    """Emit `call @<name>.<suffixes>(operands)`; suffixes come from `overloaded` types
    (default: the first operand's type), the return type defaults to the first operand's."""
    return_type = return_type or operands[0].type
    overloaded = overloaded if overloaded is not None else [operands[0].type]
    symbol = ".".join([name, *(_suffix(t) for t in overloaded)])
    module = builder.module
    function = module.globals.get(symbol)
    if function is None:
        fnty = llvm.FunctionType(return_type, [op.type for op in operands])
        function = llvm.Function(module, fnty, symbol)
    return builder.call(function, list(operands))


def call_c_library(builder: llvm.IRBuilder, name: str, operands: list) -> llvm.Value:
    """Call the C math library's `name` (all operands and the result of the first operand's
    type) under a private symbol, so that LLVM cannot swap it for its own rewrite: it turns
    `pow(x, 2.0)` into `x * x`, which rounds differently in rare cases from the C pow that
    CPython calls."""
    symbol = f"ember.libm.{name}"
    _publish(symbol, name)
    module = builder.module
    function = module.globals.get(symbol)
    if function is None:
        fnty = llvm.FunctionType(operands[0].type, [op.type for op in operands])
        function = llvm.Function(module, fnty, symbol)
    return builder.call(function, list(operands))


_published: set[str] = set()


def _publish(symbol: str, name: str) -> None:
    if symbol in _published:
        return
    from ember.codegen.symbols import libm_symbol

    libm_symbol(name)
    _published.add(symbol)
