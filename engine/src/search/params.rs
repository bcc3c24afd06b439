//! Tunable search and time-management parameters, each declared once.
//!
//! One line of [`tunables!`] per parameter (name, type, default, min, max,
//! SPSA `c_end` and `r_end`, and the unit) generates the field of
//! [`Params`] that the search reads, its default, its range-checked setter,
//! and its entry in [`Params::TUNABLES`], from which the server derives the
//! UCI `spin` option and the `spsa` line. So the tuner, the options and the
//! search can never disagree about a parameter: there is no second list to
//! keep in step.

use std::fmt;

/// One tunable parameter as declared: what the UCI option and the `spsa`
/// line are made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tunable {
    /// The field name (`aspiration_window`); the UCI name is its
    /// CamelCase form, see [`Tunable::uci_name`].
    pub field: &'static str,
    /// The unit and meaning, for the documentation.
    pub doc: &'static str,
    /// The default value.
    pub default: i64,
    /// The least value the setter accepts.
    pub min: i64,
    /// The greatest value the setter accepts.
    pub max: i64,
    /// SPSA: the final perturbation size.
    pub c_end: f64,
    /// SPSA: the final learning rate.
    pub r_end: f64,
}

impl Tunable {
    /// The UCI option name: the field name in CamelCase
    /// (`aspiration_window` is `AspirationWindow`).
    pub fn uci_name(&self) -> String {
        self.field
            .split('_')
            .map(|word| {
                let mut chars = word.chars();
                chars
                    .next()
                    .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Whether `name` names this parameter: its UCI name or its field name,
    /// ignoring ASCII case, spaces and underscores (`futility margin`,
    /// `FutilityMargin` and `futility_margin` are the same).
    pub fn is_named(&self, name: &str) -> bool {
        same_name(name, self.field)
    }
}

/// Whether two option names are the same once ASCII case, whitespace and
/// underscores are ignored.
pub fn same_name(a: &str, b: &str) -> bool {
    let squeeze = |s: &str| {
        s.chars()
            .filter(|c| !c.is_ascii_whitespace() && *c != '_')
            .map(|c| c.to_ascii_lowercase())
            .collect::<String>()
    };
    squeeze(a) == squeeze(b)
}

/// Why a parameter could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// No tunable has this name.
    #[error("no tunable parameter is named '{0}'")]
    Unknown(String),
    /// The value lies outside the declared range.
    #[error("{name} must be from {min} to {max}, not {value}")]
    OutOfRange {
        /// The UCI name.
        name: String,
        /// The rejected value.
        value: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
}

/// Declares the tunables: one line each,
/// `name: type = default, min, max, c_end, r_end, "unit and meaning";`.
macro_rules! tunables {
    ($($name:ident : $ty:ty = $default:expr, $min:expr, $max:expr, $c_end:expr, $r_end:expr, $doc:expr;)*) => {
        /// The values of every tunable parameter; the search reads them from
        /// here, never from constants.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params {
            $(#[doc = $doc] pub $name: $ty,)*
        }

        impl Default for Params {
            fn default() -> Params {
                Params { $($name: $default,)* }
            }
        }

        impl Params {
            /// Every tunable, in declaration order.
            pub const TUNABLES: &'static [Tunable] = &[$(Tunable {
                field: stringify!($name),
                doc: $doc,
                default: $default as i64,
                min: $min as i64,
                max: $max as i64,
                c_end: $c_end,
                r_end: $r_end,
            },)*];

            /// The current value of the parameter with field name `field`.
            pub fn value(&self, field: &str) -> Option<i64> {
                match field {
                    $(stringify!($name) => Some(self.$name as i64),)*
                    _ => None,
                }
            }

            /// Sets the parameter `name` (UCI or field name, any case).
            ///
            /// # Errors
            /// [`ParamError::Unknown`] for a name no tunable has,
            /// [`ParamError::OutOfRange`] for a value outside its range
            /// (the parameter keeps its value).
            pub fn set(&mut self, name: &str, value: i64) -> Result<(), ParamError> {
                let tunable = Params::TUNABLES
                    .iter()
                    .find(|t| t.is_named(name))
                    .ok_or_else(|| ParamError::Unknown(name.to_string()))?;
                let out_of_range = || ParamError::OutOfRange {
                    name: tunable.uci_name(),
                    value,
                    min: tunable.min,
                    max: tunable.max,
                };
                if value < tunable.min || value > tunable.max {
                    return Err(out_of_range());
                }
                match tunable.field {
                    $(stringify!($name) => {
                        self.$name = <$ty>::try_from(value).map_err(|_| out_of_range())?;
                    })*
                    _ => return Err(ParamError::Unknown(name.to_string())),
                }
                Ok(())
            }
        }
    };
}

tunables! {
    aspiration_window: i32 = 1000, 50, 20000, 150.0, 0.002, "1/10000 logit: half-width of the first aspiration window";
    aspiration_min_depth: i32 = 4, 1, 32, 1.0, 0.002, "plies: first iteration searched with an aspiration window";
    futility_margin: i32 = 2500, 0, 30000, 250.0, 0.002, "1/10000 logit: at depth 1, quiet moves are skipped when the static eval plus this is at most alpha";
    time_inc_permille: i32 = 750, 0, 1000, 50.0, 0.002, "1/1000: share of the increment added to each move's base time";
    time_soft_permille: i32 = 1000, 100, 5000, 80.0, 0.002, "1/1000: soft limit (target) as a multiple of the base time per move";
    time_next_iter_permille: i32 = 550, 50, 1000, 50.0, 0.002, "1/1000: share of the soft limit after which no new iteration starts";
    time_hard_permille: i32 = 3500, 1000, 10000, 250.0, 0.002, "1/1000: hard limit as a multiple of the soft limit";
    time_max_permille: i32 = 400, 10, 950, 30.0, 0.002, "1/1000: the most of the remaining clock one move may use";
}

impl fmt::Display for Params {
    /// `name=value` pairs, for logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in Params::TUNABLES.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}={}", t.uci_name(), self.value(t.field).unwrap_or_default())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_consistent() {
        let params = Params::default();
        for t in Params::TUNABLES {
            assert!(t.min <= t.default && t.default <= t.max, "{}", t.field);
            assert_eq!(params.value(t.field), Some(t.default), "{}", t.field);
            assert!(t.c_end > 0.0 && t.r_end > 0.0, "{}", t.field);
            assert!(!t.uci_name().contains('_'));
        }
    }

    #[test]
    fn setter_checks_name_and_range() {
        let mut params = Params::default();
        assert_eq!(Params::TUNABLES[0].uci_name(), "AspirationWindow");
        assert_eq!(params.set("aspirationwindow", 777), Ok(()));
        assert_eq!(params.aspiration_window, 777);
        assert_eq!(params.set("aspiration_window", 778), Ok(()));
        assert_eq!(params.set("Aspiration  Window", 778), Ok(()));
        assert!(matches!(
            params.set("AspirationWindow", 49),
            Err(ParamError::OutOfRange { min: 50, .. })
        ));
        assert_eq!(params.aspiration_window, 778);
        assert!(matches!(params.set("Nope", 1), Err(ParamError::Unknown(_))));
    }
}
