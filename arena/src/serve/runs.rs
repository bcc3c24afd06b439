//! The runs `arena serve` shows: each one a directory given on its command
//! line (a match, gauntlet, round robin or tuning run, or a folder of
//! them), read again as it grows. `games.csv` and `events.jsonl` are read
//! from where the last look stopped, so a long run costs only its new
//! rows; the figures come from the arena's own [`Scoreboard`] and
//! [`Summary`], so they are those of `summary.json` and of the terminal,
//! only fresher.
//!
//! With a database (`--db`), its runs join the list: each is exported by
//! [`crate::db::export_run`] into a directory of the server's own cache,
//! again at most once a second while its page or the list is looked at,
//! and is then read like any local run; its state is the database's.

use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use results::{GameRecord, RECORD_HEADER, Sprt, Tally, parse_record_file};
use serde::Serialize;
use serde_json::{Value, json};

use crate::config::{Mode, RunConfig};
use crate::db::{DbError, DbRun, RunState, export_run, redact_url, run_of};
use crate::files::LOCK_FILE;
use crate::runner::{CONFIG_FILE, EVENTS_FILE, GAMES_FILE, saved_config};
use crate::schedule::Schedule;
use crate::score::{Scoreboard, Summary, status_of};
use crate::spec::EngineSpec;
use crate::tune::{TRACES_FILE, TUNE_FILE, TuneConfig, saved_tune_config};

use super::ServeError;

/// One point of the charts: the state after a complete pair.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Games recorded by then.
    pub games: u64,
    /// The first engine's Elo (from the pairs).
    pub elo: f64,
    /// Its 95% interval's half width.
    pub elo_ci95: f64,
    /// The log-likelihood ratio, when the run tests an SPRT.
    pub llr: Option<f64>,
}

/// A game as the run's page lists it (the moves stay in `games.csv`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRow {
    /// Its id.
    pub game: u64,
    /// Its pair.
    pub pair: u64,
    /// Red's engine.
    pub red: String,
    /// Blue's engine.
    pub blue: String,
    /// The result, from Red's side.
    pub result: &'static str,
    /// Why it ended.
    pub termination: &'static str,
    /// Plies played, setups included.
    pub plies: u32,
    /// Where its row starts in `games.csv`.
    #[serde(skip)]
    pub offset: u64,
}

/// What a run is, as its saved settings say.
#[derive(Debug)]
enum Kind {
    Run(Box<RunConfig>),
    Tune(Box<TuneConfig>),
}

/// What has been read of a run's growing files.
#[derive(Debug)]
struct Seen {
    games_offset: u64,
    events_offset: u64,
    board: Scoreboard,
    points: Vec<Point>,
    games: Vec<GameRow>,
    /// The last `run-started`, `run-resumed` or `run-finished` event.
    lifecycle: Option<Value>,
    /// A damaged row (other than a torn last line) stops the reading there.
    error: Option<String>,
}

/// One run directory and what has been read of it.
#[derive(Debug)]
pub struct Run {
    dir: PathBuf,
    name: String,
    kind: Kind,
    sprt: Option<Sprt>,
    planned: u64,
    seen: Mutex<Seen>,
    /// For a database run: its id, its state when exported, and when the
    /// database was last asked about it.
    db: Option<DbLink>,
}

#[derive(Debug)]
struct DbLink {
    id: i64,
    state: &'static str,
    checked: Mutex<Instant>,
}

/// How often a database run is looked up again at most.
const DB_REFRESH: Duration = Duration::from_secs(1);

/// The database whose runs are shown, and the server's cache of their
/// exports: a directory of its own, removed when the server is dropped.
struct DbSource {
    url: String,
    env: crate::db::PgEnv,
    cache: PathBuf,
    client: Mutex<Option<postgres::Client>>,
    generation: AtomicU64,
    listed: Mutex<Instant>,
    /// Export directories replaced, removed two replacements later (a
    /// request may still be reading the last one).
    retired: Mutex<std::collections::VecDeque<PathBuf>>,
}

impl std::fmt::Debug for DbSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DbSource")
            .field("url", &redact_url(&self.url))
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl Drop for DbSource {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.cache);
    }
}

/// The start of a cache directory's name; the server's pid and a time stamp
/// follow.
const CACHE_PREFIX: &str = "arena-serve-db-";

