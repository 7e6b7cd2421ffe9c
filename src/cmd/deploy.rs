//! `hexsight deploy MAP --zone Z [--watch W] [--count K] [--hide-from H]
//! [--min-spacing D] [--terrain woods,building] [--goal watch|hide] [--range N]
//! [--json] [--png FILE] [--svg FILE]`.
use anyhow::Context;

use anyhow::bail;
use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::BitMatrix;
use hexsight_analysis::export::{overlays, per_hex, pictures};
use hexsight_analysis::query::deploy::{EXACT_LIMIT, Goal, Plan, Request, deploy};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `deploy`.
#[derive(ClapArgs)]
#[command(
    after_help = "GIS outputs (see --help): --geojson, --tif, --fgb, --npy\nExample: hexsight deploy maps/hill-112.json --zone A1:C12 --watch H1:T12 --count 2 --png deploy.png",
    mut_arg("json", |a| a.help("Print one JSON object")),
    mut_arg("png", |a| a.help("Draw the chosen hexes and what they see as a PNG")),
    mut_arg("svg", |a| a.help("The same as SVG")),
)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Where the hexes may be chosen (a zone, or a zone the map names).
    #[arg(long)]
    zone: String,
    /// What they should see together (needed with --goal watch).
    #[arg(long, value_name = "ZONE")]
    watch: Option<String>,
    /// How many hexes to choose.
    #[arg(long, default_value_t = 3, value_name = "N")]
    count: usize,
    /// The enemy's zone, to stay unseen by.
    ///
    /// With --goal watch only hexes no hex of it sees are chosen; with --goal hide
    /// the fewest of its hexes should see them.
    #[arg(long, value_name = "ZONE")]
    hide_from: Option<String>,
    /// Least hex distance between two chosen hexes.
    #[arg(long, default_value_t = 0, value_name = "N")]
    min_spacing: u32,
    /// Only hexes of these terrains (`woods,building`).
    #[arg(long, value_name = "IDS")]
    terrain: Option<String>,
    /// `watch`: see most of --watch; `hide`: be seen least.
    ///
    /// `watch`: together see most of --watch; `hide`: be seen by the fewest hexes of
    /// --hide-from.
    #[arg(long, default_value = "watch", value_parser = parse_goal)]
    goal: Goal,
    #[command(flatten)]
    range: super::args::RangeArg,
    #[command(flatten)]
    output: super::args::OutputArgs,
    #[command(flatten)]
    geojson: super::GeoJsonArgs,
    #[command(flatten)]
    gis: super::gis::GisArgs,
    #[command(flatten)]
    run: super::args::RunArgs,
}

fn parse_goal(s: &str) -> Result<Goal, String> {
    match s {
        "watch" => Ok(Goal::Watch),
        "hide" => Ok(Goal::Hide),
        _ => Err(format!("unknown goal `{s}` (use watch or hide)")),
    }
}

/// The request from the arguments, with one-line errors naming the map and option.
fn request(a: &Args, map: &Map) -> anyhow::Result<Request> {
    let zone = |opt: &str, z: &Option<String>| -> anyhow::Result<Vec<usize>> {
        z.as_deref()
            .map_or(Ok(Vec::new()), |t| super::zone_arg(map, &a.map, opt, t))
    };
    let req = Request {
        zone: super::zone_arg(map, &a.map, "--zone", &a.zone)?,
        watch: zone("--watch", &a.watch)?,
        hide_from: zone("--hide-from", &a.hide_from)?,
        count: a.count,
        min_spacing: a.min_spacing,
        terrain: a
            .terrain
            .iter()
            .flat_map(|t| t.split(','))
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        goal: a.goal,
        range: a.range.parse(map, &a.map)?,
        exact_limit: EXACT_LIMIT,
    };
    match req.goal {
        Goal::Watch if req.watch.is_empty() => {
            bail!("{}: --goal watch needs --watch ZONE", a.map.display())
        }
        Goal::Hide if req.hide_from.is_empty() => {
            bail!("{}: --goal hide needs --hide-from ZONE", a.map.display())
        }
        _ if req.count == 0 => bail!("{}: --count must be at least 1", a.map.display()),
        _ => Ok(req),
    }
}

