//! The rules of 0.1: everything needed to play a legal game and nothing of
//! how to play it well. A crate of its own (`leaper-rules`, in the engine's
//! folder) so that a user who wants only the rules, a trainer that wants
//! only the rules and the features, the arena (to check moves) and the book
//! tools need not take the search with them. It depends on nothing of ours.

mod bitboard;
mod moves;
mod notation;
mod perft;
mod position;
mod sample;
mod setup;
mod types;
mod zobrist;

pub use bitboard::{Bitboard, leaps};
pub use moves::{GameMove, MAX_MOVES, Move, MoveList};
pub use notation::{FenError, MoveError, MoveText, ParseMoveError, SetupCase, SetupLetters};
pub use perft::{PerftCase, parse_perft_cases, perft, perft_divide, perft_parallel};
pub use position::{EndReason, Hand, IllegalMove, MAX_PLY, Outcome, Position, PositionError};
pub use sample::random_game_positions;
pub use setup::{SETUP_COUNT, Setup, SetupError};
pub use types::{Color, ParseSquareError, Piece, Role, Square};
pub use zobrist::{mix_key, random_keys};
