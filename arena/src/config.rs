//! The settings of the commands that play games, each declared once.
//! [`RunSettings`] is what a user writes for `arena match`, `gauntlet` and
//! `roundrobin`: clap reads it from the command line and serde from a TOML
//! `--config` file with the same keys (flags override the file). Checked by
//! [`RunConfig::validate`], it becomes a [`RunConfig`], the record of the
//! run saved as `config.json`, so that `--resume DIR` needs nothing else.
//! [`TuneSettings`] does the same for `arena tune` (its record is
//! [`crate::TuneConfig`]). Groups of `KEY=VALUE` tokens (an engine,
//! `--each`, `--sprt`, `--openings`) are tables in the file; both become
//! [`Pairs`], read by one parser each ([`EngineSpec::from_pairs`],
//! [`from_pairs`]).

use std::path::{Path, PathBuf};

use clap::{ArgAction, ArgMatches, Args, FromArgMatches, ValueEnum};
use results::EloModel;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

use crate::openings::Order;
use crate::spec::{EngineSpec, SpecError};

/// The format of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Two engines against each other.
    #[default]
    Match,
    /// The first engine against every other one.
    Gauntlet,
    /// Every engine against every other one.
    Roundrobin,
}

impl Mode {
    /// The subcommand's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Match => "match",
            Self::Gauntlet => "gauntlet",
            Self::Roundrobin => "roundrobin",
        }
    }
}

/// Who chooses the setups when there is no openings file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SetupChoice {
    /// The arena draws a random setup pair from the seed for each game
    /// pair and imposes it (the default: pairs then share an opening).
    #[default]
    Arena,
    /// The engines choose their own setups with `go` at plies 1 and 2
    /// (always so for games with a CodeCup engine, which cannot be told
    /// a setup).
    Engine,
}

/// An openings file and the order to use it in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpeningsConfig {
    /// The file.
    pub file: PathBuf,
    /// The order (default sequential).
    #[serde(default)]
    pub order: Order,
}

/// The SPRT models, for the command line's list of values.
pub const ELO_MODELS: [EloModel; 2] = [EloModel::Normalized, EloModel::Logistic];

/// Reads an SPRT model by its name (`normalized`, `logistic`).
///
/// # Errors
/// A message listing the names, for any other text.
pub fn parse_elo_model(text: &str) -> Result<EloModel, String> {
    ELO_MODELS
        .into_iter()
        .find(|m| m.name() == text)
        .ok_or_else(|| format!("unknown model {text:?}: expected normalized or logistic"))
}

/// `results::EloModel` in config files and records: its name.
mod elo_model {
    use super::{Deserialize, Deserializer, EloModel, Serializer};

    pub fn serialize<S: Serializer>(model: &EloModel, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(model.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<EloModel, D::Error> {
        let text = String::deserialize(deserializer)?;
        super::parse_elo_model(&text).map_err(serde::de::Error::custom)
    }
}

/// The design of an SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SprtSettings {
    /// H0.
    pub elo0: f64,
    /// H1.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
    /// The Elo scale.
    #[serde(with = "elo_model")]
    pub model: EloModel,
}

impl Default for SprtSettings {
    /// The results crate's default design (one place for the numbers).
    fn default() -> Self {
        let results::SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        } = results::SprtConfig::default();
        Self {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        }
    }
}

impl SprtSettings {
    /// The design as the results crate takes it.
    #[must_use]
    pub fn to_results(&self) -> results::SprtConfig {
        results::SprtConfig {
            elo0: self.elo0,
            elo1: self.elo1,
            alpha: self.alpha,
            beta: self.beta,
            model: self.model,
        }
    }
}

