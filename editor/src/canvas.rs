//! Drawing the map and hit-testing the pointer.
//!
//! The drawing is written once against the small [`Surface`] trait, so the
//! screen (egui shapes) and the SVG export draw exactly the same picture.
//! Only hexes inside the visible rectangle are visited, which keeps a
//! 100x100 map smooth at any zoom.

use crate::jobs::JobOutput;
use egui::{Align2, Color32, Pos2, Rect, Shape, Stroke, Vec2, pos2, vec2};
use hexsight_analysis::export::style;
use hexsight_analysis::hex::{Crossing, Hex};
use hexsight_analysis::rules::{Effect, Place};
use hexsight_analysis::{LosResult, Map, Verdict};

/// Zoom limits: hex circumradius in screen points.
pub const MIN_ZOOM: f32 = 2.0;
/// Largest zoom.
pub const MAX_ZOOM: f32 = 160.0;

/// Where the map sits on the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Hex circumradius in points.
    pub zoom: f32,
    /// Screen offset of the map's pixel origin from the canvas's top-left.
    pub pan: Vec2,
}

impl Default for View {
    fn default() -> Self {
        View {
            zoom: 24.0,
            pan: vec2(40.0, 40.0),
        }
    }
}

impl View {
    /// Screen position of a map point (map units: hex circumradius 1).
    pub fn to_screen(&self, origin: Pos2, p: (f64, f64)) -> Pos2 {
        origin + self.pan + vec2(p.0 as f32, p.1 as f32) * self.zoom
    }

    /// Map point under a screen position.
    pub fn to_map(&self, origin: Pos2, s: Pos2) -> (f64, f64) {
        let v = (s - origin - self.pan) / self.zoom;
        (v.x as f64, v.y as f64)
    }

    /// The view that fits the whole map in `size` with a margin.
    /// `left` points on the left are kept free (for the legend).
    pub fn fit(map: &Map, size: Vec2, left: f32) -> View {
        let b = map_bounds(map);
        let margin = 24.0;
        let left = if size.x - left > 300.0 { left } else { 0.0 };
        let avail = (size - vec2(2.0 * margin + left, 2.0 * margin)).max(vec2(10.0, 10.0));
        let zoom = (avail.x / b.width())
            .min(avail.y / b.height())
            .clamp(MIN_ZOOM, MAX_ZOOM);
        let pan = (size + vec2(left, 0.0) - b.size() * zoom) / 2.0 - b.min.to_vec2() * zoom;
        View { zoom, pan }
    }

    /// Zooms by `factor` keeping the map point under `anchor` (canvas-relative) still.
    pub fn zoom_at(&mut self, anchor: Vec2, factor: f32) {
        let new = (self.zoom * factor).clamp(MIN_ZOOM, MAX_ZOOM);
        let k = new / self.zoom;
        self.pan = anchor - (anchor - self.pan) * k;
        self.zoom = new;
    }
}

/// The map's extent in map units (circumradius 1).
pub fn map_bounds(map: &Map) -> Rect {
    let mut r = Rect::NOTHING;
    let (c, rows) = (map.cols as i32, map.rows as i32);
    // The outline is made by the border hexes; that is enough for the box.
    let mut edge = Vec::new();
    for col in 0..c {
        edge.push((col, 0));
        edge.push((col, rows - 1));
        if rows > 1 {
            edge.push((col, 1));
            edge.push((col, rows - 2));
        }
    }
    for row in 0..rows {
        edge.push((0, row));
        edge.push((c - 1, row));
        if c > 1 {
            edge.push((1, row));
            edge.push((c - 2, row));
        }
    }
    for (col, row) in edge {
        for (x, y) in map.layout.corners(map.layout.hex_at(col, row), 1.0) {
            r.extend_with(pos2(x as f32, y as f32));
        }
    }
    r
}

/// The on-map hexes whose centres fall near the screen rectangle.
pub fn visible_hexes(map: &Map, view: &View, origin: Pos2, rect: Rect) -> Vec<Hex> {
    let pad = view.zoom * 1.2;
    let r = rect.expand(pad);
    let (mut c0, mut c1, mut r0, mut r1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for corner in [
        r.left_top(),
        r.right_top(),
        r.left_bottom(),
        r.right_bottom(),
    ] {
        let h = map.layout.hex_at_pixel(view.to_map(origin, corner), 1.0);
        let (c, rr) = map.layout.offset_of(h);
        c0 = c0.min(c);
        c1 = c1.max(c);
        r0 = r0.min(rr);
        r1 = r1.max(rr);
    }
    let (c0, c1) = ((c0 - 1).max(0), (c1 + 1).min(map.cols as i32 - 1));
    let (r0, r1) = ((r0 - 1).max(0), (r1 + 1).min(map.rows as i32 - 1));
    let mut out = Vec::new();
    for col in c0..=c1 {
        for row in r0..=r1 {
            let h = map.layout.hex_at(col, row);
            if r.contains(view.to_screen(origin, map.layout.center(h, 1.0))) {
                out.push(h);
            }
        }
    }
    out
}

/// Somewhere to draw: the screen or an SVG document.
pub trait Surface {
    /// A filled convex polygon with an outline.
    fn polygon(&mut self, pts: &[Pos2], fill: Color32, stroke: Stroke);
    /// An open polyline.
    fn line(&mut self, pts: &[Pos2], stroke: Stroke);
    /// A circle.
    fn circle(&mut self, c: Pos2, r: f32, fill: Color32, stroke: Stroke);
    /// Text of `size` points anchored at `pos`.
    fn text(&mut self, pos: Pos2, anchor: Align2, text: &str, size: f32, color: Color32);
}

/// Draws into egui shapes.
pub struct EguiSurface<'a> {
    /// Used for laying out text.
    pub ctx: &'a egui::Context,
    /// The collected shapes, added to the painter at once.
    pub shapes: Vec<Shape>,
    /// How opaque polygon fills are (below 1 over a background picture, so it shows through).
    pub fill_alpha: f32,
}

