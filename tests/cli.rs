//! End-to-end tests of the `hexsight` binary: bad input gets a one-line error that
//! names the file and the place, with a non-zero exit and no panic; good input gets
//! the documented output.

use hexsight_analysis::Map;
use std::path::{Path, PathBuf};
mod common;
use common::hexsight;

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .to_string_lossy()
        .into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `validate` on a bad file; returns stderr after checking exit code and shape.
fn refused(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad-map.json", text);
    let out = hexsight(&["validate", p.to_str().unwrap()]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "accepted: {text}");
    assert_eq!(out.status.code(), Some(2));
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains("bad-map.json"), "names the file: {err}");
    err
}

const HEAD: &str =
    r#""hexsight":1,"name":"t","ruleset":"combat-commander","grid":{"cols":15,"rows":10}"#;

#[test]
fn malformed_json_names_line_and_column() {
    let err = refused("{\n  \"hexsight\": 1,\n  \"name\": \"t\",,\n}");
    assert!(err.contains("line 3, column"), "{err}");
}

#[test]
fn an_unknown_terrain_names_the_hex_and_lists_the_valid_ones() {
    let err = refused(&format!(
        r#"{{{HEAD},"hexes":{{"C5":{{"terrain":"forest"}}}}}}"#
    ));
    assert!(err.contains("C5") && err.contains("forest"), "{err}");
    for t in ["open", "woods", "building", "brush", "marsh"] {
        assert!(err.contains(t), "lists {t}: {err}");
    }
}

#[test]
fn an_unknown_side_names_the_hex_and_lists_the_valid_ones() {
    let err = refused(&format!(
        r#"{{{HEAD},"hexsides":[{{"hex":"C5","side":"E","terrain":"hedge"}}]}}"#
    ));
    assert!(
        err.contains("C5") && err.contains("`E`") && err.contains("N, NE, SE, S, SW, NW"),
        "{err}"
    );
}

#[test]
fn an_unknown_hexside_terrain_or_marker_lists_the_valid_ones() {
    let err = refused(&format!(
        r#"{{{HEAD},"hexsides":[{{"hex":"C5","side":"S","terrain":"fence"}}]}}"#
    ));
    assert!(
        err.contains("fence") && err.contains("hedge, wall"),
        "{err}"
    );
    let err = refused(&format!(
        r#"{{{HEAD},"markers":[{{"hex":"D4","kind":"fog"}}]}}"#
    ));
    assert!(
        err.contains("D4") && err.contains("fog") && err.contains("smoke, blaze"),
        "{err}"
    );
}

