//! Engine specifications: how to start an engine, which protocol it speaks,
//! which options to set, and under which limits it plays. The command line
//! (`--engine cmd=... name=... tc=...`), the `--each` defaults and the TOML
//! config file all go through [`EngineSpec::from_pairs`], so every key is
//! defined and checked in one place.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Proto {
    /// UCI with drops and setups (PROTOCOL.md); engines are reused across
    /// games unless `restart=on`.
    #[default]
    Uci,
    /// The CodeCup referee protocol: a fresh process per game, one time
    /// budget per game, the engine chooses its own setup.
    Codecup,
}

/// A time control: `BASE+INC` in seconds, for the whole game (setups
/// included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TimeControl {
    /// Time on the clock at the start of the game, in milliseconds.
    pub base_ms: u64,
    /// Time added after each own move, in milliseconds.
    pub inc_ms: u64,
}

impl TimeControl {
    /// The time on the clock at the start.
    #[must_use]
    pub fn base(&self) -> Duration {
        Duration::from_millis(self.base_ms)
    }

    /// The time added after each move.
    #[must_use]
    pub fn inc(&self) -> Duration {
        Duration::from_millis(self.inc_ms)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = |ms: u64| {
            let s = format!("{}.{:03}", ms / 1000, ms % 1000);
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        };
        write!(f, "{}+{}", secs(self.base_ms), secs(self.inc_ms))
    }
}

impl FromStr for TimeControl {
    type Err = SpecError;

    /// Parses `BASE+INC` or `BASE` (seconds, decimals allowed): `10+0.1`,
    /// `1+0.01`, `30`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || SpecError::Value {
            key: "tc".to_owned(),
            value: s.to_owned(),
            expected: "BASE+INC in seconds, e.g. 10+0.1",
        };
        let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
        let base_ms = seconds_to_ms(base).ok_or_else(bad)?;
        let inc_ms = seconds_to_ms(inc).ok_or_else(bad)?;
        if base_ms == 0 {
            return Err(bad());
        }
        Ok(Self { base_ms, inc_ms })
    }
}

/// Parses a non-negative decimal number of seconds into milliseconds.
fn seconds_to_ms(text: &str) -> Option<u64> {
    let secs: f64 = text.trim().parse().ok()?;
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return None;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some((secs * 1000.0).round() as u64)
}

/// What limits an engine's thinking. At least one of `tc`, `movetime`,
/// `nodes` and `depth` must be given.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Limits {
    /// The clock (`tc=BASE+INC`); the arena keeps it and sends
    /// `wtime/btime/winc/binc`.
    pub tc: Option<TimeControl>,
    /// A fixed time per move, in milliseconds (`movetime=`).
    pub movetime_ms: Option<u64>,
    /// A node limit per move (`nodes=`).
    pub nodes: Option<u64>,
    /// A depth limit per move (`depth=`).
    pub depth: Option<u32>,
    /// Extra time granted beyond the clock or the move time before a move
    /// counts as a time loss, in milliseconds (`timemargin=`, default 0).
    pub timemargin_ms: u64,
    /// Under `nodes=`/`depth=` alone there is no clock: an engine that
    /// gives no move within this many milliseconds stalls
    /// (`stalltime=`, default 60000).
    pub stalltime_ms: u64,
}

/// The default `stalltime`: one minute.
pub const DEFAULT_STALLTIME_MS: u64 = 60_000;

/// The CodeCup referee's budget, used for CodeCup engines without `tc=`.
pub const CODECUP_BUDGET_MS: u64 = 30_000;

impl Limits {
    /// Whether any limit is set.
    #[must_use]
    pub fn is_bounded(&self) -> bool {
        self.tc.is_some() || self.movetime_ms.is_some() || self.nodes.is_some() || self.depth.is_some()
    }

    /// A short description: `tc=10+0.1`, `depth=5 nodes=1000`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tc) = self.tc {
            parts.push(format!("tc={tc}"));
        }
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("movetime={ms}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        parts.join(" ")
    }
}

/// Everything needed to start and drive one engine.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EngineSpec {
    /// The name in records and tables; unique within a run.
    pub name: String,
    /// The program to run.
    pub cmd: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// UCI options to set, in order: `(name, value)`.
    pub options: Vec<(String, String)>,
    /// The protocol it speaks.
    pub proto: Proto,
    /// Lines sent before anything else (CodeCup engines).
    pub initstr: Vec<String>,
    /// The keyword with which a CodeCup engine accepts moves already
    /// played, as one line `KEYWORD MOVE...` before `Start` (an extension
    /// of the referee protocol; Wazir Drop's is `Opening`). With it the
    /// arena imposes the run's setups on this engine as on a UCI one;
    /// without it a CodeCup engine chooses its own setup.
    #[serde(default)]
    pub opening_line: Option<String>,
    /// Start a fresh process for every game.
    pub restart: bool,
    /// Working directory of the process.
    pub dir: Option<PathBuf>,
    /// Its limits.
    pub limits: Limits,
}

