"""containers10: int()/float() error messages written by Python when raised, bytes built through
Numba's array-layout member names (awkward's bytestrings), set methods of several iterables,
list displays widened by `+=`/extend, sorting that moves items without reference counts, and a
differential fuzz of str and bytes methods (unicode text, negative steps); each checked against
CPython."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from llvmlite import ir

import ember
from ember.core import cgutils
from ember.cpython.charseq import bytes_type
from ember.extending import intrinsic
from tests.oracle import assert_frees_all

# ---------------------------------------------------------------------------- int()/float() errors


def _value_or_message(parse, *args):
    """parse(*args), or the message of the ValueError it raises."""
    try:
        return parse(*args)
    except ValueError as error:
        return str(error)


def _to_float(text):
    return float(text)


def _to_int(text, base):
    return int(text, base)


_compiled_to_float, _compiled_to_int = ember.njit(_to_float), ember.njit(_to_int)


def test_int_and_float_errors_carry_cpythons_messages():
    """The message (the text's repr, cut to 200 characters for int()) is written when the
    exception is raised; quotes, escapes and wide characters as CPython's repr gives them."""
    texts = ["x1", "", " ", "1e", "1_", "'", "\"'", "a\nb\t", "é" * 300, "\U0001f600z", "0x"]
    texts += ["\x00", "\u2003", "12" * 5 + "z", "!" * 250, "1.5.2", "--1", "inf1", "\\"]
    for text in texts:
        for base in (0, 7, 10, 16, 36):
            got = (
                _value_or_message(_compiled_to_float, text),
                _value_or_message(_compiled_to_int, text, base),
            )
            want = (_value_or_message(_to_float, text), _value_or_message(_to_int, text, base))
            assert got == want, (text, base)


@ember.njit
def _caught_in_compiled_code(texts):
    total = 0.0
    bad = 0
    for text in texts:
        try:
            total += float(text)
        except ValueError:
            bad += 1
        try:
            total += int(text)
        except ValueError:
            bad += 1
    return total, bad


def test_parse_errors_are_caught_inside_compiled_code_and_free_their_payload():
    texts = ["1", "2.5", "x", "", "7", "1e3", "é"]
    assert _caught_in_compiled_code(texts) == _caught_in_compiled_code.py_func(texts)
    assert_frees_all(_caught_in_compiled_code, lambda: list(texts))


# ------------------------------------------------------------------------ bytes as Numba's layout


@intrinsic
def _bytes_through_numba_members(typingctx, text, start, stop):
    """A `bytes` of text's bytes [start, stop) written the way awkward writes Numba's bytes:
    a struct proxy of `bytes_type`, every array-layout member stored by name."""
    from ember.typing.signature import signature

    def codegen(context, builder, sig, args):
        from ember.lowering import strings as primitives

        value, low, high = args
        count = builder.sub(high, low)
        source = builder.gep(primitives.data(builder, value), [low], source_etype=ir.IntType(8))
        output = cgutils.create_struct_proxy(bytes_type)(context, builder)
        output.meminfo = context.nrt.meminfo_alloc(builder, count)
        output.nitems = count
        output.itemsize = context.get_constant(ember.types.intp, 1)
        output.data = context.nrt.meminfo_data(builder, output.meminfo)
        output.parent = cgutils.get_null_value(output.parent.type)
        output.shape = cgutils.pack_array(builder, [count])
        output.strides = cgutils.pack_array(builder, [context.get_constant(ember.types.intp, 1)])
        cgutils.memcpy(builder, output.data, source, count)
        return output._getvalue()

    return signature(bytes_type, text, start, stop), codegen


@ember.njit
def _bytes_made_by_extension(text, start, stop):
    made = _bytes_through_numba_members(text, start, stop)
    return made, len(made), made[::-1], made.upper(), made + b"!", made.split(b"b")


def test_bytes_written_through_numba_member_names_work_as_bytes():
    for text, start, stop in [("abcab", 0, 5), ("abcab", 1, 4), ("xyz", 1, 1), ("ab\x00b", 0, 4)]:
        made = text.encode("latin-1")[start:stop]
        want = (made, len(made), made[::-1], made.upper(), made + b"!", made.split(b"b"))
        assert _bytes_made_by_extension(text, start, stop) == want
    assert_frees_all(_bytes_made_by_extension, lambda: "abcabc", lambda: 1, lambda: 5)


# ---------------------------------------------------------------------------- sets, lists


def several_iterables(a, b, c):
    s = set(a)
    updated = [set(a) for _ in range(3)]
    updated[0].update(b, c)
    updated[1].difference_update(b, c)
    updated[2].intersection_update(b, c)
    results = [s.union(b, c), s.union(), s.difference(b, c), s.intersection(b, c)]
    return [list(t) for t in results + updated]


compiled_several_iterables = ember.njit(several_iterables)


def test_set_methods_of_several_iterables_match_cpython_in_order():
    rng = random.Random(10)
    for _ in range(60):
        scale = rng.choice([1, 8, 64])  # multiples of 8 collide: CPython's probing order
        a, b, c = ([rng.randint(-20, 20) * scale for _ in range(rng.randint(1, 25))] for _ in "abc")
        assert compiled_several_iterables(a, b, c) == several_iterables(a, b, c)
    assert_frees_all(compiled_several_iterables, lambda: [1, 2, 3], lambda: [2, 9], lambda: [3])


def widened_lists(n):
    a = [1, 2]
    a += [2.5, n]
    b = [n]
    b.extend((0.5, 1.5))
    c = [True]
    c += [n]
    return a, b, c


def test_list_displays_take_the_wider_number_type_from_iadd_and_extend():
    compiled = ember.njit(widened_lists)
    for n in (0, 3, -7):
        got, want = compiled(n), widened_lists(n)
        assert got == want
        assert [type(x) for x in got[0]] == [float] * 4  # the display holds floats
        assert [type(x) for x in got[2]] == [int, int]


# ---------------------------------------------------------------------------- sorting


def sorts(words, numbers, pairs, reverse):
    a = sorted(words)
    b = sorted(words, reverse=reverse)
    words.sort(reverse=not reverse)
    c = sorted(numbers, reverse=reverse)
    d = sorted(pairs)
    return a, b, words, c, d, min(a) if a else "", words[0] < words[-1]


compiled_sorts = ember.njit(sorts)
_ALPHABET = ["", "a", "b", "ab", "é", "éa", "\u20ac", "\U0001f600", "a\u20ac", "a\x00", "\xff"]


def test_sorting_strings_of_every_kind_numbers_and_tuples_matches_cpython():
    rng = random.Random(3)
    for n in (1, 2, 15, 16, 17, 33, 100, 700):
        words = [rng.choice(_ALPHABET) + rng.choice(_ALPHABET) for _ in range(n)]
        numbers = [rng.choice([0.0, -0.0, 1.5, -2.0, 3.25]) * rng.randint(-3, 3) for _ in range(n)]
        pairs = [(rng.randint(0, 3), rng.choice(_ALPHABET)) for _ in range(n)]
        for reverse in (False, True):
            got = compiled_sorts(list(words), list(numbers), list(pairs), reverse)
            want = sorts(list(words), list(numbers), list(pairs), reverse)
            assert repr(got) == repr(want)  # -0.0 against 0.0: stable as CPython


@ember.njit
def _sort_made_strings(n):
    words = [str(i * 7919 % 1000) * 2 for i in range(n)]
    words.sort()
    backwards = sorted(words, reverse=True)
    nested = sorted([[i % 3, -i] for i in range(n)])
    return words[0] + backwards[0], nested[0][1] if n else 0


def test_sorting_owned_items_frees_them_all():
    assert _sort_made_strings(100) == _sort_made_strings.py_func(100)
    for n in (1, 5, 100):
        assert_frees_all(_sort_made_strings, lambda n=n: n, calls=50)


# ---------------------------------------------------------------------------- fuzz


_TEXT = "ab A\t\n1_é\u00df\u0130\u03a3\u2003\u20ac\U0001f600\u01c5x"
_small = st.integers(-15, 15)


def str_ops(s, t, a, b, c, n):
    """Slices with any step, bounded searches, splits with maxsplit, case mappings that
    change lengths (ß, İ) and kinds; the full method list ran 1500 draws in the round's fuzz."""
    out = (s[a:b:c] if c else s[a:b], s[::c] if c else s, s.find(t, a, b), s.rfind(t, a, b))
    out += (s.count(t, a, b), s.startswith(t, a, b), s.endswith(t, a, b))
    out += (s.split(t, n) if t else s.split(None, n), s.rsplit(t, n) if t else s.rsplit(None, n))
    out += (s.rpartition(t) if t else ("", "", ""), s.strip(t), s.upper(), s.swapcase())
    return out


def bytes_ops(s, t, a, b, c, n):
    out = (s[a:b:c] if c else s[a:b], s.find(t, a, b), s.rfind(t, a, b), s.count(t, a, b))
    out += (s.split(t, n) if t else s.split(None, n), s.rsplit(t, n) if t else s.rsplit(None, n))
    out += (s.partition(t) if t else (b"", b"", b""), s.strip(t), s.title(), s < t)
    return out


compiled_str_ops = ember.njit(str_ops)
compiled_bytes_ops = ember.njit(bytes_ops)


@settings(max_examples=80, deadline=None)
@given(st.text(_TEXT, max_size=12), st.text(_TEXT, max_size=4), _small, _small, _small, _small)
def test_str_methods_on_unicode_text_match_cpython(s, t, a, b, c, n):
    assert compiled_str_ops(s, t, a, b, c, n) == str_ops(s, t, a, b, c, n)


_BYTES = st.binary(max_size=10) | st.text("ab A\t\n1x", max_size=10).map(str.encode)


@settings(max_examples=80, deadline=None)
@given(_BYTES, st.text("ab \n1", max_size=3).map(str.encode), _small, _small, _small, _small)
def test_bytes_methods_match_cpython(s, t, a, b, c, n):
    assert compiled_bytes_ops(s, t, a, b, c, n) == bytes_ops(s, t, a, b, c, n)


@ember.njit
def _format_at_run_time(values, specs):
    out = []
    for spec in specs:
        for value in values:
            try:
                out.append(format(value, spec))
            except ValueError:
                out.append("ValueError")
    return out


def _cpython_format(value, spec):
    try:
        return format(value, spec)
    except ValueError:
        return "ValueError"


def test_run_time_specs_with_n_read_it_as_the_c_locale_does():
    """A float's spec known only at run time ('n' is 'g' in the C locale, as CPython's default;
    a grouping with it is CPython's ValueError)."""
    specs = ["n", "#1n", "+08n", ">+#012.12n", "*^#01.12n", ",n", "_n", ".3n", "10,", "e"]
    values = [1e-07, 123456.789, -0.0, 2.5, 1e16, float("nan"), -float("inf")]
    want = [_cpython_format(value, spec) for spec in specs for value in values]
    assert _format_at_run_time(values, specs) == want


@ember.njit
def _format_bool_at_run_time(flag, spec):
    return format(flag, spec)


def test_a_bools_run_time_spec_writes_true_or_its_int():
    for flag in (True, False):
        for spec in ("", ">6", "d", "x", "^7", "+"):
            assert _format_bool_at_run_time(flag, spec) == format(flag, spec)