impl Surface for EguiSurface<'_> {
    fn polygon(&mut self, pts: &[Pos2], fill: Color32, stroke: Stroke) {
        let fill = fill.gamma_multiply(self.fill_alpha);
        self.shapes
            .push(Shape::convex_polygon(pts.to_vec(), fill, stroke));
    }
    fn line(&mut self, pts: &[Pos2], stroke: Stroke) {
        self.shapes.push(Shape::line(pts.to_vec(), stroke));
    }
    fn circle(&mut self, c: Pos2, r: f32, fill: Color32, stroke: Stroke) {
        self.shapes.push(Shape::circle_filled(c, r, fill));
        if stroke.width > 0.0 {
            self.shapes.push(Shape::circle_stroke(c, r, stroke));
        }
    }
    fn text(&mut self, pos: Pos2, anchor: Align2, text: &str, size: f32, color: Color32) {
        let galley = self.ctx.fonts_mut(|f| {
            f.layout_no_wrap(text.to_string(), egui::FontId::proportional(size), color)
        });
        let rect = anchor.anchor_size(pos, galley.size());
        self.shapes.push(Shape::galley(rect.min, galley, color));
    }
}

/// Writes SVG elements.
#[derive(Default)]
pub struct SvgSurface {
    /// The SVG body.
    pub body: String,
}

fn svg_paint(attr: &str, c: Color32) -> String {
    if c.a() == 0 {
        return format!("{attr}=\"none\"");
    }
    let [r, g, b, a] = c.to_srgba_unmultiplied();
    format!(
        "{attr}=\"rgb({r},{g},{b})\" {attr}-opacity=\"{:.3}\"",
        a as f32 / 255.0
    )
}

fn svg_stroke(s: Stroke) -> String {
    if s.width <= 0.0 || s.color.a() == 0 {
        return "stroke=\"none\"".into();
    }
    format!(
        "{} stroke-width=\"{:.2}\" stroke-linejoin=\"round\" stroke-linecap=\"round\"",
        svg_paint("stroke", s.color),
        s.width
    )
}

fn svg_points(pts: &[Pos2]) -> String {
    pts.iter()
        .map(|p| format!("{:.2},{:.2}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ")
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Surface for SvgSurface {
    fn polygon(&mut self, pts: &[Pos2], fill: Color32, stroke: Stroke) {
        self.body += &format!(
            "<polygon points=\"{}\" {} {}/>\n",
            svg_points(pts),
            svg_paint("fill", fill),
            svg_stroke(stroke)
        );
    }
    fn line(&mut self, pts: &[Pos2], stroke: Stroke) {
        self.body += &format!(
            "<polyline points=\"{}\" fill=\"none\" {}/>\n",
            svg_points(pts),
            svg_stroke(stroke)
        );
    }
    fn circle(&mut self, c: Pos2, r: f32, fill: Color32, stroke: Stroke) {
        self.body += &format!(
            "<circle cx=\"{:.2}\" cy=\"{:.2}\" r=\"{:.2}\" {} {}/>\n",
            c.x,
            c.y,
            r,
            svg_paint("fill", fill),
            svg_stroke(stroke)
        );
    }
    fn text(&mut self, pos: Pos2, anchor: Align2, text: &str, size: f32, color: Color32) {
        let h = match anchor.x() {
            egui::Align::Min => "start",
            egui::Align::Center => "middle",
            egui::Align::Max => "end",
        };
        let dy = match anchor.y() {
            egui::Align::Min => size * 0.8,
            egui::Align::Center => size * 0.35,
            egui::Align::Max => 0.0,
        };
        self.body += &format!(
            "<text x=\"{:.2}\" y=\"{:.2}\" font-family=\"sans-serif\" font-size=\"{:.1}\" text-anchor=\"{h}\" {}>{}</text>\n",
            pos.x,
            pos.y + dy,
            size,
            svg_paint("fill", color),
            xml_escape(text)
        );
    }
}

impl SvgSurface {
    /// The complete SVG document for a `size` canvas.
    pub fn finish(self, size: Vec2, background: Color32) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.2} {h:.2}\">\n<rect width=\"100%\" height=\"100%\" {}/>\n{}</svg>\n",
            svg_paint("fill", background),
            self.body,
            w = size.x,
            h = size.y
        )
    }
}

/// Which overlay to draw from a job result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    /// Hexes the selected hex sees (clear and hindered).
    Viewshed,
    /// Hexes the selected hex does not see.
    Blind,
    /// How many hexes see each hex.
    Exposure,
    /// Miniatures spotting from the selected hex.
    Spotting,
    /// What changed in sight against the saved map (or the map without layers):
    /// per hex, how many more or fewer hexes see it; for the selected hex, the
    /// hexes its viewshed gained and lost.
    Diff,
}

impl Overlay {
    /// Name for menus and legends.
    pub fn name(self) -> &'static str {
        match self {
            Overlay::Viewshed => "Viewshed",
            Overlay::Blind => "Blind hexes",
            Overlay::Exposure => "Exposure",
            Overlay::Spotting => "Spotting",
            Overlay::Diff => "Change in sight",
        }
    }
}

/// Everything one picture of the map needs.
pub struct Scene<'a> {
    /// The map.
    pub map: &'a Map,
    /// Zoom and pan.
    pub view: View,
    /// The canvas rectangle on screen (or the SVG page from 0,0).
    pub rect: Rect,
    /// Show hex labels.
    pub labels: bool,
    /// The overlay and its data (possibly stale: drawn fainter).
    pub overlay: Option<(Overlay, &'a JobOutput, bool)>,
    /// The LOS being shown.
    pub los: Option<&'a LosResult>,
    /// The hex under the pointer.
    pub hover: Option<Hex>,
    /// The selected hex.
    pub selected: Option<Hex>,
    /// Hexes under the brush.
    pub brush: &'a [Hex],
    /// A hexside to highlight (hexside tool).
    pub side: Option<hexsight_analysis::hex::Side>,
}

/// The colour of field-of-view arcs.
pub const ARC: Color32 = Color32::from_rgb(255, 196, 40);

/// Narrowest legend box in points.
pub const LEGEND_WIDTH: f32 = 132.0;

