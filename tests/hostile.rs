//! Nothing a user types, pipes or loads crashes hexsight: closed pipes, memory limits
//! (`ulimit -v`), hostile files and arguments, outputs that are not regular files.
//! Every refusal is one line on stderr naming the culprit, exit code 2, no panic.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_hexsight");

fn hexsight(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

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

/// Checks a refusal: exit 2, one line on stderr, no panic, containing every `needle`.
fn refused(out: &Output, needles: &[&str]) -> String {
    refused_with(2, out, needles)
}

/// Checks a refusal for memory: as [`refused`], with exit 3.
fn too_large(out: &Output, needles: &[&str]) -> String {
    refused_with(3, out, needles)
}

fn refused_with(code: i32, out: &Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "exit {code}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.len() < 2000, "a short line: {} bytes", err.len());
    for n in needles {
        assert!(err.contains(n), "mentions {n}: {err}");
    }
    err
}

fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A generated map of `cols` x `rows` in `dir`.
fn generated(dir: &Path, cols: u32, rows: u32, ruleset: &str) -> PathBuf {
    let p = dir.join(format!("gen-{cols}x{rows}-{ruleset}.json"));
    ok(&hexsight(&[
        "generate",
        "--cols",
        &cols.to_string(),
        "--rows",
        &rows.to_string(),
        "--ruleset",
        ruleset,
        "--out",
        s(&p),
    ]));
    p
}

/// Runs `args` with stdout a pipe whose reader takes `keep` bytes then closes it.
fn closed_early(args: &[&str], keep: usize) -> (Option<i32>, String, usize) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; keep];
    let mut got = 0;
    while got < keep {
        match stdout.read(&mut buf[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    drop(stdout);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    (status.code(), err, got)
}

#[test]
fn a_reader_that_closes_early_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), 100, 100, "geometric");
    let m = s(&map);
    // Outputs far bigger than a pipe's buffer, read for 100 bytes.
    let big: [&[&str]; 5] = [
        &["viewshed", m, "--from", "C5", "--json"],
        &["viewshed", m, "--from", "C5"],
        &["exposure", m, "--json"],
        &["matrix", m, "--out", "-"],
        &["generate", "--cols", "200", "--rows", "200", "--out", "-"],
    ];
    for args in big {
        let (code, err, got) = closed_early(args, 100);
        assert_eq!(got, 100, "{args:?} printed something");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert!(
            matches!(code, Some(0) | Some(141)),
            "{args:?}: exit {code:?}: {err}"
        );
    }
    // Short outputs, with the reader gone before the first byte.
    let small: [&[&str]; 5] = [
        &["los", m, "A1", "J10", "--json"],
        &["los", m, "A1", "J10"],
        &["validate", m],
        &["blind", m, "--from", "C5", "--json"],
        &["exposure", m],
    ];
    for args in small {
        let (code, err, _) = closed_early(args, 0);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert!(
            matches!(code, Some(0) | Some(141)),
            "{args:?}: exit {code:?}: {err}"
        );
    }
}

