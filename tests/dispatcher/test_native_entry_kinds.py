"""Argument and result kinds the native entry takes without the dispatcher's Python path:
namedtuples, np.memmap arrays and structured (record) arrays. Each call is compared with the
py_func, must not reach the Python path after the first, and must balance the runtime's
allocation counters and the arguments' reference counts."""

import gc
import sys
from collections import namedtuple
from typing import NamedTuple

import numpy as np

import ember.runtime as runtime
from ember import config, njit

Point = namedtuple("Point", "x y")


class Sample(NamedTuple):
    weight: float
    values: np.ndarray


class Polar(Point):  # a namedtuple subclass with a method of its own
    def norm(self):
        return (self.x**2 + self.y**2) ** 0.5


def _swap_and_wrap(p, scale):
    return Point(p.y, p.x), Sample(p.x * scale, np.arange(3.0) * scale), p


def _natively(compiled, *args):
    """The result of a call that must run on the native entry (the first call compiles)."""
    compiled(*args)
    slow = compiled._slow_calls
    result = compiled(*args)
    assert compiled._slow_calls == slow, "the call took the Python path"
    return result


def test_namedtuples_pass_and_return_through_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_swap_and_wrap)
    for p, scale in [(Point(1, 2), 2.0), (Point(1.5, -2.5), 0.5), (Polar(3, 4), 1.0)]:
        got, want = _natively(compiled, p, scale), _swap_and_wrap(p, scale)
        assert [type(member) for member in got] == [Point, Sample, type(p)]
        assert got[0] == want[0] and got[2] == want[2]
        assert got[1].weight == want[1].weight
        np.testing.assert_array_equal(got[1].values, want[1].values)
    assert got[2].norm() == 5.0  # the argument's class, as the Python path makes it
    identity = njit(lambda value: value)
    for value in (Point(1, 2), (1, 2), Point(1, 2), (1, 2)):  # one must not match the other
        returned = identity(value)
        assert type(returned) is type(value) and returned == value


def test_a_namedtuple_holding_an_array_frees_its_memory(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)

    @njit
    def rescale(sample):
        return Sample(sample.weight * 2.0, sample.values * sample.weight), sample.values.sum()

    values = np.arange(4.0)
    sample = Sample(3.0, values)
    references = sys.getrefcount(values)
    got = _natively(rescale, sample)
    np.testing.assert_array_equal(got[0].values, values * 3.0)
    assert got[0].weight == 6.0 and got[1] == 6.0
    del got
    gc.collect()
    before = runtime.stats()
    for _ in range(50):
        got = rescale(sample)
    del got
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 50
    assert sys.getrefcount(values) == references


def test_memmap_arguments_take_the_native_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)

    def bump(a):
        a[0] += 1.0
        return a.sum(), a, a[2:], a * 2.0

    compiled = njit(bump)
    mapped = np.lib.format.open_memmap(tmp_path / "m.npy", mode="w+", dtype="f8", shape=(6,))
    mapped[:] = np.arange(6.0)
    references = sys.getrefcount(mapped)
    total, same, tail, doubled = _natively(compiled, mapped)
    expected = np.arange(6.0)
    expected[0] += 2.0  # two calls
    assert total == expected.sum() and same is mapped
    np.testing.assert_array_equal(tail, expected[2:])
    np.testing.assert_array_equal(doubled, expected * 2.0)
    tail[0] = -1.0  # a view of the mapped memory
    assert mapped[2] == -1.0
    del total, same, tail, doubled
    gc.collect()
    assert sys.getrefcount(mapped) == references
    read_only = np.load(tmp_path / "m.npy", mmap_mode="r")
    total = njit(lambda a: a.sum())
    assert _natively(total, read_only) == read_only.sum()


PARTICLE = np.dtype([("x", "f8"), ("y", "f8"), ("tag", "i4")])


def _moved(particles, dx):
    out = np.empty(particles.shape[0], dtype=particles.dtype)
    for i in range(particles.shape[0]):
        out[i]["x"] = particles[i]["x"] + dx
        out[i]["y"] = particles[i]["y"] * 2.0
        out[i]["tag"] = particles[i]["tag"] + 1
    return out, particles, particles["x"], out[::2]


def _particles(n, dtype=PARTICLE):
    particles = np.zeros(n, dtype=dtype)
    particles["x"] = np.arange(n) * 0.5
    particles["y"] = -np.arange(n, dtype=np.float64)
    particles["tag"] = np.arange(n)
    return particles


