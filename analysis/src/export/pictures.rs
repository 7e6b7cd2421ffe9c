//! The pictures of each analysis: which layer, which title, which hexes marked.

use super::style::{
    BLIND, BLOCKED, Circle, HINDERED, Layer, Line, Picture, Rgba, Scene, Text, VISIBLE,
};
use crate::engine::exposure::Exposure;
use crate::engine::viewshed::Viewshed;
use crate::hex::Hex;
use crate::map::Map;
use crate::query::arc::{UnitArc, unit_arc};
use crate::query::deploy::Plan;
use crate::query::spotting::SpotCell;
use crate::query::units::UnitAnswers;
use crate::rules::Verdict;
use crate::rules::miniatures::Activity;
use std::collections::BTreeMap;

/// One observer's viewshed: visible, hindered, blocked, blind.
pub fn viewshed<'a>(map: &'a Map, v: &Viewshed) -> Picture<'a> {
    let class = v
        .targets
        .iter()
        .map(|t| {
            Some(match t.verdict {
                Verdict::Clear => 0,
                Verdict::Hindered => 1,
                Verdict::Blocked if t.blind => 3,
                Verdict::Blocked => 2,
            })
        })
        .collect();
    let count = |k: Verdict| v.count(k);
    let names = vec![
        (format!("visible ({})", count(Verdict::Clear)), VISIBLE),
        (format!("hindered ({})", count(Verdict::Hindered)), HINDERED),
        (
            format!("blocked ({})", count(Verdict::Blocked) - v.blind().len()),
            BLOCKED,
        ),
        (format!("blind hex ({})", v.blind().len()), BLIND),
    ];
    Picture {
        map,
        title: format!(
            "Viewshed of {} ({} ruleset): what it sees; blind = hidden only by lower ground",
            map.label(v.from),
            map.ruleset.name
        ),
        layer: Layer::Classes { class, names },
        marked: vec![v.from],
        zone: Vec::new(),
    }
}

/// A deployment: the chosen hexes ringed, the watched hexes they see and those
/// they miss, the zone they were chosen from outlined.
pub fn deployment<'a>(map: &'a Map, plan: &Plan, zone: &[usize], watch: &[usize]) -> Picture<'a> {
    let mut class = vec![None; map.len()];
    for &j in watch {
        class[j] = Some(1);
    }
    for &j in &plan.seen {
        class[j] = Some(0);
    }
    let names = vec![
        (format!("watched, seen ({})", plan.covered), VISIBLE),
        (
            format!("watched, not seen ({})", plan.of - plan.covered as usize),
            BLOCKED,
        ),
    ];
    let labels: Vec<String> = plan
        .chosen
        .iter()
        .map(|&i| map.label(map.hex_of(i)))
        .collect();
    Picture {
        map,
        title: format!(
            "Deployment ({} ruleset, {}): {} cover {} of {} watched hexes",
            map.ruleset.name,
            plan.method.as_str(),
            labels.join(", "),
            plan.covered,
            plan.of
        ),
        layer: Layer::Classes { class, names },
        marked: plan.chosen.iter().map(|&i| map.hex_of(i)).collect(),
        zone: zone.iter().map(|&i| map.hex_of(i)).collect(),
    }
}

/// A line where one unit can fire at another.
pub(crate) const FIRES: Rgba = [215, 25, 28, 255];
/// A line where one unit only sees another.
pub(crate) const SEES: Rgba = [245, 160, 20, 255];