/// Everything a run needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The format.
    pub mode: Mode,
    /// The engines, in the order given (the first is the one whose
    /// results the summary reports).
    pub engines: Vec<EngineSpec>,
    /// Games per pairing and round; even, as each opening is played twice
    /// with the colours reversed.
    pub games: u64,
    /// Rounds: each round plays `games` games in every pairing.
    pub rounds: u64,
    /// Games played at the same time.
    pub concurrency: usize,
    /// The openings file, if any.
    pub openings: Option<OpeningsConfig>,
    /// Who chooses setups without an openings file.
    pub setups: SetupChoice,
    /// The seed of every random choice of the run.
    pub seed: u64,
    /// The SPRT, for matches.
    pub sprt: Option<SprtSettings>,
    /// Games between two periodic summaries.
    pub report_every: u64,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            mode: Mode::Match,
            engines: Vec::new(),
            games: 2,
            rounds: 1,
            concurrency: 1,
            openings: None,
            setups: SetupChoice::Arena,
            seed: 1,
            sprt: None,
            report_every: 50,
        }
    }
}

/// Why a run's settings were refused.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// A bad engine specification.
    #[error("engine {index}: {source}")]
    Engine {
        /// Its position among the engines, from 1.
        index: usize,
        /// What is wrong.
        source: SpecError,
    },
    /// A group of `KEY=VALUE` settings (`--sprt`, `--openings`) that does
    /// not read.
    #[error("{flag}: {reason}")]
    Pairs {
        /// The flag, which is also the config file's table.
        flag: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The command line does not fit the settings.
    #[error(transparent)]
    Args(#[from] clap::Error),
    /// Settings that do not fit together.
    #[error("{0}")]
    Invalid(String),
    /// The config file could not be read or parsed.
    #[error("config file {path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl RunConfig {
    /// Checks that the settings fit together.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] saying what does not fit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |msg: String| Err(ConfigError::Invalid(msg));
        let n = self.engines.len();
        match self.mode {
            Mode::Match if n != 2 => return invalid(format!("a match needs exactly 2 engines, got {n}")),
            Mode::Gauntlet | Mode::Roundrobin if n < 2 => {
                return invalid(format!("a {} needs at least 2 engines, got {n}", self.mode.name()));
            }
            _ => {}
        }
        for (i, a) in self.engines.iter().enumerate() {
            if self.engines[..i].iter().any(|b| b.name == a.name) {
                return invalid(format!(
                    "two engines are named {:?}: give each a distinct name=",
                    a.name
                ));
            }
        }
        for (i, engine) in self.engines.iter().enumerate() {
            check_limits(engine)
                .map_err(|reason| ConfigError::Invalid(format!("engine {} ({}): {reason}", i + 1, engine.name)))?;
        }
        check_range("--games", self.games, 2, MAX_GAMES)?;
        check_range("--rounds", self.rounds, 1, MAX_GAMES)?;
        check_range("--concurrency", self.concurrency as u64, 1, MAX_CONCURRENCY)?;
        check_range("--report-every", self.report_every, 1, MAX_GAMES)?;
        if self.total_games() > MAX_GAMES {
            return invalid(format!(
                "the run would play {} games: at most {MAX_GAMES} (lower --games or --rounds)",
                self.total_games()
            ));
        }
        if self.games == 0 || !self.games.is_multiple_of(2) {
            return invalid(format!(
                "--games must be even and positive (each opening is played twice, colours reversed), got {}",
                self.games
            ));
        }
        if self.openings.is_some() && self.setups == SetupChoice::Engine {
            return invalid("setups=engine cannot be combined with an openings file".to_owned());
        }
        if let Some(sprt) = &self.sprt {
            if self.mode != Mode::Match {
                return invalid("--sprt needs a match of two engines".to_owned());
            }
            results::Sprt::new(sprt.to_results()).map_err(|e| ConfigError::Invalid(format!("--sprt: {e}")))?;
        }
        Ok(())
    }

    /// The number of games the run plays at most.
    #[must_use]
    pub fn total_games(&self) -> u64 {
        let n = self.engines.len() as u64;
        let pairings = match self.mode {
            Mode::Match => 1,
            Mode::Gauntlet => n.saturating_sub(1),
            Mode::Roundrobin => n * n.saturating_sub(1) / 2,
        };
        pairings.saturating_mul(self.games).saturating_mul(self.rounds)
    }

    /// Makes relative paths (programs given with a directory, working
    /// directories, the openings file) absolute against `base`, so that
    /// the saved config works from anywhere. Bare program names are left
    /// for the `PATH` search.
    pub fn absolutize(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        for engine in &mut self.engines {
            if engine.cmd.components().count() > 1 {
                fix(&mut engine.cmd);
            }
            if let Some(dir) = &mut engine.dir {
                fix(dir);
            }
        }
        if let Some(openings) = &mut self.openings {
            fix(&mut openings.file);
        }
    }
}

