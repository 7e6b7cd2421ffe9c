//! Combining boards: one map placed beside another, as geomorphic boards are laid out.
//!
//! Boards are moved as whole pieces of the hex plane (a translation, and for a
//! turned board a half turn), never relabelled hex by hex, so every sight line
//! across a seam meets the same hexes, sides and units as on a map drawn whole.
//!
//! Labels of the result: east, the second board's first column follows the
//! first board's last (rows unchanged); south, its first row follows the first
//! board's last; west and north put the second board first. With `overlap: 1`
//! the edge column (or row) the boards share as half-hexes is kept once, and
//! where the two boards disagree about it the first board's content wins.

use super::model::{Map, NamedZone, Unit};
use crate::error::{Error, ErrorKind, Result};
use crate::hex::{Hex, Layout, Orientation, Stagger, label};

/// Where the second board goes, relative to the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Above the first board: its rows come first.
    North,
    /// Right of the first board: its columns follow.
    East,
    /// Below the first board: its rows follow.
    South,
    /// Left of the first board: its columns come first.
    West,
}

impl Direction {
    /// Lower-case name, as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Direction::North => "north",
            Direction::East => "east",
            Direction::South => "south",
            Direction::West => "west",
        }
    }

    /// True when the boards sit side by side (they share rows).
    fn beside(self) -> bool {
        matches!(self, Direction::East | Direction::West)
    }
}

/// How to place the second board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Which side of the first board.
    pub direction: Direction,
    /// Edge columns or rows the boards share: 0 (they abut) or 1 (half-hexes).
    pub overlap: u32,
    /// Turn the second board by 180 degrees first.
    pub turn: bool,
}

/// The combined map and what the user should know about it.
#[derive(Clone, Debug)]
pub struct Combined {
    /// The result.
    pub map: Map,
    /// Shared hexes where the boards disagreed (the first board's content kept),
    /// and anything of the second board that could not be carried over.
    pub notes: Vec<String>,
}

/// A rigid move of the hex plane: an optional half turn, then a shift.
#[derive(Clone, Copy, Debug)]
pub(super) struct Motion {
    turn: bool,
    shift: Hex,
}

impl Motion {
    pub(super) fn apply(self, h: Hex) -> Hex {
        let h = if self.turn { Hex::new(-h.q, -h.r) } else { h };
        h + self.shift
    }

    /// The hex that `apply` takes to `h`.
    fn undo(self, h: Hex) -> Hex {
        let h = h - self.shift;
        if self.turn { Hex::new(-h.q, -h.r) } else { h }
    }

    fn facing(self, f: usize) -> usize {
        if self.turn { (f + 3) % 6 } else { f }
    }
}

/// Places `b` beside `a` as `p` says. Errors name what does not match: the
/// rulesets, the orientations, the length of the seam, the scales, or a stagger
/// that would shift the second board by half a hex.
pub fn combine(a: &Map, b: &Map, p: Placement) -> Result<Combined> {
    check_compatible(a, b, p)?;
    let b = if p.turn { turned(b) } else { b.clone() };
    let (cols, rows, a_at, b_at) = arrangement(a, &b, p);
    let layout = layout_keeping(a, a_at).ok_or_else(|| half_hex_error("the first", a, a_at))?;
    let mut map = Map::new(
        &format!("{} + {}", a.name, b.name),
        &a.ruleset_ref,
        a.ruleset.clone(),
        cols,
        rows,
        layout,
    );
    map.first_row = a.first_row;
    map.default = a.default;
    map.scale = a.scale.clone().or_else(|| b.scale.clone());
    map.extra = a.extra.clone();
    map.grid_extra = a.grid_extra.clone();
    map.default_extra = a.default_extra.clone();
    let a_motion = motion_onto(a, &map, a_at).expect("layout chosen to fit the first board");
    let b_motion =
        motion_onto(&b, &map, b_at).ok_or_else(|| half_hex_error("the second", &b, b_at))?;
    let mut notes = Vec::new();
    if a.first_row != b.first_row {
        notes.push(format!(
            "rows are numbered from {} as on `{}` (`{}` numbers them from {})",
            a.first_row, a.name, b.name, b.first_row
        ));
    }
    copy_board(&mut map, a, a_motion, &|_| false, &mut notes)?;
    let in_a = |h: Hex| a.contains(a_motion.undo(h));
    copy_board(&mut map, &b, b_motion, &in_a, &mut notes)?;
    Ok(Combined { map, notes })
}

