"""bytes and printf-style formatting against CPython: bytes methods (ASCII case and whitespace
rules on bytes with high bytes), `bytes.decode`/`str.encode` with CPython's errors, items of
NumPy 'S' arrays, `fmt % args`, `ascii()`, `str(object=x)`, complex64 text, Numba's wording
for str methods given wrong argument types, and the runtime's block counts around them."""

# ruff: noqa: UP031, UP018, F501, F507, F509 - the % formats and str() calls are under test

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from ember.errors import TypingError
from ember.runtime import nrt

# bytes that str and bytes treat differently: high bytes (letters in Latin-1), the whitespace
# only str sees (\x1c-\x1f, \x85, \xa0) and the line breaks only str splits at (\x0b, \x0c)
BYTES = st.binary(max_size=14) | st.lists(
    st.sampled_from(list(b"aZ9 _-\t\n\r\x0b\x0c\x1c\x1f\x85\xa0\xe9\xc9\xdf\xff")), max_size=14
).map(bytes)
NEEDLES = st.sampled_from([b"a", b" ", b"\xe9", b"ab", b"\xe9a", b"-"])
FEW = settings(max_examples=25, deadline=None)


def _live_blocks() -> int:
    gc.collect()
    stats = nrt.stats()
    return stats.alloc - stats.free


def _outcome(func, *args):
    """What calling `func` gives: its value, or its exception's class, text and arguments."""
    try:
        return func(*args)
    except Exception as error:  # noqa: BLE001 - compared as data
        return type(error), str(error), error.args


# ---------------------------------------------------------------------------- bytes methods


def _searching(b, sub):
    return (
        b.find(sub),
        b.rfind(sub, 1),
        b.count(sub),
        b.find(sub[0]),
        b.count(sub, 0, -1),
        b.startswith(sub),
        b.endswith(sub, 0, 5),
        b.startswith((b"x", sub)),
        b.partition(sub),
        b.rpartition(sub),
        b.split(sub),
        b.rsplit(sub, 1),
        b.replace(sub, b"<>"),
        b.replace(sub, b"", 1),
        b.removeprefix(sub),
        b.removesuffix(sub),
        b.strip(sub),
        b.lstrip(sub),
        b.rstrip(sub),
        sub in b,
    )


def _ascii_rules(b):
    return (
        b.upper(),
        b.lower(),
        b.swapcase(),
        b.title(),
        b.capitalize(),
        (b.isalpha(), b.isdigit(), b.isalnum(), b.isspace()),
        (b.isupper(), b.islower(), b.istitle(), b.isascii()),
        b.split(),
        b.rsplit(None, 1),
        b.split(maxsplit=1),
        b.splitlines(),
        b.splitlines(True),
        b.strip(),
        b.lstrip(),
        b.rstrip(),
    )


def _layout(b):
    return (
        b.center(9),
        b.ljust(8, b"*"),
        b.rjust(7, b"\xe9"),
        b.zfill(6),
        b.expandtabs(4),
        b.hex(),
        b"-".join([b, b"\xff"]),
        b.join((b"x", b"y")),
        bool(b),
        not b,
        bytes(b),
    )


_SEARCHING, _ASCII_RULES, _LAYOUT = njit(_searching), njit(_ascii_rules), njit(_layout)


@FEW
@given(BYTES, NEEDLES)
def test_bytes_search_split_replace_match_python(b, sub):
    assert _SEARCHING(b, sub) == _searching(b, sub)


@FEW
@given(BYTES)
def test_bytes_case_and_whitespace_follow_ascii_rules(b):
    assert _ASCII_RULES(b) == _ascii_rules(b)


def test_high_bytes_are_no_letters_nor_spaces():
    # what str would do differently: 'É'.lower() == 'é', '\xa0' is whitespace to str
    b = b"\xc9t\xe9 \xa0x\x85"
    assert _ASCII_RULES(b) == _ascii_rules(b)
    assert _ASCII_RULES(b)[0] == b"\xc9T\xe9 \xa0X\x85"


@FEW
@given(BYTES)
def test_bytes_padding_join_and_truth_match_python(b):
    assert _LAYOUT(b) == _layout(b)


def test_bytes_method_errors_match_python():
    index = njit(lambda b, s: b.index(s))
    split = njit(lambda b, s: b.split(s))
    find_byte = njit(lambda b, n: b.find(n))
    center = njit(lambda b, f: b.center(5, f))
    for func, args in [
        (index, (b"abc", b"z")),
        (split, (b"abc", b"")),
        (find_byte, (b"abc", 256)),
        (center, (b"abc", b"xy")),
    ]:
        assert _outcome(func, *args) == _outcome(func.py_func, *args)


@njit
def _bytes_text(b):
    return repr(b), str(b), "%s|%r" % (b, b), f"{b!r}", str([b, b])


@FEW
@given(BYTES | st.sampled_from([b"it's", b'say "x" it\'s', b"\\\x7f"]))
def test_bytes_repr_matches_python(b):
    assert _bytes_text(b) == _bytes_text.py_func(b)


