//! `hexsight report MAP --out DIR [--key C5,H3] [--from ZONE] [--to ZONE]`: the main job.
//!
//! Writes the matrix (`.bin`, `.npy`, and `.csv` for small maps), exposure
//! heatmaps, a viewshed with blind hexes for each key hex, a blind-zone map, the
//! profiles between key hexes, where the map names zones for two sides their
//! exposure to each other and deployment suggestions, and an `index.html` that
//! shows them all.

use anyhow::Context;
use clap::Args as ClapArgs;
use hexsight_analysis::engine::exposure::from_matrix;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Matrix, Selection, matrix};
use hexsight_analysis::engine::viewshed::viewshed;
use hexsight_analysis::export::geojson::{self, CrsChoice};
use hexsight_analysis::export::html::{Figure, index};
use hexsight_analysis::export::style::{Layer, Picture, Scene};
use hexsight_analysis::export::{overlays, pictures, profile, save_scene, write_with};
use hexsight_analysis::map::NamedZone;
use hexsight_analysis::map::write_atomic;
use hexsight_analysis::query::deploy::{EXACT_LIMIT, Goal, Request, deploy};
use hexsight_analysis::query::profile::profile as side_view;
use hexsight_analysis::query::range::Range;
use hexsight_analysis::query::zones::{self, side_zones};
use hexsight_analysis::{Map, Verdict};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `report`.
#[derive(ClapArgs)]
#[command(after_help = "Example: hexsight report maps/hill-112.json --out report/")]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Output folder (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Key hexes for viewsheds (`C5,H3`); default: the hexes that see most.
    #[arg(long)]
    key: Option<String>,
    /// Exposure counts only observers in this zone (`A1:F10,G3`).
    #[arg(long)]
    from: Option<String>,
    /// Exposure counts only targets in this zone.
    #[arg(long)]
    to: Option<String>,
    /// How many key hexes to pick when `--key` is not given.
    #[arg(long, default_value_t = 3)]
    keys: usize,
    /// Beyond this many hexes, or this length in the map's scale (`300m`), nothing is seen.
    #[arg(long)]
    range: Option<String>,
    /// Worker threads: 1 to 1024; 0 or absent: one per core.
    #[arg(long)]
    threads: Option<usize>,
    /// Also write a GeoJSON file beside the exposure, viewshed and spotting pictures.
    #[arg(long)]
    geojson: bool,
    /// GeoJSON coordinates for a map with `geo`: `lonlat` (WGS 84) or `native` (the map's CRS).
    #[arg(long, default_value = "lonlat", value_name = "CRS")]
    geojson_crs: CrsChoice,
}

/// Writes one GeoJSON overlay `STEM.geojson` into the report folder, when asked for.
fn overlay(
    a: &Args,
    files: &mut Vec<(String, String)>,
    stem: &str,
    what: &str,
    build: impl FnOnce(CrsChoice) -> hexsight_analysis::Result<serde_json::Value>,
) -> anyhow::Result<()> {
    if !a.geojson {
        return Ok(());
    }
    let name = format!("{stem}.geojson");
    geojson::save(&a.out.join(&name), &build(a.geojson_crs)?)?;
    files.push((name, format!("{what} as GeoJSON")));
    Ok(())
}

/// Key hexes whose lines to each other the report draws as profiles.
const PROFILE_KEYS: usize = 4;
/// Largest map for which the report also writes the matrix as CSV.
const CSV_LIMIT: usize = 2500;
/// Largest map for which the report also writes the byte-per-pair `.npy` (400 MB at this size).
const NPY_LIMIT: usize = 20_000;

