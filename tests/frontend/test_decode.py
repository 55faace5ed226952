"""The bytecode decoder of ember/frontend/bytecode.py gives what `dis` gives: offsets, opcode
names, arguments, argument values and source positions, on every code object of ember's own
modules and of generated functions (nested code objects included)."""

import dis
import sys
from pathlib import Path
from types import CodeType

import pytest

import ember
from ember.frontend.bytecode import _decode_instructions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from generated_blocks import block_function  # noqa: E402


def _code_objects(code: CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _code_objects(const)


def _module_codes():
    for path in sorted(Path(ember.__file__).parent.rglob("*.py")):
        yield from _code_objects(compile(path.read_text(encoding="utf-8"), str(path), "exec"))


def _dis_view(code: CodeType) -> list[tuple]:
    return [
        (inst.offset, inst.opname, inst.arg, inst.argval, tuple(inst.positions))
        for inst in dis.get_instructions(code)
    ]


def test_decoder_matches_dis_on_ember_modules():
    checked = 0
    for code in _module_codes():
        assert _decode_instructions(code) == _dis_view(code), code
        checked += 1
    assert checked > 1000


@pytest.mark.parametrize("blocks", [1, 40])
def test_decoder_matches_dis_on_generated_functions(blocks):
    code = block_function(blocks).__code__
    assert _decode_instructions(code) == _dis_view(code)


def test_extended_arguments_and_backward_jumps():
    lines = ["def f(x):", "    total = 0"]
    lines += [f"    v{k} = x + {k}" for k in range(300)]  # > 256 names and constants
    lines += ["    while total < 10:", "        total += v299", "    return total"]
    namespace = {}
    exec("\n".join(lines), namespace)
    code = namespace["f"].__code__
    assert any(inst.opname == "EXTENDED_ARG" for inst in dis.get_instructions(code))
    assert _decode_instructions(code) == _dis_view(code)


def test_bytecode_patched_with_an_extended_argument_compiles():
    """An EXTENDED_ARG spliced in after compiling (as bytecode rewriters do) selects constant
    256 + k; the position table, one entry short, must not stop the decoder."""

    def answer():
        x = 256
        return x

    code = answer.__code__
    consts = code.co_consts + (None,) * 255 + (42,)  # 42 sits at index 256 + index of 256
    resume_size = 2  # RESUME opens every 3.11 function: splice after it
    extended = bytes([dis.opmap["EXTENDED_ARG"], 1])
    raw = code.co_code[:resume_size] + extended + code.co_code[resume_size:]
    answer.__code__ = code.replace(co_code=raw, co_consts=consts)
    assert answer() == 42
    assert ember.njit(answer)() == 42
