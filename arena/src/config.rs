//! The settings of a run: who plays ([`EngineSpec`]s), in which format
//! (match, gauntlet, round robin), how many games, openings, seed, SPRT and
//! concurrency. A [`RunConfig`] is built from the command line and an
//! optional TOML file with the same keys, checked once by
//! [`RunConfig::validate`], and saved in the output directory as JSON so
//! that `--resume DIR` needs nothing else.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
pub struct OpeningsConfig {
    /// The file.
    pub file: PathBuf,
    /// The order.
    pub order: Order,
}

/// The SPRT model, as the command line names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtModel {
    /// Normalized Elo (fishtest's default).
    #[default]
    Normalized,
    /// Logistic Elo.
    Logistic,
}

/// The design of an SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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
    pub model: SprtModel,
}

impl Default for SprtSettings {
    fn default() -> Self {
        Self {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Normalized,
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
            model: match self.model {
                SprtModel::Normalized => results::EloModel::Normalized,
                SprtModel::Logistic => results::EloModel::Logistic,
            },
        }
    }

    /// Parses `elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized`
    /// (missing keys keep their defaults).
    ///
    /// # Errors
    /// [`ConfigError::Value`] for an unknown key or a bad value.
    pub fn from_tokens<S: AsRef<str>>(tokens: &[S]) -> Result<Self, ConfigError> {
        let mut sprt = Self::default();
        for (key, value) in key_values("--sprt", tokens)? {
            let number = || {
                value
                    .parse::<f64>()
                    .map_err(|_| ConfigError::value("--sprt", &key, &value, "a number"))
            };
            match key.as_str() {
                "elo0" => sprt.elo0 = number()?,
                "elo1" => sprt.elo1 = number()?,
                "alpha" => sprt.alpha = number()?,
                "beta" => sprt.beta = number()?,
                "model" => {
                    sprt.model = match value.as_str() {
                        "normalized" => SprtModel::Normalized,
                        "logistic" => SprtModel::Logistic,
                        _ => return Err(ConfigError::value("--sprt", &key, &value, "normalized or logistic")),
                    }
                }
                _ => {
                    return Err(ConfigError::value(
                        "--sprt",
                        &key,
                        &value,
                        "elo0, elo1, alpha, beta or model",
                    ));
                }
            }
        }
        Ok(sprt)
    }
}

impl OpeningsConfig {
    /// Parses `file=PATH [order=random|sequential]`.
    ///
    /// # Errors
    /// [`ConfigError::Value`] for an unknown key, a bad order or no file.
    pub fn from_tokens<S: AsRef<str>>(tokens: &[S]) -> Result<Self, ConfigError> {
        let mut file = None;
        let mut order = Order::Sequential;
        for (key, value) in key_values("--openings", tokens)? {
            match key.as_str() {
                "file" => file = Some(PathBuf::from(&value)),
                "order" => {
                    order = match value.as_str() {
                        "random" => Order::Random,
                        "sequential" => Order::Sequential,
                        _ => return Err(ConfigError::value("--openings", &key, &value, "random or sequential")),
                    }
                }
                _ => return Err(ConfigError::value("--openings", &key, &value, "file or order")),
            }
        }
        let file = file.ok_or_else(|| ConfigError::value("--openings", "file", "", "file=PATH"))?;
        Ok(Self { file, order })
    }
}

fn key_values<S: AsRef<str>>(flag: &'static str, tokens: &[S]) -> Result<Vec<(String, String)>, ConfigError> {
    tokens
        .iter()
        .map(|t| {
            let t = t.as_ref();
            t.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .ok_or_else(|| ConfigError::value(flag, t, "", "KEY=VALUE"))
        })
        .collect()
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
    /// A bad value of a flag.
    #[error("{flag} {key}={value}: expected {expected}")]
    Value {
        /// The flag or config key.
        flag: &'static str,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
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

impl ConfigError {
    fn value(flag: &'static str, key: &str, value: &str, expected: &'static str) -> Self {
        Self::Value {
            flag,
            key: key.to_owned(),
            value: value.to_owned(),
            expected,
        }
    }
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
        if self.games == 0 || !self.games.is_multiple_of(2) {
            return invalid(format!(
                "--games must be even and positive (each opening is played twice, colours reversed), got {}",
                self.games
            ));
        }
        if self.rounds == 0 {
            return invalid("--rounds must be at least 1".to_owned());
        }
        if self.concurrency == 0 {
            return invalid("--concurrency must be at least 1".to_owned());
        }
        if self.report_every == 0 {
            return invalid("--report-every must be at least 1".to_owned());
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
            model: SprtModel::Logistic,
        }),
        report_every: 20,
        ..RunConfig::default()
    };
    config.validate()?;
    Ok(config)
}

