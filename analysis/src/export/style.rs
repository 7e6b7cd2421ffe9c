//! One picture, two outputs: a [`Scene`] of hexes, lines, text and a legend,
//! built once from a map and a layer of values, then rasterised ([`super::png`])
//! or written as vectors ([`super::svg`]). The CLI, the report and the editor
//! use the same colour map and legend, so they all draw the same picture.
//!
//! The terrain stays visible under the data: each hex is its terrain colour,
//! lightened with its level, and the layer is laid over it half-transparent;
//! level changes are drawn as contour lines, hexside features as thick lines.

use crate::hex::Hex;
use crate::map::Map;
use crate::rules::Verdict;

/// An RGBA colour.
pub type Rgba = [u8; 4];

/// The perceptual colour map of every heatmap (viridis: dark blue to yellow).
pub fn heat(t: f64) -> Rgba {
    let c = colorous::VIRIDIS.eval_continuous(t.clamp(0.0, 1.0));
    [c.r, c.g, c.b, 255]
}

/// The diverging colour map of every before/after picture: `t` from -1 (blue, less)
/// through 0 (white) to 1 (red, more).
pub fn diverging(t: f64) -> Rgba {
    let c = colorous::RED_BLUE.eval_continuous((0.5 - t.clamp(-1.0, 1.0) / 2.0).clamp(0.0, 1.0));
    [c.r, c.g, c.b, 255]
}

/// Colours of the viewshed classes.
pub const VISIBLE: Rgba = [253, 231, 37, 255];
/// Hindered: the middle of the same map, so "less visible" reads as "darker".
pub const HINDERED: Rgba = [33, 145, 140, 255];
/// Blocked.
pub const BLOCKED: Rgba = [68, 1, 84, 255];
/// Blind hexes: blocked, but only by something lower than the observer.
pub const BLIND: Rgba = [230, 85, 13, 255];

/// The viewshed class colour of a verdict: [`VISIBLE`], [`HINDERED`] or [`BLOCKED`].
pub fn verdict(v: Verdict) -> Rgba {
    match v {
        Verdict::Clear => VISIBLE,
        Verdict::Hindered => HINDERED,
        Verdict::Blocked => BLOCKED,
    }
}

/// A clear sight line drawn over the map (dark, as yellow would not read on the ground).
pub const SIGHT_CLEAR: Rgba = [26, 26, 26, 255];
/// A blocked sight line, and the cross on its blocker.
pub const SIGHT_BLOCKED: Rgba = [200, 30, 30, 255];

/// The colour a sight line of verdict `v` is drawn in over the map (the report's
/// line to the pointed hex, the editor's line of sight): a hindered line in the
/// class colour [`HINDERED`].
pub fn sight_line(v: Verdict) -> Rgba {
    match v {
        Verdict::Clear => SIGHT_CLEAR,
        Verdict::Hindered => HINDERED,
        Verdict::Blocked => SIGHT_BLOCKED,
    }
}

/// Hexes a viewshed gained in a before/after change: the top of [`diverging`].
pub fn gained() -> Rgba {
    diverging(1.0)
}

/// Hexes a viewshed lost in a before/after change: the bottom of [`diverging`].
pub fn lost() -> Rgba {
    diverging(-1.0)
}

/// What is laid over the terrain.
#[derive(Clone, Debug)]
pub enum Layer {
    /// A number per hex on a continuous scale from `min` to `max` (`None`: no value).
    Scale {
        /// Value per map hex, in index order.
        values: Vec<Option<f64>>,
        /// Bottom of the scale.
        min: f64,
        /// Top of the scale.
        max: f64,
        /// What the numbers are (`hexes seen`).
        caption: String,
    },
    /// A change per hex on a scale diverging around zero, from `-limit` to `limit`
    /// (a before/after difference): blue below zero, red above, white at zero.
    Diverging {
        /// Value per map hex, in index order (`None`: no value).
        values: Vec<Option<f64>>,
        /// The largest change shown at full colour (positive).
        limit: f64,
        /// What the numbers are (`change in observers that see the hex`).
        caption: String,
    },
    /// A class per hex, with the classes' names and colours.
    Classes {
        /// Class index per map hex (`None`: nothing laid over).
        class: Vec<Option<usize>>,
        /// Name and colour of each class.
        names: Vec<(String, Rgba)>,
    },
}

