//! The map: in-memory model and the version-1 file format.

pub mod combine;
pub mod file;
pub mod geo;
pub mod layer;
pub mod model;
pub mod relabel;
pub mod resize;
pub mod zones;

pub use file::{resolve_ruleset, write_atomic};
pub use model::{Cell, Extra, HexsideFeature, Map, Marker, NamedZone, Scale, Unit};
