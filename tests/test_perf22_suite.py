"""np.random draws inlined into the caller's loop (slow paths out of line, the thread's state
row looked up once): seeded streams still equal NumPy's RandomState and CPython's Random across
refills, per-thread streams stay apart, and the `_llvm_inline` option of ember's own helpers."""

import math
import random
import threading

import numpy as np
import pytest

from ember import njit

WORDS = 624  # MT19937 outputs per refill


@njit
def _doubles(seed, n):
    """n doubles from the aliases of np.random.random, in turn."""
    np.random.seed(seed)
    out = np.empty(n)
    for i in range(0, n - 2, 3):
        out[i] = np.random.random_sample()
        out[i + 1] = np.random.ranf()
        out[i + 2] = np.random.sample()
    for i in range(n - n % 3, n):
        out[i] = np.random.random()
    return out


@njit
def _mixed(seed, n, high):
    """Draws of one and two outputs interleaved: doubles straddle every refill position."""
    np.random.seed(seed)
    ints = np.empty(n, np.int64)
    doubles = np.empty(n)
    for i in range(n):
        ints[i] = np.random.randint(0, high)
        doubles[i] = np.random.random()
    return ints, doubles


def _numpy_mixed(seed, n, high):
    state = np.random.RandomState(seed)
    ints = np.empty(n, np.int64)
    doubles = np.empty(n)
    for i in range(n):
        ints[i] = state.randint(0, high)
        doubles[i] = state.random_sample()
    return ints, doubles


@pytest.mark.parametrize("seed", [0, 1, 42, 2**32 - 1])
def test_seeded_doubles_equal_numpys_over_several_refills(seed):
    got = _doubles(seed, 5 * WORDS + 3)
    expected = np.random.RandomState(seed).random_sample(5 * WORDS + 3)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("skip", [0, 1, 2, 3, 621, 622, 623])
def test_a_double_starting_at_any_position_equals_numpys(skip):
    """After `skip` single outputs the next doubles start at every offset of the key, including
    the two whose words straddle a refill (position 623) or start one (624)."""

    @njit
    def draw(seed, skip, n):
        np.random.seed(seed)
        for _ in range(skip):
            np.random.randint(0, 2**31)
        out = np.empty(n)
        for i in range(n):
            out[i] = np.random.random()
        return out

    state = np.random.RandomState(7)
    for _ in range(skip):
        state.randint(0, 2**31)
    np.testing.assert_array_equal(draw(7, skip, 700), state.random_sample(700))


@pytest.mark.parametrize("high", [1, 2, 3, 7, 64, 1000, 2**31, 2**32, 2**32 + 1, 2**40, 2**62])
def test_interleaved_integers_and_doubles_equal_numpys(high):
    got_ints, got_doubles = _mixed(11, 900, high)
    ints, doubles = _numpy_mixed(11, 900, high)
    np.testing.assert_array_equal(got_ints, ints)
    np.testing.assert_array_equal(got_doubles, doubles)


def test_integers_with_a_low_bound_and_random_integers_equal_numpys():
    @njit
    def draw(n):
        np.random.seed(3)
        out = np.empty((n, 3), np.int64)
        for i in range(n):
            out[i, 0] = np.random.randint(-5, 5)
            out[i, 1] = np.random.randint(-(2**40), 2**40)
            out[i, 2] = np.random.random_integers(1, 6)
        return out

    state = np.random.RandomState(3)
    expected = np.empty((700, 3), np.int64)
    for i in range(700):
        expected[i, 0] = state.randint(-5, 5)
        expected[i, 1] = state.randint(-(2**40), 2**40)
        expected[i, 2] = state.randint(1, 7)  # random_integers(1, 6) is randint(1, 7)
    np.testing.assert_array_equal(draw(700), expected)


def test_uniform_normal_and_sized_draws_equal_numpys():
    @njit
    def draw(n):
        np.random.seed(9)
        out = np.empty((n, 3))
        for i in range(n):
            out[i, 0] = np.random.uniform(-2.0, 3.0)
            out[i, 1] = np.random.normal(1.0, 0.5)
            out[i, 2] = np.random.standard_normal()
        return out, np.random.rand(5, 3), np.random.randint(0, 9, 11)

    state = np.random.RandomState(9)
    expected = np.empty((400, 3))
    for i in range(400):
        expected[i] = state.uniform(-2.0, 3.0), state.normal(1.0, 0.5), state.standard_normal()
    got, rand, ints = draw(400)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(rand, state.rand(5, 3))
    np.testing.assert_array_equal(ints, state.randint(0, 9, 11))


def test_bad_bounds_still_raise_from_an_inlined_draw():
    @njit
    def draw(low, high):
        total = 0
        for _ in range(3):
            total += np.random.randint(low, high)
        return total

    with pytest.raises(ValueError, match="low >= high"):
        draw(5, 5)
    with pytest.raises(ValueError, match="low >= high"):
        draw(6, -1)
    assert 0 <= draw(0, 4) <= 9


def test_a_draw_only_on_some_iterations_keeps_numpys_stream():
    """The row lookup of a draw under a condition is hoisted (speculated): the numbers drawn
    are still the same as NumPy's, in the same order."""

    @njit
    def metropolis(seed, n, beta):
        np.random.seed(seed)
        accepted = 0
        for i in range(n):
            energy = (i % 7) - 3.0
            if energy <= 0.0 or np.random.random() < math.exp(-beta * energy):
                accepted += 1
        return accepted, np.random.random()

    def python(seed, n, beta):
        state = np.random.RandomState(seed)
        accepted = 0
        for i in range(n):
            energy = (i % 7) - 3.0
            if energy <= 0.0 or state.random_sample() < math.exp(-beta * energy):
                accepted += 1
        return accepted, state.random_sample()

    for seed in (0, 5, 123):
        assert metropolis(seed, 3000, 0.4) == python(seed, 3000, 0.4)


