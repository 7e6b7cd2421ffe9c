//! `hexsight`: line of sight and visibility analysis on hex maps, from the command line.
//!
//! `main` only parses arguments and hands each subcommand to its module in `cmd/`;
//! every answer comes from the `hexsight-analysis` library.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hexsight",
    version,
    about = "Who can see whom on hex maps: exact line of sight, matrices, viewsheds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Line of sight from one hex to another, with the verdict, the reason and the trace.
    Los(cmd::los::Args),
    /// The full visibility matrix of a map, written to a file.
    Matrix(cmd::matrix::Args),
    /// Load and check a map, and summarise it.
    Validate(cmd::validate::Args),
    /// Movement cost from one hex into an adjacent one.
    Move(cmd::movement::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Los(a) => cmd::los::run(a),
        Command::Matrix(a) => cmd::matrix::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Move(a) => cmd::movement::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hexsight: {e:#}");
            ExitCode::from(2)
        }
    }
}
