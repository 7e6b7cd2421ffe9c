//! `hexsight matrix MAP --out FILE.csv`.

use anyhow::bail;
use clap::Args as ClapArgs;
use hexsight_analysis::engine::matrix::{matrix_plain, write_csv};
use hexsight_analysis::map::write_atomic;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `matrix`.
#[derive(ClapArgs)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Output file (`.csv`).
    #[arg(long)]
    out: PathBuf,
}

/// Computes the matrix and writes it.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let ext = a
        .out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if ext != "csv" {
        bail!(
            "{}: unsupported matrix format `.{ext}` (supported: .csv)",
            a.out.display()
        );
    }
    let m = matrix_plain(&map);
    let mut buf = Vec::new();
    write_csv(&map, &m, &mut buf)?;
    write_atomic(&a.out, &buf)?;
    let seen = (0..m.len())
        .map(|i| (0..m.len()).filter(|&j| m.get(i, j)).count())
        .sum::<usize>();
    eprintln!(
        "{} hexes, {} of {} ordered pairs in LOS; wrote {}",
        m.len(),
        seen,
        m.len() * m.len(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
