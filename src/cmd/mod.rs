//! One module per subcommand: parse arguments, call the library, print.

pub mod args;
pub mod blind;
pub mod combine;
pub mod deploy;
pub mod diff;
pub mod exposure;
pub mod generate;
pub mod gis;
pub mod import;
pub mod json;
pub mod los;
pub mod matrix;
pub mod merge;
pub mod min_height;
pub mod movement;
pub mod profile;
pub mod reference;
pub mod report;
pub mod spot;
pub mod units;
pub mod validate;
pub mod viewshed;

use anyhow::Context;
use hexsight_analysis::Map;
use hexsight_analysis::engine::matrix::{Control, Selection};
use hexsight_analysis::map::zones;
use hexsight_analysis::query::range::Range;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The `--layer` files, applied by [`load_map`] to every map a command reads.
static LAYERS: OnceLock<Vec<std::path::PathBuf>> = OnceLock::new();

/// Records the `--layer` files; refused for a command that reads no single map.
pub fn set_layers(layers: Vec<std::path::PathBuf>, one_map: bool) -> anyhow::Result<()> {
    if !layers.is_empty() && !one_map {
        anyhow::bail!("--layer applies to commands that read one map; this one does not");
    }
    let _ = LAYERS.set(layers);
    Ok(())
}

/// The `--layer` files given.
pub fn layers() -> &'static [std::path::PathBuf] {
    LAYERS.get().map_or(&[], Vec::as_slice)
}

/// Loads a map with the `--layer` files laid over it; the library's error already
/// names the file (map or layer) and the place.
pub fn load_map(path: &Path) -> anyhow::Result<Map> {
    let map = Map::load(path)?;
    Ok(map.with_layers(layers())?)
}

/// Parses a hex label of the map, with a one-line error naming the map and, when
/// the text is not a label at all, why.
pub fn hex_arg(map: &Map, path: &Path, label: &str) -> anyhow::Result<hexsight_analysis::hex::Hex> {
    map.parse_hex(label).ok_or_else(|| {
        let why = hexsight_analysis::hex::label::problem(label.trim(), map.first_row)
            .map(|p| format!(": {p}"))
            .unwrap_or_default();
        anyhow::anyhow!(
            "{}: `{}` is not a hex of this {}x{} map ({} to {}){why}",
            path.display(),
            hexsight_analysis::error::clip(label, 30),
            map.cols,
            map.rows,
            map.label(map.hex_of(0)),
            map.label(map.hex_of(map.len() - 1))
        )
    })
}

/// Refuses, naming the map, a command whose answer keeps about `per_hex` bytes for
/// every hex of the map (a verdict and its reason, a JSON entry) when that does not fit.
pub fn check_per_hex(path: &Path, map: &Map, per_hex: u64, what: &str) -> anyhow::Result<()> {
    hexsight_analysis::memory::check(
        (map.len() as u64).saturating_mul(per_hex),
        &format!("{what} of a {}x{} map", map.cols, map.rows),
        "a smaller map, or more memory (ulimit -v, the container's limit)",
    )
    .with_context(|| path.display().to_string())
}

/// Memory to draw one picture of the map, PNG and SVG: the scene (a few shapes per
/// hex) and the pixels. Hexes are drawn 3 to 34 pixels across, the map about 1100
/// pixels wide (as `export::style` sizes them), so a long thin map is a tall picture.
pub fn picture_bytes(map: &Map) -> u64 {
    let flat = map.layout.orientation == hexsight_analysis::hex::Orientation::Flat;
    let (across, down) = if flat {
        (
            1.5 * map.cols as f64 + 0.5,
            3f64.sqrt() * (map.rows as f64 + 0.5),
        )
    } else {
        (
            3f64.sqrt() * (map.cols as f64 + 0.5),
            1.5 * map.rows as f64 + 0.5,
        )
    };
    let size = (1100.0 / across).clamp(3.0, 34.0);
    let width = across * size + 400.0;
    let height = (down * size + 70.0).max(420.0);
    let pixels = (width * height * 4.0) as u64;
    (map.len() as u64 * 600).saturating_add(pixels.saturating_mul(2))
}

/// Refuses, naming the map, drawing `count` pictures that do not fit in memory.
pub fn check_pictures(path: &Path, map: &Map, count: u64) -> anyhow::Result<()> {
    if count == 0 {
        return Ok(());
    }
    hexsight_analysis::memory::check(
        picture_bytes(map),
        &format!("drawing a {}x{} map", map.cols, map.rows),
        "leave out --png/--svg on a map this size",
    )
    .with_context(|| path.display().to_string())
}

