"""Numba's extension, jitclass, cfunc, dispatcher and types API as Numba's own test suite uses
it (found by running Numba's tests against ember; _notes/exttests_gaps.md): each test checks
values computed by plain Python/NumPy or by hand, or the exception Numba raises."""

from __future__ import annotations

import ctypes
import operator
import pickle
import sys
import typing as pt

import numpy as np
import pytest

import ember
from ember import errors, float64, int32, int64, jit, njit, typeof, types
from ember.experimental import jitclass
from ember.extending import (
    SentryLiteralArgs,
    box,
    infer_global,
    intrinsic,
    lower_builtin,
    lower_constant,
    models,
    overload,
    overload_classmethod,
    register_model,
    typeof_impl,
    unbox,
)
from ember.typing.signature import signature

# ---------------------------------------------------------------------------- extending


class _AllocArray(types.Array):
    pass


@overload_classmethod(_AllocArray, "make")
def _ol_make(cls, n):
    def impl(cls, n):
        return np.arange(n) * 2

    return impl


def test_overload_classmethod_serves_its_class_only():
    @njit
    def make(n):
        return _AllocArray.make(n)

    np.testing.assert_array_equal(make(4), [0, 2, 4, 6])

    @njit
    def on_base(n):
        return types.Array.make(n)

    with pytest.raises(errors.TypingError, match="Unknown attribute 'make'"):
        on_base(3)


def test_buffer_and_array_compatible_are_subclassable_bases():
    class IndexType(types.Buffer):
        def __init__(self, dtype, layout, tag):
            self.tag = tag
            super().__init__(dtype, 1, layout)

        @property
        def key(self):
            return self.tag, self.dtype, self.layout

    index = IndexType(types.int32, "C", "idx")
    assert index is IndexType(types.int32, "C", "idx")  # interned by key
    assert index.as_array == types.Array(types.int32, 1, "C")
    assert isinstance(types.float64[:], types.Buffer)
    assert isinstance(types.float64[:], types.ArrayCompatible)
    assert not isinstance(types.int64, types.ArrayCompatible)


class _Tripler:
    """A global typed by an extension's Callable type (infer_global(value, type))."""


class _TriplerType(types.Callable, types.Opaque):
    def __init__(self):
        super().__init__("tripler")

    def get_call_type(self, context, args, kws):
        if len(args) == 1 and isinstance(args[0], types.Integer) and not kws:
            return signature(types.int64, types.int64)
        return None

    def get_call_signatures(self):
        return [signature(types.int64, types.int64)], False


_tripler_type = _TriplerType()
register_model(_TriplerType)(models.OpaqueModel)
infer_global(_Tripler, _tripler_type)


@lower_builtin(_tripler_type, types.int64)
def _lower_tripler(context, builder, sig, args):
    return builder.mul(args[0], args[0].type(3))


@lower_constant(_TriplerType)
def _tripler_constant(context, builder, ty, pyval):
    return context.get_dummy_value()


def test_a_global_typed_by_a_callable_type():
    @njit
    def f(x):
        return _Tripler(x) + 1

    assert f(5) == 16
    assert f(-2) == -5


@intrinsic
def _subtract(typingctx, a, b):
    def codegen(context, builder, sig, args):
        return builder.sub(args[0], args[1])

    return types.int64(types.int64, types.int64), codegen


@intrinsic
def _do_nothing(typingctx, a):
    def codegen(context, builder, sig, args):
        return None  # a void intrinsic may return nothing

    return types.void(types.int64), codegen


@intrinsic
def _forgets_result(typingctx, a):
    def codegen(context, builder, sig, args):
        return None

    return types.int64(types.int64), codegen


def test_intrinsic_keywords_and_void_results():
    @njit
    def f(x, y):
        _do_nothing(x)
        return _subtract(b=y, a=x), _subtract(x, b=y)

    assert f(10, 3) == (7, 7)

    @njit
    def g(x):
        return _forgets_result(x)

    with pytest.raises(errors.LoweringError, match="non-void function returns None"):
        g(1)


