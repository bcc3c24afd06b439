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
//! - `run-finished`: `games`, `reason` (`complete`, `sprt`).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use serde_json::{Map, Value};

/// An append-only JSON-lines file shared by all threads of a run.
#[derive(Debug)]
pub struct EventLog {
    file: Mutex<Option<File>>,
}

impl EventLog {
    /// Opens (creating or appending to) the log at `path`. A torn last
    /// line left by a killed run is ended first.
    ///
    /// # Errors
    /// When the file cannot be opened.
    pub fn open(path: &Path) -> io::Result<Self> {
        let mut file = OpenOptions::new().create(true).read(true).append(true).open(path)?;
        if file.metadata()?.len() > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::End(-1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                file.write_all(b"\n")?;
            }
        }
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
    fn each_event_is_one_line_and_torn_lines_are_ended() {
        let dir = std::env::temp_dir().join(format!("arena-events-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("events.jsonl");
        std::fs::write(&path, "{\"event\":\"torn").unwrap();
        let log = EventLog::open(&path).unwrap();
        log.write("move", json!({"game": 1, "move": "b5d3", "detail": "a\nb"}));
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let event: Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(event["event"], "move");
        assert_eq!(event["move"], "b5d3");
        assert!(event["time"].as_u64().unwrap() > 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
