//! Putting a run into the database from this host: [`submit_run`] reads
//! the run's openings, checks that each engine starts and answers, stores
//! each engine's program file (or, for an engine whose program lies in its
//! `dir`, that whole directory as a [`super::pack`]) by its SHA-256 and
//! creates the run, so that workers anywhere can play it. [`wait_run`] watches a run until it ends,
//! handing its standings to the caller at every look.

use std::path::{Path, PathBuf};
use std::time::Duration;

use postgres::Client;
use thiserror::Error;

use super::DbError;
use super::export::standings;
use super::queue::{DbRun, create_run, run_of, run_scores, store_engine};
use crate::config::RunConfig;
use crate::openings::{OpeningsError, read_openings};
use crate::runner::{RunError, probe_engine};
use crate::score::Standings;

/// Pairs per batch of a run made by [`submit_run`]'s callers: a worker
/// claims this many at a time.
pub const BATCH_PAIRS: u64 = 4;

/// Why a run could not be put into the database.
#[derive(Debug, Error)]
pub enum SubmitError {
    /// The openings file.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// An engine that does not start or answer.
    #[error(transparent)]
    Probe(#[from] RunError),
    /// An engine whose program file cannot be found or read.
    #[error("engine {name}: {reason}")]
    Engine {
        /// The engine's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The database.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The program file of an engine's `cmd`: a path, or a name on `PATH`.
///
/// # Errors
/// A message when a bare name is on no directory of `PATH`.
pub fn program_file(cmd: &Path) -> Result<PathBuf, String> {
    if cmd.components().count() > 1 {
        return Ok(cmd.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(cmd))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{} is not on PATH", cmd.display()))
}

/// The directory of an engine stored as a directory of files, and its
/// program's path inside it: an engine whose `cmd` lies inside its `dir`.
#[must_use]
pub fn engine_dir(spec: &crate::EngineSpec) -> Option<(&Path, &Path)> {
    let dir = spec.dir.as_deref()?;
    let inside = spec.cmd.strip_prefix(dir).ok()?;
    (!inside.as_os_str().is_empty()).then_some((dir, inside))
}

/// Creates a run of `config` (whose paths are absolute) in batches of
/// `batch_pairs` pairs, after probing its engines and storing each one's
/// program file by hash; returns the run's key.
///
/// # Errors
/// [`SubmitError`]: an openings file or an engine that fails, or the
/// database (then no run is created).
pub fn submit_run(client: &mut Client, config: &RunConfig, batch_pairs: u64) -> Result<i64, SubmitError> {
    config.validate().map_err(|e| DbError::Content(e.to_string()))?;
    let openings = match &config.openings {
        Some(o) => Some(read_openings(&o.file)?),
        None => None,
    };
    for spec in &config.engines {
        probe_engine(spec)?;
    }
    let engines = store_engines(client, config)?;
    Ok(create_run(client, config, openings.as_deref(), &engines, batch_pairs)?)
}

/// Stores the program file (or directory) of each engine of `config` by
/// its hash; returns `(name, sha256)` in config order.
///
/// # Errors
/// [`SubmitError::Engine`] for a program that cannot be found or read,
/// or the database.
pub fn store_engines(client: &mut Client, config: &RunConfig) -> Result<Vec<(String, String)>, SubmitError> {
    let mut engines = Vec::new();
    for spec in &config.engines {
        let engine_err = |reason: String| SubmitError::Engine {
            name: spec.name.clone(),
            reason,
        };
        let file = program_file(&spec.cmd).map_err(engine_err)?;
        let bytes = match engine_dir(spec) {
            // The whole working directory travels with the program.
            Some((dir, _)) => super::pack::pack_dir(dir).map_err(|e| engine_err(e.to_string()))?,
            None => std::fs::read(&file).map_err(|e| engine_err(format!("cannot read {}: {e}", file.display())))?,
        };
        engines.push((spec.name.clone(), store_engine(client, &bytes)?));
    }
    Ok(engines)
}

/// Looks at run `id` every `poll` until it is no longer running, calling
/// `seen` with its standings at each look (the last time with the final
/// ones); returns the ended run and its final standings.
///
/// # Errors
/// The database, or a run that does not read.
pub fn wait_run(
    client: &mut Client,
    id: i64,
    poll: Duration,
    mut seen: impl FnMut(&DbRun, &Standings),
) -> Result<(DbRun, Standings), DbError> {
    loop {
        let run = run_of(client, id)?;
        let games = run_scores(client, id)?;
        let (_, now) = standings(&run, &games)?;
        seen(&run, &now);
        if !run.state.is_running() {
            return Ok((run, now));
        }
        std::thread::sleep(poll);
    }
}
