//! `hexsight report MAP --out DIR [--key C5,H3] [--from ZONE] [--to ZONE]`: the main job.
//!
//! Writes an interactive `index.html` (the map; click a hex for its viewshed, point
//! at another for the line, its verdict, blocker and reason) with its data in
//! `data.js`, the pictures it shows (exposure heatmaps, key viewsheds, blind zones,
//! profiles, spotting, the sides' exposure and deployment), the counts and blind
//! hexes as JSON, and the raw matrix on small maps or when asked. The folder is
//! written whole or not at all: into a temporary sibling, put in place at the end.
//!
//! With `--against OTHER` or `--against-layer FILE...` (as `hexsight diff` takes
//! them) the page also shows what the change does: pairs gained and lost, each hex's
//! change in observers, and each viewshed's hexes gained and lost.

use anyhow::Context;
use clap::Args as ClapArgs;
use hexsight_analysis::atomic::AtomicDir;
use hexsight_analysis::engine::diff::{self, Diff};
use hexsight_analysis::engine::exposure::{Exposure, from_matrix};
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Matrix, Selection, matrix};
use hexsight_analysis::engine::viewshed::viewshed_of;
use hexsight_analysis::export::geojson::{self, CrsChoice};
use hexsight_analysis::export::html::{DataNote, Figure, index};
use hexsight_analysis::export::page::{self, Heat, PageInput, UnitLink, ZoneLayer};
use hexsight_analysis::export::raster::{self, HexRaster, PixelLayout, Sample, TiffValue};
use hexsight_analysis::export::style::{Layer, Picture, Scene};
use hexsight_analysis::export::{overlays, per_hex, pictures, profile, write_with};
use hexsight_analysis::map::write_atomic;
use hexsight_analysis::map::zones::{self, side_zones};
use hexsight_analysis::query::deploy::{EXACT_LIMIT, Goal, Request, deploy};
use hexsight_analysis::query::profile::profile as side_view;
use hexsight_analysis::query::range::Range;
use hexsight_analysis::query::spotting::SpotCell;
use hexsight_analysis::rules::miniatures::Activity;
use hexsight_analysis::rules::units::FireKind;
use hexsight_analysis::{Map, Verdict};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `report`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight report maps/hill-112.json --out report/",
    mut_arg("against", |a| a.help("Also show what changes against another map of the same grid").long_help("Also show what changes against another map of the same grid, read as it is (as `diff --against`)")),
    mut_arg("against_layer", |a| a.help("Also show what changes with these layer files on top").long_help("Also show what changes with these layer files on top (repeatable; as `diff --against-layer`)")),
)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Output folder.
    ///
    /// Written whole into a temporary sibling, then put in place (a previous report
    /// there is replaced; a folder of other files is refused).
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
    #[command(flatten)]
    range: super::args::RangeArg,
    #[command(flatten)]
    run: super::args::RunArgs,
    /// Also write the raw matrix.
    ///
    /// `matrix.bin`, `matrix.npy` up to 20,000 hexes, `matrix.csv` up to 2,500;
    /// written anyway on maps up to 2,500 hexes.
    #[arg(long)]
    matrix: bool,
    /// Also write each picture as SVG.
    ///
    /// Written anyway on maps up to 2,500 hexes.
    #[arg(long)]
    svg: bool,
    /// Also write GeoJSON files beside the pictures.
    ///
    /// One beside each of the exposure, viewshed and spotting pictures.
    #[arg(long)]
    geojson: bool,
    /// GeoJSON coordinates for a map with `geo`: `lonlat` (WGS 84) or `native` (the map's CRS).
    #[arg(
        long,
        default_value = "lonlat",
        value_name = "CRS",
        hide_short_help = true
    )]
    geojson_crs: CrsChoice,
    // Also compare (a "What changes" section), as `hexsight diff` does.
    #[command(flatten)]
    against: super::diff::Against,
}

/// The map as the report reads it, checked, and the map after a change if asked.
struct Prepared {
    map: Map,
    sel: Selection,
    range: Option<Range>,
    /// The map after, and its name.
    after: Option<(Map, String)>,
}

