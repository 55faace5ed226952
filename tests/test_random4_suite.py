"""Random numbers in compiled code against NumPy and CPython: numba._helperlib's state functions,
the raw draws of a bit generator, Generator argument checks, axes, methods and dtypes, random's
shuffle of n-d arrays and getrandbits bounds, one state per Python thread, reseeding in forked
children, and random code compiling under an invalid EMBER_THREADING_LAYER."""

import os
import random
import subprocess
import sys
import threading

import numpy as np
import pytest

from ember import _helperlib, njit
from ember.errors import TypingError
from ember.np.random.generator_core import next_double, next_float, next_uint32, next_uint64
from ember.np.random.generator_methods import _get_proper_func
from tests.oracle import assert_frees_all

N = 624


@njit
def _py_random():
    return random.random()


@njit
def _py_getrandbits(k):
    return random.getrandbits(k)


@njit
def _np_normal(loc, scale):
    return np.random.normal(loc, scale)


@njit
def _np_random():
    return np.random.random()


# ---------------------------------------------------------------------------- _helperlib


def test_helperlib_state_roundtrips():
    for ptr in (_helperlib.rnd_get_py_state_ptr(), _helperlib.rnd_get_np_state_ptr()):
        ints = [(i * 2654435761) & 0xFFFFFFFF for i in range(N)]
        _helperlib.rnd_set_state(ptr, (17, ints))
        assert _helperlib.rnd_get_state(ptr) == (17, ints)


def test_helperlib_cpython_state_drives_compiled_random():
    """A CPython Random's state copied in: compiled random.random and getrandbits then draw
    exactly what that Random draws (twists included)."""
    source = random.Random(12345)
    mt = source.getstate()[1]
    _helperlib.rnd_set_state(_helperlib.rnd_get_py_state_ptr(), (mt[-1], list(mt[:-1])))
    for _ in range(N + 10):
        assert _py_random() == source.random()
    for bits in range(1, 65):
        assert _py_getrandbits(bits) == source.getrandbits(bits)


def test_helperlib_numpy_state_drives_compiled_np_random():
    source = np.random.RandomState(7)
    _, words, index = source.get_state()[:3]
    _helperlib.rnd_set_state(_helperlib.rnd_get_np_state_ptr(), (index, [int(w) for w in words]))
    for loc, scale in [(1.0, 1.0), (2.0, 0.5), (-2.0, 0.5)] * 200:
        assert _np_normal(loc, scale) == source.normal(loc, scale)


@pytest.mark.parametrize("seed", [0, 1, 125, 2**32 - 5])
def test_helperlib_seed_is_numpys_integer_seeding(seed):
    ptr = _helperlib.rnd_get_np_state_ptr()
    _helperlib.rnd_seed(ptr, seed)
    state = np.random.RandomState(seed).get_state()
    assert _helperlib.rnd_get_state(ptr) == (int(state[2]), [int(w) for w in state[1]])
    expected = np.random.RandomState(seed)
    assert [_np_random() for _ in range(700)] == [expected.random_sample() for _ in range(700)]


def test_helperlib_seed_with_bytes_gives_distinct_states_and_rejects_bad_seeds():
    ptr = _helperlib.rnd_get_py_state_ptr()
    states = set()
    for _ in range(5):
        _helperlib.rnd_seed(ptr, 0)
        _helperlib.rnd_seed(ptr, os.urandom(64))
        states.add(tuple(_helperlib.rnd_get_state(ptr)[1]))
    assert len(states) == 5
    with pytest.raises(ValueError):
        _helperlib.rnd_seed(ptr, -1)
    with pytest.raises(ValueError):
        _helperlib.rnd_get_state(12345)
    with pytest.raises(ValueError):
        _helperlib.rnd_set_state(ptr, (0, [1, 2, 3]))


def test_helperlib_shuffle_is_the_mersenne_twist():
    source = random.Random(99)
    mt = source.getstate()[1]
    ptr = _helperlib.rnd_get_py_state_ptr()
    _helperlib.rnd_set_state(ptr, (mt[-1], list(mt[:-1])))
    for _ in range(N):  # CPython twists on its 625th word: draw past it
        source.getrandbits(32)
    _helperlib.rnd_shuffle(ptr)
    assert _helperlib.rnd_get_state(ptr)[1] == list(source.getstate()[1][:-1])


# ---------------------------------------------------------------------------- bit generators


