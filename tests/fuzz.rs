//! A seeded mutation fuzzer on stable Rust: the bundled maps and rulesets, mutated
//! (byte flips, truncations, deleted or duplicated keys, numbers replaced by huge,
//! negative or fractional values, strings replaced by random ids, values swapped
//! between keys, values of the wrong type), are loaded from a file; every map that
//! loads is queried (line of sight with its explanation, a viewshed, the fast
//! engine's matrix on small maps, units and spotting). A panic fails the test with
//! the seed that reproduces it; so does a case that takes more than ten seconds.
//!
//! ```sh
//! cargo test --release --test fuzz                                  # a few hundred cases
//! HEXSIGHT_FUZZ_CASES=100000 cargo test --release --test fuzz       # as long as one likes
//! HEXSIGHT_FUZZ_SEED=1234 cargo test --release --test fuzz          # one case, with its backtrace
//! HEXSIGHT_FUZZ_SEED=1234 HEXSIGHT_FUZZ_KEEP=/tmp/case cargo test --release --test fuzz  # and its files
//! HEXSIGHT_FUZZ_WRITE=/tmp/mutants cargo test --release --test fuzz # only write the cases' files
//! ```

use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection, matrix};
use hexsight_analysis::engine::viewshed::viewshed;
use hexsight_analysis::{Map, Ruleset, line_of_sight};
use serde_json::Value;
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

/// SplitMix64: small, fast, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The bundled maps, each with the built-in ruleset it uses.
const MAPS: [(&str, &str); 5] = [
    ("hill-112.json", "combat-commander"),
    ("twin-hills.json", "geometric"),
    ("asl-stream-crest.json", "asl"),
    ("napoleonic-ridge.json", "napoleonic"),
    ("miniatures-hamlet.json", "miniatures"),
];

fn repo(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// Text written as is in place of a JSON value (numbers JSON cannot hold as f64).
const RAW: &str = "\u{1}raw:";

/// Numbers that break careless code.
const NUMBERS: [&str; 24] = [
    "0",
    "-1",
    "-5",
    "1",
    "2",
    "3.5",
    "-0.5",
    "1e30",
    "-1e30",
    "1e400",
    "-1e400",
    "1e-300",
    "2147483647",
    "-2147483648",
    "2147483648",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "65535",
    "65536",
    "20000",
    "20001",
    "4096",
    "9007199254740993",
];

/// Strings: ids of the bundled rulesets, labels, and junk.
const STRINGS: [&str; 34] = [
    "",
    "open",
    "woods",
    "building",
    "hill",
    "marsh",
    "hedge",
    "wall",
    "smoke",
    "blaze",
    "stream-shallow",
    "gully",
    "infantry",
    "prone",
    "crest",
    "standing",
    "A1",
    "A0",
    "A-1",
    "ZZZZZZ999999",
    "ABCDEFGHIJKLMNOPQRST1",
    "C5",
    "T12",
    "N",
    "S",
    "E",
    "pointy",
    "even",
    "NaN",
    "geometric",
    "asl",
    "miniatures",
    "é🙂",
    "../maps/rulesets/asl.json",
];

/// One step of a path into a JSON value.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(Step::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Step::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut v = v;
    for s in path {
        v = match (s, v) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

fn at_ref<'a>(v: &'a Value, path: &[Step]) -> Option<&'a Value> {
    let mut v = v;
    for s in path {
        v = match (s, v) {
            (Step::Key(k), Value::Object(m)) => m.get(k)?,
            (Step::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(2)),
        2 => Value::Array(Vec::new()),
        3 => Value::Object(Default::default()),
        4 | 5 => Value::String(format!("{RAW}{}", rng.pick(&NUMBERS))),
        _ => Value::String(random_string(rng)),
    }
}

fn random_string(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => {
            let n = 1 + rng.below(8);
            (0..n)
                .map(|_| (b'A' + rng.below(26) as u8) as char)
                .chain(std::iter::once('1'))
                .collect()
        }
        1 => "x".repeat(1 + rng.below(3000)),
        _ => rng.pick(&STRINGS).to_string(),
    }
}

