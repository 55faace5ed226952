"""String primitives for lowering: the fields of a string value, allocation through the runtime,
code point loads and stores, copies, constants and CPython's SipHash-1-3 string hash.

A string value is the struct of `StringModel`: {meminfo, data, length, kind}. `kind` is the
byte width of each code point (1, 2 or 4, CPython's PEP 393 kinds) and is always the narrowest
that holds the string's largest code point, as in CPython: so two strings are equal exactly
when their kinds, lengths and bytes are, and the hash of the bytes equals CPython's `hash`.
`meminfo` owns the characters (NULL for a constant, whose characters live in the module).
"""

from __future__ import annotations

import ctypes

from llvmlite import ir as llvm

from ember import types
from ember.codegen.symbols import external_global
from ember.lowering import arrays as refs
from ember.lowering.models import MeminfoStructModel, register_model
from ember.runtime import nrt

i8, i16, i32, i64, ptr = refs.i8, llvm.IntType(16), refs.i32, refs.i64, refs.ptr
const = refs.const
_MEMINFO, _DATA, _LENGTH, _KIND = 0, 1, 2, 3


@register_model(types.UnicodeType)
class StringModel(MeminfoStructModel):
    """{meminfo owning the characters, data pointer, length in code points, kind 1/2/4}."""

    def __init__(self, fe_type: types.UnicodeType) -> None:
        super().__init__(
            fe_type,
            [
                ("meminfo", types.meminfo_pointer),
                ("data", types.data_pointer),
                ("length", types.int64),
                ("kind", types.int64),
            ],
        )


STRING = llvm.LiteralStructType([ptr, ptr, i64, i64])


