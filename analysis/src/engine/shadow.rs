//! The targets of one observer whose lines pass over nothing that acts.
//!
//! A family may promise that a cell whose top is at or under a line's quiet height
//! does nothing to the line ([`Kernel::quiet_under`]). A viewshed then needs no walk
//! for a target whose line passes only over such cells: it is clear. To find those
//! targets without walking, every cell that could act on some line is entered into a
//! table seen from the observer: wedges of direction by rings of distance, keeping the
//! highest top. A target is quiet when the highest top in its wedge, out to its own
//! ring, is at or under its line's quiet height; and when it is below the observer's
//! eye, no blocker can stand at or above the eye, so a walk to the first block tells
//! a blind hex. The table only over-covers (wedges widened, whole rings, the target's
//! own hex counted), so it can send a target on a longer walk than it needs but never
//! settle one wrongly.

use super::grid::{Grid, Padded};
use super::needs::Need;
use super::plane::{CIRCUMRADIUS, plane, point, pseudo_angle};
use crate::rules::kernel::{End, Kernel};

/// Widening of every wedge (in pseudo-angle units), far above rounding error.
const MARGIN: f64 = 1e-7;
/// Most direction buckets.
const MAX_BUCKETS: usize = 1 << 16;
/// Most distance rings.
const MAX_RINGS: usize = 128;

/// The vertices of a hexagon around its centre, in axial units.
const VERTICES: [(f64, f64); 6] = [
    (2.0 / 3.0, -1.0 / 3.0),
    (1.0 / 3.0, 1.0 / 3.0),
    (-1.0 / 3.0, 2.0 / 3.0),
    (-2.0 / 3.0, 1.0 / 3.0),
    (-1.0 / 3.0, -1.0 / 3.0),
    (1.0 / 3.0, -2.0 / 3.0),
];

/// The wedges-by-rings table of highest tops seen from one observer.
struct Table {
    buckets: usize,
    rings: usize,
    ring_width: f64,
    /// Per bucket, per ring: the highest top (saturated to `i32`), `i32::MIN` for none.
    top: Vec<i32>,
}

/// Buckets, rings and ring width for a map `reach` across.
fn dims(reach: f64) -> (usize, usize, f64) {
    let buckets = ((reach * 8.0) as usize).clamp(64, MAX_BUCKETS);
    let ring_width = (reach / MAX_RINGS as f64).max(4.0);
    (buckets, (reach / ring_width) as usize + 2, ring_width)
}

impl Table {
    fn new(reach: f64) -> Table {
        let (buckets, rings, ring_width) = dims(reach);
        Table {
            buckets,
            rings,
            ring_width,
            top: vec![i32::MIN; buckets * rings],
        }
    }

    fn bucket(&self, p: f64) -> usize {
        let b = (p * self.buckets as f64 / 4.0).floor() as i64;
        b.rem_euclid(self.buckets as i64) as usize
    }

    fn ring(&self, d: f64) -> usize {
        ((d.max(0.0) / self.ring_width) as usize).min(self.rings - 1)
    }

    /// Enters a cell at offset `(x, y)` from the observer with its top.
    fn enter(&mut self, x: f64, y: f64, top: i32) {
        let centre = pseudo_angle(x, y);
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for (vq, vr) in VERTICES {
            let (vx, vy) = plane(vq, vr);
            let (vx, vy) = (x + vx, y + vy);
            // The vertex's angle relative to the centre's, unwrapped to (-2, 2].
            let mut d = pseudo_angle(vx, vy) - centre;
            if d > 2.0 {
                d -= 4.0;
            } else if d <= -2.0 {
                d += 4.0;
            }
            lo = lo.min(d);
            hi = hi.max(d);
        }
        let ring = self.ring((x * x + y * y).sqrt() - CIRCUMRADIUS - MARGIN);
        let first = (((centre + lo - MARGIN) * self.buckets as f64 / 4.0).floor()) as i64;
        let last = (((centre + hi + MARGIN) * self.buckets as f64 / 4.0).floor()) as i64;
        for b in first..=last.min(first + self.buckets as i64 - 1) {
            let at = b.rem_euclid(self.buckets as i64) as usize * self.rings + ring;
            self.top[at] = self.top[at].max(top);
        }
    }

    /// Each entry becomes the highest top of its wedge out to its ring.
    fn accumulate(&mut self) {
        for wedge in self.top.chunks_mut(self.rings) {
            for k in 1..wedge.len() {
                wedge[k] = wedge[k].max(wedge[k - 1]);
            }
        }
    }

    /// The highest top in the wedge of `(x, y)` out to its distance (an upper bound;
    /// `None` when it may be above anything).
    fn highest(&self, x: f64, y: f64) -> Option<i64> {
        let ring = self.ring((x * x + y * y).sqrt() + MARGIN);
        let top = self.top[self.bucket(pseudo_angle(x, y)) * self.rings + ring];
        (top != i32::MAX).then_some(i64::from(top))
    }
}

/// A top rounded up into `i32` (an upper bound, so the table only over-covers).
fn saturate(top: i64) -> i32 {
    i32::try_from(top).unwrap_or(if top > 0 { i32::MAX } else { i32::MIN })
}

