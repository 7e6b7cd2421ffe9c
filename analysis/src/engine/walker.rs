//! A family's kernel over a compiled walk: one pair's verdict without building its line.
//!
//! This is the engine's general path, and every family has it: it asks the same
//! [`Kernel`] functions as the explained query, stretch by stretch, with
//! [`Quiet`] notes, reading cells from the padded grid instead of the map. The
//! whole-map sweeps (bitsets per level, vector thresholds) are
//! derived from the kernels or checked against this path.

use super::grid::{Grid, Padded};
use super::lines::{Edge, NO_DIR, Pools, Symmetry, Walk};
use crate::hex::{DIRECTIONS, Hex, Ratio};
use crate::rules::kernel::{At, End, Kernel, LineEvent, Notes, Quiet, Span, Sum};

/// What one pair's line comes to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Something blocks (a hindrance limit aside).
    pub block: bool,
    /// A blocker stands at or above the observer's eye (only looked for when asked).
    pub high: bool,
    /// The hindrance total.
    pub hinder: u32,
    /// The hindrance total reaches the family's limit.
    pub limit: bool,
}

impl Outcome {
    /// True when the target is not seen.
    #[inline]
    pub fn blocked(&self) -> bool {
        self.block || self.limit
    }

    /// Blocked only by blockers lower than the observer's eye: a blind hex.
    #[inline]
    pub fn blind(&self) -> bool {
        self.block && !self.high
    }
}

/// Everything a walk needs to be evaluated for pairs of one map.
pub struct Walker<'a, K: Kernel> {
    /// The family's kernel.
    pub kernel: &'a K,
    /// Its cells and sides in the padded grid.
    pub grid: &'a Grid<K::Cell, K::Side>,
    /// The padded grid.
    pub padded: &'a Padded,
    /// The twelve symmetries.
    pub syms: &'a [Symmetry; 12],
    /// Per symmetry, the index factors for the padded grid.
    pub factors: &'a [(i64, i64); 12],
    /// The kernel's hindrance limit, asked once (families read it from the ruleset).
    pub limit: Option<u32>,
    /// The padded grid's laid-out tables, if laid out when the walker was made
    /// ([`Padded::laid_out`]).
    pub laid: Option<(&'a [Hex], &'a [u32])>,
}

