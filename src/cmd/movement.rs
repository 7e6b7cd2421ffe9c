//! `hexsight move MAP FROM TO`: movement cost into an adjacent hex.

use anyhow::bail;
use clap::Args as ClapArgs;
use hexsight_analysis::rules::Family;
use hexsight_analysis::rules::combat_commander::movement_cost;
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
    if map.ruleset.family != Family::CombatCommander {
        bail!(
            "{}: movement costs are modelled for the combat-commander family only (T88.1, hedges); this map uses {}",
            a.map.display(),
            map.ruleset.name
        );
    }
    let hex = |l: &str| super::hex_arg(&map, &a.map, l);
    let (cost, why) = movement_cost(&map, hex(&a.from)?, hex(&a.to)?)?;
    outln!("{} -> {}: {cost} MP ({})", a.from, a.to, why.join(", "))?;
    Ok(ExitCode::SUCCESS)
}
