//! `hexsight matrix MAP --out FILE.{csv,npy,bin} [--from ZONE] [--to ZONE] [--threads N]`.

use anyhow::bail;
use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{
    BitMatrix, Control, Matrix, available_memory, check_memory, matrix, write_csv_sel,
};
use hexsight_analysis::export::{bin, npy, write_with};
use hexsight_analysis::map::write_atomic;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Arguments of `matrix`.
#[derive(ClapArgs)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Output file: `.csv` (labels and 0/1), `.npy` (uint8, labels in NAME.labels.json) or `.bin` (bit-packed).
    #[arg(long)]
    out: PathBuf,
    /// Observers only in this zone (`A1:F10,G3`).
    #[arg(long)]
    from: Option<String>,
    /// Targets only in this zone.
    #[arg(long)]
    to: Option<String>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Compute every pair with the plain, explained LOS query (slow; for checking).
    #[arg(long, hide = true)]
    plain: bool,
    /// Pretend only this many MiB are available (for testing the memory check).
    #[arg(long, hide = true)]
    max_memory: Option<u64>,
}

/// The matrix formats, by extension.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated 0/1 with labels.
    Csv,
    /// NumPy uint8.
    Npy,
    /// Bit-packed.
    Bin,
}

/// The format of an output path, or a one-line error.
pub fn format_of(out: &Path) -> anyhow::Result<Format> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    Ok(match ext.as_str() {
        "csv" => Format::Csv,
        "npy" => Format::Npy,
        "bin" => Format::Bin,
        _ => bail!(
            "{}: unsupported matrix format `.{ext}` (supported: .csv, .npy, .bin)",
            out.display()
        ),
    })
}

/// Writes a matrix in the format its path names (with the `.npy` sidecar).
pub fn write_matrix(map: &Map, m: &Matrix, out: &Path) -> anyhow::Result<()> {
    match format_of(out)? {
        Format::Csv => write_with(out, |w| write_csv_sel(map, &m.sel, &m.bits, w))?,
        Format::Bin => write_with(out, |w| bin::write(map, m, w))?,
        Format::Npy => {
            write_atomic(&npy::sidecar_path(out), npy::sidecar(map, m).as_bytes())?;
            write_with(out, |w| npy::write(m, w))?;
        }
    }
    Ok(())
}

/// The memory budget: `--max-memory`, or 80% of what the system has available.
pub fn memory_budget(max_mb: Option<u64>) -> u64 {
    match max_mb {
        Some(mb) => mb << 20,
        None => available_memory().map_or(u64::MAX, |b| b / 10 * 8),
    }
}

/// Computes the matrix and writes it.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    format_of(&a.out)?;
    super::set_threads(a.threads)?;
    let map = super::load_map(&a.map)?;
    let sel = super::selection(&map, a.from.as_deref(), a.to.as_deref())?;
    check_memory(&map, &sel, memory_budget(a.max_memory))
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.map.display()))?;
    let cancel = super::interrupt_flag();
    let progress = super::Progress::new("pairs");
    let mut prepared = 0.0;
    let mut engine_mb = 0.0;
    let m = if a.plain {
        if !sel.is_all(&map) {
            bail!("--plain computes the whole map only");
        }
        Matrix {
            sel: sel.clone(),
            bits: matrix_plain_cancellable(&map, cancel, &progress)?,
        }
    } else {
        let engine = Engine::new(&map);
        prepared = progress.seconds();
        engine_mb = engine.bytes() as f64 / (1 << 20) as f64;
        let ctl = Control {
            cancel,
            progress: &|d, t| progress.update(d, t),
        };
        matrix(&engine, &sel, &ctl)?
    };
    progress.finish();
    let secs = progress.seconds();
    if cancel.load(Ordering::SeqCst) {
        bail!("interrupted; nothing was written to {}", a.out.display());
    }
    write_matrix(&map, &m, &a.out)?;
    let pairs = m.bits.len() as u64 * m.bits.cols() as u64;
    eprintln!(
        "{} x {} hexes, {} of {} ordered pairs in LOS, computed in {secs:.3} s (walks and grid {prepared:.3} s, {engine_mb:.0} MiB) on {} threads; wrote {}",
        m.bits.len(),
        m.bits.cols(),
        m.bits.count(),
        pairs,
        rayon::current_num_threads(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The plain matrix, row by row, stopping on Ctrl-C.
fn matrix_plain_cancellable(
    map: &Map,
    cancel: &AtomicBool,
    progress: &super::Progress,
) -> anyhow::Result<BitMatrix> {
    use rayon::prelude::*;
    let n = map.len();
    let mut bits = BitMatrix::new(n);
    let done = AtomicU64::new(0);
    bits.rows_mut()
        .enumerate()
        .collect::<Vec<_>>()
        .into_par_iter()
        .with_max_len(1)
        .for_each(|(i, row)| {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let from = map.hex_of(i);
            for j in 0..n {
                if hexsight_analysis::line_of_sight(map, from, map.hex_of(j))
                    .verdict
                    .sees()
                {
                    row[j / 64] |= 1 << (j % 64);
                }
            }
            progress.update(
                done.fetch_add(n as u64, Ordering::Relaxed) + n as u64,
                (n * n) as u64,
            );
        });
    if cancel.load(Ordering::Relaxed) {
        bail!("interrupted; nothing was written");
    }
    Ok(bits)
}
