//! Sight-line walks precomputed once per hex offset and shared by every pair.
//!
//! A hex grid is the same everywhere: the exact walk from `a` to `a + d` is the
//! walk from the origin to `d`, moved by `a`. It is also the same under the
//! twelve symmetries of a hex around its centre (six rotations, each with or
//! without a mirror): the walk to `g·d` is `g` applied to the walk to `d`. So
//! only one walk per orbit is computed (the exact walk of [`crate::hex::HexLine`]),
//! compiled to a compact form, and every offset of the map points at its orbit's
//! walk and the symmetry that maps it. For a 250x250 map that is about 21,000
//! walks instead of 250,000, which keeps memory small next to the bit matrix.

use crate::hex::line::{Cuts, HexesToMiddle, Sides, reflected, walk_stretches};
use crate::hex::{Crossing, DIRECTIONS, Hex, Ratio, SideCrossing};
use crate::map::Map;
use rayon::prelude::*;

/// One symmetry of the hex grid about the origin, as a 2x2 integer matrix on
/// axial (`q`, `r`), with the matching permutation of the six directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// `q' = m[0] q + m[1] r`, `r' = m[2] q + m[3] r`.
    pub m: [i32; 4],
    /// `dirs[d]` is the direction that direction `d` becomes.
    pub dirs: [u8; 6],
}

impl Symmetry {
    /// Applies the symmetry to an offset.
    pub fn apply(&self, h: Hex) -> Hex {
        Hex::new(
            self.m[0] * h.q + self.m[1] * h.r,
            self.m[2] * h.q + self.m[3] * h.r,
        )
    }

    /// The index stride factors: a point (`q`, `r`) of the canonical walk lands at
    /// `q * a + r * b` in a grid where one axial `q` is `fq` cells on and one `r`
    /// is `fr` (`Padded::factors` in `engine::grid`).
    pub fn strides(&self, (fq, fr): (i64, i64)) -> (i64, i64) {
        let m = self.m.map(i64::from);
        (m[0] * fq + m[2] * fr, m[1] * fq + m[3] * fr)
    }
}

/// The twelve symmetries: rotations by 60 degrees, with and without a mirror.
pub fn symmetries() -> [Symmetry; 12] {
    let mul = |a: [i32; 4], b: [i32; 4]| {
        [
            a[0] * b[0] + a[1] * b[2],
            a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3],
        ]
    };
    // Rotation: cube (x, y, z) -> (-z, -x, -y), in axial q' = q + r, r' = -q.
    let rot = [1, 1, -1, 0];
    // Mirror: swap r and s, in axial q' = q, r' = -q - r.
    let mirror = [1, 0, -1, -1];
    let mut out = [Symmetry {
        m: [1, 0, 0, 1],
        dirs: [0; 6],
    }; 12];
    let mut m = [1, 0, 0, 1];
    for k in 0..6 {
        out[2 * k].m = m;
        out[2 * k + 1].m = mul(m, mirror);
        m = mul(rot, m);
    }
    for s in &mut out {
        for (d, &dir) in DIRECTIONS.iter().enumerate() {
            let v = s.apply(dir);
            s.dirs[d] = DIRECTIONS
                .iter()
                .position(|&x| x == v)
                .expect("symmetries permute directions") as u8;
        }
    }
    out
}

/// A hex stretch between the ends: its offset from the observer and where the
/// line enters it (`k0`), as a numerator over the walk's `den`. Where it leaves
/// is where the next stretch starts (see `Lines::hex_spans`), which keeps a
/// record at 12 bytes (packed: walks are most of the engine's memory). The
/// numerator is 64-bit because a walk's denominator, the least common multiple of
/// its three families' cut counts, passes 2^32 for some offsets beyond 1000 hexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct HexRec {
    /// Axial offset from the observer.
    pub q: i16,
    /// Axial offset from the observer.
    pub r: i16,
    /// Entry fraction numerator.
    pub k0: u64,
}

impl HexRec {
    /// The stretch in hex `h` (an offset that fits `i16`) entered at `k0`.
    fn at(h: Hex, k0: i64) -> HexRec {
        HexRec {
            q: h.q as i16,
            r: h.r as i16,
            k0: k0 as u64,
        }
    }
}

/// A stretch exactly along the hexside between hexes `a` and `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct SideRec {
    /// First hex beside the stretch (with the entry fraction).
    pub a: HexRec,
    /// Second hex beside the stretch.
    pub b: HexRec,
    /// Exit fraction numerator.
    pub k1: u64,
}

