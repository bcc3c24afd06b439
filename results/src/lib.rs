//! Match statistics for the game 0.1, computed the way the chess world's
//! testing frameworks (fishtest, fastchess) compute them, so that a decision
//! to merge a change rests on numbers people already trust.
//!
//! - Tallies: [`Trinomial`] (single games) and [`Pentanomial`] (game pairs),
//!   which add so that results from many workers or files merge by summing.
//! - Estimates from any [`Tally`]: logistic Elo, normalized Elo, LOS, draw
//!   ratio and score, with 95% intervals ([`Estimates`]).
//! - The GSPRT ([`Sprt`]): the exact maximum-likelihood log-likelihood ratio
//!   under the logistic or the normalized model, its bounds and decision.
//! - Rating tables for more than two players ([`rating_table`]).
//! - The CSV game record ([`GameRecord`]), its crash-safe writer
//!   ([`RecordWriter`]) and its reader ([`read_record_files`]), which drops
//!   a torn last line and refuses any other damage or a game id recorded
//!   twice.
//!
//! With the `serde` feature, the SPRT design ([`SprtConfig`], [`EloModel`])
//! serializes with the names the command line uses.
//!
//! This crate depends on none of the workspace's other crates, and it never
//! prints: every function returns values for a binary to show.

mod elo;
mod estimate;
mod mle;
mod normal;
mod rating;
mod reader;
mod record;
mod sprt;
mod tally;
mod writer;

pub use elo::{NELO_PER_T, elo_from_score, score_from_elo};
pub use estimate::Estimates;
pub use normal::{Z95, normal_cdf};
pub use rating::{Crosstable, Rating, RatingError, RatingTable, rating_table};
pub use reader::{
    DamagedRow, LocatedRecord, MatchTally, ReadError, RecordFile, RecordSet, parse_record_file, read_record_file,
    read_record_files,
};
pub use record::{
    GameRecord, GameResult, ParseResultError, ParseTerminationError, RECORD_HEADER, RowError, Termination,
};
pub use sprt::{Decision, EloModel, ParseEloModelError, Sprt, SprtConfig, SprtError, SprtStatus};
pub use tally::{Outcome, Pentanomial, Tally, Trinomial};
pub use writer::{RecordWriter, WriteError};