/// Removes the caches of servers that are gone (ended by a signal, they
/// could not remove their own): those whose pid no longer runs.
fn remove_stale_caches(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((pid, stamp)) = name.strip_prefix(CACHE_PREFIX).and_then(|r| r.split_once('-')) else {
            continue;
        };
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if digits(pid) && digits(stamp) && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The state the runs page shows for a database run's state.
fn db_state_name(state: RunState) -> &'static str {
    match state {
        RunState::Running => "running",
        RunState::Complete => "finished",
        RunState::Sprt(results::Decision::AcceptH1) => "accepted",
        RunState::Sprt(results::Decision::AcceptH0) => "rejected",
        RunState::Sprt(results::Decision::Continue) | RunState::Stopped => "stopped",
    }
}

impl DbSource {
    fn open(url: &str, env: &crate::db::PgEnv) -> Result<Self, ServeError> {
        let client = crate::db::connect(url, env).map_err(|e| ServeError::Db(e.to_string()))?;
        let base = std::env::temp_dir();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        remove_stale_caches(&base);
        let cache = base.join(format!("{CACHE_PREFIX}{}-{stamp}", std::process::id()));
        let made = {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().mode(0o700).create(&cache)
        };
        made.map_err(|source| ServeError::Io {
            path: cache.clone(),
            source,
        })?;
        Ok(Self {
            url: url.to_owned(),
            env: env.clone(),
            cache,
            client: Mutex::new(Some(client)),
            generation: AtomicU64::new(0),
            listed: Mutex::new(Instant::now()),
            retired: Mutex::new(std::collections::VecDeque::new()),
        })
    }

    /// Runs `f` with the connection, connecting again when it was lost.
    fn with_client<T>(&self, f: impl FnOnce(&mut postgres::Client) -> Result<T, String>) -> Result<T, String> {
        let mut slot = self.client.lock();
        if slot.as_ref().is_none_or(postgres::Client::is_closed) {
            *slot = Some(crate::db::connect(&self.url, &self.env).map_err(|e| e.to_string())?);
        }
        let client = slot.as_mut().ok_or_else(|| "no connection".to_owned())?;
        let result = f(client);
        if result.is_err() && client.is_closed() {
            *slot = None;
        }
        result
    }

    /// Every run of the database, oldest first.
    fn runs(&self) -> Result<Vec<DbRun>, String> {
        self.with_client(|c| crate::db::runs(c).map_err(|e| e.to_string()))
    }

    /// Exports run `id` into a new directory of the cache and opens it.
    fn materialise(&self, id: i64) -> Result<Run, String> {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let dir = self.cache.join(format!("run-{id}-{generation}"));
        let state = self.with_client(|c| {
            // The state first: a run that ends during the export shows its
            // games up to then as running, and is exported again next time.
            let state = run_of(c, id).map_err(|e| e.to_string())?.state;
            export_run(c, id, &dir).map_err(|e| e.to_string())?;
            Ok(state)
        })?;
        let mut run = Run::open(&dir).map_err(|e| e.to_string())?;
        run.name = format!("db-{id}");
        run.db = Some(DbLink {
            id,
            state: db_state_name(state),
            checked: Mutex::new(Instant::now()),
        });
        Ok(run)
    }

    /// The current state of run `id`.
    fn state_of(&self, id: i64) -> Result<&'static str, String> {
        self.with_client(|c| {
            run_of(c, id)
                .map(|run| db_state_name(run.state))
                .map_err(|e: DbError| e.to_string())
        })
    }

    fn retire(&self, dir: PathBuf) {
        let mut retired = self.retired.lock();
        retired.push_back(dir);
        while retired.len() > 2 {
            if let Some(old) = retired.pop_front() {
                let _ = std::fs::remove_dir_all(old);
            }
        }
    }
}

/// The runs shown: those of the directories given on the command line. A
/// run directory (with `config.json` or `tune.json`) is one run; any other
/// directory is a folder whose run subdirectories are runs, and a run
/// started there later joins the list at its end (so the numbers in URLs
/// never change) the next time the list is asked for.
#[derive(Debug)]
pub struct Runs {
    folders: Vec<PathBuf>,
    list: RwLock<Vec<Arc<Run>>>,
    db: Option<DbSource>,
}

