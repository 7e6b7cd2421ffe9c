//! Per-hex answers as rasters for GIS and numpy users: a GeoTIFF and a `.npy` array.
//!
//! A GeoTIFF of a map imported from a DEM lies on that DEM's own pixel grid (the
//! `geo.raster` block `import dem` writes): same size, transform and CRS, each pixel
//! the value of the hex its centre lies in, no-data outside the map, so it overlays
//! the source pixel for pixel in QGIS. Any other map gets one pixel per hex in offset
//! layout (pixel column = hex column, pixel row = hex row), the same array as the
//! `.npy`; with a `geo` block it is placed roughly where the hexes lie (rows or
//! columns that the layout staggers by half a hex are not shifted), without one it
//! carries no georeference. Values are deflate-compressed.

use crate::error::{Error, ErrorKind, Result};
use crate::georef::DemGrid;
use crate::hex::Orientation;
use crate::map::Map;
use rayon::prelude::*;
use std::io::Cursor;
use std::path::Path;
/// The TIFF crate's bound on sample slices, named here for generic callers.
pub use tiff::encoder::TiffValue;
use tiff::encoder::colortype::{ColorType, Gray8, Gray32, Gray32Float};
use tiff::encoder::compression::DeflateLevel;
use tiff::encoder::{Compression, TiffEncoder};
use tiff::tags::{ExtraSamples, Tag};

/// A sample type of a per-hex raster: its TIFF colour type and `.npy` dtype.
pub trait Sample: Copy + PartialEq + Send + Sync + std::fmt::Display + 'static {
    /// The one-band TIFF colour type holding it.
    #[doc(hidden)]
    type Color: ColorType<Inner = Self>;
    /// The `.npy` dtype (`|u1`, `<u4`, `<f4`).
    const NPY: &'static str;
    /// Its little-endian bytes.
    fn put_le(self, out: &mut Vec<u8>);
}

impl Sample for u8 {
    type Color = Gray8;
    const NPY: &'static str = "|u1";
    fn put_le(self, out: &mut Vec<u8>) {
        out.push(self);
    }
}

impl Sample for u32 {
    type Color = Gray32;
    const NPY: &'static str = "<u4";
    fn put_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl Sample for f32 {
    type Color = Gray32Float;
    const NPY: &'static str = "<f4";
    fn put_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

/// One or more bands of values, one per hex (indexed as the map's hexes), with a
/// no-data value for pixels off the map and a sentence on what the values mean.
pub struct HexRaster<T> {
    /// Band names (written as GDAL band descriptions) and their values.
    pub bands: Vec<(String, Vec<T>)>,
    /// The value of pixels off the map.
    pub nodata: T,
    /// What the values mean (written in the file's metadata).
    pub meaning: String,
}

impl<T: Sample> HexRaster<T> {
    /// One band.
    pub fn one(name: &str, values: Vec<T>, nodata: T, meaning: &str) -> HexRaster<T> {
        HexRaster {
            bands: vec![(name.to_string(), values)],
            nodata,
            meaning: meaning.to_string(),
        }
    }
}

/// Where a raster's pixels lie.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PixelLayout {
    /// A DEM's pixel grid in the map's CRS (EPSG code): each pixel the hex under its centre.
    Dem(DemGrid, u32),
    /// One pixel per hex, offset layout.
    Hexes,
}

impl PixelLayout {
    /// The map's own: its DEM's grid when it was imported from one, else one pixel per hex.
    pub fn of(map: &Map) -> PixelLayout {
        match &map.geo {
            Some(g) => g
                .raster
                .map_or(PixelLayout::Hexes, |r| PixelLayout::Dem(r, g.epsg)),
            None => PixelLayout::Hexes,
        }
    }

