"""Dispatcher, typeof and extension API behaviour that real Numba programs rely on (third
round, _notes/exttests3_gaps.md): each test checks values computed by plain Python/NumPy, or
the exception Numba raises."""

from __future__ import annotations

import array
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import literally, njit, types
from ember.errors import CompilerError, NumbaValueError, TypingError
from ember.extending import overload

# ---------------------------------------------------------------------------- slice arguments


def _sliced_sum(a, s):
    return a[s].sum()


def _slice_parts(s):
    return s.start, s.stop, s.step


_ARRAY = np.arange(12.0) * 1.5
_WARM = 20  # enough calls for the native entry to be installed


def _warmed(py_func, *args):
    compiled = njit(py_func)
    for _ in range(_WARM):
        compiled(*args)
    return compiled


_part = st.one_of(st.none(), st.integers(-20, 20))


@settings(max_examples=25, deadline=None)
@given(start=_part, stop=_part, step=st.one_of(st.none(), st.integers(-4, 4).filter(bool)))
def test_slice_arguments_through_the_native_entry_match_numpy(start, stop, step):
    compiled = _SLICED_SUM
    s = slice(start, stop, step)
    assert compiled(_ARRAY, s) == pytest.approx(_ARRAY[s].sum())


_SLICED_SUM = _warmed(_sliced_sum, _ARRAY, slice(1, 5))


def test_slice_kinds_two_and_three_parts_and_step_one():
    compiled = _warmed(_sliced_sum, _ARRAY, slice(1, 5))
    for s in (slice(2, 10, 3), slice(None, None, -1), slice(0, 6, 1), slice(None, 4), slice(3)):
        for _ in range(3):
            assert compiled(_ARRAY, s) == _ARRAY[s].sum()
    kinds = {str(sig[1]) for sig in compiled.signatures}
    assert kinds == {"slice<a:b>", "slice<a:b:c>"}  # step 1 is the two-part kind, as typeof says


def test_slice_parts_seen_by_compiled_code():
    compiled = _warmed(_slice_parts, slice(1, 2, 3))
    # Omitted parts are the sentinels of the step's direction; reading them back gives ints.
    assert compiled(slice(-3, 7, 2)) == (-3, 7, 2)
    assert compiled(slice(5, -1, -2)) == (5, -1, -2)


def test_slice_argument_errors_match_python():
    compiled = _warmed(_sliced_sum, _ARRAY, slice(1, 9, 2))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        compiled(_ARRAY, slice(1, 5, 0))
    with pytest.raises(OverflowError):
        compiled(_ARRAY, slice(1 << 70, None, 2))
    # NumPy integers and slices of other objects take the dispatcher's Python path
    assert compiled(_ARRAY, slice(np.int64(1), np.int32(9), np.int16(3))) == _ARRAY[1:9:3].sum()


# ---------------------------------------------------------------------------- buffer arguments


def _indexed_total(b):
    s = 0
    for i in range(len(b)):
        s += b[i]
    return s


def _iterated_total(b):
    s = 0
    for x in b:
        s += x
    return s


def _fill(b, start):
    for i in range(len(b)):
        b[i] = start + i


def test_buffer_objects_are_typed_as_numba_types_them():
    from ember import typeof, types

    assert typeof(bytearray(3)) == types.ByteArray(types.uint8, 1, "C")
    assert typeof(bytearray(3)).mutable
    view = typeof(memoryview(b"xy"))
    assert view == types.MemoryView(types.uint8, 1, "C", readonly=True) and not view.mutable
    assert typeof(array.array("i", [1])) == types.PyArray(types.int32, 1, "C")
    strided = typeof(memoryview(np.zeros((2, 4))[:, ::2]))
    assert strided == types.MemoryView(types.float64, 2, "A")


@pytest.mark.parametrize(
    "make",
    [
        lambda: bytearray(b"ember!"),
        lambda: memoryview(bytearray(b"numba")),
        lambda: array.array("d", [1.5, -2.0, 4.25]),
        lambda: array.array("i", [7, -3, 11, 2]),
        lambda: memoryview(np.arange(10.0))[1::3],
    ],
)
def test_buffer_arguments_read_iterate_and_write_their_memory(make):
    value = make()
    assert njit(_indexed_total)(value) == _indexed_total(value)
    assert njit(_iterated_total)(value) == _iterated_total(value)
    assert njit(lambda b: np.sum(b))(value) == pytest.approx(float(sum(value)))
    expected, written = make(), make()
    _fill(expected, 65)
    njit(_fill)(written, 65)  # writes reach the Python object
    assert list(written) == list(expected)