/// A library error with the parameters it names (its place, and `` `name` `` in its
/// message) called by their command-line flags: the library speaks of `hex_size`,
/// the command line of `--hex-size`.
pub fn flags(mut e: hexsight_analysis::Error, names: &[(&str, &str)]) -> hexsight_analysis::Error {
    for (param, flag) in names {
        if e.place.as_deref() == Some(*param) {
            e.place = Some(flag.to_string());
        }
        e.message = e.message.replace(&format!("`{param}`"), flag);
    }
    e
}

/// Labels a text answer shows of each class of hexes before "and N more".
pub const SHOWN: usize = 12;

/// A class of hexes as people read it: its first [`SHOWN`] labels, then how many more
/// (text output is a summary; `--json` and the files carry every hex).
pub fn sample_list(count: usize, labels: impl Iterator<Item = String>) -> String {
    if count == 0 {
        return "none".into();
    }
    let mut s: Vec<String> = labels.take(SHOWN).collect();
    if count > s.len() {
        s.push(format!("and {} more", count - s.len()));
    }
    s.join(" ")
}

/// The line ending a text answer that left hexes out.
pub const MORE_IN_FILES: &str = "(every hex: --json, or a file: --tif, --npy, --fgb, --geojson)";

/// Most worker threads `--threads` may ask for.
pub const MAX_THREADS: usize = 1024;

/// Sizes rayon's pool (`--threads`); 0 or none means one per core; more than
/// [`MAX_THREADS`] is refused.
pub fn set_threads(n: Option<usize>) -> anyhow::Result<()> {
    if let Some(n) = n.filter(|&n| n > MAX_THREADS) {
        anyhow::bail!(
            "--threads {n} is too many: give 1 to {MAX_THREADS}, or 0 for one per core ({} here)",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
    }
    if let Some(n) = n.filter(|&n| n > 0) {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("setting up the thread pool")?;
    }
    Ok(())
}

/// A flag Ctrl-C sets; long runs poll it and stop without writing.
pub fn interrupt_flag() -> &'static AtomicBool {
    static FLAG: AtomicBool = AtomicBool::new(false);
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = ctrlc::set_handler(|| FLAG.store(true, Ordering::SeqCst));
    });
    &FLAG
}

/// True once Ctrl-C was pressed (when the flag was asked for at all).
pub fn interrupted() -> bool {
    interrupt_flag().load(Ordering::SeqCst)
}

/// The hexes of a zone argument (`--from A1:F10,G3`, or a zone the map names), with an error naming the map
/// and the option.
pub fn zone_arg(map: &Map, path: &Path, option: &str, text: &str) -> anyhow::Result<Vec<usize>> {
    zones::resolve(map, text).map_err(|e| anyhow::anyhow!("{}: {option}: {e}", path.display()))
}

/// The `--range` limit (`6`, `300m`), if given, with an error naming the map.
pub fn range_arg(map: &Map, path: &Path, text: Option<&str>) -> anyhow::Result<Option<Range>> {
    text.map(|t| Range::parse(map, t))
        .transpose()
        .map_err(|e| anyhow::anyhow!("{}: --range: {e}", path.display()))
}

/// Observers and targets from `--from` / `--to` zones (the whole map when absent).
pub fn selection(
    map: &Map,
    path: &Path,
    from: Option<&str>,
    to: Option<&str>,
) -> anyhow::Result<Selection> {
    let all = Selection::all(map);
    Ok(Selection {
        from: match from {
            Some(z) => zone_arg(map, path, "--from", z)?,
            None => all.from,
        },
        to: match to {
            Some(z) => zone_arg(map, path, "--to", z)?,
            None => all.to,
        },
    })
}

