//! The engine's UCI options: the standard ones (`Hash`, `Threads`,
//! `MoveOverhead`, `MultiPV`, `Seed`, `BookVariety`, `OwnBook`, `Ponder`
//! and the `Eval` combo, which evaluation: `material`, `psq`, `full` or
//! `nnue`; the string option `EvalFile`, the network file for `nnue`, is
//! the server's own as it loads a file),
//! one `spin` per tunable of [`Params`] and one `check` per feature switch
//! (`NullMove`, `Lmr`, ...), all listed by `uci` and set by `setoption`.
//!
//! Each standard option is declared once, in the `standard_options!`
//! table below (field, type, default, UCI name, range), as the tunables are
//! in `search/params.rs`; the table generates the field of
//! [`EngineOptions`], its default, its `option` line and its range-checked
//! setter. Names compare by [`protocol::option_names_match`] (ASCII case,
//! spaces and underscores ignored: `Move Overhead` is `MoveOverhead`); a
//! value is checked against the option's type and range before anything
//! changes, so a bad `setoption` leaves every option as it was.

use crate::eval::{DEFAULT_KIND, EvalKind};
use crate::search::{MAX_THREADS, ParamError, Params};
use protocol::{UciOption, option_names_match};

/// The default table size, MB.
pub const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: i64 = 65_536;
const MAX_OVERHEAD_MS: i64 = 5_000;
const MAX_SEED: i64 = i32::MAX as i64;
const MAX_BOOK_VARIETY: i64 = 1000;

