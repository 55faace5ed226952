"""Extension API gaps found by Numba's own test modules: literal types that are also numbers,
Numba's `numba.core.typing` / `numba.core.utils` paths, the words of typing failures and
unpickling a dispatcher twice."""

from __future__ import annotations

import gc
import operator
import pickle

import pytest

import ember
from ember import njit, types
from ember.errors import TypingError
from ember.extending import intrinsic, literally, overload

# ------------------------------------------------------------------ literal types are numbers


@pytest.mark.parametrize("value", [0, 1, -7, 2**31, -(2**63), 2**63 - 1])
def test_integer_literal_is_an_integer_of_its_widened_type(value):
    literal = types.literal(value)
    assert isinstance(literal, types.IntegerLiteral)
    assert isinstance(literal, types.Literal)
    assert isinstance(literal, types.Integer) and isinstance(literal, types.Number)
    assert literal.literal_value == value
    assert literal.literal_type is types.int64
    assert (literal.bitwidth, literal.signed) == (64, True)
    assert literal.name == f"Literal[int]({value})"
    assert types.unliteral(literal) is types.int64


def test_integer_literal_beyond_int64_is_unsigned():
    literal = types.literal(2**64 - 1)
    assert literal.literal_type is types.uint64
    assert (literal.bitwidth, literal.signed) == (64, False)


def test_boolean_literal_is_a_boolean():
    for value in (True, False):
        literal = types.literal(value)
        assert isinstance(literal, types.BooleanLiteral)
        assert isinstance(literal, types.Boolean) and not isinstance(literal, types.Integer)
        assert literal.literal_type is types.boolean
        assert literal.name == f"Literal[bool]({value})"


def test_string_literal_is_not_a_number():
    literal = types.literal("abc")
    assert isinstance(literal, types.StringLiteral)
    assert not isinstance(literal, types.Number)
    assert literal.literal_type is types.unicode_type


def test_literal_constructors_take_the_value_alone_as_in_numba():
    assert types.IntegerLiteral(5) is types.literal(5)
    assert types.BooleanLiteral(True) is types.literal(True)
    assert types.IntegerLiteral(2**63).literal_type is types.uint64


def test_literals_stay_interned_and_pickle_to_themselves():
    for value in (3, True, "s"):
        literal = types.literal(value)
        assert types.literal(value) is literal
        assert pickle.loads(pickle.dumps(literal)) is literal
    assert types.literal(1) is not types.literal(True)  # 1 == True, yet different types


def _scale(x, n):
    raise NotImplementedError


@overload(_scale)
def _scale_overload(x, n):
    """Numba-style code: asks for `n` as a literal, then tests it as an Integer."""
    if not isinstance(n, types.IntegerLiteral):
        return lambda x, n: literally(n)
    if not (isinstance(n, types.Integer) and n.signed and n.bitwidth == 64):
        return None
    factor = n.literal_value
    if isinstance(x, types.Integer):
        return lambda x, n: x * factor
    if isinstance(x, types.Float):
        return lambda x, n: x * factor + 0.5
    return None


def test_overload_sees_a_literal_argument_as_an_integer():
    @njit
    def scaled(x):
        return _scale(x, 3) + _scale(x, -2)

    for x in (0, 1, -5, 2**40, -(2**40)):
        assert scaled(x) == x * 3 + x * -2
    for x in (0.0, -1.25, 3.5):
        assert scaled(x) == (x * 3 + 0.5) + (x * -2 + 0.5)


@intrinsic
def _bit_width(typingctx, x):
    """The bit width of an integer argument, known while compiling."""
    if not isinstance(x, types.Integer):
        return None
    width = x.bitwidth

    def codegen(context, builder, sig, args):
        return context.get_constant(types.int64, width)

    return types.int64(x), codegen


def _width_plus(x):
    raise NotImplementedError


@overload(_width_plus, prefer_literal=True)
def _width_plus_overload(x):
    if isinstance(x, types.Integer):  # a literal first (prefer_literal), then the plain type
        return lambda x: _bit_width(x) + x
    return None


def test_prefer_literal_overload_and_intrinsic_take_integer_literals():
    @njit
    def f(a):
        return _width_plus(7) + _width_plus(a)

    for a in (0, 1, -3, 100):
        assert f(a) == (64 + 7) + (64 + a)
    assert f(ember.int32(5)) == (64 + 7) + (32 + 5)


