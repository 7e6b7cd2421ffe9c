"""Times hexsight.dask exposure on a LocalCluster of 1..W single-threaded workers.

    python dask_bench.py MAP --shards 64 --only 8 --workers 1 2

`--only K` runs the first K of the shards (a fraction of the map's observers), for
maps whose full run is too long for the box. Shards are submitted as
hexsight.dask.exposure submits them (each worker loads the map once), timed on the
wall clock and in CPU seconds of the workers. Each worker runs the engine on one
thread (RAYON_NUM_THREADS=1), so workers = cores used.
"""

import argparse
import os
import time

os.environ["RAYON_NUM_THREADS"] = "1"  # inherited by the worker processes

import distributed  # noqa: E402

import hexsight  # noqa: E402
import hexsight.dask  # noqa: E402


def timed_shard(path, k, shards):
    """One shard, with the CPU seconds its worker process spent on it."""
    start = time.process_time()
    hexsight.dask._shard(path, k, shards, None, None)
    return time.process_time() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("map")
    p.add_argument("--shards", type=int, default=16)
    p.add_argument("--only", type=int, default=0)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    a = p.parse_args()
    n = len(hexsight.load(a.map))
    for w in a.workers:
        with distributed.LocalCluster(
            n_workers=w, threads_per_worker=1, dashboard_address=None
        ) as cluster, distributed.Client(cluster) as client:
            start = time.perf_counter()
            count = a.only or a.shards
            futures = [client.submit(timed_shard, a.map, k, a.shards, pure=False) for k in range(count)]
            cpu = sum(client.gather(futures))
            observers = sum(len(range(n * k // a.shards, n * (k + 1) // a.shards)) for k in range(count))
            secs = time.perf_counter() - start
            pairs = observers * n
            print(
                f"{a.map}: {w} worker(s), {a.only or a.shards}/{a.shards} shards, "
                f"{observers} observers x {n} targets = {pairs:.3g} pairs in {secs:.1f} s: "
                f"{pairs / secs / 1e6:.1f} M pairs/s, {pairs / secs / w / 1e6:.1f} M pairs/s per worker; "
                f"{cpu:.1f} CPU s in the workers (map loads included): {pairs / cpu / 1e6:.1f} M pairs per CPU second",
                flush=True,
            )


if __name__ == "__main__":
    main()
