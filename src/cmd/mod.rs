//! One module per subcommand: parse arguments, call the library, print.

pub mod los;
pub mod matrix;
pub mod movement;
pub mod spot;
pub mod units;
pub mod validate;

use hexsight_analysis::Map;
use std::path::Path;

/// Loads a map; the library's error already names the file and the place.
pub fn load_map(path: &Path) -> anyhow::Result<Map> {
    Ok(Map::load(path)?)
}

/// Writes text to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
pub fn print_out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}
