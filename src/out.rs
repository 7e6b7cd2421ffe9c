//! The one way the command line prints.
//!
//! Every command writes its answer through `out!` / `outln!` (standard output,
//! buffered) and its notes through `note!` (standard error). When the reader of
//! standard output goes away (`hexsight ... | head`), the process ends at once,
//! quietly, with exit code 0, as ripgrep and coreutils do: there is no one left to
//! tell. Any other write error (a full disk behind `>`) is an ordinary error.
//! A closed standard error never stops a run: notes are dropped.

use std::fmt;
use std::io::{BufWriter, ErrorKind, Stdout, Write};
use std::sync::Mutex;

static OUT: Mutex<Option<BufWriter<Stdout>>> = Mutex::new(None);

/// Ends the process quietly: the reader of standard output has gone.
fn closed() -> ! {
    std::process::exit(0)
}

fn check(r: std::io::Result<()>) -> anyhow::Result<()> {
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => closed(),
        Err(e) => Err(anyhow::anyhow!("writing to standard output: {e}")),
    }
}

/// Runs `f` on the buffered standard output.
pub fn with(f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> anyhow::Result<()> {
    let mut guard = OUT.lock().unwrap_or_else(|p| p.into_inner());
    let w = guard.get_or_insert_with(|| BufWriter::with_capacity(1 << 16, std::io::stdout()));
    check(f(w))
}

/// Writes formatted text to standard output (see the module note on closed pipes).
pub fn write_fmt(args: fmt::Arguments) -> anyhow::Result<()> {
    with(|w| w.write_fmt(args))
}

/// Writes text to standard output.
pub fn text(s: &str) -> anyhow::Result<()> {
    with(|w| w.write_all(s.as_bytes()))
}

/// Flushes standard output; called once before the process exits.
pub fn flush() -> anyhow::Result<()> {
    with(|w| w.flush())
}

/// Writes a note to standard error, ignoring a closed or failing standard error.
pub fn note_fmt(args: fmt::Arguments) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(args);
    let _ = e.write_all(b"\n");
}

/// `out!(...)` prints to standard output like `print!`, returning `anyhow::Result<()>`.
macro_rules! out {
    ($($t:tt)*) => { $crate::out::write_fmt(format_args!($($t)*)) };
}

/// `outln!(...)` prints a line to standard output like `println!`, returning `anyhow::Result<()>`.
macro_rules! outln {
    () => { $crate::out::text("\n") };
    ($($t:tt)*) => { $crate::out::write_fmt(format_args!("{}\n", format_args!($($t)*))) };
}

/// `note!(...)` prints a line to standard error like `eprintln!`, never panicking.
macro_rules! note {
    ($($t:tt)*) => { $crate::out::note_fmt(format_args!($($t)*)) };
}
