"""Issue 2: the public API, as Numba's: `jit`/`njit`, signature strings, the dispatcher's
attributes and introspection, and the accepted options."""

from __future__ import annotations

import math

import pytest

import ember
from ember import jit, njit, types
from ember.errors import EmberWarning, TypingError

PASSES = [
    "bytecode analysis",
    "IR generation",
    "untyped rewrites",
    "type inference",
    "typed rewrites",
    "nopython lowering",
    "machine code",
]


def scaled(x, n):
    """Multiply x by n."""
    return x * n


# ---------------------------------------------------------------------------- decorators


def test_jit_is_nopython_by_default():
    holder = object()

    def uses_an_object(x):
        return holder

    dispatcher = jit(uses_an_object)
    with pytest.raises(TypingError, match="Untyped"):  # no fallback to object mode
        dispatcher(1)
    assert jit(forceobj=True)(uses_an_object)(1) is holder  # object mode only when asked
    with pytest.warns(EmberWarning, match="falls back to object mode"):
        assert jit(nopython=False)(uses_an_object)(1) is holder


@pytest.mark.parametrize(
    "decorate",
    [jit, njit, jit(), njit(), jit(nopython=True), njit(cache=False)],
    ids=["jit", "njit", "jit()", "njit()", "jit(nopython=True)", "njit(cache=False)"],
)
def test_decorator_spellings(decorate):
    compiled = decorate(scaled)
    assert compiled(3, 4) == 12
    assert compiled(1.5, 2) == 3.0
    assert compiled.signatures == [(types.int64, types.int64), (types.float64, types.int64)]


def test_signature_string_compiles_eagerly_and_converts_arguments():
    compiled = jit("float64(float64, int64)")(scaled)
    assert compiled.signatures == [(types.float64, types.int64)]  # before any call
    assert set(compiled.stats) == {(types.float64, types.int64)}
    result = compiled(2, 3)  # the int 2 converts to float64
    assert result == 6.0 and type(result) is float
    with pytest.raises(TypeError, match="No matching definition"):
        compiled(1j, 2)  # no new compilation for an explicit signature
    assert compiled.signatures == [(types.float64, types.int64)]


def test_declared_return_type_is_honored():
    @njit("float64(int64)")
    def identity(x):
        return x

    assert repr(identity(3)) == "3.0"

    @njit("int32(float64)")
    def truncate(x):
        return x

    assert truncate(2.75) == 2 and type(truncate(2.75)) is int


def test_list_of_signatures():
    compiled = njit(["int64(int64)", "float64(float64)", types.complex128(types.complex128)])(
        lambda x: x + x
    )
    assert compiled.signatures == [(types.int64,), (types.float64,), (types.complex128,)]
    assert compiled(2) == 4 and type(compiled(2)) is int
    assert compiled(2.5) == 5.0
    assert compiled(1j) == 2j
    with pytest.raises(TypeError, match="No matching definition"):
        compiled((1, 2))


def test_signature_of_tuples_and_explicit_types():
    @njit("UniTuple(float64, 2)(float64, Tuple((int64, float64)))")
    def pair(x, t):
        return (x + t[0], x * t[1])

    assert pair(1.0, (2, 3.0)) == (3.0, 3.0)
    assert njit(types.int64(types.int64, types.int64))(scaled)(6, 7) == 42


# ---------------------------------------------------------------------------- dispatcher


def test_dispatcher_keeps_the_functions_identity():
    compiled = njit(scaled)
    assert compiled.__name__ == "scaled"
    assert compiled.__qualname__ == "scaled"
    assert compiled.__doc__ == "Multiply x by n."
    assert compiled.__module__ == __name__
    assert compiled.__wrapped__ is scaled
    assert compiled.py_func is scaled
    assert compiled.signatures == [] and compiled.overloads == {}


def test_signatures_and_overloads_grow_with_calls():
    compiled = njit(scaled)
    compiled(2, 3)
    compiled(2.0, 3)
    compiled(2, 3)
    expected = [(types.int64, types.int64), (types.float64, types.int64)]
    assert compiled.signatures == expected
    assert list(compiled.overloads) == expected
    result = compiled.overloads[(types.float64, types.int64)]
    assert result.signature.return_type is types.float64
    assert result.signature.args == (types.float64, types.int64)


def test_inspect_types_llvm_and_asm():
    compiled = njit(scaled)
    compiled(2, 3)
    compiled(2.0, 3)
    annotation = compiled.inspect_types()
    assert annotation.count("ANNOTATION") == 2
    assert "# --- LINE" in annotation and "x * n  :: int64" in annotation
    assert "x * n  :: float64" in compiled.inspect_types((types.float64, types.int64))
    llvm = compiled.inspect_llvm()
    assert set(llvm) == set(compiled.signatures)
    assert f'i32 @"{__name__}.scaled$' in llvm[(types.int64, types.int64)]  # optimized IR
    assert "alloca" not in llvm[(types.int64, types.int64)]
    assert "fmul double" in compiled.inspect_llvm((types.float64, types.int64))
    asm = compiled.inspect_asm()
    assert set(asm) == set(compiled.signatures)
    assert f"{__name__}.scaled$" in asm[(types.int64, types.int64)]


