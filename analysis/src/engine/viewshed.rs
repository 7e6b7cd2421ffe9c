//! What one observer sees: every hex visible, hindered (with its total) or
//! blocked, and which blocked hexes are blind hexes.
//!
//! A viewshed is one observer against every hex: the engine's pair sweep with
//! one observer ([`super::pairs`]), which compiles one walk per orbit of the
//! offsets from the observer and drops it, asking the family's kernel whether a
//! blocker stands at or above the observer's eye (a blocked hex with none is a
//! blind hex). The reason a hex is hidden comes from the explained query, asked
//! only for the hexes a caller wants to explain ([`Viewshed::reason`]).

use super::fast::Engine;
use super::matrix::Control;
use super::needs::{Need, Needs};
use super::walker::Outcome;
use super::{RUN, pairs};
use crate::error::Result;
use crate::hex::Hex;
use crate::los::{LosResult, line_of_sight};
use crate::map::Map;
use crate::rules::Verdict;
use rayon::prelude::*;
use std::sync::OnceLock;

/// One target hex in a viewshed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Clear, hindered or blocked.
    pub verdict: Verdict,
    /// Total hindrance along the line when seen (0 when blocked).
    pub hindrance: u32,
    /// Blocked only by obstacles lower than the observer (a blind hex).
    pub blind: bool,
}

/// Every hex of the map as seen from one observer, in map index order.
#[derive(Clone, Debug)]
pub struct Viewshed {
    /// The observer.
    pub from: Hex,
    /// One entry per map hex.
    pub targets: Vec<Target>,
}

impl Viewshed {
    /// Number of hexes with this verdict.
    pub fn count(&self, v: Verdict) -> usize {
        self.targets.iter().filter(|t| t.verdict == v).count()
    }

    /// Map indices of the blind hexes.
    pub fn blind(&self) -> Vec<usize> {
        self.targets
            .iter()
            .enumerate()
            .filter(|(_, t)| t.blind)
            .map(|(i, _)| i)
            .collect()
    }

    /// Why target `j` is seen or hidden: the explained query's reason.
    pub fn reason(&self, map: &Map, j: usize) -> String {
        line_of_sight(map, self.from, map.hex_of(j)).reason
    }
}

/// The viewshed of `from`, computed in parallel.
pub fn viewshed(map: &Map, from: Hex) -> Viewshed {
    let e = Engine::new(map);
    let i = map.index(from).expect("the observer is on the map");
    viewshed_of(&e, i, &Control::default()).expect("a run without a cancel flag finishes")
}

/// The viewshed of map hex `i`, building the engine only where the ground needs it:
/// seen over open ground (no cell above any line's quiet height, by the family's
/// kernel), every other hex is clear, and only the observer's own hex is asked of
/// the explained query.
pub fn viewshed_on_map(map: &Map, i: usize, ctl: &Control) -> Result<Viewshed> {
    let family = crate::rules::registry::of(map);
    if !family.open_ground(map, i) {
        let engine = Engine::try_new(map)?;
        return viewshed_of(&engine, i, ctl);
    }
    crate::memory::check(
        (map.len() * size_of::<Target>()) as u64,
        "a viewshed",
        "use a smaller map",
    )?;
    let clear = Target {
        verdict: Verdict::Clear,
        hindrance: 0,
        blind: false,
    };
    let mut targets: Vec<Target> = (0..map.len())
        .into_par_iter()
        .with_min_len(RUN)
        .map(|_| clear.clone())
        .collect();
    let from = map.hex_of(i);
    let r = line_of_sight(map, from, from);
    targets[i] = Target {
        verdict: r.verdict,
        hindrance: if r.verdict == Verdict::Blocked {
            0
        } else {
            r.hindrance
        },
        blind: is_blind_by(family, map, &r),
    };
    Ok(Viewshed { from, targets })
}

/// Bytes [`viewshed_of`] takes beyond the engine (an overestimate).
pub(crate) fn bytes(engine: &Engine) -> u64 {
    (engine.map().len() * (size_of::<Target>() + size_of::<Need>())) as u64
        + pairs::estimate_bytes(engine)
        + engine.viewshed_needs_bytes()
}

