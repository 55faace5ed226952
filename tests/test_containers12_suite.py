"""containers12: bytes iterate as ints wherever an iterable goes (sum, min, max, sorted, zip...),
bytes.fromhex, `xs[a:b] = <any iterable>`, dict keys/items views compared as sets,
str.maketrans (with translate), `%*d` / `%.*f` (a '*' width or precision argument) and CPython's
messages for ord() and wrong-size extended slices; each checked against CPython running the
same function."""

# ruff: noqa: UP031, UP032, F507 - the % formats and str.format calls are under test

import pytest

import ember
from ember.errors import TypingError
from tests.oracle import assert_frees_all


def _outcome(func, *args):
    """func(*args), or the type and message of the exception it raised."""
    try:
        return func(*args)
    except Exception as error:  # noqa: BLE001 - the outcome is compared, whatever it is
        return type(error), str(error)


def _agrees(func, cases):
    """The jitted `func` gives CPython's outcome (value, or exception type and message) for
    every argument tuple of `cases`."""
    jitted = ember.njit(func)
    for args in cases:
        assert _outcome(jitted, *args) == _outcome(func, *args), args
    return jitted


# ---------------------------------------------------------------------------- bytes


def _bytes_reductions(b):
    it = iter(b)
    first = next(it, -1)
    return (
        sum(b),
        max(b, default=-1),
        min(b, default=-1),
        sorted(b),
        list(enumerate(b))[:2],
        list(zip(b, "abc")),
        any(b),
        all(b),
        "".join(map(chr, b)),
        len(set(b)),
        first,
        [code for code in it],
    )


def test_bytes_iterate_as_ints_for_every_builtin_that_takes_an_iterable():
    cases = [(b"hello",), (b"",), (b"\x00\xff\x80 z",), (bytes(range(0, 256, 7)),)]
    jitted = _agrees(_bytes_reductions, cases)
    assert_frees_all(jitted, lambda: b"reductions", calls=50)


def _from_hex(text):
    return bytes.fromhex(text)


def test_bytes_fromhex_skips_whitespace_and_names_the_bad_position():
    cases = [("4142 43",), ("",), ("0a0B ff\t\n",), ("zz",), ("123",), (" 1 2",), ("a g",)]
    cases += [(" ".join(f"{k:02x}" for k in range(256)),), ("é0",), ("  ",)]
    _agrees(_from_hex, cases)


# ---------------------------------------------------------------------------- lists


def _assign_slices(xs, text):
    a = list(xs)
    a[1:3] = (7, 8, 9)
    b = list(xs)
    b[:0] = range(3)
    c = [str(x) for x in xs]
    c[1:] = text
    d = list(xs)
    d[::2] = [x * 10 for x in range(len(d[::2]))]
    e = list(xs)
    e[-2:] = {5: 0, 6: 1}.keys()
    f = [1.5, 2.5]
    f[:1] = [1, 2]  # ints stored as floats, as a float list keeps them
    g = list(xs)
    g[::-1] = reversed(xs)
    return a, b, c, d, e, f, g


def test_slice_assignment_takes_any_iterable_of_fitting_items():
    cases = [([1, 2, 3, 4], "xy"), ([5], ""), ([1, 2, 3, 4, 5, 6, 7], "abc")]
    jitted = _agrees(_assign_slices, cases)
    assert_frees_all(jitted, lambda: [1, 2, 3, 4], lambda: "xyz", calls=50)


def _assign_extended(xs, values):
    xs[::2] = values
    return xs


def test_extended_slice_of_the_wrong_size_says_both_sizes():
    jitted = ember.njit(_assign_extended)
    with pytest.raises(ValueError) as raised:
        jitted([1, 2, 3, 4], (1, 2, 3))
    with pytest.raises(ValueError) as expected:
        _assign_extended([1, 2, 3, 4], (1, 2, 3))
    assert str(raised.value).startswith(str(expected.value))  # then Numba's words
    assert jitted([1, 2, 3, 4], (8, 9)) == [8, 2, 9, 4]


# ---------------------------------------------------------------------------- dict views


def _views_compared(n):
    a = {i: i * 2 for i in range(n)}
    b = {i: i * 2 for i in range(n - 1, -1, -1)}
    c = {i: i for i in range(n)}
    return (
        a.keys() == b.keys(),
        a.items() == b.items(),
        a.items() == c.items(),
        a.keys() == c.keys(),
        a.keys() != {0, 1},
        a.keys() == set(range(n)),
        set(range(n)) == a.keys(),
        a.items() != c.items(),
        a.keys() == {0: 1}.keys(),
    )


