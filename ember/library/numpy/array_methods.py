"""Shape and content methods: reshape (with -1), ravel, flatten, transpose, astype, fill, conj, and
their np.* functions (np.reshape, np.ravel, np.transpose); sorting is in sorting.py.

reshape and ravel give views of C-contiguous arrays (checked at run time for other layouts)
and copies otherwise, as NumPy does; conj and conjugate are np.conjugate.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.library.builtins.int_scalars import cast_stored
from ember.library.numpy.creation import shape_values
from ember.library.numpy.support import np_typer, parse_dtype, refuse_complex_to_real
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering.arrays import ArrayFields, const
from ember.lowering.registry import VarArgs, lower_builtin
from ember.typing.overload import overload_method
from ember.typing.signature import signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- reshape


def _shape_type(args: tuple) -> types.BaseTuple | None:
    """reshape's shape arguments: one int, a tuple of ints, or several ints."""
    if len(args) == 1:
        only = types.unliteral(args[0])
        if isinstance(only, types.Integer):
            return types.UniTuple(types.int64, 1)
        if isinstance(only, types.BaseTuple) and all(
            isinstance(types.unliteral(t), types.Integer) for t in only.types
        ):
            return types.UniTuple(types.int64, len(only))
        return None
    if args and all(isinstance(types.unliteral(t), types.Integer) for t in args):
        return types.UniTuple(types.int64, len(args))
    return None


def contiguous_c(context, builder, array_type, value):
    """(C type, value, owned?) of a C-contiguous version of `value`: itself when its layout
    allows (no copy, not a new reference), else a fresh copy (a new reference)."""
    c_type = array_type.copy(layout="C")
    if array_type.layout == "C" or array_type.ndim <= 0:
        return c_type, value, False
    fields = arr.unpack(builder, array_type, value)
    slot = arr.alloca_in_entry(builder, value.type, name="contiguous")
    builder.store(value, slot)
    owned = arr.alloca_in_entry(builder, arr.i1, name="contiguous.owned")
    builder.store(llvm.Constant(arr.i1, 0), owned)
    with builder.if_then(builder.not_(arr.is_contiguous(builder, fields)), likely=False):
        builder.store(kernels.copy_array(context, builder, array_type, value), slot)
        builder.store(llvm.Constant(arr.i1, 1), owned)
    return c_type, builder.load(slot, typ=value.type), builder.load(owned, typ=arr.i1)


def reshaped(context, builder, array_type, value, new_shape: list, result_type):
    """A C-order view (or a copy's view) of `value` with `new_shape` (a negative length is
    inferred)."""
    fields = arr.unpack(builder, array_type, value)
    known = const(1)
    unknown_count = const(0)
    for dim in new_shape:
        is_unknown = builder.icmp_signed("<", dim, const(0))  # NumPy: any negative, not just -1
        unknown_count = builder.add(unknown_count, builder.zext(is_unknown, arr.i64))
        known = builder.mul(known, builder.select(is_unknown, const(1), dim))
    too_many = builder.icmp_signed(">", unknown_count, const(1))
    context.guard(builder, too_many, ValueError, "can only specify one unknown dimension")
    zero_known = builder.icmp_signed("==", known, const(0))
    inferred = builder.sdiv(fields.nitems, builder.select(zero_known, const(1), known))
    shape = [builder.select(builder.icmp_signed("<", d, const(0)), inferred, d)
             for d in new_shape]  # fmt: skip
    total = arr.product(builder, shape)
    negative = llvm.Constant(arr.i1, 0)
    for dim in shape:
        negative = builder.or_(negative, builder.icmp_signed("<", dim, const(0)))
    bad = builder.or_(negative, builder.icmp_signed("!=", total, fields.nitems))
    context.guard(
        builder, bad, ValueError, "cannot reshape array: total size of new array must be unchanged"
    )
    c_type, c_value, owned = contiguous_c(context, builder, array_type, value)
    source = arr.unpack(builder, c_type, c_value)
    view = ArrayFields(
        source.meminfo,
        source.parent,
        fields.nitems,
        source.itemsize,
        source.data,
        shape,
        arr.contiguous_strides(builder, shape, arr.itemsize_of(array_type.dtype)),
    )
    if owned is False:
        arr.nrt_incref_fields(builder, view)  # a view of the argument: a new reference
    else:  # a copy is already our reference; a view of the argument needs one more
        with builder.if_then(builder.not_(owned)):
            arr.nrt_incref_fields(builder, view)
    return arr.pack(builder, result_type, view)