# ---------------------------------------------------------------------------- codecs


def _decodings(b):
    return (
        _outcome(lambda: b.decode()),
        b.decode("utf-8", "replace"),
        b.decode("utf8", "ignore"),
        _outcome(lambda: b.decode("ascii")),
        b.decode("ascii", "replace"),
        b.decode("latin-1"),
    )


@njit
def _decode_all(b):
    return (
        b.decode("utf-8", "replace"),
        b.decode("utf8", "ignore"),
        b.decode("ascii", "replace"),
        b.decode("ascii", "ignore"),
        b.decode("latin-1"),
    )


@njit
def _decode_strict(b):
    return b.decode()


@njit
def _decode_ascii(b):
    return b.decode("ascii")


UTF8_EDGES = [
    b"\xc3",  # truncated 2-byte sequence
    b"\xe2\x82",  # truncated 3-byte sequence
    b"\xe2\x28\xa1",  # bad continuation
    b"\xed\xa0\x80",  # a surrogate
    b"\xf0\x80\x80",  # overlong
    b"\xf4\x90\x80\x80",  # beyond U+10FFFF
    b"\xc0\xaf",  # overlong slash
    b"x\xe2\x82y\xff",
    "é€😀".encode(),
]


@FEW
@given(st.binary(max_size=12) | st.sampled_from(UTF8_EDGES))
def test_decode_matches_python_with_its_errors(b):
    expected = (
        b.decode("utf-8", "replace"),
        b.decode("utf8", "ignore"),
        b.decode("ascii", "replace"),
        b.decode("ascii", "ignore"),
        b.decode("latin-1"),
    )
    assert _decode_all(b) == expected
    assert _outcome(_decode_strict, b) == _outcome(_decode_strict.py_func, b)
    assert _outcome(_decode_ascii, b) == _outcome(_decode_ascii.py_func, b)


@njit
def _round_trip(s):
    encoded = s.encode("utf-8")
    return encoded, encoded.decode("utf-8"), s.encode("latin-1", "replace")


@FEW
@given(st.text(alphabet="aZ é€😀\x00\xff", max_size=10))
def test_encode_decode_round_trip_matches_python(s):
    assert _round_trip(s) == (s.encode(), s, s.encode("latin-1", "replace"))


def test_encode_error_names_the_character():
    encode = njit(lambda s: s.encode("ascii"))
    assert _outcome(encode, "abé") == _outcome(encode.py_func, "abé")


# ---------------------------------------------------------------------------- 'S' arrays


@njit
def _array_items(x, y, i, j):
    a, b = x[i], y[j]
    return (
        a.upper(),
        a.find(b),
        a.split(b),
        a.strip(),
        a.center(8, b),
        a < b,
        a == b,
        not a,
        bytes(a),
        a.decode("latin-1"),
    )


def test_s_array_items_take_bytes_methods():
    x = np.array([b"ab c\xe9", b"", b" 1 2 "])
    y = np.array([b" ", b"="])
    for i in range(3):
        for j in range(2):
            assert _array_items(x, y, i, j) == _array_items.py_func(x, y, i, j)


# ---------------------------------------------------------------------------- % formatting


@njit
def _percent_numbers(n, x):
    return (
        "%d items, %.3f" % (n, x),
        "%5d|%-5d|%05d|%+d|% d|%.3d" % (n, n, n, n, n, n),
        "%x|%X|%#x|%o|%#o" % (abs(n), abs(n), abs(n), abs(n), abs(n)),
        "%e|%E|%g|%G|%10.4f|%-10.2e|%+.1f|% 08.2f|%#.0f" % (x, x, x, x, x, x, x, x, x),
        "%d %i" % (x, x),
        "%5.2f%%" % x,
    )


@FEW
@given(st.integers(-(10**12), 10**12), st.floats(allow_nan=False, width=64))
def test_percent_numbers_match_python(n, x):
    if abs(x) < 1e18:  # %d of a huge float: an int beyond int64
        assert _percent_numbers(n, x) == _percent_numbers.py_func(n, x)


@njit
def _percent_text(s, n):
    return (
        "%s!" % s,
        "[%10s|%-10s|%.2s]" % (s, s, s),
        "%r %a" % (s, s),
        "%5r" % s,
        "%c%c" % (n, "z"),
        "%s and %s" % (n, [n, n]),
    )


@FEW
@given(st.text(alphabet="ab'\"é€😀\n", max_size=8), st.integers(0, 0x10FFFF))
def test_percent_text_matches_python(s, n):
    assert _percent_text(s, n) == _percent_text.py_func(s, n)


def test_percent_nan_inf_and_mapping_keys():
    special = njit(lambda x: "%f|%5.1e|%g|%08.2f" % (x, x, x, x))
    for x in (float("inf"), float("-inf"), float("nan")):
        assert special(x) == special.py_func(x)
    keyed = njit(lambda a, b: "%(a)s-%(b)05.1f" % {"a": a, "b": b})
    assert keyed(1.5, 2.25) == keyed.py_func(1.5, 2.25)


