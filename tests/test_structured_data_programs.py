"""Small programs of the kind scientists write over structured data (particle tables with record
fields, labels in NumPy string arrays, nested and sub-array fields), each compiled with
`import ember as numba` and checked against the same function run by Python and NumPy."""

import numpy as np
import pytest

import ember as numba

PARTICLE = np.dtype(
    [("x", "f8"), ("y", "f8"), ("vx", "f8"), ("vy", "f8"), ("mass", "f8"), ("species", "U8")]
)
STAR = np.dtype([("pos", [("x", "f8"), ("y", "f8"), ("z", "f8")]), ("lum", "f4"), ("id", "i8")])
BODY = np.dtype([("r", "f8", (3,)), ("v", "f8", (3,)), ("m", "f8")])
EVENT = np.dtype([("run", "i4"), ("energy", "f8"), ("ok", "?"), ("code", "S4")])
SPECIES = np.array(["electron", "proton", "pion", "kaon", "muon"])


def particles(n=12, seed=0):
    rng = np.random.default_rng(seed)
    table = np.zeros(n, PARTICLE)
    for name in ("x", "y", "vx", "vy"):
        table[name] = rng.normal(size=n)
    table["mass"] = rng.uniform(0.5, 2.0, n)
    table["species"] = SPECIES[rng.integers(0, len(SPECIES), n)]
    return table


def stars(n=9, seed=1):
    rng = np.random.default_rng(seed)
    table = np.zeros(n, STAR)
    for axis in "xyz":
        table["pos"][axis] = rng.normal(size=n)
    table["lum"] = rng.uniform(0.1, 5.0, n).astype(np.float32)
    table["id"] = np.arange(n) * 7 + 3
    return table


def bodies(n=6, seed=2):
    rng = np.random.default_rng(seed)
    table = np.zeros(n, BODY)
    table["r"] = rng.normal(size=(n, 3))
    table["v"] = rng.normal(size=(n, 3))
    table["m"] = rng.uniform(1.0, 3.0, n)
    return table


def events(n=10, seed=3):
    rng = np.random.default_rng(seed)
    table = np.zeros(n, EVENT)
    table["run"] = rng.integers(1, 4, n)
    table["energy"] = rng.exponential(10.0, n)
    table["ok"] = rng.random(n) < 0.7
    table["code"] = np.array([b"MU", b"EL", b"PI"])[rng.integers(0, 3, n)]
    return table


# ---------------------------------------------------------------------------- particle tables


def center_of_mass(p):
    total = 0.0
    cx = 0.0
    cy = 0.0
    for i in range(p.shape[0]):
        total += p[i].mass
        cx += p[i].mass * p[i].x
        cy += p[i].mass * p[i].y
    return cx / total, cy / total


def kinetic_energy(p):
    return 0.5 * np.sum(p.mass * (p.vx**2 + p.vy**2))


def drift(p, dt, steps):
    for _ in range(steps):
        for i in range(p.shape[0]):
            p[i].x += p[i].vx * dt
            p[i]["y"] = p[i]["y"] + p[i]["vy"] * dt
    return p.x.sum()


def mass_by_species(p):
    totals = {}
    for i in range(p.shape[0]):
        name = p[i].species
        totals[name] = totals.get(name, 0.0) + p[i].mass
    return totals


def heaviest_name(p):
    best = 0
    for i in range(1, p.shape[0]):
        if p[i].mass > p[best].mass:
            best = i
    return p[best].species, p.mass[best]


def fast_pions(p, speed):
    found = []
    for i in range(p.shape[0]):
        if p[i].species == "pion" and np.sqrt(p[i].vx ** 2 + p[i].vy ** 2) > speed:
            found.append(i)
    return found


def order_by_x(p):
    order = np.argsort(p.x)
    ids = np.empty(p.shape[0], np.int64)
    for k in range(order.shape[0]):
        ids[k] = order[k]
    return ids, p.x[order[0]]


def x_histogram(p):
    counts, edges = np.histogram(p.x, bins=4)
    return counts, edges


def relabel(p):
    for i in range(p.shape[0]):
        if p[i].species.startswith("p"):
            p[i].species = p[i].species.upper()
        elif p[i].species == "electron":
            p[i].species = "e-"
    return p[0].species


def iterate_records(p):
    momentum = 0.0
    for row in p:
        momentum += row.mass * row.vx
    return momentum


# ---------------------------------------------------------------------------- string arrays


def label_counts(labels):
    counts = {}
    for name in labels:
        counts[name] = counts.get(name, 0) + 1
    return counts


def longest_label(labels):
    best = labels[0]
    for i in range(1, labels.shape[0]):
        if len(labels[i]) > len(best):
            best = labels[i]
    return best, len(best)


def joined_labels(labels):
    return ",".join([labels[i] for i in range(labels.shape[0])])


def label_index(labels):
    index = {}
    for i in range(labels.shape[0]):
        if labels[i] not in index:
            index[labels[i]] = i
    return index


def distinct_sorted(labels):
    return sorted(set([labels[i] for i in range(labels.shape[0])]))


def mean_by_label(labels, values):
    sums = {}
    counts = {}
    for i in range(labels.shape[0]):
        key = labels[i]
        sums[key] = sums.get(key, 0.0) + values[i]
        counts[key] = counts.get(key, 0) + 1
    return {key: sums[key] / counts[key] for key in sums}


