//! `hexsight viewshed MAP --from HEX [--json] [--png FILE] [--svg FILE] [--tif FILE] [--fgb FILE] [--npy FILE]`.

use clap::Args as ClapArgs;
use hexsight_analysis::engine::viewshed::{Target, Viewshed, viewshed_on_map};
use hexsight_analysis::export::raster::PixelLayout;
use hexsight_analysis::export::{overlays, per_hex, pictures};
use hexsight_analysis::{Map, Verdict};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `viewshed`.
#[derive(ClapArgs)]
#[command(
    after_help = "GIS outputs (see --help): --geojson, --tif, --fgb, --npy\nExample: hexsight viewshed maps/hill-112.json --from K6 --png k6.png --tif k6.tif",
    mut_arg("json", |a| a.help("Print JSON instead of a summary: every hex, listed by class")),
    mut_arg("timings", |a| a.help("Print on stderr the compute time, then the time to write the answer (not loading the map)")),
)]
pub struct Args {
    /// The map file.
    pub(super) map: PathBuf,
    /// The observer's hex (`C5`).
    #[arg(long)]
    pub(super) from: String,
    #[command(flatten)]
    pub(super) output: super::args::OutputArgs,
    #[command(flatten)]
    pub(super) geojson: super::GeoJsonArgs,
    #[command(flatten)]
    pub(super) gis: super::gis::GisArgs,
    #[command(flatten)]
    pub(super) range: super::args::RangeArg,
    #[command(flatten)]
    pub(super) run: super::args::RunArgs,
    /// Instead of the viewshed, each hex's lowest visible height, up to N (10).
    ///
    /// How many levels above its ground a target must stand to be seen (hindered
    /// counts), up to N levels (10 when N is not given).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10")]
    pub(super) min_height: Option<u32>,
    #[command(flatten)]
    pub(super) kinds: super::min_height::KindArgs,
}

/// The viewshed as JSON: counts, then the hexes of each class as lists of labels
/// (`hindered` maps each label to its hindrance; `blind` hexes are also `blocked`),
/// a few bytes a hex.
pub fn to_json<'a>(map: &'a Map, v: &'a Viewshed) -> impl Serialize + 'a {
    let class = move |f: fn(&Target) -> bool| {
        v.targets
            .iter()
            .enumerate()
            .filter(move |(_, t)| f(t))
            .map(move |(j, t)| (map.index_label(j), t.hindrance))
    };
    /// The answer, field by field in this order.
    #[derive(Serialize)]
    struct Answer<'b, C, H, B, D> {
        map: &'b str,
        ruleset: &'b str,
        from: String,
        counts: Value,
        clear: C,
        hindered: H,
        blocked: B,
        blind: D,
    }
    Answer {
        map: &map.name,
        ruleset: &map.ruleset.name,
        from: map.label(v.from),
        counts: json!({
            "clear": v.count(Verdict::Clear),
            "hindered": v.count(Verdict::Hindered),
            "blocked": v.count(Verdict::Blocked),
            "blind": v.blind().len(),
        }),
        clear: super::json::Stream(move || class(|t| t.verdict == Verdict::Clear).map(|(l, _)| l)),
        hindered: super::json::StreamMap(move || class(|t| t.verdict == Verdict::Hindered)),
        blocked: super::json::Stream(move || {
            class(|t| t.verdict == Verdict::Blocked).map(|(l, _)| l)
        }),
        blind: super::json::Stream(move || class(|t| t.blind).map(|(l, _)| l)),
    }
}

/// Prints the viewshed and draws it.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    a.run.start()?;
    if let Some(up_to) = a.min_height {
        return super::min_height::run(&a, up_to);
    }
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    let range = a.range.parse(&map, &a.map)?;
    super::check_per_hex(&a.map, &map, 256, "the viewshed")?;
    a.output.check(&a.map, &map)?;
    a.geojson.check(&a.map, &map)?;
    let layout = a.gis.check(&a.map, &map)?;
    let progress = super::Progress::new("targets");
    let i = map.index(from).expect("a hex of the map");
    // Over open ground no engine is built at all.
    let mut v = progress.run(|ctl| viewshed_on_map(&map, i, ctl))?;
    if let Some(range) = &range {
        range.viewshed(&map, &mut v);
    }
    let what = format!("viewshed of {}", a.from);
    a.run
        .timing(&format!("{what} computed"), progress.seconds());
    let written = std::time::Instant::now();
    write_answer(&a, &map, &v, &layout)?;
    a.run.timing(
        &format!("{what} answered (pictures, files, output)"),
        written.elapsed().as_secs_f64(),
    );
    Ok(ExitCode::SUCCESS)
}

/// Draws and writes what was asked, and prints the answer.
fn write_answer(a: &Args, map: &Map, v: &Viewshed, layout: &PixelLayout) -> anyhow::Result<()> {
    a.output.draw(|| pictures::viewshed(map, v))?;
    a.geojson.write(|crs| overlays::viewshed(map, v, crs))?;
    a.gis.write(
        map,
        layout,
        || per_hex::viewshed(v),
        |crs| overlays::viewshed(map, v, crs),
    )?;
    if a.output.json {
        crate::out::with(|w| super::json::write_lines(w, &to_json(map, v)))?;
        return Ok(());
    }
    print_summary(map, v)
}

/// The viewshed as people read it: each class's count and first labels.
fn print_summary(map: &Map, v: &Viewshed) -> anyhow::Result<()> {
    let class = |f: &dyn Fn(&Target) -> bool, count: usize, with_total: bool| {
        let labels = v
            .targets
            .iter()
            .enumerate()
            .filter(|(_, t)| f(t))
            .map(|(j, t)| {
                let l = map.label(map.hex_of(j));
                if with_total {
                    format!("{l}({})", t.hindrance)
                } else {
                    l
                }
            });
        super::sample_list(count, labels)
    };
    outln!(
        "viewshed of {} on {} ({}), {} hexes:",
        map.label(v.from),
        map.name,
        map.ruleset.name,
        map.len()
    )?;
    let counts = [
        v.count(Verdict::Clear),
        v.count(Verdict::Hindered),
        v.count(Verdict::Blocked),
        v.blind().len(),
    ];
    outln!(
        "clear {}: {}",
        counts[0],
        class(&|t| t.verdict == Verdict::Clear, counts[0], false)
    )?;
    outln!(
        "hindered {}: {}",
        counts[1],
        class(&|t| t.verdict == Verdict::Hindered, counts[1], true)
    )?;
    outln!(
        "blocked {}: {}",
        counts[2],
        class(&|t| t.verdict == Verdict::Blocked, counts[2], false)
    )?;
    outln!(
        "blind {}: {}",
        counts[3],
        class(&|t| t.blind, counts[3], false)
    )?;
    if counts.iter().any(|&c| c > super::SHOWN) {
        outln!("{}", super::MORE_IN_FILES)?;
    }
    Ok(())
}
