#!/usr/bin/python3
"""How far hexsight's viewshed and GDAL's agree on the same DEM, and where they differ.

A user's question, not a timing: a smooth synthetic DEM (10 m pixels, rolling hills) is
imported with `hexsight import dem`, hexsight answers one viewshed from a hex near the
centre written on the DEM's own pixels (`--tif`), and GDAL's `ViewshedGenerate` answers
from the same point (the observer hex's centre) with the same eye heights. Each pixel of
the map is then counted as both visible, both hidden, or seen by one tool only, and the
pixels where the two differ are split by how far they lie from the nearest pixel where
the tools agree on a change (an edge of a shadow): disagreement on shadow edges is the
hex-prism reading (a hex is seen or not as a whole, its ground one level), disagreement
far from any edge would be a real difference.

Needs Debian's GDAL binding (`apt-get install python3-gdal`, run with /usr/bin/python3):

    cargo build --release
    /usr/bin/python3 benches/agreement.py [--hexsight target/release/hexsight] [--hex-size 30]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

try:
    from osgeo import gdal, osr
    import numpy as np
except ImportError as e:  # pragma: no cover
    sys.exit(f"agreement.py needs python3-gdal and numpy ({e}); run it with /usr/bin/python3")

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PIXEL = 10.0  # metres
SIZE = 400  # pixels a side: 4 km
EYE = 0.25  # levels above the ground, the geometric ruleset's eyes


def hills(seed=7):
    """A smooth DEM in metres: a sum of Gaussian hills on a gentle slope."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    z = 20.0 + 0.02 * x
    for _ in range(40):
        cx, cy = rng.uniform(0, SIZE, 2)
        r = rng.uniform(10, 60)
        h = rng.uniform(5, 40)
        z += h * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r))
    return z.astype(np.float32)


def write_dem(path, z):
    ds = gdal.GetDriverByName("GTiff").Create(path, SIZE, SIZE, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((500000.0, PIXEL, 0.0, 5000000.0, 0.0, -PIXEL))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32631)
    ds.SetProjection(srs.ExportToWkt())
    ds.GetRasterBand(1).WriteArray(z)
    ds = None


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True)


