//! The deployment search against brute force on small zones of every bundled map:
//! the exact search finds the best choice there is, the greedy one covers at least
//! (1 - 1/e) of it, and every reported coverage is recounted from the explained
//! query, hex by hex.

mod common;

use common::Rng;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::Control;
use hexsight_analysis::map::zones::parse_zone;
use hexsight_analysis::query::deploy::{EXACT_LIMIT, Goal, Method, Plan, Request, deploy};
use hexsight_analysis::{Map, line_of_sight};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn bundled() -> Vec<Map> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths.iter().map(|p| Map::load(p).unwrap()).collect()
}

fn sees(map: &Map, a: usize, b: usize) -> bool {
    line_of_sight(map, map.hex_of(a), map.hex_of(b))
        .verdict
        .sees()
}

/// A random rectangle of at most `w` x `h` hexes.
fn rect(map: &Map, rng: &mut Rng, w: u32, h: u32) -> Vec<usize> {
    let c0 = rng.next(u64::from(map.cols)) as u32;
    let r0 = rng.next(u64::from(map.rows)) as u32;
    let c1 = (c0 + w - 1).min(map.cols - 1);
    let r1 = (r0 + h - 1).min(map.rows - 1);
    let label = |c: u32, r: u32| map.label(map.layout.hex_at(c as i32, r as i32));
    parse_zone(map, &format!("{}:{}", label(c0, r0), label(c1, r1))).unwrap()
}

/// What a choice achieves, from the explained query: (covered, enemy eyes).
fn recount(map: &Map, req: &Request, chosen: &[usize]) -> (u32, u32) {
    let covered: BTreeSet<usize> = req
        .watch
        .iter()
        .copied()
        .filter(|&w| chosen.iter().any(|&c| sees(map, c, w)))
        .collect();
    let eyes = chosen
        .iter()
        .map(|&c| req.hide_from.iter().filter(|&&o| sees(map, o, c)).count() as u32)
        .sum();
    (covered.len() as u32, eyes)
}

/// Every allowed choice of `count` hexes (or fewer when no more fit), the best
/// score: (hexes, covered, -eyes) to watch, (hexes, -eyes, covered) to hide.
fn brute(map: &Map, req: &Request) -> (usize, i64, i64) {
    let allowed: Vec<usize> = req
        .zone
        .iter()
        .copied()
        .filter(|&c| req.goal == Goal::Hide || req.hide_from.iter().all(|&o| !sees(map, o, c)))
        .collect();
    let mut best = (0, i64::MIN, i64::MIN);
    let n = allowed.len();
    for mask in 0u32..1 << n {
        let chosen: Vec<usize> = (0..n)
            .filter(|&i| mask >> i & 1 == 1)
            .map(|i| allowed[i])
            .collect();
        if chosen.len() > req.count || !spaced(map, &chosen, req.min_spacing) {
            continue;
        }
        let (cov, eyes) = recount(map, req, &chosen);
        let s = match req.goal {
            Goal::Watch => (chosen.len(), i64::from(cov), -i64::from(eyes)),
            Goal::Hide => (chosen.len(), -i64::from(eyes), i64::from(cov)),
        };
        best = best.max(s);
    }
    best
}

fn spaced(map: &Map, chosen: &[usize], d: u32) -> bool {
    chosen.iter().enumerate().all(|(k, &a)| {
        chosen[k + 1..]
            .iter()
            .all(|&b| map.hex_of(a).distance(map.hex_of(b)) >= d)
    })
}

fn checked(map: &Map, req: &Request, p: &Plan) -> (u32, u32) {
    assert!(p.chosen.iter().all(|c| req.zone.contains(c)));
    assert!(spaced(map, &p.chosen, req.min_spacing));
    let (covered, eyes) = recount(map, req, &p.chosen);
    assert_eq!(p.covered, covered, "reported coverage recounted");
    assert_eq!(p.adds.iter().sum::<u32>(), covered);
    assert_eq!(p.seen_by.iter().sum::<u32>(), eyes);
    if req.goal == Goal::Watch {
        assert_eq!(eyes, 0, "chosen only among hexes the enemy does not see");
    }
    (covered, eyes)
}