/// One structural mutation of a parsed file.
fn mutate_value(v: &mut Value, rng: &mut Rng) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let path = rng.pick(&all).clone();
    match rng.below(10) {
        // Delete a key or an element.
        0 => {
            if let Some((last, parent)) = path.split_last() {
                match (last, at(v, parent)) {
                    (Step::Key(k), Some(Value::Object(m))) => {
                        m.shift_remove(k);
                    }
                    (Step::Index(i), Some(Value::Array(a))) if *i < a.len() => {
                        a.remove(*i);
                    }
                    _ => {}
                }
            }
        }
        // A number replaced by a huge, negative or fractional one.
        1 | 2 => {
            let nums: Vec<_> = all
                .iter()
                .filter(|p| matches!(at_ref(v, p), Some(Value::Number(_))))
                .cloned()
                .collect();
            let p = if nums.is_empty() {
                path
            } else {
                rng.pick(&nums).clone()
            };
            if let Some(x) = at(v, &p) {
                *x = Value::String(format!("{RAW}{}", rng.pick(&NUMBERS)));
            }
        }
        // A number nudged: one more or less, doubled, negated, halved, zero.
        7 | 8 => {
            let nums: Vec<_> = all
                .iter()
                .filter(|p| matches!(at_ref(v, p), Some(Value::Number(_))))
                .cloned()
                .collect();
            if nums.is_empty() {
                return;
            }
            let p = rng.pick(&nums).clone();
            let k = rng.below(6);
            if let Some(x) = at(v, &p) {
                let n = x.as_f64().unwrap_or(0.0);
                let m = match k {
                    0 => n + 1.0,
                    1 => n - 1.0,
                    2 => n * 2.0,
                    3 => -n,
                    4 => n / 2.0,
                    _ => 0.0,
                };
                *x = if m.fract() == 0.0 && m.abs() < 1e15 {
                    Value::from(m as i64)
                } else {
                    Value::from(m)
                };
            }
        }
        // A string replaced by a random id.
        3 => {
            let strs: Vec<_> = all
                .iter()
                .filter(|p| matches!(at_ref(v, p), Some(Value::String(_))))
                .cloned()
                .collect();
            let p = if strs.is_empty() {
                path
            } else {
                rng.pick(&strs).clone()
            };
            let s = random_string(rng);
            if let Some(x) = at(v, &p) {
                *x = Value::String(s);
            }
        }
        // Values swapped between two keys.
        4 => {
            let other = rng.pick(&all).clone();
            let a = at_ref(v, &path).cloned();
            let b = at_ref(v, &other).cloned();
            if let (Some(a), Some(b)) = (a, b) {
                // Swapping a value with one inside it would nest it in itself: skip those.
                if path.len() <= other.len() && other.len() - path.len() < 64 {
                    if let Some(x) = at(v, &path) {
                        *x = b;
                    }
                    if let Some(x) = at(v, &other) {
                        *x = a;
                    }
                }
            }
        }
        // A value of another type.
        5 => {
            let r = random_value(rng);
            if let Some(x) = at(v, &path) {
                *x = r;
            }
        }
        // A key renamed (a hex label, a unit field, a table name).
        9 => {
            if let Some((Step::Key(k), parent)) = path.split_last() {
                let name = random_string(rng);
                if let Some(Value::Object(m)) = at(v, parent)
                    && let Some(x) = m.shift_remove(k)
                {
                    m.insert(name, x);
                }
            }
        }
        // A new key.
        _ => {
            let key = random_string(rng);
            let r = random_value(rng);
            if let Some(Value::Object(m)) = at(v, &path) {
                m.insert(key, r);
            }
        }
    }
}

