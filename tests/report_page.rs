//! The report's page data and folder: the data the page carries is the matrix and the
//! viewsheds, the folder is compact by default, and it is written whole or not at all.

mod common;

use common::hexsight;
use hexsight_analysis::export::{bin, page};
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn generated(dir: &Path, cols: u32, rows: u32) -> PathBuf {
    let p = dir.join(format!("g{cols}x{rows}.json"));
    let c = cols.to_string();
    let r = rows.to_string();
    let out = hexsight(&[
        "generate",
        "--cols",
        &c,
        "--rows",
        &r,
        "--seed",
        "2",
        "--ruleset",
        "combat-commander",
        "--out",
        s(&p),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    p
}

fn report(args: &[&str]) {
    let out = hexsight(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The page's `seen` plane, row by row, is the matrix the report writes; every line
/// is explained on a small map.
#[test]
fn the_page_data_decodes_to_the_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), 13, 11);
    let out = dir.path().join("report");
    report(&["report", s(&map), "--out", s(&out)]);
    let script = std::fs::read_to_string(out.join("data.js")).unwrap();
    let (header, blobs) = page::unpack_script(&script).unwrap();
    let m = bin::read(&out.join("matrix.bin")).unwrap();
    let n = m.bits.len();
    assert_eq!(header["map"]["n"].as_u64().unwrap() as usize, n);
    assert!(header["observers"].is_null() && header["explained"].is_null());
    let seen = &blobs.iter().find(|b| b.0 == "seen").unwrap().1;
    let stride = n.div_ceil(8);
    for i in 0..n {
        for j in 0..n {
            let bit = seen[i * stride + j / 8] >> (j % 8) & 1 == 1;
            assert_eq!(bit, m.bits.get(i, j), "{} -> {}", m.from[i], m.to[j]);
        }
    }
    let labels: Vec<&str> = header["map"]["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(labels, m.from);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<script src=\"data.js\">") && index.contains("DecompressionStream"));
}

/// Beyond 2,500 hexes the folder holds no raw matrix and no SVG unless asked, the page
/// explains the key hexes' lines only and says what it left out.
#[test]
fn a_larger_map_keeps_the_folder_small_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let map = generated(dir.path(), 51, 50);
    let out = dir.path().join("report");
    report(&["report", s(&map), "--out", s(&out), "--key", "C5,AA20"]);
    for f in ["matrix.bin", "matrix.npy", "matrix.csv", "seen-by.svg"] {
        assert!(!out.join(f).exists(), "{f} written unasked");
    }
    assert!(out.join("seen-by.png").is_file() && out.join("data.js").is_file());
    let (header, _) =
        page::unpack_script(&std::fs::read_to_string(out.join("data.js")).unwrap()).unwrap();
    assert!(header["observers"].is_null(), "every viewshed carried");
    assert_eq!(header["explained"].as_array().unwrap().len(), 2);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("blockers and reasons of the 2 key hexes only"),
        "{index}"
    );
    report(&[
        "report",
        s(&map),
        "--out",
        s(&out),
        "--keys",
        "1",
        "--matrix",
        "--svg",
    ]);
    for f in ["matrix.bin", "matrix.npy", "seen-by.svg"] {
        assert!(out.join(f).is_file(), "{f} missing with --matrix --svg");
    }
    assert!(
        !out.join("viewshed-C5.png").exists(),
        "the previous report's files are gone"
    );
}

/// A failed report leaves the previous one as it was and no temporary folder; a folder
/// of other files is refused in one line.
#[test]
fn a_failed_report_leaves_the_previous_one() {
    let dir = tempfile::tempdir().unwrap();
    let hill = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/hill-112.json");
    let out = dir.path().join("report");
    report(&["report", hill, "--out", s(&out), "--key", "C5"]);
    let before = std::fs::read(out.join("index.html")).unwrap();
    let bad = hexsight(&["report", hill, "--out", s(&out), "--key", "Z99"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(std::fs::read(out.join("index.html")).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["report"], "nothing else left beside it");
    let other = dir.path().join("notes");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("mine.txt"), "keep").unwrap();
    let refused = hexsight(&["report", hill, "--out", s(&other)]);
    let err = String::from_utf8(refused.stderr).unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        err.contains("other files") && err.trim_end().lines().count() == 1,
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(other.join("mine.txt")).unwrap(),
        "keep"
    );
}

