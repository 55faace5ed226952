"""The disk cache inside one process: structural keys, the file format, functions that cannot
be cached, `f.stats`, reuse of an entry by a second dispatcher and `cache_clear`."""

import importlib.util
import itertools
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ember
from ember import config
from ember.caching import cache_clear, store
from ember.caching.fingerprint import Uncacheable, function_parts, key_digest
from ember.errors import EmberWarning
from ember.lowering.callconv import static_exceptions

_module_numbers = itertools.count()


def _load(folder, source: str | None, path=None):
    """Import `source` as a new module file in `folder` (functions with a real source file),
    or import the file `path` again under a new module name."""
    name = f"cache_case_{next(_module_numbers)}"
    if path is None:
        path = folder / f"{name}.py"
        path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _parts(source: str, name: str = "f", **namespace) -> dict:
    exec(textwrap.dedent(source), namespace)  # noqa: S102 - test functions
    return function_parts(namespace[name])


SOURCE = """
import ember
@ember.njit
def f(x):
    return x * SCALE + len(NAMES)
"""


def test_keys_follow_code_and_frozen_globals_but_not_line_numbers():
    base = _parts(SOURCE, SCALE=2, NAMES=("a",))
    assert _parts(SOURCE, SCALE=2, NAMES=("a",)) == base
    assert _parts("\n\n\n" + SOURCE, SCALE=2, NAMES=("a",)) == base  # moved down: same key
    changed = _parts(SOURCE.replace("x * SCALE", "x - SCALE"), SCALE=2, NAMES=("a",))
    assert [n for n in base if base[n] != changed[n]] == ["code"]
    changed = _parts(SOURCE, SCALE=3, NAMES=("a",))
    assert [n for n in base if base[n] != changed[n]] == ["global SCALE"]


def test_global_arrays_are_keyed_by_content():
    source = "import ember\n@ember.njit\ndef f(i):\n    return TABLE[i]\n"
    first = _parts(source, TABLE=np.arange(5.0))
    assert _parts(source, TABLE=np.arange(5.0)) == first
    assert _parts(source, TABLE=np.arange(5.0) + 1)["global TABLE"] != first["global TABLE"]
    assert _parts(source, TABLE=np.arange(5))["global TABLE"] != first["global TABLE"]


def test_a_callee_change_reaches_the_caller_through_its_key():
    callee = "import ember\n@ember.njit\ndef g(x):\n    return x + OFFSET\n"
    caller = "import ember\n@ember.njit\ndef f(x):\n    return g(x) * 2\n"
    namespace_a, namespace_b = {"OFFSET": 1}, {"OFFSET": 2}
    exec(callee, namespace_a)  # noqa: S102
    exec(callee, namespace_b)  # noqa: S102
    key_a = key_digest(_parts(caller, g=namespace_a["g"]))
    assert key_a == key_digest(_parts(caller, g=namespace_a["g"]))
    assert key_a != key_digest(_parts(caller, g=namespace_b["g"]))


def test_recursive_functions_have_finite_keys():
    source = """
    import ember
    @ember.njit
    def even(n):
        return True if n == 0 else odd(n - 1)
    @ember.njit
    def odd(n):
        return False if n == 0 else even(n - 1)
    """
    namespace = {}
    exec(textwrap.dedent(source), namespace)  # noqa: S102
    assert "global odd" in function_parts(namespace["even"])
    assert "global even" in function_parts(namespace["odd"])


def test_values_without_a_fingerprint_are_refused_with_the_name():
    class Opaque:
        pass

    with pytest.raises(Uncacheable, match="global 'THING' is a Opaque"):
        _parts("import ember\n@ember.njit\ndef f():\n    return THING\n", THING=Opaque())


def test_stable_exception_ids_are_the_same_in_every_process():
    exc_id = static_exceptions.register(KeyError, ("cache test key",))
    from ember.lowering.callconv import _stable_id

    assert exc_id == _stable_id(KeyError, ("cache test key",))
    assert static_exceptions.restore(exc_id, KeyError, ("cache test key",))
    assert not static_exceptions.restore(exc_id, KeyError, ("another",))


# ---------------------------------------------------------------------------- the file format