/// A filled polygon.
#[derive(Clone, Debug)]
pub struct Poly {
    /// Corners in pixels.
    pub pts: Vec<(f64, f64)>,
    /// Fill colour.
    pub fill: Rgba,
}

/// A straight stroke.
#[derive(Clone, Debug)]
pub struct Line {
    /// Start.
    pub a: (f64, f64),
    /// End.
    pub b: (f64, f64),
    /// Colour.
    pub color: Rgba,
    /// Width in pixels.
    pub width: f64,
}

/// A piece of text, anchored at its left (or centre) baseline.
#[derive(Clone, Debug)]
pub struct Text {
    /// Anchor.
    pub at: (f64, f64),
    /// Height in pixels.
    pub size: f64,
    /// Colour.
    pub color: Rgba,
    /// Text.
    pub text: String,
    /// Centred on `at` rather than starting there.
    pub centred: bool,
}

/// A circle (markers, observers).
#[derive(Clone, Debug)]
pub struct Circle {
    /// Centre.
    pub c: (f64, f64),
    /// Radius.
    pub r: f64,
    /// Fill.
    pub fill: Rgba,
    /// Outline (black, 1.5 px) if set.
    pub outline: bool,
}

/// Everything a picture holds, in drawing order (polygons, lines, circles, text).
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Hexes and legend swatches.
    pub polys: Vec<Poly>,
    /// Contours, hexsides, outlines.
    pub lines: Vec<Line>,
    /// Markers and observers.
    pub circles: Vec<Circle>,
    /// Labels, title, legend.
    pub texts: Vec<Text>,
}

/// What to draw: a layer over a map, a title, and hexes to mark.
pub struct Picture<'a> {
    /// The map.
    pub map: &'a Map,
    /// The title (the map's name is added).
    pub title: String,
    /// The data.
    pub layer: Layer,
    /// Hexes to mark with a ring (observers, key hexes).
    pub marked: Vec<Hex>,
    /// Hexes of a zone, outlined.
    pub zone: Vec<Hex>,
}

/// A `#rrggbb` colour of a ruleset (light grey when unset or unreadable).
pub fn parse_hex_colour(s: &Option<String>) -> Rgba {
    let s = s.as_deref().unwrap_or("#c8c8c8").trim_start_matches('#');
    let v = u32::from_str_radix(s, 16).unwrap_or(0xc8c8c8);
    [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255]
}

/// `a` mixed with `b`, `t` of the way (0: `a`, 1: `b`); opaque.
pub fn mix(a: Rgba, b: Rgba, t: f64) -> Rgba {
    let m = |x: u8, y: u8| (x as f64 * (1.0 - t) + y as f64 * t).round() as u8;
    [m(a[0], b[0]), m(a[1], b[1]), m(a[2], b[2]), 255]
}

/// How strongly a layer's colour covers the ground under it (0: not at all, 1: hidden).
pub const OVERLAY: f64 = 0.68;

/// The map's lowest and highest level (`(0, 0)` for a map without cells).
pub fn level_span(map: &Map) -> (i32, i32) {
    let (lo, hi) = map.cells().iter().fold((i32::MAX, i32::MIN), |(a, b), c| {
        (a.min(c.level), b.max(c.level))
    });
    if lo > hi { (0, 0) } else { (lo, hi) }
}

/// The ground colour of a hex of `terrain` colour at `level`, the map's levels
/// spanning `(lmin, lmax)` ([`level_span`]): the terrain's colour, a little darker,
/// lightened with its level.
pub fn ground(terrain: Rgba, level: i32, (lmin, lmax): (i32, i32)) -> Rgba {
    let span = (lmax - lmin).max(1) as f64;
    let lift = (level - lmin) as f64 / span;
    mix(
        mix(terrain, [40, 40, 40, 255], 0.25),
        [255, 255, 255, 255],
        0.55 * lift,
    )
}

