//! A whole run in an output directory: the schedule fed to a
//! [`crate::GamePool`] by [`play_fed`], every finished game written to `games.csv` before it is
//! counted, events to `events.jsonl`, the SPRT checked after each complete
//! pair, and `summary.json` rewritten at each report and at the end.
//!
//! Resume: the config is saved as `config.json` (with a copy of the
//! openings), so [`resume`] needs only the directory. It re-reads
//! `games.csv` (a torn last row is dropped from the file), counts those
//! games, and plays the ones whose ids are missing.
//! Since game `i` depends only on the config and `i`, the finished run has
//! the games of an uninterrupted one, none lost and none twice.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use leaper::Color;
use results::{Decision, GameRecord, RecordWriter, Sprt};
use serde_json::json;
use thiserror::Error;

use crate::config::{ConfigError, RunConfig};
use crate::events::EventLog;
use crate::files::{FileError, LockError, RunLock, io_error, read_json, write_json};
use crate::game::MoveEvent;
use crate::openings::{Opening, OpeningsError, read_openings, write_openings};
use crate::player::{CodeCupEngine, EngineFailure, Interrupted, UciEngine, Violations};
use crate::pool::{Feed, play_fed};
use crate::schedule::Schedule;
use crate::score::{Scoreboard, Standings, Summary, status_of};
use crate::slot::{FinishedGame, GameJob, GameObserver};
use crate::spec::{EngineSpec, Proto};

/// The files of a run directory.
pub const CONFIG_FILE: &str = "config.json";
/// The game record.
pub const GAMES_FILE: &str = "games.csv";
/// The event log.
pub const EVENTS_FILE: &str = "events.jsonl";
/// The final (and periodic) statistics.
pub const SUMMARY_FILE: &str = "summary.json";
/// The copy of the openings file.
pub const OPENINGS_FILE: &str = "openings.txt";

/// What a run reports as it goes; every method has an empty default.
pub trait RunObserver: Send + Sync {
    /// The run starts (or resumes) with these standings.
    fn run_started(&self, _standings: &Standings, _resumed: bool) {}
    /// A game was recorded and counted.
    fn game_finished(&self, _record: &GameRecord, _standings: &Standings) {}
    /// An engine failed in a game.
    fn engine_failed(&self, _game: u64, _engine: &str, _failure: &EngineFailure) {}
    /// Every `report_every` games: the standings and the summary.
    fn report(&self, _standings: &Standings, _summary: &Summary) {}
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl RunObserver for Quiet {}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every scheduled game was played.
    Complete,
    /// The SPRT decided.
    Sprt(Decision),
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The final statistics (also in `summary.json`).
    pub summary: Summary,
    /// The final standings.
    pub standings: Standings,
    /// Why the run ended.
    pub end: RunEnd,
    /// Games played by this call (not counting those of earlier runs).
    pub played: u64,
    /// Damaged rows of `games.csv` on resume: a torn last row (dropped from
    /// the file) and rows that do not parse (skipped).
    pub damaged_rows: usize,
}

