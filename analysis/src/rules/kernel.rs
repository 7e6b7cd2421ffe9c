//! The one shape of every family's sight rule: a kernel that judges the stretches of a line.
//!
//! A family states its rule once, as a [`Kernel`]: what a hex between the two ends does
//! to the line ([`Kernel::hex`]), what the two hexes beside a stretch exactly along their
//! hexside do together ([`Kernel::along`]), what a crossed hexside feature does
//! ([`Kernel::cross`]) and, for rules that read the whole line (ASL's LOS INTO a
//! depression), [`Kernel::line`]. The explained query ([`explain`], behind
//! [`crate::los::line_of_sight`]) and the engine ([`crate::engine`]) call the same
//! functions: the query with [`Explained`] notes, which keep every reason, the engine
//! with [`Quiet`] notes, which keep only the sums (the reasons are closures that are
//! never called there, so they cost nothing).
//!
//! Two readings are common to every family and live in the drivers: only what lies
//! *between* the ends acts (the end hexes' own interiors never do), and a hexside of
//! an end hex is never crossed "between" the ends (an end's own hedge is clear), so
//! kernels only see crossings that touch neither end. A hex the line only touches at a
//! vertex has no effect; where the line slips between two hexsides at a vertex, both
//! must stop it ([`Kernel::pair`]).

use super::{Assessment, Effect, Event, Place};
use crate::hex::{Crossing, Hex, HexLine, Ratio, SideCrossing};
use crate::map::Map;

/// Heights (tops and eyes) are compared in thousandths of a level.
pub const MILLI: i64 = 1000;

/// Where a stretch lies along its line.
#[derive(Clone, Copy, Debug)]
pub struct At {
    /// The hex being judged (for a stretch along a hexside, one of its two hexes).
    pub hex: Hex,
    /// Where the line enters the stretch (fraction of its length from the observer).
    pub t0: Ratio,
    /// Where the line leaves it.
    pub t1: Ratio,
    /// Hex distance from the observer's hex to `hex`.
    pub from: u32,
    /// Hex distance from `hex` to the target's hex.
    pub to: u32,
    /// The first stretch between the ends (next to the observer).
    pub first: bool,
    /// The last stretch between the ends (next to the target).
    pub last: bool,
}

/// The levels of a line without a level key ([`Kernel::far_key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FarKey {
    /// The level that decides what blocks far from both ends.
    pub high: i32,
    /// The level the position-dependent rules read besides it (the lower end's).
    pub low: i32,
    /// The target is the lower end.
    pub target_low: bool,
}

/// A stretch far from both ends, where [`Kernel::far_key`] and the level keys'
/// verdicts are read.
pub const FAR_FROM_ENDS: At = At {
    hex: Hex::new(0, 0),
    t0: Ratio::ZERO,
    t1: Ratio::ONE,
    from: u32::MAX / 2,
    to: u32::MAX / 2,
    first: false,
    last: false,
};

/// A stretch next to the target and far from the observer, where
/// [`Kernel::near_ends`] promises a stretch does the most.
pub const NEAR_TARGET: At = At {
    hex: Hex::new(0, 0),
    t0: Ratio::ZERO,
    t1: Ratio::ONE,
    from: u32::MAX / 2,
    to: 1,
    first: false,
    last: true,
};

/// One end of a line: its hex and what the kernel reads there.
#[derive(Clone, Copy, Debug)]
pub struct End<C> {
    /// The hex.
    pub hex: Hex,
    /// The kernel's cell for it.
    pub cell: C,
}

/// What a note is about: the hex's terrain (and ground), or a marker in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// The hex itself: ground, terrain, units.
    Hex,
    /// A marker in the hex.
    Marker,
}

/// The sum of what acts on one stretch: any block blocks, hindrances add up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sum {
    /// Something was noted.
    pub any: bool,
    /// Something blocks.
    pub block: bool,
    /// The hindrances, added.
    pub hinder: u32,
}

impl Sum {
    /// Adds one effect.
    #[inline]
    pub fn add(&mut self, e: Effect) {
        self.any = true;
        match e {
            Effect::Block => self.block = true,
            Effect::Hinder(v) => self.hinder = self.hinder.saturating_add(v),
        }
    }

    /// The combined effect, if anything was noted.
    #[inline]
    pub fn effect(self) -> Option<Effect> {
        match (self.any, self.block) {
            (false, _) => None,
            (true, true) => Some(Effect::Block),
            (true, false) => Some(Effect::Hinder(self.hinder)),
        }
    }
}

