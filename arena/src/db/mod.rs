//! Runs over many machines, with PostgreSQL as the shared work queue and
//! ledger: a run's settings, engines and batches of game pairs are rows;
//! workers on any host claim a batch (`FOR UPDATE SKIP LOCKED`, with a
//! lease), play it, and write its games in one transaction that counts
//! only if their lease is still the batch's. Every game has one key (run,
//! game), so no game is counted twice, whatever order things happen in.
//!
//! [`connect`] opens a blocking connection (the `postgres` crate) from a
//! URL completed by the standard `PG*` variables and applies the schema's
//! migrations ([`schema`]); [`queue`] holds the operations on runs,
//! engines, batches and games; [`tune`] keeps an SPSA tuner's ask/tell
//! state in the database, its trials played as batches. A URL is shown only through [`redact_url`],
//! which drops its password.

pub mod export;
pub mod pack;
pub mod queue;
pub mod schema;
pub mod submit;
pub mod tune;
pub mod worker;

use std::str::FromStr;

use thiserror::Error;

pub use crate::bench::{DbBenchFigures, DbBenchSettings, db_bench};
pub use export::{ExportError, export_run, standings, summary};
pub use pack::{PackError, is_pack, pack_dir, unpack};
pub use queue::{
    Batch, Claim, DbRun, Recorded, RunState, StoredGame, claim_batch, create_run, engine_bytes, games_in, heartbeat,
    record_batch, register_worker, release_batch, run_batches, run_engines, run_games, run_of, run_scores, runs,
    scoreboard, sha256_hex, store_engine,
};
pub use schema::{MIGRATIONS, migrate, schema_version};
pub use submit::{BATCH_PAIRS, SubmitError, engine_dir, program_file, store_engines, submit_run, wait_run};
pub use tune::{
    DbTune, IN_FLIGHT, TUNE_MODE, TrialBatch, TunePoint, batch_trial, export_tune, run_config_of, submit_tune,
    tune_history, tune_job, tune_of, tune_report,
};
pub use worker::{WorkerObserver, WorkerReport, WorkerSettings, run_worker};

/// What went wrong with the database.
#[derive(Debug, Error)]
pub enum DbError {
    /// The URL does not read.
    #[error("database URL {url}: {reason}")]
    Url {
        /// The URL without its password.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// The server could not be reached or refused the connection.
    #[error("cannot connect to the database at {url}: {reason}")]
    Connect {
        /// The URL without its password.
        url: String,
        /// The client's error with its causes.
        reason: String,
    },
    /// A statement failed.
    #[error("database: {0}")]
    Query(#[from] postgres::Error),
    /// A row holds something this version cannot read.
    #[error("database: {0}")]
    Content(String),
    /// A run that does not exist.
    #[error("no run {0} in the database")]
    NoRun(i64),
}

/// `url` with any password replaced by `***`, for messages and logs.
#[must_use]
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        // The `key=value` form.
        return url
            .split_whitespace()
            .map(|word| {
                if word.starts_with("password=") {
                    "password=***"
                } else {
                    word
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return url.to_owned();
    };
    let userinfo = &authority[..at];
    let user = userinfo.split(':').next().unwrap_or("");
    let shown = if userinfo.contains(':') {
        format!("{user}:***")
    } else {
        user.to_owned()
    };
    format!("{}{shown}{}", &url[..scheme_end + 3], &rest[at..])
}

/// What a connection URL may leave out, as the standard variables give it:
/// `PGHOST`, `PGPORT`, `PGUSER` (else `USER`), `PGPASSWORD`, `PGDATABASE`.
/// The binary reads them ([`PgEnv::from_lookup`] with the process's
/// environment) and passes the value in: this library reads no environment.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PgEnv {
    /// `PGHOST`.
    pub host: Option<String>,
    /// `PGPORT`.
    pub port: Option<String>,
    /// `PGUSER`, else `USER`.
    pub user: Option<String>,
    /// `PGPASSWORD`.
    pub password: Option<String>,
    /// `PGDATABASE`.
    pub dbname: Option<String>,
}

impl PgEnv {
    /// The fallbacks as `lookup` gives the variables (an empty value counts
    /// as unset).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> PgEnv {
        let get = |name: &str| lookup(name).filter(|v| !v.is_empty());
        PgEnv {
            host: get("PGHOST"),
            port: get("PGPORT"),
            user: get("PGUSER").or_else(|| get("USER")),
            password: get("PGPASSWORD"),
            dbname: get("PGDATABASE"),
        }
    }
}

impl std::fmt::Debug for PgEnv {
    /// Never shows the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgEnv")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("dbname", &self.dbname)
            .finish()
    }
}