def _choose(flag):
    raise NotImplementedError


@overload(_choose, prefer_literal=True)
def _choose_overload(flag):
    if isinstance(flag, types.BooleanLiteral):
        constant = flag.literal_value
        return lambda flag: 100 if constant else 200
    if isinstance(flag, types.Boolean):
        return lambda flag: 1 if flag else 2
    return None


def test_boolean_literal_overload_and_plain_boolean_fallback():
    @njit
    def f(b):
        return _choose(True) + _choose(False) + _choose(b)

    assert f(True) == 100 + 200 + 1
    assert f(False) == 100 + 200 + 2


def test_constant_arithmetic_and_tuple_indexing_still_use_literal_rules():
    @njit
    def f(t, x):
        return t[1] + t[-1] * 2 + (x // -3) + (t * 2)[3] + len(t * 3)

    for x in (-7, 0, 7, 2**62):
        t = (1, 2, 3)
        assert f(t, x) == f.py_func(t, x)


# ------------------------------------------------------------------ Numba's module paths


def test_core_typing_is_a_package_of_numba_paths():
    import ember.core.typing.context as typing_context
    from ember.core.typing.asnumbatype import as_numba_type
    from ember.core.typing.templates import AbstractTemplate, AttributeTemplate
    from ember.core.typing.typeof import typeof, typeof_impl

    from ember.core import typing
    from ember.core.typing import Context, Signature, signature
    from ember.typing import templates

    assert typing.templates is templates
    assert typing.AbstractTemplate is AbstractTemplate is templates.AbstractTemplate
    assert AttributeTemplate is templates.AttributeTemplate
    assert Context is typing_context.TypingContext
    sig = signature(types.float64, types.int64, types.int64)
    assert isinstance(sig, Signature) and sig.args == (types.int64, types.int64)
    assert typeof(1.5) is types.float64 and typeof((1, 2.0)) == types.Tuple(
        (types.int64, types.float64)
    )
    assert callable(typeof_impl.register)
    assert as_numba_type(float) is types.float64


def test_intrinsic_typing_context_is_core_typing_context():
    from ember.core import typing

    seen = []

    @intrinsic
    def probe(typingctx, x):
        seen.append(isinstance(typingctx, typing.Context))
        return x(x), lambda context, builder, sig, args: args[0]

    @njit
    def f(x):
        return probe(x)

    assert f(41) == 41 and seen and all(seen)


def test_core_utils_names():
    import inspect
    import sys

    from ember.core.utils import PYVERSION, pysignature

    assert PYVERSION == sys.version_info[:2]
    assert pysignature(lambda a, b=2: a) == inspect.signature(lambda a, b=2: a)


def test_typing_failure_opens_with_numba_header_lead():
    from ember.core.types.functions import _header_lead

    @njit
    def f(a):
        return a * "x" * 1j

    with pytest.raises(TypingError) as raised:
        f(1.5)
    text = str(raised.value)
    assert _header_lead == "No implementation of function"
    assert f"{_header_lead} Function({operator.mul!r}) found for signature" in text


# ------------------------------------------------------------------ pickled dispatchers


def _closure(j):
    @njit
    def inner(x, y):
        return x + y + j

    return inner


def test_unpickling_twice_gives_one_dispatcher():
    original = _closure(5)
    pickled, other = pickle.dumps(original), pickle.dumps(_closure(6))
    first, second, third = pickle.loads(pickled), pickle.loads(pickled), pickle.loads(other)
    assert first is second is original  # the live dispatcher it was made from
    assert third is not first
    assert first(2, 3) == 2 + 3 + 5 and third(2, 3) == 2 + 3 + 6
    second.disable_compile()
    assert first(2, 4) == 2 + 4 + 5  # int64 already compiled


def test_unpickling_after_the_original_is_gone_rebuilds_it():
    pickled = pickle.dumps(_closure(7))
    gc.collect()
    rebuilt = pickle.loads(pickled)
    assert rebuilt(1, 1) == 1 + 1 + 7
    assert pickle.loads(pickled) is rebuilt
    for x, y in ((0, 0), (-3, 2), (2**40, -(2**40))):
        assert rebuilt(x, y) == rebuilt.py_func(x, y)


def test_dispatcher_bound_to_an_instance_is_a_method_reading_its_attributes():
    @njit
    def add(a, b):
        return a + b

    bound = add.__get__(4)
    assert bound.__self__ == 4 and bound.__func__ is add
    for b in (-9, 0, 5):
        assert bound(b) == 4 + b
    assert list(bound.overloads) == list(add.overloads)
    assert bound.py_func is add.py_func


# ------------------------------------------------------------------ as_numba_type


def test_as_numba_type_maps_set_annotations_to_typed_sets_and_says_what_it_lacks():
    import typing

    from ember.core.typing.asnumbatype import AsNumbaTypeRegistry, as_numba_type

    assert as_numba_type(set[complex]) is types.SetType(types.complex128)
    annotation = typing.Set[typing.Tuple[typing.Optional[int], float]]  # noqa: UP006, UP045
    expected = types.Tuple((types.Optional(types.int64), types.float64))
    assert as_numba_type(annotation) is types.SetType(expected)
    assert as_numba_type(list[set[int]]) is types.ListType(types.SetType(types.int64))
    with pytest.raises(TypingError, match="Cannot infer Numba type of Python type"):
        as_numba_type(typing.Any)
    with pytest.raises(TypingError, match="Cannot type Union that is not an Optional"):
        as_numba_type(typing.Union[int, float])  # noqa: UP007
    fresh = AsNumbaTypeRegistry()
    fresh.register(float, types.float32)
    assert fresh(float) is types.float32 and as_numba_type(float) is types.float64


class _Fixed16:
    """A Python number class an extension teaches ember (an int held in `_value`)."""

    def __init__(self, value):
        self._value = value


class _Fixed16Type(types.Number):
    """Numba-style: the subclass sets `bitwidth` and passes only a name."""

    def __init__(self):
        self.bitwidth = 64
        super().__init__(name="fixed16")


def _register_fixed16():
    from llvmlite import ir as llvm

    from ember.extending import (
        NativeValue,
        as_numba_type,
        models,
        register_model,
        type_callable,
        typeof_impl,
        unbox,
    )

    fixed16_type = _Fixed16Type()

    @typeof_impl.register(_Fixed16)
    def typeof_fixed16(val, c):
        return fixed16_type

    @register_model(_Fixed16Type)
    class Fixed16Model(models.PrimitiveModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, llvm.IntType(fe_type.bitwidth))

    @unbox(_Fixed16Type)
    def unbox_fixed16(typ, obj, c):
        assert c.context.get_argument_type(typ) == llvm.IntType(64)
        value_obj = c.pyapi.object_getattr_string(obj, "_value")
        native = c.unbox(types.int64, value_obj)
        c.pyapi.decref(value_obj)
        return NativeValue(native.value, is_error=native.is_error)

    @type_callable(_Fixed16)  # makes the class a typed global, as in Numba
    def type_fixed16(context):
        def typer(value):
            return fixed16_type if isinstance(value, types.Integer) else None

        return typer

    return fixed16_type, as_numba_type


def test_isinstance_of_an_extension_class_needs_its_as_numba_type_registration():
    fixed16_type, as_numba_type = _register_fixed16()
    assert fixed16_type.bitwidth == 64 and fixed16_type.name == "fixed16"

    @njit
    def unregistered(x):
        return isinstance(x, _Fixed16)

    with pytest.raises(TypingError, match="Cannot infer Numba type of Python type"):
        unregistered(_Fixed16(3))

    as_numba_type.register(_Fixed16, fixed16_type)

    @njit
    def check(x):
        return isinstance(x, _Fixed16)

    assert check(_Fixed16(0x4049)) is True
    assert check(1) is False and check(2.5) is False


def test_core_datamodel_is_a_package_with_numbas_models_path():
    from ember.core.datamodel.manager import DataModelManager
    from ember.core.datamodel.models import OpaqueModel, StructModel

    from ember.core import datamodel
    from ember.core.datamodel import models, register_default
    from ember.lowering import models as ember_models

    assert models is ember_models
    assert datamodel.StructModel is StructModel is ember_models.StructModel
    assert OpaqueModel is ember_models.OpaqueModel
    assert DataModelManager is ember_models.DataModelManager
    assert register_default is ember_models.register_model


def test_struct_model_registered_through_core_datamodel_path():
    from ember.core.datamodel import models
    from ember.extending import make_attribute_wrapper, register_model, type_callable

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    class PairType(types.Type):
        def __init__(self):
            super().__init__(name="PairExt")

    pair_type = PairType()

    @register_model(PairType)
    class PairModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, [("a", types.int64), ("b", types.float64)])

    make_attribute_wrapper(PairType, "a", "a")
    make_attribute_wrapper(PairType, "b", "b")

    @type_callable(Pair)
    def type_pair(context):
        def typer(a, b):
            if isinstance(a, types.Integer) and isinstance(b, types.Float):
                return pair_type
            return None

        return typer

    from ember.extending import lower_builtin
    from ember.lowering import cgutils

    @lower_builtin(Pair, types.Integer, types.Float)
    def make_pair(context, builder, sig, args):
        pair = cgutils.create_struct_proxy(sig.return_type)(context, builder)
        pair.a = context.cast(builder, args[0], sig.args[0], types.int64)
        pair.b = args[1]
        return pair._getvalue()

    @njit
    def f(a, b):
        p = Pair(a, b)
        return p.a * 2 + p.b

    for a, b in ((1, 0.5), (-4, 2.25), (2**40, -1.0)):
        assert f(a, b) == a * 2 + b
    assert f(ember.int32(7), 1.5) == 7 * 2 + 1.5


