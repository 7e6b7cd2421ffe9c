//! The sweep any kernel with level keys gets, for whole-map matrices.
//!
//! Where a kernel says a line's verdicts depend on one level alone
//! ([`Kernel::level_key`]), this sweep asks the kernel once per cell, key and
//! direction ([`Kernel::keyed_ends`]) what it does to such lines, keeps the
//! answers as bounds on the key ([`key_bounds`]), and then judges the 64 lanes
//! of one offset in one pass over the walk, whatever their keys. Everything the
//! bounds cannot settle goes to the kernel's walker lane by lane: lines whose
//! ends have no key, lines left open on walks with stretches along a hexside
//! (where a kernel may combine the two sides its own way; a hex stretch that
//! blocks still blocks), and, in a family with a hindrance limit, lines that
//! meet a hindrance on a crossed hexside (the hexes' own hindrances are added
//! up 64 lines at a time). A kernel whose verdicts do not fit bounds gets no
//! sweep, and all its lines are walked.

use super::bits::each_lane;
use super::grid::{Grid, Padded};
use super::key_bounds::{self, Bounds, Builder, KEYS_MAX, Keys, Read, Vector};
use super::lines::NO_DIR;
use super::offsets::{DqPairs, Offset, Run};
use super::walker::Walker;
use crate::hex::Hex;
use crate::rules::kernel::{
    At, End, FAR_FROM_ENDS, FarKey, Kernel, NEAR_TARGET, Notes, Quiet, Span, Sum,
};
use std::collections::HashMap;

/// One kernel's verdicts at every key, as bounds.
#[derive(PartialEq, Eq)]
struct Layers {
    /// What each cell does.
    cells: Bounds,
    /// Per direction, what the crossed hexside does (`None` on a map without features).
    sides: Option<[Bounds; 6]>,
}

/// [`Layers`] being read from a kernel, key by key.
struct LayersBuilder {
    cells: Builder,
    sides: Option<[Builder; 6]>,
}

impl LayersBuilder {
    /// Layers that keep what `read` asks of the cells (a crossed hexside's
    /// hindrances are never counted), with hexsides where the map has features.
    fn new(size: usize, sides: bool, read: Read) -> Self {
        let side_read = side_read(read);
        LayersBuilder {
            cells: Builder::new(size, read),
            sides: sides.then(|| std::array::from_fn(|_| Builder::new(size, side_read))),
        }
    }

    /// Records the kernel's verdicts on lines with ends `e`, key index `key`, at
    /// stretches `at` along the line, as `keep` reads them.
    fn record<K: Kernel>(
        &mut self,
        k: &K,
        grid: &Grid<K::Cell, K::Side>,
        (e, key, at): (&K::Ends, usize, At),
        keep: impl Fn(Sum) -> Sum,
    ) {
        let zero = Hex::new(0, 0);
        for (x, c) in grid.cells.iter().enumerate() {
            let mut n = Quiet::default();
            k.hex(e, c, at, &mut n);
            self.cells.record(key, x, keep(n.all()));
            let Some(sides) = &mut self.sides else {
                continue;
            };
            for (d, b) in (0..6u8).zip(sides.iter_mut()) {
                if let Some(side) = grid.side(x, d) {
                    let mut n = Quiet::default();
                    k.cross(e, side, zero, zero, &mut n);
                    b.record(key, x, keep(n.all()));
                }
            }
        }
    }

    /// The layers, if every verdict fits bounds.
    fn finish(self) -> Option<Layers> {
        let sides = match self.sides {
            Some(s) => {
                let s: Vec<Bounds> = s.into_iter().map(Builder::finish).collect::<Option<_>>()?;
                Some(s.try_into().ok()?)
            }
            None => None,
        };
        Some(Layers {
            cells: self.cells.finish()?,
            sides,
        })
    }
}

/// What is read of the crossed hexsides when the cells are read as `read`: a
/// crossed hexside's hindrances are never counted (such lines are walked).
fn side_read(read: Read) -> Read {
    if read == Read::Blocks {
        read
    } else {
        Read::Hindered
    }
}

/// How lines with a level key are read: their hindrances counted against the
/// family's limit where it has one.
fn keyed_read(limit: Option<u8>) -> Read {
    limit.map_or(Read::Blocks, Read::Counted)
}

/// How lines with a far key are read where the far layers can count: as keyed lines
/// are (without a limit hindrances never stop a line, so blocks only).
fn far_read(limit: Option<u8>) -> Read {
    keyed_read(limit)
}

/// What a layer does to some lanes.
#[derive(Clone, Copy, Debug, Default)]
struct Judged {
    /// Lanes a stretch or crossed hexside blocks.
    blocked: u64,
    /// Lanes whose hex stretches' hindrances add up to the limit or more.
    over: u64,
    /// Lanes a hex stretch hinders.
    by_hexes: u64,
    /// Lanes a crossed hexside hinders.
    by_sides: u64,
}

