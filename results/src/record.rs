//! The game record: one CSV row per game, with the columns
//! `game,pair,round,red,blue,red_setup,blue_setup,result,termination,plies,
//! red_ms,blue_ms,moves`. This module holds the typed row, the result and
//! termination enums, and the conversion of a row to and from CSV fields,
//! each field checked on its own so a damaged row says which field is bad.
//! The writer and the reader build on it.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::tally::Outcome;

/// The header line of a game record file, column by column.
pub const RECORD_HEADER: [&str; 13] = [
    "game",
    "pair",
    "round",
    "red",
    "blue",
    "red_setup",
    "blue_setup",
    "result",
    "termination",
    "plies",
    "red_ms",
    "blue_ms",
    "moves",
];

/// The result of a game from Red's side, as the record spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`: Red won.
    RedWins,
    /// `0-1`: Blue won.
    BlueWins,
    /// `1/2-1/2`: drawn.
    Draw,
}

impl GameResult {
    /// The record's spelling: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RedWins => "1-0",
            Self::BlueWins => "0-1",
            Self::Draw => "1/2-1/2",
        }
    }

    /// The outcome for Red.
    #[must_use]
    pub fn red_outcome(self) -> Outcome {
        match self {
            Self::RedWins => Outcome::Win,
            Self::BlueWins => Outcome::Loss,
            Self::Draw => Outcome::Draw,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A result string that is none of `1-0`, `0-1`, `1/2-1/2`.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown result {0:?} (expected 1-0, 0-1 or 1/2-1/2)")]
pub struct ParseResultError(pub String);

impl FromStr for GameResult {
    type Err = ParseResultError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "1-0" => Ok(Self::RedWins),
            "0-1" => Ok(Self::BlueWins),
            "1/2-1/2" => Ok(Self::Draw),
            _ => Err(ParseResultError(s.to_owned())),
        }
    }
}

/// Why a game ended.
///
/// The forfeits (time, illegal move, crash, stall) lose for the side at
/// fault, which the result names. New reasons may be added, hence
/// `non_exhaustive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Termination {
    /// `wazir-captured`: a wazir was captured, which wins.
    WazirCaptured,
    /// `ply-limit`: 102 plies were played without a capture of a wazir.
    PlyLimit,
    /// `no-legal-move`: the side to move had no legal move and loses.
    NoLegalMove,
    /// `time-forfeit`: a side used up its thinking time.
    TimeForfeit,
    /// `illegal-move`: a side answered with an illegal or unreadable move.
    IllegalMove,
    /// `crash`: a side's process exited or closed its output.
    Crash,
    /// `stall`: a side stopped answering altogether, well past its time.
    Stall,
}

impl Termination {
    /// Every termination, in declaration order.
    pub const ALL: [Termination; 7] = [
        Self::WazirCaptured,
        Self::PlyLimit,
        Self::NoLegalMove,
        Self::TimeForfeit,
        Self::IllegalMove,
        Self::Crash,
        Self::Stall,
    ];

    /// The record's spelling, in kebab case.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::WazirCaptured => "wazir-captured",
            Self::PlyLimit => "ply-limit",
            Self::NoLegalMove => "no-legal-move",
            Self::TimeForfeit => "time-forfeit",
            Self::IllegalMove => "illegal-move",
            Self::Crash => "crash",
            Self::Stall => "stall",
        }
    }

    /// Whether a side lost by failing to play rather than on the board.
    #[must_use]
    pub fn is_forfeit(self) -> bool {
        matches!(self, Self::TimeForfeit | Self::IllegalMove | Self::Crash | Self::Stall)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A termination string that names no known reason.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown termination {0:?}")]
pub struct ParseTerminationError(pub String);

impl FromStr for Termination {
    type Err = ParseTerminationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| ParseTerminationError(s.to_owned()))
    }
}

