//! The picture of a sight-line profile: distance along the line across, height up.
//!
//! One [`Scene`] (so PNG and SVG show the same thing): the ground of every stretch as
//! steps, what stands on it in the terrain's colour, hindering and blocking stretches
//! shaded behind, the dead ground behind a lower blocker shaded, the sight line from
//! eye to eye and the first blocking point with the reason it cites.

use super::style::{self, Circle, Line, Poly, Rgba, Scene, Text, mix, parse_hex_colour};
use crate::hex::{Hex, SideCrossing};
use crate::map::Map;
use crate::query::profile::{Profile, Sight, Stretch, StretchEffect};
use crate::rules::LosEffect;

const WIDTH: f64 = 1100.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 1070.0;
const TOP: f64 = 70.0;
const BOTTOM: f64 = 400.0;
/// Height of a level-only family's obstacle drawn on its ground, in pixels.
const STRIP: f64 = 8.0;

const EARTH: Rgba = [150, 118, 80, 255];
const HINDER_BG: Rgba = [255, 190, 40, 70];
const BLOCK_BG: Rgba = [230, 50, 40, 60];
const BLIND_BG: Rgba = [70, 70, 100, 80];
const SLOPE: Rgba = [110, 60, 20, 255];
/// The sight line in the colours it has over the map (the report, the editor).
const SEEN: Rgba = style::SIGHT_CLEAR;
const HINDERED: Rgba = style::HINDERED;
const UNSEEN: Rgba = style::SIGHT_BLOCKED;
const INK: Rgba = [30, 30, 30, 255];
const GRID: Rgba = [200, 200, 200, 255];

/// Maps line fractions and levels to pixels.
struct Frame {
    lo: f64,
    hi: f64,
}

impl Frame {
    fn of(p: &Profile) -> Frame {
        let ground = p.stretches.iter().map(|s| s.ground as f64);
        let tops = p.stretches.iter().map(|s| s.top);
        let lo = ground
            .clone()
            .fold(f64::MAX, f64::min)
            .min(p.eye_from.min(p.eye_to));
        let hi = ground
            .chain(tops)
            .fold(f64::MIN, f64::max)
            .max(p.eye_from.max(p.eye_to));
        Frame {
            lo: lo.floor() - 1.0,
            hi: hi.ceil() + 1.0,
        }
    }

    fn x(&self, t: f64) -> f64 {
        LEFT + (RIGHT - LEFT) * t
    }

    fn y(&self, level: f64) -> f64 {
        BOTTOM - (BOTTOM - TOP) * (level - self.lo) / (self.hi - self.lo)
    }

    fn rect(&self, t0: f64, t1: f64, y0: f64, y1: f64, fill: Rgba) -> Poly {
        let (a, b) = (self.x(t0), self.x(t1));
        Poly {
            pts: vec![(a, y0), (b, y0), (b, y1), (a, y1)],
            fill,
        }
    }
}

fn text(s: &mut Scene, at: (f64, f64), size: f64, color: Rgba, t: String, centred: bool) {
    s.texts.push(Text {
        at,
        size,
        color,
        text: t,
        centred,
    });
}

fn line(s: &mut Scene, a: (f64, f64), b: (f64, f64), color: Rgba, width: f64) {
    s.lines.push(Line { a, b, color, width });
}

/// Breaks `t` into lines of at most `width` characters, at spaces.
fn wrap(t: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in t.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    out.push(cur);
    out
}

/// The picture of a profile.
pub fn scene(map: &Map, p: &Profile) -> Scene {
    let f = Frame::of(p);
    let notes = notes(map, p);
    let mut s = Scene {
        width: WIDTH as u32,
        height: (BOTTOM + 95.0 + 17.0 * notes.len() as f64) as u32,
        ..Scene::default()
    };
    grid(&mut s, &f, map, p);
    effects(&mut s, &f, p);
    ground(&mut s, &f, map, p);
    hexsides(&mut s, &f, map, p);
    blind_zone(&mut s, &f, p);
    sight_line(&mut s, &f, map, p);
    labels(&mut s, &f, map, p);
    legend(&mut s);
    for (i, n) in notes.into_iter().enumerate() {
        text(
            &mut s,
            (LEFT, BOTTOM + 100.0 + 17.0 * i as f64),
            12.0,
            INK,
            n,
            false,
        );
    }
    s
}

/// The reason lines under the picture.
fn notes(map: &Map, p: &Profile) -> Vec<String> {
    let first = match &p.los.blocked_by {
        Some(b) => format!("blocked at {}: {}", map.label(b.place.hex()), p.los.reason),
        None => format!("{}: {}", p.los.verdict.as_str(), p.los.reason),
    };
    wrap(&first, 150).into_iter().take(6).collect()
}