def test_strict_overload_checks_the_implementation_signature():
    def target(a, b, kw=None):
        return a

    @overload(target)
    def _ol(a, b, kw=None):
        def impl(a, b, kw=12):  # another default: Numba rejects it
            return a

        return impl

    @njit
    def call(a, b):
        return target(a, b)

    with pytest.raises(errors.TypingError, match="keyword argument default values"):
        call(1, 2)

    def target2(a, b):
        return a - b

    @overload(target2, strict=False)
    def _ol2(a, b):
        return lambda x, y: x - y  # other names are fine when not strict

    @njit
    def call2(a, b):
        return target2(a, b)

    assert call2(7, 2) == 5


class _Token:
    pass


class _TokenType(types.Opaque):
    pass


_token_type = _TokenType("token")
register_model(_TokenType)(models.OpaqueModel)


@typeof_impl.register(_Token)
def _typeof_token(value, c):
    return _token_type


@unbox(_TokenType)
def _unbox_token(typ, obj, c):
    from ember.extending import NativeValue

    return NativeValue(c.context.get_dummy_value())


@box(_TokenType)
def _box_token(typ, val, c):
    return c.pyapi.long_from_longlong(c.context.get_constant(types.int64, 99))


def test_an_opaque_type_with_a_box_can_be_returned():
    @njit
    def passthrough(x):
        return x

    assert passthrough(_Token()) == 99


def test_sentry_literal_args_asks_for_the_named_argument_only():
    def combine(x, y):
        return x + y

    @overload(combine)
    def _ol(x, y):
        SentryLiteralArgs(["x"]).for_function(_ol).bind(x, y)
        return lambda x, y: x + y

    @njit
    def f(a, b):
        return combine(a, b)

    assert f(123, 321) == 444
    [(type_a, type_b)] = f.signatures
    assert isinstance(type_a, types.Literal) and type_a.literal_value == 123
    assert not isinstance(type_b, types.Literal)


def test_literally_on_an_unliteral_value_names_its_python_type():
    @njit
    def inner(x, y):
        return x + ember.literally(y)

    @njit
    def outer(a, c):
        return inner(a, c)

    with pytest.raises(errors.LiteralTypingError, match="numpy.ndarray"):
        outer(1, np.arange(3))


# ---------------------------------------------------------------------------- jitclass


def test_annotations_from_typing_and_base_classes():
    class Base:
        n: int

    @jitclass
    class Derived(Base):
        xs: pt.List[float]  # noqa: UP006 - typing's spelling, as Numba programs write it
        scale: pt.Optional[float]  # noqa: UP045
        count: int | None

        def __init__(self, n):
            self.n = n
            self.xs = ember.typed.List.empty_list(float64)
            self.scale = None
            self.count = None

    struct = Derived.class_type.instance_type.struct
    assert struct == {
        "n": types.int64,
        "xs": types.ListType(types.float64),
        "scale": types.Optional(types.float64),
        "count": types.Optional(types.int64),
    }
    assert Derived(4).n == 4


def test_spec_takes_types_and_string_keys():
    class Plain:
        def __init__(self):
            pass

    with pytest.raises(TypeError, match="spec values should be Numba type instances"):
        jitclass(Plain, [("x", int)])
    with pytest.raises(TypeError, match="spec keys should be strings, got 1"):
        jitclass(Plain, [(1, int32)])


def test_class_body_errors_as_numba():
    class Shadowing:
        def __init__(self):
            pass

        def value(self):
            return 1

    with pytest.raises(NameError, match="name shadowing: value"):
        jitclass(Shadowing, [("value", int32)])

    class WithConstant:
        constant = 123

        def __init__(self):
            pass

    with pytest.raises(TypeError, match="class members are not yet supported: constant"):
        jitclass(WithConstant)

    class WithDeleter:
        def __init__(self):
            pass

        @property
        def value(self):
            return 1

        @value.deleter
        def value(self):
            pass

    with pytest.raises(TypeError, match="deleter is not supported: value"):
        jitclass(WithDeleter)

    class WithEnter:
        def __init__(self):
            pass

        def __enter__(self):
            return None

    with pytest.raises(TypeError, match="Method '__enter__' is not supported."):
        jitclass(WithEnter)


def test_init_must_return_none_and_keeps_its_docstring():
    @jitclass([])
    class Returns:
        def __init__(self):
            "the docstring"
            return 7

    assert Returns.__init__.__doc__ == "the docstring"
    with pytest.raises(errors.TypingError, match="__init__\\(\\) should return None, not"):
        Returns()


