//! Deployment search: which `K` hexes of a zone to hold, to watch most of another
//! zone (maximum coverage) or to stay least seen by an enemy zone.
//!
//! The sight answers come from the engine's matrices (with the range filter laid
//! over them); this module only chooses. Maximum coverage is NP-hard: when the
//! number of choices is small every one is tried ([`Method::Exact`]); otherwise the
//! greedy choice ([`Method::Greedy`]) adds, one at a time, the hex that adds most,
//! which covers at least (1 - 1/e) of the best when no spacing is asked for.

use crate::engine::fast::Engine;
use crate::engine::matrix::{BitMatrix, Control, Selection, matrix};
use crate::error::{Error, ErrorKind, Result};
use crate::map::Map;
use crate::query::range::Range;

/// Most combinations the exact search tries before the greedy choice takes over.
pub const EXACT_LIMIT: u64 = 200_000;

/// What the chosen hexes are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// See as many hexes of the watched zone as possible.
    Watch,
    /// Be seen by as few observers of the enemy zone as possible.
    Hide,
}

/// How the choice was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Every allowed choice was tried: the best there is.
    Exact,
    /// One hex at a time, the best next one.
    Greedy,
}

impl Method {
    /// The word of `deploy --json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Greedy => "greedy",
        }
    }
}

/// A deployment question (zones as map indices).
#[derive(Clone, Debug)]
pub struct Request {
    /// Where the hexes may be chosen.
    pub zone: Vec<usize>,
    /// What they should see (`Goal::Watch`).
    pub watch: Vec<usize>,
    /// Who should not see them: with `Goal::Watch`, only hexes no observer here sees
    /// are chosen; with `Goal::Hide`, the fewest observers here should see them.
    pub hide_from: Vec<usize>,
    /// How many hexes to choose.
    pub count: usize,
    /// Least hex distance between two chosen hexes (0 or 1: any).
    pub min_spacing: u32,
    /// Terrain ids the chosen hexes must stand in (empty: any).
    pub terrain: Vec<String>,
    /// What for.
    pub goal: Goal,
    /// A range over every sight answer.
    pub range: Option<Range>,
    /// Most combinations the exact search may try ([`EXACT_LIMIT`] by default).
    pub exact_limit: u64,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The chosen hexes (map indices), in the order chosen.
    pub chosen: Vec<usize>,
    /// For each chosen hex, the watched hexes it adds to those before it.
    pub adds: Vec<u32>,
    /// For each chosen hex, how many observers of `hide_from` see it.
    pub seen_by: Vec<u32>,
    /// Watched hexes seen by at least one chosen hex.
    pub covered: u32,
    /// Those hexes (map indices).
    pub seen: Vec<usize>,
    /// Hexes watched.
    pub of: usize,
    /// How the choice was made.
    pub method: Method,
    /// Hexes of the zone that were allowed (terrain, unseen from `hide_from`).
    pub candidates: usize,
}

fn query_error(msg: String) -> Error {
    Error::new(ErrorKind::Query, msg)
}

/// What the search reads: per candidate, the watched hexes it sees and how many
/// enemy observers see it.
struct Tables {
    /// Candidates (map indices).
    hexes: Vec<usize>,
    /// Row `c`: the watched hexes candidate `c` sees, as bits.
    sees: BitMatrix,
    /// Per candidate, the observers of `hide_from` that see it.
    seen_by: Vec<u32>,
}

/// The hexes of the zone in the asked terrain.
fn in_terrain(map: &Map, req: &Request) -> Result<Vec<usize>> {
    let rs = &map.ruleset;
    let mut ids = Vec::new();
    for t in &req.terrain {
        let i = rs.terrain.iter().position(|x| &x.id == t).ok_or_else(|| {
            let valid: Vec<&str> = rs.terrain.iter().take(30).map(|x| x.id.as_str()).collect();
            query_error(format!(
                "unknown terrain `{}` (this ruleset has: {})",
                crate::error::clip(t, 30),
                valid.join(", ")
            ))
        })?;
        ids.push(i as u16);
    }
    Ok(req
        .zone
        .iter()
        .copied()
        .filter(|&i| ids.is_empty() || ids.contains(&map.cells()[i].terrain))
        .collect())
}