/// A hexside crossing that touches neither end: from hex (`q`, `r`) across its side
/// `d1`, or (when `d2` is set) slipping between its sides `d1` and `d2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrossRec {
    /// Axial offset of the hex the sides belong to.
    pub q: i16,
    /// Axial offset of the hex the sides belong to.
    pub r: i16,
    /// Direction of the (first) side.
    pub d1: u8,
    /// Direction of the second side, or [`NO_DIR`].
    pub d2: u8,
}

/// Marks a [`CrossRec`] that crosses one side only.
pub const NO_DIR: u8 = u8::MAX;

/// Which between-stretch is the first (or last) one the line enters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Edge {
    /// The ends are adjacent or the same hex.
    #[default]
    None,
    /// The hex stretch with this index in the walk's hexes.
    Hex(u32),
    /// The side stretch with this index in the walk's sides.
    Side(u32),
}

/// One compiled walk: ranges into the shared pools.
#[derive(Clone, Copy, Debug, Default)]
pub struct Walk {
    /// Range of hex stretches in `Lines::hexes`.
    pub hexes: (u32, u32),
    /// Range of side stretches in `Lines::sides`.
    pub sides: (u32, u32),
    /// Range of crossings in `Lines::crosses`.
    pub crosses: (u32, u32),
    /// The first between-stretch from the observer.
    pub first: Edge,
    /// The last between-stretch before the target.
    pub last: Edge,
    /// Common denominator of the `k` numerators.
    pub den: u64,
    /// Where the last between-stretch ends (the target hex begins).
    pub k_end: u64,
    /// False when the offsets did not fit the compact form; such pairs take the plain path.
    pub exact: bool,
}

impl Walk {
    /// True when every numerator fits 32 bits, as the above-the-line sweep's laid-out
    /// steps and exact `i64` products need (every walk within 1000 hexes).
    #[inline]
    pub fn narrow(&self) -> bool {
        self.den <= u64::from(u32::MAX)
    }
}

/// All walks a map needs, and the table from offset to (walk, symmetry).
#[derive(Clone, Debug)]
pub struct Lines {
    /// Compiled walks, one per orbit, [`PART`] orbits to a pool in the order met:
    /// each pool compiled by one task and kept where it was built (joining them
    /// took a fresh copy of every stretch, a tenth of a 100x100 exposure).
    parts: Vec<Pools>,
    /// The twelve symmetries.
    pub syms: [Symmetry; 12],
    q_min: i32,
    r_min: i32,
    width: usize,
    /// `walk << 4 | symmetry`, or `u32::MAX` for an offset no pair of the map has.
    table: Vec<u32>,
}

impl Lines {
    /// Compiles the walks for every offset between two hexes of `map`.
    pub fn for_map(map: &Map) -> Lines {
        // The r range of the map's hexes for each q (contiguous in both orientations).
        let (mut qlo, mut qhi) = (i32::MAX, i32::MIN);
        for h in map.hexes() {
            qlo = qlo.min(h.q);
            qhi = qhi.max(h.q);
        }
        let nq = (qhi - qlo + 1) as usize;
        let mut rr = vec![(i32::MAX, i32::MIN); nq];
        for h in map.hexes() {
            let e = &mut rr[(h.q - qlo) as usize];
            e.0 = e.0.min(h.r);
            e.1 = e.1.max(h.r);
        }
        // For each dq, the union of dr that pairs can have.
        let span = nq as i32 - 1;
        let mut dr_range = vec![(i32::MAX, i32::MIN); 2 * nq - 1];
        for a in 0..nq {
            for b in 0..nq {
                let dq = b as i32 - a as i32;
                let e = &mut dr_range[(dq + span) as usize];
                e.0 = e.0.min(rr[b].0 - rr[a].1);
                e.1 = e.1.max(rr[b].1 - rr[a].0);
            }
        }
        let r_min = dr_range.iter().map(|e| e.0).min().unwrap_or(0);
        let r_max = dr_range.iter().map(|e| e.1).max().unwrap_or(0);
        let width = (r_max - r_min + 1) as usize;
        let q_min = -span;
        let mut table = vec![u32::MAX; (2 * nq - 1) * width];
        let syms = symmetries();
        let needed = |d: Hex| {
            let i = (d.q - q_min) as usize;
            i < dr_range.len() && d.r >= dr_range[i].0 && d.r <= dr_range[i].1
        };
        let slot = |d: Hex| (d.q - q_min) as usize * width + (d.r - r_min) as usize;
        // Assign every needed offset to the first orbit member met.
        let mut canon: Vec<Hex> = Vec::new();
        for (i, &(lo, hi)) in dr_range.iter().enumerate() {
            for r in lo..=hi {
                let d = Hex::new(i as i32 + q_min, r);
                if table[slot(d)] != u32::MAX {
                    continue;
                }
                let id = canon.len() as u32;
                canon.push(d);
                for (g, s) in syms.iter().enumerate() {
                    let e = s.apply(d);
                    if needed(e) && table[slot(e)] == u32::MAX {
                        table[slot(e)] = id << 4 | g as u32;
                    }
                }
            }
        }
        // Compiled in parallel, each task into pools of its own.
        let parts: Vec<Pools> = canon
            .par_chunks(PART)
            .map(|ds| {
                let mut p = Pools::for_map(map);
                for &d in ds {
                    p.compile(d);
                }
                p.shrink_to_fit();
                p
            })
            .collect();
        Lines {
            parts,
            syms,
            q_min,
            r_min,
            width,
            table,
        }
    }

