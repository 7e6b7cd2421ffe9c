//! The map file's optional `geo` block, read with one-line errors naming the key.

use super::model::Extra;
use crate::error::{Error, Result};
use crate::georef::Geo;
use crate::georef::project::is_geographic;
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
    let extra: Extra = obj
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "epsg" | "origin" | "hex_size"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Geo {
        epsg,
        origin,
        hex_size,
        extra,
    })
}

/// The block as written to a file.
pub fn to_value(g: &Geo) -> Value {
    let mut v = json!({"epsg": g.epsg, "origin": [g.origin.0, g.origin.1], "hex_size": g.hex_size});
    if let Some(obj) = v.as_object_mut() {
        obj.extend(g.extra.clone());
    }
    v
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
