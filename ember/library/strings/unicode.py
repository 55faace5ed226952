"""Character properties and case mappings of every code point for compiled string methods, as
CPython's own Unicode database gives them, emitted as constant two-level lookup tables.

The tables ship precomputed for one Unicode version (ember/library/strings/unicode_data.py); under a
Python whose Unicode version differs they are rebuilt from `unicodedata` on first use (~1 s).
Regenerate the shipped file with `python -m ember.library.strings.unicode`.
"""

from __future__ import annotations

import array
import base64
import functools
import sys
import unicodedata
import zlib

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic
from ember.typing.signature import signature

# Every code point whose str.isspace() is true (checked against CPython by the tests).
SPACES = (
    *range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
    0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
)  # fmt: skip

(
    ALPHA, DECIMAL, DIGIT, NUMERIC, UPPER, LOWER, CASED, CASE_IGNORABLE, TITLE, PRINTABLE,
    IDENTIFIER_START, IDENTIFIER_CONTINUE,
) = (1 << bit for bit in range(12))  # fmt: skip
# The fields of a record: flags, decimal value (-1 if none), then the upper, lower, title and
# casefold mappings, each a code point delta or EXPANDS + k for expansion k (three code points,
# padded with zeros).
FLAGS, DECIMAL_VALUE, UPPER_MAP, LOWER_MAP, TITLE_MAP, FOLD_MAP = range(6)
RECORD_FIELDS = 6
EXPANDS = 1 << 24
SHIFT = 7  # code points per block of the second level: 1 << SHIFT
_MAX_CODE = 0x110000
_I8, _I16, _I32, _I64 = (llvm.IntType(bits) for bits in (8, 16, 32, 64))
_CASE_METHODS = (str.upper, str.lower, str.title, str.casefold)


def _is_case_ignorable(ch: str, cased: bool) -> bool:
    """Unicode's Case_Ignorable, read from CPython's own final-sigma rule: a case-ignorable
    character is skipped when CPython looks for the cased neighbours of a capital sigma."""
    if cased:
        return ("AΣ" + ch).lower()[1] == "ς"
    return ("A" + ch + "Σ").lower()[-1] == "ς"


def _flags_of(ch: str) -> int:
    cased = ch.isupper() or ch.islower() or unicodedata.category(ch) == "Lt"
    flags = 0
    for flag, test in (
        (ALPHA, ch.isalpha()),
        (DECIMAL, ch.isdecimal()),
        (DIGIT, ch.isdigit()),
        (NUMERIC, ch.isnumeric()),
        (UPPER, ch.isupper()),
        (LOWER, ch.islower()),
        (TITLE, unicodedata.category(ch) == "Lt"),
        (CASED, cased),
        (CASE_IGNORABLE, _is_case_ignorable(ch, cased)),
        (PRINTABLE, ch.isprintable()),
        (IDENTIFIER_START, ch.isidentifier()),  # XID_Start or '_'
        (IDENTIFIER_CONTINUE, ("a" + ch).isidentifier()),  # XID_Continue
    ):
        if test:
            flags |= flag
    return flags


def build_tables() -> dict[str, array.array]:
    """index1 (block of each 1 << SHIFT code points), index2 (record of each code point within
    its block), records and expansions, from this CPython's `unicodedata`."""
    records: dict[tuple[int, ...], int] = {}
    expansions: dict[tuple[int, ...], int] = {}
    per_code = array.array("H")
    for code in range(_MAX_CODE):
        ch = chr(code)
        fields = [_flags_of(ch), unicodedata.decimal(ch, -1)]
        for method in _CASE_METHODS:
            mapped = method(ch)
            if len(mapped) == 1:
                fields.append(ord(mapped) - code)
            else:
                key = tuple([*map(ord, mapped), 0, 0][:3])
                fields.append(EXPANDS + expansions.setdefault(key, len(expansions)))
        per_code.append(records.setdefault(tuple(fields), len(records)))
    blocks: dict[bytes, int] = {}
    index1 = array.array("H")
    index2 = array.array("H")
    size = 1 << SHIFT
    for start in range(0, _MAX_CODE, size):
        block = per_code[start : start + size]
        number = blocks.setdefault(block.tobytes(), len(blocks))
        if number == len(index2) >> SHIFT:  # a block not seen before
            index2.extend(block)
        index1.append(number)
    return {
        "index1": index1,
        "index2": index2,
        "records": array.array("i", [v for record in records for v in record]),
        "expansions": array.array("i", [v for key in expansions for v in key]),
    }


