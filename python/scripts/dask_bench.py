"""Times hexsight.dask exposure on a LocalCluster of 1..W single-threaded workers.

    python dask_bench.py MAP --shards 64 --only 8 --workers 1 2

`--only K` runs the first K of the shards (a fraction of the map's observers) and
reports the rate, for maps whose full run is too long for the box; without it the
whole map runs through hexsight.dask.exposure. Each worker runs the engine on one
thread (RAYON_NUM_THREADS=1), so workers = cores used.
"""

import argparse
import os
import time

os.environ["RAYON_NUM_THREADS"] = "1"  # inherited by the worker processes

import distributed  # noqa: E402

import hexsight  # noqa: E402
import hexsight.dask  # noqa: E402


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
            if a.only:
                futures = [
                    client.submit(hexsight.dask._shard, a.map, k, a.shards, None, None, pure=False)
                    for k in range(a.only)
                ]
                client.gather(futures)
                observers = sum(len(range(n * k // a.shards, n * (k + 1) // a.shards)) for k in range(a.only))
            else:
                hexsight.dask.exposure(a.map, client, shards=a.shards)
                observers = n
            secs = time.perf_counter() - start
            pairs = observers * n
            print(
                f"{a.map}: {w} worker(s), {a.only or a.shards}/{a.shards} shards, "
                f"{observers} observers x {n} targets = {pairs:.3g} pairs in {secs:.1f} s: "
                f"{pairs / secs / 1e6:.1f} M pairs/s, {pairs / secs / w / 1e6:.1f} M pairs/s per worker",
                flush=True,
            )


if __name__ == "__main__":
    main()
