//! The all-pairs visibility matrix: bit-packed, computed in parallel.

use super::diagonals::{Band, Diagonals, Plan};
use super::fast::Engine;
use super::offsets::Run;
use super::seen::{self, Route};
pub use super::{Control, Selection};
use crate::error::{Error, ErrorKind, Result};
use crate::los::line_of_sight;
use crate::map::Map;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

/// Who sees whom: a bit matrix, one row per observer, one bit per target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitMatrix {
    n: usize,
    cols: usize,
    words_per_row: usize,
    bits: Vec<u64>,
}

impl BitMatrix {
    /// An all-zero `n` x `n` matrix.
    pub fn new(n: usize) -> Self {
        Self::with_shape(n, n)
    }

    /// An all-zero matrix of `rows` observers and `cols` targets.
    pub fn with_shape(rows: usize, cols: usize) -> Self {
        let words_per_row = cols.div_ceil(64);
        BitMatrix {
            n: rows,
            cols,
            words_per_row,
            bits: vec![0; rows * words_per_row],
        }
    }

    /// Bytes a matrix of this shape takes.
    pub fn bytes_for(rows: usize, cols: usize) -> u64 {
        rows as u64 * cols.div_ceil(64) as u64 * 8
    }

    /// Number of rows (observers).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Number of columns (targets).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// True for a matrix without rows.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether observer `i` sees target `j`.
    pub fn get(&self, i: usize, j: usize) -> bool {
        self.bits[i * self.words_per_row + j / 64] >> (j % 64) & 1 == 1
    }

    /// One observer's row as words (bit `j % 64` of word `j / 64` is target `j`).
    pub fn row(&self, i: usize) -> &[u64] {
        &self.bits[i * self.words_per_row..(i + 1) * self.words_per_row]
    }

    /// Mutable rows, for parallel filling.
    pub fn rows_mut(&mut self) -> std::slice::ChunksMut<'_, u64> {
        self.bits.chunks_mut(self.words_per_row)
    }

    /// Number of targets observer `i` sees.
    pub fn count_row(&self, i: usize) -> usize {
        self.row(i).iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The words, row by row (`ceil(cols / 64)` a row), handed over without a copy.
    pub fn into_words(self) -> Vec<u64> {
        self.bits
    }

    /// Words a row takes.
    pub(crate) fn words_per_row(&self) -> usize {
        self.words_per_row
    }

    /// The words, row by row, for filling in place.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.bits
    }

    /// Sets bit (`i`, `j`).
    #[cfg(test)]
    pub(crate) fn set(&mut self, i: usize, j: usize) {
        self.bits[i * self.words_per_row + j / 64] |= 1 << (j % 64);
    }

    /// Number of set bits.
    pub fn count(&self) -> u64 {
        self.bits.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// A matrix with the hexes its rows and columns stand for.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// Rows and columns.
    pub sel: Selection,
    /// The bits.
    pub bits: BitMatrix,
}

/// Memory a matrix run needs, in bytes: the bits plus the precomputed walks and grids.
///
/// The whole map sweeps offset by offset over walks compiled for every offset;
/// a zone goes through the pair sweep, which holds a few walks per thread.
pub fn estimate_bytes(map: &Map, sel: &Selection) -> u64 {
    let walks = if sel.is_all(map) {
        super::lines::estimate_bytes(map.cols as usize, map.rows as usize) as u64
    } else {
        map.len() as u64 * 4 + (u64::from(map.cols) + u64::from(map.rows)) * 48 * 64
    };
    // The whole map may be swept by diagonals, held beside the matrix.
    let diagonals = if sel.is_all(map) {
        super::diagonals::bytes_for(map.len(), rayon::current_num_threads())
    } else {
        0
    };
    BitMatrix::bytes_for(sel.from.len(), sel.to.len())
        .saturating_add(diagonals)
        .saturating_add(walks)
        .saturating_add(super::fast::Engine::estimate_bytes(map))
}