#[test]
fn a_matrix_too_big_for_ulimit_v_is_refused_with_the_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let small = generated(dir.path(), 20, 20, "geometric");
    let big = generated(dir.path(), 300, 300, "geometric");
    let under_limit = |map: &Path, out: &Path| {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 400000 && exec '{BIN}' matrix '{}' --out '{}'",
                s(map),
                s(out)
            ))
            .output()
            .unwrap()
    };
    // 90,000 x 90,000 bits are about 1 GB: more than 400 MB of address space.
    let out_path = dir.path().join("big.bin");
    let out = under_limit(&big, &out_path);
    too_large(&out, &["ulimit -v", "MiB", "--from", "--to", "300x300"]);
    assert!(!out_path.exists());
    // A picture of a long thin map is tall: refused before it is drawn.
    let tall = write(
        dir.path(),
        "tall.json",
        r#"{"hexsight":1,"name":"tall","ruleset":"geometric","grid":{"cols":1,"rows":20000}}"#,
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1000000 && exec '{BIN}' viewshed '{}' --from A1 --png '{}'",
            s(&tall),
            s(&dir.path().join("tall.png"))
        ))
        .output()
        .unwrap();
    too_large(&out, &["tall.json", "drawing", "ulimit -v", "--png"]);
    // Loading: a 60 MB file needs more than 400 MB once parsed; refused before reading.
    let fat = write(
        dir.path(),
        "fat.json",
        &format!(
            r#"{{"hexsight":1,"name":"{}","ruleset":"geometric","grid":{{"cols":5,"rows":5}}}}"#,
            "n".repeat(60 << 20)
        ),
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 400000 && exec '{BIN}' validate '{}'",
            s(&fat)
        ))
        .output()
        .unwrap();
    too_large(
        &out,
        &["fat.json", "reading this 61 MiB map file", "ulimit -v"],
    );
    // A matrix that fits is computed under the same limit.
    let fits = dir.path().join("small.bin");
    ok(&under_limit(&small, &fits));
    assert!(fits.exists());
}

#[test]
fn an_engine_too_big_for_ulimit_v_is_refused_before_it_is_built() {
    let dir = tempfile::tempdir().unwrap();
    // 2000 x 2000 open hexes: a small file, a map of 48 MB, an engine of some hundreds.
    let plain = write(
        dir.path(),
        "plain.json",
        r#"{"hexsight":1,"name":"plain","ruleset":"combat-commander","grid":{"cols":2000,"rows":2000}}"#,
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 300000 && exec '{BIN}' viewshed '{}' --from A1",
            s(&plain)
        ))
        .output()
        .unwrap();
    too_large(&out, &["plain.json", "2000x2000", "MiB", "ulimit -v"]);
}