/// The most games a run or a tuning budget may hold (and the largest
/// `--rounds` and `--report-every`).
pub const MAX_GAMES: u64 = 100_000_000;
/// The most game slots at once.
pub const MAX_CONCURRENCY: u64 = 1024;
/// The longest time setting in milliseconds (`tc` base, `movetime`,
/// `stalltime`): one day.
pub const MAX_TIME_MS: u64 = 86_400_000;
/// The longest increment and `timemargin` in milliseconds: one hour.
pub const MAX_INC_MS: u64 = 3_600_000;
/// The deepest `depth=`.
pub const MAX_DEPTH: u64 = 1000;

/// Refuses `value` outside `min..=max`, naming the setting and the range.
///
/// # Errors
/// [`ConfigError::Invalid`] naming `what`, the value and the range.
pub fn check_range(what: &str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::Invalid(format!(
            "{what}={value} is out of range: expected {min} to {max}"
        )))
    }
}

/// Checks an engine's limits against their ranges (the one check of the
/// engine keys' values, for runs and tuning runs alike).
///
/// # Errors
/// A message naming the key, its value and the accepted range.
pub fn check_limits(spec: &EngineSpec) -> Result<(), String> {
    let l = &spec.limits;
    let range = |key: &str, value: u64, min: u64, max: u64, unit: &str| {
        if (min..=max).contains(&value) {
            Ok(())
        } else {
            Err(format!("{key}={value} is out of range: expected {min} to {max}{unit}"))
        }
    };
    if let Some(tc) = l.tc {
        range("tc base", tc.base_ms, 1, MAX_TIME_MS, " ms (up to 86400 s)")?;
        range("tc increment", tc.inc_ms, 0, MAX_INC_MS, " ms (up to 3600 s)")?;
    }
    if let Some(ms) = l.movetime_ms {
        range("movetime", ms, 1, MAX_TIME_MS, " ms")?;
    }
    if let Some(n) = l.nodes {
        range("nodes", n, 1, u64::MAX, "")?;
    }
    if let Some(d) = l.depth {
        range("depth", u64::from(d), 1, MAX_DEPTH, "")?;
    }
    range("timemargin", l.timemargin_ms, 0, MAX_INC_MS, " ms")?;
    range("stalltime", l.stalltime_ms, 1, MAX_TIME_MS, " ms")
}

/// The weakened option of the self-test (`arena` with no arguments):
/// `leaper` with a quarter of its time target, so it searches a fraction of
/// the strong side's time.
pub const SELFTEST_WEAKENING: (&str, &str) = ("TimeSoftPermille", "250");

/// The self-test: `leaper` (the program at `leaper`) against itself with
/// [`SELFTEST_WEAKENING`], at 1 s + 10 ms per game, two games at a time,
/// until the SPRT for [0, 40] logistic Elo decides (at most 300 games).
///
/// # Errors
/// None in practice: the engine keys are fixed.
pub fn selftest_config(leaper: &Path) -> Result<RunConfig, ConfigError> {
    let cmd = leaper.display().to_string();
    let (option, value) = SELFTEST_WEAKENING;
    let engines = build_engines(
        &[
            ("tc".to_owned(), "1+0.01".to_owned()),
            ("option.Hash".to_owned(), "16".to_owned()),
        ],
        &[
            vec![
                ("cmd".to_owned(), cmd.clone()),
                ("name".to_owned(), "leaper".to_owned()),
            ],
            vec![
                ("cmd".to_owned(), cmd),
                ("name".to_owned(), "leaper-weak".to_owned()),
                (format!("option.{option}"), value.to_owned()),
            ],
        ],
    )?;
    let config = RunConfig {
        mode: Mode::Match,
        engines,
        games: 300,
        concurrency: 2,
        sprt: Some(SprtSettings {
            elo0: 0.0,
            elo1: 40.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        }),
        report_every: 20,
        ..RunConfig::default()
    };
    config.validate()?;
    Ok(config)
}

