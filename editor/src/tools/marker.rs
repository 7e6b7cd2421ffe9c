//! Markers: one of each kind per hex, where the terrain allows it.

use hexsight_analysis::Map;
use hexsight_analysis::hex::Hex;
use hexsight_analysis::map::Marker;

/// Adds marker `kind` to `h`, or removes it if present. Errors say why the
/// ruleset refuses it (the loader would refuse the file otherwise).
pub fn toggle(map: &mut Map, h: Hex, kind: u16) -> Result<bool, String> {
    let Some(mk) = map.ruleset.markers.get(kind as usize) else {
        return Err("this ruleset has no markers".into());
    };
    let Some(t) = map.terrain(h) else {
        return Ok(false);
    };
    if let Some(i) = map
        .markers
        .iter()
        .position(|m| m.hex == h && m.kind == kind)
    {
        map.markers.remove(i);
        return Ok(true);
    }
    if t.forbids_markers.contains(&mk.id) {
        return Err(format!(
            "{} may not be placed in {} ({})",
            mk.name,
            t.name,
            map.label(h)
        ));
    }
    map.markers.push(Marker {
        hex: h,
        kind,
        extra: Default::default(),
    });
    Ok(true)
}