def test_record_arrays_pass_and_return_through_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_moved)
    spelled_again = np.dtype([("x", "f8"), ("y", "f8"), ("tag", "i4")])  # equal, not the same
    aligned = np.dtype([("x", "f8"), ("y", "f8"), ("tag", "i4")], align=True)
    for particles in (_particles(5), _particles(4, spelled_again), _particles(3, aligned)):
        references = sys.getrefcount(particles)
        got, want = _natively(compiled, particles, 0.25), _moved(particles, 0.25)
        assert got[1] is particles and got[0].dtype == particles.dtype
        for value, expected in zip(got, want, strict=True):
            assert value.dtype == expected.dtype
            np.testing.assert_array_equal(value, expected)
        got[2][0] = 42.0  # the field is a view of the argument
        assert particles[0]["x"] == 42.0
        del got, want, value, expected
        gc.collect()
        assert sys.getrefcount(particles) == references
    strided = _particles(6)[::2]
    got = _natively(compiled, strided, 1.0)
    np.testing.assert_array_equal(got[0], _moved(strided, 1.0)[0])
    del got
    gc.collect()
    before = runtime.stats()
    for _ in range(30):
        got = compiled(strided, 1.0)
    del got
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 30


def test_a_record_array_of_another_dtype_gets_its_own_specialization():
    total = njit(lambda particles: particles["x"].sum())
    wider = _particles(4, np.dtype([("x", "f8"), ("y", "f8"), ("tag", "i8")]))
    for particles in (_particles(4), wider, _particles(4)):
        assert total(particles) == particles["x"].sum()
    assert len(total.signatures) == 2


def _sets(n, words):
    numbers = {i * 7 % 11 for i in range(n)}
    for i in range(0, n, 3):
        numbers.discard(i)  # deleted entries are skipped
    halves = {i / 2 for i in range(n)}
    text = {w.upper() for w in words}
    pairs = {(i % 3, w) for i, w in enumerate(words)}
    empty = {0.5}
    empty.discard(0.5)
    return numbers, halves, text, pairs, empty, {i > 2 for i in range(n)}


def test_returned_sets_are_boxed_by_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_sets)
    words = ["alpha", "beta", "gamma", "beta", "ünïcode"]
    for n in (0, 1, 5, 40, 1000):
        got, want = _natively(compiled, n, words), _sets(n, words)
        assert got == want
    del got, want
    gc.collect()
    before = runtime.stats()
    references = [sys.getrefcount(w) for w in words]
    for _ in range(20):
        got = compiled(40, words)
    del got
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free > 0
    assert [sys.getrefcount(w) for w in words] == references


def _initials(names, tags):
    out = np.empty(names.shape[0], dtype=names.dtype)
    for i in range(names.shape[0]):
        out[i] = names[i][:1] + str(len(tags[i]))
    return out, names[::-1], tags


def test_fixed_width_string_arrays_take_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_initials)
    for names, tags in [
        (np.array(["ada", "bob", "éva"]), np.array([b"x", b"yz", b""])),
        (np.array(["a", "", "long name"]), np.array([b"1", b"2", b"3"])),
    ]:
        got, want = _natively(compiled, names, tags), _initials(names, tags)
        for value, expected in zip(got, want, strict=True):
            assert value.dtype == expected.dtype
            np.testing.assert_array_equal(value, expected)
        assert got[2] is tags


def test_jitclass_instances_are_boxed_by_the_native_entry(monkeypatch):
    from ember import float64
    from ember.experimental import jitclass

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)

    @jitclass([("x", float64), ("y", float64)])
    class Vector:
        def __init__(self, x, y):
            self.x = x
            self.y = y

        def norm(self):
            return (self.x**2 + self.y**2) ** 0.5

    @njit
    def make(x, y):
        return Vector(x, y)

    @njit
    def add(a, b):
        return Vector(a.x + b.x, a.y + b.y)

    made = _natively(make, 3.0, 4.0)
    assert type(made) is Vector and (made.x, made.y) == (3.0, 4.0) and made.norm() == 5.0
    total = _natively(add, made, make(1.0, -2.0))
    assert (total.x, total.y) == (4.0, 2.0)
    made.x = 6.0  # the box's fields are the native instance's
    assert add(made, total).x == 10.0
    del made, total
    gc.collect()
    before = runtime.stats()
    for i in range(100):
        made = make(float(i), 1.0)
        assert made.x == i
    del made
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 100


def _total(first, *rest):
    for value in rest:
        first = first + value
    return first, len(rest)


def _with_default(a, b=2, *rest):
    return a + b + len(rest)


def test_star_args_functions_take_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_total)
    for args in [(1,), (1, 2, 3), (1.5, 2), (np.arange(3.0), np.ones(3)), (1, 2, 3), (1,)]:
        got, want = _natively(compiled, *args), _total(*args)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
    assert compiled(first=4) == (4, 0)  # bound by keyword: the Python path, then the entry
    assert compiled(7) == (7, 0)
    defaulted = njit(_with_default)  # *args after a default: the Python path throughout
    for args in [(1,), (1, 5), (1, 5, 0, 0)]:
        assert defaulted(*args) == _with_default(*args)


