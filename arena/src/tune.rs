//! SPSA tuning runs in an output directory, the library side of
//! `arena tune`: the `spsa` crate's [`Tuner`] asks for trials, and each
//! trial's game pairs are fed by [`play_fed`] to a pool of game slots, between the engine set to
//! the trial's plus values and the same engine set to its minus values (one
//! `setoption` per parameter, re-sent only when it changes since engines
//! are reused). A game an engine loses by failing is still a result; a pair
//! counts once both of its games are done, and a trial is told once all its
//! pairs are.
//!
//! After every update the directory gets `state.json` (the tuner's atomic
//! save), one more `history.csv` row and a fresh `traces.svg`; the settings
//! are in `tune.json`, so [`resume_tune`] needs only the directory. A run
//! killed at any moment loses no told result: trials pending at the kill
//! are in the state and are played again from their first game (same
//! values, same openings) before any new trial is asked.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::{Command, EngineMessage, SpsaParam};
use results::RecordWriter;
use serde::{Deserialize, Serialize};
use spsa::{HistoryRow, HistoryWriter, Kind, LineErrorKind, Param, Pentanomial, Trial, TrialId, Tuner};
use thiserror::Error;

use crate::config::{
    ConfigError, MAX_CONCURRENCY, MAX_GAMES, OpeningsConfig, TuneSettings, build_engines, check_limits, check_range,
    openings_of,
};
use crate::events::{EventLog, drop_torn_tail};
use crate::files::{FileError, LockError, RunLock, io_error, read_json, write_atomic, write_json};
use crate::openings::{OpeningSource, OpeningsError, read_openings, write_openings};
use crate::player::{EngineFailure, HANDSHAKE_TIMEOUT, QUIT_GRACE};
use crate::pool::{Feed, play_fed};
use crate::process::EngineProcess;
use crate::runner::{EVENTS_FILE, GAMES_FILE, Relay, RunError, probe_engine, write_game_events};
use crate::slot::{FinishedGame, GameJob, PairCollector};
use crate::spec::{EngineSpec, Proto};
use crate::traces::traces_svg;

/// The settings of a tuning run, saved in the run directory.
pub const TUNE_FILE: &str = "tune.json";
/// The tuner's state, rewritten atomically after every update.
pub const STATE_FILE: &str = "state.json";
/// One row per update: games so far and every parameter's value.
pub const HISTORY_FILE: &str = "history.csv";
/// The parameter traces, normalized to their ranges (see [`traces_svg`]).
pub const TRACES_FILE: &str = "traces.svg";

/// Everything a tuning run needs besides its parameters (which the state
/// holds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneConfig {
    /// The engine to tune, with its limits and fixed options; the plus and
    /// minus engines are this one renamed `<name>-plus` and `<name>-minus`
    /// with the trial's values added as options.
    pub engine: EngineSpec,
    /// The budget in games.
    pub games: u64,
    /// Games played at the same time.
    pub concurrency: usize,
    /// The openings file (a copy in the run directory once started), if
    /// any; without one, setups are drawn from the seed.
    pub openings: Option<OpeningsConfig>,
    /// The seed of the tuner and of the openings.
    pub seed: u64,
    /// Game pairs per trial.
    pub pairs_per_trial: u32,
    /// The SPSA recipe (older run files without it used the default).
    #[serde(default)]
    pub recipe: spsa::Recipe,
}

impl TuneConfig {
    /// The checked settings of `arena tune` (without `--params`, which
    /// the binary reads).
    ///
    /// # Errors
    /// [`TuneError::Invalid`] without an engine, [`TuneError::Config`] for a
    /// bad engine or bad openings, and as for [`TuneConfig::validate`].
    pub fn new(settings: &TuneSettings) -> Result<Self, TuneError> {
        if settings.engine.is_empty() {
            return Err(TuneError::Invalid(
                "give the engine to tune with --engine cmd=PATH ...".to_owned(),
            ));
        }
        let config = Self {
            engine: build_engines(&settings.each, std::slice::from_ref(&settings.engine))?.remove(0),
            games: settings.games.unwrap_or(20_000),
            concurrency: settings.concurrency.unwrap_or(1),
            openings: settings.openings.as_deref().map(openings_of).transpose()?,
            seed: settings.seed.unwrap_or(1),
            pairs_per_trial: settings.pairs_per_trial.unwrap_or(2),
            recipe: settings.recipe.unwrap_or_default(),
        };
        config.validate()?;
        Ok(config)
    }

