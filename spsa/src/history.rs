//! The run's history as CSV: a header `games,<name>,...` and one row per
//! update with the games played so far and every parameter's value. Each
//! row is formatted first and written with a single call, so a killed run
//! leaves at most one torn last line, which the reader drops and
//! [`HistoryWriter::resume`] cuts off. Values are written in Rust's shortest
//! exact form, so a row reads back to the very same numbers.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use crate::state::write_atomic;
use crate::tuner::Tuner;

/// The games played so far and every parameter's value at that point.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    /// Games told so far.
    pub games: u64,
    /// One value per parameter, in the tuner's order.
    pub values: Vec<f64>,
}

/// A history file read back.
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    /// The parameter names of the header.
    pub names: Vec<String>,
    /// The complete rows, in file order.
    pub rows: Vec<HistoryRow>,
}

/// Why a history file could not be read or continued.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The file could not be read or written.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The file has no header line.
    #[error("the history has no header")]
    NoHeader,
    /// The header does not name the expected parameters.
    #[error("the history's header is '{found}', expected '{expected}'")]
    Header {
        /// The header found.
        found: String,
        /// The header expected.
        expected: String,
    },
    /// A complete row does not parse.
    #[error("history line {line}: {reason}")]
    Row {
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

impl Tuner {
    /// The history row for now: games told and the current estimate of
    /// every parameter, unrounded (see [`Tuner::estimate`]).
    #[must_use]
    pub fn history_row(&self) -> HistoryRow {
        HistoryRow {
            games: self.games(),
            values: self.estimate(),
        }
    }
}

/// The header line, newline included.
#[must_use]
pub fn history_header<S: AsRef<str>>(names: &[S]) -> String {
    let mut line = String::from("games");
    for name in names {
        line.push(',');
        line.push_str(name.as_ref());
    }
    line.push('\n');
    line
}

/// One row as a line, newline included.
#[must_use]
pub fn history_line(row: &HistoryRow) -> String {
    let mut line = row.games.to_string();
    for value in &row.values {
        line.push(',');
        line.push_str(&value.to_string());
    }
    line.push('\n');
    line
}

/// Reads a history file's text. A last line without its newline is a row
/// torn by a kill and is dropped.
///
/// # Errors
/// [`HistoryError::NoHeader`] for empty text, [`HistoryError::Row`] for a
/// complete row with the wrong number of fields or a bad number.
pub fn parse_history(text: &str) -> Result<History, HistoryError> {
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => return Err(HistoryError::NoHeader),
    };
    let mut lines = complete.lines();
    let header = lines.next().ok_or(HistoryError::NoHeader)?;
    let mut fields = header.split(',');
    if fields.next() != Some("games") {
        return Err(HistoryError::NoHeader);
    }
    let names: Vec<String> = fields.map(str::to_string).collect();
    let mut rows = Vec::new();
    for (index, line) in lines.enumerate() {
        let line_number = index + 2;
        let bad = |reason: String| HistoryError::Row {
            line: line_number,
            reason,
        };
        let mut fields = line.split(',');
        let games = fields
            .next()
            .and_then(|g| g.parse::<u64>().ok())
            .ok_or_else(|| bad("the games count is not a whole number".to_string()))?;
        let values = fields
            .map(|v| v.parse::<f64>().map_err(|_| bad(format!("'{v}' is not a number"))))
            .collect::<Result<Vec<f64>, _>>()?;
        if values.len() != names.len() {
            return Err(bad(format!("{} values for {} parameters", values.len(), names.len())));
        }
        rows.push(HistoryRow { games, values });
    }
    Ok(History { names, rows })
}

/// Appends history rows to a file, one whole line per call.
#[derive(Debug)]
pub struct HistoryWriter {
    file: File,
}

impl HistoryWriter {
    /// Starts a new history at `path` (replacing any file there) with the
    /// header for `names`.
    ///
    /// # Errors
    /// Any I/O error.
    pub fn create<S: AsRef<str>>(path: &Path, names: &[S]) -> io::Result<Self> {
        write_atomic(path, history_header(names).as_bytes())?;
        Ok(Self {
            file: OpenOptions::new().append(true).open(path)?,
        })
    }

    /// Continues the history at `path` after a resume from a state that
    /// had told `games` games: keeps the complete rows up to that count
    /// (rows written after the state was last saved are dropped, as is a
    /// torn last line), rewrites the file with them, and returns them so a
    /// driver can redraw its plot. A missing file starts afresh.
    ///
    /// # Errors
    /// [`HistoryError::Header`] when the file names other parameters, and
    /// the errors of [`parse_history`] and of I/O.
    pub fn resume<S: AsRef<str>>(
        path: &Path,
        names: &[S],
        games: u64,
    ) -> Result<(Self, Vec<HistoryRow>), HistoryError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Self::create(path, names)?, Vec::new())),
            Err(e) => return Err(e.into()),
        };
        let history = parse_history(&text)?;
        let expected = history_header(names);
        let found = history_header(&history.names);
        if found != expected {
            return Err(HistoryError::Header {
                found: found.trim_end().to_string(),
                expected: expected.trim_end().to_string(),
            });
        }
        let rows: Vec<HistoryRow> = history.rows.into_iter().filter(|row| row.games <= games).collect();
        let mut kept = expected;
        for row in &rows {
            kept.push_str(&history_line(row));
        }
        write_atomic(path, kept.as_bytes())?;
        Ok((
            Self {
                file: OpenOptions::new().append(true).open(path)?,
            },
            rows,
        ))
    }

    /// Appends one row with a single write.
    ///
    /// # Errors
    /// Any I/O error.
    pub fn append(&mut self, row: &HistoryRow) -> io::Result<()> {
        self.file.write_all(history_line(row).as_bytes())?;
        self.file.flush()
    }
}
