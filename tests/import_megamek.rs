//! `hexsight import megamek`: the bundled example boards convert hex by hex as their
//! text says, the converted maps in `maps/` are what the importer writes, and bad
//! boards are refused with one line naming the file and the line.

mod common;
use common::hexsight;
use serde_json::Value;
use std::path::Path;

fn repo(p: &str) -> String {
    format!("{}/{p}", env!("CARGO_MANIFEST_DIR"))
}

/// The terrain id a hex's item list should become, read straight from the text.
fn expected_terrain(items: &str) -> String {
    let item = |name: &str| {
        items
            .split(';')
            .find_map(|i| i.strip_prefix(&format!("{name}:")))
            .map(|rest| rest.split(':').next().unwrap().parse::<i32>().unwrap())
    };
    if item("building").is_some() {
        format!("building-{}", item("bldg_elev").unwrap_or(1))
    } else if let Some(w) = item("woods") {
        ["light-woods", "heavy-woods", "ultra-heavy-woods"][w as usize - 1].into()
    } else if let Some(d) = item("water") {
        format!("water-{}", d.min(3))
    } else if item("rough").is_some() {
        "rough".into()
    } else if item("pavement").is_some() {
        "pavement".into()
    } else if item("road").is_some() {
        "road".into()
    } else {
        "clear".into()
    }
}

/// The column letters of 1-based column `c` (A..Z, then AA...).
fn letters(mut c: u32) -> String {
    let mut s = Vec::new();
    while c > 0 {
        c -= 1;
        s.push(b'A' + (c % 26) as u8);
        c /= 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap()
}

fn check_board(name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("map.json");
    let board = repo(&format!("maps/megamek/{name}.board"));
    let o = hexsight(&["import", "megamek", &board, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read_to_string(&out).unwrap();
    let map: Value = serde_json::from_str(&written).unwrap();
    let default = &map["default"];
    let text = std::fs::read_to_string(&board).unwrap();
    let mut hexes = 0;
    for line in text.lines().filter(|l| l.starts_with("hex ")) {
        let words: Vec<&str> = line.splitn(4, ' ').collect();
        let (c, r) = words[1].split_at(2);
        let label = format!(
            "{}{}",
            letters(c.parse().unwrap()),
            r.parse::<u32>().unwrap()
        );
        let level: i64 = words[2].parse().unwrap();
        let items = words[3].split('"').nth(1).unwrap();
        let entry = &map["hexes"][&label];
        let got_level = entry.get("level").unwrap_or(&default["level"]);
        let got_terrain = entry.get("terrain").unwrap_or(&default["terrain"]);
        assert_eq!(got_level.as_i64(), Some(level), "{name} {label}: {line}");
        assert_eq!(
            got_terrain.as_str(),
            Some(expected_terrain(items).as_str()),
            "{name} {label}: {line}"
        );
        hexes += 1;
    }
    assert_eq!(hexes, 16 * 17, "the standard mapsheet");
    // The bundled converted map is what the importer writes now.
    let bundled = std::fs::read_to_string(repo(&format!("maps/battletech-{name}.json"))).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&bundled).unwrap(),
        map,
        "maps/battletech-{name}.json is stale: re-run the import"
    );
    // And it answers: validate loads it with its ruleset.
    let v = hexsight(&["validate", out.to_str().unwrap()]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
}

#[test]
fn the_ridge_board_converts_hex_by_hex() {
    check_board("ridge");
}

#[test]
fn the_town_board_converts_hex_by_hex() {
    check_board("town");
}

#[test]
fn unknown_items_are_left_out_and_reported_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.json");
    let o = hexsight(&[
        "import",
        "megamek",
        &repo("maps/megamek/ridge.board"),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("1 hexes had unknown terrain items: swamp:1"),
        "{stdout}"
    );
}

/// Writes `text` as a board and imports it; returns the exit status and stderr.
fn import_text(text: &str) -> (bool, String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let board = dir.path().join("bad.board");
    std::fs::write(&board, text).unwrap();
    let out = dir.path().join("m.json");
    let o = hexsight(&[
        "import",
        "megamek",
        board.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        Path::new(&out).exists(),
    )
}

#[test]
fn bad_lines_give_one_line_errors_with_the_line_number() {
    let cases = [
        (
            "size 4 4\n\n# c\nhex 0101 0 \"\" \"\"\nhex 0102 x \"\" \"\"\n",
            "line 5: elevation `x` is not a whole number",
        ),
        (
            "size 4 4\nhex 0105 0 \"\" \"\"\n",
            "line 2: hex 0105 is off the 4x4 board",
        ),
        (
            "size 4 4\nhex 0101 0 \"woods\" \"\"\n",
            "line 2: terrain item `woods` has no `:level`",
        ),
        ("size 4 4\nhex 0101 0 \"woods:1 \"\"\n", "line 2: "),
        (
            "hex 0101 0 \"\" \"\"\n",
            "line 1: a `hex` line before the `size` line",
        ),
        ("size 4\n", "line 1: `size 4`: expected `size WIDTH HEIGHT`"),
        (
            "size 2 2\nhex 0101 0 \"\" \"\"\nhex 0101 1 \"\" \"\"\n",
            "line 3: hex 0101 is given twice",
        ),
        ("size 2 2\nboard 1\n", "line 2: `board` is not a board line"),
        ("# nothing\n", "no `size WIDTH HEIGHT` line"),
    ];
    for (text, want) in cases {
        let (ok, err, wrote) = import_text(text);
        assert!(!ok && !wrote, "{text:?} was accepted");
        assert!(err.contains("bad.board: "), "names the file: {err}");
        assert!(err.contains(want), "{text:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Comments, options, blank lines and `end` are fine; what follows `end` is not read.
    let (ok, err, _) = import_text(
        "# a board\nsize 2 2\noption exit_roads_to_pavement false\n\nhex 0101 1 \"woods:2;foliage_elev:2\" \"\"\nend\nnot read\n",
    );
    assert!(ok, "{err}");
}