# ------------------------------------------------------------------ errors


def test_deprecated_decorator_warns_with_names_and_keeps_the_result():
    import warnings

    from ember.core.errors import deprecated

    @deprecated("new_total")
    def old_total(a, b=1):
        """Adds."""
        return a + b

    @deprecated
    def older(x):
        return -x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert old_total(2, b=5) == 7
        assert older(3) == -3
    assert [w.category for w in caught] == [DeprecationWarning, DeprecationWarning]
    assert "old_total" in str(caught[0].message) and "new_total" in str(caught[0].message)
    assert "older" in str(caught[1].message)
    assert old_total.__name__ == "old_total" and old_total.__doc__ == "Adds."


def test_compute_fingerprint_tells_types_apart():
    import numpy as np

    from ember._dispatcher import compute_fingerprint

    assert compute_fingerprint(1) == compute_fingerprint(-(2**60))
    assert compute_fingerprint(1.0) == compute_fingerprint(2.5)
    kinds = [1, 1.0, 1j, True, None, np.float32(1), np.int8(1), np.uint64(1), (1, 2.0)]
    assert len({compute_fingerprint(v) for v in kinds}) == len(kinds)
    arrays = [np.zeros(3), np.zeros(3)[::2], np.zeros((2, 2)), np.zeros(3, np.int32)]
    assert len({compute_fingerprint(a) for a in arrays}) == len(arrays)
    assert compute_fingerprint(np.zeros(4)) == compute_fingerprint(np.ones(7))
    with pytest.raises(ValueError, match="cannot compute fingerprint of empty list"):
        compute_fingerprint([])
    with pytest.raises(ValueError):
        compute_fingerprint(object())