impl Runs {
    /// Finds the runs of `dirs`.
    ///
    /// # Errors
    /// [`ServeError::NotARun`] for a directory that is neither a run nor
    /// a folder holding one; [`ServeError::Io`] for one that cannot be
    /// read; what reading a run's saved settings reports.
    pub fn find(dirs: &[PathBuf]) -> Result<Self, ServeError> {
        Self::find_with_db(dirs, None, &crate::db::PgEnv::default())
    }

    /// Finds the runs of `dirs`, and those of the database at `db` after
    /// them.
    ///
    /// # Errors
    /// As [`Runs::find`]; [`ServeError::Db`] when the database cannot be
    /// reached or a run of it cannot be exported.
    pub fn find_with_db(dirs: &[PathBuf], db: Option<&str>, env: &crate::db::PgEnv) -> Result<Self, ServeError> {
        let mut list = Vec::new();
        let mut folders = Vec::new();
        for dir in dirs {
            if is_run(dir) {
                list.push(Arc::new(Run::open(dir)?));
                continue;
            }
            let inner = runs_in(dir)?;
            if inner.is_empty() {
                return Err(ServeError::NotARun(dir.clone()));
            }
            for path in inner {
                list.push(Arc::new(Run::open(&path)?));
            }
            folders.push(dir.clone());
        }
        let db = db.map(|url| DbSource::open(url, env)).transpose()?;
        if let Some(source) = &db {
            for run in source.runs().map_err(ServeError::Db)? {
                list.push(Arc::new(source.materialise(run.id).map_err(ServeError::Db)?));
            }
        }
        Ok(Self {
            folders,
            list: RwLock::new(list),
            db,
        })
    }

    /// The database's URL, without its password, when runs come from one.
    #[must_use]
    pub fn db_url(&self) -> Option<String> {
        self.db.as_ref().map(|d| redact_url(&d.url))
    }

    /// The database run at `index` exported again if the database was last
    /// asked about it a second ago or more and it changed (or still runs).
    /// A failure keeps what was shown.
    fn refresh_db(&self, index: usize, run: Arc<Run>) -> Arc<Run> {
        let (Some(source), Some(link)) = (&self.db, &run.db) else {
            return run;
        };
        let (id, shown) = (link.id, link.state);
        let due = {
            let mut checked = link.checked.lock();
            let due = checked.elapsed() >= DB_REFRESH;
            if due {
                *checked = Instant::now();
            }
            due
        };
        if !due {
            return run;
        }
        let state = source.state_of(id);
        if state.is_ok_and(|s| s == shown && s != "running") {
            return run;
        }
        let Ok(fresh) = source.materialise(id) else {
            return run;
        };
        let fresh = Arc::new(fresh);
        let mut list = self.list.write();
        if let Some(slot) = list.get_mut(index)
            && Arc::ptr_eq(slot, &run)
        {
            *slot = Arc::clone(&fresh);
            drop(list);
            source.retire(run.dir.clone());
            fresh
        } else {
            // Another request replaced it meanwhile.
            drop(list);
            source.retire(fresh.dir.clone());
            self.list.read().get(index).cloned().unwrap_or(run)
        }
    }

    /// Adds the runs that appeared in the folders since the last look. A
    /// directory whose settings cannot be read (yet) is left for later.
    pub fn rescan(&self) {
        for folder in &self.folders {
            let Ok(inner) = runs_in(folder) else { continue };
            for path in inner {
                let known = self.list.read().iter().any(|r| same_dir(&r.dir, &path));
                if !known && let Ok(run) = Run::open(&path) {
                    self.list.write().push(Arc::new(run));
                }
            }
        }
        if let Some(source) = &self.db {
            let due = {
                let mut listed = source.listed.lock();
                let due = listed.elapsed() >= DB_REFRESH;
                if due {
                    *listed = Instant::now();
                }
                due
            };
            if due && let Ok(runs) = source.runs() {
                for db_run in runs {
                    let known = self
                        .list
                        .read()
                        .iter()
                        .any(|r| r.db.as_ref().is_some_and(|l| l.id == db_run.id));
                    if !known && let Ok(run) = source.materialise(db_run.id) {
                        self.list.write().push(Arc::new(run));
                    }
                }
            }
            let count = self.list.read().len();
            for index in 0..count {
                // The read lock must be gone before a refresh writes.
                let run = self.list.read().get(index).cloned();
                if let Some(run) = run {
                    self.refresh_db(index, run);
                }
            }
        }
    }

