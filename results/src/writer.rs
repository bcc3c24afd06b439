//! The crash-safe writer of game record files. Each game becomes one whole
//! CSV row, handed to the operating system in a single write and flushed at
//! once, so a run killed at any moment leaves every finished game on disk
//! and at worst one torn last line, which the reader detects and drops.
//! Appending to such a file first cuts the torn line off (its game was not
//! finished, and is played again), so the file stays whole.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::record::{GameRecord, RECORD_HEADER, RowError};

/// Why a record could not be written.
#[derive(Debug, Error)]
pub enum WriteError {
    /// The file could not be opened, read or written.
    #[error("cannot write {path}")]
    Io {
        /// The file concerned (`<stream>` for a writer over a plain stream).
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The existing file is not a game record file.
    #[error("{path}: not a game record file (its first line is not the record header)")]
    Header {
        /// The file concerned.
        path: PathBuf,
    },
    /// The record is inconsistent; nothing was written.
    #[error("refusing to write game {game}: {error}")]
    Invalid {
        /// The record's game number.
        game: u64,
        /// What is wrong with it.
        error: RowError,
    },
}

/// Writes game records, one whole row per call.
#[derive(Debug)]
pub struct RecordWriter<W: Write> {
    out: W,
    path: PathBuf,
    dropped_tail: u64,
}

/// The header line, with its line end.
fn header_line() -> String {
    let mut line = RECORD_HEADER.join(",");
    line.push('\n');
    line
}

impl RecordWriter<File> {
    /// Creates (or truncates) a record file and writes the header.
    ///
    /// # Errors
    /// [`WriteError::Io`] when the file cannot be created or written.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, WriteError> {
        let path = path.as_ref().to_path_buf();
        let io = |source| WriteError::Io {
            path: path.clone(),
            source,
        };
        let file = File::create(&path).map_err(io)?;
        let mut writer = Self {
            out: file,
            path,
            dropped_tail: 0,
        };
        writer.write_bytes(header_line().as_bytes())?;
        Ok(writer)
    }

    /// Opens a record file for appending, creating it (with its header) if
    /// it is missing or empty. A torn last line left by a killed run is cut
    /// off first ([`RecordWriter::dropped_tail`] says how many bytes), so
    /// the next game starts on a line of its own and the file reads back
    /// without damage.
    ///
    /// # Errors
    /// [`WriteError::Io`] when the file cannot be opened, read or written;
    /// [`WriteError::Header`] when it holds something other than records.
    pub fn append(path: impl AsRef<Path>) -> Result<Self, WriteError> {
        let path = path.as_ref().to_path_buf();
        let io = |source| WriteError::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let header = header_line();
        let mut start = vec![0; header.len().min(usize::try_from(len).unwrap_or(usize::MAX))];
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.read_exact(&mut start).map_err(io)?;
        let mut writer = Self {
            out: file,
            path,
            dropped_tail: 0,
        };
        if start.len() < header.len() && header.as_bytes().starts_with(&start) {
            // Empty, or killed while writing its header: no game is in it.
            writer.out.set_len(0).map_err(|e| WriteError::Io {
                path: writer.path.clone(),
                source: e,
            })?;
            writer.write_bytes(header.as_bytes())?;
            return Ok(writer);
        }
        if !start.starts_with(header.trim_end().as_bytes()) {
            return Err(WriteError::Header { path: writer.path });
        }
        let io = |source| WriteError::Io {
            path: writer.path.clone(),
            source,
        };
        // The header ends with a line end, so there is one to find.
        let keep = after_last_line_end(&mut writer.out, len).map_err(io)?;
        if keep < len {
            writer.out.set_len(keep).map_err(io)?;
            writer.out.sync_data().map_err(io)?;
            writer.dropped_tail = len - keep;
        }
        Ok(writer)
    }
}

/// The length of `file` (of `len` bytes) up to and including its last line
/// end, read backwards a block at a time so a long record costs little.
fn after_last_line_end(file: &mut File, len: u64) -> io::Result<u64> {
    const BLOCK: u64 = 64 * 1024;
    let mut end = len;
    let mut block = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        block.resize(usize::try_from(end - start).unwrap_or(0), 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut block)?;
        if let Some(i) = block.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

impl<W: Write> RecordWriter<W> {
    /// A writer over any stream; writes the header first.
    ///
    /// # Errors
    /// [`WriteError::Io`] when the header cannot be written.
    pub fn new(out: W) -> Result<Self, WriteError> {
        let mut writer = Self {
            out,
            path: PathBuf::from("<stream>"),
            dropped_tail: 0,
        };
        writer.write_bytes(header_line().as_bytes())?;
        Ok(writer)
    }

    /// Writes one game as one whole row, then flushes.
    ///
    /// # Errors
    /// [`WriteError::Invalid`] (nothing written) when the record fails
    /// [`GameRecord::validate`]; [`WriteError::Io`] when writing fails.
    pub fn write(&mut self, record: &GameRecord) -> Result<(), WriteError> {
        record.validate().map_err(|error| WriteError::Invalid {
            game: record.game,
            error,
        })?;
        let mut row = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let io = |source| WriteError::Io {
            path: self.path.clone(),
            source,
        };
        row.write_record(record.to_fields())
            .map_err(|e| io(io::Error::other(e)))?;
        let bytes = row.into_inner().map_err(|e| io(e.into_error()))?;
        self.write_bytes(&bytes)
    }

    /// The bytes of a torn last line that [`RecordWriter::append`] cut
    /// off (0 when the file ended whole).
    #[must_use]
    pub fn dropped_tail(&self) -> u64 {
        self.dropped_tail
    }

    /// The underlying stream.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// One `write_all` and a flush: the whole row reaches the operating
    /// system at once, where it survives the death of this process.
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.out
            .write_all(bytes)
            .and_then(|()| self.out.flush())
            .map_err(|source| WriteError::Io {
                path: self.path.clone(),
                source,
            })
    }
}
