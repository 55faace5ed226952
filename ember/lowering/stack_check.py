"""A stack-depth check before each recursive native call: deep recursion raises RecursionError
instead of overflowing the thread's stack.

Two ways to raise it. A recursive function that owns no reference-counted values unwinds:
its public symbol is a small entry that records a resume point (`llvm.eh.sjlj.setjmp`, in a
pthread-specific slot) and calls the body, and an overflow deep in the body jumps straight back
there, so the recursion itself carries no exception-status checks (fib runs as fast as without
the check). A function that owns references raises through the ordinary status return, so
every frame releases what it holds.

The limit lives in the thread control block slot that x86-64 Linux reserves for split-stack
code (`%fs:0x70`, glibc's `__private_ss`): a per-thread word that MCJIT code can read without
thread-local-storage relocations, which MCJIT cannot resolve. The slot holds the bitwise NOT
of the lowest safe stack address, so the zero a new thread starts with reads as "everything is
too low" and sends the first check down the slow path, which computes the real limit once per
thread with `pthread_getattr_np`. Other platforms get no check.
"""

from __future__ import annotations

import ctypes
import functools

from llvmlite import binding as llvm_binding
from llvmlite import ir as llvm

from ember.lowering import callconv

_word = llvm.IntType(64)
_i32 = llvm.IntType(32)
_pointer = llvm.PointerType()
_REFRESH = "ember_stack_limit_refresh"
_UNWIND = "ember_recursion_unwind"
_RESUME_KEY = "ember_recursion_resume_key"
_JMP_BUF = llvm.ArrayType(_pointer, 5)  # frame, resume address, stack pointer, 2 spare
_PTHREAD_ATTR_BYTES = 64  # sizeof(pthread_attr_t) is 56 on x86-64 glibc
# Stack kept free below the deepest recursive frame for the callees it may still make (the
# runtime, NumPy's C functions, BLAS, Python in object-mode blocks).
_MIN_RESERVE = 256 * 1024
_RESERVE_SHARE = 8  # or an eighth of the stack, when that is more


@functools.cache
def supported() -> bool:
    triple = llvm_binding.get_process_triple()
    return triple.startswith("x86_64") and "linux" in triple


def overflow_message(callee: str) -> str:
    return (
        f"maximum recursion depth exceeded in compiled function {callee} (the thread's stack "
        "is nearly full; make the recursion shallower or iterative)"
    )


def emit_check(context, builder: llvm.IRBuilder, callee: str, unwinding: bool) -> None:
    """Raise RecursionError when the stack pointer is below this thread's limit: by jumping
    back to the recursion's entry (`unwinding`, see `define_unwinding_entry`) or by returning
    the exception status."""
    if not supported():
        return
    stack_pointer = _read_register(builder, "movq %rsp, $0")
    limit = builder.not_(_read_register(builder, "movq %fs:0x70, $0"))
    too_deep = builder.icmp_unsigned("<", stack_pointer, limit)
    with builder.if_then(too_deep, likely=False):
        refresh = _in_module(builder.module, _REFRESH, _define_refresh)
        overflowed = builder.icmp_unsigned("!=", builder.call(refresh, [stack_pointer]), _i32(0))
        if unwinding:
            with builder.if_then(overflowed, likely=False):
                builder.call(_in_module(builder.module, _UNWIND, _define_unwind), [])
                builder.unreachable()
        else:
            context.guard(builder, overflowed, RecursionError, overflow_message(callee))


def define_unwinding_entry(context, body: llvm.Function, symbol: str, callee: str) -> None:
    """`symbol`: the public entry of the recursive function `body`, which calls itself
    directly. Each entry records where an overflow in its body resumes (restoring the
    enclosing entry's point on the way out), so a jump skips only frames of this body."""
    module = body.module
    entry_type = llvm.FunctionType(_i32, body.function_type.args)  # the convention's own
    entry = llvm.Function(module, entry_type, symbol)
    entry.attributes.add("noinline")
    builder = llvm.IRBuilder(entry.append_basic_block("entry"))
    key = builder.load(_resume_key(module), typ=_i32)
    enclosing = builder.call(_declare(module, "pthread_getspecific", _pointer, [_i32]), [key])
    set_resume = _declare(module, "pthread_setspecific", _i32, [_i32, _pointer])
    resume = builder.alloca(_JMP_BUF)
    frame = builder.call(_declare(module, "llvm.frameaddress.p0", _pointer, [_i32]), [_i32(0)])
    builder.store(frame, builder.gep(resume, [_i32(0), _i32(0)]))
    stack = builder.call(_declare(module, "llvm.stacksave.p0", _pointer, []), [])
    builder.store(stack, builder.gep(resume, [_i32(0), _i32(2)]))
    setjmp = _declare(module, "llvm.eh.sjlj.setjmp", _i32, [_pointer])
    resumed = builder.icmp_unsigned("!=", builder.call(setjmp, [resume]), _i32(0))
    with builder.if_then(resumed, likely=False):
        builder.call(set_resume, [key, enclosing])
        context.raise_error(builder, RecursionError, overflow_message(callee))
    builder.call(set_resume, [key, resume])
    status = builder.call(body, list(entry.args))
    if callconv.returns_in_registers(body):  # the entry's caller reads the result at retptr
        builder.store(builder.extract_value(status, 1), entry.args[0])
        status = builder.extract_value(status, 0)
    builder.call(set_resume, [key, enclosing])
    builder.ret(status)


