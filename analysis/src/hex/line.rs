//! The exact centre-to-centre walk of a sight line across the hex grid.
//!
//! Every hex boundary lies on one of three families of lines, `q - r = k`,
//! `r - s = k` and `s - q = k` for integers `k` (cube coordinates). A sight line
//! between two centres crosses those lines at fractions `k / |Δ|` of its length,
//! so the whole walk is computed with integer arithmetic: the line is cut at
//! those fractions and each piece is classified exactly as the interior of one
//! hex, a stretch along a hexside, or (at a cut) a vertex.

use super::coord::Hex;
use super::ratio::Ratio;

/// What the line meets on one stretch of its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Crossing {
    /// The line runs through the interior of this hex.
    Hex(Hex),
    /// The line runs exactly along the hexside between these two hexes.
    Side(Hex, Hex),
    /// The line passes exactly through the vertex shared by these three hexes.
    Vertex([Hex; 3]),
}

/// One stretch of the line, from fraction `t0` to `t1` of its length
/// (`t0 == t1` for a vertex).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// What the line meets.
    pub crossing: Crossing,
    /// Where it starts meeting it (0 = observer's centre).
    pub t0: Ratio,
    /// Where it stops meeting it (1 = target's centre).
    pub t1: Ratio,
}

/// The exact walk from the centre of `from` to the centre of `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HexLine {
    /// The observer's hex.
    pub from: Hex,
    /// The target's hex.
    pub to: Hex,
    /// Stretches in order from `from` to `to`; the first is `from`'s interior and
    /// the last `to`'s interior.
    pub steps: Vec<Step>,
}

impl HexLine {
    /// Walks the line from the centre of `from` to the centre of `to`.
    pub fn new(from: Hex, to: Hex) -> Self {
        let mut steps = walk_offset(to - from);
        for s in &mut steps {
            s.crossing = match s.crossing {
                Crossing::Hex(h) => Crossing::Hex(h + from),
                Crossing::Side(a, b) => Crossing::Side(a + from, b + from),
                Crossing::Vertex(v) => Crossing::Vertex(v.map(|h| h + from)),
            };
        }
        HexLine { from, to, steps }
    }

    /// The stretches strictly between the two end hexes.
    pub fn between(&self) -> &[Step] {
        between(&self.steps)
    }

    /// Every hex whose interior the line crosses, in order, ends included.
    pub fn hexes(&self) -> impl Iterator<Item = Hex> + '_ {
        self.steps.iter().filter_map(|s| match s.crossing {
            Crossing::Hex(h) => Some(h),
            _ => None,
        })
    }

    /// The hexside crossings between consecutive stretches: each item lists the
    /// hexsides the line passes from one side of to the other at that point.
    ///
    /// Crossing from hex A straight into hex B gives the one side A|B (also when
    /// it happens at a vertex). Entering or leaving a hexside stretch B|C from or
    /// into hex A gives the two sides A|B and A|C: the line slips between them,
    /// so a ruleset treats it like a stretch along a hexside (both must block).
    pub fn side_crossings(&self) -> Vec<SideCrossing> {
        let mut out = Vec::new();
        side_crossings_into(&self.steps, &mut out);
        out
    }
}

/// [`HexLine::between`] of a walk's steps.
pub(crate) fn between(steps: &[Step]) -> &[Step] {
    let n = steps.len();
    if n <= 2 { &[] } else { &steps[1..n - 1] }
}

/// [`HexLine::side_crossings`] of a walk's steps, into a reused buffer.
pub(crate) fn side_crossings_into(steps: &[Step], out: &mut Vec<SideCrossing>) {
    out.clear();
    let mut sides = Sides::default();
    out.extend(steps.iter().filter_map(|s| sides.next(s.crossing, s.t0)));
}

/// The hexsides a walk crosses, from its stretches fed in order.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sides {
    prev: Option<Crossing>,
}

impl Sides {
    /// Sides crossed after stretch `c`.
    #[inline]
    pub(crate) fn after(c: Crossing) -> Sides {
        Sides { prev: Some(c) }
    }