/// Declares the standard options, one line each:
/// `field: type = default, "UciName" [, min, max];` (a range for spins
/// only). The type says the kind: an integer is a `spin`, `bool` a
/// `check`, [`EvalKind`] a `combo`.
macro_rules! standard_options {
    ($($(#[doc = $doc:literal])* $field:ident: $ty:ty = $default:expr, $name:literal $(, $min:expr, $max:expr)?;)*) => {
        /// The values of the standard options.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct EngineOptions {
            $($(#[doc = $doc])* pub $field: $ty,)*
        }

        impl Default for EngineOptions {
            fn default() -> EngineOptions {
                EngineOptions { $($field: $default,)* }
            }
        }

        impl EngineOptions {
            /// How many standard options there are.
            pub const STANDARD: usize = [$($name),*].len();

            /// The standard options as `uci` lists them, in table order.
            fn standard_uci(&self) -> Vec<UciOption> {
                vec![$(OptionValue::uci(self.$field, $name, standard_options!(@range $($min, $max)?)),)*]
            }

            /// The options after `setoption name <name> value <value>` if
            /// `name` is a standard option, `None` if it is not.
            fn set_standard(&self, name: &str, value: Option<&str>) -> Option<Result<EngineOptions, OptionError>> {
                $(if option_names_match($name, name) {
                    let range = standard_options!(@range $($min, $max)?);
                    return Some(OptionValue::parse(value, $name, range).map(|v| EngineOptions { $field: v, ..*self }));
                })*
                None
            }
        }
    };
    (@range) => { (0, 0) };
    (@range $min:expr, $max:expr) => { ($min, $max) };
}

standard_options! {
    /// `Hash`: the transposition table, MB.
    hash_mb: usize = DEFAULT_HASH_MB, "Hash", 1, MAX_HASH_MB;
    /// `Threads`: search threads sharing the hash table (lazy SMP).
    threads: u32 = 1, "Threads", 1, MAX_THREADS as i64;
    /// `MoveOverhead`: ms kept back from every move for GUI and pipes.
    move_overhead_ms: u64 = 10, "MoveOverhead", 0, MAX_OVERHEAD_MS;
    /// `MultiPV`: lines reported (1).
    multipv: u32 = 1, "MultiPV", 1, 1;
    /// `Seed`: seeds the choice of setups (a fresh process repeats its sequence; successive games differ).
    seed: u64 = 0, "Seed", 0, MAX_SEED;
    /// `BookVariety`: as Red, choose among this many of the book's best setups.
    book_variety: u32 = 1, "BookVariety", 1, MAX_BOOK_VARIETY;
    /// `OwnBook`: play setups from the built-in book.
    own_book: bool = true, "OwnBook";
    /// `Ponder`: the GUI may send `go ponder`.
    ponder: bool = false, "Ponder";
    /// `Eval`: the evaluation (the server hands the searcher an evaluator of this kind).
    eval: EvalKind = DEFAULT_KIND, "Eval";
}

/// A type a standard option holds: its `option` line and how its value is
/// read (checked against the range `(min, max)` where it has one).
trait OptionValue: Sized {
    fn uci(self, name: &'static str, range: (i64, i64)) -> UciOption;
    fn parse(value: Option<&str>, name: &'static str, range: (i64, i64)) -> Result<Self, OptionError>;
}

/// Spins: integers, in range.
macro_rules! spin_value {
    ($($ty:ty),*) => {$(
        impl OptionValue for $ty {
            fn uci(self, name: &'static str, (min, max): (i64, i64)) -> UciOption {
                UciOption::spin(name, i64::try_from(self).unwrap_or(i64::MAX), min, max)
            }

            fn parse(value: Option<&str>, name: &'static str, (min, max): (i64, i64)) -> Result<$ty, OptionError> {
                let text = value.ok_or(OptionError::MissingValue(name))?.trim();
                let n: i64 = text.parse().map_err(|_| OptionError::BadValue {
                    name: name.to_string(),
                    value: text.chars().take(40).collect(),
                    expected: "an integer",
                })?;
                let out_of_range = OptionError::OutOfRange {
                    name: name.to_string(),
                    value: n,
                    min,
                    max,
                };
                if n < min || n > max {
                    return Err(out_of_range);
                }
                <$ty>::try_from(n).map_err(|_| out_of_range)
            }
        }
    )*};
}
spin_value!(usize, u32, u64);

impl OptionValue for bool {
    fn uci(self, name: &'static str, _: (i64, i64)) -> UciOption {
        UciOption::check(name, self)
    }

    fn parse(value: Option<&str>, name: &'static str, _: (i64, i64)) -> Result<bool, OptionError> {
        check_value(name, value.ok_or(OptionError::MissingValue(name))?)
    }
}

impl OptionValue for EvalKind {
    fn uci(self, name: &'static str, _: (i64, i64)) -> UciOption {
        UciOption::combo(
            name,
            self.name(),
            EvalKind::ALL.iter().map(|k| k.name().to_string()).collect(),
        )
    }

    fn parse(value: Option<&str>, name: &'static str, _: (i64, i64)) -> Result<EvalKind, OptionError> {
        let text = value.ok_or(OptionError::MissingValue(name))?.trim();
        EvalKind::from_name(text).ok_or_else(|| OptionError::BadValue {
            name: name.to_string(),
            value: text.chars().take(40).collect(),
            expected: "material, psq, full or nnue",
        })
    }
}

/// A change `setoption` asks for, checked and ready to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A standard option: the new values (the server applies what differs,
    /// resizing the table for `Hash`).
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

impl EngineOptions {
    /// Every option as `uci` lists it: the standard ones, then one spin per
    /// tunable and one check per switch with its current value.
    pub fn uci_options(&self, params: &Params) -> Vec<UciOption> {
        let mut options = self.standard_uci();
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
        if let Some(next) = self.set_standard(name, value) {
            return next.map(Change::Options);
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
        assert!(matches!(
            options.parse_change(&params, "hash", Some("32")),
            Ok(Change::Options(EngineOptions { hash_mb: 32, .. }))
        ));
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
            options.parse_change(&params, "Eval", Some("neural")),
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
            EngineOptions::STANDARD + Params::TUNABLES.len() + Params::SWITCHES.len()
        );
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                assert!(!option_names_match(&a.name, &b.name), "{} twice", a.name);
            }
        }
    }
}