/// The legend's width for this map: wide enough for its longest name.
pub fn legend_width(map: &Map) -> f32 {
    let rs = &map.ruleset;
    let longest = rs
        .terrain
        .iter()
        .map(|t| t.name.chars().count())
        .chain(rs.hexsides.iter().map(|h| h.name.chars().count()))
        .chain(rs.markers.iter().map(|m| m.name.chars().count() + 7))
        .chain([22])
        .max()
        .unwrap_or(0);
    LEGEND_WIDTH.max(38.0 + longest as f32 * 6.0)
}
/// A colour of the library's palette ([`style`]) as egui's. Every colour that
/// carries meaning on the canvas (classes, heat, change, ground) comes from there,
/// so the canvas, its PNG and SVG, the CLI's pictures and the report agree.
pub fn color(c: style::Rgba) -> Color32 {
    Color32::from_rgba_unmultiplied(c[0], c[1], c[2], c[3])
}

/// The library colour of an egui colour (alpha kept).
fn rgba(c: Color32) -> style::Rgba {
    c.to_srgba_unmultiplied()
}

/// The colour a sight line of verdict `v` is drawn in ([`style::sight_line`]).
pub fn sight_color(v: Verdict) -> Color32 {
    color(style::sight_line(v))
}

/// Spotted automatically: the one overlay colour with no counterpart in the
/// library's pictures (they draw no spotting), apart from the heat of the tests.
const SPOT_AUTO: Color32 = Color32::from_rgb(40, 200, 230);

/// How an overlay tints a hex: a colour and how much of the ground it covers. The
/// map and the legend both draw from these, the legend over the map's default
/// ground, so that a swatch looks like the hexes it names.
#[derive(Clone, Copy)]
struct Wash(Color32, f32);

/// The cover of every wash: the library's [`style::OVERLAY`].
const COVER: f32 = style::OVERLAY as f32;

/// A viewshed class: the library's class colour of the verdict.
fn class_wash(v: Verdict) -> Wash {
    Wash(color(style::verdict(v)), COVER)
}

/// A blind hex ([`style::BLIND`]).
fn blind_wash() -> Wash {
    Wash(color(style::BLIND), COVER)
}

/// Not seen, beside the blind hexes (half the cover, so that they stand out).
fn not_seen_beside_blind() -> Wash {
    Wash(color(style::BLOCKED), COVER / 2.0)
}

const SPOTTED: Wash = Wash(SPOT_AUTO, COVER);

/// A spotting test's chance `p` (0 to 1), on the library's heat scale.
fn test_wash(p: f32) -> Wash {
    heat_wash(p)
}

/// A change of exposure as a share `x` of the largest change (-1 to 1), on the
/// library's diverging scale: red where more hexes see it, blue where fewer.
fn change_wash(x: f32) -> Wash {
    Wash(color(style::diverging(f64::from(x))), COVER)
}

/// Exposure, as a share `x` of the most (0 to 1), on the library's heat scale.
fn heat_wash(x: f32) -> Wash {
    Wash(color(style::heat(f64::from(x))), COVER)
}

impl Wash {
    /// The tint drawn over a hex, `fade` times as strong.
    fn tint(self, fade: f32) -> Color32 {
        with_alpha(self.0, self.1 * fade)
    }

    /// The colour of the tint over `ground`.
    fn over(self, ground: Color32) -> Color32 {
        let mix =
            |g: u8, c: u8| (f32::from(g) * (1.0 - self.1) + f32::from(c) * self.1).round() as u8;
        Color32::from_rgb(
            mix(ground.r(), self.0.r()),
            mix(ground.g(), self.0.g()),
            mix(ground.b(), self.0.b()),
        )
    }
}

/// A stable colour for a name without one.
pub fn fallback_color(i: usize) -> Color32 {
    const P: [Color32; 8] = [
        Color32::from_rgb(0xd9, 0xc2, 0x7a),
        Color32::from_rgb(0x4a, 0x7a, 0x3c),
        Color32::from_rgb(0x9a, 0x5b, 0x45),
        Color32::from_rgb(0x8f, 0xb5, 0xa6),
        Color32::from_rgb(0xa8, 0xb8, 0x6a),
        Color32::from_rgb(0x6a, 0x8c, 0xb8),
        Color32::from_rgb(0xb8, 0x8a, 0x6a),
        Color32::from_rgb(0x99, 0x99, 0x99),
    ];
    P[i % P.len()]
}

/// The colour of terrain `i` of the map's ruleset, read as the pictures read it.
pub fn terrain_color(map: &Map, i: usize) -> Color32 {
    color(style::parse_hex_colour(
        &map.ruleset.terrain.get(i).and_then(|t| t.color.clone()),
    ))
}

/// Colour of a hexside kind, read as the pictures read it.
pub fn hexside_color(map: &Map, i: usize) -> Color32 {
    color(style::parse_hex_colour(
        &map.ruleset.hexsides.get(i).and_then(|t| t.color.clone()),
    ))
}

/// Colour of a marker kind, read as the pictures read it.
pub fn marker_color(map: &Map, i: usize) -> Color32 {
    color(style::parse_hex_colour(
        &map.ruleset.markers.get(i).and_then(|t| t.color.clone()),
    ))
}

fn mix(a: Color32, b: Color32, t: f32) -> Color32 {
    color(style::mix(rgba(a), rgba(b), f64::from(t.clamp(0.0, 1.0))))
}

/// The ground colour of a hex of terrain colour `base` at `level`, the map's levels
/// spanning `span` ([`style::level_span`]): the library's [`style::ground`], so a
/// DEM's levels 12 to 54 read as hills as they do in every exported picture.
pub fn shaded(base: Color32, level: i32, span: (i32, i32)) -> Color32 {
    color(style::ground(rgba(base), level, span))
}

/// Colour of a unit's side.
pub fn side_color(side: &str) -> Color32 {
    let s = side.to_ascii_lowercase();
    match s.as_str() {
        "allied" | "allies" | "american" | "us" | "usa" => Color32::from_rgb(0x5e, 0x7d, 0x3a),
        "axis" | "german" | "germany" => Color32::from_rgb(0x5a, 0x6f, 0x85),
        "british" | "uk" => Color32::from_rgb(0xa8, 0x6a, 0x3c),
        "french" | "france" => Color32::from_rgb(0x3b, 0x5b, 0xa5),
        "russian" | "soviet" => Color32::from_rgb(0x9c, 0x3a, 0x32),
        _ => {
            let h = s
                .bytes()
                .fold(7u32, |a, b| a.wrapping_mul(31).wrapping_add(b as u32));
            fallback_color(h as usize + 3)
        }
    }
}