/// The ground colour of each hex, in index order: its terrain's colour, a little
/// darker, lightened with its level, as every picture draws the ground.
pub fn ground_colours(map: &Map) -> Vec<Rgba> {
    let span = level_span(map);
    map.cells()
        .iter()
        .map(|c| {
            let terrain = parse_hex_colour(&map.ruleset.terrain[c.terrain as usize].color);
            ground(terrain, c.level, span)
        })
        .collect()
}

/// Hex size (circumradius in pixels) that fits the map into about `target` pixels wide.
fn hex_size(map: &Map, target: f64) -> f64 {
    let k = 3f64.sqrt();
    let width_units = match map.layout.orientation {
        crate::hex::Orientation::Flat => 1.5 * map.cols as f64 + 0.5,
        crate::hex::Orientation::Pointy => k * (map.cols as f64 + 0.5),
    };
    (target / width_units).clamp(3.0, 34.0)
}

const LEGEND_W: f64 = 320.0;
const TITLE_H: f64 = 54.0;
const MARGIN: f64 = 12.0;

/// Where a map's hexes land in its picture: their size and the map's extent.
struct Placement {
    size: f64,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Placement {
    fn of(map: &Map) -> Placement {
        let size = hex_size(map, 1100.0);
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for h in map.hexes() {
            for (x, y) in map.layout.corners(h, size) {
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x);
                y1 = y1.max(y);
            }
        }
        Placement {
            size,
            x0,
            y0,
            x1,
            y1,
        }
    }

    /// A point of the layout (at [`Placement::size`]) in the picture's pixels.
    fn at(&self, p: (f64, f64)) -> (f64, f64) {
        (p.0 + MARGIN - self.x0, p.1 + TITLE_H - self.y0)
    }
}

