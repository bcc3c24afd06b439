//! The event log, `events.jsonl`: one JSON object per line, each written
//! whole with a single write so that a killed run leaves at worst one torn
//! last line. Every object has `event` (its kind) and `time` (Unix
//! milliseconds). Kinds and their other keys:
//!
//! - `run-started`, `run-resumed`: `games` (planned), `done` (already
//!   recorded), `engines`.
//! - `game-started`: `game`, `pair`, `round`, `red`, `blue`.
//! - `move`: `game`, `ply`, `side`, `move`, `ms`, `clock_ms`, `score`.
//! - `engine-started`: `engine`, `startup_ms`.
//! - `engine-failure`: `game`, `engine`, `side`, `kind`, `detail`,
//!   `stderr` (its last lines).
//! - `game-finished`: `game`, `pair`, `result`, `termination`, `plies`,
//!   `red`, `blue`, `red_ms`, `blue_ms`.
//! - `sprt`: `games`, `pairs`, `llr`, `lower_bound`, `upper_bound`,
//!   `decision`.
//! - `run-finished`: `games`, `reason` (`complete`, `sprt`; `stopped` when
//!   the run was stopped with games left, or a tuning run before its budget).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use serde_json::{Map, Value};

/// Cuts a file after its last line end, dropping a last line that a killed
/// writer left without one. Returns the bytes dropped (0 if the file is
/// missing, empty or whole).
///
/// # Errors
/// When the file cannot be read or truncated.
pub fn drop_torn_tail(path: &Path) -> io::Result<u64> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    // Read backwards in blocks until a line end is found.
    let mut end = len;
    let mut block = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let n = usize::try_from(end - start).unwrap_or(block.len());
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut block[..n])?;
        if let Some(i) = block[..n].iter().rposition(|&b| b == b'\n') {
            let keep = start + i as u64 + 1;
            if keep < len {
                file.set_len(keep)?;
            }
            return Ok(len - keep);
        }
        end = start;
    }
    file.set_len(0)?;
    Ok(len)
}

/// An append-only JSON-lines file shared by all threads of a run.
#[derive(Debug)]
pub struct EventLog {
    file: Mutex<Option<File>>,
}

impl EventLog {
    /// Opens (creating or appending to) the log at `path`. A torn last
    /// line left by a killed run is dropped first.
    ///
    /// # Errors
    /// When the file cannot be opened.
    pub fn open(path: &Path) -> io::Result<Self> {
        drop_torn_tail(path)?;
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self {
            file: Mutex::new(Some(file)),
        })
    }

    /// A log that writes nothing.
    #[must_use]
    pub fn disabled() -> Self {
        Self { file: Mutex::new(None) }
    }

    /// Writes one event of kind `kind` with the fields of `fields` (an
    /// object; anything else is stored under `data`). Write errors are
    /// ignored: the log is a diagnostic, the game record is what counts.
    pub fn write(&self, kind: &str, fields: Value) {
        let mut guard = self.file.lock();
        let Some(file) = guard.as_mut() else { return };
        let mut object = Map::new();
        object.insert("event".to_owned(), Value::from(kind));
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        object.insert("time".to_owned(), Value::from(millis));
        match fields {
            Value::Object(map) => object.extend(map),
            Value::Null => {}
            other => {
                object.insert("data".to_owned(), other);
            }
        }
        let mut line = Value::Object(object).to_string();
        line.push('\n');
        let _ = file.write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_event_is_one_line_and_torn_lines_are_dropped() {
        let dir = std::env::temp_dir().join(format!("arena-events-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("events.jsonl");
        std::fs::write(&path, "{\"event\":\"torn").unwrap();
        let log = EventLog::open(&path).unwrap();
        log.write("move", json!({"game": 1, "move": "b5d3", "detail": "a\nb"}));
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1);
        let event: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(event["event"], "move");
        assert_eq!(event["move"], "b5d3");
        assert!(event["time"].as_u64().unwrap() > 0);
        std::fs::write(&path, "whole\nwhole\ntorn").unwrap();
        assert_eq!(drop_torn_tail(&path).unwrap(), 4);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "whole\nwhole\n");
        assert_eq!(drop_torn_tail(&path).unwrap(), 0);
        assert_eq!(drop_torn_tail(&dir.join("missing")).unwrap(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
