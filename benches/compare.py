#!/usr/bin/python3
"""Times hexsight against GDAL's viewshed and Whitebox's visibility index on the same terrain.

Every comparison runs in this one script, on maps made by `hexsight generate` (seed 1):

- matrix: hexsight's exact all-pairs matrix of a 100x100 `geometric` map (1 and 2
  threads, the compute time it reports) against GDAL's `ViewshedGenerate` run from
  every hex of the same terrain rasterised at one pixel per hex (one core), and
  Whitebox's `visibility_index` (all viewpoints, approximate) against hexsight's
  `exposure` (how many hexes see each hex), at 100x100 and 250x250;
- families: every built-in family's matrix on one generated 60x60 map, one thread;
- viewshed: one viewshed from the centre of a 1000x1000 map (hilly, and an open
  plain) against GDAL's viewshed of the same raster from the same cell;
- answer: that hilly viewshed as a user gets it, written to a GeoTIFF and as `--json`
  (compute and writing, less loading the map), against GDAL's viewshed written to a
  deflated GeoTIFF;
- vector: one viewshed of a hilly 500x500 map written as FlatGeobuf and GeoJSON (the
  whole command) against `gdal_viewshed` followed by `gdal_polygonize.py` on the same
  raster (GDAL's regions only; hexsight's every hex and the dissolved areas);
- zone: exposure from zones of one hex (A1), 16 (A1:D4) and 100 (A1:J10) on a 500x500
  map against GDAL's viewsheds of the same cells, then from two zones of 1,500 hexes, the map's first
  three rows and its first three columns, against GDAL's 1,500 viewsheds of each;
  and those two zones on a pointy-top 500x500 map (GDAL's viewsheds of its raster).

Surfaces are level + terrain height in levels; eyes are 0.25 above the ground, as in the
`geometric` ruleset. Needs Debian's GDAL binding (`apt-get install python3-gdal`, run
with /usr/bin/python3) and, for Whitebox, a Python with `pip install whitebox-workflows`
(`--whitebox-python`, default `python3`). Usage:

    cargo build --release
    /usr/bin/python3 benches/compare.py [--only matrix,families,viewshed,answer,vector,zone] [--repeat 3]
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
    sys.exit(f"compare.py needs python3-gdal and numpy ({e}); run it with /usr/bin/python3")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAMILIES = ["geometric", "combat-commander", "asl", "napoleonic", "miniatures", "battletech"]


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
        grid[r, c] = e.get("level", d.get("level", 0)) + height[e.get("terrain", d.get("terrain", "open"))]
    return grid


def band_of(grid):
    rows, cols = grid.shape
    ds = gdal.GetDriverByName("MEM").Create("", cols, rows, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((0, 1, 0, 0, 0, 1))
    ds.GetRasterBand(1).WriteArray(grid)
    return ds


def gdal_viewsheds(ds, cells):
    """Runs GDAL's viewshed from each (col, row) cell; returns seconds."""
    band = ds.GetRasterBand(1)
    start = time.perf_counter()
    for c, r in cells:
        out = gdal.ViewshedGenerate(band, "MEM", "", [], c + 0.5, r + 0.5, 0.25, 0.25, 255, 0, 0, -1,
                                    0.0, gdal.GVM_Edge, 0.0)
        out = None  # noqa: F841 (freed at once, like a caller keeping only a count)
    return time.perf_counter() - start


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True)


def timed(cmd, pattern, repeat):
    best = None
    for _ in range(repeat):
        m = re.search(pattern, run(cmd).stderr)
        t = float(m.group(1))
        best = t if best is None else min(best, t)
    return best


def wall(cmd):
    """Seconds the whole command takes, as at a shell."""
    start = time.perf_counter()
    run(cmd)
    return time.perf_counter() - start


def generate(exe, tmp, ruleset, size, pointy=False):
    path = os.path.join(tmp, f"{ruleset}-{size}{'-pointy' if pointy else ''}.json")
    if not os.path.exists(path):
        run([exe, "generate", "--cols", str(size), "--rows", str(size), "--seed", "1", "--ruleset", ruleset,
             "--out", path] + (["--pointy"] if pointy else []))
    return path