    /// Run number `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<Arc<Run>> {
        let run = self.list.read().get(index).cloned()?;
        Some(self.refresh_db(index, run))
    }

    /// Every run, in number order.
    #[must_use]
    pub fn all(&self) -> Vec<Arc<Run>> {
        self.list.read().clone()
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// The run directories directly inside `dir`, by name.
fn runs_in(dir: &Path) -> Result<Vec<PathBuf>, ServeError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ServeError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut inner: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir() && is_run(p))
        .collect();
    inner.sort();
    Ok(inner)
}

fn is_run(dir: &Path) -> bool {
    dir.join(CONFIG_FILE).is_file() || dir.join(TUNE_FILE).is_file()
}

impl Run {
    fn open(dir: &Path) -> Result<Self, ServeError> {
        let bad = |reason: String| ServeError::BadRun {
            dir: dir.to_path_buf(),
            reason,
        };
        let (kind, names, pairings, sprt, planned) = if dir.join(TUNE_FILE).is_file() {
            let config = saved_tune_config(dir).map_err(|e| bad(e.to_string()))?;
            let names = vec![config.plus_name(), config.minus_name()];
            let planned = config.games;
            (Kind::Tune(Box::new(config)), names, vec![(0, 1)], None, planned)
        } else {
            let config = saved_config(dir).map_err(|e| bad(e.to_string()))?;
            let schedule = Schedule::new(&config, None);
            let names = config.engines.iter().map(|e| e.name.clone()).collect();
            let sprt = match &config.sprt {
                Some(s) => Some(Sprt::new(s.to_results()).map_err(|e| bad(format!("sprt: {e}")))?),
                None => None,
            };
            let pairings = schedule.pairings().to_vec();
            (Kind::Run(Box::new(config)), names, pairings, sprt, schedule.len())
        };
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| dir.display().to_string());
        Ok(Self {
            dir: dir.to_path_buf(),
            name,
            kind,
            sprt,
            planned,
            db: None,
            seen: Mutex::new(Seen {
                games_offset: 0,
                events_offset: 0,
                board: Scoreboard::new(&names, &pairings),
                points: Vec::new(),
                games: Vec::new(),
                lifecycle: None,
                error: None,
            }),
        })
    }

    /// The run's directory, as given.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Its name: the directory's.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its id in the database, for a database run.
    #[must_use]
    pub fn db_run(&self) -> Option<i64> {
        self.db.as_ref().map(|l| l.id)
    }

    /// Whether it is a tuning run.
    #[must_use]
    pub fn is_tune(&self) -> bool {
        matches!(self.kind, Kind::Tune(_))
    }

    /// The path of one of the run's files, by its fixed name.
    pub(super) fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn engines(&self) -> Vec<&EngineSpec> {
        match &self.kind {
            Kind::Run(c) => c.engines.iter().collect(),
            Kind::Tune(c) => vec![&c.engine],
        }
    }

    /// Reads what was added to the run's files since the last look.
    fn refresh(&self) -> parking_lot::MutexGuard<'_, Seen> {
        let mut seen = self.seen.lock();
        if seen.error.is_none()
            && let Err(e) = self.read_games(&mut seen)
        {
            seen.error = Some(e);
        }
        self.read_events(&mut seen);
        seen
    }

    fn read_games(&self, seen: &mut Seen) -> Result<(), String> {
        let path = self.dir.join(GAMES_FILE);
        let start = seen.games_offset;
        let Some(bytes) = read_whole_lines(&path, &mut seen.games_offset) else {
            return Ok(());
        };
        // The new rows, behind the header that the parser wants first.
        let header = header_line();
        let skip = if start == 0 && bytes.starts_with(&header) {
            header.len()
        } else {
            0
        };
        let body = &bytes[skip..];
        // Where each new row starts in the file, for the viewer to read
        // one game without reading them all.
        let row_starts: Vec<u64> = std::iter::once(0)
            .chain(
                body.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .map(|i| start + (skip + i) as u64)
            .collect();
        let mut text = header;
        text.extend_from_slice(body);
        let file = parse_record_file(&path, &text).map_err(|e| e.to_string())?;
        for game in &file.games {
            // Line 1 is the header, line 2 the first new row.
            let row = usize::try_from(game.line.saturating_sub(2)).unwrap_or(usize::MAX);
            let offset = row_starts.get(row).copied().unwrap_or(0);
            self.count(seen, &game.record, offset);
        }
        Ok(())
    }

    fn count(&self, seen: &mut Seen, record: &GameRecord, offset: u64) {
        seen.games.push(GameRow {
            offset,
            game: record.game,
            pair: record.pair,
            red: record.red.clone(),
            blue: record.blue.clone(),
            result: record.result.as_str(),
            termination: record.termination.as_str(),
            plies: record.plies,
        });
        if seen.board.add(record) {
            let main = seen.board.main();
            let estimates = main.pentanomial.estimates();
            seen.points.push(Point {
                games: seen.board.games(),
                elo: estimates.elo,
                elo_ci95: estimates.elo_ci95,
                llr: self.sprt.as_ref().map(|s| status_of(s, &main).llr),
            });
        }
    }

    fn read_events(&self, seen: &mut Seen) {
        let path = self.dir.join(EVENTS_FILE);
        let Some(bytes) = read_whole_lines(&path, &mut seen.events_offset) else {
            return;
        };
        // Only the run's starts and ends matter here; the moves are many,
        // so a line is parsed only when it names one of those.
        for line in bytes.split(|&b| b == b'\n') {
            let interesting = [&b"\"run-started\""[..], b"\"run-resumed\"", b"\"run-finished\""]
                .iter()
                .any(|k| line.windows(k.len()).any(|w| w == *k));
            if interesting && let Ok(value) = serde_json::from_slice::<Value>(line) {
                seen.lifecycle = Some(value);
            }
        }
    }

    /// The run's state: `running` while a runner holds its directory's
    /// lock; after its end `accepted` or `rejected` (an SPRT decided),
    /// `finished` (all games played); otherwise `stopped`.
    /// A database run's state is the database's.
    fn state(&self, seen: &Seen, summary: &Summary) -> &'static str {
        if let Some(link) = &self.db {
            return link.state;
        }
        if lock_is_held(&self.dir.join(LOCK_FILE)) {
            return "running";
        }
        let finished = seen
            .lifecycle
            .as_ref()
            .filter(|e| e["event"] == "run-finished")
            .and_then(|e| e["reason"].as_str());
        match finished {
            Some("sprt") => match summary.decision {
                Some("accept-h1") => "accepted",
                Some("accept-h0") => "rejected",
                _ => "stopped",
            },
            Some("complete") => "finished",
            _ => "stopped",
        }
    }

    /// The run's figures (for the list of runs): its name, kind, engines and
    /// their limits, the SPRT design, the keys of `summary.json` computed
    /// from `games.csv` as it is now, and the state.
    #[must_use]
    pub fn overview(&self, index: usize) -> Value {
        let seen = self.refresh();
        let standings = seen.board.standings(self.planned, self.sprt.as_ref());
        // A run stopped with games left is not finished.
        let ended = seen
            .lifecycle
            .as_ref()
            .is_some_and(|e| e["event"] == "run-finished" && e["reason"] != "stopped");
        let summary = Summary::new(&seen.board, &standings, ended);
        let state = self.state(&seen, &summary);
        let engines: Vec<Value> = self
            .engines()
            .iter()
            .map(|e| json!({"name": e.name, "limits": e.limits.describe()}))
            .collect();
        let sprt = self.sprt.as_ref().map(|s| {
            let c = s.config();
            json!({"elo0": c.elo0, "elo1": c.elo1, "alpha": c.alpha, "beta": c.beta, "model": c.model.name()})
        });
        let mode = match &self.kind {
            Kind::Run(c) => match c.mode {
                Mode::Match => "match",
                Mode::Gauntlet => "gauntlet",
                Mode::Roundrobin => "roundrobin",
            },
            Kind::Tune(_) => "tune",
        };
        json!({
            "index": index,
            "name": self.name,
            "mode": mode,
            "engines": engines,
            "sprt_design": sprt,
            "state": state,
            "summary": summary,
            "error": seen.error,
            "db_run": self.db_run(),
        })
    }

    /// The run's page: its overview, the chart points, and the games, newest
    /// first (at most `limit`).
    #[must_use]
    pub fn details(&self, index: usize, limit: usize) -> Value {
        let mut overview = self.overview(index);
        let seen = self.seen.lock();
        let games: Vec<&GameRow> = seen.games.iter().rev().take(limit).collect();
        overview["games_listed"] = json!(games);
        overview["points"] = json!(seen.points.len());
        overview["has_traces"] = json!(self.is_tune() && self.dir.join(TRACES_FILE).is_file());
        overview
    }

    /// The chart points read so far, and the SPRT bounds if any.
    pub(super) fn points(&self) -> (Vec<Point>, Option<(f64, f64)>) {
        let seen = self.refresh();
        let bounds = self.sprt.as_ref().map(|s| (s.lower_bound(), s.upper_bound()));
        (seen.points.clone(), bounds)
    }

    /// Whether a game of this id is recorded.
    pub(super) fn has_game(&self, game: u64) -> bool {
        self.refresh().games.iter().any(|g| g.game == game)
    }

    /// The record of game `game`, read from its row of `games.csv` alone.
    /// `None` when no row has that id.
    ///
    /// # Errors
    /// When the file cannot be read or the row does not parse, as a text.
    pub(super) fn game(&self, game: u64) -> Result<Option<GameRecord>, String> {
        let Some(offset) = self.refresh().games.iter().find(|g| g.game == game).map(|g| g.offset) else {
            return Ok(None);
        };
        let path = self.dir.join(GAMES_FILE);
        let fail = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut file = File::open(&path).map_err(fail)?;
        file.seek(SeekFrom::Start(offset)).map_err(fail)?;
        let mut row = Vec::new();
        std::io::BufReader::new(file)
            .read_until(b'\n', &mut row)
            .map_err(fail)?;
        let mut text = header_line();
        text.extend_from_slice(&row);
        let parsed = parse_record_file(&path, &text).map_err(|e| e.to_string())?;
        Ok(parsed.games.into_iter().map(|g| g.record).find(|r| r.game == game))
    }
}

