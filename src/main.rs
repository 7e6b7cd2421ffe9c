//! `hexsight`: line of sight and visibility analysis on hex maps, from the command line.
//!
//! `main` only parses arguments and hands each subcommand to its module in `cmd/`;
//! every answer comes from the `hexsight-analysis` library.

#![forbid(unsafe_code)]

#[macro_use]
mod out;
mod cmd;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Huge pages for the large grids a big map's answers fill (fewer page faults).
#[global_allocator]
static ALLOC: hexsight_analysis::huge_pages::HugePages = hexsight_analysis::huge_pages::HugePages;

#[derive(Parser)]
#[command(
    name = "hexsight",
    version,
    about = "Who can see whom on hex maps: exact line of sight, matrices, viewsheds",
    after_help = "Example: hexsight los maps/hill-112.json H7 B9"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// A scenario layer file laid over the map first (repeatable).
    ///
    /// Applied in order before any work: terrain substitutions, per-hex changes,
    /// markers, units, hexsides.
    #[arg(long, global = true, value_name = "FILE")]
    layer: Vec<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Line of sight from one hex to another, with the verdict, the reason and the trace.
    Los(cmd::los::Args),
    /// The side view of one sight line: ground, obstacles, the line, where it is blocked.
    Profile(cmd::profile::Args),
    /// The full visibility matrix of a map, written to a file.
    Matrix(cmd::matrix::Args),
    /// Load and check a map, and summarise it.
    Validate(cmd::validate::Args),
    /// Movement cost from one hex into an adjacent one.
    Move(cmd::movement::Args),
    /// Miniatures spotting from one hex: LOS, automatic spotting, test probability per hex.
    Spot(cmd::spot::Args),
    /// Can see, can be targeted, can fire: one unit at another, with reasons.
    Units(cmd::units::Args),
    /// What one hex sees: every hex visible, hindered or blocked, and the blind hexes.
    Viewshed(cmd::viewshed::Args),
    /// The blind hexes of one observer: hidden only by obstacles lower than it.
    Blind(cmd::blind::Args),
    /// For every hex, how many hexes it sees and how many see it (optionally between zones).
    Exposure(cmd::exposure::Args),
    /// Sums the shard files of `exposure --shard K/N` into the JSON of `exposure --json`.
    Merge(cmd::merge::Args),
    /// Everything at once: matrix, heatmaps, viewsheds, blind zones and an index.html.
    Report(cmd::report::Args),
    /// Before and after: pairs gained and lost, per-hex exposure change, viewsheds changed.
    Diff(cmd::diff::Args),
    /// Where to stand: the hexes of a zone that together see most of another, or are seen least.
    Deploy(cmd::deploy::Args),
    /// Place one board beside another (north, east, south, west; optionally turned) as one map.
    Combine(cmd::combine::Args),
    /// Maps from other data: `import dem` lays a hex grid over a GeoTIFF elevation model.
    Import(cmd::import::Args),
    /// Synthetic terrain (hills, woods, villages, hedgerows) for benchmarks and demos.
    Generate(cmd::generate::Args),
    /// Shell completions (bash, zsh, fish, ...) printed for the shell to load.
    Completions(cmd::reference::CompletionArgs),
    /// Man pages for hexsight and every subcommand, written into a folder.
    Man(cmd::reference::ManArgs),
}

/// The subcommands by task, for `hexsight -h`: the full list with a line each
/// (`--help`) does not fit a terminal screen. A test checks every subcommand is here.
const GROUPS: [(&str, &[&str]); 4] = [
    (
        "One hex",
        &[
            "los", "profile", "viewshed", "blind", "spot", "units", "move",
        ],
    ),
    (
        "Whole map",
        &["matrix", "exposure", "deploy", "diff", "report", "merge"],
    ),
    ("Maps", &["validate", "generate", "combine", "import"]),
    ("Reference", &["completions", "man", "help"]),
];

/// `hexsight -h`: the commands grouped by task, the options and the example.
fn short_help() -> String {
    let mut groups = String::new();
    for (name, subs) in GROUPS {
        groups.push_str(&format!(
            "  {:<11}{}\n",
            format!("{name}:"),
            subs.join(", ")
        ));
    }
    let template = format!(
        "{{about}}\n\n{{usage-heading}} {{usage}}\n\nCommands (`hexsight --help` says what each does):\n{groups}\nOptions:\n{{options}}{{after-help}}"
    );
    let mut cmd = Cli::command().help_template(template);
    cmd.render_help().to_string()
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    if let (Some(a), None) = (args.next(), args.next())
        && a == "-h"
    {
        // A closed pipe is not an error worth a message.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), short_help().as_bytes());
        return ExitCode::SUCCESS;
    }
    let cli = Cli::parse();
    let one_map = !matches!(
        cli.command,
        Command::Combine(_) | Command::Generate(_) | Command::Import(_) | Command::Merge(_)
    );
    let result = cmd::set_layers(cli.layer, one_map).and_then(|()| run(cli.command));
    let result = result.and_then(|code| out::flush().map(|()| code));
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = out::flush();
            note!("hexsight: {}", one_line(&format!("{e:#}")));
            exit_code(&e)
        }
    }
}

/// Runs one subcommand.
fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Los(a) => cmd::los::run(a),
        Command::Profile(a) => cmd::profile::run(a),
        Command::Matrix(a) => cmd::matrix::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Move(a) => cmd::movement::run(a),
        Command::Spot(a) => cmd::spot::run(a),
        Command::Units(a) => cmd::units::run(a),
        Command::Viewshed(a) => cmd::viewshed::run(a),
        Command::Blind(a) => cmd::blind::run(a),
        Command::Exposure(a) => cmd::exposure::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Deploy(a) => cmd::deploy::run(a),
        Command::Diff(a) => cmd::diff::run(a),
        Command::Combine(a) => cmd::combine::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Import(a) => cmd::import::run(a),
        Command::Completions(a) => cmd::reference::completions(a, Cli::command()),
        Command::Man(a) => cmd::reference::man(a, Cli::command()),
    }
}

/// The exit code of a failed run: 130 when it was interrupted (Ctrl-C), 3 when the
/// library refused the work as too large for the memory there is, 2 otherwise.
fn exit_code(e: &anyhow::Error) -> ExitCode {
    use hexsight_analysis::ErrorKind;
    let kind = e
        .chain()
        .find_map(|c| c.downcast_ref::<hexsight_analysis::Error>())
        .map(|e| e.kind);
    if kind == Some(ErrorKind::Cancelled) || cmd::interrupted() {
        ExitCode::from(130)
    } else if kind == Some(ErrorKind::TooLarge) {
        ExitCode::from(3)
    } else {
        ExitCode::from(2)
    }
}

/// Longest error line printed, in characters.
const MAX_ERROR_CHARS: usize = 2000;

/// An error message on one line: line breaks inside it (from a nested cause) become
/// spaces, and a message longer than [`MAX_ERROR_CHARS`] is cut.
fn one_line(s: &str) -> String {
    let line = s
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match line.char_indices().nth(MAX_ERROR_CHARS) {
        Some((i, _)) => format!("{}... (cut at {MAX_ERROR_CHARS} characters)", &line[..i]),
        None => line,
    }
}
