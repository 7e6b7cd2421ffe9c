//! `exposure --shard K/N --out part.npz` and `merge`: the merged shards equal the
//! unsharded `exposure --json` byte for byte, on bundled and generated maps of every
//! family, with zones and a range; bad sets of shards are refused by name.

use std::path::{Path, PathBuf};
use std::process::Output;
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

fn fails(args: &[&str]) -> String {
    let out = hexsight(args);
    assert_eq!(out.status.code(), Some(2), "hexsight {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn bundled(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("maps")
        .join(name)
}

/// Writes `shards` shard files of `map` with `extra` options; returns their paths.
fn shards(dir: &Path, map: &Path, shards: usize, extra: &[&str]) -> Vec<PathBuf> {
    (0..shards)
        .map(|k| {
            let out = dir.join(format!("part-{k}.npz"));
            let shard = format!("{k}/{shards}");
            let mut args = vec!["exposure", s(map), "--shard", &shard, "--out", s(&out)];
            args.extend_from_slice(extra);
            ok(&args);
            out
        })
        .collect()
}

fn merged(dir: &Path, parts: &[PathBuf]) -> String {
    let out = dir.join("merged.json");
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["--out", s(&out)]);
    ok(&args);
    std::fs::read_to_string(out).unwrap()
}

fn whole(map: &Path, extra: &[&str]) -> String {
    let mut args = vec!["exposure", s(map), "--json"];
    args.extend_from_slice(extra);
    String::from_utf8(ok(&args).stdout).unwrap()
}

#[test]
fn merged_shards_equal_the_whole_exposure() {
    let dir = tempfile::tempdir().unwrap();
    let mut maps: Vec<PathBuf> = [
        "hill-112.json",
        "twin-hills.json",
        "asl-stream-crest.json",
        "napoleonic-ridge.json",
        "miniatures-hamlet.json",
    ]
    .map(bundled)
    .to_vec();
    for rs in ["geometric", "combat-commander", "asl", "napoleonic"] {
        let path = dir.path().join(format!("{rs}.json"));
        ok(&[
            "generate",
            "--cols",
            "23",
            "--rows",
            "17",
            "--seed",
            "3",
            "--ruleset",
            rs,
            "--out",
            s(&path),
        ]);
        maps.push(path);
    }
    for map in &maps {
        for (n, extra) in [
            (1, &[][..]),
            (3, &[][..]),
            (4, &["--from", "A1:F8"][..]),
            (2, &["--from", "A1:E5", "--to", "C3:J9"][..]),
            (3, &["--range", "5"][..]),
        ] {
            let parts = shards(dir.path(), map, n, extra);
            assert_eq!(
                merged(dir.path(), &parts),
                whole(map, extra),
                "{} in {n} shards with {extra:?}",
                map.display()
            );
        }
    }
}

#[test]
fn bad_shard_sets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let hill = bundled("hill-112.json");
    let parts = shards(dir.path(), &hill, 3, &[]);
    let out = dir.path().join("x.json");
    let merge = |parts: &[&Path]| {
        let mut args = vec!["merge"];
        args.extend(parts.iter().map(|p| s(p)));
        args.extend(["--out", s(&out)]);
        fails(&args)
    };
    let e = merge(&[&parts[0], &parts[2]]);
    assert!(e.contains("missing shards 1 of 3"), "{e}");
    let e = merge(&[&parts[0], &parts[1], &parts[1], &parts[2]]);
    assert!(e.contains("shard 1/3 is also in"), "{e}");
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let twin = shards(&other, &bundled("twin-hills.json"), 3, &[]);
    let e = merge(&[&parts[0], &parts[1], &twin[2]]);
    assert!(e.contains("not a shard of the same run"), "{e}");
    let zoned = shards(&other, &hill, 3, &["--from", "A1:C3"]);
    let e = merge(&[&parts[0], &parts[1], &zoned[2]]);
    assert!(e.contains("its from differs"), "{e}");
    let e = merge(&[&hill]);
    assert!(e.contains("not an .npz"), "{e}");
    assert!(!out.exists());
    for bad in ["3/3", "1", "a/b", "1/0"] {
        let e = fails(&["exposure", s(&hill), "--shard", bad, "--out", s(&out)]);
        assert!(e.contains("--shard"), "{bad}: {e}");
    }
}