/// A matrix of `from` x `to` with the range laid over it.
fn seen(
    engine: &Engine,
    from: &[usize],
    to: &[usize],
    req: &Request,
    ctl: &Control,
) -> Result<BitMatrix> {
    let sel = Selection {
        from: from.to_vec(),
        to: to.to_vec(),
    };
    let mut m = matrix(engine, &sel, ctl)?;
    if let Some(r) = &req.range {
        r.mask(engine.map(), from, to, &mut m.bits);
    }
    Ok(m.bits)
}

fn tables(engine: &Engine, req: &Request, ctl: &Control) -> Result<Tables> {
    let mut hexes = in_terrain(engine.map(), req)?;
    let mut seen_by = vec![0; hexes.len()];
    if !req.hide_from.is_empty() && !hexes.is_empty() {
        let enemy = seen(engine, &req.hide_from, &hexes, req, ctl)?;
        for (c, n) in seen_by.iter_mut().enumerate() {
            *n = (0..enemy.len()).filter(|&o| enemy.get(o, c)).count() as u32;
        }
        if req.goal == Goal::Watch {
            let keep: Vec<bool> = seen_by.iter().map(|&n| n == 0).collect();
            hexes = hexes
                .iter()
                .zip(&keep)
                .filter(|k| *k.1)
                .map(|k| *k.0)
                .collect();
            seen_by.retain(|&n| n == 0);
        }
    }
    let sees = if req.watch.is_empty() || hexes.is_empty() {
        BitMatrix::with_shape(hexes.len(), req.watch.len())
    } else {
        seen(engine, &hexes, &req.watch, req, ctl)?
    };
    Ok(Tables {
        hexes,
        sees,
        seen_by,
    })
}

/// Chooses the hexes.
pub fn deploy(engine: &Engine, req: &Request, ctl: &Control) -> Result<Plan> {
    if req.count == 0 {
        return Err(query_error("`count` must be at least 1".into()));
    }
    let t = tables(engine, req, ctl)?;
    let map = engine.map();
    let (picked, method) = match exact(map, &t, req) {
        Some(p) => (in_greedy_order(&t, req, p), Method::Exact),
        None => (greedy(map, &t, req), Method::Greedy),
    };
    Ok(plan(&t, req, picked, method))
}

/// The plan of a choice (candidate indices), with what each adds in that order.
fn plan(t: &Tables, req: &Request, picked: Vec<usize>, method: Method) -> Plan {
    let mut seen = vec![0u64; t.sees.cols().div_ceil(64)];
    let mut adds = Vec::new();
    for &c in &picked {
        adds.push(or_into(&mut seen, t.sees.row(c)));
    }
    let seen_hexes = (0..req.watch.len())
        .filter(|&j| seen[j / 64] >> (j % 64) & 1 == 1)
        .map(|j| req.watch[j])
        .collect();
    Plan {
        chosen: picked.iter().map(|&c| t.hexes[c]).collect(),
        seen: seen_hexes,
        seen_by: picked.iter().map(|&c| t.seen_by[c]).collect(),
        covered: adds.iter().sum(),
        adds,
        of: req.watch.len(),
        method,
        candidates: t.hexes.len(),
    }
}

/// ORs `row` into `acc`; returns how many bits were new.
fn or_into(acc: &mut [u64], row: &[u64]) -> u32 {
    let mut new = 0;
    for (a, r) in acc.iter_mut().zip(row) {
        new += (r & !*a).count_ones();
        *a |= r;
    }
    new
}

