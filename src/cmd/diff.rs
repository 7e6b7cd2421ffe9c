//! `hexsight diff MAP [--layer A]... (--against OTHER | --against-layer B...) [--from ZONE]
//! [--to ZONE] [--view HEX,...] [--json] [--png FILE] [--svg FILE] [--tif/--fgb/--npy FILE]`.
//!
//! Before is MAP with the `--layer` files; after is OTHER as it is, or before with the
//! `--against-layer` files laid on top (the change being weighed).

use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::diff::{self, Diff};
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::Control;
use hexsight_analysis::export::{overlays, per_hex, pictures};
use hexsight_analysis::map::layer;
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `diff`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight diff maps/asl-stream-crest.json --against-layer orchard-cut.json --view C5 --png change.png"
)]
pub struct Args {
    /// The map file (before; with any --layer files).
    map: PathBuf,
    /// After: another map file of the same grid, read as it is.
    #[arg(
        long,
        value_name = "MAP",
        conflicts_with = "against_layer",
        required_unless_present = "against_layer"
    )]
    against: Option<PathBuf>,
    /// After: the map as before with these layer files on top (repeatable, in order).
    #[arg(long, value_name = "FILE")]
    against_layer: Vec<PathBuf>,
    /// Observers compared (a zone; default every hex).
    #[arg(long)]
    from: Option<String>,
    /// Targets compared (a zone; default every hex).
    #[arg(long)]
    to: Option<String>,
    /// Hexes whose viewsheds are compared hex by hex (`C5,H3`).
    #[arg(long, value_name = "HEXES")]
    view: Option<String>,
    /// Print JSON instead of a summary: every changed hex and the example pairs.
    #[arg(long)]
    json: bool,
    /// Also draw the change in observers that see each hex, as a PNG.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Also draw it as an SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
    #[command(flatten)]
    gis: super::gis::GisArgs,
    /// Worker threads: 1 to 1024; 0 or absent: one per core.
    #[arg(long)]
    threads: Option<usize>,
}

/// Computes and prints the diff.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    super::set_threads(a.threads)?;
    let before = super::load_map(&a.map)?;
    let (after, against) = match &a.against {
        Some(p) => (Map::load(p)?, p.display().to_string()),
        None => {
            let names: Vec<String> = a
                .against_layer
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            (
                layer::apply_files(before.clone(), &a.against_layer)?,
                format!("layers {}", names.join(", ")),
            )
        }
    };
    diff::check_same_grid(&before, &after)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.map.display()))?;
    let sel = super::selection(&before, &a.map, a.from.as_deref(), a.to.as_deref())?;
    let views = match &a.view {
        Some(z) => super::zone_arg(&before, &a.map, "--view", z)?,
        None => Vec::new(),
    };
    diff::check_memory(&before, &after, &sel)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.map.display()))?;
    super::check_pictures(&a.map, &before, (a.png.is_some() || a.svg.is_some()) as u64)?;
    let layout = a.gis.check(&a.map, &before)?;
    let progress = super::Progress::new("pairs");
    let ctl = Control {
        cancel: super::interrupt_flag(),
        progress: &|d, t| progress.update(d, t),
    };
    let (e0, e1) = (Engine::try_new(&before)?, Engine::try_new(&after)?);
    let d = diff::diff(&e0, &e1, &sel, &views, &ctl)?;
    progress.finish();
    let title = format!(
        "Change against {against}: observers that see each hex, after minus before ({} gained, {} lost pairs)",
        d.gained, d.lost
    );
    super::save_picture(
        || {
            pictures::diff(
                &after,
                &d.seen_by,
                "change in observers seeing the hex",
                title,
            )
        },
        a.png.as_deref(),
        a.svg.as_deref(),
    )?;
    a.gis.write(
        &before,
        &layout,
        || per_hex::diff(&d),
        |crs| overlays::diff(&before, &d, crs),
    )?;
    if a.json {
        crate::out::with(|w| super::json::write_lines(w, &to_json(&before, &d, &against)))?;
        return Ok(ExitCode::SUCCESS);
    }
    print_summary(&before, &d, &against)?;
    Ok(ExitCode::SUCCESS)
}

/// The diff as JSON: counts, the example pairs, every hex whose counts changed, the views.
fn to_json<'a>(map: &'a Map, d: &'a Diff, against: &'a str) -> impl Serialize + 'a {
    let label = move |i: usize| map.label(map.hex_of(i));
    let pairs = move |v: &'a [(usize, usize)]| {
        v.iter()
            .map(move |&(i, j)| [label(i), label(j)])
            .collect::<Vec<_>>()
    };
    let changed = move |v: &'a [i64]| {
        super::json::StreamMap(move || {
            v.iter()
                .enumerate()
                .filter(|(_, x)| **x != 0)
                .map(move |(i, x)| (label(i), *x))
        })
    };
    #[derive(Serialize)]
    struct Answer<'b, S, B> {
        map: &'b str,
        ruleset: &'b str,
        against: &'b str,
        counts: serde_json::Value,
        first_gained: Vec<[String; 2]>,
        first_lost: Vec<[String; 2]>,
        seen_by_change: S,
        sees_change: B,
        views: Vec<serde_json::Value>,
    }
    Answer {
        map: &map.name,
        ruleset: &map.ruleset.name,
        against,
        counts: json!({"observers": d.sel.from.len(), "targets": d.sel.to.len(), "gained": d.gained, "lost": d.lost}),
        first_gained: pairs(&d.first_gained),
        first_lost: pairs(&d.first_lost),
        seen_by_change: changed(&d.seen_by),
        sees_change: changed(&d.sees),
        views: d
            .views
            .iter()
            .map(|v| {
                let l = |x: &[usize]| x.iter().map(|&j| label(j)).collect::<Vec<_>>();
                json!({"from": label(v.from), "gained": l(&v.gained), "lost": l(&v.lost)})
            })
            .collect(),
    }
}

/// The diff as people read it.
fn print_summary(map: &Map, d: &Diff, against: &str) -> anyhow::Result<()> {
    let label = |i: usize| map.label(map.hex_of(i));
    let pairs = |v: &[(usize, usize)], n: u64| {
        super::sample_list(
            n as usize,
            v.iter()
                .map(|&(i, j)| format!("{}->{}", label(i), label(j))),
        )
    };
    outln!(
        "diff of {} ({}) against {against}: {} observers x {} targets",
        map.name,
        map.ruleset.name,
        d.sel.from.len(),
        d.sel.to.len()
    )?;
    outln!(
        "pairs gained {}: {}",
        d.gained,
        pairs(&d.first_gained, d.gained)
    )?;
    outln!("pairs lost {}: {}", d.lost, pairs(&d.first_lost, d.lost))?;
    for (name, v) in [("seen by more", 1i64), ("seen by fewer", -1)] {
        let mut hexes: Vec<usize> = (0..map.len()).filter(|&i| d.seen_by[i] * v > 0).collect();
        hexes.sort_by_key(|&i| (-(d.seen_by[i] * v), i));
        let shown = hexes
            .iter()
            .map(|&i| format!("{}({:+})", label(i), d.seen_by[i]));
        outln!(
            "{name} {}: {}",
            hexes.len(),
            super::sample_list(hexes.len(), shown)
        )?;
    }
    for v in &d.views {
        let list = |x: &[usize]| super::sample_list(x.len(), x.iter().map(|&j| label(j)));
        outln!(
            "viewshed of {}: gained {}: {}; lost {}: {}",
            label(v.from),
            v.gained.len(),
            list(&v.gained),
            v.lost.len(),
            list(&v.lost)
        )?;
    }
    Ok(())
}