@njit
def _raw_draws(rng):
    bits = rng.bit_generator
    return next_uint32(bits), next_uint64(bits), next_double(bits), next_float(bits)


@pytest.mark.parametrize("bitgen", [np.random.PCG64, np.random.MT19937, np.random.Philox])
def test_raw_draws_follow_the_bit_generator(bitgen):
    compiled = np.random.Generator(bitgen(11))
    reference = np.random.Generator(bitgen(11))
    got = _raw_draws(compiled)
    raw = reference.bit_generator.ctypes
    expected_u32 = raw.next_uint32(raw.state)
    expected_u64 = raw.next_uint64(raw.state)
    expected_double = raw.next_double(raw.state)
    expected_float = np.float32((raw.next_uint32(raw.state) >> 8) * (1.0 / 16777216.0))
    assert got == (expected_u32, expected_u64, expected_double, expected_float)
    # the states advanced alike: the next draws agree
    assert compiled.random() == reference.random()


def test_raw_draws_in_python_match_compiled_ones():
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    python = (
        next_uint32(a.bit_generator),
        next_uint64(a.bit_generator),
        next_double(a.bit_generator),
        next_float(a.bit_generator),
    )
    assert python == _raw_draws(b)


def test_bit_generator_attribute_frees_all():
    assert_frees_all(_raw_draws, lambda: np.random.default_rng(1))


def test_get_proper_func_picks_by_float_dtype():
    assert _get_proper_func("f32", "f64", np.float32)[0] == "f32"
    assert _get_proper_func("f32", "f64", np.float64)[0] == "f64"
    with pytest.raises(TypingError, match="Argument dtype is not one of the expected type"):
        _get_proper_func("f32", "f64", np.int32)


# ---------------------------------------------------------------------------- Generator methods


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda rng, x: rng.normal(x), "loc"),
        (lambda rng, x: rng.normal(0.0, x), "scale"),
        (lambda rng, x: rng.beta(x, 1.0), "a"),
        (lambda rng, x: rng.random(size=(x,)), "size"),
        (lambda rng, x: rng.random(dtype=x), "dtype"),
        (lambda rng, x: rng.integers(x, 10), "low"),
        (lambda rng, x: rng.integers(0, 10, endpoint=x), "endpoint"),
        (lambda rng, x: rng.permutation(np.arange(3), axis=x), "axis"),
        (lambda rng, x: rng.shuffle(x), "x"),
        (lambda rng, x: rng.standard_exponential(method=len(x)), "method"),
    ],
)
def test_generator_argument_of_wrong_type_is_named(call, argument):
    with pytest.raises(TypingError, match=f"Argument {argument} is not one of the expected type"):
        njit(call)(np.random.default_rng(), "x")


@pytest.mark.parametrize("size", [(), None, 3, (2, 3)])
def test_generator_size_forms_follow_numpy(size):
    def draws(rng, size):
        return (
            rng.normal(1.0, 2.0, size=size),
            rng.integers(0, 10, size=size),
            rng.random(size),
            rng.poisson(3.0, size),
        )

    got = njit(draws)(np.random.default_rng(5), size)
    expected = draws(np.random.default_rng(5), size)
    for g, e in zip(got, expected):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_generator_permutation_and_shuffle_along_axes(axis):
    data = np.arange(60.0).reshape(3, 4, 5)

    def permute(rng, a, axis):
        return rng.permutation(a, axis=axis)

    def shuffle(rng, a, axis):
        rng.shuffle(a, axis=axis)
        return a

    np.testing.assert_array_equal(
        njit(permute)(np.random.default_rng(8), data, axis),
        permute(np.random.default_rng(8), data, axis),
    )
    np.testing.assert_array_equal(data, np.arange(60.0).reshape(3, 4, 5))  # permutation copies
    np.testing.assert_array_equal(
        njit(shuffle)(np.random.default_rng(8), data.copy(), axis),
        shuffle(np.random.default_rng(8), data.copy(), axis),
    )


@pytest.mark.parametrize("axis", [1, -2, 3])
def test_generator_axis_out_of_bounds_is_an_index_error(axis):
    with pytest.raises(IndexError, match="Axis is out of bounds"):
        njit(lambda rng, a, axis: rng.permutation(a, axis=axis))(
            np.random.default_rng(), np.arange(3), axis
        )
    with pytest.raises(IndexError):  # NumPy's AxisError is an IndexError too
        np.random.default_rng().permutation(np.arange(3), axis=axis)


