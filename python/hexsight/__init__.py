"""hexsight: exact line of sight, viewsheds, exposure and visibility matrices on hex maps.

The engine is hexsight's Rust library; every call releases the GIL while it runs.
Arrays are in map index order: ``Map.labels[i]`` is hex ``i``.

>>> import hexsight
>>> m = hexsight.load("maps/hill-112.json")
>>> m.los("H7", "B9")["verdict"]
'blocked'
>>> sees, seen_by = m.exposure()

What if: ``hexsight.load(path, layers=[...])`` or ``Map.with_layers`` lays scenario
layers on a map, ``Map.diff`` compares two maps of one grid, ``Map.min_height`` gives
each hex's lowest visible height (``NOT_SEEN`` where none up to the limit).
"""

import numpy as np

from ._hexsight import NOT_SEEN, CancelledError, HexsightError, Map, TooLargeError, generate, load

__all__ = [
    "NOT_SEEN",
    "CancelledError",
    "HexsightError",
    "Map",
    "TooLargeError",
    "generate",
    "load",
    "unpack",
]


def unpack(bits: np.ndarray, cols: int) -> np.ndarray:
    """Expands ``Map.matrix``'s packed uint64 rows to a ``(rows, cols)`` bool array."""
    bits = np.ascontiguousarray(bits, dtype="<u8")
    if bits.ndim != 2 or bits.shape[1] * 64 < cols:
        raise ValueError(f"a packed matrix of {cols} columns needs {-(-cols // 64)} words a row")
    unpacked = np.unpackbits(bits.view(np.uint8), axis=1, bitorder="little")
    return unpacked[:, :cols].astype(bool)
