//! Writes a [`Scene`] as SVG, the same picture as the PNG, for publishing.

use super::style::{Rgba, Scene};
use std::fmt::Write;

fn colour(c: Rgba) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn opacity(c: Rgba) -> String {
    if c[3] == 255 {
        String::new()
    } else {
        format!(" opacity=\"{:.3}\"", c[3] as f64 / 255.0)
    }
}

/// Escapes text for XML.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG document.
pub fn svg_string(scene: &Scene) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Ubuntu, 'DejaVu Sans', sans-serif">"#,
        w = scene.width,
        h = scene.height
    );
    s.push_str("<g shape-rendering=\"crispEdges\" stroke=\"none\">\n");
    for p in &scene.polys {
        let pts: Vec<String> = p
            .pts
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            s,
            r#"<polygon points="{}" fill="{}"{}/>"#,
            pts.join(" "),
            colour(p.fill),
            opacity(p.fill)
        );
    }
    s.push_str("</g>\n<g stroke-linecap=\"round\">\n");
    for l in &scene.lines {
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="{:.1}"{}/>"#,
            l.a.0,
            l.a.1,
            l.b.0,
            l.b.1,
            colour(l.color),
            l.width,
            opacity(l.color)
        );
    }
    s.push_str("</g>\n<g>\n");
    for c in &scene.circles {
        let stroke = if c.outline {
            r##" stroke="#000" stroke-width="1.5""##
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="{}"{stroke}/>"#,
            c.c.0,
            c.c.1,
            c.r,
            colour(c.fill)
        );
    }
    s.push_str("</g>\n<g>\n");
    for t in &scene.texts {
        let anchor = if t.centred {
            r#" text-anchor="middle""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" font-size="{:.1}" fill="{}"{}{anchor}>{}</text>"#,
            t.at.0,
            t.at.1,
            t.size * 1.15,
            colour(t.color),
            opacity(t.color),
            escape(&t.text)
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}
