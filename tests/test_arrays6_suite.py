"""arrays6: array creation and joining forms added this round (np.full's dtype from its fill
value, hstack/vstack/dstack/column_stack of mixed ranks, complex linspace, np.array of lists of
mixed-number tuples, a.tobytes), each compiled function compared with NumPy on many inputs (C,
F, strided, reversed, empty and 0-d arrays), and the messages of bad dtypes and shapes."""

import numpy as np
import pytest

from ember import njit
from ember.errors import TypingError
from tests.oracle import assert_frees_all
from tests.test_arrays5_suite import _layouts


def _same_array(got, want):
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def test_full_takes_the_fill_values_type():
    def full(n, value):
        return np.full((n, 2), value)

    f = njit(full)
    values = [np.int32(-7), np.uint8(200), np.int8(-1), 3, -(2**40), True, np.float32(2.5)]
    values += [0.1, 1 - 2j, np.complex64(3j)]
    for value in values:
        for n in (0, 1, 3):
            _same_array(f(n, value), full(n, value))
    g = njit(lambda n: np.full(n, np.int32(1)))  # a constant NumPy scalar
    _same_array(g(4), np.full(4, np.int32(1)))


def _stacker(function):
    return njit(lambda arrays: function(arrays))


def test_stacking_mixed_ranks_zero_d_arrays_and_numbers():
    x = np.arange(12).reshape(3, 4)
    v = np.arange(3.0)
    z = np.array(5)
    cases = [
        (np.hstack, (z, np.array(2.5j), z)),
        (np.hstack, (v[::2], z, 7)),
        (np.hstack, (x, x.T[:3])),
        (np.vstack, (z, z)),
        (np.vstack, (x.T[:, :3], v)),
        (np.dstack, (z, 1.5)),
        (np.column_stack, (v, x[:, 1:], v)),
        (np.column_stack, (np.asfortranarray(x), v[::-1])),
        (np.column_stack, (z, z)),
    ]
    for function, arrays in cases:
        _same_array(_stacker(function)(arrays), function(arrays))
    with pytest.raises(TypingError, match="same number of dimensions"):
        njit(lambda t: np.hstack(t))((x, v))  # 2-d and 1-d: NumPy refuses too (ValueError)


def test_linspace_of_complex_bounds():
    f = njit(lambda a, b, n, e: np.linspace(a, b, n, e))
    for a, b in [(1 + 1j, 2), (1, 2 + 3j), (0, 1j), (np.complex64(1 - 1j), 2.5), (-1j, -1j)]:
        for n in (0, 1, 2, 7):
            for endpoint in (True, False):
                got = f(a, b, n, endpoint)
                want = np.linspace(complex(a), complex(b), n, endpoint)
                assert got.dtype == np.complex128 and got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-15)
    with pytest.raises(ValueError, match="non-negative"):
        f(1j, 2, -1, True)
    real = njit(lambda a, b, n: np.linspace(a, b, n))
    np.testing.assert_array_equal(real(2, -1, 4), np.linspace(2, -1, 4))


def test_array_of_a_list_of_mixed_number_tuples():
    def build(rows):
        return np.array(rows)

    def build_int32(rows):
        return np.asarray(rows, dtype=np.int32)

    f, g = njit(build), njit(build_int32)
    inputs = [
        [(1, 2.5), (3, 4.5)],
        [(1, True, -3)],
        [(np.int8(1), np.float32(2))],
        [(1, 2.5j)] * 3,
    ]
    for rows in inputs:
        _same_array(f(rows), build(rows))
    _same_array(g([(1, 2.5), (-3, 4.75)]), build_int32([(1, 2.5), (-3, 4.75)]))

    def nested(n):
        return np.array([[(i, 0.5 * i)] for i in range(n)])

    _same_array(njit(nested)(3), nested(3))
    assert_frees_all(njit(nested), lambda: 5)


def test_tobytes_in_each_order():
    plain = njit(lambda a: a.tobytes())
    given = njit(lambda a, order: a.tobytes(order))
    x = np.arange(12).reshape(3, 4)
    arrays = [*_layouts(x), x[::2, 1::2], np.zeros((0, 3)), np.ones((2, 1, 3))[:, :, ::2]]
    for a in arrays:  # (int64 or float64 arrays in C, F and A layouts: three compilations)
        assert plain(a) == a.tobytes()
        for order in "CFA":
            assert given(a, order) == a.tobytes(order), (a, order)
    for a in [np.array(3.5), x + 1j, np.arange(-3, 4, dtype=np.int8)[::-1], np.array([True])]:
        assert plain(a) == a.tobytes()
    fortran, either = njit(lambda a: a.tobytes("F")), njit(lambda a: a.tobytes(order="A"))
    for a in [x, x.T]:
        assert fortran(a) == a.tobytes("F") and either(a) == a.tobytes("A")
    assert isinstance(plain(x), bytes)
    with pytest.raises(ValueError, match="order must be one of"):
        given(x, "Q")
    assert_frees_all(plain, lambda: x.T)


