"""Differential fuzzing of ember: random programs (generator), their CPython reference
(reference), a subprocess pool that runs both (worker, pool), a shrinker and regression files."""