    /// Pixels across and down.
    pub fn size(&self, map: &Map) -> (u32, u32) {
        match self {
            PixelLayout::Dem(g, _) => (g.width, g.height),
            PixelLayout::Hexes => (map.cols, map.rows),
        }
    }
}

/// Bytes a GeoTIFF of `layout` needs while it is written: the pixels, a strip of pixel
/// indices, and the compressed file (at most about the raw size).
pub fn tif_bytes(map: &Map, layout: &PixelLayout, bands: usize, sample: usize) -> u64 {
    let (w, h) = layout.size(map);
    2 * u64::from(w) * u64::from(h) * (bands * sample) as u64 + u64::from(w) * 64 * 16
}

/// Rows of pixels per TIFF strip (and per batch of pixels placed).
const ROWS_PER_STRIP: u32 = 64;

/// The map index of the hex under each pixel of rows `rows` (None off the map).
fn strip_hexes(map: &Map, layout: &PixelLayout, rows: std::ops::Range<u32>) -> Vec<Option<usize>> {
    let (w, _) = layout.size(map);
    let mut out = vec![None; (w as usize) * rows.len()];
    out.par_chunks_mut(w as usize)
        .zip(rows)
        .for_each(|(line, row)| match layout {
            PixelLayout::Dem(g, _) => {
                let geo = map.geo.as_ref().expect("a DEM layout has a geo block");
                for (col, px) in line.iter_mut().enumerate() {
                    *px = map.index(geo.hex_at(map, g.pixel_center(col as u32, row)));
                }
            }
            PixelLayout::Hexes => {
                for (col, px) in line.iter_mut().enumerate() {
                    *px = Some(col * map.rows as usize + row as usize);
                }
            }
        });
    out
}

/// The GeoKeyDirectory of a projected CRS, or `None` when the code does not fit the
/// key's 16 bits (the file then names no CRS).
fn geo_keys(epsg: u32) -> Option<Vec<u16>> {
    let code = u16::try_from(epsg).ok()?;
    // Version 1.1.0, 3 keys: model type projected, raster type pixel-is-area, the CRS.
    Some(vec![
        1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, code,
    ])
}

/// The transform of `layout`: (pixel size x, pixel size y, left, top) and the EPSG code,
/// or `None` for a map without `geo`.
fn transform(map: &Map, layout: &PixelLayout) -> Option<((f64, f64, f64, f64), u32)> {
    match layout {
        PixelLayout::Dem(g, epsg) => Some(((g.dx, g.dy, g.left, g.top), *epsg)),
        PixelLayout::Hexes => {
            let geo = map.geo.as_ref()?;
            let s = geo.hex_size;
            let across = 3f64.sqrt() / 2.0 * s;
            let (dx, dy) = match map.layout.orientation {
                Orientation::Pointy => (s, across),
                Orientation::Flat => (across, s),
            };
            let (x, y) = geo.hex_center(map, map.hex_of(0));
            Some(((dx, dy, x - dx / 2.0, y + dy / 2.0), geo.epsg))
        }
    }
}

/// GDAL's metadata: band names and what the values mean.
fn gdal_metadata<T: Sample>(r: &HexRaster<T>) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut xml = String::from("<GDALMetadata>");
    xml += &format!(
        "<Item name=\"VALUES\">{}</Item><Item name=\"SOFTWARE\">hexsight</Item>",
        esc(&r.meaning)
    );
    for (k, (name, _)) in r.bands.iter().enumerate() {
        xml += &format!(
            "<Item name=\"DESCRIPTION\" sample=\"{k}\" role=\"description\">{}</Item>",
            esc(name)
        );
    }
    xml + "</GDALMetadata>"
}

