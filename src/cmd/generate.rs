//! `hexsight generate --cols N --rows M --seed S --ruleset R --out FILE`.

use clap::Args as ClapArgs;
use hexsight_analysis::generate::{Generator, generate};
use hexsight_analysis::hex::{Layout, Orientation, Stagger};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `generate`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight generate --cols 100 --rows 100 --seed 1 --ruleset geometric --out g.json"
)]
pub struct Args {
    /// Columns.
    #[arg(long, default_value_t = 30)]
    cols: u32,
    /// Rows.
    #[arg(long, default_value_t = 30)]
    rows: u32,
    /// Random seed: the same seed gives the same map.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Built-in ruleset (`geometric` and the other families of the registry; an unknown name lists them).
    #[arg(long, default_value = "geometric")]
    ruleset: String,
    /// Pointy-top hexes instead of flat-top.
    #[arg(long)]
    pointy: bool,
    /// Output map file (`.json`); `-` writes the map to standard output.
    #[arg(long)]
    out: PathBuf,
}

/// Generates and saves a map.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let orientation = if a.pointy {
        Orientation::Pointy
    } else {
        Orientation::Flat
    };
    let g = Generator {
        cols: a.cols,
        rows: a.rows,
        seed: a.seed,
        ruleset: a.ruleset,
        layout: Layout {
            orientation,
            stagger: Stagger::Odd,
        },
        dense: false,
    };
    // The generator keeps a few numbers per hex, the map and its JSON text:
    // about 200 bytes a hex, checked before any of it is allocated.
    let hexes = u64::from(a.cols) * u64::from(a.rows);
    if hexes <= hexsight_analysis::map::file::MAX_HEXES {
        hexsight_analysis::memory::check(
            hexes.saturating_mul(200),
            &format!("generating a {}x{} map", a.cols, a.rows),
            "fewer --cols or --rows",
        )?;
    }
    let map = generate(&g)?;
    let to_stdout = a.out.as_os_str() == "-";
    if to_stdout {
        crate::out::text(&map.to_json())?;
    } else {
        map.save(&a.out)?;
    }
    note!(
        "wrote {} ({} hexes, {})",
        if to_stdout {
            "the map to standard output".to_string()
        } else {
            a.out.display().to_string()
        },
        map.len(),
        map.name
    );
    Ok(ExitCode::SUCCESS)
}