    /// The walk and symmetry index (into [`Lines::syms`]) for offset `d`, if some pair of the map has it.
    #[inline]
    pub fn lookup(&self, d: Hex) -> Option<(&Pools, &Walk, usize)> {
        let qi = (d.q - self.q_min) as usize;
        let ri = (d.r - self.r_min) as usize;
        if ri >= self.width {
            return None;
        }
        let e = *self.table.get(qi * self.width + ri)?;
        (e != u32::MAX).then(|| {
            let id = (e >> 4) as usize;
            let pools = &self.parts[id / PART];
            (pools, &pools.walks[id % PART], (e & 15) as usize)
        })
    }

    /// Bytes held, for memory estimates and reports.
    pub fn bytes(&self) -> usize {
        self.parts.iter().map(Pools::bytes).sum::<usize>() + self.table.len() * 4
    }
}

impl Pools {
    /// Bytes held by the compiled walks.
    pub fn bytes(&self) -> usize {
        self.walks.len() * size_of::<Walk>()
            + self.hexes.len() * size_of::<HexRec>()
            + self.sides.len() * size_of::<SideRec>()
            + self.crosses.len() * size_of::<CrossRec>()
    }

    /// Forgets every walk, keeping the buffers.
    pub fn clear(&mut self) {
        self.walks.clear();
        self.hexes.clear();
        self.sides.clear();
        self.crosses.clear();
    }

    /// The hex stretches of a walk.
    #[inline]
    pub fn hexes_of(&self, w: &Walk) -> &[HexRec] {
        &self.hexes[w.hexes.0 as usize..w.hexes.1 as usize]
    }

    /// The hex stretches of a walk with where each ends: `(record, k1)`.
    pub fn hex_spans<'a>(&'a self, w: &'a Walk) -> impl Iterator<Item = (HexRec, u64)> + 'a {
        let hexes = self.hexes_of(w);
        let sides = self.sides_of(w);
        let mut side = 0;
        hexes.iter().enumerate().map(move |(m, h)| {
            // The next stretch in time order: the next hex or a side stretch before it.
            while side < sides.len() && sides[side].a.k0 <= h.k0 {
                side += 1;
            }
            let next_hex = hexes.get(m + 1).map_or(w.k_end, |n| n.k0);
            let next_side = sides.get(side).map_or(u64::MAX, |s| s.a.k0);
            (*h, next_hex.min(next_side))
        })
    }

    /// The side stretches of a walk.
    #[inline]
    pub fn sides_of(&self, w: &Walk) -> &[SideRec] {
        &self.sides[w.sides.0 as usize..w.sides.1 as usize]
    }

    /// The crossings of a walk.
    #[inline]
    pub fn crosses_of(&self, w: &Walk) -> &[CrossRec] {
        &self.crosses[w.crosses.0 as usize..w.crosses.1 as usize]
    }
}

/// The first and last hex stretches of a long walk, walked before the rest: most
/// lines that are cut are cut next to one of their ends (on the hilly 500x500 map,
/// 98% of the offsets from a 10x10 zone have every line cut within 96 hexes of an
/// end), so a sweep can settle most pairs before the whole walk is compiled, and
/// compile the rest from where the ends stopped ([`Pools::compile_rest`]).
#[derive(Default)]
pub struct Ends {
    /// The walk, stopped after the first stretches.
    half: Option<HexesToMiddle>,
    /// The first hex stretches after the observer's own, one more than the ends
    /// hold (its entry is where the last one held leaves).
    first: Vec<HexRec>,
    /// Common denominator of the numerators, as the whole walk's.
    pub den: u64,
    /// The offset walked.
    d: Hex,
}

