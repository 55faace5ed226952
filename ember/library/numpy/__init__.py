"""Arrays and NumPy in compiled code: array attributes, indexing, methods and records; ufuncs and
NumPy's functions by theme; `linalg/` (BLAS and LAPACK) and `random/` (np.random and Generator).
`register` imports them all, once NumPy itself is imported."""