/// The record header, as its line.
fn header_line() -> Vec<u8> {
    let mut header = RECORD_HEADER.join(",").into_bytes();
    header.push(b'\n');
    header
}

/// Reads `path` from `*offset` up to its last line end and moves the offset
/// there: a row still being written is read next time. `None` when the
/// file is missing or has no new whole line.
fn read_whole_lines(path: &Path, offset: &mut u64) -> Option<Vec<u8>> {
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len < *offset {
        // Rewritten from scratch: start over would double count; keep what
        // was read (a resume only ever drops a torn, unread tail).
        *offset = len;
        return None;
    }
    file.seek(SeekFrom::Start(*offset)).ok()?;
    let mut bytes = Vec::new();
    file.take(len - *offset).read_to_end(&mut bytes).ok()?;
    let end = bytes.iter().rposition(|&b| b == b'\n')? + 1;
    bytes.truncate(end);
    *offset += end as u64;
    Some(bytes)
}

/// Whether some process holds the `flock` of the lock file, as
/// `/proc/locks` lists it by inode: looking never takes the lock, so a
/// runner starting at that moment is never refused because of the server.
fn lock_is_held(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let inode = meta.ino().to_string();
    let Ok(locks) = std::fs::read_to_string("/proc/locks") else {
        return false;
    };
    locks.lines().any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        fields.get(1) == Some(&"FLOCK")
            && fields
                .iter()
                .any(|f| f.matches(':').count() == 2 && f.rsplit(':').next() == Some(inode.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("arena-serve-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn only_whole_lines_are_read_and_each_once() {
        let dir = scratch("lines");
        let path = dir.join("file");
        let mut offset = 0;
        assert_eq!(read_whole_lines(&path, &mut offset), None, "missing file");
        std::fs::write(&path, "one\ntw").unwrap();
        assert_eq!(read_whole_lines(&path, &mut offset).as_deref(), Some(&b"one\n"[..]));
        assert_eq!(offset, 4);
        assert_eq!(read_whole_lines(&path, &mut offset), None, "only a torn line is new");
        std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
        assert_eq!(
            read_whole_lines(&path, &mut offset).as_deref(),
            Some(&b"two\nthree\n"[..])
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_held_lock_is_seen_without_taking_it() {
        let dir = scratch("lock");
        let path = dir.join(LOCK_FILE);
        assert!(!lock_is_held(&path), "no file");
        let file = File::create(&path).unwrap();
        assert!(!lock_is_held(&path), "not locked");
        file.try_lock().unwrap();
        assert!(lock_is_held(&path), "locked");
        // Looking did not take it: another handle still cannot.
        let other = File::open(&path).unwrap();
        assert!(other.try_lock().is_err());
        drop(file);
        assert!(!lock_is_held(&path), "released");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
