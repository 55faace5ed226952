"""Numba's pointer and marker types for extension code: `CPointer(dtype)` (a typed C pointer,
indexable in compiled code), `EphemeralPointer(dtype)`, `MemInfoPointer(dtype)` (an owned
reference to a runtime memory block), `voidptr`, `VarArg(spec)` (any number
of trailing arguments in a `@lower_builtin` spec) and `AnyType` (`types.Any` matches every type
there)."""

from __future__ import annotations

from ember.types.abstract import Type
from ember.types.arrays import data_pointer


class CPointer(Type):
    """A pointer to values of `dtype` (`ptr[i]` reads, `ptr[i] = v` writes)."""

    def __init__(self, dtype: Type, addrspace: int | None = None) -> None:
        self.dtype = dtype
        self.addrspace = addrspace
        super().__init__(f"CPointer({dtype})")

    @property
    def key(self) -> tuple:
        return (self.dtype, self.addrspace)

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.addrspace)


class EphemeralPointer(CPointer):
    """A pointer to a stack slot of the function that made it (Numba's name, used by iterator
    structs holding their mutable position): modelled as a `CPointer`."""

    def __init__(self, dtype: Type, addrspace: int | None = None) -> None:
        super().__init__(dtype, addrspace)
        self.name = f"EphemeralPointer({dtype})"


class MemInfoPointer(Type):
    """A pointer to a runtime memory block (a meminfo) whose data holds `dtype`: a value of
    this type owns one reference to the block, counted like an array's (a C function returning
    one, e.g. made with the C API's manage_memory, hands over its reference)."""

    def __init__(self, dtype: Type) -> None:
        self.dtype = dtype
        super().__init__(f"memory-managed *{dtype}")  # Numba's name

    @property
    def key(self) -> Type:
        return self.dtype

    def _rebuild_args(self) -> tuple:
        return (self.dtype,)


class VarArg:
    """`VarArg(spec)` as the last argument spec of `@lower_builtin`: any number of trailing
    arguments, each matching `spec` (not a type of any value)."""

    def __init__(self, dtype: object) -> None:
        self.dtype = dtype

    @property
    def spec(self) -> object:
        return self.dtype


class AnyType(Type):
    """`types.Any` in an argument spec: matches every type."""


voidptr = data_pointer  # Numba's RawPointer('void*')