/// Where a kernel writes what it finds: the sums, and the reasons when they are wanted.
pub trait Notes: Default {
    /// True when reasons are kept (the explained query).
    const EXPLAIN: bool;
    /// Notes one thing that acts; `inherent` marks terrain that acts even along its
    /// hexside (ASL B.6); `reason` is called only when [`Notes::EXPLAIN`].
    fn note(&mut self, what: What, effect: Effect, inherent: bool, reason: impl FnOnce() -> String);
    /// Everything noted.
    fn all(&self) -> Sum;
    /// What inherent terrain noted.
    fn inherent(&self) -> Sum;
}

/// Sums only: what the engine uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet {
    all: Sum,
    inherent: Sum,
}

impl Notes for Quiet {
    const EXPLAIN: bool = false;
    #[inline]
    fn note(&mut self, _: What, effect: Effect, inherent: bool, _: impl FnOnce() -> String) {
        self.all.add(effect);
        if inherent {
            self.inherent.add(effect);
        }
    }
    #[inline]
    fn all(&self) -> Sum {
        self.all
    }
    #[inline]
    fn inherent(&self) -> Sum {
        self.inherent
    }
}

/// One thing noted, with its reason.
#[derive(Clone, Debug)]
pub struct Note {
    /// What it is about.
    pub what: What,
    /// What it does.
    pub effect: Effect,
    /// Why, citing the rule.
    pub reason: String,
}

/// Sums and reasons: what the explained query uses.
#[derive(Clone, Debug, Default)]
pub struct Explained {
    all: Sum,
    inherent: Sum,
    /// Everything noted, in order.
    pub notes: Vec<Note>,
}

impl Explained {
    /// The reasons joined by `; `, or `none` when nothing was noted.
    pub fn text(&self, none: &str) -> String {
        if self.notes.is_empty() {
            return none.to_string();
        }
        let all: Vec<&str> = self.notes.iter().map(|n| n.reason.as_str()).collect();
        all.join("; ")
    }
}

impl Notes for Explained {
    const EXPLAIN: bool = true;
    fn note(
        &mut self,
        what: What,
        effect: Effect,
        inherent: bool,
        reason: impl FnOnce() -> String,
    ) {
        self.all.add(effect);
        if inherent {
            self.inherent.add(effect);
        }
        self.notes.push(Note {
            what,
            effect,
            reason: reason(),
        });
    }
    fn all(&self) -> Sum {
        self.all
    }
    fn inherent(&self) -> Sum {
        self.inherent
    }
}

/// One stretch of a whole line, ends included, for rules that read the line in order.
#[derive(Clone, Copy, Debug)]
pub struct Span<C> {
    /// A hex interior (`b == a`) or a stretch along the hexside `a|b`.
    pub a: Hex,
    /// The second hex of a hexside stretch, or `a`.
    pub b: Hex,
    /// The cells of `a` and `b`.
    pub cells: [C; 2],
    /// True for a stretch along a hexside.
    pub side: bool,
}

/// A block or hindrance a whole-line rule finds, at one end of the line.
#[derive(Clone, Debug)]
pub struct LineEvent {
    /// At the target's end (else the observer's).
    pub at_target: bool,
    /// What it does.
    pub effect: Effect,
    /// Why (empty unless explained).
    pub reason: String,
}

/// A family's sight rule, stated once.
pub trait Kernel: Send + Sync {
    /// What the kernel reads in one hex; the default is a hex off the map, which never acts.
    type Cell: Copy + Default + Eq + std::hash::Hash + Send + Sync;
    /// What the kernel reads on one hexside; the default is a side without a feature.
    type Side: Copy + Default + Send + Sync;
    /// What the kernel needs to know about a line's two ends.
    type Ends: Copy;