@pytest.mark.parametrize(
    "func, args",
    [
        (lambda a: "%d %d" % (a,), (1,)),
        (lambda a: "%d" % (a, a), (1,)),
        (lambda a: "no directive" % a, (1,)),
        (lambda a: "%d" % a, ("x",)),
        (lambda a: "%x" % a, (1.5,)),
        (lambda a: "%f" % a, ("x",)),
        (lambda a: "%c" % a, ("ab",)),
        (lambda a: "%c" % a, (0x110000,)),
        (lambda a: "%y" % a, (1,)),
        (lambda a: "%" % a, (1,)),
    ],
)
def test_percent_errors_match_python(func, args):
    expected = _outcome(func, *args)
    got = _outcome(njit(func), *args)
    assert got[:2] == expected[:2]


# ---------------------------------------------------------------------------- text


def test_ascii_and_f_string_a_conversion():
    text = "aé\u1234\U0001f600'\n"
    f = njit(lambda s, n: (ascii(s), f"{s!a}|{n!a}", ascii([s, s]), "%a" % s))
    assert f(text, 3) == f.py_func(text, 3)


def test_str_with_object_keyword():
    f = njit(lambda x, s: (str(object=x), str(object=s), str()))
    assert f(12, "é") == ("12", "é", "")


_COMPLEX_TEXT = njit(lambda z: (str(z), f"{z}"))


@pytest.mark.parametrize("z", [0.1 + 0.2j, 1234567 + 1e-5j, 2j, complex(0, -0.0), 1 + 1e20j])
def test_complex64_text_uses_float32_digits(z):
    value = np.complex64(z)
    assert _COMPLEX_TEXT(value) == (str(value), f"{value}")
    assert _COMPLEX_TEXT(z) == (str(z), f"{z}")


@njit
def _nested_specs(x, s, n, p):
    return f"{x:+{n}.{p}f}|{x:0{n},.{p}e}|{s:^{n}.{p}}|{n:*<#{n}x}"


@FEW
@given(
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(alphabet="ab é€😀", max_size=6),
    st.integers(0, 12),
    st.integers(0, 4),
)
def test_nested_format_specs_match_python(x, s, n, p):
    assert _nested_specs(x, s, n, p) == _nested_specs.py_func(x, s, n, p)


def test_runtime_spec_errors_match_python():
    f = njit(lambda x, spec: format(x, spec))
    for x in (42, -3.75, "abc"):
        for spec in ("Q", ".x", "5.", ",s", "_5", "+s", "#s", "=5s", ".2d", ",x", "+c", "!"):
            expected = _outcome(format, x, spec)
            assert _outcome(f, x, spec)[:2] == expected[:2], (x, spec)


# ---------------------------------------------------------------------------- wording


@pytest.mark.parametrize(
    "func, args, words",
    [
        (lambda s, w: s.center(w), ("ab", 1.5), "The width must be an Integer"),
        (lambda s, w: s.zfill(w), ("ab", 1.5), "<width> must be an Integer"),
        (lambda s, f: s.ljust(5, f), ("ab", 1), "The fillchar must be a UnicodeType"),
        (lambda s, t: s.expandtabs(t), ("a\tb", 1.5), '"tabsize" must be'),
        (lambda s, a: s.find("a", a), ("ab", 1.5), '"start" must be'),
        (lambda s, a: s.count("a", a), ("ab", 1.5), "The slice indices must be an Integer"),
        (lambda s, c: s.strip(c), ("ab", 1.5), "The arg must be a UnicodeType or None"),
        (lambda s, p: s.partition(p), ("ab", None), '"sep" must be'),
    ],
)
def test_wrong_argument_types_use_numbas_words(func, args, words):
    with pytest.raises(TypingError, match="") as raised:
        njit(func)(*args)
    assert words in str(raised.value)


def test_fill_character_error_is_both_cpythons_and_numbas_class():
    center = njit(lambda s, f: s.center(6, f))
    with pytest.raises(TypeError, match="exactly one character"):
        center("ab", "xy")
    with pytest.raises(ValueError, match="exactly one character"):
        center("ab", "")


# ---------------------------------------------------------------------------- blocks


@njit
def _churn(b, sub):
    total = 0
    for piece in b.split(sub):
        total += len(piece.upper().decode("latin-1"))
    total += len(b"-".join(b.split()))
    try:
        b.decode("ascii")
    except UnicodeDecodeError:
        total += 1
    return total + len("%s %d" % (b.hex(), total))


def test_no_blocks_left_behind():
    b, sub = b"ab \xe9 cd\xff ab", b"b"
    returning_list = njit(lambda x, s: x.split(s))
    _churn(b, sub), returning_list(b, sub)  # compile first
    before = _live_blocks()
    for _ in range(200):
        _churn(b, sub)
        assert returning_list(b, sub) == b.split(sub)  # a list of bytes back in Python
    assert _live_blocks() == before