def test_bad_dtypes_and_shapes_say_what_is_wrong():
    with pytest.raises(TypingError, match="Invalid NumPy dtype specified: 'ABCDEF'"):
        njit(lambda n: np.zeros(n, "ABCDEF"))(3)
    with pytest.raises(TypingError, match="must be a string constant"):
        njit(lambda n, dt: np.ones(n, dt))(3, "f8")
    with pytest.raises(ValueError, match="^negative dimensions not allowed$"):
        njit(lambda n: np.empty((2, n)))(-1)


def test_returned_arrays_base_reports_its_reference_count():
    a = njit(lambda n: np.zeros(n))(3)
    assert a.base.refcount == 1  # only the NumPy array holds the memory (Numba's MemInfo API)


def test_reductions_and_joins_name_a_bad_constant_axis_and_the_rank():
    a = np.arange(6.0).reshape(2, 3)
    bad_sum = njit(lambda a: a.sum(axis=-3))
    bad_join = njit(lambda a: np.concatenate((a, a), 2))
    for compiled, plain in [
        (bad_sum, lambda: a.sum(axis=-3)),
        (bad_join, lambda: np.concatenate((a, a), 2)),
    ]:
        with pytest.raises(np.exceptions.AxisError) as caught:
            compiled(a)
        with pytest.raises(np.exceptions.AxisError) as expected:
            plain()
        assert str(caught.value) == str(expected.value)
    runtime_axis = njit(lambda a, axis: np.sum(a, axis=axis))
    np.testing.assert_array_equal(runtime_axis(a, -1), a.sum(axis=-1))
    with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
        runtime_axis(a, 2)


def test_insert_a_sequence_of_positions_along_an_axis():
    def insert(a, positions, values, axis):
        return np.insert(a, positions, values, axis=axis)

    f = njit(insert)
    x = np.arange(12.0).reshape(3, 4)
    p = np.array  # positions as arrays (one compilation per array layout and values rank)
    cases = [
        (x, p([0, 2]), 5.0, 0),
        (x, p([3, 0, 0]), 5.0, 1),  # repeated positions keep their order
        (x, p([3, 1]), -1.0, -1),
        (x, p([], np.int64), 1.0, 0),
        (x, p([1]), np.arange(8.0).reshape(2, 4), 0),  # one position: a block of two rows
        (x, p([0, 2]), np.array([[9.0], [8.0], [7.0]]), 1),
        (x, p([-1, 0]), np.arange(8.0).reshape(2, 4), 0),
    ]
    for a, positions, values, axis in cases:
        _same_array(f(a, positions, values, axis), insert(a, positions, values, axis))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 4"):
        f(x, np.array([5]), 1.0, 1)


def test_array_of_a_fortran_array_keeps_fortran_order():
    def copy(a):
        return np.array(a)

    def copy_int32(a):
        return np.array(a, np.int32)

    x = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    for a in [x, x.T, np.arange(3.0), np.array(2.0)]:
        for py_func in (copy, copy_int32):
            got, want = njit(py_func)(a), py_func(a)
            _same_array(got, want)
            assert got.strides == want.strides
            assert not np.shares_memory(got, a)


def test_concatenate_of_fortran_arrays_is_fortran():
    join = njit(lambda a, b, axis: np.concatenate((a, b), axis))
    x = np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))
    for a, b in [(x, x), (x, np.asfortranarray(x[::-1])), (x.T, x.T)]:
        for axis in (0, 1, -1):
            got, want = join(a, b, axis), np.concatenate((a, b), axis)
            _same_array(got, want)
            assert got.strides == want.strides
    mixed = (x, np.ascontiguousarray(x))  # NumPy's order of mixed inputs: values only
    _same_array(join(*mixed, 1), np.concatenate(mixed, 1))


def test_concatenate_names_the_mismatched_dimension():
    join = njit(lambda a, b, axis: np.concatenate((a, b), axis))
    for b_shape, axis, dim in [((2, 4), 0, 1), ((3, 3), 1, 0), ((3, 3), -1, 0)]:
        with pytest.raises(ValueError, match=f"input sizes over dimension {dim} do not match"):
            join(np.ones((2, 3)), np.ones(b_shape), axis)
        with pytest.raises(ValueError, match=f"along dimension {dim}"):  # NumPy agrees
            np.concatenate((np.ones((2, 3)), np.ones(b_shape)), axis)


def test_joining_a_tuple_of_many_arrays():
    # beyond the unrolled joins' limit a tuple goes through a loop (LLVM aborted at ~25)
    line = np.arange(3.0)
    join = njit(lambda t: np.concatenate(t))
    join_columns = njit(lambda t: np.concatenate(t, 1))
    for count in (16, 17, 30):
        parts = tuple(line * k - 1 for k in range(count))
        np.testing.assert_array_equal(join(parts), np.concatenate(parts))
    squares = tuple(np.arange(4.0).reshape(2, 2) + k for k in range(30))
    np.testing.assert_array_equal(join_columns(squares), np.concatenate(squares, 1))
    np.testing.assert_array_equal(njit(lambda t: np.vstack(t))(squares), np.vstack(squares))
