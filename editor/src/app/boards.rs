//! File > Combine with...: another board file placed beside the open map, as one
//! undoable edit (the open file is not touched until the user saves).

use super::*;
use hexsight_analysis::map::combine::{Direction, Placement, combine};

/// The combine form: the other board and how to place it.
#[derive(Clone, Debug)]
pub struct CombineForm {
    /// The other board's file.
    pub path: PathBuf,
    /// The board as loaded, or the loader's message.
    pub board: Result<Arc<Map>, String>,
    /// Where it goes.
    pub direction: Direction,
    /// Shared edge columns or rows (0 or 1).
    pub overlap: u32,
    /// Turn it by 180 degrees.
    pub turn: bool,
    /// The result for the placement last checked: (columns, rows, notes) or why not.
    checked: Option<(Placement, Preview)>,
}

/// The combined size and the number of notes, or why the boards do not fit.
type Preview = Result<(u32, u32, usize), String>;

impl CombineForm {
    /// A form for the board in `path`, placed east, abutting.
    pub fn new(path: PathBuf) -> CombineForm {
        let board = files::load_map(&path).map(|(m, _)| Arc::new(m));
        CombineForm {
            path,
            board,
            direction: Direction::East,
            overlap: 0,
            turn: false,
            checked: None,
        }
    }

    fn placement(&self) -> Placement {
        Placement {
            direction: self.direction,
            overlap: self.overlap,
            turn: self.turn,
        }
    }
}

impl EditorApp {
    /// Places the board of `form` beside the open map as one undo step; the
    /// error says why the boards do not fit together.
    pub fn combine_board(&mut self, form: &CombineForm) -> Result<(), String> {
        let board = form.board.as_ref().map_err(Clone::clone)?;
        let combined =
            combine(self.doc.map(), board, form.placement()).map_err(|e| e.to_string())?;
        self.end_stroke();
        self.doc.edit("Combine boards", |m| *m = combined.map);
        // Hexes of the open map may have moved (west, north): old picks are stale.
        self.selected = None;
        self.line_of_sight.clear();
        self.fit_pending = true;
        let m = self.doc.map();
        self.status = format!(
            "Combined with {}: now {} x {} hexes",
            form.path.display(),
            m.cols,
            m.rows
        );
        if !combined.notes.is_empty() {
            self.error = Some(format!(
                "Combined; please check:\n\n{}",
                combined.notes.join("\n")
            ));
        }
        Ok(())
    }

    /// Draws the combine form; returns whether it stays open.
    pub(super) fn combine_dialog(&mut self, ctx: &egui::Context, mut f: CombineForm) -> bool {
        let (mut go, mut cancel) = (false, false);
        // What the result would be, shown before anything changes (checked
        // again only when the placement changes: a big map takes a moment).
        if f.checked.as_ref().is_none_or(|(p, _)| *p != f.placement()) {
            let result = f.board.as_ref().map_err(Clone::clone).and_then(|b| {
                combine(self.doc.map(), b, f.placement())
                    .map(|c| (c.map.cols, c.map.rows, c.notes.len()))
                    .map_err(|e| e.to_string())
            });
            f.checked = Some((f.placement(), result));
        }
        let preview = f.checked.as_ref().expect("just checked").1.clone();
        egui::Modal::new(egui::Id::unique("combine")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            ui.heading("Combine with another board");
            let m = self.doc.map();
            ui.label(format!("Open map: {} ({} x {})", m.name, m.cols, m.rows));
            match &f.board {
                Ok(b) => ui.label(format!(
                    "Board: {} ({} x {}), {}",
                    b.name,
                    b.cols,
                    b.rows,
                    f.path.display()
                )),
                Err(_) => ui.label(format!("Board: {}", f.path.display())),
            };
            ui.horizontal(|ui| {
                ui.label("Place it");
                for d in [
                    Direction::North,
                    Direction::East,
                    Direction::South,
                    Direction::West,
                ] {
                    ui.selectable_value(&mut f.direction, d, d.name());
                }
            });
            ui.horizontal(|ui| {
                ui.label("Seam");
                ui.selectable_value(&mut f.overlap, 0, "boards abut");
                ui.selectable_value(&mut f.overlap, 1, "share edge half-hexes");
            });
            ui.checkbox(&mut f.turn, "Turn the board 180 degrees");
            match &preview {
                Ok((cols, rows, notes)) => {
                    let extra = if *notes > 0 {
                        format!(" ({notes} things to check, listed after)")
                    } else {
                        String::new()
                    };
                    ui.label(format!("Result: {cols} x {rows} hexes{extra}"));
                }
                Err(e) => {
                    ui.colored_label(Color32::from_rgb(240, 120, 90), e);
                }
            }
            ui.horizontal(|ui| {
                go = ui
                    .add_enabled(preview.is_ok(), egui::Button::new("Combine"))
                    .clicked();
                cancel = ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape));
            });
        });
        if go && let Err(e) = self.combine_board(&f) {
            self.error = Some(e);
        }
        if go || cancel {
            return false;
        }
        self.dialog = Some(Dialog::Combine(f));
        true
    }
}
