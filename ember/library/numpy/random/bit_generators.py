"""`Generator.bit_generator` in compiled code and the raw draws of a bit generator:
`next_uint32`, `next_uint64`, `next_double` and `next_float` call the function pointers of
NumPy's `bitgen_t` (so they advance the same state NumPy's methods do), in Python and compiled
code alike."""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload, overload_attribute
from ember.library.numpy.random.generator import GeneratorModel
from ember.lowering import arrays as refs
from ember.lowering.function_pointers import _Callee
from ember.lowering.models import register_model
from ember.typing.signature import signature

_ptr = llvm.PointerType()


# the Generator's value ({meminfo, bitgen_t*, Generator}) seen as its bit generator
register_model(types.NumPyRandomBitGeneratorType)(GeneratorModel)


@intrinsic
def _bit_generator_of(typingctx, rng):
    def codegen(context, builder, sig, args):
        refs.incref(builder, sig.args[0], args[0])  # the bit generator shares the Generator's
        value = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        for index in range(3):
            value = builder.insert_value(value, builder.extract_value(args[0], index), index)
        return value

    if not isinstance(rng, types.NumPyRandomGeneratorType):
        return None
    return signature(types.npy_bitgen, rng), codegen


@overload_attribute(types.NumPyRandomGeneratorType, "bit_generator")
def _generator_bit_generator(rng):
    return lambda rng: _bit_generator_of(rng)


# bitgen_t is {void *state; uint64 (*next_uint64)(void *); uint32 (*next_uint32)(void *);
# double (*next_double)(void *); uint64 (*next_raw)(void *)}: slot -> (result type, its IR)
_SLOTS = {
    "next_uint64": (1, types.uint64, llvm.IntType(64)),
    "next_uint32": (2, types.uint32, llvm.IntType(32)),
    "next_double": (3, types.float64, llvm.DoubleType()),
}


def _call_slot(name: str):
    slot, result_type, result_ir = _SLOTS[name]

    def typer(typingctx, bitgen):
        if not isinstance(bitgen, types.NumPyRandomBitGeneratorType):
            return None
        return signature(result_type, bitgen), codegen

    def codegen(context, builder, sig, args):
        bitgen = builder.extract_value(args[0], 1)
        fields = [builder.gep(bitgen, [llvm.Constant(llvm.IntType(64), k)], source_etype=_ptr)
                  for k in (0, slot)]  # fmt: skip
        state, function = (builder.load(field, typ=_ptr) for field in fields)
        return builder.call(_Callee(function, llvm.FunctionType(result_ir, [_ptr])), [state])

    typer.__name__ = f"_{name}"
    return intrinsic(typer)


_INTRINSICS = {name: _call_slot(name) for name in _SLOTS}


class _BitgenStruct(ctypes.Structure):
    _fields_ = [("state", ctypes.c_void_p)] + [
        (name, ctypes.c_void_p) for name in ("next_uint64", "next_uint32", "next_double")
    ]


_CTYPES = {"next_uint64": ctypes.c_uint64, "next_uint32": ctypes.c_uint32,
           "next_double": ctypes.c_double}  # fmt: skip


def _python_draw(name: str, bit_generator: np.random.BitGenerator):
    """One raw draw in the interpreter (through the same bitgen_t compiled code calls)."""
    address = bit_generator.ctypes.bit_generator.value
    struct = _BitgenStruct.from_address(address)
    function = ctypes.CFUNCTYPE(_CTYPES[name], ctypes.c_void_p)(getattr(struct, name))
    return function(struct.state)


def next_uint64(bitgen):
    """The next raw 64-bit draw of a NumPy bit generator."""
    return np.uint64(_python_draw("next_uint64", bitgen))


def next_uint32(bitgen):
    """The next 32-bit draw of a NumPy bit generator (half of a 64-bit one may be buffered)."""
    return np.uint32(_python_draw("next_uint32", bitgen))


def next_double(bitgen):
    """The next double in [0, 1) of a NumPy bit generator."""
    return np.float64(_python_draw("next_double", bitgen))


def next_float(bitgen):
    """The next float32 in [0, 1): the top 24 bits of a 32-bit draw, as NumPy's
    next_float."""
    return np.float32((int(next_uint32(bitgen)) >> 8) * (1.0 / 16777216.0))


def _register(function, name: str) -> None:
    draw = _INTRINSICS[name]

    @overload(function)
    def _select(bitgen):
        if isinstance(bitgen, types.NumPyRandomBitGeneratorType):
            return lambda bitgen: draw(bitgen)
        return None


for _name in _SLOTS:
    _register(globals()[_name], _name)


@overload(next_float)
def _select_next_float(bitgen):
    if not isinstance(bitgen, types.NumPyRandomBitGeneratorType):
        return None
    draw = _INTRINSICS["next_uint32"]
    return lambda bitgen: np.float32((draw(bitgen) >> 8) * (1.0 / 16777216.0))
