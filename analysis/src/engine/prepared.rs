//! One family's kernel prepared on one map: the kernel, its grid, and the sweeps
//! its declarations earn, behind one object-safe trait.
//!
//! [`super::fast::Engine`] holds a `Box<dyn Prepared>` chosen once per request
//! through the family's registry entry ([`crate::rules::registry`]); everything
//! below it is generic over the kernel, so the per-pair loops run monomorphised.
//! Which sweep a kernel gets comes from what it declares: a top above the sight
//! line ([`Kernel::blocks_above_line`]) earns the [`AboveSweep`], level keys
//! ([`Kernel::level_key`], [`Kernel::far_key`]) the [`LevelSweep`]; any other
//! kernel is walked line by line.

use super::above_sweep::{AboveSweep, OffsetScratch};
use super::grid::{Grid, Padded};
use super::level_sweep::LevelSweep;
use super::lines::{Ends, Pools, Symmetry, Walk};
use super::needs::{Need, Needs};
use super::offsets::{DqPairs, Offset, Place, Run};
use super::vector;
use super::walker::{Outcome, Walker};
use crate::map::Map;
use crate::rules::kernel::{End, Kernel};
use crate::rules::registry::{Entry, Rules};
use std::sync::OnceLock;

/// What the engine shares with its prepared kernel for one call.
pub(crate) struct Frame<'a> {
    /// The map.
    pub map: &'a Map,
    /// The family's entry (for the explained query of pairs the walks cannot hold).
    pub entry: &'a Entry,
    /// The padded grid.
    pub padded: &'a Padded,
    /// The twelve symmetries.
    pub syms: &'a [Symmetry; 12],
    /// Per symmetry, the index factors for the padded grid.
    pub factors: &'a [(i64, i64); 12],
    /// Whether the vector paths may run (each also needs the CPU to have its
    /// instructions).
    pub simd: bool,
}

impl Frame<'_> {
    /// Whether the vector paths run here: allowed, and the CPU has some.
    fn vectors(&self) -> bool {
        self.simd && vector::available()
    }
}

/// A pair left to settle: observer, target and the symmetry of its walk.
pub(crate) type Pending = (usize, usize, usize);

/// One family's kernel on one map, as the engine asks it: one call per request,
/// per offset or per batch of pairs, never a dynamic call per pair of a sweep.
pub(crate) trait Prepared: Send + Sync {
    /// True when `a -> b` always has the verdict of `b -> a`.
    fn reciprocal(&self) -> bool;
    /// True when a whole-map sweep serves this map (built on first use).
    fn has_sweep(&self, f: &Frame) -> bool;
    /// True when the kernel [blocks above the line](Kernel::blocks_above_line), so
    /// that a viewshed is settled from tables of slopes.
    fn blocks_above_line(&self) -> bool;
    /// Per map hex, what the line from `i` needs to be settled in a viewshed.
    fn viewshed_needs(&self, f: &Frame, i: usize) -> Needs;
    /// Bytes of the grid and of the sweeps built so far.
    fn bytes(&self) -> usize;
    /// The outcome of pair (`i`, `j`) (`i != j`) whose offset has the exact `walk`
    /// under symmetry `g`; with `blind`, whether a blocker stands at or above the eye.
    fn outcome(
        &self,
        f: &Frame,
        walk: (&Pools, &Walk, usize),
        ij: (usize, usize),
        blind: bool,
    ) -> Outcome;
    /// Settles the pairs of `pending` that `walk` (compiled whole where `complete`,
    /// else a prefix) decides, moving them with their outcomes to `settled`: blocked
    /// ones (with `blind`, blocked at or above the eye), or all where `complete`.
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &self,
        f: &Frame,
        pools: &Pools,
        walk: &Walk,
        complete: bool,
        blind: bool,
        pending: &mut Vec<Pending>,
        settled: &mut Vec<(usize, usize, Outcome)>,
    );
    /// Calls `seen(run, lanes)` with the lanes of each run `dr` away whose line is seen, `o`
    /// being an exact walk: the kernel's sweep where it has one, else its walker.
    /// Where `open` is given (after [`Prepared::sweep_ends`]), only of the lanes its
    /// masks hold (one per run, in order), which its first and last so many hex
    /// stretches were found not to cut.
    #[allow(clippy::too_many_arguments)]
    fn sweep_offset(
        &self,
        f: &Frame,
        o: &Offset,
        pairs: &DqPairs,
        dr: i32,
        scratch: &mut OffsetScratch,
        open: Option<(&[u64], usize)>,
        seen: &mut dyn FnMut(&Run, u64),
    );
    /// True when the kernel's sweep takes the ends of walks first
    /// ([`Prepared::sweep_ends`]): the above-the-line one.
    fn takes_ends(&self, f: &Frame) -> bool;
    /// Pushes to `clear`, for each run `dr` away in order, the lanes whose line no
    /// stretch of `ends` cuts, where the kernel [takes ends](Prepared::takes_ends).
    #[allow(clippy::too_many_arguments)]
    fn sweep_ends(
        &self,
        f: &Frame,
        at: &Place,
        ends: &Ends,
        pairs: &DqPairs,
        dr: i32,
        scratch: &mut OffsetScratch,
        clear: &mut Vec<u64>,
    );
}

