"""ember.experimental.structref (Numba's API): mutable structs passed by reference. Results are
checked against the same code run by CPython on plain Python objects, or worked by hand."""

from __future__ import annotations

import gc
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, typed, types
from ember.errors import TypingError
from ember.experimental import jitclass, structref
from ember.extending import overload_attribute, overload_method

# ---------------------------------------------------------------------------- Numba's example


@structref.register
class MyStructType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class MyStruct(structref.StructRefProxy):
    def __new__(cls, name, vector):
        return structref.StructRefProxy.__new__(cls, name, vector)

    @property
    def name(self):
        return MyStruct_get_name(self)

    @property
    def vector(self):
        return MyStruct_get_vector(self)


@njit
def MyStruct_get_name(self):
    return self.name


@njit
def MyStruct_get_vector(self):
    return self.vector


structref.define_proxy(MyStruct, MyStructType, ["name", "vector"])


@overload_method(MyStructType, "vector_sum")
def ol_vector_sum(self):
    def impl(self):
        total = 0.0
        for item in self.vector:
            total += item
        return total

    return impl


@overload_method(MyStructType, "distance")
def ol_distance(self, other):
    def impl(self, other):
        return np.linalg.norm(self.vector - other.vector)

    return impl


def test_numba_docs_example_in_compiled_code():
    @njit
    def make_and_measure(vector_a, vector_b):
        alice = MyStruct("Alice", vector=vector_a)
        bob = MyStruct("Bob", vector_b)
        return alice, bob, alice.vector_sum(), alice.distance(bob)

    vector_a, vector_b = np.array([1.0, 2.0, 3.5]), np.array([4.0, -2.0, 0.5])
    alice, bob, total, distance = make_and_measure(vector_a, vector_b)
    assert isinstance(alice, MyStruct) and isinstance(bob, MyStruct)
    assert (alice.name, bob.name) == ("Alice", "Bob")
    np.testing.assert_array_equal(alice.vector, vector_a)
    assert total == 6.5  # 1 + 2 + 3.5
    assert distance == pytest.approx(np.sqrt(3.0**2 + 4.0**2 + 3.0**2))


def test_numba_docs_example_from_python():
    alice = MyStruct("Alice", np.arange(4.0))
    assert alice.name == "Alice"
    np.testing.assert_array_equal(alice.vector, [0.0, 1.0, 2.0, 3.0])
    assert alice._type == MyStructType(
        [("name", types.unicode_type), ("vector", types.float64[::1])]
    )
    assert isinstance(alice._meminfo, int) and alice._meminfo != 0

    @njit
    def vector_sum(s):
        return s.vector_sum()

    assert vector_sum(alice) == 6.0


# ---------------------------------------------------------------------------- types


@structref.register
class PointType(types.StructRef):
    pass


class Point(structref.StructRefProxy):
    def __new__(cls, x, y):
        return structref.StructRefProxy.__new__(cls, x, y)

    @property
    def x(self):
        return get_x(self)

    @property
    def y(self):
        return get_y(self)


@njit
def get_x(s):
    return s.x


@njit
def get_y(s):
    return s.y


structref.define_proxy(Point, PointType, ["x", "y"])

point_f8 = PointType(fields=[("x", types.float64), ("y", types.float64)])


def test_type_fields_field_dict_and_payload():
    assert point_f8.fields == (("x", types.float64), ("y", types.float64))
    assert dict(point_f8.field_dict) == {"x": types.float64, "y": types.float64}
    with pytest.raises(TypeError):
        point_f8.field_dict["z"] = types.int64  # read-only
    payload = point_f8.get_data_type()
    assert isinstance(payload, types.StructRefPayload)
    assert payload.fields == point_f8.fields
    assert PointType([("x", types.float64), ("y", types.float64)]) is point_f8  # interned
    assert PointType([("x", types.int64), ("y", types.float64)]) is not point_f8


def test_preprocess_fields_shapes_the_type():
    literal = types.literal(3)
    made = MyStructType([("name", types.unicode_type), ("count", literal)])
    assert made.field_dict["count"] == types.unliteral(literal)


