//! Hex grid geometry: coordinates, layout, labels and the exact line walk.

pub(crate) mod coord;
pub mod label;
pub mod layout;
pub(crate) mod line;
pub(crate) mod ratio;

pub use coord::{DIRECTIONS, Hex, Side};
pub use layout::{Layout, Orientation, Stagger};
pub use line::{Crossing, HexLine, SideCrossing, Step};
pub use ratio::Ratio;
