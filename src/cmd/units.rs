//! `hexsight units MAP FROM_UNIT TO_UNIT [--fire direct|indirect|overrun] [--json]`:
//! can see, can be targeted and can fire, each with reasons citing the rules.

use anyhow::anyhow;
use clap::Args as ClapArgs;
use hexsight_analysis::query::units::unit_answers;
use hexsight_analysis::rules::asl::FireKind;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `units`.
#[derive(ClapArgs)]
pub struct Args {
    /// The map file.
    map: PathBuf,
    /// The firing (observing) unit's id.
    from: String,
    /// The target unit's id.
    to: String,
    /// Kind of fire: direct, indirect or overrun (ASL Crest Status TEM, B20.9).
    #[arg(long, default_value = "direct", value_parser = parse_fire)]
    fire: FireKind,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
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

/// Prints the three answers.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let map = super::load_map(&a.map)?;
    let unit = |id: &str| {
        map.unit(id).ok_or_else(|| {
            let ids: Vec<&str> = map.units.iter().map(|u| u.id.as_str()).collect();
            anyhow!(
                "no unit `{id}` on {} (units: {})",
                a.map.display(),
                if ids.is_empty() {
                    "none".to_string()
                } else {
                    ids.join(", ")
                }
            )
        })
    };
    let (f, t) = (unit(&a.from)?, unit(&a.to)?);
    let ans = unit_answers(&map, f, t, a.fire);
    let mut out = String::new();
    if a.json {
        let mut v = serde_json::to_value(&ans)?;
        v["from"] = json!({"id": f.id, "hex": map.label(f.hex)});
        v["to"] = json!({"id": t.id, "hex": map.label(t.hex)});
        out = serde_json::to_string_pretty(&v)? + "\n";
    } else {
        out += &format!(
            "{} ({}) -> {} ({})\n",
            f.id,
            map.label(f.hex),
            t.id,
            map.label(t.hex)
        );
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
    }
    crate::out::text(&out)?;
    Ok(ExitCode::SUCCESS)
}
