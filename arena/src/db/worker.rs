//! A worker of database runs (`arena worker`): it claims a batch of game
//! pairs, fetches the run's engines by hash into a local cache (checking
//! each hash before anything runs), plays the batch with the arena's own
//! machinery ([`play_fed`] on a [`crate::GamePool`]), and records the
//! games in one transaction. A heartbeat thread, on a connection of its
//! own, extends the lease while the batch is played; once the lease is
//! lost the batch is dropped, since its results would be refused.
//!
//! An engine stored as a directory ([`super::pack`]) is unpacked into
//! the cache under its hash and packed again before every batch, so a
//! cached tree changed since is replaced, never run.
//!
//! A batch of a tuning run is one of its tuner's trials: the plus and
//! minus engines play with the options its row carries
//! ([`super::tune`]), and recording it tells the tuner.
//!
//! A run whose engine does not match its stored hash is refused: its
//! batch is released for other workers and this worker claims no more of
//! it. A lost connection (a database restart) is retried with backoff.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use postgres::Client;

use super::pack::{is_pack, pack_dir, unpack};
use super::queue::{Claim, DbRun, Recorded, StoredGame, release_batch, sha256_hex};
use super::submit::engine_dir;
use super::tune::{TUNE_MODE, TrialBatch, batch_trial, tune_job};
use super::{DbError, config_of, connect, engine_bytes, heartbeat, record_batch, register_worker, run_engines, run_of};
use crate::player::EngineFailure;
use crate::pool::{Feed, play_fed};
use crate::schedule::Schedule;
use crate::slot::{FinishedGame, GameJob, GameObserver};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerSettings {
    /// The database.
    pub url: String,
    /// What the URL leaves out (the binary reads the `PG*` variables).
    pub env: super::PgEnv,
    /// Its name, unique among workers.
    pub name: String,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Where engines are cached, by hash.
    pub cache: PathBuf,
    /// How long a claim holds without a heartbeat.
    pub lease: Duration,
    /// Exit once no run it can play is running, rather than wait for new
    /// runs.
    pub idle_exit: bool,
    /// How long to wait between looks for work.
    pub poll: Duration,
}

/// What a worker reports as it goes; every method has an empty default.
pub trait WorkerObserver: Send + Sync {
    /// A batch was claimed.
    fn claimed(&self, _claim: &Claim) {}
    /// A batch's games were offered to the ledger.
    fn recorded(&self, _claim: &Claim, _recorded: &Recorded) {}
    /// The lease of a batch was lost while it was played: it was dropped.
    fn lease_lost(&self, _claim: &Claim) {}
    /// A run was refused (an engine whose hash does not match).
    fn run_refused(&self, _run: i64, _reason: &str) {}
    /// The database could not be reached; retrying after `wait`.
    fn retrying(&self, _error: &DbError, _wait: Duration) {}
    /// An engine failed in a game (the failure is the game's result).
    fn engine_failed(&self, _run: i64, _game: u64, _engine: &str, _failure: &EngineFailure) {}
}

/// Passes the engine failures of a batch's games on to the observer.
struct FailureRelay {
    observer: Arc<dyn WorkerObserver>,
    run: i64,
}

impl GameObserver for FailureRelay {
    fn engine_failed(&self, job: &GameJob, side: leaper::Color, failure: &EngineFailure) {
        self.observer
            .engine_failed(self.run, job.id, &job.spec(side).name, failure);
    }
}

/// Why a run's engine cannot be used.
#[derive(Debug)]
struct EngineRefused(String);

/// What the worker did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerReport {
    /// Batches recorded.
    pub batches: u64,
    /// Games recorded.
    pub games: u64,
    /// Batches dropped (lease lost) or refused.
    pub dropped: u64,
    /// Time spent on the database for the batches it claimed: claiming,
    /// reading the run, recording; not the waits for work.
    pub db_time: Duration,
    /// Time spent making sure the run's engines are in the cache, their
    /// hashes checked (fetched from the database when missing).
    pub cache_time: Duration,
}

/// Whether `error` means the connection is gone (worth reconnecting).
fn is_connection_error(error: &DbError) -> bool {
    match error {
        DbError::Connect { .. } => true,
        DbError::Query(e) => e.is_closed() || e.code().is_none(),
        _ => false,
    }
}

