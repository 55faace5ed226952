"""Character properties and case mappings for compiled string methods, taken from this CPython's
own Unicode database when first used and emitted as constant tables.

The tables cover code points below `TABLE_LIMIT` (Latin, Greek, Cyrillic, Armenian, Hebrew,
Arabic); whitespace is known for every code point. Methods that need a property of a wider
character raise NotImplementedError naming the method (see ember/library/strings_methods.py).
"""

from __future__ import annotations

import functools
import unicodedata

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic
from ember.lowering import arrays as refs
from ember.typing.signature import signature

TABLE_LIMIT = 0x800

# Every code point whose str.isspace() is true (checked against CPython by the tests).
SPACES = (
    *range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
    0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
)  # fmt: skip

ALPHA, DECIMAL, DIGIT, NUMERIC, UPPER, LOWER, CASED, CASE_IGNORABLE, TITLE = (
    1 << bit for bit in range(9)
)
_IGNORABLE_CATEGORIES = {"Mn", "Me", "Cf", "Lm", "Sk"}
_WORD_BREAK_MID = set("'.:^`\u00b7\u0387\u055f\u05f4\u2018\u2019\u2024\u2027\ufe13\ufe52\ufe55")


def _flags_of(ch: str) -> int:
    category = unicodedata.category(ch)
    flags = 0
    for flag, test in (
        (ALPHA, ch.isalpha()),
        (DECIMAL, ch.isdecimal()),
        (DIGIT, ch.isdigit()),
        (NUMERIC, ch.isnumeric()),
        (UPPER, ch.isupper()),
        (LOWER, ch.islower()),
        (TITLE, category == "Lt"),
        (CASED, ch.isupper() or ch.islower() or category == "Lt"),
        (CASE_IGNORABLE, category in _IGNORABLE_CATEGORIES or ch in _WORD_BREAK_MID),
    ):
        if test:
            flags |= flag
    return flags


@functools.cache
def tables() -> dict[str, list[int]]:
    """flags, upper, lower, title (a mapping: the code point, or -(k + 1) for entry k of
    `expansions`, three code points padded with zeros) and each decimal digit's value."""
    found: dict[str, list[int]] = {
        "flags": [],
        "upper": [],
        "lower": [],
        "title": [],
        "expansions": [],
        "decimal": [],
    }
    expansions = found["expansions"]
    for code in range(TABLE_LIMIT):
        ch = chr(code)
        found["flags"].append(_flags_of(ch))
        found["decimal"].append(unicodedata.decimal(ch, -1))
        for name, method in (("upper", str.upper), ("lower", str.lower), ("title", str.title)):
            mapped = method(ch)
            if len(mapped) == 1:
                found[name].append(ord(mapped))
            else:
                found[name].append(-(len(expansions) // 3) - 1)
                expansions.extend([*map(ord, mapped), 0, 0][:3])
    return found


def _table_global(module: llvm.Module, name: str) -> llvm.GlobalVariable:
    symbol = f"ember.unicode.{name}"
    glob = module.globals.get(symbol)
    if glob is None:
        values = tables()[name]
        array_type = llvm.ArrayType(refs.i32, len(values))
        glob = llvm.GlobalVariable(module, array_type, symbol)
        glob.initializer = llvm.Constant(array_type, [llvm.Constant(refs.i32, v) for v in values])
        glob.global_constant = True
        glob.linkage = "internal"
    return glob


def _reader(name: str):
    """An intrinsic `reader(index) -> int64` returning entry `index` of table `name`
    (unchecked: the caller keeps the index below the table's length)."""

    def reader(typingctx, index):
        def codegen(context, builder, sig, args):
            glob = _table_global(builder.module, name)
            address = builder.gep(
                glob, [refs.i32_(0), args[0]], inbounds=True, source_etype=glob.value_type
            )
            return builder.sext(builder.load(address, typ=refs.i32), refs.i64)

        return signature(types.int64, types.int64), codegen

    reader.__name__ = f"unicode_{name}"
    return intrinsic(reader)


flags_of = _reader("flags")
upper_of = _reader("upper")
lower_of = _reader("lower")
title_of = _reader("title")
expansion_of = _reader("expansions")
decimal_of = _reader("decimal")
