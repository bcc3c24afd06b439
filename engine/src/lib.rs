//! leaper: the engine for the board game 0.1 (Zero Point One), as a
//! library.
//!
//! [`rules`] holds the game itself (positions, moves, setups, game end,
//! perft; the `leaper-rules` crate) and is re-exported at the crate root;
//! [`search`] finds moves, judging positions with [`eval`] and choosing
//! setups from the [`book`]; [`server`] speaks UCI and the CodeCup referee
//! protocol. Training lives in `leaper-train`, and the `leaper` binary in
//! `leaper-cli`.

pub mod book;
pub mod eval;
pub mod search;
pub mod server;

/// The rules live in their own crate, `leaper-rules`; they are re-exported
/// here so that engine code and its users name them in one place.
pub use leaper_rules as rules;
pub use leaper_rules::*;