/// Connects, retrying with backoff while the server is unreachable.
fn reconnect(settings: &WorkerSettings, observer: &dyn WorkerObserver, stop: &AtomicBool) -> Result<Client, DbError> {
    let mut wait = Duration::from_millis(200);
    loop {
        match connect(&settings.url, &settings.env) {
            Ok(client) => return Ok(client),
            Err(error) if is_connection_error(&error) && !stop.load(Ordering::Relaxed) => {
                observer.retrying(&error, wait);
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            Err(error) => return Err(error),
        }
    }
}

/// The stored bytes of engine `sha`, refused when missing or when they do
/// not hash to `sha`.
fn stored_engine(client: &mut Client, sha: &str) -> Result<Result<Vec<u8>, EngineRefused>, DbError> {
    let Some(bytes) = engine_bytes(client, sha)? else {
        return Ok(Err(EngineRefused(format!("engine {sha} is not in the database"))));
    };
    let actual = sha256_hex(&bytes);
    if actual != sha {
        return Ok(Err(EngineRefused(format!(
            "the stored engine {sha} does not match its hash (its bytes hash to {actual}): refused"
        ))));
    }
    Ok(Ok(bytes))
}

/// The cached engine of hash `sha`, fetched if missing; its bytes are
/// checked against the hash every time.
fn cached_engine(client: &mut Client, cache: &Path, sha: &str) -> Result<Result<PathBuf, EngineRefused>, DbError> {
    let path = cache.join(sha);
    if let Ok(bytes) = std::fs::read(&path)
        && sha256_hex(&bytes) == sha
    {
        return Ok(Ok(path));
    }
    let bytes = match stored_engine(client, sha)? {
        Ok(bytes) => bytes,
        Err(refused) => return Ok(Err(refused)),
    };
    let fail = |e: std::io::Error| {
        Ok(Err(EngineRefused(format!(
            "cannot cache engine {sha} in {}: {e}",
            cache.display()
        ))))
    };
    if let Err(e) = std::fs::create_dir_all(cache) {
        return fail(e);
    }
    // Made executable before it takes its name: another worker sharing
    // the cache never finds it half written or not yet executable.
    let temp = cache.join(format!(".{sha}.{}.tmp", std::process::id()));
    let written = (|| {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o755)
            .open(&temp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, &path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return fail(e);
    }
    Ok(Ok(path))
}

/// The cached engine directory of hash `sha`, unpacked if missing; the
/// cached tree is packed again and checked against the hash every time.
fn cached_engine_dir(client: &mut Client, cache: &Path, sha: &str) -> Result<Result<PathBuf, EngineRefused>, DbError> {
    let path = cache.join(sha);
    if path.is_dir() {
        if pack_dir(&path).is_ok_and(|pack| sha256_hex(&pack) == sha) {
            return Ok(Ok(path));
        }
        // A tampered or half-removed copy: unpack it afresh.
        let _ = std::fs::remove_dir_all(&path);
    }
    let bytes = match stored_engine(client, sha)? {
        Ok(bytes) => bytes,
        Err(refused) => return Ok(Err(refused)),
    };
    if !is_pack(&bytes) {
        return Ok(Err(EngineRefused(format!(
            "engine {sha} is a single program, but the run gives it a directory"
        ))));
    }
    // Unpacked under a temporary name and renamed whole: another worker
    // sharing the cache never finds it half written.
    let temp = cache.join(format!(".{sha}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_dir_all(&temp);
    if let Err(e) = unpack(&bytes, &temp) {
        let _ = std::fs::remove_dir_all(&temp);
        return Ok(Err(EngineRefused(format!(
            "cannot unpack engine {sha} into {}: {e}",
            cache.display()
        ))));
    }
    if std::fs::rename(&temp, &path).is_err() {
        // Another worker put it there first.
        let _ = std::fs::remove_dir_all(&temp);
    }
    match pack_dir(&path) {
        Ok(pack) if sha256_hex(&pack) == sha => Ok(Ok(path)),
        _ => Ok(Err(EngineRefused(format!(
            "the cached engine directory {} does not match its hash",
            path.display()
        )))),
    }
}

/// The run with its engines pointing at the cache.
fn localize(client: &mut Client, cache: &Path, mut run: DbRun) -> Result<Result<DbRun, EngineRefused>, DbError> {
    let engines = run_engines(client, run.id)?;
    if engines.len() != run.config.engines.len() {
        return Ok(Err(EngineRefused(format!(
            "run {} lists {} engines for {}",
            run.id,
            engines.len(),
            run.config.engines.len()
        ))));
    }
    for (spec, (name, sha)) in run.config.engines.iter_mut().zip(&engines) {
        let inside = engine_dir(spec).map(|(_, program)| program.to_path_buf());
        let found = match &inside {
            Some(_) => cached_engine_dir(client, cache, sha)?,
            None => cached_engine(client, cache, sha)?,
        };
        match (found, inside) {
            (Ok(dir), Some(program)) => {
                spec.cmd = dir.join(program);
                spec.dir = Some(dir);
            }
            (Ok(path), None) => spec.cmd = path,
            (Err(EngineRefused(reason)), _) => return Ok(Err(EngineRefused(format!("engine {name}: {reason}")))),
        }
    }
    Ok(Ok(run))
}

/// The games of one batch, fed to the pool; stops when the lease is lost.
struct BatchFeed<'a> {
    schedule: &'a Schedule,
    /// The trial of a tuning run's batch: its engines' options.
    trial: Option<&'a TrialBatch>,
    todo: std::ops::Range<u64>,
    games: Vec<StoredGame>,
    lost: &'a AtomicBool,
}

impl Feed for BatchFeed<'_> {
    type Error = std::convert::Infallible;

    fn next_job(&mut self) -> Result<Option<GameJob>, Self::Error> {
        if self.lost.load(Ordering::Relaxed) {
            return Ok(None);
        }
        Ok(self.todo.next().and_then(|id| match self.trial {
            Some(trial) => tune_job(self.schedule, trial, id),
            None => self.schedule.job(id),
        }))
    }

    fn finished(&mut self, game: FinishedGame) -> Result<bool, Self::Error> {
        self.games.push(StoredGame {
            record: game.to_record(),
            violations: game.violations,
        });
        Ok(!self.lost.load(Ordering::Relaxed))
    }
}

/// Plays `claim` while a heartbeat thread keeps its lease; `None` when
/// the lease was lost.
fn play_batch(
    settings: &WorkerSettings,
    run: &DbRun,
    trial: Option<&TrialBatch>,
    claim: &Claim,
    observer: &Arc<dyn WorkerObserver>,
) -> Option<Vec<StoredGame>> {
    let lost = Arc::new(AtomicBool::new(false));
    let (stop_tx, stop_rx) = crossbeam_channel::bounded::<()>(0);
    let beat = {
        let lost = Arc::clone(&lost);
        let settings = settings.clone();
        let claim = *claim;
        std::thread::spawn(move || {
            let mut client: Option<Client> = None;
            loop {
                match stop_rx.recv_timeout(settings.lease / 3) {
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
                if client.is_none() {
                    client = config_of(&settings.url, &settings.env)
                        .ok()
                        .and_then(|c| c.connect(postgres::NoTls).ok());
                }
                let Some(c) = client.as_mut() else { continue };
                match heartbeat(c, &claim, &settings.name, settings.lease) {
                    Ok(true) => {}
                    Ok(false) => {
                        lost.store(true, Ordering::Relaxed);
                        return;
                    }
                    // Try a new connection next time.
                    Err(_) => client = None,
                }
            }
        })
    };
    let schedule = run.schedule();
    let mut feed = BatchFeed {
        schedule: &schedule,
        trial,
        todo: claim.games(),
        games: Vec::new(),
        lost: &lost,
    };
    let relay = Arc::new(FailureRelay {
        observer: Arc::clone(observer),
        run: run.id,
    });
    let Ok(()) = play_fed(settings.concurrency, relay, &mut feed);
    drop(stop_tx);
    let _ = beat.join();
    let complete = feed.games.len() as u64 == claim.pairs * 2;
    (complete && !lost.load(Ordering::Relaxed)).then_some(feed.games)
}

/// The number of running runs other than `skip`.
fn running_runs(client: &mut Client, skip: &[i64]) -> Result<i64, DbError> {
    Ok(client
        .query_one(
            "SELECT count(*) FROM runs WHERE state = 'running' AND NOT (id = ANY($1))",
            &[&skip],
        )?
        .get(0))
}

/// Runs a worker until there is no work (with `idle_exit`) or `stop` is
/// set.
///
/// # Errors
/// A database error other than a lost connection (those are retried).
pub fn run_worker(
    settings: &WorkerSettings,
    observer: Arc<dyn WorkerObserver>,
    stop: &AtomicBool,
) -> Result<WorkerReport, DbError> {
    let host = std::fs::read_to_string("/etc/hostname").map_or_else(|_| "unknown".to_owned(), |h| h.trim().to_owned());
    let mut client = reconnect(settings, &*observer, stop)?;
    let mut report = WorkerReport::default();
    let mut refused: HashSet<i64> = HashSet::new();
    while !stop.load(Ordering::Relaxed) {
        let step = (|| -> Result<bool, DbError> {
            register_worker(&mut client, &settings.name, &host)?;
            let skip: Vec<i64> = refused.iter().copied().collect();
            let began = Instant::now();
            let Some(claim) = super::claim_batch(&mut client, &settings.name, settings.lease, &skip)? else {
                return Ok(false);
            };
            observer.claimed(&claim);
            let run = run_of(&mut client, claim.run)?;
            report.db_time += began.elapsed();
            let checking = Instant::now();
            let localized = localize(&mut client, &settings.cache, run)?;
            report.cache_time += checking.elapsed();
            let began = Instant::now();
            let run = match localized {
                Ok(run) => run,
                Err(EngineRefused(reason)) => {
                    observer.run_refused(claim.run, &reason);
                    refused.insert(claim.run);
                    release_batch(&mut client, &claim)?;
                    report.dropped += 1;
                    return Ok(true);
                }
            };
            // A tuning run's batch is a trial: its engines play with the
            // trial's options.
            let trial = if run.mode == TUNE_MODE {
                let Some(trial) = batch_trial(&mut client, &claim)? else {
                    let reason = format!("batch {} of the tuning run carries no trial", claim.batch);
                    observer.run_refused(claim.run, &reason);
                    refused.insert(claim.run);
                    release_batch(&mut client, &claim)?;
                    report.dropped += 1;
                    return Ok(true);
                };
                Some(trial)
            } else {
                None
            };
            report.db_time += began.elapsed();
            let Some(games) = play_batch(settings, &run, trial.as_ref(), &claim, &observer) else {
                observer.lease_lost(&claim);
                report.dropped += 1;
                return Ok(true);
            };
            // The games are kept across a reconnection: the lease may
            // still hold when the database is back.
            let mut wait = Duration::from_millis(200);
            let began = Instant::now();
            let recorded = loop {
                match record_batch(&mut client, &claim, &settings.name, &games) {
                    Ok(r) => break r,
                    Err(e) if is_connection_error(&e) && !stop.load(Ordering::Relaxed) => {
                        observer.retrying(&e, wait);
                        std::thread::sleep(wait);
                        wait = (wait * 2).min(Duration::from_secs(5));
                        if let Ok(c) = connect(&settings.url, &settings.env) {
                            client = c;
                        }
                    }
                    Err(e) => return Err(e),
                }
            };
            report.db_time += began.elapsed();
            observer.recorded(&claim, &recorded);
            match recorded {
                Recorded::Counted { games, .. } => {
                    report.batches += 1;
                    report.games += games;
                }
                Recorded::Refused => report.dropped += 1,
            }
            Ok(true)
        })();
        match step {
            Ok(true) => {}
            Ok(false) => {
                // With `idle_exit`, go once no run this worker can play
                // is running (a batch whose lease has not run out yet
                // is still work to wait for).
                let skip: Vec<i64> = refused.iter().copied().collect();
                if settings.idle_exit && running_runs(&mut client, &skip).unwrap_or(1) == 0 {
                    break;
                }
                std::thread::sleep(settings.poll);
            }
            Err(e) if is_connection_error(&e) => {
                observer.retrying(&e, settings.poll);
                std::thread::sleep(settings.poll);
                client = reconnect(settings, &*observer, stop)?;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(report)
}