/// Writes JSON, with raw tokens and, for the `dup`-th object entry, the entry twice.
fn emit(v: &Value, out: &mut String, dup: &mut Option<usize>) {
    match v {
        Value::String(s) if s.starts_with(RAW) => out.push_str(&s[RAW.len()..]),
        Value::Object(m) => {
            out.push('{');
            let mut first = true;
            for (k, x) in m {
                let times = match dup {
                    Some(0) => {
                        *dup = None;
                        2
                    }
                    Some(n) => {
                        *n -= 1;
                        1
                    }
                    None => 1,
                };
                for _ in 0..times {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    emit(x, out, dup);
                }
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                emit(x, out, dup);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A mutated copy of `text`: structural mutations of its JSON, then maybe byte damage.
fn mutate(text: &str, rng: &mut Rng) -> Vec<u8> {
    let mut bytes = if rng.chance(5) {
        text.as_bytes().to_vec()
    } else {
        let mut v: Value = serde_json::from_str(text).unwrap();
        for _ in 0..1 + rng.below(4) {
            mutate_value(&mut v, rng);
        }
        let mut out = String::new();
        let entries = text.matches(':').count();
        let mut dup = rng.chance(4).then(|| rng.below(entries.max(1)));
        emit(&v, &mut out, &mut dup);
        if rng.chance(4) {
            out = out.replace('\n', "\r\n");
        }
        if rng.chance(10) {
            out.insert(0, '\u{feff}');
        }
        out.into_bytes()
    };
    // Byte damage: flips, truncation, insertion, deletion.
    let damage = if rng.chance(3) { 1 + rng.below(3) } else { 0 };
    for _ in 0..damage {
        if bytes.is_empty() {
            break;
        }
        let i = rng.below(bytes.len());
        match rng.below(4) {
            0 => bytes[i] ^= 1 << rng.below(8),
            1 => bytes.truncate(i),
            2 => {
                let b = *rng.pick(b"{}[]\",:0-9e.\\ \n\x00\xff");
                bytes.insert(i, b);
            }
            _ => {
                let j = (i + 1 + rng.below(40)).min(bytes.len());
                bytes.drain(i..j);
            }
        }
    }
    bytes
}

/// Everything one case does with a map that loaded.
fn exercise(map: &Map, rng: &mut Rng) {
    let n = map.len();
    for _ in 0..4 {
        let (a, b) = (map.hex_of(rng.below(n)), map.hex_of(rng.below(n)));
        let r = line_of_sight(map, a, b);
        let _ = r.explain(map);
        let _ = r.to_json(map);
    }
    if n <= 4000 {
        let from = map.hex_of(rng.below(n));
        let v = viewshed(map, from);
        assert_eq!(v.targets.len(), n);
        let _ = v.blind();
        if map.ruleset.spotting.is_some() {
            let _ = hexsight_analysis::query::spotting::spot(
                map,
                from,
                hexsight_analysis::rules::miniatures::Activity::Still,
            );
        }
    }
    if n <= 600 {
        let engine = Engine::new(map);
        let sel = Selection::all(map);
        let m = matrix(&engine, &sel, &Control::default()).expect("not cancelled");
        // The fast engine agrees with the plain query on a few pairs.
        for _ in 0..8 {
            let (i, j) = (rng.below(n), rng.below(n));
            let plain = line_of_sight(map, map.hex_of(i), map.hex_of(j))
                .verdict
                .sees();
            assert_eq!(
                m.bits.get(i, j),
                plain,
                "engine and plain LOS differ from {} to {}",
                map.label(map.hex_of(i)),
                map.label(map.hex_of(j))
            );
        }
    }
    let _ = hexsight_analysis::rules::warnings(map);
    let units = &map.units;
    if units.len() >= 2 {
        let (a, b) = (rng.pick(units), rng.pick(units));
        for fire in [
            hexsight_analysis::rules::units::FireKind::Direct,
            hexsight_analysis::rules::units::FireKind::Indirect,
        ] {
            let _ = hexsight_analysis::query::units::unit_answers(map, a, b, fire);
        }
    }
    let text = map.to_json();
    let again = Map::from_json_with(&text, Path::new("again.json"), map.ruleset.clone());
    assert!(
        again.is_ok(),
        "a loaded map saves to a file that loads: {again:?}"
    );
}

/// How a case ended.
enum Outcome {
    /// The map loaded and every query ran.
    Loaded,
    /// The map was refused with a one-line error.
    Refused,
    /// A panic, a multi-line error or a case that took too long.
    Failed(String),
}

/// One case's files, written: the mutated map and, when the ruleset is mutated too,
/// its ruleset beside it (the map names it). The generator goes on to pick the queries.
struct Files {
    rng: Rng,
    map_file: &'static str,
    map_path: std::path::PathBuf,
    rs_path: std::path::PathBuf,
    rules_too: bool,
}

/// Writes case `seed`'s files into `dir`.
fn write_case(seed: u64, dir: &Path) -> Files {
    let mut rng = Rng(seed);
    let (map_file, family) = *rng.pick(&MAPS);
    let mut map_text = repo(&format!("maps/{map_file}"));
    let rules_too = rng.chance(2);
    let map_only = !rules_too || rng.chance(2);
    let map_path = dir.join(format!("fuzz-{seed}.json"));
    let rs_path = dir.join(format!("fuzz-{seed}-rules.json"));
    if rules_too {
        let rs_text = repo(&format!("maps/rulesets/{family}.json"));
        std::fs::write(&rs_path, mutate(&rs_text, &mut rng)).unwrap();
        let name = rs_path.file_name().unwrap().to_str().unwrap();
        map_text = map_text.replacen(
            &format!("\"ruleset\": \"{family}\""),
            &format!("\"ruleset\": \"{name}\""),
            1,
        );
    }
    let bytes = if map_only {
        mutate(&map_text, &mut rng)
    } else {
        map_text.into_bytes()
    };
    std::fs::write(&map_path, &bytes).unwrap();
    Files {
        rng,
        map_file,
        map_path,
        rs_path,
        rules_too,
    }
}

/// One case: what went wrong, if anything.
fn case(seed: u64, dir: &Path) -> Outcome {
    let Files {
        mut rng,
        map_file,
        map_path,
        rs_path,
        rules_too,
    } = write_case(seed, dir);
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| {
        if rules_too {
            let _ = Ruleset::load(&rs_path);
        }
        match Map::load(&map_path) {
            Ok(map) => {
                exercise(&map, &mut rng);
                true
            }
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(msg.lines().count(), 1, "one-line error: {msg}");
                assert!(msg.len() < 4000, "a bounded error: {} bytes", msg.len());
                false
            }
        }
    }));
    let took = start.elapsed();
    if std::env::var_os("HEXSIGHT_FUZZ_KEEP").is_none() {
        let _ = std::fs::remove_file(&map_path);
        let _ = std::fs::remove_file(&rs_path);
    }
    match result {
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome::Failed(format!("seed {seed} ({map_file}): panic: {msg}"))
        }
        Ok(_) if took > Duration::from_secs(10) => Outcome::Failed(format!(
            "seed {seed} ({map_file}): took {:.1} s",
            took.as_secs_f64()
        )),
        Ok(true) => Outcome::Loaded,
        Ok(false) => Outcome::Refused,
    }
}