def test_a_read_only_view_of_a_whole_argument_is_not_the_argument():
    whole = njit(lambda a: np.broadcast_to(a, a.shape))
    same = njit(lambda a: a)
    a = np.arange(4.0)
    read_only = np.arange(4.0)
    read_only.flags.writeable = False
    for _ in range(3):  # the Python path first, then the native entry
        view = whole(a)
        assert view is not a and not view.flags.writeable and np.shares_memory(view, a)
        np.testing.assert_array_equal(view, a)
        assert same(a) is a and same(read_only) is read_only


def _scaled_items(a, scale=2.0):
    for i in range(a.shape[0]):
        yield a[i] * scale


def _pairs(n, start):
    for i in range(n):
        yield (start + i, i * 0.5)


def test_generators_returned_to_python_through_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    scaled, pairs = njit(_scaled_items), njit(_pairs)
    values = np.arange(5.0)
    for args in [(values,), (values, -1.5), (values[::2], 0.0), (np.empty(0),)]:
        assert list(_natively(scaled, *args)) == list(_scaled_items(*args))
    for args in [(4, 10), (0, 3), (3, -7)]:  # tuple items: stepped through ctypes
        assert list(_natively(pairs, *args)) == list(_pairs(*args))


def test_a_generator_keeps_its_array_argument_alive_and_frees_its_state(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    scaled = njit(_scaled_items)
    _natively(scaled, np.arange(3.0))
    references = sys.getrefcount(values := np.arange(6.0))
    gc.collect()
    before = runtime.stats()
    generators = [scaled(np.arange(6.0) + k, 3.0) for k in range(20)]  # temporary arrays
    gc.collect()
    for k, generator in enumerate(generators):
        assert next(generator) == 3.0 * k  # the temporary array is still there
        assert list(generator) == [3.0 * (v + k) for v in range(1, 6)]
    half_used = scaled(values)
    assert next(half_used) == 0.0
    assert sys.getrefcount(values) == references + 1  # held by the generator
    del generators, generator, half_used
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 21
    assert sys.getrefcount(values) == references


_PARTICLE = np.dtype([("x", np.float64), ("n", np.int32), ("flag", np.bool_)])
_NESTED = np.dtype([("id", np.int64), ("pos", np.float32, (3,))])


def _weigh_and_mark(r, w):
    r["x"] = r["x"] * w  # the record views its array: the write lands there
    return r["n"] + r["x"], r


def _pick(a, i):
    return a[i]


def test_record_scalars_pass_and_return_through_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    weigh, pick = njit(_weigh_and_mark), njit(_pick)
    particles = np.zeros(4, _PARTICLE)
    particles["x"], particles["n"] = [1.5, -2.0, 3.25, 0.0], [1, 2, 3, 4]
    expected = particles.copy()
    for i, w in [(0, 2.0), (1, -1.0), (2, 0.5)]:
        got_sum, got_record = _natively(weigh, particles[i], w)
        expected["x"][i] *= w * w  # two calls: each multiplies
        assert got_sum == expected["n"][i] + expected["x"][i]
        assert type(got_record) is np.record and got_record.dtype == _PARTICLE
        assert got_record.tolist() == expected[i].tolist()
        got_record["x"] = 99.0  # a copy, as the Python path returns
    np.testing.assert_array_equal(particles, expected)
    as_records = particles.view(np.recarray)  # np.record scalars match too
    assert _natively(weigh, as_records[3], 4.0)[0] == 4.0
    for i in range(4):
        picked = _natively(pick, particles, i)
        assert type(picked) is np.record and picked.tolist() == particles[i].tolist()
    nested = np.zeros(2, _NESTED)
    nested["pos"] = [[1, 2, 3], [4, 5, 6]]
    got = _natively(pick, nested, 1)
    assert got["id"] == 0 and got["pos"].tolist() == [4.0, 5.0, 6.0]


def test_record_results_free_their_memory_and_hold_no_argument(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)

    @njit
    def fresh_record(x):
        a = np.zeros(2, _PARTICLE)
        a[1]["x"] = x
        return a[1]

    pick = njit(_pick)
    particles = np.zeros(3, _PARTICLE)
    references = sys.getrefcount(particles)
    assert _natively(fresh_record, 2.5).tolist() == (2.5, 0, False)
    gc.collect()
    before = runtime.stats()
    records = [fresh_record(float(k)) for k in range(30)]
    records += [pick(particles, k % 3) for k in range(30)]
    assert [r["x"] for r in records[:30]] == [float(k) for k in range(30)]
    del records
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 30
    assert sys.getrefcount(particles) == references


def _bytes_work(data, n):
    head = data[:n]
    return head + data, len(data), [head, data[n:]], (None if n < 0 else data * 2)


def test_bytes_pass_and_return_through_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_bytes_work)
    for data, n in [(b"abc", 2), (b"", 0), (b"\x00\xff\x80 nul", 3), (b"xyz" * 50, -1)]:
        got, want = _natively(compiled, data, n), _bytes_work(data, n)
        assert got == want
        assert type(got[0]) is bytes and all(type(part) is bytes for part in got[2])
    text_or_bytes = njit(lambda value: value)
    for value in (b"ab", "ab", b"ab", "ab"):  # neither matches the other's kind
        returned = text_or_bytes(value)
        assert type(returned) is type(value) and returned == value
    gc.collect()
    before = runtime.stats()
    for _ in range(20):
        compiled(b"some bytes", 4)
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