/// How good a choice is, larger better: for watching, coverage then fewer enemy
/// eyes; for hiding, fewer enemy eyes then coverage.
fn score(t: &Tables, req: &Request, picked: &[usize]) -> (i64, i64) {
    let mut seen = vec![0u64; t.sees.cols().div_ceil(64)];
    let covered: u32 = picked
        .iter()
        .map(|&c| or_into(&mut seen, t.sees.row(c)))
        .sum();
    let eyes: i64 = picked.iter().map(|&c| i64::from(t.seen_by[c])).sum();
    match req.goal {
        Goal::Watch => (i64::from(covered), -eyes),
        Goal::Hide => (-eyes, i64::from(covered)),
    }
}

/// True when candidate `c` keeps the spacing from every one already picked.
fn spaced(map: &Map, t: &Tables, req: &Request, picked: &[usize], c: usize) -> bool {
    let h = map.hex_of(t.hexes[c]);
    picked
        .iter()
        .all(|&p| map.hex_of(t.hexes[p]).distance(h) >= req.min_spacing)
}

/// One at a time, the candidate that improves the score most (ties: the first).
fn greedy(map: &Map, t: &Tables, req: &Request) -> Vec<usize> {
    let mut picked = Vec::new();
    while picked.len() < req.count {
        let mut best: Option<(usize, (i64, i64))> = None;
        for c in 0..t.hexes.len() {
            if picked.contains(&c) || !spaced(map, t, req, &picked, c) {
                continue;
            }
            picked.push(c);
            let s = score(t, req, &picked);
            picked.pop();
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((c, s));
            }
        }
        match best {
            Some((c, _)) => picked.push(c),
            None => break,
        }
    }
    picked
}

/// A choice reordered so each hex improves the score most over those before it,
/// so what each "adds" reads as for the greedy choice.
fn in_greedy_order(t: &Tables, req: &Request, mut rest: Vec<usize>) -> Vec<usize> {
    let mut out = Vec::new();
    while !rest.is_empty() {
        let mut best = 0;
        let mut best_score = None;
        for (k, &c) in rest.iter().enumerate() {
            out.push(c);
            let s = score(t, req, &out);
            out.pop();
            if best_score.is_none_or(|b| s > b) {
                (best, best_score) = (k, Some(s));
            }
        }
        out.push(rest.remove(best));
    }
    out
}

/// `n` choose `k`, saturating.
fn choose(n: u64, k: u64) -> u64 {
    (0..k.min(n)).fold(1u64, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// The best choice so far: how many hexes it holds, its score, and the hexes.
type Best = Option<((usize, (i64, i64)), Vec<usize>)>;

/// Every allowed choice of `count` candidates (fewer if no more fit), the best kept,
/// when there are at most `req.exact_limit` of them; `None` when there are more.
fn exact(map: &Map, t: &Tables, req: &Request) -> Option<Vec<usize>> {
    let n = t.hexes.len();
    let k = req.count.min(n);
    if choose(n as u64, k as u64) > req.exact_limit {
        return None;
    }
    let mut best: Best = None;
    search(map, t, req, k, 0, &mut Vec::new(), &mut best);
    Some(best.map(|b| b.1).unwrap_or_default())
}

/// Extends `picked` with candidates from `from` on and keeps the best full choice;
/// a choice the spacing lets grow no further counts as it is (more hexes first).
fn search(
    map: &Map,
    t: &Tables,
    req: &Request,
    k: usize,
    from: usize,
    picked: &mut Vec<usize>,
    best: &mut Best,
) {
    let mut grew = false;
    if picked.len() < k {
        for c in from..t.hexes.len() {
            if spaced(map, t, req, picked, c) {
                grew = true;
                picked.push(c);
                search(map, t, req, k, c + 1, picked, best);
                picked.pop();
            }
        }
    }
    if !grew {
        let key = (picked.len(), score(t, req, picked));
        if best.as_ref().is_none_or(|(b, _)| key > *b) {
            *best = Some((key, picked.clone()));
        }
    }
}
