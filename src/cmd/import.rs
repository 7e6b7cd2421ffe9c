//! `hexsight import dem DEM.tif --hex-size 100 --out MAP.json`: maps from real ground;
//! `hexsight import megamek FILE.board --out MAP.json`: MegaMek boards.

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use hexsight_analysis::hex::Orientation;
use hexsight_analysis::import::dem::{Landcover, Options, Sample, import};
use hexsight_analysis::import::{geotiff, megamek};
use hexsight_analysis::map::resolve_ruleset;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `import`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight import megamek maps/megamek/ridge.board --out ridge.json"
)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand)]
enum What {
    /// A hex map laid over a GeoTIFF elevation model in a projected CRS (metres).
    Dem(DemArgs),
    /// A MegaMek board (`.board` text) as a `battletech` map.
    Megamek(MegamekArgs),
}

/// Arguments of `import megamek`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight import megamek maps/megamek/ridge.board --out ridge.json"
)]
pub struct MegamekArgs {
    /// The MegaMek board file.
    board: PathBuf,
    /// The ruleset the map names (built-in name or path); it needs the `battletech` terrain ids.
    #[arg(long, default_value = "battletech")]
    ruleset: String,
    /// The map name (default: the board file's name).
    #[arg(long)]
    name: Option<String>,
    /// Where to write the map.
    #[arg(long)]
    out: PathBuf,
}

/// Arguments of `import dem`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight import dem dem.tif --hex-size 100 --level-height 10 --out ground.json"
)]
pub struct DemArgs {
    /// The elevation model: a single-band GeoTIFF in a projected CRS.
    dem: PathBuf,
    /// Distance between adjacent hex centres, in the DEM's CRS units (metres).
    #[arg(long)]
    hex_size: f64,
    /// Height of one level in the DEM's units; levels are the nearest whole number.
    #[arg(long, default_value_t = 10.0)]
    level_height: f64,
    /// How a hex's elevation is read: `centre` pixel, `mean` or `max` of its pixels.
    #[arg(long, default_value = "centre")]
    sample: Sample,
    /// A land-cover GeoTIFF (class codes) in the DEM's CRS, for the hexes' terrain.
    #[arg(long, requires = "classes")]
    landcover: Option<PathBuf>,
    /// JSON object of land-cover class code to terrain id (`{"10": "woods", "*": "open"}`).
    #[arg(long, requires = "landcover")]
    classes: Option<PathBuf>,
    /// The ruleset the map names (built-in name or path).
    #[arg(long, default_value = "geometric")]
    ruleset: String,
    /// `flat` or `pointy` hexes.
    #[arg(long, default_value = "flat", value_parser = parse_orientation)]
    orientation: Orientation,
    /// The map name (default: the DEM file's name).
    #[arg(long)]
    name: Option<String>,
    /// Where to write the map.
    #[arg(long)]
    out: PathBuf,
}

fn parse_orientation(s: &str) -> Result<Orientation, String> {
    match s {
        "flat" => Ok(Orientation::Flat),
        "pointy" => Ok(Orientation::Pointy),
        _ => Err(format!("`{s}`: give flat or pointy")),
    }
}

/// Runs the import asked for.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    match a.what {
        What::Dem(d) => dem(d),
        What::Megamek(m) => megamek(m),
    }
}

/// Reads the class table: a JSON object of class code to terrain id.
fn classes(path: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: {e}: the class table is a JSON object of class code to terrain id, e.g. {{\"10\": \"woods\", \"*\": \"open\"}}",
            path.display()
        )
    })
}

fn dem(a: DemArgs) -> anyhow::Result<ExitCode> {
    let raster = geotiff::read(&a.dem, "DEM")?;
    let landcover = match (&a.landcover, &a.classes) {
        (Some(lc), Some(table)) => Some(Landcover {
            raster: geotiff::read(lc, "land cover")?,
            classes: classes(table)?,
        }),
        _ => None,
    };
    let ruleset = resolve_ruleset(&a.ruleset, &a.out)?;
    let name = a.name.clone().unwrap_or_else(|| {
        a.dem
            .file_stem()
            .map_or("DEM".into(), |s| s.to_string_lossy().into_owned())
    });
    let o = Options {
        name,
        ruleset_ref: a.ruleset.clone(),
        ruleset,
        hex_size: a.hex_size,
        level_height: a.level_height,
        sample: a.sample,
        orientation: a.orientation,
    };
    let names = [
        ("hex_size", "--hex-size"),
        ("level_height", "--level-height"),
        ("landcover", "--landcover"),
    ];
    let done = import(&raster, landcover.as_ref(), &o)
        .map_err(|e| super::flags(e, &names))
        .with_context(|| a.dem.display().to_string())?;
    done.map.save(&a.out)?;
    let m = &done.map;
    let (lo, hi) = m.cells().iter().fold((i32::MAX, i32::MIN), |(l, h), c| {
        (l.min(c.level), h.max(c.level))
    });
    outln!(
        "wrote {}: {}x{} hexes of {} (EPSG:{}), levels {lo} to {hi} at {} per level",
        a.out.display(),
        m.cols,
        m.rows,
        a.hex_size,
        raster.epsg,
        a.level_height
    )?;
    outln!(
        "no-data: {} hexes took the nearest valid pixel's elevation",
        done.filled
    )?;
    if landcover.is_some() {
        outln!(
            "land cover: {} hexes had a class the table does not list (left {})",
            done.unclassified,
            m.ruleset.terrain[0].id
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn megamek(a: MegamekArgs) -> anyhow::Result<ExitCode> {
    let text = megamek::read(&a.board)?;
    let ruleset = resolve_ruleset(&a.ruleset, &a.out)?;
    let name = a.name.clone().unwrap_or_else(|| {
        a.board
            .file_stem()
            .map_or("MegaMek board".into(), |s| s.to_string_lossy().into_owned())
    });
    let done = megamek::import(&text, &a.board, &name, &a.ruleset, ruleset)?;
    done.map.save(&a.out)?;
    let m = &done.map;
    let (lo, hi) = m.cells().iter().fold((i32::MAX, i32::MIN), |(l, h), c| {
        (l.min(c.level), h.max(c.level))
    });
    outln!(
        "wrote {}: {}x{} hexes, levels {lo} to {hi}",
        a.out.display(),
        m.cols,
        m.rows
    )?;
    for line in done.report() {
        outln!("{line}")?;
    }
    Ok(ExitCode::SUCCESS)
}
