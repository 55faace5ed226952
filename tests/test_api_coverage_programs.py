"""Gaps found running real Numba programs under `import ember as numba`: nested typed containers
shared from Python, explicit signatures called from compiled code, Numba type objects as dtypes,
Numba's error classes, the chunk-size hint and `Dispatcher.recompile()`."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember import float64, int32, int64, njit, typed, types


def test_inner_typed_list_is_shared_not_copied():
    # the adjacency-list idiom of graph code: outer[i].append(j) from Python
    outer = typed.List([typed.List.empty_list(types.int64) for _ in range(3)])
    edges = [(0, 1), (1, 2), (0, 2)]
    for a, b in edges:
        outer[a].append(b)
        outer[b].append(a)
    expected = [[] for _ in range(3)]
    for a, b in edges:
        expected[a].append(b)
        expected[b].append(a)
    assert [list(inner) for inner in outer] == expected

    @njit
    def degrees(adjacency):
        return [len(adjacency[i]) for i in range(len(adjacency))]

    assert degrees(outer) == [len(row) for row in expected]


def test_typed_dict_list_values_are_shared_not_copied():
    d = typed.Dict.empty(types.int64, types.ListType(types.int64))
    for key in range(3):
        d[key] = typed.List.empty_list(types.int64)
    for value in range(7):
        d[value % 3].append(value)
    for inner in d.values():
        inner.append(-1)
    assert {k: list(v) for k, v in d.items()} == {0: [0, 3, 6, -1], 1: [1, 4, -1], 2: [2, 5, -1]}


def test_typed_containers_print_as_numba_does():
    words = typed.List(["a", "b"])
    assert str(words) == "[a, b]" and repr(words) == "ListType[unicode_type]([a, b])"
    d = typed.Dict.empty(types.unicode_type, types.float64)
    d["x"] = 1.5
    assert str(d) == "{x: 1.5}" and repr(d) == f"{ember.typeof(d)}({{x: 1.5}})"


@njit("float64(float64, float64, float64, int64)")
def _mutation(x, lower, upper, eta):
    return x + (upper - lower) / (eta + 1)


@njit
def _calls_with_ints(x):
    return _mutation(x, -1, 1, 20)  # int arguments convert to the declared float64


def test_explicit_signature_called_from_jit_converts_instead_of_compiling():
    assert _calls_with_ints(0.5) == _mutation.py_func(0.5, -1.0, 1.0, 20)
    assert _mutation.signatures == [(float64, float64, float64, int64)]


def test_explicit_signature_refuses_unconvertible_types_from_jit():
    @njit("float64(float64)")
    def half(x):
        return x / 2

    @njit
    def call_with_array(a):
        return half(a)

    with pytest.raises(ember.errors.TypingError, match="no matching definition"):
        call_with_array(np.zeros(2))


def test_numba_type_objects_as_dtype_values():
    @njit
    def made(n):
        return np.zeros(n, dtype=float64), np.ones(n, int32), np.empty(n, dtype=types.float32)

    zeros, ones, empty = made(3)
    assert (zeros.dtype, ones.dtype, empty.dtype) == (np.float64, np.int32, np.float32)
    assert ones.tolist() == [1, 1, 1]

    @njit
    def zeros_of(shape, dtype=float64):
        return np.zeros(shape, dtype=dtype)

    assert zeros_of(2).dtype == np.float64 and zeros_of(2, int32).dtype == np.int32
    assert ember.typeof(float64) == types.TypeRef(float64)


def test_numba_error_classes_keep_numba_s_hierarchy():
    from ember.core.errors import NumbaError, NumbaValueError, TypingError, UnsupportedError

    assert issubclass(NumbaValueError, TypingError) and issubclass(TypingError, NumbaError)
    assert issubclass(UnsupportedError, NumbaError)
    assert ember.NumbaKeyError is ember.errors.NumbaKeyError
    assert issubclass(ember.NumbaParallelSafetyWarning, ember.NumbaWarning)

    def overloaded(x):
        raise NotImplementedError

    @ember.extending.overload(overloaded)
    def _overloaded(x):
        if isinstance(x, types.Float):
            raise NumbaValueError("floats are refused")
        return lambda x: x + 1

    @njit
    def use(x):
        return overloaded(x)

    assert use(2) == 3
    with pytest.raises(TypingError, match="floats are refused"):
        use(2.0)


def test_parallel_chunksize_hint_is_kept_and_restored():
    previous = ember.set_parallel_chunksize(8)
    try:
        assert ember.get_parallel_chunksize() == 8
        with ember.parallel_chunksize(3):
            assert ember.get_parallel_chunksize() == 3
        assert ember.get_parallel_chunksize() == 8
    finally:
        ember.set_parallel_chunksize(previous)
    with pytest.raises(ValueError):
        ember.set_parallel_chunksize(-1)


def test_recompile_reads_changed_globals_for_every_signature():
    namespace = {"SCALE": 2}
    exec("def scaled(x):\n    return x * SCALE\n", namespace)
    scaled = njit(namespace["scaled"])
    for _ in range(ember.config.CALLS_BEFORE_ENTRY + 2):  # the native entry is installed
        assert scaled(3) == 6
    assert scaled(1.5) == 3.0
    namespace["SCALE"] = 5
    assert scaled(3) == 6  # globals are frozen at compile time, as in Numba
    scaled.recompile()
    assert scaled(3) == 15 and scaled(1.5) == 7.5
    assert scaled.signatures == [(int64,), (float64,)]


def test_dispatcher_targetoptions_compile_from_string_and_call_template():
    @njit(fastmath={"nsz", "arcp"}, error_model="numpy", nogil=True)
    def ratio(a, b):
        return a / b

    options = ratio.targetoptions
    assert options["nogil"] is True and options["error_model"] == "numpy"
    assert set(options["fastmath"]) == {"nsz", "arcp"} and options["boundscheck"] is False

    ratio.compile("float64(float64, int64)")
    assert ratio.signatures == [(float64, int64)]
    assert ratio(1.0, 0) == float("inf")  # error_model='numpy': no ZeroDivisionError

    template, pysig, arg_types, kws = ratio.get_call_template((types.int32, types.int32), {})
    assert arg_types == (int32, int32) and kws == {} and list(pysig.parameters) == ["a", "b"]
    assert [sig.args for sig in template.cases] == [(float64, int64), (int32, int32)]
    assert ratio(np.int32(3), np.int32(4)) == 0.75

    ratio.targetoptions["error_model"] = "python"  # as stumpy resets options: then recompile
    ratio.recompile()
    with pytest.raises(ZeroDivisionError):
        ratio(1.0, 0)
    assert ratio.targetoptions["error_model"] == "python"
    with pytest.raises(KeyError, match="cannot change after decorating"):
        ratio.targetoptions["parallel"] = True


def test_types_and_signatures_print_as_numba_s():
    @njit("float64(float64[:], int64)")
    def first_scaled(a, k):
        return a[0] * k

    assert first_scaled(np.array([1.5, 2.0]), 2) == 3.0
    assert repr(first_scaled.nopython_signatures) == (
        "[(Array(float64, 1, 'A', False, aligned=True), int64) -> float64]"
    )
    assert repr(types.Array(float64, 2, "C")) == "Array(float64, 2, 'C', False, aligned=True)"
    assert str(types.Array(float64, 2, "C")) == "array(float64, 2d, C)"


def test_typed_containers_are_python_containers_with_the_jit_disabled(monkeypatch):
    monkeypatch.setattr(ember.config, "DISABLE_JIT", True)  # Numba's NUMBA_DISABLE_JIT rule
    d = typed.Dict.empty(key_type=types.int64, value_type=types.float64)
    items = typed.List.empty_list(types.int64)
    assert type(d) is dict and type(items) is list
    assert typed.Dict(a=1) == {"a": 1} and type(typed.List([1, 2])) is list


def test_pndindex_gives_ndindex_tuples_in_python_and_in_jit():
    @njit(parallel=True)
    def weighted(a):
        total = 0.0
        for index in ember.pndindex(a.shape):
            total += a[index] * (index[0] + 1)
        return total

    a = np.arange(6.0).reshape(2, 3)
    expected = sum(a[i, j] * (i + 1) for i, j in np.ndindex(a.shape))
    assert weighted(a) == expected
    assert list(ember.pndindex(2, 2)) == list(np.ndindex(2, 2))


def test_config_machine_facts_and_reload(monkeypatch):
    import struct
    import sys

    from ember.core import config

    assert (
        config.MACHINE_BITS == struct.calcsize("P") * 8 and config.PYVERSION == sys.version_info[:2]
    )
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    monkeypatch.delenv("EMBER_DISABLE_JIT", raising=False)
    try:
        config.reload_config()
        assert ember.config.DISABLE_JIT is True and config is ember.config
    finally:
        monkeypatch.delenv("NUMBA_DISABLE_JIT")
        config.reload_config()
    assert ember.config.DISABLE_JIT is False


def test_typed_dict_popitem_takes_the_last_inserted_pair():
    d = typed.Dict.empty(types.int64, types.float64)
    oracle = {}
    for key in (5, 1, 9, 3):
        d[key] = key / 2
        oracle[key] = key / 2
    assert [d.popitem() for _ in range(2)] == [oracle.popitem() for _ in range(2)]
    assert dict(d) == oracle
    d.clear()
    with pytest.raises(KeyError):
        d.popitem()


def _addsub_defaults(x, y=2, z=3):
    return x - y + z


def _star_defaults(x, y=2, *z):
    return x, y, z


def test_arity_errors_carry_numba_s_wording():
    # the assertions of Numba's own test_dispatcher, on ember's messages
    defaults = njit(_addsub_defaults)
    assert defaults(3, z=10) == _addsub_defaults(3, z=10)
    with pytest.raises(TypeError, match="not enough arguments: expected at least 1, got 0"):
        defaults()
    with pytest.raises(TypeError, match="too many arguments: expected 3, got 4"):
        defaults(3, 4, y=6, z=7)
    star = njit(_star_defaults)
    assert star(4, 5, 6) == _star_defaults(4, 5, 6)
    with pytest.raises(TypeError, match="some keyword arguments unexpected"):
        star(4, x=6)
    with pytest.raises(TypeError, match="Signature mismatch: 1 argument types given, but"):
        njit("(intc,)")(lambda a, b: a + b)


def test_vectorize_accepts_a_jitted_function():
    @njit
    def twice(x):
        return 2 * x

    doubled = ember.vectorize("f8(f8)")(twice)
    assert doubled(np.arange(3.0)).tolist() == [0.0, 2.0, 4.0]


def test_numpy_support_as_dtype_refuses_array_types_and_arrays_say_mutable():
    from ember.np import numpy_support

    with pytest.raises(ember.errors.NumbaNotImplementedError, match="cannot be represented"):
        numpy_support.as_dtype(types.float64[:])
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    assert ember.typeof(frozen).mutable is False and ember.typeof(np.zeros(3)).mutable is True
