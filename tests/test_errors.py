"""Issue 2: compile-time errors read well. A TypingError names the file and line, shows the
source line with a caret, names the variable and the clashing types, and ends with the one-line
cause; unsupported constructs name themselves; bad calls raise TypeError as Python does."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ember import njit
from ember.errors import EmberError, TypingError, UnsupportedError

THIS_FILE = __file__


def line_of(func, text: str) -> int:
    """The line number in this file of the first line of `func` containing `text`."""
    import inspect

    lines, first = inspect.getsourcelines(func)
    for offset, line in enumerate(lines):
        if text in line:
            return first + offset
    raise AssertionError(f"{text!r} not in {func.__name__}")


def compile_error(func, *args) -> EmberError:
    with pytest.raises(EmberError) as info:
        njit(func)(*args)
    return info.value


def assert_short(error: Exception) -> None:
    """A few lines of message, and no chained internal exception behind it."""
    message = str(error)
    assert len(message.splitlines()) <= 10, message
    assert "Traceback" not in message and "ember/" not in message.replace(THIS_FILE, "")
    assert error.__cause__ is None
    assert error.__suppress_context__ or error.__context__ is None


# ---------------------------------------------------------------------------- typing errors


def int_then_tuple(n):
    x = 1
    if n > 0:
        x = (1, 2)
    return x


def test_unification_error_names_file_line_source_variable_and_types():
    error = compile_error(int_then_tuple, 1)
    assert isinstance(error, TypingError)
    message = str(error)
    lines = message.splitlines()
    tuple_line = line_of(int_then_tuple, "x = (1, 2)")
    int_line = line_of(int_then_tuple, "x = 1")
    assert lines[0] == "Compiling int_then_tuple(int64) failed in type inference:"
    assert lines[1] == f'File "{THIS_FILE}", line {tuple_line}:'
    assert lines[2] == "    x = (1, 2)"
    assert lines[3].strip() == "^"  # the caret under the assigned variable
    assert lines[3].index("^") == lines[2].index("x")
    assert f"'x' is int64 at line {int_line}" in message
    assert f"'x' is UniTuple(int64 x 2) at line {tuple_line}" in message
    assert lines[-1] == "Cannot unify int64 and UniTuple(int64 x 2) for variable 'x'"
    assert "int_then_tuple(int64)" in message  # which compilation failed
    assert_short(error)


def unknown_attribute(n):
    return n.foo


def unknown_module_attribute(n):
    return math.no_such_function(n)


UNTYPED = object()


def untyped_global(n):
    return UNTYPED


def wrong_operand_types(n):
    return math.sqrt(n, n)


def returns_a_module(n):
    return math


def test_unknown_attribute_is_a_typing_error():
    error = compile_error(unknown_attribute, 1)
    assert isinstance(error, TypingError)
    assert str(error).splitlines()[-1] == "Unknown attribute 'foo' of type int64"
    assert f"line {line_of(unknown_attribute, 'n.foo')}" in str(error)
    assert_short(error)
    error = compile_error(unknown_module_attribute, 1)
    assert "Unknown attribute 'no_such_function' of type Module(math)" in str(error)


def test_untyped_global_names_the_global_and_its_python_type():
    error = compile_error(untyped_global, 1)
    assert isinstance(error, TypingError)
    assert str(error).splitlines()[-1] == (
        "Untyped global name 'UNTYPED': cannot use a value of Python type object in nopython mode"
    )
    assert "    return UNTYPED" in str(error).splitlines()
    assert_short(error)


def test_no_implementation_lists_the_argument_types():
    error = compile_error(wrong_operand_types, 2)
    message = str(error)
    assert message.splitlines()[-1] == (
        "No implementation of function math.sqrt for argument types (int64, int64)"
    )
    assert "'n' is int64" in message and message.count("'n' is int64") == 1
    assert_short(error)


def test_returning_a_compile_time_only_value_is_an_error():
    error = compile_error(returns_a_module, 1)
    assert isinstance(error, TypingError)
    last = str(error).splitlines()[-1]
    assert "Cannot return a value of type" in last and "math" in last


# ---------------------------------------------------------------------------- unsupported


def set_comprehension(n):
    return {i for i in range(n)}


def generator_expression(n):
    return sum((lambda: i)() for i in range(n))


def lambda_or_number(n):
    f = (lambda y: y + 1) if n else n
    return f(n)


def returns_inner_function(n):
    def g(y):
        nonlocal n
        n += y
        return n

    return g


def with_block(n):
    with open(__file__):
        return n


def set_display(n):
    return {n}


def dict_display(n):
    return {n: n}


def assigns_global(n):
    global SOMETHING
    SOMETHING = n
    return n


@pytest.mark.parametrize(
    ("func", "construct", "marker"),
    [
        (generator_expression, "a generator expression that defines a function", "sum(("),
        (lambda_or_number, "holds an inner function on some paths", "return f(n)"),
        (with_block, "a 'with' block", "with open"),
        (assigns_global, "assigning a global variable", "SOMETHING = n"),
    ],
    ids=lambda value: getattr(value, "__name__", None),
)
def test_unsupported_constructs_name_themselves_and_their_line(func, construct, marker):
    error = compile_error(func, 1)
    assert isinstance(error, UnsupportedError)
    message = str(error)
    assert construct in message.splitlines()[-1]
    assert message.splitlines()[0].startswith(f"Compiling {func.__name__}(int64) failed in ")
    assert message.splitlines()[1] == f'File "{THIS_FILE}", line {line_of(func, marker)}:'
    assert_short(error)


def test_a_returned_closure_over_a_run_time_value_names_the_value_and_its_line():
    """A returned inner function that assigns what it closes over (nonlocal) is compiled on its
    own, so it may close over constants only; Numba's words, with the line of the `return`."""
    error = compile_error(returns_inner_function, 1)
    assert isinstance(error, TypingError)
    message = str(error)
    assert "Cannot capture the non-constant value associated with variable 'n'" in message
    assert f'File "{THIS_FILE}", line {line_of(returns_inner_function, "return g")}:' in message


