//! `hexsight blind MAP --from HEX [--json]`: the observer's blind hexes.

use clap::Args as ClapArgs;
use hexsight_analysis::engine::viewshed::viewshed;
use hexsight_analysis::export::overlays;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `blind`.
#[derive(ClapArgs)]
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
}

/// Lists the blind hexes, each with the reason it is hidden.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    super::check_per_hex(&a.map, &map, 256, "the viewshed")?;
    a.geojson.check(&a.map, &map)?;
    let v = viewshed(&map, from);
    a.geojson.write(|crs| overlays::blind(&map, &v, crs))?;
    let blind = v.blind();
    if a.json {
        let list: Vec<_> = blind
            .iter()
            .map(|&j| json!({"hex": map.label(map.hex_of(j)), "reason": v.reason(&map, j)}))
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"from": map.label(from), "blind": list}))?
        )?;
    } else {
        outln!(
            "{} blind hexes seen from {} (hidden only by obstacles lower than the observer):",
            blind.len(),
            map.label(from)
        )?;
        for j in blind {
            outln!("{}: {}", map.label(map.hex_of(j)), v.reason(&map, j))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
