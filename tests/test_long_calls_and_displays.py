"""Calls of more than 30 arguments or many keywords, and dict displays of more than 16 items:
CPython 3.11 compiles them to other opcodes (CALL_FUNCTION_EX, MAP_ADD, DICT_UPDATE)."""

import pytest

from ember import njit
from ember.errors import UnsupportedError
from ember.typed import Dict


def _define(source: str, **names) -> dict:
    namespace = {"njit": njit, **names}
    exec(source, namespace)
    return namespace


def _params(count: int, prefix: str = "a") -> str:
    return ", ".join(f"{prefix}{i}" for i in range(count))


@pytest.mark.parametrize("count", [31, 35, 64])
def test_call_with_many_positional_arguments(count):
    names = _define(
        f"@njit\ndef callee({_params(count)}):\n"
        f"    return {' + '.join(f'a{i} * {i + 1}' for i in range(count))}\n"
        f"def caller({_params(count)}):\n    return callee({_params(count)})\n"
    )
    args = [float(i) - 7.5 for i in range(count)]
    expected = sum(a * (i + 1) for i, a in enumerate(args))
    assert njit(names["caller"])(*args) == expected


def test_call_with_many_keywords_and_positionals():
    keywords = ", ".join(f"k{i}=x * {i}" for i in range(20))
    names = _define(
        f"@njit\ndef callee(a, b, {_params(20, 'k')}):\n"
        f"    return a - b + {' + '.join(f'k{i} * {i % 3}' for i in range(20))}\n"
        f"def caller(x):\n    return callee(1, x, {keywords})\n"
    )
    for x in (0, 3, -11):
        assert njit(names["caller"])(x) == names["caller"](x)


def test_keywords_out_of_order_with_defaults():
    keywords = ", ".join(f"k{i}={i}" for i in reversed(range(0, 20, 2)))
    names = _define(
        f"@njit\ndef callee(x, {', '.join(f'k{i}=-{i}' for i in range(20))}):\n"
        f"    return x + {' + '.join(f'k{i} * {i + 1}' for i in range(20))}\n"
        f"def caller(x):\n    return callee(x, {keywords})\n"
    )
    assert njit(names["caller"])(5) == names["caller"](5)


def test_long_dict_display_of_mixed_constants_keeps_each_value():
    items = ", ".join(f"'k{i}': {i}.5" if i % 2 else f"'k{i}': {i}" for i in range(20))
    body = "return d['k3'] + x, d['k4'] + x, len(d)"
    names = _define(f"def f(x):\n    d = {{{items}}}\n    {body}\n")
    for x in (1, -2):
        assert njit(names["f"])(x) == names["f"](x)


def test_long_dict_display_of_variables():
    items = ", ".join(f"{i}: x * {i}" for i in range(25))
    names = _define(f"def f(x):\n    d = {{{items}}}\n    return d[3] + d[24], len(d), 25 in d\n")
    assert njit(names["f"])(2.5) == names["f"](2.5)


def test_long_dict_display_with_repeated_keys_keeps_the_last():
    items = ", ".join(f"'k{i % 9}': {i}" for i in range(30))
    names = _define(f"def f():\n    d = {{{items}}}\n    return d['k0'], d['k8'], len(d)\n")
    assert njit(names["f"])() == names["f"]()


def test_display_merging_another_dict_keeps_the_order_of_updates():
    def merge(other):
        d = {"a": 1, **other, "b": 2}
        return d["a"], d["b"], d["c"], len(d)

    other = Dict()
    other["c"] = 7
    other["a"] = 5
    assert njit(merge)(other) == merge({"c": 7, "a": 5})


def test_long_call_with_a_conditional_argument_is_refused_clearly():
    args = _params(33)
    names = _define(
        f"@njit\ndef callee({args}):\n    return a0\n"
        f"def caller({args}, c):\n    return callee({args.replace('a5', 'a5 if c else a6')})\n"
    )
    with pytest.raises(UnsupportedError, match="more than 30 arguments"):
        njit(names["caller"])(*range(33), True)
