"""Functions and arguments named with non-ASCII letters compile in every mode (their native
symbols are spelled in ASCII: ember/codegen/symbols.py `ascii_symbol`)."""

import ctypes

import numpy as np

import ember
from ember.codegen.symbols import ascii_symbol


def ծծ_scale(ժ, β):
    return ժ * β + 1


def café(x):
    return ծծ_scale(x, 2.0) - 1


def test_unicode_names_in_nopython_calls():
    global ծծ_scale
    plain = ծծ_scale
    try:
        ծծ_scale = ember.njit(plain)
        compiled = ember.njit(café)
        for value in (0.0, -1.5, 3.25):
            assert compiled(value) == value * 2.0
        assert ծծ_scale(np.arange(3.0), 0.5).tolist() == [1.0, 1.5, 2.0]
    finally:
        ծծ_scale = plain


def test_unicode_names_in_object_mode_and_cfunc():
    def ünïcode_concat(a, b):
        return str(a) + str(b)

    assert ember.jit(forceobj=True)(ünïcode_concat)(1, "é") == "1é"

    @ember.cfunc("float64(float64)")
    def половина(x):
        return x / 2

    assert half_via_ctypes(половина.address, 5.0) == 2.5


def half_via_ctypes(address, value):
    return ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(address)(value)


def test_ascii_symbol_keeps_distinct_letters_distinct():
    assert ascii_symbol("plain.name$1") == "plain.name$1"
    assert ascii_symbol("café") == "caf_u00e9_"
    spelled = {ascii_symbol(name) for name in ("café", "cafe", "cafè", "ծծ", "ժծ")}
    assert len(spelled) == 5 and all(name.isascii() for name in spelled)