def _register_reshape() -> None:
    @registry.typer((types.Array, "reshape"))
    def _method(args, kws):
        if kws or not isinstance(args[0], types.Array):
            return None
        shape = _shape_type(args[1:])
        if shape is None:
            return None
        return signature(args[0].copy(ndim=len(shape), layout="C"), *args)

    @lower_builtin((types.Array, "reshape"), types.Array, VarArgs(types.Type))
    def _lower_method(context, builder, sig, args):
        shape_args = list(zip(sig.args[1:], args[1:]))
        if len(shape_args) == 1:
            new_shape = shape_values(context, builder, *shape_args[0])
        else:
            new_shape = [context.cast(builder, v, t, types.int64) for t, v in shape_args]
        return reshaped(context, builder, sig.args[0], args[0], new_shape, sig.return_type)

    @np_typer(np.reshape, "a, shape")
    def _function(a, shape):
        if not isinstance(a, types.Array):
            return None
        shape = _shape_type((shape,))
        if shape is None:
            return None
        return a.copy(ndim=len(shape), layout="C")

    @lower_builtin(np.reshape, types.Array, types.Type)
    def _lower_function(context, builder, sig, args):
        new_shape = shape_values(context, builder, sig.args[1], args[1])
        return reshaped(context, builder, sig.args[0], args[0], new_shape, sig.return_type)


_register_reshape()


def _ravel_type(a):
    """A read-only array that may not be C-contiguous ravels to a fresh, writable copy (NumPy
    copies a Fortran or strided one; a view of read-only memory stays read-only)."""
    if isinstance(a, types.Array):
        return a.copy(ndim=1, layout="C", readonly=a.readonly and not _copies_read_only(a))
    return None


def _copies_read_only(a: types.Array) -> bool:
    return a.readonly and a.layout != "C" and a.ndim > 1


np_typer((types.Array, "ravel"), "self")(_ravel_type)
np_typer(np.ravel, "a")(_ravel_type)


@lower_builtin((types.Array, "ravel"), types.Array)
@lower_builtin(np.ravel, types.Array)
def array_ravel(context, builder, sig, args):
    if _copies_read_only(sig.args[0]):
        return array_flatten(context, builder, sig, args)
    return reshaped(context, builder, sig.args[0], args[0], [const(-1)], sig.return_type)


@np_typer((types.Array, "flatten"), "self")
def _flatten_type(a):
    return types.Array(a.dtype, 1, "C")


@lower_builtin((types.Array, "flatten"), types.Array)
def array_flatten(context, builder, sig, args):
    array_type = sig.args[0]
    copy = kernels.copy_array(context, builder, array_type, args[0])
    fields = arr.unpack(builder, array_type.copy(layout="C", readonly=False), copy)
    flat = ArrayFields(fields.meminfo, fields.parent, fields.nitems, fields.itemsize,
                       fields.data, [fields.nitems], [fields.itemsize])  # fmt: skip
    return arr.pack(builder, sig.return_type, flat)


# ---------------------------------------------------------------------------- transpose


def _transpose_typer(args, kws):
    if kws or not args or not isinstance(args[0], types.Array):
        return None
    a = args[0]
    rest = args[1:]
    if not rest or (len(rest) == 1 and isinstance(rest[0], types.NoneType)):
        from ember.library.numpy.arrays import transposed_type

        return signature(transposed_type(a), *args)
    axes = _shape_type(rest)
    if axes is None or len(axes) != a.ndim:
        raise TypingError(f"transpose of a {a.ndim}-d array needs {a.ndim} axes")
    return signature(a.copy(layout="A"), *args)


registry.typer((types.Array, "transpose"))(_transpose_typer)
registry.typer(np.transpose)(_transpose_typer)


@lower_builtin((types.Array, "transpose"), types.Array, VarArgs(types.Type))
@lower_builtin(np.transpose, types.Array, VarArgs(types.Type))
def array_transpose(context, builder, sig, args):
    array_type = sig.args[0]
    fields = arr.unpack(builder, array_type, args[0])
    rest = list(zip(sig.args[1:], args[1:]))
    if not rest or isinstance(rest[0][0], types.NoneType):
        fields.shape.reverse()
        fields.strides.reverse()
    else:
        if len(rest) == 1:
            axes = shape_values(context, builder, *rest[0])
        else:
            axes = [context.cast(builder, v, t, types.int64) for t, v in rest]
        from ember.library.numpy.reductions import _pick, normalize_axis

        ndim = array_type.ndim
        axes = [normalize_axis(context, builder, axis, ndim) for axis in axes]
        seen = const(0)
        for axis in axes:
            seen = builder.or_(seen, builder.shl(const(1), axis))
        repeated = builder.icmp_signed("!=", seen, const((1 << ndim) - 1))
        context.guard(builder, repeated, ValueError, "repeated axis in transpose")
        shape = [_pick(builder, axis, fields.shape) for axis in axes]
        strides = [_pick(builder, axis, fields.strides) for axis in axes]
        fields.shape, fields.strides = shape, strides
    arr.nrt_incref_fields(builder, fields)
    return arr.pack(builder, sig.return_type, fields)


