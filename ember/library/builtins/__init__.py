"""Python's builtins and number modules in compiled code: numeric builtins, methods of numbers,
`math` and `cmath`, `hash`, `print`, ranges, slices, sorted/min/max with a key, enumerate and
zip, and the integer-scalar rules shared with NumPy."""
