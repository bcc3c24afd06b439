//! The arena's own overhead, measured with an engine that answers at once
//! (the mock engine in instant mode): games per second, wall and arena CPU
//! milliseconds per move, and the start-up time of an engine process
//! (spawn to `readyok`), which is what `restart=on` pays twice per game.
//! With an instant engine nearly all of the wall time per move is the
//! round trip through the pipes plus the arena's checking and logging.
//!
//! [`db_bench`] measures runs in a database instead: workers on this
//! machine playing a match of an engine whose move time is fixed and uses
//! no CPU, for games per second by number of workers (how runs over many
//! machines scale) and the database's time per game.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::config::{Mode, RunConfig};
use crate::pool::{GamePool, PoolResult};
use crate::runner::RunError;
use crate::schedule::Schedule;
use crate::slot::GameObserver;
use crate::spec::EngineSpec;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchSettings {
    /// The engine (both sides play it, under two names).
    pub engine: EngineSpec,
    /// Games to play.
    pub games: u64,
    /// Games at once.
    pub concurrency: usize,
    /// Start fresh processes for every game.
    pub restart: bool,
}

/// The figures of one bench run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchFigures {
    /// Games played.
    pub games: u64,
    /// Moves the engines were asked for.
    pub moves: u64,
    /// Wall time of the whole run.
    pub wall: Duration,
    /// CPU time of the arena process (all its threads), if measurable.
    pub arena_cpu: Option<Duration>,
    /// Each engine start-up, spawn to the first `readyok`.
    pub startups: Vec<Duration>,
}

#[allow(clippy::cast_precision_loss)]
impl BenchFigures {
    /// Games per second.
    #[must_use]
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Wall milliseconds per move, the engine's time included.
    #[must_use]
    pub fn wall_ms_per_move(&self) -> f64 {
        self.wall.as_secs_f64() * 1000.0 / (self.moves.max(1) as f64)
    }

    /// Arena CPU milliseconds per move.
    #[must_use]
    pub fn cpu_ms_per_move(&self) -> Option<f64> {
        self.arena_cpu
            .map(|cpu| cpu.as_secs_f64() * 1000.0 / (self.moves.max(1) as f64))
    }

    /// The median engine start-up, in milliseconds.
    #[must_use]
    pub fn median_startup_ms(&self) -> Option<f64> {
        let mut s: Vec<f64> = self.startups.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
        s.sort_by(f64::total_cmp);
        s.get(s.len() / 2).copied()
    }
}

/// The CPU time this process has used, from `/proc/self/stat` (Linux).
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at ')'.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // The kernel's USER_HZ is 100 on every Linux this runs on.
    Some(Duration::from_millis((utime + stime) * 10))
}

#[derive(Default)]
struct StartupLog(Mutex<Vec<Duration>>);

impl GameObserver for StartupLog {
    fn engine_started(&self, _spec: &EngineSpec, startup: Duration) {
        self.0.lock().push(startup);
    }
}

/// Plays `settings.games` games of the engine against itself and
/// measures them.
///
/// # Errors
/// [`RunError::Engine`] if the engine fails its check.
pub fn bench(settings: &BenchSettings) -> Result<BenchFigures, RunError> {
    let mut a = settings.engine.clone();
    a.restart = settings.restart;
    let mut b = a.clone();
    a.name = format!("{}-a", a.name);
    b.name = format!("{}-b", b.name);
    crate::runner::probe_engine(&a)?;
    let config = RunConfig {
        mode: Mode::Match,
        engines: vec![a, b],
        games: settings.games.max(2).next_multiple_of(2),
        concurrency: settings.concurrency.max(1),
        ..RunConfig::default()
    };
    let schedule = Schedule::new(&config, None);
    let log = Arc::new(StartupLog::default());
    let cpu_before = process_cpu();
    let start = Instant::now();
    let pool = GamePool::new(config.concurrency, Arc::clone(&log) as Arc<dyn GameObserver>);
    for id in 0..schedule.len() {
        if let Some(job) = schedule.job(id) {
            pool.submit(job);
        }
    }
    let mut games = 0;
    let mut moves = 0;
    for _ in 0..schedule.len() {
        let Ok(result) = pool.results().recv() else { break };
        if let PoolResult::Finished(game) = result {
            games += 1;
            let imposed = if game.job.setups.is_some() { 2 } else { 0 };
            moves += (game.outcome.moves.len() as u64).saturating_sub(imposed);
            // A forfeit's refused answer was asked for too.
            if game.outcome.failure.is_some() {
                moves += 1;
            }
        }
    }
    let wall = start.elapsed();
    pool.shutdown();
    let arena_cpu = match (cpu_before, process_cpu()) {
        (Some(before), Some(after)) => Some(after.saturating_sub(before)),
        _ => None,
    };
    let startups = std::mem::take(&mut *log.0.lock());
    Ok(BenchFigures {
        games,
        moves,
        wall,
        arena_cpu,
        startups,
    })
}

