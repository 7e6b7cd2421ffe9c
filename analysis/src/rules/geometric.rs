//! The `geometric` family: pure 3-D sight lines over hex heights, as a GIS viewshed sees them.
//! Its readings, with worked examples the docs test runs, are the guide's page
//! `docs/guide/rules-geometric.md`; a change of rule here changes that page too.
//!
//! Heights are exact in thousandths of a level. A hex between the ends blocks when
//! its surface is strictly above the sight line somewhere in the stretch the line
//! spends inside it; the line is straight, so one end of that stretch decides. A
//! stretch along a hexside is blocked only when both hexes beside it block.

use super::kernel::{At, End, Explained, Notes, What};
use super::{Assessment, Effect};
use crate::hex::{Hex, HexLine, Ratio};
use crate::map::Map;

/// Heights are compared in thousandths of a level.
pub const MILLI: i64 = super::kernel::MILLI;

const RULE: &str =
    "geometric: a hex blocks when its surface is strictly above the sight line inside it";

/// Converts a height in levels to thousandths of a level.
pub fn milli(levels: f64) -> i64 {
    (levels * MILLI as f64).round() as i64
}

/// Precomputed heights for the geometric family: eye heights and per-terrain heights.
#[derive(Clone, Debug)]
pub struct Heights {
    /// Observer eye above its ground, in thousandths of a level.
    pub observer_eye: i64,
    /// Target point above its ground.
    pub target_eye: i64,
    /// Terrain heights by terrain index.
    pub terrain: Vec<i64>,
}

impl Heights {
    /// Reads the ruleset's heights.
    pub fn of(map: &Map) -> Heights {
        let rs = &map.ruleset;
        Heights {
            observer_eye: milli(rs.param("observer_eye", 0.25)),
            target_eye: milli(rs.param("target_eye", 0.25)),
            terrain: rs.terrain.iter().map(|t| milli(t.height)).collect(),
        }
    }

    /// A hex's surface (ground plus terrain), if on the map.
    pub fn surface(&self, map: &Map, h: Hex) -> Option<i64> {
        map.cell(h)
            .map(|c| Cell::new(c.level, self.terrain[c.terrain as usize]).surface())
    }
}

/// True when `surface` is strictly above the line (from `e0` at 0 to `e1` at 1) at `t`.
#[inline]
pub fn above(surface: i64, e0: i64, e1: i64, t: Ratio) -> bool {
    // `(surface - e0) * den > (e1 - e0) * num`, exactly: in `i64` when every factor is
    // small enough that no product can overflow (heights under 2^30 thousandths,
    // fractions over 2^32), else in `i128`.
    const SMALL: i64 = 1 << 30;
    let small = |x: i64| -SMALL < x && x < SMALL;
    if small(surface) && small(e0) && small(e1) && t.den < 1 << 32 && (0..=t.den).contains(&t.num) {
        (surface - e0) * t.den > (e1 - e0) * t.num
    } else {
        (surface as i128) * (t.den as i128)
            > (e0 as i128) * (t.den as i128) + ((e1 - e0) as i128) * (t.num as i128)
    }
}

/// What the geometric rule reads in a hex: eight bytes, as the engine lays one
/// into every cell of its padded grid for each request (a million-hex map's grid
/// is 12 MB where it was 24, written and read again for every viewshed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// Ground level.
    pub level: i32,
    /// Terrain height above the ground, in thousandths of a level, or [`Cell::OFF`]
    /// off the map. A ruleset's heights are at most
    /// [`MAX_NUMBER`](crate::ruleset::MAX_NUMBER) levels, a billion thousandths,
    /// so every one fits.
    height: i32,
}

impl Cell {
    /// The height of a cell off the map, where nothing blocks.
    const OFF: i32 = i32::MIN;

    /// A hex on the map at `level` with terrain `height` thousandths above it (held
    /// to the range a ruleset allows, which a validated one never leaves).
    pub fn new(level: i32, height: i64) -> Cell {
        let bound = crate::ruleset::MAX_NUMBER as i64 * MILLI;
        Cell {
            level,
            height: height.clamp(-bound, bound) as i32,
        }
    }

    /// On the map (off it nothing blocks).
    #[inline]
    pub fn on_map(&self) -> bool {
        self.height != Cell::OFF
    }

    /// Ground plus terrain height, in thousandths of a level (far below any line off
    /// the map).
    #[inline]
    pub fn surface(&self) -> i64 {
        self.level as i64 * MILLI + self.height as i64
    }
}

impl Default for Cell {
    /// Off the map.
    fn default() -> Cell {
        Cell {
            level: 0,
            height: Cell::OFF,
        }
    }
}

