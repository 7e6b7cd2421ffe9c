//! The in-memory map: dense per-hex arrays plus hexsides, markers and units.

use crate::hex::{Hex, Layout, Side, label};
use crate::ruleset::Ruleset;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Keys a file carries that hexsight does not interpret, kept for the round trip.
pub type Extra = serde_json::Map<String, serde_json::Value>;

/// What a hex holds: terrain (index into the ruleset), level and slope flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Cell {
    /// Index into the ruleset's terrain table.
    pub terrain: u16,
    /// Ground level at the hex centre.
    pub level: i32,
    /// The hex shows more than one level: a crest line runs through it.
    pub slope: bool,
}

/// A hexside feature (hedge, wall) and the hex the file named it from.
#[derive(Clone, Debug, PartialEq)]
pub struct HexsideFeature {
    /// Index into the ruleset's hexside table.
    pub kind: u16,
    /// The hex the side was given from, so saving writes it back the same way.
    pub from: Hex,
    /// Uninterpreted keys.
    pub extra: Extra,
}

/// A marker (smoke, blaze) in a hex.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// Where it is.
    pub hex: Hex,
    /// Index into the ruleset's marker table.
    pub kind: u16,
    /// Uninterpreted keys.
    pub extra: Extra,
}

/// A unit on the map. Kinds and states are checked by the ruleset family.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// Unique id (`2/95th`).
    pub id: String,
    /// Where it stands.
    pub hex: Hex,
    /// Its side (`allied`, `french`).
    pub side: String,
    /// Its kind (`infantry`, `artillery`).
    pub kind: String,
    /// Its state (`standing`, `prone`, `crest`); empty when the file gives none.
    pub state: String,
    /// Facing hexside (direction index), for states that need one.
    pub facing: Option<usize>,
    /// Uninterpreted keys.
    pub extra: Extra,
}

/// The map scale: the length of one hex.
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    /// Length of one hex, centre to centre.
    pub hex: f64,
    /// Unit of that length (`m`, `cm`, `yd`).
    pub unit: String,
    /// Uninterpreted keys.
    pub extra: Extra,
}

/// A zone the map names (`"zones": {"german-setup": "A1:F10,G3"}`), kept as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedZone {
    /// The name (no spaces, commas or colons; not a hex label).
    pub name: String,
    /// Rectangles and single hexes, as a zone on the command line.
    pub zone: String,
}

/// A hex map with its ruleset.
#[derive(Clone, Debug)]
pub struct Map {
    /// Display name.
    pub name: String,
    /// The ruleset as the file names it (built-in name or relative path).
    pub ruleset_ref: String,
    /// The ruleset itself.
    pub ruleset: Arc<Ruleset>,
    /// Number of columns.
    pub cols: u32,
    /// Number of rows.
    pub rows: u32,
    /// Orientation and stagger.
    pub layout: Layout,
    /// The number of the first row in labels (1, or 0 on some boards).
    pub first_row: u32,
    /// Length of one hex, if the file gives one.
    pub scale: Option<Scale>,
    /// Where the map lies on the ground, if the file says (`geo` block).
    pub geo: Option<crate::georef::Geo>,
    /// What a hex not listed in the file holds.
    pub default: Cell,
    cells: Vec<Cell>,
    /// Hexside features by hexside.
    pub hexsides: BTreeMap<Side, HexsideFeature>,
    /// Markers in file order.
    pub markers: Vec<Marker>,
    /// Units in file order.
    pub units: Vec<Unit>,
    /// Named zones in file order.
    pub zones: Vec<NamedZone>,
    /// Uninterpreted keys: top level, `grid`, `default`, and per hex.
    pub extra: Extra,
    /// Uninterpreted keys of the `grid` object.
    pub grid_extra: Extra,
    /// Uninterpreted keys of the `default` object.
    pub default_extra: Extra,
    /// Uninterpreted keys of individual hex entries.
    pub hex_extra: BTreeMap<Hex, Extra>,
}

impl Map {
    /// A blank map: every hex holds the ruleset's first terrain at level 0.
    pub fn new(
        name: &str,
        ruleset_ref: &str,
        ruleset: Arc<Ruleset>,
        cols: u32,
        rows: u32,
        layout: Layout,
    ) -> Map {
        let default = Cell {
            terrain: 0,
            level: ruleset.levels.min.max(0).min(ruleset.levels.max),
            slope: false,
        };
        Map {
            name: name.to_string(),
            ruleset_ref: ruleset_ref.to_string(),
            ruleset,
            cols,
            rows,
            layout,
            first_row: 1,
            scale: None,
            geo: None,
            default,
            cells: vec![default; (cols as usize) * (rows as usize)],
            hexsides: BTreeMap::new(),
            markers: Vec::new(),
            units: Vec::new(),
            zones: Vec::new(),
            extra: Extra::new(),
            grid_extra: Extra::new(),
            default_extra: Extra::new(),
            hex_extra: BTreeMap::new(),
        }
    }