def test_subclassing_a_jitclass_raises():
    @jitclass([("x", float64)])
    class Point:
        def __init__(self, x):
            self.x = x

    with pytest.raises(TypeError, match="cannot subclass from a jitclass"):

        class Sub(Point):
            pass


def test_private_spec_names_are_mangled_like_the_methods():
    @jitclass({"__secret": int64, "__dunder__": int64})
    class Vault:
        def __init__(self, value):
            self.__secret = value * 2
            self.__dunder__ = value - 1

        def reveal(self):
            return self.__secret

    vault = Vault(21)
    assert vault.reveal() == 42
    assert vault.__dunder__ == 20


def test_number_conversions_with_pythons_fallbacks():
    @jitclass([("v", float64)])
    class OnlyFloat:
        def __init__(self, v):
            self.v = v

        def __float__(self):
            return self.v

        def __eq__(self, other):
            return self.v == other.v

    @jitclass([("v", int64)])
    class OnlyIndex:
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    @njit
    def convert(f, i):
        return complex(f), float(f), complex(i), float(i), int(i), operator.index(i)

    f, i = OnlyFloat(1.5), OnlyIndex(3)
    py_f, py_i = _PyOnlyFloat(1.5), _PyOnlyIndex(3)
    expected = (complex(py_f), float(py_f), complex(py_i), float(py_i), int(py_i), 3)
    assert convert(f, i) == expected

    @njit
    def differ(a, b):
        return a != b, a == b

    assert differ(OnlyFloat(1.0), OnlyFloat(2.0)) == (True, False)
    assert differ(OnlyFloat(2.0), OnlyFloat(2.0)) == (False, True)

    @njit
    def to_int(f):
        return int(f)

    with pytest.raises(errors.TypingError, match="__int__, __index__"):
        to_int(f)


class _PyOnlyFloat:
    def __init__(self, v):
        self.v = v

    def __float__(self):
        return self.v


class _PyOnlyIndex:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


_node_type = ember.deferred_type()


@jitclass([("data", int64), ("next", ember.optional(_node_type))])
class _Node:
    def __init__(self, data, next):
        self.data = data
        self.next = next

    def append_to_tail(self, other):
        cur = self
        while cur.next is not None:
            cur = cur.next
        cur.next = other  # an attribute set through an Optional receiver


_node_type.define(_Node.class_type.instance_type)


def test_attribute_assignment_through_an_optional_receiver():
    head = _Node(1, None)
    for value in (2, 3, 4):
        head.append_to_tail(_Node(value, None))
    seen, cur = [], head
    while cur is not None:
        seen.append(cur.data)
        cur = cur.next
    assert seen == [1, 2, 3, 4]

    @njit
    def set_data(node, keep):
        target = node if keep else None
        target.data = 7
        return node.data

    assert set_data(_Node(5, None), True) == 7
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'data'"):
        set_data(_Node(5, None), False)


def test_jitclass_paths_box_addresses_and_meminfo():
    from ember.core.runtime import rtsys
    from ember.core.runtime.nrt import MemInfo
    from ember.experimental.jitclass import _box
    from ember.experimental.jitclass.base import JitClassType

    @jitclass([("x", float64)])
    class Holder:
        def __init__(self, x):
            self.x = x

    assert isinstance(Holder, JitClassType) and not isinstance(_PyOnlyFloat, JitClassType)
    holder = Holder(2.5)
    meminfo = MemInfo(_box.box_get_meminfoptr(holder))
    meminfo.acquire()
    assert meminfo.refcount == 2  # the box's reference and ours
    assert meminfo.data == _box.box_get_dataptr(holder)
    assert ctypes.c_double.from_address(meminfo.data).value == 2.5
    meminfo.release()
    assert meminfo.refcount == 1
    stats = rtsys.get_allocation_stats()
    assert stats.alloc >= stats.free and stats.mi_alloc == stats.alloc


# ---------------------------------------------------------------------------- types, typeof


