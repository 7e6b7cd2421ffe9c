//! `hexsight spot MAP --from HEX [--activity still|moving] [--json] [--png FILE] [--svg FILE]`:
//! miniatures spotting from one hex to every hex (seed 001, 8.E-8.G).

use clap::Args as ClapArgs;
use hexsight_analysis::export::{overlays, pictures, save_picture};
use hexsight_analysis::query::spotting::spot;
use hexsight_analysis::rules::miniatures::Activity;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `spot`.
#[derive(ClapArgs)]
pub struct Args {
    /// The map file (a ruleset with a spotting table, and a `scale`).
    map: PathBuf,
    /// The observer's hex.
    #[arg(long)]
    from: String,
    /// What the targets do: `still` (does nothing) or `moving` (moves or fires).
    #[arg(long, default_value = "still", value_parser = parse_activity)]
    activity: Activity,
    /// Print a JSON list, one object per hex.
    #[arg(long)]
    json: bool,
    /// Also draw the answer as a PNG.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Also draw the answer as an SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
    #[command(flatten)]
    geojson: super::GeoJsonArgs,
}

fn parse_activity(s: &str) -> Result<Activity, String> {
    s.parse()
}

/// Prints the spotting answer for every hex.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    super::check_per_hex(&a.map, &map, if a.json { 1024 } else { 512 }, "spotting")?;
    super::check_pictures(&a.map, &map, (a.png.is_some() || a.svg.is_some()) as u64)?;
    a.geojson.check(&a.map, &map)?;
    let cells = spot(&map, from, a.activity)?;
    a.geojson
        .write(|crs| overlays::spotting(&map, &cells, crs))?;
    let mut out = String::new();
    if a.json {
        out = serde_json::to_string_pretty(&cells)? + "\n";
    } else {
        out += &format!(
            "spotting from {} ({:?} targets); hex: los, auto, p(test), reason\n",
            map.label(from),
            a.activity
        );
        for c in &cells {
            out += &format!(
                "{}: {} {} {:.2} - {}\n",
                c.hex,
                if c.los { "LOS" } else { "no-LOS" },
                if c.auto { "auto" } else { "-" },
                c.p_spot,
                c.reason
            );
        }
    }
    let picture = pictures::spotting(&map, from, &cells, a.activity);
    save_picture(&picture, a.png.as_deref(), a.svg.as_deref())?;
    for p in a.png.iter().chain(a.svg.iter()) {
        note!("wrote {}", p.display());
    }
    crate::out::text(&out)?;
    Ok(ExitCode::SUCCESS)
}