/// A report compared with a layer (`--against-layer`) carries the diff: its pair
/// counts and every hex's change equal `hexsight diff --json`'s, and each observer's
/// `changed` bits give the viewshed gained and lost that `diff --view` lists for
/// every hex; the page has the section, and `diff.json` is the diff's JSON.
#[test]
fn a_report_with_a_comparison_carries_the_diff() {
    use serde_json::{Value, json};
    use std::collections::BTreeSet;
    let dir = tempfile::tempdir().unwrap();
    // The layer of tests/what_if.rs: woods and smoke where the map has open ground.
    let layer = dir.path().join("layer.json");
    std::fs::write(
        &layer,
        r#"{"hexsight_layer": 1, "hexes": {"F6": {"terrain": "woods"}, "G6": {"terrain": "woods", "level": 1}},
            "add": {"markers": [{"hex": "H7", "kind": "smoke"}]}}"#,
    )
    .unwrap();
    let map = "maps/asl-stream-crest.json";
    let out = dir.path().join("report");
    report(&[
        "report",
        map,
        "--out",
        s(&out),
        "--against-layer",
        s(&layer),
    ]);
    let script = std::fs::read_to_string(out.join("data.js")).unwrap();
    let (header, blobs) = page::unpack_script(&script).unwrap();
    let labels: Vec<String> = header["map"]["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    let n = labels.len();
    let every = labels.join(",");
    let diff_args = ["diff", map, "--against-layer", s(&layer), "--json"];
    let mut with_views = diff_args.to_vec();
    with_views.extend(["--view", &every]);
    let d: Value = serde_json::from_str(&common::hexsight_ok(&with_views)).unwrap();
    let c = &header["change"];
    assert_eq!(c["gained"], d["counts"]["gained"]);
    assert_eq!(c["lost"], d["counts"]["lost"]);
    assert!(c["gained"].as_u64().unwrap() > 0 && c["lost"].as_u64().unwrap() > 0);
    for (k, l) in labels.iter().enumerate() {
        for (page_key, diff_key) in [("seen_by", "seen_by_change"), ("sees", "sees_change")] {
            let want = d[diff_key].get(l).cloned().unwrap_or(json!(0));
            assert_eq!(c[page_key][k], want, "{page_key} of {l}");
        }
    }
    let blob = |name: &str| &blobs.iter().find(|b| b.0 == name).unwrap().1;
    let (seen, changed) = (blob("seen"), blob("changed"));
    let stride = n.div_ceil(8);
    let bit = |p: &[u8], i: usize, j: usize| p[i * stride + j / 8] >> (j % 8) & 1 == 1;
    let views = d["views"].as_array().unwrap();
    assert_eq!(views.len(), n);
    let mut changed_views = 0;
    for v in views {
        let i = labels.iter().position(|l| v["from"] == **l).unwrap();
        let class = |lost: bool| -> BTreeSet<&str> {
            (0..n)
                .filter(|&j| bit(changed, i, j) && bit(seen, i, j) == lost)
                .map(|j| labels[j].as_str())
                .collect()
        };
        let listed = |k: &str| -> BTreeSet<&str> {
            v[k].as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap())
                .collect()
        };
        assert_eq!(class(false), listed("gained"), "gained from {}", v["from"]);
        assert_eq!(class(true), listed("lost"), "lost from {}", v["from"]);
        changed_views += usize::from(!listed("gained").is_empty() || !listed("lost").is_empty());
    }
    assert!(changed_views > 0, "no viewshed changed");
    let mut plain: Value = serde_json::from_str(&common::hexsight_ok(&diff_args)).unwrap();
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("diff.json")).unwrap()).unwrap();
    plain["views"] = json!([]);
    assert_eq!(file, plain);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains(r#"<section id="change""#) && out.join("what-changes.png").exists());
    // Without a comparison there is no section's data.
    let plain_out = dir.path().join("plain");
    report(&["report", map, "--out", s(&plain_out)]);
    let script = std::fs::read_to_string(plain_out.join("data.js")).unwrap();
    let (header, blobs) = page::unpack_script(&script).unwrap();
    assert!(header["change"].is_null() && !blobs.iter().any(|b| b.0 == "changed"));
}

/// `--range` limits what the page carries, while a diff compares every line: the two
/// together are refused in one line naming the flags.
#[test]
fn a_comparison_with_a_range_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let o = hexsight(&[
        "report",
        "maps/asl-stream-crest.json",
        "--out",
        s(&out),
        "--against",
        "maps/asl-stream-crest.json",
        "--range",
        "4",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.lines().count() == 1, "{err}");
    assert!(
        err.contains("--range") && err.contains("--against"),
        "{err}"
    );
    assert!(!out.exists());
}
