//! The interactive report page's data (`data.js`): the map to draw, the layers, and
//! for each observer the page carries the class of every target (visible, hindered,
//! blocked, blind) bit-packed, with the explained query's blocker and reason for the
//! observers it explains. All of it is packed into one gzip stream, base64 in a
//! script, which the page unpacks with the browser's own `DecompressionStream`: the
//! page then answers every click from it, with no server and no rule of its own.
//!
//! The unpacked stream (integers little-endian):
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `HXSPAGE1` |
//! | 8 | 4 | `h`: length of the header (u32) |
//! | 12 | `h` | the header: UTF-8 JSON (map, layers, tables, and `blobs`: name to `[offset, length]` in the stream) |
//! | … | | the blobs, each starting at a multiple of 8 |
//!
//! Blobs: `seen` and `second`, one row per carried observer (`observers` in the
//! header; `null` means every hex in index order), `stride = ceil(n / 8)` bytes a row,
//! bit `j % 8` of byte `j / 8` for target `j`: `seen` is 1 when the observer sees the
//! target (clear or hindered, as the matrix); `second` is 1 for a seen target that is
//! hindered and for a hidden one that is a blind hex. `why` and `by`: for each
//! explained observer (`explained`, `null` for all), per target, a u16 or u32
//! (`why_bytes`) indexing `explanations` (`[reason, hindrance]`, the reason an index
//! into `reasons`), and a u16 or u32 (`by_bytes`): the blocking hex + 1, 0 for none.
//! A reason is stored once for every pair it is said of: the observer's, the
//! target's and the blocker's labels in it stand as the characters U+0001, U+0002
//! and U+0003, which the page replaces with the pair's labels.
//!
//! With a comparison (`report --against`), the header's `change` holds the diff
//! (`against`, pairs `gained` and `lost`, per hex `seen_by` and `sees` after minus
//! before) and the blob `changed`, laid out as `seen`, is 1 where the map after
//! differs from `seen`: a target gained where `seen` is 0, lost where it is 1 (mostly
//! zeros, so it packs to little).

use super::style::{self, BLIND, BLOCKED, HINDERED, OVERLAY, Rgba, VISIBLE};
use crate::engine::diff::{Diff, part_of, share};
use crate::engine::fast::Engine;
use crate::engine::matrix::Control;
use crate::engine::pairs;
use crate::error::Result;
use crate::los::line_of_sight;
use crate::map::Map;
use crate::query::range::Range;
use crate::rules::Verdict;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The unpacked stream's first eight bytes.
pub const MAGIC: &[u8; 8] = b"HXSPAGE1";

/// Largest map whose every viewshed the page carries (2 bits a pair: 25 MB unpacked
/// at this size, a few MB packed); a larger map carries its key hexes' viewsheds.
pub const ALL_VIEWSHEDS_LIMIT: usize = 10_000;

/// Largest map whose every line the page explains (blocker and reason); a larger
/// map explains its key hexes' lines only.
pub const ALL_EXPLAINED_LIMIT: usize = 2_500;

/// One count per hex, drawn as a heatmap.
pub struct Heat {
    /// Short name shown in the layer list.
    pub name: String,
    /// One sentence on how to read it.
    pub text: String,
    /// What is counted, for the legend.
    pub caption: String,
    /// Value per hex (`None`: nothing laid over).
    pub values: Vec<Option<f64>>,
    /// Top of the scale (the bottom is 0).
    pub max: f64,
}

/// A named zone of the map, with the side it belongs to (if any).
pub struct ZoneLayer {
    /// The zone's name.
    pub name: String,
    /// The side whose zone it is.
    pub side: Option<String>,
    /// Its hexes (map indices).
    pub hexes: Vec<usize>,
}

/// One ordered pair of units of the units' network.
pub struct UnitLink {
    /// Firer and target, indices into the map's units.
    pub from: usize,
    /// The target.
    pub to: usize,
    /// The firer sees the target.
    pub sees: bool,
    /// The firer can fire at it.
    pub fires: bool,
    /// Why (the library's first reason for each answer).
    pub why: String,
}

/// Everything the report has computed that the page shows besides the viewsheds.
pub struct PageInput<'a> {
    /// The map.
    pub map: &'a Map,
    /// Key hexes (map indices): their viewsheds and explanations are always carried.
    pub keys: &'a [usize],
    /// Heatmaps: seen by, sees, blind zones, spotting, exposure of sides.
    pub heats: Vec<Heat>,
    /// The map's named zones.
    pub zones: Vec<ZoneLayer>,
    /// The units' network.
    pub links: Vec<UnitLink>,
    /// Lines of the report's summary.
    pub summary: &'a [String],
    /// Beyond this range nothing is seen.
    pub range: Option<&'a Range>,
    /// A comparison with the map after a change, if asked: the "What changes" section.
    pub change: Option<Change<'a>>,
}

