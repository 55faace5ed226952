"""jitclass fields declared by Python annotations (`int`, `list[float]`, `typing.Dict`,
`Optional`, another jitclass) through `ember.extending.as_numba_type`, checked against the same
class run as plain Python."""

# ruff: noqa: UP006, UP007, UP045 - the typing module's spellings are what is tested

import typing

import pytest

from ember import typed, types
from ember.errors import TypingError
from ember.experimental import jitclass
from ember.extending import as_numba_type


def make_classes(decorate):
    """A counter and a class holding one, as plain Python (`decorate` the identity) or as
    jitclasses; every field is declared by an annotation only."""

    @decorate
    class Counter:
        value: int

        def __init__(self):
            self.value = 0

        def get(self) -> int:
            ret = self.value
            self.value += 1
            return ret

    @decorate
    class Cycler:
        counter: Counter
        items: typing.List[float]
        weights: dict[str, float]
        limit: typing.Optional[int]

        def __init__(self, items, weights, limit):
            self.items = items
            self.weights = weights
            self.limit = limit
            self.counter = Counter()

        def get(self) -> float:
            idx = self.counter.get() % len(self.items)
            return self.items[idx] * self.weights.get("scale", 1.0)

        def capped(self) -> int:
            if self.limit is None:
                return -1
            return min(self.limit, self.counter.value)

    return Cycler


def run_cycler(cycler_class, items, weights, limit):
    cycler = cycler_class(items, weights, limit)
    return [(cycler.get(), cycler.capped(), cycler.counter.value) for _ in range(6)]


@pytest.mark.parametrize("limit", [None, 3])
def test_annotated_fields_behave_as_python(limit):
    items, weights = [3.14, 2.718, 0.125, -4.0], {"scale": 2.0}
    expected = run_cycler(make_classes(lambda cls: cls), items, weights, limit)
    native_weights = typed.Dict.empty(types.unicode_type, types.float64)
    native_weights.update(weights)
    compiled = run_cycler(make_classes(jitclass), typed.List(items), native_weights, limit)
    assert compiled == expected


@pytest.mark.parametrize(
    "annotation, expected",
    [
        (typing.List[float], types.ListType(types.float64)),
        (list[int], types.ListType(types.int64)),
        (typing.Dict[str, int], types.DictType(types.unicode_type, types.int64)),
        (dict[int, list[float]], types.DictType(types.int64, types.ListType(types.float64))),
        (typing.Set[int], types.SetType(types.int64)),
        (typing.Optional[float], types.Optional(types.float64)),
        (int | None, types.Optional(types.int64)),
        (tuple[int, float], types.Tuple((types.int64, types.float64))),
        (tuple[bool, bool], types.UniTuple(types.boolean, 2)),
    ],
)
def test_as_numba_type_of_generic_annotations(annotation, expected):
    assert as_numba_type(annotation) == expected


def test_unknown_annotations_say_so():
    with pytest.raises(TypingError, match="Cannot infer Numba type of Python type"):
        as_numba_type(tuple[int, ...])
    with pytest.raises(TypingError, match="only a Union of one type with None"):
        as_numba_type(typing.Union[int, str])
    with pytest.raises(TypeError, match="field 'items'"):

        @jitclass
        class Bad:
            items: typing.Iterable[int]

            def __init__(self):
                pass
