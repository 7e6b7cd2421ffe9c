//! `hexsight viewshed MAP --from HEX --min-height [N]`: per hex, the lowest target
//! height (levels above its ground, up to N) the observer sees.

use hexsight_analysis::Map;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::min_height::{MAX_UP_TO, min_heights};
use hexsight_analysis::export::{overlays, per_hex, pictures};
use std::process::ExitCode;

/// Computes and answers the lowest visible heights for `viewshed --min-height`.
pub fn run(a: &super::viewshed::Args, up_to: u32) -> anyhow::Result<ExitCode> {
    if up_to > MAX_UP_TO {
        anyhow::bail!("--min-height {up_to} is too high: give 0 to {MAX_UP_TO} levels");
    }
    if a.range.range.is_some() {
        anyhow::bail!("--range does not apply with --min-height (every hex is answered)");
    }
    let path = &a.map;
    let map = super::load_map(path)?;
    let from = super::hex_arg(&map, path, &a.from)?;
    super::check_per_hex(path, &map, 256, "the lowest visible heights")?;
    a.output.check(path, &map)?;
    a.geojson.check(path, &map)?;
    let layout = a.gis.check(path, &map)?;
    let progress = super::Progress::new("hexes");
    let engine = Engine::try_new(&map)?;
    let i = map.index(from).expect("a hex of the map");
    let heights = progress.run(|ctl| min_heights(&engine, i, up_to, ctl))?;
    a.run.timing(
        &format!("lowest visible heights from {} computed", a.from),
        progress.seconds(),
    );
    a.output
        .draw(|| pictures::min_height(&map, from, &heights, up_to))?;
    a.geojson
        .write(|crs| overlays::min_height(&map, &heights, crs))?;
    a.gis.write(
        &map,
        &layout,
        || per_hex::min_height(&heights),
        |crs| overlays::min_height(&map, &heights, crs),
    )?;
    if a.output.json {
        let label = |j: usize| map.label(map.hex_of(j));
        /// The answer, field by field; `heights` one hex a line (null: none up to the limit).
        #[derive(serde::Serialize)]
        struct Answer<'b, H> {
            map: &'b str,
            ruleset: &'b str,
            from: String,
            up_to: u32,
            heights: H,
        }
        let answer = Answer {
            map: &map.name,
            ruleset: &map.ruleset.name,
            from: map.label(from),
            up_to,
            heights: super::json::StreamMap(|| (0..map.len()).map(|j| (label(j), heights[j]))),
        };
        crate::out::with(|w| super::json::write_lines(w, &answer))?;
        return Ok(ExitCode::SUCCESS);
    }
    print_summary(&map, from, &heights, up_to)?;
    Ok(ExitCode::SUCCESS)
}

/// Counts and first labels by height, then the hexes seen at no height.
fn print_summary(
    map: &Map,
    from: hexsight_analysis::hex::Hex,
    heights: &[Option<u32>],
    up_to: u32,
) -> anyhow::Result<()> {
    outln!(
        "lowest visible height from {} on {} ({}), levels above each hex's ground, up to {up_to}:",
        map.label(from),
        map.name,
        map.ruleset.name
    )?;
    let class = |h: Option<u32>| {
        let hexes: Vec<usize> = (0..map.len()).filter(|&j| heights[j] == h).collect();
        let labels = hexes.iter().map(|&j| map.label(map.hex_of(j)));
        (hexes.len(), super::sample_list(hexes.len(), labels))
    };
    for h in 0..=up_to {
        let (n, list) = class(Some(h));
        if n > 0 {
            outln!("{h}: {n}: {list}")?;
        }
    }
    let (n, list) = class(None);
    outln!("none up to {up_to}: {n}: {list}")
}