/// The geometric sight rule.
pub struct Kernel<'m> {
    map: &'m Map,
    /// The ruleset's heights.
    pub heights: Heights,
}

impl<'m> Kernel<'m> {
    /// The kernel for a map.
    pub fn new(map: &'m Map) -> Self {
        Kernel {
            map,
            heights: Heights::of(map),
        }
    }

    fn describe(&self, h: Hex, e: (i64, i64), at: At) -> String {
        let s = self.heights.surface(self.map, h).unwrap_or(0) as f64 / MILLI as f64;
        let line = |t: Ratio| (e.0 as f64 + (e.1 - e.0) as f64 * t.to_f64()) / MILLI as f64;
        format!(
            "{} ({}) has its surface at {s:.2}, above the sight line at {:.2} ({RULE})",
            self.map.label(h),
            self.map.terrain(h).map_or("off map", |t| t.id.as_str()),
            line(at.t0).min(line(at.t1))
        )
    }
}

impl super::kernel::Kernel for Kernel<'_> {
    type Cell = Cell;
    type Side = ();
    /// The observer's eye and the target point, in thousandths of a level.
    type Ends = (i64, i64);

    fn map(&self) -> &Map {
        self.map
    }

    fn cell(&self, h: Hex) -> Cell {
        let c = self.map.cell(h).expect("on the map");
        Cell::new(c.level, self.heights.terrain[c.terrain as usize])
    }

    fn side(&self, _: Hex, _: Hex) {}

    #[inline]
    fn ends(&self, a: End<Cell>, b: End<Cell>) -> (i64, i64) {
        (
            a.cell.level as i64 * MILLI + self.heights.observer_eye,
            b.cell.level as i64 * MILLI + self.heights.target_eye,
        )
    }

    #[inline]
    fn hex<N: Notes>(&self, e: &(i64, i64), c: &Cell, at: At, n: &mut N) {
        // The line is straight and the surface flat, so the stretch's lower end decides.
        let low = if e.1 >= e.0 { at.t0 } else { at.t1 };
        if c.on_map() && above(c.surface(), e.0, e.1, low) {
            n.note(What::Hex, Effect::Block, false, || {
                self.describe(at.hex, *e, at)
            });
        }
    }

    fn along_reason(&self, a: Hex, b: Hex, x: &Explained, y: &Explained, _: Effect) -> String {
        format!(
            "the line runs along the hexside {}, and both sides rise above it: {}; {}",
            self.map.side_label(a, b),
            x.text(""),
            y.text("")
        )
    }

    /// The line never dips below its lower end, and only a surface above the line
    /// blocks: a surface at or under both ends does nothing (and nothing else acts).
    #[inline]
    fn quiet_under(&self, e: &(i64, i64)) -> Option<i64> {
        Some(e.0.min(e.1))
    }

    fn blocks_above_line(&self) -> bool {
        true
    }

    fn reciprocal(&self) -> bool {
        self.heights.observer_eye == self.heights.target_eye
    }

    #[inline]
    fn top(&self, c: &Cell) -> i64 {
        c.surface()
    }

    #[inline]
    fn eye(&self, c: &Cell) -> i64 {
        c.level as i64 * MILLI + self.heights.observer_eye
    }

    #[inline]
    fn target_eye(&self, c: &Cell) -> i64 {
        c.level as i64 * MILLI + self.heights.target_eye
    }
}

/// Judges a walked line.
pub fn assess(map: &Map, line: &HexLine) -> Assessment {
    super::kernel::explain(&Kernel::new(map), line)
}

/// The family's entry in [`super::registry`].
pub struct Rules;