/// The map after a change and its diff against the report's map (over every hex).
pub struct Change<'a> {
    /// The engine of the map after.
    pub after: &'a Engine<'a>,
    /// What the map after is (`layers orchard-cut.json`, `other.json`).
    pub against: &'a str,
    /// The diff of the whole map.
    pub diff: &'a Diff,
}

/// The packed page data and what went into it.
pub struct PageData {
    /// The gzip stream.
    pub gz: Vec<u8>,
    /// Its size unpacked.
    pub unpacked: usize,
    /// Observers whose viewsheds are carried.
    pub observers: usize,
    /// Observers whose lines are explained.
    pub explained: usize,
    /// What was left out, one sentence each (also on the page).
    pub omitted: Vec<String>,
    /// Seconds spent on the viewsheds and on the explanations.
    pub seconds: (f64, f64),
}

impl PageData {
    /// The `data.js` script that hands the stream to the page.
    pub fn script(&self) -> String {
        let mut s = String::with_capacity(self.gz.len() * 4 / 3 + 64);
        s.push_str("window.HEXSIGHT_DATA = \"");
        base64(&self.gz, &mut s);
        s.push_str("\";\n");
        s
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8], out: &mut String) {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for c in bytes.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

fn colour(c: Rgba) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// True where the observers' viewsheds answer the page's planes sooner than the pair
/// sweep with its blind-hex walk: for a family whose viewsheds are settled from
/// tables of slopes (the report of a 100x100 `geometric` map took 9.3 s by the sweep,
/// 4.9 s by viewsheds), where as many as there are threads fit in the memory left.
/// The sweep walks every pair; elsewhere a viewshed walks most of its targets too
/// (ASL's 10,000 viewsheds of a 100x100 map took 28 s, its whole report 10 s).
fn by_viewsheds(engine: &Engine, rows: usize) -> bool {
    engine.viewsheds_by_slopes() && crate::engine::seen::viewsheds_fit(engine, rows)
}

/// The classes of every target for the observers `rows`: the `seen` and `second`
/// planes (see the module note), computed by the engine with its blind-hex walk,
/// pair by pair or by each observer's viewshed.
pub(crate) fn classes(
    engine: &Engine,
    rows: &[usize],
    range: Option<&Range>,
    ctl: &Control,
) -> Result<(Vec<u8>, Vec<u8>)> {
    classes_by(engine, (rows, range), ctl, by_viewsheds(engine, rows.len()))
}

/// [`classes`] by the observers' viewsheds where `viewsheds`, else by the pair sweep.
fn classes_by(
    engine: &Engine,
    (rows, range): (&[usize], Option<&Range>),
    ctl: &Control,
    viewsheds: bool,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let map = engine.map();
    let n = map.len();
    let words = n.div_ceil(64);
    let plane =
        || -> Vec<AtomicU64> { (0..rows.len() * words).map(|_| AtomicU64::new(0)).collect() };
    let (seen, second) = (plane(), plane());
    let mut row_of = vec![u32::MAX; n];
    for (r, &i) in rows.iter().enumerate() {
        row_of[i] = r as u32;
    }
    let set = |p: &[AtomicU64], r: usize, j: usize| {
        p[r * words + j / 64].fetch_or(1 << (j % 64), Ordering::Relaxed);
    };
    let all: Vec<usize> = (0..n).collect();
    // The pair `(i, j)` as seen (hindered or not) or hidden (blind or not).
    let put = |i: usize, j: usize, sees: bool, second_bit: bool| {
        if i == j || range.is_some_and(|g| !g.reaches(map.hex_of(i), map.hex_of(j))) {
            return;
        }
        let r = row_of[i] as usize;
        if sees {
            set(&seen, r, j);
        }
        if second_bit {
            set(&second, r, j);
        }
    };
    if viewsheds {
        crate::engine::seen::each_viewshed(engine, (rows, &all), ctl, |i, j, t| {
            let sees = t.verdict.sees();
            put(i, j, sees, if sees { t.hindrance > 0 } else { t.blind });
        })?;
    } else {
        pairs::for_each::<true>(engine, rows, &all, ctl, |i, j, o| {
            let sees = !o.blocked();
            put(i, j, sees, if sees { o.hinder > 0 } else { o.blind() });
        })?;
    }
    // A hex sees itself, clearly.
    for (r, &i) in rows.iter().enumerate() {
        set(&seen, r, i);
    }
    let stride = n.div_ceil(8);
    let bytes = |p: Vec<AtomicU64>| -> Vec<u8> {
        let mut out = Vec::with_capacity(rows.len() * stride);
        for row in p.chunks(words.max(1)).take(rows.len()) {
            let start = out.len();
            for w in row {
                out.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
            }
            out.truncate(start + stride);
        }
        out
    };
    Ok((bytes(seen), bytes(second)))
}

/// The explained query's answer for every target of the observers `rows`: per pair
/// its blocker and an index into a table of distinct `(reason template, hindrance)`.
pub(crate) struct Explained {
    /// Distinct reasons, each with the observer's, the target's and the blocker's
    /// labels replaced by [`FROM`], [`TO`] and [`BY`] (so one sentence serves every
    /// pair it is said of; the page puts the labels back).
    pub reasons: Vec<String>,
    /// Distinct answers: reason index, hindrance.
    pub table: Vec<(u32, u32)>,
    /// Per observer, per target, the answer's index in `table`.
    pub ids: Vec<u32>,
    /// Per observer, per target, the blocking hex + 1 (0: nothing blocks).
    pub blockers: Vec<u32>,
}

/// Stands for the observer's label in a reason template.
pub(crate) const FROM: char = '\u{1}';
/// Stands for the target's label.
pub(crate) const TO: char = '\u{2}';
/// Stands for the blocking hex's label.
pub(crate) const BY: char = '\u{3}';

/// `reason` with each whole-word occurrence of a label replaced by its stand-in
/// (the first of equal labels wins); putting the labels back gives `reason` again.
pub(crate) fn template(reason: &str, labels: &[(&str, char)]) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
    let mut out = String::with_capacity(reason.len());
    let mut rest = reason;
    let mut prev: Option<char> = None;
    'scan: while let Some(c) = rest.chars().next() {
        if !word(prev) {
            for &(label, stand_in) in labels {
                if !label.is_empty()
                    && rest.starts_with(label)
                    && !word(rest[label.len()..].chars().next())
                {
                    out.push(stand_in);
                    prev = label.chars().last();
                    rest = &rest[label.len()..];
                    continue 'scan;
                }
            }
        }
        out.push(c);
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The explained query for every target of the observers `rows`, each reason made a
/// template so a sentence said of many pairs is stored once; stops on the cancel flag
/// (the progress shown is the viewsheds', computed first).
pub(crate) fn explain(
    map: &Map,
    rows: &[usize],
    range: Option<&Range>,
    ctl: &Control,
) -> Result<Explained> {
    let labels: Vec<String> = map.hexes().map(|h| map.label(h)).collect();
    let answers: Vec<Vec<(String, u32, u32)>> = rows
        .par_iter()
        .map(|&i| {
            if ctl.cancel.load(Ordering::Relaxed) {
                return Err(crate::engine::matrix::cancelled());
            }
            let from = map.hex_of(i);
            Ok((0..map.len())
                .map(|j| {
                    let mut r = line_of_sight(map, from, map.hex_of(j));
                    if let Some(g) = range {
                        r = g.los(map, r);
                    }
                    let blocker = r.blocked_by.as_ref().and_then(|e| map.index(e.place.hex()));
                    let mut names = vec![(labels[i].as_str(), FROM), (labels[j].as_str(), TO)];
                    if let Some(b) = blocker {
                        names.push((labels[b].as_str(), BY));
                    }
                    // Longer labels first, so `A10` is never read as `A1` and a `0`.
                    names.sort_by_key(|n| std::cmp::Reverse(n.0.len()));
                    let text = template(&r.reason, &names);
                    (text, blocker.map_or(0, |b| b as u32 + 1), r.hindrance)
                })
                .collect())
        })
        .collect::<Result<_>>()?;
    let mut reasons: Vec<String> = Vec::new();
    let mut reason_ids: FxHashMap<String, u32> = FxHashMap::default();
    let mut table = Vec::new();
    let mut table_ids: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    let mut ids = Vec::with_capacity(rows.len() * map.len());
    let mut blockers = Vec::with_capacity(rows.len() * map.len());
    for row in answers {
        for (reason, blocker, hindrance) in row {
            let rid = match reason_ids.get(&reason) {
                Some(&k) => k,
                None => {
                    let k = reasons.len() as u32;
                    reasons.push(reason.clone());
                    reason_ids.insert(reason, k);
                    k
                }
            };
            let key = (rid, hindrance);
            let id = *table_ids.entry(key).or_insert_with(|| {
                table.push(key);
                table.len() as u32 - 1
            });
            ids.push(id);
            blockers.push(blocker);
        }
    }
    Ok(Explained {
        reasons,
        table,
        ids,
        blockers,
    })
}

/// The map as the page draws it: hex centres and corners at size 1, labels, ground
/// colours, terrain pips, level contours, hexsides, markers and units, in the
/// colours of every other picture ([`super::style`]).
fn map_json(map: &Map) -> Value {
    let round = |v: f64| (v * 1000.0).round() / 1000.0;
    let mut centres = Vec::with_capacity(map.len() * 2);
    for h in map.hexes() {
        let (x, y) = map.layout.center(h, 1.0);
        centres.push(round(x));
        centres.push(round(y));
    }
    let h0 = map.hex_of(0);
    let (cx, cy) = map.layout.center(h0, 1.0);
    let corners: Vec<f64> = map
        .layout
        .corners(h0, 1.0)
        .iter()
        .flat_map(|&(x, y)| [round(x - cx), round(y - cy)])
        .collect();
    let mut palette: Vec<String> = Vec::new();
    let mut palette_ids: FxHashMap<Rgba, usize> = FxHashMap::default();
    let ground: Vec<usize> = style::ground_colours(map)
        .into_iter()
        .map(|c| {
            *palette_ids.entry(c).or_insert_with(|| {
                palette.push(colour(c));
                palette.len() - 1
            })
        })
        .collect();
    let rs = &map.ruleset;
    let terrains: Vec<Value> = rs
        .terrain
        .iter()
        .map(|t| {
            json!({
                "name": if t.name.is_empty() { &t.id } else { &t.name },
                "colour": colour(style::parse_hex_colour(&t.color)),
            })
        })
        .collect();
    // Edges: [hex, direction, style]; style 0 is a slope down to a lower hex, k + 1
    // the hexside feature of kind k.
    let mut edges = Vec::new();
    for (i, h) in map.hexes().enumerate() {
        let level = map.level(h);
        for dir in 0..6 {
            if map.cell(h.neighbor(dir)).is_some_and(|c| c.level < level) {
                edges.extend([i as i64, dir as i64, 0]);
            }
        }
    }
    for (side, f) in &map.hexsides {
        let (Some(dir), Some(i)) = (side.a.direction_to(side.b), map.index(side.a)) else {
            continue;
        };
        edges.extend([i as i64, dir as i64, i64::from(f.kind) + 1]);
    }
    let mut edge_styles = vec![
        json!({"name": "slope down to a lower hex", "colour": "#3c230a", "alpha": 230.0 / 255.0, "width": [1.0 / 7.0, 1.2, 3.0]}),
    ];
    edge_styles.extend(rs.hexsides.iter().map(|k| {
        json!({
            "name": if k.name.is_empty() { &k.id } else { &k.name },
            "colour": colour(style::parse_hex_colour(&k.color)),
            "alpha": 1.0,
            "width": [1.0 / 4.5, 1.5, 5.0],
        })
    }));
    let markers: Vec<Value> = map
        .markers
        .iter()
        .filter_map(|m| {
            let kind = &rs.markers[m.kind as usize];
            Some(json!({
                "hex": map.index(m.hex)?,
                "name": if kind.name.is_empty() { &kind.id } else { &kind.name },
                "colour": colour(style::parse_hex_colour(&kind.color)),
            }))
        })
        .collect();
    let sides = super::pictures::sides(map);
    let units: Vec<Value> = map
        .units
        .iter()
        .filter_map(|u| {
            Some(json!({
                "id": u.id, "hex": map.index(u.hex)?, "side": u.side, "kind": u.kind, "state": u.state,
            }))
        })
        .collect();
    let side_colours: Vec<Value> = sides
        .iter()
        .map(|s| json!({"name": s, "colour": colour(super::pictures::side_colour(&sides, s))}))
        .collect();
    let (lmin, lmax) = style::level_span(map);
    json!({
        "name": map.name,
        "ruleset": rs.name,
        "description": rs.description,
        "cols": map.cols,
        "rows": map.rows,
        "n": map.len(),
        "labels": map.hexes().map(|h| map.label(h)).collect::<Vec<_>>(),
        "centres": centres,
        "corners": corners,
        "palette": palette,
        "ground": ground,
        "terrain": map.cells().iter().map(|c| c.terrain).collect::<Vec<_>>(),
        "level": map.cells().iter().map(|c| c.level).collect::<Vec<_>>(),
        "levels": [lmin, lmax],
        "terrains": terrains,
        "edges": edges,
        "edge_styles": edge_styles,
        "markers": markers,
        "units": units,
        "sides": side_colours,
    })
}

/// The palette of classes and heatmaps, the same as every picture's.
fn palette_json() -> Value {
    // The sight line to the pointed hex: clear, hindered, blocked.
    let lines =
        [Verdict::Clear, Verdict::Hindered, Verdict::Blocked].map(|v| colour(style::sight_line(v)));
    json!({
        "classes": [
            {"name": "visible", "colour": colour(VISIBLE)},
            {"name": "hindered", "colour": colour(HINDERED)},
            {"name": "blocked", "colour": colour(BLOCKED)},
            {"name": "blind hex", "colour": colour(BLIND)},
        ],
        "lines": lines,
        "heat": (0..256).map(|k| colour(style::heat(k as f64 / 255.0))).collect::<Vec<_>>(),
        "diverging": (0..256).map(|k| colour(style::diverging(k as f64 / 127.5 - 1.0))).collect::<Vec<_>>(),
        "overlay": OVERLAY,
        "fires": colour(super::pictures::FIRES),
        "sees": colour(super::pictures::SEES),
    })
}

/// Builds the page's data: the viewsheds of every hex (of the key hexes only above
/// [`ALL_VIEWSHEDS_LIMIT`]), the explanations of every line (of the key hexes' only
/// above [`ALL_EXPLAINED_LIMIT`]), the map and the layers, packed.
pub fn build(engine: &Engine, input: &PageInput, ctl: &Control) -> Result<PageData> {
    let map = input.map;
    let n = map.len();
    let mut omitted = Vec::new();
    let mut keys: Vec<usize> = input.keys.to_vec();
    keys.sort_unstable();
    keys.dedup();
    let every = |limit: usize, what: &str, omitted: &mut Vec<String>| {
        if n <= limit {
            None
        } else {
            omitted.push(format!(
                "{what} of the {} key hexes only: the map has {n} hexes, more than {limit} (the page's limit for {what} of every hex)",
                keys.len()
            ));
            Some(keys.clone())
        }
    };
    let observers = sampled(n, &keys, &mut omitted);
    let explained = every(ALL_EXPLAINED_LIMIT, "blockers and reasons", &mut omitted);
    let all: Vec<usize> = (0..n).collect();
    let rows = observers.as_deref().unwrap_or(&all);
    let start = Instant::now();
    // One progress count over the viewsheds of the map and, compared, of the map after.
    let pairs = rows.len() as u64 * n as u64;
    let total = pairs * (1 + u64::from(input.change.is_some()));
    let first = share(ctl, 0, pairs, total);
    let (seen, second) = classes(engine, rows, input.range, &part_of(ctl, &first))?;
    let changed = match &input.change {
        Some(c) => {
            let then = share(ctl, pairs, pairs, total);
            let (after, _) = classes(c.after, rows, input.range, &part_of(ctl, &then))?;
            after.iter().zip(&seen).map(|(a, b)| a ^ b).collect()
        }
        None => Vec::new(),
    };
    let t_classes = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let why = explain(map, explained.as_deref().unwrap_or(&all), input.range, ctl)?;
    let t_explain = start.elapsed().as_secs_f64();
    let why_bytes = if why.table.len() <= 1 << 16 { 2 } else { 4 };
    let by_bytes = if n < 1 << 16 { 2 } else { 4 };
    let pack = |values: &[u32], width: usize| -> Vec<u8> {
        values
            .iter()
            .flat_map(|v| v.to_le_bytes().into_iter().take(width))
            .collect()
    };
    let why_blob = pack(&why.ids, why_bytes);
    let by_blob = pack(&why.blockers, by_bytes);
    let heats: Vec<Value> = input
        .heats
        .iter()
        .map(|h| {
            json!({
                "name": h.name, "text": h.text, "caption": h.caption, "max": h.max,
                "values": h.values.iter().map(|v| v.map(|v| (v * 1000.0).round() / 1000.0)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let zones: Vec<Value> = input
        .zones
        .iter()
        .map(|z| json!({"name": z.name, "side": z.side, "hexes": z.hexes}))
        .collect();
    let links: Vec<Value> = input
        .links
        .iter()
        .map(|l| json!([l.from, l.to, l.sees, l.fires, l.why]))
        .collect();
    let mut blobs: Vec<(&str, &[u8])> = vec![
        ("seen", &seen),
        ("second", &second),
        ("why", &why_blob),
        ("by", &by_blob),
    ];
    if input.change.is_some() {
        blobs.push(("changed", &changed));
    }
    let mut header = json!({
        "format": 1,
        "map": map_json(map),
        "palette": palette_json(),
        "keys": input.keys,
        "heats": heats,
        "zones": zones,
        "links": links,
        "summary": input.summary,
        "range": input.range.map(|r| r.hexes),
        "observers": observers,
        "explained": explained,
        "reasons": why.reasons,
        "explanations": why.table.iter().map(|&(r, h)| json!([r, h])).collect::<Vec<_>>(),
        "why_bytes": why_bytes,
        "by_bytes": by_bytes,
        "omitted": omitted,
        "seconds": {"viewsheds": t_classes, "explanations": t_explain},
        "change": input.change.as_ref().map(|c| change_json(map, c)),
    });
    // Blob offsets depend on the header's length, which depends on the offsets'
    // digits: lay them out from a header long enough for any offset, then pad.
    let place = |header_len: usize| -> Vec<(usize, usize)> {
        let mut at = (12 + header_len).next_multiple_of(8);
        blobs
            .iter()
            .map(|(_, b)| {
                let here = at;
                at = (at + b.len()).next_multiple_of(8);
                (here, b.len())
            })
            .collect()
    };
    let set_blobs = |header: &mut Value, spots: &[(usize, usize)]| {
        header["blobs"] = blobs
            .iter()
            .zip(spots)
            .map(|((name, _), &(at, len))| (name.to_string(), json!([at, len])))
            .collect::<serde_json::Map<_, _>>()
            .into();
    };
    set_blobs(&mut header, &place(0));
    let guess = serde_json::to_vec(&header).map_err(json_error)?.len() + 64;
    let spots = place(guess);
    set_blobs(&mut header, &spots);
    let mut text = serde_json::to_vec(&header).map_err(json_error)?;
    text.resize(guess, b' ');
    let mut raw = Vec::with_capacity(spots.last().map_or(0, |s| s.0 + s.1));
    raw.extend_from_slice(MAGIC);
    raw.extend_from_slice(&(guess as u32).to_le_bytes());
    raw.extend_from_slice(&text);
    for ((_, b), &(at, _)) in blobs.iter().zip(&spots) {
        raw.resize(at, 0);
        raw.extend_from_slice(b);
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    gz.write_all(&raw)
        .and_then(|_| gz.try_finish())
        .map_err(|e| {
            crate::Error::new(crate::ErrorKind::Io, format!("packing the page data: {e}"))
        })?;
    let gz = gz
        .finish()
        .map_err(|e| crate::Error::new(crate::ErrorKind::Io, e.to_string()))?;
    Ok(PageData {
        gz,
        unpacked: raw.len(),
        observers: observers.as_ref().map_or(n, Vec::len),
        explained: explained.as_ref().map_or(n, Vec::len),
        omitted,
        seconds: (t_classes, t_explain),
    })
}

/// The header's `change`: the diff's counts and, per hex, the change in observers
/// that see it and in hexes it sees.
fn change_json(map: &Map, c: &Change) -> Value {
    let d = c.diff;
    let limit = d
        .seen_by
        .iter()
        .map(|v| v.unsigned_abs())
        .max()
        .unwrap_or(0);
    json!({
        "against": c.against,
        "observers": d.sel.from.len(),
        "targets": d.sel.to.len(),
        "gained": d.gained,
        "lost": d.lost,
        "seen_by": d.seen_by,
        "sees": d.sees,
        "limit": limit.max(1),
        "altered": altered(map, c.after.map()),
    })
}

/// The hexes the change alters, in index order: their terrain, level or slope, the
/// markers in them, or the hexside features on their sides (named from either hex).
fn altered(before: &Map, after: &Map) -> Vec<usize> {
    let mut hexes: Vec<usize> = (0..before.len().min(after.len()))
        .filter(|&i| {
            let (a, b) = (&before.cells()[i], &after.cells()[i]);
            (a.terrain, a.level, a.slope) != (b.terrain, b.level, b.slope)
        })
        .collect();
    let markers = |m: &Map| -> Vec<(usize, u16)> {
        let mut v: Vec<_> = m
            .markers
            .iter()
            .filter_map(|k| Some((m.index(k.hex)?, k.kind)))
            .collect();
        v.sort_unstable();
        v
    };
    let (ma, mb) = (markers(before), markers(after));
    hexes.extend(ma.iter().filter(|k| !mb.contains(k)).map(|k| k.0));
    hexes.extend(mb.iter().filter(|k| !ma.contains(k)).map(|k| k.0));
    for (side, f) in &before.hexsides {
        if after.hexsides.get(side).map(|g| g.kind) != Some(f.kind) {
            hexes.extend(before.index(side.a));
        }
    }
    for (side, f) in &after.hexsides {
        if before.hexsides.get(side).map(|g| g.kind) != Some(f.kind) {
            hexes.extend(after.index(side.a));
        }
    }
    hexes.sort_unstable();
    hexes.dedup();
    hexes
}

/// The observers whose viewsheds the page carries: every hex up to
/// [`ALL_VIEWSHEDS_LIMIT`] (`None`); beyond, as many as fit in the pairs of a map that
/// size, spread evenly (every `step`th hex in index order) with the key hexes.
fn sampled(n: usize, keys: &[usize], omitted: &mut Vec<String>) -> Option<Vec<usize>> {
    if n <= ALL_VIEWSHEDS_LIMIT {
        return None;
    }
    let fit = (ALL_VIEWSHEDS_LIMIT * ALL_VIEWSHEDS_LIMIT / n).max(1);
    let step = n.div_ceil(fit);
    let mut rows: Vec<usize> = (0..n).step_by(step).chain(keys.iter().copied()).collect();
    rows.sort_unstable();
    rows.dedup();
    omitted.push(format!(
        "viewsheds of {} of the {n} hexes only (every {step}th hex in column order and the key hexes): every hex's would be {} MB unpacked, more than a map of {ALL_VIEWSHEDS_LIMIT} hexes",
        rows.len(),
        (n as u64 * n as u64 / 4) >> 20
    ));
    Some(rows)
}

fn json_error(e: serde_json::Error) -> crate::Error {
    crate::Error::new(crate::ErrorKind::Query, format!("the page header: {e}"))
}

/// Page data read back: the header and the named blobs.
pub type Unpacked = (Value, Vec<(String, Vec<u8>)>);

/// The stream of a `data.js` script ([`PageData::script`]) read back: its header and blobs.
pub fn unpack_script(script: &str) -> Result<Unpacked> {
    let bad = || crate::Error::new(crate::ErrorKind::Syntax, "page data: not a data.js script");
    let start = script.find('"').ok_or_else(bad)? + 1;
    let end = script.rfind('"').filter(|&e| e >= start).ok_or_else(bad)?;
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = script.as_bytes()[start..end]
        .iter()
        .filter(|&&c| c != b'=')
        .map(|&c| value(c).ok_or_else(bad))
        .collect::<Result<_>>()?;
    let mut gz = Vec::with_capacity(digits.len() * 3 / 4);
    for q in digits.chunks(4) {
        let n = q
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &d)| n | u32::from(d) << (18 - 6 * k));
        gz.extend_from_slice(&n.to_be_bytes()[1..q.len()]);
    }
    unpack(&gz)
}

/// The unpacked stream read back: the header and its blobs (for tests and tools).
pub fn unpack(gz: &[u8]) -> Result<Unpacked> {
    use std::io::Read;
    let bad = |why: &str| crate::Error::new(crate::ErrorKind::Syntax, format!("page data: {why}"));
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut raw)
        .map_err(|e| bad(&e.to_string()))?;
    if raw.len() < 12 || &raw[..8] != MAGIC {
        return Err(bad("not hexsight page data"));
    }
    let h = u32::from_le_bytes([raw[8], raw[9], raw[10], raw[11]]) as usize;
    let text = raw
        .get(12..12 + h)
        .ok_or_else(|| bad("the header is cut short"))?;
    let header: Value = serde_json::from_slice(text).map_err(|e| bad(&e.to_string()))?;
    let mut blobs = Vec::new();
    if let Some(b) = header["blobs"].as_object() {
        for (name, spot) in b {
            let (at, len) = (
                spot[0].as_u64().unwrap_or(0) as usize,
                spot[1].as_u64().unwrap_or(0) as usize,
            );
            let bytes = raw
                .get(at..at + len)
                .ok_or_else(|| bad("a blob is cut short"))?;
            blobs.push((name.clone(), bytes.to_vec()));
        }
    }
    Ok((header, blobs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testmaps::{FAMILIES, random_map};
    use crate::rules::Verdict;

    fn bit(plane: &[u8], stride: usize, r: usize, j: usize) -> bool {
        plane[r * stride + j / 8] >> (j % 8) & 1 == 1
    }

    /// The planes give, pair by pair, the explained query's verdict, hindrance and
    /// blind hexes, by the pair sweep and by the observers' viewsheds, on random
    /// maps of every family, flat-top and pointy-top, for every observer and for a
    /// few, within a range and without.
    #[test]
    fn the_planes_hold_the_explained_answers_by_either_route() {
        use crate::engine::viewshed::is_blind;
        for rs in FAMILIES {
            // Seed 21 makes a pointy-top map, 22 a flat-top one.
            for seed in [21, 22] {
                let map = random_map(rs, seed, 9, 8);
                let e = Engine::new(&map);
                let n = map.len();
                let every: Vec<usize> = (0..n).collect();
                let range = Range {
                    hexes: 4,
                    given: "4".into(),
                };
                for (rows, range) in [(every.clone(), None), (vec![2, 40, 41], Some(&range))] {
                    let stride = n.div_ceil(8);
                    for viewsheds in [false, true] {
                        let what = format!("{rs} {seed} viewsheds {viewsheds}");
                        let (seen, second) =
                            classes_by(&e, (&rows, range), &Control::default(), viewsheds).unwrap();
                        for (r, &i) in rows.iter().enumerate() {
                            for j in 0..n {
                                let (from, to) = (map.hex_of(i), map.hex_of(j));
                                let got = (bit(&seen, stride, r, j), bit(&second, stride, r, j));
                                let q = line_of_sight(&map, from, to);
                                let want = if i == j {
                                    (true, false)
                                } else if range.is_some_and(|g| !g.reaches(from, to)) {
                                    (false, false)
                                } else if q.verdict.sees() {
                                    (true, q.verdict == Verdict::Hindered)
                                } else {
                                    (false, is_blind(&map, &q))
                                };
                                assert_eq!(got, want, "{what}: {i} -> {j}: {}", q.reason);
                            }
                        }
                    }
                }
            }
        }
    }

    /// A family whose viewsheds come from tables of slopes takes them; another
    /// keeps the pair sweep.
    #[test]
    fn the_planes_take_viewsheds_where_slopes_settle_them() {
        let map = random_map("geometric", 22, 9, 8);
        assert!(
            by_viewsheds(&Engine::new(&map), map.len()),
            "geometric takes viewsheds"
        );
        let map = random_map("asl", 22, 9, 8);
        assert!(
            !by_viewsheds(&Engine::new(&map), map.len()),
            "asl keeps the pair sweep"
        );
    }

    /// The packed stream unpacks to the header and the blobs, and each explained
    /// pair gives the explained query's reason, blocker and hindrance.
    #[test]
    fn the_packed_data_unpacks_to_the_explained_answers() {
        let map = random_map("asl", 2, 8, 7);
        let e = Engine::new(&map);
        let keys = [3, 17];
        let input = PageInput {
            map: &map,
            keys: &keys,
            heats: Vec::new(),
            zones: Vec::new(),
            links: Vec::new(),
            summary: &[],
            range: None,
            change: None,
        };
        let data = build(&e, &input, &Control::default()).unwrap();
        let script = data.script();
        assert!(script.starts_with("window.HEXSIGHT_DATA = \""));
        let (header, blobs) = unpack_script(&script).unwrap();
        assert!(header["observers"].is_null() && header["explained"].is_null());
        let blob = |name: &str| &blobs.iter().find(|b| b.0 == name).unwrap().1;
        let n = map.len();
        assert_eq!(blob("seen").len(), n * n.div_ceil(8));
        let why = blob("why");
        let w = header["why_bytes"].as_u64().unwrap() as usize;
        for i in 0..n {
            for j in 0..n {
                let at = (i * n + j) * w;
                let mut id = [0u8; 4];
                id[..w].copy_from_slice(&why[at..at + w]);
                let ex = &header["explanations"][u32::from_le_bytes(id) as usize];
                let r = line_of_sight(&map, map.hex_of(i), map.hex_of(j));
                let by = blob("by");
                let b = u16::from_le_bytes([by[(i * n + j) * 2], by[(i * n + j) * 2 + 1]]);
                let blocker = r.blocked_by.map(|e| map.index(e.place.hex()).unwrap());
                assert_eq!(b as usize, blocker.map_or(0, |b| b + 1), "{i} -> {j}");
                let label = |k: usize| map.label(map.hex_of(k));
                let reason = header["reasons"][ex[0].as_u64().unwrap() as usize]
                    .as_str()
                    .unwrap()
                    .replace(FROM, &label(i))
                    .replace(TO, &label(j))
                    .replace(BY, &blocker.map(label).unwrap_or_default());
                assert_eq!(reason, r.reason, "{i} -> {j}");
                assert_eq!(ex[1].as_u64().unwrap() as u32, r.hindrance);
                let seen = bit(blob("seen"), n.div_ceil(8), i, j);
                assert_eq!(seen, r.verdict.sees(), "{i} -> {j}");
            }
        }
    }

    /// Labels are replaced as whole words only, longer first, and put back exactly.
    #[test]
    fn a_reason_template_gives_the_reason_back() {
        let names = [("A10", FROM), ("A1", TO), ("B2", BY)];
        let t = template("A1 to A10: woods in B2 block (A1.2, B22, xA1)", &names);
        assert_eq!(
            t,
            "\u{2} to \u{1}: woods in \u{3} block (\u{2}.2, B22, xA1)"
        );
        let back = t.replace(FROM, "A10").replace(TO, "A1").replace(BY, "B2");
        assert_eq!(back, "A1 to A10: woods in B2 block (A1.2, B22, xA1)");
    }

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        let enc = |b: &[u8]| {
            let mut s = String::new();
            base64(b, &mut s);
            s
        };
        assert_eq!(enc(b""), "");
        assert_eq!(enc(b"f"), "Zg==");
        assert_eq!(enc(b"fo"), "Zm8=");
        assert_eq!(enc(b"foo"), "Zm9v");
        assert_eq!(enc(b"foobar"), "Zm9vYmFy");
    }
}
