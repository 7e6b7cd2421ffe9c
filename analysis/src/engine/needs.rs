//! What each target of a viewshed needs before it is answered, as the engine's
//! bounds left it: settled (clear, or hidden) or a walk.

use super::horizon::Swept;
use crate::map::Map;
use rayon::prelude::*;

/// What a viewshed's target needs, from what its line may pass over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Nothing on the line acts: clear, without a walk.
    Nothing,
    /// Nothing on the line stands at or above the observer's eye: a walk to its
    /// first block, which is then a blind hex.
    FirstBlock,
    /// A walk on past low blockers, to tell a blind hex.
    Walk,
    /// Blocked, without a walk; a blind hex when `blind`.
    Hidden {
        /// Every blocker on the line is lower than the observer's eye.
        blind: bool,
    },
}

/// Per map hex, what a viewshed's target needs: listed by map index, or by grid
/// cell as the horizon's sweep wrote them (read by map column, with no list made).
pub enum Needs {
    /// By map index.
    Listed(Vec<Need>),
    /// By grid cell, as the horizon's sweep wrote them.
    Swept(Swept),
}

impl Needs {
    /// Calls `f(row, need)` for each hex of map column `col`, row by row (map index
    /// `col * rows + row`).
    #[inline]
    pub fn column(&self, map: &Map, col: usize, mut f: impl FnMut(usize, Need)) {
        match self {
            Needs::Listed(all) => {
                let rows = map.rows as usize;
                for (row, &q) in all[col * rows..(col + 1) * rows].iter().enumerate() {
                    f(row, q)
                }
            }
            Needs::Swept(swept) => swept.column(map, col, f),
        }
    }

    /// Every hex's need by map index.
    pub fn to_vec(&self, map: &Map) -> Vec<Need> {
        if let Needs::Listed(all) = self {
            return all.clone();
        }
        let rows = (map.rows as usize).max(1);
        let mut all = vec![Need::Nothing; map.len()];
        all.par_chunks_mut(rows)
            .enumerate()
            .for_each(|(col, slots)| self.column(map, col, |row, q| slots[row] = q));
        all
    }
}
