"""The `njit` the corpus modules decorate their helper functions with, and the typed `Dict`,
`List` and `types` they build containers with, as a user's module imports them from Numba.
`_corpus.load` points them at ember's, Numba's, or (for the pure-Python reference) the identity
decorator and ember's containers run by the interpreter, before it loads each copy of a
module."""


def identity(func=None, **options):
    """A decorator that leaves the function plain: the pure-Python reference."""
    del options
    return func if func is not None else (lambda f: f)


njit = identity
Dict = List = types = None