/// One game, as one row of a record file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameRecord {
    /// The game's number in its run.
    pub game: u64,
    /// The pair the game belongs to: the two games of a pair share an
    /// opening with the colours swapped. Pair numbers are local to a file.
    pub pair: u64,
    /// The round of a tournament, or 0.
    pub round: u64,
    /// The player who played Red (moved first).
    pub red: String,
    /// The player who played Blue.
    pub blue: String,
    /// Red's setup move, or empty if Red never made one.
    pub red_setup: String,
    /// Blue's setup move, or empty if Blue never made one.
    pub blue_setup: String,
    /// The result from Red's side.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// The number of plies played, setups included: always `moves.len()`.
    pub plies: u32,
    /// Red's thinking time over the game, in milliseconds.
    pub red_ms: u64,
    /// Blue's thinking time over the game, in milliseconds.
    pub blue_ms: u64,
    /// Every move played, in CodeCup notation, setups first. A forfeit's
    /// offending answer is not a move and is not listed.
    pub moves: Vec<String>,
}

/// What is wrong with one row of a record file. Each message names the
/// column at fault by number (from 1) and header name.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RowError {
    /// The last line has no line end: the writer was killed mid-row.
    #[error("torn last line (the run was interrupted while writing it)")]
    Torn,
    /// The row has the wrong number of fields.
    #[error("{found} columns instead of 13: {}", missing_or_extra(*.found))]
    FieldCount {
        /// Fields found.
        found: usize,
    },
    /// A field is not valid UTF-8.
    #[error("{} is not valid UTF-8", column(field))]
    NotUtf8 {
        /// The column at fault.
        field: &'static str,
    },
    /// A field does not parse.
    #[error("{}: {reason}", column(field))]
    Field {
        /// The column at fault.
        field: &'static str,
        /// Why its value is refused.
        reason: String,
    },
    /// `plies` disagrees with the number of moves listed.
    #[error("{} is {plies} but {moves} moves are listed", column("plies"))]
    PlyCount {
        /// The `plies` field.
        plies: u32,
        /// The number of moves in `moves`.
        moves: usize,
    },
    /// A setup field disagrees with the move list.
    #[error("{} disagrees with the move list", column(field))]
    SetupMismatch {
        /// `red_setup` or `blue_setup`.
        field: &'static str,
    },
}

impl RowError {
    /// The column at fault, numbered from 1, if the error is in one.
    #[must_use]
    pub fn column(&self) -> Option<usize> {
        match self {
            Self::Torn => None,
            Self::FieldCount { found } => Some(found.saturating_add(1).min(RECORD_HEADER.len() + 1)),
            Self::NotUtf8 { field } | Self::Field { field, .. } | Self::SetupMismatch { field } => column_number(field),
            Self::PlyCount { .. } => column_number("plies"),
        }
    }
}

/// The 1-based number of the column named `name`.
fn column_number(name: &str) -> Option<usize> {
    RECORD_HEADER.iter().position(|h| *h == name).map(|i| i + 1)
}

/// `column 8 (result)`: a column by number and name.
fn column(name: &str) -> String {
    match column_number(name) {
        Some(n) => format!("column {n} ({name})"),
        None => format!("column {name}"),
    }
}

/// Where a row with `found` fields parts from the header.
fn missing_or_extra(found: usize) -> String {
    match RECORD_HEADER.get(found) {
        Some(name) => format!("the row ends before {}", column(name)),
        None => format!("the row goes on after {}", column("moves")),
    }
}

impl GameRecord {
    /// The outcome for `player`, or `None` if it played neither side.
    #[must_use]
    pub fn outcome_for(&self, player: &str) -> Option<Outcome> {
        let red = self.result.red_outcome();
        if self.red == player {
            Some(red)
        } else if self.blue == player {
            Some(red.reversed())
        } else {
            None
        }
    }

    /// The opponent of `player` in this game, if it played.
    #[must_use]
    pub fn opponent_of(&self, player: &str) -> Option<&str> {
        if self.red == player {
            Some(&self.blue)
        } else if self.blue == player {
            Some(&self.red)
        } else {
            None
        }
    }

