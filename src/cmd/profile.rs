//! `hexsight profile MAP FROM TO [--svg FILE] [--png FILE] [--json]`.

use clap::Args as ClapArgs;
use hexsight_analysis::export::{profile::scene, save_scene};
use hexsight_analysis::query::profile::profile;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `profile`.
#[derive(ClapArgs)]
#[command(after_help = "Example: hexsight profile maps/hill-112.json K6 B9 --png k6-b9.png")]
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
    /// Also draw the side view as a PNG.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Also draw the side view as an SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
}

/// Prints the side view of one line, stretch by stretch, and draws it.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    let to = super::hex_arg(&map, &a.map, &a.to)?;
    let p = profile(&map, from, to);
    if a.png.is_some() || a.svg.is_some() {
        save_scene(&scene(&map, &p), a.png.as_deref(), a.svg.as_deref())?;
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&p.to_json(&map))?)?;
    } else {
        out!("{}", p.text(&map))?;
    }
    Ok(ExitCode::SUCCESS)
}
