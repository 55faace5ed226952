"""repr() of ember types is a constructor call (Numba's spelling) that eval() turns back into
the same type; str() stays the short form programs print."""

import numpy as np
import pytest

from ember import typeof, types
from ember.typed import Dict, List

_NAMES = {
    cls.__name__: cls
    for cls in (
        types.Array,
        types.NestedArray,
        types.Record,
        types.UnicodeCharSeq,
        types.CharSeq,
        types.UniTuple,
        types.Tuple,
        types.List,
        types.DictType,
        types.ListType,
        types.Set,
    )
}
_NUMBERS = sorted(types.number_domain, key=str)  # a set: its order differs between processes
_NAMES.update({t.name: t for t in (types.boolean, types.unicode_type, *_NUMBERS)})


_RECORD = [("a", "f8"), ("b", "U8"), ("c", "i8", (2, 3))]


def _typed_dict():
    d = Dict()
    d["a"] = 1
    return d


@pytest.mark.parametrize(
    "value",
    [
        True,
        "a",
        (1, 2),
        (1.5,),
        (1, "a"),
        ((1, 2), (3, "b")),
        ((1, 2), (3, [1, 2])),
        np.ones(3),
        np.ones((2, 2), np.float32, order="F")[:, ::2],
        np.array(
            [(1.0, "a", np.ones((2, 3)))], dtype=[("a", "f8"), ("b", "U8"), ("c", "i8", (2, 3))]
        ),
        _typed_dict(),
        List([1, 2]),
        {1, 2},
        *(np.dtype(str(t)).type(1) for t in _NUMBERS),
    ],
)
def test_repr_rebuilds_the_type(value):
    typ = typeof(value)
    assert eval(repr(typ), dict(_NAMES)) == typ


def test_str_keeps_the_short_spelling():
    assert str(typeof((1, 2))) == "UniTuple(int64 x 2)"
    assert repr(typeof((1, 2))) == "UniTuple(int64, 2)"
    assert str(typeof((1, "a"))) == "Tuple(int64, unicode_type)"
    assert repr(typeof((1, "a"))) == "Tuple((int64, unicode_type))"
    assert str(typeof(np.array(["abc"]))) == "array([unichr x 3], 1d, C)"
    assert str(types.CharSeq(2)) == "[char x 2]"
    assert repr(types.CharSeq(2)) == "CharSeq(2)"
    with pytest.raises(ValueError, match="aligned"):
        types.Array(types.float64, 1, "C", aligned=False)
