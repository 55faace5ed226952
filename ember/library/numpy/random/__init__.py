"""np.random in compiled code: the legacy functions on ember's own state, their further
distributions, and `numpy.random.Generator` on NumPy's own C distribution functions."""