def test_entries_round_trip_and_damage_is_reported(tmp_path):
    path = tmp_path / "entry.emberc"
    store.write_entry(path, b"payload" * 100)
    assert store.read_entry(path) == b"payload" * 100
    assert [p.name for p in tmp_path.iterdir()] == ["entry.emberc"]  # no temporary left
    assert store.read_entry(tmp_path / "missing.emberc") is None
    data = path.read_bytes()
    damaged = {
        "truncated": data[:-5],
        "checksum mismatch": data[:-1] + bytes([data[-1] ^ 1]),
        "wrong magic": b"X" + data[1:],
        "format version": data[:8] + b"\x63" + data[9:],
        "shorter than its header": data[:10],
    }
    for expected, content in damaged.items():
        path.write_bytes(content)
        with pytest.raises(store.CorruptEntry, match=expected):
            store.read_entry(path)


# ---------------------------------------------------------------------------- in a process


def test_a_second_dispatcher_of_the_same_function_loads_the_entry(cache_dir):
    source = """
    import ember
    import numpy as np
    TABLE = np.array([3.0, 1.0, 2.0])
    @ember.njit(cache=True)
    def f(x, i):
        if i < 0:
            raise IndexError("negative index", i)
        return x * TABLE[i] + len("abc")
    """
    first = _load(cache_dir, source)
    assert first.f(2.0, 1) == first.f.py_func(2.0, 1)
    assert first.f.stats.cache_misses == {(ember.float64, ember.int64): 1}
    second = _load(cache_dir, None, path=first.__file__)  # the module imported again
    for x, i in [(2.0, 1), (0.5, 2), (-1.0, 0)]:
        assert second.f(x, i) == second.f.py_func(x, i)
    with pytest.raises(IndexError, match="negative index"):
        second.f(1.0, -1)
    stats = second.f.stats
    assert stats.cache_hits == {(ember.float64, ember.int64): 1}
    assert set(stats[(ember.float64, ember.int64)]) == {"cache load"}
    assert stats.cache_path.startswith(str(cache_dir / "cache"))
    assert cache_clear(cache_dir / "cache") >= 1  # the function's entry (and the runtime's)
    assert not list((cache_dir / "cache").glob("**/*.emberc"))
    assert cache_clear(cache_dir / "cache") == 0


OBJMODE = """
import numpy as np
import ember
@ember.njit(cache=True)
def f(x):
    with ember.objmode(y="float64", z="float64[:]"):
        y = float(np.sum(x)) * 2.5
        z = np.sort(x)[::-1].copy()
    return y + z[0]
def make(step):
    @ember.njit(cache=True)
    def g(x):
        with ember.objmode(y="float64"):
            y = float(x) + step
        return y
    return g
"""


def _ember_warnings(seen) -> list[str]:
    return [str(w.message) for w in seen if issubclass(w.category, EmberWarning)]


def test_an_objmode_function_is_cached_and_its_block_found_again(cache_dir):
    first = _load(cache_dir, OBJMODE)
    x = np.array([3.0, 1.0, 2.0])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert first.f(x) == first.f.py_func(x) == 15.0 + 3.0
    assert _ember_warnings(seen) == []
    assert first.f.stats.cache_misses[(ember.float64[::1],)] == 1
    second = _load(cache_dir, None, path=first.__file__)
    for values in (x, np.arange(4.0)):
        assert second.f(values) == second.f.py_func(values)
    assert second.f.stats.cache_hits == {(ember.float64[::1],): 1}


def test_an_objmode_block_of_a_local_function_is_cached_too(cache_dir):
    """The block's runner is rebuilt from the function being loaded (no name needed)."""
    module = _load(cache_dir, OBJMODE)
    g, h = module.make(0.5), module.make(1.5)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        results = [g(2.0), g(4.0), g(3), h(2.0)]
    assert results == [g.py_func(2.0), g.py_func(4.0), g.py_func(3), h.py_func(2.0)]
    assert results == [2.5, 4.5, 3.5, 3.5]
    assert _ember_warnings(seen) == []
    assert len(list((cache_dir / "cache").glob("**/*make*.emberc"))) == 3
    again = module.make(0.5)
    assert again(2.0) == 2.5 and again.stats.cache_hits == {(ember.float64,): 1}