def _define_unwind(module: llvm.Module, name: str) -> llvm.Function:
    """`void unwind()`: jump to the resume point of the outermost recursive call."""
    unwind = llvm.Function(module, llvm.FunctionType(llvm.VoidType(), []), name)
    unwind.linkage = "linkonce_odr"
    for attribute in ("noinline", "cold", "noreturn"):
        unwind.attributes.add(attribute)
    builder = llvm.IRBuilder(unwind.append_basic_block("entry"))
    key = builder.load(_resume_key(module), typ=_i32)
    resume = builder.call(_declare(module, "pthread_getspecific", _pointer, [_i32]), [key])
    longjmp = _declare(module, "llvm.eh.sjlj.longjmp", llvm.VoidType(), [_pointer])
    builder.call(longjmp, [resume])
    builder.unreachable()
    return unwind


def _resume_key(module: llvm.Module) -> llvm.GlobalVariable:
    """The pthread key whose per-thread value is the active resume point (or NULL)."""
    existing = module.globals.get(_RESUME_KEY)
    if existing is not None:
        return existing
    publish_symbols()
    key = llvm.GlobalVariable(module, _i32, _RESUME_KEY)
    key.linkage = "external"
    key.global_constant = True
    return key


@functools.cache
def publish_symbols() -> ctypes.c_uint32 | None:
    """Create the pthread key and publish it to the JIT (once per process)."""
    if not supported():
        return None
    key = ctypes.c_uint32(0)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.pthread_key_create(ctypes.byref(key), None) != 0:
        raise OSError(ctypes.get_errno(), "pthread_key_create failed for the recursion check")
    llvm_binding.add_symbol(_RESUME_KEY, ctypes.addressof(key))
    return key  # cached: its memory must outlive every module that reads it


def _read_register(builder: llvm.IRBuilder, assembly: str) -> llvm.Value:
    asm = llvm.InlineAsm(llvm.FunctionType(_word, []), assembly, "=r", side_effect=True)
    return builder.call(asm, [])


def _in_module(module: llvm.Module, name: str, define) -> llvm.Function:
    existing = module.globals.get(name)
    return existing if existing is not None else define(module, name)


def _define_refresh(module: llvm.Module, name: str) -> llvm.Function:
    """`i32 refresh(sp)`: 1 when the thread's limit is set and `sp` is below it; otherwise
    computes and stores the limit (first call on this thread) and answers for `sp`."""
    refresh = llvm.Function(module, llvm.FunctionType(_i32, [_word]), name)
    refresh.linkage = "linkonce_odr"
    refresh.attributes.add("noinline")
    refresh.attributes.add("cold")
    (stack_pointer,) = refresh.args
    builder = llvm.IRBuilder(refresh.append_basic_block("entry"))
    stored = _read_register(builder, "movq %fs:0x70, $0")
    known = builder.icmp_unsigned("!=", stored, _word(0))
    with builder.if_then(known):
        builder.ret(_i32(1))
    limit = _thread_stack_limit(builder)
    store = llvm.InlineAsm(
        llvm.FunctionType(llvm.VoidType(), [_word]), "movq $0, %fs:0x70", "r", side_effect=True
    )
    builder.call(store, [builder.not_(limit)])
    too_deep = builder.icmp_unsigned("<", stack_pointer, limit)
    builder.ret(builder.zext(too_deep, _i32))
    return refresh


def _thread_stack_limit(builder: llvm.IRBuilder) -> llvm.Value:
    """The lowest address recursion may reach on this thread: the stack's low end plus a
    reserve (0 when the C library cannot tell, which disables the check on this thread)."""
    module = builder.module
    attr = builder.alloca(llvm.ArrayType(llvm.IntType(8), _PTHREAD_ATTR_BYTES))
    attr.align = 16
    low = builder.alloca(_pointer)
    size = builder.alloca(_word)
    builder.store(llvm.Constant(_pointer, None), low)
    builder.store(_word(0), size)
    self_id = builder.call(_declare(module, "pthread_self", _word, []), [])
    failed = builder.call(
        _declare(module, "pthread_getattr_np", _i32, [_word, _pointer]), [self_id, attr]
    )
    with builder.if_then(builder.icmp_signed("==", failed, _i32(0))):
        builder.call(
            _declare(module, "pthread_attr_getstack", _i32, [_pointer, _pointer, _pointer]),
            [attr, low, size],
        )
        builder.call(_declare(module, "pthread_attr_destroy", _i32, [_pointer]), [attr])
    low_address = builder.ptrtoint(builder.load(low, typ=_pointer), _word)
    stack_size = builder.load(size, typ=_word)
    share = builder.udiv(stack_size, _word(_RESERVE_SHARE))
    reserve = builder.select(
        builder.icmp_unsigned(">", share, _word(_MIN_RESERVE)), share, _word(_MIN_RESERVE)
    )
    half = builder.udiv(stack_size, _word(2))  # small thread stacks keep half for recursion
    reserve = builder.select(builder.icmp_unsigned(">", reserve, half), half, reserve)
    known = builder.icmp_unsigned("!=", low_address, _word(0))
    return builder.select(known, builder.add(low_address, reserve), _word(0))


def _declare(module: llvm.Module, name: str, result: llvm.Type, params: list) -> llvm.Function:
    """A C library function or an LLVM intrinsic, declared once per module."""
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return llvm.Function(module, llvm.FunctionType(result, params), name)
