//! Every menu entry and keyboard shortcut in one place, so the menus, the
//! tooltips and the key handling can never disagree.

use crate::tools::Tool;
use egui::{Key, KeyboardShortcut, Modifiers};

/// A user command, from a menu, a shortcut or a button.
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub enum Command {
    /// Start a new map (asks first if there are unsaved changes).
    New,
    /// Open a map by path.
    Open,
    /// Open this file.
    OpenPath(std::path::PathBuf),
    /// Import a MegaMek `.board` file as a new, unsaved map.
    ImportBoard,
    /// Import a GeoTIFF elevation model as a new, unsaved map.
    ImportDem,
    /// Save to the map's path (or ask for one).
    Save,
    /// Save under a new path.
    SaveAs,
    /// Export the canvas view to PNG.
    ExportPng,
    /// Export the canvas view to SVG.
    ExportSvg,
    /// Place another board file beside the map.
    Combine,
    /// Put a picture of the board under the grid.
    Background,
    /// Edit the map's name and scale.
    Properties,
    /// Quit (asks first if there are unsaved changes).
    Quit,
    /// Undo the last step.
    Undo,
    /// Redo the last undone step.
    Redo,
    /// Fit the map in the window.
    ResetZoom,
    /// Zoom in one step.
    ZoomIn,
    /// Zoom out one step.
    ZoomOut,
    /// Show or hide hex labels.
    ToggleLabels,
    /// Pick a tool.
    Tool(Tool),
    /// Set the brush size (1, 2, 3).
    Brush(u32),
    /// Cancel the running overlay job.
    CancelJob,
    /// Show the keyboard shortcuts.
    Help,
    /// Pick the previous terrain (or hexside, marker kind) in the palette.
    PrevKind,
    /// Pick the next terrain (or hexside, marker kind) in the palette.
    NextKind,
}

const CTRL: Modifiers = Modifiers::COMMAND;
const CTRL_SHIFT: Modifiers = Modifiers {
    shift: true,
    ..Modifiers::COMMAND
};

impl Command {
    /// Menu text.
    pub fn label(&self) -> String {
        match self {
            Command::New => "New map...".into(),
            Command::Open => "Open...".into(),
            Command::OpenPath(p) => p.display().to_string(),
            Command::ImportBoard => "Import MegaMek board...".into(),
            Command::ImportDem => "Import DEM (GeoTIFF)...".into(),
            Command::Save => "Save".into(),
            Command::SaveAs => "Save as...".into(),
            Command::ExportPng => "Export view as PNG...".into(),
            Command::ExportSvg => "Export view as SVG...".into(),
            Command::Combine => "Combine with board...".into(),
            Command::Background => "Background image...".into(),
            Command::Properties => "Map properties...".into(),
            Command::Quit => "Quit".into(),
            Command::Undo => "Undo".into(),
            Command::Redo => "Redo".into(),
            Command::ResetZoom => "Fit map".into(),
            Command::ZoomIn => "Zoom in".into(),
            Command::ZoomOut => "Zoom out".into(),
            Command::ToggleLabels => "Hex labels".into(),
            Command::Tool(t) => t.name().into(),
            Command::Brush(n) => format!("Brush size {n}"),
            Command::CancelJob => "Cancel analysis".into(),
            Command::Help => "Keyboard shortcuts".into(),
            Command::PrevKind => "Previous terrain / kind".into(),
            Command::NextKind => "Next terrain / kind".into(),
        }
    }

