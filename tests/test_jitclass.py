"""@jitclass: each class is built twice from the same body, once compiled and once left to
CPython, and every scenario must give the same results on both (or on `class_def`)."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import float64, int64, njit, types
from ember.errors import TypingError, UnsupportedError
from ember.experimental import jitclass


def make_point():
    class Point:
        def __init__(self, x, y=2.0):
            self.x = x
            self.y = y

        def norm2(self):
            return self.x * self.x + self.y * self.y

        def scale(self, k):
            self.x *= k
            self.y *= k
            return self

        def shifted(self, dx, dy=0.0):
            return Point(self.x + dx, self.y + dy)

        def __add__(self, other):
            return Point(self.x + other.x, self.y + other.y)

        def __neg__(self):
            return Point(-self.x, -self.y)

        def __eq__(self, other):
            return self.x == other.x and self.y == other.y

        def __lt__(self, other):
            return self.norm2() < other.norm2()

        def __hash__(self):
            return int(self.x * 31 + self.y)

        @property
        def area(self):
            return self.x * self.y

        @property
        def first(self):
            return self.x

        @first.setter
        def first(self, value):
            self.x = value

        @staticmethod
        def origin_distance(x, y):
            return (x * x + y * y) ** 0.5

    return Point


PyPoint = make_point()
Point = jitclass([("x", float64), ("y", float64)])(make_point())


def as_tuple(p):
    return (p.x, p.y)


def test_class_type_and_class_def():
    assert Point.class_type.instance_type is ember.typeof(Point(1.0))
    assert isinstance(Point.class_type.instance_type, types.ClassInstanceType)
    assert Point.class_type.class_def.__name__ == "Point"
    assert not isinstance(Point.class_type.class_def, type(Point))


finite = st.floats(-1e6, 1e6, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(finite, finite, finite)
def test_methods_from_python_match_cpython(x, y, k):
    for cls in (PyPoint, Point):
        p = cls(x, y)
        results = [p.norm2(), as_tuple(p.scale(k)), as_tuple(p.shifted(1.5)), p.area]
        results.append(as_tuple(p.shifted(1.0, dy=-2.0)))
        if cls is PyPoint:
            expected = results
    assert results == expected


def scenario(p, q, k):
    r = p + q
    s = -r
    r.first = k
    return (
        r.x, r.y, s.x, s.y, p.norm2(), p == q, p < q, q < p, r.area, r.first,
        hash(p), p.shifted(k).x, Point.origin_distance(3.0, 4.0),
    )  # fmt: skip


def py_scenario(p, q, k):
    global Point
    saved, Point = Point, PyPoint
    try:
        return scenario(p, q, k)
    finally:
        Point = saved


compiled_scenario = njit(scenario)


@settings(max_examples=40, deadline=None)
@given(finite, finite, finite, finite, finite)
def test_compiled_code_matches_cpython(x1, y1, x2, y2, k):
    expected = py_scenario(PyPoint(x1, y1), PyPoint(x2, y2), k)
    assert compiled_scenario(Point(x1, y1), Point(x2, y2), k) == expected


def test_instances_made_in_compiled_code_and_returned():
    @njit
    def build(n):
        total = Point(0.0, 0.0)
        for i in range(n):
            total = total + Point(float(i), 1.0)
        return total

    p = build(10)
    assert isinstance(p, Point)
    assert as_tuple(p) == (45.0, 10.0)


def test_mutation_in_compiled_code_is_visible():
    @njit
    def move(p, dx):
        p.x += dx
        p.scale(2.0)

    p = Point(1.0, 3.0)
    move(p, 0.5)
    assert as_tuple(p) == (3.0, 6.0)


def test_default_and_keyword_arguments():
    @njit
    def calls():
        p = Point(1.0)
        q = Point(x=2.0, y=5.0)
        return p.y, q.x, q.y, p.shifted(1.0).y, p.shifted(dy=3.0, dx=1.0).y

    assert calls() == calls.py_func() == (2.0, 2.0, 5.0, 2.0, 5.0)


def test_python_attribute_access_converts_like_compiled_code():
    p = Point(1.0, 2.0)
    p.x = 3  # an int into a float field
    assert p.x == 3.0 and isinstance(p.x, float)
    p.first = 7.5
    assert p.x == 7.5


def test_isinstance_in_compiled_code():
    @njit
    def check(p, v):
        return isinstance(p, Point), isinstance(v, Point)

    assert check(Point(1.0), 2.0) == (True, False)


def test_identity():
    @njit
    def same(p, q):
        return p is q, p is not q

    p = Point(1.0)
    assert same(p, p) == (True, False)
    assert same(p, Point(1.0)) == (False, True)


# ---------------------------------------------------------------------------- containers


def make_bag():
    class Bag:
        def __init__(self, capacity):
            self.data = np.zeros(capacity)
            self.n = 0
            self.tags = [0]
            self.tags.pop()

        def push(self, value):
            self.data[self.n] = value
            self.n += 1
            self.tags.append(self.n)

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return self.data[i]

        def __setitem__(self, i, value):
            self.data[i] = value

        def __contains__(self, value):
            for i in range(self.n):
                if self.data[i] == value:
                    return True
            return False

        def __call__(self, k, offset=0.0):
            return self.data[: self.n].sum() * k + offset

        def total(self):
            return self.data[: self.n].sum()

    return Bag


PyBag = make_bag()


@jitclass
class Bag(make_bag()):
    data: float64[:]
    n: int64
    tags: types.List(int64)


def bag_scenario(bag, values):
    for v in values:
        bag.push(v)
    bag[0] = bag[0] + 1.0
    return (len(bag), bag.total(), values[-1] in bag, -12345.5 in bag, bag(2.0), bag(1.0, 3.0))


compiled_bag_scenario = njit(bag_scenario)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-1000, 1000).map(float), min_size=1, max_size=8))
def test_array_and_list_fields_match_cpython(values):
    # whole numbers: the sums are exact whatever order NumPy and ember add in
    expected = bag_scenario(PyBag(10), values)
    assert bag_scenario(Bag(10), values) == expected
    assert compiled_bag_scenario(Bag(10), np.array(values)) == expected
    bag = Bag(10)
    bag_scenario(bag, values)
    assert bag.tags == list(range(1, len(values) + 1))
    stored = np.array(values)
    stored[0] += 1.0
    np.testing.assert_array_equal(bag.data[: len(values)], stored)


def test_array_field_from_python_stays_alive_and_shared():
    bag = Bag(3)
    array = np.arange(4.0)
    bag.data = array
    array[0] = 100.0
    assert bag[0] == 100.0
    del array
    gc.collect()
    np.testing.assert_array_equal(bag.data, [100.0, 1.0, 2.0, 3.0])


def make_tree():
    class Node:
        def __init__(self, value, left, right):
            self.value = value
            self.left = left
            self.right = right

        def total(self):
            return self.value + self.left.value + self.right.value

    return Node


@jitclass([("value", float64)])
class Leaf:
    def __init__(self, value):
        self.value = value


Node = jitclass({"value": float64, "left": Leaf.class_type.instance_type, "right": Leaf})(
    make_tree()
)


def test_instances_as_fields_and_in_lists():
    @njit
    def build(n):
        nodes = [Node(float(i), Leaf(1.0), Leaf(2.0)) for i in range(n)]
        s = 0.0
        for node in nodes:
            s += node.total()
        return s, nodes

    s, nodes = build(4)
    assert s == sum(i + 3.0 for i in range(4))
    assert [node.value for node in nodes] == [0.0, 1.0, 2.0, 3.0]
    assert nodes[2].left.value == 1.0
    tree = Node(5.0, Leaf(1.5), Leaf(2.5))
    assert tree.total() == 9.0
    tree.left = Leaf(10.0)
    assert tree.total() == 17.5


# ---------------------------------------------------------------------------- memory


def live_blocks():
    gc.collect()
    return ember.runtime.stats().live


def test_no_leak_over_10k_instances_with_array_fields():
    @njit
    def churn(n):
        total = 0.0
        for i in range(n):
            bag = Bag(4)
            bag.push(float(i))
            node = Node(1.0, Leaf(float(i)), Leaf(2.0))
            total += bag.total() + node.total()
        return total

    churn(10)
    before = live_blocks()
    assert churn(10_000) == sum(float(i) + 3.0 + i for i in range(10_000))
    for i in range(2000):
        bag = Bag(2)
        bag.push(float(i))
        bag.data = np.ones(2)
        nodes = [Point(float(i)), Point(1.0) + Point(2.0)]
    del bag, nodes
    assert live_blocks() == before


def test_calls_from_python_keep_counts_balanced():
    p = Point(1.0, 2.0)
    for _ in range(3):  # the generated native entry takes over after the first calls
        p.shifted(1.0)
    before = live_blocks()
    for i in range(5000):
        q = p.shifted(float(i))
        assert q.x == 1.0 + i
        assert (q + p).y == 4.0
    del q
    assert live_blocks() == before
    assert p.norm2() == 5.0


def test_bound_methods_of_temporaries_and_stored_bound_methods():
    @njit
    def uses(n):
        total = 0.0
        for i in range(n):
            total += Point(float(i), 0.0).norm2()  # the receiver is a temporary
            p = Point(1.0, 1.0)
            f = p.norm2  # a bound method kept in a variable, called after p is rebound
            p = Point(5.0, 5.0)
            total += f() + p.shifted(p.norm2()).x
        return total

    uses(2)
    before = live_blocks()
    assert uses(100) == uses.py_func(100) == sum(i * i + 2.0 + 55.0 for i in range(100))
    assert live_blocks() == before


def test_exception_in_init_propagates_without_leak():
    @jitclass([("x", float64)])
    class Positive:
        def __init__(self, x):
            if x < 0:
                raise ValueError("negative")
            self.x = x

    Positive(1.0)
    before = live_blocks()
    with pytest.raises(ValueError, match="negative"):
        Positive(-1.0)
    assert live_blocks() == before


# ---------------------------------------------------------------------------- errors


def test_missing_attribute_is_a_typing_error():
    @jitclass([("x", float64)])
    class OnlyX:
        def __init__(self):
            self.x = 1.0

        def read_y(self):
            return self.y

        def write_y(self):
            self.y = 2.0

    with pytest.raises(TypingError, match="has no attribute 'y'"):
        OnlyX().read_y()
    with pytest.raises(TypingError, match="has no attribute 'y'"):
        OnlyX().write_y()


def test_wrong_type_assigned_is_a_typing_error():
    @jitclass([("a", float64[:])])
    class HoldsArray:
        def __init__(self):
            self.a = 1.0

    with pytest.raises(TypingError, match="cannot assign a value of type float64 to field 'a'"):
        HoldsArray()


@pytest.mark.parametrize(
    "spec, message",
    [
        ([("x", "float")], "not an ember type"),
        ({"x": types.none}, "do not support"),
        ([("1x", float64)], "not an identifier"),
        (5, "list of"),
    ],
)
def test_spec_is_validated(spec, message):
    with pytest.raises(TypeError, match=message):
        jitclass(spec)(type("Bad", (), {}))


def test_unsupported_members_say_so():
    with pytest.raises(UnsupportedError, match="classmethod"):

        @jitclass([("x", float64)])
        class WithClassmethod:
            @classmethod
            def make(cls):
                return 1

    with pytest.raises(UnsupportedError, match=r"\*args"):

        @jitclass([("x", float64)])
        class WithStar:
            def f(self, *args):
                return 1


def test_spellings():
    class Plain:
        def __init__(self, v):
            self.v = v

    for made in (
        ember.jitclass([("v", int64)])(Plain),
        jitclass(Plain, {"v": int64}),
        jitclass(spec=[("v", int64)])(Plain),
    ):
        assert made(3).v == 3
    # as in Numba: the spec takes ember types; Python classes belong in annotations
    with pytest.raises(TypeError, match="spec values should be Numba type instances"):
        jitclass([("v", int)])(Plain)
    with pytest.raises(TypeError, match="spec keys should be strings, got 1"):
        jitclass([(1, int64)])(Plain)


# ---------------------------------------------------------------------------- self-reference

node_type = ember.deferred_type()


def make_linked_node():
    class LinkedNode:
        def __init__(self, data, next):
            self.data = data
            self.next = next

        def prepend(self, data):
            return LinkedNode(data, self)

    return LinkedNode


PyLinkedNode = make_linked_node()
LinkedNode = jitclass([("data", int64), ("next", ember.optional(node_type))])(make_linked_node())
node_type.define(LinkedNode.class_type.instance_type)


def linked_sum(n, cls):
    head = cls(0, None)
    for i in range(1, n):
        head = head.prepend(i * i)
    total, node = 0, head
    while node is not None:
        total += node.data
        node = node.next
    return total, head.data, head.next.data


def test_self_referential_class_through_a_deferred_type():
    compiled = njit(linked_sum)  # the class passed as an argument
    before = live_blocks()
    for n in (2, 5, 50):
        expected = linked_sum(n, PyLinkedNode)
        assert compiled(n, LinkedNode) == expected == linked_sum(n, LinkedNode)
    tail = LinkedNode(5, None)
    assert tail.next is None
    assert LinkedNode(6, tail).next.data == 5
    del tail
    assert live_blocks() == before


def test_the_class_as_a_value():
    @njit
    def pick(cls, x):
        return cls, cls(x).norm2()

    for _ in range(3):  # past the first calls, the native entry matches the class itself
        cls, value = pick(Point, 3.0)
        assert cls is Point and value == 13.0


def test_subclassing_a_jitclass_says_what_to_do():
    with pytest.raises(TypeError, match="cannot subclass from a jitclass"):  # Numba's words

        @jitclass([("z", float64)])
        class Point3(Point):
            pass

    @jitclass([("x", float64), ("y", float64), ("z", float64)])
    class Point3D(Point.class_type.class_def):
        def __init__(self, x, y, z):
            self.x, self.y, self.z = x, y, z

        def norm2(self):
            return self.x * self.x + self.y * self.y + self.z * self.z

    p = Point3D(1.0, 2.0, 3.0)
    assert p.norm2() == 14.0 and p.area == 2.0  # inherited property, own method


def test_field_read_outlives_the_field_being_replaced():
    @njit
    def read_then_replace(bag, k):
        old = bag.data
        first = bag.data[0] + bag.data.shape[0]  # reads that borrow the field's reference
        bag.data = np.full(2, k)  # the instance lets go of `old`; the variable keeps it
        bag.push(k)
        return first, old[0], old.sum(), bag.data.sum(), len(bag)

    for k in (1.0, 2.5):
        py_bag, bag = PyBag(3), Bag(3)
        py_bag.push(4.0), bag.push(4.0)
        assert read_then_replace(bag, k) == read_then_replace.py_func(py_bag, k)
    del bag
    before = live_blocks()
    for k in range(200):
        bag = Bag(3)
        read_then_replace(bag, float(k))
    del bag
    assert live_blocks() == before


def test_python_lists_of_instances_are_reflected():
    from ember.typed import List

    def grow(points):
        total = 0.0
        for p in points:
            total += p.x
        points.append(Point(total, 0.0))
        points[0].x = -1.0
        return total

    compiled = njit(grow)
    before = live_blocks()
    for make in (list, lambda items: List(items)):
        py_points = [PyPoint(1.0), PyPoint(2.5)]
        points = make([Point(1.0), Point(2.5)])
        first = points[0]
        assert compiled(points) == grow(py_points)
        assert [as_tuple(p) for p in points] == [as_tuple(p) for p in py_points]
        # a Python list keeps the caller's boxes; a typed List boxes each item it gives out
        # (as Numba's does), and the instance is the same one
        assert as_tuple(points[0]) == as_tuple(first)
        if make is list:
            assert points[0] is first
    empty = List.empty_list(Point.class_type.instance_type)
    assert compiled(empty) == 0.0 and [as_tuple(p) for p in empty] == [(-1.0, 0.0)]
    del points, first, empty, py_points  # (grow appended a jitclass Point to py_points too)
    assert live_blocks() == before


def make_recursive():
    class Recursive:
        def __init__(self, base):
            self.base = base

        def fib(self, n):
            return self.base + n if n < 2 else self.fib(n - 1) + self.fib(n - 2)

    return Recursive


def test_recursive_methods():
    compiled_class = jitclass([("base", int64)])(make_recursive())
    python_class = make_recursive()
    for n in range(12):
        assert compiled_class(3).fib(n) == python_class(3).fib(n)