def _grow_and_count(s, extra, drop):
    s.add(extra)
    s.discard(drop)
    return len(s), s


def _merge(a, b):
    a.update(b)
    return len(a)


def test_python_sets_pass_and_reflect_through_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    grow, merge = njit(_grow_and_count), njit(_merge)
    cases = [
        ({1, 2, 3}, 9, 1),
        ({0, -5}, 0, 7),
        ({1.5, 2.5}, -1.0, 2.5),
        ({"a", "b"}, "c", "a"),
        ({(1, 2.0), (3, 4.0)}, (5, 6.0), (1, 2.0)),
    ]
    for items, extra, drop in cases:
        given, expected = set(items), set(items)
        _natively(grow, set(items), extra, drop)  # compiles and installs the entry
        count, returned = _natively(grow, given, extra, drop)
        assert (count, returned) == _grow_and_count(expected, extra, drop)
        assert returned is given and given == expected  # the caller's set, written back
    unchanged = {1, 2.0}  # an int in a set of floats stays an int when nothing changed
    assert njit(lambda s: len(s))(unchanged) == 2  # (mixed items: the Python path)
    assert sorted(map(type, unchanged), key=str) == [float, int]
    shared = {1, 2}
    assert _natively(merge, shared, shared) == 2 and shared == {1, 2}
    gc.collect()
    before = runtime.stats()
    for k in range(20):
        grow({k, k + 1}, -k, k)
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


def _weighted_sum(view):
    total = 0.0
    rows, cols = view.shape
    for i in range(rows):
        for j in range(cols):
            total += view[i, j] * (i * 10 + j + 1)
    return total


def _scale_first_row(view, factor):
    for j in range(view.shape[1]):
        view[0, j] *= factor
    return view.shape[0] * 100 + view.shape[1]


def test_memoryviews_pass_through_the_native_entry(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    import array

    compiled = njit(_weighted_sum)
    grid = np.arange(24.0).reshape(4, 6)
    ints = np.arange(24, dtype=np.int64).reshape(4, 6)
    views = [
        memoryview(grid),  # C
        memoryview(np.asfortranarray(grid)),  # F
        memoryview(grid[:, ::2]),  # neither
        memoryview(grid[::-1]),
        memoryview(grid.astype(np.float32)),
        memoryview(ints),
        memoryview(array.array("q", range(24))).cast("B").cast("q", (4, 6)),  # format 'q'
        memoryview(np.frombuffer(grid.tobytes()).reshape(4, 6)),  # read-only
        memoryview(grid.T[1:, 2:]),
    ]
    for view in views * 2:  # each type's specialization is chosen again among all of them
        assert _natively(compiled, view) == _weighted_sum(view)
    first = njit(lambda v: v[0])
    for view in (memoryview(np.arange(3.0)), memoryview(np.arange(3.0))[::2], memoryview(b"xyz")):
        assert _natively(first, view) == view[0]
    released = memoryview(grid)
    released.release()
    with np.testing.assert_raises(ValueError):
        compiled(released)


def test_writes_through_a_memoryview_reach_its_memory(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_scale_first_row)
    for make in (lambda: np.arange(12.0).reshape(3, 4), lambda: np.ones((5, 2), order="F")):
        got, want = make(), make()
        assert _natively(compiled, memoryview(got), 3.0) == _scale_first_row(memoryview(want), 3.0)
        _scale_first_row(memoryview(want), 3.0)
        np.testing.assert_array_equal(got, want)
    before = sys.getrefcount(view := memoryview(np.zeros((2, 2))))
    _natively(compiled, view, 2.0)
    assert sys.getrefcount(view) == before