def whitebox_index(python, grid, tmp):
    """Whitebox's visibility_index of the raster, timed in its own Python; seconds or None."""
    tif = os.path.join(tmp, f"dem-{grid.shape[0]}.tif")
    ds = gdal.GetDriverByName("GTiff").Create(tif, grid.shape[1], grid.shape[0], 1, gdal.GDT_Float32)
    ds.SetGeoTransform((0, 1, 0, 0, 0, -1))
    ds.GetRasterBand(1).WriteArray(grid)
    ds = None
    code = (
        "import time, whitebox_workflows as wb\n"
        "e = wb.WbEnvironment()\n"
        f"r = e.read_raster({tif!r})\n"
        "t = time.perf_counter()\n"
        "e.visibility_index(r, station_height=0.25, resolution_factor=1)\n"
        "print(time.perf_counter() - t)\n"
    )
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])
    except (subprocess.CalledProcessError, FileNotFoundError, ValueError) as e:
        print(f"  (Whitebox not run: {e})")
        return None


def section_matrix(a, tmp):
    print("== matrix: 100x100 geometric, every ordered pair ==")
    path = generate(a.hexsight, tmp, "geometric", 100)
    grid = surfaces(path)
    cells = [(c, r) for r in range(100) for c in range(100)]
    g = gdal_viewsheds(band_of(grid), cells)
    out = os.path.join(tmp, "m.bin")
    pat = r"computed in ([0-9.]+) s"
    h1 = timed([a.hexsight, "matrix", path, "--out", out, "--threads", "1"], pat, a.repeat)
    h2 = timed([a.hexsight, "matrix", path, "--out", out, "--threads", "2"], pat, a.repeat)
    print(f"  GDAL {gdal.__version__} viewshed from all 10,000 hexes, 1 core: {g:.3f} s")
    print(f"  hexsight matrix: 1 thread {h1:.3f} s ({g / h1:.2f}x GDAL), 2 threads {h2:.3f} s "
          f"({g / h2:.2f}x GDAL; {h1 / h2:.2f}x one thread)")
    npy = os.path.join(tmp, "m.npy")
    # Round by round, one thread then two, so the box's slow spells fall on both alike;
    # three times as many rounds as --repeat, as the file makes these runs noisier.
    e1 = e2 = float("inf")
    for _ in range(3 * a.repeat):
        e1 = min(e1, _wall([a.hexsight, "matrix", path, "--out", npy, "--threads", "1"]))
        e2 = min(e2, _wall([a.hexsight, "matrix", path, "--out", npy, "--threads", "2"]))
    print(f"  hexsight matrix --out m.npy end to end: 1 thread {e1:.3f} s, 2 threads {e2:.3f} s ({e1 / e2:.2f}x)")
    for size in (100, 250):
        path = generate(a.hexsight, tmp, "geometric", size)
        w = whitebox_index(a.whitebox_python, surfaces(path), tmp)
        pat = r"computed in ([0-9.]+) s"
        h = timed([a.hexsight, "exposure", path, "--timings", "--threads", "2"], pat, a.repeat)
        wt = f"{w:.3f} s" if w is not None else "not run"
        ratio = f" ({w / h:.2f}x Whitebox)" if w is not None else ""
        print(f"  {size}x{size}: Whitebox visibility_index {wt}; hexsight exposure, 2 threads, {h:.3f} s{ratio}")


def _wall(cmd):
    t = time.perf_counter()
    run(cmd)
    return time.perf_counter() - t


def section_families(a, tmp):
    print("== families: the all-pairs matrix of a generated 60x60 map, one thread ==")
    pat = r"computed in ([0-9.]+) s"
    paths = {rs: generate(a.hexsight, tmp, rs, 60) for rs in FAMILIES}
    times = {}
    # Round by round over the families, so that the box's slow spells fall on all
    # of them alike; the best of the rounds is kept (a run takes a fraction of a second).
    for _ in range(3 * a.repeat):
        for rs in FAMILIES:
            t = timed([a.hexsight, "matrix", paths[rs], "--out", os.path.join(tmp, "m.bin"), "--threads", "1"],
                      pat, 1)
            times[rs] = min(times.get(rs, t), t)
    for rs in FAMILIES:
        print(f"  {rs:17} {times[rs]:.3f} s ({times[rs] / times['geometric']:.1f}x geometric)")