/// The GeoTIFF's bytes.
pub fn tif_data<T: Sample>(map: &Map, r: &HexRaster<T>, layout: &PixelLayout) -> Result<Vec<u8>>
where
    [T]: TiffValue,
{
    let fail = |e: tiff::TiffError| Error::new(ErrorKind::Io, format!("encoding the GeoTIFF: {e}"));
    let (w, h) = layout.size(map);
    let mut out = Cursor::new(Vec::new());
    let mut enc = TiffEncoder::new(&mut out)
        .map_err(fail)?
        .with_compression(Compression::Deflate(DeflateLevel::Fast));
    let mut img = enc.new_image::<T::Color>(w, h).map_err(fail)?;
    img.rows_per_strip(ROWS_PER_STRIP).map_err(fail)?;
    let extra = vec![ExtraSamples::Unspecified; r.bands.len() - 1];
    if !extra.is_empty() {
        img.extra_samples(&extra).map_err(fail)?;
    }
    let e = img.encoder();
    if let Some(((dx, dy, left, top), epsg)) = transform(map, layout) {
        e.write_tag(Tag::ModelPixelScaleTag, &[dx, dy, 0.0][..])
            .map_err(fail)?;
        e.write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, left, top, 0.0][..])
            .map_err(fail)?;
        if let Some(keys) = geo_keys(epsg) {
            e.write_tag(Tag::GeoKeyDirectoryTag, &keys[..])
                .map_err(fail)?;
        }
    }
    e.write_tag(Tag::GdalNodata, &*r.nodata.to_string())
        .map_err(fail)?;
    e.write_tag(Tag::Unknown(42112), &*gdal_metadata(r))
        .map_err(fail)?;
    // The whole image at once: the tiff crate compresses only what `write_data` is
    // given (its `write_strip` writes strips raw under a deflate tag). Strips of pixels
    // are filled in parallel.
    let mut pixels = Vec::with_capacity(w as usize * h as usize * r.bands.len());
    let mut row = 0;
    while row < h {
        let end = (row + ROWS_PER_STRIP).min(h);
        for hex in strip_hexes(map, layout, row..end) {
            for (_, values) in &r.bands {
                pixels.push(hex.map_or(r.nodata, |i| values[i]));
            }
        }
        row = end;
    }
    img.write_data(&pixels).map_err(fail)?;
    Ok(out.into_inner())
}

/// Writes the GeoTIFF atomically.
pub fn save_tif<T: Sample>(
    map: &Map,
    r: &HexRaster<T>,
    layout: &PixelLayout,
    path: &Path,
) -> Result<()>
where
    [T]: TiffValue,
{
    let bytes = tif_data(map, r, layout).map_err(|e| e.in_file(path))?;
    crate::map::write_atomic(path, &bytes)
}

/// The `.npy` bytes: shape (rows, cols) for one band, (bands, rows, cols) for more, in
/// offset layout (`a[row, col]` is the hex at that column and row).
pub fn npy_data<T: Sample>(map: &Map, r: &HexRaster<T>) -> Vec<u8> {
    let (cols, rows) = (map.cols as usize, map.rows as usize);
    let mut shape = vec![rows, cols];
    if r.bands.len() > 1 {
        shape.insert(0, r.bands.len());
    }
    let size = std::mem::size_of::<T>();
    let mut out = super::npy::header_for(T::NPY, &shape);
    out.reserve(r.bands.len() * rows * cols * size);
    for (_, values) in &r.bands {
        for row in 0..rows {
            for col in 0..cols {
                values[col * rows + row].put_le(&mut out);
            }
        }
    }
    out
}

