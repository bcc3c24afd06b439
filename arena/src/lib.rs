//! The arena: plays games between engines for the game 0.1 and scores them
//! the way fastchess and cutechess-cli do for chess, with every engine
//! failure turned into a recorded result and every run resumable.
//!
//! Layers, from the bottom:
//! - [`EngineSpec`]: how to start and limit an engine (`--engine` keys).
//! - [`EngineProcess`]: a child process over pipes, read with deadlines.
//! - [`UciEngine`], [`CodeCupEngine`]: the two protocols, client side.
//! - [`play_game`]: one game between two started engines.
//! - [`GameSlot`]: plays [`GameJob`]s one after another, reusing engines.
//! - [`GamePool`]: N slots on worker threads, fed by [`play_fed`] (the
//!   one loop that keeps them busy) from a [`Feed`].
//! - [`run`] / [`resume`]: a scheduled match, gauntlet or round robin in an
//!   output directory, with SPRT, summaries and resume.
//! - [`start_tune`] / [`resume_tune`]: an SPSA tuning run (`arena tune`).
//! - [`read_clock_use`]: each engine's thinking time by move number, from
//!   a run's event log (`arena clock`).
//! - [`serve`]: `arena serve`, a local web server that shows runs.
//! - [`db`]: runs over many machines through PostgreSQL, the shared work
//!   queue and ledger (schema, migrations, claims with leases, games).
//! - [`regress`]: a regression test of two git refs of an engine (`arena
//!   regress`): builds cached by commit, bench signatures, presets, ledger.
//!
//! The settings of each command are one type ([`RunSettings`],
//! [`TuneSettings`]: flags and config-file keys), checked into the record
//! of the run ([`RunConfig`], [`TuneConfig`]).
//!
//! The tuner builds on [`play_fed`] (or a single [`GameSlot`] and its
//! [`GameSlot::play_pair`]): it feeds two [`GameJob`]s per pair (same
//! `pair`, colours reversed, the same setups from an [`OpeningSource`])
//! whose [`EngineSpec`]s carry a trial's option values, and a
//! [`PairCollector`] turns the [`FinishedGame`]s, which come back in any
//! order, into [`FinishedPair`]s for the pentanomial. Engines of the same
//! process (same name, program, arguments) are reused across games with
//! only the changed options re-sent, so trials cost no restarts.
//!
//! This library never prints; the `arena` binary does.

mod bench;
mod clock_use;
mod config;
pub mod db;
mod events;
mod files;
mod game;
mod openings;
mod player;
mod pool;
mod process;
pub mod regress;
mod report;
mod runner;
mod schedule;
mod score;
pub mod serve;
mod slot;
mod spec;
mod traces;
mod tune;

pub use bench::{BenchFigures, BenchSettings, bench};
pub use clock_use::{Band, ClockUse, EngineClock, median, read_clock_use};
pub use config::{
    ConfigError, ELO_MODELS, Mode, OpeningsConfig, Pairs, RunConfig, RunSettings, SELFTEST_WEAKENING, SetupChoice,
    SprtSettings, TuneSettings, build_engines, check_limits, check_range, from_pairs, key_value, openings_of,
    parse_elo_model, selftest_config,
};
pub use events::EventLog;
pub use files::{FileError, LOCK_FILE, LockError, RunLock, write_atomic, write_json};
pub use game::{GameOutcome, MoveEvent, play_game};
pub use openings::{Opening, OpeningSource, OpeningsError, Order, parse_openings, read_openings, write_openings};
pub use player::{
    Allowance, Answer, CodeCupEngine, EngineFailure, FailureKind, HANDSHAKE_TIMEOUT, Interrupted, Player, QUIT_GRACE,
    UciEngine, Violations,
};
pub use pool::{Feed, GamePool, PoolResult, play_fed};
pub use process::{
    EngineLine, EngineProcess, ReadError, SpawnError, TERM_GRACE, stop_all_engines, stopping, wait_engines_stopped,
};
pub use report::{Layout, ResultsBlock, players_text, results_text, score_line, standings_text};
pub use runner::{
    CONFIG_FILE, EVENTS_FILE, EngineInfo, GAMES_FILE, OPENINGS_FILE, Quiet, RunEnd, RunError, RunObserver, RunReport,
    SUMMARY_FILE, probe_engine, resume, run, saved_config,
};
pub use schedule::Schedule;
pub use score::{PairingScore, PlayerRow, Scoreboard, Standings, Summary, ViolationCount, status_of};
pub use slot::{FinishedGame, FinishedPair, GameJob, GameObserver, GameSlot, NoObserver, PairCollector};
pub use spec::{CODECUP_BUDGET_MS, DEFAULT_STALLTIME_MS, EngineSpec, Limits, Proto, SpecError, TimeControl};
pub use traces::traces_svg;
pub use tune::{
    HISTORY_FILE, QuietTune, STATE_FILE, TRACES_FILE, TUNE_FILE, TuneConfig, TuneError, TuneObserver, TuneReport,
    check_option_types, engine_params, new_tuner, option_value, resume_tune, saved_tune_config, start_tune,
};