/// The settings a TOML config file may hold: the command line's flags,
/// with engines as tables of the `--engine` keys.
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileConfig {
    /// `engine`: each engine's keys, as `(key, value)` pairs.
    pub engines: Vec<Vec<(String, String)>>,
    /// `each`: keys applied to every engine first.
    pub each: Vec<(String, String)>,
    /// `games`.
    pub games: Option<u64>,
    /// `rounds`.
    pub rounds: Option<u64>,
    /// `concurrency`.
    pub concurrency: Option<usize>,
    /// `seed`.
    pub seed: Option<u64>,
    /// `out`.
    pub out: Option<PathBuf>,
    /// `setups`.
    pub setups: Option<SetupChoice>,
    /// `report_every`.
    pub report_every: Option<u64>,
    /// `openings`.
    pub openings: Option<OpeningsConfig>,
    /// `sprt`.
    pub sprt: Option<SprtSettings>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    engine: Vec<toml::Table>,
    #[serde(default)]
    each: toml::Table,
    games: Option<u64>,
    rounds: Option<u64>,
    concurrency: Option<usize>,
    seed: Option<u64>,
    out: Option<PathBuf>,
    setups: Option<SetupChoice>,
    report_every: Option<u64>,
    openings: Option<OpeningsConfig>,
    #[serde(default)]
    sprt: Option<RawSprt>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSprt {
    elo0: Option<f64>,
    elo1: Option<f64>,
    alpha: Option<f64>,
    beta: Option<f64>,
    model: Option<SprtModel>,
}

/// A TOML table of engine keys as `(key, value)` pairs: strings as they
/// are, numbers as written, booleans as on/off, arrays one pair per item.
fn table_pairs(table: &toml::Table) -> Vec<(String, String)> {
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

impl FileConfig {
    /// Parses a config file's text.
    ///
    /// # Errors
    /// [`ConfigError::File`] for TOML that does not parse or holds an
    /// unknown key.
    pub fn parse(text: &str, path: &str) -> Result<Self, ConfigError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| ConfigError::File {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        let sprt = raw.sprt.map(|s| {
            let d = SprtSettings::default();
            SprtSettings {
                elo0: s.elo0.unwrap_or(d.elo0),
                elo1: s.elo1.unwrap_or(d.elo1),
                alpha: s.alpha.unwrap_or(d.alpha),
                beta: s.beta.unwrap_or(d.beta),
                model: s.model.unwrap_or(d.model),
            }
        });
        Ok(Self {
            engines: raw.engine.iter().map(table_pairs).collect(),
            each: table_pairs(&raw.each),
            games: raw.games,
            rounds: raw.rounds,
            concurrency: raw.concurrency,
            seed: raw.seed,
            out: raw.out,
            setups: raw.setups,
            report_every: raw.report_every,
            openings: raw.openings,
            sprt,
        })
    }

    /// Reads a config file.
    ///
    /// # Errors
    /// As for [`FileConfig::parse`], and when the file cannot be read.
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::parse(&text, &path.display().to_string())
    }
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
        let file = FileConfig::parse(text, "x.toml").unwrap();
        let engines = build_engines(&file.each, &file.engines).unwrap();
        assert_eq!(engines[0].name, "new");
        assert!(engines[0].restart);
        assert_eq!(engines[0].option("hash"), Some("16"));
        assert_eq!(engines[1].args, ["--x", "--y"]);
        assert_eq!(file.games, Some(20));
        let sprt = file.sprt.unwrap();
        assert_eq!((sprt.elo0, sprt.elo1, sprt.model), (0.0, 10.0, SprtModel::Logistic));
        assert_eq!(file.openings.unwrap().order, Order::Random);
        assert!(FileConfig::parse("gamez = 3", "x.toml").is_err());
    }

    #[test]
    fn sprt_and_openings_tokens_parse() {
        let sprt = SprtSettings::from_tokens(&["elo0=-1", "elo1=4", "alpha=0.1", "model=logistic"]).unwrap();
        assert_eq!((sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta), (-1.0, 4.0, 0.1, 0.05));
        assert!(SprtSettings::from_tokens(&["elo2=1"]).is_err());
        let openings = OpeningsConfig::from_tokens(&["file=x.txt", "order=random"]).unwrap();
        assert_eq!(openings.order, Order::Random);
        assert!(OpeningsConfig::from_tokens(&["order=random"]).is_err());
    }
}
