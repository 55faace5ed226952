"""Extension API, jitclass, first-class function and dispatcher behaviour that real Numba programs
rely on (second round, _notes/exttests2_gaps.md): each test checks values computed by plain
Python/NumPy or by hand, or the exception Numba raises."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from ember import cfunc, float64, int64, jit, njit, objmode, types
from ember.core.runtime import rtsys
from ember.experimental import jitclass
from ember.typed import Dict, List


def _live_blocks() -> int:
    gc.collect()
    stats = rtsys.get_allocation_stats()
    return stats.alloc - stats.free


class _Raised(Exception):
    pass


# ---------------------------------------------------------------------------- first-class functions

_F8_F8 = types.FunctionType(float64(float64))


@cfunc("float64(float64)")
def _plus_one(x):
    return x + 1.0


@cfunc("float64(float64)")
def _twice(x):
    return x * 2.0


@njit
def _square(x):
    return x * x


def test_function_values_return_to_python_as_the_objects_they_came_from():
    @njit
    def identity(f):
        return f

    @njit
    def pick(first):
        if first:
            return _plus_one
        return _twice

    @njit(types.Tuple((_F8_F8, float64))(_F8_F8, float64))
    def with_result(f, x):
        return f, f(x)

    assert identity(_plus_one) is _plus_one
    assert pick(True) is _plus_one and pick(False) is _twice
    returned, value = with_result(_square, 3.0)
    assert returned is _square and value == 9.0
    returned, value = with_result(_twice, 3.0)
    assert returned is _twice and value == 6.0


def test_a_tuple_of_cfuncs_and_jitted_functions_can_be_looped_over():
    @njit
    def composition(funcs, x):
        r = x
        for f in funcs[::-1]:
            r = f(r)
        return r

    def expected(funcs, x):
        for f in funcs[::-1]:
            x = f(x)
        return x

    python_of = {_plus_one: _plus_one.__wrapped__, _square: _square.py_func}
    for funcs in [(_plus_one, _square, _square, _plus_one), (_square, _plus_one, _square)]:
        assert composition(funcs, 0.5) == expected([python_of[f] for f in funcs], 0.5)

    @njit
    def total(funcs, x):
        s = 0.0
        for f in funcs:
            s += f(x)
        return s

    add_one, times_ten = njit(lambda x: x + 1), njit(lambda x: x * 10)
    assert total((add_one, times_ten), 2.0) == 23.0


def test_a_conditional_choice_between_a_cfunc_and_a_jitted_function():
    @njit
    def apply(which, x):
        f = _plus_one if which else _square
        return f(x)

    assert (apply(True, 3.0), apply(False, 3.0)) == (4.0, 9.0)


def test_an_exception_in_a_jitted_function_called_through_a_function_type_reaches_the_caller():
    @njit
    def add(x, y):
        total = x + y
        if total > 100:
            raise _Raised(total)
        return total

    fnty = types.FunctionType(int64(int64, int64))

    @njit(int64(fnty))
    def accumulate(fn):
        c = 0
        for i in range(100):
            c = fn(c, i)
        return c

    @njit
    def through_global():
        return accumulate(add)

    def python_accumulate():
        c = 0
        for i in range(100):
            c = c + i
            if c > 100:
                return c
        return c

    for call in (lambda: accumulate(add), through_global):
        with pytest.raises(_Raised) as raised:
            call()
        assert raised.value.args == (python_accumulate(),)
    assert accumulate(njit(lambda x, y: x + y)) == sum(range(100))

    @njit(int64(fnty))
    def guarded(fn):
        c = 0
        for i in range(100):
            try:
                c = fn(c, i)
            except _Raised:
                c = -1000
        return c

    def python_guarded(fn):
        c = 0
        for i in range(100):
            try:
                c = fn(c, i)
            except _Raised:
                c = -1000
        return c

    assert guarded(add) == python_guarded(add.py_func)


def test_an_exception_in_a_cfunc_is_reported_as_unraisable_and_returns_zero(monkeypatch):
    @cfunc(int64(int64, int64))
    def checked(x, y):
        if x + y > 3:
            raise _Raised(x + y)
        return x + y

    @njit(int64(types.FunctionType(int64(int64, int64)), int64))
    def call(fn, x):
        return fn(x, 1)

    seen = []
    monkeypatch.setattr("sys.unraisablehook", lambda info: seen.append(info.exc_value))
    assert call(checked, 1) == 2
    assert call(checked, 5) == 0
    assert [type(e) for e in seen] == [_Raised] and seen[0].args == (6,)


# ---------------------------------------------------------------------------- objmode crossings


@jitclass([("x", types.float64)])
class _Point:
    def __init__(self, x):
        self.x = x


@jitclass([("n", types.int64)])
class _Counter:
    def __init__(self, n):
        self.n = n


_POINT = _Point.class_type.instance_type


def test_jitclass_instances_cross_objmode_blocks_as_the_same_object():
    @njit
    def bump_in_python(p):
        with objmode():
            p.x = p.x + 10.0
        return p.x

    @njit
    def made_in_python(v):
        with objmode(p=_POINT, n="int64"):
            p = _Point(v)
            n = 7
        return p.x + n

    @njit
    def round_trip(p):
        with objmode(q=_POINT):
            q = p
        q.x = 99.0
        return p.x

    before = _live_blocks()
    point = _Point(1.5)
    assert bump_in_python(point) == 11.5 and point.x == 11.5
    assert made_in_python(2.0) == 9.0
    assert round_trip(_Point(1.0)) == 99.0
    del point
    assert _live_blocks() == before


def test_an_objmode_output_of_the_wrong_jitclass_is_a_clear_error():
    @njit
    def wrong():
        with objmode(p=_POINT):
            p = _Counter(1)
        return p.x

    with pytest.raises(TypeError, match="output 'p' was declared as _Point"):
        wrong()


def test_typed_containers_cross_objmode_blocks_shared():
    @njit
    def grow(items):
        with objmode(n="int64"):
            items.append(2.5)
            n = len(items)
        return n

    items = List([1.5])
    assert grow(items) == 2 and list(items) == [1.5, 2.5]

    shared = List([1, 2])

    @njit
    def from_python():
        with objmode(r=types.ListType(types.int64)):
            r = shared
        r.append(5)
        return len(r)

    assert from_python() == 3 and list(shared) == [1, 2, 5]

    table = Dict.empty(types.int64, types.int64)

    @njit
    def fill(d):
        with objmode():
            d[3] = 9
        return d[3] + len(d)

    assert fill(table) == 10 and dict(table) == {3: 9}


# ---------------------------------------------------------------------------- print, errors


def test_print_of_a_jitclass_instance_shows_the_object(capsys):
    @njit
    def show(obj):
        print(obj, 1)

    instance = _Point(2.5)
    show(instance)
    print(instance, 1)
    first, second = capsys.readouterr().out.splitlines()
    # a new box of the same instance (as in Numba): the same class, another address
    assert first.split(" at ")[0] == second.split(" at ")[0] == f"{instance}".split(" at ")[0]
    assert first.endswith("> 1") and "_Point object" in first


def test_a_failed_compilation_does_not_keep_the_arguments_alive():
    @njit
    def no_such_field(obj):
        return obj.missing

    before = _live_blocks()
    for _ in range(2):  # the second call raises the kept error again
        instance = _Point(1.0)
        with pytest.raises(Exception, match="missing"):
            no_such_field(instance)
        del instance
    assert _live_blocks() == before


@jitclass([("x", types.float64), ("values", types.float32[:])])
class _Holder:
    def __init__(self, x, values):
        self.x = x
        self.values = values


def test_an_array_stored_in_a_jitclass_comes_back_as_the_same_ndarray():
    @njit
    def values_of(obj):
        return obj.values

    @njit
    def tail_of(obj):
        return obj.values[1:]

    values = np.arange(6, dtype=np.float32)
    holder = _Holder(1.0, values)
    assert holder.values is values
    assert all(values_of(holder) is values for _ in range(30))  # the generated entry too
    tail = tail_of(holder)
    tail[0] = 42.0  # a view: writes reach the stored array
    assert values[1] == 42.0 and tail_of(holder).shape == (5,)
    assert List([values])[0] is values


def test_arity_errors_use_numbas_wording_in_object_mode_and_with_star_args():
    def add_sub(x, y, z):
        return x - y + z

    def star(x, y=2, *z):
        return x, y, z

    forced, forced_star = jit(forceobj=True)(add_sub), jit(forceobj=True)(star)
    with pytest.raises(TypeError, match="too many arguments: expected 3, got 4"):
        forced(3, 4, y=6, z=7)
    with pytest.raises(TypeError, match="not enough arguments: expected 3, got 0"):
        forced()
    assert forced(3, z=10, y=4) == add_sub(3, z=10, y=4)
    for jitted in (forced_star, njit(star)):
        for args, kwargs in [((4, 5), {"y": 6}), ((4, 5), {"z": 6}), ((4,), {"x": 6})]:
            with pytest.raises(TypeError, match="some keyword arguments unexpected"):
                jitted(*args, **kwargs)
        assert jitted(4, 5, 6, 7) == star(4, 5, 6, 7)


def test_an_integer_converts_to_a_raw_pointer():
    @cfunc(types.voidptr(types.intp))
    def as_address(x):
        return x + 8

    assert as_address.ctypes(4096) == 4096 + 8


def test_a_declared_signature_reading_an_undefined_global_reports_the_name_at_the_call():
    namespace: dict = {}
    exec("def reads_later():\n    return later_name + 1\n", namespace)
    declared = njit(int64())(namespace["reads_later"])
    with pytest.raises(Exception, match="name 'later_name' is not defined"):
        declared()
    namespace["later_name"] = 41  # defined afterwards: the declared signature compiles
    assert declared() == 42


# ---------------------------------------------------------------------------- the array protocol


class _Labelled:
    """A pandas-like object holding an array (the extension's Python side)."""

    def __init__(self, data):
        self._data = data


class _LabelledType(types.Buffer):
    def __init__(self, dtype, layout):
        super().__init__(dtype, 1, layout, name=f"labelled({dtype}, {layout})")

    @property
    def as_array(self):
        return types.Array(self.dtype, 1, self.layout)

    def copy(self, dtype=None, ndim=1, layout=None):
        return _LabelledType(dtype or self.dtype, layout or self.layout)


def _register_labelled():
    from ember.extending import (
        NativeValue,
        box,
        lower_builtin,
        make_attribute_wrapper,
        models,
        register_model,
        type_callable,
        typeof_impl,
        unbox,
    )
    from ember.lowering import cgutils

    @typeof_impl.register(_Labelled)
    def _typeof(value, c):
        return _LabelledType(typeof_impl(value._data, c).dtype, "C")

    @register_model(_LabelledType)
    class _Model(models.StructModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, [("data", fe_type.as_array)])

    make_attribute_wrapper(_LabelledType, "data", "_data")

    @unbox(_LabelledType)
    def _unbox(typ, obj, c):
        data = c.pyapi.object_getattr_string(obj, "_data")
        made = cgutils.create_struct_proxy(typ)(c.context, c.builder)
        made.data = c.unbox(typ.as_array, data).value
        c.pyapi.decref(data)
        return NativeValue(made._getvalue())

    @box(_LabelledType)
    def _box(typ, val, c):
        made = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
        array = c.box(typ.as_array, made.data)
        cls = c.pyapi.unserialize(c.pyapi.serialize_object(_Labelled))
        result = c.pyapi.call_function_objargs(cls, (array,))
        c.pyapi.decref(array)
        c.pyapi.decref(cls)
        return result

    @lower_builtin("__array__", _LabelledType)
    def _as_array(context, builder, sig, args):
        made = cgutils.create_struct_proxy(sig.args[0])(context, builder, ref=args[0])
        return made._get_ptr_by_name("data")

    @type_callable("__array_wrap__")
    def _type_wrap(context):
        def typer(source, result):
            if isinstance(source, _LabelledType):
                return source.copy(dtype=result.dtype, layout=result.layout)

        return typer

    @lower_builtin("__array_wrap__", _LabelledType, types.Array)
    def _wrap(context, builder, sig, args):
        made = cgutils.create_struct_proxy(sig.return_type)(context, builder)
        made.data = args[1]
        return made._getvalue()


_register_labelled()


def test_an_extension_buffer_type_works_as_its_array_through_the_array_protocol():
    data = np.array([0.5, -1.25, 3.0, 2.0])
    labelled = _Labelled(data)

    @njit
    def length(x):
        return len(x)

    @njit
    def item(x, i):
        return x[i]

    @njit
    def sines(x):
        return np.cos(np.sin(x))

    assert length(labelled) == len(data)
    assert item(labelled, 2) == data[2]
    tail = item(labelled, slice(1, None))
    assert isinstance(tail, _Labelled) and list(tail._data) == list(data[1:])
    waved = sines(labelled)
    assert isinstance(waved, _Labelled)
    np.testing.assert_allclose(waved._data, np.cos(np.sin(data)), rtol=1e-15)


class _Greeter:
    pass


class _GreeterType(types.Opaque):
    pass


def _register_greeter():
    from ember.extending import NativeValue, lower_builtin, models, register_model, typeof_impl
    from ember.extending import unbox as register_unbox

    greeter_type = _GreeterType("greeter")
    typeof_impl.register(_Greeter)(lambda value, c: greeter_type)
    register_model(_GreeterType)(models.OpaqueModel)

    @register_unbox(_GreeterType)
    def _unbox(typ, obj, c):
        return NativeValue(c.context.get_dummy_value())

    @lower_builtin("print_item", _GreeterType)
    def _print_greeter(context, builder, sig, args):
        pyapi = context.get_python_api(builder)
        text = pyapi.unserialize(pyapi.serialize_object("hello!"))
        pyapi.print_object(text)
        pyapi.decref(text)
        return context.get_dummy_value()


_register_greeter()


def test_an_extension_type_prints_through_its_print_item_lowering(capsys):
    @njit
    def show(greeter, n):
        print(greeter)
        print(n, greeter, 2.5, sep="-")

    show(_Greeter(), 7)
    assert capsys.readouterr().out == "hello!\n7-hello!-2.5\n"


def _numpy_module():
    return np


def _register_numpy_module():
    from ember.extending import overload

    @overload(_numpy_module)
    def _impl():
        def impl():
            return np

        return impl


_register_numpy_module()


def test_a_compiled_callee_may_return_a_module_that_python_cannot_receive():
    @njit
    def through_overload(n):
        return _numpy_module().arange(n)

    @njit
    def module_of():
        return np

    @njit
    def through_callee(n):
        return module_of().ones(n)

    np.testing.assert_array_equal(through_overload(4), np.arange(4))
    np.testing.assert_array_equal(through_callee(3), np.ones(3))
    for _ in range(3):  # compiled for its caller, then called from Python
        with pytest.raises(TypeError, match="cannot convert native Module"):
            module_of()

    @njit
    def returns_module():
        return _numpy_module()

    with pytest.raises(TypeError, match="cannot convert native Module"):
        returns_module()


def test_function_types_take_and_return_arrays():
    rhs_type = types.FunctionType(types.float64[:](types.float64, types.float64[:]))

    @njit(types.float64[:](rhs_type, types.float64[:]))
    def euler(rhs, y):
        for _ in range(3):
            y = y + 0.1 * rhs(0.0, y)
        return y

    @njit
    def decay(t, y):
        return -y

    def python_euler(y):
        for _ in range(3):
            y = y + 0.1 * -y
        return y

    before = _live_blocks()
    start = np.array([1.0, 2.0])
    np.testing.assert_array_equal(euler(decay, start), python_euler(start))

    @cfunc("intp(intp[:], float64[:])")
    def first_sum(x, y):
        return x[0] + y[0]

    @cfunc("intp(intp[:], float64[:])")
    def first_difference(x, y):
        return x[0] - y[0]

    @njit
    def choose(plus, minus, which):
        f = plus if which else minus
        return f(np.array([10]), np.array([12.0]))

    assert (
        choose(first_sum, first_difference, True),
        choose(first_sum, first_difference, False),
    ) == (22, -2)
    assert _live_blocks() == before


class _Convertible:
    pass


class _Plain:
    pass


class _ConvertibleType(types.Opaque):
    def can_convert_to(self, context, to_type):
        if isinstance(to_type, types.Number):
            from ember.core.typeconv import Conversion

            return Conversion.safe
        return None


class _PlainType(types.Opaque):
    pass


def _register_operator_types():
    import operator

    from ember.extending import (
        NativeValue,
        lower_cast,
        models,
        overload,
        register_model,
        typeof_impl,
        unbox,
    )

    for python_class, type_class, name in [
        (_Convertible, _ConvertibleType, "convertible"),
        (_Plain, _PlainType, "plain"),
    ]:
        instance = type_class(name)
        typeof_impl.register(python_class)(lambda value, c, instance=instance: instance)
        register_model(type_class)(models.OpaqueModel)
        unbox(type_class)(lambda typ, obj, c: NativeValue(c.context.get_dummy_value()))

    @lower_cast(_ConvertibleType, types.Number)
    def _to_number(context, builder, from_type, to_type, value):
        return context.get_constant(to_type, 21)

    for op in (operator.add, operator.iadd):

        @overload(op)
        def _add(a, b):
            if isinstance(a, (_ConvertibleType, _PlainType)) and isinstance(
                b, (_ConvertibleType, _PlainType)
            ):
                return lambda a, b: 1000


_register_operator_types()


def test_number_rules_come_before_an_operator_overload_as_in_numba():
    @njit
    def plus(a, b):
        return a + b

    @njit
    def plus_equals(a, b):
        a += b
        return a

    for jitted in (plus, plus_equals):
        assert jitted(1, 2) == 3
        assert jitted(_Plain(), _Plain()) == 1000  # only the overload takes it
        assert jitted(_Convertible(), _Convertible()) == 21 + 21  # converts to a number first


def test_inspect_cfg_gives_one_graph_per_signature():
    @njit
    def total(values):
        s = 0.0
        for v in values:
            if v > 0:
                s += v
        return s

    total(np.ones(2))
    total(np.ones(2, dtype=np.int64))
    graphs = total.inspect_cfg()
    assert set(graphs) == set(total.signatures)
    one = total.inspect_cfg(signature=total.signatures[0])
    assert str(one).startswith('digraph "CFG for ') and str(one) == one.dot
    assert one.dot.count("->") >= 2  # a loop and a branch: more than one edge
    assert callable(one.display)


def test_a_declared_return_type_that_cannot_hold_the_value_is_a_typing_error():
    from ember.errors import TypingError

    with pytest.raises(TypingError, match=r"No conversion from array\(int32, 1d, C\) to float32"):
        njit(types.float32(types.Array(types.int32, 1, "C")))(lambda x: x)
    assert njit(types.int8(types.float64))(lambda x: x)(3.7) == int(np.int8(3.7))


def _make_doubler():
    from ember.extending import intrinsic

    @intrinsic
    def doubled(typingctx, x):
        def codegen(context, builder, signature, args):
            return builder.add(args[0], args[0])

        return x(x), codegen

    @njit
    def use(x):
        return doubled(x)

    return use


def test_a_jitted_function_using_a_local_intrinsic_pickles_by_value():
    import pickle
    import subprocess
    import sys

    use = _make_doubler()
    assert use(21) == 42
    rebuilt = pickle.loads(pickle.dumps(use))
    assert rebuilt(5) == 10
    child = "import pickle, sys; print(pickle.loads(sys.stdin.buffer.read())(7))"
    done = subprocess.run(
        [sys.executable, "-c", child], input=pickle.dumps(use), capture_output=True, check=True
    )
    assert done.stdout.decode().strip() == "14"