/// The sides of the map's units, sorted, each once.
pub(crate) fn sides(map: &Map) -> Vec<&str> {
    let mut v: Vec<&str> = map.units.iter().map(|u| u.side.as_str()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The colour of a side among `sides`.
pub(crate) fn side_colour(sides: &[&str], side: &str) -> Rgba {
    let k = sides.iter().position(|s| *s == side).unwrap_or(0);
    [
        [33, 102, 172, 255],
        [25, 25, 25, 255],
        [27, 120, 55, 255],
        [118, 42, 131, 255],
    ][k % 4]
}

/// The units' network over the map: a line between two units of different sides
/// where one can fire at the other (red) or only sees it (amber), each unit a dot
/// in its side's colour with its id.
pub fn network(map: &Map, pairs: &[(usize, usize, UnitAnswers)]) -> Scene {
    let sides = sides(map);
    let side_colour = |side: &str| side_colour(&sides, side);
    let mut names: Vec<(String, Rgba)> = vec![
        ("can fire (either way)".into(), FIRES),
        ("sees, cannot fire".into(), SEES),
    ];
    names.extend(sides.iter().map(|s| (format!("side {s}"), side_colour(s))));
    let picture = Picture {
        map,
        title: format!(
            "Who sees and can fire at whom: {} units ({} ruleset)",
            map.units.len(),
            map.ruleset.name
        ),
        layer: Layer::Classes {
            class: vec![None; map.len()],
            names,
        },
        marked: Vec::new(),
        zone: Vec::new(),
    };
    let mut scene = picture.scene();
    // One line per unordered pair: red when either can fire, amber when either sees.
    let mut best: BTreeMap<(usize, usize), Rgba> = BTreeMap::new();
    for (i, j, a) in pairs {
        let colour = if a.fires.ok {
            FIRES
        } else if a.sees.ok {
            SEES
        } else {
            continue;
        };
        let e = best.entry(((*i).min(*j), (*i).max(*j))).or_insert(colour);
        if colour == FIRES {
            *e = FIRES;
        }
    }
    let centre = |i: usize| picture.centre(map.units[i].hex);
    for ((i, j), colour) in best {
        let ((a, size), (b, _)) = (centre(i), centre(j));
        scene.lines.push(Line {
            a,
            b,
            color: colour,
            width: (size * 0.12).clamp(1.5, 3.5),
        });
    }
    // Field-of-view arcs: the two boundary rays, a hex and a half long, in the side's
    // colour, and a short stub along the facing (a 3-hexside arc's rays are one
    // straight line: the stub says which half is in front).
    for u in &map.units {
        let UnitArc::Facing(arc, f) = unit_arc(map, u) else {
            continue;
        };
        if arc.width() >= 6 {
            continue;
        }
        let ((x, y), size) = picture.centre(u.hex);
        let ((nx, ny), _) = picture.centre(u.hex.neighbor(f));
        let (dx, dy) = (nx - x, ny - y);
        let half = (arc.width() as f64 * 30.0).to_radians();
        for (a, len) in [(-half, 1.5), (half, 1.5), (0.0, 0.6)] {
            let (sin, cos) = a.sin_cos();
            scene.lines.push(Line {
                a: (x, y),
                b: (
                    x + len * (dx * cos - dy * sin),
                    y + len * (dx * sin + dy * cos),
                ),
                color: side_colour(&u.side),
                width: (size * 0.06).clamp(1.0, 2.0),
            });
        }
    }
    // Units stacked in one hex: dots side by side, ids one under another.
    let mut stacks: BTreeMap<Hex, Vec<usize>> = BTreeMap::new();
    for (i, u) in map.units.iter().enumerate() {
        stacks.entry(u.hex).or_default().push(i);
    }
    for stack in stacks.values() {
        let ((x, y), size) = centre(stack[0]);
        let (r, fs) = ((size * 0.25).max(3.0), (size * 0.36).clamp(8.0, 12.0));
        let mid = (stack.len() - 1) as f64 / 2.0;
        for (k, &i) in stack.iter().enumerate() {
            let u = &map.units[i];
            scene.circles.push(Circle {
                c: (x + (k as f64 - mid) * r * 1.7, y),
                r,
                fill: side_colour(&u.side),
                outline: true,
            });
            scene.texts.push(Text {
                at: (x, y + size * 0.62 + k as f64 * fs * 1.2),
                size: fs,
                color: [20, 20, 20, 255],
                text: u.id.clone(),
                centred: true,
            });
        }
    }
    scene
}

/// How many hexes each hex sees (of the `to` zone).
pub fn sees<'a>(map: &'a Map, e: &Exposure) -> Picture<'a> {
    counts(map, &e.to, &e.sees, |what| {
        (
            format!(
                "How many {what} each hex sees ({} ruleset)",
                map.ruleset.name
            ),
            format!("{what} seen"),
        )
    })
}