impl Ends {
    /// The first and last `n` hex stretches of the walk to `d`: true where no
    /// stretch runs along a hexside, the walk fits the compact form with 32-bit
    /// numerators ([`Walk::narrow`]) and its first `n + 1` hex stretches lie
    /// before its middle (so the ends do not meet); false otherwise. Each
    /// stretch is exactly the whole walk's: its first half is walked as
    /// [`Pools::compile`] walks it, and its second is that half reflected.
    pub fn compile(&mut self, d: Hex, n: usize) -> bool {
        self.first.clear();
        self.half = None;
        self.d = d;
        let exact = fits_exactly(d);
        if !exact || (d.distance(Hex::new(0, 0)) as usize) < 2 * n + 4 {
            return false;
        }
        let Some(mut half) = HexesToMiddle::new(d).filter(|h| h.den <= i64::from(u32::MAX)) else {
            return false;
        };
        while self.first.len() <= n {
            let Some((h, k0)) = half.next_hex() else {
                return false;
            };
            self.first.push(HexRec::at(h, k0));
        }
        self.den = half.den as u64;
        self.half = Some(half);
        true
    }

    /// How many hex stretches each end holds.
    pub fn per_end(&self) -> usize {
        self.first.len().saturating_sub(1)
    }

    /// Each hex stretch held as `(q, r, k0, k1)`: the first ones, then the last
    /// ones, in the walk's order (entry `k0` and exit `k1` over [`Ends::den`]).
    pub fn spans(&self) -> impl Iterator<Item = (i16, i16, u64, u64)> + '_ {
        let (d, n, den) = (self.d, self.per_end(), self.den);
        let head = self
            .first
            .windows(2)
            .map(|w| (w[0].q, w[0].r, w[0].k0, w[1].k0));
        // The reflection through the middle, `p -> d - p`, turns a stretch from
        // `k0` to `k1` into one from `den - k1` to `den - k0`.
        let tail = self.first[..n]
            .iter()
            .zip(&self.first[1..])
            .rev()
            .map(move |(h, next)| {
                let (q, r) = (d.q as i16 - h.q, d.r as i16 - h.r);
                (q, r, den - next.k0, den - h.k0)
            });
        head.chain(tail)
    }
}

/// True when the walk to `d` fits the compact exact form: every fraction of it is a
/// numerator over its `den` (below 2^51 for offsets that fit `i16`), and the hexes
/// it meets, within one of `d`, fit `i16` too.
fn fits_exactly(d: Hex) -> bool {
    let small = |h: Hex| i16::try_from(h.q).is_ok() && i16::try_from(h.r).is_ok();
    small(d) && small(d + Hex::new(1, 1)) && small(d - Hex::new(1, 1))
}

/// Rough bytes [`Lines::for_map`] will hold for a map of `cols` x `rows`, for the
/// memory check before a run (an overestimate: about a twelfth of all offsets,
/// each with as many stretches as its length).
pub fn estimate_bytes(cols: usize, rows: usize) -> usize {
    let offsets = (2 * cols) * (2 * rows + cols);
    let avg_len = (cols + rows) / 2 + 2;
    offsets / 12 * (avg_len * size_of::<HexRec>() + size_of::<Walk>()) + offsets * 4
}

/// Orbits compiled by one task into one [`Pools`] of [`Lines`].
const PART: usize = 64;

/// Compiled walks with their stretches, in shared pools (few allocations).
#[derive(Clone, Debug, Default)]
pub struct Pools {
    /// The walks.
    pub walks: Vec<Walk>,
    /// Hex stretch pool.
    pub hexes: Vec<HexRec>,
    /// Side stretch pool.
    pub sides: Vec<SideRec>,
    /// Crossing pool.
    pub crosses: Vec<CrossRec>,
    /// Compile no crossings: set for maps without hexside features, where every
    /// reader skips them anyway (they are read only at cells with a side,
    /// `Grid::side_mask`); one record per hex boundary crossed is saved.
    pub skip_crossings: bool,
}

impl Pools {
    /// Empty pools for walks on `map`.
    pub fn for_map(map: &Map) -> Pools {
        Pools {
            skip_crossings: map.hexsides.is_empty(),
            ..Pools::default()
        }
    }

    /// Lets go of the room the pools grew into and no walk took.
    fn shrink_to_fit(&mut self) {
        self.walks.shrink_to_fit();
        self.hexes.shrink_to_fit();
        self.sides.shrink_to_fit();
        self.crosses.shrink_to_fit();
    }
}