    /// The hexside crossed where stretch `c` begins, at fraction `at`, if any (none at
    /// a vertex, which only joins the stretches on either side).
    #[inline]
    pub(crate) fn next(&mut self, c: Crossing, at: Ratio) -> Option<SideCrossing> {
        if let Crossing::Vertex(_) = c {
            return None;
        }
        Some(match (self.prev.replace(c)?, c) {
            (Crossing::Hex(a), Crossing::Hex(b)) => SideCrossing::One(a, b, at),
            (Crossing::Hex(a), Crossing::Side(b, c)) | (Crossing::Side(b, c), Crossing::Hex(a)) => {
                SideCrossing::Pair(a, b, c, at)
            }
            _ => unreachable!("two hexside stretches never meet"),
        })
    }
}

/// A place where the line passes from one side of a hexside to the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideCrossing {
    /// From hex `.0` into hex `.1` across their common side, at fraction `.2`.
    One(Hex, Hex, Ratio),
    /// Between hex `.0` and the hexside stretch `.1|.2` (the line passes between
    /// sides `.0|.1` and `.0|.2`), at fraction `.3`.
    Pair(Hex, Hex, Hex, Ratio),
}

/// Where a point lies relative to the hex grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Interior(Hex),
    Edge(Hex, Hex),
    Vertex([Hex; 3]),
}

/// Walks from the origin to `d`.
fn walk_offset(d: Hex) -> Vec<Step> {
    let mut steps = Vec::new();
    walk_prefix_into(d, usize::MAX, &mut steps);
    steps
}

/// The first stretches of the walk from the origin to `d`, up to `limit` cut points:
/// the whole walk (true) when it has no more, else a prefix that stops short of `d`
/// (false). The stretches are those of the whole walk, exactly.
pub(crate) fn walk_prefix_into(d: Hex, limit: usize, steps: &mut Vec<Step>) -> bool {
    steps.clear();
    let mut cuts = Cuts::new(d, limit);
    let den = cuts.den;
    walk_stretches(d, &mut cuts, |&crossing, k0, k1| {
        steps.push(Step {
            crossing,
            t0: Ratio::new(k0, den),
            t1: Ratio::new(k1, den),
        })
    });
    cuts.whole
}

/// The stretches of the walk to `d` between its cut points `cuts`, in order:
/// `emit(crossing, k0, k1)` once per stretch (numerators over [`Cuts::den`]), a
/// vertex with `k0 == k1`. The crossing is lent from where it was kept, not moved
/// out first: a copy read back just after it was written stalled every stretch.
pub(crate) fn walk_stretches(d: Hex, cuts: &mut Cuts, mut emit: impl FnMut(&Crossing, i64, i64)) {
    let den = cuts.den;
    let (dq, dr, ds) = (d.q as i64, d.r as i64, d.s() as i64);
    // The stretch being walked, emitted once the line leaves it.
    let mut current: Option<(Crossing, i64, i64)> = None;
    let mut push = |crossing: Crossing, k0: i64, k1: i64| match &mut current {
        Some(c) if c.0 == crossing => c.2 = k1,
        _ => {
            if let Some(c) = &current {
                emit(&c.0, c.1, c.2);
            }
            current = Some((crossing, k0, k1));
        }
    };
    let mut here = Hex::new(0, 0);
    // Without a family of hex boundaries parallel to the line, no stretch runs along
    // a hexside, and a cut of one family alone is settled by that family's value.
    let fast = [dq - dr, dr - ds, ds - dq].iter().all(|&n| n != 0);
    let sign = [(dq - dr).signum(), (dr - ds).signum(), (ds - dq).signum()];
    let mut crossed = [0i64; 3];
    let Some(mut prev) = cuts.next() else { return };
    for (k1, next_families) in cuts {
        let (k0, families) = std::mem::replace(&mut prev, (k1, next_families));
        if k0 != 0 {
            for (f, c) in crossed.iter_mut().enumerate() {
                *c += i64::from(families >> f & 1);
            }
        }
        if fast && k0 != 0 && families.count_ones() == 1 {
            let f = families.trailing_zeros() as usize;
            here = across(here, f, sign[f] * crossed[f]);
            push(Crossing::Hex(here), k0, k1);
            continue;
        }
        // A vertex has integer differences in all three cube coordinates, so
        // at least two families cut there: only such cuts can be vertices.
        if k0 != 0
            && families.count_ones() >= 2
            && let Place::Vertex(v) = locate(d, k0, den)
        {
            push(Crossing::Vertex(v), k0, k0);
        }
        // Most stretches lie inside the hex the line was in, or the next one
        // across a side: test those cheaply before the general `locate`.
        let c = match inside_near(d, k0 + k1, 2 * den, &mut here) {
            Some(h) => Crossing::Hex(h),
            None => match locate(d, k0 + k1, 2 * den) {
                Place::Interior(h) => {
                    here = h;
                    Crossing::Hex(h)
                }
                Place::Edge(a, b) => {
                    here = a;
                    Crossing::Side(a, b)
                }
                Place::Vertex(_) => unreachable!("a vertex is always a cut point"),
            },
        };
        push(c, k0, k1);
    }
    if let Some(c) = current {
        emit(&c.0, c.1, c.2);
    }
}

