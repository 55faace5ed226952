"""`numpy.random.Generator` in compiled code: generators passed in or made by
`np.random.default_rng(seed)`, drawing with NumPy's own C distribution functions (exported by
`numpy.random._generator`) on the generator's bit generator, so compiled code draws exactly the
numbers the same Generator draws in Python, and advances its state. Here: default_rng, the
calls into NumPy's C functions, the method registration, uniform and integers; the tables and
the other methods are in generator_distributions/_multivariate/_permutations.py.

A value is {meminfo, bitgen_t*, Generator object}: the meminfo is NULL for a generator borrowed
from the caller, and owns the object for one made in compiled code.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
import numpy.random._generator as _numpy_generator
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_method
from ember.library.numpy.random.broadcast_params import has_array, numeric_parameters
from ember.library.numpy.random.legacy import _is_size, _negative
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_none,
    make_pysig,
    numpy_dtype,
    parse_dtype,
)
from ember.lowering import arrays as refs
from ember.lowering import cgutils
from ember.lowering.models import MeminfoStructModel, register_model
from ember.lowering.pyapi import PythonAPI
from ember.runtime import nrt
from ember.typing.signature import signature

_ptr = llvm.PointerType()
_f64 = llvm.DoubleType()
_i64 = llvm.IntType(64)
_KEEPALIVE: list = [np.random.default_rng]


@register_model(types.NumPyRandomGeneratorType)
class GeneratorModel(MeminfoStructModel):
    def __init__(self, fe_type) -> None:
        super().__init__(
            fe_type,
            [
                ("meminfo", types.meminfo_pointer),
                ("bitgen", types.data_pointer),
                ("owner", types.pyobject_pointer),
            ],
        )


def _bitgen_of(pyapi: PythonAPI, generator: llvm.Value) -> llvm.Value:
    """`generator.bit_generator.ctypes.bit_generator.value`: the bitgen_t* of a Generator."""
    current, owned = generator, []
    for attribute in ("bit_generator", "ctypes", "bit_generator", "value"):
        current = pyapi.object_getattr_string(current, attribute)
        owned.append(current)
    address = pyapi.long_as_longlong(current)
    for obj in owned:
        pyapi.decref(obj)
    return pyapi.builder.inttoptr(address, _ptr)


# ---------------------------------------------------------------------------- default_rng


@overload(np.random.default_rng)
def _default_rng(seed=None):
    seed = as_type(seed)  # (omitted: the Python default None)
    if not (is_none(seed) or isinstance(types.unliteral(seed), types.Integer)):
        raise TypingError("np.random.default_rng() in compiled code takes an integer seed or None")
    if is_none(seed):
        return lambda seed=None: _make_generator(-1)
    return lambda seed=None: _make_generator(seed)


@intrinsic
def _make_generator(typingctx, seed):
    """A new Generator made by Python's np.random.default_rng (seed < 0: no seed), owned by a
    runtime block that releases it."""

    def codegen(context, builder, sig, args):
        pyapi = PythonAPI(context, builder, _KEEPALIVE)
        gil = pyapi.gil_ensure()
        make = pyapi.borrow_constant(np.random.default_rng)
        negative = builder.icmp_signed("<", args[0], llvm.Constant(_i64, 0))
        seed_obj = builder.select(negative, pyapi.make_none(), pyapi.long_from_longlong(args[0]))
        generator = pyapi.call_function_objargs(make, [seed_obj])
        pyapi.decref(seed_obj)
        failed = cgutils.is_null(builder, generator)
        bitgen = _bitgen_of(pyapi, generator)
        pyapi.gil_release(gil)
        context.guard(builder, failed, RuntimeError, "np.random.default_rng() failed")
        meminfo = nrt.emit_allocate(builder, llvm.Constant(_i64, 8))
        builder.store(generator, nrt.emit_data_pointer(builder, meminfo))
        nrt.emit_set_destructor(builder, meminfo, _release_owner(context, builder.module))
        value = cgutils.create_struct_proxy(sig.return_type)(context, builder)
        value.meminfo, value.bitgen, value.owner = meminfo, bitgen, generator
        return value._getvalue()

    return signature(types.npy_rng, types.int64), codegen


def _release_owner(context, module: llvm.Module) -> llvm.Function:
    """`void release(ptr meminfo)`: drop the Generator object the block holds (taking the GIL:
    the last reference may go in a thread that runs without it)."""
    name = "ember.npy_rng.release"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = llvm.Function(module, llvm.FunctionType(llvm.VoidType(), [_ptr]), name)
    function.linkage = "internal"
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    pyapi = PythonAPI(context, builder, _KEEPALIVE)
    owner = builder.load(nrt.emit_data_pointer(builder, function.args[0]), typ=_ptr)
    gil = pyapi.gil_ensure()
    pyapi.decref(owner)
    pyapi.gil_release(gil)
    builder.ret_void()
    return function


# ---------------------------------------------------------------------------- NumPy's C functions


@functools.cache
def _c_address(name: str) -> int:
    library = ctypes.CDLL(_numpy_generator.__file__)
    return ctypes.cast(getattr(library, name), ctypes.c_void_p).value


def publish_symbol(symbol: str) -> None:
    """`ember.numpy.<name>`: NumPy's C function `name` in this process."""
    from ember.codegen.symbols import publish

    publish(symbol, _c_address(symbol.removeprefix("ember.numpy.")))