# ---------------------------------------------------------------------------- bad calls


@njit
def add(a, b):
    return a + b


def plain_add(a, b):
    return a + b


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((1,), {}), ((1, 2, 3), {}), ((1, 2), {"a": 1}), ((), {"b": 2})],
)
def test_wrong_arguments_raise_type_error_like_python(args, kwargs):
    with pytest.raises(TypeError) as python:
        plain_add(*args, **kwargs)
    with pytest.raises(TypeError) as jitted:
        add(*args, **kwargs)
    message = str(jitted.value)
    assert message.startswith("add()")
    quoted = [word for word in str(python.value).split() if word.startswith("'")]
    for name in quoted:  # the argument Python names, e.g. 'b'
        assert name.strip(":") in message


def test_unexpected_keyword_raises_type_error():
    with pytest.raises(TypeError, match=r"^add\(\)"):
        add(1, c=2)


@pytest.mark.parametrize(("args", "name", "kind"), [((object(), 1), "a", "object")])
def test_unsupported_argument_type_names_the_argument(args, name, kind):
    with pytest.raises(TypeError) as info:
        add(*args)
    first, *numba_lines = str(info.value).splitlines()
    assert f"argument '{name}'" in first and f"type {kind}" in first
    # then Numba's wording, which programs written for Numba look for
    assert numba_lines[-1] == f"- argument 0: Cannot determine Numba type of <class '{kind}'>"


@pytest.mark.parametrize(
    ("values", "says"),
    [
        (np.array(["a", "b"], dtype=">U1"), r">U1 \(strings\): .*astype\('U1'\)"),
        (np.array([None, 1]), r"object \(Python objects\)"),
        (np.zeros(2, np.float16), r"float16 .*astype\(np.float32\)"),
        (np.array(["2020-01-01"], dtype="M8[2D]"), r"datetime64\[2D\] .*view\(np.int64\)"),
    ],
)
def test_unsupported_dtype_names_the_argument(values, says):
    @njit
    def first(samples):
        return samples[0]

    first(np.arange(3.0))
    with pytest.raises(TypingError, match=rf"first\(\): .*argument 'samples': .*{says}"):
        first(values)
