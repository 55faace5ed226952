"""More of Numba's API surface: slices passed as arguments, ListType/DictType spellings,
`f.overloads[sig]` attributes, the alias and abstract names of `numba.types`, NumberClass,
and the numpy_support / extending / config / top-level names programs import."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, typed, typeof, types
from ember.extending import SentryLiteralArgs, overload, sentry_literal_args
from ember.np import numpy_support

# ------------------------------------------------------------------------ slices as arguments


@njit
def _take(a, s):
    return a[s]


@njit
def _parts(s):
    return s.start, s.stop, s.step


@njit
def _list_take(xs, s):
    return xs[s]


_bound = st.one_of(st.none(), st.integers(-12, 12))


@settings(max_examples=25, deadline=None)
@given(_bound, _bound, st.one_of(st.none(), st.integers(-4, 4).filter(bool)))
def test_slice_argument_selects_what_python_selects(start, stop, step):
    s = slice(start, stop, step)
    a = np.arange(10) * 3
    np.testing.assert_array_equal(_take(a, s), a[s])
    assert list(_list_take([1, 2, 3, 4, 5, 6, 7], s)) == [1, 2, 3, 4, 5, 6, 7][s]


def test_slice_argument_types_and_parts_as_numba():
    assert str(typeof(slice(1, 5))) == "slice<a:b>"
    assert str(typeof(slice(1, 5, 1))) == "slice<a:b>"  # a step of 1 is no step (Numba's rule)
    assert str(typeof(slice(None, None, -1))) == "slice<a:b:c>"
    assert typeof(slice(1, 5)) is types.slice2_type
    assert _parts(slice(1, 5)) == (1, 5, 1)
    # omitted bounds read as the sentinels Numba gives them (clamped by indexing)
    assert _parts(slice(None, None, -1)) == (2**63 - 1, -(2**63), -1)
    assert _parts(slice(2, None)) == (2, 2**63 - 1, 1)
    assert _parts(slice(None, 4, 2)) == (0, 4, 2)


def test_slice_argument_of_numpy_integers():
    a = np.arange(8)
    s = slice(np.int32(1), np.int64(7), np.int8(3))
    np.testing.assert_array_equal(_take(a, s), a[s])


def test_slice_argument_errors():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        _parts(slice(1, 2, 0))
    with pytest.raises(TypeError):
        _parts(slice(1.5, 2))  # only integer slices are typed


# ---------------------------------------------------------------- typed containers' type names


def test_typed_container_types_print_as_numba():
    ints = typed.List([1, 2])
    assert str(typeof(ints)) == "ListType[int64]"
    assert repr(typeof(ints)) == "ListType(int64)"
    words = typed.Dict.empty(types.unicode_type, types.int64)
    assert str(typeof(words)) == "DictType[unicode_type,int64]<iv=None>"
    assert repr(typeof(words)) == "DictType(unicode_type, int64)"
    nested = types.DictType(types.int64, types.ListType(types.float64))
    assert str(nested) == "DictType[int64,ListType[float64]]<iv=None>"
    assert typeof(ints) is types.ListType(types.int64)


# ------------------------------------------------------------------------ f.overloads[sig]


def test_compile_result_attributes():
    @njit
    def add_one(x):
        return x + 1

    add_one(1)
    add_one(2.5)
    for sig in add_one.signatures:
        result = add_one.overloads[sig]
        assert result.signature.args == sig
        argument = 7 if sig == (types.int64,) else 0.25
        assert result.entry_point(argument) == argument + 1
        assert result.fndesc.llvm_func_name in result.library.get_llvm_str()
        assert result.fndesc.qualname == add_one.py_func.__qualname__
        assert result.fndesc.argtypes == sig
        assert f":: {sig[0]}" in str(result.type_annotation)
        assert result.objectmode is False and result.lifted == ()


# ------------------------------------------------------------------------ numba.types names


@pytest.mark.parametrize(
    "alias, numpy_class",
    [
        ("np_intc", np.intc),
        ("np_uintc", np.uintc),
        ("np_short", np.short),
        ("np_long", np.int_),
        ("np_longlong", np.longlong),
        ("np_ulonglong", np.ulonglong),
        ("np_intp", np.intp),
        ("np_uint8", np.uint8),
        ("np_float32", np.float32),
        ("np_double", np.float64),
        ("np_complex64", np.complex64),
    ],
)
def test_numpy_alias_names_are_the_platform_types(alias, numpy_class):
    assert getattr(types, alias) is ember.from_dtype(np.dtype(numpy_class))


def test_c_and_python_alias_names():
    assert types.c_int32 is types.int32 and types.c_uint8 is types.uint8
    assert types.c_intp is types.intp and types.c_float64 is types.float64
    assert types.py_int is types.int64 and types.py_float is types.float64
    assert types.bool is types.boolean and ember.bool is types.boolean
    assert types.np_integer_domain == frozenset(types.integer_domain)
    assert types.np_float_ is types.float32  # as Numba has it


def test_bytes_type_as_numba_spells_it():
    assert typeof(b"ab") is types.Bytes(types.uint8, 1, "C", readonly=True)
    assert isinstance(typeof(b"ab"), types.Bytes) and not isinstance(types.int8, types.Bytes)
    with pytest.raises(TypeError, match="uint8, 1d, C"):
        types.Bytes(types.int32, 1, "C")


def test_alias_types_compile():
    @njit(types.np_intc(types.np_intc, types.c_int64))
    def mixed(a, b):
        return a + b

    assert mixed(2, 3) == 5 and mixed.signatures == [(types.int32, types.int64)]


def test_number_class():
    assert str(typeof(np.float64)) == "class(float64)"
    assert isinstance(typeof(np.int32), types.NumberClass)
    assert typeof(np.int32).instance_type is types.int32
    assert types.NumberClass(types.float32) is typeof(np.float32)

    @njit
    def convert(x):
        return np.float32(x), np.zeros(2, np.int16)

    value, zeros = convert(2.5)
    assert value == np.float32(2.5) and zeros.dtype == np.int16


def test_abstract_kinds_in_an_overload_guard():
    def total(xs):
        pass

    @overload(total)
    def _total(xs):
        if isinstance(xs, types.IterableType) and not isinstance(xs, types.Sequence):
            return lambda xs: -1

        if isinstance(xs, types.Sequence):

            def impl(xs):
                acc = 0
                for x in xs:
                    acc += x
                return acc

            return impl

    @njit
    def use(xs, a):
        return total(xs), total(a)

    assert use([1, 2, 3], np.arange(3)) == (6, -1)
    assert isinstance(types.UniTuple(types.int64, 2), types.ConstSized)
    assert isinstance(types.unicode_type, types.Hashable)
    assert not isinstance(types.List(types.int64), types.Hashable)
    assert isinstance(types.Array(types.float64, 1, "C"), types.Sized)


def test_names_ember_lacks_say_why():
    with pytest.raises(AttributeError, match="half-precision"):
        types.float16  # noqa: B018
    with pytest.raises(AttributeError, match="pyobject"):
        types.Object  # noqa: B018
    with pytest.raises(AttributeError, match="gdb"):
        ember.gdb  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'no_such_type'"):
        types.no_such_type  # noqa: B018


# ---------------------------------------------------- numpy_support, extending, config names


def test_numpy_support_helpers():
    a = np.zeros((3, 4))
    assert numpy_support.is_contiguous(a.shape, a.strides, a.itemsize)
    assert not numpy_support.is_contiguous(a.T.shape, a.T.strides, a.itemsize)
    assert numpy_support.is_fortran(a.T.shape, a.T.strides, a.itemsize)
    assert numpy_support.map_layout(a) == "C" and numpy_support.map_layout(a.T) == "F"
    assert numpy_support.map_layout(a[:, ::2]) == "A"
    record = np.dtype([("x", np.float64), ("n", np.int32)])
    record_type = numpy_support.from_struct_dtype(record)
    assert numpy_support.as_struct_dtype(record_type) == record
    assert numpy_support.is_nonelike(None) and numpy_support.is_nonelike(types.none)
    assert numpy_support.map_arrayscalar_type(np.float32(1)) is types.float32
    assert numpy_support.type_is_scalar(types.int8)
    assert not numpy_support.type_is_scalar(types.unicode_type)
    assert numpy_support.carray is ember.carray
    with pytest.raises(TypeError, match="n must be an integer"):
        numpy_support.check_is_integer(1.5, "n")


def test_sentry_literal_args_asks_for_literal_arguments():
    def scaled(x, factor):
        pass

    seen = []

    @overload(scaled)
    def _scaled(x, factor):
        SentryLiteralArgs(["factor"]).for_function(_scaled).bind(x, factor)
        seen.append(factor)
        value = factor.literal_value
        return lambda x, factor: x * value

    @njit
    def use(x, k):
        return scaled(x, k)

    assert use(3, 4) == 12 and use(3, 5) == 15
    assert all(isinstance(t, types.IntegerLiteral) for t in seen)
    assert callable(sentry_literal_args)


def test_config_names():
    assert ember.config.DEBUGINFO_DEFAULT == ember.config.DEBUGINFO
    assert ember.config.DISABLE_PERFORMANCE_WARNINGS is True
    assert ember.core.config.FULL_TRACEBACKS is False


def test_dispatcher_introspection_names():
    @njit(locals={"acc": types.float64})
    def scaled(x):
        """Doubles x."""
        acc = x * 2
        return acc

    result = scaled.get_compile_result(types.float64(types.int64))  # compiles it
    assert result.signature.args == (types.int64,)
    assert scaled.get_overload((types.int64,))(21) == 42.0
    assert scaled.get_metadata((types.int64,))["pipeline_times"]["nopython"]
    assert list(scaled.get_metadata()) == [(types.int64,)]
    assert scaled.doc == "Doubles x." and scaled.func_code is scaled.py_func.__code__
    assert scaled.locals == {"acc": types.float64}
    assert scaled.typeof_pyval(np.zeros(3, np.float32)) == types.float32[::1]


def test_number_domains_are_sets_combined_with_or():
    """Extension code combines the domains as Numba's frozensets: `integer_domain | real_domain`."""
    combined = types.integer_domain | types.real_domain
    assert combined == frozenset(
        [types.int8, types.int16, types.int32, types.int64]
        + [types.uint8, types.uint16, types.uint32, types.uint64]
        + [types.float32, types.float64]
    )
    assert types.number_domain - combined == {types.complex64, types.complex128}
