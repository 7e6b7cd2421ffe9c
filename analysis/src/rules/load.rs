//! Loading a map with its units checked: the format layer ([`crate::map`]) reads and
//! checks the file ([`Map::read`], [`Map::parse`]) without any family's code; these
//! constructors, one layer up, also check the units against the family's rules, so
//! the dependency points one way (rules on map, never map on rules).

use super::{Ruleset, check_units};
use crate::error::{Error, Result};
use crate::map::Map;
use crate::map::layer::Layer;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Loading a map is where its units first meet their family's rules: the format
/// layer ([`crate::map`]) reads and checks the file, this layer checks the units.
impl Map {
    /// Loads a map file and checks its units against the family's rules (one error
    /// naming the file, the first unit and its hex, and every broken rule).
    pub fn load(path: &Path) -> Result<Map> {
        let map = Map::read(path)?;
        check_units(&map).map_err(|e| e.in_file(path))?;
        Ok(map)
    }

    /// Parses map JSON and checks its units; `origin` names the file in errors.
    pub fn from_json(text: &str, origin: &Path) -> Result<Map> {
        let map = Map::parse(text, origin)?;
        check_units(&map).map_err(|e| e.in_file(origin))?;
        Ok(map)
    }

    /// Parses map JSON with an already loaded ruleset and checks its units.
    pub fn from_json_with(text: &str, origin: &Path, ruleset: Arc<Ruleset>) -> Result<Map> {
        let map = Map::parse_with(text, origin, ruleset)?;
        check_units(&map).map_err(|e| e.in_file(origin))?;
        Ok(map)
    }

    /// Loads a map for editing: a file whose units break their family's rules (a prone
    /// unit in woods, a crest unit outside a depression) still opens, so the user can fix
    /// it; what is broken comes back beside the map. Every other error still refuses.
    pub fn load_for_editing(path: &Path) -> Result<(Map, Option<Error>)> {
        let map = Map::read(path)?;
        let problems = check_units(&map).err().map(|e| e.in_file(path));
        Ok((map, problems))
    }

    /// This map with layer files applied in order, each checked as [`Layer::apply`] checks.
    pub fn with_layers(self, paths: &[PathBuf]) -> Result<Map> {
        paths
            .iter()
            .try_fold(self, |m, p| Layer::load(p)?.apply(&m))
    }
}

/// A layer is where edited units meet their family's rules again.
impl Layer {
    /// The map with this layer's changes; `map` itself is not changed. The units are
    /// checked against the family's rules afterwards, as when a map loads.
    pub fn apply(&self, map: &Map) -> Result<Map> {
        let out = self.apply_unchecked(map)?;
        check_units(&out).map_err(|e| e.in_file(self.path()))?;
        Ok(out)
    }
}
