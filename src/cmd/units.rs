//! `hexsight units MAP [FROM_UNIT TO_UNIT] [--fire direct|indirect|overrun] [--json]
//! [--png FILE] [--svg FILE]`:
//! can see, can be targeted and can fire, each with reasons citing the rules, for one
//! pair of units or for every unit against every unit of another side.
use anyhow::Context;

use anyhow::{anyhow, bail};
use clap::Args as ClapArgs;
use hexsight_analysis::Map;
use hexsight_analysis::export::pictures;
use hexsight_analysis::map::Unit;
use hexsight_analysis::query::units::{UnitAnswers, network, unit_answers};
use hexsight_analysis::rules::units::FireKind;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `units`.
#[derive(ClapArgs)]
#[command(
    after_help = "Example: hexsight units maps/battletech-town.json",
    mut_arg("json", |a| a.help("Print JSON: one object for a pair, a list of them for every pair")),
    mut_arg("png", |a| a.help("Without a pair: draw the network of lines over the map as a PNG")),
    mut_arg("svg", |a| a.help("The same as SVG")),
)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// The firing (observing) unit's id; without a pair, every unit against every
    /// unit of another side.
    from: Option<String>,
    /// The target unit's id.
    to: Option<String>,
    /// Kind of fire: direct, indirect or overrun (ASL Crest Status TEM, B20.9).
    #[arg(long, default_value = "direct", value_parser = parse_fire)]
    fire: FireKind,
    #[command(flatten)]
    output: super::args::OutputArgs,
}

fn parse_fire(s: &str) -> Result<FireKind, String> {
    match s {
        "direct" => Ok(FireKind::Direct),
        "indirect" => Ok(FireKind::Indirect),
        "overrun" => Ok(FireKind::Overrun),
        _ => Err(format!(
            "unknown fire `{s}` (use direct, indirect or overrun)"
        )),
    }
}

/// The unit with this id, or an error listing the map's units.
fn unit<'m>(map: &'m Map, path: &Path, id: &str) -> anyhow::Result<&'m Unit> {
    map.unit(id).ok_or_else(|| {
        let ids: Vec<&str> = map.units.iter().map(|u| u.id.as_str()).collect();
        anyhow!(
            "no unit `{}` on {} (units: {})",
            hexsight_analysis::error::clip(id, 40),
            path.display(),
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        )
    })
}

/// One pair's answers as JSON, with the two units.
fn pair_json(map: &Map, f: &Unit, t: &Unit, ans: &UnitAnswers) -> anyhow::Result<Value> {
    let mut v = serde_json::to_value(ans)?;
    v["from"] = json!({"id": f.id, "hex": map.label(f.hex)});
    v["to"] = json!({"id": t.id, "hex": map.label(t.hex)});
    Ok(v)
}

/// One pair's answers as text, with every reason.
fn pair_text(map: &Map, f: &Unit, t: &Unit, ans: &UnitAnswers) -> String {
    let mut out = format!(
        "{} ({}) -> {} ({})\n",
        f.id,
        map.label(f.hex),
        t.id,
        map.label(t.hex)
    );
    if let Some(arc) = &ans.arc {
        out += &format!("arc of {}: {arc}\n", f.id);
    }
    for (name, x) in [
        ("can see", &ans.sees),
        ("can be targeted", &ans.targeted),
        ("can fire", &ans.fires),
    ] {
        out += &format!("{name}: {}\n", if x.ok { "yes" } else { "no" });
        for r in &x.reasons {
            out += &format!("  - {r}\n");
        }
    }
    for m in &ans.modifiers {
        out += &format!("modifier: {} ({:+}): {}\n", m.name, m.value, m.text);
    }
    out
}

/// Every pair as a table: yes/no per answer and the first reason of the first "no".
fn table(map: &Map, pairs: &[(usize, usize, UnitAnswers)]) -> String {
    let name = |i: usize| {
        let u = &map.units[i];
        format!("{} ({})", u.id, map.label(u.hex))
    };
    let yes = |ok: bool| if ok { "yes" } else { "no" };
    let rows: Vec<[String; 6]> = pairs
        .iter()
        .map(|(i, j, a)| {
            let answers = [
                ("see", &a.sees),
                ("target", &a.targeted),
                ("fire", &a.fires),
            ];
            let why = answers
                .iter()
                .find(|(_, x)| !x.ok)
                .map(|(what, x)| format!("{what}: {}", x.reasons.first().map_or("", |r| r)))
                .unwrap_or_default();
            [
                name(*i),
                name(*j),
                yes(a.sees.ok).into(),
                yes(a.targeted.ok).into(),
                yes(a.fires.ok).into(),
                why,
            ]
        })
        .collect();
    let head = ["from", "to", "sees", "targeted", "fires", "why not"].map(String::from);
    let mut width = [0; 5];
    for r in std::iter::once(&head).chain(&rows) {
        for (w, cell) in width.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(&head).chain(&rows) {
        for (w, cell) in width.iter().zip(r) {
            out += &format!("{cell:<w$}  ");
        }
        out += &r[5];
        out = out.trim_end().to_string() + "\n";
    }
    out
}

/// Refuses, naming the map, a network whose answers (about 1 KiB a pair, with their
/// reasons) do not fit in memory.
fn check_network(map: &Map, path: &Path) -> anyhow::Result<()> {
    let n = map.units.len() as u64;
    hexsight_analysis::memory::check(
        n.saturating_mul(n).saturating_mul(1024),
        &format!("the answers of {n} units against each other"),
        "give a pair of units: hexsight units MAP FROM_UNIT TO_UNIT",
    )
    .with_context(|| path.display().to_string())
}

/// Prints the three answers, for one pair or every pair.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let out = match (&a.from, &a.to) {
        (Some(_), Some(_)) if a.output.draws() => {
            bail!("--png and --svg draw every pair: leave out FROM_UNIT and TO_UNIT")
        }
        (Some(from), Some(to)) => {
            let (f, t) = (unit(&map, &a.map, from)?, unit(&map, &a.map, to)?);
            let ans = unit_answers(&map, f, t, a.fire);
            if a.output.json {
                serde_json::to_string_pretty(&pair_json(&map, f, t, &ans)?)? + "\n"
            } else {
                pair_text(&map, f, t, &ans)
            }
        }
        (None, None) => {
            check_network(&map, &a.map)?;
            let pairs = network(&map, a.fire);
            a.output.check(&a.map, &map)?;
            a.output.draw_scene(|| pictures::network(&map, &pairs))?;
            if a.output.json {
                let list = pairs
                    .iter()
                    .map(|(i, j, ans)| pair_json(&map, &map.units[*i], &map.units[*j], ans))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                serde_json::to_string_pretty(&list)? + "\n"
            } else if pairs.is_empty() {
                format!("{}: no two units of different sides\n", a.map.display())
            } else {
                table(&map, &pairs)
            }
        }
        _ => bail!("give both FROM_UNIT and TO_UNIT, or neither for every pair of units"),
    };
    crate::out::text(&out)?;
    Ok(ExitCode::SUCCESS)
}