/// Refuses, naming the map, a search whose matrices do not fit in memory.
fn check_memory(path: &Path, map: &Map, req: &Request) -> anyhow::Result<()> {
    let bits = BitMatrix::bytes_for(req.zone.len(), req.watch.len())
        .saturating_add(BitMatrix::bytes_for(req.hide_from.len(), req.zone.len()));
    let need = bits.saturating_add(Engine::estimate_bytes(map));
    hexsight_analysis::memory::check(
        need,
        &format!("a deployment search over {} hexes", req.zone.len()),
        "smaller --zone, --watch or --hide-from",
    )
    .with_context(|| path.display().to_string())
}

fn to_json(map: &Map, req: &Request, p: &Plan) -> Value {
    let label = |i: &usize| map.label(map.hex_of(*i));
    json!({
        "chosen": p.chosen.iter().map(label).collect::<Vec<_>>(),
        "covered": p.covered,
        "of": p.of,
        "method": p.method.as_str(),
        "adds": p.adds,
        "seen_by": p.seen_by,
        "enemy": req.hide_from.len(),
        "candidates": p.candidates,
        "goal": match req.goal { Goal::Watch => "watch", Goal::Hide => "hide" },
    })
}

fn text(map: &Map, req: &Request, p: &Plan) -> String {
    let label = |i: usize| map.label(map.hex_of(i));
    let mut s = format!(
        "{} of {} candidate hexes chosen ({} search)\n",
        p.chosen.len(),
        p.candidates,
        p.method.as_str()
    );
    for (k, &h) in p.chosen.iter().enumerate() {
        let mut parts = Vec::new();
        if !req.watch.is_empty() {
            parts.push(format!("adds {} watched hexes", p.adds[k]));
        }
        if !req.hide_from.is_empty() {
            let n = req.hide_from.len();
            parts.push(format!("seen by {} of {n} enemy hexes", p.seen_by[k]));
        }
        s += &format!("  {}: {}\n", label(h), parts.join(", "));
    }
    if !req.watch.is_empty() {
        s += &format!("covered: {} of {} watched hexes\n", p.covered, p.of);
    }
    if p.chosen.len() < req.count {
        s += &format!(
            "only {} hexes fit the zone, terrain, spacing and hiding asked for\n",
            p.chosen.len()
        );
    }
    s
}

/// Chooses the hexes and prints them.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    a.run.start()?;
    let map = super::load_map(&a.map)?;
    let req = request(&a, &map)?;
    check_memory(&a.map, &map, &req)?;
    a.output.check(&a.map, &map)?;
    a.geojson.check(&a.map, &map)?;
    let layout = a.gis.check(&a.map, &map)?;
    let engine = Engine::try_new(&map)?;
    let progress = super::Progress::new("pairs");
    let plan = progress
        .run(|ctl| deploy(&engine, &req, ctl))
        .map_err(|e| super::flags(e, &[("count", "--count")]))
        .with_context(|| a.map.display().to_string())?;
    a.run.timing("deployment chosen", progress.seconds());
    a.output
        .draw(|| pictures::deployment(&map, &plan, &req.zone, &req.watch))?;
    a.geojson
        .write(|crs| overlays::deploy(&map, &plan, &req.watch, crs))?;
    a.gis.write(
        &map,
        &layout,
        || per_hex::deploy(&map, &plan, &req.zone, &req.watch),
        |crs| overlays::deploy(&map, &plan, &req.watch, crs),
    )?;
    if a.output.json {
        crate::out::with(|w| super::json::write_lines_to(w, &to_json(&map, &req, &plan), 1))?;
    } else {
        out!("{}", text(&map, &req, &plan))?;
    }
    Ok(ExitCode::SUCCESS)
}