impl Pools {
    /// Compiles the exact walk from the origin to `d` into the pools.
    pub fn compile(&mut self, d: Hex) {
        self.compile_prefix(d, usize::MAX);
    }

    /// Compiles the walk from the origin to `d` as far as `limit` cut points: the
    /// whole walk (true), or its first stretches (false): then no stretch is the
    /// last one and the walk stops short of `d`, so a line it blocks is blocked.
    /// Where the limit reaches the middle and no crossings are wanted, only the
    /// first half is walked and the rest reflected from it (`Pools::reflect_rest`).
    pub fn compile_prefix(&mut self, d: Hex, limit: usize) -> bool {
        let origin = Hex::new(0, 0);
        let exact = fits_exactly(d);
        let halved = self.skip_crossings
            && exact
            && d.distance(origin) >= 2
            && limit >= Cuts::to_middle_count(d);
        if halved && self.compile_hexes_halved(d) {
            return true;
        }
        let mut cuts = if halved {
            Cuts::to_middle(d)
        } else {
            Cuts::new(d, limit.max(2))
        };
        let den = cuts.den;
        let k = |n: i64| if exact { n as u64 } else { 0 };
        let start = (self.hexes.len(), self.sides.len(), self.crosses.len());
        let mut walk = Walk {
            den: if exact { den as u64 } else { 1 },
            exact,
            ..Walk::default()
        };
        let is_end = |h: Hex| h == origin || h == d;
        let dir = |a: Hex, b: Hex| {
            a.direction_to(b)
                .expect("crossed hexsides join adjacent hexes") as u8
        };
        let skip_crossings = self.skip_crossings;
        let (hexes, sides, crosses) = (&mut self.hexes, &mut self.sides, &mut self.crosses);
        // The previous stretch (not a vertex), kept once the next arrives, past the
        // observer's own: the last one (the target's, or one a prefix cuts short,
        // which may go on past where the prefix stops) is never kept, so every
        // stretch kept is exactly the whole walk's.
        let mut pending: Option<(Crossing, i64, i64)> = None;
        let mut seen_first = false;
        walk_stretches(d, &mut cuts, |&c, k0, k1| {
            if let Crossing::Vertex(_) = c {
                return;
            }
            let Some((p, p0, p1)) = pending.replace((c, k0, k1)) else {
                return;
            };
            if !skip_crossings {
                let mut sides_of = Sides::after(p);
                match sides_of.next(c, Ratio::new(k0, den)) {
                    Some(SideCrossing::One(a, b, _)) if !is_end(a) && !is_end(b) => {
                        crosses.push(CrossRec {
                            q: a.q as i16,
                            r: a.r as i16,
                            d1: dir(a, b),
                            d2: NO_DIR,
                        })
                    }
                    Some(SideCrossing::Pair(a, b, cc, _))
                        if !is_end(a) && !is_end(b) && !is_end(cc) =>
                    {
                        crosses.push(CrossRec {
                            q: a.q as i16,
                            r: a.r as i16,
                            d1: dir(a, b),
                            d2: dir(a, cc),
                        })
                    }
                    _ => {}
                }
            }
            if std::mem::replace(&mut seen_first, true) {
                keep(hexes, sides, start, &mut walk, p, k(p0), k(p1));
            }
        });
        if halved {
            let middle = pending
                .expect("a walk past a neighbour reaches its middle after its first stretch");
            self.reflect_rest(d, middle, start, &mut walk);
        }
        let range = |from: usize, to: usize| (from as u32, to as u32);
        walk.hexes = range(start.0, self.hexes.len());
        walk.sides = range(start.1, self.sides.len());
        walk.crosses = range(start.2, self.crosses.len());
        let whole = cuts.whole || halved;
        if !whole {
            walk.last = Edge::None;
        }
        self.walks.push(walk);
        whole
    }

    /// Compiles the walk to `d`, from its first half walked as hexes alone
    /// ([`HexesToMiddle`]), where no stretch runs along a hexside; false (and
    /// nothing compiled) where one may.
    fn compile_hexes_halved(&mut self, d: Hex) -> bool {
        let Some(mut half) = HexesToMiddle::new(d) else {
            return false;
        };
        self.compile_halved(&[], &mut half);
        true
    }

    /// Compiles the whole walk whose `ends` were compiled ([`Ends::compile`] true),
    /// walking on from where they stopped. Its hex stretches begin and end with
    /// those the ends hold, and it has no side stretches.
    pub fn compile_rest(&mut self, ends: &mut Ends) {
        let half = ends.half.as_mut().expect("ends compiled");
        self.compile_halved(&ends.first, half);
    }