    /// Number of hexes.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// True for a map without hexes (never built by the loader).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The dense index of a hex (column-major: A1, A2, ..., B1, ...), if on the map.
    pub fn index(&self, h: Hex) -> Option<usize> {
        let (col, row) = self.layout.offset_of(h);
        self.offset_index(u32::try_from(col).ok()?, u32::try_from(row).ok()?)
    }

    /// The dense index of offset column `col` and row `row`, if on the map.
    fn offset_index(&self, col: u32, row: u32) -> Option<usize> {
        (col < self.cols && row < self.rows)
            .then(|| col as usize * self.rows as usize + row as usize)
    }

    /// The hex at a dense index.
    pub fn hex_of(&self, index: usize) -> Hex {
        let (col, row) = self.place(index);
        self.layout.hex_at(col as i32, row as i32)
    }

    /// The offset column and row of a dense index (the numbering [`Map::index`] gives).
    fn place(&self, index: usize) -> (u32, u32) {
        let rows = self.rows as usize;
        ((index / rows) as u32, (index % rows) as u32)
    }

    /// True when the hex is on the map.
    pub fn contains(&self, h: Hex) -> bool {
        self.index(h).is_some()
    }

    /// Every hex in index order.
    pub fn hexes(&self) -> impl Iterator<Item = Hex> + '_ {
        (0..self.len()).map(|i| self.hex_of(i))
    }

    /// What a hex holds, if it is on the map.
    pub fn cell(&self, h: Hex) -> Option<&Cell> {
        self.index(h).map(|i| &self.cells[i])
    }

    /// Mutable access to a hex, if it is on the map.
    pub fn cell_mut(&mut self, h: Hex) -> Option<&mut Cell> {
        self.index(h).map(|i| &mut self.cells[i])
    }

    /// All cells in index order.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// All cells in index order, to fill (or take out while the rest of the map
    /// is read).
    pub(crate) fn cells_mut(&mut self) -> &mut Vec<Cell> {
        &mut self.cells
    }

    /// The level of a hex (the default level off the map).
    pub fn level(&self, h: Hex) -> i32 {
        self.cell(h).map_or(self.default.level, |c| c.level)
    }

    /// The label of map hex `index`, without a string of its own (for long lists).
    pub fn index_label(&self, index: usize) -> label::Label {
        let (col, row) = self.place(index);
        label::Label::new(col, row, self.first_row)
    }

    /// The dense index of the hex a label names, as `index(parse_hex(text))`
    /// without the axial hex between (a map's million labels are placed on loading).
    pub(crate) fn label_index(&self, text: &str) -> Option<usize> {
        let (col, row) = label::parse_label(text.trim(), self.first_row)?;
        self.offset_index(col, row)
    }

    /// The hex's label (`C5`); hexes off the map get a bracketed axial form.
    pub fn label(&self, h: Hex) -> String {
        let (col, row) = self.layout.offset_of(h);
        if col >= 0 && row >= 0 {
            label::format_label(col as u32, row as u32, self.first_row)
        } else {
            format!("[{},{}]", h.q, h.r)
        }
    }

    /// Parses a label into a hex on this map.
    pub fn parse_hex(&self, text: &str) -> Option<Hex> {
        let (col, row) = label::parse_label(text.trim(), self.first_row)?;
        let h = self
            .layout
            .hex_at(i32::try_from(col).ok()?, i32::try_from(row).ok()?);
        self.contains(h).then_some(h)
    }

    /// The hexside feature between two adjacent hexes.
    pub fn hexside(&self, a: Hex, b: Hex) -> Option<&HexsideFeature> {
        self.hexsides.get(&Side::new(a, b))
    }

    /// Markers in a hex.
    pub fn markers_at(&self, h: Hex) -> impl Iterator<Item = &Marker> + '_ {
        self.markers.iter().filter(move |m| m.hex == h)
    }

    /// Units in a hex.
    pub fn units_at(&self, h: Hex) -> impl Iterator<Item = &Unit> + '_ {
        self.units.iter().filter(move |u| u.hex == h)
    }

    /// A named zone by name.
    pub fn zone_named(&self, name: &str) -> Option<&NamedZone> {
        self.zones.iter().find(|z| z.name == name)
    }

    /// A unit by id.
    pub fn unit(&self, id: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }

    /// The terrain table entry of a hex.
    pub fn terrain(&self, h: Hex) -> Option<&crate::ruleset::TerrainType> {
        self.cell(h)
            .map(|c| &self.ruleset.terrain[c.terrain as usize])
    }

    /// The label of a hexside, as `C5/C6`.
    pub fn side_label(&self, a: Hex, b: Hex) -> String {
        format!("{}/{}", self.label(a), self.label(b))
    }
}
