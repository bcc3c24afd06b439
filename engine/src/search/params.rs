//! Tunable search and time-management parameters, each declared once.
//!
//! One line of [`tunables!`] per parameter (name, type, default, min, max,
//! SPSA `c_end` and `r_end`, and the unit) generates the field of
//! [`Params`] that the search reads, its default, its range-checked setter,
//! and its entry in [`Params::TUNABLES`], from which the server derives the
//! UCI `spin` option and the `spsa` line. So the tuner, the options and the
//! search can never disagree about a parameter: there is no second list to
//! keep in step. The same macro declares the feature switches (one UCI
//! `check` option each, all on by default), which turn a part of the
//! search off so that an Elo ladder can measure what it is worth.

use protocol::option_names_match;
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
        camel_case(self.field)
    }

    /// Whether `name` names this parameter: its UCI name or its field name,
    /// ignoring ASCII case, spaces and underscores (`futility margin`,
    /// `FutilityMargin` and `futility_margin` are the same).
    pub fn is_named(&self, name: &str) -> bool {
        option_names_match(name, self.field)
    }
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

/// One feature switch as declared: a UCI `check` option that turns a part
/// of the search off, for measuring what each part is worth (the Elo
/// ladder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    /// The field name (`null_move`); the UCI name is its CamelCase form.
    pub field: &'static str,
    /// What the feature does.
    pub doc: &'static str,
    /// Its default (every feature is on by default).
    pub default: bool,
}

impl Switch {
    /// The UCI option name (`null_move` is `NullMove`).
    pub fn uci_name(&self) -> String {
        camel_case(self.field)
    }

    /// Whether `name` names this switch (case, spaces, underscores ignored).
    pub fn is_named(&self, name: &str) -> bool {
        option_names_match(name, self.field)
    }
}

