"""Numba's `numba.core.unsafe` intrinsics for extension code: `.bytes` (`memcpy_region`),
`.refcount` (`dump_refcount`) and `.nrt` (`NRT_get_api`)."""