def test_a_function_passed_as_an_argument_is_part_of_the_key():
    from ember.caching.fingerprint import specialization_parts

    source = "import ember\n@ember.njit\ndef g(x):\n    return x + STEP\n"
    one, two = {"STEP": 1}, {"STEP": 2}
    exec(source, one)  # noqa: S102
    exec(source, two)  # noqa: S102
    apply = {}
    exec("import ember\n@ember.njit\ndef apply(f, x):\n    return f(x)\n", apply)  # noqa: S102

    def key(g):
        args = (ember.typeof(g), ember.int64)
        return specialization_parts(apply["apply"], args, None)["argument types"]

    assert key(one["g"]) == key(one["g"]) != key(two["g"])


def test_inspection_of_a_loaded_specialization_compiles_it(cache_dir, monkeypatch):
    # The Python path only: a native entry installed at the first call would keep calling
    # the code compiled before the overloads are cleared below.
    monkeypatch.setattr(ember.config, "CALLS_BEFORE_ENTRY", 10**9)
    source = "import ember\n@ember.njit(cache=True)\ndef f(x):\n    return x + 1\n"
    first = _load(cache_dir, source)
    assert first.f(1) == 2
    first.f.overloads.clear()  # as a new process: the next call loads the entry
    assert first.f(2) == 3 and first.f.stats.cache_hits[(ember.int64,)] == 1
    assert "add" in first.f.inspect_llvm((ember.int64,))
    assert first.f(3) == 4


def test_a_loaded_function_called_from_new_jitted_code_is_compiled_again(cache_dir):
    source = """
    import ember
    @ember.njit(cache=True)
    def g(x):
        return x * 3
    @ember.njit
    def caller(x):
        return g(x) + 1
    """
    first = _load(cache_dir, source)
    assert first.g(2) == 6
    second = _load(cache_dir, None, path=first.__file__)
    assert second.g(5) == 15 and second.g.stats.cache_hits[(ember.int64,)] == 1
    assert second.caller(4) == second.caller.py_func(4) == 13
    assert first.caller(7) == 22


def test_functions_made_by_one_factory_keep_one_entry_per_captured_value(cache_dir):
    module = _load(
        cache_dir,
        """
        import ember
        def make(step):
            @ember.njit(cache=True)
            def f(x):
                return x + step
            return f
        @ember.njit
        def numbers(n):
            for i in range(n):
                yield i
        @ember.njit(cache=True)
        def total(n):
            s = 0
            for v in numbers(n):
                s += v
            return s
        """,
    )
    add3, add4 = module.make(3), module.make(4)
    assert (add3(1), add4(1), module.total(5)) == (4, 5, module.total.py_func(5))
    entries = list((cache_dir / "cache").glob("**/cache_case_*.emberc"))
    assert len([p for p in entries if ".make._locals_.f." in p.name]) == 2
    assert len([p for p in entries if ".total." in p.name]) == 1  # its generator is inlined


def test_user_overloads_of_library_functions_and_methods_are_in_the_key():
    """Parts for the user's `@overload(np.<name>)` and `@overload_method(..., name)` of the
    names a function reads; other functions' keys do not change."""
    import math

    from ember import types
    from ember.extending import overload, overload_method

    source = "import ember\n@ember.njit\ndef f(x):\n    return math.{name}(x)\n"
    before = _parts(source.format(name="lgamma"), math=math)
    unrelated = _parts(source.format(name="erfc"), math=math)

    @overload(math.lgamma)
    def declines_every_type(x):  # registered for the key only: never chosen
        return None

    after = _parts(source.format(name="lgamma"), math=math)
    assert [n for n in after if after[n] != before.get(n)] == ["overload lgamma"]
    assert _parts(source.format(name="erfc"), math=math) == unrelated

    method_source = "import ember\n@ember.njit\ndef f(x):\n    return x.cache_key_probe()\n"
    before = _parts(method_source)

    @overload_method(types.Array, "cache_key_probe")
    def probe(x):
        return None

    after = _parts(method_source)
    assert [n for n in after if after[n] != before.get(n)] == ["method cache_key_probe"]


def test_the_environment_part_names_numpy_without_importing_it():
    """Loading a cached scalar function must not import NumPy, yet its key names NumPy's
    version exactly as `numpy.__version__` does."""
    import subprocess

    script = (
        "import sys\n"
        "from ember.caching.fingerprint import environment_parts\n"
        "part = environment_parts()['python, numpy, llvmlite']\n"
        "imported = 'numpy' in sys.modules\n"
        "import numpy\n"
        "print(imported, numpy.__version__ in part.split())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
