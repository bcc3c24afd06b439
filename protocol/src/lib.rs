//! The text protocols of leaper, as typed messages: UCI with drops and
//! setups (`../shared/PROTOCOL.md`) in both directions, and the CodeCup
//! referee protocol (`../shared/RULES.md`). Every message parses from one
//! line (`FromStr`, never panicking, whatever the input) and formats back to
//! its canonical line (`Display`, always exactly one line).
//!
//! This crate knows text, not the game: moves are [`MoveToken`]s checked
//! for shape only and positions are [`Fen`]s kept as four fields; the rules
//! crate gives them meaning. The engine parses [`Command`]s and formats
//! [`EngineMessage`]s; the arena does the reverse. Both read their input
//! with a [`LineReader`], which bounds line length and tolerates bytes that
//! are not UTF-8.
//!
//! ```
//! use protocol::{Command, EngineMessage, Info, Score};
//!
//! let command: Command = "go wtime 30000 btime 29120".parse()?;
//! let Command::Go(limits) = command else { unreachable!() };
//! assert_eq!(limits.clock(true), (Some(30000), None));
//!
//! let info = Info { depth: Some(12), score: Some(Score::cp(-4)), pv: vec!["a3c4".parse()?], ..Info::default() };
//! assert_eq!(EngineMessage::Info(info).to_string(), "info depth 12 score cp -4 pv a3c4");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod codecup;
mod command;
mod error;
mod fen;
mod line;
mod message;
mod moves;

pub use codecup::{PlayerMessage, Protocol, RefereeMessage};
pub use command::{Command, SearchLimits, SetOption, StartPosition, option_names_match};
pub use error::{NumberError, ParseError};
pub use fen::Fen;
pub use line::{DEFAULT_MAX_LINE_LEN, Line, LineReader};
pub use message::{BestMove, Bound, EngineMessage, Id, Info, OptionKind, Score, ScoreValue, SpsaParam, UciOption};
pub use moves::{MoveToken, ParseMoveError, PieceLetter, SetupLetters, Square};