def section_viewshed(a, tmp):
    print("== viewshed: one observer at the centre of a 1000x1000 map ==")
    plain = os.path.join(tmp, "plain-1000.json")
    with open(plain, "w") as f:
        json.dump({"hexsight": 1, "name": "plain", "ruleset": "geometric",
                   "grid": {"cols": 1000, "rows": 1000}, "default": {"terrain": "open", "level": 0}}, f)
    hilly = generate(a.hexsight, tmp, "geometric", 1000)
    pat = r"computed in ([0-9.]+) s"
    for name, path in (("hilly", hilly), ("open plain", plain)):
        ds = band_of(surfaces(path))
        g = min(gdal_viewsheds(ds, [(500, 499)]) for _ in range(a.repeat))
        for threads in (1, 2):
            h = timed([a.hexsight, "viewshed", path, "--from", "SL500", "--timings", "--threads", str(threads)],
                      pat, a.repeat)
            print(f"  {name}: GDAL {1000 * g:.1f} ms; hexsight {threads} thread(s) {1000 * h:.0f} ms "
                  f"({h / g:.1f}x GDAL)")


def gdal_viewshed_tif(ds, cell, path):
    """GDAL's viewshed from one (col, row) cell written to a GeoTIFF; seconds."""
    band = ds.GetRasterBand(1)
    c, r = cell
    start = time.perf_counter()
    out = gdal.ViewshedGenerate(band, "GTiff", path, ["COMPRESS=DEFLATE"], c + 0.5, r + 0.5, 0.25, 0.25,
                                255, 0, 0, -1, 0.0, gdal.GVM_Edge, 0.0)
    out = None  # closing flushes the file
    return time.perf_counter() - start


def section_answer(a, tmp):
    print("== answer: one viewshed of the hilly 1000x1000 map written as a user gets it ==")
    hilly = generate(a.hexsight, tmp, "geometric", 1000)
    ds = band_of(surfaces(hilly))
    tif = os.path.join(tmp, "gdal-viewshed.tif")
    g = min(gdal_viewshed_tif(ds, (500, 499), tif) for _ in range(a.repeat))
    print(f"  GDAL viewshed to a GeoTIFF: {1000 * g:.1f} ms ({os.path.getsize(tif) / 1e6:.2f} MB)")
    for what, args in (("GeoTIFF", ["--tif", os.path.join(tmp, "v.tif")]), ("--json", ["--json"])):
        best = None
        for _ in range(a.repeat):
            err = run([a.hexsight, "viewshed", hilly, "--from", "SL500", "--timings", *args]).stderr
            t = float(re.search(r"computed in ([0-9.]+) s", err).group(1))
            t += float(re.search(r"answered .* in ([0-9.]+) s", err).group(1))
            best = t if best is None else min(best, t)
        print(f"  hexsight viewshed to {what}, less loading the map: {1000 * best:.0f} ms ({best / g:.1f}x GDAL)")
    out = run([a.hexsight, "viewshed", hilly, "--from", "SL500", "--json"]).stdout
    print(f"  viewshed --json: {len(out.encode()) / 1e6:.1f} MB")
    # What a user waits for at the shell: the whole command, reading its input file. hexsight
    # reads the map's JSON (45 MB here), GDAL's command line the DEM's GeoTIFF.
    dem = os.path.join(tmp, "dem-1000.tif")
    gdal.Translate(dem, ds)
    gdal_cmd = ["gdal_viewshed", "-q", "-ox", "500.5", "-oy", "499.5", "-oz", "0.25", "-tz", "0.25",
                "-cc", "0", "-co", "COMPRESS=DEFLATE", dem, os.path.join(tmp, "gdal-cli.tif")]
    ours = [a.hexsight, "viewshed", hilly, "--from", "SL500", "--tif", os.path.join(tmp, "v.tif")]
    g, h = (min(wall(cmd) for _ in range(a.repeat)) for cmd in (gdal_cmd, ours))
    print(f"  whole command, input file read, to a GeoTIFF: hexsight {1000 * h:.0f} ms "
          f"({os.path.getsize(hilly) / 1e6:.0f} MB map), gdal_viewshed {1000 * g:.0f} ms "
          f"({os.path.getsize(dem) / 1e6:.0f} MB DEM)")