impl Layers {
    /// What the hex stretches at `hexes` and the hexsides crossed at `crosses` (by
    /// direction) do to the lanes of `keys`: blocks from both, hindrances added up
    /// over the hexes, and the lanes hindered by either.
    fn judge(
        &self,
        base0: i64,
        (hexes, crosses): (&[i64], &Crosses),
        keys: &Keys,
        read: Read,
        simd: Option<Vector>,
    ) -> Judged {
        let v = self.cells.judge(base0, hexes, keys, read, simd);
        let mut j = Judged {
            blocked: v.blocked,
            over: v.over,
            by_hexes: v.hindered,
            by_sides: 0,
        };
        if let Some(sides) = &self.sides {
            let side_read = side_read(read);
            // A line crosses hexsides in two or three of the six directions.
            for (b, at) in sides.iter().zip(crosses).filter(|(_, at)| !at.is_empty()) {
                if j.blocked == keys.mask {
                    break;
                }
                let s = b.judge(base0, at, keys, side_read, simd);
                j.blocked |= s.blocked;
                j.by_sides |= s.hindered;
            }
        }
        j
    }

    fn bytes(&self) -> usize {
        let sides = self
            .sides
            .iter()
            .flatten()
            .map(Bounds::bytes)
            .sum::<usize>();
        self.cells.bytes() + sides
    }
}

/// The hexsides a walk crosses away from any vertex, by direction, as padded-grid deltas.
type Crosses = [Vec<i64>; 6];

/// One offset's walk as the bounds read it, as padded-grid deltas.
struct Stretches {
    /// The hex stretches, in order.
    hexes: Vec<i64>,
    crosses: Crosses,
    /// Per hex stretch in order, its distances from the target and from the observer
    /// (empty where no near layer reads them).
    dist: Vec<[u32; 2]>,
    /// Hexes from the observer to the target.
    length: u32,
    /// The last [`Stretches::within`] answer, per end: (reach, first, last).
    within_memo: [std::cell::Cell<Option<(u32, usize, usize)>>; 2],
}

impl Stretches {
    /// The walk of offset `o`, whose target lies `target` away, with the stretches'
    /// distances from the ends where `near` (only the near layers read them).
    fn of<K: Kernel>(w: &Walker<K>, o: &Offset, target: Hex, near: bool) -> Self {
        let (pools, walk, sym) = (o.pools, o.walk, &w.syms[o.at.g]);
        let recs = pools.hexes_of(walk);
        let mut crosses: Crosses = Default::default();
        for c in pools.crosses_of(walk).iter().filter(|c| c.d2 == NO_DIR) {
            crosses[sym.dirs[c.d1 as usize] as usize].push(o.at.delta(c.q, c.r));
        }
        let origin = Hex::new(0, 0);
        let dist = recs
            .iter()
            .filter(|_| near)
            .map(|h| {
                let h = sym.apply(Hex::new(h.q as i32, h.r as i32));
                [h.distance(target), h.distance(origin)]
            })
            .collect();
        Stretches {
            hexes: recs.iter().map(|h| o.at.delta(h.q, h.r)).collect(),
            crosses,
            dist,
            length: target.distance(origin),
            within_memo: Default::default(),
        }
    }

    /// The index range of the hex stretches within `reach` of the target (or of the
    /// observer, where not `target`).
    fn within(&self, target: bool, reach: u32) -> std::ops::Range<usize> {
        // Asked once per group of lanes, mostly with one reach per offset.
        let memo = &self.within_memo[usize::from(target)];
        if let Some((r, first, last)) = memo.get().filter(|m| m.0 == reach) {
            debug_assert_eq!(r, reach);
            return first..last;
        }
        let range = self.scan_within(target, reach);
        memo.set(Some((reach, range.start, range.end)));
        range
    }

    /// [`Stretches::within`], worked out.
    fn scan_within(&self, target: bool, reach: u32) -> std::ops::Range<usize> {
        let near = |d: &[u32; 2]| d[usize::from(!target)] <= reach;
        let first = self.dist.iter().position(near).unwrap_or(0);
        let last = self.dist.iter().rposition(near).map_or(0, |l| l + 1);
        first..last.max(first)
    }

    /// The hex stretches within `reach` of the observer only, of the target only, of
    /// both, and the rest ([`Kernel::near_keyed`]).
    fn split(&self, reach: u32) -> [Vec<i64>; 4] {
        let mut parts: [Vec<i64>; 4] = Default::default();
        for (&x, d) in self.hexes.iter().zip(&self.dist) {
            let part = match (d[1] <= reach, d[0] <= reach) {
                (true, false) => 0,
                (false, true) => 1,
                (true, true) => 2,
                (false, false) => 3,
            };
            parts[part].push(x);
        }
        parts
    }

    /// The whole walk.
    fn all(&self) -> (&[i64], &Crosses) {
        (&self.hexes, &self.crosses)
    }

    /// The hex stretches of index range `hexes`, and every crossing.
    fn part(&self, hexes: std::ops::Range<usize>) -> (&[i64], &Crosses) {
        (&self.hexes[hexes], &self.crosses)
    }
}

