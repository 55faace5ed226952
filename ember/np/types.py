"""Numba's `numba.np.types` path: the NumPy-specific types (datetimes, arrays, dtypes, records)
are ember's types, one home in ember.types."""

from ember.types import Array, DType, NPDatetime, NPTimedelta, Record

__all__ = ["Array", "DType", "NPDatetime", "NPTimedelta", "Record"]
