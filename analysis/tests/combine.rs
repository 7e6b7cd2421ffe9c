//! Combining boards: a map drawn whole, cut into two boards and combined again gives
//! the same sight lines across the seam, for every side, overlap and half turn.

use hexsight_analysis::hex::{Hex, Layout, Orientation, Side, Stagger};
use hexsight_analysis::line_of_sight;
use hexsight_analysis::map::combine::{Direction, Placement, combine, turned};
use hexsight_analysis::map::{HexsideFeature, Map, Unit, resolve_ruleset};
use std::path::Path;

/// Deterministic xorshift, so a failure reproduces.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A whole map with random terrain, levels, slopes and hexsides.
fn whole(ruleset: &str, cols: u32, rows: u32, layout: Layout, seed: u64) -> Map {
    let rs = resolve_ruleset(ruleset, Path::new("t.json")).unwrap();
    let mut m = Map::new("whole", ruleset, rs.clone(), cols, rows, layout);
    let mut rng = Rng(seed);
    let span = (rs.levels.max - rs.levels.min + 1).min(4) as u64;
    for h in m.hexes().collect::<Vec<_>>() {
        let c = m.cell_mut(h).unwrap();
        c.terrain = rng.next(rs.terrain.len() as u64) as u16;
        c.level = rs.levels.min.max(0) + rng.next(span) as i32;
        c.level = c.level.min(rs.levels.max);
        c.slope = rng.next(5) == 0;
    }
    if !rs.hexsides.is_empty() {
        for h in m.hexes().collect::<Vec<_>>() {
            for n in h.neighbors() {
                if m.contains(n) && h < n && rng.next(6) == 0 {
                    let kind = rng.next(rs.hexsides.len() as u64) as u16;
                    m.hexsides.insert(
                        Side::new(h, n),
                        HexsideFeature {
                            kind,
                            from: h,
                            extra: Default::default(),
                        },
                    );
                }
            }
        }
    }
    m
}

/// The part of `w` from offset (`c0`, `r0`), `cols` by `rows`, as a board of its own
/// (its stagger chosen so its hexes sit where they sat on the whole map).
fn cut(w: &Map, c0: u32, r0: u32, cols: u32, rows: u32) -> Map {
    for stagger in [Stagger::Odd, Stagger::Even] {
        let layout = Layout {
            stagger,
            ..w.layout
        };
        let shift = w.layout.hex_at(c0 as i32, r0 as i32) - layout.hex_at(0, 0);
        let fits = (0..cols).all(|c| {
            (0..rows).all(|r| {
                layout.hex_at(c as i32, r as i32) + shift
                    == w.layout.hex_at((c0 + c) as i32, (r0 + r) as i32)
            })
        });
        if !fits {
            continue;
        }
        let mut b = Map::new(
            "board",
            &w.ruleset_ref,
            w.ruleset.clone(),
            cols,
            rows,
            layout,
        );
        let back = |h: Hex| h - shift;
        for h in b.hexes().collect::<Vec<_>>() {
            *b.cell_mut(h).unwrap() = *w.cell(h + shift).unwrap();
        }
        for (s, f) in &w.hexsides {
            if b.contains(back(s.a)) && b.contains(back(s.b)) {
                let mut f = f.clone();
                f.from = back(f.from);
                b.hexsides.insert(Side::new(back(s.a), back(s.b)), f);
            }
        }
        return b;
    }
    unreachable!("a rectangle of a grid is a grid in one of the staggers")
}