/// Why a run could not be started or continued.
#[derive(Debug, Error)]
pub enum RunError {
    /// Bad settings.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A new run into a directory that holds one.
    #[error("{0} already holds a run: continue it with --resume, or choose another --out")]
    Exists(PathBuf),
    /// `--resume` on a directory without a saved run.
    #[error("{0} holds no run to resume (no config.json)")]
    NoRun(PathBuf),
    /// Another runner holds the directory.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// A file of the run could not be read, written or parsed.
    #[error(transparent)]
    File(#[from] FileError),
    /// The openings file.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// The game record could not be written.
    #[error(transparent)]
    Write(#[from] results::WriteError),
    /// The game record could not be read.
    #[error(transparent)]
    Read(#[from] results::ReadError),
    /// An engine failed its check before the run.
    #[error("engine {engine}: {failure}")]
    Engine {
        /// The engine.
        engine: String,
        /// What went wrong.
        failure: String,
    },
}

/// What an engine said about itself when checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    /// Its `id name`, for UCI engines.
    pub id_name: Option<String>,
    /// The options it offers, for UCI engines.
    pub options: Vec<String>,
    /// The same options with their types, defaults and ranges.
    pub declared: Vec<protocol::UciOption>,
}

/// Starts an engine once to check it: it must start, answer the UCI
/// handshake, and offer every option its spec sets.
///
/// # Errors
/// [`RunError::Engine`] saying what went wrong.
pub fn probe_engine(spec: &EngineSpec) -> Result<EngineInfo, RunError> {
    let fail = |failure: String| RunError::Engine {
        engine: spec.name.clone(),
        failure,
    };
    match spec.proto {
        Proto::Uci => {
            let engine = UciEngine::start(Arc::new(spec.clone()), None).map_err(|e| match e {
                Interrupted::Failed(f) => {
                    let mut text = f.to_string();
                    if !f.stderr.is_empty() {
                        text.push_str(&format!(" (stderr: {})", f.stderr.join(" | ")));
                    }
                    fail(text)
                }
                Interrupted::Cancelled => fail("cancelled".to_owned()),
            })?;
            let unknown = engine.unknown_options();
            let info = EngineInfo {
                id_name: engine.id_name().map(str::to_owned),
                options: engine.offered_options().to_vec(),
                declared: engine.declared_options().to_vec(),
            };
            engine.quit();
            crate::player::wait_for_quitting_engines();
            if !unknown.is_empty() {
                return Err(fail(format!(
                    "no option named {} (it offers: {})",
                    unknown.join(", "),
                    info.options.join(", ")
                )));
            }
            Ok(info)
        }
        Proto::Codecup => {
            let engine = CodeCupEngine::start(spec).map_err(|f| fail(f.to_string()))?;
            engine.quit();
            Ok(EngineInfo {
                id_name: None,
                options: Vec::new(),
                declared: Vec::new(),
            })
        }
    }
}

/// Starts a new run of `config` in `out` (created if missing; refused if
/// it already holds a run). Relative paths in the config are taken from
/// the current directory.
///
/// # Errors
/// [`RunError`] for bad settings, an engine that fails its check, or files
/// that cannot be written. Engine failures during games are results, not
/// errors.
pub fn run(mut config: RunConfig, out: &Path, observer: Arc<dyn RunObserver>) -> Result<RunReport, RunError> {
    config.validate()?;
    let cwd = std::env::current_dir().map_err(io_error(Path::new(".")))?;
    config.absolutize(&cwd);
    let out = if out.is_relative() {
        cwd.join(out)
    } else {
        out.to_path_buf()
    };
    if out.join(CONFIG_FILE).exists() || out.join(GAMES_FILE).exists() {
        return Err(RunError::Exists(out));
    }
    std::fs::create_dir_all(&out).map_err(io_error(&out))?;
    // Held to the end of the run: a second runner on `out` is refused.
    let _lock = RunLock::acquire(&out)?;
    if out.join(CONFIG_FILE).exists() || out.join(GAMES_FILE).exists() {
        return Err(RunError::Exists(out));
    }
    let openings = match &mut config.openings {
        Some(o) => {
            let list = read_openings(&o.file)?;
            let copy = out.join(OPENINGS_FILE);
            write_openings(&copy, &list).map_err(io_error(&copy))?;
            o.file = copy;
            Some(list)
        }
        None => None,
    };
    // Check the engines before anything is saved, so a typo leaves no run
    // behind.
    for spec in &config.engines {
        probe_engine(spec)?;
    }
    let path = out.join(CONFIG_FILE);
    write_json(&path, &config).map_err(io_error(&path))?;
    execute(&config, openings, &out, observer, false)
}

/// Reads the config saved in a run directory.
///
/// # Errors
/// [`RunError::NoRun`] without one, [`FileError::Content`] when it does
/// not parse.
pub fn saved_config(out: &Path) -> Result<RunConfig, RunError> {
    let config: RunConfig = read_json(&out.join(CONFIG_FILE), RunError::NoRun(out.to_path_buf()))?;
    config.validate()?;
    Ok(config)
}

/// Continues the run saved in `out`, optionally with another number of
/// game slots (which changes no game: game `i` depends on the seed and
/// `i` only).
///
/// # Errors
/// As for [`run`], and [`RunError::NoRun`] when `out` holds no run.
pub fn resume(out: &Path, concurrency: Option<usize>, observer: Arc<dyn RunObserver>) -> Result<RunReport, RunError> {
    let mut config = saved_config(out)?;
    // Held to the end of the run: a second runner on `out` is refused.
    let _lock = RunLock::acquire(out)?;
    if let Some(n) = concurrency {
        config.concurrency = n;
        config.validate()?;
    }
    let openings = match &config.openings {
        Some(o) => Some(read_openings(&o.file)?),
        None => None,
    };
    execute(&config, openings, out, observer, true)
}

/// What a relay does with an engine failure besides logging it (tell the
/// run's or the tuner's observer): game id, engine name, failure.
pub(crate) type OnFailure = Box<dyn Fn(u64, &str, &EngineFailure) + Send + Sync>;

/// Relays the slots' reports to the event log (the one writer of the game
/// events of matches and tuning runs alike) and to an observer.
pub(crate) struct Relay {
    pub(crate) events: Arc<EventLog>,
    pub(crate) on_failure: OnFailure,
}

fn side_name(color: Color) -> &'static str {
    match color {
        Color::Red => "red",
        Color::Blue => "blue",
    }
}

fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl GameObserver for Relay {
    fn game_started(&self, job: &GameJob) {
        self.events.write(
            "game-started",
            json!({"game": job.id, "pair": job.pair, "round": job.round, "red": job.red.name, "blue": job.blue.name}),
        );
    }

    fn move_played(&self, job: &GameJob, mv: &MoveEvent) {
        self.events.write(
            "move",
            json!({
                "game": job.id, "ply": mv.ply, "side": side_name(mv.side), "move": mv.text,
                "ms": ms(mv.elapsed), "clock_ms": mv.clock.map(ms), "score": mv.score,
            }),
        );
    }

    fn engine_failed(&self, job: &GameJob, side: Color, failure: &EngineFailure) {
        let engine = &job.spec(side).name;
        self.events.write(
            "engine-failure",
            json!({
                "game": job.id, "engine": engine, "side": side_name(side), "kind": failure.kind.name(),
                "detail": failure.detail, "stderr": failure.stderr,
            }),
        );
        (self.on_failure)(job.id, engine, failure);
    }

    fn engine_started(&self, spec: &EngineSpec, startup: std::time::Duration) {
        self.events.write(
            "engine-started",
            json!({"engine": spec.name, "startup_ms": startup.as_secs_f64() * 1000.0}),
        );
    }
}

/// The events of a recorded game: a `protocol-violation` for each engine
/// (Red, Blue) that wrote out of turn or had lines dropped, then
/// `game-finished` (with its trial in a tuning run).
pub(crate) fn write_game_events(
    events: &EventLog,
    record: &GameRecord,
    violations: &[Violations; 2],
    trial: Option<u64>,
) {
    for (engine, v) in [&record.red, &record.blue].into_iter().zip(violations) {
        if v.count > 0 || v.dropped > 0 {
            events.write(
                "protocol-violation",
                json!({"game": record.game, "engine": engine, "count": v.count, "lines": v.lines, "dropped": v.dropped}),
            );
        }
    }
    let mut fields = json!({
        "game": record.game, "pair": record.pair, "result": record.result.as_str(),
        "termination": record.termination.as_str(), "plies": record.plies,
        "red": record.red, "blue": record.blue, "red_ms": record.red_ms, "blue_ms": record.blue_ms,
    });
    if let Some(trial) = trial {
        fields["trial"] = json!(trial);
    }
    events.write("game-finished", fields);
}

/// Counts the `protocol-violation` events of `events.jsonl` whose games
/// are in `done` (a resumed run's earlier sessions); a torn or unreadable
/// line is skipped (the record of games is `games.csv`).
fn recount_violations(path: &Path, done: &HashSet<u64>, board: &mut Scoreboard) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    for line in text.lines() {
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if event["event"] != "protocol-violation" || !event["game"].as_u64().is_some_and(|g| done.contains(&g)) {
            continue;
        }
        if let Some(engine) = event["engine"].as_str() {
            let count = event["count"].as_u64().unwrap_or(0);
            board.add_violations(engine, count, event["dropped"].as_u64().unwrap_or(0));
        }
    }
}

