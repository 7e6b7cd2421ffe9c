//! `hexsight import megamek`: the bundled example boards convert hex by hex as their
//! text says, the converted maps in `maps/` are what the importer writes, lines the
//! rules turn on (hills beside units, woods of each kind, smoke, a lake) answer as the
//! rules say on the converted maps, and bad boards are refused with one line naming
//! the file and the line.

mod common;
use common::hexsight;
use hexsight_analysis::Map;
use hexsight_analysis::los::line_of_sight;
use hexsight_analysis::rules::Verdict;
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
    } else if let Some(w) = item("woods").or(item("jungle")) {
        let kind = ["light-woods", "heavy-woods", "ultra-heavy-woods"][w as usize - 1];
        let low = if item("foliage_elev") == Some(1) {
            "-low"
        } else {
            ""
        };
        format!("{kind}{low}")
    } else if let Some(d) = item("water").filter(|&d| d > 0) {
        format!("water-{}", d.min(9))
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

/// The smoke marker a hex's item list should carry, read straight from the text.
fn expected_smoke(items: &str) -> Option<&'static str> {
    let smoke = items.split(';').find_map(|i| i.strip_prefix("smoke:"))?;
    Some(if smoke == "2" {
        "heavy-smoke"
    } else {
        "light-smoke"
    })
}

/// Converts `maps/megamek/{name}.board` and checks every hex's level, terrain and
/// smoke against the board's text; the map written is returned. Where `bundled`,
/// `maps/battletech-{name}.json` must be what the importer writes now.
fn check_board(name: &str, bundled: bool) -> Map {
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
    let mut smoke = 0;
    let markers = map["markers"].as_array().cloned().unwrap_or_default();
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
        let here: Vec<&str> = markers
            .iter()
            .filter(|m| m["hex"] == label.as_str())
            .filter_map(|m| m["kind"].as_str())
            .collect();
        let want: Vec<&str> = expected_smoke(items).into_iter().collect();
        assert_eq!(here, want, "{name} {label}: {line}");
        smoke += want.len();
        hexes += 1;
    }
    let size: Vec<u64> = text
        .lines()
        .find_map(|l| l.strip_prefix("size "))
        .unwrap()
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(hexes, size[0] * size[1], "every hex of the board listed");
    assert_eq!(markers.len(), smoke, "no other markers");
    if bundled {
        let bundled =
            std::fs::read_to_string(repo(&format!("maps/battletech-{name}.json"))).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&bundled).unwrap(),
            map,
            "maps/battletech-{name}.json is stale: re-run the import"
        );
    }
    // And it answers: validate loads it with its ruleset.
    let v = hexsight(&["validate", out.to_str().unwrap()]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    Map::load(&out).unwrap_or_else(|e| panic!("{e}"))
}

/// The verdict and hindrance from `a` to `b` on a converted board, after checking
/// that the engine (pair, sweep, viewshed) agrees both ways.
fn los(m: &Map, a: &str, b: &str) -> (Verdict, u32, String) {
    let (ha, hb) = (m.parse_hex(a).unwrap(), m.parse_hex(b).unwrap());
    let r = line_of_sight(m, ha, hb);
    common::engine_agrees(m, &r);
    common::engine_agrees(m, &line_of_sight(m, hb, ha));
    (r.verdict, r.hindrance, r.reason)
}

#[test]
fn the_ridge_board_converts_hex_by_hex() {
    check_board("ridge", true);
}

#[test]
fn the_town_board_converts_hex_by_hex() {
    check_board("town", true);
}

#[test]
fn the_foothills_board_converts_and_hills_beside_a_unit_block() {
    let m = check_board("foothills", false);
    // C2 (level 2) stands beside C1 (a 'Mech, height 1); the target on C5 (height 4).
    let (v, _, why) = los(&m, "C1", "C5");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(why.contains("C2 is next to the observer"), "{why}");
    // E2 (level 1) is no higher than E1's 'Mech; G3 (level 2) is two hexes out.
    assert_eq!(los(&m, "E1", "E5").0, Verdict::Clear);
    assert_eq!(los(&m, "G1", "G5").0, Verdict::Clear);
    // Heavy woods beside A1 count against the 'Mech in A1, whatever A5's height.
    assert_eq!(los(&m, "A1", "A5").0, Verdict::Hindered);
    assert_eq!(
        m.extra.get("notes").and_then(Value::as_str),
        Some("MegaMek board tags: Hills, Grassland")
    );
}