impl Picture<'_> {
    /// Where the centre of hex `h` lands in [`Picture::scene`], in pixels, and the
    /// hexes' size there (for drawing over the picture).
    pub fn centre(&self, h: Hex) -> ((f64, f64), f64) {
        let p = Placement::of(self.map);
        (p.at(self.map.layout.center(h, p.size)), p.size)
    }

    /// Builds the scene.
    pub fn scene(&self) -> Scene {
        let map = self.map;
        let place = Placement::of(map);
        let (size, x0, y0, x1, y1) = (place.size, place.x0, place.y0, place.x1, place.y1);
        let at = |p: (f64, f64)| place.at(p);
        let map_h = y1 - y0;
        let mut s = Scene {
            width: (x1 - x0 + 2.0 * MARGIN + LEGEND_W).ceil() as u32,
            height: (map_h + TITLE_H + MARGIN).max(TITLE_H + 360.0).ceil() as u32,
            ..Scene::default()
        };
        s.polys.push(Poly {
            pts: vec![
                (0.0, 0.0),
                (s.width as f64, 0.0),
                (s.width as f64, s.height as f64),
                (0.0, s.height as f64),
            ],
            fill: [250, 250, 247, 255],
        });
        let rs = &map.ruleset;
        let (lmin, lmax) = level_span(map);
        let ground = ground_colours(map);
        // Terrain, lightened with height, under a half-transparent layer.
        for (i, h) in map.hexes().enumerate() {
            let c = map.cells()[i];
            let terrain = parse_hex_colour(&rs.terrain[c.terrain as usize].color);
            let base = ground[i];
            let over = match &self.layer {
                Layer::Scale {
                    values, min, max, ..
                } => values[i].map(|v| {
                    heat(if max > min {
                        (v - min) / (max - min)
                    } else {
                        1.0
                    })
                }),
                Layer::Diverging { values, limit, .. } => {
                    values[i].map(|v| diverging(v / limit.max(f64::MIN_POSITIVE)))
                }
                Layer::Classes { class, names } => class[i].map(|k| names[k].1),
            };
            let fill = match over {
                Some(o) => mix(base, o, OVERLAY),
                None => base,
            };
            s.polys.push(Poly {
                pts: map.layout.corners(h, size).iter().map(|&p| at(p)).collect(),
                fill,
            });
            // Terrain other than the first (open ground) keeps a pip of its own colour.
            if c.terrain != 0 && size >= 6.0 {
                let (cx, cy) = map.layout.center(h, size);
                let pts = map
                    .layout
                    .corners(h, size)
                    .iter()
                    .map(|&(x, y)| at((cx + (x - cx) * 0.32, cy + (y - cy) * 0.32 + size * 0.12)))
                    .collect();
                s.polys.push(Poly { pts, fill: terrain });
            }
        }
        // Hex grid, level contours and hexside features.
        let grid = [0, 0, 0, 40];
        for h in map.hexes() {
            let corners = map.layout.corners(h, size);
            let level = map.level(h);
            for dir in 0..6 {
                let n = h.neighbor(dir);
                let (a, b) = (at(corners[dir]), at(corners[(dir + 1) % 6]));
                let other = map.cell(n).map(|c| c.level);
                if other.is_some_and(|l| l < level) {
                    s.lines.push(Line {
                        a,
                        b,
                        color: [60, 35, 10, 230],
                        width: (size / 7.0).clamp(1.2, 3.0),
                    });
                } else if other.is_none() || h < n {
                    s.lines.push(Line {
                        a,
                        b,
                        color: grid,
                        width: 0.8,
                    });
                }
            }
        }
        for (side, f) in &map.hexsides {
            let Some(dir) = side.a.direction_to(side.b) else {
                continue;
            };
            let corners = map.layout.corners(side.a, size);
            let color = parse_hex_colour(&rs.hexsides[f.kind as usize].color);
            s.lines.push(Line {
                a: at(corners[dir]),
                b: at(corners[(dir + 1) % 6]),
                color,
                width: (size / 4.5).clamp(1.5, 5.0),
            });
        }
        for m in &map.markers {
            let c = at(map.layout.center(m.hex, size));
            let color = parse_hex_colour(&rs.markers[m.kind as usize].color);
            s.circles.push(Circle {
                c: (c.0 + size * 0.45, c.1 + size * 0.35),
                r: (size * 0.22).max(2.0),
                fill: color,
                outline: true,
            });
        }
        for h in &self.zone {
            let corners = map.layout.corners(*h, size);
            for dir in 0..6 {
                let n = h.neighbor(dir);
                if !self.zone.contains(&n) {
                    s.lines.push(Line {
                        a: at(corners[dir]),
                        b: at(corners[(dir + 1) % 6]),
                        color: [220, 30, 30, 255],
                        width: 2.2,
                    });
                }
            }
        }
        for h in &self.marked {
            let c = at(map.layout.center(*h, size));
            s.circles.push(Circle {
                c,
                r: (size * 0.38).max(3.5),
                fill: [255, 255, 255, 255],
                outline: true,
            });
            s.circles.push(Circle {
                c,
                r: (size * 0.18).max(1.8),
                fill: [220, 30, 30, 255],
                outline: false,
            });
        }
        // Labels where they are legible.
        if size >= 15.0 {
            let fs = (size * 0.42).min(12.0);
            for h in map.hexes() {
                let (x, y) = at(map.layout.center(h, size));
                s.texts.push(Text {
                    at: (x, y - size * 0.48),
                    size: fs,
                    color: [20, 20, 20, 200],
                    text: map.label(h),
                    centred: true,
                });
            }
        }
        s.texts.push(Text {
            at: (MARGIN, 24.0),
            size: 20.0,
            color: [20, 20, 20, 255],
            text: map.name.clone(),
            centred: false,
        });
        s.texts.push(Text {
            at: (MARGIN, 44.0),
            size: 14.0,
            color: [70, 70, 70, 255],
            text: self.title.clone(),
            centred: false,
        });
        self.legend(&mut s, x1 - x0 + 2.0 * MARGIN, lmin, lmax);
        s
    }

    fn legend(&self, s: &mut Scene, left: f64, lmin: i32, lmax: i32) {
        let x = left + 8.0;
        let mut y = TITLE_H + 8.0;
        let text = |s: &mut Scene, x: f64, y: f64, size: f64, t: String| {
            s.texts.push(Text {
                at: (x, y),
                size,
                color: [30, 30, 30, 255],
                text: t,
                centred: false,
            })
        };
        match &self.layer {
            Layer::Scale {
                min, max, caption, ..
            } => y = colour_bar(s, x, y, (*min, *max), caption, &heat),
            Layer::Diverging { limit, caption, .. } => {
                let colour = |t: f64| diverging(2.0 * t - 1.0);
                y = colour_bar(s, x, y, (-limit, *limit), caption, &colour)
            }
            Layer::Classes { names, .. } => {
                for (name, c) in names {
                    s.polys.push(Poly {
                        pts: vec![(x, y), (x + 18.0, y), (x + 18.0, y + 14.0), (x, y + 14.0)],
                        fill: *c,
                    });
                    text(s, x + 24.0, y + 12.0, 13.0, name.clone());
                    y += 20.0;
                }
                y += 8.0;
            }
        }
        text(
            s,
            x,
            y,
            12.0,
            format!("ground: levels {lmin} to {lmax} (lighter = higher)"),
        );
        y += 15.0;
        text(
            s,
            x,
            y,
            12.0,
            "brown edges: slope down to a lower hex".into(),
        );
        y += 15.0;
        let rs = &self.map.ruleset;
        for t in &rs.terrain {
            if self
                .map
                .cells()
                .iter()
                .any(|c| rs.terrain[c.terrain as usize].id == t.id)
            {
                let c = parse_hex_colour(&t.color);
                s.polys.push(Poly {
                    pts: vec![
                        (x, y - 9.0),
                        (x + 12.0, y - 9.0),
                        (x + 12.0, y + 1.0),
                        (x, y + 1.0),
                    ],
                    fill: c,
                });
                text(
                    s,
                    x + 18.0,
                    y,
                    12.0,
                    if t.name.is_empty() {
                        t.id.clone()
                    } else {
                        t.name.clone()
                    },
                );
                y += 15.0;
            }
        }
        if !self.marked.is_empty() {
            s.circles.push(Circle {
                c: (x + 6.0, y - 4.0),
                r: 5.0,
                fill: [220, 30, 30, 255],
                outline: true,
            });
            let what = if self.marked.len() == 1 {
                "observer".to_string()
            } else {
                "key hexes".to_string()
            };
            text(s, x + 18.0, y, 12.0, what);
            y += 15.0;
        }
        if !self.zone.is_empty() {
            s.lines.push(Line {
                a: (x, y - 4.0),
                b: (x + 12.0, y - 4.0),
                color: [220, 30, 30, 255],
                width: 2.2,
            });
            text(s, x + 18.0, y, 12.0, "zone".into());
        }
    }
}

