//! `hexsight matrix MAP --out FILE.{csv,npy,bin} [--from ZONE] [--to ZONE] [--range N] [--threads N]`.

use anyhow::Context;
use anyhow::bail;
use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{
    BLOCKED_BYTE, BitMatrix, Matrix, Selection, estimate_bytes, matrix, sight_matrix, write_csv_sel,
};
use hexsight_analysis::export::{bin, npy, write_with};
use hexsight_analysis::memory::{self, Limit};
use hexsight_analysis::query::range::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Arguments of `matrix`.
#[derive(ClapArgs)]
#[command(after_help = "Example: hexsight matrix maps/hill-112.json --out matrix.npy")]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// Output file: `.csv` (labels and 0/1), `.npy` (uint8, labels in NAME.labels.json) or `.bin` (bit-packed); `-` writes CSV to standard output.
    #[arg(long)]
    out: PathBuf,
    /// Observers only in this zone (`A1:F10,G3`).
    #[arg(long)]
    from: Option<String>,
    /// Targets only in this zone.
    #[arg(long)]
    to: Option<String>,
    #[command(flatten)]
    range: super::args::RangeArg,
    #[command(flatten)]
    run: super::args::RunArgs,
    /// Write `.npy` values with the hindrance: 0 clear, 1..254 the total hindrance of a
    /// hindered line, 255 blocked (one byte per pair in memory).
    #[arg(long)]
    hindrance: bool,
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

/// True for `--out -`: standard output.
pub fn is_stdout(out: &Path) -> bool {
    out.as_os_str() == "-"
}

/// The format of an output path, or a one-line error; `-` (standard output) is CSV.
pub fn format_of(out: &Path) -> anyhow::Result<Format> {
    if is_stdout(out) {
        return Ok(Format::Csv);
    }
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
    if is_stdout(out) {
        return crate::out::with(|w| write_csv_sel(map, &m.sel, &m.bits, w));
    }
    match format_of(out)? {
        Format::Csv => write_with(out, |w| write_csv_sel(map, &m.sel, &m.bits, w))?,
        Format::Bin => write_with(out, |w| bin::write(map, m, w))?,
        Format::Npy => {
            npy::save(map, m, out)?;
        }
    }
    Ok(())
}

/// The memory budget: `--max-memory`, or 80% of what this process may still take
/// ([`memory::available`]: free RAM, `ulimit -v`, the cgroup limit).
pub fn memory_budget(max_mb: Option<u64>) -> (u64, Limit) {
    match max_mb {
        Some(mb) => (mb.saturating_mul(1 << 20), Limit::Given),
        None => memory::budget().unwrap_or((isize::MAX as u64, Limit::Addressable)),
    }
}

/// Memory the engine needs for a map before any pair: its padded grids and
/// per-level tables ([`Engine::estimate_bytes`]).
pub fn engine_bytes(map: &Map) -> u64 {
    Engine::estimate_bytes(map)
}

/// What to change when the engine's grids do not fit.
pub const ENGINE_HINT: &str = "they grow with the map, not with --from or --to: use a smaller map";

/// What to change when a matrix does not fit.
pub const MATRIX_HINT: &str = "restrict the observers with --from and the targets with --to (for example --from A1:J10 --to K1:T10)";

/// Refuses, naming the map, a matrix run over `sel` that needs more than the budget;
/// `per_pair` extra bytes per ordered pair (1 for `--hindrance`).
pub fn check_matrix_memory(
    map_path: &Path,
    map: &Map,
    sel: &Selection,
    per_pair: u64,
    max_mb: Option<u64>,
) -> anyhow::Result<()> {
    let pairs = sel.from.len() as u64 * sel.to.len() as u64;
    let need = estimate_bytes(map, sel).saturating_add(pairs.saturating_mul(per_pair));
    let (budget, limit) = memory_budget(max_mb);
    let fixed = engine_bytes(map);
    let r = if fixed > budget {
        // The grids alone do not fit: zones would not help.
        memory::check_against(
            fixed,
            budget,
            limit,
            &format!("preparing the grids of a {}x{} map", map.cols, map.rows),
            ENGINE_HINT,
        )
    } else {
        let what = format!("a {} x {} matrix", sel.from.len(), sel.to.len());
        memory::check_against(need, budget, limit, &what, MATRIX_HINT)
    };
    r.with_context(|| map_path.display().to_string())
}