def section_vector(a, tmp):
    print("== vector: one viewshed of the hilly 500x500 map as a vector file QGIS opens ==")
    # What a GIS user runs for a vector viewshed: GDAL's viewshed raster, then its
    # regions polygonised (gdal_polygonize.py); hexsight writes every hex's polygon
    # with its answer and the dissolved areas in one command. Whole commands, files
    # read and written.
    hilly = generate(a.hexsight, tmp, "geometric", 500)
    ds = band_of(surfaces(hilly))
    dem = os.path.join(tmp, "dem-500.tif")
    gdal.Translate(dem, ds)
    label = "IP250"
    c, r = label_to_offset(label)
    raster = os.path.join(tmp, "gdal-v500.tif")
    for fmt, ext in (("FlatGeobuf", "fgb"), ("GeoJSON", "geojson")):
        theirs, ours = (os.path.join(tmp, f"{who}.{ext}") for who in ("gdal", "hexsight"))

        def gdal_vector():
            for path in (theirs,):
                if os.path.exists(path):
                    os.remove(path)
            return wall(["gdal_viewshed", "-q", "-ox", str(c + 0.5), "-oy", str(r + 0.5), "-oz", "0.25",
                         "-tz", "0.25", "-cc", "0", dem, raster]) + \
                wall(["gdal_polygonize.py", "-q", raster, "-f", fmt, theirs])

        g = min(gdal_vector() for _ in range(a.repeat))
        h = min(wall([a.hexsight, "viewshed", hilly, "--from", label, f"--{ext}", ours]) for _ in range(a.repeat))
        print(f"  {fmt}: gdal_viewshed + gdal_polygonize.py {g:.2f} s ({features(theirs)} features, "
              f"{os.path.getsize(theirs) / 1e6:.2f} MB: the regions); hexsight viewshed --{ext} {h:.2f} s "
              f"({features(ours)} features, {os.path.getsize(ours) / 1e6:.0f} MB: every hex, the areas, "
              f"the sight lines to blind hexes)")


def features(path):
    """How many features a vector file holds, as GDAL reads it."""
    from osgeo import ogr
    ds = ogr.Open(path)  # kept while its layer is read (GDAL frees the layer with it)
    return ds.GetLayer(0).GetFeatureCount()


def section_zone(a, tmp):
    print("== zone: exposure from 1, 16 and 100 hexes (A1:J10) of a 500x500 map, then 1,500 across and down it ==")
    # A zone's lines go together in runs along a line of hexes (the map's columns, or a
    # second grid along its rows), so its shape matters: beside the square, a deployment
    # zone across the map (its first three rows) and one down its side, 1,500 hexes each,
    # on a flat-top map and a pointy-top one. GDAL's viewsheds are timed once a zone.
    square = [(c, r) for c in range(10) for r in range(10)]
    # A few hexes (one, a 4x4 block) are counted from their viewsheds, not the pair sweep.
    one, block = [(0, 0)], [(c, r) for c in range(4) for r in range(4)]
    rows = [(c, r) for c in range(500) for r in range(3)]
    columns = [(c, r) for c in range(3) for r in range(500)]
    for pointy in (False, True):
        path = generate(a.hexsight, tmp, "geometric", 500, pointy)
        ds = band_of(surfaces(path))
        kind = "pointy-top " if pointy else ""
        small = (("one hex", "A1", one), ("4x4", "A1:D4", block), ("square", "A1:J10", square))
        zones = (() if pointy else small) + \
            (("rows 1-3", "A1:SF3", rows), ("columns A-C", "A1:C500", columns))
        for name, zone, cells in zones:
            g = gdal_viewsheds(ds, cells)
            for threads in (1, 2):
                h = timed([a.hexsight, "exposure", path, "--from", zone, "--timings", "--threads", str(threads)],
                          r"computed in ([0-9.]+) s", a.repeat)
                print(f"  {kind}{name} ({zone}): GDAL {len(cells):,} viewsheds {g:.3f} s; hexsight {threads} "
                      f"thread(s) {h:.3f} s ({h / g:.2f}x GDAL)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hexsight", default=os.path.join(ROOT, "target", "release", "hexsight"))
    ap.add_argument("--whitebox-python", default="python3")
    ap.add_argument("--repeat", type=int, default=3, help="runs per setting (best is kept)")
    ap.add_argument("--only", default="matrix,families,viewshed,answer,vector,zone")
    a = ap.parse_args()
    gdal.UseExceptions()
    print(f"machine: {os.cpu_count()} cores; {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}")
    sections = {"matrix": section_matrix, "families": section_families, "viewshed": section_viewshed,
                "answer": section_answer, "vector": section_vector, "zone": section_zone}
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.only.split(","):
            sections[name](a, tmp)


if __name__ == "__main__":
    main()