/// A group of `KEY=VALUE` settings, in the order given: the tokens of a
/// flag, or a table of a config file. (clap's derive reads a field's type
/// as written, so the settings spell it out.)
pub type Pairs = Vec<(String, String)>;

/// Splits one `KEY=VALUE` token (clap's parser for the token flags).
///
/// # Errors
/// A message quoting a token without `=`.
pub fn key_value(token: &str) -> Result<(String, String), String> {
    token
        .split_once('=')
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .ok_or_else(|| format!("expected KEY=VALUE, got {token:?}"))
}

/// Reads a group of pairs as a settings table `T` (its serde keys): values
/// that read as numbers are numbers, the others strings.
///
/// # Errors
/// [`ConfigError::Pairs`] naming `flag`, for an unknown key, a missing one
/// or a bad value.
pub fn from_pairs<T: DeserializeOwned>(flag: &'static str, pairs: &[(String, String)]) -> Result<T, ConfigError> {
    let table: toml::Table = pairs
        .iter()
        .map(|(key, text)| {
            let value = if let Ok(n) = text.parse::<i64>() {
                toml::Value::Integer(n)
            } else if let Ok(x) = text.parse::<f64>() {
                toml::Value::Float(x)
            } else {
                toml::Value::String(text.clone())
            };
            (key.clone(), value)
        })
        .collect();
    T::deserialize(table).map_err(|e| ConfigError::Pairs {
        flag,
        reason: e.to_string(),
    })
}

