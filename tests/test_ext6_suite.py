"""ext6: where `cache=True` entries go (Numba's cache locator classes, modules imported from zip
archives, EMBER/NUMBA_CACHE_LOCATOR_CLASSES), and the extension-API fixes of this round.

Values are checked against CPython running the same functions (`py_func`) or worked by hand.
"""

import json
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import ember
from ember.caching import FunctionCache, locators
from ember.errors import EmberDeprecationWarning

ROOT = Path(__file__).resolve().parents[1]


def _sample(x):
    return x * 7 - 3


# ------------------------------------------------------------------ cache locators


def test_numba_core_caching_names_are_embers_locators():
    import ember.core.caching as numba_caching

    assert numba_caching.FunctionCache is FunctionCache
    assert numba_caching.InTreeCacheLocator is locators.InTreeCacheLocator
    assert numba_caching._UserWideCacheLocator is locators.UserWideCacheLocator
    assert numba_caching._ZipCacheLocator is locators.ZipCacheLocator
    assert issubclass(numba_caching.IPythonCacheLocator, numba_caching._CacheLocator)


def test_the_default_locator_is_the_pycache_beside_the_source(monkeypatch):
    monkeypatch.delenv("EMBER_CACHE_LOCATOR_CLASSES", raising=False)
    monkeypatch.delenv("NUMBA_CACHE_LOCATOR_CLASSES", raising=False)
    monkeypatch.setattr(ember.config, "CACHE_DIR", "")
    cache = FunctionCache(_sample)
    assert isinstance(cache._impl.locator, locators.InTreeCacheLocator)
    assert cache.cache_path == os.path.join(os.path.dirname(__file__), "__pycache__")
    assert cache.locator.get_disambiguator() == str(_sample.__code__.co_firstlineno)


def test_a_cache_dir_setting_mirrors_the_source_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(ember.config, "CACHE_DIR", str(tmp_path))
    cache = FunctionCache(_sample)
    assert isinstance(cache.locator, locators.UserProvidedCacheLocator)
    here = os.path.dirname(os.path.abspath(__file__)).lstrip(os.sep)
    assert cache.cache_path == str(tmp_path / here)
    assert os.path.isdir(cache.cache_path)


def test_locator_classes_from_the_environment(monkeypatch):
    monkeypatch.setattr(ember.config, "CACHE_DIR", "")
    monkeypatch.setenv("NUMBA_CACHE_LOCATOR_CLASSES", "ZipCacheLocator,UserWideCacheLocator")
    assert isinstance(FunctionCache(_sample).locator, locators.UserWideCacheLocator)
    # a user's subclass by its dotted path, and ember's spelling of the setting wins
    monkeypatch.setenv("EMBER_CACHE_LOCATOR_CLASSES", f"{__name__}.FixedLocator")
    assert isinstance(FunctionCache(_sample).locator, FixedLocator)
    monkeypatch.setenv("EMBER_CACHE_LOCATOR_CLASSES", "InTreeCacheLocator, nonsense")
    with pytest.raises(RuntimeError, match="'nonsense', which is not a cache locator"):
        FunctionCache(_sample)


class FixedLocator(locators.InTreeCacheLocator):
    """A user locator (found by its dotted path in the environment setting)."""


def test_a_folder_that_cannot_be_written_falls_through_to_the_next_locator(tmp_path):
    class Unwritable(locators.InTreeCacheLocator):
        def get_cache_path(self):
            return str(tmp_path / "a-file")

    (tmp_path / "a-file").write_text("entries cannot go inside a file")
    chosen = locators.choose_locator(_sample, __file__, [Unwritable, locators.UserWideCacheLocator])
    assert isinstance(chosen, locators.UserWideCacheLocator)
    assert locators.choose_locator(_sample, __file__, [Unwritable]) is None


def test_zip_locator_splits_the_archive_from_the_module_path():
    split = locators.ZipCacheLocator._split_zip_path
    assert split("/data/lib.zip/pkg/sub/mod.py") == ("/data/lib.zip", "pkg/sub/mod.py")
    assert split("/data/LIB.ZIP/mod.py") == ("/data/LIB.ZIP", "mod.py")
    assert split("/data/lib.zip") is None  # the archive itself is no module inside it
    assert split("/data/zipfiles/mod.py") is None
    locator = locators.ZipCacheLocator.from_function(_sample, "/data/lib.zip/pkg/mod.py")
    assert locator._zip_path == "/data/lib.zip"
    assert locator._internal_path == "pkg/mod.py"
    assert locator.get_cache_path().endswith(os.path.join("data", "lib.zip", "pkg"))
    assert locators.ZipCacheLocator.from_function(_sample, "/data/mod.py") is None