def _call_c(builder, name: str, result: llvm.Type, args: list) -> llvm.Value:
    symbol = f"ember.numpy.{name}"
    function = builder.module.globals.get(symbol)
    if function is None:
        publish_symbol(symbol)
        fnty = llvm.FunctionType(result, [a.type for a in args])
        function = llvm.Function(builder.module, fnty, symbol)
    return builder.call(function, args)


@functools.cache
def _draw(
    name: str,
    parameters: int,
    integer_result: bool = False,
    integer_parameters: bool = False,
    single: bool = False,
):
    """An intrinsic `draw(rng, p1, ..., pn)` calling NumPy's `name(bitgen, p1, ..., pn)` (the
    parameters are doubles, int64 with `integer_parameters`, floats and a float result for the
    `single` precision functions)."""
    if single:
        result_type, parameter_type, result_ir = types.float32, types.float32, llvm.FloatType()
    else:
        result_type = types.int64 if integer_result else types.float64
        parameter_type = types.int64 if integer_parameters else types.float64
        result_ir = _i64 if integer_result else _f64

    def typer(typingctx, rng, *params):
        return signature(result_type, types.npy_rng, *([parameter_type] * parameters)), codegen

    def codegen(context, builder, sig, args):
        bitgen = builder.extract_value(args[0], 1)
        values = [
            context.cast(builder, a, t, parameter_type) for a, t in zip(args[1:], sig.args[1:])
        ]
        return _call_c(builder, name, result_ir, [bitgen, *values])

    names = ", ".join(["rng", *(f"p{k}" for k in range(parameters))])
    namespace: dict = {"typer": typer}
    exec(f"def {name}(typingctx, {names}):\n    return typer(typingctx, {names})\n", namespace)
    return intrinsic(namespace[name])


@intrinsic
def _binomial_draw(typingctx, rng, n, p):
    """NumPy's random_binomial(bitgen, p, n, binomial_t*), with a fresh zeroed binomial_t on the
    stack: its cache of constants is recomputed each call, which gives the same numbers."""

    def codegen(context, builder, sig, args):
        bitgen = builder.extract_value(args[0], 1)
        scratch = cgutils.alloca_once(builder, llvm.ArrayType(_i64, 32), zfill=True)  # > 152 bytes
        p = context.cast(builder, args[2], sig.args[2], types.float64)
        n = context.cast(builder, args[1], sig.args[1], types.int64)
        return _call_c(builder, "random_binomial", _i64, [bitgen, p, n, scratch])

    return signature(types.int64, types.npy_rng, types.int64, types.float64), codegen