/// The first half of the walk to `d` where no boundary family runs parallel to
/// the line (so no stretch runs along a hexside), as [`walk_stretches`] with
/// [`Cuts::to_middle`] gives it, without its vertices, the observer's own stretch
/// or the last: each stretch between as a hex and its entry ([`Self::next_hex`]),
/// in order, then the last stretch, which holds or ends at the midpoint
/// ([`Self::middle`]). The same steps as [`walk_stretches`], with a hex stretch
/// kept as a hex and its entry, not as a crossing (the engine's walks compile
/// millions of them); the engine's tests compare the two for every offset within
/// 40 and far ones.
pub(crate) struct HexesToMiddle {
    d: Hex,
    /// Per boundary family (`q - r`, `r - s`, `s - q`): the sign of its change
    /// along the line, and the numerator step between two of its whole values.
    sign: [i64; 3],
    step: [i64; 3],
    /// The common denominator.
    pub den: i64,
    /// The first cut at or past the midpoint ([`Cuts::to_middle`]'s last).
    k_mid: i64,
    current: Hex,
    k_current: i64,
}

impl HexesToMiddle {
    /// The walk to `d`, or `None` where a family runs parallel.
    pub(crate) fn new(d: Hex) -> Option<HexesToMiddle> {
        let (dq, dr, ds) = (d.q as i64, d.r as i64, d.s() as i64);
        let change = [dq - dr, dr - ds, ds - dq];
        if change.contains(&0) {
            return None;
        }
        let Cuts { den, step, .. } = Cuts::to_middle(d);
        // Each family's cuts are the multiples of its step: the first at or past half way.
        let k_mid = step
            .iter()
            .map(|&s| (den + 2 * s - 1) / (2 * s) * s)
            .min()?;
        // The line starts in the observer's hex, whose stretch is not kept.
        Some(HexesToMiddle {
            d,
            sign: change.map(i64::signum),
            step,
            den,
            k_mid,
            current: Hex::new(0, 0),
            k_current: 0,
        })
    }

    /// The next stretch between the ends as `(hex, k0)`; `None` once the walk is at
    /// the stretch that holds or ends at the midpoint.
    ///
    /// A hex is where every family's value lies within one of the hex's own, so the
    /// line leaves it where the first family reaches its own value plus one (in the
    /// direction the family changes): across that side, or where two families
    /// reach it at once, through a vertex, into the hex just past it.
    #[inline]
    pub(crate) fn next_hex(&mut self) -> Option<(Hex, i64)> {
        loop {
            let h = self.current;
            let own = family_values(h);
            let exit: [i64; 3] =
                std::array::from_fn(|f| (self.sign[f] * own[f] + 1) * self.step[f]);
            let k = exit[0].min(exit[1]).min(exit[2]);
            assert!(
                k > self.k_current,
                "the walk to {:?} leaves {h:?} where it entered",
                self.d
            );
            if k >= self.k_mid {
                return None;
            }
            // Across family `f`'s side, in the direction its value changes.
            let out = |f: usize| {
                if self.sign[f] > 0 {
                    h + PLUS[f]
                } else {
                    h - PLUS[f]
                }
            };
            let next = match exit.map(|e| e == k) {
                [true, false, false] => out(0),
                [false, true, false] => out(1),
                [false, false, true] => out(2),
                _ => self.past_vertex(k),
            };
            let left = (h, self.k_current);
            (self.current, self.k_current) = (next, k);
            // The observer's own stretch, the only one entered at 0, is not kept.
            if left.1 > 0 {
                return Some(left);
            }
        }
    }