/// Why an engine specification was refused.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SpecError {
    /// A token without `=`.
    #[error("expected KEY=VALUE, got {0:?}")]
    NotKeyValue(String),
    /// A key no engine setting has.
    #[error(
        "unknown engine key {0:?} (known: cmd name args option.NAME proto initstr openingline restart dir tc movetime nodes depth timemargin stalltime)"
    )]
    UnknownKey(String),
    /// A value that does not parse.
    #[error("{key}={value}: expected {expected}")]
    Value {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// No `cmd=`.
    #[error("engine has no cmd=")]
    MissingCmd,
    /// No limit at all.
    #[error("engine {0:?} has no limit: give tc=, movetime=, nodes= or depth=")]
    Unbounded(String),
    /// A name that cannot go into a record.
    #[error("engine name {0:?} is empty or holds a control character")]
    BadName(String),
}

fn value_error(key: &str, value: &str, expected: &'static str) -> SpecError {
    SpecError::Value {
        key: key.to_owned(),
        value: value.to_owned(),
        expected,
    }
}

fn parse_on_off(key: &str, value: &str) -> Result<bool, SpecError> {
    match value {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(value_error(key, value, "on or off")),
    }
}

fn parse_number<T: FromStr>(key: &str, value: &str) -> Result<T, SpecError> {
    value.parse().map_err(|_| value_error(key, value, "a whole number"))
}

