//! The library's one error type: every message names the file and the place.

use std::fmt;
use std::path::{Path, PathBuf};

/// What kind of thing went wrong, for callers that react differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file could not be read or written.
    Io,
    /// The file is not well-formed JSON, or a key has the wrong type.
    Syntax,
    /// The file is well-formed but says something inconsistent or unknown.
    Invalid,
    /// A query names something the map does not have (a hex off the grid).
    Query,
    /// The work would need more memory than there is; nothing was done.
    TooLarge,
    /// The work was stopped by its cancel flag; nothing was written.
    Cancelled,
}

/// An error that names the file, the place in it and what is wrong, on one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What kind of error.
    pub kind: ErrorKind,
    /// The file concerned, if any.
    pub file: Option<PathBuf>,
    /// Where in the file: `line 3, column 7`, a hex label, a key.
    pub place: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            file: None,
            place: None,
            message: message.into(),
        }
    }

    /// An inconsistency at `place`.
    pub fn invalid(place: impl Into<String>, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Invalid, message).at(place)
    }

    /// Sets the place.
    pub fn at(mut self, place: impl Into<String>) -> Self {
        self.place = Some(place.into());
        self
    }

    /// Sets the file unless one is already named.
    pub fn in_file(mut self, file: &Path) -> Self {
        if self.file.is_none() {
            self.file = Some(file.to_path_buf());
        }
        self
    }

    /// Turns a JSON error into one naming the line and column.
    pub fn from_json(err: &serde_json::Error, file: &Path) -> Self {
        let message = err.to_string();
        // serde_json appends " at line L column C"; keep the message without it.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        let kind = if err.is_io() {
            ErrorKind::Io
        } else {
            ErrorKind::Syntax
        };
        Error::new(kind, message)
            .at(format!("line {}, column {}", err.line(), err.column()))
            .in_file(file)
    }

    /// Like [`Error::from_json`], and names the key the error is at (`grid.cols`,
    /// `hexes.C5.level`), found by scanning `text` up to the error's position.
    pub fn from_json_text(err: &serde_json::Error, text: &str, file: &Path) -> Self {
        Error::from_json_keyed(err, text, file, |_| None)
    }

    /// [`Error::from_json_text`] for a map file: also says what a known key allows.
    pub fn from_map_json(err: &serde_json::Error, text: &str, file: &Path) -> Self {
        Error::from_json_keyed(err, text, file, allowed_for)
    }

    fn from_json_keyed(
        err: &serde_json::Error,
        text: &str,
        file: &Path,
        allowed_for: fn(&str) -> Option<&'static str>,
    ) -> Self {
        let mut e = Error::from_json(err, file);
        if err.line() == 0 {
            return e;
        }
        let path = json_path_at(text, offset_of(text, err.line(), err.column()));
        if !path.is_empty() {
            if let Some(place) = &mut e.place {
                place.push_str(", at ");
                place.push_str(&path);
            }
            if let Some(allowed) = allowed_for(&path)
                && !e.message.contains(allowed)
            {
                e.message = format!("{}; {path} must be {allowed}", e.message);
            }
        }
        e
    }

    /// An I/O error on `file`.
    pub fn io(err: &std::io::Error, file: &Path) -> Self {
        Error::new(ErrorKind::Io, err.to_string()).in_file(file)
    }
}

/// Writes `s` with control characters (a line break inside an id) escaped, so an
/// error stays on one line whatever the file holds.
fn write_one_line(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    if !s.chars().any(char::is_control) {
        return f.write_str(s);
    }
    for c in s.chars() {
        if c.is_control() {
            write!(f, "{}", c.escape_default())?;
        } else {
            write!(f, "{c}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write_one_line(f, &file.display().to_string())?;
            f.write_str(": ")?;
        }
        if let Some(place) = &self.place {
            write_one_line(f, place)?;
            f.write_str(": ")?;
        }
        write_one_line(f, &self.message)
    }
}

impl std::error::Error for Error {}

/// Shortens text quoted in a message (a label, an id) to at most `max` characters,
/// saying how long it was, so a hostile file cannot make an error line huge.
pub fn clip(text: &str, max: usize) -> String {
    let shown: String = text
        .chars()
        .take(max)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().nth(max).is_some() {
        format!("{shown}... ({} bytes)", text.len())
    } else {
        shown
    }
}

/// The byte offset of serde_json's (1-based line, 1-based column) in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    (start + column).min(text.len())
}

/// The key path (`grid.cols`, `units[2].hex`) at byte `offset` of JSON `text`:
/// a scan that tracks objects, arrays and keys, without parsing values.
pub(crate) fn json_path_at(text: &str, offset: usize) -> String {
    enum Frame {
        Object {
            key: Option<(usize, usize)>,
            want_key: bool,
        },
        Array {
            index: usize,
        },
    }
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object { key, want_key }) = stack.last_mut()
                    && *want_key
                {
                    *key = Some((start, j.min(bytes.len())));
                    *want_key = false;
                }
                i = j + 1;
                continue;
            }
            b'{' => stack.push(Frame::Object {
                key: None,
                want_key: true,
            }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { key, want_key }) => {
                    *key = None;
                    *want_key = true;
                }
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for f in stack.iter().take(12) {
        match f {
            Frame::Object {
                key: Some((a, b)), ..
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&clip(text.get(*a..*b).unwrap_or("?"), 40));
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    if stack.len() > 12 {
        path.push_str(&format!(" (nested {} deep)", stack.len()));
    }
    path
}

/// What a known key of a map file allows, for number errors.
fn allowed_for(path: &str) -> Option<&'static str> {
    let last = path.rsplit('.').next().unwrap_or(path);
    let top = path.split('.').next().unwrap_or(path);
    match (top, last) {
        ("grid", "cols" | "rows") => Some(GRID_SIDE_RANGE),
        ("grid", "first_row") => Some("0 or 1"),
        ("hexes" | "default", "level") => Some(LEVEL_RANGE),
        ("scale", "hex") => Some("a positive number"),
        ("hexsight", "hexsight") => Some("1 (the format version)"),
        _ => None,
    }
}

/// What `grid.cols` and `grid.rows` allow.
pub const GRID_SIDE_RANGE: &str = "a whole number from 1 to 20000";
/// What a hex's `level` allows.
pub const LEVEL_RANGE: &str =
    "a whole number within the ruleset's levels (at most -2147483648 to 2147483647)";

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_path_at_an_offset_names_objects_and_arrays() {
        let text = r#"{"grid": {"cols": -5}, "units": [{"id": "a"}, {"hex": "Q"}]}"#;
        let at = |needle: &str| json_path_at(text, text.find(needle).unwrap() + needle.len());
        assert_eq!(at("-5"), "grid.cols");
        assert_eq!(at("\"Q\""), "units[1].hex");
        assert_eq!(at("\"a\""), "units[0].id");
        // An unterminated key with a line break stays one line.
        let bad = "{\"hexes\": {\"C5\n";
        assert!(!json_path_at(bad, bad.len()).contains('\n'));
    }

    #[test]
    fn messages_stay_on_one_line_and_quotes_are_clipped() {
        let e = Error::invalid("hex\nC5", "unknown terrain `a\nb`");
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
        let long = "w".repeat(10_000);
        let c = clip(&long, 40);
        assert!(c.len() < 80 && c.contains("10000 bytes"), "{c}");
        assert_eq!(clip("C5", 40), "C5");
    }
}
