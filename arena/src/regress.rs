//! Testing a build for Elo regressions, the library part of `arena
//! regress`: two git refs of an engine's repository become two commits
//! ([`resolve`]), each is built once in a temporary git worktree and its
//! engine kept in a build cache keyed by the commit hash ([`build`]), each
//! engine's `bench` node count is read ([`run_bench`]) and checked against
//! the `Bench: N` line of its commit message ([`check_signature`]), and the
//! two play a match with an SPRT of one of the [`Preset`]s
//! ([`match_config`], then the arena's own [`crate::run`]). Every test that
//! plays ends with one row of the ledger ([`append_row`], read back by
//! [`read_ledger`]). With a database the match is a database run that
//! workers play (see [`crate::db`]) and the ledger is its
//! `regress_ledger` table ([`append_row_db`], [`read_ledger_db`]).
//!
//! The ledger is a CSV file that only grows. A row is appended whole, with
//! one `write` of the complete line on a file opened for appending and
//! then an `fsync`, under an exclusive `flock` of the file; so a `kill -9`
//! can at worst leave a last line without its line end. The reader
//! ignores such a torn last line, and the next append cuts it off before
//! writing, so no torn row is ever counted or glued to the next one.
//!
//! A worktree lives in the system's temporary directory, named
//! `arena-regress-<pid>-<commit>`, and is removed (`git worktree remove`
//! and `git worktree prune`) when the build ends, whether it succeeded or
//! not. Worktrees left by a killed test (whose process is gone) are
//! removed by the next build in the same repository.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use results::{Decision, EloModel};
use thiserror::Error;

use crate::config::{ConfigError, Mode, OpeningsConfig, RunConfig, SprtSettings, build_engines};
use crate::db::{DbError, RunState};
use crate::runner::{RunEnd, RunReport};
use crate::score::Standings;

/// The build command when none is given: the workspace's `leaper`, in a
/// cargo target directory shared by every build of the cache (so a second
/// commit recompiles only the crates it changed).
pub const DEFAULT_BUILD: &str = "cargo build --release --bin leaper";
/// The engine's path after [`DEFAULT_BUILD`], inside the shared target
/// directory.
pub const DEFAULT_BIN: &str = "release/leaper";
/// The shared cargo target directory of default builds, in the cache.
pub const CARGO_TARGET: &str = "cargo-target";
/// The ledger's file name in the ledger directory.
pub const LEDGER_FILE: &str = "ledger.csv";
/// The longest an engine's `bench` may take.
pub const BENCH_TIMEOUT: Duration = Duration::from_secs(600);
/// The prefix of the worktrees' directory names.
const WORKTREE_PREFIX: &str = "arena-regress-";

/// Why a regression test stopped before its verdict.
#[derive(Debug, Error)]
pub enum RegressError {
    /// `git` could not be run, or refused.
    #[error("git {args} in {repo}: {detail}")]
    Git {
        /// The repository.
        repo: PathBuf,
        /// The arguments.
        args: String,
        /// What git said.
        detail: String,
    },
    /// The repository is not one.
    #[error("{repo} is not a git repository: {detail}")]
    NotARepo {
        /// The path given.
        repo: PathBuf,
        /// What git said.
        detail: String,
    },
    /// A ref that names no commit.
    #[error("ref {refname:?} does not name a commit in {repo}")]
    NoRef {
        /// The repository.
        repo: PathBuf,
        /// The ref given.
        refname: String,
    },
    /// The build command failed.
    #[error("{who} does not build: {failure}; the last lines of its output (all in {log}):\n{tail}")]
    Build {
        /// The ref and its commit, `main (1a2b3c4d)`.
        who: String,
        /// The command and how it ended.
        failure: String,
        /// The build's output.
        log: PathBuf,
        /// Its last lines.
        tail: String,
    },
    /// The build succeeded but left no engine where `--bin` says.
    #[error("{refname} ({commit}) built, but there is no engine at {bin} afterwards (see --bin)")]
    NoEngine {
        /// The ref.
        refname: String,
        /// Its commit hash.
        commit: String,
        /// Where the engine was expected.
        bin: PathBuf,
    },
    /// `<engine> bench` failed or printed no node count.
    #[error("{refname} ({commit}): `{engine} bench` {reason}")]
    Bench {
        /// The ref.
        refname: String,
        /// Its commit hash.
        commit: String,
        /// The engine.
        engine: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A `Bench:` line that is not a node count.
    #[error("{refname} ({commit}): the commit message's line {line:?} is not `Bench: <nodes>`")]
    BadSignature {
        /// The ref.
        refname: String,
        /// Its commit hash.
        commit: String,
        /// The line.
        line: String,
    },
    /// The build's bench differs from the commit message's.
    #[error(
        "{refname} ({commit}): bench gives {measured} nodes but the commit message says Bench: {expected}; the \
         build is not what the author measured (a different compiler, flags or uncommitted change?)"
    )]
    Mismatch {
        /// The ref.
        refname: String,
        /// Its commit hash.
        commit: String,
        /// The commit message's count.
        expected: u64,
        /// The build's count.
        measured: u64,
    },
    /// A bad `--preset`.
    #[error("--preset {0:?}: expected gainer, nonregression or ELO0,ELO1 (normalized Elo, ELO0 < ELO1)")]
    Preset(String),
    /// The match's settings.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The ledger or the build cache could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> RegressError + '_ {
    move |source| RegressError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A ref resolved to its commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The ref as given (`main`, `HEAD~1`, a hash).
    pub refname: String,
    /// The full commit hash.
    pub hash: String,
    /// The commit message.
    pub message: String,
}

