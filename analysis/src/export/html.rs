//! The report's `index.html`: every picture with its legend, and the files.

use super::svg::escape;
use crate::map::Map;
use std::fmt::Write;

/// One picture of the report.
pub struct Figure {
    /// Heading.
    pub title: String,
    /// One or two sentences on how to read it.
    pub text: String,
    /// PNG file name, relative to the page.
    pub png: String,
    /// SVG file name, relative to the page.
    pub svg: String,
}

/// The page: the map's name, a summary, the figures and links to data files.
pub fn index(
    map: &Map,
    summary: &[String],
    figures: &[Figure],
    files: &[(String, String)],
) -> String {
    let mut s = String::new();
    let name = escape(&map.name);
    let _ = write!(
        s,
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}: hexsight report</title>
<style>
body {{ font-family: Ubuntu, 'DejaVu Sans', sans-serif; margin: 2em auto; max-width: 1500px; padding: 0 1em; color: #222; background: #fafaf7; }}
h1 {{ margin-bottom: 0.2em; }} .sub {{ color: #555; margin-top: 0; }}
figure {{ margin: 2em 0; }} figure img {{ max-width: 100%; border: 1px solid #ccc; }}
figcaption {{ margin: 0.4em 0; }} code {{ background: #eee; padding: 0 0.2em; }}
nav a {{ margin-right: 1em; }} table {{ border-collapse: collapse; }} td {{ padding: 0.1em 0.8em 0.1em 0; }}
</style></head><body>
<h1>{name}</h1>
<p class="sub">{} x {} hexes, ruleset <b>{}</b>: {}</p>
"#,
        map.cols,
        map.rows,
        escape(&map.ruleset.name),
        escape(&map.ruleset.description)
    );
    s.push_str("<nav>");
    for (k, f) in figures.iter().enumerate() {
        let _ = write!(s, r##"<a href="#fig{k}">{}</a>"##, escape(&f.title));
    }
    s.push_str("</nav>\n<ul>\n");
    for line in summary {
        let _ = writeln!(s, "<li>{}</li>", escape(line));
    }
    s.push_str("</ul>\n");
    for (k, f) in figures.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<figure id="fig{k}"><h2>{}</h2><figcaption>{} (<a href="{}">SVG</a>)</figcaption><a href="{}"><img src="{}" alt="{}"></a></figure>"#,
            escape(&f.title),
            escape(&f.text),
            escape(&f.svg),
            escape(&f.png),
            escape(&f.png),
            escape(&f.title)
        );
    }
    s.push_str("<h2>Data files</h2>\n<table>\n");
    for (file, what) in files {
        let _ = writeln!(
            s,
            r#"<tr><td><a href="{}"><code>{}</code></a></td><td>{}</td></tr>"#,
            escape(file),
            escape(file),
            escape(what)
        );
    }
    s.push_str("</table>\n<p class=\"sub\">Made by hexsight. Every verdict is exact: lines are walked centre to centre with rational arithmetic and judged by the ruleset's rules.</p>\n</body></html>\n");
    s
}
