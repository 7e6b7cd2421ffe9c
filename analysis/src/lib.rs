//! hexsight-analysis: exact line of sight and visibility analysis on hex maps.
//!
//! Data flows one way: a map file is loaded into a [`map::Map`] with its
//! [`rules::Ruleset`]; [`los::line_of_sight`] walks one sight line exactly
//! ([`hex::HexLine`]) and asks the ruleset's family for a verdict; the
//! [`engine`] answers whole-map questions built on that.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod atomic;
pub mod engine;
pub mod error;
pub mod export;
pub mod generate;
pub mod georef;
pub mod hex;
pub mod import;
pub mod los;
pub mod map;
pub mod memory;
pub mod query;
pub mod rules;
pub(crate) mod text;

pub use error::{Error, ErrorKind, Result};
pub use los::{LosResult, line_of_sight, line_of_sight_labels};
pub use map::Map;
pub use rules::{Ruleset, Verdict};
