"""Type stubs of hexsight's native module (python/src/lib.rs)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, PathLike[str]]

class HexsightError(Exception):
    """A map, ruleset or query hexsight refuses; the message is the CLI's one line."""

class TooLargeError(HexsightError):
    """The request needs more memory than there is; nothing was computed."""

class CancelledError(HexsightError):
    """The run was stopped by its cancel flag; nothing was written."""

class Map:
    """A loaded map. Arrays are in map index order: ``labels[i]`` is hex ``i``."""

    @property
    def name(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def shape(self) -> Tuple[int, int]:
        """``(cols, rows)``."""
    @property
    def labels(self) -> List[str]: ...
    def __len__(self) -> int: ...
    def zone(self, zone: str) -> npt.NDArray[np.uint64]:
        """Map indices of a zone: ``A1:F10,G3`` or a zone the map file names."""
    def los(self, a: str, b: str, range: Optional[str] = None) -> Dict[str, Any]:
        """Line of sight from ``a`` to ``b``: the object of ``hexsight los --json``."""
    def viewshed(self, hex: str) -> Dict[str, np.ndarray]:
        """``verdict`` (uint8: 0 clear, 1 hindered, 2 blocked), ``hindrance`` (uint32)
        and ``blind`` (bool) for every hex as seen from ``hex``. The first call lays out
        the map's engine and keeps it for the next."""
    def exposure(
        self,
        from_zone: Optional[str] = None,
        to_zone: Optional[str] = None,
        shard: Optional[Tuple[int, int]] = None,
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
        """``(sees, seen_by)``; a zone given alone stands for both; ``shard=(k, n)``
        gives one shard's partial counts (the ``n`` shards sum to the whole)."""
    def matrix(
        self, from_zone: Optional[str] = None, to_zone: Optional[str] = None
    ) -> npt.NDArray[np.uint64]:
        """Packed visibility bits, shape ``(observers, ceil(targets / 64))``."""
    def with_layers(self, layers: List[_Path]) -> "Map":
        """This map with the layer files laid on it in order (``--layer``)."""
    def diff(
        self,
        other: "Map",
        from_zone: Optional[str] = None,
        to_zone: Optional[str] = None,
        views: Optional[List[str]] = None,
    ) -> Dict[str, Any]:
        """What changes from this map to ``other`` (same grid), as ``hexsight diff``:
        ``gained``/``lost`` pair counts, ``first_gained``/``first_lost`` example pairs,
        ``sees``/``seen_by`` (int64, after minus before, per hex) and ``views``
        (label -> ``{"gained": bool array, "lost": bool array}``)."""
    def min_height(
        self,
        hex: str,
        kind: Optional[str] = None,
        observer_kind: Optional[str] = None,
        up_to: int = 10,
    ) -> npt.NDArray[np.int32]:
        """Per hex, the lowest height (levels above its ground) at which ``hex``
        sees a target there, ``NOT_SEEN`` (-1) where none up to ``up_to``; with
        ``kind`` (``"mech"``, ``"infantry:prone"``) a unit of that kind, seen by one
        of ``observer_kind`` (else the unit in ``hex``, else ``kind``)."""
    def save(self, path: _Path) -> None: ...

NOT_SEEN: int

def load(path: _Path, layers: Optional[List[_Path]] = None) -> Map:
    """Loads a map file (``.json``) with its ruleset, then the layer files in order."""

def generate(
    cols: int = 30,
    rows: int = 30,
    seed: int = 1,
    ruleset: str = "geometric",
    pointy: bool = False,
    out: Optional[_Path] = None,
) -> Map:
    """Synthetic terrain as ``hexsight generate``; saved to ``out`` when given."""