/// Writes the `.npy` atomically.
pub fn save_npy<T: Sample>(map: &Map, r: &HexRaster<T>, path: &Path) -> Result<()> {
    crate::map::write_atomic(path, &npy_data(map, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::georef::Geo;
    use crate::hex::{Layout, Stagger};
    use crate::map::model::Extra;
    use crate::rules::Ruleset;
    use std::sync::Arc;
    use tiff::decoder::{Decoder, DecodingResult};

    fn map(orientation: Orientation) -> Map {
        let rs = Arc::new(Ruleset::builtin("geometric").unwrap());
        let layout = Layout {
            orientation,
            stagger: Stagger::Odd,
        };
        Map::new("t", "geometric", rs, 7, 5, layout)
    }

    /// A DEM grid of 10 m pixels over the map's hexes 100 m apart.
    fn with_dem(mut m: Map) -> Map {
        m.geo = Some(Geo {
            epsg: 32631,
            origin: (500_000.0, 5_000_000.0),
            hex_size: 100.0,
            raster: Some(DemGrid {
                width: 90,
                height: 70,
                left: 499_930.0,
                top: 5_000_070.0,
                dx: 10.0,
                dy: 10.0,
            }),
            extra: Extra::new(),
        });
        m
    }

    fn decode(bytes: Vec<u8>) -> (u32, u32, Vec<u8>) {
        let mut d = Decoder::new(Cursor::new(bytes)).unwrap();
        let (w, h) = d.dimensions().unwrap();
        match d.read_image().unwrap() {
            DecodingResult::U8(v) => (w, h, v),
            _ => panic!("not u8"),
        }
    }

    /// Every DEM pixel holds the value of the hex its centre lies in (here the hex's
    /// index mod 250), no-data off the map; the size is the DEM's.
    #[test]
    fn dem_pixels_hold_the_hex_under_their_centre() {
        for o in [Orientation::Flat, Orientation::Pointy] {
            let m = with_dem(map(o));
            let values: Vec<u8> = (0..m.len()).map(|i| (i % 250) as u8).collect();
            let r = HexRaster::one("v", values, 255, "test");
            let layout = PixelLayout::of(&m);
            let (w, h, px) = decode(tif_data(&m, &r, &layout).unwrap());
            assert_eq!((w, h), (90, 70));
            let (geo, grid) = (m.geo.as_ref().unwrap(), geo_grid(&m));
            let mut on_map = 0;
            for row in 0..h {
                for col in 0..w {
                    let at = geo.hex_at(&m, grid.pixel_center(col, row));
                    let want = m.index(at).map_or(255, |i| (i % 250) as u8);
                    on_map += usize::from(want != 255);
                    assert_eq!(
                        px[(row * w + col) as usize],
                        want,
                        "{o:?} pixel {col},{row}"
                    );
                }
            }
            assert!(on_map > 1000, "{on_map}");
        }
    }

    fn geo_grid(m: &Map) -> DemGrid {
        m.geo.as_ref().unwrap().raster.unwrap()
    }

    /// Without a DEM, one pixel per hex: pixel (col, row) is the hex at that offset.
    #[test]
    fn one_pixel_per_hex_in_offset_layout() {
        let m = map(Orientation::Pointy);
        let values: Vec<u8> = (0..m.len()).map(|i| i as u8).collect();
        let r = HexRaster::one("v", values.clone(), 255, "test");
        let (w, h, px) = decode(tif_data(&m, &r, &PixelLayout::of(&m)).unwrap());
        assert_eq!((w, h), (7, 5));
        for (i, v) in values.iter().enumerate() {
            let (col, row) = m.layout.offset_of(m.hex_of(i));
            assert_eq!(px[(row as u32 * w + col as u32) as usize], *v);
        }
    }

    /// The `.npy` holds the same array, bands first.
    #[test]
    fn npy_is_rows_by_columns_band_by_band() {
        let m = map(Orientation::Flat);
        let a: Vec<u32> = (0..m.len() as u32).collect();
        let b: Vec<u32> = a.iter().map(|v| v * 1000).collect();
        let r = HexRaster {
            bands: vec![("a".into(), a.clone()), ("b".into(), b.clone())],
            nodata: u32::MAX,
            meaning: String::new(),
        };
        let bytes = npy_data(&m, &r);
        let header = String::from_utf8_lossy(&bytes[10..128]).to_string();
        assert!(
            header.contains("'descr': '<u4'") && header.contains("'shape': (2, 5, 7)"),
            "{header}"
        );
        let start = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!(start % 64, 0);
        let body: Vec<u32> = bytes[start..]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(body.len(), 2 * m.len());
        for i in 0..m.len() {
            let (col, row) = m.layout.offset_of(m.hex_of(i));
            let k = row as usize * 7 + col as usize;
            assert_eq!((body[k], body[m.len() + k]), (a[i], b[i]));
        }
    }
}