/// Refuses, with a message naming the way out, a run that would not fit in `available` bytes.
pub fn check_memory(map: &Map, sel: &Selection, available: u64) -> Result<()> {
    check_need(sel, estimate_bytes(map, sel), available)
}

fn check_need(sel: &Selection, need: u64, available: u64) -> Result<()> {
    if need > available {
        let mb = |b: u64| b.div_ceil(1 << 20);
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "a {} x {} matrix needs about {} MiB but only {} MiB of memory is available; restrict the observers and the targets to smaller zones",
                sel.from.len(),
                sel.to.len(),
                mb(need),
                mb(available)
            ),
        ));
    }
    Ok(())
}

/// The error a cancelled run returns.
pub fn cancelled() -> Error {
    Error::new(ErrorKind::Cancelled, "interrupted; nothing was written")
}

/// The matrix for `sel`, computed with the fast engine in parallel on the current rayon pool.
///
/// For the whole map under reciprocal rules only one of each pair `(i, j)`,
/// `(j, i)` is computed (offset by offset) and set both ways, halving the work;
/// on a flat-top map through the matrix's diagonals, whose blocks are then
/// turned into rows.
pub fn matrix(engine: &Engine, sel: &Selection, ctl: &Control) -> Result<Matrix> {
    let map = engine.map();
    let symmetric = sel.is_all(map) && engine.is_reciprocal();
    let stop = AtomicBool::new(false);
    let bits = if symmetric {
        let plan = Plan::of(engine.groups(), map.len());
        symmetric_matrix(engine, ctl, plan.as_ref())?
    } else {
        let mut bits = BitMatrix::with_shape(sel.from.len(), sel.to.len());
        // Offset by offset over the selection (only the walks it needs), the bits
        // set by atomic OR: rows are shared between tasks.
        let w = bits.words_per_row;
        let words: Vec<AtomicU64> = std::mem::take(&mut bits.bits)
            .into_iter()
            .map(AtomicU64::new)
            .collect();
        let (row, col) = sel.positions(map.len());
        let progress = |d: u64, t: u64| {
            (ctl.progress)(d, t);
            if ctl.cancel.load(Ordering::Relaxed) {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let inner = Control {
            cancel: ctl.cancel,
            progress: &progress,
        };
        let set = |i: usize, j: usize| {
            let (r, c) = (row[i] as usize, col[j] as usize);
            words[r * w + c / 64].fetch_or(1 << (c % 64), Ordering::Relaxed);
        };
        if sel.from == sel.to && engine.is_reciprocal() {
            // The same hexes both ways (a units' network): each pair once.
            super::pairs::for_each_seen_once(engine, &sel.from, &inner, |i, j| {
                set(i, j);
                set(j, i);
            })?;
        } else {
            seen::each_seen_by(engine, (&sel.from, &sel.to), &inner, None, set)?;
        }
        bits.bits = words.into_iter().map(AtomicU64::into_inner).collect();
        bits
    };
    if stop.load(Ordering::Relaxed) || ctl.cancel.load(Ordering::Relaxed) {
        return Err(cancelled());
    }
    Ok(Matrix {
        sel: sel.clone(),
        bits,
    })
}

/// The whole map's matrix under reciprocal rules: one of each pair `(i, j)`,
/// `(j, i)` swept ([`half_sweep`]) and set both ways; by diagonals where `plan`
/// allows ([`super::diagonals`]), else pair by pair into the rows.
fn symmetric_matrix(engine: &Engine, ctl: &Control, plan: Option<&Plan>) -> Result<BitMatrix> {
    let n = engine.map().len();
    if let Some(plan) = plan {
        let diagonals = std::sync::Mutex::new(Diagonals::new(n));
        half_sweep(
            engine,
            ctl,
            Band::default,
            |band, dq| band.reset(plan.reach(dq)),
            Band::set_run,
            |band| {
                let mut d = diagonals.lock().unwrap_or_else(|e| e.into_inner());
                d.merge(band)
            },
        )?;
        let diagonals = diagonals.into_inner().unwrap_or_else(|e| e.into_inner());
        return Ok(diagonals.into_matrix());
    }
    // Tasks share rows, so each gathers the pairs it sees (a few percent of
    // all) and writes them in batches under a lock: plain stores, where a
    // per-pair atomic OR stalled on every cache miss.
    const BATCH: usize = 1 << 12;
    let mut bits = BitMatrix::new(n);
    let w = bits.words_per_row;
    let shared = std::sync::Mutex::new(&mut bits.bits);
    let flush = |batch: &mut Vec<(u32, u32)>| {
        let mut words = shared.lock().unwrap_or_else(|e| e.into_inner());
        // Both (i, j) and (j, i): the rules are reciprocal here. The words of
        // a pair a few ahead are fetched meanwhile: most miss the cache, and
        // the misses then overlap instead of stalling each write in turn.
        let at = |(i, j): (u32, u32)| {
            let (i, j) = (i as usize, j as usize);
            (i * w + j / 64, j * w + i / 64)
        };
        for (n, &pair) in batch.iter().enumerate() {
            if let Some(&ahead) = batch.get(n + PREFETCH) {
                let (x, y) = at(ahead);
                prefetch_write(&words[..], x);
                prefetch_write(&words[..], y);
            }
            let (x, y) = at(pair);
            words[x] |= 1 << (pair.1 % 64);
            words[y] |= 1 << (pair.0 % 64);
        }
        batch.clear();
    };
    half_sweep(
        engine,
        ctl,
        || Vec::with_capacity(BATCH),
        |_, _| {},
        |batch, run, lanes| {
            run.each_pair(lanes, |i, j| {
                batch.push((i as u32, j as u32));
                if batch.len() == BATCH {
                    flush(batch);
                }
            })
        },
        flush,
    )?;
    Ok(bits)
}

/// How many pairs ahead the batched writes fetch their words.
const PREFETCH: usize = 32;

/// Asks for the cache line of `words[x]` (if it exists) to be fetched for writing.
#[inline(always)]
fn prefetch_write(words: &[u64], x: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(w) = words.get(x) {
        // SAFETY: a prefetch reads nothing; the address is within `words`.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_ET0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_ET0>((w as *const u64).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (words, x);
}

/// Calls `visit(acc, i, j)` for one of each pair `(i, j)`, `(j, i)` of the whole
/// map whose line is seen (and each hex with itself, if seen), under reciprocal
/// rules: column offset by column offset (`dq`) on every thread, each walk laid
/// out once for all the groups it joins (see [`Engine::half_for_dq`]), a run's
/// seen lanes at once (`visit(acc, run, lanes)`). A running task has an
/// accumulator of its own, made by `init` (at most one per thread), handed to
/// `begin` with its column offset and to `after` at its end; all are returned.
pub(crate) fn half_sweep<T: Send>(
    engine: &Engine,
    ctl: &Control,
    init: impl Fn() -> T + Sync,
    begin: impl Fn(&mut T, i32) + Sync,
    visit: impl Fn(&mut T, &Run, u64) + Sync,
    after: impl Fn(&mut T) + Sync,
) -> Result<Vec<T>> {
    let n = engine.map().len() as u64;
    let total = n * (n + 1) / 2;
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let tick = |n: u64| {
        let before = done.fetch_add(n, Ordering::Relaxed);
        (ctl.progress)(before + n, total);
        if ctl.cancel.load(Ordering::Relaxed) {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let per_dq = pairs_per_dq(engine.groups());
    engine.prepare_sweeps();
    // Accumulators not in use: a task takes one (or makes one) and puts it back.
    let spare = std::sync::Mutex::new(Vec::new());
    let take = || spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
    (0..per_dq.len() as i32)
        .into_par_iter()
        .with_max_len(1)
        .for_each(|dq| {
            let mut acc = take().unwrap_or_else(&init);
            begin(&mut acc, dq);
            engine.half_for_dq(dq, &stop, |run, lanes| visit(&mut acc, run, lanes));
            after(&mut acc);
            spare.lock().unwrap_or_else(|e| e.into_inner()).push(acc);
            tick(per_dq[dq as usize]);
        });
    if stop.load(Ordering::Relaxed) || ctl.cancel.load(Ordering::Relaxed) {
        return Err(cancelled());
    }
    Ok(spare.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The pairs [`half_sweep`] takes at each column offset from 0 up (for progress).
fn pairs_per_dq(groups: &[super::offsets::Group]) -> Vec<u64> {
    let dq_max = match (groups.first(), groups.last()) {
        (Some(f), Some(l)) => l.q - f.q,
        _ => -1,
    };
    (0..=dq_max)
        .map(|dq| {
            groups
                .iter()
                .filter_map(|a| {
                    let b = &groups[groups.binary_search_by_key(&(a.q + dq), |g| g.q).ok()?];
                    let (na, nb) = (a.idx.len() as u64, b.idx.len() as u64);
                    Some(if dq == 0 { na * (na + 1) / 2 } else { na * nb })
                })
                .sum()
        })
        .collect()
}

/// A blocked pair in [`sight_matrix`].
pub const BLOCKED_BYTE: u8 = 255;

/// One byte per ordered pair of `sel`, row by row: the total hindrance of the
/// line when the observer sees the target (0 = clear, capped at 254), or
/// [`BLOCKED_BYTE`] when blocked. For the whole map, which pairs see each other
/// comes from [`matrix`]'s sweep and only those are answered on their own (every
/// pair on its own took 70 times the sweep on 100x100); zones take the pair
/// sweep's outcomes, which compiles only the walks the zones need, or where a
/// few observers face most of the map, their viewsheds.
pub fn sight_matrix(engine: &Engine, sel: &Selection, ctl: &Control) -> Result<Vec<u8>> {
    sight_matrix_by(engine, sel, ctl, None)
}

/// [`sight_matrix`], a zone's pairs from its observers' viewsheds where
/// `viewsheds` says so, else from the pair sweep's outcomes, or ([`None`]) the
/// cheaper of the two (a line's hindrance is its observer's: only the
/// observers' viewsheds serve).
fn sight_matrix_by(
    engine: &Engine,
    sel: &Selection,
    ctl: &Control,
    viewsheds: Option<bool>,
) -> Result<Vec<u8>> {
    let n = engine.map().len();
    if sel.is_all(engine.map()) {
        return whole_sight_matrix(engine, sel, ctl);
    }
    let cols = sel.to.len();
    let (row, col) = sel.positions(n);
    // Tasks share rows: each byte is written once, by whichever task meets its pair.
    let data: Vec<AtomicU8> = (0..sel.from.len() * cols)
        .map(|_| AtomicU8::new(BLOCKED_BYTE))
        .collect();
    let store = |i: usize, j: usize, b: u8| {
        data[row[i] as usize * cols + col[j] as usize].store(b, Ordering::Relaxed);
    };
    let observers = || Route::for_engine(engine, (&sel.from, &sel.to), false) == Route::Observers;
    if viewsheds.unwrap_or_else(observers) {
        seen::each_viewshed(engine, (&sel.from, &sel.to), ctl, |i, j, t| {
            store(i, j, sight_byte(t.verdict, t.hindrance))
        })?;
    } else {
        super::pairs::for_each::<false>(engine, &sel.from, &sel.to, ctl, |i, j, o| {
            store(i, j, byte(super::walker::total(&o)))
        })?;
    }
    Ok(data.into_iter().map(AtomicU8::into_inner).collect())
}

/// The byte of a pair whose engine total is `total`.
fn byte(total: u32) -> u8 {
    let s = super::fast::Sight::from_total(total);
    sight_byte(s.verdict, s.hindrance)
}

/// The byte of a pair with this verdict and hindrance.
fn sight_byte(verdict: crate::rules::Verdict, hindrance: u32) -> u8 {
    if verdict == crate::rules::Verdict::Blocked {
        BLOCKED_BYTE
    } else {
        hindrance.min(254) as u8
    }
}

/// [`sight_matrix`] of the whole map: the pairs in sight from the sweep, then
/// their hindrance pair by pair.
fn whole_sight_matrix(engine: &Engine, sel: &Selection, ctl: &Control) -> Result<Vec<u8>> {
    let cols = sel.to.len();
    let total = sel.from.len() as u64 * cols as u64;
    // Progress over both passes: the sweep's first, then the pairs in sight.
    let scaled = |d: u64, t: u64| (u128::from(d) * u128::from(total) / u128::from(t.max(1))) as u64;
    let first = |d: u64, t: u64| (ctl.progress)(scaled(d, t), 2 * total);
    let seen = matrix(
        engine,
        sel,
        &Control {
            cancel: ctl.cancel,
            progress: &first,
        },
    )?;
    let mut data = vec![BLOCKED_BYTE; sel.from.len() * cols];
    let done = AtomicU64::new(total);
    if cols > 0 {
        // The walks `total` reads, compiled by every thread now, not by the first
        // row's task alone (built already where the sweep was the whole-map one).
        engine.lines();
        data.par_chunks_mut(cols).enumerate().for_each(|(r, row)| {
            if ctl.cancel.load(Ordering::Relaxed) {
                return;
            }
            let i = sel.from[r];
            for (w, &word) in seen.bits.row(r).iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    let c = w * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    row[c] = byte(engine.total(i, sel.to[c]));
                }
            }
            let n = cols as u64;
            (ctl.progress)(done.fetch_add(n, Ordering::Relaxed) + n, 2 * total);
        });
    }
    if ctl.cancel.load(Ordering::Relaxed) {
        return Err(cancelled());
    }
    Ok(data)
}

/// The matrix computed the plain way: one full LOS query per ordered pair.
pub fn matrix_plain(map: &Map) -> BitMatrix {
    let mut m = BitMatrix::new(map.len());
    m.rows_mut().enumerate().par_bridge().for_each(|(i, row)| {
        let from = map.hex_of(i);
        for j in 0..map.len() {
            if line_of_sight(map, from, map.hex_of(j)).verdict.sees() {
                row[j / 64] |= 1 << (j % 64);
            }
        }
    });
    m
}

/// Writes the matrix as CSV: a header of labels, then one row per observer of 0/1.
pub fn write_csv(map: &Map, m: &BitMatrix, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let all = Selection::all(map);
    let sel = if m.len() == map.len() && m.cols() == map.len() {
        all
    } else {
        return Err(shape_error());
    };
    write_csv_sel(map, &sel, m, out)
}

fn shape_error() -> std::io::Error {
    std::io::Error::other("the matrix does not match the map; use write_csv_sel")
}

/// Writes a matrix over a selection as CSV (labels of its rows and columns).
pub fn write_csv_sel(
    map: &Map,
    sel: &Selection,
    m: &BitMatrix,
    out: &mut (impl std::io::Write + ?Sized),
) -> std::io::Result<()> {
    let labels = |v: &[usize]| {
        v.iter()
            .map(|&i| map.label(map.hex_of(i)))
            .collect::<Vec<_>>()
    };
    writeln!(out, ",{}", labels(&sel.to).join(","))?;
    let mut line = String::new();
    for (r, label) in labels(&sel.from).iter().enumerate() {
        line.clear();
        line.push_str(label);
        for c in 0..m.cols() {
            line.push_str(if m.get(r, c) { ",1" } else { ",0" });
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Generator, generate};
    use crate::hex::Layout;

    #[test]
    fn the_fast_matrix_equals_the_plain_one() {
        use crate::hex::Orientation;
        // Tall maps fill whole 64-observer groups; wide pointy ones too.
        for (rs, cols, rows, orientation, dense) in [
            ("geometric", 11, 13, Orientation::Flat, true),
            ("combat-commander", 12, 12, Orientation::Flat, true),
            ("combat-commander", 7, 20, Orientation::Flat, true),
            ("geometric", 4, 90, Orientation::Flat, false),
            ("combat-commander", 4, 90, Orientation::Flat, false),
            ("geometric", 90, 4, Orientation::Pointy, false),
            ("combat-commander", 90, 4, Orientation::Pointy, true),
        ] {
            let g = Generator {
                cols,
                rows,
                seed: 3,
                ruleset: rs.into(),
                layout: Layout {
                    orientation,
                    ..Layout::default()
                },
                dense,
            };
            let map = generate(&g).unwrap();
            let mut e = Engine::new(&map);
            let fast = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
            assert_eq!(fast.bits, matrix_plain(&map), "{rs}");
            // Without the vector path (where the CPU has one) the bits are the same.
            e.set_simd(false);
            let scalar = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
            assert_eq!(scalar.bits, fast.bits, "{rs} without vectors");
            e.set_simd(true);
            // A restricted run gives the same bits as the full one.
            let sel = Selection {
                from: vec![0, 5, 17],
                to: (3..40).collect(),
            };
            let part = matrix(&e, &sel, &Control::default()).unwrap();
            for (r, &i) in sel.from.iter().enumerate() {
                for (c, &j) in sel.to.iter().enumerate() {
                    assert_eq!(part.bits.get(r, c), fast.bits.get(i, j));
                }
            }
        }
    }

    /// The whole map's matrix by diagonals equals the one written pair by pair into
    /// the rows (which `fast_path_matches_plain_path` holds to the explained query)
    /// on random maps of every family, flat
    /// (whose columns have consecutive indices: the diagonals are taken) and
    /// pointy (they are not), odd and even; with more than 64 hexes a column too.
    #[test]
    fn matrices_by_diagonals_equal_those_written_by_rows() {
        let mut by_diagonals = 0;
        for rs in crate::engine::testmaps::FAMILIES {
            for (seed, cols, rows) in [(2, 9, 70), (4, 13, 11), (3, 12, 11), (5, 70, 5)] {
                let map = crate::engine::testmaps::random_map(rs, seed, cols, rows);
                let e = Engine::new(&map);
                if !e.is_reciprocal() {
                    continue;
                }
                let ctl = Control::default();
                let plan = Plan::of(e.groups(), map.len());
                let rows_way = symmetric_matrix(&e, &ctl, None).unwrap();
                if let Some(plan) = plan {
                    by_diagonals += 1;
                    let diagonal_way = symmetric_matrix(&e, &ctl, Some(&plan)).unwrap();
                    assert_eq!(diagonal_way, rows_way, "{rs} seed {seed}");
                }
            }
        }
        assert!(
            by_diagonals >= 10,
            "the diagonals taken on {by_diagonals} maps only"
        );
    }

    /// A generated 10x10 geometric map.
    fn small_geometric_map() -> Map {
        let g = Generator {
            cols: 10,
            rows: 10,
            seed: 1,
            ruleset: "geometric".into(),
            layout: Layout::default(),
            dense: false,
        };
        generate(&g).unwrap()
    }

    /// Zone matrices (the pair sweep, swept over the runs of observers) of every
    /// family equal the explained query pair by pair, zones with gaps included, and
    /// one set of hexes both ways.
    #[test]
    fn zone_matrices_equal_the_explained_query() {
        for rs in crate::engine::testmaps::FAMILIES {
            let map = crate::engine::testmaps::random_map(rs, 3, 12, 11);
            let e = Engine::new(&map);
            let units: Vec<usize> = (0..map.len()).filter(|i| i % 7 < 2).collect();
            let zones = [
                Selection {
                    from: (0..map.len()).filter(|i| i % 3 != 1).collect(),
                    to: (0..map.len()).filter(|i| i % 5 < 3).collect(),
                },
                // The same hexes both ways (a units' network), swept once per pair.
                Selection {
                    from: units.clone(),
                    to: units,
                },
            ];
            for sel in zones {
                let m = matrix(&e, &sel, &Control::default()).unwrap();
                for (r, &i) in sel.from.iter().enumerate() {
                    for (c, &j) in sel.to.iter().enumerate() {
                        let want = line_of_sight(&map, map.hex_of(i), map.hex_of(j))
                            .verdict
                            .sees();
                        assert_eq!(m.bits.get(r, c), want, "{rs}: {i} -> {j}");
                    }
                }
            }
        }
    }

    /// Zones wide enough for the pair sweep's vector thresholds (a thousand lines
    /// and more at an offset), whose walks are compiled in turn into one pool,
    /// give the whole map's bits: no walk takes the floors of the walk compiled
    /// before it (whose record lay in the same place).
    #[test]
    fn wide_zone_matrices_equal_the_whole_one() {
        for (rs, seed) in [("geometric", 2), ("geometric", 3), ("combat-commander", 4)] {
            let map = crate::engine::testmaps::random_map(rs, seed, 48, 48);
            let e = Engine::new(&map);
            let whole = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
            let sel = Selection {
                from: (0..map.len()).filter(|i| i % 48 < 30).collect(),
                to: (0..map.len()).filter(|i| i % 11 != 3).collect(),
            };
            let part = matrix(&e, &sel, &Control::default()).unwrap();
            for (r, &i) in sel.from.iter().enumerate() {
                for (c, &j) in sel.to.iter().enumerate() {
                    assert_eq!(
                        part.bits.get(r, c),
                        whole.bits.get(i, j),
                        "{rs}: {i} -> {j}"
                    );
                }
            }
        }
    }

    /// The hindrance matrix of every family equals the explained query pair by
    /// pair (blocked, or seen with its hindrance), for the whole map and zones
    /// with gaps, from the pair sweep and from the observers' viewsheds; some
    /// pairs of the random maps are hindered.
    #[test]
    fn sight_matrices_equal_the_explained_query() {
        let mut hindered = 0;
        for rs in crate::engine::testmaps::FAMILIES {
            let map = crate::engine::testmaps::random_map(rs, 5, 12, 11);
            let e = Engine::new(&map);
            let zone = Selection {
                from: (0..map.len()).filter(|i| i % 3 != 1).collect(),
                to: (0..map.len()).filter(|i| i % 5 < 3).collect(),
            };
            let few = Selection {
                from: vec![0, 17, 40],
                to: (0..map.len()).filter(|i| i % 7 != 2).collect(),
            };
            let ways = [
                (Selection::all(&map), None),
                (zone.clone(), Some(false)),
                (zone, Some(true)),
                (few.clone(), Some(false)),
                (few, Some(true)),
            ];
            for (sel, viewsheds) in ways {
                let got = sight_matrix_by(&e, &sel, &Control::default(), viewsheds).unwrap();
                for (r, &i) in sel.from.iter().enumerate() {
                    for (c, &j) in sel.to.iter().enumerate() {
                        let los = line_of_sight(&map, map.hex_of(i), map.hex_of(j));
                        let want = if los.verdict.sees() {
                            los.hindrance.min(254) as u8
                        } else {
                            BLOCKED_BYTE
                        };
                        hindered += usize::from(want != BLOCKED_BYTE && want > 0);
                        assert_eq!(got[r * sel.to.len() + c], want, "{rs}: {i} -> {j}");
                    }
                }
            }
        }
        assert!(hindered > 0, "no pair of the random maps is hindered");
    }

    #[test]
    fn a_run_that_does_not_fit_is_refused_naming_zones() {
        let map = small_geometric_map();
        let err = check_memory(&map, &Selection::all(&map), 1000)
            .unwrap_err()
            .to_string();
        assert!(err.contains("zones") && err.contains("MiB"), "{err}");
        check_memory(&map, &Selection::all(&map), 1 << 30).unwrap();
    }

    #[test]
    fn a_cancelled_run_returns_an_error() {
        let map = small_geometric_map();
        let flag = AtomicBool::new(true);
        let ctl = Control {
            cancel: &flag,
            progress: &|_, _| {},
        };
        assert!(matrix(&Engine::new(&map), &Selection::all(&map), &ctl).is_err());
    }
}