/// Writes `summary.json` atomically, so a reader never sees half of it.
fn write_summary(out: &Path, summary: &Summary) -> Result<(), RunError> {
    let path = out.join(SUMMARY_FILE);
    Ok(write_json(&path, summary).map_err(io_error(&path))?)
}

/// The scheduled games not yet recorded, fed to the pool; each finished
/// game is written, counted, logged, checked by the SPRT and reported.
struct RunFeed<'a> {
    schedule: &'a Schedule,
    todo: std::vec::IntoIter<u64>,
    writer: RecordWriter<std::fs::File>,
    board: Scoreboard,
    events: &'a EventLog,
    observer: &'a dyn RunObserver,
    sprt: Option<&'a Sprt>,
    report_every: u64,
    out: &'a Path,
    played: u64,
    end: RunEnd,
}

impl Feed for RunFeed<'_> {
    type Error = RunError;

    fn next_job(&mut self) -> Result<Option<GameJob>, RunError> {
        Ok(self.todo.next().and_then(|id| self.schedule.job(id)))
    }

    fn finished(&mut self, game: FinishedGame) -> Result<bool, RunError> {
        let record = game.to_record();
        self.writer.write(&record)?;
        self.played += 1;
        let total = self.schedule.len();
        let completed_pair = self.board.add(&record);
        write_game_events(self.events, &record, &game.violations, None);
        for (engine, v) in [&record.red, &record.blue].into_iter().zip(&game.violations) {
            self.board.add_violations(engine, v.count, v.dropped);
        }
        let standings = self.board.standings(total, self.sprt);
        self.observer.game_finished(&record, &standings);
        if completed_pair && let Some((_, status)) = standings.sprt {
            let t = standings.main.trinomial;
            self.events.write(
                "sprt",
                json!({
                    "games": t.wins + t.draws + t.losses, "pairs": standings.main.pentanomial.pairs(),
                    "llr": status.llr, "lower_bound": status.lower_bound, "upper_bound": status.upper_bound,
                    "decision": status.decision.name(),
                }),
            );
            if status.decision != Decision::Continue {
                self.end = RunEnd::Sprt(status.decision);
                return Ok(false);
            }
        }
        let games = self.board.games();
        if games.is_multiple_of(self.report_every) && games < total {
            let summary = Summary::new(&self.board, &standings, false);
            write_summary(self.out, &summary)?;
            self.observer.report(&standings, &summary);
        }
        Ok(true)
    }
}