/// The map turned by 180 degrees: A1 becomes the last hex, facings turn by three
/// sides. An odd number of shifted lines makes the other ones shifted, so the
/// stagger may change.
pub fn turned(m: &Map) -> Map {
    let mut out = m.clone();
    out.layout = [m.layout.stagger, other(m.layout.stagger)]
        .into_iter()
        .map(|stagger| Layout {
            stagger,
            ..m.layout
        })
        .find(|l| {
            let shift_at = |c: u32, r: u32| {
                let h = m.layout.hex_at(c as i32, r as i32);
                l.hex_at((m.cols - 1 - c) as i32, (m.rows - 1 - r) as i32) + h
            };
            let s = shift_at(0, 0);
            (0..m.cols).all(|c| (0..m.rows).all(|r| shift_at(c, r) == s))
        })
        .expect("a half turn of a rectangle is a rectangle in one of the two staggers");
    let shift = out.layout.hex_at(m.cols as i32 - 1, m.rows as i32 - 1) + m.layout.hex_at(0, 0);
    let motion = Motion { turn: true, shift };
    out.hexsides.clear();
    out.markers.clear();
    out.units.clear();
    out.zones.clear();
    out.hex_extra.clear();
    let mut notes = Vec::new();
    copy_board(&mut out, m, motion, &|_| false, &mut notes).expect("one board never clashes");
    out
}

fn other(s: Stagger) -> Stagger {
    match s {
        Stagger::Odd => Stagger::Even,
        Stagger::Even => Stagger::Odd,
    }
}

fn check_compatible(a: &Map, b: &Map, p: Placement) -> Result<()> {
    let refuse = |msg: String| Err(Error::new(ErrorKind::Invalid, msg));
    if p.overlap > 1 {
        return refuse(format!(
            "overlap must be 0 (the boards abut) or 1 (they share their edge half-hexes), not {}",
            p.overlap
        ));
    }
    if a.ruleset != b.ruleset {
        return refuse(format!(
            "the boards use different rulesets (`{}` and `{}`): combine boards of one ruleset",
            a.ruleset_ref, b.ruleset_ref
        ));
    }
    if a.layout.orientation != b.layout.orientation {
        return refuse(format!(
            "the boards have different orientations ({} and {})",
            orientation_name(a.layout.orientation),
            orientation_name(b.layout.orientation)
        ));
    }
    let (what, na, nb) = if p.direction.beside() {
        ("rows", a.rows, b.rows)
    } else {
        ("columns", a.cols, b.cols)
    };
    if na != nb {
        return refuse(format!(
            "a board placed {} must have as many {what} as the first: `{}` has {na}, `{}` has {nb}",
            p.direction.name(),
            a.name,
            b.name
        ));
    }
    let across = if p.direction.beside() {
        a.cols.min(b.cols)
    } else {
        a.rows.min(b.rows)
    };
    if p.overlap >= across {
        return refuse(format!(
            "an overlap of {} would leave nothing of a board {across} wide",
            p.overlap
        ));
    }
    if let (Some(sa), Some(sb)) = (&a.scale, &b.scale)
        && (sa.hex != sb.hex || sa.unit != sb.unit)
    {
        return refuse(format!(
            "the boards have different scales ({} {} and {} {} per hex)",
            sa.hex, sa.unit, sb.hex, sb.unit
        ));
    }
    Ok(())
}

fn orientation_name(o: Orientation) -> &'static str {
    match o {
        Orientation::Flat => "flat-top",
        Orientation::Pointy => "pointy-top",
    }
}

