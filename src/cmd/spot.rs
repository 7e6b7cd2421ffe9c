//! `hexsight spot MAP --from HEX [--activity still|moving] [--json] [--png FILE] [--svg FILE]`:
//! miniatures spotting from one hex to every hex (seed 001, 8.E-8.G).

use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::export::{overlays, per_hex, pictures};
use hexsight_analysis::hex::Hex;
use hexsight_analysis::query::spotting::{SpotCell, spot};
use hexsight_analysis::rules::miniatures::Activity;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `spot`.
#[derive(ClapArgs)]
#[command(
    after_help = "GIS outputs (see --help): --geojson, --tif, --fgb, --npy\nExample: hexsight spot maps/miniatures-hamlet.json --from H6 --activity moving",
    mut_arg("json", |a| a.help("Print a JSON list, one object per hex")),
)]
pub struct Args {
    /// The map file (a ruleset with a spotting table, and a `scale`).
    map: PathBuf,
    /// The observer's hex.
    #[arg(long)]
    from: String,
    /// What the targets do: `still` (does nothing) or `moving` (moves or fires).
    #[arg(long, default_value = "still", value_parser = parse_activity)]
    activity: Activity,
    #[command(flatten)]
    output: super::args::OutputArgs,
    #[command(flatten)]
    geojson: super::GeoJsonArgs,
    #[command(flatten)]
    gis: super::gis::GisArgs,
}

fn parse_activity(s: &str) -> Result<Activity, String> {
    s.parse()
}

/// Prints the spotting answer for every hex.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    super::check_per_hex(
        &a.map,
        &map,
        if a.output.json { 1024 } else { 512 },
        "spotting",
    )?;
    a.output.check(&a.map, &map)?;
    a.geojson.check(&a.map, &map)?;
    let layout = a.gis.check(&a.map, &map)?;
    let cells = spot(&map, from, a.activity)?;
    a.geojson
        .write(|crs| overlays::spotting(&map, &cells, crs))?;
    a.gis.write(
        &map,
        &layout,
        || per_hex::spotting(&cells),
        |crs| overlays::spotting(&map, &cells, crs),
    )?;
    a.output
        .draw(|| pictures::spotting(&map, from, &cells, a.activity))?;
    for p in a.output.png.iter().chain(a.output.svg.iter()) {
        note!("wrote {}", p.display());
    }
    if a.output.json {
        crate::out::with(|w| super::json::write_lines_to(w, &cells, 1))?;
        return Ok(ExitCode::SUCCESS);
    }
    print_summary(&map, from, a.activity, &cells)?;
    Ok(ExitCode::SUCCESS)
}

/// The spotting answer as people read it: counts, then the hexes in LOS nearest first.
fn print_summary(
    map: &Map,
    from: Hex,
    activity: Activity,
    cells: &[SpotCell],
) -> anyhow::Result<()> {
    let in_los = cells.iter().filter(|c| c.los).count();
    let auto = cells.iter().filter(|c| c.auto).count();
    outln!(
        "spotting from {} ({activity:?} targets): {in_los} of {} hexes in LOS, {auto} spotted automatically",
        map.label(from),
        cells.len()
    )?;
    let mut seen: Vec<&SpotCell> = cells.iter().filter(|c| c.los).collect();
    seen.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    outln!("hex: auto, p(test), reason")?;
    for c in seen.iter().take(super::SHOWN) {
        outln!(
            "{}: {} {:.2} - {}",
            c.hex,
            if c.auto { "auto" } else { "-" },
            c.p_spot,
            c.reason
        )?;
    }
    if seen.len() > super::SHOWN {
        outln!(
            "and {} more in LOS {}",
            seen.len() - super::SHOWN,
            super::MORE_IN_FILES
        )?;
    }
    Ok(())
}