#[test]
fn devices_folders_and_huge_files_are_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    refused(
        &hexsight(&["validate", "/dev/zero"]),
        &["/dev/zero", "not a map file"],
    );
    refused(&hexsight(&["validate", s(dir.path())]), &["folder"]);
    // A sparse file of 300 MiB: over the 256 MiB limit, refused without reading it.
    let huge = dir.path().join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    refused(
        &hexsight(&["validate", s(&huge)]),
        &["huge.json", "256 MiB"],
    );
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_bad_ruleset_path_is_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder")).unwrap();
    std::fs::File::create(d.join("big-rules.json"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let map = |ruleset: &str| {
        let text = format!(
            r#"{{"hexsight":1,"name":"t","ruleset":"{ruleset}","grid":{{"cols":5,"rows":5}}}}"#
        );
        write(d, "uses.json", &text)
    };
    refused(&hexsight(&["validate", s(&map("folder"))]), &["folder"]);
    refused(
        &hexsight(&["validate", s(&map("/dev/zero"))]),
        &["/dev/zero"],
    );
    refused(
        &hexsight(&["validate", s(&map("uses.json"))]),
        &["map file itself"],
    );
    refused(
        &hexsight(&["validate", s(&map("big-rules.json"))]),
        &["big-rules.json", "256 MiB"],
    );
    refused(&hexsight(&["validate", s(&map(""))]), &["ruleset"]);
}

const HEAD: &str = r#""hexsight":1,"name":"t","ruleset":"combat-commander""#;

#[test]
fn bad_grid_sizes_name_the_key_and_the_range() {
    let dir = tempfile::tempdir().unwrap();
    for v in [
        "1e400", "-5", "0", "3.5", "\"10\"", "null", "20001", "[]", "true",
    ] {
        for key in ["cols", "rows"] {
            let other = if key == "cols" { "rows" } else { "cols" };
            let text = format!(r#"{{{HEAD},"grid":{{"{key}":{v},"{other}":10}}}}"#);
            let p = write(dir.path(), "grid.json", &text);
            refused(
                &hexsight(&["validate", s(&p)]),
                &["grid.json", &format!("grid.{key}"), "1 to 20000"],
            );
        }
    }
    let p = write(
        dir.path(),
        "grid.json",
        &format!(r#"{{{HEAD},"grid":{{"cols":20000,"rows":20000}}}}"#),
    );
    refused(&hexsight(&["validate", s(&p)]), &["4000000 hexes"]);
}

#[test]
fn bad_levels_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    for v in ["1e30", "\"NaN\"", "3.5", "2147483648", "{}"] {
        let text = format!(
            r#"{{{HEAD},"grid":{{"cols":10,"rows":10}},"hexes":{{"C5":{{"level":{v}}}}}}}"#
        );
        let p = write(dir.path(), "level.json", &text);
        refused(
            &hexsight(&["validate", s(&p)]),
            &["level.json", "hexes.C5", "level must be a whole number"],
        );
    }
    let text = format!(r#"{{{HEAD},"grid":{{"cols":10,"rows":10}},"default":{{"level":"high"}}}}"#);
    let p = write(dir.path(), "level.json", &text);
    refused(&hexsight(&["validate", s(&p)]), &["default.level"]);
}

#[test]
fn a_level_span_too_wide_for_per_level_tables_is_refused_naming_both_hexes() {
    let dir = tempfile::tempdir().unwrap();
    let mut rs: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo("maps/rulesets/combat-commander.json")).unwrap(),
    )
    .unwrap();
    rs["levels"] = serde_json::json!({"min": i32::MIN, "max": i32::MAX});
    write(dir.path(), "wide.json", &rs.to_string());
    let map = write(
        dir.path(),
        "span.json",
        r#"{"hexsight":1,"name":"t","ruleset":"wide.json","grid":{"cols":10,"rows":10},
            "hexes":{"A1":{"level":2147483647},"B2":{"level":-2147483648}}}"#,
    );
    for cmd in [
        &["validate", s(&map)][..],
        &["exposure", s(&map)],
        &["matrix", s(&map), "--out", s(&dir.path().join("m.csv"))],
    ] {
        refused(&hexsight(cmd), &["span.json", "A1", "B2", "4096 levels"]);
    }
    // A span within the bound loads and runs.
    let map = write(
        dir.path(),
        "ok-span.json",
        r#"{"hexsight":1,"name":"t","ruleset":"wide.json","grid":{"cols":10,"rows":10},
            "default":{"level":999000},"hexes":{"A1":{"level":1000000},"C3":{"level":998000}}}"#,
    );
    ok(&hexsight(&[
        "matrix",
        s(&map),
        "--out",
        s(&dir.path().join("m.csv")),
    ]));
}

#[test]
fn a_ruleset_of_ten_thousand_terrains_lists_thirty_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut rs: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo("maps/rulesets/geometric.json")).unwrap(),
    )
    .unwrap();
    rs["terrain"] = (0..10_000)
        .map(|i| serde_json::json!({"id": format!("t{i}"), "los": "clear"}))
        .collect();
    write(dir.path(), "many.json", &rs.to_string());
    let map = write(
        dir.path(),
        "m.json",
        r#"{"hexsight":1,"name":"t","ruleset":"many.json","grid":{"cols":10,"rows":10},"default":{"terrain":"t9999"},"hexes":{"C5":{"terrain":"forest"}}}"#,
    );
    let err = refused(
        &hexsight(&["validate", s(&map)]),
        &["C5", "forest", "t0, t1", "and 9970 more"],
    );
    assert!(!err.contains("t31,"), "{err}");
}

