//! The documents hold together: every relative link in the README, CONTRIBUTING and
//! `docs/` (the guide included) names a file that exists and, with `#anchor`, a heading
//! of that file (GitHub's and mdBook's slugs); every guide page is in the book's summary;
//! every `$ hexsight ...` example is run and prints what the page shows.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files checked.
fn documents() -> Vec<PathBuf> {
    let r = root();
    let mut out = vec![r.join("README.md"), r.join("CONTRIBUTING.md")];
    for dir in ["docs", "docs/guide"] {
        for e in std::fs::read_dir(r.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped,
/// spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code fences), repeats numbered.
fn anchors(text: &str) -> BTreeSet<String> {
    let (mut out, mut seen, mut fence) = (BTreeSet::new(), HashMap::new(), false);
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if fence || hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let s = slug(&line[hashes..]);
        let n = seen.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 {
            s.clone()
        } else {
            format!("{s}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of the Markdown links and images in `text`, outside code fences and spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Code spans hold no links.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(path)
            };
            let shown = format!(
                "{}: ({target})",
                doc.strip_prefix(root()).unwrap().display()
            );
            if !file.exists() {
                broken.push(format!("{shown}: no such file"));
                continue;
            }
            if !anchor.is_empty() {
                let held = anchors(&std::fs::read_to_string(&file).unwrap_or_default());
                if !held.contains(anchor) {
                    broken.push(format!("{shown}: no heading #{anchor}"));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn every_guide_page_is_in_the_summary() {
    let guide = root().join("docs/guide");
    let summary = std::fs::read_to_string(guide.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    for e in std::fs::read_dir(&guide).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "SUMMARY.md" {
            assert!(listed.contains(&name), "{name} is not in SUMMARY.md");
        }
    }
    assert!(Path::new(&guide.join("../book.toml")).exists());
}

/// A `$ hexsight ...` example: the page, the arguments, the lines the page shows.
struct Example {
    page: String,
    args: Vec<String>,
    shown: Vec<String>,
}

/// The examples in `text` (in code fences), but those in a fence preceded by the line
/// `<!-- not run: ... -->` (their input is not in the repository).
fn examples(page: &str, text: &str) -> Vec<Example> {
    let (mut out, mut fence, mut skip, mut skip_next) = (Vec::new(), false, false, false);
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            fence = !fence;
            skip = fence && skip_next;
            skip_next = false;
            continue;
        }
        skip_next = line.starts_with("<!-- not run");
        let Some(command) = line.strip_prefix("$ hexsight ").filter(|_| fence && !skip) else {
            continue;
        };
        assert!(
            !command.contains(['"', '\'', '|', '>']),
            "{page}: write `{command}` without quotes or redirections"
        );
        let mut shown = Vec::new();
        while let Some(next) = lines.peek() {
            if next.starts_with("$ ") || next.starts_with("```") {
                break;
            }
            shown.push(lines.next().unwrap_or_default().to_string());
        }
        out.push(Example {
            page: page.to_string(),
            args: command.split_whitespace().map(str::to_string).collect(),
            shown,
        });
    }
    out
}

/// Every example in the README and the guide runs (from a folder where `maps/` is the
/// repository's) and prints the lines the page shows, in order; a shown line with `...`
/// stands for what the page leaves out and is not compared.
#[test]
fn every_example_prints_what_the_page_shows() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("maps"), dir.path().join("maps")).unwrap();
    let mut all = Vec::new();
    for doc in documents() {
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        all.extend(examples(&name, &std::fs::read_to_string(&doc).unwrap()));
    }
    assert!(all.len() >= 15, "only {} examples found", all.len());
    let mut wrong = Vec::new();
    for e in &all {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hexsight"))
            .args(&e.args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&out.stdout);
        let mut got_lines = got.lines();
        let command = format!("{}: hexsight {}", e.page, e.args.join(" "));
        if !out.status.success() {
            wrong.push(format!(
                "{command}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        for want in e
            .shown
            .iter()
            .filter(|l| !l.trim().is_empty() && !l.contains("...") && !l.contains('…'))
        {
            if !got_lines.any(|g| g == want) {
                wrong.push(format!(
                    "{command}: does not print (in this order) `{want}`"
                ));
                break;
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} examples differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The slug and link readers on the cases the documents use.
#[test]
fn slugs_and_links_read_as_github_does() {
    assert_eq!(
        slug(" `hexsight viewshed MAP --from HEX [--json]`"),
        "hexsight-viewshed-map---from-hex---json"
    );
    assert_eq!(
        slug("Shards: `exposure --shard` and `merge`"),
        "shards-exposure---shard-and-merge"
    );
    let a = anchors("# A\n## B\n```\n# not\n```\n## B\n");
    assert_eq!(a.into_iter().collect::<Vec<_>>(), ["a", "b", "b-1"]);
    assert_eq!(
        links("see [x](a.md#b) and `[y](z)` ![p](q.png)"),
        ["a.md#b", "q.png"]
    );
}