#[test]
fn exact_is_best_and_greedy_is_within_its_bound() {
    let mut rng = Rng(0x5eed_d3b1);
    for map in bundled() {
        let engine = Engine::new(&map);
        for round in 0..8 {
            let goal = if round % 4 == 3 {
                Goal::Hide
            } else {
                Goal::Watch
            };
            let mut req = Request {
                zone: rect(&map, &mut rng, 3, 4),
                watch: rect(&map, &mut rng, 8, 8),
                hide_from: if round % 2 == 1 {
                    rect(&map, &mut rng, 4, 4)
                } else {
                    Vec::new()
                },
                count: 1 + rng.next(3) as usize,
                min_spacing: [0, 0, 2, 3][rng.next(4) as usize],
                terrain: Vec::new(),
                goal,
                range: None,
                exact_limit: EXACT_LIMIT,
            };
            let what = format!("{} round {round}", map.name);
            let best = brute(&map, &req);
            let p = deploy(&engine, &req, &Control::default()).unwrap();
            assert_eq!(p.method, Method::Exact, "{what}");
            let (cov, eyes) = checked(&map, &req, &p);
            let got = match goal {
                Goal::Watch => (p.chosen.len(), i64::from(cov), -i64::from(eyes)),
                Goal::Hide => (p.chosen.len(), -i64::from(eyes), i64::from(cov)),
            };
            assert_eq!(got, best, "{what}: exact is the best there is");
            req.exact_limit = 0;
            let g = deploy(&engine, &req, &Control::default()).unwrap();
            assert_eq!(g.method, Method::Greedy, "{what}");
            let (gcov, _) = checked(&map, &req, &g);
            if goal == Goal::Watch && req.min_spacing <= 1 {
                let bound = (1.0 - (-1f64).exp()) * cov as f64;
                assert!(gcov as f64 >= bound, "{what}: greedy {gcov} < {bound}");
            }
        }
    }
}

#[test]
fn terrain_and_range_limit_the_choice() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/hill-112.json");
    let map = Map::load(&p).unwrap();
    let engine = Engine::new(&map);
    let req = Request {
        zone: parse_zone(&map, "A1:H12").unwrap(),
        watch: parse_zone(&map, "I1:T12").unwrap(),
        hide_from: Vec::new(),
        count: 2,
        min_spacing: 0,
        terrain: vec!["woods".into()],
        goal: Goal::Watch,
        range: Some(hexsight_analysis::query::range::Range::parse(&map, "5").unwrap()),
        exact_limit: EXACT_LIMIT,
    };
    let plan = deploy(&engine, &req, &Control::default()).unwrap();
    for &c in &plan.chosen {
        assert_eq!(map.terrain(map.hex_of(c)).unwrap().id, "woods");
    }
    for &s in &plan.seen {
        let near = plan
            .chosen
            .iter()
            .any(|&c| map.hex_of(c).distance(map.hex_of(s)) <= 5 && sees(&map, c, s));
        assert!(near, "{} is seen within range", map.label(map.hex_of(s)));
    }
    let bad = Request {
        terrain: vec!["wood".into()],
        ..req
    };
    let e = deploy(&engine, &bad, &Control::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown terrain `wood`") && e.contains("woods"),
        "{e}"
    );
}

fn hexsight(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hexsight"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn cli_json_and_one_line_errors() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/hill-112.json");
    let p = p.to_str().unwrap();
    let out = hexsight(&[
        "deploy", p, "--zone", "A1:F12", "--watch", "N1:T12", "--count", "3", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["chosen"].as_array().unwrap().len(), 3);
    assert_eq!(v["of"], 84);
    assert_eq!(v["method"], "exact");
    assert!(v["covered"].as_u64().unwrap() > 0);
    for args in [
        vec!["deploy", p, "--zone", "A1:F12"],
        vec!["deploy", p, "--zone", "A1:F12", "--goal", "hide"],
        vec!["deploy", p, "--zone", "A1:Z99", "--watch", "N1"],
        vec!["deploy", p, "--zone", "A1", "--watch", "N1", "--count", "0"],
    ] {
        let out = hexsight(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("hill-112.json"), "{err}");
    }
}