def test_number_types_convert_values_and_order_by_width():
    assert types.int32(42.5) == 42 and type(types.int32(42.5)) is np.int32
    assert types.float64(-5) == -5.0 and type(types.float64(-5)) is np.float64
    assert types.int64(types.float64) == signature(types.int64, types.float64)
    assert types.int8 < types.int16 < types.int32 < types.int64
    assert types.float32 <= types.float64 and not types.float64 < types.float32
    with pytest.raises(TypeError):
        types.int8 <= types.uint32  # noqa: B015 - the comparison itself raises
    with pytest.raises(TypeError):
        types.float64 < types.complex128  # noqa: B015
    assert types.Integer.from_bitwidth(32) is types.int32
    assert types.Integer.from_bitwidth(8, signed=False) is types.uint8


def test_type_spellings():
    dtype = types.DType(types.int32)
    assert dtype[::1, :] == types.Array(types.int32, 2, "F")
    assert types.List(types.int64)[0] is types.int64
    with pytest.raises(KeyError, match="Can only index numba types with slices"):
        types.int32[0]
    assert str(signature(types.int64, types.int64, types.float64)) == ("(int64, float64) -> int64")
    assert str(signature(types.none)) == "() -> none"
    assert types.int32.is_internal and types.float64[:].aligned


def test_typeof_ellipsis_and_dtypes_as_arguments():
    assert typeof(Ellipsis) == types.ellipsis
    assert typeof(np.dtype("int64")) == types.DType(types.int64)

    @njit
    def zeros(n, dtype):
        return np.zeros(n, dtype)

    got = zeros(3, np.dtype("float32"))
    assert got.dtype == np.float32 and got.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------------------- dispatcher


@jit("int32(int32, int32)", nopython=True)
def _add_with_sig(a, b):
    return a + b


def test_pickling_a_dispatcher_at_every_protocol():
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(_add_with_sig, protocol))
        assert restored(1, 4) == 5
        assert restored(1.2, 4.2) == 5  # declared int32: the floats are truncated
        sig = signature(types.int64, types.float64)
        assert pickle.loads(pickle.dumps(sig, protocol)) == sig


def test_declared_or_disabled_dispatchers_compile_nothing_new():
    @njit(["(float32,)", "(int32,)"])
    def declared(a):
        return a

    with pytest.raises(RuntimeError, match="compilation disabled"):
        declared.compile("(complex64,)")
    assert len(declared.signatures) == 2

    @njit
    def lazy(a):
        return a

    lazy.compile("(float32,)")
    lazy.disable_compile()
    with pytest.raises(RuntimeError, match="compilation disabled"):
        lazy.compile("(int32,)")
    with pytest.raises(TypeError) as caught:
        declared(1j)
    assert str(caught.value) == "No matching definition for argument type(s) complex128"


def test_decorating_a_jitted_function_or_a_class_raises():
    @njit
    def foo(x):
        return x

    with pytest.raises(TypeError, match=r"already jitted function foo.*foo\.py_func"):
        jit(foo)

    class NotAFunction:
        pass

    with pytest.raises(TypeError, match="The decorated object is not a function"):
        jit(NotAFunction)


# ---------------------------------------------------------------------------- cfunc, carray


def _divide(a, b):
    return a / b


