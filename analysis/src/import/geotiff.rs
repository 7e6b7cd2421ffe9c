//! A single-band GeoTIFF read with the pure-Rust `tiff` crate: the pixels as
//! numbers, where they lie (ModelPixelScale + ModelTiepoint, or
//! ModelTransformation) and the CRS (GeoKeyDirectory). Every problem is an
//! [`Error`] naming the file: never a panic on a bad file.

use crate::error::{Error, ErrorKind, Result};
use crate::georef::project::is_geographic;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::tags::Tag;

/// GeoKeyDirectory keys read here (GeoTIFF 1.1, section 7).
const MODEL_TYPE: u16 = 1024;
const RASTER_TYPE: u16 = 1025;
const GEOGRAPHIC_TYPE: u16 = 2048;
const PROJECTED_CS_TYPE: u16 = 3072;
/// RasterTypeGeoKey value for pixel-is-point (the tiepoint names a pixel's centre).
const PIXEL_IS_POINT: u16 = 2;
/// GDAL's no-data tag (ASCII).
const GDAL_NODATA: u16 = 42113;

/// Where pixel (0, 0)'s top-left corner lies and how large a pixel is, in CRS
/// units; rows run south (north-up rasters only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PixelGrid {
    /// CRS x of the raster's left edge.
    pub left: f64,
    /// CRS y of the raster's top edge.
    pub top: f64,
    /// Pixel width (east).
    pub dx: f64,
    /// Pixel height (south), positive.
    pub dy: f64,
}

/// A decoded single-band raster.
#[derive(Clone, Debug)]
pub struct Raster {
    /// Pixels across.
    pub width: usize,
    /// Pixels down.
    pub height: usize,
    /// Row-major values; no-data as NaN.
    pub values: Vec<f64>,
    /// Where the pixels lie.
    pub grid: PixelGrid,
    /// The projected CRS, as an EPSG code.
    pub epsg: u32,
}

impl Raster {
    /// The value of pixel (`col`, `row`), `None` for no-data.
    pub fn get(&self, col: usize, row: usize) -> Option<f64> {
        let v = self.values[row * self.width + col];
        (!v.is_nan()).then_some(v)
    }

    /// The pixel holding a CRS point, clamped to the raster.
    pub fn pixel_at(&self, (x, y): (f64, f64)) -> (usize, usize) {
        let g = &self.grid;
        let c = ((x - g.left) / g.dx).floor();
        let r = ((g.top - y) / g.dy).floor();
        let clamp = |v: f64, n: usize| v.clamp(0.0, (n - 1) as f64) as usize;
        (clamp(c, self.width), clamp(r, self.height))
    }

    /// The CRS point at the centre of pixel (`col`, `row`).
    pub fn pixel_center(&self, col: usize, row: usize) -> (f64, f64) {
        let g = &self.grid;
        (
            g.left + (col as f64 + 0.5) * g.dx,
            g.top - (row as f64 + 0.5) * g.dy,
        )
    }

    /// The raster's pixel grid, as a map keeps it (`geo.raster`) to write answers on it.
    pub fn dem_grid(&self) -> crate::georef::DemGrid {
        let g = &self.grid;
        crate::georef::DemGrid {
            width: self.width as u32,
            height: self.height as u32,
            left: g.left,
            top: g.top,
            dx: g.dx,
            dy: g.dy,
        }
    }

    /// The raster's extent: (left, bottom, right, top).
    pub fn extent(&self) -> (f64, f64, f64, f64) {
        let g = &self.grid;
        let right = g.left + self.width as f64 * g.dx;
        let bottom = g.top - self.height as f64 * g.dy;
        (g.left, bottom, right, g.top)
    }
}

/// An error about the file `path`.
fn bad(path: &Path, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, message).in_file(path)
}