#[test]
fn the_woods_board_converts_and_each_kind_stands_its_height() {
    let m = check_board("woods", false);
    // Jungle reads as light woods.
    assert_eq!(los(&m, "A1", "A5").1, 1);
    // Ultra-heavy woods (3 levels) block 'Mechs on level-1 hills; heavy (2) do not.
    assert_eq!(los(&m, "B1", "B5").0, Verdict::Blocked);
    assert_eq!(los(&m, "D1", "D5").0, Verdict::Clear);
    // Light woods under light smoke: +2.
    assert_eq!(los(&m, "C1", "C5").1, 2);
    // Low foliage (1 level) is no higher than a 'Mech on level 0.
    assert_eq!(los(&m, "E1", "E5").0, Verdict::Clear);
    assert_eq!(los(&m, "F1", "F5").0, Verdict::Clear);
    // Light smoke +1; light and heavy smoke make 3 and block.
    assert_eq!(los(&m, "G1", "G5").1, 1);
    assert_eq!(los(&m, "H1", "H5").0, Verdict::Blocked);
}

#[test]
fn the_lake_board_converts_and_underwater_lines_need_water_all_along() {
    let m = check_board("lake", false);
    // Two submerged 'Mechs (depth 2) through depth-2 water.
    assert_eq!(los(&m, "B2", "B6").0, Verdict::Clear);
    // A partly submerged 'Mech (depth 1) and a submerged one (depth 3).
    assert_eq!(los(&m, "D2", "D6").0, Verdict::Clear);
    // From the dry shore to a submerged 'Mech: never.
    assert_eq!(los(&m, "D1", "D6").0, Verdict::Blocked);
    // An island, and a shoal whose bottom is higher than both 'Mechs, block.
    assert_eq!(los(&m, "F2", "F6").0, Verdict::Blocked);
    let (v, _, why) = los(&m, "H2", "H6");
    assert_eq!(v, Verdict::Blocked, "{why}");
    assert!(why.contains("bottom of the depth-1 water in H4"), "{why}");
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
        stdout.contains("1 hexes had unknown terrain items, left out: swamp:1 (1 hex)"),
        "{stdout}"
    );
    let o = hexsight(&[
        "import",
        "megamek",
        &repo("maps/megamek/lake.board"),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(
            "2 hexes had unknown terrain items, left out: mud:1 (2 hexes), swamp:1 (1 hex)"
        ) && stdout
            .contains("read as the nearest terrain the ruleset has: water:12 as water-9 (1 hex)")
            && stdout.contains("board tags kept in the map's notes: Lake, Grassland"),
        "{stdout}"
    );
}

#[test]
fn unknown_line_kinds_are_counted_by_name_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let board = dir.path().join("real.board");
    std::fs::write(
        &board,
        "size 2 2\ntag \"Urban\"\ntag Snow\nfluff 1 2\nfluff 3\nbackground x.png\nhex 0101 0 \"mud:1\" \"\"\nend\n",
    )
    .unwrap();
    let out = dir.path().join("m.json");
    let o = hexsight(&[
        "import",
        "megamek",
        board.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout.contains("board lines not read: background (1 line), fluff (2 lines)")
            && stdout.contains("board tags kept in the map's notes: Urban, Snow")
            && stdout.contains("1 hexes had unknown terrain items, left out: mud:1 (1 hex)")
            && stdout.contains("3 hexes were not on the board"),
        "{stdout}"
    );
    let map: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(map["notes"], "MegaMek board tags: Urban, Snow");
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
        ("size 2 2\ntag\n", "line 2: a `tag` line without a tag"),
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