    /// The hex the line enters through the vertex at `k`: the one that holds the
    /// point half a numerator on, before any later cut (cuts are whole numerators).
    fn past_vertex(&self, k: i64) -> Hex {
        let mut here = self.current;
        match inside_near(self.d, 2 * k + 1, 2 * self.den, &mut here) {
            Some(h) => h,
            None => match locate(self.d, 2 * k + 1, 2 * self.den) {
                Place::Interior(h) => h,
                other => unreachable!("between cuts the line is inside a hex, not {other:?}"),
            },
        }
    }

    /// The offset walked to.
    pub(crate) fn d(&self) -> Hex {
        self.d
    }

    /// The stretch that holds or ends at the midpoint, as `(hex, k0, k1)`, once
    /// [`Self::next_hex`] has given every stretch before it.
    pub(crate) fn middle(&self) -> (Hex, i64, i64) {
        (self.current, self.k_current, self.k_mid)
    }
}

/// The step to the neighbour across the side where each family's value rises (by two).
const PLUS: [Hex; 3] = [Hex { q: 1, r: -1 }, Hex { q: 0, r: 1 }, Hex { q: -1, r: 0 }];

/// Each family's value (`q - r`, `r - s`, `s - q`) at hex `h`'s centre.
#[inline]
fn family_values(h: Hex) -> [i64; 3] {
    let (q, r) = (h.q as i64, h.r as i64);
    [q - r, q + 2 * r, -2 * q - r]
}

/// The hex the line is in just after it meets the boundary line where family `f`'s
/// value (`q - r`, `r - s`, `s - q`) is `k`, coming from `here`, at a point where no
/// other family's value is whole (so not a vertex). Hex boundaries lie where a
/// family's value is one more or less than a hex's own: if `here`'s value is `k`,
/// the line only crosses `here`'s inside; otherwise it is `k` plus or minus one, and
/// the line leaves across that side, into the neighbour whose value is two beyond.
#[inline]
fn across(here: Hex, f: usize, k: i64) -> Hex {
    match k.cmp(&family_values(here)[f]) {
        std::cmp::Ordering::Equal => here,
        std::cmp::Ordering::Greater => here + PLUS[f],
        std::cmp::Ordering::Less => here - PLUS[f],
    }
}

/// The hex whose interior holds the point at `num / den` of the line to `d`,
/// when that is `here` or the neighbour of `here` across the one side the point
/// lies beyond (then `here` moves there); `None` when neither holds it strictly
/// inside, which [`locate`] then settles. Multiplications and compares only:
/// the same exact test as `locate`'s, without its rounding divisions.
#[inline]
fn inside_near(d: Hex, num: i64, den: i64, here: &mut Hex) -> Option<Hex> {
    let p = [d.q as i64 * num, d.r as i64 * num, d.s() as i64 * num];
    let offsets = |h: Hex| {
        let (hq, hr) = (h.q as i64 * den, h.r as i64 * den);
        let (eq, er, es) = (p[0] - hq, p[1] - hr, p[2] + hq + hr);
        [eq - er, er - es, es - eq]
    };
    let steps = [
        (Hex::new(1, -1), Hex::new(-1, 1)),
        (Hex::new(0, 1), Hex::new(0, -1)),
        (Hex::new(-1, 0), Hex::new(1, 0)),
    ];
    let mut h = *here;
    for _ in 0..2 {
        let e = offsets(h);
        let mut beyond = None;
        let mut on_edge = false;
        for (k, &v) in e.iter().enumerate() {
            if v > den {
                beyond = if beyond.is_none() {
                    Some(steps[k].0)
                } else {
                    return None;
                };
            } else if v < -den {
                beyond = if beyond.is_none() {
                    Some(steps[k].1)
                } else {
                    return None;
                };
            } else if v == den || v == -den {
                on_edge = true;
            }
        }
        match beyond {
            None if !on_edge => {
                *here = h;
                return Some(h);
            }
            None => return None,
            Some(step) => h = h + step,
        }
    }
    None
}