fn with_alpha(c: Color32, a: f32) -> Color32 {
    Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), (a.clamp(0.0, 1.0) * 255.0) as u8)
}

impl Scene<'_> {
    fn origin(&self) -> Pos2 {
        self.rect.min
    }

    fn center(&self, h: Hex) -> Pos2 {
        self.view
            .to_screen(self.origin(), self.map.layout.center(h, 1.0))
    }

    fn corners(&self, h: Hex) -> [Pos2; 6] {
        self.map
            .layout
            .corners(h, 1.0)
            .map(|p| self.view.to_screen(self.origin(), p))
    }

    fn overlay_tint(&self, index: usize) -> Option<Color32> {
        let (kind, out, stale) = self.overlay?;
        let fade = if stale { 0.5 } else { 1.0 };
        match (kind, out) {
            (Overlay::Viewshed, JobOutput::Viewshed(v)) => {
                Some(class_wash(v.get(index)?.verdict).tint(fade))
            }
            (Overlay::Blind, JobOutput::Viewshed(v)) => {
                let seen = v.get(index)?;
                if seen.blind {
                    Some(blind_wash().tint(fade))
                } else if seen.verdict == Verdict::Blocked {
                    Some(not_seen_beside_blind().tint(fade))
                } else {
                    None
                }
            }
            (Overlay::Spotting, JobOutput::Spotting(v)) => {
                let x = v.get(index)?;
                if x.auto {
                    Some(SPOTTED.tint(fade))
                } else if x.los {
                    Some(test_wash(x.p as f32).tint(fade))
                } else {
                    Some(class_wash(Verdict::Blocked).tint(fade))
                }
            }
            (Overlay::Exposure, JobOutput::Exposure(v)) => {
                let max = v.iter().copied().max().unwrap_or(0).max(1);
                let x = *v.get(index)? as f32 / max as f32;
                Some(heat_wash(x).tint(fade))
            }
            (Overlay::Diff, JobOutput::Diff(d)) => {
                let n = *d.seen_by.get(index)?;
                let most = d.seen_by.iter().map(|x| x.abs()).max().unwrap_or(0).max(1);
                (n != 0).then(|| change_wash(n as f32 / most as f32).tint(fade))
            }
            _ => None,
        }
    }

    /// Draws the whole picture.
    pub fn draw(&self, s: &mut impl Surface) {
        let map = self.map;
        let z = self.view.zoom;
        let hexes = visible_hexes(map, &self.view, self.origin(), self.rect);
        let grid = if z >= 5.0 {
            Stroke::new((z / 40.0).clamp(0.5, 1.2), Color32::from_black_alpha(70))
        } else {
            Stroke::NONE
        };

        // Terrain, level shading and overlay tint.
        let span = style::level_span(map);
        for &h in &hexes {
            let (Some(c), Some(i)) = (map.cell(h), map.index(h)) else {
                continue;
            };
            let mut fill = shaded(terrain_color(map, c.terrain as usize), c.level, span);
            if let Some(t) = self.overlay_tint(i) {
                let a = t.a() as f32 / 255.0;
                fill = mix(fill, Color32::from_rgb(t.r(), t.g(), t.b()), a);
            }
            s.polygon(&self.corners(h), fill, grid);
        }

        // Blind hexes are hatched as well as darkened, so they read in print too.
        if let Some((Overlay::Blind, JobOutput::Viewshed(v), _)) = self.overlay {
            let st = Stroke::new(
                (z * 0.05).clamp(0.8, 2.0),
                Color32::from_rgba_unmultiplied(200, 180, 255, 150),
            );
            for &h in &hexes {
                if map.index(h).and_then(|i| v.get(i)).is_some_and(|x| x.blind) {
                    let c = self.corners(h);
                    for t in [0.2f32, 0.5, 0.8] {
                        s.line(&[c[1] + (c[2] - c[1]) * t, c[5] + (c[4] - c[5]) * t], st);
                    }
                }
            }
        }

        // The selected hex's viewshed change: rings round the hexes gained and lost.
        if let Some((Overlay::Diff, JobOutput::Diff(d), _)) = self.overlay {
            let w = (z * 0.08).clamp(1.0, 3.0);
            let on_screen: std::collections::HashSet<Hex> = hexes.iter().copied().collect();
            for v in &d.views {
                let (gained, lost) = (color(style::gained()), color(style::lost()));
                for (changed, col) in [(&v.gained, gained), (&v.lost, lost)] {
                    for h in changed.iter().map(|&j| map.hex_of(j)) {
                        if on_screen.contains(&h) {
                            let ring = Stroke::new(w, col);
                            s.circle(self.center(h), z * 0.55, Color32::TRANSPARENT, ring);
                        }
                    }
                }
            }
        }

        // Crest lines: inside a slope hex, along each side that faces lower ground.
        let crest = Stroke::new(
            (z * 0.09).clamp(1.0, 4.0),
            Color32::from_rgb(0x6b, 0x3e, 0x1c),
        );
        for &h in &hexes {
            let Some(c) = map.cell(h) else { continue };
            if !c.slope {
                continue;
            }
            let ctr = self.center(h);
            let inset = self.corners(h).map(|p| ctr + (p - ctr) * 0.74);
            let lower: Vec<bool> = (0..6)
                .map(|d| map.cell(h.neighbor(d)).is_some_and(|n| n.level < c.level))
                .collect();
            if !lower.iter().any(|x| *x) {
                // A slope with no lower neighbour on the map: show the crest as a ring.
                let mut ring = inset.to_vec();
                ring.push(inset[0]);
                s.line(&ring, Stroke::new(crest.width * 0.6, crest.color));
                continue;
            }
            // Join runs of consecutive lower sides into one polyline.
            let start = (0..6).find(|d| !lower[*d]).unwrap_or(0);
            let mut run: Vec<Pos2> = Vec::new();
            for k in 1..=6 {
                let d = (start + k) % 6;
                if lower[d] {
                    if run.is_empty() {
                        run.push(inset[d]);
                    }
                    run.push(inset[(d + 1) % 6]);
                } else if !run.is_empty() {
                    s.line(&run, crest);
                    run.clear();
                }
            }
            if !run.is_empty() {
                s.line(&run, crest);
            }
        }

        // Hexside features.
        let sw = (z * 0.16).clamp(2.0, 9.0);
        for (side, f) in &map.hexsides {
            if !hexes.contains(&side.a) && !hexes.contains(&side.b) {
                continue;
            }
            let Some(dir) = side.a.direction_to(side.b) else {
                continue;
            };
            let c = self.corners(side.a);
            let (p, q) = (c[dir], c[(dir + 1) % 6]);
            s.line(
                &[p, q],
                Stroke::new(sw + 1.5, Color32::from_black_alpha(90)),
            );
            s.line(
                &[p, q],
                Stroke::new(sw, hexside_color(map, f.kind as usize)),
            );
        }

        // Level numbers and labels.
        if z >= 14.0 {
            let ts = (z * 0.2).clamp(7.0, 13.0);
            for &h in &hexes {
                let Some(c) = map.cell(h) else { continue };
                let ctr = self.center(h);
                let dark = Color32::from_black_alpha(170);
                if self.labels {
                    s.text(
                        ctr - vec2(0.0, z * 0.62),
                        Align2::CENTER_TOP,
                        &map.label(h),
                        ts,
                        dark,
                    );
                }
                if c.level != 0 {
                    s.text(
                        ctr + vec2(0.0, z * 0.6),
                        Align2::CENTER_BOTTOM,
                        &format!("L{}", c.level),
                        ts,
                        dark,
                    );
                }
            }
        }

        // Field-of-view arcs under the counters: every unit's lightly, the selected
        // hex's units' as a wedge.
        if z >= 5.0 {
            self.draw_arcs(s);
        }

        // Markers and units as counters.
        if z >= 7.0 {
            for &h in &hexes {
                self.draw_counters(s, h);
            }
        }

        // Highlights: brush, hover, selection, hexside under the pointer.
        for &h in self.brush {
            s.polygon(
                &self.corners(h),
                Color32::from_white_alpha(50),
                Stroke::new(1.5, Color32::WHITE),
            );
        }
        if let Some(h) = self.hover.filter(|h| map.contains(*h)) {
            s.polygon(
                &self.corners(h),
                Color32::TRANSPARENT,
                Stroke::new(2.0, Color32::from_white_alpha(220)),
            );
        }
        if let Some(h) = self.selected.filter(|h| map.contains(*h)) {
            s.polygon(
                &self.corners(h),
                Color32::TRANSPARENT,
                Stroke::new(3.0, Color32::from_rgb(30, 140, 255)),
            );
        }
        if let Some(side) = self.side
            && let Some(dir) = side.a.direction_to(side.b)
        {
            let c = self.corners(side.a);
            s.line(
                &[c[dir], c[(dir + 1) % 6]],
                Stroke::new(
                    sw.max(4.0),
                    Color32::from_rgba_unmultiplied(30, 140, 255, 200),
                ),
            );
        }

        if let Some(los) = self.los {
            self.draw_los(s, los);
        }
    }

    /// Each unit's field-of-view arc from the library's reading (`query::arc`): the
    /// wedge of `k * 60` degrees about its facing. Units of the selected hex get a
    /// filled wedge six hexes long; the others a short faint outline, so a map full
    /// of facings stays readable. All-round units draw nothing.
    fn draw_arcs(&self, s: &mut impl Surface) {
        use hexsight_analysis::query::arc::{UnitArc, unit_arc};
        let map = self.map;
        let z = self.view.zoom;
        for u in &map.units {
            let UnitArc::Facing(arc, f) = unit_arc(map, u) else {
                continue;
            };
            let k = arc.width();
            if k >= 6 || !map.contains(u.hex) {
                continue;
            }
            let ctr = self.center(u.hex);
            let dir = (self.center(u.hex.neighbor(f)) - ctr).normalized();
            let selected = self.selected == Some(u.hex);
            let spacing = z * 3f32.sqrt();
            let radius = if selected { 6.0 } else { 1.6 } * spacing;
            let half = k as f32 * 30f32.to_radians();
            let steps = (k as usize * 6).max(2);
            let pts: Vec<Pos2> = (0..=steps)
                .map(|i| {
                    let a = -half + 2.0 * half * i as f32 / steps as f32;
                    let (sin, cos) = a.sin_cos();
                    ctr + vec2(dir.x * cos - dir.y * sin, dir.x * sin + dir.y * cos) * radius
                })
                .collect();
            if selected {
                // Convex slices of 60 degrees, so a wedge wider than 180 fills too.
                for w in pts.windows(7).step_by(6) {
                    let mut fan = vec![ctr];
                    fan.extend_from_slice(w);
                    s.polygon(&fan, with_alpha(ARC, 0.14), Stroke::NONE);
                }
            }
            let mut outline = vec![ctr];
            outline.extend(pts);
            outline.push(ctr);
            let (width, alpha) = if selected { (2.0, 0.9) } else { (1.0, 0.4) };
            s.line(&outline, Stroke::new(width, with_alpha(ARC, alpha)));
        }
    }

    fn draw_counters(&self, s: &mut impl Surface, h: Hex) {
        let map = self.map;
        let z = self.view.zoom;
        let ctr = self.center(h);
        let markers: Vec<_> = map.markers_at(h).collect();
        for (k, m) in markers.iter().enumerate() {
            let r = z * 0.27;
            let p = ctr + vec2(z * 0.4 - k as f32 * r * 0.9, -z * 0.28);
            let col = marker_color(map, m.kind as usize);
            s.circle(p, r, col, Stroke::new(1.0, Color32::from_black_alpha(160)));
            if z >= 18.0 {
                let name = map
                    .ruleset
                    .markers
                    .get(m.kind as usize)
                    .map(|x| x.name.as_str())
                    .unwrap_or("?");
                let short: String = name.chars().take(3).collect::<String>().to_uppercase();
                s.text(
                    p,
                    Align2::CENTER_CENTER,
                    &short,
                    (z * 0.18).clamp(6.0, 13.0),
                    Color32::BLACK,
                );
            }
        }
        let units: Vec<_> = map.units_at(h).collect();
        for (k, u) in units.iter().enumerate() {
            let half = z * 0.34;
            let p = ctr
                + vec2(
                    -z * 0.1 + k as f32 * z * 0.12,
                    z * 0.08 + k as f32 * z * 0.1,
                );
            let col = side_color(&u.side);
            let r = Rect::from_center_size(p, vec2(2.0 * half, 2.0 * half));
            let pts = [
                r.left_top(),
                r.right_top(),
                r.right_bottom(),
                r.left_bottom(),
            ];
            s.polygon(&pts, col, Stroke::new(1.2, Color32::from_black_alpha(200)));
            if u.state.eq_ignore_ascii_case("prone") {
                s.line(
                    &[
                        r.left_bottom() + vec2(2.0, -3.0),
                        r.right_bottom() + vec2(-2.0, -3.0),
                    ],
                    Stroke::new(2.0, Color32::WHITE),
                );
            }
            if let Some(f) = u.facing {
                let c = self.corners(h);
                let mid = c[f % 6] + (c[(f + 1) % 6] - c[f % 6]) * 0.5;
                let dir = (mid - ctr).normalized();
                let tip = ctr + (mid - ctr) * 0.92;
                let base = tip - dir * z * 0.22;
                let perp = vec2(-dir.y, dir.x) * z * 0.12;
                s.polygon(
                    &[tip, base + perp, base - perp],
                    Color32::WHITE,
                    Stroke::new(1.0, col),
                );
                if u.state.eq_ignore_ascii_case("crest") {
                    let (a, b) = (c[f % 6], c[(f + 1) % 6]);
                    let (a, b) = (ctr + (a - ctr) * 0.85, ctr + (b - ctr) * 0.85);
                    s.line(&[a, b], Stroke::new((z * 0.08).clamp(1.5, 4.0), col));
                }
            }
            if z >= 16.0 {
                let short: String = u.kind.chars().take(3).collect::<String>().to_uppercase();
                s.text(
                    p,
                    Align2::CENTER_CENTER,
                    if short.is_empty() { "?" } else { &short },
                    (z * 0.2).clamp(6.0, 14.0),
                    Color32::WHITE,
                );
            }
        }
    }

    fn draw_los(&self, s: &mut impl Surface, los: &LosResult) {
        let map = self.map;
        let col = sight_color(los.verdict);
        let z = self.view.zoom;
        // Crossed hexes and hexside stretches.
        for step in &los.line.steps {
            match step.crossing {
                Crossing::Hex(h) if map.contains(h) => {
                    s.polygon(
                        &self.corners(h),
                        with_alpha(col, 0.18),
                        Stroke::new(1.5, with_alpha(col, 0.9)),
                    );
                }
                Crossing::Side(a, b) => {
                    if let Some(dir) = a.direction_to(b) {
                        let c = self.corners(a);
                        s.line(
                            &[c[dir], c[(dir + 1) % 6]],
                            Stroke::new(3.0, with_alpha(col, 0.9)),
                        );
                    }
                }
                _ => {}
            }
        }
        // Events: blockers crossed out, hindrances ringed.
        for e in &los.events {
            let h = e.place.hex();
            let p = match e.place {
                Place::Hexside(a, b) | Place::AlongSide(a, b) => {
                    self.center(a) + (self.center(b) - self.center(a)) * 0.5
                }
                _ => self.center(h),
            };
            let r = z * 0.28;
            match e.effect {
                Effect::Block => {
                    let st = Stroke::new((z * 0.08).clamp(2.0, 4.0), sight_color(Verdict::Blocked));
                    s.line(&[p + vec2(-r, -r), p + vec2(r, r)], st);
                    s.line(&[p + vec2(-r, r), p + vec2(r, -r)], st);
                }
                Effect::Hinder(_) => {
                    s.circle(
                        p,
                        r,
                        Color32::TRANSPARENT,
                        Stroke::new(2.0, sight_color(Verdict::Hindered)),
                    );
                }
            }
        }
        let (a, b) = (self.center(los.line.from), self.center(los.line.to));
        let w = (z * 0.1).clamp(2.0, 4.5);
        s.line(
            &[a, b],
            Stroke::new(w + 2.0, Color32::from_white_alpha(200)),
        );
        s.line(&[a, b], Stroke::new(w, col));
        s.circle(a, w * 1.6, Color32::WHITE, Stroke::new(2.0, col));
        s.circle(b, w * 1.6, col, Stroke::new(2.0, Color32::WHITE));
    }
}

