//! `hexsight los MAP FROM TO [--json] [--range N]`.

use clap::Args as ClapArgs;
use hexsight_analysis::line_of_sight_labels;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `los`.
#[derive(ClapArgs)]
#[command(after_help = "Example: hexsight los maps/hill-112.json K6 B9")]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Observer hex label (`C5`).
    from: String,
    /// Target hex label.
    to: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    range: super::args::RangeArg,
}

/// Prints the verdict with its explanation.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    super::hex_arg(&map, &a.map, &a.from)?;
    super::hex_arg(&map, &a.map, &a.to)?;
    let range = a.range.parse(&map, &a.map)?;
    let mut r = line_of_sight_labels(&map, &a.from, &a.to)?;
    if let Some(range) = &range {
        r = range.los(&map, r);
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&r.to_json(&map))?)?;
    } else {
        out!("{}", r.explain(&map))?;
    }
    Ok(ExitCode::SUCCESS)
}
