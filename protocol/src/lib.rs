//! The text protocols of leaper, as typed messages: UCI with drops and
//! setups (`../shared/PROTOCOL.md`) in both directions, and the CodeCup
//! referee protocol (`../shared/RULES.md`). Every message parses from one
//! line (`FromStr`, never panicking, whatever the input) and formats back to
//! its canonical line (`Display`, always exactly one line).
//!
//! The notation is the rules' (`leaper-rules`): moves are
//! [`MoveText`](leaper_rules::MoveText)s, checked for shape only (whether
//! one is legal depends on a position, which the receiver knows), and the
//! position of `position fen` is a checked
//! [`Position`](leaper_rules::Position). So typed values pass between the
//! engine and the arena, never text to parse again. The engine parses [`Command`]s and formats
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
mod line;
mod message;

pub use codecup::{PlayerMessage, Protocol, RefereeMessage};
pub use command::{Command, SearchLimits, SetOption, StartPosition, option_names_match};
pub use error::{NumberError, ParseError};
pub use line::{DEFAULT_MAX_LINE_LEN, Line, LineReader};
pub use message::{BestMove, Bound, EngineMessage, Id, Info, OptionKind, Score, ScoreValue, SpsaParam, UciOption};
