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

    /// An I/O error on `file`.
    pub fn io(err: &std::io::Error, file: &Path) -> Self {
        Error::new(ErrorKind::Io, err.to_string()).in_file(file)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        if let Some(place) = &self.place {
            write!(f, "{place}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
