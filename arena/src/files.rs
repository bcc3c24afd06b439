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

/// The lock file of a run directory: it holds the id of the process that
/// runs it.
pub const LOCK_FILE: &str = "arena.lock";

/// An exclusive lock on a run directory, held until dropped: one runner
/// per directory (`match`, `gauntlet`, `roundrobin`, `tune`, `--resume`).
/// It is an advisory `flock` (the standard library's [`std::fs::File::try_lock`])
/// on [`LOCK_FILE`], which the system releases when the holder dies in any
/// way, so a lock left by a killed runner never blocks a resume.
#[derive(Debug)]
pub struct RunLock {
    _file: std::fs::File,
}

/// Why a run directory could not be locked.
#[derive(Debug, Error)]
pub enum LockError {
    /// Another runner holds it.
    #[error(
        "{dir} is in use by another arena run ({holder}): wait for it to end or stop it, or choose another directory"
    )]
    Busy {
        /// The run directory.
        dir: PathBuf,
        /// Who holds it: `process N`, as its lock file says.
        holder: String,
    },
    /// The lock file could not be made or locked.
    #[error(transparent)]
    File(#[from] FileError),
}

impl RunLock {
    /// Locks `dir` (which must exist) for this process, at once or not at
    /// all, and writes this process's id into the lock file.
    ///
    /// # Errors
    /// [`LockError::Busy`] naming the directory and the holder's process
    /// id when another runner holds it; [`LockError::File`] when the lock
    /// file cannot be opened or written.
    pub fn acquire(dir: &Path) -> Result<Self, LockError> {
        let path = dir.join(LOCK_FILE);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error(&path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let holder = match text.trim().parse::<u32>() {
                    Ok(pid) => format!("process {pid}"),
                    Err(_) => "a process that has not yet written its id".to_owned(),
                };
                return Err(LockError::Busy {
                    dir: dir.to_path_buf(),
                    holder,
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_error(&path)(e).into()),
        }
        file.set_len(0).map_err(io_error(&path))?;
        writeln!(file, "{}", std::process::id()).map_err(io_error(&path))?;
        file.flush().map_err(io_error(&path))?;
        Ok(Self { _file: file })
    }
}
