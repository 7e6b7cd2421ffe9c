//! Helpers shared by the integration tests.

use std::process::{Command, Output};

/// Runs the `hexsight` binary with `args`, capturing its output (help wrapped at
/// 100 columns whatever the terminal running the tests).
#[allow(dead_code)] // Not every test file runs the binary.
pub fn hexsight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hexsight"))
        .env("COLUMNS", "100")
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The standard output of `hexsight` run with `args`, which must succeed.
#[allow(dead_code)] // Not every test file runs the binary.
pub fn hexsight_ok(args: &[&str]) -> String {
    let out = hexsight(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Each hex of a `viewshed --json` answer (lists of labels by class) as one entry
/// `{"verdict", "hindrance", "blind"}`, by label, checking that every hex is listed once.
#[allow(dead_code)] // Not every test file reads viewsheds.
pub fn viewshed_hexes(v: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let labels = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap_or_else(|| panic!("`{k}` is a list"))
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect()
    };
    let blind = labels("blind");
    let mut out = serde_json::Map::new();
    let mut put = |l: String, e: serde_json::Value| {
        assert!(out.insert(l.clone(), e).is_none(), "{l} listed twice");
    };
    for l in labels("clear") {
        put(
            l,
            json!({"verdict": "clear", "hindrance": 0, "blind": false}),
        );
    }
    for (l, h) in v["hindered"].as_object().unwrap() {
        put(
            l.clone(),
            json!({"verdict": "hindered", "hindrance": h, "blind": false}),
        );
    }
    for l in labels("blocked") {
        let b = blind.contains(&l);
        put(l, json!({"verdict": "blocked", "hindrance": 0, "blind": b}));
    }
    for (k, n) in v["counts"].as_object().unwrap() {
        let listed = out.values().filter(|e| match k.as_str() {
            "blind" => e["blind"] == true,
            _ => e["verdict"] == k.as_str(),
        });
        assert_eq!(listed.count() as u64, n.as_u64().unwrap(), "count of {k}");
    }
    out
}

/// A tiny deterministic xorshift generator, so the property tests need no extra crate
/// and a failing seed reproduces.
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n`.
    pub fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// One of `xs`.
    #[allow(dead_code)] // Not every test file picks from lists.
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.next(xs.len() as u64) as usize]
    }
}

/// Asserts that the engine's whole-map answers for the pair of `r` (its verdict and
/// hindrance, whether the sweeps see it, and the observer's viewshed entry with its
/// blind flag) equal the explained query's, so every rule example checks both paths.
#[allow(dead_code)] // Not every test file checks the engine.
pub fn engine_agrees(map: &hexsight_analysis::Map, r: &hexsight_analysis::LosResult) {
    use hexsight_analysis::Verdict;
    use hexsight_analysis::engine::fast::Engine;
    use hexsight_analysis::engine::matrix::Control;
    use hexsight_analysis::engine::viewshed::{is_blind, viewshed_of};
    let (i, j) = (
        map.index(r.line.from).expect("on the map"),
        map.index(r.line.to).expect("on the map"),
    );
    let e = Engine::new(map);
    let s = e.sight(i, j);
    let hindrance = if r.verdict == Verdict::Blocked {
        0
    } else {
        r.hindrance
    };
    let what = format!("{} -> {}", map.label(r.line.from), map.label(r.line.to));
    assert_eq!(
        (s.verdict, s.hindrance),
        (r.verdict, hindrance),
        "engine pair {what}"
    );
    // The whole-map sweeps (a matrix's, a zone's) as a request of this one pair.
    let swept = std::sync::atomic::AtomicBool::new(false);
    hexsight_analysis::engine::pairs::for_each_seen(&e, &[i], &[j], &Control::default(), |a, b| {
        assert_eq!((a, b), (i, j), "only the pair asked for");
        swept.store(true, std::sync::atomic::Ordering::Relaxed);
    })
    .expect("not cancelled");
    assert_eq!(swept.into_inner(), r.verdict.sees(), "engine sweep {what}");
    let v = viewshed_of(&e, i, &Control::default()).expect("not cancelled");
    let t = &v.targets[j];
    assert_eq!(
        (t.verdict, t.hindrance, t.blind),
        (r.verdict, hindrance, is_blind(map, r)),
        "engine viewshed {what}"
    );
}