impl Commit {
    /// The first 8 characters of the hash.
    #[must_use]
    pub fn short(&self) -> &str {
        &self.hash[..self.hash.len().min(8)]
    }
}

/// Runs `git -C repo args`, returning its standard output.
fn git(repo: &Path, args: &[&str]) -> Result<String, RegressError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| RegressError::Git {
            repo: repo.to_path_buf(),
            args: args.join(" "),
            detail: format!("cannot run git: {e}"),
        })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(RegressError::Git {
            repo: repo.to_path_buf(),
            args: args.join(" "),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

/// The commit that `refname` names in the repository at `repo`, with its
/// message.
///
/// # Errors
/// [`RegressError::NotARepo`] when `repo` is not a git repository,
/// [`RegressError::NoRef`] when the ref names no commit.
pub fn resolve(repo: &Path, refname: &str) -> Result<Commit, RegressError> {
    if let Err(e) = git(repo, &["rev-parse", "--git-dir"]) {
        let detail = match e {
            RegressError::Git { detail, .. } => detail,
            other => other.to_string(),
        };
        return Err(RegressError::NotARepo {
            repo: repo.to_path_buf(),
            detail,
        });
    }
    let spec = format!("{refname}^{{commit}}");
    let no_ref = || RegressError::NoRef {
        repo: repo.to_path_buf(),
        refname: refname.to_owned(),
    };
    if refname.is_empty() || refname.starts_with('-') {
        return Err(no_ref());
    }
    let hash = git(repo, &["rev-parse", "--verify", "--quiet", &spec]).map_err(|_| no_ref())?;
    let hash = hash.trim().to_owned();
    let message = git(repo, &["show", "-s", "--format=%B", &hash])?;
    Ok(Commit {
        refname: refname.to_owned(),
        hash,
        message,
    })
}

/// The node count of the last `Bench: N` line of a commit message (the
/// key case-insensitive, as OpenBench reads it), or `None` without one.
///
/// # Errors
/// The line, when a `Bench:` line holds no node count.
pub fn bench_signature(message: &str) -> Result<Option<u64>, String> {
    let mut found = None;
    for line in message.lines() {
        let trimmed = line.trim();
        let Some((key, value)) = trimmed.split_once(':') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("bench") {
            continue;
        }
        let value = value.trim();
        match value.parse::<u64>() {
            Ok(n) => found = Some(n),
            Err(_) => return Err(trimmed.to_owned()),
        }
    }
    Ok(found)
}

/// The node count of an engine's `bench` output: the number before
/// `nodes` on its last non-empty line (`3108684 nodes 1709580 nps`).
#[must_use]
pub fn bench_nodes(output: &str) -> Option<u64> {
    let last = output.lines().rev().find(|l| !l.trim().is_empty())?;
    let words: Vec<&str> = last.split_whitespace().collect();
    let at = words.iter().position(|w| w.eq_ignore_ascii_case("nodes"))?;
    words.get(at.checked_sub(1)?)?.parse().ok()
}

/// Runs `<engine> bench` in the engine's directory, at most
/// [`BENCH_TIMEOUT`], and returns its node count.
///
/// # Errors
/// [`RegressError::Bench`] when it cannot start, fails, times out or
/// prints no node count.
pub fn run_bench(commit: &Commit, engine: &Path) -> Result<u64, RegressError> {
    let fail = |reason: String| RegressError::Bench {
        refname: commit.refname.clone(),
        commit: commit.short().to_owned(),
        engine: engine.to_path_buf(),
        reason,
    };
    let mut command = Command::new(engine);
    command
        .arg("bench")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = engine.parent() {
        command.current_dir(dir);
    }
    let mut child = command.spawn().map_err(|e| fail(format!("cannot start: {e}")))?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                text = String::from_utf8_lossy(&bytes).into_owned();
            }
            text
        })
    };
    let stdout = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + BENCH_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(format!("took more than {} s", BENCH_TIMEOUT.as_secs())));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(fail(format!("cannot be waited for: {e}"))),
        }
    };
    let out = stdout.join().unwrap_or_default();
    let err = stderr.join().unwrap_or_default();
    if !status.success() {
        return Err(fail(format!("ended with {status}: {}", last_lines(&err, 5))));
    }
    bench_nodes(&out).ok_or_else(|| {
        fail(format!(
            "printed no node count on its last line (expected `<nodes> nodes ...`), got {:?}",
            out.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("")
        ))
    })
}