/// Title, level lines and distance ticks.
fn grid(s: &mut Scene, f: &Frame, map: &Map, p: &Profile) {
    let (a, b) = (p.los.line.from, p.los.line.to);
    let title = format!(
        "{}: sight line {} -> {}, {}",
        map.name,
        map.label(a),
        map.label(b),
        p.los.verdict.as_str()
    );
    text(s, (LEFT, 28.0), 18.0, INK, title, false);
    let n = a.distance(b);
    let length = match &map.scale {
        Some(sc) => format!(" ({} {})", n as f64 * sc.hex, sc.unit),
        None => String::new(),
    };
    let sub = format!(
        "{} rules; {n} hexes{length}; heights in levels, as the rules read them",
        map.ruleset.name
    );
    text(s, (LEFT, 50.0), 13.0, [80, 80, 80, 255], sub, false);
    for lv in f.lo as i32..=f.hi as i32 {
        let y = f.y(lv as f64);
        line(s, (LEFT, y), (RIGHT, y), GRID, 1.0);
        text(s, (LEFT - 10.0, y + 4.0), 11.0, INK, lv.to_string(), true);
    }
    text(
        s,
        (LEFT - 45.0, TOP - 6.0),
        11.0,
        INK,
        "level".into(),
        false,
    );
    let step = (n / 20).max(1);
    for d in (0..=n).step_by(step as usize) {
        let x = f.x(if n == 0 { 0.0 } else { d as f64 / n as f64 });
        line(s, (x, BOTTOM), (x, BOTTOM + 5.0), INK, 1.0);
        text(s, (x, BOTTOM + 34.0), 11.0, INK, d.to_string(), true);
    }
    let axis = "distance from the observer, in hexes".to_string();
    text(
        s,
        ((LEFT + RIGHT) / 2.0, BOTTOM + 50.0),
        11.0,
        INK,
        axis,
        true,
    );
}

/// Hindering and blocking stretches, shaded behind everything.
fn effects(s: &mut Scene, f: &Frame, p: &Profile) {
    for st in &p.stretches {
        let fill = match st.effect {
            StretchEffect::Clear => continue,
            StretchEffect::Hinder => HINDER_BG,
            StretchEffect::Block => BLOCK_BG,
        };
        let (t0, t1) = (st.start.to_f64(), st.end.to_f64());
        s.polys.push(f.rect(t0, t1, TOP, BOTTOM, fill));
    }
}

/// The colour of the terrain of a stretch's first hex.
fn terrain_colour(map: &Map, h: Hex) -> Rgba {
    map.terrain(h)
        .map_or([200, 200, 200, 255], |t| parse_hex_colour(&t.color))
}

/// True when the terrain of a stretch's hexes acts on sight lines at all (an
/// obstacle or a hindrance), so it is drawn on the ground.
fn has_terrain(map: &Map, s: &Stretch) -> bool {
    s.hexes.iter().any(|&h| {
        map.terrain(h)
            .is_some_and(|t| !matches!(t.los, LosEffect::Clear))
    })
}

/// The top of what is drawn on a stretch, in pixels: what stands there, or a strip
/// for a level-only family's obstacle (which stands at its ground level).
fn surface_y(f: &Frame, map: &Map, st: &Stretch) -> f64 {
    let g = f.y(st.ground as f64);
    if st.top > st.ground as f64 {
        f.y(st.top)
    } else if has_terrain(map, st) {
        g - STRIP
    } else {
        g - 3.0
    }
}

/// The ground steps, what stands on them, slopes and markers.
fn ground(s: &mut Scene, f: &Frame, map: &Map, p: &Profile) {
    for st in &p.stretches {
        let (t0, t1) = (st.start.to_f64(), st.end.to_f64());
        let g = f.y(st.ground as f64);
        let earth = mix(
            EARTH,
            [255, 255, 255, 255],
            (0.08 * (st.ground as f64 - f.lo)).min(0.4),
        );
        s.polys.push(f.rect(t0, t1, g, BOTTOM, earth));
        let top = surface_y(f, map, st);
        let colour = terrain_colour(map, st.hexes[0]);
        s.polys.push(f.rect(t0, t1, top, g, colour));
        if st.slope {
            line(s, (f.x(t0), g), (f.x(t1), g), SLOPE, 4.0);
        }
        let markers: Vec<Rgba> = st
            .hexes
            .iter()
            .flat_map(|&h| map.markers_at(h))
            .map(|m| parse_hex_colour(&map.ruleset.markers[m.kind as usize].color))
            .collect();
        for (i, c) in markers.into_iter().enumerate() {
            s.circles.push(Circle {
                c: (f.x((t0 + t1) / 2.0), top - 9.0 - 12.0 * i as f64),
                r: 5.0,
                fill: c,
                outline: true,
            });
        }
    }
}

