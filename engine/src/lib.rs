//! leaper: the rules of the board game 0.1 (Zero Point One) and an engine
//! that plays it.
//!
//! [`rules`] holds the game itself (positions, moves, setups, game end,
//! perft) and is re-exported at the crate root; `replay` checks recorded
//! games against it; [`search`] finds moves, judging positions with
//! [`eval`]; [`server`] speaks UCI and the
//! CodeCup referee protocol.

pub mod book;
pub mod eval;
pub mod replay;
pub mod search;
pub mod server;

/// The rules live in their own crate, `leaper-rules`; they are re-exported
/// here so that engine code and its users name them in one place.
pub use leaper_rules as rules;
pub use leaper_rules::*;