/// Paints a library picture ([`style::Scene`]: the profile's, a map picture's)
/// onto `s` with its top-left corner at `at`, `scale` points per pixel of the
/// picture, as the library's PNG draws it: a white page, then polygons, lines,
/// circles and text.
pub fn paint_scene(s: &mut impl Surface, scene: &style::Scene, at: Pos2, scale: f32) {
    let p = |(x, y): (f64, f64)| at + vec2(x as f32, y as f32) * scale;
    let page = Rect::from_min_size(at, vec2(scene.width as f32, scene.height as f32) * scale);
    s.polygon(
        &[
            page.left_top(),
            page.right_top(),
            page.right_bottom(),
            page.left_bottom(),
        ],
        Color32::WHITE,
        Stroke::NONE,
    );
    for poly in &scene.polys {
        let pts: Vec<Pos2> = poly.pts.iter().map(|&q| p(q)).collect();
        s.polygon(&pts, color(poly.fill), Stroke::NONE);
    }
    for l in &scene.lines {
        let width = (l.width as f32 * scale).max(0.5);
        s.line(&[p(l.a), p(l.b)], Stroke::new(width, color(l.color)));
    }
    for c in &scene.circles {
        let outline = if c.outline {
            Stroke::new(1.5 * scale, Color32::BLACK)
        } else {
            Stroke::NONE
        };
        s.circle(p(c.c), c.r as f32 * scale, color(c.fill), outline);
    }
    for t in &scene.texts {
        // Anchored at the baseline, as the library's PNG sets it.
        let anchor = if t.centred {
            Align2::CENTER_BOTTOM
        } else {
            Align2::LEFT_BOTTOM
        };
        let size = (t.size as f32 * scale).max(1.0);
        s.text(p(t.at), anchor, &t.text, size, color(t.color));
    }
}

