//! The map: in-memory model and the version-1 file format.

pub mod file;
pub mod geo;
pub mod model;

pub use file::{resolve_ruleset, write_atomic};
pub use model::{Cell, Extra, HexsideFeature, Map, Marker, NamedZone, Scale, Unit};