impl super::registry::Rules for Rules {
    type Kernel<'m> = Kernel<'m>;
    fn kernel(map: &Map) -> Kernel<'_> {
        Kernel::new(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::kernel::{Kernel as _, Quiet};

    /// A stretch from `t0` to `t1` of a hex between the ends, next to neither.
    fn between(t0: Ratio, t1: Ratio) -> At {
        At {
            hex: Hex::new(1, 0),
            t0,
            t1,
            from: 1,
            to: 1,
            first: false,
            last: false,
        }
    }

    /// A 3x3 geometric map, for the kernel's promise tests (which give their own cells).
    fn tiny_map() -> Map {
        Map::from_json(
            r#"{"hexsight":1,"name":"t","ruleset":"geometric","grid":{"cols":3,"rows":3}}"#,
            std::path::Path::new("t.json"),
        )
        .unwrap()
    }

    /// The eight-byte cell keeps every level and every height a ruleset allows
    /// exactly, and a cell off the map never blocks, however low the line.
    #[test]
    fn a_cell_keeps_its_surface_and_off_the_map_nothing_blocks() {
        let most = crate::ruleset::MAX_NUMBER as i64 * MILLI;
        for level in [i32::MIN, -7, 0, 3, i32::MAX] {
            for height in [-most, -1, 0, 250, most] {
                let c = Cell::new(level, height);
                assert!(c.on_map());
                assert_eq!(c.surface(), level as i64 * MILLI + height);
            }
        }
        // A height beyond a ruleset's bounds (none passes validation) is held to them.
        assert_eq!(Cell::new(0, 10 * most).surface(), most);
        let map = tiny_map();
        let k = Kernel::new(&map);
        let off = Cell::default();
        assert!(!off.on_map());
        let low = i32::MIN as i64 * MILLI;
        for e in [(low, low), (low, 0), (0, 0)] {
            let mut n = Quiet::default();
            k.hex(
                &e,
                &off,
                between(Ratio::new(0, 1), Ratio::new(1, 1)),
                &mut n,
            );
            assert!(!n.all().any, "{e:?}");
        }
        assert_eq!(size_of::<Cell>(), 8);
    }

    /// [`Kernel::quiet_under`]'s promise, over every small case: a surface at or under
    /// the quiet height of the ends never blocks, wherever the stretch lies; and the
    /// height is the highest with that promise (just above it, some stretch blocks).
    #[test]
    fn a_surface_under_the_quiet_height_never_acts() {
        let map = tiny_map();
        let k = Kernel::new(&map);
        let heights = (-6..=6).map(|x| x * MILLI / 2);
        let fractions: Vec<Ratio> = (0..=6).map(|n| Ratio::new(n, 6)).collect();
        for e0 in heights.clone() {
            for e1 in heights.clone() {
                let quiet = k.quiet_under(&(e0, e1)).expect("geometric promises");
                let acts = |surface: i64, t0: Ratio, t1: Ratio| {
                    let cell = Cell::new(0, surface);
                    let mut n = Quiet::default();
                    k.hex(&(e0, e1), &cell, between(t0, t1), &mut n);
                    n.all().any
                };
                let mut above_acts = false;
                for (a, &t0) in fractions.iter().enumerate() {
                    for &t1 in &fractions[a..] {
                        for surface in heights.clone().filter(|&s| s <= quiet) {
                            assert!(!acts(surface, t0, t1), "{surface} on {e0}->{e1}");
                        }
                        above_acts |= acts(quiet + 1, t0, t1);
                    }
                }
                assert!(above_acts, "{e0}->{e1}: a surface just above {quiet} acts");
            }
        }
    }
    /// [`Kernel::blocks_above_line`]'s promise, over every small case: a cell blocks a
    /// stretch exactly when its top is strictly above the straight line from the
    /// observer's eye to the target point somewhere in the stretch, nothing else is
    /// noted, the ends are the cells' eye and target point, and no whole-line rule or
    /// hindrance limit applies. The engine's viewshed tables rest on it.
    #[test]
    fn a_top_blocks_exactly_when_above_the_line() {
        let map = tiny_map();
        let k = Kernel::new(&map);
        assert!(k.blocks_above_line());
        assert_eq!(k.hindrance_limit(), None);
        let levels = -3..=3;
        let cell = |level: i32, surface: i64| Cell::new(level, surface - level as i64 * MILLI);
        let end = |c: Cell| End {
            hex: Hex::new(0, 0),
            cell: c,
        };
        let fractions: Vec<Ratio> = (0..=6).map(|n| Ratio::new(n, 6)).collect();
        let (mut blocks, mut clears) = (0, 0);
        for la in levels.clone() {
            for lb in levels.clone() {
                let (a, b) = (cell(la, 0), cell(lb, 0));
                let e = k.ends(end(a), end(b));
                assert_eq!(e, (k.eye(&a), k.target_eye(&b)));
                assert!(!k.needs_line(&e));
                for (x, &t0) in fractions.iter().enumerate() {
                    for &t1 in &fractions[x..] {
                        for surface in (-4 * MILLI..=4 * MILLI).step_by(250) {
                            let c = cell(0, surface);
                            let mut n = Quiet::default();
                            k.hex(&e, &c, between(t0, t1), &mut n);
                            // The line at `t`, times 6: exact.
                            let line6 = |t: Ratio| e.0 * 6 + (e.1 - e.0) * t.num * 6 / t.den;
                            let above = k.top(&c) * 6 > line6(t0).min(line6(t1));
                            let want = above.then_some(Effect::Block);
                            assert_eq!(
                                n.all().effect(),
                                want,
                                "{surface} over {e:?} at {t0:?}..{t1:?}"
                            );
                            blocks += usize::from(above);
                            clears += usize::from(!above);
                        }
                    }
                }
            }
        }
        assert!(blocks > 0 && clears > 0);
    }
}
