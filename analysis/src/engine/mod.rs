//! Whole-map analyses built on single LOS queries.

pub mod matrix;
