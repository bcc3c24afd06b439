//! The engine's UCI options: the standard ones (`Hash`, `Threads`,
//! `MoveOverhead`, `OwnBook`, `BookVariety`, `MultiPV`, `Ponder`, `Seed`), the `Eval`
//! combo (which evaluation: `material`, `psq` or `full`), one `spin` per
//! tunable of [`Params`] and one `check` per feature switch (`NullMove`,
//! `Lmr`, ...), all listed by `uci` and set by `setoption`.
//!
//! Names compare as UCI asks, and then some: ASCII case, spaces and
//! underscores are ignored (`Move Overhead` is `MoveOverhead`); a value is
//! checked against the option's type and range before anything changes, so
//! a bad `setoption` leaves every option as it was.

use crate::eval::{DEFAULT_KIND, EvalKind};
use crate::search::{MAX_THREADS, ParamError, Params, same_name};
use protocol::UciOption;

/// The values of the standard options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// `Hash`: the transposition table, MB.
    pub hash_mb: usize,
    /// `Threads`: search threads sharing the hash table (lazy SMP).
    pub threads: u32,
    /// `MoveOverhead`: ms kept back from every move for GUI and pipes.
    pub move_overhead_ms: u64,
    /// `OwnBook`: play setups from the built-in book.
    pub own_book: bool,
    /// `BookVariety`: as Red, choose among this many of the book's best setups.
    pub book_variety: u32,
    /// `MultiPV`: lines reported (1).
    pub multipv: u32,
    /// `Ponder`: the GUI may send `go ponder`.
    pub ponder: bool,
    /// `Seed`: seeds the choice of setups (a fresh process repeats its sequence; successive games differ).
    pub seed: u64,
    /// `Eval`: the evaluation (the server hands the searcher an evaluator of this kind).
    pub eval: EvalKind,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            move_overhead_ms: 10,
            own_book: true,
            book_variety: 1,
            multipv: 1,
            ponder: false,
            seed: 0,
            eval: DEFAULT_KIND,
        }
    }
}

/// The default table size, MB.
pub const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: i64 = 65_536;
const MAX_OVERHEAD_MS: i64 = 5_000;
const MAX_SEED: i64 = i32::MAX as i64;
const MAX_BOOK_VARIETY: i64 = 1000;

/// A change `setoption` asks for, checked and ready to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new table size (the server resizes the table).
    Hash(usize),
    /// Any other option: the new values.
    Options(EngineOptions),
    /// A tunable: the new values.
    Params(Params),
}