def test_keys_and_items_views_compare_as_sets():
    _agrees(_views_compared, [(0,), (1,), (3,), (17,)])


# ---------------------------------------------------------------------------- strings


def _translated(s, x, y, z):
    deleting = str.maketrans(x, y, z)
    mapping = str.maketrans(x, y)
    by_chars = str.maketrans({"a": "xy", "b": "", "é": None})
    by_codes = s.maketrans({98: 66, 99: 67})
    by_strings = str.maketrans({"l": "L", "o": "0"})
    return (
        s.translate(deleting),
        s.translate(mapping),
        s.translate(by_chars),
        s.translate(by_codes),
        s.translate(by_strings),
        len(deleting),
        sorted(mapping.items()),
    )


def test_maketrans_in_its_three_forms_feeds_translate():
    cases = [
        ("hello world", "lo", "01", "wh"),
        ("abcabc é", "a", "b", ""),
        ("", "", "", "xyz"),
        ("mixed €uro", "€u", "EU", "o"),
        ("x", "ab", "c", ""),  # refused: the first two differ in length
    ]
    jitted = _agrees(_translated, cases)
    assert_frees_all(jitted, lambda: "hello", lambda: "lo", lambda: "01", lambda: "h", calls=50)


def _ord(s):
    return ord(s)


def test_ord_of_a_string_not_one_long_says_its_length():
    _agrees(_ord, [("",), ("ab",), ("é",), ("€€€",)])


def test_a_float_string_index_is_a_typing_error_naming_it():
    with pytest.raises(TypingError, match="string indices must be integers, not float64"):
        ember.njit(lambda s, i: s[i])("abc", 1.0)


def _starred(n, x, s):
    return (
        "[%*d]" % (n, 7),
        "[%-*d]" % (n, 7),
        "[%0*d]" % (n, -7),
        "[%.*d]" % (n, 7),
        "[%+0*.*f]" % (n + 6, n, x),
        "[%*s]" % (n, s),
        "[%.*s]" % (n, s),
        "[%*c]" % (n, 65),
        "[%#*x|%*i]" % (n * 2, 255, -n, n),
    )


def test_percent_formatting_takes_star_widths_and_precisions():
    cases = [
        (3, 2.5, "abc"),
        (-4, -1.25, "x"),
        (0, 0.0, ""),
        (12, 1e300, "wide é"),
        (-1, -0.0, "é"),
    ]
    _agrees(_starred, cases)


def _star_needs_an_int(w):
    return "%*d" % (w, 3)


def _star_needs_an_argument(w):
    return "%*d" % (w,)


def test_percent_star_errors_are_cpythons():
    _agrees(_star_needs_an_int, [(2.0,)])
    _agrees(_star_needs_an_argument, [(2,)])


def _fields_with_accessors(xs, x, text):
    d = {"k": 3, "j": 4}
    t = (1, "b")
    return (
        "{0[2]:>4}|{1.real}|{1.imag}|{2[k]}|{3[1]}|{a[0]}".format(xs, x, d, t, a=xs),
        "{[1]}".format(t),
        "{}|{!r}|{}|{!s:>12}".format(xs, t, d, xs),
        format(xs),
        format(t, ""),
        format(None),
        "{0[0]}{0[1]}".format(text),
    )


def _list_with_a_spec(xs):
    return "{:>5}".format(xs)


def test_str_format_fields_index_and_take_attributes_and_containers_format_as_str():
    _agrees(_fields_with_accessors, [([1, 2, 3], 2.5, "ab"), ([-7], -0.0, "é€")])
    _agrees(_list_with_a_spec, [([1, 2],)])


def _comprehension_then_narrower_stores(xs):
    a = [float(x) for x in xs]
    a.extend([1, 2])
    b = [x * 0.5 for x in xs]
    b[:1] = [7]
    c = [x for x in xs]
    c.extend([1.5])
    c += [2]
    d = []
    d.extend([1, 2])
    for x in xs:
        d.append(x / 4)
    return a, b, c, d


def test_a_list_typed_by_a_narrower_store_first_holds_the_wider_numbers():
    jitted = ember.njit(_comprehension_then_narrower_stores)
    for xs in ([1, 2, 3], [-5]):
        got, want = jitted(list(xs)), _comprehension_then_narrower_stores(list(xs))
        assert got == want  # the same values (the compiled lists hold them as floats)
        assert all(isinstance(item, float) for row in got for item in row)
