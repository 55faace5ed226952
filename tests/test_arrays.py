"""Arrays in compiled code: passing and returning them, indexing, views, attributes, iteration,
creation functions, reference counting (leak tests) and errors.

Every expected value comes from NumPy or from the function's own `py_func`, run in CPython.
Inputs cover each dtype family and C, F, non-contiguous and negative-stride layouts, empty arrays
and 0-d results. Jitted functions are defined once at module level and reused across inputs.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from oracle import for_types
from test_arrays_support import (
    DTYPES,
    LAYOUTS,
    NUMERIC,
    assert_same,
    live_allocations,
    sample,
)

import ember.runtime
from ember import TypingError, njit

# ---------------------------------------------------------------------------- passing arrays


@njit
def identity(a):
    return a


@njit
def first_item(a):
    return a[0]


@njit
def corner(a):
    return a[0, 0]


@njit
def last_corner(a):
    return a[-1, -1]


@njit
def get2(a, i, j):
    return a[i, j]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_item_access_all_dtypes_and_layouts(dtype, layout):
    a = sample(dtype, (3, 4), layout)
    assert_same(for_types(corner, a)(a), a[0, 0])
    assert_same(for_types(last_corner, a)(a), a[-1, -1])
    for i, j in [(1, 2), (-1, 0), (2, -3)]:
        assert_same(for_types(get2, a, i, j)(a, i, j), a[i, j])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_returning_an_argument_keeps_its_identity(layout):
    a = sample(np.float64, (3, 5), layout)
    assert identity(a) is a
    v = sample(np.int32, (7,), layout)
    assert identity(v) is v


def test_zero_dimensional_and_empty_arrays():
    z = np.array(4.5)
    assert identity(z) is z
    e = np.zeros((0, 3))
    assert identity(e) is e
    assert_same(array_len(np.zeros((0,))), 0)


@njit
def sum_loop(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i]
    return total


@njit
def sum_2d(a):
    total = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            total += a[i, j]
    return total


@pytest.mark.parametrize("layout", LAYOUTS)
def test_loops_over_indices(layout):
    v = sample(np.float64, (11,), layout)
    assert sum_loop(v) == sum_loop.py_func(v)
    m = sample(np.int64, (4, 6), layout)
    assert sum_2d(m) == sum_2d.py_func(m)


# ---------------------------------------------------------------------------- setitem


@njit
def set_item(a, i, value):
    a[i] = value


@njit
def set_item2(a, i, j, value):
    a[i, j] = value


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_setitem_scalars(dtype, layout):
    a = sample(dtype, (3, 4), layout)
    expected = a.copy()
    for_types(set_item2, a, 1, -1, 7)(a, 1, -1, 7)
    expected[1, -1] = 7
    assert_same(a, expected)
    v = sample(dtype, (6,), layout)
    expected = v.copy()
    for_types(set_item, v, -2, 3)(v, -2, 3)
    expected[-2] = 3
    assert_same(v, expected)


def test_setitem_casts_like_numpy():
    a = np.zeros(3, dtype=np.int64)
    set_item(a, 0, 2.75)
    assert a[0] == 2
    b = np.zeros(2, dtype=np.bool_)
    set_item(b, 1, 5)
    assert b[1]


@njit
def write_readonly(a):
    a[0] = 1.0


def test_setitem_on_a_readonly_array_is_a_typing_error():
    a = np.zeros(3)
    a.flags.writeable = False
    with pytest.raises(TypingError, match="read-only"):
        write_readonly(a)


# ---------------------------------------------------------------------------- views

BASIC_INDEXERS = {
    "row": lambda a: a[1],
    "neg_row": lambda a: a[-1],
    "slice": lambda a: a[1:3],
    "step": lambda a: a[::2],
    "neg_step": lambda a: a[::-1],
    "neg_step_bounds": lambda a: a[3:0:-2],
    "open_slices": lambda a: a[:2, 1:],
    "column": lambda a: a[:, 1],
    "clamped": lambda a: a[-10:10, 5:],
    "newaxis": lambda a: a[None],
    "newaxis_mid": lambda a: a[:, None, 1],
    "ellipsis": lambda a: a[..., 0],
    "ellipsis_mid": lambda a: a[1, ...],
    "empty_slice": lambda a: a[2:2],
    "element_tuple": lambda a: a[(1, 2)],
    "zero_d": lambda a: a[1, 2, ...],
}
_JITTED_INDEXERS = {name: njit(fn) for name, fn in BASIC_INDEXERS.items()}


@pytest.mark.parametrize("name", BASIC_INDEXERS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_basic_indexing_gives_numpy_views(name, layout):
    a = sample(np.float64, (4, 5), layout)
    expected = BASIC_INDEXERS[name](a)
    got = _JITTED_INDEXERS[name](a)
    assert_same(got, expected)
    if isinstance(expected, np.ndarray):  # a view: writing through it changes `a`
        assert np.shares_memory(got, a) or got.size == 0


def test_views_of_3d_arrays():
    a = sample(np.int32, (3, 4, 5), "C")
    for fn in (lambda a: a[1:, ::2, -1], lambda a: a[..., 1:3], lambda a: a[:, None, :, 2]):
        assert_same(njit(fn)(a), fn(a))


@njit
def slice_with(a, start, stop, step):
    return a[start:stop:step]


def test_slices_with_runtime_bounds():
    a = np.arange(10)
    for start in (-12, -3, 0, 4, 11):
        for stop in (-11, -2, 0, 5, 12):
            for step in (-3, -1, 1, 2):
                assert_same(slice_with(a, start, stop, step), a[start:stop:step])


def test_zero_slice_step_raises():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        slice_with(np.arange(3), 0, 3, 0)


@njit
def write_through_view(a):
    v = a[1:, ::2]
    v[0, 0] = 100
    v[-1] = 7
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
def test_writing_through_views(layout):
    a = sample(np.int64, (3, 6), layout)
    expected = write_through_view.py_func(a.copy())
    assert_same(write_through_view(a), expected)


@njit
def assign_slices(a, b):
    a[1:3] = 5.0
    a[:, 0] = b[: a.shape[0]]
    a[-1] = b[:4]
    return a


def test_setitem_with_slices_and_broadcast_arrays():
    a = np.zeros((4, 4))
    b = np.arange(10.0)
    expected = assign_slices.py_func(a.copy(), b)
    assert_same(assign_slices(a, b), expected)


@njit
def shift_right(a):
    a[1:] = a[:-1]
    return a


def test_overlapping_assignment_copies_first():
    a = np.arange(6.0)
    expected = a.copy()
    expected[1:] = expected[:-1].copy()
    assert_same(shift_right(a), expected)


@njit
def bad_broadcast(a, b):
    a[:] = b


def test_setitem_shape_mismatch_raises():
    with pytest.raises(
        ValueError, match=r"cannot assign slice of shape \(3,\) from input of shape \(4,\)"
    ):
        bad_broadcast(np.zeros(3), np.zeros(4))


# ---------------------------------------------------------------------------- advanced indexing

ADVANCED = {
    "int_array": lambda a, i, m: a[i],
    "int_array_col": lambda a, i, m: a[:, i],
    "int_array_with_int": lambda a, i, m: a[1, i],
    "mask_rows": lambda a, i, m: a[m],
    "mask_cols": lambda a, i, m: a[1:, m[: a.shape[1]]],
    "full_mask": lambda a, i, m: a[a > 0],
}
_JITTED_ADVANCED = {name: njit(fn) for name, fn in ADVANCED.items()}


@pytest.mark.parametrize("name", ADVANCED)
@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_fancy_indexing_and_masks(name, layout):
    a = sample(np.float64, (4, 4), layout)
    index = np.array([3, 0, -1, 2, 2])
    mask = np.array([True, False, True, True])
    assert_same(_JITTED_ADVANCED[name](a, index, mask), ADVANCED[name](a, index, mask))


@njit
def fancy_out_of_bounds(a, i):
    return a[i]


def test_fancy_index_out_of_bounds_raises():
    with pytest.raises(IndexError):
        fancy_out_of_bounds(np.arange(3.0), np.array([0, 3]))


@njit
def mask_assign(a, limit, value):
    a[a > limit] = value
    return a


@njit
def fancy_assign(a, i, values):
    a[i] = values
    return a


def test_setitem_with_masks_and_integer_arrays():
    a = np.arange(12.0).reshape(3, 4)
    assert_same(mask_assign(a.copy(), 5.0, -1.0), mask_assign.py_func(a.copy(), 5.0, -1.0))
    v = np.arange(6)
    assert_same(
        fancy_assign(v.copy(), np.array([0, -1]), np.array([9, 8])),
        fancy_assign.py_func(v.copy(), np.array([0, -1]), np.array([9, 8])),
    )


# ---------------------------------------------------------------------------- boundscheck


@njit(boundscheck=True)
def checked(a, i):
    return a[i]


@njit(boundscheck=True)
def checked_set(a, i, j):
    a[i, j] = 1


def test_boundscheck_raises_index_error():
    a = np.arange(5.0)
    assert checked(a, 4) == 4.0
    assert checked(a, -5) == 0.0
    with pytest.raises(IndexError):
        checked(a, 5)
    with pytest.raises(IndexError):
        checked(a, -6)
    with pytest.raises(IndexError):
        checked_set(np.zeros((2, 3)), 1, 3)


@njit(boundscheck=True)
def checked_alloc_then_fail(n, i):
    a = np.zeros(n)
    b = a[1:]
    return b[i]


def test_exceptions_release_owned_arrays():
    checked_alloc_then_fail(3, 0)
    with live_allocations():
        for _ in range(20):
            with pytest.raises(IndexError):
                checked_alloc_then_fail(3, 5)


# ---------------------------------------------------------------------------- attributes

ATTRIBUTES = {
    "shape": lambda a: a.shape,
    "ndim": lambda a: a.ndim,
    "size": lambda a: a.size,
    "itemsize": lambda a: a.itemsize,
    "nbytes": lambda a: a.nbytes,
    "strides": lambda a: a.strides,
    "T": lambda a: a.T,
    "real": lambda a: a.real,
    "imag": lambda a: a.imag,
    "len": lambda a: len(a),
    "dtype_use": lambda a: np.zeros(2, a.dtype),
}
_JITTED_ATTRIBUTES = {name: njit(fn) for name, fn in ATTRIBUTES.items()}


@pytest.mark.parametrize("name", ATTRIBUTES)
@pytest.mark.parametrize("dtype", [np.int16, np.float64, np.complex128])
@pytest.mark.parametrize("layout", ["C", "F", "N"])
def test_attributes(name, dtype, layout):
    a = sample(dtype, (3, 4), layout)
    assert_same(for_types(_JITTED_ATTRIBUTES[name], a)(a), ATTRIBUTES[name](a))


@njit
def array_len(a):
    return len(a)


@njit
def iterate(a):
    total = 0.0
    count = 0
    for x in a:
        total += x
        count += 1
    return total, count


@njit
def iterate_rows(a):
    out = np.zeros(a.shape[1])
    for row in a:
        out += row
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_iteration(layout):
    v = sample(np.float64, (9,), layout)
    assert_same(iterate(v), iterate.py_func(v))
    assert_same(iterate(v[:0]), (0.0, 0))
    m = sample(np.float64, (5, 3), layout)
    with live_allocations():
        assert_same(iterate_rows(m), m.sum(axis=0))


# ---------------------------------------------------------------------------- creation

CREATION = {
    "empty_shape": lambda n: np.empty((n, 2)).shape,
    "zeros": lambda n: np.zeros(n),
    "zeros_2d_int": lambda n: np.zeros((n, 3), np.int32),
    "zeros_dtype_kw": lambda n: np.zeros(n, dtype=np.complex64),
    "ones": lambda n: np.ones((2, n)),
    "ones_bool": lambda n: np.ones(n, np.bool_),
    "full": lambda n: np.full((n, 2), 7),
    "full_float": lambda n: np.full(n, 2.5, dtype=np.float32),
    "zeros_like": lambda n: np.zeros_like(np.ones((n, 2), np.int16)),
    "ones_like_dtype": lambda n: np.ones_like(np.zeros(n), dtype=np.int8),
    "full_like": lambda n: np.full_like(np.zeros(n), 3.5),
    "empty_like_shape": lambda n: np.empty_like(np.zeros((n, 4))).shape,
    "arange": lambda n: np.arange(n),
    "arange_start": lambda n: np.arange(2, n),
    "arange_step": lambda n: np.arange(n, -3, -2),
    "arange_float": lambda n: np.arange(0.5, n, 0.25),
    "arange_dtype": lambda n: np.arange(n, dtype=np.float32),
    "linspace": lambda n: np.linspace(0, 1, n),
    "linspace_no_end": lambda n: np.linspace(-2.0, 3.0, n, endpoint=False),
    "eye": lambda n: np.eye(n),
    "eye_rect": lambda n: np.eye(n, n + 2, k=1),
    "eye_int": lambda n: np.eye(n, dtype=np.int64),
    "identity": lambda n: np.identity(n),
    "copy": lambda n: np.copy(np.arange(n)[::2]),
    "method_copy": lambda n: np.ones((n, 2)).T.copy(),
    "array_tuple": lambda n: np.array((1, 2, n)),
    "array_nested": lambda n: np.array(((1.0, 2.0), (3.0, n))),
    "asarray": lambda n: np.asarray(np.arange(n), dtype=np.float64),
    "ascontiguous": lambda n: np.ascontiguousarray(np.ones((n, 3)).T),
}
_JITTED_CREATION = {name: njit(fn) for name, fn in CREATION.items()}


@pytest.mark.parametrize("name", CREATION)
def test_creation_functions(name):
    with live_allocations():
        for n in (0, 1, 5):
            assert_same(_JITTED_CREATION[name](n), CREATION[name](n))


def test_negative_dimensions_raise():
    with pytest.raises(ValueError, match="negative dimensions"):
        _JITTED_CREATION["zeros"](-1)


def test_unsupported_dtypes_are_typing_errors():
    with pytest.raises(TypingError, match="dtype"):
        njit(lambda n: np.zeros(n, dtype=np.float16))(3)
    with pytest.raises(TypingError, match="strings"):  # of the other byte order
        njit(lambda n: np.zeros(n, dtype=">U3"))(3)
    with pytest.raises(TypingError, match="object"):
        identity(np.array([object()]))


# ---------------------------------------------------------------------------- reference counts


@njit
def allocate_slice_return(n):
    a = np.arange(n)
    b = a[2:]
    c = b[::2]
    return c


@njit
def temporaries(n):
    total = 0.0
    for i in range(n):
        a = np.ones(3) * i
        b = a[1:]
        total += b[0]
    return total


@njit
def choose(flag, n):
    a = np.zeros(n)
    b = np.ones(n)
    if flag:
        c = a
    else:
        c = b
    return c


@njit
def tuple_of_arrays(n):
    a = np.zeros(n)
    return a, a[1:], (a, 2)


def test_no_leaks_over_many_calls():
    allocate_slice_return(10)
    before = ember.runtime.stats().live
    for _ in range(100_000):
        allocate_slice_return(10)
    assert ember.runtime.stats().live == before


def test_no_leaks_with_loops_branches_and_tuples():
    temporaries(2), choose(True, 2), tuple_of_arrays(3)
    with live_allocations():
        assert temporaries(5) == temporaries.py_func(5)
        assert_same(choose(True, 3), np.zeros(3))
        assert_same(choose(False, 3), np.ones(3))
        a, b, (c, two) = tuple_of_arrays(4)
        assert two == 2 and a is c
        b[0] = 9
        assert a[1] == 9  # a view of runtime memory shares it
        del a, b, c


def test_returned_arrays_keep_their_memory_alive():
    view = allocate_slice_return(10)
    expected = np.arange(10)[2:][::2]
    import gc

    gc.collect()
    assert_same(view, expected)


@njit
def view_of_argument(a):
    return a[1:]


def test_views_of_arguments_keep_the_argument_alive():
    import gc
    import weakref

    a = np.arange(5.0)
    ref = weakref.ref(a)
    view = view_of_argument(a)
    del a
    gc.collect()
    assert ref() is not None
    assert_same(view, np.arange(1.0, 5.0))
    del view
    gc.collect()
    assert ref() is None


def test_readonly_input_gives_readonly_view():
    a = np.arange(4.0)
    a.flags.writeable = False
    view = view_of_argument(a)
    assert not view.flags.writeable


# ------------------------------------------------------------------------ calls between functions


@njit
def make_pair(n):
    return np.arange(n), np.ones(n)


@njit
def use_pair(n):
    a, b = make_pair(n)
    return identity(a) + b


def test_arrays_between_jitted_functions():
    with live_allocations():
        assert_same(use_pair(4), np.arange(4) + np.ones(4))


# ---------------------------------------------------------------------------- globals, truth, in

TABLE = np.arange(6.0).reshape(2, 3)


@njit
def read_global(i):
    return TABLE[i].sum() + TABLE[1, 2]


@njit
def global_view():
    return TABLE[:, 1:]


@njit
def write_global():
    TABLE[0, 0] = 1.0


def test_global_arrays_are_frozen_read_only_constants():
    assert read_global(1) == TABLE[1].sum() + TABLE[1, 2]
    view = global_view()
    assert_same(view, TABLE[:, 1:])
    assert not view.flags.writeable
    with pytest.raises(TypingError, match="read-only"):
        write_global()


@njit
def truth_and_membership(a, x):
    result = 0
    if a[:1]:
        result += 1
    if x in a:
        result += 10
    return result


@njit
def ambiguous_truth(a):
    return 1 if a else 0


def test_truth_value_and_in():
    a = np.array([1.0, 2.0, 3.0])
    assert truth_and_membership(a, 2.0) == truth_and_membership.py_func(a, 2.0)
    assert truth_and_membership(a[::-1] - 3, 5) == truth_and_membership.py_func(a[::-1] - 3, 5)
    for value in (a, np.array([]), np.zeros((2, 0)), np.array([0.0]), np.array([[2]])):
        try:
            expected = ambiguous_truth.py_func(value)
        except ValueError as error:  # NumPy's words for empty and for longer arrays
            with pytest.raises(ValueError, match=re.escape(str(error))):
                ambiguous_truth(value)
        else:
            assert ambiguous_truth(value) == expected


def test_explicit_array_signatures():
    from ember.types import float64, int64

    total = njit("float64(float64[:])")(lambda a: a.sum())
    assert total(np.arange(4.0)) == 6.0
    assert total(np.arange(8.0)[::2]) == 12.0  # a C array converts to the declared 'A' layout
    scale = njit(float64[:, ::1](float64[:, ::1], int64))(lambda a, k: a * k)
    assert_same(scale(np.ones((2, 2)), 3), np.full((2, 2), 3.0))
    with pytest.raises(TypeError, match="No matching definition"):
        total(np.arange(4))


# ---------------------------------------------------------------- control flow and reference counts


@njit
def make_doubled(n):
    return np.arange(n) * 2


@njit
def early_return(a, limit):
    for row in a:
        b = row * 2
        if b.sum() > limit:
            return b
    return a[0] * 0


@njit
def nested_breaks(n):
    total = 0.0
    for i in range(n):
        c = make_doubled(i + 1)
        for x in c:
            if x > 4:
                break
            total += x
        if i > 5:
            continue
        total += c[::2].sum()
    return total


@njit
def merge_in_branches(flag, n):
    if flag:
        a = np.zeros(n)
        b = a
    else:
        b = np.ones(n)
    c = b
    for _ in range(3):
        c = c + 1
    return c


@njit
def swap_buffers(n):
    u, v = np.zeros(n), np.ones(n)
    for _ in range(5):
        u, v = v, u
    return u


@njit
def raise_inside_array_loop(n):
    a = np.ones(n)
    for x in a:
        b = a * x
        if x > 0:
            raise ValueError("boom")
        a = b
    return a


CONTROL_FLOW = [
    (early_return, (np.arange(12.0).reshape(4, 3), 20.0)),
    (early_return, (np.arange(12.0).reshape(4, 3), 1e9)),
    (nested_breaks, (10,)),
    (merge_in_branches, (True, 3)),
    (merge_in_branches, (False, 3)),
    (swap_buffers, (4,)),
]


@pytest.mark.parametrize("case", range(len(CONTROL_FLOW)))
def test_reference_counts_through_control_flow(case):
    func, args = CONTROL_FLOW[case]
    expected = func.py_func(*args)
    func(*args)
    with live_allocations():
        for _ in range(20):
            assert_same(func(*args), expected)


def test_raising_inside_a_loop_releases_everything():
    raise_inside_array_loop(0)
    with live_allocations():
        for _ in range(20):
            with pytest.raises(ValueError, match="boom"):
                raise_inside_array_loop(3)


def test_boundscheck_environment_variable():
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from ember import njit\n"
        "f = njit(lambda a, i: a[i])\n"
        "try:\n"
        "    f(np.zeros(3), 3)\n"
        "except IndexError:\n"
        "    print('IndexError')\n"
    )
    env = dict(os.environ, EMBER_BOUNDSCHECK="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "IndexError", done.stderr


@njit
def _raising_callee(x):
    doubled = x * 2
    return int(doubled[3]) + doubled.size


def _caller_of_raising(x):
    shifted = x + 1
    return _raising_callee(shifted) + shifted[0]


def _temporary_per_iteration(x):
    total = 0
    for i in range(x.size):
        scaled = x * i
        total += int(scaled[i])
    return total


def _tuple_of_temporaries(x):
    pair = (x + 1, x * 2)
    return int(pair[0][3])


def _raise_after_allocating(x):
    result = np.sqrt(x + 1)
    if result[0] == 1.0:
        raise ValueError("first element")
    return result


@pytest.mark.parametrize(
    "func",
    [_caller_of_raising, _temporary_per_iteration, _tuple_of_temporaries, _raise_after_allocating],
)
def test_exceptions_release_what_was_allocated(func):
    values = np.linspace(0.0, 1.0, 10)
    values[3] = np.nan  # int(nan) raises ValueError, as in Python
    jitted = njit(func)
    with pytest.raises(ValueError) as expected:
        func(values)
    with pytest.raises(type(expected.value)):
        jitted(values)
    before = ember.runtime.stats().live
    for _ in range(200):
        with pytest.raises(ValueError):
            jitted(values)
    assert ember.runtime.stats().live == before


@njit
def _dtype_checks(a, b):
    return (
        a.dtype == np.float32,
        a.dtype != np.float32,
        a.dtype == b.dtype,
        a.dtype != b.dtype,
        np.int32 == b.dtype,
        b.dtype == np.int64,
    )


@pytest.mark.parametrize(
    ("a_dtype", "b_dtype"),
    [(np.float32, np.int32), (np.float64, np.float64), (np.float32, np.int64), (np.int8, np.int8)],
)
def test_dtype_comparisons_as_in_python(a_dtype, b_dtype):
    a, b = np.zeros(2, a_dtype), np.zeros(3, b_dtype)
    assert _dtype_checks(a, b) == _dtype_checks.py_func(a, b)