/// Key hexes whose lines to each other the report draws as profiles.
const PROFILE_KEYS: usize = 4;
/// Largest map whose report holds the raw matrix and the SVGs without being asked
/// (`--matrix`, `--svg`): beyond it they dominate the folder (at 10,000 hexes a
/// 100 MB `.npy` and 5 MB an SVG).
const SMALL_MAP: usize = 2500;
/// Largest map for which the report writes the matrix as CSV.
const CSV_LIMIT: usize = 2500;
/// Largest map for which the report writes the byte-per-pair `.npy` (400 MB at this size).
const NPY_LIMIT: usize = 20_000;
/// Most units for the units' network on the page (every ordered pair is asked).
const NETWORK_UNITS: usize = 200;

/// A report being written: the folder, and what goes on the page.
struct Report<'a> {
    a: &'a Args,
    map: &'a Map,
    dir: &'a AtomicDir,
    files: Vec<(String, String)>,
    figures: Vec<Figure>,
    summary: Vec<String>,
    heats: Vec<Heat>,
    svg: bool,
}

impl Report<'_> {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.file(name)
    }

    /// Notes a data file for the page's list.
    fn file(&mut self, name: &str, what: &str) {
        self.files.push((name.to_string(), what.to_string()));
    }

    /// Draws one picture as `STEM.png` (and `STEM.svg` when SVGs are written).
    fn figure(&mut self, scene: &Scene, stem: &str, title: &str, text: &str) -> anyhow::Result<()> {
        let png = format!("{stem}.png");
        write_atomic(
            &self.path(&png),
            &hexsight_analysis::export::png::png_bytes(scene),
        )?;
        let svg = if self.svg {
            let name = format!("{stem}.svg");
            write_atomic(
                &self.path(&name),
                hexsight_analysis::export::svg::svg_string(scene).as_bytes(),
            )?;
            Some(name)
        } else {
            None
        };
        self.figures.push(Figure {
            title: title.into(),
            text: text.into(),
            png,
            svg,
        });
        Ok(())
    }

    /// Writes one GeoTIFF `STEM.tif` of per-hex values: on the DEM's own pixel grid for
    /// a map imported from one, else a pixel per hex (see `viewshed --tif`).
    fn raster<T: Sample>(
        &mut self,
        stem: &str,
        what: &str,
        values: HexRaster<T>,
    ) -> anyhow::Result<()>
    where
        [T]: TiffValue,
    {
        let name = format!("{stem}.tif");
        let layout = PixelLayout::of(self.map);
        raster::save_tif(self.map, &values, &layout, &self.path(&name))?;
        self.file(&name, &format!("{what} as a GeoTIFF ({})", values.meaning));
        Ok(())
    }

    /// Writes one GeoJSON overlay `STEM.geojson`, when asked for.
    fn overlay(
        &mut self,
        stem: &str,
        what: &str,
        build: impl FnOnce(CrsChoice) -> hexsight_analysis::Result<geojson::Collection>,
    ) -> anyhow::Result<()> {
        if !self.a.geojson {
            return Ok(());
        }
        let name = format!("{stem}.geojson");
        geojson::save(&self.path(&name), &build(self.a.geojson_crs)?)?;
        self.file(&name, &format!("{what} as GeoJSON"));
        Ok(())
    }
}

