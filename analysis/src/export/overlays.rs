//! What each analysis puts in its GeoJSON file ([`super::geojson`]): the hexes
//! with the answer's properties, the dissolved areas, the sight lines.

use super::geojson::{Collection, CrsChoice, GeoJson};
use crate::Verdict;
use crate::engine::exposure::Exposure;
use crate::engine::viewshed::Viewshed;
use crate::error::Result;
use crate::map::Map;
use crate::query::deploy::Plan;
use crate::query::spotting::SpotCell;
use serde_json::json;

/// Indices of the hexes for which `f` holds.
fn which(n: usize, f: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..n).filter(|&i| f(i)).collect()
}

/// A viewshed: every hex with verdict, hindrance and blind flag; the areas
/// `visible` (clear), `hindered`, `blind` and `unseen` (blocked, not blind); a
/// sight line to each blind hex, the ones a reader most wants explained.
pub fn viewshed(map: &Map, v: &Viewshed, crs: CrsChoice) -> Result<Collection> {
    let mut g = GeoJson::new(map, crs)?;
    let t = &v.targets;
    g.hexes(|j| {
        let t = &t[j];
        Some([
            ("verdict", json!(t.verdict)),
            ("hindrance", t.hindrance.into()),
            ("blind", t.blind.into()),
        ])
    });
    let n = map.len();
    g.area("visible", &which(n, |j| t[j].verdict == Verdict::Clear));
    g.area("hindered", &which(n, |j| t[j].verdict == Verdict::Hindered));
    g.area("blind", &which(n, |j| t[j].blind));
    let unseen = which(n, |j| t[j].verdict == Verdict::Blocked && !t[j].blind);
    g.area("unseen", &unseen);
    for j in v.blind() {
        g.sight_line(
            v.from,
            map.hex_of(j),
            json!({"verdict": t[j].verdict, "blind": true}),
        );
    }
    Ok(g.finish())
}

/// Blind hexes alone: each with its reason, their dissolved area and the sight lines.
pub fn blind(map: &Map, v: &Viewshed, crs: CrsChoice) -> Result<Collection> {
    let mut g = GeoJson::new(map, crs)?;
    let blind = v.blind();
    g.hexes(|j| {
        v.targets[j]
            .blind
            .then(|| [("blind", true.into()), ("reason", v.reason(map, j).into())])
    });
    g.area("blind", &blind);
    for j in blind {
        g.sight_line(
            v.from,
            map.hex_of(j),
            json!({"verdict": v.targets[j].verdict, "blind": true}),
        );
    }
    Ok(g.finish())
}

/// Exposure: every hex with `sees` and `seen_by`; the area `unseen` (seen by no observer).
pub fn exposure(map: &Map, e: &Exposure, crs: CrsChoice) -> Result<Collection> {
    let mut g = GeoJson::new(map, crs)?;
    g.hexes(|i| Some([("sees", e.sees[i].into()), ("seen_by", e.seen_by[i].into())]));
    g.area("unseen", &which(map.len(), |i| e.seen_by[i] == 0));
    Ok(g.finish())
}

/// Spotting: every hex with LOS, automatic spotting, the test's probability and
/// the reason; the areas `visible` (in LOS), `spotted` (automatically) and `unseen`.
pub fn spotting(map: &Map, cells: &[SpotCell], crs: CrsChoice) -> Result<Collection> {
    let mut g = GeoJson::new(map, crs)?;
    g.hexes(|i| {
        let c = &cells[i];
        Some([
            ("los", c.los.into()),
            ("auto", c.auto.into()),
            ("probability", json!(c.p_spot)),
            ("distance", json!(c.distance)),
            ("reason", json!(c.reason)),
        ])
    });
    let n = cells.len();
    g.area("visible", &which(n, |i| cells[i].los));
    g.area("spotted", &which(n, |i| cells[i].auto));
    g.area("unseen", &which(n, |i| !cells[i].los));
    Ok(g.finish())
}

/// A deployment: the chosen hexes with their order and gains, the watched hexes
/// they see as the area `visible`, the rest of the watched ones as `unseen`.
pub fn deploy(map: &Map, plan: &Plan, watch: &[usize], crs: CrsChoice) -> Result<Collection> {
    let mut g = GeoJson::new(map, crs)?;
    g.hexes(|i| {
        let k = plan.chosen.iter().position(|&c| c == i)?;
        Some([
            ("chosen", json!(k + 1)),
            ("adds", json!(plan.adds[k])),
            ("seen_by", json!(plan.seen_by[k])),
        ])
    });
    let mut seen = vec![false; map.len()];
    for &i in &plan.seen {
        seen[i] = true;
    }
    g.area("visible", &plan.seen);
    let unseen: Vec<usize> = watch.iter().copied().filter(|&i| !seen[i]).collect();
    g.area("unseen", &unseen);
    Ok(g.finish())
}

/// A before/after diff: every hex with its `seen_by` and `sees` change; the areas
/// `more_seen` and `less_seen`; a sight line for each example pair gained and lost.
pub fn diff(map: &Map, d: &crate::engine::diff::Diff, crs: CrsChoice) -> Result<Collection> {
    let mut g = GeoJson::new(map, crs)?;
    g.hexes(|i| {
        Some([
            ("seen_by_change", json!(d.seen_by[i])),
            ("sees_change", json!(d.sees[i])),
        ])
    });
    g.area("more_seen", &which(map.len(), |i| d.seen_by[i] > 0));
    g.area("less_seen", &which(map.len(), |i| d.seen_by[i] < 0));
    for (pairs, change) in [(&d.first_gained, "gained"), (&d.first_lost, "lost")] {
        for &(i, j) in pairs {
            g.sight_line(map.hex_of(i), map.hex_of(j), json!({"change": change}));
        }
    }
    Ok(g.finish())
}

/// Lowest visible heights: every hex with `min_height` (null: none up to the limit);
/// the areas `seen` (at its own height) and `never` (at no height up to the limit).
pub fn min_height(map: &Map, heights: &[Option<u32>], crs: CrsChoice) -> Result<Collection> {
    let mut g = GeoJson::new(map, crs)?;
    g.hexes(|i| Some([("min_height", json!(heights[i]))]));
    g.area("seen", &which(map.len(), |i| heights[i] == Some(0)));
    g.area("never", &which(map.len(), |i| heights[i].is_none()));
    Ok(g.finish())
}