    /// Checks that the settings fit together.
    ///
    /// # Errors
    /// [`TuneError::Invalid`] saying what does not fit.
    pub fn validate(&self) -> Result<(), TuneError> {
        check_limits(&self.engine)
            .map_err(|reason| TuneError::Invalid(format!("engine {}: {reason}", self.engine.name)))?;
        check_range("--games", self.games, 2, MAX_GAMES)?;
        check_range("--concurrency", self.concurrency as u64, 1, MAX_CONCURRENCY)?;
        check_range("--pairs-per-trial", u64::from(self.pairs_per_trial), 1, 10_000)?;
        if self.engine.proto != Proto::Uci {
            return Err(TuneError::Invalid(
                "only UCI engines can be tuned: the options are set with setoption".to_owned(),
            ));
        }
        Ok(())
    }

    /// The plus engine's name.
    #[must_use]
    pub fn plus_name(&self) -> String {
        format!("{}-plus", self.engine.name)
    }

    /// The minus engine's name.
    #[must_use]
    pub fn minus_name(&self) -> String {
        format!("{}-minus", self.engine.name)
    }

    /// The engine with `values` of `params` set as options (replacing any
    /// option of the same name), under `name`.
    #[must_use]
    pub fn engine_with(&self, name: &str, params: &[Param], values: &[f64]) -> EngineSpec {
        let mut spec = self.engine.clone();
        spec.name = name.to_owned();
        for (param, &value) in params.iter().zip(values) {
            spec.options
                .retain(|(n, _)| !protocol::option_names_match(n, &param.name));
            spec.options.push((param.name.clone(), option_value(param, value)));
        }
        spec
    }
}

/// The text a parameter's value is sent as with `setoption`: an `int`
/// parameter as a whole number (the tuner has already rounded it
/// stochastically), a `float` one as decimal text that always has a
/// decimal point (`1.0`, `0.4375`, never an exponent), for engines that
/// declare the option as a `string` and parse it.
#[must_use]
pub fn option_value(param: &Param, value: f64) -> String {
    match param.kind {
        Kind::Int => param.format_value(value),
        Kind::Float => {
            let text = format!("{value}");
            if text.contains('.') || !value.is_finite() {
                text
            } else {
                format!("{text}.0")
            }
        }
    }
}

/// Checks each parameter against the type of the option the engine
/// declares for it: an `int` parameter needs a `spin` or a `string`, a
/// `float` one a `string` (a `spin` takes whole numbers only; declare the
/// parameter `int` in units the engine scales, or make the option a
/// `string`).
///
/// # Errors
/// [`TuneError::Invalid`] naming the parameter, its kind and the option's
/// type.
pub fn check_option_types(params: &[Param], declared: &[protocol::UciOption]) -> Result<(), TuneError> {
    for param in params {
        let Some(option) = declared
            .iter()
            .find(|o| protocol::option_names_match(&o.name, &param.name))
        else {
            continue; // probe_engine refuses options the engine does not offer
        };
        let kind = match option.kind {
            protocol::OptionKind::Spin { .. } => "spin",
            protocol::OptionKind::String { .. } => "string",
            protocol::OptionKind::Check { .. } => "check",
            protocol::OptionKind::Combo { .. } => "combo",
            protocol::OptionKind::Button => "button",
        };
        let fits = match param.kind {
            Kind::Int => matches!(kind, "spin" | "string"),
            Kind::Float => kind == "string",
        };
        if !fits {
            let advice = match param.kind {
                Kind::Float if kind == "spin" => {
                    ": a spin takes whole numbers only; declare the parameter int (in units the engine scales) or make \
                     the option a string that the engine parses as a decimal"
                }
                Kind::Float => ": a float parameter needs a string option that the engine parses as a decimal",
                Kind::Int => ": an int parameter needs a spin or a string option",
            };
            return Err(TuneError::Invalid(format!(
                "parameter {} is {} but the engine declares option {} as type {kind}{advice}",
                param.name,
                param.kind.name(),
                option.name
            )));
        }
    }
    Ok(())
}

