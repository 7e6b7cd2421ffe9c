//! Whole-map analyses: one engine for observers x targets, built on the families' kernels.
//!
//! [`fast::Engine`] lays a map's kernel into a padded grid; [`walker`] asks the
//! kernel about each stretch of a compiled walk ([`lines`]); [`pairs`] runs any
//! observers x targets request orbit by orbit, compiling only the walks it
//! needs; [`matrix`], [`viewshed`] and [`exposure`] are thin shapes on them;
//! [`shadow`] settles a viewshed's open ground without walking it. The
//! specialised sweeps (`geometric_sweep`, `cc_sweep`) are derived from
//! their kernels and checked against them.

mod bits;
mod cc_sweep;
pub mod diff;
pub mod exposure;
pub mod fast;
pub mod generate;
mod geometric_sweep;
pub mod grid;
pub mod horizon;
mod key_bounds;
mod level_sweep;
pub mod lines;
pub mod matrix;
pub mod min_height;
pub mod offsets;
pub mod pairs;
mod plane;
pub mod shadow;
#[cfg(test)]
pub(crate) mod testmaps;
mod vector;
pub mod viewshed;
pub mod walker;
pub mod zone;
