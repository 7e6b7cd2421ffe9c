//! The symmetric whole-map matrix kept by diagonals while it is swept.
//!
//! Where each column of the map (a group of one `q`) has consecutive map
//! indices, as a flat-top map's have, a run's observers and targets are
//! consecutive indices: its pairs (`i + l`, `j + l`) lie on one diagonal,
//! `d = |j - i|`, from `min(i, j)` on. Its seen lanes are then one or two word
//! writes, where writing rows took two scattered writes a pair (a cache miss
//! each on a large map). Each column offset's task writes a [`Band`] of its own
//! and ORs it into the [`Diagonals`] when done; the rows are built after, 64x64
//! bits at a time: a block's 127 diagonals are transposed and skewed into rows.

use super::blocks::{Block, Window, shear, transpose};
use super::matrix::BitMatrix;
use super::offsets::{Group, Run};
use rayon::prelude::*;

/// For each word column `w` (observers `64 w..64 w + 64`), one word per
/// diagonal `d` with `64 w + d < n`: bit `i % 64` stands for the pair (`i`, `i + d`).
pub(crate) struct Diagonals {
    n: usize,
    /// Where each word column's diagonals start in `words`.
    start: Vec<usize>,
    words: Vec<u64>,
}

/// Diagonals and word columns one task writes, both inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reach {
    d: (usize, usize),
    w: (usize, usize),
}

/// What the sweep of a whole map by diagonals needs: the reach of each column
/// offset's task, from 0 up.
pub(crate) struct Plan {
    reach: Vec<Reach>,
}

/// One task's diagonals `d.0..=d.1` over word columns `w.0..=w.1`, word column by
/// word column (so the writes of one group pair lie close together).
#[derive(Default)]
pub(crate) struct Band {
    d_lo: usize,
    d_n: usize,
    w_lo: usize,
    words: Vec<u64>,
}

/// The diagonals' words for `n` hexes.
fn diagonal_words(n: usize) -> usize {
    (0..n.div_ceil(64)).map(|w| n - 64 * w).sum()
}

/// The largest band a plan allows, in words: a band much larger than its share of
/// the diagonals means columns far apart in index, where rows are written directly.
fn band_cap(n: usize) -> usize {
    (diagonal_words(n) / 16).max(1 << 16)
}

/// Bytes the sweep by diagonals holds beside the matrix for `n` hexes on
/// `threads` threads, at most.
pub(crate) fn bytes_for(n: usize, threads: usize) -> u64 {
    (diagonal_words(n) as u64 + threads as u64 * band_cap(n) as u64) * 8
}

impl Plan {
    /// The plan for a map's columns `groups` (sorted by `q`) of `n` hexes, or `None`
    /// where a column's indices are not consecutive or a band would be too large.
    pub(crate) fn of(groups: &[Group], n: usize) -> Option<Plan> {
        let consecutive = |g: &Group| g.idx.windows(2).all(|w| w[1] == w[0] + 1);
        if n == 0 || !groups.iter().all(consecutive) {
            return None;
        }
        let span = |g: &Group| Some((*g.idx.first()? as usize, *g.idx.last()? as usize));
        let (first, last) = (groups.first()?.q, groups.last()?.q);
        let mut reach = Vec::new();
        for dq in 0..=last - first {
            let mut r: Option<Reach> = None;
            for a in groups {
                let Ok(k) = groups.binary_search_by_key(&(a.q + dq), |g| g.q) else {
                    continue;
                };
                let ((a0, a1), (b0, b1)) = (span(a)?, span(&groups[k])?);
                let gap = b0.saturating_sub(a1).max(a0.saturating_sub(b1));
                let far = b1.abs_diff(a0).max(a1.abs_diff(b0));
                let (lo, hi) = (a0.min(b0) / 64, a1.max(b1) / 64);
                r = Some(match r {
                    None => Reach {
                        d: (gap, far),
                        w: (lo, hi),
                    },
                    Some(r) => Reach {
                        d: (r.d.0.min(gap), r.d.1.max(far)),
                        w: (r.w.0.min(lo), r.w.1.max(hi)),
                    },
                });
            }
            // No pairs at this offset: an empty band.
            let r = r.unwrap_or(Reach {
                d: (0, 0),
                w: (0, 0),
            });
            if (r.d.1 - r.d.0 + 1) * (r.w.1 - r.w.0 + 1) > band_cap(n) {
                return None;
            }
            reach.push(r);
        }
        Some(Plan { reach })
    }

    /// The reach of column offset `dq`'s task.
    pub(crate) fn reach(&self, dq: i32) -> Reach {
        self.reach[dq as usize]
    }
}

impl Band {
    /// Makes the band cover `r`, all zero (a band is left zero by [`Diagonals::merge`]).
    pub(crate) fn reset(&mut self, r: Reach) {
        debug_assert!(self.words.iter().all(|&w| w == 0), "a band merged");
        self.d_lo = r.d.0;
        self.d_n = r.d.1 - r.d.0 + 1;
        self.w_lo = r.w.0;
        self.words.resize(self.d_n * (r.w.1 - r.w.0 + 1), 0);
    }

    /// Sets the pairs of `run`'s lanes `lanes`: one diagonal from the first lane's
    /// smaller index on (each column's indices are consecutive, see [`Plan::of`]).
    #[inline]
    pub(crate) fn set_run(&mut self, run: &Run, lanes: u64) {
        let (i, j) = run.pair(0);
        let (d, base) = (i.abs_diff(j), i.min(j));
        let at = |w: usize| (w - self.w_lo) * self.d_n + d - self.d_lo;
        let (w, o) = (base / 64, base % 64);
        self.words[at(w)] |= lanes << o;
        if o != 0 && lanes >> (64 - o) != 0 {
            self.words[at(w + 1)] |= lanes >> (64 - o);
        }
    }
}