    /// Compiles the walk `half` walks, whose first hex stretches `walked` it has
    /// given already: on to its middle, and the rest reflected.
    fn compile_halved(&mut self, walked: &[HexRec], half: &mut HexesToMiddle) {
        let start = (self.hexes.len(), self.sides.len(), self.crosses.len());
        let hexes = &mut self.hexes;
        hexes.extend_from_slice(walked);
        while let Some((h, k0)) = half.next_hex() {
            hexes.push(HexRec::at(h, k0));
        }
        let mut walk = Walk {
            den: half.den as u64,
            exact: true,
            ..Walk::default()
        };
        if self.hexes.len() > start.0 {
            walk.first = Edge::Hex(0);
        }
        let (h, k0, k1) = half.middle();
        self.reflect_rest(half.d(), (Crossing::Hex(h), k0, k1), start, &mut walk);
        let range = |from: usize, to: usize| (from as u32, to as u32);
        walk.hexes = range(start.0, self.hexes.len());
        walk.sides = range(start.1, self.sides.len());
        walk.crosses = range(start.2, self.crosses.len());
        self.walks.push(walk);
    }

    /// Completes a walk to `d` walked to its middle: the records so far, then
    /// `middle` (the stretch the midpoint lies in or ends), then the records
    /// reflected through the midpoint in reverse order ([`reflected`]).
    fn reflect_rest(
        &mut self,
        d: Hex,
        middle: (Crossing, i64, i64),
        start: (usize, usize, usize),
        walk: &mut Walk,
    ) {
        let den = walk.den as i64;
        let (hexes, sides) = (&mut self.hexes, &mut self.sides);
        let (end_h, end_s) = (hexes.len(), sides.len());
        let (c, k0, k1) = middle;
        // Keeps the image of stretch `c` from `k0` to `k1`.
        let keep_image =
            |hexes: &mut Vec<HexRec>, sides: &mut Vec<SideRec>, walk: &mut Walk, c, k0, k1| {
                let image = reflected(d, c, k0, k1, den);
                keep(
                    hexes,
                    sides,
                    start,
                    walk,
                    image,
                    (den - k1) as u64,
                    (den - k0) as u64,
                );
            };
        if reflected(d, c, k0, k1, den) == c {
            // The midpoint lies inside the stretch, which is its own image.
            keep(hexes, sides, start, walk, c, k0 as u64, (den - k0) as u64);
        } else {
            debug_assert_eq!(
                2 * k1,
                den,
                "a stretch not its own image ends at the middle"
            );
            keep(hexes, sides, start, walk, c, k0 as u64, k1 as u64);
            keep_image(hexes, sides, walk, c, k0, k1);
        }
        // The first half's records, latest first, each ending where the next began.
        let mut next = k0;
        if end_s == start.1 && end_h > start.0 {
            // Hexes alone (most walks): reflected in one tight loop.
            let (dq, dr) = (d.q as i16, d.r as i16);
            hexes.reserve(end_h - start.0);
            for m in (start.0..end_h).rev() {
                let r = hexes[m];
                hexes.push(HexRec {
                    q: dq - r.q,
                    r: dr - r.r,
                    k0: (den - next) as u64,
                });
                next = r.k0 as i64;
            }
            walk.last = Edge::Hex((hexes.len() - 1 - start.0) as u32);
            walk.k_end = (den - next) as u64;
            return;
        }
        let (mut h, mut s) = (end_h, end_s);
        while h > start.0 || s > start.1 {
            let side = s > start.1 && (h == start.0 || sides[s - 1].a.k0 > hexes[h - 1].k0);
            let (c, k0, k1) = if side {
                s -= 1;
                let r = sides[s];
                let c = Crossing::Side(
                    Hex::new(r.a.q.into(), r.a.r.into()),
                    Hex::new(r.b.q.into(), r.b.r.into()),
                );
                (c, r.a.k0 as i64, r.k1 as i64)
            } else {
                h -= 1;
                let r = hexes[h];
                (
                    Crossing::Hex(Hex::new(r.q.into(), r.r.into())),
                    r.k0 as i64,
                    next,
                )
            };
            next = k0;
            keep_image(hexes, sides, walk, c, k0, k1);
        }
    }
}