/// Writes the report.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let p = prepare(&a)?;
    let dir = AtomicDir::create(&a.out, "index.html")?;
    // Errors name the files where they will be, not the temporary folder.
    let staging = dir.staging().display().to_string();
    let shown = |e: anyhow::Error| {
        anyhow::anyhow!(
            "{}",
            format!("{e:#}").replace(&staging, &a.out.display().to_string())
        )
    };
    let started = std::time::Instant::now();
    let pictures = write_all(&a, &p, &dir).map_err(shown)?;
    a.run.timing(
        "report computed and written",
        started.elapsed().as_secs_f64(),
    );
    dir.commit()?;
    note!(
        "wrote {} ({pictures} pictures); open {}",
        a.out.display(),
        a.out.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Computes and writes every file into the folder being made; returns the number of pictures.
fn write_all(a: &Args, p: &Prepared, dir: &AtomicDir) -> anyhow::Result<usize> {
    let mut r = Report {
        a,
        map: &p.map,
        dir,
        files: Vec::new(),
        figures: Vec::new(),
        summary: Vec::new(),
        heats: Vec::new(),
        svg: a.svg || p.map.len() <= SMALL_MAP,
    };
    let range = p.range.as_ref();
    let engine = Engine::try_new(&p.map)?;
    let keys = sight(&mut r, &engine, &p.sel, range)?;
    let after = match &p.after {
        Some((after, against)) => Some((Engine::try_new(after)?, against.as_str())),
        None => None,
    };
    let diff = match &after {
        Some((e1, against)) => Some(what_changes(&mut r, &engine, e1, against)?),
        None => None,
    };
    let change = after
        .as_ref()
        .zip(diff.as_ref())
        .map(|((e1, against), d)| page::Change {
            after: e1,
            against,
            diff: d,
        });
    write_page(&mut r, &engine, &keys, range, change)?;
    Ok(r.figures.len())
}

/// The sight sections of the report: the matrix, exposure, the key hexes' viewsheds
/// and blind zones, profiles, spotting and the sides; returns the key hexes.
fn sight(
    r: &mut Report,
    engine: &Engine,
    sel: &Selection,
    range: Option<&Range>,
) -> anyhow::Result<Vec<usize>> {
    let m = compute_matrix(engine, range, &mut r.summary)?;
    if r.a.matrix || r.map.len() <= SMALL_MAP {
        matrix_files(r, &m)?;
    }
    let e = from_matrix(&m, &sel.from, &sel.to);
    exposure(r, &e)?;
    let keys = key_hexes(r.a, r.map, &e)?;
    let blind = key_viewsheds(r, engine, &keys, range)?;
    blind_zones(r, &keys, &blind)?;
    profiles(r, &keys)?;
    spotting(r, &keys)?;
    sides(r, engine, &m, range)?;
    Ok(keys)
}

/// Loads the map and checks every argument and the memory before anything is written.
fn prepare(a: &Args) -> anyhow::Result<Prepared> {
    if a.out.as_os_str() == "-" {
        anyhow::bail!("--out -: a report is a folder of files; give a folder name");
    }
    a.run.start()?;
    let map = super::load_map(&a.map)?;
    let sel = super::selection(&map, &a.map, a.from.as_deref(), a.to.as_deref())?;
    let range = a.range.parse(&map, &a.map)?;
    check_memory(a, &map)?;
    check_outputs(a, &map)?;
    let after = if a.against.given() {
        Some(after_map(a, &map, range.is_some())?)
    } else {
        None
    };
    Ok(Prepared {
        map,
        sel,
        range,
        after,
    })
}

/// Refuses a map whose matrix, pictures or GeoTIFFs do not fit in memory.
fn check_memory(a: &Args, map: &Map) -> anyhow::Result<()> {
    super::matrix::check_matrix_memory(&a.map, map, &Selection::all(map), 0, None)?;
    super::check_pictures(&a.map, map, 1)?;
    hexsight_analysis::memory::check(
        raster::tif_bytes(map, &PixelLayout::of(map), 2, 4),
        "the report's GeoTIFFs",
        "a map imported with a larger hex size",
    )
    .with_context(|| a.map.display().to_string())?;
    Ok(())
}

/// Checks the GeoJSON output (`--geojson`) and the key hexes (`--key`) against the map.
fn check_outputs(a: &Args, map: &Map) -> anyhow::Result<()> {
    if a.geojson {
        let args = super::GeoJsonArgs {
            geojson: Some(a.out.clone()),
            geojson_crs: a.geojson_crs,
        };
        args.check(&a.map, map)?;
    }
    if let Some(k) = &a.key {
        super::zone_arg(map, &a.map, "--key", k)?;
    }
    Ok(())
}

/// The map after the change `--against` or `--against-layer` names, and its name,
/// checked to be comparable with `map` and to fit in memory beside it.
fn after_map(a: &Args, map: &Map, ranged: bool) -> anyhow::Result<(Map, String)> {
    if ranged {
        anyhow::bail!(
            "--range does not apply with --against or --against-layer (a diff compares every line)"
        );
    }
    let (after, against) = a.against.after(map)?;
    let all = Selection::all(map);
    diff::check_same_grid(map, &after)
        .and_then(|()| diff::check_memory(map, &after, &all))
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.map.display()))?;
    Ok((after, against))
}