/// Every sight line between a hex of one board and a hex of the other gives the
/// same verdict, hindrance and reason on the combined map as on the whole one.
fn assert_seam_lines_agree(w: &Map, c: &Map, first: &dyn Fn(u32, u32) -> bool) {
    assert_eq!((c.cols, c.rows), (w.cols, w.rows));
    assert_eq!(c.cells(), w.cells(), "the combined map is the whole map");
    assert_eq!(
        c.hexsides.keys().collect::<Vec<_>>(),
        w.hexsides.keys().collect::<Vec<_>>()
    );
    let offset = |h: Hex| {
        let (col, row) = w.layout.offset_of(h);
        (col as u32, row as u32)
    };
    let (mut checked, hexes): (usize, Vec<Hex>) = (0, w.hexes().collect());
    for &x in &hexes {
        for &y in &hexes {
            let (xo, yo) = (offset(x), offset(y));
            if !first(xo.0, xo.1) || first(yo.0, yo.1) {
                continue;
            }
            let (lx, ly) = (w.label(x), w.label(y));
            let (cx, cy) = (c.parse_hex(&lx).unwrap(), c.parse_hex(&ly).unwrap());
            let (a, b) = (line_of_sight(w, x, y), line_of_sight(c, cx, cy));
            assert_eq!(
                (a.verdict, a.hindrance, &a.reason),
                (b.verdict, b.hindrance, &b.reason),
                "{lx} to {ly}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} lines crossed the seam");
}

/// The whole map without the hexsides that run along the seam of abutting boards:
/// a board file holds only sides between its own hexes, so neither board has them.
fn seam_sides_dropped(w: &Map, overlap: u32, first: &dyn Fn(u32, u32) -> bool) -> Map {
    let mut w = w.clone();
    if overlap == 0 {
        let layout = w.layout;
        let side_of = |h: Hex| {
            let (c, r) = layout.offset_of(h);
            first(c as u32, r as u32)
        };
        w.hexsides.retain(|s, _| side_of(s.a) == side_of(s.b));
    }
    w
}

fn place(direction: Direction, overlap: u32, turn: bool) -> Placement {
    Placement {
        direction,
        overlap,
        turn,
    }
}

#[test]
fn lines_across_every_seam_match_the_map_drawn_whole() {
    let layouts = [
        (Orientation::Flat, Stagger::Odd),
        (Orientation::Flat, Stagger::Even),
        (Orientation::Pointy, Stagger::Odd),
    ];
    for (i, (orientation, stagger)) in layouts.into_iter().enumerate() {
        for ruleset in ["asl", "combat-commander"] {
            let w = whole(
                ruleset,
                11,
                9,
                Layout {
                    orientation,
                    stagger,
                },
                7 + i as u64,
            );
            for overlap in [0, 1] {
                for turn in [false, true] {
                    for k in [4, 5] {
                        check_east_west(&w, k, overlap, turn);
                        check_north_south(&w, k, overlap, turn);
                    }
                }
            }
        }
    }
}

/// Cut after column `k` (the boards share column `k - 1` with an overlap).
fn check_east_west(w: &Map, k: u32, overlap: u32, turn: bool) {
    let a = cut(w, 0, 0, k, w.rows);
    let b = cut(w, k - overlap, 0, w.cols - k + overlap, w.rows);
    let b_given = if turn { turned(&b) } else { b.clone() };
    let east = combine(&a, &b_given, place(Direction::East, overlap, turn))
        .unwrap_or_else(|e| panic!("east k={k} overlap={overlap} turn={turn}: {e}"));
    let first = |c: u32, _| c < k;
    let w = &seam_sides_dropped(w, overlap, &first);
    assert_seam_lines_agree(w, &east.map, &first);
    let a_given = if turn { turned(&a) } else { a.clone() };
    let west = combine(&b, &a_given, place(Direction::West, overlap, turn))
        .unwrap_or_else(|e| panic!("west k={k} overlap={overlap} turn={turn}: {e}"));
    assert_seam_lines_agree(w, &west.map, &first);
}

/// Cut after row `k`.
fn check_north_south(w: &Map, k: u32, overlap: u32, turn: bool) {
    let a = cut(w, 0, 0, w.cols, k);
    let b = cut(w, 0, k - overlap, w.cols, w.rows - k + overlap);
    let b_given = if turn { turned(&b) } else { b.clone() };
    let south = combine(&a, &b_given, place(Direction::South, overlap, turn))
        .unwrap_or_else(|e| panic!("south k={k} overlap={overlap} turn={turn}: {e}"));
    let first = |_, r: u32| r < k;
    let w = &seam_sides_dropped(w, overlap, &first);
    assert_seam_lines_agree(w, &south.map, &first);
    let a_given = if turn { turned(&a) } else { a.clone() };
    let north = combine(&b, &a_given, place(Direction::North, overlap, turn))
        .unwrap_or_else(|e| panic!("north k={k} overlap={overlap} turn={turn}: {e}"));
    assert_seam_lines_agree(w, &north.map, &first);
}

fn blank(ruleset: &str, cols: u32, rows: u32, orientation: Orientation) -> Map {
    let rs = resolve_ruleset(ruleset, Path::new("t.json")).unwrap();
    let layout = Layout {
        orientation,
        stagger: Stagger::Odd,
    };
    Map::new(ruleset, ruleset, rs, cols, rows, layout)
}

#[test]
fn labels_follow_the_documented_rule_and_units_turn_with_their_board() {
    let a = blank("asl", 10, 5, Orientation::Flat);
    let mut b = blank("asl", 10, 5, Orientation::Flat);
    let at = b.parse_hex("A1").unwrap();
    b.units.push(Unit {
        id: "1".into(),
        hex: at,
        side: "german".into(),
        kind: "infantry".into(),
        state: String::new(),
        facing: Some(1),
        extra: Default::default(),
    });
    let wall = b.parse_hex("B2").unwrap();
    b.hexsides.insert(
        Side::new(wall, wall.neighbor(3)),
        HexsideFeature {
            kind: 0,
            from: wall,
            extra: Default::default(),
        },
    );
    // East, abutting: B's A1 is the 11th column (K1).
    let c = combine(&a, &b, place(Direction::East, 0, false))
        .unwrap()
        .map;
    assert_eq!((c.cols, c.rows), (20, 5));
    assert_eq!(c.label(c.units[0].hex), "K1");
    assert_eq!(c.units[0].facing, Some(1));
    let s = c.hexsides.keys().next().unwrap();
    assert_eq!(c.side_label(s.a, s.b), "L2/L3");
    // Sharing the edge column: B's A1 is A's last column, K1 of an 11-column A.
    let a11 = blank("asl", 11, 5, Orientation::Flat);
    let c = combine(&a11, &b, place(Direction::East, 1, false))
        .unwrap()
        .map;
    assert_eq!(c.cols, 20);
    assert_eq!(c.label(c.units[0].hex), "K1");
    // Turned, B's A1 is its last hex: T5, facing the other way.
    let c = combine(&a, &b, place(Direction::East, 0, true))
        .unwrap()
        .map;
    assert_eq!(c.label(c.units[0].hex), "T5");
    assert_eq!(c.units[0].facing, Some(4));
    let s = c.hexsides.keys().next().unwrap();
    let (x, y) = (c.label(s.a), c.label(s.b));
    assert!(
        [format!("{x}/{y}"), format!("{y}/{x}")].contains(&"S3/S4".to_string()),
        "{x}/{y}"
    );
    // South: B's rows follow A's.
    let c = combine(&a, &b, place(Direction::South, 0, false))
        .unwrap()
        .map;
    assert_eq!((c.cols, c.rows), (10, 10));
    assert_eq!(c.label(c.units[0].hex), "A6");
}

#[test]
fn mismatched_boards_are_refused_with_the_reason() {
    let a = blank("asl", 10, 5, Orientation::Flat);
    let err = |b: &Map, p: Placement| combine(&a, b, p).unwrap_err().to_string();
    let e = err(
        &blank("combat-commander", 10, 5, Orientation::Flat),
        place(Direction::East, 0, false),
    );
    assert!(
        e.contains("different rulesets") && e.contains("combat-commander"),
        "{e}"
    );
    let e = err(
        &blank("asl", 10, 5, Orientation::Pointy),
        place(Direction::East, 0, false),
    );
    assert!(e.contains("different orientations"), "{e}");
    let e = err(
        &blank("asl", 10, 6, Orientation::Flat),
        place(Direction::East, 0, false),
    );
    assert!(e.contains("as many rows") && e.contains("6"), "{e}");
    let e = err(
        &blank("asl", 9, 5, Orientation::Flat),
        place(Direction::South, 0, false),
    );
    assert!(e.contains("as many columns"), "{e}");
    let e = err(
        &blank("asl", 10, 5, Orientation::Flat),
        place(Direction::East, 2, false),
    );
    assert!(e.contains("overlap must be 0"), "{e}");
    // A's 10 columns with one shared: B's shifted columns would fall on A's unshifted ones.
    let e = err(
        &blank("asl", 10, 5, Orientation::Flat),
        place(Direction::East, 1, false),
    );
    assert!(e.contains("half a hex"), "{e}");
}

#[test]
fn shared_hexes_that_differ_keep_the_first_board_and_say_so() {
    let a = blank("asl", 9, 4, Orientation::Flat);
    let mut b = blank("asl", 9, 4, Orientation::Flat);
    let h = b.parse_hex("A2").unwrap();
    b.cell_mut(h).unwrap().level = 1;
    let c = combine(&a, &b, place(Direction::East, 1, false)).unwrap();
    let shared = c.map.parse_hex("I2").unwrap();
    assert_eq!(c.map.cell(shared).unwrap().level, 0);
    assert!(c.notes.iter().any(|n| n.contains("I2")), "{:?}", c.notes);
}
