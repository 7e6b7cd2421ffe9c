//! Whole-map analyses built on single LOS queries.
//!
//! [`fast::Engine`] answers one pair exactly and quickly from walks shared per
//! hex offset ([`lines`]); [`matrix`], [`viewshed`], [`exposure`] build on it.

pub mod exposure;
pub mod fast;
pub mod generate;
pub mod lines;
pub mod matrix;
mod vector;
pub mod viewshed;
pub mod zone;