    /// The map the kernel reads.
    fn map(&self) -> &Map;
    /// The cell of hex `h` of the map.
    fn cell(&self, h: Hex) -> Self::Cell;
    /// The side of `a` towards its neighbour `b` (both orders are asked).
    fn side(&self, a: Hex, b: Hex) -> Self::Side;
    /// The ends of a line from `a` to `b`.
    fn ends(&self, a: End<Self::Cell>, b: End<Self::Cell>) -> Self::Ends;
    /// What a hex between the ends does to the line.
    fn hex<N: Notes>(&self, e: &Self::Ends, c: &Self::Cell, at: At, n: &mut N);
    /// What a stretch exactly along the hexside between two hexes does, from what each
    /// would do: by default blocked only if both block, else the lesser hindrance.
    fn along<N: Notes>(&self, _e: &Self::Ends, x: &N, y: &N) -> Option<Effect> {
        super::both_sides(x.all().effect(), y.all().effect())
    }
    /// The reason for an [`Kernel::along`] effect, from each side's notes.
    fn along_reason(&self, a: Hex, b: Hex, x: &Explained, y: &Explained, effect: Effect) -> String;
    /// What a crossed hexside feature (touching neither end) does.
    fn cross<N: Notes>(&self, _e: &Self::Ends, _s: &Self::Side, _a: Hex, _b: Hex, _n: &mut N) {}
    /// Where the line slips between two crossed hexsides at a vertex: by default
    /// stopped only as both stop it (as a stretch along a hexside).
    fn pair(&self, x: Option<Effect>, y: Option<Effect>) -> Option<Effect> {
        super::both_sides(x, y)
    }
    /// The rule cited when a vertex between two hexsides stops the line (e.g. ` (A6.1)`).
    fn pair_rule(&self) -> &'static str {
        ""
    }
    /// True when [`Kernel::line`] must read this line.
    fn needs_line(&self, _e: &Self::Ends) -> bool {
        false
    }
    /// Rules over the whole line in order (`spans`, ends included).
    fn line(
        &self,
        _e: &Self::Ends,
        _spans: &[Span<Self::Cell>],
        _explain: bool,
        _out: &mut dyn FnMut(LineEvent),
    ) {
    }
    /// A hindrance total at or above which the line is blocked, if the family has one.
    fn hindrance_limit(&self) -> Option<u32> {
        None
    }
    /// The level that alone decides what every stretch of a line with these ends
    /// does, when one does: no verdict then depends on where a stretch lies along
    /// the line, no whole-line rule applies, and all ends with the same key give
    /// the same verdicts. The engine then tests 64 such lines at once from
    /// per-level bounds of this kernel's own verdicts ([`Kernel::keyed_ends`]).
    /// For ends in two different hexes, the keys ([`Kernel::level_key`],
    /// [`Kernel::far_key`]) read only the ends' cells, not their hexes, so the
    /// engine may read them from a table by the two cells.
    fn level_key(&self, _e: &Self::Ends) -> Option<i32> {
        None
    }
    /// The keys ([`Kernel::level_key`], [`Kernel::far_key`]) lines can have on a map
    /// whose ground levels run from `lo` to `hi`: by default those levels. A family
    /// whose ends stand above their ground (a 'Mech one level up) widens it, so that
    /// such lines keep the level sweep's bits.
    fn key_range(&self, lo: i32, hi: i32) -> (i32, i32) {
        (lo, hi)
    }
    /// Ends whose [`Kernel::level_key`] is `level`, if the kernel has keys.
    fn keyed_ends(&self, _level: i32) -> Option<Self::Ends> {
        None
    }
    /// For lines without a [`Kernel::level_key`], levels whose verdicts far from
    /// both ends are implied everywhere along the line ([`FarKey::high`]): what
    /// blocks a stretch far from the ends also blocks it near them (position-dependent
    /// rules such as blind hexes only add blocks). The engine then settles most such
    /// lines as blocked 64 at a time and walks only the rest ([`Kernel::far_ends`],
    /// [`Kernel::near_ends`]).
    fn far_key(&self, _e: &Self::Ends) -> Option<FarKey> {
        None
    }
    /// Ends whose [`Kernel::far_key`] has `high` level `level`, if the kernel has such keys.
    fn far_ends(&self, _level: i32) -> Option<Self::Ends> {
        None
    }
    /// Ends with [`Kernel::far_key`] `(high, low)`, the observer the higher, where a
    /// stretch next to the target and far from the observer ([`NEAR_TARGET`]) does at
    /// least what any stretch does anywhere on any line without a whole-line rule
    /// whose far key this is: a cell or crossed hexside that does nothing there does
    /// nothing on such lines. The engine then passes, without walking them, the lines
    /// no stretch could stop; the family's tests check the promise against
    /// [`Kernel::hex`].
    fn near_ends(&self, _high: i32, _low: i32) -> Option<Self::Ends> {
        None
    }
    /// On a line `length` hexes long with far key `key`, how far from the lower end
    /// a hex stretch may do more than it does far from both ends (beyond, it does
    /// just that, hindrance amounts included, which the engine may then count far
    /// from the ends); by default the whole line. Never smaller for a higher `key.high` (the engine asks once for
    /// lines of one lower level, with their highest). The family's tests check it
    /// against [`Kernel::hex`].
    fn near_reach(&self, _key: FarKey, length: u32) -> u32 {
        length
    }
    /// `Some(r)` when, on every line with a far key and without a whole-line rule, a
    /// hex stretch within `r` hexes of the lower end does exactly what it does on a
    /// keyed line of the lower end's level ([`Kernel::keyed_ends`], far from the
    /// ends), and every other hex stretch what it does on a keyed line of the higher
    /// level: the engine then judges such lines with the keyed bounds, each stretch at
    /// its own key, as many lines at once as keyed ones. The family's tests check it
    /// against [`Kernel::hex`].
    fn near_keyed(&self) -> Option<u32> {
        None
    }
    /// A height (thousandths of a level) such that a cell whose [`Kernel::top`] is at
    /// or under it does nothing to this line wherever it lies along it, and no
    /// hexside feature, vertex or whole-line rule acts either: a line that passes over
    /// only such cells is clear. `None` (the default) when the family makes no such
    /// promise. The engine then answers open ground without walking it
    /// (`engine::shadow`); the family's tests check the promise against
    /// [`Kernel::hex`].
    fn quiet_under(&self, _e: &Self::Ends) -> Option<i64> {
        None
    }
    /// True when the family's one rule is a top above the sight line: a cell between
    /// the ends blocks a stretch inside it exactly when its [`Kernel::top`] is strictly
    /// above the straight line from the observer's [`Kernel::eye`] to the target's
    /// [`Kernel::target_eye`] somewhere in the stretch; nothing hinders; a stretch
    /// along a hexside is blocked only when both hexes block it; no hexside feature,
    /// vertex or whole-line rule acts. The engine then settles most of a viewshed from
    /// bounds on slopes (`engine::horizon`); the family's tests check the
    /// promise against [`Kernel::hex`].
    fn blocks_above_line(&self) -> bool {
        false
    }
    /// True when the rule gives `a -> b` the verdict of `b -> a` on every map (the
    /// engine then computes one of each pair; its tests check every ordered pair).
    fn reciprocal(&self) -> bool {
        false
    }
    /// The height (thousandths of a level) a blocker in this cell stands to, and the
    /// observer's eye in it, for telling blind hexes (hidden only by lower blockers).
    fn top(&self, c: &Self::Cell) -> i64;
    /// The observer's eye height in this cell, in thousandths of a level.
    fn eye(&self, c: &Self::Cell) -> i64;
    /// The point seen at the target in this cell; by default where the eye would be.
    fn target_eye(&self, c: &Self::Cell) -> i64 {
        self.eye(c)
    }
}

