//! hexsight-editor: paint hex maps (terrain, levels, hexsides, markers, units)
//! and see lines of sight and overlays computed live by `hexsight-analysis`.

#![forbid(unsafe_code)]

pub mod app;
pub mod background;
pub mod canvas;
pub mod commands;
pub mod document;
pub mod export;
pub mod files;
pub mod jobs;
pub mod layers;
pub mod stamp;
pub mod tools;

pub use app::EditorApp;