/// The connection settings of `url`, with what it leaves out taken from
/// `env`.
///
/// # Errors
/// [`DbError::Url`] when the URL (or the port of `env`) does not read.
pub fn config_of(url: &str, env: &PgEnv) -> Result<postgres::Config, DbError> {
    let mut config = postgres::Config::from_str(url).map_err(|e| DbError::Url {
        url: redact_url(url),
        reason: e.to_string(),
    })?;
    if config.get_hosts().is_empty() {
        config.host(env.host.as_deref().unwrap_or("localhost"));
    }
    if config.get_ports().is_empty()
        && let Some(port) = &env.port
    {
        let port = port.parse::<u16>().map_err(|_| DbError::Url {
            url: redact_url(url),
            reason: format!("PGPORT={port} is not a port number"),
        })?;
        config.port(port);
    }
    if config.get_user().is_none()
        && let Some(user) = &env.user
    {
        config.user(user);
    }
    if config.get_password().is_none()
        && let Some(password) = &env.password
    {
        config.password(password);
    }
    if config.get_dbname().is_none()
        && let Some(db) = &env.dbname
    {
        config.dbname(db);
    }
    Ok(config)
}

/// `error` and its chain of causes, as one line.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// Connects to the database of `url` and brings its schema up to date.
///
/// # Errors
/// [`DbError::Url`], [`DbError::Connect`], or a failed migration.
pub fn connect(url: &str, env: &PgEnv) -> Result<postgres::Client, DbError> {
    let mut client = config_of(url, env)?
        .connect(postgres::NoTls)
        .map_err(|e| DbError::Connect {
            url: redact_url(url),
            reason: with_causes(&e),
        })?;
    migrate(&mut client)?;
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact_url("postgres://ann:s3cret@db.example:5432/runs"),
            "postgres://ann:***@db.example:5432/runs"
        );
        assert_eq!(redact_url("postgres://ann@db/x"), "postgres://ann@db/x");
        assert_eq!(redact_url("postgres://db/x?user=a"), "postgres://db/x?user=a");
        assert_eq!(redact_url("host=db user=a"), "host=db user=a");
        assert_eq!(redact_url("host=db password=x user=a"), "host=db password=*** user=a");
        assert_eq!(redact_url("postgres://a:b:c@h/d"), "postgres://a:***@h/d");
    }

    #[test]
    fn a_bad_url_is_an_error_without_the_password() {
        let error = config_of("postgres://ann:s3cret@db:notaport/x", &PgEnv::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("postgres://ann:***@db"), "{error}");
        assert!(!error.contains("s3cret"), "{error}");
    }

    #[test]
    fn what_the_url_leaves_out_comes_from_the_variables_given() {
        let vars = |name: &str| match name {
            "PGHOST" => Some("db.example".to_owned()),
            "PGPORT" => Some("6543".to_owned()),
            "USER" => Some("ann".to_owned()),
            "PGPASSWORD" => Some("s3cret".to_owned()),
            "PGDATABASE" => Some(String::new()),
            _ => None,
        };
        let env = PgEnv::from_lookup(vars);
        assert_eq!(env.dbname, None, "an empty value is unset");
        assert!(!format!("{env:?}").contains("s3cret"));
        let config = config_of("postgres:///runs", &env).unwrap();
        assert_eq!(config.get_ports(), [6543]);
        assert_eq!(config.get_user(), Some("ann"));
        assert_eq!(config.get_password(), Some(&b"s3cret"[..]));
        assert_eq!(config.get_dbname(), Some("runs"));
        // The URL's own parts win.
        let config = config_of("postgres://bob@h:1/x", &env).unwrap();
        assert_eq!((config.get_user(), config.get_ports()), (Some("bob"), &[1u16][..]));
        let bad = PgEnv {
            port: Some("x".to_owned()),
            ..PgEnv::default()
        };
        assert!(
            config_of("postgres:///runs", &bad)
                .unwrap_err()
                .to_string()
                .contains("PGPORT=x")
        );
    }
}