/// The whole map's matrix (under the range), with a summary line.
fn compute_matrix(
    engine: &Engine,
    range: Option<&Range>,
    summary: &mut Vec<String>,
) -> anyhow::Result<Matrix> {
    let map = engine.map();
    let all = Selection::all(map);
    let progress = super::Progress::new("pairs");
    let mut m = progress.run(|ctl| matrix(engine, &all, ctl))?;
    if let Some(r) = range {
        r.mask(map, &all.from, &all.to, &mut m.bits);
    }
    let pairs = (map.len() * map.len()) as f64;
    summary.push(format!(
        "{} of {} ordered pairs are in line of sight ({:.1}%), computed in {:.2} s on {} threads",
        m.bits.count(),
        map.len() * map.len(),
        100.0 * m.bits.count() as f64 / pairs,
        progress.seconds(),
        rayon::current_num_threads()
    ));
    Ok(m)
}

/// The raw matrix: `.bin`, `.npy` (up to [`NPY_LIMIT`] hexes) and `.csv` (up to [`CSV_LIMIT`]).
fn matrix_files(r: &mut Report, m: &Matrix) -> anyhow::Result<()> {
    let map = r.map;
    super::matrix::write_matrix(map, m, &r.path("matrix.bin"))?;
    r.file(
        "matrix.bin",
        "visibility matrix, bit-packed (format in the guide: docs/guide/big-maps.md)",
    );
    if map.len() <= NPY_LIMIT {
        super::matrix::write_matrix(map, m, &r.path("matrix.npy"))?;
        r.file("matrix.npy", "visibility matrix as uint8 for numpy.load");
        r.file("matrix.labels.json", "row and column labels of matrix.npy");
    }
    if map.len() <= CSV_LIMIT {
        super::matrix::write_matrix(map, m, &r.path("matrix.csv"))?;
        r.file("matrix.csv", "visibility matrix as CSV (1 = sees)");
    }
    Ok(())
}

/// Exposure: the seen-by and sees pictures, heatmaps and counts.
fn exposure(r: &mut Report, e: &Exposure) -> anyhow::Result<()> {
    let map = r.map;
    r.overlay("exposure", "sees / seen-by counts per hex", |crs| {
        overlays::exposure(map, e, crs)
    })?;
    r.raster(
        "exposure",
        "seen-by / sees counts per hex",
        per_hex::exposure(e),
    )?;
    let seen_by = "How many observers see each hex. Dark hexes are hidden: places to stand unseen.";
    let sees = "How many hexes each hex sees. Bright hexes are the best observation posts.";
    r.figure(
        &pictures::seen_by(map, e).scene(),
        "seen-by",
        "Exposure: seen by",
        seen_by,
    )?;
    r.figure(
        &pictures::sees(map, e).scene(),
        "sees",
        "Field of view: sees",
        sees,
    )?;
    for (name, caption, text, values) in [
        ("Exposure: seen by", "seen by (hexes)", seen_by, &e.seen_by),
        ("Field of view: sees", "hexes seen", sees, &e.sees),
    ] {
        r.heats.push(heat(name, caption, text, values));
    }
    r.summary.push(format!(
        "hexes seen by no observer{}: {}",
        if r.a.from.is_some() {
            " of the zone"
        } else {
            ""
        },
        e.seen_by.iter().filter(|&&c| c == 0).count()
    ));
    write_with(&r.path("exposure.json"), |w| {
        super::exposure::to_json(map, e).write(w)
    })?;
    r.file("exposure.json", "sees / seen-by counts per hex");
    Ok(())
}

/// A heatmap of counts for the page, its scale from 0 to the largest.
fn heat(name: &str, caption: &str, text: &str, values: &[u32]) -> Heat {
    Heat {
        name: name.into(),
        caption: caption.into(),
        text: text.into(),
        max: f64::from(values.iter().copied().max().unwrap_or(0).max(1)),
        values: values.iter().map(|&v| Some(f64::from(v))).collect(),
    }
}