fn execute(
    config: &RunConfig,
    openings: Option<Vec<Opening>>,
    out: &Path,
    observer: Arc<dyn RunObserver>,
    resumed: bool,
) -> Result<RunReport, RunError> {
    let schedule = Schedule::new(config, openings);
    let total = schedule.len();
    let names: Vec<String> = schedule.engines().iter().map(|e| e.name.clone()).collect();
    let mut board = Scoreboard::new(&names, schedule.pairings());
    let sprt = match &config.sprt {
        Some(s) => Some(Sprt::new(s.to_results()).map_err(|e| ConfigError::Invalid(format!("--sprt: {e}")))?),
        None => None,
    };

    // Count what earlier runs recorded; a game is done once its row is.
    let games_path = out.join(GAMES_FILE);
    let mut done: HashSet<u64> = HashSet::new();
    let mut damaged_rows = 0;
    // A row torn by a kill is dropped, so that the file stays whole for
    // `leaper replay` and readers; its game is simply played again.
    let torn = crate::events::drop_torn_tail(&games_path).map_err(io_error(&games_path))?;
    if torn > 0 {
        damaged_rows += 1;
    }
    if games_path.exists() {
        let file = results::read_record_file(&games_path)?;
        damaged_rows += file.damaged.len();
        for record in file.records() {
            if record.game < total && done.insert(record.game) {
                board.add(record);
            }
        }
    }
    let decided = |board: &Scoreboard| {
        sprt.as_ref()
            .map(|s| status_of(s, &board.main()).decision)
            .filter(|d| *d != Decision::Continue)
    };

    recount_violations(&out.join(EVENTS_FILE), &done, &mut board);
    let events = Arc::new(EventLog::open(&out.join(EVENTS_FILE)).map_err(io_error(&out.join(EVENTS_FILE)))?);
    let writer = RecordWriter::append(&games_path)?;
    let standings = board.standings(total, sprt.as_ref());
    events.write(
        if resumed { "run-resumed" } else { "run-started" },
        json!({"games": total, "done": done.len(), "engines": names}),
    );
    observer.run_started(&standings, resumed);

    let end = decided(&board).map_or(RunEnd::Complete, RunEnd::Sprt);
    let mut feed = RunFeed {
        schedule: &schedule,
        todo: (0..total)
            .filter(|id| !done.contains(id))
            .collect::<Vec<_>>()
            .into_iter(),
        writer,
        board,
        events: &events,
        observer: &*observer,
        sprt: sprt.as_ref(),
        report_every: config.report_every,
        out,
        played: 0,
        end,
    };
    if end == RunEnd::Complete && done.len() as u64 != total {
        if resumed {
            for spec in schedule.engines() {
                probe_engine(spec)?;
            }
        }
        let failures = Arc::clone(&observer);
        let relay = Arc::new(Relay {
            events: Arc::clone(&events),
            on_failure: Box::new(move |game, engine, failure| failures.engine_failed(game, engine, failure)),
        });
        play_fed(config.concurrency, relay, &mut feed)?;
    }
    let RunFeed { board, played, end, .. } = feed;

    let standings = board.standings(total, sprt.as_ref());
    let finished = end != RunEnd::Complete || board.games() == total;
    let summary = Summary::new(&board, &standings, finished);
    write_summary(out, &summary)?;
    events.write(
        "run-finished",
        json!({"games": board.games(), "reason": match end {
            RunEnd::Sprt(_) => "sprt",
            RunEnd::Complete if finished => "complete",
            // Games left: the arena was stopped.
            RunEnd::Complete => "stopped",
        }}),
    );
    Ok(RunReport {
        summary,
        standings,
        end,
        played,
        damaged_rows,
    })
}
