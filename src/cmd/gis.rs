//! `--tif FILE [--tif-grid DEM]`, `--fgb FILE`, `--npy FILE`: per-hex answers for GIS
//! and numpy users, shared by the commands that map answers (viewshed, blind, exposure,
//! spot, deploy).
use anyhow::Context;

use super::writing;
use hexsight_analysis::Map;
use hexsight_analysis::export::geojson::{Collection, CrsChoice};
use hexsight_analysis::export::raster::{self, HexRaster, PixelLayout, Sample};
use hexsight_analysis::export::vector;
use std::path::{Path, PathBuf};

/// The GIS outputs of a command.
#[derive(clap::Args)]
pub struct GisArgs {
    /// Also write the answer as a GeoTIFF.
    ///
    /// On the DEM's own pixel grid for a map imported from one, else one pixel per
    /// hex (offset layout).
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub tif: Option<PathBuf>,
    /// Lay the GeoTIFF on this GeoTIFF's pixel grid (size, transform; same CRS as the map).
    #[arg(
        long,
        value_name = "GRID.tif",
        requires = "tif",
        hide_short_help = true
    )]
    pub tif_grid: Option<PathBuf>,
    /// Also write the answer as FlatGeobuf (QGIS, GDAL).
    ///
    /// The --geojson features, in the map's CRS.
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub fgb: Option<PathBuf>,
    /// Also write the per-hex values as a .npy array.
    ///
    /// Rows x columns, offset layout.
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub npy: Option<PathBuf>,
}

impl GisArgs {
    /// Checks, before any long computation, that the outputs can be made: the grid
    /// read and matching the map, memory for the raster and the vector features.
    /// Returns where the GeoTIFF's pixels lie.
    pub fn check(&self, path: &Path, map: &Map) -> anyhow::Result<PixelLayout> {
        let layout = match &self.tif_grid {
            Some(g) => grid_of(path, map, g)?,
            None => PixelLayout::of(map),
        };
        if self.tif.is_some() {
            hexsight_analysis::memory::check(
                raster::tif_bytes(map, &layout, 2, 4),
                "the GeoTIFF",
                "a coarser --tif-grid",
            )
            .with_context(|| path.display().to_string())?;
        }
        if self.fgb.is_some() {
            use hexsight_analysis::export::geojson::BYTES_PER_HEX;
            super::check_per_hex(path, map, BYTES_PER_HEX, "the FlatGeobuf")?;
        }
        Ok(layout)
    }

    /// Writes what was asked: `values` for the GeoTIFF and `.npy`, `features` (the
    /// GeoJSON overlay, asked in the map's own CRS) for FlatGeobuf.
    pub fn write<T: Sample>(
        &self,
        map: &Map,
        layout: &PixelLayout,
        values: impl FnOnce() -> HexRaster<T>,
        features: impl FnOnce(CrsChoice) -> hexsight_analysis::Result<Collection>,
    ) -> anyhow::Result<()>
    where
        [T]: raster::TiffValue,
    {
        if self.tif.is_some() || self.npy.is_some() {
            let r = values();
            if let Some(p) = &self.tif {
                writing(&p.display().to_string(), || {
                    raster::save_tif(map, &r, layout, p)
                })?;
                note!("wrote {}", p.display());
            }
            if let Some(p) = &self.npy {
                writing(&p.display().to_string(), || raster::save_npy(map, &r, p))?;
                note!("wrote {}", p.display());
            }
        }
        if let Some(p) = &self.fgb {
            writing(&p.display().to_string(), || {
                let fc = features(CrsChoice::Native)?;
                vector::save_fgb(p, &fc, map.geo.as_ref().map_or(0, |g| g.epsg))
            })?;
            note!("wrote {}", p.display());
        }
        Ok(())
    }
}

/// The pixel grid of the GeoTIFF at `grid`, which must share the map's CRS.
fn grid_of(path: &Path, map: &Map, grid: &Path) -> anyhow::Result<PixelLayout> {
    let Some(geo) = &map.geo else {
        anyhow::bail!(
            "{}: --tif-grid needs a map with a `geo` block (a map imported from a DEM)",
            path.display()
        );
    };
    let r = hexsight_analysis::import::geotiff::read(grid, "grid")?;
    if r.epsg != geo.epsg {
        anyhow::bail!(
            "{}: the grid is in EPSG:{}, the map in EPSG:{}; give a grid in the map's CRS",
            grid.display(),
            r.epsg,
            geo.epsg
        );
    }
    Ok(PixelLayout::Dem(r.dem_grid(), geo.epsg))
}
