"""The `njit` the corpus modules decorate their helper functions with, as a user's module imports
it from Numba. `_corpus.load` points it at ember's, Numba's, or (for the pure-Python reference)
the identity decorator before it loads each copy of a module."""


def identity(func=None, **options):
    """A decorator that leaves the function plain: the pure-Python reference."""
    del options
    return func if func is not None else (lambda f: f)


njit = identity