def test_buffer_argument_slices_share_memory_and_readonly_views_refuse_writes():
    from ember.errors import TypingError

    data = bytearray(b"abcdef")
    part = njit(lambda b: b[1:4])(data)
    assert list(part) == list(data[1:4])
    data[2] = 0
    assert part[1] == 0  # a view of the bytearray's memory
    with pytest.raises(TypingError, match="read-only"):
        njit(_fill)(memoryview(b"xy"), 1)


def test_big_endian_arrays_are_refused_with_numbas_words():
    from ember import typeof
    from ember.errors import NumbaValueError, TypingError

    swapped = np.ones(3).astype(np.dtype(">f8"))
    with pytest.raises(NumbaValueError, match="Unsupported array dtype: >f8"):
        typeof(swapped)
    with pytest.raises(TypingError, match="Unsupported array dtype: >f8"):
        njit(lambda a: a[0])(swapped)
    assert njit(lambda a: a[0])(swapped.astype("=f8")) == 1.0


# ---------------------------------------------------------------------------- literal dispatch


def _scaled_sum(x, y):
    return x * 10 + y


@njit
def _literal_scaled_sum(x, y):
    return literally(x) * 10 + y


def _choose(x, y):
    return x * 10 + y


@overload(_choose)
def _choose_overload(x, y):
    if isinstance(types.unliteral(x), types.Integer):
        return lambda x, y: _literal_scaled_sum(x, y)


def _refused(x, y):
    return x + y


@overload(_refused)
def _refused_overload(x, y):
    if isinstance(y, types.IntegerLiteral):
        raise NumbaValueError("no literal y")
    return lambda x, y: _literal_scaled_sum(x, y)


def test_literally_inside_an_overload_implementation_makes_the_caller_literal():
    caller = njit(lambda a, b: _choose(a, b))
    for a, b in ((123, 321), (7, 1)):
        assert caller(a, b) == _scaled_sum(a, b)
    first = caller.signatures[0]
    assert isinstance(first[0], types.IntegerLiteral) and first[0].literal_value == 123
    assert not isinstance(first[1], types.Literal)


def test_a_literal_request_that_cannot_be_met_is_numbas_compiler_error():
    caller = njit(lambda a, b: _refused(a, literally(b)))
    with pytest.raises(CompilerError, match="Repeated literal typing request"):
        caller(a=123, b=321)


# ---------------------------------------------------------------------------- error messages


def _no_overload_taken(x):
    return x


@overload(_no_overload_taken)
def _no_overload_taken_overload(x):
    return None  # takes no argument type


def _typing_error(py_func, *args):
    with pytest.raises(TypingError) as info:
        njit(py_func)(*args)
    return str(info.value)


def test_a_call_no_implementation_takes_says_numbas_words_then_embers_cause():
    message = _typing_error(lambda n: len(n), 3)
    lines = message.splitlines()
    assert lines[-1] == "No implementation of len for argument types (int64)"
    assert "No implementation of function Function(<built-in function len>)" in message
    context = [line for line in lines if line.startswith("During:")]
    assert context[0] == "During: resolving callee type: Function(<built-in function len>)"
    assert context[1].startswith("During: typing of call at ") and __file__ in context[1]
    assert len(lines) <= 10  # still a short message


def test_an_overload_that_takes_nothing_is_named_with_its_file():
    message = _typing_error(lambda: _no_overload_taken(1))
    here = os.path.basename(__file__)
    assert "Overload of function '_no_overload_taken': File: " in message
    assert here in message and "No match." in message


def test_operator_and_setitem_failures_name_the_operator_function():
    message = _typing_error(lambda: "a" + 1)
    assert "Function(<built-in function add>)" in message and "No match." in message
    message = _typing_error(_store_into_tuple, (1, 2))
    assert "No implementation of function Function(<built-in function setitem>)" in message
    assert message.splitlines()[-1].startswith("No implementation of setitem for argument types")


def _store_into_tuple(t):
    t[0] = 1


def _tuple_or_complex(x):
    if x > 0:
        return ()
    return 1j


def _empty_array_cast():
    a = np.array([])
    return a.astype(np.int32)


def test_unification_and_imprecise_type_errors_keep_numbas_phrases():
    message = _typing_error(_tuple_or_complex, 1)
    assert "Can't unify return type from the following types: Tuple(), complex128" in message
    message = _typing_error(_empty_array_cast)
    assert "Undecided type" in message and "list(undefined)" in message


def _reads_an_unbound_global():
    return surely_not_bound_anywhere  # noqa: F821


def _forgets_to_import_prange():
    s = 0
    for i in prange(3):  # noqa: F821
        s += i
    return s


def test_an_unbound_global_is_a_typing_error_with_pythons_words():
    message = _typing_error(_reads_an_unbound_global)
    assert "NameError: name 'surely_not_bound_anywhere' is not defined" in message
    message = _typing_error(_forgets_to_import_prange)
    assert "'prange' looks like a Numba internal function, has it been imported" in message


