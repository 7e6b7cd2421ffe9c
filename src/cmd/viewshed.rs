//! `hexsight viewshed MAP --from HEX [--json] [--png FILE] [--svg FILE]`.

use super::json::PerHex;
use clap::Args as ClapArgs;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::Control;
use hexsight_analysis::engine::viewshed::{Viewshed, viewshed_of};
use hexsight_analysis::export::{overlays, pictures, save_picture};
use hexsight_analysis::{Map, Verdict};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `viewshed`.
#[derive(ClapArgs)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// The observer's hex (`C5`).
    #[arg(long)]
    from: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Also draw it as a PNG.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Also draw it as an SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
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

/// The viewshed as JSON: counts and one entry per hex (written as it is serialized).
pub fn to_json<'a>(map: &'a Map, v: &'a Viewshed) -> impl Serialize + 'a {
    let hexes = PerHex(v.targets.len(), move |j| {
        let t = &v.targets[j];
        (
            map.label(map.hex_of(j)),
            json!({"verdict": t.verdict, "hindrance": t.hindrance, "blind": t.blind}),
        )
    });
    /// The answer, field by field in this order.
    #[derive(Serialize)]
    struct Answer<'b, H> {
        map: &'b str,
        ruleset: &'b str,
        from: String,
        counts: Value,
        hexes: H,
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
        hexes,
    }
}

/// Prints the viewshed and draws it.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    super::set_threads(a.threads)?;
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    let range = super::range_arg(&map, &a.map, a.range.as_deref())?;
    super::check_per_hex(&a.map, &map, 256, "the viewshed")?;
    super::check_pictures(&a.map, &map, (a.png.is_some() || a.svg.is_some()) as u64)?;
    a.geojson.check(&a.map, &map)?;
    let progress = super::Progress::new("targets");
    let engine = Engine::try_new(&map)?;
    let ctl = Control {
        cancel: super::interrupt_flag(),
        progress: &|d, t| progress.update(d, t),
    };
    let i = map.index(from).expect("a hex of the map");
    let mut v = viewshed_of(&engine, i, &ctl)?;
    if let Some(range) = &range {
        range.viewshed(&map, &mut v);
    }
    progress.finish();
    if a.timings {
        eprintln!(
            "viewshed of {} computed in {:.3} s",
            a.from,
            progress.seconds()
        );
    }
    save_picture(
        &pictures::viewshed(&map, &v),
        a.png.as_deref(),
        a.svg.as_deref(),
    )?;
    a.geojson.write(|crs| overlays::viewshed(&map, &v, crs))?;
    if a.json {
        crate::out::with(|w| super::json::write_pretty(w, &to_json(&map, &v)))?;
        return Ok(ExitCode::SUCCESS);
    }
    let list = |f: &dyn Fn(&hexsight_analysis::engine::viewshed::Target) -> bool,
                with_total: bool| {
        v.targets
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
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    outln!(
        "viewshed of {} on {} ({}):",
        map.label(from),
        map.name,
        map.ruleset.name
    )?;
    outln!(
        "clear {}: {}",
        v.count(Verdict::Clear),
        list(&|t| t.verdict == Verdict::Clear, false)
    )?;
    outln!(
        "hindered {}: {}",
        v.count(Verdict::Hindered),
        list(&|t| t.verdict == Verdict::Hindered, true)
    )?;
    outln!(
        "blocked {}: {}",
        v.count(Verdict::Blocked),
        list(&|t| t.verdict == Verdict::Blocked, false)
    )?;
    outln!("blind {}: {}", v.blind().len(), list(&|t| t.blind, false))?;
    Ok(ExitCode::SUCCESS)
}