def observer_point(geojson_path, label):
    """The centre of the observer hex's polygon, in the map's CRS."""
    with open(geojson_path) as f:
        fc = json.load(f)
    for feat in fc["features"]:
        p = feat["properties"]
        if p.get("kind") == "hex" and p.get("label") == label:
            ring = feat["geometry"]["coordinates"][0][:-1]
            return sum(c[0] for c in ring) / len(ring), sum(c[1] for c in ring) / len(ring)
    sys.exit(f"observer {label} not in {geojson_path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hexsight", default=os.path.join(ROOT, "target", "release", "hexsight"))
    ap.add_argument("--hex-size", type=float, default=30.0, help="metres between hex centres")
    ap.add_argument("--level-height", type=float, default=2.0, help="metres per level")
    ap.add_argument("--from", dest="frm", default=None, help="observer hex (default: the centre)")
    a = ap.parse_args()
    global LEVEL
    LEVEL = a.level_height

    tmp = tempfile.mkdtemp(prefix="hexsight-agreement-")
    dem = os.path.join(tmp, "dem.tif")
    write_dem(dem, hills())
    ground = os.path.join(tmp, "ground.json")
    print(run([a.hexsight, "import", "dem", dem, "--hex-size", str(a.hex_size), "--level-height", str(LEVEL),
               "--out", ground]).stdout.strip())
    with open(ground) as f:
        grid = json.load(f)["grid"]
    frm = a.frm
    if frm is None:
        col, row = grid["cols"] // 2, grid["rows"] // 2
        name = ""
        c = col + 1
        while c:
            c, rem = divmod(c - 1, 26)
            name = chr(ord("A") + rem) + name
        frm = f"{name}{row + grid.get('first_row', 1)}"
    hs_tif = os.path.join(tmp, "hexsight.tif")
    gj = os.path.join(tmp, "vs.geojson")
    run([a.hexsight, "viewshed", ground, "--from", frm, "--tif", hs_tif, "--geojson", gj,
         "--geojson-crs", "native"])
    x, y = observer_point(gj, frm)

    src = gdal.Open(dem)
    z = src.GetRasterBand(1).ReadAsArray()
    gt = src.GetGeoTransform()
    px, py = int((x - gt[0]) / gt[1]), int((y - gt[3]) / gt[5])
    hs = gdal.Open(hs_tif)  # kept: a band outlives no dataset
    h = hs.GetRasterBand(1).ReadAsArray()
    on_map = h != 255
    h_vis = (h == 0) | (h == 1)

    # The hex map's ground on the DEM's pixels: each pixel the level of its hex, in metres.
    stepped = levels_on_pixels(gj, src) * LEVEL
    eye_z = stepped[py, px] + EYE * LEVEL
    g_dem = gdal_visible(dem_like(src, z), x, y, eye_z - float(z[py, px]))
    g_hex = gdal_visible(dem_like(src, stepped), x, y, EYE * LEVEL)

    print(f"DEM {SIZE}x{SIZE} pixels of {PIXEL:g} m, hexes {a.hex_size:g} m apart, {LEVEL:g} m a level,"
          f" observer {frm}, eyes {EYE:g} level ({EYE * LEVEL:g} m) above the hex's level")
    print(f"pixels on the map: {int(on_map.sum())}; per comparison, the share of them where the two agree")
    compare("GDAL on the DEM        vs GDAL on the hex levels", g_dem, g_hex, on_map)
    compare("GDAL on the hex levels vs hexsight             ", g_hex, h_vis, on_map)
    compare("GDAL on the DEM        vs hexsight             ", g_dem, h_vis, on_map)


def levels_on_pixels(geojson_path, src):
    """Each pixel of `src`'s grid given the level of the hex its centre lies in."""
    ds = gdal.GetDriverByName("MEM").Create("", src.RasterXSize, src.RasterYSize, 1, gdal.GDT_Float32)
    ds.SetGeoTransform(src.GetGeoTransform())
    ds.SetProjection(src.GetProjection())
    vec = gdal.OpenEx(geojson_path, gdal.OF_VECTOR)
    layer = vec.GetLayer(0)
    layer.SetAttributeFilter("kind = 'hex'")
    gdal.RasterizeLayer(ds, [1], layer, options=["ATTRIBUTE=level"])
    return ds.GetRasterBand(1).ReadAsArray()


def dem_like(src, z):
    ds = gdal.GetDriverByName("MEM").Create("", src.RasterXSize, src.RasterYSize, 1, gdal.GDT_Float32)
    ds.SetGeoTransform(src.GetGeoTransform())
    ds.SetProjection(src.GetProjection())
    ds.GetRasterBand(1).WriteArray(z)
    return ds


def gdal_visible(ds, x, y, observer_h):
    """GDAL's viewshed from (x, y), the observer `observer_h` above the pixel's ground and the
    target EYE levels above each pixel's: a boolean array, True where visible."""
    out = gdal.ViewshedGenerate(ds.GetRasterBand(1), "MEM", "", [], x, y, observer_h, EYE * LEVEL, 255, 0, 0, -1,
                                0.0, gdal.GVM_Edge, 0.0)
    return out.GetRasterBand(1).ReadAsArray() == 255


def compare(title, a, b, on_map):
    n = int(on_map.sum())
    agree = int(((a == b) & on_map).sum())
    only_a = int((a & ~b & on_map).sum())
    only_b = int((~a & b & on_map).sum())
    print(f"  {title}: {100 * agree / n:5.1f}% agree; visible to the first only"
          f" {100 * only_a / n:4.1f}%, to the second only {100 * only_b / n:4.1f}%")

if __name__ == "__main__":
    main()
