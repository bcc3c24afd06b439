//! Writing a whole file so that a reader, a crash or a `kill -9` never
//! sees half of it: every file the arena rewrites (`config.json`,
//! `summary.json`, `tune.json`, `traces.svg`, the openings copy, books)
//! goes through [`write_atomic`], which writes a temporary file next to
//! the target, syncs it, renames it over the target and syncs the
//! directory (the `atomic-write-file` crate does the steps; on Linux its
//! temporary file has no name until it is complete, so a kill mid-write
//! leaves nothing behind but in the instant of the rename).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use atomic_write_file::AtomicWriteFile;
use thiserror::Error;

/// Why a file of a run directory could not be used.
#[derive(Debug, Error)]
pub enum FileError {
    /// It could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// It does not parse (a saved config), or cannot be made (a plot).
    #[error("{path}: {reason}")]
    Content {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Turns an I/O error on `path` into a [`FileError`] (for `map_err`).
pub fn io_error(path: &Path) -> impl FnOnce(io::Error) -> FileError + '_ {
    move |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads the JSON file `path` as a `T`; `missing` is the error when there
/// is no such file.
///
/// # Errors
/// `missing` when the file cannot be read, [`FileError::Content`] when it
/// does not parse.
pub fn read_json<T: serde::de::DeserializeOwned, E: From<FileError>>(path: &Path, missing: E) -> Result<T, E> {
    let text = std::fs::read_to_string(path).map_err(|_| missing)?;
    serde_json::from_str(&text).map_err(|e| {
        FileError::Content {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }
        .into()
    })
}

/// Replaces `path` with `bytes`, atomically and durably: after a crash the
/// file holds either its old or its new contents, never a mix.
///
/// # Errors
/// When the temporary file cannot be created, written, synced or renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicWriteFile::open(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// Replaces `path` with `value` as pretty JSON and a final line end, as
/// [`write_atomic`] does.
///
/// # Errors
/// As for [`write_atomic`], and when `value` cannot be serialized.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    write_atomic(path, (text + "\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_is_left() {
        let dir = std::env::temp_dir().join(format!("arena-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("summary.json");
        write_atomic(&path, b"old\n").unwrap();
        write_atomic(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["summary.json"]);
        assert!(write_atomic(&dir.join("missing/x"), b"x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
