//! `hexsight combine A.json B.json --east [--overlap 1] [--turn] --out C.json`.

use clap::Args as ClapArgs;
use hexsight_analysis::map::combine::{Direction, Placement, combine};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `combine`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight combine maps/battletech-ridge.json maps/battletech-town.json --east --out both.json"
)]
#[command(group = clap::ArgGroup::new("side").required(true))]
pub struct Args {
    /// The first board; its labels are kept unless the second goes west or north.
    first: PathBuf,
    /// The board placed beside it.
    second: PathBuf,
    /// Put the second board above the first (its rows come first).
    #[arg(long, group = "side")]
    north: bool,
    /// Put the second board right of the first (its columns follow).
    #[arg(long, group = "side")]
    east: bool,
    /// Put the second board below the first (its rows follow).
    #[arg(long, group = "side")]
    south: bool,
    /// Put the second board left of the first (its columns come first).
    #[arg(long, group = "side")]
    west: bool,
    /// Edge columns or rows the boards share: 0 (they abut) or 1 (shared half-hexes,
    /// kept once, the first board's content winning).
    #[arg(long, default_value_t = 0)]
    overlap: u32,
    /// Turn the second board by 180 degrees before placing it.
    #[arg(long)]
    turn: bool,
    /// Where to write the combined map.
    #[arg(long)]
    out: PathBuf,
}

/// Loads both boards, combines them, saves, and prints the result's size and notes.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let first = super::load_map(&a.first)?;
    let second = super::load_map(&a.second)?;
    let direction = match (a.north, a.east, a.south) {
        (true, _, _) => Direction::North,
        (_, true, _) => Direction::East,
        (_, _, true) => Direction::South,
        _ => Direction::West,
    };
    let placement = Placement {
        direction,
        overlap: a.overlap,
        turn: a.turn,
    };
    let combined = combine(&first, &second, placement).map_err(|e| {
        anyhow::anyhow!(
            "combining {} with {}: {e}",
            a.first.display(),
            a.second.display()
        )
    })?;
    let map = &combined.map;
    map.save(&a.out)?;
    outln!(
        "{}: {} x {} hexes ({} to {}), {} placed {}{}",
        a.out.display(),
        map.cols,
        map.rows,
        map.label(map.hex_of(0)),
        map.label(map.hex_of(map.len() - 1)),
        a.second.display(),
        direction.name(),
        if a.turn { ", turned" } else { "" }
    )?;
    for n in &combined.notes {
        note!("note: {n}");
    }
    Ok(ExitCode::SUCCESS)
}