impl<K: Kernel> Walker<'_, K> {
    /// Axial coordinates and grid index of map hex `i`.
    #[inline]
    pub fn place(&self, i: usize) -> (Hex, usize) {
        self.padded.place_in(self.laid, i)
    }

    /// The outcome for observer `i` and target `j` (map indices, `i != j`) whose offset
    /// is `walk` (exact) under symmetry `g`. With `BLIND`, the walk goes on past low
    /// blockers to find out whether a high one stands behind them.
    #[inline]
    pub fn eval<const BLIND: bool>(
        &self,
        pools: &Pools,
        walk: &Walk,
        g: usize,
        i: usize,
        j: usize,
        spans: &mut Vec<Span<K::Cell>>,
    ) -> Outcome {
        let all = 0..usize::MAX;
        self.eval_where::<BLIND>(pools, walk, g, (i, j), spans, (all, |_| true))
    }

    /// [`Walker::eval`] judging only the hex stretches of index range `hexes` for
    /// which `keep` holds (everything else as in the whole walk): for lines whose
    /// other hex stretches a caller knows do nothing.
    #[inline(always)]
    pub fn eval_where<const BLIND: bool>(
        &self,
        pools: &Pools,
        walk: &Walk,
        g: usize,
        (i, j): (usize, usize),
        spans: &mut Vec<Span<K::Cell>>,
        (hexes, keep): (std::ops::Range<usize>, impl Fn(&At) -> bool),
    ) -> Outcome {
        let (k, grid, p) = (self.kernel, self.grid, self.padded);
        let sym = &self.syms[g];
        let (fa, fb) = self.factors[g];
        let ((from, base), (to, target)) = (self.place(i), self.place(j));
        let base = base as i64;
        let origin = grid.cells[base as usize];
        let ends = k.ends(
            End {
                hex: from,
                cell: origin,
            },
            End {
                hex: to,
                cell: grid.cells[target],
            },
        );
        let eye = if BLIND { k.eye(&origin) } else { 0 };
        let cell_at = |q: i16, r: i16| (base + fa * q as i64 + fb * r as i64) as usize;
        let hex_at = |q: i16, r: i16| from + sym.apply(Hex::new(q as i32, r as i32));
        let den = walk.den as i64;
        let at = |h: Hex, k0: u64, k1: u64, e: Edge| At {
            hex: h,
            t0: Ratio {
                num: k0 as i64,
                den,
            },
            t1: Ratio {
                num: k1 as i64,
                den,
            },
            from: from.distance(h),
            to: h.distance(to),
            first: walk.first == e,
            last: walk.last == e,
        };
        let mut out = Outcome::default();
        let stretches = pools.hex_spans(walk).enumerate();
        for (n, (rec, k1)) in stretches.skip(hexes.start).take(hexes.len()) {
            let x = cell_at(rec.q, rec.r);
            let mut notes = Quiet::default();
            let h = hex_at(rec.q, rec.r);
            let at = at(h, rec.k0, k1, Edge::Hex(n as u32));
            if !keep(&at) {
                continue;
            }
            k.hex(&ends, &grid.cells[x], at, &mut notes);
            if take::<BLIND>(&mut out, notes.all(), eye, || k.top(&grid.cells[x])) {
                return out;
            }
        }
        for (n, s) in pools.sides_of(walk).iter().enumerate() {
            let (xa, xb) = (cell_at(s.a.q, s.a.r), cell_at(s.b.q, s.b.r));
            let e = Edge::Side(n as u32);
            let (mut na, mut nb) = (Quiet::default(), Quiet::default());
            let (ha, hb) = (hex_at(s.a.q, s.a.r), hex_at(s.b.q, s.b.r));
            k.hex(&ends, &grid.cells[xa], at(ha, s.a.k0, s.k1, e), &mut na);
            k.hex(&ends, &grid.cells[xb], at(hb, s.b.k0, s.k1, e), &mut nb);
            let mut sum = Sum::default();
            if let Some(effect) = k.along(&ends, &na, &nb) {
                sum.add(effect);
            }
            let top = || k.top(&grid.cells[xa]).max(k.top(&grid.cells[xb]));
            if take::<BLIND>(&mut out, sum, eye, top) {
                return out;
            }
        }
        let step = |d: u8| p.delta(DIRECTIONS[d as usize]);
        for c in pools.crosses_of(walk) {
            let x = cell_at(c.q, c.r);
            if grid.side_mask[x] == 0 {
                continue;
            }
            let a = hex_at(c.q, c.r);
            let judge = |d: u8| {
                grid.side(x, d).map(|s| {
                    let mut n = Quiet::default();
                    k.cross(&ends, s, a, a + DIRECTIONS[d as usize], &mut n);
                    n.all()
                })
            };
            let d1 = sym.dirs[c.d1 as usize];
            let mut sum = Sum::default();
            let top = |ds: &[u8]| {
                ds.iter().fold(k.top(&grid.cells[x]), |t, &d| {
                    t.max(k.top(&grid.cells[(x as i64 + step(d)) as usize]))
                })
            };
            if c.d2 == NO_DIR {
                let Some(s) = judge(d1) else { continue };
                sum = s;
                if take::<BLIND>(&mut out, sum, eye, || top(&[d1])) {
                    return out;
                }
            } else {
                let d2 = sym.dirs[c.d2 as usize];
                let (x1, x2) = (judge(d1), judge(d2));
                if let Some(effect) = k.pair(x1.and_then(Sum::effect), x2.and_then(Sum::effect)) {
                    sum.add(effect);
                }
                if take::<BLIND>(&mut out, sum, eye, || top(&[d1, d2])) {
                    return out;
                }
            }
        }
        if k.needs_line(&ends) {
            self.spans(pools, walk, g, i, j, spans);
            let mut events: Vec<LineEvent> = Vec::new();
            k.line(&ends, spans, false, &mut |e| events.push(e));
            for e in events {
                let mut sum = Sum::default();
                sum.add(e.effect);
                let end = if e.at_target { target } else { base as usize };
                if take::<BLIND>(&mut out, sum, eye, || k.top(&grid.cells[end])) {
                    return out;
                }
            }
        }
        if let Some(limit) = self.limit
            && out.hinder >= limit
        {
            out.limit = true;
        }
        out
    }

    /// The whole line of pair (`i`, `j`) in order, ends included, into `out`.
    fn spans(
        &self,
        pools: &Pools,
        walk: &Walk,
        g: usize,
        i: usize,
        j: usize,
        out: &mut Vec<Span<K::Cell>>,
    ) {
        let grid = self.grid;
        let sym = &self.syms[g];
        let (fa, fb) = self.factors[g];
        let (from, base) = self.place(i);
        let base = base as i64;
        let cell = |q: i16, r: i16| grid.cells[(base + fa * q as i64 + fb * r as i64) as usize];
        let hex = |q: i16, r: i16| from + sym.apply(Hex::new(q as i32, r as i32));
        let end = |x: usize| {
            let (h, at) = self.place(x);
            let c = grid.cells[at];
            Span {
                a: h,
                b: h,
                cells: [c, c],
                side: false,
            }
        };
        out.clear();
        out.push(end(i));
        let (hexes, sides) = (pools.hexes_of(walk), pools.sides_of(walk));
        let (mut h, mut s) = (0, 0);
        while h < hexes.len() || s < sides.len() {
            let take_side = s < sides.len() && (h == hexes.len() || sides[s].a.k0 < hexes[h].k0);
            if take_side {
                let r = &sides[s];
                out.push(Span {
                    a: hex(r.a.q, r.a.r),
                    b: hex(r.b.q, r.b.r),
                    cells: [cell(r.a.q, r.a.r), cell(r.b.q, r.b.r)],
                    side: true,
                });
                s += 1;
            } else {
                let r = &hexes[h];
                let c = cell(r.q, r.r);
                let at = hex(r.q, r.r);
                out.push(Span {
                    a: at,
                    b: at,
                    cells: [c, c],
                    side: false,
                });
                h += 1;
            }
        }
        out.push(end(j));
    }
}

/// Adds one stretch's sum to `out`; true when the walk may stop (at the first block,
/// or with `BLIND` at the first block at or above `eye`).
#[inline]
fn take<const BLIND: bool>(
    out: &mut Outcome,
    sum: Sum,
    eye: i64,
    top: impl FnOnce() -> i64,
) -> bool {
    if sum.block {
        out.block = true;
        if !BLIND {
            return true;
        }
        if top() >= eye {
            out.high = true;
            return true;
        }
    } else {
        out.hinder = out.hinder.saturating_add(sum.hinder);
    }
    false
}

/// An outcome's hindrance total as the engine keeps it: [`BLOCK`] when blocked.
#[inline]
pub fn total(o: &Outcome) -> u32 {
    if o.blocked() {
        BLOCK
    } else {
        o.hinder.min(BLOCK - 1)
    }
}

/// A blocked line's "hindrance", so a sum can never be mistaken for it.
pub const BLOCK: u32 = u32::MAX;