def test_stats_are_seconds_per_pass():
    compiled = njit(scaled)
    compiled(2, 3)
    (timings,) = compiled.stats.values()
    assert list(timings) == PASSES
    assert all(isinstance(seconds, float) and 0.0 <= seconds < 10.0 for seconds in timings.values())


def test_calls_from_python_use_keywords_and_defaults():
    @njit
    def weighted(a, b=2, *, c=0.5):
        return a * b + c

    assert weighted(1) == weighted.py_func(1) == 2.5
    assert weighted(1, c=1.0) == 3.0
    assert weighted(b=3, a=2) == 6.5


def test_each_call_computes_with_its_own_argument_types():
    identity = njit(lambda x: x)
    assert identity(1) == 1
    assert identity(True) is True

    parts = njit(lambda x: x.conjugate())
    assert parts(1j) == -1j
    assert parts(2.5) == 2.5 and type(parts(2.5)) is float


# ---------------------------------------------------------------------------- options


def test_options_are_accepted():
    def divide(a, b):
        return a / b

    for options in [
        {"fastmath": True},
        {"fastmath": {"nsz", "arcp"}},
        {"boundscheck": True},
        {"boundscheck": False},
        {"error_model": "python"},
        {"error_model": "numpy"},
        {"cache": True},
        {"nogil": True},
        {"nopython": True},
    ]:
        assert jit(**options)(divide)(1.0, 4.0) == 0.25, options


def _emitted_ir(compiled) -> str:
    """The LLVM IR ember emitted, before LLVM optimized it."""
    return next(iter(compiled.overloads.values())).library.llvm_ir


def test_fastmath_flags_reach_the_llvm_ir():
    compiled = njit(fastmath=True)(lambda a, b: a * b + 1.0)
    compiled(1.0, 2.0)
    assert "fmul fast double" in _emitted_ir(compiled)
    assert "fast" in next(iter(compiled.inspect_llvm().values()))  # kept by the optimizer
    selective = njit(fastmath={"nsz", "arcp"})(lambda a, b: a * b + 1.0)
    selective(1.0, 2.0)
    assert "fmul arcp nsz double" in _emitted_ir(selective)
    plain = njit(lambda a, b: a * b + 1.0)
    plain(1.0, 2.0)
    assert "fmul double" in _emitted_ir(plain)


def test_error_model_decides_division_by_zero():
    def divide(a, b):
        return a / b

    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        njit(error_model="python")(divide)(1.0, 0.0)
    assert njit(error_model="numpy")(divide)(1.0, 0.0) == math.inf


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="error_model"):
        njit(error_model="c")(scaled)
    refused = njit(no_such_option=True)(scaled)  # as Numba: decorating succeeds, calls fail
    with pytest.raises(TypeError, match="unknown jit option"):
        refused(1.0, 2.0)
    with pytest.raises(TypeError, match="unknown jit option"):
        # a signature compiles at once
        njit("float64(float64, float64)", no_such_option=True)(scaled)


@pytest.mark.parametrize("option", ["no_cpython_wrapper", "no_cfunc_wrapper", "_nrt"])
def test_numba_wrapper_options_are_accepted(option):
    def halve_sum(a, b):
        return (a + b) / 2

    assert njit(**{option: True})(halve_sum)(3, 4) == halve_sum(3, 4)
    assert njit(**{option: False})(halve_sum)(1.5, 2) == halve_sum(1.5, 2)


def test_public_names():
    for name in ("jit", "njit", "typeof", "types", "TypingError", "UnsupportedError"):
        assert hasattr(ember, name)
    assert ember.typeof(1.5) is types.float64
    assert ember.typeof((1, 2.0)) == types.Tuple((types.int64, types.float64))


@pytest.mark.parametrize(
    "ember_type, value",
    [
        (types.int32, 7),
        (types.uint8, 255),
        (types.float32, 1.1),
        (types.float64, 3),
        (types.complex128, 2),
        (types.boolean, 0),
        (types.int16, -5.0),
    ],
)
def test_number_types_called_on_values_convert_them_as_numpy(ember_type, value):
    """`int32(x)` in Python is NumPy's int32 of x (as in Numba); of types, a signature."""
    import numpy as np

    converted = ember_type(value)
    expected = np.dtype(ember_type.name).type(value)
    assert type(converted) is type(expected) and converted == expected
    assert str(ember_type(types.int64)) == f"(int64,) -> {ember_type}"


def test_number_type_casts_inside_python_callers_of_jitted_code():
    def inner(a, flag):
        if flag:
            a = types.int64(0)
        return a

    compiled_inner = njit(inner)
    for value, flag in ((1, 0), (1, 1), (-3, 0)):
        assert compiled_inner(types.int32(value), flag) == inner(types.int32(value), flag)