def _pack(found: dict[str, array.array]) -> str:
    raw = b"".join(len(t).to_bytes(4, "little") + t.typecode.encode() for t in found.values())
    raw += b"".join(t.tobytes() for t in found.values())
    return base64.b64encode(zlib.compress(raw, 9)).decode()


def _unpack(text: str) -> dict[str, array.array]:
    raw = zlib.decompress(base64.b64decode(text))
    names = ("index1", "index2", "records", "expansions")
    heads = [
        (int.from_bytes(raw[5 * i : 5 * i + 4], "little"), chr(raw[5 * i + 4])) for i in range(4)
    ]
    found, offset = {}, 5 * len(names)
    for name, (count, typecode) in zip(names, heads):
        table = array.array(typecode)
        table.frombytes(raw[offset : offset + count * table.itemsize])
        offset += count * table.itemsize
        found[name] = table
    return found


@functools.cache
def tables() -> dict[str, array.array]:
    from ember.library.strings import unicode_data

    if unicode_data.UNIDATA_VERSION == unicodedata.unidata_version:
        return _unpack(unicode_data.TABLES)
    return build_tables()


def _table_global(module: llvm.Module, name: str) -> llvm.GlobalVariable:
    symbol = f"ember.unicode.{name}"
    glob = module.globals.get(symbol)
    if glob is None:
        table = tables()[name]
        data = table.tobytes() if sys.byteorder == "little" else _little_endian(table)
        array_type = llvm.ArrayType(_I8, len(data))
        glob = llvm.GlobalVariable(module, array_type, symbol)
        glob.initializer = llvm.Constant(array_type, bytearray(data))
        glob.global_constant = True
        glob.linkage = "internal"
        glob.align = 4
    return glob


def _little_endian(table: array.array) -> bytes:
    swapped = array.array(table.typecode, table)
    swapped.byteswap()
    return swapped.tobytes()


def _load(builder, module, name: str, item: llvm.IntType, index: llvm.Value) -> llvm.Value:
    glob = _table_global(module, name)
    base = builder.bitcast(glob, item.as_pointer())
    return builder.load(builder.gep(base, [index], inbounds=True, source_etype=item), typ=item)


def _property_reader(typingctx, code, field):
    """`property(code, field) -> int64`: `field` of the record of `code` (a valid code point)."""

    def codegen(context, builder, sig, args):
        code_value, field_value = args
        module = builder.module
        block = _load(builder, module, "index1", _I16, builder.lshr(code_value, _I64(SHIFT)))
        within = builder.and_(code_value, _I64((1 << SHIFT) - 1))
        slot = builder.add(builder.shl(builder.zext(block, _I64), _I64(SHIFT)), within)
        record = builder.zext(_load(builder, module, "index2", _I16, slot), _I64)
        position = builder.add(builder.mul(record, _I64(RECORD_FIELDS)), field_value)
        return builder.sext(_load(builder, module, "records", _I32, position), _I64)

    return signature(types.int64, types.int64, types.int64), codegen


def _expansion_reader(typingctx, index):
    """`expansion(index) -> int64`: code point `index` of the expansions (three per entry)."""

    def codegen(context, builder, sig, args):
        value = _load(builder, builder.module, "expansions", _I32, args[0])
        return builder.sext(value, _I64)

    return signature(types.int64, types.int64), codegen


unicode_property = intrinsic(_property_reader)
expansion_of = intrinsic(_expansion_reader)


def _write_shipped_tables() -> None:
    """Regenerate ember/library/strings/unicode_data.py for this Python's Unicode version."""
    import pathlib

    text = _pack(build_tables())
    lines = [text[i : i + 96] for i in range(0, len(text), 96)]
    body = "\n".join(f'    "{line}"' for line in lines)
    path = pathlib.Path(__file__).with_name("unicode_data.py")
    path.write_text(
        '"""The Unicode tables of ember/library/strings/unicode.py for one Unicode version,\n'
        'generated by `python -m ember.library.strings.unicode` (do not edit)."""\n\n'
        f'UNIDATA_VERSION = "{unicodedata.unidata_version}"\n'
        f"TABLES = (\n{body}\n)\n"
    )


if __name__ == "__main__":
    _write_shipped_tables()