/// True when every crossed hexside does the same to lines with far key `(high, low)`
/// for each higher level as to those its far layers were read from
/// ([`Kernel::far_ends`]): next to the lower end it then does nothing the far
/// bounds have not judged, and the near layers need not read crossings again.
fn sides_alike<K: Kernel>(k: &K, grid: &Grid<K::Cell, K::Side>, (low, hi): (i32, i32)) -> bool {
    let zero = Hex::new(0, 0);
    let verdict = |e: &K::Ends, s: &K::Side| {
        let mut n = Quiet::default();
        k.cross(e, s, zero, zero, &mut n);
        n.all()
    };
    let with_sides = (0..grid.cells.len()).filter(|&x| grid.side_mask[x] != 0);
    (low + 1..=hi).all(|high| {
        let (Some(near), Some(far)) = (k.near_ends(high, low), k.far_ends(high)) else {
            return false;
        };
        with_sides.clone().all(|x| {
            (0..6u8).all(|d| {
                grid.side(x, d)
                    .is_none_or(|s| verdict(&near, s) == verdict(&far, s))
            })
        })
    })
}

/// In [`LaneKey::Far`], a line walked if the far bounds leave it open.
const NO_LOW: u8 = u8::MAX;

/// How one line is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LaneKey {
    /// By its level key's index.
    Keyed(u8),
    /// By its far key's higher and lower levels' indices ([`NO_LOW`] where the line
    /// is walked if the far bounds leave it open), and whether the target is lower.
    Far(u8, u8, bool),
    /// Walked.
    Walk,
}

impl LaneKey {
    /// The key in one word: the key index, the lower level's, and a bit for each
    /// kind, so that a run's lanes are sorted without a branch ([`Lanes::of`]).
    fn pack(self) -> u32 {
        match self {
            LaneKey::Keyed(k) => u32::from(k) | 1 << 16,
            LaneKey::Far(k, low, t) => {
                let lower = u32::from(low != NO_LOW) << 20;
                u32::from(k) | u32::from(low) << 8 | 1 << 17 | u32::from(t) << 19 | lower
            }
            LaneKey::Walk => 1 << 18,
        }
    }
}

/// One run's lanes by how they are judged.
struct Lanes {
    keyed: Keys,
    far: Keys,
    /// Per far lane, its lower level's index ([`NO_LOW`] where it is walked if open).
    low: [u8; 64],
    /// Far lanes whose target is the lower end.
    target_low: u64,
    /// Far lanes with a lower level's index.
    with_low: u64,
    /// Lanes walked.
    slow: u64,
}

impl Lanes {
    /// Sorts the lanes `0..n` by their packed keys ([`LaneKey::pack`]) without a
    /// branch: the keys gathered first, then split into bytes and masks.
    #[inline]
    fn of(n: usize, packed: impl Fn(usize) -> u32) -> Self {
        // Lanes past `n` have no kind, and no lower level.
        let mut p = [u32::from(NO_LOW) << 8; 64];
        for (lane, p) in p.iter_mut().enumerate().take(n) {
            *p = packed(lane);
        }
        let key = p.map(|p| p as u8);
        let low = p.map(|p| (p >> 8) as u8);
        let [keyed, far, slow, target_low, with_low] = bit_masks(&p.map(|p| (p >> 16) as u8));
        Lanes {
            keyed: Keys { key, mask: keyed },
            far: Keys { key, mask: far },
            low,
            target_low,
            with_low,
            slow,
        }
    }
}

/// Per bit `b` of the first five, the lanes whose byte has it.
#[cfg(target_arch = "x86_64")]
fn bit_masks(bytes: &[u8; 64]) -> [u64; 5] {
    // SSE2, which every x86-64 CPU has: 16 lanes per compare and mask.
    use std::arch::x86_64::*;
    let mut out = [0u64; 5];
    for c in 0..4 {
        // SAFETY: x86-64 always has SSE2; reads 16 of the 64 bytes, unaligned.
        unsafe {
            let v = _mm_loadu_si128(bytes.as_ptr().add(16 * c).cast());
            for (b, m) in out.iter_mut().enumerate() {
                let bit = _mm_set1_epi8(1 << b);
                let has = _mm_cmpeq_epi8(_mm_and_si128(v, bit), bit);
                *m |= u64::from(_mm_movemask_epi8(has) as u16) << (16 * c);
            }
        }
    }
    out
}

/// Per bit `b` of the first five, the lanes whose byte has it.
#[cfg(not(target_arch = "x86_64"))]
fn bit_masks(bytes: &[u8; 64]) -> [u64; 5] {
    std::array::from_fn(|b| (0..64).fold(0, |m, l| m | u64::from(bytes[l] >> b & 1) << l))
}

/// The map's cells in classes of equal cells, and each pair of classes' [`LaneKey`]:
/// two loads per line instead of asking the kernel.
struct Classes {
    /// Class by padded cell (with spare cells past the grid).
    class: Vec<u8>,
    /// How many classes.
    n: usize,
    /// By observer class * `n` + target class, packed ([`LaneKey::pack`]).
    table: Vec<u32>,
}

