#!/usr/bin/python3
"""Times hexsight's full visibility matrix against GDAL's viewshed run from every hex.

The same `geometric` terrain (made by `hexsight generate`) is rasterised with one
pixel per hex and with 3x3 pixels per hex (surface = level + terrain height, in
levels); GDAL's `ViewshedGenerate` (into the in-memory driver, eyes 0.25 level
above the ground like the ruleset) then runs once per hex, on one core. hexsight
computes the exact all-pairs matrix on the same map with `hexsight matrix
--threads 1` and `--threads 2` (the compute time it reports, without loading the
map or writing the file). The script prints both and the ratios.

Needs Debian's GDAL binding: `apt-get install python3-gdal`, run with
/usr/bin/python3 (not a pyenv python). Usage:

    cargo build --release
    /usr/bin/python3 benches/gdal_compare.py [--size 100] [--seed 1] [--hexsight target/release/hexsight]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    from osgeo import gdal
    import numpy as np
except ImportError as e:  # pragma: no cover
    sys.exit(f"gdal_compare.py needs python3-gdal and numpy ({e}); run it with /usr/bin/python3")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def label_to_offset(label, first_row=1):
    m = re.fullmatch(r"([A-Za-z]+)(\d+)", label)
    col = 0
    for ch in m.group(1).upper():
        col = col * 26 + (ord(ch) - ord("A") + 1)
    return col - 1, int(m.group(2)) - first_row


def surfaces(map_path):
    """Surface height (level + terrain height) per (row, col), in levels."""
    with open(map_path) as f:
        m = json.load(f)
    with open(os.path.join(ROOT, "maps", "rulesets", "geometric.json")) as f:
        rs = json.load(f)
    height = {t["id"]: float(t.get("height", 0)) for t in rs["terrain"]}
    cols, rows = m["grid"]["cols"], m["grid"]["rows"]
    first_row = m["grid"].get("first_row", 1)
    d = m.get("default", {})
    grid = np.full((rows, cols), d.get("level", 0) + height[d.get("terrain", "open")], dtype=np.float32)
    for label, e in m.get("hexes", {}).items():
        c, r = label_to_offset(label, first_row)
        level = e.get("level", d.get("level", 0))
        terrain = e.get("terrain", d.get("terrain", "open"))
        grid[r, c] = level + height[terrain]
    return grid


def gdal_all_viewsheds(grid, k):
    """Runs GDAL's viewshed from the centre pixel of every hex; returns seconds."""
    rows, cols = grid.shape
    raster = np.kron(grid, np.ones((k, k), dtype=np.float32))
    ds = gdal.GetDriverByName("MEM").Create("", cols * k, rows * k, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((0, 1, 0, 0, 0, 1))
    band = ds.GetRasterBand(1)
    band.WriteArray(raster)
    start = time.perf_counter()
    for r in range(rows):
        for c in range(cols):
            x, y = c * k + k // 2 + 0.5, r * k + k // 2 + 0.5
            out = gdal.ViewshedGenerate(band, "MEM", "", [], x, y, 0.25, 0.25, 255, 0, 0, -1, 0.0,
                                        gdal.GVM_Edge, 0.0)
            out = None  # noqa: F841 (freed at once, like a caller keeping only a count)
    return time.perf_counter() - start


def hexsight_matrix(exe, map_path, threads, out):
    run = subprocess.run([exe, "matrix", map_path, "--out", out, "--threads", str(threads)],
                         capture_output=True, text=True, check=True)
    m = re.search(r"computed in ([0-9.]+) s", run.stderr)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=100, help="map is SIZE x SIZE hexes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hexsight", default=os.path.join(ROOT, "target", "release", "hexsight"))
    ap.add_argument("--repeat", type=int, default=3, help="hexsight runs per setting (best is kept)")
    a = ap.parse_args()
    gdal.UseExceptions()
    with tempfile.TemporaryDirectory() as tmp:
        map_path = os.path.join(tmp, "map.json")
        subprocess.run([a.hexsight, "generate", "--cols", str(a.size), "--rows", str(a.size), "--seed",
                        str(a.seed), "--ruleset", "geometric", "--out", map_path], check=True,
                       capture_output=True)
        grid = surfaces(map_path)
        n = a.size * a.size
        print(f"map: generated {a.size}x{a.size} geometric, seed {a.seed} ({n} hexes, {n * n} ordered pairs)")
        print(f"GDAL {gdal.__version__}, viewshed from every hex on one core:")
        g1 = gdal_all_viewsheds(grid, 1)
        print(f"  1 pixel per hex ({a.size}x{a.size} raster): {g1:.2f} s ({1000 * g1 / n:.3f} ms per viewshed)")
        g3 = gdal_all_viewsheds(grid, 3)
        print(f"  3x3 pixels per hex ({3 * a.size}x{3 * a.size} raster): {g3:.2f} s ({1000 * g3 / n:.3f} ms per viewshed)")
        out = os.path.join(tmp, "m.bin")
        h1 = min(hexsight_matrix(a.hexsight, map_path, 1, out) for _ in range(a.repeat))
        h2 = min(hexsight_matrix(a.hexsight, map_path, 2, out) for _ in range(a.repeat))
        print("hexsight exact matrix (best of %d):" % a.repeat)
        print(f"  1 thread: {h1:.2f} s, 2 threads: {h2:.2f} s (speed-up {h1 / h2:.2f}x)")
        print("ratios (GDAL time / hexsight time):")
        print(f"  vs 1 pixel per hex: {g1 / h1:.2f}x on one thread, {g1 / h2:.2f}x on two")
        print(f"  vs 3x3 pixels per hex: {g3 / h1:.2f}x on one thread, {g3 / h2:.2f}x on two")


if __name__ == "__main__":
    main()
