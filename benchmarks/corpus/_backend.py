"""The `njit` the corpus modules decorate their helper functions with, as a user's module imports
it from Numba. `_corpus.load` points it at ember's, Numba's, or (for the pure-Python reference)
an identity decorator before it loads each copy of a module."""


def njit(func=None, **options):
    """Identity decorator: the pure-Python reference runs helpers as plain functions."""
    del options
    return func if func is not None else (lambda f: f)