/// Computes the matrix and writes it.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let format = format_of(&a.out)?;
    if a.hindrance && (format != Format::Npy || is_stdout(&a.out)) {
        bail!(
            "{}: --hindrance writes .npy only (one byte per pair)",
            a.out.display()
        );
    }
    a.run.start()?;
    let map = super::load_map(&a.map)?;
    let sel = super::selection(&map, &a.map, a.from.as_deref(), a.to.as_deref())?;
    let range = a.range.parse(&map, &a.map)?;
    if a.hindrance {
        return run_hindrance(&a, &map, &sel, range.as_ref());
    }
    check_matrix_memory(&a.map, &map, &sel, 0, a.max_memory)?;
    let cancel = super::interrupt_flag();
    let progress = super::Progress::new("pairs");
    let mut prepared = 0.0;
    let mut engine_mb = 0.0;
    let mut m = if a.plain {
        if !sel.is_all(&map) {
            bail!("--plain computes the whole map only");
        }
        Matrix {
            sel: sel.clone(),
            bits: matrix_plain_cancellable(&map, cancel, &progress)?,
        }
    } else {
        let engine = Engine::try_new(&map)?;
        if sel.is_all(&map) && engine.is_reciprocal() {
            // The whole-map sweep reads walks compiled for every offset.
            engine.lines();
        }
        prepared = progress.seconds();
        engine_mb = engine.bytes() as f64 / (1 << 20) as f64;
        progress.run(|ctl| matrix(&engine, &sel, ctl))?
    };
    progress.finish();
    let secs = progress.seconds();
    a.run.timing("matrix computed", secs);
    if cancel.load(Ordering::SeqCst) {
        bail!("interrupted; nothing was written to {}", a.out.display());
    }
    if let Some(r) = &range {
        r.mask(&map, &m.sel.from, &m.sel.to, &mut m.bits);
    }
    write_matrix(&map, &m, &a.out)?;
    let pairs = m.bits.len() as u64 * m.bits.cols() as u64;
    note!(
        "{} x {} hexes, {} of {} ordered pairs in LOS, computed in {secs:.3} s (walks and grid {prepared:.3} s, {engine_mb:.0} MiB) on {} threads; wrote {}",
        m.bits.len(),
        m.bits.cols(),
        m.bits.count(),
        pairs,
        rayon::current_num_threads(),
        if is_stdout(&a.out) {
            "standard output".to_string()
        } else {
            a.out.display().to_string()
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// `--hindrance`: one byte per pair with the hindrance total, written as `.npy`.
fn run_hindrance(
    a: &Args,
    map: &Map,
    sel: &Selection,
    range: Option<&Range>,
) -> anyhow::Result<ExitCode> {
    check_matrix_memory(&a.map, map, sel, 1, a.max_memory)?;
    let progress = super::Progress::new("pairs");
    let engine = Engine::try_new(map)?;
    let mut data = progress.run(|ctl| sight_matrix(&engine, sel, ctl))?;
    if let Some(r) = range {
        r.mask_bytes(map, sel, &mut data);
    }
    let secs = progress.seconds();
    a.run.timing("matrix computed", secs);
    let values = "0 = the row's observer sees the column's target clearly, 1..254 = seen through this total hindrance (254 or more), 255 = blocked";
    let body = npy::Body::Bytes {
        rows: sel.from.len(),
        cols: sel.to.len(),
        data: &data,
    };
    npy::save_with(&a.out, body, || npy::sidecar_for(map, sel, values))?;
    let seen = data.iter().filter(|&&b| b != BLOCKED_BYTE).count();
    let hindered = data.iter().filter(|&&b| b != BLOCKED_BYTE && b > 0).count();
    note!(
        "{} x {} hexes, {seen} of {} ordered pairs in LOS ({hindered} hindered), computed in {secs:.3} s; wrote {}",
        sel.from.len(),
        sel.to.len(),
        data.len(),
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