/// Checks a build's bench against its commit message: `Ok(Some(n))` when
/// the message says `Bench: n` and the build agrees, `Ok(None)` when it
/// says nothing.
///
/// # Errors
/// [`RegressError::Mismatch`] when they differ, [`RegressError::BadSignature`]
/// for a `Bench:` line without a count.
pub fn check_signature(commit: &Commit, measured: u64) -> Result<Option<u64>, RegressError> {
    match bench_signature(&commit.message) {
        Err(line) => Err(RegressError::BadSignature {
            refname: commit.refname.clone(),
            commit: commit.short().to_owned(),
            line,
        }),
        Ok(None) => Ok(None),
        Ok(Some(expected)) if expected == measured => Ok(Some(expected)),
        Ok(Some(expected)) => Err(RegressError::Mismatch {
            refname: commit.refname.clone(),
            commit: commit.short().to_owned(),
            expected,
            measured,
        }),
    }
}

/// The SPRT bounds of a test, in normalized Elo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Preset {
    /// `[0, 2]`: the change must gain (fishtest's and OpenBench's STC gainer bounds).
    Gainer,
    /// `[-1.75, 0.25]`: the change must not lose (their non-regression bounds).
    NonRegression,
    /// Explicit bounds.
    Bounds(f64, f64),
}

impl Preset {
    /// Reads `gainer`, `nonregression` (or `non-regression`) or `ELO0,ELO1`.
    ///
    /// # Errors
    /// [`RegressError::Preset`] for anything else, or bounds out of order.
    pub fn parse(text: &str) -> Result<Self, RegressError> {
        let bad = || RegressError::Preset(text.to_owned());
        match text.to_ascii_lowercase().as_str() {
            "gainer" => Ok(Self::Gainer),
            "nonregression" | "non-regression" => Ok(Self::NonRegression),
            other => {
                let (a, b) = other.split_once(',').ok_or_else(bad)?;
                let elo0: f64 = a.trim().parse().map_err(|_| bad())?;
                let elo1: f64 = b.trim().parse().map_err(|_| bad())?;
                if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
                    return Err(bad());
                }
                Ok(Self::Bounds(elo0, elo1))
            }
        }
    }

    /// `[elo0, elo1]` in normalized Elo.
    #[must_use]
    pub fn bounds(self) -> (f64, f64) {
        match self {
            Self::Gainer => (0.0, 2.0),
            Self::NonRegression => (-1.75, 0.25),
            Self::Bounds(a, b) => (a, b),
        }
    }

    /// `gainer`, `nonregression` or `bounds`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Gainer => "gainer",
            Self::NonRegression => "nonregression",
            Self::Bounds(..) => "bounds",
        }
    }

    /// The SPRT design: these bounds, normalized Elo, α = β = 0.05.
    #[must_use]
    pub fn sprt(self) -> SprtSettings {
        let (elo0, elo1) = self.bounds();
        SprtSettings {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        }
    }
}

/// How an engine is built in a worktree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    /// A shell command run in the worktree; `None` for [`DEFAULT_BUILD`].
    pub command: Option<String>,
    /// The engine's path afterwards, relative to the worktree; `None` for
    /// [`DEFAULT_BIN`] in the shared target directory [`CARGO_TARGET`] of
    /// the cache without a command, in the worktree's `target/` with one.
    /// (Default builds share that target directory only when neither is
    /// given.)
    pub bin: Option<PathBuf>,
}

impl Recipe {
    /// The command as run.
    #[must_use]
    pub fn command_text(&self) -> &str {
        self.command.as_deref().unwrap_or(DEFAULT_BUILD)
    }

    /// The cache key of a commit built this way: the hash, then a digest
    /// of the recipe (so that another `--build` or `--bin` is another
    /// entry).
    #[must_use]
    pub fn key(&self, commit: &Commit) -> String {
        // FNV-1a, 64 bits: stable across versions and machines.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let bin = self.bin.as_ref().map(|b| b.display().to_string()).unwrap_or_default();
        for byte in self.command_text().bytes().chain([0]).chain(bin.bytes()) {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{}-{:08x}", commit.hash, h >> 32)
    }
}

/// A commit's engine in the build cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The engine.
    pub engine: PathBuf,
    /// Whether it was in the cache already (no build ran).
    pub cached: bool,
    /// The build's output, when one ran.
    pub log: Option<PathBuf>,
}

/// A temporary worktree of one commit, removed when dropped.
struct Worktree {
    repo: PathBuf,
    path: PathBuf,
}

impl Worktree {
    fn add(repo: &Path, hash: &str) -> Result<Self, RegressError> {
        let name = format!(
            "{WORKTREE_PREFIX}{}-{}",
            std::process::id(),
            &hash[..hash.len().min(12)]
        );
        let path = std::env::temp_dir().join(name);
        if path.exists() {
            remove_worktree(repo, &path);
        }
        let text = path.display().to_string();
        git(repo, &["worktree", "add", "--quiet", "--detach", &text, hash])?;
        Ok(Self {
            repo: repo.to_path_buf(),
            path,
        })
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        remove_worktree(&self.repo, &self.path);
    }
}

fn remove_worktree(repo: &Path, path: &Path) {
    let text = path.display().to_string();
    let _ = git(repo, &["worktree", "remove", "--force", &text]);
    if path.exists() {
        let _ = std::fs::remove_dir_all(path);
    }
    let _ = git(repo, &["worktree", "prune"]);
}