impl Classes {
    /// The most classes the table holds.
    const MAX: usize = 256;

    /// The classes of the map's cells and their keys, where there are few enough.
    fn of<K: Kernel>(
        k: &K,
        grid: &Grid<K::Cell, K::Side>,
        p: &Padded,
        s: &LevelSweep,
    ) -> Option<Self> {
        let mut ids: HashMap<K::Cell, u8> = HashMap::new();
        let mut reps: Vec<K::Cell> = Vec::new();
        let mut class = vec![0u8; p.size + key_bounds::SPARE];
        for &x in p.cell() {
            let c = grid.cells[x as usize];
            let id = match ids.get(&c) {
                Some(&id) => id,
                None if reps.len() < Self::MAX => {
                    reps.push(c);
                    ids.insert(c, (reps.len() - 1) as u8);
                    (reps.len() - 1) as u8
                }
                None => return None,
            };
            class[x as usize] = id;
        }
        // Two different hexes, whose cells alone the keys read.
        let end = |q: i32, cell: K::Cell| End {
            hex: Hex::new(q, 0),
            cell,
        };
        let table = reps
            .iter()
            .flat_map(|&a| reps.iter().map(move |&b| (a, b)))
            .map(|(a, b)| s.lane_key(k, &k.ends(end(0, a), end(1, b))).pack())
            .collect();
        Some(Classes {
            class,
            n: reps.len(),
            table,
        })
    }

    /// The classes of the 64 cells from padded cell `x`.
    #[inline]
    fn lanes(&self, x: i64) -> &[u8; 64] {
        self.class[x as usize..][..64].try_into().expect("64 lanes")
    }

    /// The key of a line between cells of classes `a` and `b`.
    #[inline]
    fn key(&self, a: u8, b: u8) -> u32 {
        self.table[a as usize * self.n + b as usize]
    }

    fn bytes(&self) -> usize {
        self.class.len() + self.table.len() * 4
    }
}

/// A kernel's verdicts on keyed lines, as bounds on the key.
pub struct LevelSweep {
    level_min: i32,
    /// How many keys the bounds hold, from `level_min` up.
    keys: i32,
    /// On lines with a level key.
    keyed: Layers,
    /// Blocks only, far from both ends, on lines without a level key whose far key
    /// is the level (`None` where the kernel has no far keys).
    far: Option<Layers>,
    /// How the far layers are read: their hindrances counted against the limit where
    /// every cell's amounts fit bounds ([`far_read`]), else only which lanes they hinder.
    far_read: Read,
    /// The far layers are the keyed ones, read alike (the far key's level decides as
    /// a level key does, far from the ends): keyed and far lanes are then judged in
    /// one pass.
    far_is_keyed: bool,
    /// The kernel's [`Kernel::near_keyed`] reach, where the map has no hexside
    /// features: lines with a far key are then judged with the keyed bounds.
    near_keyed: Option<u32>,
    /// Per lower level of such a line, what may act next to its lower end, by its
    /// higher level: lines nothing there touches are passed without a walk (empty
    /// where the kernel has no [`Kernel::near_ends`]).
    near: Vec<Layers>,
    /// The family's hindrance limit, where hindrances matter.
    limit: Option<u8>,
    /// The vector path this CPU has.
    simd: Option<Vector>,
    /// The keys by the ends' cells, where the map has few kinds of cell.
    classes: Option<Classes>,
}

impl LevelSweep {
    /// The bounds of a kernel with level keys, or `None` for a kernel without, or
    /// whose verdicts do not fit bounds.
    pub fn of<K: Kernel>(k: &K, grid: &Grid<K::Cell, K::Side>, p: &Padded) -> Option<LevelSweep> {
        // Keys are levels of the map, or as far beyond as the kernel says.
        let (lo, hi) = k
            .map()
            .cells()
            .iter()
            .fold((i32::MAX, i32::MIN), |(a, b), c| {
                (a.min(c.level), b.max(c.level))
            });
        if lo > hi {
            return None;
        }
        let (lo, hi) = k.key_range(lo, hi);
        if lo > hi || hi as i64 - lo as i64 > KEYS_MAX as i64 {
            return None;
        }
        let limit = match k.hindrance_limit() {
            Some(l) => Some(u8::try_from(l).ok()?),
            None => None,
        };
        let sides = grid.side_mask.iter().any(|&m| m != 0);
        let new = |read: Read| LayersBuilder::new(p.size, sides, read);
        let as_is = |s: Sum| s;
        let mut keyed = new(keyed_read(limit));
        for (key, l) in (lo..=hi).enumerate() {
            keyed.record(k, grid, (&k.keyed_ends(l)?, key, FAR_FROM_ENDS), as_is);
        }
        // The far layers count hindrances where the amounts fit bounds, else they
        // only tell which lanes are hindered (and those lanes are walked).
        let far_layers = |read: Read| -> Option<Option<Layers>> {
            let mut far: Option<LayersBuilder> = None;
            for (key, l) in (lo..=hi).enumerate() {
                if let Some(fe) = k.far_ends(l) {
                    let f = far.get_or_insert_with(|| new(read));
                    f.record(k, grid, (&fe, key, FAR_FROM_ENDS), as_is);
                }
            }
            match far {
                Some(f) => f.finish().map(Some),
                None => Some(None),
            }
        };
        let counted = far_read(limit);
        let (far, far_read) = match far_layers(counted) {
            Some(f) => (f, counted),
            None => (far_layers(Read::Hindered)?, Read::Hindered),
        };
        let near = match far {
            Some(_) => {
                let layers =
                    |crossings| LayersBuilder::new(p.size, sides && crossings, Read::Blocks);
                Self::near(k, grid, (lo, hi), layers).unwrap_or_default()
            }
            None => Vec::new(),
        };
        let keyed = keyed.finish()?;
        let far_is_keyed = far_read == keyed_read(limit) && far.as_ref() == Some(&keyed);
        let mut s = LevelSweep {
            level_min: lo,
            keys: hi - lo + 1,
            near_keyed: k.near_keyed().filter(|_| keyed.sides.is_none()),
            keyed,
            far_is_keyed,
            far,
            far_read,
            near,
            limit,
            simd: Vector::best(),
            classes: None,
        };
        s.classes = Classes::of(k, grid, p, &s);
        Some(s)
    }

