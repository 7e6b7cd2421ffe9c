//! `hexsight exposure MAP [--from ZONE] [--to ZONE] [--json] [--png FILE] [--svg FILE] [--shard K/N --out FILE.npz]`.

use super::json::StreamMap;
use anyhow::Context;
use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::exposure::{Exposure, exposure, shard_range, streaming_part};
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::Selection;
use hexsight_analysis::export::{npz, overlays, per_hex, pictures, write_with};
use hexsight_analysis::query::range::Range;
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `exposure`.
#[derive(ClapArgs)]
#[command(
    after_help = "GIS outputs (see --help): --geojson, --tif, --fgb, --npy\nExample: hexsight exposure maps/hill-112.json --from A1:C12 --png seen-by.png --tif exposure.tif",
    mut_arg("png", |a| a.help("Heatmap of \"seen by\" (how exposed each hex is) as PNG")),
    mut_arg("svg", |a| a.help("The same as SVG")),
)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Count only observers in this zone (`A1:F10,G3`).
    ///
    /// For example the enemy's start area (default: the `--to` zone when that is
    /// given, else all).
    #[arg(long)]
    from: Option<String>,
    /// Count only targets in this zone.
    ///
    /// Default: the `--from` zone when that is given, else all.
    #[arg(long)]
    to: Option<String>,
    #[command(flatten)]
    output: super::args::OutputArgs,
    /// Heatmap of "sees" (how much each hex sees) as PNG.
    #[arg(long, value_name = "FILE")]
    sees_png: Option<PathBuf>,
    #[command(flatten)]
    geojson: super::GeoJsonArgs,
    #[command(flatten)]
    gis: super::gis::GisArgs,
    #[command(flatten)]
    range: super::args::RangeArg,
    #[command(flatten)]
    run: super::args::RunArgs,
    /// Compute only shard K of N (`3/8`), for `hexsight merge`.
    ///
    /// The counts of the lines walked from the K-th (from 0) of N equal runs of map
    /// hexes, written to `--out` for `hexsight merge`.
    #[arg(long, requires = "out")]
    shard: Option<String>,
    /// The shard's partial counts as `.npz` (`sees`, `seen_by` uint32 and `meta.json`).
    #[arg(long, requires = "shard")]
    out: Option<PathBuf>,
}

/// Parses `--shard K/N`: 0 <= K < N.
pub fn shard_arg(text: &str) -> anyhow::Result<(usize, usize)> {
    let parsed = text.split_once('/').and_then(|(k, n)| {
        Some((
            k.trim().parse::<usize>().ok()?,
            n.trim().parse::<usize>().ok()?,
        ))
    });
    match parsed {
        Some((k, n)) if k < n => Ok((k, n)),
        _ => anyhow::bail!(
            "--shard `{}`: give K/N with 0 <= K < N, e.g. 0/4",
            hexsight_analysis::error::clip(text, 30)
        ),
    }
}

/// FNV-1a of a file's bytes: shards of one map carry the same value.
pub fn file_hash(bytes: &[u8]) -> String {
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// `--shard K/N --out FILE.npz`: the partial counts of one shard.
fn run_shard(
    a: &Args,
    map: &Map,
    sel: &Selection,
    range: Option<&Range>,
) -> anyhow::Result<ExitCode> {
    let (k, n) = shard_arg(a.shard.as_deref().unwrap_or_default())?;
    let out = a.out.as_deref().expect("clap requires --out with --shard");
    let bytes = std::fs::read(&a.map).with_context(|| a.map.display().to_string())?;
    let progress = super::Progress::new("pairs");
    let engine = Engine::try_new(map)?;
    let part = shard_range(map.len(), k, n);
    let e = progress.run(|ctl| match range {
        Some(r) => {
            hexsight_analysis::query::range::exposure_part(&engine, sel, r, part.clone(), ctl)
        }
        None => streaming_part(&engine, sel, part.clone(), ctl),
    })?;
    let secs = progress.seconds();
    let labels: Vec<String> = (0..map.len()).map(|i| map.label(map.hex_of(i))).collect();
    let meta = json!({
        "format": "hexsight-exposure-shard 1",
        "map": map.name,
        "ruleset": map.ruleset.name,
        "map_hash": file_hash(&bytes),
        "from": a.from,
        "to": a.to,
        "range": a.range.range,
        "observers": e.from.len(),
        "targets": e.to.len(),
        "shard": k,
        "shards": n,
        "labels": labels,
    });
    let members = vec![
        ("sees.npy".to_string(), npz::npy_u32(&e.sees)),
        ("seen_by.npy".to_string(), npz::npy_u32(&e.seen_by)),
        ("meta.json".to_string(), serde_json::to_vec(&meta)?),
    ];
    write_with(out, |w| npz::write(&members, w))?;
    note!(
        "shard {k}/{n} (hexes {} to {}) of {} computed in {secs:.3} s; wrote {}",
        part.start,
        part.end,
        a.map.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The counts, the engine's grids checked against the memory first (`exposure::exposure`).
pub fn compute(
    map: &Map,
    sel: &Selection,
    range: Option<&Range>,
    progress: &super::Progress,
) -> anyhow::Result<Exposure> {
    let engine = Engine::try_new(map)?;
    Ok(progress.run(|ctl| match range {
        Some(r) => hexsight_analysis::query::range::exposure(&engine, sel, r, ctl),
        None => exposure(&engine, sel, ctl),
    })?)
}

/// The counts as JSON, with each hex's label.
pub fn to_json<'a>(map: &'a Map, e: &'a Exposure) -> Counts<'a> {
    Counts {
        map: &map.name,
        ruleset: &map.ruleset.name,
        labels: Labels::Map(map),
        observers: e.from.len(),
        targets: e.to.len(),
        sees: &e.sees,
        seen_by: &e.seen_by,
    }
}

/// The JSON of `exposure --json` (and `merge`, `report`): the counts of each hex by
/// label. It is serialized as it is written, so a 2000x2000 map's four million
/// entries never stand in memory as a tree of values (that took 3.4 GB).
pub struct Counts<'a> {
    pub map: &'a str,
    pub ruleset: &'a str,
    /// Each hex's label, in map order.
    pub labels: Labels<'a>,
    pub observers: usize,
    pub targets: usize,
    pub sees: &'a [u32],
    pub seen_by: &'a [u32],
}

/// The hexes' labels: the map's own (made as they are written, without a string a
/// hex: a million-hex map's labels took a million allocations), or given.
pub enum Labels<'a> {
    Map(&'a Map),
    Given(Vec<String>),
}

impl Labels<'_> {
    fn len(&self) -> usize {
        match self {
            Labels::Map(map) => map.len(),
            Labels::Given(labels) => labels.len(),
        }
    }
}

/// One hex's label as [`Labels`] gives it.
enum LabelOut<'a> {
    Made(hexsight_analysis::hex::label::Label),
    Given(&'a str),
}

impl Serialize for LabelOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            LabelOut::Made(l) => l.as_str(),
            LabelOut::Given(l) => l,
        })
    }
}

