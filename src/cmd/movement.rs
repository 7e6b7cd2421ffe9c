//! `hexsight move MAP FROM TO`: movement cost into an adjacent hex.

use anyhow::bail;
use clap::Args as ClapArgs;
use hexsight_analysis::rules::registry;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `move`.
#[derive(ClapArgs)]
#[command(after_help = "Example: hexsight move maps/hill-112.json K6 K7")]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Hex moved from.
    from: String,
    /// Adjacent hex moved into.
    to: String,
}

/// Prints the cost and its parts.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let Some(movement_cost) = registry::of(&map).movement() else {
        // The families whose registry entry states movement costs.
        let modelled: Vec<&str> = registry::BUILTIN
            .iter()
            .filter(|b| b.entry.movement().is_some())
            .map(|b| b.name)
            .collect();
        bail!(
            "{}: movement costs are modelled for the {} family only; this map uses {}",
            a.map.display(),
            modelled.join(", "),
            map.ruleset.name
        );
    };
    let hex = |l: &str| super::hex_arg(&map, &a.map, l);
    let (cost, why) = movement_cost(&map, hex(&a.from)?, hex(&a.to)?)?;
    outln!("{} -> {}: {cost} MP ({})", a.from, a.to, why.join(", "))?;
    Ok(ExitCode::SUCCESS)
}
