//! `hexsight viewshed MAP --from HEX --min-height [N]`: per hex, the lowest target
//! height (levels above its ground, up to N) the observer sees; with `--kind KIND[:STATE]`
//! the height at which a unit of that kind standing there alone is seen, by a unit of
//! `--observer-kind` (else the observer hex's unit, else the same kind).

use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::min_height::{MAX_UP_TO, Stand, min_heights, min_heights_as};
use hexsight_analysis::export::{overlays, per_hex, pictures};
use std::process::ExitCode;

/// The unit kinds of `viewshed --min-height`.
#[derive(ClapArgs)]
pub struct KindArgs {
    /// With --min-height: the target is a unit of this kind (`infantry:prone`).
    ///
    /// A unit of this kind (and state), standing alone in each hex (`mech`,
    /// `infantry:prone`).
    #[arg(long, value_name = "KIND[:STATE]", requires = "min_height")]
    pub(super) kind: Option<String>,
    /// With --kind: the observer is a unit of this kind (and state); without it, the
    /// first unit in the observer's hex, or one of the target's kind if it holds none.
    #[arg(
        long,
        value_name = "KIND[:STATE]",
        requires = "kind",
        hide_short_help = true
    )]
    pub(super) observer_kind: Option<String>,
}

/// The library's parameter names as this command's flags.
const FLAGS: [(&str, &str); 3] = [
    ("kind", "--kind"),
    ("observer_kind", "--observer-kind"),
    ("threads", "--threads"),
];

/// A `--kind` or `--observer-kind` value read against the map's ruleset.
fn stand(
    map: &Map,
    path: &std::path::Path,
    param: &str,
    text: Option<&str>,
) -> anyhow::Result<Option<Stand>> {
    text.map(|t| Stand::parse(map, param, t).map_err(|e| super::flags(e.in_file(path), &FLAGS)))
        .transpose()
        .map_err(Into::into)
}

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
    let target = stand(&map, path, "kind", a.kinds.kind.as_deref())?;
    let observer = stand(
        &map,
        path,
        "observer_kind",
        a.kinds.observer_kind.as_deref(),
    )?;
    let heights = progress
        .run(|ctl| match &target {
            Some(t) => min_heights_as(&map, i, t, observer.as_ref(), up_to, ctl),
            None => min_heights(&engine, i, up_to, ctl),
        })
        .map_err(|e| super::flags(e, &FLAGS))?;
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
            #[serde(skip_serializing_if = "Option::is_none")]
            kind: Option<&'b str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            observer_kind: Option<&'b str>,
            up_to: u32,
            heights: H,
        }
        let answer = Answer {
            map: &map.name,
            ruleset: &map.ruleset.name,
            from: map.label(from),
            kind: a.kinds.kind.as_deref(),
            observer_kind: a.kinds.observer_kind.as_deref(),
            up_to,
            heights: super::json::StreamMap(|| (0..map.len()).map(|j| (label(j), heights[j]))),
        };
        crate::out::with(|w| super::json::write_lines(w, &answer))?;
        return Ok(ExitCode::SUCCESS);
    }
    let of = match (&a.kinds.kind, &a.kinds.observer_kind) {
        (Some(k), Some(o)) => format!(" of kind {k} seen by kind {o}"),
        (Some(k), None) => format!(" of kind {k}"),
        _ => String::new(),
    };
    print_summary(&map, from, &of, &heights, up_to)?;
    Ok(ExitCode::SUCCESS)
}

/// Counts and first labels by height, then the hexes seen at no height.
fn print_summary(
    map: &Map,
    from: hexsight_analysis::hex::Hex,
    of: &str,
    heights: &[Option<u32>],
    up_to: u32,
) -> anyhow::Result<()> {
    outln!(
        "lowest visible height{of} from {} on {} ({}), levels above each hex's ground, up to {up_to}:",
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