/// The cut points of the walk to a hex: every fraction `k / n` in `[0, 1]` for each
/// family size `n`, sorted and unique, as numerators over one common denominator
/// ([`Cuts::den`]), each with the families that cut there (bit `f` for family `f`);
/// at most `limit` of them, the last then short of 1 ([`Cuts::whole`] says which).
pub(crate) struct Cuts {
    /// The common denominator.
    pub den: i64,
    /// Per family, the numerator step between two of its cuts.
    pub step: [i64; 3],
    next: [i64; 3],
    limit: usize,
    given: usize,
    /// The cuts end after the first `k` with `2 k >= stop` ([`Cuts::to_middle`]).
    stop: i64,
    end: bool,
    /// True once the cut at 1 has been given.
    pub whole: bool,
}

impl Cuts {
    /// The cuts of the walk from the origin to `d`.
    pub(crate) fn new(d: Hex, limit: usize) -> Cuts {
        let (dq, dr, ds) = (d.q as i64, d.r as i64, d.s() as i64);
        let ns = [(dq - dr).abs(), (dr - ds).abs(), (ds - dq).abs()];
        let den = ns
            .iter()
            .filter(|&&n| n > 1)
            .fold(1, |l, &n| l / gcd(l, n) * n);
        // Each family's cuts are the multiples of den / n below den: merge the three runs.
        let step = ns.map(|n| if n > 1 { den / n } else { den });
        Cuts {
            den,
            step,
            next: step,
            limit,
            given: 0,
            stop: 2 * den,
            end: false,
            whole: false,
        }
    }

    /// The cuts of the walk to `d` up to its middle: the last one given is the
    /// first at or past half way, so the last stretch walked is the one the
    /// midpoint lies in, or the one that ends there. The rest of the walk is
    /// that half reflected ([`reflected`]).
    pub(crate) fn to_middle(d: Hex) -> Cuts {
        let mut cuts = Cuts::new(d, usize::MAX);
        cuts.stop = cuts.den;
        cuts
    }

    /// At least how many cuts [`Cuts::to_middle`] gives.
    pub(crate) fn to_middle_count(d: Hex) -> usize {
        let (dq, dr, ds) = (d.q as i64, d.r as i64, d.s() as i64);
        let n = (dq - dr).abs() + (dr - ds).abs() + (ds - dq).abs();
        n as usize / 2 + 3
    }
}

/// The stretch from `k0` to `k1` (over `den`) of the walk from the origin to `d`,
/// reflected through the line's midpoint: the crossing of the walk from
/// `den - k1` to `den - k0`. The reflection `p -> d - p` maps the line onto itself
/// and the grid onto itself (hex centres onto hex centres), so the walk's second
/// half is its first reflected. A hexside is located again, as the walk locates
/// it, so that its two hexes come in the walk's own order.
pub(crate) fn reflected(d: Hex, c: Crossing, k0: i64, k1: i64, den: i64) -> Crossing {
    match c {
        Crossing::Hex(h) => Crossing::Hex(d - h),
        Crossing::Side(..) => match locate(d, 2 * den - k0 - k1, 2 * den) {
            Place::Edge(a, b) => Crossing::Side(a, b),
            other => unreachable!("a hexside reflects onto a hexside, not {other:?}"),
        },
        Crossing::Vertex(v) => Crossing::Vertex(v.map(|h| d - h)),
    }
}

impl Iterator for Cuts {
    type Item = (i64, u8);

    #[inline]
    fn next(&mut self) -> Option<(i64, u8)> {
        if self.end {
            return None;
        }
        self.given += 1;
        if self.given == 1 {
            return Some((0, 7));
        }
        let k = self.next[0].min(self.next[1]).min(self.next[2]);
        if k >= self.den {
            (self.end, self.whole) = (true, true);
            return Some((self.den, 7));
        }
        if self.given > self.limit {
            self.end = true;
            return None;
        }
        let mut families = 0;
        for (f, (n, s)) in self.next.iter_mut().zip(self.step).enumerate() {
            if *n == k {
                families |= 1 << f;
                *n += s;
            }
        }
        if 2 * k >= self.stop {
            self.end = true;
        }
        Some((k, families))
    }
}

