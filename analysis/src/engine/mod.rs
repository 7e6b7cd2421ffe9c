//! Whole-map analyses: one engine for observers x targets, built on the families' kernels.
//!
//! [`fast::Engine`] lays a map's kernel into a padded grid (`prepared`, the
//! kernel chosen once through its family's registry entry); `walker` asks the
//! kernel about each stretch of a compiled walk ([`lines`]); [`pairs`] runs any
//! observers x targets request orbit by orbit, compiling only the walks it
//! needs; `seen` sends a few observers facing most of the map to their viewsheds
//! instead; [`matrix`], [`viewshed`] and [`exposure`] are thin shapes on them;
//! `shadow` settles a viewshed's open ground without walking it, `horizon` its
//! hilly ground from bounds on slopes ([`needs`]). The whole-map sweeps (`above_sweep`,
//! `level_sweep`) serve any kernel by what it declares, and are checked against its
//! walker.

mod above_sweep;
mod bits;
mod blocks;
mod diagonals;
pub mod diff;
pub mod exposure;
pub mod fast;
pub(crate) mod grid;
pub(crate) mod horizon;
mod key_bounds;
mod level_sweep;
pub mod lines;
pub mod matrix;
pub mod min_height;
pub mod needs;
pub(crate) mod offsets;
pub mod pairs;
mod plane;
pub(crate) mod prepared;
pub(crate) mod seen;
pub(crate) mod shadow;
pub mod shared;
#[cfg(test)]
pub(crate) mod testmaps;
mod vector;
pub mod viewshed;
pub(crate) mod walker;

use crate::map::Map;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::AtomicBool;

/// Hexes a thread takes at once in a parallel pass over every hex of a map that does
/// a few loads per hex: taken one by one, rayon's bookkeeping costs more than that.
pub(crate) const RUN: usize = 4096;

/// `0..n` in runs of [`RUN`] indices, each a thread's whole task.
pub(crate) fn runs(n: usize) -> impl IndexedParallelIterator<Item = Range<usize>> {
    (0..n.div_ceil(RUN))
        .into_par_iter()
        .map(move |k| k * RUN..n.min((k + 1) * RUN))
}

/// Observers and targets of a matrix, by map index (both sorted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Observer hexes (rows).
    pub from: Vec<usize>,
    /// Target hexes (columns).
    pub to: Vec<usize>,
}

impl Selection {
    /// Every hex as observer and as target.
    pub fn all(map: &Map) -> Selection {
        Selection {
            from: (0..map.len()).collect(),
            to: (0..map.len()).collect(),
        }
    }

    /// True when both are the whole map.
    pub fn is_all(&self, map: &Map) -> bool {
        self.from.len() == map.len() && self.to.len() == map.len()
    }

    /// For each of `hexes` map hexes, its row among `from` and its column among
    /// `to` (`u32::MAX` where it is not one).
    pub(crate) fn positions(&self, hexes: usize) -> (Vec<u32>, Vec<u32>) {
        let (mut row, mut col) = (vec![u32::MAX; hexes], vec![u32::MAX; hexes]);
        for (r, &i) in self.from.iter().enumerate() {
            row[i] = r as u32;
        }
        for (c, &j) in self.to.iter().enumerate() {
            col[j] = c as u32;
        }
        (row, col)
    }
}

/// Run-time controls: threads, cancellation and progress.
pub struct Control<'a> {
    /// Set from another thread (Ctrl-C) to stop; the run then returns an error.
    pub cancel: &'a AtomicBool,
    /// Called now and then with (pairs done, pairs in all).
    pub progress: &'a (dyn Fn(u64, u64) + Sync),
}

impl Default for Control<'static> {
    fn default() -> Self {
        static NEVER: AtomicBool = AtomicBool::new(false);
        Control {
            cancel: &NEVER,
            progress: &|_, _| {},
        }
    }
}