/// Reads a GeoTIFF; `what` (`DEM`, `land cover`) names it in messages.
pub fn read(path: &Path, what: &str) -> Result<Raster> {
    let file = File::open(path).map_err(|e| Error::io(&e, path))?;
    let tiff_err = |e: tiff::TiffError| bad(path, format!("not a readable {what} GeoTIFF: {e}"));
    let mut dec = Decoder::new(BufReader::new(file)).map_err(tiff_err)?;
    let (w, h) = dec.dimensions().map_err(tiff_err)?;
    let samples = dec
        .find_tag_unsigned::<u16>(Tag::SamplesPerPixel)
        .map_err(tiff_err)?
        .unwrap_or(1);
    if samples != 1 {
        return Err(bad(
            path,
            format!("the {what} has {samples} bands; give a single-band raster"),
        ));
    }
    let (width, height) = (w as usize, h as usize);
    // The decoded buffer (up to 8 bytes a pixel) and the f64 copy.
    crate::memory::check_items(
        (width as u64).saturating_mul(height as u64),
        16,
        &format!("reading a {w}x{h} {what}"),
        "a smaller raster (gdal_translate -srcwin or -outsize)",
    )
    .map_err(|e| e.in_file(path))?;
    let grid = pixel_grid(&mut dec, path)?;
    let epsg = crs(&mut dec, path)?;
    let nodata = nodata(&mut dec);
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::MAX;
    let mut dec = dec.with_limits(limits);
    let image = dec.read_image().map_err(tiff_err)?;
    let mut values = to_f64(image);
    if values.len() != width * height {
        return Err(bad(
            path,
            format!("the {what} decoded to {} values, not {w}x{h}", values.len()),
        ));
    }
    if let Some(nd) = nodata {
        values
            .iter_mut()
            .filter(|v| **v == nd)
            .for_each(|v| *v = f64::NAN);
    }
    Ok(Raster {
        width,
        height,
        values,
        grid,
        epsg,
    })
}