/// A TOML table as pairs: strings as they are, numbers as written,
/// booleans as on/off, arrays one pair per item.
fn table_pairs(table: &toml::Table) -> Pairs {
    let mut pairs = Vec::new();
    for (key, value) in table {
        let items: Vec<&toml::Value> = match value {
            toml::Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for item in items {
            let text = match item {
                toml::Value::String(s) => s.clone(),
                toml::Value::Boolean(b) => if *b { "on" } else { "off" }.to_owned(),
                other => other.to_string(),
            };
            pairs.push((key.clone(), text));
        }
    }
    pairs
}

/// serde readers of tables as [`Pairs`].
mod tables {
    use super::{Deserialize, Deserializer, Pairs, table_pairs};

    pub fn one<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Pairs, D::Error> {
        Ok(table_pairs(&toml::Table::deserialize(deserializer)?))
    }

    pub fn optional<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Pairs>, D::Error> {
        one(deserializer).map(Some)
    }

    pub fn list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Pairs>, D::Error> {
        Ok(Vec::<toml::Table>::deserialize(deserializer)?
            .iter()
            .map(table_pairs)
            .collect())
    }
}

/// The settings of `arena match`, `arena gauntlet` and `arena roundrobin`:
/// each field is a flag and (but for `config`, `resume` and `quiet`) a key
/// of a TOML config file, with engines as `[[engine]]` tables of the
/// `--engine` keys:
///
/// ```toml
/// games = 200
/// concurrency = 2
/// each = { tc = "10+0.1", "option.Hash" = 16 }
/// [[engine]]
/// cmd = "target/release/leaper"
/// name = "new"
/// [[engine]]
/// cmd = "leaper-base"
/// name = "base"
/// [sprt]
/// elo0 = 0
/// elo1 = 5
/// [openings]
/// file = "book.txt"
/// order = "random"
/// ```
///
/// The defaults are [`RunConfig::default`]'s.
#[derive(Clone, Debug, Default, PartialEq, Args, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSettings {
    /// An engine: `cmd=PATH [name=N] [args="A B"] [option.NAME=VALUE]... [proto=uci|codecup] [initstr=TEXT]
    /// [openingline=KEYWORD] [restart=on|off] [dir=DIR] [tc=BASE+INC] [movetime=MS] [nodes=N] [depth=N] [timemargin=MS]
    /// [stalltime=MS]`. Repeat for each engine; in a gauntlet the first plays all others. `tc` is in seconds for
    /// the whole game, setups included.
    #[arg(id = "engine", long = "engine", value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append,
          value_parser = key_value)]
    #[serde(skip)]
    engine_tokens: Vec<(String, String)>,

    /// The engines' keys, one group per engine (`--engine` occurrences, `[[engine]]` tables).
    #[arg(skip)]
    #[serde(rename = "engine", default, deserialize_with = "tables::list")]
    pub engines: Vec<Pairs>,

    /// Engine keys applied to every engine (an engine's own keys win), e.g. `--each tc=10+0.1 option.Hash=16`.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append, value_parser = key_value)]
    #[serde(default, deserialize_with = "tables::one")]
    pub each: Vec<(String, String)>,

    /// Games per pairing and round; even, as each opening is played twice with colours reversed [default: 2].
    #[arg(long)]
    pub games: Option<u64>,

    /// Rounds: each round plays --games games in every pairing [default: 1].
    #[arg(long)]
    pub rounds: Option<u64>,

    /// Games played at the same time [default: 1].
    #[arg(long)]
    pub concurrency: Option<usize>,

    /// Openings: `file=PATH [order=random|sequential]`; one `RED_SETUP BLUE_SETUP` pair per line, `#` comments.
    /// Without it, random setup pairs drawn from the seed.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., value_parser = key_value)]
    #[serde(default, deserialize_with = "tables::optional")]
    pub openings: Option<Vec<(String, String)>>,

    /// The seed of every random choice (openings, their order) [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,

    /// Stop at an SPRT decision: `[elo0=0] [elo1=5] [alpha=0.05] [beta=0.05] [model=normalized|logistic]`
    /// (matches only).
    #[arg(long, value_name = "KEY=VALUE", num_args = 0.., value_parser = key_value)]
    #[serde(default, deserialize_with = "tables::optional")]
    pub sprt: Option<Vec<(String, String)>>,

    /// Without openings: `arena` imposes seeded random setups (pairs share them), or `engine` lets the engines
    /// choose [default: arena].
    #[arg(long, value_enum)]
    pub setups: Option<SetupChoice>,

    /// Print a summary every N games [default: 50].
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,

    /// A TOML file with the same settings (`games`, `concurrency`, `each = {...}`, `[[engine]]` tables,
    /// `[sprt]`, `[openings]`, `out`, ...); flags given here override it.
    #[arg(long, value_name = "FILE")]
    #[serde(skip)]
    pub config: Option<PathBuf>,

    /// The output directory: games.csv, events.jsonl, summary.json, config.json [default:
    /// arena-runs/<mode>-<unix time>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Continue the run saved in DIR (a killed or interrupted one); needs no other flag (--concurrency may
    /// change).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["engine", "each", "games", "rounds", "openings", "seed", "sprt", "setups", "report_every", "config", "out"])]
    #[serde(skip)]
    pub resume: Option<PathBuf>,

    /// No progress bars and no periodic summaries; only the final one.
    #[arg(long)]
    #[serde(skip)]
    pub quiet: bool,
    /// Create the run in this PostgreSQL database instead of playing it here, print `run <ID>`, and follow it:
    /// `arena worker --db URL` plays it on any host. `postgres://USER@HOST:PORT/DB`; what it leaves out comes
    /// from PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE.
    #[arg(long, value_name = "URL", conflicts_with_all = ["resume", "out"])]
    #[serde(skip)]
    pub db: Option<String>,

    /// With --db: return once the run is created (stopping the follower never stops the run).
    #[arg(long, requires = "db")]
    #[serde(skip)]
    pub detach: bool,

    /// With --db: game pairs per batch, the unit a worker claims, plays and records at once.
    #[arg(long, requires = "db", value_name = "N", default_value_t = crate::db::BATCH_PAIRS,
          value_parser = clap::value_parser!(u64).range(1..))]
    #[serde(skip)]
    pub batch_pairs: u64,
}

