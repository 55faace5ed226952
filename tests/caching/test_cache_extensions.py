"""`cache=True` keys follow what a function reaches beyond its globals: `@overload_method` and
`@overload_attribute` implementations of the names it reads, and jitclasses (methods and
fields) used as globals or received as arguments. Editing any of them, in another module,
invalidates exactly the functions that use it (checked in fresh processes)."""

import json
import shutil

import numpy as np
import pytest

from tests.caching.test_disk_cache import _start

EXTENSIONS = """\
from ember import types
from ember.extending import overload_attribute, overload_method


@overload_method(types.Array, "scaled_sum")
def array_scaled_sum(x, k):
    def impl(x, k):
        total = 0.0
        for v in x:
            total += v
        return total * k * 2
    return impl


@overload_attribute(types.Array, "first_plus")
def array_first_plus(x):
    def get(x):
        return x[0] + 10
    return get
"""

SHAPES = """\
import ember
from ember.experimental import jitclass


@jitclass([("x", ember.float64), ("n", ember.int64)])
class Acc:
    def __init__(self, x):
        self.x = x
        self.n = 0

    def add(self, v):
        self.x += v
        self.n += 1
        return self.x

    @property
    def mean(self):
        return self.x / max(self.n, 1)
"""

KERNELS = """\
import ember
import extensions  # registers the method and the attribute
from shapes import Acc


@ember.njit(cache=True)
def method_user(x):
    return x.scaled_sum(1.5)


@ember.njit(cache=True)
def attribute_user(x):
    return x.first_plus


@ember.njit(cache=True)
def jitclass_global(v):
    a = Acc(1.0)
    a.add(v)
    return a.mean


@ember.njit(cache=True)
def jitclass_argument(a, v):
    return a.add(v)


@ember.njit(cache=True)
def plain(x):
    return x * 2
"""

DRIVER = """\
import json
import numpy as np
import kernels
from shapes import Acc

x = np.array([1.0, 2.0, 4.0])
functions = [kernels.method_user, kernels.attribute_user, kernels.jitclass_global,
             kernels.jitclass_argument, kernels.plain]
values = [kernels.method_user(x), kernels.attribute_user(x), kernels.jitclass_global(3.0),
          kernels.jitclass_argument(Acc(2.0), 5.0), kernels.plain(4)]
out = {"values": values, "hits": {}, "misses": {}, "reasons": {}}
for f in functions:
    name = f.__name__
    out["hits"][name] = sum(f.stats.cache_hits.values())
    out["misses"][name] = sum(f.stats.cache_misses.values())
    out["reasons"][name] = sorted(set(f.stats.cache_miss_reasons.values()))
print(json.dumps(out))
"""

NAMES = ["method_user", "attribute_user", "jitclass_global", "jitclass_argument", "plain"]
X = np.array([1.0, 2.0, 4.0])


def _expected(method_factor=2, attribute_offset=10, add_factor=1):
    """The values each function returns, worked out with NumPy from the sources above."""
    return [
        X.sum() * 1.5 * method_factor,
        X[0] + attribute_offset,
        (1.0 + add_factor * 3.0) / 1,
        2.0 + add_factor * 5.0,
        8,
    ]


def _run(folder) -> dict:
    process = _start(folder)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "Cannot cache" not in stderr, stderr
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    folder = tmp_path_factory.mktemp("extensions")
    for name, text in (("extensions", EXTENSIONS), ("shapes", SHAPES), ("kernels", KERNELS),
                       ("driver", DRIVER)):  # fmt: skip
        (folder / f"{name}.py").write_text(text)
    cold = _run(folder)
    assert cold["values"] == _expected() and cold["misses"] == dict.fromkeys(NAMES, 1)
    again = _run(folder)
    assert again["values"] == _expected() and again["hits"] == dict.fromkeys(NAMES, 1)
    return folder


def _edited(warm, tmp_path, module: str, old: str, new: str):
    folder = tmp_path / "project"
    shutil.copytree(warm, folder)
    path = folder / f"{module}.py"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return _run(folder)


def _missed(result: dict) -> dict:
    return {name: result["reasons"][name] for name in NAMES if result["misses"][name]}


def test_editing_an_overload_method_invalidates_its_callers(warm, tmp_path):
    result = _edited(warm, tmp_path, "extensions", "total * k * 2", "total * k * 3")
    assert result["values"] == _expected(method_factor=3)
    assert _missed(result) == {"method_user": ["changed: method scaled_sum"]}


def test_editing_an_overload_attribute_invalidates_its_readers(warm, tmp_path):
    result = _edited(warm, tmp_path, "extensions", "x[0] + 10", "x[0] + 20")
    assert result["values"] == _expected(attribute_offset=20)
    assert _missed(result) == {"attribute_user": ["changed: attribute first_plus"]}


def test_editing_a_jitclass_method_invalidates_global_and_argument_users(warm, tmp_path):
    result = _edited(warm, tmp_path, "shapes", "self.x += v", "self.x += 2 * v")
    assert result["values"] == _expected(add_factor=2)
    assert _missed(result) == {
        "jitclass_global": ["changed: global Acc"],
        "jitclass_argument": ["changed: argument types"],
    }


def test_editing_a_jitclass_spec_invalidates_its_users(warm, tmp_path):
    result = _edited(warm, tmp_path, "shapes", '("n", ember.int64)', '("n", ember.int32)')
    assert result["values"] == _expected()
    assert set(_missed(result)) == {"jitclass_global", "jitclass_argument"}


def test_the_jitclass_key_is_the_same_in_every_process(warm):
    """Entry file names hold no object address: one file per function and types."""
    names = sorted(p.name.split(".")[1] for p in (warm / "__pycache__").glob("kernels.*.emberc"))
    assert names == sorted(NAMES)