@pytest.mark.parametrize(
    "fields, message",
    [
        ([("x", "float64")], "expecting a Numba Type for field type"),
        ([("not an identifier", types.int64)], "not an identifier"),
        ([("x", types.int64), ("x", types.float64)], "declared twice"),
        ([("x",)], r"\(name, type\) pair"),
    ],
)
def test_bad_fields_are_refused(fields, message):
    with pytest.raises(TypeError, match=message):
        PointType(fields)


def test_register_needs_a_structref_subclass():
    with pytest.raises(TypeError):
        structref.register(types.StructRef)
    with pytest.raises(TypeError):
        structref.register(int)


# ---------------------------------------------------------------------------- semantics


def test_field_types_follow_the_constructor_arguments():
    @njit
    def coordinates(x, y):
        point = Point(x, y)
        return point.x, point.y

    assert coordinates(1, 2) == (1, 2) and type(coordinates(1, 2)[0]) is int
    assert coordinates(1.5, 2) == (1.5, 2) and type(coordinates(1.5, 2)[0]) is float
    assert Point(1, 2.5)._type == PointType([("x", types.int64), ("y", types.float64)])


def test_same_proxy_class_many_types_each_reaches_its_specialization():
    """Past the calls after which the native entry takes over, a proxy of each field type
    still runs its own specialization (the entry checks `_type`, not only the class)."""
    ints, floats = Point(3, 4), Point(0.5, 0.25)
    for _ in range(3 * ember.config.CALLS_BEFORE_ENTRY + 3):
        assert get_x(ints) == 3 and type(get_x(ints)) is int
        assert get_x(floats) == 0.5 and type(get_x(floats)) is float


def test_proxies_in_and_out_take_the_native_entry():
    @njit
    def moved(point, dx):
        point.x += dx
        return point

    point = Point(1.0, 2.0)
    for _ in range(ember.config.CALLS_BEFORE_ENTRY + 1):
        moved(point, 1.0)
    slow = moved._slow_calls
    for _ in range(10):
        result = moved(point, 0.5)
    assert moved._slow_calls == slow  # every later call is native, result boxing too
    assert type(result) is Point and result._type is point._type
    assert point.x == 1.0 + (ember.config.CALLS_BEFORE_ENTRY + 1) + 5.0


def scale_and_report(s, factor):
    s.x = s.x * factor
    s.y = s.y + 1.0
    return s.x + s.y


def test_mutation_in_compiled_code_is_seen_from_python():
    point = Point(2.0, 3.0)
    expected_object = SimpleNamespace(x=2.0, y=3.0)
    expected = scale_and_report(expected_object, 1.5)
    assert njit(scale_and_report)(point, 1.5) == expected
    assert (point.x, point.y) == (expected_object.x, expected_object.y) == (3.0, 4.0)


def test_reference_semantics_between_proxies_and_inside_compiled_code():
    @njit
    def same_instance(s):
        return s

    @njit
    def alias_and_write(s):
        other = s
        other.x = 10.0
        return s.x

    point = Point(1.0, 2.0)
    alias = same_instance(point)
    assert alias is not point and alias._meminfo == point._meminfo
    assert alias_and_write(alias) == 10.0
    assert point.x == 10.0

    @njit
    def identity(a, b):
        return a is b, a is not b

    assert identity(point, alias) == (True, False)
    assert identity(point, Point(10.0, 2.0)) == (False, True)


def running_mean(s, values):
    for value in values:
        s.x += value
        s.y += 1.0
    return s.x / s.y


jitted_running_mean = njit(running_mean)


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=20))
@settings(max_examples=25, deadline=None)
def test_running_mean_matches_python(values):
    expected_object = SimpleNamespace(x=0.0, y=0.0)
    expected = running_mean(expected_object, values)
    point = Point(0.0, 0.0)
    assert jitted_running_mean(point, np.array(values)) == expected
    assert (point.x, point.y) == (expected_object.x, expected_object.y)


def test_new_allocates_an_instance_to_fill():
    @njit
    def filled(x):
        point = structref.new(point_f8)
        point.x = x
        point.y = x * 2
        return point

    point = filled(1.25)
    assert point._type is point_f8 and (point.x, point.y) == (1.25, 2.5)


def test_unassigned_fields_of_new_are_zero():
    @njit
    def untouched():
        return structref.new(point_f8)

    assert (untouched().x, untouched().y) == (0.0, 0.0)


# ---------------------------------------------------------------------------- field types


@structref.register
class RecordType(types.StructRef):
    pass


