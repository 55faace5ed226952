import ember as numba
from ember import njit, types
from ember.typed import Dict, List
import numpy as np

@njit
def group_by(keys, vals):
    d = {}
    for k, v in zip(keys, vals):
        if k not in d:
            d[k] = List.empty_list(types.float64)
        d[k].append(v)
    return d

g = group_by(np.array([1, 2, 1, 3, 2]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
print(sorted((k, list(v)) for k, v in g.items()))

@njit
def tuple_keys(n):
    d = dict()
    for i in range(n):
        d[(i, i % 2)] = i * 1.5
    return d[(2, 0)], len(d), d.get((9, 9), -1.0)
print(tuple_keys(4))

d = Dict()
d["a"] = 1.0
d["b"] = 2.0
@njit
def incr(d):
    for k in d.keys():
        d[k] += 1
    d["c"] = 10.0
    t = 0.0
    for v in d.values():
        t += v
    return t
print(incr(d), dict(d))

@njit
def pop_del(d):
    v = d.pop("a")
    del d["b"]
    return v, len(d), "c" in d
print(pop_del(d))

dt = Dict.empty(key_type=types.UniTuple(types.int64, 2), value_type=types.int64)
dt[(1, 2)] = 3
print(dict(dt))