#[test]
fn hostile_json_is_refused_within_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    // Nested 100,000 deep.
    let deep = format!(
        r#"{{{HEAD},"grid":{{"cols":10,"rows":10}},"x":{}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let p = write(dir.path(), "deep.json", &deep);
    refused(
        &hexsight(&["validate", s(&p)]),
        &["deep.json", "recursion limit"],
    );
    // A 50 MB string where a terrain id goes: the error quotes a few dozen characters.
    let long = format!(
        r#"{{{HEAD},"grid":{{"cols":10,"rows":10}},"hexes":{{"C5":{{"terrain":"{}"}}}}}}"#,
        "w".repeat(50 << 20)
    );
    let p = write(dir.path(), "long.json", &long);
    refused(
        &hexsight(&["validate", s(&p)]),
        &["long.json", "C5", "bytes"],
    );
    // A million hex keys outside the grid: the first is named.
    let mut text = format!(r#"{{{HEAD},"grid":{{"cols":10,"rows":10}},"hexes":{{"#);
    for i in 0..1_000_000 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(r#""Z{}":{{}}"#, i + 1));
    }
    text.push_str("}}");
    let p = write(dir.path(), "million.json", &text);
    refused(
        &hexsight(&["validate", s(&p)]),
        &["million.json", "`Z1`", "10x10"],
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn crlf_and_a_byte_order_mark_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo("maps/hill-112.json")).unwrap();
    let crlf = write(dir.path(), "crlf.json", &text.replace('\n', "\r\n"));
    assert!(ok(&hexsight(&["validate", s(&crlf)])).contains("valid"));
    let bom = write(dir.path(), "bom.json", &format!("\u{feff}{text}"));
    assert!(ok(&hexsight(&["validate", s(&bom)])).contains("valid"));
    let rs = std::fs::read_to_string(repo("maps/rulesets/combat-commander.json")).unwrap();
    write(
        dir.path(),
        "rules.json",
        &format!("\u{feff}{}", rs.replace('\n', "\r\n")),
    );
    let uses = write(
        dir.path(),
        "uses.json",
        &text.replacen("\"combat-commander\"", "\"rules.json\"", 1),
    );
    assert!(ok(&hexsight(&["validate", s(&uses)])).contains("valid"));
}

#[test]
fn thread_counts_and_labels_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), 12, 10, "combat-commander");
    let m = s(&map);
    let csv = dir.path().join("m.csv");
    ok(&hexsight(&[
        "matrix",
        m,
        "--out",
        s(&csv),
        "--threads",
        "0",
    ]));
    refused(
        &hexsight(&["matrix", m, "--out", s(&csv), "--threads", "100000"]),
        &["--threads 100000", "1024"],
    );
    refused(
        &hexsight(&["exposure", m, "--threads", "5000"]),
        &["--threads"],
    );
    for (label, why) in [
        ("A0", "rows are numbered from 1"),
        ("A-1", "only digits"),
        ("ABCDEFGHIJKLMNOPQRST1", "at most 6"),
        ("", "empty"),
        ("Z99", "12x10"),
    ] {
        refused(&hexsight(&["los", m, label, "B2"]), &[why]);
        refused(&hexsight(&["los", m, "B2", label]), &[why]);
        refused(&hexsight(&["viewshed", m, "--from", label]), &[why]);
        refused(&hexsight(&["move", m, label, "B2"]), &[why]);
    }
    for zone in ["A1:ZZZZZZZZ99999999999", "", ",", "A1:", "A0:B2"] {
        refused(&hexsight(&["exposure", m, "--from", zone]), &["--from"]);
        refused(
            &hexsight(&["matrix", m, "--out", s(&csv), "--to", zone]),
            &["--to"],
        );
    }
}

#[test]
fn out_dash_writes_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = hexsight(&["generate", "--cols", "8", "--rows", "6", "--out", "-"]);
    let text = ok(&out);
    let map = hexsight_analysis::Map::from_json(&text, Path::new("stdout.json")).unwrap();
    assert_eq!((map.cols, map.rows), (8, 6));
    assert!(!Path::new("-").exists(), "no file named -");
    let p = write(dir.path(), "m.json", &text);
    let csv = ok(&hexsight(&["matrix", s(&p), "--out", "-"]));
    assert_eq!(csv.lines().count(), 49);
    assert!(csv.starts_with(",A1,A2"));
    refused(&hexsight(&["report", s(&p), "--out", "-"]), &["folder"]);
    refused(
        &hexsight(&["matrix", s(&p), "--out", "-", "--hindrance"]),
        &["--hindrance"],
    );
}

