//! Resizing a map: columns and rows added or removed on any side. The content
//! moves as one piece (as in [`super::combine`]), so what is kept keeps its
//! place on the ground and, added east or south, its labels; what falls off
//! the new grid is listed.

use super::combine::{copy_board, layout_keeping, motion_onto};
use super::file::{MAX_HEXES, MAX_SIDE};
use super::model::Map;
use crate::error::{Error, ErrorKind, Result};

/// Columns or rows added (positive) or removed (negative) on each side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Margins {
    /// Columns before column A.
    pub west: i32,
    /// Columns after the last column.
    pub east: i32,
    /// Rows before the first row.
    pub north: i32,
    /// Rows after the last row.
    pub south: i32,
}

/// The resized map and what the user should know (what was cut, labels that moved).
#[derive(Clone, Debug)]
pub struct Resized {
    /// The result.
    pub map: Map,
    /// Content cut and labels shifted, one line each.
    pub notes: Vec<String>,
}

/// The map with `g` columns and rows added or removed; new hexes hold the map's default.
pub fn resize(m: &Map, g: Margins) -> Result<Resized> {
    let cols = i64::from(m.cols) + i64::from(g.west) + i64::from(g.east);
    let rows = i64::from(m.rows) + i64::from(g.north) + i64::from(g.south);
    if cols < 1 || rows < 1 {
        return Err(refuse(format!(
            "that leaves {cols} x {rows} hexes: a map needs at least one column and one row"
        )));
    }
    if cols > i64::from(MAX_SIDE) || rows > i64::from(MAX_SIDE) || cols * rows > MAX_HEXES as i64 {
        return Err(refuse(format!(
            "{cols} x {rows} is too big (at most {MAX_SIDE} a side and {MAX_HEXES} hexes)"
        )));
    }
    let at = (g.west, g.north);
    let layout = layout_keeping(m, at).expect("one of the two staggers keeps a shifted grid");
    let mut out = Map::new(
        &m.name,
        &m.ruleset_ref,
        m.ruleset.clone(),
        cols as u32,
        rows as u32,
        layout,
    );
    out.first_row = m.first_row;
    out.scale = m.scale.clone();
    out.default = m.default;
    out.extra = m.extra.clone();
    out.grid_extra = m.grid_extra.clone();
    out.default_extra = m.default_extra.clone();
    for h in out.hexes().collect::<Vec<_>>() {
        *out.cell_mut(h).expect("hex of the map") = m.default;
    }
    let motion = motion_onto(m, &out, at).expect("layout chosen to keep the grid");
    let mut notes = Vec::new();
    copy_board(&mut out, m, motion, &|_| false, &mut notes)?;
    let first = m.hex_of(0);
    if g.west != 0 || g.north != 0 {
        let to = motion.apply(first);
        let now = if out.contains(to) {
            out.label(to)
        } else {
            "off the map".into()
        };
        notes.push(format!("labels moved: {} is now {now}", m.label(first)));
    }
    Ok(Resized { map: out, notes })
}

fn refuse(msg: String) -> Error {
    Error::new(ErrorKind::Invalid, msg)
}
