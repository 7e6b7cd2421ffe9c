//! The analysis commands end to end: `generate`, `matrix` in its three formats
//! (checked against each other and against the plain path), the memory check,
//! Ctrl-C, `viewshed`, `blind`, `exposure` and `report`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
mod common;
use common::hexsight;

fn ok(args: &[&str]) -> Output {
    let out = hexsight(args);
    assert!(
        out.status.success(),
        "hexsight {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A generated map in `dir`.
fn generated(dir: &Path, ruleset: &str, cols: u32, rows: u32, pointy: bool) -> PathBuf {
    let path = dir.join(format!("{ruleset}-{cols}x{rows}.json"));
    let (c, r) = (cols.to_string(), rows.to_string());
    let mut args = vec![
        "generate",
        "--cols",
        &c,
        "--rows",
        &r,
        "--seed",
        "4",
        "--ruleset",
        ruleset,
        "--out",
        s(&path),
    ];
    if pointy {
        args.push("--pointy");
    }
    ok(&args);
    path
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<String>, Vec<Vec<u8>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .skip(1)
        .map(str::to_string)
        .collect();
    let (mut rows, mut bits) = (Vec::new(), Vec::new());
    for l in lines {
        let mut f = l.split(',');
        rows.push(f.next().unwrap().to_string());
        bits.push(f.map(|x| x.parse::<u8>().unwrap()).collect());
    }
    (header, rows, bits)
}

/// Reads a `.npy` written as uint8 C-order: shape and data.
fn read_npy(path: &Path) -> ((usize, usize), Vec<u8>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
    let hl = u16::from_le_bytes([b[8], b[9]]) as usize;
    assert_eq!((10 + hl) % 64, 0, "header padded to 64 bytes");
    let header = std::str::from_utf8(&b[10..10 + hl]).unwrap();
    assert!(
        header.contains("'descr': '|u1'") && header.contains("'fortran_order': False"),
        "{header}"
    );
    let shape = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let dims: Vec<usize> = shape
        .split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse().unwrap())
        .collect();
    ((dims[0], dims[1]), b[10 + hl..].to_vec())
}

#[test]
fn csv_npy_and_bin_hold_the_same_matrix_as_the_plain_path() {
    let dir = tempfile::tempdir().unwrap();
    for (rs, pointy) in [("combat-commander", false), ("geometric", true)] {
        let map = generated(dir.path(), rs, 9, 8, pointy);
        let csv = dir.path().join("m.csv");
        let plain = dir.path().join("plain.csv");
        let npy = dir.path().join("m.npy");
        let bin = dir.path().join("m.bin");
        ok(&["matrix", s(&map), "--out", s(&csv)]);
        ok(&["matrix", s(&map), "--out", s(&plain), "--plain"]);
        ok(&["matrix", s(&map), "--out", s(&npy), "--threads", "1"]);
        ok(&["matrix", s(&map), "--out", s(&bin)]);
        assert_eq!(
            std::fs::read(&csv).unwrap(),
            std::fs::read(&plain).unwrap(),
            "{rs}: fast and plain CSV differ"
        );
        let (cols, rows, bits) = read_csv(&csv);
        assert_eq!(cols, rows);
        assert_eq!(cols.len(), 72);
        assert!(
            bits.iter().enumerate().all(|(i, r)| r[i] == 1),
            "a hex sees itself"
        );
        let ((nr, nc), data) = read_npy(&npy);
        assert_eq!((nr, nc), (72, 72));
        assert_eq!(data, bits.concat(), "{rs}: npy differs from csv");
        let side: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("m.labels.json")).unwrap())
                .unwrap();
        assert_eq!(side["rows"].as_array().unwrap().len(), 72);
        assert_eq!(side["cols"][0], cols[0].as_str());
        // .bin: header, labels, then rows of little-endian words.
        let b = std::fs::read(&bin).unwrap();
        assert_eq!(&b[..8], b"HXSMTX01");
        let r = u32::from_le_bytes(b[8..12].try_into().unwrap()) as usize;
        let c = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
        let lb = u64::from_le_bytes(b[16..24].try_into().unwrap()) as usize;
        assert_eq!((r, c), (72, 72));
        let labels: Vec<&str> = std::str::from_utf8(&b[24..24 + lb])
            .unwrap()
            .lines()
            .collect();
        assert_eq!(
            labels[..72],
            rows.iter().map(String::as_str).collect::<Vec<_>>()[..]
        );
        let start = (24 + lb).div_ceil(8) * 8;
        let words = c.div_ceil(64);
        assert_eq!(b.len(), start + r * words * 8);
        for (i, row) in bits.iter().enumerate().take(r) {
            for (j, &bit) in row.iter().enumerate().take(c) {
                let o = start + (i * words + j / 64) * 8;
                let w = u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
                assert_eq!(
                    (w >> (j % 64) & 1) as u8,
                    bit,
                    "{rs}: bin differs at {i},{j}"
                );
            }
        }
    }
}