/// Keeps one stretch between the ends of `walk`: its record, and the walk's first
/// and last stretch and where the last ends.
fn keep(
    hexes: &mut Vec<HexRec>,
    sides: &mut Vec<SideRec>,
    start: (usize, usize, usize),
    walk: &mut Walk,
    c: Crossing,
    k0: u64,
    k1: u64,
) {
    let rec = |h: Hex| HexRec {
        q: h.q as i16,
        r: h.r as i16,
        k0,
    };
    let e = match c {
        Crossing::Hex(h) => {
            hexes.push(rec(h));
            Edge::Hex((hexes.len() - 1 - start.0) as u32)
        }
        Crossing::Side(a, b) => {
            sides.push(SideRec {
                a: rec(a),
                b: rec(b),
                k1,
            });
            Edge::Side((sides.len() - 1 - start.1) as u32)
        }
        Crossing::Vertex(_) => unreachable!("vertices are never kept"),
    };
    if walk.first == Edge::None {
        walk.first = e;
    }
    walk.last = e;
    walk.k_end = k1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::{HexLine, Step};

    fn transformed(s: &Symmetry, steps: &[Step]) -> Vec<Step> {
        steps
            .iter()
            .map(|st| Step {
                crossing: match st.crossing {
                    Crossing::Hex(h) => Crossing::Hex(s.apply(h)),
                    Crossing::Side(a, b) => Crossing::Side(s.apply(a), s.apply(b)),
                    Crossing::Vertex(v) => Crossing::Vertex(v.map(|h| s.apply(h))),
                },
                ..*st
            })
            .collect()
    }

    fn norm(c: Crossing) -> Crossing {
        match c {
            Crossing::Side(x, y) => Crossing::Side(x.min(y), x.max(y)),
            Crossing::Vertex(mut v) => {
                v.sort();
                Crossing::Vertex(v)
            }
            h => h,
        }
    }

    /// A walk's ends are the whole walk's first and last hex stretches with their
    /// entries and exits, and the walk compiled on from them is the walk compiled
    /// whole, for every offset within 40 (where the ends fit) and far ones.
    #[test]
    fn ends_are_the_whole_walks_first_and_last_stretches() {
        let far = [Hex::new(301, -17), Hex::new(-250, 499), Hex::new(640, -3)];
        let near = (-40..=40).flat_map(|q| (-40..=40).map(move |r| Hex::new(q, r)));
        let (mut ends, mut taken) = (Ends::default(), 0);
        for d in near.chain(far) {
            for n in [1, 3, 8] {
                let mut whole = Pools {
                    skip_crossings: true,
                    ..Pools::default()
                };
                whole.compile(d);
                let w = whole.walks[0];
                if !ends.compile(d, n) {
                    let long = d.distance(Hex::new(0, 0)) as usize >= 2 * n + 4;
                    assert!(
                        !long || !whole.sides_of(&w).is_empty() || !w.narrow(),
                        "{d:?}"
                    );
                    continue;
                }
                taken += 1;
                assert_eq!(ends.per_end(), n);
                assert!(
                    whole.sides_of(&w).is_empty(),
                    "{d:?}: ends of a walk of hexes"
                );
                assert_eq!(ends.den, w.den, "{d:?}");
                let spans: Vec<_> = whole
                    .hex_spans(&w)
                    .map(|(h, k1)| (h.q, h.r, h.k0, k1))
                    .collect();
                let want: Vec<_> = spans[..n]
                    .iter()
                    .chain(&spans[spans.len() - n..])
                    .copied()
                    .collect();
                assert_eq!(ends.spans().collect::<Vec<_>>(), want, "{d:?} ends {n}");
                let mut rest = Pools::default();
                rest.compile_rest(&mut ends);
                let v = rest.walks[0];
                assert_eq!(rest.hexes_of(&v), whole.hexes_of(&w), "{d:?}");
                assert_eq!(
                    (v.den, v.k_end, v.first, v.last),
                    (w.den, w.k_end, w.first, w.last)
                );
            }
        }
        assert!(taken > 10_000, "ends taken for {taken} offsets");
    }

    #[test]
    fn the_twelve_symmetries_are_distinct_and_map_walks_onto_walks() {
        let syms = symmetries();
        for (i, a) in syms.iter().enumerate() {
            for b in &syms[i + 1..] {
                assert_ne!(a.m, b.m);
            }
        }
        for q in -7..=7 {
            for r in -7..=7 {
                let d = Hex::new(q, r);
                let base = HexLine::new(Hex::new(0, 0), d);
                for s in &syms {
                    let want = HexLine::new(Hex::new(0, 0), s.apply(d));
                    let got = transformed(s, &base.steps);
                    let a: Vec<_> = got.iter().map(|x| (norm(x.crossing), x.t0, x.t1)).collect();
                    let b: Vec<_> = want
                        .steps
                        .iter()
                        .map(|x| (norm(x.crossing), x.t0, x.t1))
                        .collect();
                    assert_eq!(a, b, "offset {d:?} under {:?}", s.m);
                    for dir in 0..6 {
                        assert_eq!(s.apply(DIRECTIONS[dir]), DIRECTIONS[s.dirs[dir] as usize]);
                    }
                }
            }
        }
    }

    /// Every offset between two hexes of a map whose orbits fill several
    /// [`PART`]s looks up the walk of its own orbit, mapped by its symmetry: the
    /// records of the canonical offset's walk compiled afresh.
    #[test]
    fn every_offset_of_a_map_looks_up_its_own_walk() {
        let map = crate::engine::testmaps::random_map("geometric", 3, 30, 24);
        let lines = Lines::for_map(&map);
        assert!(lines.parts.len() > 2, "{} parts", lines.parts.len());
        let hexes: Vec<Hex> = map.hexes().collect();
        let mut offsets: Vec<Hex> = hexes
            .iter()
            .flat_map(|&a| hexes.iter().map(move |&b| b - a))
            .collect();
        offsets.sort_by_key(|d| (d.q, d.r));
        offsets.dedup();
        let syms = symmetries();
        let (x, y) = (Hex::new(1, 0), Hex::new(0, 1));
        let mut fresh = Pools::for_map(&map);
        for d in offsets {
            let (pools, walk, g) = lines.lookup(d).expect("every offset of the map");
            let inverse = syms
                .iter()
                .find(|h| h.apply(syms[g].apply(x)) == x && h.apply(syms[g].apply(y)) == y)
                .expect("the symmetries form a group");
            let c = inverse.apply(d);
            assert_eq!(syms[g].apply(c), d);
            fresh.clear();
            fresh.compile(c);
            let want = &fresh.walks[0];
            assert_eq!(pools.hexes_of(walk), fresh.hexes_of(want), "offset {d:?}");
            assert_eq!(pools.sides_of(walk), fresh.sides_of(want), "offset {d:?}");
            assert_eq!(
                (walk.den, walk.k_end),
                (want.den, want.k_end),
                "offset {d:?}"
            );
        }
    }

    /// The walk of `d` as compiled by `pools`: its records, edges and end.
    fn compiled(pools: &mut Pools, d: Hex) -> (Vec<HexRec>, Vec<SideRec>, Edge, Edge, u64, u64) {
        pools.clear();
        assert!(pools.compile_prefix(d, usize::MAX), "{d:?} whole");
        let w = pools.walks[0];
        let (h, s) = (pools.hexes_of(&w).to_vec(), pools.sides_of(&w).to_vec());
        (h, s, w.first, w.last, w.k_end, w.den)
    }

    /// The reflected second half equals the walked one, record for record, for
    /// every offset within 40 and far ones in every direction, including lines
    /// along hexsides and through vertices and centres.
    #[test]
    fn a_walk_reflected_from_its_middle_equals_the_whole_walk() {
        let mut halved = Pools {
            skip_crossings: true,
            ..Pools::default()
        };
        // With crossings the walk is never halved.
        let mut whole = Pools::default();
        let mut offsets: Vec<Hex> = Vec::new();
        for q in -40..=40 {
            for r in -40..=40 {
                offsets.push(Hex::new(q, r));
            }
        }
        for k in 1..=60 {
            offsets.push(Hex::new(17 * k, -5 * k - 3));
            offsets.push(Hex::new(-11 * k - 1, 23 * k));
            offsets.push(Hex::new(25 * k, 25 * k));
            offsets.push(Hex::new(-31 * k, 62 * k + 1));
        }
        for d in offsets {
            assert_eq!(
                compiled(&mut halved, d),
                compiled(&mut whole, d),
                "offset {d:?}"
            );
        }
        // A prefix too short to reach the middle is not halved.
        halved.clear();
        assert!(!halved.compile_prefix(Hex::new(30, 7), 5));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// The same for long walks in any direction (the hex by hex walk to the
        /// middle against the walk of every cut).
        #[test]
        fn long_walks_reflected_from_their_middle_equal_the_whole_walk(
            q in -3000i32..3000,
            r in -3000i32..3000,
        ) {
            let d = Hex::new(q, r);
            let mut halved = Pools { skip_crossings: true, ..Pools::default() };
            let mut whole = Pools::default();
            proptest::prop_assert_eq!(compiled(&mut halved, d), compiled(&mut whole, d), "offset {:?}", d);
        }
    }
}
