//! SPSA tuning of engine parameters for the game 0.1, as a library that a
//! match runner drives: it never plays a game and never prints.
//!
//! - [`Tuner`]: the ask/tell state machine. [`Tuner::ask`] hands out a
//!   [`Trial`] (the plus and minus values of every parameter and the pairs
//!   to play), [`Tuner::tell`] takes the pairs' [`Pentanomial`] from the
//!   plus engine's side. Trials may be told late and in any order; unknown
//!   or repeated ids are errors. The state saves atomically to JSON and
//!   restores exactly ([`Tuner::save`], [`Tuner::load`]).
//! - [`Param`] and [`parse_params`]: parameters in OpenBench's format (what
//!   the engine's `spsa` command prints), integer or float, optionally on a
//!   log scale, with bad lines reported by number.
//! - [`Schedule`]: fishtest's classic recipe and the averaged default,
//!   which reaches better values within a fixed budget of games.
//! - [`HistoryWriter`]: the run's history as CSV (the arena draws the
//!   plot of the parameter traces from it).
//! - [`synthetic`]: matches with a known optimum, for the benchmark and
//!   the tests.
//!
//! A driver with several workers: ask until `ask` returns `None` or every
//! worker is busy, spread each trial's pairs over the workers, tell a trial
//! once all its pairs are done, then save the state and append a history
//! row. On resume, load the state and play [`Tuner::pending`] again before
//! asking for more.

mod history;
mod param;
mod rng;
mod schedule;
mod state;
pub mod synthetic;
mod tuner;

pub use history::{History, HistoryError, HistoryRow, HistoryWriter, history_header, history_line, parse_history};
pub use param::{
    Kind, LineError, LineErrorKind, MAX_MAGNITUDE, Param, ParamError, ParamsFileError, Scale, collect_params,
    parse_params,
};
pub use results::Pentanomial;
pub use schedule::{
    DRAW_PRIOR_PAIRS, ELO_PER_SCORE, HOLD_REFERENCE_PAIRS, Recipe, Schedule, ScheduleError, derived_rate, draw_ratio,
};
pub use state::{StateError, write_atomic};
pub use tuner::{Config, ConfigError, MAX_GAMES, MAX_PAIRS_PER_TRIAL, TellError, Trial, TrialId, Tuner};