def test_cfunc_names_and_unraisable_errors(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    c_divide = ember.cfunc("float64(int64, int64)")(_divide)
    assert c_divide.__name__ == "_divide" and c_divide.__wrapped__ is _divide
    assert ctypes.cast(c_divide.ctypes, ctypes.c_void_p).value == c_divide.address
    assert c_divide.ctypes(5, 2) == 2.5
    assert reported == []
    assert c_divide.ctypes(5, 0) == 0.0  # the error cannot cross C: reported, zero returned
    [report] = reported  # printed as "Exception ignored in: <function _divide ...>"
    assert report.exc_type is ZeroDivisionError and report.object is _divide
    with pytest.raises(NotImplementedError):
        ember.cfunc("float64(int64, int64)", forceobj=True)(_divide)


def test_cfunc_as_a_cffi_pointer():
    pytest.importorskip("cffi")
    c_divide = ember.cfunc("float64(int64, int64)")(_divide)
    assert c_divide.cffi(7, 2) == 3.5


def test_carray_of_a_void_pointer_takes_its_dtype():
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    void = base.ctypes.data_as(ctypes.c_void_p)
    view = ember.carray(void, base.shape, np.float32)
    np.testing.assert_array_equal(view, base)
    np.testing.assert_array_equal(ember.carray(void, base.shape, np.int32), base.view(np.int32))
    typed = base.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
    with pytest.raises(TypeError, match="mismatching dtype 'int32' for pointer"):
        ember.carray(typed, base.shape, np.int32)
    with pytest.raises(TypeError):
        ember.carray(void, base.shape)  # a void pointer needs a dtype


# ---------------------------------------------------------------------------- first-class functions

_unary = types.float64(types.float64)


@ember.cfunc(_unary)
def _c_square(x):
    return x * x


@njit
def _j_half(x):
    return x / 2.0


@njit(types.float64(types.FunctionType(_unary), types.float64))
def _apply_declared(f, x):
    return f(x) + f(x + 1.0)


def test_function_type_is_one_type_per_signature():
    function_type = types.FunctionType(_unary)
    assert function_type is _unary.as_type()
    assert str(function_type) == "FunctionType[float64(float64)]"
    assert typeof(_c_square) is function_type


def test_cfuncs_and_jitted_functions_as_first_class_arguments():
    def expected(f, x):
        return f(x) + f(x + 1.0)

    assert _apply_declared(_c_square, 3.0) == expected(lambda v: v * v, 3.0)  # 9 + 16
    assert _apply_declared(_j_half, 3.0) == expected(lambda v: v / 2.0, 3.0)  # 1.5 + 2

    @njit
    def inferred(f, x):  # a cfunc's type comes from the value itself
        total = 0.0
        for i in range(3):
            total += f(x + i)
        return total

    assert inferred(_c_square, 1.0) == 1.0 + 4.0 + 9.0

    @njit
    def from_compiled_code(x):  # a jitted function converted where a FunctionType is declared
        return _apply_declared(_j_half, x)

    assert from_compiled_code(5.0) == 2.5 + 3.0

    @njit
    def through_globals(x):
        return _c_square(x) - _j_half(x)

    assert through_globals(4.0) == 16.0 - 2.0


def test_wrapper_address_protocol_objects_are_functions():
    class CosineAddress(types.WrapperAddressProtocol):
        def __init__(self):
            self._c = ember.cfunc(_unary)(_cosine)

        def __wrapper_address__(self):
            return self._c.address

        def signature(self):
            return _unary

    assert _apply_declared(CosineAddress(), 0.0) == np.cos(0.0) + np.cos(1.0)


def _cosine(x):
    return np.cos(x)


class _Dummy:
    pass


class _CastableType(types.Opaque):
    def can_convert_to(self, context, to_type):  # Numba's hook
        from ember.core.typeconv import Conversion

        if isinstance(to_type, types.Float):
            return Conversion.safe
        return None


def test_an_extension_types_own_conversion_rule():
    castable = _CastableType("castable")
    register_model(_CastableType)(models.OpaqueModel)
    typeof_impl.register(_Dummy)(lambda value, c: castable)

    @unbox(_CastableType)
    def _unbox(typ, obj, c):
        from ember.extending import NativeValue

        return NativeValue(c.context.get_dummy_value())

    @ember.extending.lower_cast(_CastableType, types.Float)
    def _to_float(context, builder, from_type, to_type, value):
        return context.get_constant(to_type, 2.5)

    @njit(types.float64(types.float64))
    def takes_float(x):
        return x * 2

    @njit
    def call(d):
        return takes_float(d)

    assert call(_Dummy()) == 5.0


class _Counter:
    pass


class _CounterType(types.Opaque):
    pass


_counter_type = _CounterType("counter")
register_model(_CounterType)(models.OpaqueModel)
typeof_impl.register(_Counter)(lambda value, c: _counter_type)


@unbox(_CounterType)
def _unbox_counter(typ, obj, c):
    from ember.extending import NativeValue

    return NativeValue(c.context.get_dummy_value())


def _boxing_bridge(x):
    if x < 0:
        raise ValueError("negative token")
    return x * 10 + 1


_boxed_token = [7]


@box(_CounterType)
def _box_counter(typ, val, c):
    """Boxing runs jitted code: call_jit_code gives (is_error, result)."""
    from ember.lowering.cgutils import alloca_once

    token = c.context.get_constant(types.int64, _boxed_token[0])
    is_error, result = c.pyapi.call_jit_code(
        _boxing_bridge, signature(types.int64, types.int64), [token]
    )
    slot = alloca_once(c.builder, c.pyapi.pyobj, zfill=True)
    with c.builder.if_then(c.builder.not_(is_error)):
        c.builder.store(c.pyapi.long_from_longlong(result), slot)
    return c.builder.load(slot)  # NULL with the exception set on an error


def test_boxing_code_calls_jitted_code():
    @njit
    def passthrough(x):
        return x

    assert passthrough(_Counter()) == _boxing_bridge(7)
    _boxed_token[0] = -1  # a new function: the boxer runs again when it is compiled

    @njit
    def passthrough_again(x):
        return x

    with pytest.raises(ValueError, match="negative token"):
        passthrough_again(_Counter())


_binary = types.int64(types.int64, types.int64)


@ember.cfunc(_binary)
def _c_add(a, b):
    return a + b


@ember.cfunc(types.boolean(types.int64))
def _c_is_even(x):
    return x % 2 == 0


@njit(types.int64(types.FunctionType(_binary), types.int64[:]))
def _fold(f, xs):
    acc = xs[0]
    for i in range(1, xs.size):
        acc = f(acc, xs[i])
    return acc


def test_integer_and_boolean_function_values():
    xs = np.arange(1, 6)

    @njit(types.int64(types.int64, types.int64))
    def subtract(a, b):
        return a - b

    assert _fold(_c_add, xs) == 1 + 2 + 3 + 4 + 5
    assert _fold(subtract, xs) == 1 - 2 - 3 - 4 - 5
    assert [_c_is_even.ctypes(i) for i in range(4)] == [True, False, True, False]

    @njit
    def count(predicate, n):
        found = 0
        for i in range(n):
            if predicate(i):
                found += 1
        return found

    assert count(_c_is_even, 10) == len([i for i in range(10) if i % 2 == 0])
    with pytest.raises(TypeError, match="No matching definition"):
        _fold(_c_square, xs)  # a float64(float64) function where int64(int64, int64) is declared


def test_a_call_that_needs_its_constants_as_literals_is_typed_with_them():
    @njit
    def make(n, dtype_name):
        return np.zeros(n, dtype_name)  # needs the dtype's name while compiling

    @njit
    def caller():
        return make(3, "float32")

    got = caller()
    assert got.dtype == np.float32 and got.tolist() == [0.0, 0.0, 0.0]
    [(count_type, name_type)] = make.signatures
    assert isinstance(name_type, types.Literal) and name_type.literal_value == "float32"

    @njit
    def plain(x):
        return x + 1

    @njit
    def calls_plain():
        return plain(41)

    assert calls_plain() == 42
    assert plain.signatures == [(types.int64,)]  # types that compile stay plain


def test_signature_spellings_and_datetime_values():
    from ember.core import sigutils

    f32, i16, c64 = types.float32, types.int16, types.complex64
    array = types.Array(f32, 1, "C")
    assert sigutils.normalize_signature((c64,)) == ((c64,), None)
    assert sigutils.normalize_signature(array(i16)) == ((i16,), array)
    assert sigutils.normalize_signature("int16(complex64)") == ((c64,), i16)
    assert sigutils.normalize_signature("(complex64, int16)") == ((c64, i16), None)
    with pytest.raises(TypeError, match="invalid type in signature"):
        sigutils.normalize_signature((types.Integer,))
    with pytest.raises(TypeError, match="invalid signature"):
        sigutils.normalize_signature([])
    assert types.NPDatetime("Y")("1900") == np.datetime64("1900", "Y")
    assert types.NPTimedelta("s")(5) == np.timedelta64(5, "s")


def test_object_mode_signatures_must_fit_the_function():
    def add(a, b):
        return a + b

    assert jit("()", forceobj=True)(add)(1, 2) == 3  # "()" fits any function, as in Numba
    with pytest.raises(TypeError, match="Signature mismatch: 1 argument types given"):
        jit("(intc,)", forceobj=True)(add)