def _rejects(x):
    raise NotImplementedError


@overload(_rejects)
def _rejects_overload(x):
    raise TypingError("x must be a float, not an int")


def test_overload_that_raises_reports_numbas_rejection_words():
    from ember.core.types.functions import _err_reasons

    @njit
    def f(x):
        return _rejects(x)

    with pytest.raises(TypingError) as raised:
        f(1)
    text = str(raised.value)
    assert _err_reasons["specific_error"].splitlines()[0] in text
    assert "x must be a float, not an int" in text


# ------------------------------------------------------------------ jitclasses


class _Shifter:
    """Plain Python: `<<` and `-` only, so `x <<= y` and `x -= y` use them."""

    def __init__(self, value):
        self.x = value

    def __lshift__(self, other):
        return type(self)(self.x << other.x)

    def __sub__(self, other):
        return type(self)(self.x - other.x)

    def doubled(self):
        return self.x * 2


def test_jitclass_subclasses_the_decorated_class_as_numba():
    from ember.experimental import jitclass

    Shifter = jitclass([("x", types.int64)])(_Shifter)
    assert Shifter.mro()[1] is _Shifter
    assert Shifter.class_type.class_def is _Shifter
    s = Shifter(5)
    assert isinstance(s, Shifter) and s.doubled() == 10

    class Grown(Shifter.mro()[1]):  # Numba's idiom: extend the Python class, decorate again
        def tripled(self):
            return self.x * 3

    Grown = jitclass([("x", types.int64)])(Grown)
    assert Grown(4).tripled() == 12 and Grown(4).doubled() == 8
    with pytest.raises(TypeError, match="cannot subclass from a jitclass"):

        class Bad(Shifter):
            pass


