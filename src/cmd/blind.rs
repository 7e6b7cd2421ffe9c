//! `hexsight blind MAP --from HEX [--json] [--tif FILE] [--fgb FILE] [--npy FILE]`: the
//! observer's blind hexes.

use clap::Args as ClapArgs;
use hexsight_analysis::engine::viewshed::viewshed;
use hexsight_analysis::export::{overlays, per_hex};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `blind`.
#[derive(ClapArgs)]
#[command(
    after_help = "GIS outputs (see --help): --geojson, --tif, --fgb, --npy\nExample: hexsight blind maps/hill-112.json --from K6"
)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// The observer's hex (`C5`).
    #[arg(long)]
    from: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    geojson: super::GeoJsonArgs,
    #[command(flatten)]
    gis: super::gis::GisArgs,
}

/// Lists the blind hexes, each with the reason it is hidden.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    super::check_per_hex(&a.map, &map, 256, "the viewshed")?;
    a.geojson.check(&a.map, &map)?;
    let layout = a.gis.check(&a.map, &map)?;
    let v = viewshed(&map, from);
    a.geojson.write(|crs| overlays::blind(&map, &v, crs))?;
    a.gis.write(
        &map,
        &layout,
        || per_hex::blind(&v),
        |crs| overlays::blind(&map, &v, crs),
    )?;
    let blind = v.blind();
    if a.json {
        /// One blind hex.
        #[derive(Serialize)]
        struct Entry {
            hex: String,
            reason: String,
        }
        /// The answer, field by field.
        #[derive(Serialize)]
        struct Answer<E> {
            from: String,
            blind: E,
        }
        let entries = super::json::Stream(|| {
            blind.iter().map(|&j| Entry {
                hex: map.label(map.hex_of(j)),
                reason: v.reason(&map, j),
            })
        });
        let answer = Answer {
            from: map.label(from),
            blind: entries,
        };
        crate::out::with(|w| super::json::write_lines(w, &answer))?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{} blind hexes seen from {} (hidden only by obstacles lower than the observer):",
        blind.len(),
        map.label(from)
    )?;
    for &j in blind.iter().take(super::SHOWN) {
        outln!("{}: {}", map.label(map.hex_of(j)), v.reason(&map, j))?;
    }
    if blind.len() > super::SHOWN {
        outln!(
            "and {} more {}",
            blind.len() - super::SHOWN,
            super::MORE_IN_FILES
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
