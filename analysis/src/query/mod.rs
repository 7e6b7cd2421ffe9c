//! Questions built on the sight rule: the three unit answers and miniatures spotting.
//!
//! They call the explained query or the engine; nothing below them calls them.

pub mod spotting;
pub mod units;