/// The cell of a hex, off the map included.
fn cell_of<K: Kernel>(k: &K, h: Hex) -> K::Cell {
    if k.map().contains(h) {
        k.cell(h)
    } else {
        K::Cell::default()
    }
}

/// The side of `a` towards `b`.
fn side_of<K: Kernel>(k: &K, a: Hex, b: Hex) -> K::Side {
    if k.map().hexside(a, b).is_some() {
        k.side(a, b)
    } else {
        K::Side::default()
    }
}

/// Judges a walked line with its explanation: every event with the rule it cites.
pub fn explain<K: Kernel>(k: &K, line: &HexLine) -> Assessment {
    let ends = k.ends(
        End {
            hex: line.from,
            cell: cell_of(k, line.from),
        },
        End {
            hex: line.to,
            cell: cell_of(k, line.to),
        },
    );
    let between = line.between();
    let is_stretch = |c: &Crossing| !matches!(c, Crossing::Vertex(_));
    let first = between.iter().position(|s| is_stretch(&s.crossing));
    let last = between.iter().rposition(|s| is_stretch(&s.crossing));
    let mut events = Vec::new();
    for (i, step) in between.iter().enumerate() {
        let at = |hex: Hex| At {
            hex,
            t0: step.t0,
            t1: step.t1,
            from: line.from.distance(hex),
            to: hex.distance(line.to),
            first: Some(i) == first,
            last: Some(i) == last,
        };
        let judge = |h: Hex| {
            let mut n = Explained::default();
            k.hex(&ends, &cell_of(k, h), at(h), &mut n);
            n
        };
        match step.crossing {
            Crossing::Hex(h) => {
                for note in judge(h).notes {
                    let place = match note.what {
                        What::Hex => Place::Hex(h),
                        What::Marker => Place::Marker(h),
                    };
                    events.push(Event {
                        at: step.t0,
                        place,
                        effect: note.effect,
                        reason: note.reason,
                    });
                }
            }
            Crossing::Side(a, b) => {
                let (x, y) = (judge(a), judge(b));
                if let Some(effect) = k.along(&ends, &x, &y) {
                    events.push(Event {
                        at: step.t0,
                        place: Place::AlongSide(a, b),
                        effect,
                        reason: k.along_reason(a, b, &x, &y, effect),
                    });
                }
            }
            Crossing::Vertex(_) => {}
        }
    }
    crossing_events(k, &ends, line, &mut events);
    if k.needs_line(&ends) {
        let spans = spans(k, line);
        k.line(&ends, &spans, true, &mut |e: LineEvent| {
            events.push(Event {
                at: if e.at_target { Ratio::ONE } else { Ratio::ZERO },
                place: Place::Hex(if e.at_target { line.to } else { line.from }),
                effect: e.effect,
                reason: e.reason,
            })
        });
    }
    Assessment {
        events,
        modifiers: Vec::new(),
        hindrance_limit: k.hindrance_limit(),
    }
}