impl EngineSpec {
    /// Builds a spec from `KEY=VALUE` tokens, as `--engine` takes them;
    /// later tokens override earlier ones, so `--each` tokens go first.
    ///
    /// # Errors
    /// [`SpecError`] for a token without `=`, an unknown key, a bad value,
    /// or a spec without `cmd=` or without any limit.
    pub fn from_tokens<S: AsRef<str>>(tokens: &[S]) -> Result<Self, SpecError> {
        let mut pairs = Vec::with_capacity(tokens.len());
        for token in tokens {
            let token = token.as_ref();
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| SpecError::NotKeyValue(token.to_owned()))?;
            pairs.push((key.to_owned(), value.to_owned()));
        }
        Self::from_pairs(&pairs)
    }

    /// Builds a spec from `(key, value)` pairs; see [`EngineSpec::from_tokens`].
    ///
    /// Keys: `cmd`, `name` (default: the program's file name), `args`
    /// (split at whitespace; repeated keys append), `option.NAME`,
    /// `proto=uci|codecup`, `initstr` (`\n` separates lines; repeated keys
    /// append), `openingline=KEYWORD` (CodeCup engines that accept imposed
    /// setups, see [`EngineSpec::opening_line`]), `restart=on|off`, `dir`, `tc=BASE+INC` (seconds),
    /// `movetime` (ms), `nodes`, `depth`, `timemargin` (ms), `stalltime`
    /// (ms).
    ///
    /// # Errors
    /// As for [`EngineSpec::from_tokens`].
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self, SpecError> {
        let mut cmd = None;
        let mut name = None;
        let mut spec = EngineSpec {
            name: String::new(),
            cmd: PathBuf::new(),
            args: Vec::new(),
            options: Vec::new(),
            proto: Proto::Uci,
            initstr: Vec::new(),
            opening_line: None,
            restart: false,
            dir: None,
            limits: Limits {
                stalltime_ms: DEFAULT_STALLTIME_MS,
                ..Limits::default()
            },
        };
        for (key, value) in pairs {
            let (key, value) = (key.as_str(), value.as_str());
            if let Some(option) = key.strip_prefix("option.") {
                if option.is_empty() {
                    return Err(SpecError::UnknownKey(key.to_owned()));
                }
                spec.options.retain(|(n, _)| !protocol::option_names_match(n, option));
                spec.options.push((option.to_owned(), value.to_owned()));
                continue;
            }
            match key {
                "cmd" => cmd = Some(PathBuf::from(value)),
                "name" => name = Some(value.to_owned()),
                "args" => spec.args.extend(value.split_whitespace().map(str::to_owned)),
                "proto" => {
                    spec.proto = match value {
                        "uci" => Proto::Uci,
                        "codecup" => Proto::Codecup,
                        _ => return Err(value_error(key, value, "uci or codecup")),
                    }
                }
                "initstr" => spec.initstr.extend(value.split("\\n").map(str::to_owned)),
                "openingline" => {
                    if value.is_empty() || value.contains(char::is_whitespace) {
                        return Err(value_error(
                            key,
                            value,
                            "one word, the engine's keyword for moves already played",
                        ));
                    }
                    spec.opening_line = Some(value.to_owned());
                }
                "restart" => spec.restart = parse_on_off(key, value)?,
                "dir" => spec.dir = Some(PathBuf::from(value)),
                "tc" => spec.limits.tc = Some(value.parse()?),
                "movetime" => spec.limits.movetime_ms = Some(parse_number(key, value)?),
                "nodes" => spec.limits.nodes = Some(parse_number(key, value)?),
                "depth" => spec.limits.depth = Some(parse_number(key, value)?),
                "timemargin" => spec.limits.timemargin_ms = parse_number(key, value)?,
                "stalltime" => spec.limits.stalltime_ms = parse_number(key, value)?,
                _ => return Err(SpecError::UnknownKey(key.to_owned())),
            }
        }
        spec.cmd = cmd.filter(|c| !c.as_os_str().is_empty()).ok_or(SpecError::MissingCmd)?;
        spec.name = name.unwrap_or_else(|| {
            spec.cmd
                .file_name()
                .map_or_else(|| spec.cmd.display().to_string(), |f| f.to_string_lossy().into_owned())
        });
        if spec.name.is_empty() || spec.name.contains(char::is_control) {
            return Err(SpecError::BadName(spec.name));
        }
        if let Some(keyword) = &spec.opening_line
            && spec.proto != Proto::Codecup
        {
            return Err(value_error(
                "openingline",
                keyword,
                "proto=codecup with it (UCI engines are told setups by `position`)",
            ));
        }
        if spec.proto == Proto::Codecup && spec.limits.tc.is_none() {
            spec.limits.tc = Some(TimeControl {
                base_ms: CODECUP_BUDGET_MS,
                inc_ms: 0,
            });
        }
        if !spec.limits.is_bounded() {
            return Err(SpecError::Unbounded(spec.name));
        }
        Ok(spec)
    }

    /// The value this spec sets for a UCI option, if any.
    #[must_use]
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(n, _)| protocol::option_names_match(n, name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether two specs start the same process (same program, arguments,
    /// directory and protocol), so that one process can serve both after
    /// its options are adjusted.
    #[must_use]
    pub fn same_process(&self, other: &EngineSpec) -> bool {
        self.name == other.name
            && self.cmd == other.cmd
            && self.args == other.args
            && self.dir == other.dir
            && self.proto == other.proto
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_build_a_spec() {
        let spec = EngineSpec::from_tokens(&[
            "tc=1+0.01",
            "cmd=/bin/leaper",
            "option.Hash=16",
            "args=--a b",
            "option.hash=32",
            "restart=on",
            "depth=7",
            "timemargin=50",
        ])
        .unwrap();
        assert_eq!(spec.name, "leaper");
        assert_eq!(spec.cmd, PathBuf::from("/bin/leaper"));
        assert_eq!(spec.args, ["--a", "b"]);
        assert_eq!(spec.options, [("hash".to_owned(), "32".to_owned())]);
        assert_eq!(spec.option("HASH"), Some("32"));
        assert!(spec.restart);
        assert_eq!(
            spec.limits.tc,
            Some(TimeControl {
                base_ms: 1000,
                inc_ms: 10
            })
        );
        assert_eq!(spec.limits.depth, Some(7));
        assert_eq!(spec.limits.timemargin_ms, 50);
        assert_eq!(spec.limits.stalltime_ms, DEFAULT_STALLTIME_MS);
    }

    #[test]
    fn bad_specs_are_refused() {
        assert_eq!(EngineSpec::from_tokens(&["name=x", "tc=1"]), Err(SpecError::MissingCmd));
        assert!(matches!(
            EngineSpec::from_tokens(&["cmd=x"]),
            Err(SpecError::Unbounded(_))
        ));
        assert!(matches!(
            EngineSpec::from_tokens(&["cmd=x", "tc=fast"]),
            Err(SpecError::Value { .. })
        ));
        assert!(matches!(
            EngineSpec::from_tokens(&["cmd=x", "colour=red"]),
            Err(SpecError::UnknownKey(_))
        ));
        assert!(matches!(
            EngineSpec::from_tokens(&["cmd"]),
            Err(SpecError::NotKeyValue(_))
        ));
    }

    #[test]
    fn an_opening_line_is_one_word_for_codecup_engines_only() {
        let spec = EngineSpec::from_tokens(&["cmd=x", "proto=codecup", "openingline=Opening"]).unwrap();
        assert_eq!(spec.opening_line.as_deref(), Some("Opening"));
        assert_eq!(
            EngineSpec::from_tokens(&["cmd=x", "proto=codecup"])
                .unwrap()
                .opening_line,
            None
        );
        let uci = EngineSpec::from_tokens(&["cmd=x", "depth=1", "openingline=Opening"]).unwrap_err();
        assert!(uci.to_string().contains("proto=codecup"), "{uci}");
        let two = EngineSpec::from_tokens(&["cmd=x", "proto=codecup", "openingline=Open ing"]).unwrap_err();
        assert!(two.to_string().contains("one word"), "{two}");
    }

    #[test]
    fn codecup_engines_get_the_referee_budget() {
        let spec = EngineSpec::from_tokens(&["cmd=x", "proto=codecup", "initstr=a\\nb"]).unwrap();
        assert_eq!(spec.limits.tc.map(|tc| tc.base_ms), Some(CODECUP_BUDGET_MS));
        assert_eq!(spec.initstr, ["a", "b"]);
    }

    #[test]
    fn time_controls_print_as_they_parse() {
        for text in ["10+0.1", "1+0.01", "30+0", "0.5+0.005"] {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(tc.to_string(), text);
        }
        assert_eq!("60".parse::<TimeControl>().unwrap().to_string(), "60+0");
        assert!("0+1".parse::<TimeControl>().is_err());
        assert!("-1+0".parse::<TimeControl>().is_err());
    }
}