@intrinsic
def _bounded_fill(typingctx, rng, offset, span, out):
    """NumPy's random_bounded_uint<width>_fill (or _bool_fill) for `out`'s item width:
    `out[i] = offset + a draw in [0, span]`, in that width's unsigned arithmetic (Lemire's
    method; 32 bits and narrower buffer the 32-bit draws, as NumPy)."""

    def codegen(context, builder, sig, args):
        bitgen = builder.extract_value(args[0], 1)
        fields = refs.unpack(builder, sig.args[3], args[3])
        dtype = sig.args[3].dtype
        width = 8 if isinstance(dtype, types.Boolean) else dtype.bitwidth
        item = llvm.IntType(width)
        bounds = [builder.trunc(a, item) if width < 64 else a for a in args[1:3]]
        use_masked = llvm.Constant(llvm.IntType(1), 0)
        name = (
            "random_bounded_bool_fill"
            if width == 8 and isinstance(dtype, types.Boolean)
            else (f"random_bounded_uint{width}_fill")
        )
        _call_c(builder, name, llvm.VoidType(),
                [bitgen, *bounds, fields.nitems, use_masked, fields.data])  # fmt: skip
        return context.get_dummy_value(types.none)

    return signature(types.none, types.npy_rng, types.uint64, types.uint64, out), codegen


# ---------------------------------------------------------------------------- methods

# (the distributions' table is in generator_distributions.py)


def _numbers(arg_types) -> bool:
    return all(isinstance(types.unliteral(t), (types.Integer, types.Float)) for t in arg_types)


# what each kind of argument may be, as said in the TypingError for another type
EXPECTED_NUMBER = "[float, int]"
EXPECTED_SIZE = "[None, int, tuple of ints]"


def check_argument(name: str, typ, accepted: bool, expected: str) -> None:
    """A TypingError naming argument `name` and the `expected` types unless `accepted`."""
    if not accepted:
        raise TypingError(
            f"Argument {name} is not one of the expected type(s): {expected} (got {typ})"
        )


def check_numbers(names, arg_types) -> None:
    for name, typ in zip(names, arg_types):
        check_argument(name, typ, _numbers([typ]), EXPECTED_NUMBER)


def check_size(size) -> None:
    check_argument("size", size, is_none(size) or _is_size(size), EXPECTED_SIZE)


def _method(name: str, params: str, variants: dict) -> None:
    """Register `rng.name(params..., size=None)` from `variants`: result dtype name ->
    (implementation without a size, with one); with a float32 variant the method also takes
    NumPy's `dtype` (float64 or float32)."""
    with_dtype = len(variants) > 1
    names = [p.split("=")[0].strip() for p in params.split(",") if p.strip()]

    def select(rng, *rest):
        *numbers, size = map(as_type, rest[:-1] if with_dtype else rest)
        arrays = has_array(numbers) and numeric_parameters(numbers)
        if not arrays:
            check_numbers(names, numbers)
        check_size(size)
        if with_dtype:
            dtype_type = as_type(rest[-1])
            try:
                dtype = str(numpy_dtype(parse_dtype(dtype_type)))
            except (TypingError, TypeError, ValueError, NotImplementedError):
                dtype = None
            check_argument("dtype", dtype_type, dtype in variants, "[np.float32, np.float64]")
            scalar, array = variants[dtype]
        else:
            ((scalar, array),) = variants.values()
            (dtype,) = variants
        if arrays:
            return _broadcast_method(name, tuple(names), dtype, with_dtype, not is_none(size))
        return scalar if is_none(size) else array

    # the overload function's parameters are NumPy's, from the table
    tail = "size=None, dtype=None" if with_dtype else "size=None"  # None: float64
    select.__signature__ = make_pysig(f"self, {params}, {tail}" if params else f"self, {tail}")
    overload_method(types.NumPyRandomGeneratorType, name, jit_options=NUMPY_ERRORS)(select)