_GLOBAL_LIST = [1, 2, 3]


def _reads_a_global_list():
    return _GLOBAL_LIST[0]


def test_a_global_list_is_refused_at_typing_with_numbas_words():
    message = _typing_error(_reads_a_global_list)
    assert "The use of a reflected list(int64)" in message
    assert "in globals, is not supported as globals" in message
    assert njit(lambda xs: xs[0])(_GLOBAL_LIST) == _GLOBAL_LIST[0]  # as an argument it works


# ---------------------------------------------------------------------------- _nrt=False


def _new_range(n):
    return np.arange(n)


def _given_back(a):
    return a


def test_no_runtime_functions_may_return_only_their_array_arguments():
    made = njit(_nrt=False)(_new_range)
    with pytest.raises(TypingError, match="Only accept returning of array passed into the"):
        made(3)
    given = np.arange(4.0)
    assert njit(_nrt=False)(_given_back)(given) is given
    summed = njit(_nrt=False)(lambda n: np.ones(n).sum())  # a temporary array is fine
    assert summed(3) == 3.0


def test_overload_jit_options_without_runtime_apply_to_the_implementation():
    def make(n):
        return np.arange(n)

    @overload(make, jit_options={"_nrt": False})
    def _make_overload(n):
        return lambda n: np.arange(n)

    with pytest.raises(TypingError, match="Only accept returning of array passed into the"):
        njit(lambda n: make(n))(3)


# ---------------------------------------------------------------------------- typeof


def test_typeof_of_random_generators_masked_arrays_and_lists_of_dicts():
    from ember import typeof
    from ember.errors import NumbaTypeError

    rng = np.random.default_rng(7)
    assert typeof(rng) == types.npy_rng
    assert typeof(rng.bit_generator) == types.npy_bitgen == typeof(np.random.MT19937(1))
    with pytest.raises(NumbaTypeError, match="Unsupported array type: numpy.ma.MaskedArray"):
        typeof(np.ma.MaskedArray([1, 2]))
    with pytest.raises(ValueError, match="Cannot type list element type <class 'dict'>"):
        typeof([{1: 3}])


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint64, np.bool_, np.complex128])
def test_dtype_kind_and_type_in_compiled_code(dtype):
    values = np.ones(3, dtype)
    assert njit(lambda a: a.dtype.kind)(values) == values.dtype.kind
    assert njit(lambda a: a.dtype.kind == "f")(values) == (values.dtype.kind == "f")
    made = njit(lambda a: a.dtype.type(3) + a[0])(values)  # a scalar of the dtype
    assert made == values.dtype.type(3).item() + values[0].item()  # Python's arithmetic


# ---------------------------------------------------------------------------- lists of functions


@njit
def _plus_one(x):
    return x + 1


@njit
def _plus_two(x):
    return _plus_one(_plus_one(x))


def _call_each(fns, x):
    total = 0
    for f in fns:
        total += f(x)
    return total, fns[len(fns) - 1](x)


def _grow(fns):
    fns.append(fns[0])
    return len(fns)


def test_a_list_of_one_jitted_function_passes_from_python():
    plain = [_plus_one.py_func] * 3
    compiled = njit(_call_each)
    for _ in range(_WARM):
        assert compiled([_plus_one] * 3, 4) == _call_each(plain, 4)
    fns = [_plus_one, _plus_one]
    assert njit(_grow)(fns) == 3 and fns == [_plus_one] * 3  # changes are written back
    with pytest.raises(TypingError, match="must hold one function.*_plus_one and _plus_two"):
        compiled([_plus_one, _plus_two], 1)
    assert compiled((_plus_one, _plus_two), 1) == (2 + 3, 3)  # a tuple holds several


# ---------------------------------------------------------------------------- cache=True


_CACHED_MODULE = """
import numpy as np
from ember import njit, objmode, prange, literal_unroll, int64
from ember.experimental import jitclass

@njit(cache=True)
def with_objmode(x):
    with objmode(y="float64"):
        y = float(np.sqrt(x))
    return y + 1.0

@jitclass([("v", int64)])
class Box:
    def __init__(self, v):
        self.v = v
    def twice(self):
        return self.v * 2

@njit(cache=True)
def use_box(v):
    return Box(v).twice()

@njit(cache=True, parallel=True)
def parallel_sum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s

@njit(cache=True)
def squares(n):
    for i in range(n):
        yield i * i

@njit(cache=True)
def sum_squares(n):
    return sum(squares(n))

def make_adder(k):
    @njit(cache=True)
    def add(x):
        return x + k
    return add

add_five = make_adder(5)

@njit(cache=True)
def unrolled(t):
    s = 0.0
    for v in literal_unroll(t):
        s += v
    return s
"""

