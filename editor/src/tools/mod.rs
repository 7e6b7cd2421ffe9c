//! The editing tools: what a click or drag on the canvas does to the map.
//!
//! Each tool's map changes live in its own file as plain functions on a
//! [`Map`], so they are tested without a window; the
//! canvas only turns pointer positions into hexes and calls them.

pub mod fill;
pub mod hexside;
pub mod level;
pub mod marker;
pub mod terrain;
pub mod unit;
pub mod zones;

use egui::Key;
use hexsight_analysis::Map;
use hexsight_analysis::hex::Hex;

/// A canvas tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Select a hex: the source of overlays and the inspector's subject.
    Select,
    /// Paint terrain with a brush.
    Terrain,
    /// Raise, lower or set levels with a brush.
    Level,
    /// Toggle the slope flag (crest lines).
    Slope,
    /// Flood-fill a connected area of one terrain.
    Fill,
    /// Put or remove hexside features.
    Hexside,
    /// Put or remove markers.
    Marker,
    /// Place and edit units.
    Unit,
    /// Reset hexes to the map default, clearing what is on them.
    Eraser,
    /// Pick terrain and level from a hex.
    Eyedropper,
    /// Trace line of sight from an observer to the hovered hex.
    Los,
    /// Paint named zones (setup areas, objectives).
    Zones,
    /// Choose hexes of a zone to watch or hide from another (`query::deploy`).
    Deploy,
}

impl Tool {
    /// Every tool, in toolbar order.
    pub const ALL: [Tool; 13] = [
        Tool::Select,
        Tool::Terrain,
        Tool::Level,
        Tool::Slope,
        Tool::Fill,
        Tool::Hexside,
        Tool::Marker,
        Tool::Unit,
        Tool::Eraser,
        Tool::Eyedropper,
        Tool::Los,
        Tool::Zones,
        Tool::Deploy,
    ];

    /// Name shown on buttons.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Select => "Select",
            Tool::Terrain => "Terrain",
            Tool::Level => "Level",
            Tool::Slope => "Slope",
            Tool::Fill => "Fill",
            Tool::Hexside => "Hexside",
            Tool::Marker => "Marker",
            Tool::Unit => "Unit",
            Tool::Eraser => "Eraser",
            Tool::Eyedropper => "Eyedropper",
            Tool::Los => "LOS",
            Tool::Zones => "Zones",
            Tool::Deploy => "Deploy",
        }
    }

    /// The key that picks the tool.
    pub fn key(self) -> Key {
        match self {
            Tool::Select => Key::V,
            Tool::Terrain => Key::B,
            Tool::Level => Key::L,
            Tool::Slope => Key::K,
            Tool::Fill => Key::F,
            Tool::Hexside => Key::H,
            Tool::Marker => Key::M,
            Tool::Unit => Key::U,
            Tool::Eraser => Key::E,
            Tool::Eyedropper => Key::I,
            Tool::Los => Key::O,
            Tool::Zones => Key::Z,
            Tool::Deploy => Key::D,
        }
    }

    /// What the tool does, for its tooltip.
    pub fn help(self) -> &'static str {
        match self {
            Tool::Select => {
                "Click a hex to select it: overlays are computed from the selected hex."
            }
            Tool::Terrain => "Drag to paint the palette terrain. Brush size 1/2/3.",
            Tool::Level => "Drag to raise, lower or set levels. Brush size 1/2/3.",
            Tool::Slope => {
                "Drag to mark slope hexes (crest lines); starting on a slope hex clears instead."
            }
            Tool::Fill => "Click to fill the connected area of the same terrain and level.",
            Tool::Hexside => {
                "Click near a hexside to put the chosen feature; click it again (or right-click) to remove."
            }
            Tool::Marker => "Click a hex to add or remove the chosen marker.",
            Tool::Unit => {
                "Click an empty hex to place a unit (Shift+click stacks another); click a unit to edit it; right-click removes it."
            }
            Tool::Eraser => {
                "Drag to reset hexes to the default terrain and clear markers, units and hexsides."
            }
            Tool::Eyedropper => {
                "Click a hex to pick its terrain and level, then return to the previous tool."
            }
            Tool::Los => "Click an observer, then move over targets. Right-click clears.",
            Tool::Zones => {
                "Pick or type a zone name, then drag to add hexes; right-drag or Shift+drag removes. Brush size 1/2/3."
            }
            Tool::Deploy => {
                "Pick a zone to deploy in and a zone to watch or hide from, then Run: the chosen hexes are marked."
            }
        }
    }

    /// True for tools that act along a drag, one undo step per stroke.
    pub fn is_brush(self) -> bool {
        matches!(
            self,
            Tool::Terrain | Tool::Level | Tool::Slope | Tool::Eraser
        )
    }
}