@functools.cache
def _broadcast_method(name: str, names: tuple, dtype: str, with_dtype: bool, sized: bool):
    """`rng.name(...)` with array parameters: they broadcast together (or to `size`), then one
    draw per element in C order with that element's parameters, as NumPy's Generator draws."""
    params = ", ".join(names)
    tail = "size=None, dtype=None" if with_dtype else "size=None"
    shape = "size" if sized else " , ".join([f"np.shape({n})" for n in names])
    if not sized:
        shape = f"np.broadcast_shapes({shape})"
    lines = [
        f"def method(rng, {params}, {tail}):",
        f"    shape__ = {shape}",
        *[f"    {n}_all = np.broadcast_to(np.asarray({n}), shape__)" for n in names],
        f"    out__ = np.empty(shape__, np.{dtype})",
        "    flat__ = out__.reshape(-1)",
        "    k__ = 0",
        "    for index__ in np.ndindex(shape__):",
        f"        flat__[k__] = rng.{name}({', '.join(f'{n}_all[index__]' for n in names)}"
        + (", dtype=dtype)" if with_dtype else ")"),
        "        k__ += 1",
        "    return out__",
    ]
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - from the fixed method table
    return namespace["method"]


def distribution_method(
    name: str, params: str, checks: list, draw, dtype=np.float64, float32_draw=None
) -> None:
    """`rng.name(params..., size=None)`: NumPy's argument `checks` (condition, message; the
    helper `negative` is NumPy's "< 0"), then `draw(rng, params...)` per number; with a
    `float32_draw`, also `dtype=np.float32` drawing with it."""
    names = [p.split("=")[0].strip() for p in params.split(",") if p.strip()]
    call = ", ".join(["rng", *names])
    head = ", ".join(["rng", *names, "size", *(["dtype=None"] if float32_draw else [])])
    checking = "".join(f"    if {condition}:\n        raise ValueError({message!r})\n"
                       for condition, message in checks)  # fmt: skip
    source = (
        f"def scalar({head}):\n{checking}    return draw({call})\n"
        f"def array({head}):\n{checking}"
        f"    out = np.empty(size, result_dtype)\n"
        f"    flat = out.reshape(-1)\n"
        f"    for i in range(flat.size):\n"
        f"        flat[i] = draw({call})\n"
        f"    return out\n"
    )
    variants = {}
    for result_dtype, drawing in ((dtype, draw), (np.float32, float32_draw)):
        if drawing is None:
            continue
        namespace = {"np": np, "draw": drawing, "result_dtype": result_dtype, "negative": _negative}
        exec(source, namespace)  # noqa: S102 - from generator_distributions' fixed table
        variants[np.dtype(result_dtype).name] = (namespace["scalar"], namespace["array"])
    _method(name, params, variants)


_uniform_draw = _draw("random_uniform", 2)


def _uniform_scalar(rng, low, high, size):
    return _uniform_draw(rng, low, high - low)


def _uniform_array(rng, low, high, size):
    out = np.empty(size, np.float64)
    flat = out.reshape(-1)
    for i in range(flat.size):
        flat[i] = _uniform_draw(rng, low, high - low)
    return out


_method("uniform", "low=0.0, high=1.0", {"float64": (_uniform_scalar, _uniform_array)})


def _integer_bounds_impl(low, high):
    if high is None:
        return 0, low
    return low, high


_integer_bounds = njit(**NUMPY_ERRORS)(_integer_bounds_impl)


