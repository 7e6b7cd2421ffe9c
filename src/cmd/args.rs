//! Flags many commands share, declared once and flattened into each (`OutputArgs`,
//! `RunArgs`, `RangeArg`), with the handling that goes with them. A command whose
//! flag means something more particular rewords its help with `mut_arg`.

use hexsight_analysis::Map;
use hexsight_analysis::export::style::{Picture, Scene};
use hexsight_analysis::query::range::Range;
use std::path::{Path, PathBuf};

/// `--json`, `--png FILE`, `--svg FILE`: how a command answers.
#[derive(clap::Args)]
pub struct OutputArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also draw the answer as a PNG.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Also draw the answer as an SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

impl OutputArgs {
    /// True when a picture is asked for.
    pub fn draws(&self) -> bool {
        self.png.is_some() || self.svg.is_some()
    }

    /// Refuses early, naming the map, a picture that would not fit in memory.
    pub fn check(&self, path: &Path, map: &Map) -> anyhow::Result<()> {
        super::check_pictures(path, map, u64::from(self.draws()))
    }

    /// Draws `picture` to the PNG and SVG asked for, if any.
    pub fn draw<'a>(&self, picture: impl FnOnce() -> Picture<'a>) -> anyhow::Result<()> {
        super::save_picture(picture, self.png.as_deref(), self.svg.as_deref())
    }

    /// Draws a scene (a picture that is not a map heatmap) to the files asked for, if any.
    pub fn draw_scene(&self, scene: impl FnOnce() -> Scene) -> anyhow::Result<()> {
        if self.draws() {
            let s = scene();
            super::writing(&self.names(), || {
                hexsight_analysis::export::save_scene(&s, self.png.as_deref(), self.svg.as_deref())
            })?;
        }
        Ok(())
    }

    /// The picture files asked for, for messages.
    fn names(&self) -> String {
        let names: Vec<String> = self
            .png
            .iter()
            .chain(self.svg.iter())
            .map(|p| p.display().to_string())
            .collect();
        names.join(", ")
    }
}

/// `--threads N`, `--timings`: how a long run goes.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Worker threads (default: one per core).
    ///
    /// 1 to 1024; 0 or absent: one per core.
    #[arg(long, value_name = "N", hide_short_help = true)]
    pub threads: Option<usize>,
    /// Print the compute time on stderr (not loading the map or printing).
    #[arg(long, hide_short_help = true)]
    pub timings: bool,
}

impl RunArgs {
    /// Sizes the thread pool; call before any work.
    pub fn start(&self) -> anyhow::Result<()> {
        super::set_threads(self.threads)
    }

    /// With `--timings`, prints `what in S s` on stderr.
    pub fn timing(&self, what: &str, seconds: f64) {
        if self.timings {
            eprintln!("{what} in {seconds:.3} s");
        }
    }
}

/// `--range N`: the longest sight line.
#[derive(clap::Args)]
pub struct RangeArg {
    /// Nothing is seen beyond this many hexes, or this length (`300m`).
    ///
    /// A length is in the map's scale.
    #[arg(long)]
    pub range: Option<String>,
}

impl RangeArg {
    /// The limit, if given, with an error naming the map.
    pub fn parse(&self, map: &Map, path: &Path) -> anyhow::Result<Option<Range>> {
        super::range_arg(map, path, self.range.as_deref())
    }
}