/// A `.npy` that cannot be written leaves no new sidecar beside it (the labels of a
/// matrix that is not there), and no temporary file.
#[test]
fn a_failed_npy_leaves_no_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), "geometric", 6, 6, false);
    let npy = dir.path().join("m.npy");
    std::fs::create_dir(&npy).unwrap();
    let out = hexsight(&["matrix", s(&map), "--out", s(&npy)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("m.npy") && err.contains("folder"), "{err}");
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["geometric-6x6.json", "m.npy"],
        "left beside the map"
    );
}

#[test]
fn zones_restrict_rows_and_columns() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), "combat-commander", 10, 10, false);
    let full = dir.path().join("full.csv");
    let part = dir.path().join("part.csv");
    ok(&["matrix", s(&map), "--out", s(&full)]);
    ok(&[
        "matrix",
        s(&map),
        "--out",
        s(&part),
        "--from",
        "A1:B3,J10",
        "--to",
        "C1:D10",
    ]);
    let (fc, fr, fb) = read_csv(&full);
    let (pc, pr, pb) = read_csv(&part);
    assert_eq!(pr, ["A1", "A2", "A3", "B1", "B2", "B3", "J10"]);
    assert_eq!(pc.len(), 20);
    for (i, r) in pr.iter().enumerate() {
        for (j, c) in pc.iter().enumerate() {
            let fi = fr.iter().position(|x| x == r).unwrap();
            let fj = fc.iter().position(|x| x == c).unwrap();
            assert_eq!(pb[i][j], fb[fi][fj], "{r} -> {c}");
        }
    }
}

#[test]
fn a_run_too_large_for_memory_is_refused_naming_from_and_to() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), "geometric", 100, 100, false);
    let out_path = dir.path().join("m.bin");
    let out = hexsight(&[
        "matrix",
        s(&map),
        "--out",
        s(&out_path),
        "--max-memory",
        "1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--from") && err.contains("--to") && err.contains("MiB"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one-line error: {err}");
    assert!(!out_path.exists());
}

#[test]
fn ctrl_c_leaves_no_file_at_the_target_path() {
    let dir = tempfile::tempdir().unwrap();
    // The plain path on 1,600 hexes takes far longer than the wait below.
    let map = generated(dir.path(), "combat-commander", 40, 40, false);
    let out_path = dir.path().join("m.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_hexsight"))
        .args(["matrix", s(&map), "--out", s(&out_path), "--plain"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "an interrupted run must fail");
    // Handled (the usual case): a one-line message. Killed before the handler was
    // installed (a very slow start): no message, but still no file.
    if out.status.code().is_some() {
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("interrupted"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(!out_path.exists(), "partial file at the target path");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn viewshed_blind_and_exposure_agree_with_the_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), "combat-commander", 12, 10, false);
    let csv = dir.path().join("m.csv");
    ok(&["matrix", s(&map), "--out", s(&csv)]);
    let (cols, rows, bits) = read_csv(&csv);
    let png = dir.path().join("v.png");
    let svg = dir.path().join("v.svg");
    let out = ok(&[
        "viewshed",
        s(&map),
        "--from",
        "C5",
        "--json",
        "--png",
        s(&png),
        "--svg",
        s(&svg),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hexes = common::viewshed_hexes(&v);
    let row = rows.iter().position(|r| r == "C5").unwrap();
    for (j, c) in cols.iter().enumerate() {
        let t = &hexes[c];
        assert_eq!(t["verdict"] != "blocked", bits[row][j] == 1, "C5 -> {c}");
        if t["blind"] == true {
            assert_eq!(t["verdict"], "blocked");
        }
    }
    assert_eq!(&std::fs::read(&png).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let blind = ok(&["blind", s(&map), "--from", "C5", "--json"]);
    let b: serde_json::Value = serde_json::from_slice(&blind.stdout).unwrap();
    assert_eq!(
        b["blind"].as_array().unwrap().len() as u64,
        v["counts"]["blind"].as_u64().unwrap()
    );
    let ex = ok(&["exposure", s(&map), "--from", "A1:B10", "--json"]);
    let e: serde_json::Value = serde_json::from_slice(&ex.stdout).unwrap();
    let observers: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.starts_with('A') || r.starts_with('B'))
        .map(|(i, _)| i)
        .collect();
    for (j, c) in cols.iter().enumerate() {
        let seen_by = observers.iter().filter(|&&o| bits[o][j] == 1).count() as u64;
        assert_eq!(e["hexes"][c]["seen_by"].as_u64().unwrap(), seen_by, "{c}");
        // A zone given alone stands for the targets too.
        let sees = observers.iter().filter(|&&o| bits[j][o] == 1).count() as u64;
        assert_eq!(e["hexes"][c]["sees"].as_u64().unwrap(), sees, "{c}");
    }
    assert_eq!(e["targets"].as_u64().unwrap(), observers.len() as u64);
}

#[test]
fn report_writes_every_picture_and_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), "geometric", 14, 12, false);
    let out = dir.path().join("report");
    ok(&["report", s(&map), "--out", s(&out), "--key", "C5,H3"]);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("Generated 14x12 geometric"));
    for f in [
        "seen-by.png",
        "sees.svg",
        "viewshed-C5.png",
        "viewshed-H3.svg",
        "blind.png",
        "matrix.bin",
        "matrix.npy",
        "matrix.csv",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
        if f.ends_with(".png") || f.ends_with(".svg") {
            assert!(index.contains(f), "index.html does not show {f}");
        }
    }
}