/// The viewshed of map hex `i`, with cancellation and progress.
pub fn viewshed_of(engine: &Engine, i: usize, ctl: &Control) -> Result<Viewshed> {
    let map = engine.map();
    crate::memory::check(bytes(engine), "a viewshed", "use a smaller map")?;
    // Open ground is clear without a walk; lines that cannot meet a blocker at or
    // above the eye are walked only to their first block; the rest are walked on.
    let needs = engine.viewshed_needs(i);
    let settled = |verdict, blind| Target {
        verdict,
        hindrance: 0,
        blind,
    };
    // One pass over the million targets of a big map, a map column on each task,
    // writes the settled answers and lists the targets left; those (a thousandth of
    // them on hilly ground, all where a family promises nothing) are walked and
    // answered into slots of their own, and written in after.
    let (n, rows) = (map.len(), (map.rows as usize).max(1));
    let mut targets: Vec<Target> = Vec::with_capacity(n);
    let left: Vec<Vec<(usize, Need)>> = targets.spare_capacity_mut()[..n]
        .par_chunks_mut(rows)
        .enumerate()
        .map(|(col, slots)| {
            let mut left = Vec::new();
            needs.column(map, col, |row, q| {
                slots[row].write(match q {
                    Need::Hidden { blind } => settled(Verdict::Blocked, blind),
                    _ => settled(Verdict::Clear, false),
                });
                if matches!(q, Need::FirstBlock | Need::Walk) {
                    left.push((col * rows + row, q));
                }
            });
            left
        })
        .collect();
    // SAFETY: the columns cover the first `n` slots, each written above.
    unsafe { targets.set_len(n) };
    let (mut first, mut walk) = (Vec::new(), Vec::new());
    for (j, q) in left.into_iter().flatten() {
        match q {
            Need::FirstBlock => first.push(j),
            _ => walk.push(j),
        }
    }
    // The slot of walked target `j`: its place in `first`, else after `first` in
    // `walk` (both sorted).
    let slots: Vec<OnceLock<Target>> = (0..first.len() + walk.len())
        .into_par_iter()
        .with_min_len(RUN)
        .map(|_| OnceLock::new())
        .collect();
    let slot = |j: usize| {
        first
            .binary_search(&j)
            .ok()
            .or_else(|| walk.binary_search(&j).ok().map(|k| first.len() + k))
    };
    let store = |j: usize, o: Outcome| {
        let verdict = if o.blocked() {
            Verdict::Blocked
        } else if o.hinder > 0 {
            Verdict::Hindered
        } else {
            Verdict::Clear
        };
        let t = Target {
            verdict,
            hindrance: if o.blocked() { 0 } else { o.hinder },
            blind: o.blind(),
        };
        if let Some(k) = slot(j) {
            let _ = slots[k].set(t);
        }
    };
    // One progress count over both passes.
    let total = (first.len() + walk.len()) as u64;
    let progress = |base: u64| move |done: u64, _: u64| (ctl.progress)(base + done, total);
    // No blocker stands at or above the eye: the first block makes a blind hex.
    let first_progress = progress(0);
    let first_ctl = Control {
        cancel: ctl.cancel,
        progress: &first_progress,
    };
    pairs::for_each::<false>(engine, &[i], &first, &first_ctl, |_, j, o| {
        store(j, Outcome { high: false, ..o })
    })?;
    let walk_progress = progress(first.len() as u64);
    let walk_ctl = Control {
        cancel: ctl.cancel,
        progress: &walk_progress,
    };
    if matches!(needs, Needs::Swept(_)) {
        // The slope tables leave lines near a silhouette, which mostly run their
        // length: walked whole (elsewhere most lines left meet a blocker early).
        pairs::for_each_whole::<true>(engine, &[i], &walk, &walk_ctl, |_, j, o| store(j, o))?;
    } else {
        pairs::for_each::<true>(engine, &[i], &walk, &walk_ctl, |_, j, o| store(j, o))?;
    }
    for (&j, t) in first.iter().chain(&walk).zip(slots) {
        if let Some(t) = t.into_inner() {
            targets[j] = t;
        }
    }
    Ok(Viewshed {
        from: map.hex_of(i),
        targets,
    })
}

/// True when the line is blocked and every blocker is lower than the observer: a
/// blind hex ([`crate::rules::is_blind`], by the map's family).
pub fn is_blind(map: &Map, r: &LosResult) -> bool {
    is_blind_by(crate::rules::registry::of(map), map, r)
}