fn camel_case(field: &str) -> String {
    field
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

/// Declares the tunables, one line each,
/// `name: type = default, min, max, c_end, r_end, "unit and meaning";`,
/// then the feature switches, `name = default, "meaning";`.
macro_rules! tunables {
    (
        $($name:ident : $ty:ty = $default:expr, $min:expr, $max:expr, $c_end:expr, $r_end:expr, $doc:expr;)*
        @switches {
            $($switch:ident = $on:expr, $sdoc:expr;)*
        }
    ) => {
        /// The values of every tunable parameter and feature switch; the
        /// search reads them from here, never from constants.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params {
            $(#[doc = $doc] pub $name: $ty,)*
            $(#[doc = $sdoc] pub $switch: bool,)*
        }

        impl Default for Params {
            fn default() -> Params {
                Params { $($name: $default,)* $($switch: $on,)* }
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

            /// Every feature switch, in declaration order.
            pub const SWITCHES: &'static [Switch] = &[$(Switch {
                field: stringify!($switch),
                doc: $sdoc,
                default: $on,
            },)*];

            /// The current value of the parameter with field name `field`.
            pub fn value(&self, field: &str) -> Option<i64> {
                match field {
                    $(stringify!($name) => Some(self.$name as i64),)*
                    _ => None,
                }
            }

            /// Whether the switch with field name `field` is on.
            pub fn switch(&self, field: &str) -> Option<bool> {
                match field {
                    $(stringify!($switch) => Some(self.$switch),)*
                    _ => None,
                }
            }

            /// Turns the switch `name` (UCI or field name, any case) on or off.
            ///
            /// # Errors
            /// [`ParamError::Unknown`] for a name no switch has.
            pub fn set_switch(&mut self, name: &str, on: bool) -> Result<(), ParamError> {
                let switch = Params::SWITCHES
                    .iter()
                    .find(|s| s.is_named(name))
                    .ok_or_else(|| ParamError::Unknown(name.to_string()))?;
                match switch.field {
                    $(stringify!($switch) => self.$switch = on,)*
                    _ => return Err(ParamError::Unknown(name.to_string())),
                }
                Ok(())
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
    aspiration_window: i32 = 2135, 50, 20000, 150.0, 0.002, "1/10000 logit: half-width of the first aspiration window";
    aspiration_min_depth: i32 = 4, 1, 32, 1.0, 0.002, "plies: first iteration searched with an aspiration window";
    futility_margin: i32 = 31, 0, 30000, 250.0, 0.002, "1/10000 logit per ply of depth: quiet moves are skipped when the static eval plus this times the depth is at most alpha";
    futility_depth: i32 = 4, 1, 8, 0.5, 0.002, "plies: the deepest remaining depth at which futility pruning applies";
    reverse_futility_margin: i32 = 3248, 0, 30000, 150.0, 0.002, "1/10000 logit per ply of depth: a node whose static eval minus this times the depth is at least beta returns the eval";
    reverse_futility_depth: i32 = 2, 1, 8, 0.5, 0.002, "plies: the deepest remaining depth at which reverse futility pruning applies";
    null_move_margin: i32 = 828, 0, 20000, 150.0, 0.002, "1/10000 logit: a null move is tried when the static eval is at least beta plus this";
    null_move_reduction: i32 = 4, 1, 8, 0.5, 0.002, "plies: depth taken off a null-move search (plus a ply per 6 of depth)";
    null_move_min_depth: i32 = 2, 1, 16, 0.5, 0.002, "plies: the least remaining depth at which a null move is tried";
    lmr_base: i32 = 102, 0, 300, 10.0, 0.002, "1/100 ply: constant term of the late-move reduction";
    lmr_divisor: i32 = 162, 100, 600, 20.0, 0.002, "1/100: ln(depth) * ln(move number) is divided by this for the reduction";
    lmr_history_divisor: i32 = 4096, 500, 100000, 500.0, 0.002, "history units per ply: with LmrHistory, a quiet move's reduction falls by its history plus continuation history over this (and grows when that is negative)";
    lmr_start: i32 = 2, 1, 20, 1.0, 0.002, "moves: how many moves of a node are searched before reductions begin";
    lmr_min_depth: i32 = 3, 2, 10, 0.5, 0.002, "plies: the least remaining depth at which moves are reduced";
    lmp_depth: i32 = 3, 1, 10, 0.5, 0.002, "plies: the deepest remaining depth at which late quiet moves are pruned";
    lmp_base: i32 = 8, 1, 200, 2.0, 0.002, "moves: at a shallow non-PV node, quiet moves after this many moves plus LmpScale x depth^2 are skipped";
    lmp_scale: i32 = 6, 0, 100, 1.0, 0.002, "moves per ply^2: the depth-dependent part of the late-move pruning count";
    optimism: i32 = 500, 0, 5000, 100.0, 0.002, "1/10000 logit: a repeated position scores this below a draw for the engine's own side (above for the other)";
    qsearch_check_plies: i32 = 3, 1, 6, 0.5, 0.002, "plies: with QsearchChecks, how many plies of the quiescence search, from its first, try the quiet moves and drops that attack the enemy wazir (1: the first only; 3: also the reply, when it is not an evasion, and the third, a second check after the evasion)";
    iir_min_depth: i32 = 4, 2, 16, 0.5, 0.002, "plies: with InternalReduction, a node this deep or deeper that the table gives no move is searched a ply shallower";
    correction_permille: i32 = 1000, 0, 2000, 100.0, 0.002, "1/1000: with CorrectionHistory, the share of the learned error added to the static evaluation";
    correction_limit: i32 = 6000, 0, 30000, 500.0, 0.002, "1/10000 logit: with CorrectionHistory, the most the learned error of an arrangement may be either way";
    correction_zone_weight: i32 = 0, 0, 4000, 250.0, 0.002, "per 1000 of each side's table: with CorrectionHistory, the weight of a third table, kept by what stands within two steps of the side to move's wazir and the other side's hand (0: not kept)";
    time_move_decay_permille: i32 = 30, 0, 300, 10.0, 0.002, "1/1000: geometric allocation, each move gets this much less time than the one before";
    time_horizon_ply: i32 = 102, 20, 102, 4.0, 0.002, "plies: the clock is shared as if the game ended here (never over fewer than 8 own moves); 102 plans for the full game, less spends the time that games decided earlier leave over";
    time_inc_permille: i32 = 750, 0, 1000, 50.0, 0.002, "1/1000: share of the increment added to each move's base time";
    time_soft_permille: i32 = 1000, 100, 5000, 80.0, 0.002, "1/1000: soft limit (target) as a multiple of the base time per move";
    time_next_iter_permille: i32 = 550, 50, 1000, 50.0, 0.002, "1/1000: share of the soft limit after which no new iteration starts";
    time_hard_permille: i32 = 3000, 1000, 10000, 250.0, 0.002, "1/1000: hard limit as a multiple of the soft limit";
    time_max_permille: i32 = 300, 10, 950, 30.0, 0.002, "1/1000: the most of the remaining clock one move may use";
    panic_threshold: i32 = 2000, 0, 10000, 200.0, 0.002, "1/10000 logit: a drop of the best score by this much from the last iteration means panic";
    panic_multiplier_permille: i32 = 2000, 1000, 5000, 150.0, 0.002, "1/1000: each panic multiplies the soft limit by this";
    panic_cap_permille: i32 = 4000, 1000, 10000, 300.0, 0.002, "1/1000: the soft limit never grows beyond this multiple (nor beyond the hard limit)";
    @switches {
        aspiration = true, "AspirationWindow-wide windows around the last score from AspirationMinDepth on";
        null_move = true, "null-move pruning";
        futility = true, "futility pruning of quiet moves near the leaves";
        reverse_futility = true, "reverse futility pruning (static null move) near the leaves";
        lmr = true, "late-move reductions";
        late_move_pruning = true, "late quiet moves at shallow non-PV nodes are skipped";
        check_extension = true, "a move that attacks the enemy wazir is searched a ply deeper";
        safe_check_extension = true, "with CheckExtension, only a check from a square no enemy piece attacks is extended (a check the enemy can take is not): chains of checks with drops otherwise keep the depth from falling";
        repetition = true, "a repeated position scores as a draw (shifted by Optimism)";
        quiescence = true, "a capture search at the leaves (off: the static eval, or evasions when the wazir is attacked)";
        qsearch_bad_captures = true, "the quiescence search skips captures by a more valuable piece on a square the other side attacks";
        killers = true, "killer moves and history in move ordering";
        lazy_eval = true, "the network's dense layers are skipped where its psq sums and the layers' bounds settle what the search compares the evaluation with (stand pat, futility, reverse futility, null move)";
        continuation_history = true, "quiet moves ordered (and reduced) also by how good they were as replies to the move just played";
        qsearch_checks = true, "the quiescence search's first QsearchCheckPlies plies also try the quiet moves and drops that attack the enemy wazir from a square the enemy does not attack";
        prefetch = true, "each child's table bucket is asked for with the processor's prefetch hint before its evaluation update, so that its probe waits less on memory (changes speed, never a result)";
        internal_reduction = false, "internal iterative reduction: a node of at least IirMinDepth with no move from the table is searched a ply shallower (its move ordering is a guess, and a shallower search finds the move for the next visit)";
        lmr_history = false, "late-move reductions follow each quiet move's history: less for moves that have often been good, more for those that have often failed";
        single_reply_extension = false, "a node (within the root depth's plies) whose attacked wazir has one saving move only, a step of the wazir, searches it a ply deeper: a wazir chased by checks is followed to the end of the chase";
        spare_wazir_net = false, "a quiet move or drop that attacks a square next to the enemy wazir is never pruned as a late move and is reduced a ply less: the moves that close the net around a wazir are searched like the checks that end it";
        correction_history = true, "the static evaluation is corrected by the error the search has found in it before, by each side's arrangement of pieces and hand (see the correction module)";
        qsearch_table = false, "the quiescence search asks the transposition table first (a bound that settles a null-window node returns at once) and stores what it found, at depth 0";
    }
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
        for s in Params::SWITCHES {
            write!(f, " {}={}", s.uci_name(), self.switch(s.field).unwrap_or_default())?;
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