#[test]
fn mutated_maps_and_rulesets_never_panic_or_hang() {
    let dir = tempfile::tempdir().unwrap();
    if let Ok(seed) = std::env::var("HEXSIGHT_FUZZ_SEED") {
        // One case, with the default panic hook so the backtrace shows.
        let seed: u64 = seed.parse().expect("HEXSIGHT_FUZZ_SEED is a number");
        // HEXSIGHT_FUZZ_KEEP=DIR keeps the case's files there.
        let keep = std::env::var_os("HEXSIGHT_FUZZ_KEEP").map(std::path::PathBuf::from);
        if let Some(k) = &keep {
            std::fs::create_dir_all(k).unwrap();
        }
        let dir = keep.as_deref().unwrap_or(dir.path());
        if let Outcome::Failed(f) = case(seed, dir) {
            panic!("{f}");
        }
        return;
    }
    let cases: u64 = std::env::var("HEXSIGHT_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let first: u64 = std::env::var("HEXSIGHT_FUZZ_FROM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if let Some(out) = std::env::var_os("HEXSIGHT_FUZZ_WRITE") {
        // Only the cases' files, for other front ends (python/tests/test_fuzz.py).
        let out = std::path::PathBuf::from(out);
        std::fs::create_dir_all(&out).unwrap();
        for seed in first..first + cases {
            write_case(seed, &out);
        }
        let written = std::fs::read_dir(&out).unwrap().count();
        assert!(written as u64 >= cases, "{written} files for {cases} cases");
        return;
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let (mut loaded, mut refused) = (0, 0);
    for seed in first..first + cases {
        match case(seed, dir.path()) {
            Outcome::Loaded => loaded += 1,
            Outcome::Refused => refused += 1,
            Outcome::Failed(f) => failures.push(f),
        }
    }
    std::panic::set_hook(hook);
    eprintln!(
        "fuzz: {cases} cases from seed {first}: {loaded} loaded and were queried, {refused} refused with one line, {} failed",
        failures.len()
    );
    // Enough mutants load to reach the queries, and enough are refused to test the checks.
    assert!(
        cases < 100 || (loaded * 10 > cases && refused * 10 > cases),
        "{loaded} loaded, {refused} refused"
    );
    let mut report = String::new();
    for f in failures.iter().take(40) {
        let _ = writeln!(report, "{f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed (rerun one with HEXSIGHT_FUZZ_SEED=N):\n{report}",
        failures.len()
    );
}