/// The combined size and where each board's first hex goes, as (column, row).
fn arrangement(a: &Map, b: &Map, p: Placement) -> (u32, u32, (i32, i32), (i32, i32)) {
    let k = p.overlap;
    let (ac, ar, bc, br) = (
        (a.cols - k) as i32,
        (a.rows - k) as i32,
        (b.cols - k) as i32,
        (b.rows - k) as i32,
    );
    match p.direction {
        Direction::East => (a.cols + b.cols - k, a.rows, (0, 0), (ac, 0)),
        Direction::West => (a.cols + b.cols - k, a.rows, (bc, 0), (0, 0)),
        Direction::South => (a.cols, a.rows + b.rows - k, (0, 0), (0, ar)),
        Direction::North => (a.cols, a.rows + b.rows - k, (0, br), (0, 0)),
    }
}

/// The first board's orientation with the stagger that keeps its hexes in place
/// when its first hex goes to `at`.
pub(super) fn layout_keeping(a: &Map, at: (i32, i32)) -> Option<Layout> {
    [a.layout.stagger, other(a.layout.stagger)]
        .into_iter()
        .map(|stagger| Layout {
            stagger,
            ..a.layout
        })
        .find(|&l| {
            let probe = Map::new("", "", a.ruleset.clone(), 1, 1, l);
            motion_onto(a, &probe, at).is_some()
        })
}

/// The shift taking `board` onto `onto` with its first hex at `at`, if every hex
/// lands where its offset position says (no half-hex slip).
pub(super) fn motion_onto(board: &Map, onto: &Map, at: (i32, i32)) -> Option<Motion> {
    let shift_at = |c: u32, r: u32| {
        let (c, r) = (c as i32, r as i32);
        onto.layout.hex_at(at.0 + c, at.1 + r) - board.layout.hex_at(c, r)
    };
    let shift = shift_at(0, 0);
    let fits = (0..board.cols).all(|c| (0..board.rows).all(|r| shift_at(c, r) == shift));
    fits.then_some(Motion { turn: false, shift })
}

fn half_hex_error(which: &str, board: &Map, at: (i32, i32)) -> Error {
    Error::new(
        ErrorKind::Invalid,
        format!(
            "{which} board (`{}`) would sit half a hex off the grid: its first hex would go to \
             column {}, row {}, where the shifted columns (or rows) do not match its own; \
             change the overlap or turn the board",
            board.name,
            at.0 + 1,
            at.1 + 1
        ),
    )
}

/// Copies a board's content onto `dst` moved by `m`. Hexes for which `taken` is
/// true already hold the first board's content: that is kept, and differences noted.
/// Content that lands off `dst` (a resize that removes columns) is left out and
/// listed in `notes`.
pub(super) fn copy_board(
    dst: &mut Map,
    src: &Map,
    m: Motion,
    taken: &dyn Fn(Hex) -> bool,
    notes: &mut Vec<String>,
) -> Result<()> {
    let (mut differing, mut cut) = (Vec::new(), Vec::new());
    for h in src.hexes() {
        let to = m.apply(h);
        let cell = *src.cell(h).expect("hex of the board");
        if !dst.contains(to) {
            if cell != src.default || src.hex_extra.contains_key(&h) {
                cut.push(src.label(h));
            }
            continue;
        }
        if taken(to) {
            if dst.cell(to) != Some(&cell) {
                differing.push(dst.label(to));
            }
            continue;
        }
        *dst.cell_mut(to).expect("board placed on the map") = cell;
        if let Some(x) = src.hex_extra.get(&h) {
            dst.hex_extra.insert(to, x.clone());
        }
    }
    if !differing.is_empty() {
        notes.push(format!(
            "{} shared hexes differ between the boards; the first board's terrain and level kept: {}",
            differing.len(),
            shortened(&differing)
        ));
    }
    copy_hexsides(dst, src, m, notes);
    for mk in &src.markers {
        let mut mk = mk.clone();
        mk.hex = m.apply(mk.hex);
        if !dst
            .markers
            .iter()
            .any(|x| x.hex == mk.hex && x.kind == mk.kind)
        {
            dst.markers.push(mk);
        }
    }
    for u in &src.units {
        copy_unit(dst, src, u, m, notes)?;
    }
    for z in &src.zones {
        copy_zone(dst, src, z, m, notes)?;
    }
    Ok(())
}