/// Removes this repository's test worktrees whose process is gone (left
/// by a killed test).
fn remove_stale_worktrees(repo: &Path) {
    let Ok(list) = git(repo, &["worktree", "list", "--porcelain"]) else {
        return;
    };
    for line in list.lines() {
        let Some(path) = line.strip_prefix("worktree ") else {
            continue;
        };
        let path = Path::new(path);
        let Some(rest) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(WORKTREE_PREFIX))
        else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        if !alive {
            remove_worktree(repo, path);
        }
    }
}

/// The last `n` non-empty lines of `text`.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The file name of the engine in a cache entry: that of the built one.
fn engine_name(recipe: &Recipe) -> std::ffi::OsString {
    let bin = recipe.bin.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_BIN));
    bin.file_name().map_or_else(|| "engine".into(), ToOwned::to_owned)
}

/// The engine of `commit` built with `recipe` in the cache `cache`, as an
/// absolute path, if it is there.
#[must_use]
pub fn cached_engine(commit: &Commit, recipe: &Recipe, cache: &Path) -> Option<PathBuf> {
    let engine = cache.join(recipe.key(commit)).join(engine_name(recipe));
    if engine.is_file() {
        std::fs::canonicalize(engine).ok()
    } else {
        None
    }
}

/// The engine of `commit`, from the cache in `cache` if it was built there
/// before with this recipe, else built now: the commit is checked out into
/// a temporary worktree, the build command runs there (its output going
/// to `cache/logs/<key>.log`), the engine is copied into the cache entry
/// `cache/<key>/` and the worktree is removed, on every path.
///
/// # Errors
/// [`RegressError::Build`] when the build fails, [`RegressError::NoEngine`]
/// when it leaves no engine, [`RegressError::Git`] or
/// [`RegressError::Io`] when the worktree or the cache cannot be made.
pub fn build(repo: &Path, commit: &Commit, recipe: &Recipe, cache: &Path) -> Result<Built, RegressError> {
    if let Some(engine) = cached_engine(commit, recipe, cache) {
        return Ok(Built {
            engine,
            cached: true,
            log: None,
        });
    }
    std::fs::create_dir_all(cache).map_err(io_err(cache))?;
    let cache = std::fs::canonicalize(cache).map_err(io_err(cache))?;
    let key = recipe.key(commit);
    let entry = cache.join(&key);
    let bin_rel = recipe.bin.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_BIN));
    let name = engine_name(recipe);
    let engine = entry.join(&name);
    let logs = cache.join("logs");
    std::fs::create_dir_all(&logs).map_err(io_err(&logs))?;
    let log = logs.join(format!("{key}.log"));

    remove_stale_worktrees(repo);
    let worktree = Worktree::add(repo, &commit.hash)?;
    let log_file = File::create(&log).map_err(io_err(&log))?;
    let log_err = log_file.try_clone().map_err(io_err(&log))?;
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(recipe.command_text())
        .current_dir(&worktree.path)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err);
    // The shared target directory only when the engine is looked for
    // there (neither --build nor --bin given).
    let target = cache.join(CARGO_TARGET);
    let shared = recipe.command.is_none() && recipe.bin.is_none();
    if shared {
        command.env("CARGO_TARGET_DIR", &target);
    }
    let status = command.status().map_err(io_err(&worktree.path))?;
    if !status.success() {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        return Err(RegressError::Build {
            who: format!("{} ({})", commit.refname, commit.short()),
            failure: format!(
                "`{}` {}",
                recipe.command_text(),
                match status.code() {
                    Some(code) => format!("exited with status {code}"),
                    None => "was killed by a signal".to_owned(),
                }
            ),
            log,
            tail: last_lines(&text, 12),
        });
    }
    let built = match &recipe.bin {
        Some(bin) => worktree.path.join(bin),
        None if shared => target.join(DEFAULT_BIN),
        None => worktree.path.join("target").join(DEFAULT_BIN),
    };
    if !built.is_file() {
        return Err(RegressError::NoEngine {
            refname: commit.refname.clone(),
            commit: commit.short().to_owned(),
            bin: recipe.bin.clone().unwrap_or(built),
        });
    }
    // Fill a staging directory, then rename it into place: an entry is
    // whole or absent, even after a kill or beside a concurrent test.
    let staging = cache.join(format!(".{key}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(io_err(&staging))?;
    std::fs::copy(&built, staging.join(&name)).map_err(io_err(&built))?;
    let record = serde_json::json!({
        "commit": commit.hash, "ref": commit.refname, "build": recipe.command_text(),
        "bin": bin_rel, "built_at": iso_time(SystemTime::now()),
    });
    let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
    let path = staging.join("build.json");
    crate::files::write_atomic(&path, text.as_bytes()).map_err(io_err(&path))?;
    if std::fs::rename(&staging, &entry).is_err() {
        // Another test filled the entry first: use its engine.
        let _ = std::fs::remove_dir_all(&staging);
        if !engine.is_file() {
            return Err(RegressError::Io {
                path: entry,
                source: io::Error::other("cannot move the build into the cache"),
            });
        }
    }
    drop(worktree);
    Ok(Built {
        engine,
        cached: false,
        log: Some(log),
    })
}

/// One side of a test, ready to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// The commit.
    pub commit: Commit,
    /// Its engine.
    pub engine: PathBuf,
    /// Its `bench` node count.
    pub bench: u64,
}

