//! An engine that holds its map, for a caller that keeps a map across requests (the
//! Python package's `Map`): its grids are laid out once per map instead of once per
//! viewshed, about 20 ms of a 1000x1000 map's viewshed.

use super::fast::Engine;
use crate::error::Result;
use crate::map::Map;
use std::sync::Arc;

/// An [`Engine`] together with the map it reads.
pub struct SharedEngine {
    /// Reads `map`: declared first, so dropped first.
    engine: Engine<'static>,
    map: Arc<Map>,
}

impl SharedEngine {
    /// The engine of `map` ([`Engine::try_new`]: refused when its grids would not
    /// fit the memory there is).
    pub fn try_new(map: Arc<Map>) -> Result<SharedEngine> {
        // SAFETY: the engine reads the map behind the `Arc`, which stays where it is
        // while this struct holds a count of it (so it is never freed, and no one gets
        // the unique access that `Arc::get_mut` needs to change it); the engine is
        // dropped before that count (field order), and `engine` lends it out no longer
        // than `self` is borrowed (`Engine` is covariant in its lifetime).
        let map_ref: &'static Map = unsafe { &*Arc::as_ptr(&map) };
        Ok(SharedEngine {
            engine: Engine::try_new(map_ref)?,
            map,
        })
    }

    /// The engine, for as long as `self` is borrowed.
    pub fn engine(&self) -> &Engine<'_> {
        &self.engine
    }

    /// The map it reads.
    pub fn map(&self) -> &Arc<Map> {
        &self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::matrix::Control;
    use crate::engine::testmaps::{FAMILIES, random_map};
    use crate::engine::viewshed::viewshed_of;

    /// One shared engine answers viewshed after viewshed as an engine made for each
    /// does, for every family, and outlives the caller's own handle on the map.
    #[test]
    fn a_shared_engine_answers_as_a_fresh_one() {
        for rs in FAMILIES {
            let map = Arc::new(random_map(rs, 5, 13, 11));
            let shared = SharedEngine::try_new(map.clone()).unwrap();
            let fresh = |i| viewshed_of(&Engine::new(&map), i, &Control::default()).unwrap();
            let want: Vec<_> = [0, 70, map.len() - 1].map(fresh).to_vec();
            drop(map);
            for (k, i) in [0, 70, shared.map().len() - 1].into_iter().enumerate() {
                let got = viewshed_of(shared.engine(), i, &Control::default()).unwrap();
                assert_eq!(got.targets, want[k].targets, "{rs} from {i}");
            }
        }
    }
}
