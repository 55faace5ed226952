"""Numba's `_helperlib` random-state functions for code written against them: a state "pointer"
(an int naming the compiled random.* or np.random state of the calling thread) and
get/set/seed/shuffle of that MT19937 state as (index, list of 624 ints)."""

from __future__ import annotations

import numpy as np

from ember.library.builtins import randomlib
from ember.library.numpy.random import legacy
from ember.library.numpy.random.thread_rows import current_thread_row

_N = 624


_TABLE_SETS = (
    (randomlib._KEYS, randomlib._METAS, randomlib._GAUSSES),
    (legacy._KEYS, legacy._METAS, legacy._GAUSSES),
)


def _state(ptr: int):
    """The (key, meta, gauss) rows a pointer from rnd_get_*_state_ptr names."""
    for keys, metas, gausses in _TABLE_SETS:
        offset = int(ptr) - keys.ctypes.data
        row, rest = divmod(offset, keys.strides[0])
        if 0 <= row < keys.shape[0] and rest == 0:
            return keys[row], metas[row], gausses[row]
    raise ValueError(f"{ptr!r} is not a random state pointer of ember")


def rnd_get_py_state_ptr() -> int:
    """The state random.* draws from in compiled code run by this thread."""
    return randomlib._KEYS[current_thread_row()].ctypes.data


def rnd_get_np_state_ptr() -> int:
    """The state np.random.* draws from in compiled code run by this thread."""
    return legacy._KEYS[current_thread_row()].ctypes.data


def rnd_get_state(ptr: int) -> tuple:
    key, meta, _ = _state(ptr)
    return int(meta[0]), [int(word) for word in key]


def rnd_set_state(ptr: int, state: tuple) -> None:
    """Set the key words and the position in them (0..624); a waiting normal is dropped."""
    index, ints = state
    index = int(index)
    if not 0 <= index <= _N:
        raise ValueError(f"invalid state index {index}")
    if len(ints) != _N:
        raise ValueError(f"expected {_N} state integers, got {len(ints)}")
    key, meta, gauss = _state(ptr)
    key[:] = np.array([int(word) & 0xFFFFFFFF for word in ints], np.uint64)
    meta[:] = (index, 0)
    gauss[0] = 0.0


def rnd_shuffle(ptr: int) -> None:
    """Twist the key (the step MT19937 takes every 624 draws); the position goes to 0."""
    key, meta, _ = _state(ptr)
    legacy._twist(key)
    meta[0] = 0


def rnd_seed(ptr: int, seed) -> None:
    """An integer seeds as NumPy's RandomState (init_genrand); bytes mix in by init_by_array on
    their 32-bit words."""
    if isinstance(seed, (bytes, bytearray, memoryview)):
        data = bytes(seed)
        data += b"\0" * (-len(data) % 4)
        source = np.random.RandomState(np.frombuffer(data, np.uint32))
    else:
        seed = int(seed)
        if not 0 <= seed <= 0xFFFFFFFF:
            raise ValueError("Seed must be between 0 and 2**32 - 1")
        source = np.random.RandomState(seed)
    _, words, index = source.get_state()[:3]
    rnd_set_state(ptr, (index, words))