#[test]
fn a_hex_label_outside_the_grid_is_named() {
    let err = refused(&format!(r#"{{{HEAD},"hexes":{{"P5":{{"level":1}}}}}}"#));
    assert!(err.contains("P5") && err.contains("A1 to O10"), "{err}");
    let err = refused(&format!(
        r#"{{{HEAD},"markers":[{{"hex":"C11","kind":"smoke"}}]}}"#
    ));
    assert!(err.contains("C11"), "{err}");
    let err = refused(&format!(r#"{{{HEAD},"units":[{{"id":"x","hex":"Z0"}}]}}"#));
    assert!(err.contains("Z0"), "{err}");
}

#[test]
fn duplicate_entries_are_named() {
    let err = refused(&format!(
        "{{{HEAD},\n\"hexes\":{{\"C5\":{{\"level\":1}},\n \"C5\":{{\"level\":2}}}}}}"
    ));
    assert!(
        err.contains("duplicate hex entry `C5`") && err.contains("line 3"),
        "{err}"
    );
    let err = refused(&format!(
        r#"{{{HEAD},"hexes":{{"C5":{{"level":1}},"c5":{{"level":2}}}}}}"#
    ));
    assert!(err.contains("c5"), "{err}");
    let err = refused(&format!(
        r#"{{{HEAD},"hexsides":[{{"hex":"C5","side":"S","terrain":"hedge"}},{{"hex":"C6","side":"N","terrain":"wall"}}]}}"#
    ));
    assert!(err.contains("C5/C6") && err.contains("twice"), "{err}");
    let err = refused(&format!(
        r#"{{{HEAD},"units":[{{"id":"a","hex":"A1"}},{{"id":"a","hex":"A2"}}]}}"#
    ));
    assert!(err.contains("`a`") && err.contains("twice"), "{err}");
    let err = refused(&format!(
        r#"{{{HEAD},"markers":[{{"hex":"D4","kind":"smoke"}},{{"hex":"D4","kind":"smoke"}}]}}"#
    ));
    assert!(err.contains("D4") && err.contains("already"), "{err}");
}

#[test]
fn a_missing_ruleset_file_is_named() {
    let err = refused(
        r#"{"hexsight":1,"name":"t","ruleset":"rules/mine.json","grid":{"cols":3,"rows":3}}"#,
    );
    assert!(
        err.contains("rules/mine.json") && err.contains("geometric"),
        "{err}"
    );
}

#[test]
fn an_unsupported_format_version_is_named() {
    let err =
        refused(r#"{"hexsight":2,"name":"t","ruleset":"geometric","grid":{"cols":3,"rows":3}}"#);
    assert!(err.contains("version 2"), "{err}");
}

#[test]
fn other_inconsistencies_are_refused_with_their_place() {
    let err = refused(
        r#"{"hexsight":1,"name":"t","ruleset":"combat-commander","grid":{"cols":3,"rows":3},"hexes":{"B2":{"level":7}}}"#,
    );
    assert!(err.contains("B2") && err.contains("level 7"), "{err}");
    let err =
        refused(r#"{"hexsight":1,"name":"t","ruleset":"geometric","grid":{"cols":0,"rows":3}}"#);
    assert!(err.contains("grid"), "{err}");
    let err = refused(
        r#"{"hexsight":1,"name":"t","ruleset":"geometric","grid":{"cols":3,"rows":3},"scale":{"hex":-5,"unit":"m"}}"#,
    );
    assert!(err.contains("scale"), "{err}");
    let err = refused(r#"{"hexsight":1,"name":"t","grid":{"cols":3,"rows":3}}"#);
    assert!(err.contains("ruleset"), "{err}");
    refused("");
    refused("[1, 2, 3]");
    refused("\u{0}\u{1}garbage");
}

#[test]
fn a_ruleset_file_relative_to_the_map_is_used_and_its_errors_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rules")).unwrap();
    write(
        dir.path(),
        "rules/hedgerow.json",
        r#"{"hexsight_ruleset":1,"name":"hedgerow","family":"combat-commander",
            "terrain":[{"id":"field","los":"clear"},{"id":"bocage","los":"obstacle"}]}"#,
    );
    let p = write(
        dir.path(),
        "map.json",
        r#"{"hexsight":1,"name":"t","ruleset":"rules/hedgerow.json","grid":{"cols":5,"rows":5},"hexes":{"A3":{"terrain":"bocage"}}}"#,
    );
    let out = hexsight(&["los", p.to_str().unwrap(), "A1", "A5", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "blocked");
    assert_eq!(v["blocked_by"], "A3");
    write(
        dir.path(),
        "rules/hedgerow.json",
        r#"{"hexsight_ruleset":1,"name":"x","family":"chess","terrain":[]}"#,
    );
    let out = hexsight(&["validate", p.to_str().unwrap()]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && err.contains("hedgerow.json") && err.contains("chess"),
        "{err}"
    );
}

#[test]
fn a_missing_map_file_or_bad_label_is_a_clear_error() {
    let out = hexsight(&["los", "/nonexistent/map.json", "A1", "A2"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && err.contains("/nonexistent/map.json"),
        "{err}"
    );
    let out = hexsight(&["los", &repo("maps/hill-112.json"), "A1", "Z99"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && err.contains("Z99") && err.contains("A1 to T12"),
        "{err}"
    );
}

#[test]
fn no_prefix_of_a_valid_map_makes_the_loader_panic() {
    let text = std::fs::read_to_string(repo("maps/hill-112.json")).unwrap();
    let bytes = text.as_bytes();
    for end in (0..bytes.len()).step_by(7) {
        let prefix = String::from_utf8_lossy(&bytes[..end]);
        let r = std::panic::catch_unwind(|| Map::from_json(&prefix, Path::new("cut.json")));
        assert!(matches!(r, Ok(Err(_))), "prefix of {end} bytes");
    }
}

#[test]
fn los_json_has_the_documented_keys() {
    let out = hexsight(&["los", &repo("maps/hill-112.json"), "K5", "C8", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "verdict",
        "hindrance",
        "blocked_by",
        "reason",
        "trace",
        "modifiers",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["verdict"], "blocked");
    assert!(
        v["reason"].as_str().unwrap().contains("T88"),
        "cites the rule"
    );
    let trace = v["trace"].as_array().unwrap();
    assert_eq!(trace.first().unwrap(), "K5");
    assert_eq!(trace.last().unwrap(), "C8");
}

#[test]
fn los_json_reports_a_hexside_stretch_as_a_pair_of_labels() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "m.json",
        r#"{"hexsight":1,"name":"t","ruleset":"geometric","grid":{"cols":6,"rows":5}}"#,
    );
    let out = hexsight(&["los", p.to_str().unwrap(), "A3", "E3", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["trace"],
        serde_json::json!(["A3", ["B3", "B2"], "C3", ["D3", "D2"], "E3"])
    );
    assert_eq!(v["vertices"].as_array().unwrap().len(), 4);
}

#[test]
fn the_matrix_csv_agrees_with_los_for_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("m.csv");
    let map_path = repo("maps/hill-112.json");
    let out = hexsight(&["matrix", &map_path, "--out", csv.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let map = Map::load(Path::new(&map_path)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "");
    assert_eq!(header.len(), map.len() + 1);
    let mut rows = 0;
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[0], header[i + 1], "row labels follow the header");
        assert_eq!(cells[i + 1], "1", "{} sees itself", cells[0]);
        for (j, c) in cells[1..].iter().enumerate().step_by(13) {
            let r = hexsight_analysis::line_of_sight_labels(&map, cells[0], header[j + 1]).unwrap();
            assert_eq!(
                *c == "1",
                r.verdict.sees(),
                "{} -> {}",
                cells[0],
                header[j + 1]
            );
        }
        rows += 1;
    }
    assert_eq!(rows, map.len());
}

#[test]
fn validate_summarises_a_bundled_map() {
    let out = hexsight(&["validate", &repo("maps/hill-112.json")]);
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("valid") && s.contains("Hill 112") && s.contains("240 hexes"),
        "{s}"
    );
}

#[test]
fn every_bundled_map_round_trips_through_save() {
    let dir = tempfile::tempdir().unwrap();
    let maps = std::fs::read_dir(repo("maps")).unwrap();
    let mut n = 0;
    for entry in maps {
        let p = entry.unwrap().path();
        if p.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let a = Map::load(&p).unwrap();
        // Save beside a copy of the ruleset reference so relative rulesets resolve.
        let out = if a.ruleset_ref.ends_with(".json") {
            p.with_extension("roundtrip.tmp")
        } else {
            dir.path().join("copy.json")
        };
        a.save(&out).unwrap();
        let b = Map::load(&out);
        if out.starts_with(repo("maps")) {
            std::fs::remove_file(&out).unwrap();
        }
        let b = b.unwrap();
        assert!(
            hexsight_analysis::map::file::same_content(&a, &b),
            "{} changed in a round trip",
            p.display()
        );
        assert_eq!(a.to_json(), b.to_json(), "saving is stable");
        n += 1;
    }
    assert!(n >= 2);
}

#[test]
fn keys_hexsight_does_not_know_survive_a_round_trip() {
    let text = r#"{"hexsight":1,"name":"t","ruleset":"combat-commander","author":"me",
        "grid":{"cols":4,"rows":4,"label_style":"board"},
        "default":{"terrain":"open","level":0,"note":"d"},
        "hexes":{"B2":{"terrain":"woods","owner":"x"},"C3":{"elevation_m":12}},
        "hexsides":[{"hex":"B2","side":"S","terrain":"hedge","height_m":2}],
        "markers":[{"hex":"C2","kind":"smoke","turn":3}],
        "units":[{"id":"u1","hex":"A1","side":"allied","kind":"squad","state":"","facing":"NE","strength":7}]}"#;
    let a = Map::from_json(text, Path::new("x.json")).unwrap();
    let saved = a.to_json();
    let b = Map::from_json(&saved, Path::new("x.json")).unwrap();
    assert!(hexsight_analysis::map::file::same_content(&a, &b));
    for key in [
        "author",
        "label_style",
        "note",
        "owner",
        "elevation_m",
        "height_m",
        "turn",
        "strength",
        "\"facing\": \"NE\"",
    ] {
        assert!(saved.contains(key), "{key} lost: {saved}");
    }
}

#[test]
fn saving_is_atomic_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.json");
    std::fs::write(&p, "old").unwrap();
    let m = Map::load(Path::new(&repo("maps/hill-112.json"))).unwrap();
    m.save(&p).unwrap();
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(Map::load(&p).is_ok());
    // A save into a missing folder fails cleanly and names the file.
    let err = m
        .save(&dir.path().join("no/such/dir/m.json"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no/such/dir/m.json"), "{err}");
}

#[test]
fn move_reports_the_cost_with_its_parts() {
    let out = hexsight(&["move", &repo("maps/hill-112.json"), "B1", "B2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("B1 -> B2: 2 MP") && s.contains("woods"), "{s}");
}

#[test]
fn move_refuses_rulesets_without_movement_rules() {
    let out = hexsight(&["move", &repo("maps/twin-hills.json"), "A1", "A2"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && err.contains("combat-commander") && err.contains("geometric"),
        "{err}"
    );
}

/// The subcommands `hexsight --help` lists.
fn subcommands() -> Vec<String> {
    let help = String::from_utf8(hexsight(&["--help"]).stdout).unwrap();
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

/// Man pages and completions come from the one definition of the command line: a
/// page for every subcommand (and `import`'s own), completions naming every subcommand.
#[test]
fn man_pages_and_completions_cover_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let out = hexsight(&["man", dir.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let subs = subcommands();
    assert!(subs.len() >= 18, "{subs:?}");
    for sub in subs
        .iter()
        .chain(["import-dem".to_string(), "import-megamek".to_string()].iter())
    {
        let page = std::fs::read_to_string(dir.path().join(format!("hexsight-{sub}.1")))
            .unwrap_or_else(|e| panic!("{sub}: {e}"));
        assert!(page.contains(".TH") && page.contains("SYNOPSIS"), "{sub}");
    }
    for shell in ["bash", "zsh", "fish"] {
        let out = hexsight(&["completions", shell]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success() && !text.is_empty(), "{shell}");
        for sub in &subs {
            assert!(
                text.contains(sub.as_str()),
                "{shell} completions lack {sub}"
            );
        }
    }
    let out = hexsight(&["completions", "tcsh"]);
    assert!(!out.status.success());
}

/// Every subcommand's `--help` ends with an example of itself, and `hexsight --help`
/// with one that runs.
#[test]
fn every_help_has_an_example() {
    let help = String::from_utf8(hexsight(&["--help"]).stdout).unwrap();
    let example = help
        .lines()
        .find_map(|l| l.strip_prefix("Example: hexsight "))
        .expect("hexsight --help has an example");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/");
    let args: Vec<String> = example
        .split_whitespace()
        .map(|a| {
            if a.starts_with("maps/") {
                format!("{root}{a}")
            } else {
                a.to_string()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = hexsight(&args);
    assert!(
        out.status.success(),
        "{example}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for sub in subcommands() {
        let help = String::from_utf8(hexsight(&[&sub, "--help"]).stdout).unwrap();
        let example = help
            .lines()
            .find_map(|l| l.strip_prefix("Example: hexsight "))
            .unwrap_or_else(|| panic!("{sub} --help has no example"));
        assert!(example.starts_with(&sub), "{sub}: {example}");
    }
}

/// Every subcommand's `-h` fits a terminal screen (24 lines, 100 columns) and shows
/// its example; `--help` says everything `-h` leaves out (the flags `-h` hides, the
/// longer explanations), so it is never shorter.
#[test]
fn every_short_help_fits_a_screen() {
    let text = |args: &[&str]| String::from_utf8(hexsight(args).stdout).unwrap();
    let mut subs = subcommands();
    subs.push(String::new());
    for sub in subs {
        let args: Vec<&str> = [sub.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        let short = text(&[args.as_slice(), &["-h"]].concat());
        let long = text(&[args.as_slice(), &["--help"]].concat());
        let lines = short.lines().count();
        let widest = short.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(
            lines <= 24 && widest <= 100,
            "{sub} -h: {lines} lines, {widest} columns\n{short}"
        );
        assert!(
            short.contains("Example: hexsight"),
            "{sub} -h has no example"
        );
        for flag in short.split_whitespace().filter(|w| w.starts_with("--")) {
            let flag = flag.trim_end_matches(|c: char| !c.is_alphanumeric());
            assert!(long.contains(flag), "{sub} --help lacks {flag}");
        }
        assert!(long.len() >= short.len(), "{sub}: --help shorter than -h");
    }
    // `hexsight -h` groups the commands by name only: every one is there.
    let short = text(&["-h"]);
    for sub in subcommands().iter().chain(["help".to_string()].iter()) {
        assert!(
            short.split([' ', ',', '\n']).any(|w| w == sub),
            "hexsight -h lacks {sub}"
        );
    }
}
