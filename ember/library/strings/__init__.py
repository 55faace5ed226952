"""`str` and `bytes` in compiled code: the core operations, methods, case mappings and
predicates with CPython's Unicode tables, conversions to and from numbers, and `format`."""