/// Draws the legend (terrain colours, hexside features, markers and the
/// overlay's scale) with its top-left corner at `at`.
pub fn draw_legend(s: &mut impl Surface, map: &Map, overlay: Option<Overlay>, at: Pos2) {
    let rs = &map.ruleset;
    let mut rows: Vec<(Color32, bool, String)> = Vec::new();
    for (i, t) in rs.terrain.iter().enumerate() {
        rows.push((terrain_color(map, i), false, t.name.clone()));
    }
    for (i, h) in rs.hexsides.iter().enumerate() {
        rows.push((hexside_color(map, i), true, h.name.clone()));
    }
    for (i, m) in rs.markers.iter().enumerate() {
        rows.push((marker_color(map, i), false, format!("{} marker", m.name)));
    }
    // The ground of the map's default hex, as the map shades it.
    let ground = shaded(
        terrain_color(map, map.default.terrain as usize),
        map.default.level,
        style::level_span(map),
    );
    let washes: Vec<(Wash, &str)> = match overlay {
        Some(Overlay::Viewshed) => vec![
            (class_wash(Verdict::Clear), "seen, clear"),
            (class_wash(Verdict::Hindered), "seen, hindered"),
            (class_wash(Verdict::Blocked), "not seen"),
        ],
        Some(Overlay::Blind) => vec![
            (blind_wash(), "blind hex"),
            (not_seen_beside_blind(), "not seen"),
        ],
        Some(Overlay::Exposure) => vec![
            (heat_wash(1.0), "seen by the most"),
            (heat_wash(0.5), "seen by half as many"),
            (heat_wash(0.0), "seen by none"),
        ],
        Some(Overlay::Diff) => vec![
            (change_wash(1.0), "seen by more hexes"),
            (change_wash(-1.0), "seen by fewer hexes"),
        ],
        Some(Overlay::Spotting) => vec![
            (SPOTTED, "spotted automatically"),
            (test_wash(1.0), "test: sure"),
            (test_wash(0.5), "test: even chance"),
            (test_wash(0.0), "test: no chance"),
            (class_wash(Verdict::Blocked), "out of LOS"),
        ],
        None => Vec::new(),
    };
    for (wash, name) in washes {
        rows.push((wash.over(ground), false, name.into()));
    }
    if overlay == Some(Overlay::Diff) {
        rows.push((
            color(style::gained()),
            true,
            "selected hex sees it now".into(),
        ));
        rows.push((
            color(style::lost()),
            true,
            "selected hex no longer sees it".into(),
        ));
    }
    let line = 15.0;
    let h = rows.len() as f32 * line + 12.0;
    let w = legend_width(map);
    let top = at.y;
    let bg = Rect::from_min_size(pos2(at.x, top), vec2(w, h));
    s.polygon(
        &[
            bg.left_top(),
            bg.right_top(),
            bg.right_bottom(),
            bg.left_bottom(),
        ],
        Color32::from_rgba_unmultiplied(30, 32, 36, 215),
        Stroke::new(1.0, Color32::from_white_alpha(40)),
    );
    for (k, (col, thin, name)) in rows.iter().enumerate() {
        let y = top + 6.0 + k as f32 * line;
        let sw = if *thin {
            Rect::from_min_size(pos2(at.x + 8.0, y + 5.0), vec2(16.0, 4.0))
        } else {
            Rect::from_min_size(pos2(at.x + 8.0, y + 1.0), vec2(16.0, 11.0))
        };
        s.polygon(
            &[
                sw.left_top(),
                sw.right_top(),
                sw.right_bottom(),
                sw.left_bottom(),
            ],
            *col,
            Stroke::new(1.0, Color32::from_black_alpha(150)),
        );
        s.text(
            pos2(at.x + 30.0, y + 6.5),
            Align2::LEFT_CENTER,
            name,
            11.0,
            Color32::from_gray(225),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shading spans the map's own levels: a DEM's 12 to 54 go from the lowest
    /// shade to the lightest, every step a little lighter, as a map of 0 to 2 does;
    /// and each shade is the library's ground colour, as the pictures draw it.
    #[test]
    fn levels_are_shaded_over_the_maps_own_span() {
        let base = Color32::from_rgb(100, 120, 60);
        let light = |c: Color32| u32::from(c.r()) + u32::from(c.g()) + u32::from(c.b());
        for (low, high) in [(12, 54), (0, 2), (-3, 4)] {
            let shades: Vec<u32> = (low..=high)
                .map(|l| light(shaded(base, l, (low, high))))
                .collect();
            assert!(
                shades.windows(2).all(|w| w[0] < w[1]),
                "{low}..{high}: {shades:?}"
            );
            for l in low..=high {
                assert_eq!(
                    rgba(shaded(base, l, (low, high))),
                    style::ground(rgba(base), l, (low, high))
                );
            }
        }
        assert_eq!(
            shaded(base, 7, (7, 7)),
            shaded(base, 0, (0, 0)),
            "a flat map is shaded as its lowest ground"
        );
    }

    /// The canvas's colours that carry meaning are the library's: each verdict's
    /// class and sight line, blind hexes, the heat and diverging scales, gained and
    /// lost; and the legend's swatches are those colours over the ground.
    #[test]
    fn the_canvas_colours_are_the_librarys() {
        for v in [Verdict::Clear, Verdict::Hindered, Verdict::Blocked] {
            assert_eq!(rgba(class_wash(v).0), style::verdict(v));
            assert_eq!(rgba(sight_color(v)), style::sight_line(v));
        }
        assert_eq!(rgba(class_wash(Verdict::Clear).0), style::VISIBLE);
        assert_eq!(rgba(class_wash(Verdict::Hindered).0), style::HINDERED);
        assert_eq!(rgba(class_wash(Verdict::Blocked).0), style::BLOCKED);
        assert_eq!(rgba(blind_wash().0), style::BLIND);
        for x in [0.0f32, 0.25, 0.5, 0.75, 1.0] {
            assert_eq!(rgba(heat_wash(x).0), style::heat(f64::from(x)));
            assert_eq!(rgba(test_wash(x).0), style::heat(f64::from(x)));
            assert_eq!(rgba(change_wash(x).0), style::diverging(f64::from(x)));
            assert_eq!(rgba(change_wash(-x).0), style::diverging(-f64::from(x)));
        }
        assert_eq!(style::gained(), style::diverging(1.0));
        assert_eq!(style::lost(), style::diverging(-1.0));
        for w in [
            class_wash(Verdict::Clear),
            heat_wash(0.3),
            change_wash(-1.0),
        ] {
            assert_eq!(f64::from(w.1), f64::from(style::OVERLAY as f32));
        }
    }

    /// A blank Combat Commander map of `n` x `n` hexes.
    fn blank(n: u32) -> Map {
        let rs = hexsight_analysis::Ruleset::builtin("combat-commander").unwrap();
        Map::new(
            "t",
            "combat-commander",
            std::sync::Arc::new(rs),
            n,
            n,
            hexsight_analysis::hex::Layout::default(),
        )
    }

    /// The legend shows, for each overlay, the library's colours laid over the
    /// map's ground as the hexes are: a viewshed's three classes, the ends of the
    /// heat scale, gained and lost.
    #[test]
    fn the_legend_draws_the_librarys_colours() {
        let map = blank(4);
        let ground = shaded(
            terrain_color(&map, map.default.terrain as usize),
            map.default.level,
            style::level_span(&map),
        );
        let fills = |overlay| {
            let mut s = Fills::default();
            draw_legend(&mut s, &map, Some(overlay), pos2(0.0, 0.0));
            s.0
        };
        let view = fills(Overlay::Viewshed);
        for v in [Verdict::Clear, Verdict::Hindered, Verdict::Blocked] {
            assert!(view.contains(&class_wash(v).over(ground)), "{v:?}");
        }
        let exposure = fills(Overlay::Exposure);
        for x in [0.0, 1.0] {
            assert!(exposure.contains(&heat_wash(x).over(ground)));
        }
        let diff = fills(Overlay::Diff);
        assert!(diff.contains(&color(style::gained())));
        assert!(diff.contains(&color(style::lost())));
    }

    /// A library picture is painted shape for shape: a white page, then each
    /// polygon, line and text of the scene in its colour, scaled.
    #[test]
    fn a_library_scene_is_painted_shape_for_shape() {
        let map = blank(6);
        let (a, b) = (map.hex_of(0), map.hex_of(map.len() - 1));
        let p = hexsight_analysis::query::profile::profile(&map, a, b);
        let scene = hexsight_analysis::export::profile::scene(&map, &p);
        let mut s = Shapes::default();
        paint_scene(&mut s, &scene, pos2(10.0, 20.0), 0.5);
        let (page, polys) = s.polys.split_first().expect("the page");
        assert_eq!(page.1, Color32::WHITE);
        assert_eq!(
            page.0[2],
            pos2(10.0, 20.0) + vec2(scene.width as f32, scene.height as f32) * 0.5
        );
        assert_eq!(polys.len(), scene.polys.len());
        for (got, want) in polys.iter().zip(&scene.polys) {
            assert_eq!(got.1, color(want.fill));
            let (x, y) = want.pts[0];
            assert_eq!(got.0[0], pos2(10.0 + x as f32 * 0.5, 20.0 + y as f32 * 0.5));
        }
        assert_eq!(s.lines.len(), scene.lines.len());
        for (got, want) in s.lines.iter().zip(&scene.lines) {
            assert_eq!(*got, color(want.color));
        }
        let texts: Vec<&str> = scene.texts.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(s.texts, texts);
    }

    /// What a drawing paints: polygons with their fills, line colours, texts.
    #[derive(Default)]
    struct Shapes {
        polys: Vec<(Vec<Pos2>, Color32)>,
        lines: Vec<Color32>,
        texts: Vec<String>,
    }

    impl Surface for Shapes {
        fn polygon(&mut self, pts: &[Pos2], fill: Color32, _: Stroke) {
            self.polys.push((pts.to_vec(), fill));
        }
        fn line(&mut self, _: &[Pos2], stroke: Stroke) {
            self.lines.push(stroke.color);
        }
        fn circle(&mut self, _: Pos2, _: f32, _: Color32, _: Stroke) {}
        fn text(&mut self, _: Pos2, _: Align2, text: &str, _: f32, _: Color32) {
            self.texts.push(text.to_string());
        }
    }

    /// The fills a drawing paints.
    #[derive(Default)]
    struct Fills(Vec<Color32>);

    impl Surface for Fills {
        fn polygon(&mut self, _: &[Pos2], fill: Color32, _: Stroke) {
            self.0.push(fill);
        }
        fn line(&mut self, _: &[Pos2], _: Stroke) {}
        fn circle(&mut self, _: Pos2, _: f32, _: Color32, _: Stroke) {}
        fn text(&mut self, _: Pos2, _: Align2, _: &str, _: f32, _: Color32) {}
    }

    /// A legend swatch is the wash laid over the ground as the map's hexes blend
    /// it: all ground with no cover, all colour with full cover, a weighted mix
    /// between (what egui's blending of the unmultiplied tint gives, to a unit).
    #[test]
    fn a_wash_over_the_ground_mixes_by_its_cover() {
        let ground = Color32::from_rgb(200, 180, 100);
        let c = Color32::from_rgb(0, 255, 40);
        assert_eq!(Wash(c, 0.0).over(ground), ground);
        assert_eq!(Wash(c, 1.0).over(ground), c);
        let mixed = Wash(c, 0.25).over(ground);
        assert_eq!((mixed.r(), mixed.g(), mixed.b()), (150, 199, 85));
        let tint = Wash(c, 0.25).tint(1.0);
        let blend = |g: u8, t: u8| {
            let a = f32::from(tint.a()) / 255.0;
            (f32::from(g) * (1.0 - a) + f32::from(t) * a).round() as i32
        };
        let (r, g, b) = (
            blend(ground.r(), c.r()),
            blend(ground.g(), c.g()),
            blend(ground.b(), c.b()),
        );
        for (want, got) in [(r, mixed.r()), (g, mixed.g()), (b, mixed.b())] {
            assert!((want - i32::from(got)).abs() <= 1, "{want} vs {got}");
        }
    }
}