def test_user_wide_locator_needs_an_existing_source_unless_frozen(monkeypatch):
    missing = "no/such/folder/module.py"
    assert locators.UserWideCacheLocator.from_function(_sample, missing) is None
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert isinstance(
        locators.UserWideCacheLocator.from_function(_sample, missing),
        locators.UserWideCacheLocator,
    )


def test_ipython_cells_are_keyed_by_their_source(monkeypatch):
    pytest.importorskip("IPython")
    import linecache

    cell = "<ipython-input-3-0123456789ab>"
    monkeypatch.setitem(linecache.cache, cell, (9, None, ["x = 1\n", "y = 2\n"], cell))
    locator = locators.IPythonCacheLocator.from_function(_sample, cell)
    assert locator is not None
    again = locators.IPythonCacheLocator.from_function(_sample, "<ipython-input-9-ffffffffffff>")
    monkeypatch.setitem(linecache.cache, again._py_file, (9, None, ["x = 1\n", "y = 2\n"], ""))
    # the same cell typed again in a later session finds the same entries
    assert locator.get_filename_stem() == again.get_filename_stem()
    assert locators.IPythonCacheLocator.from_function(_sample, __file__) is None


def test_the_fs_agnostic_locator_is_deprecated_but_stamps_like_the_in_tree_one():
    with pytest.warns(EmberDeprecationWarning, match="InTreeCacheLocatorFsAgnostic"):
        agnostic = locators.InTreeCacheLocatorFsAgnostic.from_function(_sample, __file__)
    regular = locators.InTreeCacheLocator.from_function(_sample, __file__)
    assert agnostic.get_source_stamp() == regular.get_source_stamp()
    assert agnostic.get_cache_path() == regular.get_cache_path()


ZIPPED_MODULE = """\
import ember

@ember.njit(cache=True)
def mix(a, b):
    return (a * 31 + b) // 7 - a % 5
"""

ZIP_DRIVER = """\
import json, sys, warnings
warnings.simplefilter("error")  # a module in a zip archive must not warn "Cannot cache"
from zpkg.kernels import mix
cases = [(3, 4), (-17, 5), (2**40, -3), (0, 0)]
print(json.dumps({
    "values": [[mix(a, b), mix.py_func(a, b)] for a, b in cases],
    "hits": sum(mix.stats.cache_hits.values()),
    "misses": sum(mix.stats.cache_misses.values()),
    "path": mix.stats.cache_path,
}))
"""