/// A legend's colour bar from `min` (bottom) to `max` (top) with its caption and
/// ticks, `colour` giving the colour at a fraction of the way up; returns the `y`
/// below it.
fn colour_bar(
    s: &mut Scene,
    x: f64,
    mut y: f64,
    (min, max): (f64, f64),
    caption: &str,
    colour: &dyn Fn(f64) -> Rgba,
) -> f64 {
    let text = |s: &mut Scene, x: f64, y: f64, size: f64, t: String| {
        s.texts.push(Text {
            at: (x, y),
            size,
            color: [30, 30, 30, 255],
            text: t,
            centred: false,
        })
    };

    text(s, x, y + 4.0, 14.0, caption.to_string());
    y += 14.0;
    let (bw, bh) = (24.0, 200.0);
    let steps = 64;
    for k in 0..steps {
        let t0 = k as f64 / steps as f64;
        let t1 = (k + 1) as f64 / steps as f64;
        // Top of the bar is the maximum.
        let (ya, yb) = (y + bh * (1.0 - t1), y + bh * (1.0 - t0));
        s.polys.push(Poly {
            pts: vec![(x, ya), (x + bw, ya), (x + bw, yb), (x, yb)],
            fill: colour((t0 + t1) / 2.0),
        });
    }
    let ticks = 5;
    for k in 0..=ticks {
        let t = k as f64 / ticks as f64;
        let v = min + (max - min) * t;
        let ty = y + bh * (1.0 - t);
        s.lines.push(Line {
            a: (x + bw, ty),
            b: (x + bw + 5.0, ty),
            color: [30, 30, 30, 255],
            width: 1.0,
        });
        let label = if (max - min).abs() >= 10.0 || v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        };
        text(s, x + bw + 8.0, ty + 4.0, 12.0, label);
    }
    y += bh + 24.0;
    y
}