/// How the level brush changes a hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelMode {
    /// One level up per stroke.
    Raise,
    /// One level down per stroke.
    Lower,
    /// Set to the chosen level.
    Set,
}

/// Tool options shown in the tool panel.
#[derive(Clone, Debug)]
pub struct ToolSettings {
    /// Brush size in hexes across: 1, 2 or 3 (radius 0, 1, 2).
    pub brush: u32,
    /// Terrain index for the terrain brush and fill.
    pub terrain: u16,
    /// Level brush mode.
    pub level_mode: LevelMode,
    /// Level for [`LevelMode::Set`].
    pub level: i32,
    /// Hexside kind index.
    pub hexside: u16,
    /// Marker kind index.
    pub marker: u16,
    /// The template for new units.
    pub unit: unit::UnitTemplate,
}

impl Default for ToolSettings {
    fn default() -> Self {
        ToolSettings {
            brush: 1,
            terrain: 0,
            level_mode: LevelMode::Raise,
            level: 1,
            hexside: 0,
            marker: 0,
            unit: unit::UnitTemplate::default(),
        }
    }
}

/// The on-map hexes under a brush of `size` (1, 2, 3) centred on `center`.
pub fn brush_hexes(map: &Map, center: Hex, size: u32) -> Vec<Hex> {
    let radius = size.clamp(1, 3) as i32 - 1;
    let mut out = Vec::new();
    for dq in -radius..=radius {
        for dr in (-radius).max(-dq - radius)..=radius.min(-dq + radius) {
            let h = Hex::new(center.q + dq, center.r + dr);
            if map.contains(h) {
                out.push(h);
            }
        }
    }
    out
}

/// Removes markers a terrain forbids in `h` (the loader would refuse them).
pub fn drop_forbidden_markers(map: &mut Map, h: Hex) -> usize {
    let Some(t) = map.terrain(h) else { return 0 };
    let forbidden: Vec<u16> = map
        .ruleset
        .markers
        .iter()
        .enumerate()
        .filter(|(_, m)| t.forbids_markers.contains(&m.id))
        .map(|(i, _)| i as u16)
        .collect();
    let before = map.markers.len();
    map.markers
        .retain(|m| !(m.hex == h && forbidden.contains(&m.kind)));
    before - map.markers.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexsight_analysis::Ruleset;
    use hexsight_analysis::hex::Layout;
    use std::sync::Arc;

    #[test]
    fn brush_sizes_cover_one_seven_and_nineteen_hexes() {
        let rs = Arc::new(Ruleset::builtin("combat-commander").unwrap());
        let map = Map::new("t", "combat-commander", rs, 10, 10, Layout::default());
        let c = map.layout.hex_at(5, 5);
        assert_eq!(brush_hexes(&map, c, 1).len(), 1);
        assert_eq!(brush_hexes(&map, c, 2).len(), 7);
        assert_eq!(brush_hexes(&map, c, 3).len(), 19);
        assert_eq!(
            brush_hexes(&map, map.layout.hex_at(0, 0), 2).len(),
            3,
            "clipped at the corner"
        );
    }
}
