"""Other objects of the language in compiled code: jitclass instances and their protocol
dunders, generators, Optional values, tuples of jitted functions, and type expressions."""