/// Bytes `quiet_targets` holds for a map, beyond its answer.
pub fn estimate_bytes(padded: &Padded) -> u64 {
    let (buckets, rings, _) = dims(reach(padded));
    (buckets * rings * 4 + padded.hexes() * 16) as u64
}

/// The largest distance between two hexes of the map, or more: from the box about
/// their centres, whose sides touch the rim ([`Padded::rim`]).
fn reach(padded: &Padded) -> f64 {
    let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
    for &h in &padded.rim {
        let (x, y) = point(h);
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    ((hi.0 - lo.0).powi(2) + (hi.1 - lo.1).powi(2)).sqrt() + 2.0
}

/// True when no cell of the map stands above the quiet height of any line from map
/// hex `i` ([`Kernel::quiet_under`]): every target is then clear without a walk (open
/// ground seen from ground level).
pub fn all_quiet<K: Kernel>(
    kernel: &K,
    grid: &Grid<K::Cell, K::Side>,
    padded: &Padded,
    i: usize,
) -> bool {
    quiet(kernel, padded.hexes(), i, &|j| {
        let (hex, at) = padded.place(j);
        End {
            hex,
            cell: grid.cells[at],
        }
    })
}

/// [`all_quiet`] read from the map itself, before (and so without) any grid: what a
/// viewshed over open ground needs to know to skip building the engine.
pub fn open_ground<K: Kernel>(kernel: &K, i: usize) -> bool {
    let map = kernel.map();
    quiet(kernel, map.len(), i, &|j| {
        let hex = map.hex_of(j);
        End {
            hex,
            cell: kernel.cell(hex),
        }
    })
}

/// [`all_quiet`] over the `n` map hexes whose ends `end` gives.
fn quiet<K: Kernel>(
    kernel: &K,
    n: usize,
    i: usize,
    end: &(impl Fn(usize) -> End<K::Cell> + Sync),
) -> bool {
    use rayon::prelude::*;
    let top = |j: usize| kernel.top(&end(j).cell);
    // True when some line of `run` may be acted on by a cell as high as `top`.
    let acts = |run: std::ops::Range<usize>, top: i64| {
        let from = end(i);
        run.filter(|&j| j != i).any(|j| {
            let ends = kernel.ends(from, end(j));
            kernel.needs_line(&ends) || kernel.quiet_under(&ends).is_none_or(|q| top > q)
        })
    };
    // The first few hundred hexes' highest top settles hilly ground before a pass over
    // the map: the map's highest is no lower.
    let first = 0..n.min(256);
    let near = first.clone().filter(|&j| j != i).map(top).max();
    if near.is_some_and(|near| acts(first, near)) {
        return false;
    }
    // The targets but `i`, in runs a thread takes whole.
    let highest = super::runs(n)
        .filter_map(|run| run.filter(|&j| j != i).map(top).max())
        .max();
    let Some(highest) = highest else {
        return false;
    };
    // Stops at the first line some cell may act on: at once on hilly ground.
    !super::runs(n).any(|run| acts(run, highest))
}

/// Per map hex, what the line from map hex `i` to it needs (all [`Need::Walk`] when
/// the family makes no promise). `i`'s own hex is always walked.
pub fn needs<K: Kernel>(
    kernel: &K,
    grid: &Grid<K::Cell, K::Side>,
    padded: &Padded,
    i: usize,
) -> Vec<Need> {
    let n = padded.hexes();
    let (axial, cells) = (padded.axial(), padded.cell());
    let cell = |j: usize| grid.cells[cells[j] as usize];
    let end = |j: usize| End {
        hex: axial[j],
        cell: cell(j),
    };
    let quiet: Vec<Option<i64>> = (0..n)
        .map(|j| {
            let ends = kernel.ends(end(i), end(j));
            // Whole-line rules may read the ends' own tops, which the table leaves out.
            let promise = !kernel.needs_line(&ends);
            kernel.quiet_under(&ends).filter(|_| promise)
        })
        .collect();
    let Some(lowest) = quiet.iter().flatten().min().copied() else {
        return vec![Need::Walk; n];
    };
    let eye = kernel.eye(&cell(i));
    // Every cell that may act, or stand at or above the eye.
    let threshold = lowest.min(eye.saturating_sub(1));
    let from = point(axial[i]);
    let offset = |j: usize| {
        let p = point(axial[j]);
        (p.0 - from.0, p.1 - from.1)
    };
    let mut table = Table::new(reach(padded));
    for j in (0..n).filter(|&j| j != i) {
        let top = kernel.top(&cell(j));
        if top > threshold {
            let (x, y) = offset(j);
            table.enter(x, y, saturate(top));
        }
    }
    table.accumulate();
    (0..n)
        .map(|j| {
            let Some(q) = quiet[j].filter(|_| j != i) else {
                return Need::Walk;
            };
            let (x, y) = offset(j);
            match table.highest(x, y) {
                Some(top) if top <= q => Need::Nothing,
                Some(top) if top < eye => Need::FirstBlock,
                _ => Need::Walk,
            }
        })
        .collect()
}
