//! The figures of a database run, and its export to a run directory: the
//! same `config.json`, `openings.txt`, `games.csv`, `events.jsonl` and
//! `summary.json` as a local run, written by the same writers, so that
//! `leaper replay`, `arena stats --from` and `arena serve` read it as they
//! read a local run. A tuning run also gets `tune.json`, `state.json`,
//! `history.csv` and `traces.svg`, as a local `arena tune` writes them.

use std::path::Path;

use postgres::GenericClient;
use results::{RecordWriter, Sprt};
use serde_json::json;

use super::DbError;
use super::queue::{DbRun, RunState, StoredGame, run_games, run_of, scoreboard};
use crate::events::EventLog;
use crate::files::write_json;
use crate::openings::write_openings;
use crate::runner::{CONFIG_FILE, EVENTS_FILE, GAMES_FILE, OPENINGS_FILE, SUMMARY_FILE, write_game_events};
use crate::score::{Scoreboard, Standings, Summary};

/// The standings of a run's recorded games (the SPRT, Elo and counts of
/// a local run, from the same code).
///
/// # Errors
/// A run whose SPRT settings do not make a test.
pub fn standings(run: &DbRun, games: &[StoredGame]) -> Result<(Scoreboard, Standings), DbError> {
    let sprt = match &run.config.sprt {
        Some(s) => {
            Some(Sprt::new(s.to_results()).map_err(|e| DbError::Content(format!("run {}: --sprt: {e}", run.id)))?)
        }
        None => None,
    };
    let board = scoreboard(run, games);
    let standings = board.standings(run.total_games, sprt.as_ref());
    Ok((board, standings))
}

/// The summary of a run's recorded games, as `summary.json` holds it.
///
/// # Errors
/// As for [`standings`].
pub fn summary(run: &DbRun, games: &[StoredGame]) -> Result<Summary, DbError> {
    let (board, standings) = standings(run, games)?;
    Ok(Summary::new(&board, &standings, !run.state.is_running()))
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The database.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The directory already holds a run.
    #[error("{0} already holds a run: choose another --out")]
    Exists(String),
    /// A file could not be written.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Writes run `id` into the directory `out` (created; refused if it
/// holds a run); returns its summary.
///
/// # Errors
/// [`ExportError`].
pub fn export_run(client: &mut impl GenericClient, id: i64, out: &Path) -> Result<Summary, ExportError> {
    let run = run_of(client, id)?;
    let games = run_games(client, id)?;
    let games_path = out.join(GAMES_FILE);
    if out.join(CONFIG_FILE).exists() || games_path.exists() {
        return Err(ExportError::Exists(out.display().to_string()));
    }
    let write_err = |path: &Path| {
        let path = path.display().to_string();
        move |e: &dyn std::fmt::Display| ExportError::Write {
            path,
            reason: e.to_string(),
        }
    };
    std::fs::create_dir_all(out).map_err(|e| write_err(out)(&e))?;
    let mut config = run.config.clone();
    if let (Some(list), Some(o)) = (&run.openings, &mut config.openings) {
        let copy = out.join(OPENINGS_FILE);
        write_openings(&copy, list).map_err(|e| write_err(&copy)(&e))?;
        o.file = copy;
    }
    let path = out.join(CONFIG_FILE);
    write_json(&path, &config).map_err(|e| write_err(&path)(&e))?;
    let mut writer = RecordWriter::create(&games_path).map_err(|e| write_err(&games_path)(&e))?;
    let events_path = out.join(EVENTS_FILE);
    let events = EventLog::open(&events_path).map_err(|e| write_err(&events_path)(&e))?;
    let names: Vec<&str> = run.config.engines.iter().map(|e| e.name.as_str()).collect();
    events.write(
        "run-started",
        json!({"games": run.total_games, "done": 0, "engines": names, "db_run": id}),
    );
    for game in &games {
        writer.write(&game.record).map_err(|e| write_err(&games_path)(&e))?;
        // A tuning run's games carry their trial, as a local tune writes them.
        let trial = (run.mode == super::tune::TUNE_MODE).then_some(game.record.round);
        write_game_events(&events, &game.record, &game.violations, trial);
    }
    drop(writer);
    let summary = summary(&run, &games)?;
    let reason = match run.state {
        RunState::Sprt(_) => "sprt",
        RunState::Complete => "complete",
        RunState::Running | RunState::Stopped => "stopped",
    };
    events.write("run-finished", json!({"games": games.len(), "reason": reason}));
    let path = out.join(SUMMARY_FILE);
    write_json(&path, &summary).map_err(|e| write_err(&path)(&e))?;
    // A tuning run also gets the tuner's files, as a local tune writes them.
    super::tune::export_tune(client, id, out).map_err(|e| write_err(out)(&e))?;
    Ok(summary)
}