/// Key hexes: given, or the ones that see most (spread out: not next to each other).
fn key_hexes(a: &Args, map: &Map, e: &Exposure) -> anyhow::Result<Vec<usize>> {
    if let Some(k) = &a.key {
        return super::zone_arg(map, &a.map, "--key", k);
    }
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
    Ok(picked)
}

/// Each key hex's viewshed picture, and `blind.json`; returns how many key hexes
/// have each hex as a blind hex.
fn key_viewsheds(
    r: &mut Report,
    engine: &Engine,
    keys: &[usize],
    range: Option<&Range>,
) -> anyhow::Result<Vec<u32>> {
    let map = r.map;
    let mut blind_count = vec![0u32; map.len()];
    let mut blind_json = serde_json::Map::new();
    for &k in keys {
        let label = map.label(map.hex_of(k));
        let mut v = viewshed_of(engine, k, &Control::default())?;
        if let Some(g) = range {
            g.viewshed(map, &mut v);
        }
        for j in v.blind() {
            blind_count[j] += 1;
        }
        let stem = format!("viewshed-{label}");
        r.overlay(&stem, &format!("viewshed of {label}"), |crs| {
            overlays::viewshed(map, &v, crs)
        })?;
        r.raster(
            &stem,
            &format!("viewshed of {label}"),
            per_hex::viewshed(&v),
        )?;
        r.summary.push(format!(
            "{label} sees {} hexes clear and {} hindered; {} blind hexes",
            v.count(Verdict::Clear),
            v.count(Verdict::Hindered),
            v.blind().len()
        ));
        blind_json.insert(
            label.clone(),
            v.blind()
                .iter()
                .map(|&j| serde_json::json!({"hex": map.label(map.hex_of(j)), "reason": v.reason(map, j)}))
                .collect(),
        );
        r.figure(
            &pictures::viewshed(map, &v).scene(),
            &stem,
            &format!("Viewshed of {label}"),
            "Visible, hindered and blocked hexes from this key hex; blind hexes (orange) are hidden only by obstacles lower than the observer: dead ground behind a crest, a wood or a wall.",
        )?;
    }
    write_atomic(
        &r.path("blind.json"),
        (serde_json::to_string_pretty(&blind_json)? + "\n").as_bytes(),
    )?;
    r.file("blind.json", "blind hexes of each key hex, with the reason");
    Ok(blind_count)
}

/// The blind-zone picture and heatmap: how many key hexes have each hex as a blind hex.
fn blind_zones(r: &mut Report, keys: &[usize], blind_count: &[u32]) -> anyhow::Result<()> {
    if keys.is_empty() {
        return Ok(());
    }
    let map = r.map;
    let values: Vec<Option<f64>> = blind_count
        .iter()
        .map(|&c| (c > 0).then_some(f64::from(c)))
        .collect();
    let text = "Hexes in the dead ground of the key hexes (coloured); uncoloured hexes are not blind from any of them.";
    let pic = Picture {
        map,
        title: "Blind zones: how many key hexes have each hex as a blind hex".into(),
        layer: Layer::Scale {
            values: values.clone(),
            min: 0.0,
            max: keys.len() as f64,
            caption: "blind from key hexes".into(),
        },
        marked: keys.iter().map(|&k| map.hex_of(k)).collect(),
        zone: Vec::new(),
    };
    r.figure(&pic.scene(), "blind", "Blind zones", text)?;
    r.heats.push(Heat {
        name: "Blind zones of the key hexes".into(),
        caption: "blind from key hexes".into(),
        text: text.into(),
        values,
        max: keys.len() as f64,
    });
    Ok(())
}

/// Side views of the lines between the first key hexes.
fn profiles(r: &mut Report, keys: &[usize]) -> anyhow::Result<()> {
    let map = r.map;
    let shown = &keys[..keys.len().min(PROFILE_KEYS)];
    for (n, &i) in shown.iter().enumerate() {
        for &j in &shown[n + 1..] {
            let (from, to) = (map.label(map.hex_of(i)), map.label(map.hex_of(j)));
            let p = side_view(map, map.hex_of(i), map.hex_of(j));
            r.figure(
                &profile::scene(map, &p),
                &format!("profile-{from}-{to}"),
                &format!("Sight line {from} to {to}: {}", p.verdict().as_str()),
                "The side view of the line between two key hexes: the ground and what stands on it, the line from eye to eye, where and why it is first blocked (the line itself, whatever --range says).",
            )?;
        }
    }
    Ok(())
}

