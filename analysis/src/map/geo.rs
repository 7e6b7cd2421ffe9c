//! The map file's optional `geo` block, read with one-line errors naming the key.

use super::model::Extra;
use crate::error::{Error, Result};
use crate::georef::project::is_geographic;
use crate::georef::{DemGrid, Geo};
use serde_json::{Value, json};

/// Reads `"geo": {"epsg": 32631, "origin": [x, y], "hex_size": 100}`; other keys are kept.
pub fn parse(v: &Value) -> Result<Geo> {
    let Some(obj) = v.as_object() else {
        return Err(Error::invalid(
            "geo",
            "geo must be an object {\"epsg\": 32631, \"origin\": [x, y], \"hex_size\": 100}",
        ));
    };
    let epsg = match obj.get("epsg") {
        Some(e) => e
            .as_u64()
            .filter(|&n| (1..=999_999).contains(&n))
            .ok_or_else(|| {
                Error::invalid(
                    "geo.epsg",
                    format!("geo.epsg must be an EPSG code (a whole number), not {e}"),
                )
            })? as u32,
        None => return Err(missing("epsg")),
    };
    if is_geographic(epsg) {
        return Err(Error::invalid(
            "geo.epsg",
            format!(
                "geo.epsg {epsg} is a geographic CRS (degrees); hexes need a projected CRS \
                 in metres, such as a UTM zone (326zz north, 327zz south)"
            ),
        ));
    }
    let origin = match obj.get("origin") {
        Some(o) => point(o).ok_or_else(|| {
            Error::invalid(
                "geo.origin",
                format!("geo.origin must be [x, y], two finite numbers, not {o}"),
            )
        })?,
        None => return Err(missing("origin")),
    };
    let hex_size = match obj.get("hex_size") {
        Some(s) => s
            .as_f64()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| {
                Error::invalid(
                    "geo.hex_size",
                    format!("geo.hex_size must be a positive number (CRS units), not {s}"),
                )
            })?,
        None => return Err(missing("hex_size")),
    };
    let raster = obj.get("raster").map(raster).transpose()?;
    let extra: Extra = obj
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "epsg" | "origin" | "hex_size" | "raster"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Geo {
        epsg,
        origin,
        hex_size,
        raster,
        extra,
    })
}

/// The block as written to a file.
pub fn to_value(g: &Geo) -> Value {
    let mut v = json!({"epsg": g.epsg, "origin": [g.origin.0, g.origin.1], "hex_size": g.hex_size});
    if let Some(r) = &g.raster {
        v["raster"] = json!({"width": r.width, "height": r.height, "left": r.left,
                             "top": r.top, "dx": r.dx, "dy": r.dy});
    }
    if let Some(obj) = v.as_object_mut() {
        obj.extend(g.extra.clone());
    }
    v
}

/// Reads `"raster": {"width": 400, "height": 300, "left": x, "top": y, "dx": 25, "dy": 25}`:
/// the DEM's pixel grid, written by `import dem`.
fn raster(v: &Value) -> Result<DemGrid> {
    let bad = |key: &str, what: &str| {
        Error::invalid(
            format!("geo.raster.{key}"),
            format!("geo.raster.{key} must be {what}"),
        )
    };
    let size = |key: &str| {
        v.get(key)
            .and_then(Value::as_u64)
            .filter(|&n| (1..=1_000_000).contains(&n))
            .map(|n| n as u32)
            .ok_or_else(|| bad(key, "a whole number of pixels, 1 to 1000000"))
    };
    let number = |key: &str, positive: bool| {
        v.get(key)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite() && (!positive || *x > 0.0))
            .ok_or_else(|| {
                bad(
                    key,
                    if positive {
                        "a positive number (CRS units)"
                    } else {
                        "a finite number (CRS units)"
                    },
                )
            })
    };
    if !v.is_object() {
        return Err(Error::invalid(
            "geo.raster",
            "geo.raster must be an object {\"width\", \"height\", \"left\", \"top\", \"dx\", \"dy\"}",
        ));
    }
    Ok(DemGrid {
        width: size("width")?,
        height: size("height")?,
        left: number("left", false)?,
        top: number("top", false)?,
        dx: number("dx", true)?,
        dy: number("dy", true)?,
    })
}

fn missing(key: &str) -> Error {
    Error::invalid(
        format!("geo.{key}"),
        format!("geo.{key} is missing (geo needs epsg, origin and hex_size)"),
    )
}

fn point(v: &Value) -> Option<(f64, f64)> {
    match v.as_array()?.as_slice() {
        [x, y] => {
            let (x, y) = (x.as_f64()?, y.as_f64()?);
            (x.is_finite() && y.is_finite()).then_some((x, y))
        }
        _ => None,
    }
}