/// Hexside features the line crosses, as posts at the crossing.
fn hexsides(s: &mut Scene, f: &Frame, map: &Map, p: &Profile) {
    let post = |s: &mut Scene, a: Hex, b: Hex, t: f64| {
        if let Some(feat) = map.hexside(a, b) {
            let c = parse_hex_colour(&map.ruleset.hexsides[feat.kind as usize].color);
            let y = f.y(map.level(a).max(map.level(b)) as f64);
            line(s, (f.x(t), y), (f.x(t), y - 16.0), c, 5.0);
        }
    };
    for c in p.los.line.side_crossings() {
        match c {
            SideCrossing::One(a, b, at) => post(s, a, b, at.to_f64()),
            SideCrossing::Pair(a, b, c, at) => {
                post(s, a, b, at.to_f64());
                post(s, a, c, at.to_f64());
            }
        }
    }
}

/// The dead ground behind a blocker lower than the observer's eye
/// ([`Profile::dead_ground`]), shaded above the ground.
fn blind_zone(s: &mut Scene, f: &Frame, p: &Profile) {
    let Some(i) = p.dead_ground() else {
        return;
    };
    for st in &p.stretches[i..] {
        let (t0, t1) = (st.start.to_f64(), st.end.to_f64());
        let g = f.y(st.top.max(st.ground as f64));
        s.polys.push(f.rect(t0, t1, TOP, g, BLIND_BG));
    }
}

/// The colour of the sight line over each piece ([`Profile::segments`]).
fn segments(p: &Profile) -> Vec<(f64, f64, Rgba)> {
    p.segments()
        .into_iter()
        .map(|(a, b, state)| {
            let colour = match state {
                Sight::Seen => SEEN,
                Sight::Hindered => HINDERED,
                Sight::Unseen => UNSEEN,
            };
            (a, b, colour)
        })
        .collect()
}

/// The sight line, its ends and the first blocking point.
fn sight_line(s: &mut Scene, f: &Frame, map: &Map, p: &Profile) {
    let at = |t: f64| (f.x(t), f.y(p.sight_at(t)));
    for (t0, t1, colour) in segments(p) {
        line(s, at(t0), at(t1), colour, 2.5);
    }
    if let Some(b) = &p.los.blocked_by {
        let (x, y) = at(b.at.to_f64());
        s.circles.push(Circle {
            c: (x, y),
            r: 6.0,
            fill: UNSEEN,
            outline: true,
        });
        // Below the line near the ends, where the end labels stand above it.
        let label = format!("blocked: {}", map.label(b.place.hex()));
        let (at, centred) = if x - LEFT < 80.0 {
            ((x + 12.0, y + 22.0), false)
        } else if RIGHT - x < 80.0 {
            ((x - 60.0, y + 22.0), true)
        } else {
            ((x, y - 12.0), true)
        };
        text(s, at, 13.0, UNSEEN, label, centred);
    }
    for (t, h) in [(0.0, p.los.line.from), (1.0, p.los.line.to)] {
        s.circles.push(Circle {
            c: at(t),
            r: 5.0,
            fill: INK,
            outline: false,
        });
        let (x, y) = at(t);
        text(s, (x, y - 10.0), 13.0, INK, map.label(h), true);
    }
}

/// The hexes under the stretches wide enough to name.
fn labels(s: &mut Scene, f: &Frame, map: &Map, p: &Profile) {
    let last = p.stretches.len() - 1;
    for (i, st) in p.stretches.iter().enumerate() {
        let name: Vec<String> = st.hexes.iter().map(|&h| map.label(h)).collect();
        let name = name.join("|");
        let (t0, t1) = (st.start.to_f64(), st.end.to_f64());
        let room = f.x(t1) - f.x(t0);
        if room >= 7.5 * name.len() as f64 || i == 0 || i == last {
            let colour = if st.hexes.len() == 2 {
                [90, 90, 90, 255]
            } else {
                INK
            };
            text(
                s,
                (f.x((t0 + t1) / 2.0), BOTTOM + 18.0),
                11.0,
                colour,
                name,
                true,
            );
        }
    }
}

/// What the colours mean, in one row.
fn legend(s: &mut Scene) {
    let items: [(&str, Rgba); 6] = [
        ("ground", EARTH),
        ("hinders", HINDER_BG),
        ("blocks", BLOCK_BG),
        ("blind zone", BLIND_BG),
        ("slope hex (crest)", SLOPE),
        ("hexside feature", [40, 90, 30, 255]),
    ];
    let mut x = LEFT;
    let y = BOTTOM + 64.0;
    for (name, c) in items {
        s.polys.push(Poly {
            pts: vec![(x, y), (x + 14.0, y), (x + 14.0, y + 12.0), (x, y + 12.0)],
            fill: [c[0], c[1], c[2], c[3].max(140)],
        });
        text(s, (x + 19.0, y + 11.0), 12.0, INK, name.into(), false);
        x += 30.0 + 7.0 * name.len() as f64;
    }
    let lines: [(&str, Rgba); 3] = [("seen", SEEN), ("hindered", HINDERED), ("not seen", UNSEEN)];
    for (name, c) in lines {
        line(s, (x, y + 6.0), (x + 22.0, y + 6.0), c, 2.5);
        text(s, (x + 27.0, y + 11.0), 12.0, INK, name.into(), false);
        x += 40.0 + 7.0 * name.len() as f64;
    }
}