    /// The shortcut, if the command has one.
    pub fn shortcut(&self) -> Option<KeyboardShortcut> {
        let k = |m, key| Some(KeyboardShortcut::new(m, key));
        match self {
            Command::New => k(CTRL, Key::N),
            Command::Open => k(CTRL, Key::O),
            Command::Save => k(CTRL, Key::S),
            Command::SaveAs => k(CTRL_SHIFT, Key::S),
            Command::ExportPng => k(CTRL, Key::E),
            Command::ExportSvg => k(CTRL_SHIFT, Key::E),
            Command::Properties => k(CTRL, Key::P),
            Command::Quit => k(CTRL, Key::Q),
            Command::Undo => k(CTRL, Key::Z),
            Command::Redo => k(CTRL_SHIFT, Key::Z),
            Command::ResetZoom => k(CTRL, Key::Num0),
            Command::ZoomIn => k(CTRL, Key::Plus),
            Command::ZoomOut => k(CTRL, Key::Minus),
            Command::ToggleLabels => k(Modifiers::NONE, Key::G),
            Command::Tool(t) => k(Modifiers::NONE, t.key()),
            Command::Brush(1) => k(Modifiers::NONE, Key::Num1),
            Command::Brush(2) => k(Modifiers::NONE, Key::Num2),
            Command::Brush(3) => k(Modifiers::NONE, Key::Num3),
            Command::CancelJob => k(Modifiers::NONE, Key::Escape),
            Command::Help => k(Modifiers::NONE, Key::F1),
            Command::PrevKind => k(Modifiers::NONE, Key::OpenBracket),
            Command::NextKind => k(Modifiers::NONE, Key::CloseBracket),
            Command::OpenPath(_)
            | Command::ImportBoard
            | Command::ImportDem
            | Command::Brush(_)
            | Command::Combine
            | Command::Background => None,
        }
    }

    /// The shortcut as text for menus and tooltips.
    pub fn shortcut_text(&self) -> String {
        self.shortcut()
            .map(|s| format_shortcut(&s))
            .unwrap_or_default()
    }

    /// Commands reachable by keyboard, most specific first (Ctrl+Shift+S before Ctrl+S).
    pub fn with_shortcuts() -> Vec<Command> {
        let mut v = vec![
            Command::SaveAs,
            Command::Redo,
            Command::ExportSvg,
            Command::New,
            Command::Open,
            Command::Save,
            Command::ExportPng,
            Command::Properties,
            Command::Quit,
            Command::Undo,
            Command::ResetZoom,
            Command::ZoomIn,
            Command::ZoomOut,
        ];
        // Plain keys last: they only fire without modifiers and outside text fields.
        v.push(Command::ToggleLabels);
        v.extend(Tool::ALL.iter().map(|t| Command::Tool(*t)));
        v.extend((1..=3).map(Command::Brush));
        v.push(Command::CancelJob);
        v.push(Command::Help);
        v.push(Command::PrevKind);
        v.push(Command::NextKind);
        v
    }

    /// True for shortcuts without modifiers, which typing in a text field must not trigger.
    pub fn is_plain_key(&self) -> bool {
        self.shortcut().is_some_and(|s| s.modifiers.is_none())
    }
}

/// Shortcut text in the usual style (`Ctrl+Shift+S`, `B`).
pub fn format_shortcut(s: &KeyboardShortcut) -> String {
    let mut t = String::new();
    if s.modifiers.command || s.modifiers.ctrl {
        t += "Ctrl+";
    }
    if s.modifiers.alt {
        t += "Alt+";
    }
    if s.modifiers.shift {
        t += "Shift+";
    }
    t += match s.logical_key {
        Key::Num0 => "0",
        Key::Num1 => "1",
        Key::Num2 => "2",
        Key::Num3 => "3",
        Key::Plus => "+",
        Key::Minus => "-",
        Key::Escape => "Esc",
        Key::OpenBracket => "[",
        Key::CloseBracket => "]",
        k => k.name(),
    };
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_its_own_key() {
        let mut keys: Vec<_> = Command::with_shortcuts()
            .iter()
            .filter_map(|c| c.shortcut())
            .collect();
        let n = keys.len();
        keys.sort_by_key(format_shortcut);
        keys.dedup();
        assert_eq!(keys.len(), n, "two commands share a shortcut");
        assert_eq!(Command::SaveAs.shortcut_text(), "Ctrl+Shift+S");
    }
}