impl Side {
    /// The engine's name in the match: `dev-<hash>` or `base-<hash>`.
    #[must_use]
    pub fn name(&self, role: &str) -> String {
        format!("{role}-{}", self.commit.short())
    }
}

/// The time control used when `--each` sets no limit.
pub const DEFAULT_TC: &str = "10+0.1";

/// The match settings of a test.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The SPRT bounds.
    pub preset: Preset,
    /// Engine keys for both engines (`tc=`, `option.NAME=`, ...).
    pub each: Vec<(String, String)>,
    /// Games at a time.
    pub concurrency: usize,
    /// The budget: the most games before the test is inconclusive.
    pub games: u64,
    /// The seed of the openings.
    pub seed: u64,
    /// An openings file, if any.
    pub openings: Option<OpeningsConfig>,
}

/// The match of a test: `dev` (first, whose results are reported) against
/// `base`, with the plan's engine keys (a `tc=` of [`DEFAULT_TC`] added
/// when they set no limit), until the preset's SPRT decides or the
/// budget of games is played.
///
/// # Errors
/// [`ConfigError`] for engine keys or numbers that do not fit.
pub fn match_config(dev: &Side, base: &Side, plan: &Plan) -> Result<RunConfig, ConfigError> {
    let mut each = plan.each.clone();
    if !each
        .iter()
        .any(|(k, _)| matches!(k.as_str(), "tc" | "movetime" | "nodes" | "depth"))
    {
        each.insert(0, ("tc".to_owned(), DEFAULT_TC.to_owned()));
    }
    let engine = |side: &Side, role: &str| {
        vec![
            ("cmd".to_owned(), side.engine.display().to_string()),
            ("name".to_owned(), side.name(role)),
        ]
    };
    let config = RunConfig {
        mode: Mode::Match,
        engines: build_engines(&each, &[engine(dev, "dev"), engine(base, "base")])?,
        games: plan.games,
        concurrency: plan.concurrency,
        openings: plan.openings.clone(),
        seed: plan.seed,
        sprt: Some(plan.preset.sprt()),
        report_every: 200,
        ..RunConfig::default()
    };
    config.validate()?;
    Ok(config)
}

/// A test's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The SPRT accepted H1: the change passes.
    Passed,
    /// The SPRT accepted H0: the change fails.
    Failed,
    /// The budget of games ran out before the SPRT decided.
    Inconclusive,
}

impl Verdict {
    /// Of a finished run.
    #[must_use]
    pub fn of(report: &RunReport) -> Self {
        match report.end {
            RunEnd::Sprt(Decision::AcceptH1) => Self::Passed,
            RunEnd::Sprt(Decision::AcceptH0) => Self::Failed,
            RunEnd::Sprt(Decision::Continue) | RunEnd::Complete => Self::Inconclusive,
        }
    }

    /// Of a database run that ended: `None` for one stopped by hand.
    #[must_use]
    pub fn of_db_run(state: RunState) -> Option<Self> {
        match state {
            RunState::Sprt(Decision::AcceptH1) => Some(Self::Passed),
            RunState::Sprt(Decision::AcceptH0) => Some(Self::Failed),
            RunState::Sprt(Decision::Continue) | RunState::Complete => Some(Self::Inconclusive),
            RunState::Running | RunState::Stopped => None,
        }
    }

    /// `PASSED`, `FAILED` or `INCONCLUSIVE`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Passed => "PASSED",
            Self::Failed => "FAILED",
            Self::Inconclusive => "INCONCLUSIVE",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Self::Passed, Self::Failed, Self::Inconclusive]
            .into_iter()
            .find(|v| v.name() == text)
    }
}

/// One test in the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerRow {
    /// When the test ended, ISO 8601 UTC.
    pub time: String,
    /// The dev ref as given.
    pub dev_ref: String,
    /// Its commit.
    pub dev_commit: String,
    /// The base ref as given.
    pub base_ref: String,
    /// Its commit.
    pub base_commit: String,
    /// The dev build's bench node count.
    pub dev_bench: u64,
    /// The base build's.
    pub base_bench: u64,
    /// The preset's name.
    pub preset: String,
    /// Its lower bound (normalized Elo).
    pub elo0: f64,
    /// Its upper bound.
    pub elo1: f64,
    /// The limits, e.g. `tc=10+0.1`.
    pub tc: String,
    /// Games played (those in `out`): the pentanomial's pairs, and a game
    /// of a pair still being played when the SPRT decided.
    pub games: u64,
    /// Pairs `[ll, ld, dd, wd, ww]` from dev's side.
    pub pentanomial: [u64; 5],
    /// Logistic Elo of dev.
    pub elo: f64,
    /// Half-width of its 95% interval.
    pub elo_ci95: f64,
    /// Normalized Elo.
    pub nelo: f64,
    /// Half-width of its 95% interval.
    pub nelo_ci95: f64,
    /// The LLR at the end.
    pub llr: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// The run's output directory.
    pub out: String,
}

