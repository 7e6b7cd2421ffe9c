//! `hexsight validate MAP`.

use clap::Args as ClapArgs;
use hexsight_analysis::rules;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `validate`.
#[derive(ClapArgs)]
#[command(after_help = "Example: hexsight validate maps/hill-112.json")]
pub struct Args {
    /// The map file.
    map: PathBuf,
}

/// Loads, checks and summarises.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let rs = &map.ruleset;
    outln!("{}: valid", a.map.display())?;
    outln!("name: {}", map.name)?;
    outln!("ruleset: {} ({} family)", map.ruleset_ref, rs.family)?;
    outln!(
        "grid: {} x {} {:?}-top, {} hexes",
        map.cols,
        map.rows,
        map.layout.orientation,
        map.len()
    )?;
    if let Some(s) = &map.scale {
        outln!("scale: {} {} per hex", s.hex, s.unit)?;
    }
    let mut terrain: BTreeMap<&str, usize> = BTreeMap::new();
    let mut levels: BTreeMap<i32, usize> = BTreeMap::new();
    for c in map.cells() {
        *terrain
            .entry(rs.terrain[c.terrain as usize].id.as_str())
            .or_default() += 1;
        *levels.entry(c.level).or_default() += 1;
    }
    let fmt = |m: Vec<String>| m.join(", ");
    outln!(
        "terrain: {}",
        fmt(terrain.iter().map(|(k, v)| format!("{k} {v}")).collect())
    )?;
    outln!(
        "levels: {}",
        fmt(levels.iter().map(|(k, v)| format!("{k}: {v}")).collect())
    )?;
    outln!(
        "slope hexes: {}",
        map.cells().iter().filter(|c| c.slope).count()
    )?;
    outln!(
        "hexsides: {}, markers: {}, units: {}",
        map.hexsides.len(),
        map.markers.len(),
        map.units.len()
    )?;
    let mut warnings = rules::check_units(&map)?;
    warnings.extend(rules::warnings(&map));
    for w in &warnings {
        outln!("warning: {w}")?;
    }
    Ok(ExitCode::SUCCESS)
}