    /// Checks what the fields alone cannot: players are named, no field
    /// holds a control character (so a row is always one line), `plies`
    /// equals the number of moves, moves are non-empty words, and the
    /// setups open the move list.
    ///
    /// # Errors
    /// The first inconsistency found, as a [`RowError`].
    pub fn validate(&self) -> Result<(), RowError> {
        for (field, name) in [("red", &self.red), ("blue", &self.blue)] {
            if name.is_empty() {
                return Err(RowError::Field {
                    field,
                    reason: "empty player name".to_owned(),
                });
            }
        }
        // No line breaks or other control characters anywhere, so that one
        // row is always one line and a torn line is always the last one.
        for (field, value) in [
            ("red", &self.red),
            ("blue", &self.blue),
            ("red_setup", &self.red_setup),
            ("blue_setup", &self.blue_setup),
        ] {
            if value.contains(char::is_control) {
                return Err(RowError::Field {
                    field,
                    reason: "contains a control character".to_owned(),
                });
            }
        }
        if let Some(bad) = self
            .moves
            .iter()
            .find(|m| m.is_empty() || m.contains(|c: char| c.is_whitespace() || c.is_control()))
        {
            return Err(RowError::Field {
                field: "moves",
                reason: format!("{bad:?} is not a move"),
            });
        }
        if usize::try_from(self.plies).ok() != Some(self.moves.len()) {
            return Err(RowError::PlyCount {
                plies: self.plies,
                moves: self.moves.len(),
            });
        }
        for (field, setup, index) in [("red_setup", &self.red_setup, 0), ("blue_setup", &self.blue_setup, 1)] {
            let listed = self.moves.get(index).map_or("", String::as_str);
            if setup != listed {
                return Err(RowError::SetupMismatch { field });
            }
        }
        Ok(())
    }

    /// The row's fields, in header order.
    pub(crate) fn to_fields(&self) -> [String; 13] {
        [
            self.game.to_string(),
            self.pair.to_string(),
            self.round.to_string(),
            self.red.clone(),
            self.blue.clone(),
            self.red_setup.clone(),
            self.blue_setup.clone(),
            self.result.as_str().to_owned(),
            self.termination.as_str().to_owned(),
            self.plies.to_string(),
            self.red_ms.to_string(),
            self.blue_ms.to_string(),
            self.moves.join(" "),
        ]
    }

    /// Parses and validates a row from its raw fields.
    pub(crate) fn from_fields(fields: &csv::ByteRecord) -> Result<Self, RowError> {
        if fields.len() != RECORD_HEADER.len() {
            return Err(RowError::FieldCount { found: fields.len() });
        }
        let text = |i: usize| -> Result<&str, RowError> {
            std::str::from_utf8(&fields[i]).map_err(|_| RowError::NotUtf8 {
                field: RECORD_HEADER[i],
            })
        };
        let parse = |i: usize| -> Result<u64, RowError> {
            let value = text(i)?;
            value.parse().map_err(|_| RowError::Field {
                field: RECORD_HEADER[i],
                reason: format!("{value:?} is not a whole number"),
            })
        };
        let result = text(7)?.parse().map_err(|e: ParseResultError| RowError::Field {
            field: "result",
            reason: e.to_string(),
        })?;
        let termination = text(8)?.parse().map_err(|e: ParseTerminationError| RowError::Field {
            field: "termination",
            reason: e.to_string(),
        })?;
        let plies = u32::try_from(parse(9)?).map_err(|_| RowError::Field {
            field: "plies",
            reason: "too large".to_owned(),
        })?;
        let record = Self {
            game: parse(0)?,
            pair: parse(1)?,
            round: parse(2)?,
            red: text(3)?.to_owned(),
            blue: text(4)?.to_owned(),
            red_setup: text(5)?.to_owned(),
            blue_setup: text(6)?.to_owned(),
            result,
            termination,
            plies,
            red_ms: parse(10)?,
            blue_ms: parse(11)?,
            moves: text(12)?.split_whitespace().map(str::to_owned).collect(),
        };
        record.validate()?;
        Ok(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_terminations_round_trip() {
        for r in [GameResult::RedWins, GameResult::BlueWins, GameResult::Draw] {
            assert_eq!(r.as_str().parse::<GameResult>(), Ok(r));
        }
        assert!("2-0".parse::<GameResult>().is_err());
        for t in Termination::ALL {
            assert_eq!(t.as_str().parse::<Termination>(), Ok(t));
        }
        assert!("resigned".parse::<Termination>().is_err());
        assert!(Termination::Stall.is_forfeit());
        assert!(!Termination::PlyLimit.is_forfeit());
    }
}