    /// Per lower level from `levels.0`, the kernel's verdicts next to the lower end
    /// by the higher level ([`Kernel::near_ends`]): anything that acts there counts
    /// as a block, as the line must then be walked. Crossed hexsides are read only
    /// where one acts there otherwise than far from the ends ([`sides_alike`]); `new`
    /// makes the layers, with hexsides where asked. `None` where the kernel has no
    /// near ends or its verdicts do not fit bounds.
    fn near<K: Kernel>(
        k: &K,
        grid: &Grid<K::Cell, K::Side>,
        (lo, hi): (i32, i32),
        new: impl Fn(bool) -> LayersBuilder,
    ) -> Option<Vec<Layers>> {
        let anything = |s: Sum| Sum {
            block: s.any,
            hinder: 0,
            ..s
        };
        let mut out = Vec::new();
        for low in lo..=hi {
            // Where they act alike, the far layers have judged every crossed hexside.
            let mut b = new(!sides_alike(k, grid, (low, hi)));
            // Higher levels from `low + 1`; keys at or under `low` never occur, and
            // take the verdicts of the first so as to fit bounds.
            for (key, l) in (lo..=hi).enumerate() {
                let high = l.max(low + 1).min(hi);
                if high > low {
                    b.record(
                        k,
                        grid,
                        (&k.near_ends(high, low)?, key, NEAR_TARGET),
                        anything,
                    );
                }
            }
            out.push(b.finish()?);
        }
        Some(out)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        let classes = self.classes.as_ref().map_or(0, Classes::bytes);
        let near = self.near.iter().map(Layers::bytes).sum::<usize>();
        self.keyed.bytes() + self.far.as_ref().map_or(0, Layers::bytes) + near + classes
    }

    /// How a line with ends `e` is judged: by its level key, by its far key, or walked
    /// (no key, or one beyond the bounds).
    fn lane_key<K: Kernel>(&self, k: &K, e: &K::Ends) -> LaneKey {
        let index = |l: i32| {
            let li = l.checked_sub(self.level_min)?;
            u8::try_from(li).ok().filter(|&li| (li as i32) < self.keys)
        };
        match k.level_key(e) {
            Some(l) => index(l).map_or(LaneKey::Walk, LaneKey::Keyed),
            None => match (k.far_key(e), &self.far) {
                (Some(f), Some(_)) => match index(f.high) {
                    Some(high) => {
                        // Lines with a whole-line rule are always walked.
                        let low = index(f.low).filter(|_| !k.needs_line(e) && f.low < f.high);
                        LaneKey::Far(high, low.unwrap_or(NO_LOW), f.target_low)
                    }
                    None => LaneKey::Walk,
                },
                _ => LaneKey::Walk,
            },
        }
    }

