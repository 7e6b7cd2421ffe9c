//! The map: in-memory model and the version-1 file format.
//!
//! This layer reads and checks a file with its ruleset's tables ([`Map::read`],
//! [`Map::parse`]); checking the units against the family's rules is the layer above
//! it, so [`Map::load`], the usual way in, is defined with the rules (`rules/load.rs`).

pub mod combine;
mod entries;
pub mod file;
pub mod geo;
pub mod layer;
pub(crate) mod model;
mod plain_hexes;
pub mod relabel;
pub mod resize;
pub mod zones;

pub use file::{resolve_ruleset, write_atomic};
pub use model::{Cell, Extra, HexsideFeature, Map, Marker, NamedZone, Scale, Unit};