/// Greatest common divisor (of non-negative numbers).
pub(crate) fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Exactly where the point at fraction `num / den` of the line from the origin to `d` lies.
fn locate(d: Hex, num: i64, den: i64) -> Place {
    // The point in cube coordinates, scaled by `den`.
    let p = [d.q as i64 * num, d.r as i64 * num, d.s() as i64 * num];
    let h = nearest_hex(p, den);
    let (hq, hr) = (h.q as i64 * den, h.r as i64 * den);
    let hs = -hq - hr;
    let (eq, er, es) = (p[0] - hq, p[1] - hr, p[2] - hs);
    // Signed distances to the three pairs of opposite sides, scaled by `den`;
    // each is at most `den` in magnitude and equals it on a side.
    let du = eq - er;
    let dv = er - es;
    let dw = es - eq;
    debug_assert!(du.abs() <= den && dv.abs() <= den && dw.abs() <= den);
    let mut others = [h; 2];
    let mut n = 0;
    for (val, plus, minus) in [
        (du, Hex::new(1, -1), Hex::new(-1, 1)),
        (dv, Hex::new(0, 1), Hex::new(0, -1)),
        (dw, Hex::new(-1, 0), Hex::new(1, 0)),
    ] {
        if val == den {
            others[n] = h + plus;
            n += 1;
        } else if val == -den {
            others[n] = h + minus;
            n += 1;
        }
    }
    match n {
        0 => Place::Interior(h),
        1 => Place::Edge(h, others[0]),
        _ => Place::Vertex([h, others[0], others[1]]),
    }
}