    /// Calls `seen(run, lanes)` with the lanes of each run `dr` away whose line is seen;
    /// the vector path only where `simd` (and the CPU has it).
    #[allow(clippy::too_many_arguments)]
    pub fn offset<K: Kernel>(
        &self,
        w: &Walker<K>,
        o: &Offset,
        pairs: &DqPairs,
        dr: i32,
        simd: bool,
        spans: &mut Vec<Span<K::Cell>>,
        seen: &mut dyn FnMut(&Run, u64),
    ) {
        let simd = if simd { self.simd } else { None };
        let (pools, walk) = (o.pools, o.walk);
        let k = w.kernel;
        let sides_free = pools.sides_of(walk).is_empty();
        let near = !self.near.is_empty() || self.near_keyed.is_some();
        let target = w.padded.axes().invert(Hex::new(pairs.dq, dr));
        let stretches = Stretches::of(w, o, target, near);
        let parts = self.near_keyed.map(|r| stretches.split(r));
        let cells = w.padded.cell();
        let read = keyed_read(self.limit);
        pairs.runs(dr, |run| {
            // The lanes of `lanes` the walker finds seen, one line at a time.
            let walked = |lanes: u64, spans: &mut Vec<Span<K::Cell>>| {
                let mut seen = 0;
                each_lane(lanes, |lane| {
                    let (i, j) = run.pair(lane);
                    if !w.eval::<false>(pools, walk, o.at.g, i, j, spans).blocked() {
                        seen |= 1 << lane;
                    }
                });
                seen
            };
            let base0 = cells[run.a.idx[(run.r0 - run.a.r_lo) as usize] as usize] as i64;
            let lanes = match &self.classes {
                // The ends' classes are consecutive cells, as the lanes are.
                Some(c) => {
                    let (from, to) = (c.lanes(base0), c.lanes(base0 + o.at.dt));
                    Lanes::of(run.lanes, |lane| c.key(from[lane], to[lane]))
                }
                None => Lanes::of(run.lanes, |lane| {
                    let (i, j) = run.pair(lane);
                    let c = |x: usize| {
                        let (hex, at) = w.place(x);
                        End {
                            hex,
                            cell: w.grid.cells[at],
                        }
                    };
                    self.lane_key(k, &k.ends(c(i), c(j))).pack()
                }),
            };
            let Lanes {
                keyed,
                far,
                low,
                target_low,
                with_low,
                mut slow,
            } = lanes;
            // Each stretch at its own key: the lower end's next to it, else the higher
            // end's (keyed lanes: their one key), hindrances added over all of them.
            if let Some(parts) = &parts {
                let near = far.mask & with_low;
                slow |= far.mask & !near;
                let mask = keyed.mask | near;
                let (mut sum, cells) = ([0u8; 64], &self.keyed.cells);
                // The last pass's `over` reads the sum of them all.
                let (mut blocked, mut over) = (0, 0);
                if near == 0 {
                    // Keyed lanes only: one key each, one pass.
                    let keys = Keys { mask, ..keyed };
                    let v = cells.judge_into(base0, &stretches.hexes, &keys, read, simd, &mut sum);
                    (blocked, over) = (v.blocked, v.over);
                } else {
                    let blend = |m: u64| key_bounds::blend(m, &keyed.key, &low, simd);
                    let (obs, tgt) = (blend(near & !target_low), blend(near & target_low));
                    let both = blend(near);
                    for (at, key) in parts.iter().zip([obs, tgt, both, keyed.key]) {
                        if !at.is_empty() && blocked & mask != mask {
                            let keys = Keys { key, mask };
                            let v = cells.judge_into(base0, at, &keys, read, simd, &mut sum);
                            (blocked, over) = (blocked | v.blocked, v.over);
                        }
                    }
                }
                let mut open = mask & !blocked;
                if !sides_free {
                    slow |= open;
                    open = 0;
                } else if self.limit.is_some() {
                    open &= !over;
                }
                seen(&run, open);
                seen(&run, walked(slow, spans));
                return;
            }
            // Lines without a level key: what blocks far from the ends blocks them
            // anywhere. Of the lanes left, those nothing within reach of the lower
            // end could stop are seen, unless their far count reaches the limit (or,
            // where the far layers cannot count, unless anything hinders them); the
            // rest are walked.
            // Keyed and far lanes in one pass where their layers are the same.
            let joint = (self.far_is_keyed && far.mask != 0).then(|| {
                let all = Keys {
                    mask: keyed.mask | far.mask,
                    ..keyed
                };
                self.keyed.judge(base0, stretches.all(), &all, read, simd)
            });
            if let Some(f) = self.far.as_ref().filter(|_| far.mask != 0) {
                let v = match joint {
                    Some(v) => v,
                    None => f.judge(base0, stretches.all(), &far, self.far_read, simd),
                };
                let mut open = far.mask & !v.blocked;
                if !sides_free {
                    slow |= open;
                    open = 0;
                }
                // Hindered lanes: where the far layers count, a lane nothing within
                // reach of its lower end touches has the far count as its total
                // ([`Kernel::near_reach`]); otherwise, and where they do not count,
                // it is walked.
                let hindered = open & (v.by_hexes | v.by_sides);
                if self.far_read == Read::Hindered {
                    slow |= hindered;
                    open &= !hindered;
                }
                // The far count holds the hexes' hindrances only: a lane a crossed
                // hexside hinders is walked (the near layers may not read crossings).
                slow |= open & v.by_sides;
                open &= !v.by_sides;
                let over = hindered & v.over;
                while open != 0 {
                    let first = open.trailing_zeros() as usize;
                    let (l, t) = (low[first], target_low >> first & 1);
                    let (mut same, mut high) = (0, 0);
                    each_lane(open, |lane| {
                        if low[lane] == l && target_low >> lane & 1 == t {
                            same |= 1 << lane;
                            high = high.max(far.key[lane]);
                        }
                    });
                    open &= !same;
                    let Some(near) = self.near.get(l as usize) else {
                        slow |= same;
                        continue;
                    };
                    let key = FarKey {
                        high: self.level_min + i32::from(high),
                        low: self.level_min + i32::from(l),
                        target_low: t == 1,
                    };
                    let reach = k.near_reach(key, stretches.length);
                    let lanes = Keys { mask: same, ..far };
                    // Within the reach is from the first such stretch to the last
                    // (all of them as the walk goes away from an end; the judge may
                    // take more, and the walk below only those within).
                    let hexes = stretches.within(t == 1, reach);
                    let at = stretches.part(hexes.clone());
                    let stopped = near.judge(base0, at, &lanes, Read::Blocks, simd).blocked;
                    seen(&run, same & !stopped & !over);
                    // A hindered lane that something near its lower end touches is
                    // walked whole (the near stretches' own count is not kept).
                    slow |= same & stopped & hindered;
                    let stopped = stopped & !hindered;
                    // The stopped lanes' stretches beyond the reach do nothing: only
                    // those within it are walked, unless one of them hinders.
                    let within = |a: &At| if t == 1 { a.to } else { a.from } <= reach;
                    let mut clear = 0;
                    each_lane(stopped, |lane| {
                        let (i, j) = run.pair(lane);
                        let near = (hexes.clone(), within);
                        let out = w.eval_where::<false>(pools, walk, o.at.g, (i, j), spans, near);
                        if out.hinder > 0 {
                            slow |= 1 << lane;
                        } else if !out.blocked() {
                            clear |= 1 << lane;
                        }
                    });
                    seen(&run, clear);
                }
            }
            let v = match joint {
                Some(v) => v,
                None => self.keyed.judge(base0, stretches.all(), &keyed, read, simd),
            };
            let mut open = keyed.mask & !v.blocked;
            if !sides_free {
                // A stretch along a hexside is the kernel's to combine: what the
                // bounds leave open is walked.
                slow |= open;
                open = 0;
            } else if self.limit.is_some() {
                // Hexside hindrances are walked; the hexes' own are added up here.
                let by_sides = open & v.by_sides;
                open &= !(v.over & !by_sides);
                slow |= open & by_sides;
                open &= !by_sides;
            }
            seen(&run, open);
            seen(&run, walked(slow, spans));
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::fast::Engine;

    /// The masks read each byte's bits as a lane-by-lane reading does.
    #[test]
    fn bit_masks_read_each_lane() {
        let mut x = 12345u32;
        for _ in 0..50 {
            let bytes: [u8; 64] = std::array::from_fn(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (x >> 16) as u8
            });
            let want: [u64; 5] = std::array::from_fn(|b| {
                (0..64).fold(0, |m, l| m | u64::from(bytes[l] >> b & 1) << l)
            });
            assert_eq!(super::bit_masks(&bytes), want);
        }
    }
    use crate::engine::matrix::{Control, Selection, matrix, matrix_plain};

    /// Combat Commander changed two ways: where a hexside feature also blocks every
    /// line whose lower end stands at level 0 (a crossing that does more next to such
    /// an end than far from the ends of other lines with its higher level), and
    /// where hindrances count against a limit of 3 and every hexside feature hinders
    /// (2) whatever its level.
    mod variants {
        use crate::hex::Hex;
        use crate::map::Map;
        use crate::rules::combat_commander::{Cell, Ends, Kernel as Cc};
        use crate::rules::kernel::{At, End, Explained, FarKey, Kernel, Notes, What};
        use crate::rules::registry::{Entry, Rules};
        use crate::rules::{Effect, LevelSide};

        pub struct Variant<'m> {
            cc: Cc<'m>,
            low_walls: bool,
            limit: Option<u32>,
        }

        impl Kernel for Variant<'_> {
            type Cell = Cell;
            type Side = LevelSide;
            type Ends = Ends;
            fn map(&self) -> &Map {
                self.cc.map()
            }
            fn cell(&self, h: Hex) -> Cell {
                self.cc.cell(h)
            }
            fn side(&self, a: Hex, b: Hex) -> LevelSide {
                self.cc.side(a, b)
            }
            fn ends(&self, a: End<Cell>, b: End<Cell>) -> Ends {
                self.cc.ends(a, b)
            }
            fn hex<N: Notes>(&self, e: &Ends, c: &Cell, at: At, n: &mut N) {
                self.cc.hex(e, c, at, n)
            }
            fn along_reason(
                &self,
                a: Hex,
                b: Hex,
                x: &Explained,
                y: &Explained,
                f: Effect,
            ) -> String {
                self.cc.along_reason(a, b, x, y, f)
            }
            fn cross<N: Notes>(&self, e: &Ends, s: &LevelSide, a: Hex, b: Hex, n: &mut N) {
                let low = self.cc.far_key(e).map(|f| f.low);
                if self.low_walls && low == Some(0) && s.effect(0).is_some() {
                    n.note(What::Hex, Effect::Block, false, || "a low wall".into());
                } else if self.limit.is_some() && s.effect(i32::MIN).is_some() {
                    n.note(What::Hex, Effect::Hinder(2), false, || "a hedge".into());
                } else {
                    self.cc.cross(e, s, a, b, n)
                }
            }
            fn level_key(&self, e: &Ends) -> Option<i32> {
                self.cc.level_key(e)
            }
            fn keyed_ends(&self, level: i32) -> Option<Ends> {
                self.cc.keyed_ends(level)
            }
            fn far_key(&self, e: &Ends) -> Option<FarKey> {
                self.cc.far_key(e)
            }
            fn far_ends(&self, level: i32) -> Option<Ends> {
                self.cc.far_ends(level)
            }
            fn near_ends(&self, high: i32, low: i32) -> Option<Ends> {
                self.cc.near_ends(high, low)
            }
            fn near_reach(&self, key: FarKey, length: u32) -> u32 {
                self.cc.near_reach(key, length)
            }
            fn hindrance_limit(&self) -> Option<u32> {
                self.limit
            }
            fn reciprocal(&self) -> bool {
                true
            }
            fn top(&self, c: &Cell) -> i64 {
                self.cc.top(c)
            }
            fn eye(&self, c: &Cell) -> i64 {
                self.cc.eye(c)
            }
        }

        pub struct LowWallsFamily;

        impl Rules for LowWallsFamily {
            type Kernel<'m> = Variant<'m>;
            fn kernel(map: &Map) -> Variant<'_> {
                let (low_walls, limit) = (true, None);
                Variant {
                    cc: Cc::new(map),
                    low_walls,
                    limit,
                }
            }
        }