/// The ledger's header line.
pub const LEDGER_HEADER: &str = "time,dev_ref,dev_commit,base_ref,base_commit,dev_bench,base_bench,preset,elo0,elo1,\
                                 tc,games,ll,ld,dd,wd,ww,elo,elo_ci95,nelo,nelo_ci95,llr,verdict,out";

const LEDGER_FIELDS: usize = 24;

impl LedgerRow {
    /// The row of a finished test.
    #[must_use]
    pub fn new(dev: &Side, base: &Side, preset: Preset, config: &RunConfig, report: &RunReport, out: &Path) -> Self {
        Self::of_standings(
            dev,
            base,
            preset,
            config,
            &report.standings,
            Verdict::of(report),
            &out.display().to_string(),
        )
    }

    /// The row of a test that ended with standings `s` and `verdict`,
    /// whose games are in `out` (a directory, or a database run).
    #[must_use]
    pub fn of_standings(
        dev: &Side,
        base: &Side,
        preset: Preset,
        config: &RunConfig,
        s: &Standings,
        verdict: Verdict,
        out: &str,
    ) -> Self {
        let (elo0, elo1) = preset.bounds();
        let p = s.main.pentanomial;
        Self {
            time: iso_time(SystemTime::now()),
            dev_ref: dev.commit.refname.clone(),
            dev_commit: dev.commit.hash.clone(),
            base_ref: base.commit.refname.clone(),
            base_commit: base.commit.hash.clone(),
            dev_bench: dev.bench,
            base_bench: base.bench,
            preset: preset.name().to_owned(),
            elo0,
            elo1,
            tc: config.engines.first().map(|e| e.limits.describe()).unwrap_or_default(),
            games: s.done,
            pentanomial: [p.ll, p.ld, p.dd, p.wd, p.ww],
            elo: s.estimates.elo,
            elo_ci95: s.estimates.elo_ci95,
            nelo: s.estimates.nelo,
            nelo_ci95: s.estimates.nelo_ci95,
            llr: s.sprt.map_or(f64::NAN, |(_, status)| status.llr),
            verdict,
            out: out.to_owned(),
        }
    }

    /// The row as one CSV line, with its line end.
    #[must_use]
    pub fn to_line(&self) -> String {
        let p = self.pentanomial;
        let fields = [
            self.time.clone(),
            self.dev_ref.clone(),
            self.dev_commit.clone(),
            self.base_ref.clone(),
            self.base_commit.clone(),
            self.dev_bench.to_string(),
            self.base_bench.to_string(),
            self.preset.clone(),
            self.elo0.to_string(),
            self.elo1.to_string(),
            self.tc.clone(),
            self.games.to_string(),
            p[0].to_string(),
            p[1].to_string(),
            p[2].to_string(),
            p[3].to_string(),
            p[4].to_string(),
            format!("{:.2}", self.elo),
            format!("{:.2}", self.elo_ci95),
            format!("{:.2}", self.nelo),
            format!("{:.2}", self.nelo_ci95),
            format!("{:.3}", self.llr),
            self.verdict.name().to_owned(),
            self.out.clone(),
        ];
        let mut line = fields.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",");
        line.push('\n');
        line
    }

    /// Reads one line (without its line end); `None` if it is not a row.
    #[must_use]
    pub fn parse(line: &str) -> Option<Self> {
        let f = split_csv(line)?;
        if f.len() != LEDGER_FIELDS {
            return None;
        }
        let n = |i: usize| f[i].parse::<u64>().ok();
        let x = |i: usize| f[i].parse::<f64>().ok();
        Some(Self {
            time: f[0].clone(),
            dev_ref: f[1].clone(),
            dev_commit: f[2].clone(),
            base_ref: f[3].clone(),
            base_commit: f[4].clone(),
            dev_bench: n(5)?,
            base_bench: n(6)?,
            preset: f[7].clone(),
            elo0: x(8)?,
            elo1: x(9)?,
            tc: f[10].clone(),
            games: n(11)?,
            pentanomial: [n(12)?, n(13)?, n(14)?, n(15)?, n(16)?],
            elo: x(17)?,
            elo_ci95: x(18)?,
            nelo: x(19)?,
            nelo_ci95: x(20)?,
            llr: x(21)?,
            verdict: Verdict::parse(&f[22])?,
            out: f[23].clone(),
        })
    }
}

