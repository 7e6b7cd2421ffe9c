//! `hexsight profile MAP FROM TO [--svg FILE] [--png FILE] [--json]`.

use clap::Args as ClapArgs;
use hexsight_analysis::export::profile::scene;
use hexsight_analysis::query::profile::profile;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `profile`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight profile maps/hill-112.json K6 B9 --png k6-b9.png",
    mut_arg("json", |a| a.help("Print one JSON object instead of text")),
    mut_arg("png", |a| a.help("Also draw the side view as a PNG")),
    mut_arg("svg", |a| a.help("Also draw the side view as an SVG")),
)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Observer hex label (`C5`).
    from: String,
    /// Target hex label.
    to: String,
    #[command(flatten)]
    output: super::args::OutputArgs,
}

/// Prints the side view of one line, stretch by stretch, and draws it.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let from = super::hex_arg(&map, &a.map, &a.from)?;
    let to = super::hex_arg(&map, &a.map, &a.to)?;
    let p = profile(&map, from, to);
    a.output.draw_scene(|| scene(&map, &p))?;
    if a.output.json {
        outln!("{}", serde_json::to_string_pretty(&p.to_json(&map))?)?;
    } else {
        out!("{}", p.text(&map))?;
    }
    Ok(ExitCode::SUCCESS)
}