/// What a tuning run reports as it goes; every method has an empty default.
pub trait TuneObserver: Send + Sync {
    /// The run starts (or resumes, with `replayed` pending trials to play
    /// again).
    fn started(&self, _tuner: &Tuner, _resumed: bool, _replayed: usize) {}
    /// A game finished (`played` games so far in this session).
    fn game_finished(&self, _played: u64) {}
    /// A trial was told; the files are written.
    fn updated(&self, _tuner: &Tuner) {}
    /// An engine failed in a game (the game is its loss).
    fn engine_failed(&self, _game: u64, _engine: &str, _failure: &EngineFailure) {}
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct QuietTune;

impl TuneObserver for QuietTune {}

/// The end of a tuning run.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The tuner at the end (its values are the result).
    pub tuner: Tuner,
    /// The settings.
    pub config: TuneConfig,
    /// Games played by this call.
    pub played: u64,
    /// Pending trials found in the state and played again (resume only).
    pub replayed: usize,
    /// The time this call took.
    pub elapsed: Duration,
    /// Forfeits per engine and termination over the whole run (counted
    /// from `games.csv`).
    pub failures: BTreeMap<String, BTreeMap<String, u64>>,
}

/// Why a tuning run could not start or go on.
#[derive(Debug, Error)]
pub enum TuneError {
    /// Bad settings.
    #[error("{0}")]
    Invalid(String),
    /// Settings that do not read (the engine, the openings).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A new run into a directory that holds one.
    #[error("{0} already holds a tuning run: continue it with --resume, or choose another --out")]
    Exists(PathBuf),
    /// `--resume` on a directory without a run.
    #[error("{0} holds no tuning run to resume (no tune.json)")]
    NoRun(PathBuf),
    /// Another runner holds the directory.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// A file of the run could not be read, written, parsed or drawn.
    #[error(transparent)]
    File(#[from] FileError),
    /// The engine failed to start, answer, or list its parameters.
    #[error("engine {engine}: {failure}")]
    Engine {
        /// The engine.
        engine: String,
        /// What went wrong.
        failure: String,
    },
    /// The engine's check (options) failed.
    #[error(transparent)]
    Check(#[from] RunError),
    /// The parameters do not parse.
    #[error("parameters: {0}")]
    Params(#[from] spsa::ParamsFileError),
    /// The tuner refused the parameters or settings.
    #[error(transparent)]
    Tuner(#[from] spsa::ConfigError),
    /// The state could not be saved or loaded.
    #[error("{path}: {source}")]
    State {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: spsa::StateError,
    },
    /// The history could not be read or continued.
    #[error("{path}: {source}")]
    History {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: spsa::HistoryError,
    },
    /// The tuner refused a result (a bug, reported rather than hidden).
    #[error(transparent)]
    Tell(#[from] spsa::TellError),
    /// The openings file.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// The game record could not be written.
    #[error(transparent)]
    Write(#[from] results::WriteError),
    /// The game record could not be read.
    #[error(transparent)]
    Read(#[from] results::ReadError),
    /// The database of a tuning run (`arena tune --db`).
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
}

/// Asks an engine for its tunable parameters: `uci`, then `spsa` and
/// `isready`, keeping the protocol's `spsa` lines (`name, int, ...`)
/// printed before `readyok`.
///
/// # Errors
/// [`TuneError::Engine`] if it cannot be started, does not answer within
/// the handshake timeout, or lists no parameter; [`TuneError::Params`] if
/// its parameters are not usable (numbered by their `spsa` line).
pub fn engine_params(spec: &EngineSpec) -> Result<Vec<Param>, TuneError> {
    let fail = |failure: String| TuneError::Engine {
        engine: spec.name.clone(),
        failure,
    };
    if spec.proto != Proto::Uci {
        return Err(fail("only UCI engines list their parameters (`spsa`)".to_owned()));
    }
    let mut process = EngineProcess::spawn(spec).map_err(|e| fail(e.to_string()))?;
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let wait_for = |process: &mut EngineProcess, word: EngineMessage, lines: &mut Vec<SpsaParam>| {
        loop {
            let line = process
                .recv(deadline, None)
                .map_err(|e| fail(format!("waiting for {word}: {e}")))?;
            let Some(text) = line.text else { continue };
            match text.parse::<EngineMessage>() {
                Ok(message) if message == word => return Ok::<(), TuneError>(()),
                Ok(EngineMessage::Spsa(param)) => lines.push(param),
                // A line shaped like a parameter (`name, int|float, ...`)
                // that does not read is an error, not a parameter dropped.
                Err(error) => match text.split(',').nth(1).map(str::trim_ascii) {
                    Some("int") => return Err(fail(format!("bad `spsa` line {text:?}: {error}"))),
                    Some("float") => {
                        return Err(fail(format!(
                            "`spsa` line {text:?}: engines list int parameters only (the protocol's spin options); give float ones with --params"
                        )));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    };
    let mut ignored = Vec::new();
    let mut lines = Vec::new();
    let send = |process: &mut EngineProcess, command: Command| {
        process.send(&command.to_string()).map_err(|e| TuneError::Engine {
            engine: spec.name.clone(),
            failure: format!("cannot write to it: {e}"),
        })
    };
    send(&mut process, Command::Uci)?;
    wait_for(&mut process, EngineMessage::UciOk, &mut ignored)?;
    send(&mut process, Command::Spsa)?;
    send(&mut process, Command::IsReady)?;
    wait_for(&mut process, EngineMessage::ReadyOk, &mut lines)?;
    let _ = process.send(&Command::Quit.to_string());
    process.shutdown(QUIT_GRACE);
    if lines.is_empty() {
        return Err(TuneError::Engine {
            engine: spec.name.clone(),
            failure: "listed no parameter for `spsa` (give them with --params)".to_owned(),
        });
    }
    let params = lines.iter().enumerate().map(|(i, p)| {
        let (value, min, max) = (p.value as f64, p.min as f64, p.max as f64);
        let param = Param::new(&p.name, Kind::Int, value, min, max, p.c_end, p.r_end);
        (i + 1, param.map_err(LineErrorKind::Invalid))
    });
    Ok(spsa::collect_params(params)?)
}

pub(crate) fn absolutize(config: &mut TuneConfig, base: &Path) {
    let fix = |p: &mut PathBuf| {
        if p.is_relative() {
            *p = base.join(&*p);
        }
    };
    if config.engine.cmd.components().count() > 1 {
        fix(&mut config.engine.cmd);
    }
    if let Some(dir) = &mut config.engine.dir {
        fix(dir);
    }
    if let Some(openings) = &mut config.openings {
        fix(&mut openings.file);
    }
}

/// Reads the settings saved in a tuning run's directory.
///
/// # Errors
/// [`TuneError::NoRun`] without them, [`FileError::Content`] when they do
/// not parse.
pub fn saved_tune_config(out: &Path) -> Result<TuneConfig, TuneError> {
    read_json(&out.join(TUNE_FILE), TuneError::NoRun(out.to_path_buf()))
}

/// Starts a tuning run of `params` in `out` (created if missing; refused if
/// it holds a run). The engine is checked first (it must start and offer an
/// option for every parameter), so a typo leaves nothing behind.
///
/// # Errors
/// [`TuneError`] for bad settings or parameters, an engine that fails its
/// check, or files that cannot be written. Engine failures during games
/// are results, not errors.
pub fn start_tune(
    mut config: TuneConfig,
    params: Vec<Param>,
    out: &Path,
    observer: Arc<dyn TuneObserver>,
) -> Result<TuneReport, TuneError> {
    config.validate()?;
    let cwd = std::env::current_dir().map_err(io_error(Path::new(".")))?;
    absolutize(&mut config, &cwd);
    let out = if out.is_relative() {
        cwd.join(out)
    } else {
        out.to_path_buf()
    };
    // tune.json is written last: without it, files left by a start that was
    // killed before its first game are replaced.
    if out.join(TUNE_FILE).exists() {
        return Err(TuneError::Exists(out));
    }
    let tuner = new_tuner(&config, params)?;
    check_engine(&config, &tuner)?;
    std::fs::create_dir_all(&out).map_err(io_error(&out))?;
    // Held to the end of the run: a second runner on `out` is refused.
    let _lock = RunLock::acquire(&out)?;
    if out.join(TUNE_FILE).exists() {
        return Err(TuneError::Exists(out));
    }
    if let Some(o) = &mut config.openings {
        let list = read_openings(&o.file)?;
        let copy = out.join(crate::runner::OPENINGS_FILE);
        write_openings(&copy, &list).map_err(io_error(&copy))?;
        o.file = copy;
    }
    let state_path = out.join(STATE_FILE);
    tuner.save(&state_path).map_err(|source| TuneError::State {
        path: state_path.clone(),
        source,
    })?;
    let names: Vec<&str> = tuner.params().iter().map(|p| p.name.as_str()).collect();
    let history_path = out.join(HISTORY_FILE);
    let mut history = HistoryWriter::create(&history_path, &names).map_err(io_error(&history_path))?;
    let first = tuner.history_row();
    history.append(&first).map_err(io_error(&history_path))?;
    // The settings go last: a directory with tune.json is a run to resume.
    let tune_path = out.join(TUNE_FILE);
    write_json(&tune_path, &config).map_err(io_error(&tune_path))?;
    execute(config, tuner, history, vec![first], &out, observer, false)
}

/// A new tuner of `params` with the settings of `config`.
///
/// # Errors
/// [`TuneError::Tuner`] when the tuner refuses the parameters or settings.
pub fn new_tuner(config: &TuneConfig, params: Vec<Param>) -> Result<Tuner, TuneError> {
    Ok(Tuner::new(
        params,
        spsa::Config {
            seed: config.seed,
            pairs_per_trial: config.pairs_per_trial,
            schedule: config.recipe.schedule(),
            ..spsa::Config::new(config.games)
        },
    )?)
}

/// Checks that the engine of `config` starts with the tuner's start
/// values and offers an option of a fitting type for every parameter.
///
/// # Errors
/// [`TuneError::Check`] for an engine that fails, [`TuneError::Invalid`]
/// for an option of the wrong type.
pub fn check_engine(config: &TuneConfig, tuner: &Tuner) -> Result<(), TuneError> {
    let start: Vec<f64> = tuner.params().iter().map(|p| p.start).collect();
    let info = probe_engine(&config.engine_with(&config.plus_name(), tuner.params(), &start))?;
    check_option_types(tuner.params(), &info.declared)
}

/// Writes the files of a tuning run that the tuner's state makes, as a
/// local run keeps them: `tune.json` (`config`), `state.json`,
/// `history.csv` (`rows`) and `traces.svg`. `arena export` writes a
/// database tuning run with it.
///
/// # Errors
/// [`TuneError`] for a file that cannot be written.
pub fn write_tune_files(out: &Path, config: &TuneConfig, tuner: &Tuner, rows: &[HistoryRow]) -> Result<(), TuneError> {
    let state = out.join(STATE_FILE);
    tuner
        .save(&state)
        .map_err(|source| TuneError::State { path: state, source })?;
    let names: Vec<&str> = tuner.params().iter().map(|p| p.name.as_str()).collect();
    let history_path = out.join(HISTORY_FILE);
    let mut history = HistoryWriter::create(&history_path, &names).map_err(io_error(&history_path))?;
    for row in rows {
        history.append(row).map_err(io_error(&history_path))?;
    }
    let files = Files {
        out,
        history,
        rows: rows.to_vec(),
    };
    files.traces(tuner)?;
    let tune_path = out.join(TUNE_FILE);
    write_json(&tune_path, config).map_err(io_error(&tune_path))?;
    Ok(())
}

/// Continues the tuning run saved in `out`, optionally with another number
/// of game slots. Trials pending at the stop are played again first.
///
/// # Errors
/// As for [`start_tune`], and [`TuneError::NoRun`] when `out` holds no run.
pub fn resume_tune(
    out: &Path,
    concurrency: Option<usize>,
    observer: Arc<dyn TuneObserver>,
) -> Result<TuneReport, TuneError> {
    let mut config = saved_tune_config(out)?;
    // Held to the end of the run: a second runner on `out` is refused.
    let _lock = RunLock::acquire(out)?;
    if let Some(n) = concurrency {
        config.concurrency = n;
    }
    config.validate()?;
    let state_path = out.join(STATE_FILE);
    let tuner = Tuner::load(&state_path).map_err(|source| TuneError::State {
        path: state_path.clone(),
        source,
    })?;
    let names: Vec<&str> = tuner.params().iter().map(|p| p.name.as_str()).collect();
    let history_path = out.join(HISTORY_FILE);
    let (mut history, mut rows) =
        HistoryWriter::resume(&history_path, &names, tuner.games()).map_err(|source| TuneError::History {
            path: history_path.clone(),
            source,
        })?;
    // A kill between saving the state and appending its row loses the row:
    // write it now, so the history ends where the state does.
    if rows.last().is_none_or(|row| row.games < tuner.games()) {
        let row = tuner.history_row();
        history.append(&row).map_err(io_error(&history_path))?;
        rows.push(row);
    }
    execute(config, tuner, history, rows, out, observer, true)
}

/// A trial being played: its pairs still missing and its result so far.
struct Running {
    left: u32,
    result: Pentanomial,
}

/// The files of a run and how to rewrite them after an update.
struct Files<'a> {
    out: &'a Path,
    history: HistoryWriter,
    rows: Vec<HistoryRow>,
}

impl Files<'_> {
    fn update(&mut self, tuner: &Tuner) -> Result<(), TuneError> {
        let state = self.out.join(STATE_FILE);
        tuner
            .save(&state)
            .map_err(|source| TuneError::State { path: state, source })?;
        let row = tuner.history_row();
        let path = self.out.join(HISTORY_FILE);
        self.history.append(&row).map_err(io_error(&path))?;
        self.rows.push(row);
        self.traces(tuner)
    }

    fn traces(&self, tuner: &Tuner) -> Result<(), TuneError> {
        let path = self.out.join(TRACES_FILE);
        let svg = traces_svg(tuner.params(), &self.rows).map_err(|reason| FileError::Content {
            path: path.clone(),
            reason,
        })?;
        Ok(write_atomic(&path, svg.as_bytes()).map_err(io_error(&path))?)
    }
}

/// The trials of a run, fed to the pool: the tuner's pending trials first,
/// then new ones as it asks; each finished pair goes to its trial, and a
/// trial whose pairs are all in is told and the files are rewritten.
struct TuneFeed<'a> {
    config: &'a TuneConfig,
    tuner: Tuner,
    openings: OpeningSource,
    queue: VecDeque<GameJob>,
    running: HashMap<TrialId, Running>,
    collector: PairCollector,
    files: Files<'a>,
    observer: &'a dyn TuneObserver,
    played: u64,
    writer: RecordWriter<std::fs::File>,
    events: &'a EventLog,
    /// The games in `games.csv`: a game of a pending trial played again
    /// after a resume keeps its first row.
    recorded: HashSet<u64>,
}

impl TuneFeed<'_> {
    /// Queues the games of `trial`: two per pair (plus engine Red, then
    /// Blue) on the pair's opening.
    fn enqueue(&mut self, trial: &Trial) {
        let params = self.tuner.params();
        let plus = Arc::new(self.config.engine_with(&self.config.plus_name(), params, &trial.plus));
        let minus = Arc::new(self.config.engine_with(&self.config.minus_name(), params, &trial.minus));
        let pairs_per_trial = u64::from(self.tuner.config().pairs_per_trial);
        for j in 0..u64::from(trial.pairs) {
            // Pairs are numbered from the trial's id, so a trial played again
            // after a resume gets the same openings.
            let pair = trial.id.0.saturating_mul(pairs_per_trial).saturating_add(j);
            let opening = self.openings.opening(pair);
            for (k, (red, blue)) in [(&plus, &minus), (&minus, &plus)].into_iter().enumerate() {
                self.queue.push_back(GameJob {
                    id: 2 * pair + k as u64,
                    pair,
                    round: trial.id.0,
                    red: Arc::clone(red),
                    blue: Arc::clone(blue),
                    setups: Some((opening.red, opening.blue)),
                });
            }
        }
        self.running.insert(
            trial.id,
            Running {
                left: trial.pairs,
                result: Pentanomial::default(),
            },
        );
    }
}

impl Feed for TuneFeed<'_> {
    type Error = TuneError;

    fn next_job(&mut self) -> Result<Option<GameJob>, TuneError> {
        if self.queue.is_empty()
            && let Some(trial) = self.tuner.ask()
        {
            self.enqueue(&trial);
        }
        Ok(self.queue.pop_front())
    }

    fn finished(&mut self, game: FinishedGame) -> Result<bool, TuneError> {
        let record = game.to_record();
        if self.recorded.insert(record.game) {
            self.writer.write(&record)?;
        }
        write_game_events(self.events, &record, &game.violations, Some(game.job.round));
        self.played += 1;
        self.observer.game_finished(self.played);
        let Some(pair) = self.collector.add(game) else {
            return Ok(true);
        };
        let id = TrialId(pair.first.job.round);
        let Some(trial) = self.running.get_mut(&id) else {
            return Ok(true);
        };
        if let Some((a, b)) = pair.outcomes_for(&self.config.plus_name()) {
            trial.result.record_pair(a, b);
        }
        trial.left = trial.left.saturating_sub(1);
        if trial.left > 0 {
            return Ok(true);
        }
        let result = trial.result;
        self.running.remove(&id);
        self.tuner.tell(id, result)?;
        self.files.update(&self.tuner)?;
        self.observer.updated(&self.tuner);
        Ok(true)
    }
}

fn execute(
    config: TuneConfig,
    tuner: Tuner,
    history: HistoryWriter,
    rows: Vec<HistoryRow>,
    out: &Path,
    observer: Arc<dyn TuneObserver>,
    resumed: bool,
) -> Result<TuneReport, TuneError> {
    let began = Instant::now();
    let files = Files { out, history, rows };
    files.traces(&tuner)?;
    let openings = match &config.openings {
        Some(o) => OpeningSource::from_list(read_openings(&o.file)?, o.order, config.seed),
        None => OpeningSource::Random { seed: config.seed },
    };
    // The game record, as a match keeps it: a row torn by a kill is dropped.
    let games_path = out.join(GAMES_FILE);
    drop_torn_tail(&games_path).map_err(io_error(&games_path))?;
    let mut recorded = HashSet::new();
    if games_path.exists() {
        recorded.extend(results::read_record_file(&games_path)?.records().map(|r| r.game));
    }
    let writer = RecordWriter::append(&games_path)?;
    let events_path = out.join(EVENTS_FILE);
    let events = Arc::new(EventLog::open(&events_path).map_err(io_error(&events_path))?);
    events.write(
        if resumed { "run-resumed" } else { "run-started" },
        serde_json::json!({"games": tuner.budget_games(), "done": tuner.games(), "engines": [config.plus_name(), config.minus_name()]}),
    );
    let pending: Vec<Trial> = tuner.pending().cloned().collect();
    let mut feed = TuneFeed {
        config: &config,
        tuner,
        openings,
        queue: VecDeque::new(),
        running: HashMap::new(),
        collector: PairCollector::new(),
        files,
        observer: &*observer,
        played: 0,
        writer,
        events: &events,
        recorded,
    };
    for trial in &pending {
        feed.enqueue(trial);
    }
    observer.started(&feed.tuner, resumed, pending.len());
    if !feed.tuner.is_done() {
        if resumed {
            let start: Vec<f64> = feed.tuner.params().iter().map(|p| p.start).collect();
            let info = probe_engine(&config.engine_with(&config.plus_name(), feed.tuner.params(), &start))?;
            check_option_types(feed.tuner.params(), &info.declared)?;
        }
        let failures = Arc::clone(&observer);
        let relay = Relay {
            events: Arc::clone(&events),
            on_failure: Box::new(move |game, engine, failure| failures.engine_failed(game, engine, failure)),
        };
        play_fed(config.concurrency, Arc::new(relay), &mut feed)?;
    }
    let (tuner, played) = (feed.tuner, feed.played);
    events.write(
        "run-finished",
        serde_json::json!({"games": tuner.games(), "reason": if tuner.is_done() { "complete" } else { "stopped" }}),
    );
    let failures = forfeits(&games_path, &[config.plus_name(), config.minus_name()])?;
    Ok(TuneReport {
        tuner,
        config,
        played,
        replayed: pending.len(),
        elapsed: began.elapsed(),
        failures,
    })
}

/// Forfeits per engine (each of `engines`, with none as an empty map) and
/// termination in the game record at `path`.
fn forfeits(path: &Path, engines: &[String]) -> Result<BTreeMap<String, BTreeMap<String, u64>>, TuneError> {
    if !path.exists() {
        return Ok(forfeits_of(std::iter::empty(), engines));
    }
    let file = results::read_record_file(path)?;
    Ok(forfeits_of(file.records(), engines))
}

/// Forfeits per engine (each of `engines`, with none as an empty map) and
/// termination among `records`.
pub fn forfeits_of<'a>(
    records: impl IntoIterator<Item = &'a results::GameRecord>,
    engines: &[String],
) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut failures: BTreeMap<String, BTreeMap<String, u64>> =
        engines.iter().map(|e| (e.clone(), BTreeMap::new())).collect();
    for record in records {
        if record.termination.is_forfeit() {
            let loser = match record.result {
                results::GameResult::RedWins => &record.blue,
                _ => &record.red,
            };
            *failures
                .entry(loser.clone())
                .or_default()
                .entry(record.termination.as_str().to_owned())
                .or_default() += 1;
        }
    }
    failures
}
