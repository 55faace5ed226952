"""The NumPy-array part of the native entry: matching and borrowing ndarray arguments, and
turning array results into ndarrays (an argument itself, a view based on it, or new runtime
memory owned by an `ember.runtime.MemInfo`: runtime/memory_object.py) without running Python
code."""

from __future__ import annotations

import sys

from llvmlite import ir

from ember.dispatcher import datetime_entry
from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.object_layout import (
    _I8,
    _I32,
    _I64,
    _NPY_C_CONTIGUOUS,
    _NPY_F_CONTIGUOUS,
    _NPY_WRITEABLE,
    _PTR,
    _PTR_SIZE,
    _SSIZE,
    ArrayKind,
    DtypeObject,
    NumpyCAPI,
    _FunctionPointer,
    _object_constant,
    numpy_capi,
    numpy_dtype_of,
    numpy_layout,
)


class ArrayCodegen(EntryBuilder):
    """Matches, unboxes and boxes NumPy arrays for the entry's code generator."""

    def emit_match_array(self, obj: ir.Value, kind: ArrayKind, fail: ir.Block) -> None:
        """Exactly an ndarray (or an np.memmap, typed as its array) with this ndim, dtype
        (native byte order) and layout."""
        b = self.builder
        numpy = sys.modules["numpy"]
        layout = numpy_layout()
        ob_type = self.ob_type(obj)
        is_array = b.or_(
            b.icmp_unsigned("==", ob_type, _object_constant(numpy.ndarray)),
            b.icmp_unsigned("==", ob_type, _object_constant(numpy.memmap)),
        )
        self.continue_if(is_array, fail, "array.type_ok")
        nd = self.load_field(obj, layout.nd, _I32, 4)
        self.continue_if(b.icmp_signed("==", nd, _I32(kind.ndim)), fail, "array.ndim_ok")
        self.emit_match_dtype(self.load_field(obj, layout.descr, _PTR, _PTR_SIZE), kind, fail)
        flags = self.load_field(obj, layout.flags, _I32, 4)
        c_flag = b.icmp_unsigned("!=", b.and_(flags, _I32(_NPY_C_CONTIGUOUS)), _I32(0))
        f_flag = b.icmp_unsigned("!=", b.and_(flags, _I32(_NPY_F_CONTIGUOUS)), _I32(0))
        if kind.layout == "C":
            layout_ok = c_flag
        elif kind.layout == "F":
            layout_ok = b.and_(f_flag, b.not_(c_flag))
        else:
            layout_ok = b.not_(b.or_(c_flag, f_flag))
        writeable = b.icmp_unsigned("!=", b.and_(flags, _I32(_NPY_WRITEABLE)), _I32(0))
        access_ok = b.not_(writeable) if kind.readonly else writeable
        self.continue_if(b.and_(layout_ok, access_ok), fail, "array.layout_ok")

    def emit_unbox_array(self, obj: ir.Value, kind: ArrayKind) -> list[ir.Value]:
        """Borrow the ndarray: NULL meminfo, the object as parent, its data/shape/strides."""
        b = self.builder
        layout = numpy_layout()
        dims_ptr = self.load_field(obj, layout.dimensions, _PTR, _PTR_SIZE)
        strides_ptr = self.load_field(obj, layout.strides, _PTR, _PTR_SIZE)
        shape = [self.load_field(dims_ptr, 8 * k, _I64, 8) for k in range(kind.ndim)]
        strides = [self.load_field(strides_ptr, 8 * k, _I64, 8) for k in range(kind.ndim)]
        nitems = ir.Constant(_I64, 1)
        for extent in shape:
            nitems = b.mul(nitems, extent)
        itemsize = numpy_dtype_of(kind).itemsize
        data = self.load_field(obj, layout.data, _PTR, _PTR_SIZE)
        null = ir.Constant(_PTR, None)
        return [null, obj, nitems, ir.Constant(_I64, itemsize), data, *shape, *strides]

    def emit_match_dtype(self, descr: ir.Value, kind: ArrayKind, fail: ir.Block) -> None:
        """The dtype `descr` is the kind's, in native byte order (datetimes: in its unit)."""
        b = self.builder
        if isinstance(kind.dtype, DtypeObject):
            self.emit_match_dtype_object(descr, kind.dtype, fail)
            return
        layout = numpy_layout()
        type_num = self.load_field(descr, layout.descr_type_num, _I32, 4)
        expected = numpy_dtype_of(kind).num
        self.continue_if(b.icmp_signed("==", type_num, _I32(expected)), fail, "array.dtype_ok")
        if datetime_entry.is_datetime_dtype_name(kind.dtype):
            datetime_entry.emit_match_array_unit(self, descr, kind.dtype, fail)
        order = self.load_field(descr, layout.descr_byteorder, _I8, 1)
        foreign = ord(">") if sys.byteorder == "little" else ord("<")
        self.continue_if(b.icmp_unsigned("!=", order, _I8(foreign)), fail, "array.order_ok")

    def emit_match_dtype_object(self, descr: ir.Value, dtype: DtypeObject, fail) -> None:
        """The descr is the kind's dtype object, or one equal to it (NumPy's comparison,
        which runs only when the object differs)."""
        b = self.builder
        expected = _object_constant(dtype.dtype)
        equal = self.alloca(ir.IntType(1), "array.dtype_equal")
        b.store(b.icmp_unsigned("==", descr, expected), equal)
        with b.if_then(b.not_(b.load(equal)), likely=False):
            compared = self.call_capi("PyObject_RichCompareBool", [descr, expected, _I32(2)])
            with b.if_then(b.icmp_signed("<", compared, _I32(0)), likely=False):
                self.call_capi("PyErr_Clear", [])  # not comparable: not this kind
            b.store(b.icmp_signed("==", compared, _I32(1)), equal)
        self.continue_if(b.load(equal), fail, "array.dtype_object_ok")

    def emit_box_array(self, kind: ArrayKind, ptr: ir.Value) -> ir.Value:
        """An argument returned unchanged is returned itself (no Python code runs); memory the
        runtime owns gets a new ndarray over it, a view of an argument a new ndarray based on
        it; any other array goes to the Python boxer. The result (NULL on error) is a value, so
        arrays box inside tuples too."""
        b = self.builder
        done = self.new_block("box.array.done")
        boxed: list[tuple[ir.Value, ir.Block]] = []

        def finish(value: ir.Value) -> None:
            boxed.append((value, b.block))
            b.branch(done)

        meminfo = self.load_field(ptr, 0, _PTR, _PTR_SIZE)
        parent = self.load_field(ptr, 8, _PTR, _PTR_SIZE)
        slow = self.new_block("box.array.slow")
        self._emit_if_returned_argument(kind, ptr, meminfo, parent, slow)
        self.incref_object(parent)
        finish(parent)
        b.position_at_end(slow)
        python_boxer = self.new_block("box.array.python")
        capi = numpy_capi()
        if capi is not None and self.memory_object_new is not None:
            self._emit_new_ndarray_or_view(kind, ptr, meminfo, parent, python_boxer, finish)
        else:
            b.branch(python_boxer)
        b.position_at_end(python_boxer)
        result, call_end, failed = self._emit_python_boxer(kind, ptr, parent, done)
        b.position_at_end(done)
        phi = b.phi(_PTR, name="box.array")
        phi.add_incoming(ir.Constant(_PTR, None), failed)
        phi.add_incoming(result, call_end)
        for value, block in boxed:
            phi.add_incoming(value, block)
        return phi

    def _emit_if_returned_argument(self, kind, ptr, meminfo, parent, other: ir.Block) -> None:
        """Continue if the result is its parent argument itself (borrowed, same data, rank,
        writability, dtype, shape and strides); else branch to `other`."""
        b = self.builder
        layout = numpy_layout()
        null = ir.Constant(_PTR, None)
        borrowed = b.and_(b.icmp_unsigned("==", meminfo, null), b.icmp_unsigned("!=", parent, null))
        self.continue_if(borrowed, other, "box.array.borrowed")
        same = b.icmp_unsigned(
            "==",
            self.load_field(ptr, 32, _PTR, _PTR_SIZE),
            self.load_field(parent, layout.data, _PTR, _PTR_SIZE),
        )
        nd = self.load_field(parent, layout.nd, _I32, 4)
        same = b.and_(same, b.icmp_signed("==", nd, _I32(kind.ndim)))
        if kind.readonly:  # a read-only view of a writable argument is not the argument
            flags = self.load_field(parent, layout.flags, _I32, 4)
            writeable = b.icmp_unsigned("!=", b.and_(flags, _I32(_NPY_WRITEABLE)), _I32(0))
            same = b.and_(same, b.not_(writeable))
        self.continue_if(same, other, "box.array.same_data")
        # a.view(other dtype) has the argument's data, shape and strides: not the argument
        self.emit_match_dtype(self.load_field(parent, layout.descr, _PTR, _PTR_SIZE), kind, other)
        dims = self.load_field(parent, layout.dimensions, _PTR, _PTR_SIZE)
        strides = self.load_field(parent, layout.strides, _PTR, _PTR_SIZE)
        for k in range(kind.ndim):
            extent = self.load_field(ptr, 40 + 8 * k, _I64, 8)
            stride = self.load_field(ptr, 40 + 8 * (kind.ndim + k), _I64, 8)
            same = b.and_(same, b.icmp_signed("==", extent, self.load_field(dims, 8 * k, _I64, 8)))
            same = b.and_(
                same, b.icmp_signed("==", stride, self.load_field(strides, 8 * k, _I64, 8))
            )
        self.continue_if(same, other, "box.array.identity")

    def _emit_new_ndarray_or_view(self, kind, ptr, meminfo, parent, python_boxer, finish) -> None:
        """Runtime-owned memory: a new ndarray whose base owns the meminfo (an adopted
        argument goes to `python_boxer`); no meminfo but a parent: a new ndarray based on the
        parent; neither: `python_boxer`."""
        b = self.builder
        capi = numpy_capi()
        null = ir.Constant(_PTR, None)
        owned = self.new_block("box.array.owned")
        view = self.new_block("box.array.view")
        runtime_owned = self.new_block("box.array.runtime_owned")
        b.cbranch(b.icmp_unsigned("!=", meminfo, null), runtime_owned, view)
        b.position_at_end(runtime_owned)
        self._branch_if_adopted(meminfo, parent, python_boxer, owned)
        b.position_at_end(owned)
        finish(self.emit_new_ndarray(kind, ptr, self.emit_memory_object(meminfo), capi))
        b.position_at_end(view)  # a view of an argument: the argument is the new array's base
        view_ok = self.new_block("box.array.view_ok")
        b.cbranch(b.icmp_unsigned("!=", parent, null), view_ok, python_boxer)
        b.position_at_end(view_ok)
        self.incref_object(parent)
        finish(self.emit_new_ndarray(kind, ptr, parent, capi))

    def _emit_python_boxer(self, kind, ptr, parent, done: ir.Block) -> tuple:
        """Call the kind's Python boxer with the result's address, its parent (or None) and the
        call's arguments (an array no block owns may view one of them: an extension's native
        code returns views with neither meminfo nor parent). Returns (result, the block it is
        made in, the block that branches to `done` when the address cannot be made)."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        address = self.call_capi("PyLong_FromVoidPtr", [ptr])
        address_block = b.block
        call_block = self.new_block("box.array.call")
        b.cbranch(b.icmp_unsigned("!=", address, null), call_block, done)
        b.position_at_end(call_block)
        parent_or_none = b.select(
            b.icmp_unsigned("==", parent, null), _object_constant(None), parent
        )
        passed = [address, parent_or_none, *getattr(self, "argument_objects", [])]
        self.alloca_builder.position_at_start(self._entry)
        arguments = self.alloca_builder.alloca(_PTR, size=len(passed), name="box.array.args")
        for index, value in enumerate(passed):
            b.store(value, b.gep(arguments, [ir.Constant(_I64, index)], source_etype=_PTR))
        boxer = _object_constant(self.array_boxers[kind])
        result = self.call_capi(
            "PyObject_Vectorcall", [boxer, arguments, ir.Constant(_SSIZE, len(passed)), null]
        )
        self.call_capi("Py_DecRef", [address])
        call_end = b.block
        b.branch(done)
        return result, call_end, address_block

    def _branch_if_adopted(self, meminfo, parent, adopted: ir.Block, other: ir.Block) -> None:
        """Branch to `adopted` if the meminfo holds the parent ndarray itself (an array adopted
        from Python, ember/lowering/adopted_arrays.py: an 8-byte block holding its address),
        whose Python boxer may return that ndarray."""
        b = self.builder
        has_parent = b.icmp_unsigned("!=", parent, ir.Constant(_PTR, None))
        size = self.load_field(meminfo, 16, _I64, 8)  # ember/runtime/nrt.py's header
        small = b.icmp_unsigned("==", size, ir.Constant(_I64, 8))
        check = self.new_block("box.array.adopted_check")
        b.cbranch(b.and_(has_parent, small), check, other)
        b.position_at_end(check)
        data = self.load_field(meminfo, 8, _PTR, _PTR_SIZE)
        holds_parent = b.icmp_unsigned("==", self.load_field(data, 0, _PTR, _PTR_SIZE), parent)
        b.cbranch(holds_parent, adopted, other)

    def emit_memory_object(self, meminfo) -> ir.Value:
        """An `ember.runtime.MemInfo` owning the meminfo's reference (NULL if out of memory)."""
        return self.builder.call(self.memory_object_new, [meminfo])

    def emit_new_ndarray(self, kind: ArrayKind, ptr, base, capi: NumpyCAPI) -> ir.Value:
        """An ndarray over the result's memory, without a copy, whose base (a new reference,
        stolen here: a runtime MemInfo or the argument viewed) keeps the memory alive."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        numpy = sys.modules["numpy"]
        fail = self.new_block("new_ndarray.fail")
        self.continue_if(b.icmp_unsigned("!=", base, null), fail, "new_ndarray.base")
        if isinstance(kind.dtype, DtypeObject):  # NewFromDescr steals a reference
            descr = _object_constant(kind.dtype.dtype)
            self.incref_object(descr)
        else:
            descr = b.call(
                _FunctionPointer(ir.FunctionType(_PTR, [_I32]), capi.descr_from_type),
                [_I32(numpy_dtype_of(kind).num)],
            )
        shape = b.gep(ptr, [ir.Constant(_I64, 40)], source_etype=_I8)
        strides = b.gep(ptr, [ir.Constant(_I64, 40 + 8 * kind.ndim)], source_etype=_I8)
        data = self.load_field(ptr, 32, _PTR, _PTR_SIZE)
        flags = 0 if kind.readonly else _NPY_WRITEABLE
        new_from_descr = ir.FunctionType(_PTR, [_PTR, _PTR, _I32, _PTR, _PTR, _PTR, _I32, _PTR])
        array = b.call(
            _FunctionPointer(new_from_descr, capi.new_from_descr),
            [_object_constant(numpy.ndarray), descr, _I32(kind.ndim), shape, strides, data,
             _I32(flags), null],
        )  # fmt: skip
        made = self.new_block("new_ndarray.made")
        release = self.new_block("new_ndarray.release")
        b.cbranch(b.icmp_unsigned("!=", array, null), made, release)
        b.position_at_end(release)
        self.call_capi("Py_DecRef", [base])
        b.branch(fail)
        b.position_at_end(made)
        set_base = ir.FunctionType(_I32, [_PTR, _PTR])
        status = b.call(_FunctionPointer(set_base, capi.set_base_object), [array, base])
        based = self.new_block("new_ndarray.based")
        drop_array = self.new_block("new_ndarray.drop")
        b.cbranch(b.icmp_signed("==", status, _I32(0)), based, drop_array)
        b.position_at_end(drop_array)
        self.call_capi("Py_DecRef", [array])  # the base reference was stolen even on failure
        b.branch(fail)
        done = self.new_block("new_ndarray.done")
        b.position_at_end(fail)
        b.branch(done)
        b.position_at_end(based)
        b.branch(done)
        b.position_at_end(done)
        result = b.phi(_PTR, name="new_ndarray")
        result.add_incoming(null, fail)
        result.add_incoming(array, based)
        return result