fn copy_hexsides(dst: &mut Map, src: &Map, m: Motion, notes: &mut Vec<String>) {
    for (side, f) in &src.hexsides {
        let (a, b) = (m.apply(side.a), m.apply(side.b));
        if !dst.contains(a) || !dst.contains(b) {
            notes.push(format!("hexside {} cut", src.side_label(side.a, side.b)));
            continue;
        }
        let mut f = f.clone();
        f.from = m.apply(f.from);
        match dst.hexsides.get(&crate::hex::Side::new(a, b)) {
            Some(kept) if kept.kind != f.kind => notes.push(format!(
                "hexside {} differs between the boards; the first board's kept",
                dst.side_label(a, b)
            )),
            Some(_) => {}
            None => {
                dst.hexsides.insert(crate::hex::Side::new(a, b), f);
            }
        }
    }
}

fn copy_unit(dst: &mut Map, src: &Map, u: &Unit, m: Motion, notes: &mut Vec<String>) -> Result<()> {
    let mut u = u.clone();
    u.hex = m.apply(u.hex);
    if !dst.contains(u.hex) {
        notes.push(format!(
            "unit `{}` in {} cut",
            u.id,
            src.label(m.undo(u.hex))
        ));
        return Ok(());
    }
    u.facing = u.facing.map(|f| m.facing(f));
    match dst.units.iter().find(|x| x.id == u.id) {
        Some(x) if *x == u => Ok(()),
        Some(x) => Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "unit `{}` is on both boards (at {} and at {} of `{}`): rename one before combining",
                u.id,
                dst.label(x.hex),
                src.label(m.undo(u.hex)),
                src.name
            ),
        )),
        None => {
            dst.units.push(u);
            Ok(())
        }
    }
}

/// Moves a named zone (`A1:F10,G3`) with its board: rectangles stay rectangles.
fn copy_zone(
    dst: &mut Map,
    src: &Map,
    z: &NamedZone,
    m: Motion,
    notes: &mut Vec<String>,
) -> Result<()> {
    let Some(zone) = moved_zone(dst, src, &z.zone, m) else {
        notes.push(format!(
            "zone `{}` ({}) could not be moved and was left out",
            z.name, z.zone
        ));
        return Ok(());
    };
    match dst.zones.iter().find(|x| x.name == z.name) {
        Some(x) if x.zone == zone => Ok(()),
        Some(_) => Err(Error::new(
            ErrorKind::Invalid,
            format!(
                "zone `{}` is named on both boards: rename one before combining",
                z.name
            ),
        )),
        None => {
            dst.zones.push(NamedZone {
                name: z.name.clone(),
                zone,
            });
            Ok(())
        }
    }
}

fn moved_zone(dst: &Map, src: &Map, text: &str, m: Motion) -> Option<String> {
    let moved = |l: &str| -> Option<(u32, u32)> {
        let (c, r) = label::parse_label(l.trim(), src.first_row)?;
        let h = m.apply(src.layout.hex_at(c as i32, r as i32));
        dst.contains(h).then_some(())?;
        let (c, r) = dst.layout.offset_of(h);
        Some((u32::try_from(c).ok()?, u32::try_from(r).ok()?))
    };
    let fmt = |(c, r): (u32, u32)| label::format_label(c, r, dst.first_row);
    let parts: Option<Vec<String>> = text
        .split(',')
        .map(|part| match part.split_once(':') {
            Some((x, y)) => {
                let (x, y) = (moved(x)?, moved(y)?);
                let lo = (x.0.min(y.0), x.1.min(y.1));
                let hi = (x.0.max(y.0), x.1.max(y.1));
                Some(format!("{}:{}", fmt(lo), fmt(hi)))
            }
            None => moved(part).map(fmt),
        })
        .collect();
    parts.map(|p| p.join(","))
}

/// At most eight labels, then how many more.
fn shortened(labels: &[String]) -> String {
    let shown = labels
        .iter()
        .take(8)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match labels.len().saturating_sub(8) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}