/// Writes the report.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    if a.out.as_os_str() == "-" {
        anyhow::bail!("--out -: a report is a folder of files; give a folder name");
    }
    super::set_threads(a.threads)?;
    let map = super::load_map(&a.map)?;
    let zones = super::selection(&map, &a.map, a.from.as_deref(), a.to.as_deref())?;
    let range = super::range_arg(&map, &a.map, a.range.as_deref())?;
    let all = Selection::all(&map);
    super::matrix::check_matrix_memory(&a.map, &map, &all, 0, None)?;
    super::check_pictures(&a.map, &map, 1)?;
    if a.geojson {
        let args = super::GeoJsonArgs {
            geojson: Some(a.out.clone()),
            geojson_crs: a.geojson_crs,
        };
        args.check(&a.map, &map)?;
    }
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("{}: cannot create the folder", a.out.display()))?;
    let path = |f: &str| a.out.join(f);
    let progress = super::Progress::new("pairs");
    let engine = Engine::try_new(&map)?;
    let ctl = Control {
        cancel: super::interrupt_flag(),
        progress: &|d, t| progress.update(d, t),
    };
    let mut m = matrix(&engine, &all, &ctl)?;
    if let Some(r) = &range {
        r.mask(&map, &all.from, &all.to, &mut m.bits);
    }
    progress.finish();
    let secs = progress.seconds();
    let mut files = Vec::new();
    super::matrix::write_matrix(&map, &m, &path("matrix.bin"))?;
    files.push((
        "matrix.bin".to_string(),
        "visibility matrix, bit-packed (format in the README)".to_string(),
    ));
    if map.len() <= NPY_LIMIT {
        super::matrix::write_matrix(&map, &m, &path("matrix.npy"))?;
        files.push((
            "matrix.npy".to_string(),
            "visibility matrix as uint8 for numpy.load".to_string(),
        ));
        files.push((
            "matrix.labels.json".to_string(),
            "row and column labels of matrix.npy".to_string(),
        ));
    }
    if map.len() <= CSV_LIMIT {
        super::matrix::write_matrix(&map, &m, &path("matrix.csv"))?;
        files.push((
            "matrix.csv".to_string(),
            "visibility matrix as CSV (1 = sees)".to_string(),
        ));
    }
    let e = from_matrix(&m, &zones.from, &zones.to);
    overlay(
        &a,
        &mut files,
        "exposure",
        "sees / seen-by counts per hex",
        |crs| overlays::exposure(&map, &e, crs),
    )?;
    let mut figures = Vec::new();
    let mut figure = |pic: &Scene, stem: &str, title: &str, text: &str| -> anyhow::Result<()> {
        save_scene(
            pic,
            Some(&path(&format!("{stem}.png"))),
            Some(&path(&format!("{stem}.svg"))),
        )?;
        figures.push(Figure {
            title: title.into(),
            text: text.into(),
            png: format!("{stem}.png"),
            svg: format!("{stem}.svg"),
        });
        Ok(())
    };
    figure(
        &pictures::seen_by(&map, &e).scene(),
        "seen-by",
        "Exposure: seen by",
        "How many observers see each hex. Dark hexes are hidden: places to stand unseen.",
    )?;
    figure(
        &pictures::sees(&map, &e).scene(),
        "sees",
        "Field of view: sees",
        "How many hexes each hex sees. Bright hexes are the best observation posts.",
    )?;
    // Key hexes: given, or the ones that see most (spread out: not next to each other).
    let keys: Vec<usize> = match &a.key {
        Some(k) => super::zone_arg(&map, &a.map, "--key", k)?,
        None => {
            let mut order: Vec<usize> = (0..map.len()).collect();
            order.sort_by_key(|&i| (std::cmp::Reverse(e.sees[i]), i));
            let mut picked: Vec<usize> = Vec::new();
            for i in order {
                if picked.len() >= a.keys {
                    break;
                }
                if picked
                    .iter()
                    .all(|&p| map.hex_of(p).distance(map.hex_of(i)) > 3)
                {
                    picked.push(i);
                }
            }
            picked
        }
    };
    let mut blind_count = vec![0u32; map.len()];
    let mut summary = vec![
        format!(
            "{} of {} ordered pairs are in line of sight ({:.1}%), computed in {secs:.2} s on {} threads",
            m.bits.count(),
            map.len() * map.len(),
            100.0 * m.bits.count() as f64 / (map.len() * map.len()) as f64,
            rayon::current_num_threads()
        ),
        format!(
            "hexes seen by no observer{}: {}",
            if a.from.is_some() { " of the zone" } else { "" },
            e.seen_by.iter().filter(|&&c| c == 0).count()
        ),
    ];
    let mut blind_json = serde_json::Map::new();
    for &k in &keys {
        let from = map.hex_of(k);
        let label = map.label(from);
        let mut v = viewshed(&map, from);
        if let Some(r) = &range {
            r.viewshed(&map, &mut v);
        }
        for j in v.blind() {
            blind_count[j] += 1;
        }
        let stem = format!("viewshed-{label}");
        overlay(
            &a,
            &mut files,
            &stem,
            &format!("viewshed of {label}"),
            |crs| overlays::viewshed(&map, &v, crs),
        )?;
        summary.push(format!(
            "{label} sees {} hexes clear and {} hindered; {} blind hexes",
            v.count(Verdict::Clear),
            v.count(Verdict::Hindered),
            v.blind().len()
        ));
        blind_json.insert(
            label.clone(),
            v.blind().iter().map(|&j| serde_json::json!({"hex": map.label(map.hex_of(j)), "reason": v.reason(&map, j)})).collect(),
        );
        figure(
            &pictures::viewshed(&map, &v).scene(),
            &format!("viewshed-{label}"),
            &format!("Viewshed of {label}"),
            "Visible, hindered and blocked hexes from this key hex; blind hexes (orange) are hidden only by obstacles lower than the observer: dead ground behind a crest, a wood or a wall.",
        )?;
    }
    if !keys.is_empty() {
        let pic = Picture {
            map: &map,
            title: "Blind zones: how many key hexes have each hex as a blind hex".into(),
            layer: Layer::Scale {
                values: blind_count
                    .iter()
                    .map(|&c| (c > 0).then_some(c as f64))
                    .collect(),
                min: 0.0,
                max: keys.len() as f64,
                caption: "blind from key hexes".into(),
            },
            marked: keys.iter().map(|&k| map.hex_of(k)).collect(),
            zone: Vec::new(),
        };
        figure(
            &pic.scene(),
            "blind",
            "Blind zones",
            "Hexes in the dead ground of the key hexes (coloured); uncoloured hexes are not blind from any of them.",
        )?;
    }
    // Side views of the lines between the first key hexes.
    let shown = &keys[..keys.len().min(PROFILE_KEYS)];
    for (n, &i) in shown.iter().enumerate() {
        for &j in &shown[n + 1..] {
            let (from, to) = (map.label(map.hex_of(i)), map.label(map.hex_of(j)));
            let p = side_view(&map, map.hex_of(i), map.hex_of(j));
            figure(
                &profile::scene(&map, &p),
                &format!("profile-{from}-{to}"),
                &format!("Sight line {from} to {to}: {}", p.verdict().as_str()),
                "The side view of the line between two key hexes: the ground and what stands on it, the line from eye to eye, where and why it is first blocked (the line itself, whatever --range says).",
            )?;
        }
    }
    // Spotting maps where the ruleset has spotting rules (a spotting table).
    let mut spotted = 0;
    for &k in &keys {
        let from = map.hex_of(k);
        let still = hexsight_analysis::rules::miniatures::Activity::Still;
        let Ok(cells) = hexsight_analysis::query::spotting::spot(&map, from, still) else {
            break;
        };
        let label = map.label(from);
        let stem = format!("spotting-{label}");
        overlay(
            &a,
            &mut files,
            &stem,
            &format!("spotting from {label}"),
            |crs| overlays::spotting(&map, &cells, crs),
        )?;
        let pic = pictures::spotting(&map, from, &cells, still);
        figure(
            &pic.scene(),
            &format!("spotting-{label}"),
            &format!("Spotting from {label}"),
            "The ruleset's spotting table: the chance that one spotting test from this key hex spots a target that stays still.",
        )?;
        spotted += 1;
    }
    if spotted == 0 {
        summary.push(format!(
            "spotting maps: the {} ruleset has no spotting rules, so none are drawn",
            map.ruleset.name
        ));
    }
    let (side_figures, side_summary) = sides(&map, &engine, &m, range.as_ref(), &a.out)?;
    figures.extend(side_figures);
    summary.extend(side_summary);
    write_atomic(
        &path("blind.json"),
        (serde_json::to_string_pretty(&blind_json)? + "\n").as_bytes(),
    )?;
    files.push((
        "blind.json".to_string(),
        "blind hexes of each key hex, with the reason".to_string(),
    ));
    write_with(&path("exposure.json"), |w| {
        super::exposure::to_json(&map, &e).write(w)
    })?;
    files.push((
        "exposure.json".to_string(),
        "sees / seen-by counts per hex".to_string(),
    ));
    write_atomic(
        &path("index.html"),
        index(&map, &summary, &figures, &files).as_bytes(),
    )?;
    note!(
        "wrote {} ({} pictures); open {}",
        a.out.display(),
        figures.len() * 2,
        path("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Hexes each side deploys in the report's suggestions.
const SIDE_DEPLOY: usize = 3;

/// Where the map names zones for two sides: for each side, how exposed its zone is
/// to the other's, and where in it to stand to watch most of the other zone.
fn sides(
    map: &Map,
    engine: &Engine,
    m: &Matrix,
    range: Option<&Range>,
    out: &Path,
) -> anyhow::Result<(Vec<Figure>, Vec<String>)> {
    let (mut figures, mut summary) = (Vec::new(), Vec::new());
    let Some(pair) = side_zones(map) else {
        return Ok((figures, summary));
    };
    let zone = |z: &NamedZone| zones::resolve(map, &z.name);
    let mut save = |scene: &Scene, stem: String, title: String, text: &str| {
        let (png, svg) = (format!("{stem}.png"), format!("{stem}.svg"));
        save_scene(scene, Some(&out.join(&png)), Some(&out.join(&svg)))?;
        figures.push(Figure {
            title,
            text: text.into(),
            png,
            svg,
        });
        anyhow::Ok(())
    };
    for k in 0..2 {
        let ((side, own), (_, other)) = (pair[k], pair[1 - k]);
        let (mine, theirs) = (zone(own)?, zone(other)?);
        let e = from_matrix(m, &theirs, &mine);
        save(
            &pictures::seen_by(map, &e).scene(),
            format!("exposure-{}", own.name),
            format!("Exposure of {} to {}", own.name, other.name),
            "How many hexes of the other side's zone (outlined) see each hex: the dark hexes of this side's zone are where it stands unseen.",
        )?;
        let req = Request {
            zone: mine.clone(),
            watch: theirs.clone(),
            hide_from: Vec::new(),
            count: SIDE_DEPLOY,
            min_spacing: 0,
            terrain: Vec::new(),
            goal: Goal::Watch,
            range: range.cloned(),
            exact_limit: EXACT_LIMIT,
        };
        let plan = deploy(engine, &req, &Control::default())?;
        let chosen: Vec<String> = plan
            .chosen
            .iter()
            .map(|&i| map.label(map.hex_of(i)))
            .collect();
        summary.push(format!(
            "{side} ({}): {} in {} see {} of the {} hexes of {} ({} search)",
            own.name,
            plan.chosen.len(),
            chosen.join(", "),
            plan.covered,
            plan.of,
            other.name,
            plan.method.as_str()
        ));
        save(
            &pictures::deployment(map, &plan, &mine, &theirs).scene(),
            format!("deploy-{}", own.name),
            format!("Where {side} watches {} from {}", other.name, own.name),
            "The hexes of the side's zone that together see most of the other side's zone (see hexsight deploy).",
        )?;
    }
    Ok((figures, summary))
}