#[test]
fn bad_input_gives_one_line_errors_naming_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), "geometric", 6, 6, false);
    let out = hexsight(&["viewshed", s(&map), "--from", "Z99"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Z99") && err.contains(s(&map)), "{err}");
    let out = hexsight(&["matrix", s(&map), "--out", s(&dir.path().join("m.xlsx"))]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unsupported matrix format"));
    let out = hexsight(&["exposure", s(&map), "--from", "A1:Q4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Q4"));
    let out = hexsight(&[
        "generate",
        "--ruleset",
        "chess",
        "--out",
        s(&dir.path().join("x.json")),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown ruleset `chess`"));
}

#[test]
fn generate_is_deterministic_and_valid() {
    let dir = tempfile::tempdir().unwrap();
    let a = generated(dir.path(), "combat-commander", 20, 15, false);
    let first = std::fs::read(&a).unwrap();
    let b = generated(dir.path(), "combat-commander", 20, 15, false);
    assert_eq!(first, std::fs::read(&b).unwrap());
    let out = ok(&["validate", s(&a)]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("valid"));
}

#[test]
fn report_draws_spotting_maps_where_the_ruleset_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let hamlet = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/miniatures-hamlet.json");
    let out = dir.path().join("report");
    ok(&["report", hamlet, "--out", s(&out), "--key", "E18"]);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(out.join("spotting-E18.png").is_file());
    assert!(index.contains("spotting-E18.png"));
    // Combat Commander has no spotting table: no spotting map, and the page says so.
    let cc = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/hill-112.json");
    let out = dir.path().join("cc");
    ok(&["report", cc, "--out", s(&out), "--key", "C5"]);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!out.join("spotting-C5.png").exists());
    assert!(index.contains("no spotting rules"), "{index}");
}

#[test]
fn the_hindrance_matrix_agrees_with_the_bits_and_the_viewshed() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), "combat-commander", 12, 10, false);
    let csv = dir.path().join("m.csv");
    let npy = dir.path().join("h.npy");
    ok(&["matrix", s(&map), "--out", s(&csv)]);
    ok(&["matrix", s(&map), "--out", s(&npy), "--hindrance"]);
    let (cols, rows, bits) = read_csv(&csv);
    let ((nr, nc), data) = read_npy(&npy);
    assert_eq!((nr, nc), (rows.len(), cols.len()));
    for (i, row) in bits.iter().enumerate() {
        for (j, &b) in row.iter().enumerate() {
            assert_eq!(
                data[i * nc + j] != 255,
                b == 1,
                "{} -> {}",
                rows[i],
                cols[j]
            );
        }
    }
    let mut hindered = 0;
    for from in ["C5", "H2", "L10"] {
        let out = ok(&["viewshed", s(&map), "--from", from, "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let hexes = common::viewshed_hexes(&v);
        let i = rows.iter().position(|r| r == from).unwrap();
        for (j, c) in cols.iter().enumerate() {
            let t = &hexes[c];
            let byte = data[i * nc + j];
            if t["verdict"] == "blocked" {
                assert_eq!(byte, 255, "{from} -> {c}");
            } else {
                assert_eq!(
                    u64::from(byte),
                    t["hindrance"].as_u64().unwrap(),
                    "{from} -> {c}"
                );
                hindered += usize::from(byte > 0);
            }
        }
    }
    assert!(hindered > 0, "no hindered line to check");
    let out = hexsight(&["matrix", s(&map), "--out", s(&csv), "--hindrance"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--hindrance writes .npy only"));
}
