//! A picture of the board under the grid, for tracing a scanned map. It lives
//! in the map file's `background` key (which the map format keeps as it is for
//! the round trip): the image path relative to the map file, how image pixels
//! lie on the map, the opacity and whether it is shown.

use hexsight_analysis::Map;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The map-file key.
pub const KEY: &str = "background";

/// How image pixels lie on the map: map point = rotate(scale * pixel) + offset,
/// in the units of `Layout::center(h, 1.0)` (one hex radius).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Map units per image pixel.
    pub scale: f64,
    /// Turn of the image, in degrees, clockwise on screen.
    pub rotation: f64,
    /// Where the image's top-left pixel lies on the map.
    pub offset: (f64, f64),
}

impl Placement {
    /// The map point of an image pixel.
    pub fn to_map(&self, p: (f64, f64)) -> (f64, f64) {
        let (s, c) = self.rotation.to_radians().sin_cos();
        let (x, y) = (p.0 * self.scale, p.1 * self.scale);
        (c * x - s * y + self.offset.0, s * x + c * y + self.offset.1)
    }

    /// The image pixel at a map point.
    pub fn to_image(&self, m: (f64, f64)) -> (f64, f64) {
        let (s, c) = self.rotation.to_radians().sin_cos();
        let (x, y) = (m.0 - self.offset.0, m.1 - self.offset.1);
        ((c * x + s * y) / self.scale, (-s * x + c * y) / self.scale)
    }

    /// The placement that puts image pixels `p1` and `p2` on map points `m1` and
    /// `m2` (two clicked hex centres); `None` when the two pixels coincide.
    pub fn through(
        p1: (f64, f64),
        m1: (f64, f64),
        p2: (f64, f64),
        m2: (f64, f64),
    ) -> Option<Placement> {
        let (dp, dm) = ((p2.0 - p1.0, p2.1 - p1.1), (m2.0 - m1.0, m2.1 - m1.1));
        let len = (dp.0 * dp.0 + dp.1 * dp.1).sqrt();
        if len < 1e-9 {
            return None;
        }
        let scale = (dm.0 * dm.0 + dm.1 * dm.1).sqrt() / len;
        let rotation = (dm.1.atan2(dm.0) - dp.1.atan2(dp.0)).to_degrees();
        let mut p = Placement {
            scale,
            rotation,
            offset: (0.0, 0.0),
        };
        let at = p.to_map(p1);
        p.offset = (m1.0 - at.0, m1.1 - at.1);
        Some(p)
    }
}

/// The background of a map.
#[derive(Clone, Debug, PartialEq)]
pub struct Background {
    /// The image file as the map file names it (relative to the map's folder).
    pub image: String,
    /// Where it lies.
    pub placement: Placement,
    /// 0 (hexes opaque) to 1 (hex fills clear, the picture fully seen).
    pub opacity: f32,
    /// Shown or hidden.
    pub visible: bool,
}

impl Background {
    /// The map's background, if its file has a readable one.
    pub fn of(map: &Map) -> Option<Background> {
        let v = map.extra.get(KEY)?;
        let f = |k: &str, d: f64| v.get(k).and_then(Value::as_f64).unwrap_or(d);
        Some(Background {
            image: v.get("image")?.as_str()?.to_string(),
            placement: Placement {
                scale: f("scale", 1.0).max(1e-9),
                rotation: f("rotation", 0.0),
                offset: (f("x", 0.0), f("y", 0.0)),
            },
            opacity: f("opacity", 0.5).clamp(0.0, 1.0) as f32,
            visible: v.get("visible").and_then(Value::as_bool).unwrap_or(true),
        })
    }

    /// Writes it into the map (an edit: call inside `Document::edit`).
    pub fn store(&self, map: &mut Map) {
        let p = &self.placement;
        map.extra.insert(
            KEY.into(),
            json!({
                "image": self.image,
                "scale": p.scale,
                "rotation": p.rotation,
                "x": p.offset.0,
                "y": p.offset.1,
                "opacity": self.opacity,
                "visible": self.visible,
            }),
        );
    }

    /// The image file, found beside the map file (or as given when absolute).
    pub fn resolve(&self, map_path: Option<&Path>) -> PathBuf {
        let base = map_path.and_then(Path::parent).unwrap_or(Path::new("."));
        base.join(&self.image)
    }
}

/// How a map file names an image: relative to the map's folder when it is inside it.
pub fn relative_name(image: &Path, map_path: Option<&Path>) -> String {
    let dir = map_path.and_then(Path::parent);
    let rel = dir.and_then(|d| {
        let d = std::fs::canonicalize(d).ok()?;
        let i = std::fs::canonicalize(image).ok()?;
        i.strip_prefix(&d).ok().map(Path::to_path_buf)
    });
    rel.unwrap_or_else(|| image.to_path_buf())
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_clicked_points_land_on_their_centres_and_back() {
        let (p1, p2) = ((10.0, 20.0), (300.0, 140.0));
        let (m1, m2) = ((1.0, 1.7), (22.0, 12.3));
        let p = Placement::through(p1, m1, p2, m2).unwrap();
        for (img, map) in [(p1, m1), (p2, m2)] {
            let got = p.to_map(img);
            assert!(
                (got.0 - map.0).abs() < 1e-9 && (got.1 - map.1).abs() < 1e-9,
                "{got:?}"
            );
            let back = p.to_image(map);
            assert!((back.0 - img.0).abs() < 1e-9 && (back.1 - img.1).abs() < 1e-9);
        }
        assert!(Placement::through(p1, m1, p1, m2).is_none());
    }
}