/// What to measure with [`db_bench`]: a run in a database played by
/// workers on this machine, whose engine's move time is fixed and uses no
/// CPU (the mock engine sleeping), so that they stand for workers on many
/// machines.
#[derive(Clone, Debug)]
pub struct DbBenchSettings {
    /// The database (a scratch one: each call adds a run).
    pub url: String,
    /// What the URL leaves out.
    pub env: crate::db::PgEnv,
    /// The engine (both sides play it, under two names).
    pub engine: EngineSpec,
    /// Games of the run.
    pub games: u64,
    /// Pairs per batch.
    pub batch_pairs: u64,
    /// Workers, each a thread with its own connections and one game at a
    /// time (`arena worker --concurrency 1`).
    pub workers: usize,
    /// The engine cache of the workers.
    pub cache: std::path::PathBuf,
}

/// The figures of one [`db_bench`] run.
#[derive(Clone, Debug, PartialEq)]
pub struct DbBenchFigures {
    /// The run.
    pub run: i64,
    /// Games recorded.
    pub games: u64,
    /// Moves played (plies of the ledger's games).
    pub plies: u64,
    /// From the run's creation to its end.
    pub wall: Duration,
    /// The workers' time on the database, summed over workers.
    pub db_time: Duration,
    /// The workers' time checking their engine cache, summed.
    pub cache_time: Duration,
}

#[allow(clippy::cast_precision_loss)]
impl DbBenchFigures {
    /// Games per second.
    #[must_use]
    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Milliseconds of database work per game.
    #[must_use]
    pub fn db_ms_per_game(&self) -> f64 {
        self.db_time.as_secs_f64() * 1000.0 / self.games.max(1) as f64
    }

    /// Milliseconds per game checking the engine cache (hashing the
    /// engines before every batch).
    #[must_use]
    pub fn cache_ms_per_game(&self) -> f64 {
        self.cache_time.as_secs_f64() * 1000.0 / self.games.max(1) as f64
    }
}

/// Creates a match of `settings.games` games in the database and plays it
/// with `settings.workers` workers (threads of this process, as
/// [`crate::db::run_worker`] runs in `arena worker`), timing it from the
/// creation to the end.
///
/// # Errors
/// An engine that fails its check, or the database.
pub fn db_bench(settings: &DbBenchSettings) -> Result<DbBenchFigures, crate::db::SubmitError> {
    use crate::db;
    let mut a = settings.engine.clone();
    let mut b = a.clone();
    a.name = format!("{}-a", a.name);
    b.name = format!("{}-b", b.name);
    let config = RunConfig {
        mode: Mode::Match,
        engines: vec![a, b],
        games: settings.games.max(2).next_multiple_of(2),
        ..RunConfig::default()
    };
    let mut client = db::connect(&settings.url, &settings.env)?;
    let start = Instant::now();
    let run = db::submit_run(&mut client, &config, settings.batch_pairs)?;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let reports: Vec<Result<db::WorkerReport, db::DbError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..settings.workers.max(1))
            .map(|i| {
                let worker = db::WorkerSettings {
                    url: settings.url.clone(),
                    env: settings.env.clone(),
                    name: format!("bench-{run}-{i}"),
                    concurrency: 1,
                    cache: settings.cache.clone(),
                    lease: Duration::from_secs(30),
                    idle_exit: true,
                    poll: Duration::from_millis(20),
                };
                let stop = &stop;
                scope.spawn(move || db::run_worker(&worker, Arc::new(Quiet), stop))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(db::DbError::Content("a worker panicked".to_owned())))
            })
            .collect()
    });
    let wall = start.elapsed();
    let (mut db_time, mut cache_time) = (Duration::ZERO, Duration::ZERO);
    for report in reports {
        let report = report?;
        db_time += report.db_time;
        cache_time += report.cache_time;
    }
    let games = db::run_scores(&mut client, run)?;
    Ok(DbBenchFigures {
        run,
        games: games.len() as u64,
        plies: games.iter().map(|g| u64::from(g.record.plies)).sum(),
        wall,
        db_time,
        cache_time,
    })
}

/// A worker observer that reports nothing.
struct Quiet;

impl crate::db::WorkerObserver for Quiet {}