#[test]
fn devices_fifos_and_links_to_them_are_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    ok(&hexsight(&["generate", "--out", "/dev/null"]));
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // /dev/stdout (here a pipe to this test) gets the map, and stays a link.
    let out = ok(&hexsight(&[
        "generate",
        "--cols",
        "4",
        "--rows",
        "3",
        "--out",
        "/dev/stdout",
    ]));
    let map = hexsight_analysis::Map::from_json(&out, Path::new("stdout.json")).unwrap();
    assert_eq!(map.len(), 12);
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let link = dir.path().join("null-link.json");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    ok(&hexsight(&["generate", "--out", s(&link)]));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A FIFO: the reader gets the whole map, and the FIFO stays a FIFO.
    let fifo = dir.path().join("pipe.json");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    ok(&hexsight(&[
        "generate",
        "--cols",
        "9",
        "--rows",
        "7",
        "--out",
        s(&fifo),
    ]));
    let text = reader.join().unwrap();
    let map = hexsight_analysis::Map::from_json(&text, Path::new("fifo.json")).unwrap();
    assert_eq!(map.len(), 63);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // Matrix output through a FIFO too.
    let small = generated(dir.path(), 5, 5, "geometric");
    let fifo2 = dir.path().join("pipe.csv");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo2)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo2 = fifo2.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo2).unwrap())
    };
    ok(&hexsight(&["matrix", s(&small), "--out", s(&fifo2)]));
    assert_eq!(reader.join().unwrap().lines().count(), 26);
    assert!(std::fs::metadata(&fifo2).unwrap().file_type().is_fifo());
}

#[test]
fn a_generated_miniatures_map_has_a_scale_that_spot_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), 12, 10, "miniatures");
    let loaded = hexsight_analysis::Map::load(&map).unwrap();
    let scale = loaded.scale.expect("a scale");
    assert_eq!((scale.hex, scale.unit.as_str()), (5.0, "cm"));
    let out = ok(&hexsight(&["spot", s(&map), "--from", "C5", "--json"]));
    let cells: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(cells.as_array().unwrap().len(), 120);
}

#[test]
fn ruleset_numbers_and_ids_are_bounded() {
    // Fuzzer seeds 22457 and 26260 (an eye height of -1e30 made the fast engine and the
    // plain query disagree) and 21744 (a 2,533-character unit kind made a 5 KB error).
    let dir = tempfile::tempdir().unwrap();
    let base: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo("maps/rulesets/geometric.json")).unwrap(),
    )
    .unwrap();
    let map = write(
        dir.path(),
        "m.json",
        r#"{"hexsight":1,"name":"t","ruleset":"r.json","grid":{"cols":5,"rows":5}}"#,
    );
    let mut eye = base.clone();
    eye["params"]["observer_eye"] = serde_json::json!(-1e30);
    write(dir.path(), "r.json", &eye.to_string());
    refused(
        &hexsight(&["validate", s(&map)]),
        &["r.json", "params.observer_eye", "1000000"],
    );
    let mut tall = base.clone();
    tall["terrain"][1]["height"] = serde_json::json!(1e300);
    write(dir.path(), "r.json", &tall.to_string());
    refused(&hexsight(&["validate", s(&map)]), &["r.json", "height"]);
    let mut long = base.clone();
    long["terrain"][0]["id"] = serde_json::json!("x".repeat(3000));
    write(dir.path(), "r.json", &long.to_string());
    refused(
        &hexsight(&["validate", s(&map)]),
        &["r.json", "3000 characters"],
    );
    let unit = write(
        dir.path(),
        "u.json",
        &format!(
            r#"{{"hexsight":1,"name":"t","ruleset":"napoleonic","grid":{{"cols":5,"rows":5}},"units":[{{"id":"a","hex":"A1","kind":"{}"}}]}}"#,
            "k".repeat(3000)
        ),
    );
    refused(
        &hexsight(&["validate", s(&unit)]),
        &["u.json", "units[0]", "kind"],
    );
}
