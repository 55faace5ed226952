"""Numba APIs that third-party Numba packages (numpy-groupies, pyts, tslearn, interpolation,
numba-kdtree) reach for, checked against NumPy / CPython answers."""

import numpy as np
import pytest

import ember
from ember import types
from ember.core import caching, serialize
from ember.extending import overload
from ember.np import numpy_support


def _itemsize_of(a):
    raise NotImplementedError  # replaced by the overload below


@overload(_itemsize_of)
def _itemsize_of_overload(a):
    # the typing function asks NumPy about the element type, as overload builders do
    itemsize = numpy_support.as_dtype(a.dtype).itemsize
    return lambda a: itemsize


def test_as_dtype_names_datetime_and_timedelta_elements():
    codes = ["M8[D]", "M8[s]", "M8[ns]", "m8[D]", "m8[ms]", "M8", "m8", "f8", "i4"]
    for code in codes:
        dtype = np.dtype(code)
        assert numpy_support.as_dtype(ember.from_dtype(dtype)) == dtype

    @ember.njit
    def itemsize(a):
        return _itemsize_of(a)

    for code in ["M8[D]", "m8[us]", "f4", "i2"]:
        values = np.arange(3).astype(code)
        assert itemsize(values) == values.dtype.itemsize


def test_as_dtype_still_refuses_a_type_no_dtype_represents():
    with pytest.raises(ember.errors.NumbaNotImplementedError, match="NumPy dtype"):
        numpy_support.as_dtype(types.float64[:])


def test_null_cache_switches_the_disk_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))

    def add_one(x):
        return x + 1

    dispatcher = ember.njit(add_one, cache=True)
    assert dispatcher._cache is not None
    dispatcher._cache = caching.NullCache()
    assert dispatcher._cache is None
    assert [dispatcher(x) for x in (-3, 0, 7)] == [add_one(x) for x in (-3, 0, 7)]
    assert dispatcher.stats.cache_misses == {} and dispatcher.stats.cache_hits == {}
    with pytest.raises(TypeError, match="switched off"):
        dispatcher._cache = object()


def test_index_data_cache_file_can_be_subclassed():
    class Locked(caching.IndexDataCacheFile):
        def lock_path(self):
            return f"{self._cache_path}/{self._index_name}.lock"

    cache_file = Locked(cache_path="/tmp/x", filename_base="mod.func-3", source_stamp=(1, 2))
    assert cache_file.lock_path() == "/tmp/x/mod.func-3.nbi.lock"


def test_serialize_dumps_round_trips_local_functions():
    import pickle

    pytest.importorskip("cloudpickle")  # plain pickle refuses local functions
    offset = 5

    def shifted(x):
        return x + offset

    restored = pickle.loads(serialize.dumps((shifted, [1, 2.5])))
    assert restored[0](3) == 8 and restored[1] == [1, 2.5]


def test_numba_type_submodule_paths_name_ember_types():
    from ember.core.types.misc import NoneType, Omitted
    from ember.core.types.npytypes import Array

    assert NoneType is types.NoneType and Omitted is types.Omitted and Array is types.Array

    @ember.njit
    def default_or(x, y=None):
        return x if y is None else x + y

    assert [default_or(2), default_or(2, 5), default_or(-1.5, 0.25)] == [2, 7, -1.25]


def _member_counts(t):
    raise NotImplementedError  # replaced by the overload below


@overload(_member_counts)
def _member_counts_overload(t):
    # an overload builder reading `count` off tuple types, homogeneous or not
    outer, inner = t.count, tuple(member.count for member in t.types)
    return lambda t: (outer, inner)


def test_tuple_types_have_a_member_count():
    @ember.njit
    def counts(t):
        return _member_counts(t)

    assert counts(((1, 2.5), (3, 4.0, 5))) == (2, (2, 3))
    assert counts(((1, 2), (3, 4), (5, 6))) == (3, (2, 2, 2))
    assert types.Tuple((types.int64, types.float64)).count == 2