/// Every sample type the decoder gives, as f64.
fn to_f64(image: DecodingResult) -> Vec<f64> {
    fn conv<T: Copy + Into<f64>>(v: Vec<T>) -> Vec<f64> {
        v.into_iter().map(Into::into).collect()
    }
    match image {
        DecodingResult::U8(v) => conv(v),
        DecodingResult::U16(v) => conv(v),
        DecodingResult::U32(v) => conv(v),
        DecodingResult::U64(v) => v.into_iter().map(|x| x as f64).collect(),
        DecodingResult::F16(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::F32(v) => conv(v),
        DecodingResult::F64(v) => v,
        DecodingResult::I8(v) => conv(v),
        DecodingResult::I16(v) => conv(v),
        DecodingResult::I32(v) => conv(v),
        DecodingResult::I64(v) => v.into_iter().map(|x| x as f64).collect(),
    }
}

fn f64_tag<R: std::io::Read + std::io::Seek>(
    dec: &mut Decoder<R>,
    tag: u16,
    path: &Path,
) -> Result<Option<Vec<f64>>> {
    match dec.find_tag(Tag::from_u16_exhaustive(tag)) {
        Ok(None) => Ok(None),
        Ok(Some(v)) => v
            .into_f64_vec()
            .map(Some)
            .map_err(|e| bad(path, format!("GeoTIFF tag {tag} is unreadable: {e}"))),
        Err(e) => Err(bad(path, format!("GeoTIFF tag {tag} is unreadable: {e}"))),
    }
}

/// The pixel grid from ModelTransformation (34264), or ModelPixelScale (33550)
/// with ModelTiepoint (33922); rotated or south-up rasters are refused.
fn pixel_grid<R: std::io::Read + std::io::Seek>(
    dec: &mut Decoder<R>,
    path: &Path,
) -> Result<PixelGrid> {
    let point = raster_type(dec) == Some(PIXEL_IS_POINT);
    let grid = match f64_tag(dec, 34264, path)? {
        Some(m) => from_transformation(&m, path)?,
        None => from_tiepoint(f64_tag(dec, 33550, path)?, f64_tag(dec, 33922, path)?, path)?,
    };
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !(ok(grid.dx) && ok(grid.dy) && grid.left.is_finite() && grid.top.is_finite()) {
        return Err(bad(
            path,
            format!(
                "pixel size {} x {} is not positive (a south-up or flipped raster?); warp it north-up first",
                grid.dx, -grid.dy
            ),
        ));
    }
    // Pixel-is-point: the georeference names pixel centres; move to the corner.
    Ok(if point {
        PixelGrid {
            left: grid.left - grid.dx / 2.0,
            top: grid.top + grid.dy / 2.0,
            ..grid
        }
    } else {
        grid
    })
}

/// The pixel grid of a ModelTransformation matrix; shear terms (rotation) are refused.
fn from_transformation(m: &[f64], path: &Path) -> Result<PixelGrid> {
    if m.len() < 16 {
        return Err(bad(path, "ModelTransformation must hold 16 numbers"));
    }
    if m[1] != 0.0 || m[4] != 0.0 {
        return Err(bad(
            path,
            "the raster's pixels are rotated (ModelTransformation has shear terms); \
             warp it north-up first (gdalwarp)",
        ));
    }
    Ok(PixelGrid {
        left: m[3],
        top: m[7],
        dx: m[0],
        dy: -m[5],
    })
}

/// The pixel grid of ModelPixelScale and the first ModelTiepoint.
fn from_tiepoint(scale: Option<Vec<f64>>, tie: Option<Vec<f64>>, path: &Path) -> Result<PixelGrid> {
    let (Some(s), Some(t)) = (scale, tie) else {
        return Err(bad(
            path,
            "not georeferenced: no ModelPixelScale and ModelTiepoint, nor ModelTransformation",
        ));
    };
    if s.len() < 2 || t.len() < 6 {
        return Err(bad(path, "ModelPixelScale or ModelTiepoint is too short"));
    }
    Ok(PixelGrid {
        left: t[3] - t[0] * s[0],
        top: t[4] + t[1] * s[1],
        dx: s[0],
        dy: s[1],
    })
}

/// The GeoKeyDirectory as (key, value) pairs of its short values.
fn geo_keys<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> Vec<(u16, u16)> {
    let Ok(Some(v)) = dec.find_tag(Tag::GeoKeyDirectoryTag) else {
        return Vec::new();
    };
    let Ok(d) = v.into_u16_vec() else {
        return Vec::new();
    };
    // Header: version, revision, minor revision, key count; then 4 shorts a key:
    // id, location (0: the value is the 4th short), count, value.
    d.get(4..)
        .unwrap_or(&[])
        .chunks_exact(4)
        .take(d.get(3).copied().unwrap_or(0) as usize)
        .filter(|k| k[1] == 0)
        .map(|k| (k[0], k[3]))
        .collect()
}

fn raster_type<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> Option<u16> {
    geo_keys(dec)
        .into_iter()
        .find(|(k, _)| *k == RASTER_TYPE)
        .map(|(_, v)| v)
}

/// The projected CRS's EPSG code; geographic or unnamed CRSs are refused.
fn crs<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>, path: &Path) -> Result<u32> {
    let keys = geo_keys(dec);
    let get = |key| keys.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let geographic = get(GEOGRAPHIC_TYPE);
    match get(PROJECTED_CS_TYPE) {
        Some(code) if (1..32767).contains(&code) => Ok(u32::from(code)),
        Some(_) => Err(bad(
            path,
            "the raster's projected CRS has no EPSG code (user-defined); \
             warp it to a UTM zone first (gdalwarp -t_srs EPSG:326zz)",
        )),
        None if get(MODEL_TYPE) == Some(2) || geographic.is_some() => Err(bad(
            path,
            format!(
                "the raster is in a geographic CRS ({}, degrees); hexes need a projected \
                 CRS in metres: warp it to a UTM zone first (gdalwarp -t_srs EPSG:326zz)",
                geographic.map_or("longitude/latitude".to_string(), |g| format!("EPSG:{g}"))
            ),
        )),
        None => Err(bad(
            path,
            "the raster names no CRS (no ProjectedCSTypeGeoKey in its GeoKeyDirectory)",
        )),
    }
    .and_then(|epsg| {
        if is_geographic(epsg) {
            Err(bad(path, format!("EPSG:{epsg} is a geographic CRS")))
        } else {
            Ok(epsg)
        }
    })
}

/// GDAL's no-data value, if the file has one.
fn nodata<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> Option<f64> {
    let v = dec.find_tag(Tag::from_u16_exhaustive(GDAL_NODATA)).ok()??;
    v.into_string()
        .ok()?
        .trim_matches(char::from(0))
        .trim()
        .parse()
        .ok()
}