/// A kernel laid into the padded grid, with the sweeps its declarations earn.
struct Kernelled<K: Kernel> {
    kernel: K,
    grid: Grid<K::Cell, K::Side>,
    /// Built on first use: viewsheds never need it.
    above: OnceLock<Option<AboveSweep>>,
    /// Built on first use: viewsheds never need it.
    level: OnceLock<Option<LevelSweep>>,
    /// Built on the first viewshed by tables of slopes.
    ground: OnceLock<super::horizon::Ground>,
}

/// A family's kernel prepared on a map: what [`Entry::of`] registers.
pub(crate) fn prepare<'m, R: Rules>(map: &'m Map, padded: &Padded) -> Box<dyn Prepared + 'm> {
    let kernel = R::kernel(map);
    let grid = Grid::of(&kernel, padded);
    Box::new(Kernelled {
        kernel,
        grid,
        above: OnceLock::new(),
        level: OnceLock::new(),
        ground: OnceLock::new(),
    })
}

impl<K: Kernel> Kernelled<K> {
    /// The walker over the engine's grid.
    fn walker<'a>(&'a self, f: &'a Frame) -> Walker<'a, K> {
        Walker {
            kernel: &self.kernel,
            grid: &self.grid,
            padded: f.padded,
            syms: f.syms,
            factors: f.factors,
            limit: self.kernel.hindrance_limit(),
            laid: f.padded.laid_out(),
        }
    }

    /// The sweep of a kernel that blocks above the line, if it has one here.
    fn above(&self, f: &Frame) -> Option<&AboveSweep> {
        self.above
            .get_or_init(|| AboveSweep::of(&self.kernel, &self.grid, f.padded))
            .as_ref()
    }

    /// The sweep of a kernel with level keys, if it has one here.
    fn level(&self, f: &Frame) -> Option<&LevelSweep> {
        self.level
            .get_or_init(|| LevelSweep::of(&self.kernel, &self.grid, f.padded))
            .as_ref()
    }

    /// True when the kernel reads the whole line of pair (`i`, `j`)
    /// (`Kernel::line`), so a prefix of its walk settles nothing.
    #[inline]
    fn needs_line(&self, f: &Frame, i: usize, j: usize) -> bool {
        let c = |x: usize| {
            let (hex, at) = f.padded.place(x);
            End {
                hex,
                cell: self.grid.cells[at],
            }
        };
        self.kernel.needs_line(&self.kernel.ends(c(i), c(j)))
    }

    /// The outcome of one pair, generic over `BLIND`.
    #[inline]
    fn eval<const BLIND: bool>(
        &self,
        w: &Walker<K>,
        f: &Frame,
        (pools, walk, g): (&Pools, &Walk, usize),
        (i, j): (usize, usize),
    ) -> Outcome {
        if i == j || !walk.exact {
            return super::fast::plain_outcome(f, i, j);
        }
        w.eval::<BLIND>(pools, walk, g, i, j, &mut Vec::new())
    }

    /// [`Prepared::settle`], generic over `BLIND`.
    fn settle_as<const BLIND: bool>(
        &self,
        f: &Frame,
        (pools, walk): (&Pools, &Walk),
        complete: bool,
        pending: &mut Vec<Pending>,
        settled: &mut Vec<(usize, usize, Outcome)>,
    ) {
        let w = self.walker(f);
        pending.retain(|&(i, j, g)| {
            if !complete && self.needs_line(f, i, j) {
                return true;
            }
            let out = self.eval::<BLIND>(&w, f, (pools, walk, g), (i, j));
            let done = complete || if BLIND { out.high } else { out.blocked() };
            if done {
                settled.push((i, j, out));
            }
            !done
        });
    }
}