/// The events of the hexside features the line crosses between its ends.
fn crossing_events<K: Kernel>(k: &K, ends: &K::Ends, line: &HexLine, events: &mut Vec<Event>) {
    let map = k.map();
    let is_end = |h: Hex| h == line.from || h == line.to;
    let judge = |a: Hex, b: Hex| {
        let mut n = Explained::default();
        k.cross(ends, &side_of(k, a, b), a, b, &mut n);
        n
    };
    for crossing in line.side_crossings() {
        match crossing {
            SideCrossing::One(a, b, at) if !is_end(a) && !is_end(b) => {
                for note in judge(a, b).notes {
                    events.push(Event {
                        at,
                        place: Place::Hexside(a, b),
                        effect: note.effect,
                        reason: note.reason,
                    });
                }
            }
            SideCrossing::Pair(a, b, c, at) if !is_end(a) && !is_end(b) && !is_end(c) => {
                let (x, y) = (judge(a, b), judge(a, c));
                if let Some(effect) = k.pair(x.all().effect(), y.all().effect()) {
                    let reason = format!(
                        "the line passes through the vertex between hexsides {} and {}, and both stop it{}: {}; {}",
                        map.side_label(a, b),
                        map.side_label(a, c),
                        k.pair_rule(),
                        x.text(""),
                        y.text("")
                    );
                    events.push(Event {
                        at,
                        place: Place::HexsidePair(a, b, c),
                        effect,
                        reason,
                    });
                }
            }
            _ => {}
        }
    }
}

/// The whole line's stretches in order, ends included, vertices left out.
pub fn spans<K: Kernel>(k: &K, line: &HexLine) -> Vec<Span<K::Cell>> {
    line.steps
        .iter()
        .filter_map(|s| match s.crossing {
            Crossing::Hex(h) => Some(Span {
                a: h,
                b: h,
                cells: [cell_of(k, h); 2],
                side: false,
            }),
            Crossing::Side(a, b) => Some(Span {
                a,
                b,
                cells: [cell_of(k, a), cell_of(k, b)],
                side: true,
            }),
            Crossing::Vertex(_) => None,
        })
        .collect()
}

/// The heights a side view of a line shows, as the kernel reads them (thousandths of
/// a level): the two eyes, and the top of every stretch of [`spans`] in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heights {
    /// The observer's eye.
    pub eye_from: i64,
    /// The point seen at the target.
    pub eye_to: i64,
    /// Per stretch, ends included, vertices left out: [`Kernel::top`] of its hex, or
    /// for a stretch along a hexside the lower of its two hexes' (the line may pass
    /// on the lower side, as [`Kernel::along`] lets it by default).
    pub tops: Vec<i64>,
}

/// The [`Heights`] of a line, for the sight-line profile.
pub fn heights<K: Kernel>(k: &K, line: &HexLine) -> Heights {
    let spans = spans(k, line);
    let tops = spans
        .iter()
        .map(|s| k.top(&s.cells[0]).min(k.top(&s.cells[1])))
        .collect();
    Heights {
        eye_from: k.eye(&cell_of(k, line.from)),
        eye_to: k.target_eye(&cell_of(k, line.to)),
        tops,
    }
}