/// A CSV field, quoted when it must be; line ends become spaces (a row is
/// one line).
fn csv_field(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    if text.contains([',', '"']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// Splits one CSV line into fields; `None` for an unclosed quote.
fn split_csv(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (_, c) => field.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(field);
    Some(fields)
}

/// `time` as `2026-11-26T14:41:37Z`.
#[must_use]
pub fn iso_time(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    // Days since 1970-01-01 to a civil date, by 400-year eras of 146097
    // days that start on March 1st.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Appends `row` to the ledger at `path` (made, with its header, if
/// missing): under an exclusive lock, a torn last line left by a killed
/// writer is cut off, then the line is written with one `write` and
/// synced.
///
/// # Errors
/// [`RegressError::Io`] when the file cannot be opened, locked, written or
/// synced.
pub fn append_row(path: &Path, row: &LedgerRow) -> Result<(), RegressError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(io_err(path))?;
    file.lock().map_err(io_err(path))?;
    crate::events::drop_torn_tail(path).map_err(io_err(path))?;
    let mut text = String::new();
    if file.metadata().map_err(io_err(path))?.len() == 0 {
        text.push_str(LEDGER_HEADER);
        text.push('\n');
    }
    text.push_str(&row.to_line());
    file.write_all(text.as_bytes()).map_err(io_err(path))?;
    file.sync_all().map_err(io_err(path))?;
    Ok(())
}

/// The ledger as read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ledger {
    /// The whole rows, oldest first.
    pub rows: Vec<LedgerRow>,
    /// Lines that are not rows (but for a torn last line), with their
    /// line numbers from 1.
    pub damaged: Vec<usize>,
    /// Whether the last line was torn (no line end: a writer was killed
    /// while writing it); it is not counted.
    pub torn: bool,
}

/// Reads the ledger at `path`; a missing file is an empty ledger.
///
/// # Errors
/// [`RegressError::Io`] when it exists but cannot be read.
pub fn read_ledger(path: &Path) -> Result<Ledger, RegressError> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Ledger::default()),
        Err(e) => return Err(io_err(path)(e)),
    };
    let mut ledger = Ledger::default();
    let (whole, torn) = match text.rfind('\n') {
        Some(i) => (&text[..=i], !text[i + 1..].is_empty()),
        None => ("", !text.is_empty()),
    };
    ledger.torn = torn;
    for (i, line) in whole.lines().enumerate() {
        if line == LEDGER_HEADER || line.trim().is_empty() {
            continue;
        }
        match LedgerRow::parse(line) {
            Some(row) => ledger.rows.push(row),
            None => ledger.damaged.push(i + 1),
        }
    }
    Ok(ledger)
}

/// The columns of the `regress_ledger` table, in the CSV's order.
const DB_COLUMNS: &str = "time, dev_ref, dev_commit, base_ref, base_commit, dev_bench, base_bench, preset, elo0, \
                          elo1, tc, games, ll, ld, dd, wd, ww, elo, elo_ci95, nelo, nelo_ci95, llr, verdict, out";

fn to_db(n: u64, what: &str) -> Result<i64, DbError> {
    i64::try_from(n).map_err(|_| DbError::Content(format!("ledger row: {what} {n} is too large")))
}

fn from_db(n: i64, what: &str) -> Result<u64, DbError> {
    u64::try_from(n).map_err(|_| DbError::Content(format!("regress_ledger: {what} {n} is negative")))
}

/// Appends `row` to the database's ledger, the `regress_ledger` table, in
/// one statement; returns the row's key.
///
/// # Errors
/// A failed statement, or counts beyond the database's integers.
pub fn append_row_db(client: &mut impl postgres::GenericClient, row: &LedgerRow) -> Result<i64, DbError> {
    let p = row.pentanomial;
    let ints = [
        to_db(row.dev_bench, "dev bench")?,
        to_db(row.base_bench, "base bench")?,
        to_db(row.games, "games")?,
        to_db(p[0], "ll")?,
        to_db(p[1], "ld")?,
        to_db(p[2], "dd")?,
        to_db(p[3], "wd")?,
        to_db(p[4], "ww")?,
    ];
    let verdict = row.verdict.name();
    let id: i64 = client
        .query_one(
            &format!(
                "INSERT INTO regress_ledger ({DB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
                 $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24) RETURNING id"
            ),
            &[
                &row.time,
                &row.dev_ref,
                &row.dev_commit,
                &row.base_ref,
                &row.base_commit,
                &ints[0],
                &ints[1],
                &row.preset,
                &row.elo0,
                &row.elo1,
                &row.tc,
                &ints[2],
                &ints[3],
                &ints[4],
                &ints[5],
                &ints[6],
                &ints[7],
                &row.elo,
                &row.elo_ci95,
                &row.nelo,
                &row.nelo_ci95,
                &row.llr,
                &verdict,
                &row.out,
            ],
        )?
        .get(0);
    Ok(id)
}

/// The database's ledger, oldest first.
///
/// # Errors
/// A failed query, or a row that does not read.
pub fn read_ledger_db(client: &mut impl postgres::GenericClient) -> Result<Vec<LedgerRow>, DbError> {
    let rows = client.query(&format!("SELECT {DB_COLUMNS} FROM regress_ledger ORDER BY id"), &[])?;
    rows.iter()
        .map(|r| {
            let n = |i: usize, what: &str| from_db(r.get::<_, i64>(i), what);
            let verdict: String = r.get(22);
            Ok(LedgerRow {
                time: r.get(0),
                dev_ref: r.get(1),
                dev_commit: r.get(2),
                base_ref: r.get(3),
                base_commit: r.get(4),
                dev_bench: n(5, "dev_bench")?,
                base_bench: n(6, "base_bench")?,
                preset: r.get(7),
                elo0: r.get(8),
                elo1: r.get(9),
                tc: r.get(10),
                games: n(11, "games")?,
                pentanomial: [n(12, "ll")?, n(13, "ld")?, n(14, "dd")?, n(15, "wd")?, n(16, "ww")?],
                elo: r.get(17),
                elo_ci95: r.get(18),
                nelo: r.get(19),
                nelo_ci95: r.get(20),
                llr: r.get(21),
                verdict: Verdict::parse(&verdict)
                    .ok_or_else(|| DbError::Content(format!("regress_ledger: verdict {verdict:?}")))?,
                out: r.get(23),
            })
        })
        .collect()
}