impl Counts<'_> {
    /// Writes the counts as JSON, a hex a line, and a newline.
    pub fn write(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        super::json::write_lines(w, self)
    }
}

impl Serialize for Counts<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        /// One hex's entry.
        #[derive(Serialize)]
        struct Entry {
            sees: u32,
            seen_by: u32,
        }
        let hexes = StreamMap(|| {
            (0..self.labels.len()).map(|i| {
                let (sees, seen_by) = (self.sees[i], self.seen_by[i]);
                let label = match &self.labels {
                    Labels::Map(map) => LabelOut::Made(map.index_label(i)),
                    Labels::Given(labels) => LabelOut::Given(&labels[i]),
                };
                (label, Entry { sees, seen_by })
            })
        });
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("map", self.map)?;
        m.serialize_entry("ruleset", self.ruleset)?;
        m.serialize_entry("observers", &self.observers)?;
        m.serialize_entry("targets", &self.targets)?;
        m.serialize_entry("hexes", &hexes)?;
        m.end()
    }
}

/// Prints the most and least exposed hexes and draws the heatmaps.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    a.run.start()?;
    let map = super::load_map(&a.map)?;
    // A zone given alone stands for both ends: "who in the enemy's start area sees
    // each hex, and how much of it each hex sees" costs |zone| viewsheds, not all pairs.
    let (from, to) = match (a.from.as_deref(), a.to.as_deref()) {
        (Some(f), None) => (Some(f), Some(f)),
        (None, Some(t)) => (Some(t), Some(t)),
        other => other,
    };
    let sel = super::selection(&map, &a.map, from, to)?;
    let range = a.range.parse(&map, &a.map)?;
    if a.shard.is_some() {
        return run_shard(&a, &map, &sel, range.as_ref())
            .with_context(|| a.map.display().to_string());
    }
    if a.output.json {
        super::check_per_hex(&a.map, &map, 64, "exposure as JSON")?;
    }
    super::check_pictures(
        &a.map,
        &map,
        u64::from(a.output.draws() || a.sees_png.is_some()),
    )?;
    a.geojson.check(&a.map, &map)?;
    let layout = a.gis.check(&a.map, &map)?;
    let progress = super::Progress::new("pairs");
    let e = compute(&map, &sel, range.as_ref(), &progress)
        .with_context(|| a.map.display().to_string())?;
    // Every hex is counted: seen by the observers, seeing the targets.
    a.run.timing(
        &format!(
            "exposure of all {} hexes (seen by {} observers, seeing {} targets) computed",
            map.len(),
            sel.from.len(),
            sel.to.len(),
        ),
        progress.seconds(),
    );
    a.output.draw(|| pictures::seen_by(&map, &e))?;
    super::save_picture(|| pictures::sees(&map, &e), a.sees_png.as_deref(), None)?;
    a.geojson.write(|crs| overlays::exposure(&map, &e, crs))?;
    a.gis.write(
        &map,
        &layout,
        || per_hex::exposure(&e),
        |crs| overlays::exposure(&map, &e, crs),
    )?;
    if a.output.json {
        crate::out::with(|w| to_json(&map, &e).write(w))?;
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
