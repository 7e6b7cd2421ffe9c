//! Questions built on the sight rule: the three unit answers, miniatures spotting and
//! the side view of a line, the range limit laid over sight answers and the deployment
//! search.
//!
//! They call the explained query or the engine; nothing below them calls them.

pub mod arc;
pub mod deploy;
pub mod profile;
pub mod range;
pub mod spotting;
pub mod units;
