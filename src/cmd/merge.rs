//! `hexsight merge PART.npz... --out FILE.json`: sums the shards of `exposure --shard`.

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use hexsight_analysis::export::npz;
use hexsight_analysis::export::write_with;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `merge`.
#[derive(ClapArgs)]
#[command(after_help = "Example: hexsight merge parts/part-*.npz --out exposure.json")]
pub struct Args {
    /// The shard files written by `hexsight exposure MAP --shard K/N --out FILE.npz`.
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// The summed counts as the JSON of `exposure --json`; `-` prints them.
    #[arg(long)]
    out: PathBuf,
}

/// One shard file: its metadata and partial counts.
struct Part {
    meta: Value,
    sees: Vec<u32>,
    seen_by: Vec<u32>,
}

fn read_part(path: &Path) -> anyhow::Result<Part> {
    let bytes = std::fs::read(path).with_context(|| path.display().to_string())?;
    let members = npz::read(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let get = |name: &str| {
        members
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.as_slice())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: no {name} in the archive (not a shard of hexsight exposure --shard)",
                    path.display()
                )
            })
    };
    let array = |name: &str| -> anyhow::Result<Vec<u32>> {
        npz::parse_npy_u32(get(name)?)
            .map_err(|e| anyhow::anyhow!("{}: {name}: {e}", path.display()))
    };
    let meta: Value = serde_json::from_slice(get("meta.json")?)
        .map_err(|e| anyhow::anyhow!("{}: meta.json: {e}", path.display()))?;
    let part = Part {
        sees: array("sees.npy")?,
        seen_by: array("seen_by.npy")?,
        meta,
    };
    let hexes = part.meta["labels"].as_array().map_or(0, Vec::len);
    if part.sees.len() != hexes || part.seen_by.len() != hexes {
        bail!(
            "{}: the counts do not have one value per hex ({hexes})",
            path.display()
        );
    }
    Ok(part)
}

/// The shard number and count of a part's metadata.
fn shard_of(path: &Path, meta: &Value) -> anyhow::Result<(usize, usize)> {
    let field = |f: &str| meta[f].as_u64().map(|v| v as usize);
    match (field("shard"), field("shards")) {
        (Some(k), Some(n)) if k < n => Ok((k, n)),
        _ => bail!(
            "{}: meta.json has no valid shard and shards",
            path.display()
        ),
    }
}

/// Checks the parts are shards of one run covering 0..N once, and sums them.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let first = read_part(&a.parts[0])?;
    let (_, shards) = shard_of(&a.parts[0], &first.meta)?;
    let same_run = |meta: &Value| {
        let mut m = meta.clone();
        m["shard"] = Value::Null;
        m
    };
    let run0 = same_run(&first.meta);
    let mut seen_in: Vec<Option<&Path>> = vec![None; shards];
    let mut sees = vec![0u32; first.sees.len()];
    let mut seen_by = vec![0u32; first.sees.len()];
    for path in &a.parts {
        let part = if path == &a.parts[0] {
            None
        } else {
            Some(read_part(path)?)
        };
        let part = part.as_ref().unwrap_or(&first);
        if same_run(&part.meta) != run0 {
            let what = ["map_hash", "shards", "from", "to", "range"]
                .into_iter()
                .find(|f| part.meta[f] != first.meta[f])
                .unwrap_or("labels");
            bail!(
                "{}: not a shard of the same run as {} (its {what} differs: {} against {})",
                path.display(),
                a.parts[0].display(),
                part.meta[what],
                first.meta[what]
            );
        }
        let (k, _) = shard_of(path, &part.meta)?;
        if let Some(other) = seen_in[k] {
            bail!(
                "{}: shard {k}/{shards} is also in {}",
                path.display(),
                other.display()
            );
        }
        seen_in[k] = Some(path);
        for (s, v) in sees.iter_mut().zip(&part.sees) {
            *s += v;
        }
        for (s, v) in seen_by.iter_mut().zip(&part.seen_by) {
            *s += v;
        }
    }
    let missing: Vec<String> = (0..shards)
        .filter(|&k| seen_in[k].is_none())
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        bail!(
            "missing shards {} of {shards} (each of 0 to {} once)",
            missing.join(", "),
            shards - 1
        );
    }
    let m = &first.meta;
    let labels: Vec<String> = m["labels"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|l| l.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    let count = |f: &str| m[f].as_u64().unwrap_or(0) as usize;
    let counts = super::exposure::Counts {
        map: m["map"].as_str().unwrap_or_default(),
        ruleset: m["ruleset"].as_str().unwrap_or_default(),
        labels: super::exposure::Labels::Given(labels),
        observers: count("observers"),
        targets: count("targets"),
        sees: &sees,
        seen_by: &seen_by,
    };
    if a.out.as_os_str() == "-" {
        crate::out::with(|w| counts.write(w))?;
    } else {
        write_with(&a.out, |w| counts.write(w))?;
        note!(
            "merged {shards} shards of {}; wrote {}",
            m["map"].as_str().unwrap_or_default(),
            a.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
