//! Questions built on the sight rule: the three unit answers, miniatures spotting and
//! the side view of a line, and the range limit laid over sight answers.
//!
//! They call the explained query or the engine; nothing below them calls them.

pub mod profile;
pub mod range;
pub mod spotting;
pub mod units;
