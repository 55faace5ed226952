"""An extension type whose members are arrays, written as pydata/sparse writes its COO type:
a struct model of arrays and a number, `@lower_constant` through `get_constant_generic` of its
arrays, and `@box` calling the class with keyword arguments from `c.pyapi.dict_pack`. Results
are checked against the Python objects themselves."""

from __future__ import annotations

import numpy as np
from oracle import assert_frees_all

from ember import njit, types
from ember.core import cgutils
from ember.extending import (
    NativeValue,
    box,
    lower_builtin,
    lower_constant,
    make_attribute_wrapper,
    models,
    register_model,
    type_callable,
    typeof_impl,
    unbox,
)


class Sparse:
    """A vector stored as positions and values, with a fill value elsewhere."""

    def __init__(self, positions, values, fill_value=0.0):
        self.positions = positions
        self.values = values
        self.fill_value = fill_value

    def dense(self, size):
        out = np.full(size, self.fill_value)
        out[self.positions] = self.values
        return out


class SparseType(types.Type):
    def __init__(self):
        self.positions_type = types.Array(types.int64, 1, "A")
        self.values_type = types.Array(types.float64, 1, "A")
        super().__init__(name="Sparse")


sparse_type = SparseType()


@typeof_impl.register(Sparse)
def _typeof_sparse(value, context):
    return sparse_type


@register_model(SparseType)
class SparseModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [
            ("positions", fe_type.positions_type),
            ("values", fe_type.values_type),
            ("fill_value", types.float64),
        ]
        super().__init__(dmm, fe_type, members)


for _name in ("positions", "values", "fill_value"):
    make_attribute_wrapper(SparseType, _name, _name)


@lower_constant(SparseType)
def _constant_sparse(context, builder, typ, pyval):
    sparse = cgutils.create_struct_proxy(typ)(context, builder)
    sparse.positions = context.get_constant_generic(builder, typ.positions_type, pyval.positions)
    sparse.values = context.get_constant_generic(builder, typ.values_type, pyval.values)
    sparse.fill_value = context.get_constant_generic(builder, types.float64, pyval.fill_value)
    return sparse._getvalue()


@unbox(SparseType)
def _unbox_sparse(typ, obj, c):
    sparse = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    for name, member_type in (
        ("positions", typ.positions_type),
        ("values", typ.values_type),
        ("fill_value", types.float64),
    ):
        attribute = c.pyapi.object_getattr_string(obj, name)
        setattr(sparse, name, c.unbox(member_type, attribute).value)
        c.pyapi.decref(attribute)
    return NativeValue(sparse._getvalue())


@box(SparseType)
def _box_sparse(typ, val, c):
    sparse = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    positions = c.box(typ.positions_type, sparse.positions)
    values = c.box(typ.values_type, sparse.values)
    fill_value = c.box(types.float64, sparse.fill_value)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Sparse))
    args = c.pyapi.tuple_pack([positions, values])
    kwargs = c.pyapi.dict_pack([("fill_value", fill_value)])
    result = c.pyapi.call(cls, args, kwargs)
    for obj in (positions, values, fill_value, cls, args, kwargs):
        c.pyapi.decref(obj)
    return result


@type_callable(Sparse)
def _type_sparse_constructor(context):
    def typer(positions, values, fill_value):
        return sparse_type

    return typer


@lower_builtin(Sparse, types.Array, types.Array, types.Float)
def _build_sparse(context, builder, sig, args):
    sparse = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    positions, values, fill_value = args
    sparse.positions = context.cast(builder, positions, sig.args[0], sparse_type.positions_type)
    sparse.values = context.cast(builder, values, sig.args[1], sparse_type.values_type)
    sparse.fill_value = fill_value
    context.nrt.incref(builder, sparse_type.positions_type, sparse.positions)  # args are borrowed
    context.nrt.incref(builder, sparse_type.values_type, sparse.values)
    return sparse._getvalue()


GLOBAL = Sparse(np.array([1, 4]), np.array([2.5, -1.0]), fill_value=0.5)


def test_a_global_of_the_type_lowers_its_arrays_as_constants():
    @njit
    def dense_global():
        out = np.full(6, GLOBAL.fill_value)
        for i in range(GLOBAL.positions.shape[0]):
            out[GLOBAL.positions[i]] = GLOBAL.values[i]
        return out

    np.testing.assert_array_equal(dense_global(), GLOBAL.dense(6))


def test_boxing_passes_keyword_arguments_packed_by_dict_pack():
    @njit
    def scaled(s, factor):
        return s, s.values * factor

    original = Sparse(np.array([0, 2, 3]), np.array([1.0, 2.0, 3.0]), fill_value=-2.0)
    same, doubled = scaled(original, 2.0)
    assert isinstance(same, Sparse) and same.fill_value == -2.0
    np.testing.assert_array_equal(same.dense(5), original.dense(5))
    np.testing.assert_array_equal(doubled, original.values * 2.0)

    @njit
    def returned_global():
        return GLOBAL

    copy = returned_global()
    assert isinstance(copy, Sparse) and copy.fill_value == GLOBAL.fill_value
    np.testing.assert_array_equal(copy.dense(6), GLOBAL.dense(6))


def test_boxed_members_are_freed_once_python_drops_them():
    @njit
    def rebuilt(n):
        return Sparse(np.arange(n), np.ones(n) * 2.0, 1.5)

    sample = rebuilt(3)
    np.testing.assert_array_equal(sample.dense(4), [2.0, 2.0, 2.0, 1.5])
    assert_frees_all(rebuilt, lambda: 4, calls=50)