/// Spotting maps and heatmaps where the ruleset has spotting rules (a spotting table).
fn spotting(r: &mut Report, keys: &[usize]) -> anyhow::Result<()> {
    let map = r.map;
    let still = Activity::Still;
    let text = "The ruleset's spotting table: the chance that one spotting test from this key hex spots a target that stays still.";
    let mut spotted = 0;
    for &k in keys {
        let from = map.hex_of(k);
        let Ok(cells) = hexsight_analysis::query::spotting::spot(map, from, still) else {
            break;
        };
        let label = map.label(from);
        let stem = format!("spotting-{label}");
        r.overlay(&stem, &format!("spotting from {label}"), |crs| {
            overlays::spotting(map, &cells, crs)
        })?;
        r.raster(
            &stem,
            &format!("spotting from {label}"),
            per_hex::spotting(&cells),
        )?;
        let pic = pictures::spotting(map, from, &cells, still);
        r.figure(&pic.scene(), &stem, &format!("Spotting from {label}"), text)?;
        r.heats.push(Heat {
            name: format!("Spotting from {label}"),
            caption: "chance to spot".into(),
            text: text.into(),
            values: cells.iter().map(spot_value).collect(),
            max: 1.0,
        });
        spotted += 1;
    }
    if spotted == 0 {
        r.summary.push(format!(
            "spotting maps: the {} ruleset has no spotting rules, so none are drawn",
            map.ruleset.name
        ));
    }
    Ok(())
}

/// The chance one test spots a still target (1 when spotted automatically; none out of LOS).
fn spot_value(c: &SpotCell) -> Option<f64> {
    c.los.then_some(if c.auto { 1.0 } else { c.p_spot })
}

/// Hexes each side deploys in the report's suggestions.
const SIDE_DEPLOY: usize = 3;

/// Where the map names zones for two sides: for each side, how exposed its zone is
/// to the other's, and where in it to stand to watch most of the other zone.
fn sides(r: &mut Report, engine: &Engine, m: &Matrix, range: Option<&Range>) -> anyhow::Result<()> {
    let map = r.map;
    let Some(pair) = side_zones(map) else {
        return Ok(());
    };
    for k in 0..2 {
        let ((side, own), (_, other)) = (pair[k], pair[1 - k]);
        let (mine, theirs) = (
            zones::resolve(map, &own.name)?,
            zones::resolve(map, &other.name)?,
        );
        let e = from_matrix(m, &theirs, &mine);
        let text = "How many hexes of the other side's zone (outlined) see each hex: the dark hexes of this side's zone are where it stands unseen.";
        let title = format!("Exposure of {} to {}", own.name, other.name);
        r.figure(
            &pictures::seen_by(map, &e).scene(),
            &format!("exposure-{}", own.name),
            &title,
            text,
        )?;
        r.heats.push(heat(
            &title,
            &format!("seen by hexes of {}", other.name),
            text,
            &e.seen_by,
        ));
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
        r.summary.push(format!(
            "{side} ({}): {} in {} see {} of the {} hexes of {} ({} search)",
            own.name,
            plan.chosen.len(),
            chosen.join(", "),
            plan.covered,
            plan.of,
            other.name,
            plan.method.as_str()
        ));
        r.figure(
            &pictures::deployment(map, &plan, &mine, &theirs).scene(),
            &format!("deploy-{}", own.name),
            &format!("Where {side} watches {} from {}", other.name, own.name),
            "The hexes of the side's zone that together see most of the other side's zone (see hexsight deploy).",
        )?;
    }
    Ok(())
}