/// Why a `setoption` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option has this name.
    #[error("unknown option '{0}' (the uci command lists them)")]
    Unknown(String),
    /// The option needs a value and none came.
    #[error("option {0} needs a value: setoption name {0} value <value>")]
    MissingValue(&'static str),
    /// A value of the wrong type.
    #[error("option {name}: '{value}' is not {expected}")]
    BadValue {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A number out of range.
    #[error("option {name} must be from {min} to {max}, not {value}")]
    OutOfRange {
        /// The option.
        name: String,
        /// The value given.
        value: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
}

impl From<ParamError> for OptionError {
    fn from(err: ParamError) -> OptionError {
        match err {
            ParamError::Unknown(name) => OptionError::Unknown(name),
            ParamError::OutOfRange { name, value, min, max } => OptionError::OutOfRange { name, value, min, max },
        }
    }
}

/// The standard spin options: name, range.
const SPINS: [(&str, i64, i64); 6] = [
    ("Hash", 1, MAX_HASH_MB),
    ("Threads", 1, MAX_THREADS as i64),
    ("MoveOverhead", 0, MAX_OVERHEAD_MS),
    ("MultiPV", 1, 1),
    ("Seed", 0, MAX_SEED),
    ("BookVariety", 1, MAX_BOOK_VARIETY),
];
const CHECKS: [&str; 2] = ["OwnBook", "Ponder"];
const EVAL_OPTION: &str = "Eval";

impl EngineOptions {
    fn spin_value(&self, name: &str) -> i64 {
        match name {
            "Hash" => self.hash_mb as i64,
            "Threads" => i64::from(self.threads),
            "MoveOverhead" => self.move_overhead_ms as i64,
            "MultiPV" => i64::from(self.multipv),
            "BookVariety" => i64::from(self.book_variety),
            _ => self.seed as i64,
        }
    }

    fn check_value(&self, name: &str) -> bool {
        match name {
            "OwnBook" => self.own_book,
            _ => self.ponder,
        }
    }

    /// Every option as `uci` lists it: the standard ones, then one spin per
    /// tunable with its current value.
    pub fn uci_options(&self, params: &Params) -> Vec<UciOption> {
        let mut options: Vec<UciOption> = SPINS
            .iter()
            .map(|&(name, min, max)| UciOption::spin(name, self.spin_value(name), min, max))
            .collect();
        options.extend(
            CHECKS
                .iter()
                .map(|&name| UciOption::check(name, self.check_value(name))),
        );
        options.push(UciOption::combo(
            EVAL_OPTION,
            self.eval.name(),
            EvalKind::ALL.iter().map(|k| k.name().to_string()).collect(),
        ));
        options.extend(
            Params::TUNABLES
                .iter()
                .map(|t| UciOption::spin(t.uci_name(), params.value(t.field).unwrap_or(t.default), t.min, t.max)),
        );
        options.extend(
            Params::SWITCHES
                .iter()
                .map(|s| UciOption::check(s.uci_name(), params.switch(s.field).unwrap_or(s.default))),
        );
        options
    }

    /// Checks `setoption name <name> value <value>` and returns the change
    /// it makes; nothing is changed yet.
    ///
    /// # Errors
    /// [`OptionError`] naming what is wrong: unknown name, missing value,
    /// wrong type or out of range.
    pub fn parse_change(&self, params: &Params, name: &str, value: Option<&str>) -> Result<Change, OptionError> {
        let number = |option: &'static str, min: i64, max: i64| -> Result<i64, OptionError> {
            let text = value.ok_or(OptionError::MissingValue(option))?.trim();
            let n: i64 = text.parse().map_err(|_| OptionError::BadValue {
                name: option.to_string(),
                value: text.chars().take(40).collect(),
                expected: "an integer",
            })?;
            if n < min || n > max {
                return Err(OptionError::OutOfRange {
                    name: option.to_string(),
                    value: n,
                    min,
                    max,
                });
            }
            Ok(n)
        };
        if let Some(&(option, min, max)) = SPINS.iter().find(|(n, _, _)| same_name(n, name)) {
            let n = number(option, min, max)?;
            let mut next = *self;
            match option {
                "Hash" => return Ok(Change::Hash(n as usize)),
                "Threads" => next.threads = n as u32,
                "MoveOverhead" => next.move_overhead_ms = n as u64,
                "MultiPV" => next.multipv = n as u32,
                "BookVariety" => next.book_variety = n as u32,
                _ => next.seed = n as u64,
            }
            return Ok(Change::Options(next));
        }
        if let Some(&option) = CHECKS.iter().find(|n| same_name(n, name)) {
            let on = check_value(option, value.ok_or(OptionError::MissingValue(option))?)?;
            let mut next = *self;
            match option {
                "OwnBook" => next.own_book = on,
                _ => next.ponder = on,
            }
            return Ok(Change::Options(next));
        }
        if same_name(EVAL_OPTION, name) {
            let text = value.ok_or(OptionError::MissingValue(EVAL_OPTION))?.trim();
            let kind = EvalKind::from_name(text).ok_or_else(|| OptionError::BadValue {
                name: EVAL_OPTION.to_string(),
                value: text.chars().take(40).collect(),
                expected: "material, psq or full",
            })?;
            return Ok(Change::Options(EngineOptions { eval: kind, ..*self }));
        }
        let name = name.split_ascii_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(switch) = Params::SWITCHES.iter().find(|s| s.is_named(&name)) {
            let on = check_value(&switch.uci_name(), value.unwrap_or_default())?;
            let mut next = *params;
            next.set_switch(switch.field, on)?;
            return Ok(Change::Params(next));
        }
        let tunable = Params::TUNABLES
            .iter()
            .find(|t| t.is_named(&name))
            .ok_or_else(|| OptionError::Unknown(name.chars().take(60).collect()))?;
        let text = value.unwrap_or_default().trim();
        if value.is_none() {
            return Err(OptionError::BadValue {
                name: tunable.uci_name(),
                value: String::new(),
                expected: "given (setoption name <name> value <integer>)",
            });
        }
        let n: i64 = text.parse().map_err(|_| OptionError::BadValue {
            name: tunable.uci_name(),
            value: text.chars().take(40).collect(),
            expected: "an integer",
        })?;
        let mut next = *params;
        next.set(tunable.field, n)?;
        Ok(Change::Params(next))
    }
}

/// The value of a `check` option: `true` or `false`, any case.
fn check_value(name: &str, value: &str) -> Result<bool, OptionError> {
    let text = value.trim();
    if text.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if text.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(OptionError::BadValue {
            name: name.to_string(),
            value: text.chars().take(40).collect(),
            expected: "true or false",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_found_without_case_and_checked() {
        let options = EngineOptions::default();
        let params = Params::default();
        assert_eq!(options.parse_change(&params, "hash", Some("32")), Ok(Change::Hash(32)));
        assert!(matches!(
            options.parse_change(&params, "Move Overhead", Some("7")),
            Ok(Change::Options(EngineOptions {
                move_overhead_ms: 7,
                ..
            }))
        ));
        assert!(matches!(
            options.parse_change(&params, "futility margin", Some("7")),
            Ok(Change::Params(Params { futility_margin: 7, .. }))
        ));
        assert!(matches!(
            options.parse_change(&params, "Hash", Some("0")),
            Err(OptionError::OutOfRange { min: 1, .. })
        ));
        assert!(matches!(
            options.parse_change(&params, "Hash", Some("lots")),
            Err(OptionError::BadValue { .. })
        ));
        assert_eq!(
            options.parse_change(&params, "Hash", None),
            Err(OptionError::MissingValue("Hash"))
        );
        let Ok(Change::Options(next)) = options.parse_change(&params, "ownbook", Some("TRUE")) else {
            panic!()
        };
        assert!(next.own_book);
        let Ok(Change::Params(next)) = options.parse_change(&params, "futilitymargin", Some("1234")) else {
            panic!()
        };
        assert_eq!(next.futility_margin, 1234);
        assert!(matches!(
            options.parse_change(&params, "FutilityMargin", Some("-1")),
            Err(OptionError::OutOfRange { .. })
        ));
        assert!(matches!(
            options.parse_change(&params, "No Such Option", Some("1")),
            Err(OptionError::Unknown(_))
        ));
        assert!(matches!(
            options.parse_change(&params, "eval", Some("PSQ")),
            Ok(Change::Options(EngineOptions {
                eval: EvalKind::Psq,
                ..
            }))
        ));
        assert!(matches!(
            options.parse_change(&params, "Eval", Some("nnue")),
            Err(OptionError::BadValue { .. })
        ));
        assert!(matches!(
            options.parse_change(&params, "Threads", Some("0")),
            Err(OptionError::OutOfRange { min: 1, .. })
        ));
        assert!(matches!(
            options.parse_change(&params, "Threads", Some("2")),
            Ok(Change::Options(EngineOptions { threads: 2, .. }))
        ));
        let Ok(Change::Params(next)) = options.parse_change(&params, "null move", Some("false")) else {
            panic!()
        };
        assert!(!next.null_move && next.lmr);
        assert!(matches!(
            options.parse_change(&params, "NullMove", Some("maybe")),
            Err(OptionError::BadValue { .. })
        ));
    }

    #[test]
    fn every_option_is_listed_once() {
        let list = EngineOptions::default().uci_options(&Params::default());
        assert_eq!(
            list.len(),
            SPINS.len() + CHECKS.len() + 1 + Params::TUNABLES.len() + Params::SWITCHES.len()
        );
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                assert!(!same_name(&a.name, &b.name), "{} twice", a.name);
            }
        }
    }
}