/// The ledger as a table, oldest first.
#[must_use]
pub fn history_text(rows: &[LedgerRow]) -> String {
    let header = [
        "time",
        "dev",
        "base",
        "bench dev/base",
        "preset",
        "tc",
        "games",
        "ptnml(0-2)",
        "nElo",
        "LLR",
        "verdict",
    ];
    let table: Vec<[String; 11]> = rows
        .iter()
        .map(|r| {
            let p = r.pentanomial;
            [
                r.time.clone(),
                format!("{} ({})", r.dev_ref, &r.dev_commit[..r.dev_commit.len().min(8)]),
                format!("{} ({})", r.base_ref, &r.base_commit[..r.base_commit.len().min(8)]),
                format!("{}/{}", r.dev_bench, r.base_bench),
                format!("{} [{}, {}]", r.preset, r.elo0, r.elo1),
                r.tc.clone(),
                r.games.to_string(),
                format!("[{}, {}, {}, {}, {}]", p[0], p[1], p[2], p[3], p[4]),
                format!("{:+.2} ± {:.2}", r.nelo, r.nelo_ci95),
                format!("{:.2}", r.llr),
                r.verdict.name().to_owned(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &table {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[&str]| {
        let text: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        let _ = writeln!(out, "{}", text.join("  ").trim_end());
    };
    line(&mut out, &header);
    for row in &table {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&mut out, &cells);
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_lines_and_signatures_read() {
        assert_eq!(
            bench_nodes("position 1: 5 nodes\n3108684 nodes 1709580 nps\n\n"),
            Some(3_108_684)
        );
        assert_eq!(bench_nodes("Nodes searched: 12\n"), None);
        assert_eq!(bench_nodes("total 77 NODES\n"), Some(77));
        assert_eq!(bench_nodes(""), None);
        assert_eq!(bench_signature("Faster eval\n\nBench: 3108684\n"), Ok(Some(3_108_684)));
        assert_eq!(bench_signature("x\nbench: 5\nBench: 6"), Ok(Some(6)));
        assert_eq!(bench_signature("no signature"), Ok(None));
        assert_eq!(bench_signature("Bench: many"), Err("Bench: many".to_owned()));
    }

    #[test]
    fn presets_give_normalized_bounds() {
        assert_eq!(Preset::parse("gainer").unwrap().bounds(), (0.0, 2.0));
        assert_eq!(Preset::parse("non-regression").unwrap().bounds(), (-1.75, 0.25));
        assert_eq!(Preset::parse("-3, 1").unwrap().bounds(), (-3.0, 1.0));
        assert_eq!(Preset::NonRegression.sprt().model, EloModel::Normalized);
        for bad in ["2,0", "x", "1,", "nan,1", ""] {
            assert!(Preset::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn database_runs_give_verdicts_as_local_ones() {
        assert_eq!(
            Verdict::of_db_run(RunState::Sprt(Decision::AcceptH1)),
            Some(Verdict::Passed)
        );
        assert_eq!(
            Verdict::of_db_run(RunState::Sprt(Decision::AcceptH0)),
            Some(Verdict::Failed)
        );
        assert_eq!(Verdict::of_db_run(RunState::Complete), Some(Verdict::Inconclusive));
        assert_eq!(Verdict::of_db_run(RunState::Stopped), None);
        assert_eq!(Verdict::of_db_run(RunState::Running), None);
    }

    #[test]
    fn rows_round_trip_and_quote() {
        let row = LedgerRow {
            time: iso_time(UNIX_EPOCH + Duration::from_secs(1_795_000_000)),
            dev_ref: "feature,\"x\"".to_owned(),
            dev_commit: "a".repeat(40),
            base_ref: "main".to_owned(),
            base_commit: "b".repeat(40),
            dev_bench: 10,
            base_bench: 11,
            preset: "nonregression".to_owned(),
            elo0: -1.75,
            elo1: 0.25,
            tc: "tc=1+0.01".to_owned(),
            games: 20,
            pentanomial: [1, 2, 3, 4, 0],
            elo: -3.5,
            elo_ci95: 20.25,
            nelo: -4.0,
            nelo_ci95: 30.5,
            llr: -0.125,
            verdict: Verdict::Inconclusive,
            out: "/tmp/a b".to_owned(),
        };
        assert_eq!(row.time, "2026-11-18T11:06:40Z");
        let line = row.to_line();
        assert!(line.ends_with('\n'));
        assert_eq!(LedgerRow::parse(line.trim_end()), Some(row));
        assert_eq!(iso_time(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            iso_time(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(split_csv("a,\"b"), None);
    }
}