impl Diagonals {
    /// No pairs seen among `n` hexes.
    pub(crate) fn new(n: usize) -> Diagonals {
        let start = (0..n.div_ceil(64))
            .scan(0, |at, w| {
                let here = *at;
                *at += n - 64 * w;
                Some(here)
            })
            .collect();
        Diagonals {
            n,
            start,
            words: vec![0; diagonal_words(n)],
        }
    }

    /// Word column `w`'s diagonals.
    fn column(&self, w: usize) -> &[u64] {
        &self.words[self.start[w]..][..self.n - 64 * w]
    }

    /// Word column `w`'s diagonals, to set.
    fn column_mut(&mut self, w: usize) -> &mut [u64] {
        &mut self.words[self.start[w]..][..self.n - 64 * w]
    }

    /// ORs `band` in and leaves it zero.
    pub(crate) fn merge(&mut self, band: &mut Band) {
        if band.d_n == 0 {
            return;
        }
        for (k, src) in band.words.chunks_exact_mut(band.d_n).enumerate() {
            let w = band.w_lo + k;
            if w < self.start.len() {
                // Past a column's end no pair exists, so the band holds nothing there.
                let dst = self.column_mut(w).get_mut(band.d_lo..).unwrap_or_default();
                for (d, s) in dst.iter_mut().zip(src.iter()) {
                    *d |= s;
                }
            }
            src.fill(0);
        }
    }

    /// Diagonals `first..first + 128` of word column `w` (zero where none lies):
    /// the column's own words where it has them all, else a copy in `spare`.
    fn window<'a>(&'a self, w: usize, first: isize, spare: &'a mut Window) -> &'a Window {
        let column = self.column(w);
        let inside = usize::try_from(first)
            .ok()
            .and_then(|lo| column.get(lo..lo + 128));
        if let Some(inside) = inside {
            return inside.try_into().expect("128 words");
        }
        *spare = [0; 128];
        let lo = first.max(0) as usize;
        let hi = ((first + 128).max(0) as usize).min(column.len());
        if lo < hi {
            let at = (lo as isize - first) as usize;
            spare[at..at + hi - lo].copy_from_slice(&column[lo..hi]);
        }
        spare
    }

    /// The block of rows `64 ib..` and columns `64 jb..` of the symmetric matrix.
    /// Its row `x`, column `y` stands for the pair (`64 ib + x`, `64 jb + y`): above
    /// the main diagonal on diagonal `64 (jb - ib) + y - x`, bit `x` of word column
    /// `ib`, so the block's transpose is that column's diagonals from
    /// `64 (jb - ib) - 63` sheared; below, on diagonal `64 (ib - jb) + x - y`, bit
    /// `y` of word column `jb`, so the block is that column's diagonals sheared.
    fn block(&self, ib: usize, jb: usize, out: &mut Block) {
        let mut spare = [0; 128];
        let mut sheared = |w: usize, apart: usize, out: &mut Block| {
            shear(self.window(w, 64 * apart as isize - 63, &mut spare), out)
        };
        let mut below = [0; 64];
        match jb.cmp(&ib) {
            std::cmp::Ordering::Greater => {
                sheared(ib, jb - ib, &mut below);
                transpose(&below, out)
            }
            std::cmp::Ordering::Less => sheared(jb, ib - jb, out),
            std::cmp::Ordering::Equal => {
                sheared(ib, 0, &mut below);
                transpose(&below, out);
                for (o, b) in out.iter_mut().zip(below) {
                    *o |= b;
                }
            }
        }
    }

    /// The matrix, both ways: row blocks in parallel on the current rayon pool.
    pub(crate) fn into_matrix(self) -> BitMatrix {
        let mut m = BitMatrix::new(self.n);
        let per_row = m.words_per_row();
        m.words_mut()
            .par_chunks_mut(64 * per_row)
            .enumerate()
            .for_each(|(ib, rows)| {
                let mut block = [0; 64];
                for jb in 0..per_row {
                    self.block(ib, jb, &mut block);
                    for (row, &word) in rows.chunks_exact_mut(per_row).zip(&block) {
                        row[jb] = word;
                    }
                }
            });
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Pairs set on diagonals, in runs of any length and start as a sweep's
        /// bands hold them, come out as the symmetric matrix of those pairs.
        #[test]
        fn diagonals_make_the_symmetric_matrix(
            n in 1usize..300,
            runs in proptest::collection::vec((any::<u32>(), any::<u32>(), any::<u64>()), 0..40),
        ) {
            let mut want = BitMatrix::new(n);
            let mut diagonals = Diagonals::new(n);
            for (i, j, lanes) in runs {
                let (i, j) = (i as usize % n, j as usize % n);
                let room = n - i.max(j);
                let lanes = if room < 64 { lanes & ((1 << room) - 1) } else { lanes };
                // A band that reaches these pairs only.
                let (d, base) = (i.abs_diff(j), i.min(j));
                let mut band = Band::default();
                band.reset(Reach { d: (d, d + 2), w: (base / 64, base.div_ceil(64) + 1) });
                let group = |at: usize| Group { q: 0, r_lo: 0, idx: (at as u32..at as u32 + 64).collect() };
                let (a, b) = (group(i), group(j));
                band.set_run(&Run { a: &a, b: &b, r0: 0, lanes: 64, dr: 0 }, lanes);
                diagonals.merge(&mut band);
                prop_assert!(band.words.iter().all(|&w| w == 0));
                for l in (0..64).filter(|l| lanes >> l & 1 == 1) {
                    want.set(i + l, j + l);
                    want.set(j + l, i + l);
                }
            }
            prop_assert_eq!(diagonals.into_matrix(), want);
        }
    }
}