/// The hex containing the scaled cube point `p / den` (one of them on a boundary).
fn nearest_hex(p: [i64; 3], den: i64) -> Hex {
    let round = |x: i64| (2 * x + den).div_euclid(2 * den);
    let (mut q, mut r, s) = (round(p[0]), round(p[1]), round(p[2]));
    let dq = (q * den - p[0]).abs();
    let dr = (r * den - p[1]).abs();
    let ds = (s * den - p[2]).abs();
    if dq > dr && dq > ds {
        q = -r - s;
    } else if dr > ds {
        r = -q - s;
    }
    Hex::new(q as i32, r as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &HexLine) -> Vec<Crossing> {
        line.steps.iter().map(|s| s.crossing).collect()
    }

    #[test]
    fn a_hex_sees_itself_through_its_own_interior() {
        let h = Hex::new(2, 3);
        assert_eq!(kinds(&HexLine::new(h, h)), vec![Crossing::Hex(h)]);
    }

    #[test]
    fn adjacent_hexes_cross_only_their_common_side() {
        let a = Hex::new(0, 0);
        for b in a.neighbors() {
            assert_eq!(
                kinds(&HexLine::new(a, b)),
                vec![Crossing::Hex(a), Crossing::Hex(b)]
            );
        }
    }

    #[test]
    fn a_straight_row_passes_through_every_centre_between() {
        let line = HexLine::new(Hex::new(0, 0), Hex::new(3, 0));
        let hexes: Vec<Hex> = line.hexes().collect();
        assert_eq!(hexes, (0..=3).map(|q| Hex::new(q, 0)).collect::<Vec<_>>());
        assert!(
            line.steps
                .iter()
                .all(|s| matches!(s.crossing, Crossing::Hex(_)))
        );
    }

    #[test]
    fn the_vertex_direction_runs_along_a_hexside_between_two_vertices() {
        // Cube offset (1, 1, -2) is axial (1, 1): the line leaves through a
        // vertex, runs along the side between (1, 0) and (0, 1), then enters
        // the target through the opposite vertex.
        let a = Hex::new(0, 0);
        let b = Hex::new(1, 1);
        let line = HexLine::new(a, b);
        let k = kinds(&line);
        assert_eq!(k.len(), 5, "{k:?}");
        assert_eq!(k[0], Crossing::Hex(a));
        assert!(matches!(k[1], Crossing::Vertex(_)));
        match k[2] {
            Crossing::Side(x, y) => {
                let mut pair = [x, y];
                pair.sort();
                assert_eq!(pair, [Hex::new(0, 1), Hex::new(1, 0)]);
            }
            other => panic!("expected a hexside stretch, got {other:?}"),
        }
        assert!(matches!(k[3], Crossing::Vertex(_)));
        assert_eq!(k[4], Crossing::Hex(b));
        assert_eq!(line.steps[2].t0, Ratio::new(1, 3));
        assert_eq!(line.steps[2].t1, Ratio::new(2, 3));
    }

    #[test]
    fn a_line_can_pass_a_vertex_without_running_along_a_side() {
        // Axial offset (4, 1) is cube (4, 1, -5): at a third of its length the
        // line is at cube (4/3, 1/3, -5/3), a vertex of the grid.
        let line = HexLine::new(Hex::new(0, 0), Hex::new(3, 0) + Hex::new(1, 1));
        let vertices = line
            .steps
            .iter()
            .filter(|s| matches!(s.crossing, Crossing::Vertex(_)))
            .count();
        let sides = line
            .steps
            .iter()
            .filter(|s| matches!(s.crossing, Crossing::Side(..)))
            .count();
        assert_eq!(sides, 0);
        assert!(vertices >= 1, "{:?}", kinds(&line));
    }

    #[test]
    fn reversing_a_line_reverses_its_walk() {
        for (a, b) in [
            (Hex::new(0, 0), Hex::new(5, -2)),
            (Hex::new(1, 1), Hex::new(-3, 5)),
            (Hex::new(0, 0), Hex::new(4, 2)),
        ] {
            let fwd = kinds(&HexLine::new(a, b));
            let mut back = kinds(&HexLine::new(b, a));
            back.reverse();
            let norm = |c: Crossing| match c {
                Crossing::Side(x, y) => Crossing::Side(x.min(y), x.max(y)),
                Crossing::Vertex(mut v) => {
                    v.sort();
                    Crossing::Vertex(v)
                }
                h => h,
            };
            assert_eq!(
                fwd.into_iter().map(norm).collect::<Vec<_>>(),
                back.into_iter().map(norm).collect::<Vec<_>>()
            );
        }
    }

    /// The obviously correct walk: every cut point and every stretch's midpoint
    /// located from scratch.
    fn located(d: Hex, limit: usize) -> (Vec<Step>, bool) {
        let mut cuts = Cuts::new(d, limit);
        let den = cuts.den;
        let cuts: Vec<(i64, u8)> = cuts.by_ref().collect();
        let mut steps: Vec<Step> = Vec::new();
        let mut push = |crossing: Crossing, t0: Ratio, t1: Ratio| match steps.last_mut() {
            Some(last) if last.crossing == crossing => last.t1 = t1,
            _ => steps.push(Step { crossing, t0, t1 }),
        };
        for w in cuts.windows(2) {
            let (k0, k1) = (w[0].0, w[1].0);
            let (t0, t1) = (Ratio::new(k0, den), Ratio::new(k1, den));
            if k0 != 0
                && let Place::Vertex(v) = locate(d, k0, den)
            {
                push(Crossing::Vertex(v), t0, t0);
            }
            match locate(d, k0 + k1, 2 * den) {
                Place::Interior(h) => push(Crossing::Hex(h), t0, t1),
                Place::Edge(a, b) => push(Crossing::Side(a, b), t0, t1),
                Place::Vertex(_) => unreachable!("a stretch's midpoint is no vertex"),
            }
        }
        (steps, cuts.last().is_some_and(|c| c.0 == den))
    }

    /// The walk (with its shortcuts) equals locating every stretch, for every offset
    /// within 40 and for far ones, whole and cut short.
    #[test]
    fn the_walk_equals_locating_every_stretch() {
        let mut offsets: Vec<Hex> = (-40..=40)
            .flat_map(|q| (-40..=40).map(move |r| Hex::new(q, r)))
            .filter(|&d| d != Hex::new(0, 0))
            .collect();
        let mut x: u64 = 7;
        for _ in 0..300 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let q = (x >> 33) as i32 % 3000 - 1500;
            let r = (x >> 13) as i32 % 3000 - 1500;
            offsets.push(Hex::new(q, r));
        }
        offsets.extend([
            Hex::new(999, -999),
            Hex::new(1000, 1000),
            Hex::new(-1400, 700),
        ]);
        let mut steps = Vec::new();
        for d in offsets {
            for limit in [usize::MAX, 5, 48] {
                let complete = walk_prefix_into(d, limit, &mut steps);
                let (want, want_complete) = located(d, limit);
                assert_eq!(steps, want, "walk to {d:?}, limit {limit}");
                assert_eq!(complete, want_complete);
            }
        }
    }
}
