//! Saving and restoring a tuner. The state is JSON (readable, and easy to
//! inspect after a long night), written atomically (write, fsync, rename,
//! fsync the folder, by the crate `atomic-write-file`), so a `kill -9` at
//! any moment leaves either the old state or the new one, never a torn
//! file. Restoring gives back exactly the tuner that was saved, random
//! generator and pending trials included, so a resumed run continues as if
//! it had never stopped.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use atomic_write_file::AtomicWriteFile;

use crate::tuner::{STATE_FORMAT, Tuner};

/// Why a state could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The file could not be read or written.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The text is not a tuner state.
    #[error("not a tuner state: {0}")]
    Json(#[from] serde_json::Error),
    /// The state was written by an incompatible version.
    #[error("state format {found} is not the supported format {STATE_FORMAT}{}", if *found < STATE_FORMAT { " (written by an older leaper-spsa, with another random generator and recipes: finish that run with the build that started it, or start a new run)" } else { "" })]
    Format {
        /// The version found in the file.
        found: u32,
    },
    /// The state parses but breaks an invariant (edited by hand?).
    #[error("inconsistent state: {0}")]
    Inconsistent(String),
}

impl Tuner {
    /// The state as pretty-printed JSON.
    ///
    /// # Errors
    /// [`StateError::Json`] if serialization fails (it does not for a tuner
    /// built by this crate).
    pub fn to_json(&self) -> Result<String, StateError> {
        Ok(serde_json::to_string_pretty(self)?)
    }

    /// A tuner from the JSON of [`Tuner::to_json`], checked.
    ///
    /// # Errors
    /// [`StateError::Json`] for text that is not a state,
    /// [`StateError::Format`] for another format version,
    /// [`StateError::Inconsistent`] for a state that breaks an invariant.
    pub fn from_json(text: &str) -> Result<Self, StateError> {
        #[derive(serde::Deserialize)]
        struct Version {
            format: u32,
        }
        let version: Version = serde_json::from_str(text)?;
        if version.format != STATE_FORMAT {
            return Err(StateError::Format { found: version.format });
        }
        let tuner: Self = serde_json::from_str(text)?;
        tuner.check().map_err(StateError::Inconsistent)?;
        Ok(tuner)
    }

    /// Writes the state to `path` atomically (see [`write_atomic`]).
    ///
    /// # Errors
    /// [`StateError::Io`] when the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        write_atomic(path, self.to_json()?.as_bytes())?;
        Ok(())
    }

    /// Reads a state written by [`Tuner::save`].
    ///
    /// # Errors
    /// As [`Tuner::from_json`], and [`StateError::Io`] when the file cannot
    /// be read.
    pub fn load(path: &Path) -> Result<Self, StateError> {
        Self::from_json(&fs::read_to_string(path)?)
    }
}

/// Replaces the file at `path` with `contents` so that a crash leaves the
/// old file or the new one: the crate `atomic-write-file` writes a temporary
/// file beside it, syncs it, renames it over `path` and syncs the folder, so
/// the rename itself is durable. For the state, and for any file a driver
/// rewrites whole.
///
/// # Errors
/// Any I/O error; the temporary file is removed on failure.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file = AtomicWriteFile::open(path)?;
    file.write_all(contents)?;
    file.commit()
}