def test_generator_shuffle_of_read_only_array_is_a_typing_error():
    frozen = np.arange(4)
    frozen.flags.writeable = False
    with pytest.raises(TypingError, match="read-only"):
        njit(lambda rng, a: rng.shuffle(a))(np.random.default_rng(), frozen)


@pytest.mark.parametrize("method", ["zig", "inv"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("size", [None, (), 7, (2, 3)])
def test_standard_exponential_methods_follow_numpy(method, dtype, size):
    def draw(rng, size, dtype, method):
        return rng.standard_exponential(size=size, dtype=dtype, method=method)

    got = njit(draw)(np.random.default_rng(21), size, dtype, method)
    expected = draw(np.random.default_rng(21), size, dtype, method)
    np.testing.assert_array_equal(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


def test_standard_exponential_unknown_method_is_a_value_error():
    with pytest.raises(ValueError, match="'inv' or 'zig'"):
        njit(lambda rng: rng.standard_exponential(method="fast"))(np.random.default_rng())


@pytest.mark.parametrize(
    "low, high, endpoint",
    [(0, 2**64 - 1, True), (0, 2**64 - 1, False), (5, 2**63 + 7, False), (3, 9, True),
     (2**63, 2**64 - 1, True), (0, 1, False)],
)  # fmt: skip
def test_integers_uint64_follow_numpy(low, high, endpoint):
    def draw(rng, low, high, endpoint):
        return rng.integers(low, high, size=6, dtype=np.uint64, endpoint=endpoint)

    got = njit(draw)(np.random.default_rng(4), low, high, endpoint)
    expected = draw(np.random.default_rng(4), low, high, endpoint)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("low, high, endpoint", [(-1, 10, False), (5, 5, False), (6, 5, True)])
def test_integers_uint64_errors_are_numpys(low, high, endpoint):
    def draw(rng, low, high, endpoint):
        return rng.integers(low, high, dtype=np.uint64, endpoint=endpoint)

    with pytest.raises(ValueError) as expected:
        draw(np.random.default_rng(), low, high, endpoint)
    with pytest.raises(ValueError, match=str(expected.value)):
        njit(draw)(np.random.default_rng(), low, high, endpoint)


# ---------------------------------------------------------------------------- random module


@njit
def _py_shuffle(seed, a):
    random.seed(seed)
    random.shuffle(a)
    return a


@pytest.mark.parametrize("shape", [(6, 2), (5, 3, 2), (1, 4), (0, 3)])
def test_random_shuffle_of_nd_arrays_moves_rows_in_cpythons_order(shape):
    data = np.arange(int(np.prod(shape))).reshape(shape)
    rows = list(range(shape[0]))
    random.Random(31).shuffle(rows)
    np.testing.assert_array_equal(_py_shuffle(31, data.copy()), data[rows])


def test_random_shuffle_of_read_only_array_is_a_typing_error():
    frozen = np.arange(4)
    frozen.flags.writeable = False
    with pytest.raises(TypingError, match="read-only"):
        _py_shuffle(1, frozen)
    with pytest.raises(TypingError, match="read-only"):
        njit(lambda a: np.random.shuffle(a))(frozen)


def test_getrandbits_bounds():
    with pytest.raises(OverflowError):
        _py_getrandbits(65)
    with pytest.raises(ValueError):
        _py_getrandbits(-1)
    assert _py_getrandbits(0) == 0


# ---------------------------------------------------------------------------- threads, processes


@njit(nogil=True)
def _np_stream(seed, out):
    if seed:
        np.random.seed(seed)
    for i in range(out.size):
        out[i] = np.random.randint(0, 2**31)


@njit(nogil=True)
def _py_stream(seed, out):
    if seed:
        random.seed(seed)
    for i in range(out.size):
        out[i] = random.getrandbits(31)


def _streams_in_threads(function, seed, count=4, length=300_000):
    outputs = [np.zeros(length, np.int64) for _ in range(count + 1)]
    barrier = threading.Barrier(count + 1)

    def run(k):
        barrier.wait()
        function(seed, outputs[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    run(count)
    for thread in threads:
        thread.join()
    return {out.tobytes() for out in outputs}


@pytest.mark.parametrize("function", [_np_stream, _py_stream])
def test_each_python_thread_draws_from_its_own_state(function):
    function(1, np.zeros(1, np.int64))  # compile first
    assert len(_streams_in_threads(function, 42)) == 1  # same seed, same stream, no interference
    assert len(_streams_in_threads(function, 0)) == 5  # unseeded threads differ


def test_seeded_thread_stream_is_numpys():
    out = np.zeros(1000, np.int64)
    thread = threading.Thread(target=_np_stream, args=(42, out))
    thread.start()
    thread.join()
    np.testing.assert_array_equal(out, np.random.RandomState(42).randint(0, 2**31, 1000))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_children_draw_different_np_random_numbers():
    _np_stream(5, np.zeros(1, np.int64))  # seeded in the parent: children must not repeat it
    results = set()
    for _ in range(2):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            out = np.zeros(8, np.int64)
            _np_stream(0, out)
            os.write(write, out.tobytes())
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            results.add(pipe.read())
        os.waitpid(pid, 0)
    parent = np.zeros(8, np.int64)
    _np_stream(0, parent)
    results.add(parent.tobytes())
    assert len(results) == 3


def test_random_code_compiles_under_an_invalid_threading_layer():
    code = (
        "import numpy as np, random, ember\n"
        "f = ember.njit(lambda: (np.random.seed(3), random.seed(3), np.random.random(),"
        " random.random()))\n"
        "print(f()[2:])\n"
    )
    env = dict(os.environ, EMBER_THREADING_LAYER="no-such-layer")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    np.random.seed(3)
    random.seed(3)
    assert done.stdout.strip() == str((np.random.random(), random.random()))


# ---------------------------------------------------------------------------- np.random sizes

_SIZED_CALLS = [
    "np.random.normal(0.0, 1.0, size)",
    "np.random.standard_normal(size)",
    "np.random.random(size)",
    "np.random.randint(0, 5, size)",
    "np.random.noncentral_chisquare(1.0, 1.0, size)",
    "np.random.dirichlet(np.ones(3), size)",
    "np.random.multinomial(5, np.ones(3) / 3, size)",
    "np.random.choice(5, size)",
    "np.random.choice(5, size, p=np.ones(5) / 5)",
]


@pytest.mark.parametrize("source", _SIZED_CALLS)
@pytest.mark.parametrize("size", [1.5, (1.5, 1), 3j])
def test_np_random_size_of_wrong_type_is_a_typing_error(source, size):
    function = njit(eval("lambda size: " + source))  # noqa: S307 - fixed sources above
    with pytest.raises(TypingError, match="size should be int or tuple of ints or None, got"):
        function(size)


@pytest.mark.parametrize("source", _SIZED_CALLS)
@pytest.mark.parametrize("size", [None, (), 4, (2, 3)])
def test_np_random_size_forms_give_numpys_shapes_and_numbers(source, size):
    python = eval("lambda size: " + source)  # noqa: S307 - fixed sources above
    np.random.seed(77)
    expected = python(size)
    seeded = njit(eval("lambda size: (np.random.seed(77), " + source + ")[1]"))  # noqa: S307
    got = seeded(size)
    assert np.shape(got) == np.shape(expected)
    np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------------------- parameter checks


def _numpy_error(call):
    try:
        call()
    except ValueError as error:
        return str(error)
    return None


_BINOMIAL_ARGS = [(-1, -1.0), (-1, 0.5), (5, 2.0), (-3, float("nan")), (4, 0.25)]
_HYPERGEOMETRIC_ARGS = [(-1, 10, 0), (10, -1, 0), (-1, -1, -5), (5, 5, 0), (-1, 10, 5),
                        (1, 1, 5), (-1, -1, -1), (3, 4, 2)]  # fmt: skip


@pytest.mark.parametrize("args", _BINOMIAL_ARGS)
def test_binomial_checks_parameters_in_numpys_order(args):
    legacy = _numpy_error(lambda: np.random.RandomState(0).binomial(*args))
    generator = _numpy_error(lambda: np.random.default_rng(0).binomial(*args))
    for compiled, expected in [
        (njit(lambda n, p: np.random.binomial(n, p)), legacy),
        (lambda n, p: njit(lambda r, n, p: r.binomial(n, p))(np.random.default_rng(0), n, p),
         generator),
    ]:  # fmt: skip
        assert _numpy_error(lambda: compiled(*args)) == expected


@pytest.mark.parametrize("args", _HYPERGEOMETRIC_ARGS)
def test_hypergeometric_checks_parameters_in_numpys_order(args):
    legacy = _numpy_error(lambda: np.random.RandomState(0).hypergeometric(*args))
    generator = _numpy_error(lambda: np.random.default_rng(0).hypergeometric(*args))
    compiled_legacy = njit(lambda g, b, s: np.random.hypergeometric(g, b, s))
    compiled_generator = njit(lambda r, g, b, s: r.hypergeometric(g, b, s))
    assert _numpy_error(lambda: compiled_legacy(*args)) == legacy
    assert _numpy_error(lambda: compiled_generator(np.random.default_rng(0), *args)) == generator


@pytest.mark.parametrize("endpoint", [False, True])
@pytest.mark.parametrize("size", [None, (), 10, (3, 4)])
def test_integers_take_bool_bounds(endpoint, size):
    def draw(rng, size, endpoint):
        return rng.integers(False, True, size=size, dtype=np.bool_, endpoint=endpoint)

    got = njit(draw)(np.random.default_rng(2), size, endpoint)
    expected = draw(np.random.default_rng(2), size, endpoint)
    np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------------------- array parameters

_ARRAY_PARAMETER_CASES = [
    ("normal", (np.array([0.0, 1.0, 5.0]), 2.0)),
    ("normal", (np.arange(6.0).reshape(2, 3), np.array([0.5, 1.0, 2.0]))),
    ("uniform", (np.zeros(4), np.arange(1.0, 5.0))),
    ("exponential", (np.array([1.0, 2.0, 3.0]),)),
    ("gamma", (np.array([0.5, 2.0, 9.0]), np.array([[1.0], [2.0]]))),
    ("poisson", (np.array([0.5, 3.0, 20.0, 200.0]),)),
    ("binomial", (np.array([1, 10, 100]), 0.3)),
    ("beta", (np.array([0.5, 2.0]), np.array([0.3, 4.0]))),
    ("lognormal", (np.arange(3.0), 0.5)),
    ("chisquare", (np.arange(1, 5),)),
    ("triangular", (np.zeros(3), np.array([0.2, 0.5, 0.9]), 1.0)),
    ("hypergeometric", (np.array([5, 10, 20]), 7, 4)),
    ("zipf", (np.array([1.5, 2.5, 4.0]),)),
]


def _seeded_call(name, count, with_size):
    names = ", ".join(f"p{i}" for i in range(count))
    size = ", size=size" if with_size else ""
    head = f"{names}, size" if with_size else names
    source = f"lambda {head}: (np.random.seed(9), np.random.{name}({names}{size}))[1]"
    return eval(source)  # noqa: S307 - a fixed template over the names above


@pytest.mark.parametrize("name, args", _ARRAY_PARAMETER_CASES)
def test_array_parameters_broadcast_and_draw_numpys_numbers(name, args):
    python = _seeded_call(name, len(args), False)
    expected = python(*args)
    got = njit(python)(*args)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if got.dtype.kind == "f":
        np.testing.assert_array_max_ulp(got, expected, 4)
    else:
        np.testing.assert_array_equal(got, expected)
    size = (4, *np.broadcast_shapes(*[np.shape(a) for a in args]))
    sized = _seeded_call(name, len(args), True)
    expected = sized(*args, size)
    got = njit(sized)(*args, size)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-13)


@pytest.mark.parametrize(
    "name, args",
    [("normal", (np.zeros(3), np.array([1.0, -1.0, 1.0]))),
     ("uniform", (np.zeros(2), np.array([1.0, np.inf]))),
     ("poisson", (np.array([1.0, -2.0]),)),
     ("binomial", (np.array([1, -1]), 0.5)),
     ("normal", (np.zeros(3), np.ones(2)))],
)  # fmt: skip
def test_array_parameter_errors_are_numpys(name, args):
    names = ", ".join(f"p{i}" for i in range(len(args)))
    python = eval(f"lambda {names}: np.random.{name}({names})")  # noqa: S307 - fixed template
    with pytest.raises(Exception) as expected:
        python(*args)
    with pytest.raises(type(expected.value)) as got:
        njit(python)(*args)
    if name != "normal" or "scale" in str(expected.value):  # a shape mismatch words differ
        assert str(got.value) == str(expected.value)


def test_array_parameters_free_all():
    draw = njit(lambda loc: np.random.normal(loc, 1.0, (3, 4)))
    assert_frees_all(draw, lambda: np.arange(4.0))