class Record(structref.StructRefProxy):
    def __new__(cls, count, flag, label, data, items, table, origin):
        return structref.StructRefProxy.__new__(cls, count, flag, label, data, items, table, origin)


structref.define_proxy(
    Record, RecordType, ["count", "flag", "label", "data", "items", "table", "origin"]
)


def test_fields_of_every_kind():
    @njit
    def build(n):
        items = typed.List.empty_list(types.int64)
        table = typed.Dict.empty(types.unicode_type, types.float64)
        for i in range(n):
            items.append(i * i)
            table[str(i)] = i / 2
        return Record(n, n > 2, "label" + str(n), np.arange(n) * 1.5, items, table, Point(1, 2))

    @njit
    def summary(r):
        total = 0.0
        for value in r.table.values():
            total += value
        return r.count, r.flag, r.label, r.data.sum(), r.items[-1], total, r.origin.y

    record = build(4)
    # hand-worked: items 0 1 4 9, table 0 .5 1 1.5, data 0 1.5 3 4.5
    assert summary(record) == (4, True, "label4", 9.0, 9, 3.0, 2)

    @njit
    def grow(r):
        r.items.append(100)
        r.label = r.label + "!"
        r.origin.y = 7
        r.count += 1

    grow(record)
    assert summary(record) == (5, True, "label4!", 9.0, 100, 3.0, 7)


def test_tuple_set_complex_and_bool_fields():
    @njit
    def build(x):
        return Record((x, 2.0), set((1, 2, 1)), 1 + 2j, x > 0, None, None, None)

    @njit
    def read(r):
        return r.count[0] + r.count[1], len(r.flag), r.label.imag, r.data

    # hand-worked: 1.5 + 2.0; the set {1, 2}; imag(1 + 2j); 1.5 > 0
    assert read(build(1.5)) == (3.5, 2, 2.0, True)


@structref.register
class SignedType(types.StructRef):
    pass


class Signed(structref.StructRefProxy):
    def __new__(cls, small, large, real):
        return signed_constructor(small, large, real)

    @property
    @njit
    def small(self):
        return self.small


signed_type = SignedType([("small", types.int16), ("large", types.int64), ("real", types.float64)])
structref.define_proxy(Signed, SignedType, ["small", "large", "real"])


@njit(signed_type(types.int16, types.int64, types.float64))
def signed_constructor(small, large, real):
    return Signed(small, large, real)


def test_explicit_signatures_and_a_jitted_property():
    """Numba's pattern: the proxy's __new__ calls a constructor with an explicit signature."""

    @njit(types.float64(signed_type))
    def total(s):
        return s.small + s.large + s.real

    made = Signed(3, 4, 0.5)
    assert made._type is signed_type and made.small == 3 and type(made.small) is int
    assert total(made) == 7.5


def test_optional_structref_result():
    @njit
    def maybe(flag):
        if flag:
            return Point(1.0, 2.0)
        return None

    assert maybe(False) is None
    assert maybe(True).y == 2.0


def test_structref_in_a_jitclass_field():
    @jitclass([("where", point_f8), ("weight", types.float64)])
    class Holder:
        def __init__(self, where, weight):
            self.where = where
            self.weight = weight

        def moment(self):
            return self.where.x * self.weight

    holder = Holder(Point(2.0, 0.0), 3.0)
    assert holder.moment() == 6.0
    assert isinstance(holder.where, Point) and holder.where.x == 2.0


@overload_attribute(PointType, "norm2")
def ol_norm2(point):
    def get(point):
        return point.x * point.x + point.y * point.y

    return get


def test_overload_attribute_on_the_type_class():
    @njit
    def norm2(point):
        return point.norm2

    assert norm2(Point(3.0, 4.0)) == 25.0


# ---------------------------------------------------------------------------- containers


def test_typed_list_and_dict_of_structrefs():
    @njit
    def line(n):
        points = typed.List()
        for i in range(n):
            points.append(Point(float(i), 1.0))
        return points

    @njit
    def sum_x(points):
        total = 0.0
        for point in points:
            total += point.x
        return total

    points = line(5)
    assert [point.x for point in points] == [0.0, 1.0, 2.0, 3.0, 4.0]

    from_python = typed.List()
    for x in (1.5, 2.5):
        from_python.append(Point(x, 0.0))
    assert sum_x(from_python) == 4.0

    @njit
    def index(n):
        by_key = typed.Dict()
        for i in range(n):
            by_key[i] = Point(float(i * 10), 0.0)
        by_key[1].x = -1.0
        return by_key

    found = index(3)
    assert {key: point.x for key, point in found.items()} == {0: 0.0, 1: -1.0, 2: 20.0}