_CACHED_RUN = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import cached_features as m
calls = [m.with_objmode(16.0), m.use_box(4), m.parallel_sum(np.arange(5.0)), m.sum_squares(4),
         m.unrolled((1, 2.5)), m.add_five(3)]
hits = [sum(f.stats.cache_hits.values()) for f in
        (m.with_objmode, m.use_box, m.parallel_sum, m.sum_squares, m.unrolled, m.add_five)]
print(calls, hits)
"""


def test_cache_true_features_are_reused_by_a_new_process(tmp_path):
    import subprocess
    import sys

    import ember

    (tmp_path / "cached_features.py").write_text(_CACHED_MODULE)
    env = {
        **os.environ,
        "EMBER_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.path.dirname(os.path.dirname(ember.__file__)),
    }
    runs = [
        subprocess.run(
            [sys.executable, "-c", _CACHED_RUN, str(tmp_path)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for _ in range(2)
    ]
    expected_values = [16.0**0.5 + 1.0, 8, 10.0, 0 + 1 + 4 + 9, 3.5, 8]
    assert runs[0] == f"{expected_values} {[0] * 6}"  # compiled and written
    assert runs[1] == f"{expected_values} {[1] * 6}"  # each one loaded from the disk cache


def test_type_annotation_typemap_names_each_variables_type():
    from ember import uint8, uint32

    def count_down(iters):
        steps = range(iters)
        return len(steps)

    compiled = njit(uint8(uint32))(count_down)
    typemap = compiled.overloads[(uint32,)].type_annotation.typemap
    assert typemap["iters"] == uint32  # the declared argument type, kept
    assert compiled(7) == count_down(7)
    annotation = compiled.overloads[(uint32,)].type_annotation
    assert len(annotation.calltypes) == 2  # range(iters) and len(steps)
    assigned = {
        stmt.target.name
        for b in annotation.blocks.values()
        for stmt in b.body
        if hasattr(stmt, "target")
    }
    assert {"iters", "steps"} <= assigned


def _unsupported_numpy_call():
    return np.genfromtxt("values.txt")  # file reading: never compiled


def test_an_uncompiled_numpy_function_is_named_with_numbas_words():
    message = _typing_error(_unsupported_numpy_call)
    assert "Use of unsupported NumPy function 'numpy.genfromtxt'" in message
    assert "Unknown attribute 'genfromtxt' of type Module(numpy)" in message


def _incremented(a):
    b = a + 1
    return b


def test_get_annotation_info_gives_each_specializations_typed_lines():
    compiled = njit(_incremented)
    compiled(1)
    compiled(1.5)
    info = compiled.get_annotation_info()
    merged = {}
    for sig in compiled.signatures:
        merged.update(compiled.get_annotation_info(sig))
    assert merged == info and len(info) == 2
    line = _incremented.__code__.co_firstlineno + 1  # `b = a + 1`
    for (where, args), data in info.items():
        assert where.endswith(f":{line}")
        assert (line, "    b = a + 1") in data["python_lines"]
        typed = " ".join(text for text, _ in data["ir_lines"][line])
        assert f":: {args[0]}" in typed  # `a + 1` has the argument's type


def _needs_literal(a):
    return a


@overload(_needs_literal)
def _needs_literal_overload(a):
    if isinstance(a, types.Literal):
        return lambda a: type(a)(a + 1.25)  # the literal's type: an int


@njit
def _default_one(a=1):
    return _needs_literal(a)


def test_an_omitted_default_reaches_an_overload_as_a_literal_when_it_must():
    assert njit(lambda: _default_one())() == int(1 + 1.25)
    assert njit(lambda: _default_one(100))() == int(100 + 1.25)


def test_is_serializable_says_whether_a_value_pickles():
    import pickle
    import threading

    from ember.core.serialize import is_serializable

    for value in ({"key": "value"}, [1, 2, 3], "text", np.arange(3)):
        assert is_serializable(value) and pickle.loads(pickle.dumps(value)) is not None
    assert not is_serializable(threading.Lock())
    assert not is_serializable(lambda: 0)  # a lambda has no importable name


def test_bytearray_arguments_through_the_native_entry():
    total = _warmed(_indexed_total, bytearray(b"warm"))
    fill = _warmed(_fill, bytearray(3), 1)
    data = bytearray(b"native entry")
    assert total(data) == sum(data)
    del data[:7]  # the start moves, the size shrinks: read on each call
    assert total(data) == sum(data) == sum(b"entry")
    data.extend(b"!!")
    fill(data, 60)
    assert data == bytearray(range(60, 60 + len(data)))
    view = _warmed(lambda b: b[1:3], bytearray(b"abcd"))  # an array result: Python path
    assert list(view(bytearray(b"wxyz"))) == list(b"xy")