/// A progress bar on stderr (rate and ETA) that appears only once a run has
/// lasted more than a moment, and only on a terminal.
pub struct Progress {
    start: Instant,
    what: &'static str,
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress {
    /// A progress reporter for a run counting `what` (`pairs`).
    pub fn new(what: &'static str) -> Progress {
        Progress {
            start: Instant::now(),
            what,
            bar: Mutex::new(None),
        }
    }

    /// Reports `done` of `total`: rate and ETA from the start of the run.
    pub fn update(&self, done: u64, total: u64) {
        let elapsed = self.start.elapsed();
        if elapsed < Duration::from_millis(700) {
            return;
        }
        let Ok(mut bar) = self.bar.try_lock() else {
            return;
        };
        let b = bar.get_or_insert_with(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = format!(
                "{{bar:40}} {{percent:>3}}% {{human_pos}}/{{human_len}} {} {{msg}}",
                self.what
            );
            if let Ok(s) = ProgressStyle::with_template(&style) {
                b.set_style(s);
            }
            b
        });
        let secs = elapsed.as_secs_f64();
        let rate = done as f64 / secs;
        let eta = if rate > 0.0 {
            total.saturating_sub(done) as f64 / rate
        } else {
            0.0
        };
        b.set_message(format!("{:.1} M/s, ETA {:.0} s", rate / 1e6, eta.ceil()));
        b.set_position(done);
    }

    /// Runs `f` with a [`Control`] that reports to this bar and stops on Ctrl-C,
    /// then removes the bar.
    pub fn run<T>(&self, f: impl FnOnce(&Control) -> T) -> T {
        let ctl = Control {
            cancel: interrupt_flag(),
            progress: &|d, t| self.update(d, t),
        };
        let out = f(&ctl);
        self.finish();
        out
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Ok(Some(b)) = self.bar.lock().map(|mut b| b.take()) {
            b.finish_and_clear();
        }
    }

    /// Seconds since the start.
    pub fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

/// Runs `f`, which writes `what`; when it lasts more than a moment, a spinner on stderr
/// (a terminal only) says what is being written and for how long.
pub fn writing<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if rx.recv_timeout(Duration::from_millis(700)).is_ok() {
                return;
            }
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            if let Ok(s) = ProgressStyle::with_template("{spinner} writing {msg} ({elapsed})") {
                bar.set_style(s);
            }
            bar.set_message(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            let _ = rx.recv();
            bar.finish_and_clear();
        });
        let out = f();
        let _ = tx.send(());
        out
    })
}

/// Draws `picture` to the PNG and SVG asked for, if any, with [`writing`]'s spinner.
pub fn save_picture<'a>(
    picture: impl FnOnce() -> hexsight_analysis::export::style::Picture<'a>,
    png: Option<&Path>,
    svg: Option<&Path>,
) -> anyhow::Result<()> {
    let names: Vec<String> = png
        .iter()
        .chain(svg.iter())
        .map(|p| p.display().to_string())
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    writing(&names.join(", "), || {
        hexsight_analysis::export::save_picture(picture, png, svg)
    })?;
    Ok(())
}

/// `--geojson FILE [--geojson-crs lonlat|native]`, shared by the commands that map answers.
#[derive(clap::Args)]
pub struct GeoJsonArgs {
    /// Also write the answer as GeoJSON.
    ///
    /// Hexes as polygons, dissolved areas, sight lines.
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub geojson: Option<std::path::PathBuf>,
    /// GeoJSON coordinates for a map with `geo`: `lonlat` (WGS 84) or `native` (the map's CRS).
    #[arg(
        long,
        default_value = "lonlat",
        value_name = "CRS",
        hide_short_help = true
    )]
    pub geojson_crs: hexsight_analysis::export::geojson::CrsChoice,
}

impl GeoJsonArgs {
    /// Refuses early, naming the map, a GeoJSON file that would not fit in memory
    /// or a CRS that cannot be projected, before any long computation.
    pub fn check(&self, path: &Path, map: &Map) -> anyhow::Result<()> {
        if self.geojson.is_none() {
            return Ok(());
        }
        use hexsight_analysis::export::geojson::{BYTES_PER_HEX, GeoJson};
        check_per_hex(path, map, BYTES_PER_HEX, "the GeoJSON")?;
        GeoJson::new(map, self.geojson_crs)
            .map_err(|e| flags(e, &[("crs", "--geojson-crs")]))
            .with_context(|| path.display().to_string())?;
        Ok(())
    }

    /// Builds the collection with `build` and writes it, when `--geojson` is given.
    pub fn write(
        &self,
        build: impl FnOnce(
            hexsight_analysis::export::geojson::CrsChoice,
        )
            -> hexsight_analysis::Result<hexsight_analysis::export::geojson::Collection>,
    ) -> anyhow::Result<()> {
        if let Some(p) = &self.geojson {
            writing(&p.display().to_string(), || {
                let v = build(self.geojson_crs)?;
                hexsight_analysis::export::geojson::save(p, &v)
            })?;
            note!("wrote {}", p.display());
        }
        Ok(())
    }
}
