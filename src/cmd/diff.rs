//! `hexsight diff MAP [--layer A]... (--against OTHER | --against-layer B...) [--from ZONE]
//! [--to ZONE] [--view HEX,...] [--json] [--png FILE] [--svg FILE] [--tif/--fgb/--npy FILE]`.
//!
//! Before is MAP with the `--layer` files; after is OTHER as it is, or before with the
//! `--against-layer` files laid on top (the change being weighed).

use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::diff::{self, Diff};
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::export::{overlays, per_hex, pictures};
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `diff`.
#[derive(ClapArgs)]
#[command(
    group(clap::ArgGroup::new("after").args(["against", "against_layer"]).required(true)),
    after_help = "GIS outputs (see --help): --tif, --fgb, --npy\nExample: hexsight diff maps/asl-stream-crest.json --against-layer orchard-cut.json --view C5 --png change.png",
    mut_arg("json", |a| a.help("Print JSON: every changed hex and the example pairs")),
    mut_arg("png", |a| a.help("Also draw the change in observers that see each hex, as a PNG")),
)]
pub struct Args {
    /// The map file (before; with any --layer files).
    map: PathBuf,
    #[command(flatten)]
    against: Against,
    /// Observers compared (a zone; default every hex).
    #[arg(long)]
    from: Option<String>,
    /// Targets compared (a zone; default every hex).
    #[arg(long)]
    to: Option<String>,
    /// Hexes whose viewsheds are compared hex by hex (`C5,H3`).
    #[arg(long, value_name = "HEXES")]
    view: Option<String>,
    #[command(flatten)]
    output: super::args::OutputArgs,
    #[command(flatten)]
    gis: super::gis::GisArgs,
    #[command(flatten)]
    run: super::args::RunArgs,
}

/// `--against MAP` or `--against-layer FILE...`: the map after a change, shared by
/// `diff` and `report`.
#[derive(ClapArgs)]
pub struct Against {
    /// After: another map file of the same grid, read as it is.
    #[arg(long, value_name = "MAP", conflicts_with = "against_layer")]
    pub against: Option<PathBuf>,
    /// After: the map as before with these layer files on top.
    ///
    /// Repeatable, applied in order.
    #[arg(long, value_name = "FILE")]
    pub against_layer: Vec<PathBuf>,
}

impl Against {
    /// True when a map after is asked for.
    pub fn given(&self) -> bool {
        self.against.is_some() || !self.against_layer.is_empty()
    }

    /// The map after, and how to name it (`OTHER.json`, `layers a.json, b.json`).
    pub fn after(&self, before: &Map) -> anyhow::Result<(Map, String)> {
        Ok(match &self.against {
            Some(p) => (Map::load(p)?, p.display().to_string()),
            None => {
                let names: Vec<String> = self
                    .against_layer
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                (
                    before.clone().with_layers(&self.against_layer)?,
                    format!("layers {}", names.join(", ")),
                )
            }
        })
    }
}

/// Computes and prints the diff.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    a.run.start()?;
    let before = super::load_map(&a.map)?;
    let (after, against) = a.against.after(&before)?;
    diff::check_same_grid(&before, &after)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.map.display()))?;
    let sel = super::selection(&before, &a.map, a.from.as_deref(), a.to.as_deref())?;
    let views = match &a.view {
        Some(z) => super::zone_arg(&before, &a.map, "--view", z)?,
        None => Vec::new(),
    };
    diff::check_memory(&before, &after, &sel)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.map.display()))?;
    a.output.check(&a.map, &before)?;
    let layout = a.gis.check(&a.map, &before)?;
    let progress = super::Progress::new("pairs");
    let (e0, e1) = (Engine::try_new(&before)?, Engine::try_new(&after)?);
    let d = progress.run(|ctl| diff::diff(&e0, &e1, &sel, &views, ctl))?;
    a.run.timing("diff computed", progress.seconds());
    let title = format!(
        "Change against {against}: observers that see each hex, after minus before ({} gained, {} lost pairs)",
        d.gained, d.lost
    );
    a.output.draw(|| {
        pictures::diff(
            &after,
            &d.seen_by,
            "change in observers seeing the hex",
            title,
        )
    })?;
    a.gis.write(
        &before,
        &layout,
        || per_hex::diff(&d),
        |crs| overlays::diff(&before, &d, crs),
    )?;
    if a.output.json {
        crate::out::with(|w| super::json::write_lines(w, &to_json(&before, &d, &against)))?;
        return Ok(ExitCode::SUCCESS);
    }
    print_summary(&before, &d, &against)?;
    Ok(ExitCode::SUCCESS)
}

/// The diff as JSON: counts, the example pairs, every hex whose counts changed, the views.
pub fn to_json<'a>(map: &'a Map, d: &'a Diff, against: &'a str) -> impl Serialize + 'a {
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