/// [`is_blind`] with the heights of `family`'s kernel.
pub fn is_blind_by(family: &crate::rules::registry::Entry, map: &Map, r: &LosResult) -> bool {
    crate::rules::is_blind(family, map, r.line.from, r.verdict, &r.events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testmaps::random_map;

    /// Checks every target of `i`'s viewshed against the explained query's verdict,
    /// hindrance and blind flag; returns how many are blind.
    fn check_viewshed(map: &Map, e: &Engine, i: usize, what: &str) -> usize {
        let v = viewshed_of(e, i, &Control::default()).unwrap();
        let mut blind = 0;
        for (j, t) in v.targets.iter().enumerate() {
            let r = line_of_sight(map, map.hex_of(i), map.hex_of(j));
            let want = Target {
                verdict: r.verdict,
                hindrance: if r.verdict == Verdict::Blocked {
                    0
                } else {
                    r.hindrance
                },
                blind: is_blind(map, &r),
            };
            assert_eq!(
                *t,
                want,
                "{what}: {} -> {}: {}",
                map.label(map.hex_of(i)),
                map.label(map.hex_of(j)),
                r.reason
            );
            blind += usize::from(t.blind);
        }
        assert!(v.targets[i].verdict.sees(), "a hex sees itself");
        blind
    }

    /// Offsets beyond 1000 hexes whose walks' common denominator passes 2^32
    /// (offset (1, 1290) is the nearest on a 2-column map) are compiled and judged
    /// by the kernel like any other: viewsheds and zone matrices over such lines
    /// equal the explained query, for every family.
    #[test]
    fn walks_with_denominators_beyond_32_bits_are_exact() {
        use crate::engine::lines::Pools;
        use crate::engine::matrix::{Selection, matrix};
        let wide = |d: Hex| {
            let mut p = Pools::default();
            p.compile(d);
            p.walks[0].exact && !p.walks[0].narrow()
        };
        assert!(wide(Hex::new(1, 1290)));
        for rs in crate::engine::testmaps::FAMILIES {
            // A random map opened up between its ends but for two hexes, so that
            // far lines are seen (from column 1 to 0) as well as blocked. For the
            // families that read heights along the line, the open ground is a ramp
            // up to the far end, raised as high, so that far lines run close above
            // the ground all the way and any error in where a stretch lies shows
            // (the level families read a ramp as crests that hide everything).
            let ramp = matches!(rs, "geometric" | "miniatures");
            let mut map = crate::engine::testmaps::random_map(rs, 2, 2, 1320);
            let open = map.default;
            let layout = map.layout;
            let opened = |h: Hex| {
                let (col, row) = layout.offset_of(h);
                row > 5 && row < 1310 && (col, row) != (0, 300) && (col, row) != (1, 1000)
            };
            for i in 0..map.len() {
                let h = map.hex_of(i);
                let row = layout.offset_of(h).1;
                let c = map.cell_mut(h).unwrap();
                if opened(h) {
                    *c = open;
                }
                if ramp {
                    c.level += row.min(1310) / 100;
                }
            }
            map.units.retain(|u| !opened(u.hex));
            map.markers.retain(|m| !opened(m.hex));
            let e = Engine::new(&map);
            let row_of = |i: usize| map.layout.offset_of(map.hex_of(i)).1;
            let sel = Selection {
                from: (0..map.len())
                    .filter(|&i| row_of(i) < 12)
                    .step_by(5)
                    .collect(),
                to: (0..map.len()).collect(),
            };
            let m = matrix(&e, &sel, &Control::default()).unwrap();
            let (mut wide_seen, mut wide_blocked) = (0, 0);
            for (r, &i) in sel.from.iter().enumerate() {
                check_viewshed(&map, &e, i, rs);
                let v = viewshed_of(&e, i, &Control::default()).unwrap();
                for (j, t) in v.targets.iter().enumerate() {
                    assert_eq!(m.bits.get(r, j), t.verdict.sees(), "{rs}: {i} -> {j}");
                    if map.hex_of(i).distance(map.hex_of(j)) > 1200
                        && wide(map.hex_of(j) - map.hex_of(i))
                    {
                        *if t.verdict.sees() {
                            &mut wide_seen
                        } else {
                            &mut wide_blocked
                        } += 1;
                    }
                }
            }
            assert!(
                wide_seen > 0 && wide_blocked > 0,
                "{rs}: {wide_seen} seen, {wide_blocked} blocked"
            );
        }
    }

    /// Every family, random maps with units and depressions: each viewshed
    /// target equals the explained query's verdict, hindrance and blind flag.
    #[test]
    fn the_viewshed_equals_the_explained_query_with_blind_hexes() {
        for rs in crate::engine::testmaps::FAMILIES {
            let mut blind = 0;
            for seed in 0..4 {
                let map = random_map(rs, seed, 13, 11);
                let e = Engine::new(&map);
                for i in (0..map.len()).step_by(5) {
                    blind += check_viewshed(&map, &e, i, &format!("{rs} seed {seed}"));
                }
            }
            assert!(blind > 0, "{rs}: no blind hex on hilly maps");
        }
    }

    /// A viewshed from the map alone equals the engine's (and so the explained
    /// query's), for every family, on open ground, flat and pointy, from every hex of
    /// a small map with and without one hill (where the map path builds the engine),
    /// and its open-ground path is taken where it should be.
    #[test]
    fn the_map_path_equals_the_engine_path() {
        use crate::engine::testmaps::FAMILIES;
        let mut open = 0;
        for family in FAMILIES {
            for (orientation, hexes) in [("flat", ""), ("pointy", r#""C3":{"level":1}"#)] {
                let json = format!(
                    r#"{{"hexsight":1,"name":"t","ruleset":"{family}","grid":{{"cols":7,"rows":6,"orientation":"{orientation}"}},"hexes":{{{hexes}}}}}"#
                );
                let map = Map::from_json(&json, std::path::Path::new("t.json")).unwrap();
                let e = Engine::new(&map);
                for i in 0..map.len() {
                    let want = viewshed_of(&e, i, &Control::default()).unwrap();
                    let got = viewshed_on_map(&map, i, &Control::default()).unwrap();
                    let what =
                        format!("{family}, {orientation}, from {}", map.label(map.hex_of(i)));
                    assert_eq!((got.from, got.targets), (want.from, want.targets), "{what}");
                    let quiet = crate::rules::registry::of(&map).open_ground(&map, i);
                    open += usize::from(quiet);
                    if hexes.is_empty() && family == "geometric" {
                        assert!(quiet, "{what}: open ground not seen as open");
                    }
                }
            }
        }
        assert!(open > 0);
    }

    /// Open ground with scattered woods, a village and a hill, flat and pointy, the
    /// observer on the plain and on the hill: the targets settled without a walk
    /// ([`Engine::viewshed_needs`]) and the walked ones equal the explained query,
    /// and open ground is indeed settled so.
    #[test]
    fn open_ground_is_settled_without_walks_and_still_exact() {
        let (mut first_blocks, mut blinds) = (0, 0);
        for pointy in [false, true] {
            let orientation = if pointy {
                r#","orientation":"pointy""#
            } else {
                ""
            };
            let json = format!(
                r#"{{"hexsight":1,"name":"t","ruleset":"geometric","grid":{{"cols":23,"rows":19{orientation}}},
                    "hexes":{{"E5":{{"terrain":"woods"}},"F5":{{"terrain":"woods"}},"K12":{{"terrain":"building"}},
                    "P4":{{"level":2}},"P5":{{"level":2}},"Q5":{{"level":1}},"C15":{{"terrain":"woods"}},
                    "S16":{{"level":1,"terrain":"woods"}},"H9":{{"level":-1}}}}}}"#
            );
            let map = Map::from_json(&json, std::path::Path::new("open.json")).unwrap();
            let e = Engine::new(&map);
            // Observers and the share of the map settled at least: from the pit at H9 the
            // ground all round rises above the eye, so nothing is.
            for (from, share) in [
                ("A1", 0.5),
                ("L10", 0.5),
                ("P4", 0.3),
                ("H9", 0.0),
                ("W19", 0.5),
            ] {
                let i = map.index(map.parse_hex(from).unwrap()).unwrap();
                let needs = e.viewshed_needs(i).to_vec(&map);
                let settled = needs.iter().filter(|&&q| q == Need::Nothing).count();
                assert!(
                    settled as f64 >= share * map.len() as f64,
                    "{from}: only {settled} settled"
                );
                for (j, &q) in needs.iter().enumerate() {
                    if q == Need::Nothing {
                        let r = line_of_sight(&map, map.hex_of(i), map.hex_of(j));
                        assert_eq!(
                            r.verdict,
                            Verdict::Clear,
                            "{from} -> {}",
                            map.label(map.hex_of(j))
                        );
                    }
                }
                let blind = check_viewshed(&map, &e, i, &format!("open pointy={pointy}"));
                first_blocks += needs.iter().filter(|&&q| q == Need::FirstBlock).count();
                blinds += blind;
            }
        }
        assert!(
            first_blocks > 0 && blinds > 0,
            "{first_blocks} first-block walks, {blinds} blind"
        );
    }

    /// Open ground seen from ground level needs no walk at all, and is still exact; one
    /// hex anywhere rising above the eyes, or an observer in a pit, ends that.
    #[test]
    fn open_ground_from_ground_level_needs_no_walk() {
        for (hexes, from, quiet) in [
            ("", "A1", true),
            ("", "F5", true),
            (r#""K9":{"level":1}"#, "A1", false),
            (r#""F5":{"level":-1}"#, "F5", false),
        ] {
            let json = format!(
                r#"{{"hexsight":1,"name":"t","ruleset":"geometric","grid":{{"cols":12,"rows":10}},"hexes":{{{hexes}}}}}"#
            );
            let map = Map::from_json(&json, std::path::Path::new("open.json")).unwrap();
            let e = Engine::new(&map);
            let i = map.index(map.parse_hex(from).unwrap()).unwrap();
            let needs = e.viewshed_needs(i).to_vec(&map);
            let not_clear = needs.iter().filter(|&&q| q != Need::Nothing).count();
            assert_eq!(
                not_clear == 1,
                quiet,
                "{hexes} from {from}: {not_clear} not settled clear"
            );
            check_viewshed(&map, &e, i, &format!("{hexes} from {from}"));
        }
    }

    /// The viewshed of `from` on a map given as JSON, by label: (verdict, blind).
    fn seen(json: &str, from: &str) -> impl Fn(&str) -> (Verdict, bool) {
        let map = Map::from_json(json, std::path::Path::new("example.json")).unwrap();
        let i = map.index(map.parse_hex(from).unwrap()).unwrap();
        let v = viewshed_of(&Engine::new(&map), i, &Control::default()).unwrap();
        move |to: &str| {
            let t = &v.targets[map.index(map.parse_hex(to).unwrap()).unwrap()];
            (t.verdict, t.blind)
        }
    }

    /// rules.md section 1 (T88.4.1), through the engine alone: from a level-1 hill,
    /// past a level-0 building, only the hex directly behind it is blind, and a
    /// woods hex further on casts its own blind hex.
    #[test]
    fn combat_commander_blind_hexes_in_a_viewshed() {
        let at = seen(
            r#"{"hexsight":1,"name":"t","ruleset":"combat-commander","grid":{"cols":5,"rows":10},
                "hexes":{"A1":{"level":1,"slope":true},"A3":{"terrain":"building"},"A6":{"terrain":"woods"}}}"#,
            "A1",
        );
        assert_eq!(at("A3"), (Verdict::Clear, false), "into the lower building");
        assert_eq!(
            at("A4"),
            (Verdict::Blocked, true),
            "directly behind it: blind"
        );
        assert_eq!(at("A5"), (Verdict::Clear, false), "visible again");
        assert_eq!(at("A6"), (Verdict::Clear, false), "the woods hex itself");
        assert_eq!(at("A7"), (Verdict::Blocked, true), "its own blind hex");
        assert_eq!(at("A8"), (Verdict::Clear, false));
    }

    /// rules.md section 3, through the engine alone: a standing unit blocks LOS
    /// through its hex, a prone one does not.
    #[test]
    fn napoleonic_standing_units_block_in_a_viewshed() {
        let json = |state: &str| {
            format!(
                r#"{{"hexsight":1,"name":"t","ruleset":"napoleonic","grid":{{"cols":5,"rows":10}},
                    "units":[{{"id":"x","hex":"A3","side":"allied","kind":"infantry","state":"{state}"}}]}}"#
            )
        };
        assert_eq!(seen(&json("standing"), "A1")("A5").0, Verdict::Blocked);
        assert_eq!(seen(&json("prone"), "A1")("A5").0, Verdict::Clear);
    }

    /// rules.md section 2 (A6.3), through the engine alone: a unit IN a gully is
    /// seen from an adjacent hex and along the gully, not from level ground beyond.
    #[test]
    fn asl_los_into_a_depression_in_a_viewshed() {
        let at = seen(
            r#"{"hexsight":1,"name":"t","ruleset":"asl","grid":{"cols":5,"rows":10},
                "hexes":{"A5":{"terrain":"gully"},"A6":{"terrain":"gully"},"A7":{"terrain":"gully"}}}"#,
            "A5",
        );
        assert!(at("A4").0.sees(), "adjacent");
        assert!(at("A7").0.sees(), "along the depression");
        assert_eq!(at("A2").0, Verdict::Blocked, "from level ground at range 3");
        // A level-1 unit is two levels above the floor: it sees INTO the gully from
        // range 2, not from range 3.
        let hill = |hex: &str| {
            format!(
                r#"{{"hexsight":1,"name":"t","ruleset":"asl","grid":{{"cols":5,"rows":10}},
                    "hexes":{{"{hex}":{{"level":1}},"A5":{{"terrain":"gully"}},"A6":{{"terrain":"gully"}}}}}}"#
            )
        };
        assert!(seen(&hill("A3"), "A5")("A3").0.sees(), "level 1 at range 2");
        assert_eq!(
            seen(&hill("A2"), "A5")("A2").0,
            Verdict::Blocked,
            "level 1 at range 3"
        );
    }
}
