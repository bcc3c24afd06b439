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
pub mod rules;
pub mod search;
pub mod server;

pub use rules::*;