# ---------------------------------------------------------------------------- astype, fill


@np_typer((types.Array, "astype"), "self, dtype")
def _astype_type(a, dtype):
    target = parse_dtype(dtype, default=None)
    text = (types.UnicodeCharSeq, types.CharSeq)
    if target != a.dtype and (isinstance(target, text) or isinstance(a.dtype, text)):
        raise TypingError(
            f"astype from {a.dtype} to {target} is not supported in compiled code: a string "
            "array converts only to its own dtype (convert each element, e.g. float(s[i]))"
        )
    refuse_complex_to_real("astype", a.dtype, target)
    # NumPy's order='K': a Fortran array's copy is Fortran too
    return types.Array(target, a.ndim, "F" if a.layout == "F" and a.ndim > 1 else "C")


@lower_builtin((types.Array, "astype"), types.Array, types.Type)
def array_astype(context, builder, sig, args):
    out_type = sig.return_type
    return kernels.copy_array(
        context, builder, sig.args[0], args[0], out_type.dtype, order=out_type.layout
    )


@np_typer((types.Array, "view"), "self, dtype")
def _view_type(a, dtype):
    """`a.view(dtype)`: the same memory read as another number dtype. Items of another size
    rescale the last axis, which must then be contiguous (checked when it runs, as NumPy)."""
    target = parse_dtype(dtype, default=None)
    numbers = types.Number | types.Boolean | types.NPDatetime | types.NPTimedelta
    if not (isinstance(target, numbers) and isinstance(a.dtype, numbers)):
        raise TypingError(f"view of an array of {a.dtype} as {target}: ember views numbers only")
    if a.ndim == 0 and arr.itemsize_of(target) != arr.itemsize_of(a.dtype):
        raise TypingError("a 0-d array can be viewed only as a dtype of the same item size")
    same_size = arr.itemsize_of(target) == arr.itemsize_of(a.dtype)
    return a.copy(dtype=target, layout=a.layout if same_size or a.layout == "C" else "A")


@lower_builtin((types.Array, "view"), types.Array, types.Type)
def array_view(context, builder, sig, args):
    source_type, view_type = sig.args[0], sig.return_type
    fields = arr.unpack(builder, source_type, args[0])
    old_size, new_size = arr.itemsize_of(source_type.dtype), arr.itemsize_of(view_type.dtype)
    if old_size != new_size:
        last = fields.shape[-1]
        contiguous = builder.or_(
            builder.icmp_signed("==", fields.strides[-1], arr.const(old_size)),
            builder.icmp_signed("<=", last, arr.const(1)),
        )
        nbytes = builder.mul(last, arr.const(old_size))
        fits = builder.icmp_signed("==", builder.srem(nbytes, arr.const(new_size)), arr.const(0))
        context.guard(
            builder,
            builder.not_(builder.and_(contiguous, fits)),
            ValueError,
            "To change to a dtype of a different size, the last axis must be contiguous and "
            "its size in bytes a multiple of the new item size",
        )
        fields.shape[-1] = builder.sdiv(nbytes, arr.const(new_size))
        fields.strides[-1] = arr.const(new_size)
        fields.nitems = builder.sdiv(builder.mul(fields.nitems, arr.const(old_size)),
                                     arr.const(new_size))  # fmt: skip
    fields.itemsize = arr.const(new_size)
    arr.nrt_incref_fields(builder, fields)
    return arr.pack(builder, view_type, fields)


@np_typer((types.Array, "fill"), "self, value")
def _fill_type(a, value):
    if a.readonly:
        raise TypingError(f"cannot fill a read-only array ({a})")
    if isinstance(types.unliteral(value), types.Number):
        return types.none
    return None


@lower_builtin((types.Array, "fill"), types.Array, types.Type)
def array_fill(context, builder, sig, args):
    array_type, value_type = sig.args
    fields = arr.unpack(builder, array_type, args[0])
    value = cast_stored(context, builder, args[1], value_type, array_type.dtype)
    kernels.assign(context, builder, array_type, fields, array_type.dtype, value)
    return context.get_dummy_value(types.none)


def _register_conjugate(name: str) -> None:
    @overload_method(types.Array, name)
    def array_conjugate(a):
        def conjugate_impl(a):
            return np.conjugate(a)

        return conjugate_impl


for _name in ("conj", "conjugate"):  # a.conj(), a.conjugate(): np.conjugate(a), as in Numba
    _register_conjugate(_name)