impl RunSettings {
    /// The settings of a subcommand's command line, over those of its
    /// `--config` file if it names one: a flag replaces the file's value,
    /// but engines and `--each` keys add to the file's (after them).
    ///
    /// # Errors
    /// [`ConfigError::Args`] for flags that do not fit, and as for
    /// [`RunSettings::read`].
    pub fn from_matches(matches: &ArgMatches) -> Result<Self, ConfigError> {
        let flags = Self::from_arg_matches(matches)?;
        let mut settings = match &flags.config {
            Some(path) => Self::read(path)?,
            None => Self::default(),
        };
        let each = std::mem::take(&mut settings.each);
        settings.update_from_arg_matches(matches)?;
        settings.each.splice(0..0, each);
        // `--engine` takes several tokens per occurrence, which clap's
        // derive flattens: group them from the matches.
        settings.engines.extend(
            matches
                .get_occurrences::<(String, String)>("engine")
                .into_iter()
                .flatten()
                .map(|occurrence| occurrence.cloned().collect()),
        );
        settings.engine_tokens.clear();
        Ok(settings)
    }

    /// Parses a config file's text.
    ///
    /// # Errors
    /// [`ConfigError::File`] for TOML that does not parse or holds an
    /// unknown key.
    pub fn parse(text: &str, path: &str) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::File {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    }

    /// Reads a config file.
    ///
    /// # Errors
    /// As for [`RunSettings::parse`], and when the file cannot be read.
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// The checked config of a `mode` run of these settings, and the
    /// output directory they name.
    ///
    /// # Errors
    /// [`ConfigError`] naming the engine, flag or combination at fault.
    pub fn to_config(&self, mode: Mode) -> Result<(RunConfig, Option<PathBuf>), ConfigError> {
        let d = RunConfig::default();
        let config = RunConfig {
            mode,
            engines: build_engines(&self.each, &self.engines)?,
            games: self.games.unwrap_or(d.games),
            rounds: self.rounds.unwrap_or(d.rounds),
            concurrency: self.concurrency.unwrap_or(d.concurrency),
            openings: self.openings.as_deref().map(openings_of).transpose()?,
            setups: self.setups.unwrap_or(d.setups),
            seed: self.seed.unwrap_or(d.seed),
            sprt: self.sprt.as_deref().map(|p| from_pairs("--sprt", p)).transpose()?,
            report_every: self.report_every.unwrap_or(d.report_every),
        };
        config.validate()?;
        Ok((config, self.out.clone()))
    }
}

/// The `--openings` keys as settings.
///
/// # Errors
/// [`ConfigError::Pairs`] without `file=` or with a bad key.
pub fn openings_of(pairs: &[(String, String)]) -> Result<OpeningsConfig, ConfigError> {
    from_pairs("--openings", pairs)
}

/// The settings of `arena tune`; its record is [`crate::TuneConfig`] (in
/// `tune.json`), built by [`crate::TuneConfig::new`].
#[derive(Clone, Debug, Default, PartialEq, Args)]
pub struct TuneSettings {
    /// The engine to tune: `cmd=PATH [name=N] [args="A B"] [option.NAME=VALUE]... [dir=DIR] [restart=on|off]`
    /// and limits (`tc=`, `movetime=`, `nodes=`, `depth=`, ...), as for `arena match`.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append, value_parser = key_value)]
    pub engine: Vec<(String, String)>,