def _run_zip_driver(folder: Path, archive: Path) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("EMBER_", "NUMBA_"))}
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(archive)])
    environ["XDG_CACHE_HOME"] = str(folder / "user-cache")
    done = subprocess.run(
        [sys.executable, "-c", ZIP_DRIVER],
        cwd=folder,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_module_imported_from_a_zip_archive_is_cached_across_processes(tmp_path):
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zpkg/__init__.py", "")
        bundle.writestr("zpkg/kernels.py", ZIPPED_MODULE)
    first = _run_zip_driver(tmp_path, archive)
    second = _run_zip_driver(tmp_path, archive)
    for result in (first, second):
        assert all(jitted == python for jitted, python in result["values"])
    assert (first["hits"], first["misses"]) == (0, 1)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert second["path"].startswith(str(tmp_path / "user-cache"))
    assert second["path"].endswith(os.path.join("bundle.zip", "zpkg"))


def test_exec_code_still_warns_and_runs():
    namespace = {"ember": ember}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec("@ember.njit(cache=True)\ndef h(x):\n    return x - 11\n", namespace)
        assert namespace["h"](4) == -7
    assert any('Cannot cache compiled function "h"' in str(w.message) for w in caught)


# ------------------------------------------------------------------ typing error messages


def test_a_declined_overload_attribute_is_named_in_the_error():
    from ember import types
    from ember.extending import overload_attribute

    @overload_attribute(types.UnicodeType, "ext6_nonsense")
    def ol_ext6_nonsense(self):
        return None  # declines every receiver

    @ember.njit
    def read_it():
        return "abc".ext6_nonsense

    with pytest.raises(ember.errors.TypingError) as raised:
        read_it()
    text = str(raised.value)
    assert "Unknown attribute 'ext6_nonsense'" in text
    assert "Overload of function 'ol_ext6_nonsense'" in text
    assert f"{__file__}:" in text


def test_a_fixed_signature_function_called_wrongly_states_what_it_accepts():
    @ember.cfunc("float64(float64, int64)")
    def scaled(x, n):
        return x * n

    @ember.njit
    def good(x):
        return scaled(x, 3)

    @ember.njit
    def bad(x):
        return scaled(x)

    assert [good(v) for v in (1.5, -2.0, 0.0)] == [4.5, -6.0, 0.0]
    with pytest.raises(ember.errors.TypingError) as raised:
        bad(1.0)
    text = str(raised.value)
    assert "Type Restricted Function in function 'unknown'" in text
    assert "No match for registered cases: * (float64, int64) -> float64" in text


# ------------------------------------------------------------------ globals and dispatchers

RECORD_DTYPE = np.dtype([("a", np.int32), ("b", np.float32), ("c", np.float64)])
GLOBAL_RECORD = np.recarray(1, dtype=RECORD_DTYPE)[0]
GLOBAL_RECORD.a, GLOBAL_RECORD.b, GLOBAL_RECORD.c = -3, 1.5, -2.25
GLOBAL_VOID = np.array([(9, -0.5, 1e300)], dtype=RECORD_DTYPE)[0]
FROZEN_ARRAYS = ((np.ones(5),),)


def _record_reads(x):
    return x.a == GLOBAL_RECORD.a, GLOBAL_RECORD.b + GLOBAL_RECORD.c * x.a, GLOBAL_VOID["c"]


def _record_copy_written():
    r = GLOBAL_RECORD
    r.a = 7  # this function's copy; the global keeps -3
    return r.a * 10 + GLOBAL_RECORD.a


def test_global_records_are_constants_read_in_compiled_code():
    reads = ember.njit(_record_reads)
    rows = np.zeros(4, dtype=RECORD_DTYPE).view(np.recarray)
    rows["a"] = [-3, 0, 4, -(2**31)]
    for row in rows:
        assert reads(row) == reads.py_func(row)
    assert ember.njit(_record_copy_written)() == 7 * 10 - 3
    assert GLOBAL_RECORD.a == -3


def test_writing_into_a_global_array_says_it_is_read_only():
    @ember.njit
    def write_global():
        FROZEN_ARRAYS[0][0][0] = 10.0

    with pytest.raises(ember.errors.TypingError) as raised:
        write_global()
    assert "Cannot modify readonly array of type: readonly array(float64, 1d, C)" in str(
        raised.value
    )
    assert FROZEN_ARRAYS[0][0][0] == 1.0


def test_a_dispatcher_exposes_its_functions_code_and_defaults():
    def shifted(x, by=3, *, scale=2):
        return (x + by) * scale

    jitted = ember.njit(shifted)
    assert jitted.__code__ is shifted.__code__
    assert jitted.func_code is shifted.__code__
    assert jitted.__defaults__ == (3,)
    assert [jitted(v) for v in (-4, 0, 5)] == [shifted(v) for v in (-4, 0, 5)]
    assert jitted(1, 2, scale=-1) == shifted(1, 2, scale=-1)


def test_an_object_mode_function_with_cache_warns_by_name_and_runs():
    def tally(items):
        return len(list(items)) * 2

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jitted = ember.jit(forceobj=True, cache=True)(tally)
        assert [jitted(v) for v in ("abc", [], range(4))] == [6, 0, 8]
    messages = [str(w.message) for w in caught]  # (at the first compile, as Numba's)
    assert any(m.startswith('Cannot cache compiled function "') and "tally" in m for m in messages)


# ------------------------------------------------------------------ dispatcher types


def _adder(k):
    @ember.njit
    def add_k(x):
        return x + k

    return add_k


@ember.njit
def _twice_applied(g, x):
    return g(g(x))


def test_jitted_functions_made_at_run_time_are_freed_with_their_types():
    import gc
    import weakref

    refs = []
    for k in (-5, 0, 7, 2**40):
        made = _adder(k)
        assert _twice_applied(made, 3) == _twice_applied.py_func(made.py_func, 3) == 3 + 2 * k
        refs.append((weakref.ref(made), ember.typeof(made)))
    del made
    gc.collect()
    assert [ref() for ref, _ in refs] == [None] * 4
    with pytest.raises(ReferenceError):
        getattr(refs[0][1], "dispatcher")  # noqa: B009 - the read itself raises
    dead = refs[0][1]
    assert dead != dead  # a dead function's type equals nothing (as in Numba)
    # a new function (perhaps at a freed one's address) gets a type of its own
    fresh = _adder(100)
    assert ember.typeof(fresh).dispatcher is fresh
    assert all(ember.typeof(fresh) is not t for _, t in refs)
    assert _twice_applied(fresh, -1) == 199


def test_types_nothing_refers_to_are_freed_and_made_again_with_a_new_code():
    import gc
    import weakref

    from ember import types
    from ember.types import abstract

    held = types.Dummy("ext6_held")
    first = types.Dummy("ext6_transient")
    code = first._code
    assert types.Dummy("ext6_transient") is first  # interned while alive
    watcher = weakref.ref(first)
    size = len(abstract._typecache)
    del first
    gc.collect()
    assert watcher() is None
    assert len(abstract._typecache) == size - 1
    again = types.Dummy("ext6_transient")
    assert again._code != code
    assert types.Dummy("ext6_held") is held
    # a type made of another keeps that one alive
    pair = types.UniTuple(types.Dummy("ext6_member"), 2)
    gc.collect()
    assert types.Dummy("ext6_member") is pair.dtype