def test_inplace_operator_on_jitclass_falls_back_to_the_plain_dunder():
    from ember.experimental import jitclass

    @jitclass([("x", types.int64)])
    class Shifter:
        def __init__(self, value):
            self.x = value

        def __lshift__(self, other):
            return Shifter(self.x << other.x)

        def __sub__(self, other):
            return Shifter(self.x - other.x)

    @njit
    def update(a, b):
        a <<= b
        a -= b
        return a

    for x, y in ((1, 3), (-5, 2), (7, 0)):
        assert update(Shifter(x), Shifter(y)).x == (x << y) - y
        assert update.py_func(Shifter(x), Shifter(y)).x == (x << y) - y


# ------------------------------------------------------------------ overload signature checks


def _mismatch_report(impl):
    """The TypingError of calling an overload of `stub(a, b, c, kw=None)` implemented by
    `impl`."""

    def stub(a, b, c, kw=None):
        raise NotImplementedError

    @overload(stub, strict=True)
    def stub_overload(a, b, c, kw=None):
        return impl

    @njit
    def call(a, b, c, d):
        return stub(a, b, c, kw=d)

    with pytest.raises(TypingError) as raised:
        call(1, 2, 3, 4)
    return str(raised.value)


def test_overload_argument_name_mismatch_lists_parameters_as_numba():
    def renamed(z, b, c, kw=None):
        return z

    text = _mismatch_report(renamed)
    assert "Typing and implementation arguments differ in argument names" in text
    assert '<Parameter "a">' in text and '<Parameter "z">' in text
    assert "First difference: 'z'" in text

    def other_default(a, b, c, kw=12):
        return a

    text = _mismatch_report(other_default)
    assert "keyword argument default values" in text
    assert '<Parameter "kw=12">' in text and '<Parameter "kw=None">' in text


def test_empty_list_argument_is_a_value_error_and_a_typing_error():
    @njit
    def first_or_zero(xs):
        return xs[0] if len(xs) else 0

    assert first_or_zero([4, 5]) == 4
    with pytest.raises(ValueError, match="cannot compute fingerprint of empty list") as raised:
        first_or_zero([])
    assert isinstance(raised.value, TypingError)
    assert "argument 'xs'" in str(raised.value)


@intrinsic
def _needs_literal_and_vector(typingctx, x, arr):
    from ember.errors import NumbaValueError, RequireLiteralValue

    if not isinstance(x, types.IntegerLiteral):
        raise RequireLiteralValue("x must be literal")
    if arr.ndim != 1:
        raise NumbaValueError("array.ndim must be 1")
    return types.intp(x, arr), lambda context, builder, sig, args: args[0]


def test_intrinsic_failing_both_attempts_reports_each_rejection():
    import numpy as np
    from ember.core.types.functions import _err_reasons

    @njit
    def call():
        return _needs_literal_and_vector(1, np.zeros((2, 2)))

    with pytest.raises(TypingError) as raised:
        call()
    text = str(raised.value)
    lead = _err_reasons["specific_error"].splitlines()[0]
    assert text.count(lead) == 2
    assert "x must be literal" in text and "array.ndim must be 1" in text


def test_typeof_omitted_argument_tells_default_types_apart():
    from ember.core.dispatcher import OmittedArg

    ty0, ty1 = ember.typeof(OmittedArg(0.0)), ember.typeof(OmittedArg(1))
    ty2 = ember.typeof(OmittedArg(1.0))
    assert ty0 is types.Omitted(0.0) and ty1 is types.Omitted(1) and ty2 is types.Omitted(1.0)
    assert len({ty0, ty1, ty2}) == 3
    assert OmittedArg(5).value == 5