    /// Engine keys added before --engine's own (which win), e.g. `--each tc=10+0.1 option.Hash=16`.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append, value_parser = key_value)]
    pub each: Vec<(String, String)>,

    /// The parameters, one `name, int|float, start, min, max[, c_end, r_end][, log]` line each (OpenBench's
    /// format) [default: what the engine's `spsa` command prints].
    #[arg(long, value_name = "FILE")]
    pub params: Option<PathBuf>,

    /// The budget in games (two per pair) [default: 20000].
    #[arg(long)]
    pub games: Option<u64>,

    /// Games played at the same time [default: 1].
    #[arg(long)]
    pub concurrency: Option<usize>,

    /// Game pairs per trial [default: 2].
    #[arg(long, value_name = "N")]
    pub pairs_per_trial: Option<u32>,

    /// Openings: `file=PATH [order=random|sequential]`. Without it, random setup pairs drawn from the seed.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., value_parser = key_value)]
    pub openings: Option<Vec<(String, String)>>,

    /// The SPSA recipe: `default` (steps from the ranges, the number of parameters and the measured draw
    /// ratio; ignores c_end and r_end), `classic` (fishtest) or `openbench` (both from each parameter's c_end
    /// and r_end), `averaged` (the previous default) [default: default].
    #[arg(long, value_name = "NAME")]
    pub recipe: Option<spsa::Recipe>,

    /// The seed of the tuner's random signs and of the openings [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,

