//! `hexsight exposure`.
use clap::Args as ClapArgs;
use std::process::ExitCode;
/// Arguments.
#[derive(ClapArgs)]
pub struct Args {}
/// Runs.
pub fn run(_a: Args) -> anyhow::Result<ExitCode> { Ok(ExitCode::SUCCESS) }
