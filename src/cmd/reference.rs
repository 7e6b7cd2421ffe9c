//! `hexsight completions SHELL` and `hexsight man DIR`: shell completions and man pages
//! generated from the one definition of the command line (clap's), so they cannot drift.

use anyhow::Context;
use clap::Command;
use clap_complete::Shell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `completions`.
#[derive(clap::Args)]
#[command(
    after_help = "Example: hexsight completions bash > ~/.local/share/bash-completion/completions/hexsight"
)]
pub struct CompletionArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    shell: Shell,
}

/// Arguments of `man`.
#[derive(clap::Args)]
#[command(after_help = "Example: hexsight man target/man && man -l target/man/hexsight-viewshed.1")]
pub struct ManArgs {
    /// Folder to write `hexsight.1` and one `hexsight-COMMAND.1` per subcommand into (created if missing).
    out: PathBuf,
}

/// Prints the completion script for `a.shell`.
pub fn completions(a: CompletionArgs, mut cli: Command) -> anyhow::Result<ExitCode> {
    let mut text = Vec::new();
    clap_complete::generate(a.shell, &mut cli, "hexsight", &mut text);
    crate::out::with(|w| w.write_all(&text))?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the man pages: the command's and each subcommand's (nested ones too).
pub fn man(a: ManArgs, cli: Command) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("{}: cannot create the folder", a.out.display()))?;
    let n = write_pages(&a.out, &cli, "hexsight")?;
    note!("wrote {n} man pages to {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes `NAME.1` for `cmd` and its subcommands' pages (`NAME-SUB.1`); returns how many.
fn write_pages(dir: &Path, cmd: &Command, name: &str) -> anyhow::Result<usize> {
    let page = cmd.clone().name(name.to_string());
    let mut bytes = Vec::new();
    clap_mangen::Man::new(page).render(&mut bytes)?;
    hexsight_analysis::map::write_atomic(&dir.join(format!("{name}.1")), &bytes)?;
    let mut n = 1;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        n += write_pages(dir, sub, &format!("{name}-{}", sub.get_name()))?;
    }
    Ok(n)
}