        pub struct LimitFamily;

        impl Rules for LimitFamily {
            type Kernel<'m> = Variant<'m>;
            fn kernel(map: &Map) -> Variant<'_> {
                let (low_walls, limit) = (false, Some(3));
                Variant {
                    cc: Cc::new(map),
                    low_walls,
                    limit,
                }
            }
        }

        pub static LOW_WALLS: Entry = Entry::of::<LowWallsFamily>();
        pub static LIMIT: Entry = Entry::of::<LimitFamily>();
    }

    /// Every ordered pair of random Combat Commander maps judged by `entry`, with and
    /// without the vector path: the sweep's matrix is `entry`'s explained query.
    /// Returns how many lines `entry` judges otherwise than Combat Commander.
    fn matrices_follow(entry: &crate::rules::registry::Entry) -> usize {
        use crate::los::{line_of_sight, line_of_sight_with};
        let mut differ = 0;
        for seed in 0..4 {
            let map = crate::engine::testmaps::random_map("combat-commander", seed, 16, 12);
            let mut e = Engine::with_entry(&map, entry);
            assert!(e.has_sweep(), "seed {seed} has the level sweep");
            for simd in [true, false] {
                e.set_simd(simd);
                let m = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
                for i in 0..map.len() {
                    for j in 0..map.len() {
                        let (a, b) = (map.hex_of(i), map.hex_of(j));
                        let sees = line_of_sight_with(entry, &map, a, b).verdict.sees();
                        let (la, lb) = (map.label(a), map.label(b));
                        assert_eq!(
                            m.bits.get(i, j),
                            sees,
                            "seed {seed} simd {simd}: {la} -> {lb}"
                        );
                        differ += usize::from(sees != line_of_sight(&map, a, b).verdict.sees());
                    }
                }
            }
        }
        differ
    }

    /// In a family with a hindrance limit, lines a crossed hexside hinders are
    /// counted whole: Combat Commander whose hexside features hinder (2) at any level,
    /// with a limit of 3.
    #[test]
    fn hexsides_that_hinder_count_towards_the_limit() {
        let differ = matrices_follow(&variants::LIMIT);
        assert!(
            differ > 100,
            "the hedges and the limit change {differ} lines"
        );
    }

    /// Where a crossed hexside does more next to the lower end than the far bounds
    /// judged, the near bounds read crossings again: Combat Commander whose hexside
    /// features block every line with an end at level 0.
    #[test]
    fn crossings_that_act_next_to_the_lower_end_are_judged_there() {
        let differ = matrices_follow(&variants::LOW_WALLS);
        assert!(differ > 100, "the low walls change {differ} lines");
    }

    /// Every ordered pair of maps large enough for lines whose blind hexes lie far
    /// out, with and without the vector path: the sweep's matrix is the explained
    /// query's.
    #[test]
    fn long_lines_between_levels_are_judged_as_explained() {
        for (ruleset, seed) in [("asl", 1), ("asl", 2), ("battletech", 3), ("napoleonic", 4)] {
            let map = crate::engine::testmaps::random_map(ruleset, seed, 30, 18);
            let mut e = Engine::new(&map);
            assert!(e.has_sweep(), "{ruleset} seed {seed} has the level sweep");
            let plain = matrix_plain(&map);
            for simd in [true, false] {
                e.set_simd(simd);
                let fast = matrix(&e, &Selection::all(&map), &Control::default()).unwrap();
                assert!(fast.bits == plain, "{ruleset} seed {seed}, simd {simd}");
            }
        }
    }
}