@functools.cache
def _integers_into(dtype: str):
    """Fill an array of `dtype` with integers in [low, high) (or [low, high] when `closed`),
    with NumPy's checks of the bounds against the dtype."""
    info = np.iinfo(dtype) if dtype != "bool" else np.iinfo(np.uint8)
    lowest, highest = int(info.min), 1 if dtype == "bool" else int(info.max)
    low_message = f"low is out of bounds for {dtype}"
    high_message = f"high is out of bounds for {dtype}"

    def fill(rng, low, high, closed, out):
        first, last = _integer_bounds(low, high)
        if not closed:
            last -= 1
        if first < lowest:
            raise ValueError(low_message)
        if last > highest:
            raise ValueError(high_message)
        if first > last:
            raise ValueError("low > high" if closed else "low >= high")
        _bounded_fill(rng, np.uint64(first), np.uint64(last) - np.uint64(first), out)

    def fill_uint64(rng, low, high, closed, out):
        # the bounds may be int64 or uint64 (2**63 and above): checked by sign, then unsigned
        first, last = _integer_bounds(low, high)
        if first < 0:
            raise ValueError(low_message)
        if last < 0:
            raise ValueError(high_message)
        start = np.uint64(first)
        stop = np.uint64(last)
        if not closed:
            if stop == 0:
                raise ValueError("low >= high")
            stop -= np.uint64(1)
        if start > stop:
            raise ValueError("low > high" if closed else "low >= high")
        _bounded_fill(rng, start, stop - start, out)

    return njit(**NUMPY_ERRORS)(fill_uint64 if dtype == "uint64" else fill)


_integers_into_int64 = _integers_into("int64")


def _integers_scalar(rng, low, high, size):
    """An int64 in [low, high), or [0, low) (the choice and permutation helpers use it too)."""
    out = np.empty(1, np.int64)
    _integers_into_int64(rng, low, high, False, out)
    return out[0]


def _integers_array(rng, low, high, size):
    out = np.empty(size, np.int64)
    _integers_into_int64(rng, low, high, False, out.reshape(-1))
    return out


@functools.cache
def _integers_impl(dtype: str, sized: bool):
    """Generator.integers(low, high, size, dtype, endpoint) for one result dtype."""
    fill = _integers_into(dtype)
    scalar_class = np.bool_ if dtype == "bool" else getattr(np, dtype)
    if not sized:

        def integers_one(rng, low, high=None, size=None, dtype=np.int64, endpoint=False):
            out = np.empty(1, scalar_class)
            fill(rng, low, high, endpoint, out)
            return out[0]

        return integers_one

    def integers_many(rng, low, high=None, size=None, dtype=np.int64, endpoint=False):
        out = np.empty(size, scalar_class)
        fill(rng, low, high, endpoint, out.reshape(-1))
        return out

    return integers_many


def _bounds(arg_types) -> bool:
    """Integers' bounds may be bools too (NumPy takes False/True as 0/1)."""
    return all(isinstance(types.unliteral(t), types.Boolean) for t in arg_types) or _numbers(
        arg_types
    )


_INTEGER_DTYPES = (
    "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8", "bool"
)  # fmt: skip


@overload_method(types.NumPyRandomGeneratorType, "integers", jit_options=NUMPY_ERRORS)
def _generator_integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
    high, size, dtype, endpoint = map(as_type, (high, size, dtype, endpoint))
    check_argument("low", low, _bounds([low]), "[bool, float, int]")
    check_argument("high", high, is_none(high) or _bounds([high]), "[None, bool, float, int]")
    check_size(size)
    try:
        dtype_name = str(numpy_dtype(parse_dtype(dtype, types.int64)))
    except (TypingError, TypeError, ValueError, NotImplementedError):
        dtype_name = None
    check_argument("dtype", dtype, dtype_name in _INTEGER_DTYPES, f"[{', '.join(_INTEGER_DTYPES)}]")
    check_argument("endpoint", endpoint, isinstance(types.unliteral(endpoint), types.Boolean),
                   "[bool]")  # fmt: skip
    return _integers_impl(dtype_name, not is_none(size))