def data(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.extract_value(value, _DATA)


def length(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.extract_value(value, _LENGTH)


def kind(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.extract_value(value, _KIND)


def assemble(builder: llvm.IRBuilder, meminfo, data_pointer, count, width) -> llvm.Value:
    value = llvm.Constant(STRING, llvm.Undefined)
    for index, field in enumerate((meminfo, data_pointer, count, width)):
        value = builder.insert_value(value, field, index)
    return value


def allocate(context, builder: llvm.IRBuilder, width: llvm.Value, count: llvm.Value):
    """A new string of `count` code points of `width` bytes, characters uninitialized."""
    value, failed = allocate_or_fail(builder, width, count)
    context.guard(builder, failed, MemoryError, "unable to allocate a string")
    return value


def allocate_or_fail(builder: llvm.IRBuilder, width: llvm.Value, count: llvm.Value) -> tuple:
    """(new string, i1 allocation failed) for code outside a compiled function (boxing
    wrappers), which reports the failure its own way; the string is unusable when it failed."""
    nbytes = builder.mul(width, count)
    nbytes = builder.select(builder.icmp_signed(">", nbytes, const(0)), nbytes, const(1))
    meminfo = nrt.emit_allocate_small(builder, nbytes)
    failed = builder.icmp_unsigned("==", meminfo, llvm.Constant(ptr, None))
    address = builder.gep(meminfo, [const(nrt.SMALL_HEADER_SIZE)], inbounds=True, source_etype=i8)
    return assemble(builder, meminfo, address, count, width), failed


def view(builder: llvm.IRBuilder, value: llvm.Value, start, stop) -> llvm.Value:
    """`value[start:stop]` sharing its characters: a new reference to the same meminfo."""
    meminfo = builder.extract_value(value, _MEMINFO)
    nrt.emit_incref(builder, meminfo)
    width = kind(builder, value)
    base = data(builder, value)
    address = builder.gep(base, [builder.mul(start, width)], inbounds=True, source_etype=i8)
    return assemble(builder, meminfo, address, builder.sub(stop, start), width)


# ---------------------------------------------------------------------------- code points


def _by_kind(builder: llvm.IRBuilder, width: llvm.Value, emit) -> llvm.Value | None:
    """`emit(builder, int_type)` for the kind in `width`, one branch per kind; the i32 results
    (if `emit` returns any) meet in a phi."""
    after = builder.append_basic_block("kind.end")
    branches = [builder.append_basic_block(f"kind{n}") for n in (1, 2, 4)]
    switch = builder.switch(width, branches[2])
    switch.add_case(const(1), branches[0])
    switch.add_case(const(2), branches[1])
    incoming = []
    for block, int_type in zip(branches, (i8, i16, i32)):
        builder.position_at_end(block)
        result = emit(builder, int_type)
        incoming.append((result, builder.block))
        builder.branch(after)
    builder.position_at_end(after)
    if incoming[0][0] is None:
        return None
    phi = builder.phi(i32)
    for result, block in incoming:
        phi.add_incoming(result, block)
    return phi


def load_code_point(builder, width, base: llvm.Value, index: llvm.Value) -> llvm.Value:
    """The code point at `index` of the characters at `base` of kind `width`, as an i32."""

    def emit(b, int_type):
        address = b.gep(base, [index], inbounds=True, source_etype=int_type)
        loaded = b.load(address, typ=int_type)
        return loaded if int_type is i32 else b.zext(loaded, i32)

    return _by_kind(builder, width, emit)


def store_code_point(builder, width, base: llvm.Value, index: llvm.Value, code) -> None:
    def emit(b, int_type):
        address = b.gep(base, [index], inbounds=True, source_etype=int_type)
        b.store(code if int_type is i32 else b.trunc(code, int_type), address)

    _by_kind(builder, width, emit)


def copy_code_units(builder, target: llvm.Value, source: llvm.Value, unit, count) -> None:
    """Copy `count` code points stored as `unit` integers at `source` (a NumPy string
    element: i32 for 'U', i8 for 'S') into the string `target`, narrowing or widening each to
    the string's kind (one loop per kind, which LLVM can vectorize)."""
    base = data(builder, target)

    def emit(b, int_type):
        with refs.for_range(b, count) as index:
            code = b.load(b.gep(source, [index], inbounds=True, source_etype=unit), typ=unit)
            if int_type.width < unit.width:
                code = b.trunc(code, int_type)
            elif int_type.width > unit.width:
                code = b.zext(code, int_type)
            b.store(code, b.gep(base, [index], inbounds=True, source_etype=int_type))

    _by_kind(builder, kind(builder, target), emit)


def code_point(builder: llvm.IRBuilder, value: llvm.Value, index: llvm.Value) -> llvm.Value:
    return load_code_point(builder, kind(builder, value), data(builder, value), index)


def copy(builder: llvm.IRBuilder, target, target_start, source, source_start, count) -> None:
    """Copy `count` code points between two strings (a memcpy when their kinds agree)."""
    target_kind, source_kind = kind(builder, target), kind(builder, source)
    same = builder.icmp_signed("==", target_kind, source_kind)
    with builder.if_else(same) as (fast, slow):
        with fast:
            refs.memcpy(
                builder,
                _address(builder, target, target_start),
                _address(builder, source, source_start),
                builder.mul(count, source_kind),
            )
        with slow:
            with refs.for_range(builder, count) as offset:
                code = code_point(builder, source, builder.add(source_start, offset))
                position = builder.add(target_start, offset)
                store_code_point(builder, target_kind, data(builder, target), position, code)


def copy_bytes(builder: llvm.IRBuilder, target: llvm.Value, source: llvm.Value) -> None:
    """Fill a new string from characters of its own kind at `source`."""
    nbytes = builder.mul(length(builder, target), kind(builder, target))
    refs.memcpy(builder, data(builder, target), source, nbytes)


def _address(builder, value, index) -> llvm.Value:
    offset = builder.mul(index, kind(builder, value))
    return builder.gep(data(builder, value), [offset], inbounds=True, source_etype=i8)


def max_code_point(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    """The largest code point of the string (0 when it is empty), as an i32."""
    slot = refs.alloca_in_entry(builder, i32, "max.code")
    builder.store(llvm.Constant(i32, 0), slot)
    with refs.for_range(builder, length(builder, value)) as index:
        code = code_point(builder, value, index)
        best = builder.load(slot, typ=i32)
        builder.store(builder.select(builder.icmp_unsigned(">", code, best), code, best), slot)
    return builder.load(slot, typ=i32)


def kind_of_code_point(builder: llvm.IRBuilder, code: llvm.Value) -> llvm.Value:
    """The narrowest kind (i64 1, 2 or 4) that holds the i32 `code`."""
    wide = builder.icmp_unsigned(">", code, llvm.Constant(i32, 0xFFFF))
    latin = builder.icmp_unsigned("<", code, llvm.Constant(i32, 0x100))
    return builder.select(wide, const(4), builder.select(latin, const(1), const(2)))


# ---------------------------------------------------------------------------- constants


def canonical_bytes(text: str) -> tuple[int, bytes]:
    """(kind, characters) of `text` as CPython stores it."""
    largest = max(map(ord, text), default=0)
    width = 1 if largest < 0x100 else 2 if largest < 0x10000 else 4
    encoding = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[width]
    return width, text.encode(encoding, "surrogatepass")


def constant(builder: llvm.IRBuilder, text: str) -> llvm.Value:
    """The string `text` with its characters in a constant of the module (no meminfo)."""
    width, raw = canonical_bytes(text)
    module = builder.module
    name = f"ember.str.{hash_bytes_key(raw, width)}"
    glob = module.globals.get(name)
    if glob is None:
        array_type = llvm.ArrayType(i8, max(len(raw), 1))
        glob = llvm.GlobalVariable(module, array_type, name)
        glob.initializer = llvm.Constant(array_type, bytearray(raw or b"\0"))
        glob.global_constant = True
        glob.linkage = "internal"
        glob.unnamed_addr = True
    pointer = builder.bitcast(glob, ptr)
    return assemble(builder, llvm.Constant(ptr, None), pointer, const(len(text)), const(width))


def hash_bytes_key(raw: bytes, width: int) -> str:
    import hashlib

    return f"{width}.{hashlib.sha1(raw).hexdigest()[:16]}"


# ---------------------------------------------------------------------------- hashing


def publish_symbol(symbol: str = "ember.hash_secret") -> str:
    """The address of `_Py_HashSecret` (its first two words are the SipHash key)."""
    from ember.codegen.symbols import publish

    words = (ctypes.c_uint64 * 2).in_dll(ctypes.pythonapi, "_Py_HashSecret")
    publish(symbol, ctypes.addressof(words))
    return symbol


def _rotl(builder, value, bits: int) -> llvm.Value:
    left = builder.shl(value, const(bits))
    return builder.or_(left, builder.lshr(value, const(64 - bits)))


def _sip_round(builder, v: list) -> list:
    v0, v1, v2, v3 = v
    for a, b, c, d, s, t in ((0, 1, 2, 3, 13, 16), (2, 1, 0, 3, 17, 21)):
        state = [v0, v1, v2, v3]
        state[a] = builder.add(state[a], state[b])
        state[c] = builder.add(state[c], state[d])
        state[b] = builder.xor(_rotl(builder, state[b], s), state[a])
        state[d] = builder.xor(_rotl(builder, state[d], t), state[c])
        state[a] = _rotl(builder, state[a], 32)
        v0, v1, v2, v3 = state
    return [v0, v1, v2, v3]


def _define_siphash(module: llvm.Module) -> llvm.Function:
    """`i64 ember.siphash13(ptr data, i64 nbytes)`: CPython's `_Py_HashBytes` with the
    process key (0 for no bytes, -1 becomes -2)."""
    name = "ember.siphash13"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = llvm.Function(module, llvm.FunctionType(i64, [ptr, i64]), name)
    function.linkage = "internal"
    source, nbytes = function.args
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    # Read from this process's key at run time (not baked in): cached code hashes as the
    # process that loads it does, whatever its PYTHONHASHSEED.
    secret = external_global(module, publish_symbol(), i64)
    k0 = builder.load(secret, typ=i64, align=8)
    k1 = builder.load(builder.gep(secret, [const(1)], source_etype=i64), typ=i64, align=8)
    start = [
        builder.xor(k0, const(0x736F6D6570736575)),
        builder.xor(k1, const(0x646F72616E646F6D)),
        builder.xor(k0, const(0x6C7967656E657261)),
        builder.xor(k1, const(0x7465646279746573)),
    ]
    words = builder.udiv(nbytes, const(8))
    entry = builder.block
    header = builder.append_basic_block("words")
    body = builder.append_basic_block("word")
    tail = builder.append_basic_block("tail")
    builder.branch(header)
    builder.position_at_end(header)
    index = builder.phi(i64)
    state = [builder.phi(i64) for _ in range(4)]
    index.add_incoming(const(0), entry)
    for phi, value in zip(state, start):
        phi.add_incoming(value, entry)
    builder.cbranch(builder.icmp_unsigned("<", index, words), body, tail)
    builder.position_at_end(body)
    address = builder.gep(source, [index], source_etype=i64)
    word = builder.load(address, typ=i64, align=1)
    v = list(state)
    v[3] = builder.xor(v[3], word)
    v = _sip_round(builder, v)
    v[0] = builder.xor(v[0], word)
    index.add_incoming(builder.add(index, const(1)), builder.block)
    for phi, value in zip(state, v):
        phi.add_incoming(value, builder.block)
    builder.branch(header)

    builder.position_at_end(tail)
    last = builder.shl(nbytes, const(56))
    consumed = builder.mul(words, const(8))
    remaining = builder.sub(nbytes, consumed)
    slot = builder.alloca(i64)
    builder.store(last, slot)
    with refs.for_range(builder, remaining) as offset:
        address = builder.gep(source, [builder.add(consumed, offset)], source_etype=i8)
        byte = builder.zext(builder.load(address, typ=i8), i64)
        shifted = builder.shl(byte, builder.mul(offset, const(8)))
        builder.store(builder.or_(builder.load(slot, typ=i64), shifted), slot)
    b = builder.load(slot, typ=i64)
    v = list(state)
    v[3] = builder.xor(v[3], b)
    v = _sip_round(builder, v)
    v[0] = builder.xor(v[0], b)
    v[2] = builder.xor(v[2], const(0xFF))
    for _ in range(3):
        v = _sip_round(builder, v)
    result = builder.xor(builder.xor(v[0], v[1]), builder.xor(v[2], v[3]))
    result = builder.select(builder.icmp_signed("==", result, const(-1)), const(-2), result)
    empty = builder.icmp_signed("==", nbytes, const(0))
    builder.ret(builder.select(empty, const(0), result))
    return function


def string_hash(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    """CPython's `hash(s)` for this process (the string is in its canonical kind)."""
    nbytes = builder.mul(length(builder, value), kind(builder, value))
    return builder.call(_define_siphash(builder.module), [data(builder, value), nbytes])


def compare_bytes(builder: llvm.IRBuilder, a: llvm.Value, b: llvm.Value, nbytes) -> llvm.Value:
    """i32 `memcmp(a, b, nbytes)` (the C library's, which LLVM also knows by name)."""
    memcmp = builder.module.globals.get("memcmp")
    if memcmp is None:
        memcmp = llvm.Function(builder.module, llvm.FunctionType(i32, [ptr, ptr, i64]), "memcmp")
    return builder.call(memcmp, [a, b, nbytes])