# ---------------------------------------------------------------------------- nested records


def brightest_distance(s):
    best = 0
    for i in range(s.shape[0]):
        if s[i].lum > s[best].lum:
            best = i
    p = s[best].pos
    return s[best].id, np.sqrt(p.x**2 + p.y**2 + p.z**2)


def shift_stars(s, dx):
    for i in range(s.shape[0]):
        s[i].pos.x += dx
    s.pos.z[0] = -1.0
    return s["pos"]["x"].sum()


# ---------------------------------------------------------------------------- sub-array fields


def pair_distances(b):
    n = b.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            d = b[i].r - b[j].r
            out[i, j] = np.sqrt(np.sum(d * d))
    return out


def leapfrog(b, dt):
    for i in range(b.shape[0]):
        for k in range(3):
            b[i].r[k] += dt * b[i].v[k]
    return np.sum(b.r, axis=0)


def total_momentum(b):
    p = np.zeros(3)
    for body in b:
        p += body.m * body.v
    return p


# ---------------------------------------------------------------------------- events


def energy_by_run(e):
    totals = np.zeros(4)
    for i in range(e.shape[0]):
        if e[i].ok:
            totals[e[i].run] += e[i].energy
    return totals


def muon_energy(e):
    total = 0.0
    for i in range(e.shape[0]):
        if e[i].code == b"MU":
            total += e[i]["energy"]
    return total


def selected_energies(e, threshold):
    mask = e.ok & (e.energy > threshold)
    return e.energy[mask]


def build_table(n):
    table = np.zeros(n, EVENT)
    for i in range(n):
        table[i].run = i % 3 + 1
        table[i].energy = i * 1.5
        table[i].ok = i % 2 == 0
        table[i].code = "MU" if i % 2 == 0 else "EL"
    return table


@numba.njit
def speed_squared(row):
    return row.vx**2 + row.vy**2


def fastest_by_helper(p):
    best = 0
    for i in range(p.shape[0]):
        if speed_squared(p[i]) > speed_squared(p[best]):  # a record passed to a jitted helper
            best = i
    return best, p[best].species


def run_numbers(tags):
    return [int(tags[i].split("-")[1]) for i in range(tags.shape[0]) if tags[i].startswith("run")]


def names_in_mass_order(p):
    order = np.argsort(p.mass)
    return [p[k].species for k in order]


def species_sorted_by_name(p):
    order = np.argsort(p.species, kind="mergesort")  # stable: ties keep their order
    return p.mass[order]


TAGS = np.array(["run-12", "cal-3", "run-7", "run-100"])

PROGRAMS = [
    (fastest_by_helper, particles, ()),
    (run_numbers, lambda: TAGS, ()),
    (names_in_mass_order, particles, ()),
    (species_sorted_by_name, particles, ()),
    (center_of_mass, particles, ()),
    (kinetic_energy, particles, ()),
    (mass_by_species, particles, ()),
    (heaviest_name, particles, ()),
    (fast_pions, particles, (1.0,)),
    (order_by_x, particles, ()),
    (x_histogram, particles, ()),
    (iterate_records, particles, ()),
    (label_counts, lambda: particles()["species"].copy(), ()),
    (longest_label, lambda: SPECIES, ()),
    (joined_labels, lambda: particles()["species"].copy(), ()),
    (label_index, lambda: particles()["species"].copy(), ()),
    (distinct_sorted, lambda: particles()["species"].copy(), ()),
    (brightest_distance, stars, ()),
    (pair_distances, bodies, ()),
    (total_momentum, bodies, ()),
    (energy_by_run, events, ()),
    (muon_energy, events, ()),
    (selected_energies, events, (10.0,)),
]
WRITERS = [
    (drift, particles, (0.1, 3)),
    (relabel, particles, ()),
    (shift_stars, stars, (0.5,)),
    (leapfrog, bodies, (0.01,)),
]


def assert_same(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for ours, theirs in zip(got, expected):
            assert_same(ours, theirs)
    elif isinstance(expected, (np.ndarray, np.floating, float)):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    else:
        assert got == expected


@pytest.mark.parametrize("func, make, args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_reading_programs(func, make, args):
    data = make()
    assert_same(numba.njit(func)(data, *args), func(data.view(np.recarray), *args))


@pytest.mark.parametrize("func, make, args", WRITERS, ids=[w[0].__name__ for w in WRITERS])
def test_writing_programs(func, make, args):
    ours, theirs = make(), make()
    assert_same(numba.njit(func)(ours, *args), func(theirs.view(np.recarray), *args))
    assert ours.tobytes() == theirs.tobytes()


def test_mean_by_label():
    labels, values = particles()["species"].copy(), np.arange(12.0)
    assert numba.njit(mean_by_label)(labels, values) == mean_by_label(labels, values)


def test_table_built_in_compiled_code():
    made = numba.njit(build_table)(5)
    expected = np.zeros(5, EVENT)
    for i in range(5):
        expected[i] = (i % 3 + 1, i * 1.5, i % 2 == 0, b"MU" if i % 2 == 0 else b"EL")
    assert made.dtype == EVENT
    assert made.tobytes() == expected.tobytes()