/// How many hexes see each hex (of the `from` zone).
pub fn seen_by<'a>(map: &'a Map, e: &Exposure) -> Picture<'a> {
    counts(map, &e.from, &e.seen_by, |what| {
        (
            format!(
                "How many {what} see each hex: dark = hidden ({} ruleset)",
                map.ruleset.name
            ),
            format!("seen by ({what})"),
        )
    })
}

/// A count per hex over a zone, the zone outlined unless it is the whole map;
/// `words` gives the title and caption for what is counted.
fn counts<'a>(
    map: &'a Map,
    zone: &[usize],
    values: &[u32],
    words: impl Fn(&str) -> (String, String),
) -> Picture<'a> {
    let outline: Vec<Hex> = if zone.len() == map.len() {
        Vec::new()
    } else {
        zone.iter().map(|&i| map.hex_of(i)).collect()
    };
    let what = if outline.is_empty() {
        "hexes"
    } else {
        "hexes of the outlined zone"
    };
    let (title, caption) = words(what);
    Picture {
        map,
        title,
        layer: scale(values, zone.len(), caption),
        marked: Vec::new(),
        zone: outline,
    }
}

fn scale(values: &[u32], _of: usize, caption: String) -> Layer {
    let max = values.iter().copied().max().unwrap_or(0).max(1) as f64;
    Layer::Scale {
        values: values.iter().map(|&v| Some(v as f64)).collect(),
        min: 0.0,
        max,
        caption,
    }
}

/// One observer's spotting map: the chance that one spotting test spots a target in each
/// hex (1 where it is spotted automatically; uncoloured out of LOS).
pub fn spotting<'a>(
    map: &'a Map,
    from: Hex,
    cells: &[SpotCell],
    activity: Activity,
) -> Picture<'a> {
    let what = match activity {
        Activity::Still => "a still target",
        Activity::Moving => "a moving or firing target",
    };
    Picture {
        map,
        title: format!(
            "Spotting from {}: chance one test spots {what} (1 = spotted automatically; uncoloured = out of LOS)",
            map.label(from)
        ),
        layer: Layer::Scale {
            values: cells
                .iter()
                .map(|c| c.los.then_some(if c.auto { 1.0 } else { c.p_spot }))
                .collect(),
            min: 0.0,
            max: 1.0,
            caption: "chance to spot".into(),
        },
        marked: vec![from],
        zone: Vec::new(),
    }
}

/// A before/after change per hex (`seen_by` or `sees` of a [`crate::engine::diff::Diff`]),
/// diverging around zero: red where more, blue where fewer, untouched hexes bare.
pub fn diff<'a>(map: &'a Map, change: &[i64], caption: &str, title: String) -> Picture<'a> {
    let limit = change
        .iter()
        .map(|v| v.unsigned_abs())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    Picture {
        map,
        title,
        layer: Layer::Diverging {
            values: change
                .iter()
                .map(|&v| (v != 0).then_some(v as f64))
                .collect(),
            limit,
            caption: caption.to_string(),
        },
        marked: Vec::new(),
        zone: Vec::new(),
    }
}

/// Lowest visible heights from one observer on the heat scale (0 to the limit);
/// hexes seen at no height up to the limit stay bare.
pub fn min_height<'a>(map: &'a Map, from: Hex, heights: &[Option<u32>], up_to: u32) -> Picture<'a> {
    Picture {
        map,
        title: format!(
            "Lowest target height {} sees, in levels above each hex's ground ({} ruleset); bare: none up to {up_to}",
            map.label(from),
            map.ruleset.name
        ),
        layer: Layer::Scale {
            values: heights.iter().map(|h| h.map(f64::from)).collect(),
            min: 0.0,
            max: f64::from(up_to.max(1)),
            caption: "lowest visible height (levels)".into(),
        },
        marked: vec![from],
        zone: Vec::new(),
    }
}
