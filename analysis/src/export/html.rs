//! The report's `index.html`: the interactive map (its viewer, `page.js`, is carried
//! in the page; its data in `data.js` beside it, see [`super::page`]), then every
//! picture with its legend, and the files.

use super::svg::escape;
use crate::map::Map;
use std::fmt::Write;

/// The viewer, in plain JavaScript, carried whole in the page.
const VIEWER: &str = include_str!("page.js");

/// One picture of the report.
pub struct Figure {
    /// Heading.
    pub title: String,
    /// One or two sentences on how to read it.
    pub text: String,
    /// PNG file name, relative to the page.
    pub png: String,
    /// SVG file name, relative to the page, when one was written.
    pub svg: Option<String>,
}

/// What the page says about its own data.
pub struct DataNote {
    /// Bytes of `data.js`.
    pub script_bytes: u64,
    /// Bytes of the gzip stream in it.
    pub packed_bytes: u64,
    /// What was left out, one sentence each.
    pub omitted: Vec<String>,
}

fn mb(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{:.0} kB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
    }
}

const STYLE: &str = r#"
* { box-sizing: border-box; }
body { font-family: Ubuntu, 'DejaVu Sans', sans-serif; margin: 0; color: #222; background: #fafaf7; }
#top { display: flex; flex-direction: column; height: 100vh; min-height: 480px; padding-bottom: 0.6em; }
header { padding: 0.5em 1em 0.3em; display: flex; align-items: baseline; gap: 1em; flex-wrap: wrap; }
h1 { margin: 0; font-size: 1.4em; } .sub { color: #555; margin: 0.2em 0; }
header .sub { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; flex: 1; min-width: 12em; }
#app { display: flex; gap: 0.8em; padding: 0 1em; flex: 1; min-height: 0; }
#mapbox { position: relative; flex: 1; min-width: 0; border: 1px solid #ccc; background: #fafaf7; overflow: hidden; touch-action: none; }
#mapbox canvas { position: absolute; left: 0; top: 0; }
#c-ui { outline: none; cursor: crosshair; } #c-ui:focus-visible { box-shadow: inset 0 0 0 3px #1e64dc; }
#zoom { position: absolute; right: 8px; top: 8px; display: flex; flex-direction: column; gap: 4px; }
#zoom button { width: 2.2em; height: 2.2em; font-size: 1.1em; border: 1px solid #999; background: #fff; border-radius: 4px; cursor: pointer; }
#status { position: absolute; left: 8px; bottom: 6px; background: rgba(255,255,255,0.85); padding: 2px 6px; border-radius: 3px; font-size: 0.85em; color: #333; }
aside { width: 340px; flex: none; overflow-y: auto; font-size: 0.92em; }
aside h2 { font-size: 1.05em; margin: 0.8em 0 0.3em; }
#search-form { display: flex; gap: 4px; margin-top: 0.2em; } #search { flex: 1; padding: 0.35em; font-size: 1em; }
#search-form button, #make-observer { padding: 0.3em 0.7em; }
#search-msg { color: #b00; min-height: 1em; font-size: 0.9em; }
#layers label { display: block; margin: 0.15em 0; cursor: pointer; } #layers label.off { color: #888; cursor: default; }
#layers hr { border: 0; border-top: 1px solid #ddd; }
.note { color: #666; font-size: 0.9em; }
.lg { display: flex; align-items: center; gap: 6px; margin: 2px 0; }
.sw { display: inline-block; width: 18px; height: 13px; border: 1px solid rgba(0,0,0,0.3); flex: none; }
.sw.small { width: 12px; height: 10px; } .sw.edge { height: 4px; border: 0; } .sw.round { width: 11px; height: 11px; border-radius: 50%; border: 1.5px solid #000; }
.bar { height: 14px; border: 1px solid #999; } .ticks { display: flex; justify-content: space-between; font-size: 0.85em; }
#target table td { padding: 1px 6px 1px 0; vertical-align: top; } .v { font-weight: bold; }
.v0 { color: #8a7a00; } .v1 { color: #21918c; } .v2 { color: #44015a; } .v3 { color: #c4470b; }
details pre, #change-lists pre { white-space: pre-wrap; max-height: 12em; overflow-y: auto; font-size: 0.85em; background: #f0f0ea; padding: 4px; }
#timing { color: #666; font-size: 0.85em; }
main.rest { max-width: 1500px; padding: 0 1em; margin: 0 auto; }
figure { margin: 2em 0; } figure img { max-width: 100%; border: 1px solid #ccc; }
figcaption { margin: 0.4em 0; } code { background: #eee; padding: 0 0.2em; }
table.files { border-collapse: collapse; } table.files td { padding: 0.1em 0.8em 0.1em 0; }
@media (max-width: 800px) { #top { height: auto; } #app { flex-direction: column; } #mapbox { height: 70vh; flex: none; } aside { width: auto; } }
"#;

/// The page: the interactive map and its panel, the summary, the figures and links
/// to the data files.
pub fn index(
    map: &Map,
    summary: &[String],
    figures: &[Figure],
    files: &[(String, String)],
    data: &DataNote,
) -> String {
    let mut s = String::new();
    let name = escape(&map.name);
    let desc = escape(&map.ruleset.description);
    let _ = write!(
        s,
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{name}: hexsight report</title>
<style>{STYLE}</style></head><body>
<div id="top"><header><h1>{name}</h1>
<p class="sub" title="{desc}">{} x {} hexes, ruleset <b>{}</b>: {desc}</p></header>
<div id="app">
<div id="mapbox">
<canvas id="c-ground" aria-hidden="true"></canvas><canvas id="c-over" aria-hidden="true"></canvas><canvas id="c-top" aria-hidden="true"></canvas>
<canvas id="c-ui" tabindex="0" role="application" aria-label="The map. Arrow keys move a cursor from hex to hex, Enter makes it the observer, plus and minus zoom, 0 fits the map, shift and arrows pan, Escape clears."></canvas>
<div id="zoom"><button id="zoom-in" title="Zoom in (+)" aria-label="Zoom in">+</button><button id="zoom-out" title="Zoom out (-)" aria-label="Zoom out">&minus;</button><button id="zoom-fit" title="Fit the map (0)" aria-label="Fit the map" style="font-size:0.75em">fit</button></div>
<div id="status" role="status">Unpacking the data&hellip;</div>
</div>
<aside>
<form id="search-form" role="search"><input id="search" placeholder="Find a hex (C5) or a unit" aria-label="Find a hex or a unit"><button>Find</button></form>
<div id="search-msg" role="alert"></div>
<section id="info" aria-live="polite"><h2>Line of sight</h2>
<div id="obs"></div><div id="counts"></div>
<div id="target" hidden><table>
<tr><td>Target</td><td id="t-hex"></td></tr>
<tr><td>Verdict</td><td><span id="verdict" class="v"></span></td></tr>
<tr><td>Hindrance</td><td id="hindrance"></td></tr>
<tr><td>Blocked by</td><td id="blocker"></td></tr>
<tr><td>Why</td><td id="reason"></td></tr>
</table><button id="make-observer">Make it the observer</button></div>
<details id="lists" hidden><summary>The hexes of each class</summary>
<p>visible (<span id="n-visible"></span>)</p><pre id="list-visible"></pre>
<p>hindered (<span id="n-hindered"></span>)</p><pre id="list-hindered"></pre>
<p>blocked (<span id="n-blocked"></span>)</p><pre id="list-blocked"></pre>
<p>blind (<span id="n-blind"></span>)</p><pre id="list-blind"></pre>
</details>
<div id="timing"></div>
</section>
<section id="change" hidden aria-live="polite"><h2>What changes</h2>
<div id="change-sum"></div><div id="change-hex"></div>
<div id="change-lists" hidden>
<p>gained (<span id="n-gained"></span>)</p><pre id="list-gained"></pre>
<p>lost (<span id="n-lost"></span>)</p><pre id="list-lost"></pre>
</div>
</section>
<section><h2>Layers</h2><div id="layers"></div></section>
<section><h2>Legend</h2><div id="legend"></div></section>
<section><h2>About this page</h2>
<p class="note" id="about-size">Page data: {} (<code>data.js</code>: {} gzip-compressed, base64), <span id="about-data"></span>.</p>
<p class="note" id="about-omitted">{}</p>
<p class="note">Every answer was computed by hexsight with the ruleset's rules; the page only looks them up. Lines are drawn centre to centre.</p>
</section>
</aside>
</div></div>
<noscript><p>The interactive map needs JavaScript; the pictures below do not.</p></noscript>
<main class="rest">
"#,
        map.cols,
        map.rows,
        escape(&map.ruleset.name),
        mb(data.script_bytes),
        mb(data.packed_bytes),
        escape(&data.omitted.join("; ")),
    );
    s.push_str("<h2>Summary</h2>\n<ul>\n");
    for line in summary {
        let _ = writeln!(s, "<li>{}</li>", escape(line));
    }
    s.push_str("</ul>\n<nav>");
    for (k, f) in figures.iter().enumerate() {
        let _ = write!(s, r##"<a href="#fig{k}">{}</a> "##, escape(&f.title));
    }
    s.push_str("</nav>\n");
    for (k, f) in figures.iter().enumerate() {
        let svg = f
            .svg
            .as_ref()
            .map(|v| format!(r#" (<a href="{}">SVG</a>)"#, escape(v)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            r#"<figure id="fig{k}"><h2>{}</h2><figcaption>{}{svg}</figcaption><a href="{}"><img src="{}" alt="{}" loading="lazy"></a></figure>"#,
            escape(&f.title),
            escape(&f.text),
            escape(&f.png),
            escape(&f.png),
            escape(&f.title)
        );
    }
    s.push_str("<h2>Data files</h2>\n<table class=\"files\">\n");
    for (file, what) in files {
        let _ = writeln!(
            s,
            r#"<tr><td><a href="{}"><code>{}</code></a></td><td>{}</td></tr>"#,
            escape(file),
            escape(file),
            escape(what)
        );
    }
    s.push_str("</table>\n<p class=\"sub\">Made by hexsight. Every verdict is exact: lines are walked centre to centre with rational arithmetic and judged by the ruleset's rules.</p>\n</main>\n<script src=\"data.js\"></script>\n<script>\n");
    // A `</script` inside the viewer would end the element early; it has none.
    s.push_str(VIEWER);
    s.push_str("</script>\n</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_viewer_cannot_end_its_script_early() {
        assert!(!super::VIEWER.to_ascii_lowercase().contains("</script"));
    }
}
