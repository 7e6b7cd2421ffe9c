"""Whole-map exposure spread over a Dask cluster.

Each of ``shards`` tasks computes the partial counts of one shard of observers
(``Map.exposure(shard=(k, shards))``) with the Rust engine; each worker process
loads the map once and keeps it; the partial counts are summed, so the result is
exactly ``hexsight.load(path).exposure(...)``. The map file must be readable at
``path`` on every worker (a shared file system, or the same image).
"""

from functools import lru_cache
from typing import Optional, Tuple

import numpy as np

import hexsight


@lru_cache(maxsize=4)
def _map(path: str) -> "hexsight.Map":
    # One load per worker process and map: the cache lives in the worker.
    return hexsight.load(path)


def _shard(path: str, k: int, shards: int, from_zone, to_zone):
    return _map(path).exposure(from_zone, to_zone, shard=(k, shards))


def _sum(parts):
    sees = np.sum([p[0] for p in parts], axis=0, dtype=np.uint32)
    seen_by = np.sum([p[1] for p in parts], axis=0, dtype=np.uint32)
    return sees, seen_by


def exposure(
    path: str,
    client,
    shards: int = 0,
    from_zone: Optional[str] = None,
    to_zone: Optional[str] = None,
) -> Tuple[np.ndarray, np.ndarray]:
    """``(sees, seen_by)`` of the map at ``path`` as ``Map.exposure`` gives them,
    computed as ``shards`` Dask tasks on ``client``'s cluster (default: two per worker
    thread; each shard compiles its walks once, so few large shards are cheapest) and
    summed on the cluster.

    Zones follow ``Map.exposure``: a zone given alone stands for both ends. Bad zones
    raise ``hexsight.HexsightError`` here, before any task is sent.
    """
    path = str(path)
    # The map and the zones are checked here first, so errors surface at once, by name.
    local = _map(path)
    for zone in (from_zone, to_zone):
        if zone is not None:
            local.zone(zone)
    if shards <= 0:
        shards = 2 * (sum(client.nthreads().values()) or 1)
    parts = [
        client.submit(_shard, path, k, shards, from_zone, to_zone, pure=False)
        for k in range(shards)
    ]
    # Summed in a tree, eight at a time, so no task holds every shard's counts.
    while len(parts) > 1:
        parts = [client.submit(_sum, parts[i : i + 8], pure=False) for i in range(0, len(parts), 8)]
    return parts[0].result()