    /// The output directory: tune.json, state.json, history.csv, traces.svg, games.csv, events.jsonl [default:
    /// arena-runs/tune-<unix time>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Continue the tuning run saved in DIR (killed or interrupted); needs no other flag (--concurrency may
    /// change).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["engine", "each", "params", "games", "pairs_per_trial", "openings", "recipe", "seed", "out"])]
    pub resume: Option<PathBuf>,

    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Builds the engine specs: `each` pairs first, then each engine's own.
///
/// # Errors
/// [`ConfigError::Engine`] naming the engine at fault.
pub fn build_engines(
    each: &[(String, String)],
    engines: &[Vec<(String, String)>],
) -> Result<Vec<EngineSpec>, ConfigError> {
    engines
        .iter()
        .enumerate()
        .map(|(i, own)| {
            let pairs: Vec<(String, String)> = each.iter().chain(own).cloned().collect();
            EngineSpec::from_pairs(&pairs).map_err(|source| ConfigError::Engine { index: i + 1, source })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(tokens: &[&str]) -> Vec<(String, String)> {
        tokens
            .iter()
            .map(|t| {
                let (k, v) = t.split_once('=').unwrap();
                (k.to_owned(), v.to_owned())
            })
            .collect()
    }

    #[test]
    fn each_applies_first_and_engines_override() {
        let engines = build_engines(
            &pairs(&["tc=10+0.1", "option.Hash=16"]),
            &[pairs(&["cmd=a"]), pairs(&["cmd=b", "tc=5+0.05", "name=bee"])],
        )
        .unwrap();
        assert_eq!(engines[0].limits.tc.unwrap().base_ms, 10_000);
        assert_eq!(engines[1].limits.tc.unwrap().base_ms, 5_000);
        assert_eq!(engines[1].name, "bee");
        assert_eq!(engines[1].option("Hash"), Some("16"));
        assert!(matches!(
            build_engines(&[], &[pairs(&["cmd=a"])]),
            Err(ConfigError::Engine { index: 1, .. })
        ));
    }

    #[test]
    fn validation_catches_what_does_not_fit() {
        let engines = build_engines(&pairs(&["depth=2"]), &[pairs(&["cmd=a"]), pairs(&["cmd=b"])]).unwrap();
        let good = RunConfig {
            engines: engines.clone(),
            games: 10,
            ..RunConfig::default()
        };
        good.validate().unwrap();
        assert_eq!(good.total_games(), 10);
        for bad in [
            RunConfig {
                games: 3,
                ..good.clone()
            },
            RunConfig {
                engines: vec![engines[0].clone(), engines[0].clone()],
                ..good.clone()
            },
            RunConfig {
                mode: Mode::Gauntlet,
                sprt: Some(SprtSettings::default()),
                ..good.clone()
            },
            RunConfig {
                sprt: Some(SprtSettings {
                    elo0: 5.0,
                    elo1: 0.0,
                    ..SprtSettings::default()
                }),
                ..good.clone()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        let rr = RunConfig {
            mode: Mode::Roundrobin,
            engines: build_engines(
                &pairs(&["depth=2"]),
                &[pairs(&["cmd=a"]), pairs(&["cmd=b"]), pairs(&["cmd=c"])],
            )
            .unwrap(),
            games: 4,
            rounds: 2,
            ..RunConfig::default()
        };
        assert_eq!(rr.total_games(), 3 * 4 * 2);
    }

    #[test]
    fn config_files_hold_the_same_settings() {
        let text = r#"
games = 20
concurrency = 2
each = { tc = "1+0.01", "option.Hash" = 16 }
[[engine]]
cmd = "/bin/a"
name = "new"
restart = true
[[engine]]
cmd = "/bin/b"
args = ["--x", "--y"]
[sprt]
elo1 = 10
model = "logistic"
[openings]
file = "book.txt"
order = "random"
"#;
        let file = RunSettings::parse(text, "x.toml").unwrap();
        let engines = build_engines(&file.each, &file.engines).unwrap();
        assert_eq!(engines[0].name, "new");
        assert!(engines[0].restart);
        assert_eq!(engines[0].option("hash"), Some("16"));
        assert_eq!(engines[1].args, ["--x", "--y"]);
        assert_eq!(file.games, Some(20));
        let (config, _) = file.to_config(Mode::Match).unwrap();
        let sprt = config.sprt.unwrap();
        assert_eq!((sprt.elo0, sprt.elo1, sprt.model), (0.0, 10.0, EloModel::Logistic));
        assert_eq!(config.openings.unwrap().order, Order::Random);
        assert!(RunSettings::parse("gamez = 3", "x.toml").is_err());
        assert!(RunSettings::parse("quiet = true", "x.toml").is_err());
    }

    #[test]
    fn sprt_and_openings_tokens_parse() {
        let sprt: SprtSettings =
            from_pairs("--sprt", &pairs(&["elo0=-1", "elo1=4", "alpha=0.1", "model=logistic"])).unwrap();
        assert_eq!((sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta), (-1.0, 4.0, 0.1, 0.05));
        assert_eq!(sprt.model, EloModel::Logistic);
        let err = from_pairs::<SprtSettings>("--sprt", &pairs(&["elo2=1"])).unwrap_err();
        assert!(err.to_string().starts_with("--sprt: unknown field `elo2`"), "{err}");
        assert!(from_pairs::<SprtSettings>("--sprt", &pairs(&["model=gaussian"])).is_err());
        let openings = openings_of(&pairs(&["file=x.txt", "order=random"])).unwrap();
        assert_eq!(openings.order, Order::Random);
        assert!(openings_of(&pairs(&["order=random"])).is_err());
        assert!(key_value("novalue").is_err());
    }

    #[test]
    fn the_saved_record_keeps_its_format() {
        let engines = build_engines(&pairs(&["depth=2"]), &[pairs(&["cmd=a"]), pairs(&["cmd=b"])]).unwrap();
        let config = RunConfig {
            engines,
            sprt: Some(SprtSettings::default()),
            openings: Some(openings_of(&pairs(&["file=/b.txt"])).unwrap()),
            ..RunConfig::default()
        };
        let json = serde_json::to_value(&config).unwrap();
        assert_eq!(json["sprt"]["model"], "normalized");
        assert_eq!(json["openings"]["order"], "sequential");
        assert_eq!(json["setups"], "arena");
        assert_eq!(serde_json::from_value::<RunConfig>(json).unwrap(), config);
    }
}
