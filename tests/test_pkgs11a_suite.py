"""pkgs11a: constructs of third-party Numba packages (py-pde, quaternionic, spherical) that ember
missed, each reproduced without the package and checked against the Python function / NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember import njit, types
from ember.core import cgutils
from ember.extending import intrinsic
from tests.oracle import assert_frees_all

# ---------------------------------------------------------------- unpacking n-d arrays


def _unpack_rows(field, out):
    """py-pde's vector operators: `f_r, f_z = arr` splits components along the first axis."""
    a, b = field
    o1, o2, o3 = out
    o1[...] = a + b
    o2[...] = a * b
    o3[...] = 1.0
    return a.sum() - np.sum(b[-1]), b


def test_nd_array_unpacks_into_views_of_its_rows():
    jitted = njit(_unpack_rows)
    for shape in ((2, 3), (2, 3, 4), (2, 1, 2, 2), (2, 1)):
        field = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 3.5
        for out_shape_tail in (shape[1:],):
            got_out = np.zeros((3, *out_shape_tail))
            want_out = np.zeros((3, *out_shape_tail))
            got = jitted(field, got_out)
            want = _unpack_rows(field, want_out)
            assert got[0] == want[0]
            np.testing.assert_array_equal(got[1], want[1])
            np.testing.assert_array_equal(got_out, want_out)
            assert np.shares_memory(got[1], field)  # a view, as in Python
    # non-contiguous rows (a strided view) and an integer 2-d array
    strided = np.arange(20.0).reshape(4, 5)[::2, ::2]
    got_out, want_out = np.zeros((3, 3)), np.zeros((3, 3))
    assert jitted(strided, got_out)[0] == _unpack_rows(strided, want_out)[0]
    np.testing.assert_array_equal(got_out, want_out)

    @njit
    def pair_sum(x):
        first, second = x
        return first + second

    ints = np.arange(-6, 6).reshape(2, 6)
    np.testing.assert_array_equal(pair_sum(ints), ints[0] + ints[1])


def test_nd_array_unpack_checks_the_length_as_python():
    jitted = njit(_unpack_rows)
    for rows in (1, 3, 0):
        field = np.ones((rows, 2))
        with pytest.raises(ValueError) as expected:
            _unpack_rows(field, np.zeros((3, 2)))
        with pytest.raises(ValueError) as got:
            jitted(field, np.zeros((3, 2)))
        assert str(got.value) == str(expected.value)


def test_nd_array_unpack_frees_its_views():
    @njit
    def split(x):
        a, b = x
        return a[0] + b[-1]

    assert_frees_all(split, lambda: np.arange(8.0).reshape(2, 4))
    assert_frees_all(split, lambda: np.arange(12.0).reshape(2, 3, 2)[:, 1:])


def test_zero_d_array_unpack_is_a_typing_error():
    @njit
    def unpack0(x):
        a, b = x
        return a

    with pytest.raises(ember.errors.TypingError, match="0-d"):
        unpack0(np.array(1.0))


# ---------------------------------------------------------------- arrays over foreign memory


@intrinsic
def _address_as_pointer(typingctx, address):
    """py-pde's `address_as_void_pointer`: an integer address as a void*."""

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


def _constructor_for(array):
    """An argument-less jitted function returning a view of `array` rebuilt from its address,
    shape and strides (memory that no argument holds and no runtime block owns)."""
    address = array.__array_interface__["data"][0]
    shape, strides, dtype = array.shape, array.strides, array.dtype

    @njit
    def construct():
        data = ember.carray(_address_as_pointer(address), shape, dtype)
        return np.lib.stride_tricks.as_strided(data, shape, strides)

    return construct


def test_returned_carray_over_foreign_memory_is_a_view_of_it():
    for array in (np.arange(5), np.linspace(0, 1, 3), np.arange(12.0).reshape(3, 4)[1:, 2:]):
        view = _constructor_for(array)()
        np.testing.assert_array_equal(view, array)
        assert view.dtype == array.dtype
        assert np.shares_memory(view, array)
        array.flat[0] += 7  # the memory itself, not a copy
        assert view.flat[0] == array.flat[0]


def test_config_names_svml_as_unused():
    assert ember.config.USING_SVML is False


# ---------------------------------------------------------------- typed pointers in extensions


@intrinsic
def _load_as_int64(typingctx, array):
    """Numba extension idiom: the array's data cast to `int64*`, loaded without a type."""

    def codegen(context, builder, sig, args):
        proxy = context.make_array(sig.args[0])(context, builder, args[0])
        pointer = builder.bitcast(proxy.data, context.get_value_type(types.CPointer(types.int64)))
        return builder.load(pointer)

    return types.int64(array), codegen


@intrinsic
def _item_by_gep(typingctx, array, index):
    """`builder.gep(ary.data, [i])` on the proxy's data (Numba's typed `dtype*`)."""

    def codegen(context, builder, sig, args):
        proxy = context.make_array(sig.args[0])(context, builder, args[0])
        return builder.load(builder.gep(proxy.data, [args[1]]))

    return array.dtype(array, types.intp), codegen


def test_extension_code_loads_through_typed_pointer_casts():
    @njit
    def first_word(a):
        return _load_as_int64(a)

    @njit
    def item(a, i):
        return _item_by_gep(a, i)

    ints = np.array([-(2**40), 7, 9], dtype=np.int64)
    assert first_word(ints) == ints[0]
    floats = np.array([1.5, -0.0, np.inf])
    assert first_word(floats) == floats[:1].view(np.int64)[0]  # the bits, as Numba reads
    for values in (ints, floats, np.array([3, -1], dtype=np.int8), np.arange(4, dtype=np.uint16)):
        assert [item(values, i) for i in range(len(values))] == values.tolist()


@intrinsic
def _first_field_as_float(typingctx, array):
    """A record array's data stays a byte pointer; cast it to `double*` to read field 0."""

    def codegen(context, builder, sig, args):
        proxy = context.make_array(sig.args[0])(context, builder, args[0])
        pointer = builder.bitcast(proxy.data, context.get_value_type(types.CPointer(types.float64)))
        return builder.load(pointer)

    return types.float64(array), codegen


def test_record_array_data_casts_to_a_typed_pointer():
    records = np.zeros(2, dtype=[("x", np.float64), ("n", np.int32)])
    records["x"] = [-2.25, 4.0]

    @njit
    def first_x(a):
        return _first_field_as_float(a)

    assert first_x(records) == -2.25
