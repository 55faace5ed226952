"""Crossing between compiled code and Python or C: `@box`/`@unbox` of ember's scalar types,
ctypes function objects, and typed C pointers."""
