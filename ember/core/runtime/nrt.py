"""Numba's `numba.core.runtime.nrt.MemInfo`: a Python handle on a runtime block's header, to
inspect (`refcount`, `data`) and hold (`acquire`, `release`) the block a jitclass instance or
an array owns."""

from __future__ import annotations

from ember.runtime import nrt as _nrt


class MemInfo:
    """`MemInfo(address)`: the block headed at `address`; holds no reference until `acquire`,
    and gives back the references it took when collected."""

    def __init__(self, address: int) -> None:
        if not address:
            raise ValueError("MemInfo needs the address of a runtime block, not NULL")
        self.address = address
        self._held = 0

    @classmethod
    def adopt(cls, address: int) -> MemInfo:
        """A MemInfo taking over the one reference a new block starts with."""
        info = cls(address)
        info._held = 1
        return info

    @property
    def refcount(self) -> int:
        return _nrt.refcount(self.address)

    @property
    def data(self) -> int:
        """The address of the block's data."""
        return _nrt.data_address(self.address)

    def acquire(self) -> None:
        _nrt.runtime().incref(self.address)
        self._held += 1

    def release(self) -> None:
        if self._held == 0:
            raise RuntimeError("MemInfo.release without a matching acquire")
        self._held -= 1
        _nrt.runtime().decref(self.address)

    def __del__(self) -> None:
        while getattr(self, "_held", 0):
            self.release()


__all__ = ["MemInfo"]