/// The map's named zones, each with its side.
fn zone_layers(map: &Map) -> anyhow::Result<Vec<ZoneLayer>> {
    map.zones
        .iter()
        .map(|z| {
            Ok(ZoneLayer {
                name: z.name.clone(),
                side: zones::side_of(map, z).map(str::to_string),
                hexes: zones::resolve(map, &z.name)?,
            })
        })
        .collect()
}

/// The units' network: for each ordered pair of units of different sides, whether
/// one sees and can fire at the other (direct fire), and why.
fn unit_links(map: &Map) -> Vec<UnitLink> {
    if map.units.len() > NETWORK_UNITS {
        return Vec::new();
    }
    hexsight_analysis::query::units::network(map, FireKind::Direct)
        .into_iter()
        .map(|(from, to, ans)| {
            let first = |a: &hexsight_analysis::query::units::Answer| {
                a.reasons.first().cloned().unwrap_or_default()
            };
            UnitLink {
                from,
                to,
                sees: ans.sees.ok,
                fires: ans.fires.ok,
                why: if ans.sees.ok {
                    first(&ans.fires)
                } else {
                    first(&ans.sees)
                },
            }
        })
        .collect()
}

/// What the change asked for does (`--against`, `--against-layer`): the diff of the
/// whole map, its picture, `diff.json` (as `hexsight diff --json`) and a summary line.
fn what_changes(
    r: &mut Report,
    before: &Engine,
    after: &Engine,
    against: &str,
) -> anyhow::Result<Diff> {
    let map = r.map;
    let progress = super::Progress::new("pairs, before and after");
    let d = progress.run(|ctl| diff::diff(before, after, &Selection::all(map), &[], ctl))?;
    let more = d.seen_by.iter().filter(|&&v| v > 0).count();
    let fewer = d.seen_by.iter().filter(|&&v| v < 0).count();
    r.summary.push(format!(
        "against {against}: {} ordered pairs gained, {} lost; {more} hexes seen by more observers, {fewer} by fewer",
        d.gained, d.lost
    ));
    let title = format!(
        "What changes against {against}: observers that see each hex, after minus before ({} gained, {} lost pairs)",
        d.gained, d.lost
    );
    let caption = "change in observers seeing the hex";
    r.figure(
        &pictures::diff(after.map(), &d.seen_by, caption, title).scene(),
        "what-changes",
        "What changes: seen by",
        "Red hexes are seen by more observers after the change, blue ones by fewer; on the map above, the What changes layer shows each hex's viewshed gained and lost.",
    )?;
    write_with(&r.path("diff.json"), |w| {
        super::json::write_lines(w, &super::diff::to_json(map, &d, against))
    })?;
    r.file("diff.json", "the change, as hexsight diff --json prints it");
    Ok(d)
}

/// The page: its data in `data.js`, then `index.html`.
fn write_page(
    r: &mut Report,
    engine: &Engine,
    keys: &[usize],
    range: Option<&Range>,
    change: Option<page::Change>,
) -> anyhow::Result<()> {
    let map = r.map;
    let input = PageInput {
        map,
        keys,
        heats: std::mem::take(&mut r.heats),
        zones: zone_layers(map)?,
        links: unit_links(map),
        summary: &r.summary,
        range,
        change,
    };
    let progress = super::Progress::new("pairs for the page");
    let data = progress.run(|ctl| page::build(engine, &input, ctl))?;
    let script = data.script();
    write_atomic(&r.path("data.js"), script.as_bytes())?;
    let (views, why) = data.seconds;
    r.summary.push(format!(
        "the page carries {} viewsheds ({views:.2} s) and the explained lines of {} observers ({why:.2} s): {:.1} MB packed from {:.1} MB",
        data.observers,
        data.explained,
        data.gz.len() as f64 / (1 << 20) as f64,
        data.unpacked as f64 / (1 << 20) as f64,
    ));
    r.file("data.js", "the page's data: viewsheds, explanations and layers, gzip-compressed (format in the guide: docs/guide/report.md)");
    let note = DataNote {
        script_bytes: script.len() as u64,
        packed_bytes: data.gz.len() as u64,
        omitted: data.omitted,
    };
    let html = index(map, &r.summary, &r.figures, &r.files, &note);
    write_atomic(&r.path("index.html"), html.as_bytes())?;
    Ok(())
}
