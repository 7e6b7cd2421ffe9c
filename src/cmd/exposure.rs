//! `hexsight exposure MAP [--from ZONE] [--to ZONE] [--json] [--png FILE] [--svg FILE]`.

use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::exposure::{Exposure, exposure};
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection};
use hexsight_analysis::export::{overlays, pictures, save_picture};
use hexsight_analysis::query::range::Range;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `exposure`.
#[derive(ClapArgs)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Count only observers in this zone (`A1:F10,G3`), e.g. the enemy's start area
    /// (default: the `--to` zone when that is given, else all).
    #[arg(long)]
    from: Option<String>,
    /// Count only targets in this zone (default: the `--from` zone when that is given, else all).
    #[arg(long)]
    to: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Heatmap of "seen by" (how exposed each hex is) as PNG.
    #[arg(long)]
    png: Option<PathBuf>,
    /// The same as SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Heatmap of "sees" (how much each hex sees) as PNG.
    #[arg(long)]
    sees_png: Option<PathBuf>,
    #[command(flatten)]
    geojson: super::GeoJsonArgs,
    /// Beyond this many hexes, or this length in the map's scale (`300m`), nothing is seen.
    #[arg(long)]
    range: Option<String>,
    /// Worker threads: 1 to 1024; 0 or absent: one per core.
    #[arg(long)]
    threads: Option<usize>,
    /// Print the compute time (not loading the map or printing) on stderr.
    #[arg(long)]
    timings: bool,
}

/// The counts, the engine's grids checked against the memory first (`exposure::exposure`).
pub fn compute(
    map: &Map,
    sel: &Selection,
    range: Option<&Range>,
    progress: &super::Progress,
) -> anyhow::Result<Exposure> {
    let engine = Engine::try_new(map)?;
    let ctl = Control {
        cancel: super::interrupt_flag(),
        progress: &|d, t| progress.update(d, t),
    };
    let e = match range {
        Some(r) => hexsight_analysis::query::range::exposure(&engine, sel, r, &ctl)?,
        None => exposure(&engine, sel, &ctl)?,
    };
    progress.finish();
    Ok(e)
}

/// The counts as JSON.
pub fn to_json(map: &Map, e: &Exposure) -> Value {
    let hexes: serde_json::Map<String, Value> = (0..map.len())
        .map(|i| {
            (
                map.label(map.hex_of(i)),
                json!({"sees": e.sees[i], "seen_by": e.seen_by[i]}),
            )
        })
        .collect();
    json!({
        "map": map.name,
        "ruleset": map.ruleset.name,
        "observers": e.from.len(),
        "targets": e.to.len(),
        "hexes": hexes,
    })
}

/// Prints the most and least exposed hexes and draws the heatmaps.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    super::set_threads(a.threads)?;
    let map = super::load_map(&a.map)?;
    // A zone given alone stands for both ends: "who in the enemy's start area sees
    // each hex, and how much of it each hex sees" costs |zone| viewsheds, not all pairs.
    let (from, to) = match (a.from.as_deref(), a.to.as_deref()) {
        (Some(f), None) => (Some(f), Some(f)),
        (None, Some(t)) => (Some(t), Some(t)),
        other => other,
    };
    let sel = super::selection(&map, &a.map, from, to)?;
    let range = super::range_arg(&map, &a.map, a.range.as_deref())?;
    if a.json {
        super::check_per_hex(&a.map, &map, 1024, "exposure as JSON")?;
    }
    super::check_pictures(
        &a.map,
        &map,
        (a.png.is_some() || a.svg.is_some() || a.sees_png.is_some()) as u64,
    )?;
    a.geojson.check(&a.map, &map)?;
    let progress = super::Progress::new("pairs");
    let e = compute(&map, &sel, range.as_ref(), &progress)
        .map_err(|e| anyhow::anyhow!("{}: {e:#}", a.map.display()))?;
    if a.timings {
        eprintln!(
            "exposure of {} observers x {} targets computed in {:.3} s",
            sel.from.len(),
            sel.to.len(),
            progress.seconds()
        );
    }
    save_picture(
        &pictures::seen_by(&map, &e),
        a.png.as_deref(),
        a.svg.as_deref(),
    )?;
    save_picture(&pictures::sees(&map, &e), a.sees_png.as_deref(), None)?;
    a.geojson.write(|crs| overlays::exposure(&map, &e, crs))?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&to_json(&map, &e))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let label = |i: usize| map.label(map.hex_of(i));
    let mut order: Vec<usize> = (0..map.len()).collect();
    order.sort_by_key(|&i| (e.seen_by[i], std::cmp::Reverse(e.sees[i]), i));
    outln!(
        "exposure on {} ({}): {} observers, {} targets",
        map.name,
        map.ruleset.name,
        e.from.len(),
        e.to.len()
    )?;
    let hidden = order.iter().filter(|&&i| e.seen_by[i] == 0).count();
    outln!("hexes seen by no observer: {hidden}")?;
    outln!("least exposed (seen by, sees):")?;
    for &i in order.iter().take(10) {
        outln!("  {} {} {}", label(i), e.seen_by[i], e.sees[i])?;
    }
    order.sort_by_key(|&i| (std::cmp::Reverse(e.sees[i]), e.seen_by[i], i));
    outln!("sees most (sees, seen by):")?;
    for &i in order.iter().take(10) {
        outln!("  {} {} {}", label(i), e.sees[i], e.seen_by[i])?;
    }
    Ok(ExitCode::SUCCESS)
}
