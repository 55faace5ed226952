"""np.linalg in compiled code on SciPy's BLAS and LAPACK: matrix products and norms, and the
decompositions."""