impl<K: Kernel> Prepared for Kernelled<K> {
    fn reciprocal(&self) -> bool {
        self.kernel.reciprocal()
    }

    fn blocks_above_line(&self) -> bool {
        self.kernel.blocks_above_line()
    }

    fn has_sweep(&self, f: &Frame) -> bool {
        self.above(f).is_some() || self.level(f).is_some()
    }

    /// Nothing at all when no cell rises above any line's quiet height
    /// ([`super::shadow::all_quiet`]); else from bounds on its slope where the
    /// kernel blocks above the line ([`super::horizon`]), else from the highest
    /// tops about it ([`super::shadow`]).
    fn viewshed_needs(&self, f: &Frame, i: usize) -> Needs {
        let (k, grid, p) = (&self.kernel, &self.grid, f.padded);
        if super::shadow::all_quiet(k, grid, p, i) {
            let mut all = vec![Need::Nothing; p.hexes()];
            all[i] = Need::Walk;
            Needs::Listed(all)
        } else if k.blocks_above_line() {
            let ground = self
                .ground
                .get_or_init(|| super::horizon::Ground::of(k, grid, p));
            Needs::Swept(super::horizon::needs(k, grid, p, ground, i))
        } else {
            Needs::Listed(super::shadow::needs(k, grid, p, i))
        }
    }

    fn bytes(&self) -> usize {
        let above = self.above.get().and_then(|s| s.as_ref());
        let level = self.level.get().and_then(|s| s.as_ref());
        let ground = self.ground.get().map_or(0, super::horizon::Ground::bytes);
        self.grid.bytes()
            + above.map_or(0, AboveSweep::bytes)
            + level.map_or(0, LevelSweep::bytes)
            + ground
    }

    fn outcome(
        &self,
        f: &Frame,
        walk: (&Pools, &Walk, usize),
        ij: (usize, usize),
        blind: bool,
    ) -> Outcome {
        let w = self.walker(f);
        if blind {
            self.eval::<true>(&w, f, walk, ij)
        } else {
            self.eval::<false>(&w, f, walk, ij)
        }
    }

    fn settle(
        &self,
        f: &Frame,
        pools: &Pools,
        walk: &Walk,
        complete: bool,
        blind: bool,
        pending: &mut Vec<Pending>,
        settled: &mut Vec<(usize, usize, Outcome)>,
    ) {
        if blind {
            self.settle_as::<true>(f, (pools, walk), complete, pending, settled)
        } else {
            self.settle_as::<false>(f, (pools, walk), complete, pending, settled)
        }
    }

    fn sweep_offset(
        &self,
        f: &Frame,
        o: &Offset,
        pairs: &DqPairs,
        dr: i32,
        scratch: &mut OffsetScratch,
        open: Option<(&[u64], usize)>,
        seen: &mut dyn FnMut(&Run, u64),
    ) {
        let simd = f.vectors();
        if let Some(s) = self.above(f).filter(|_| o.walk.narrow()) {
            return s.offset(o, pairs, dr, simd, scratch, open, seen);
        }
        let w = self.walker(f);
        let mut spans = Vec::new();
        if let Some(l) = self.level(f).filter(|_| open.is_none()) {
            return l.offset(&w, o, pairs, dr, f.simd, &mut spans, seen);
        }
        let (pools, walk, g) = (o.pools, o.walk, o.at.g);
        let mut k = 0;
        pairs.runs(dr, |run| {
            let lanes = open.map_or(u64::MAX, |(m, _)| m[k]);
            k += 1;
            let mut clear = 0;
            for lane in (0..run.lanes).filter(|&l| lanes >> l & 1 == 1) {
                let (i, j) = run.pair(lane);
                if !w.eval::<false>(pools, walk, g, i, j, &mut spans).blocked() {
                    clear |= 1 << lane;
                }
            }
            seen(&run, clear);
        })
    }

    fn takes_ends(&self, f: &Frame) -> bool {
        self.above(f).is_some()
    }

    fn sweep_ends(
        &self,
        f: &Frame,
        at: &Place,
        ends: &Ends,
        pairs: &DqPairs,
        dr: i32,
        scratch: &mut OffsetScratch,
        clear: &mut Vec<u64>,
    ) {
        let s = self.above(f).expect("a kernel that takes ends");
        let simd = f.vectors();
        s.ends(at, ends, pairs, dr, simd, scratch, clear);
    }
}