# ---------------------------------------------------------------------------- memory


def live_blocks():
    gc.collect()
    return ember.runtime.stats().live


def test_no_leaks_in_construction_mutation_and_containers():
    @njit
    def churn(n):
        total = 0.0
        for i in range(n):
            record = MyStruct("x" * (i % 3), np.ones(i % 4 + 1))
            record.vector = record.vector * 2.0
            record.name = record.name + "y"
            total += record.vector_sum()
        return total

    @njit
    def nested(n):
        points = typed.List()
        for i in range(n):
            points.append(Point(np.zeros(i), float(i)))
        return len(points)

    churn(3), nested(3)  # compiled: only the runs below count
    before = live_blocks()
    assert churn(200) == sum(2.0 * (i % 4 + 1) for i in range(200))
    assert nested(50) == 50
    kept = [MyStruct("kept", np.arange(3.0)) for _ in range(20)]
    assert live_blocks() > before
    del kept
    assert live_blocks() == before


def test_array_field_holds_a_reference_released_with_the_instance():
    data = np.arange(5.0)
    count = sys.getrefcount(data)
    record = MyStruct("held", data)
    assert sys.getrefcount(data) == count + 1
    assert record.vector[4] == 4.0

    @njit
    def replace(s, vector):
        s.vector = vector

    replace(record, np.zeros(2))  # the field lets go of `data`
    assert sys.getrefcount(data) == count
    replace(record, data)
    assert sys.getrefcount(data) == count + 1
    del record  # released by the compiled __del__ where the proxy's slots were found
    gc.collect()
    assert sys.getrefcount(data) == count
    from ember.dispatcher.call_slots import class_slot_offset

    if class_slot_offset(structref.StructRefProxy, "_meminfo") is not None:
        release = structref.StructRefProxy.__dict__["__del__"]
        assert type(release).__name__ == "method_descriptor"


def test_writes_through_a_stored_array_reach_the_caller():
    data = np.zeros(3)

    @njit
    def fill(s):
        for i in range(s.vector.size):
            s.vector[i] = i + 0.5

    record = MyStruct("shared", data)
    fill(record)
    np.testing.assert_array_equal(data, [0.5, 1.5, 2.5])


# ---------------------------------------------------------------------------- errors


def test_unknown_field_read_names_it():
    @njit
    def read_missing(point):
        return point.z

    with pytest.raises(TypingError, match="'z'"):
        read_missing(Point(1.0, 2.0))


def test_unknown_field_write_names_it():
    @njit
    def write_missing(point):
        point.speed = 1.0

    with pytest.raises(TypingError, match="'speed'"):
        write_missing(Point(1.0, 2.0))


def test_assigning_the_wrong_type_names_the_field():
    @njit
    def write_text(point):
        point.x = "text"

    with pytest.raises(TypingError, match="field 'x'.*float64"):
        write_text(Point(1.0, 2.0))


@structref.register
class UnboxedType(types.StructRef):
    pass


def test_returning_a_type_without_proxy_class_is_a_clear_error():
    unboxed = UnboxedType([("x", types.int64)])

    @njit
    def make():
        made = structref.new(unboxed)
        made.x = 1
        return made

    before = live_blocks()
    with pytest.raises(TypeError, match="define_boxing"):
        make()
    assert live_blocks() == before


def test_define_boxing_needs_a_proxy_class():
    with pytest.raises(TypeError, match="StructRefProxy"):
        structref.define_boxing(UnboxedType, object)


def test_new_needs_a_structref_type():
    @njit
    def wrong():
        return structref.new(types.int64)

    with pytest.raises(TypingError, match="StructRef type"):
        wrong()


def test_new_is_for_compiled_code_only():
    with pytest.raises(TypeError, match="jitted code"):
        structref.new(point_f8)


def test_proxies_do_not_pickle():
    import pickle

    with pytest.raises(TypeError, match="pickle"):
        pickle.dumps(Point(1.0, 2.0))