def test_python_random_streams_equal_cpythons_across_refills():
    @njit
    def draw(seed, n):
        random.seed(seed)
        out = np.empty(n)
        for i in range(n):
            out[i] = random.random() + random.getrandbits(5)
        return out

    source = random.Random(21)
    expected = [source.random() + source.getrandbits(5) for _ in range(1500)]
    np.testing.assert_array_equal(draw(21, 1500), np.array(expected))


def test_threads_draw_their_own_seeded_streams_at_the_same_time():
    """Each thread seeds and draws in a loop whose row lookup is hoisted: its numbers are its
    own seed's, whatever the other threads do meanwhile."""

    @njit(nogil=True)
    def draw(seed, n):
        np.random.seed(seed)
        total = np.empty(n)
        for i in range(n):
            total[i] = np.random.random() + np.random.randint(0, 10)
        return total

    def expected(seed, n):
        state = np.random.RandomState(seed)
        out = np.empty(n)
        for i in range(n):
            out[i] = state.random_sample()
            out[i] += state.randint(0, 10)
        return out

    draw(0, 1)
    results = {}

    def work(seed):
        for _ in range(5):
            results[seed] = draw(seed, 20_000)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in (1, 2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for seed in (1, 2, 3):
        np.testing.assert_array_equal(results[seed], expected(seed, 20_000))


# ---------------------------------------------------------------------------- the optimized IR


def _optimized_ir(dispatcher):
    (ir,) = dispatcher.inspect_llvm().values()
    return ir


def _function_body(ir, name):
    """The text of the definition of the function whose symbol contains `name`."""
    start = next(
        i for i, line in enumerate(ir.splitlines()) if line.startswith("define") and name in line
    )
    lines = ir.splitlines()[start:]
    return "\n".join(lines[: lines.index("}") + 1])


def _calls_to(ir, fragment):
    return [line for line in ir.splitlines() if " call " in line and fragment in line]


def test_draws_inline_and_their_refill_stays_a_call():
    @njit
    def pi(n):
        """Twice the volume of the unit sphere's positive octant, from 3 draws a point."""
        np.random.seed(42)
        inside = 0
        for _ in range(n):
            x, y, z = np.random.random(), np.random.random(), np.random.random()
            inside += x * x + y * y + z * z <= 1.0
        return 6.0 * inside / n

    def python(n):
        state = np.random.RandomState(42)
        inside = 0
        for _ in range(n):
            x, y, z = state.random_sample(3)
            inside += x * x + y * y + z * z <= 1.0
        return 6.0 * inside / n

    assert pi(5000) == python(5000)
    ir = _function_body(_optimized_ir(pi), ".pi$")
    assert not _calls_to(ir, "_standard"), "np.random.random() is inlined"
    assert _calls_to(ir, "_draw_double_across"), "the draw across a refill stays out of line"
    # one lookup for the seed, one for the loop's draws (hoisted): not one per draw
    assert len(_calls_to(ir, "@ember.random.thread_row")) == 2


def test_integer_draws_inline_with_their_lookups_hoisted():
    @njit
    def sweep(n, m):
        np.random.seed(5)
        total = 0.0
        for _ in range(m):
            i = np.random.randint(0, n)
            j = np.random.randint(0, n)
            if (i + j) % 3 == 0 and np.random.random() < 0.5:
                total += 1.0
        return total

    state = np.random.RandomState(5)
    total = 0.0
    for _ in range(4000):
        i, j = state.randint(0, 10), state.randint(0, 10)
        if (i + j) % 3 == 0 and state.random_sample() < 0.5:
            total += 1.0
    assert sweep(10, 4000) == total
    ir = _optimized_ir(sweep)
    assert "define" in _function_body(ir, "_twist_impl"), "the refill stays a function"
    body = _function_body(ir, ".sweep$")
    assert not _calls_to(body, "_randint_scalar")
    # the seed's, randint's and random's: each once, none per iteration
    assert len(_calls_to(body, "@ember.random.thread_row")) <= 3


# ---------------------------------------------------------------------------- _llvm_inline


def _helper_total(a):
    return np.sum(a) * 2.0


def test_llvm_inline_never_keeps_the_helper_a_call_and_overloads_do_not_inherit_it():
    helper = njit(_llvm_inline="never")(_helper_total)

    @njit
    def caller(a):
        return helper(a) + helper(a[1:])

    a = np.arange(10.0)
    assert caller(a) == _helper_total(a) + _helper_total(a[1:])
    ir = _optimized_ir(caller)
    assert len(_calls_to(_function_body(ir, ".caller$"), "_helper_total")) == 2
    # np.sum's implementation is compiled without the helper's "never": inlined into it
    assert not _calls_to(_function_body(ir, "_helper_total"), "sum")


def test_llvm_inline_always_inlines_a_large_helper():
    def big(x):
        total = 0.0
        for k in range(1, 40):
            total += math.sin(x * k) / k + math.cos(x / k) * k
        return total

    helper = njit(_llvm_inline="always")(big)

    @njit
    def caller(x):
        return helper(x) + helper(x + 1.0) + helper(x + 2.0)

    assert caller(0.5) == pytest.approx(big(0.5) + big(1.5) + big(2.5), rel=1e-12)
    assert not _calls_to(_optimized_ir(caller), "big")


def test_llvm_inline_rejects_unknown_values():
    with pytest.raises(ValueError, match="_llvm_inline"):
        njit(_llvm_inline="sometimes")(_helper_total)
