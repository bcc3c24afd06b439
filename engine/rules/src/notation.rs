//! Text: CodeCup move notation and the position string (FEN) of PROTOCOL.md,
//! the one notation of leaper: the protocol messages carry these types.
//!
//! Reading is two steps, each with its own error: text becomes a syntax-only
//! [`MoveText`] (which shape of move it is), then a position checks it and
//! turns it into a legal [`GameMove`]. So "`b9c3` is not a square" and "no
//! piece on b5" are different errors, both naming the place at fault.
//! Position strings are read field by field into the parts that
//! [`Position::from_parts`] checks.

use super::moves::{GameMove, Move};
use super::position::{Hand, IllegalMove, Position, PositionError};
use super::setup::{Setup, SetupError};
use super::types::{Color, Piece, Role, Square};
use std::fmt;
use std::str::FromStr;

/// The 16 ASCII letters of a setup move, as written. Letter counts and case
/// are not checked here: `xxxxxxxxxxxxxxxx` has the shape of a setup that
/// [`Setup::parse`] rejects. Keeping the raw letters lets the rules report
/// "wrong counts" or "wrong case" in their own words.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SetupLetters([u8; 16]);

impl SetupLetters {
    /// The letters, or `None` unless all 16 bytes are ASCII letters.
    pub fn new(letters: [u8; 16]) -> Option<SetupLetters> {
        letters
            .iter()
            .all(u8::is_ascii_alphabetic)
            .then_some(SetupLetters(letters))
    }

    /// The letters of `setup` in the case of `color`.
    pub fn of(setup: &Setup, color: Color) -> SetupLetters {
        SetupLetters(setup.roles().map(|role| role.letter(color) as u8))
    }

    /// The letters as bytes; letter i goes to the mover's i-th home square.
    pub const fn bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The letters as text.
    pub fn as_str(&self) -> &str {
        // All bytes are ASCII letters, so this never falls back.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl fmt::Debug for SetupLetters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SetupLetters({:?})", self.as_str())
    }
}

impl fmt::Display for SetupLetters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A move as written, read without looking at a position. The shape tells
/// the kinds apart: 16 letters is a setup, a piece letter then a square is
/// a drop (`Df8`; `D@f8` is accepted on input and formats as `Df8`), two
/// squares a jump or capture (`b5d3`). Formatting gives canonical CodeCup
/// notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveText {
    /// 16 letters: a setup (its letters are checked when it is played).
    Setup(SetupLetters),
    /// A piece letter and a square (`Df8`, `D@f8`). A wazir drop has this
    /// shape; rejecting it is the position's job.
    Drop {
        /// The piece: role and, by its case, colour.
        piece: Piece,
        /// The target square.
        to: Square,
    },
    /// Two squares (`b5d3`); `from == to` is left for the position to
    /// reject.
    Jump {
        /// The square left.
        from: Square,
        /// The square reached.
        to: Square,
    },
}

/// Why text is not a move in CodeCup notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// Nothing to read.
    #[error("empty move")]
    Empty,
    /// A field that should be a square is not.
    #[error("bad square `{text}`, expected a row a..h then a column 1..8")]
    BadSquare {
        /// Which square of the move: `from`, `to` or `target` (of a drop).
        field: &'static str,
        /// The offending text.
        text: String,
        /// The whole move.
        mv: String,
    },
    /// A drop whose letter names no piece.
    #[error("bad piece letter `{letter}`, expected one of A D F N W in either case")]
    BadPiece {
        /// The letter found.
        letter: char,
        /// The whole move.
        mv: String,
    },
    /// None of the three shapes.
    #[error("expected 16 setup letters, a drop like `Df8` or `D@f8`, or two squares like `b5d3`")]
    BadShape(String),
}

impl MoveText {
    /// Reads the shape of a move (no surrounding whitespace): 16 letters is
    /// a setup, a letter then a square is a drop (`@` between them
    /// allowed), two squares a jump.
    ///
    /// # Errors
    /// [`ParseMoveError::Empty`] for `""`, [`ParseMoveError::BadPiece`] or
    /// [`ParseMoveError::BadSquare`] for a drop or jump with a bad part, and
    /// [`ParseMoveError::BadShape`] for anything else.
    pub fn parse(text: &str) -> Result<MoveText, ParseMoveError> {
        let b = text.as_bytes();
        let square = |field: &'static str, part: &[u8]| {
            Square::parse(part).ok_or_else(|| ParseMoveError::BadSquare {
                field,
                text: String::from_utf8_lossy(part).into_owned(),
                mv: text.to_string(),
            })
        };
        let drop = |letter: u8, to: &[u8]| {
            let letter = char::from(letter);
            let piece = Piece::from_letter(letter).ok_or_else(|| ParseMoveError::BadPiece {
                letter,
                mv: text.to_string(),
            })?;
            Ok(MoveText::Drop {
                piece,
                to: square("target", to)?,
            })
        };
        match b.len() {
            0 => Err(ParseMoveError::Empty),
            16 if b.iter().all(u8::is_ascii_alphabetic) => {
                let mut letters = [0; 16];
                letters.copy_from_slice(b);
                Ok(MoveText::Setup(SetupLetters(letters)))
            }
            3 if b[0].is_ascii_alphabetic() && b[1].is_ascii_lowercase() => drop(b[0], &b[1..]),
            4 if b[1] == b'@' && b[0].is_ascii_alphabetic() => drop(b[0], &b[2..]),
            4 if b[0].is_ascii_lowercase() && b[2].is_ascii_lowercase() => Ok(MoveText::Jump {
                from: square("from", &b[..2])?,
                to: square("to", &b[2..])?,
            }),
            _ => Err(ParseMoveError::BadShape(text.to_string())),
        }
    }

    /// The text of a move played by `color` (drops and setups carry the
    /// mover's case).
    pub fn of(mv: GameMove, color: Color) -> MoveText {
        match mv {
            GameMove::Setup(setup) => MoveText::Setup(SetupLetters::of(&setup, color)),
            GameMove::Move(Move::Drop { role, to }) => MoveText::Drop {
                piece: Piece::new(color, role),
                to,
            },
            GameMove::Move(Move::Jump { from, to }) => MoveText::Jump { from, to },
        }
    }

    /// The texts of a line of moves, the first played by `color` and the
    /// sides alternating.
    pub fn line(moves: &[GameMove], color: Color) -> Vec<MoveText> {
        let colors = std::iter::successors(Some(color), |c| Some(!*c));
        moves.iter().zip(colors).map(|(&mv, c)| MoveText::of(mv, c)).collect()
    }
}

impl Move {
    /// The move in CodeCup notation for a mover of `color` (drops carry the
    /// mover's case).
    pub fn display(self, color: Color) -> MoveText {
        MoveText::of(GameMove::Move(self), color)
    }
}

impl GameMove {
    /// The move in CodeCup notation for a mover of `color`.
    pub fn to_text(self, color: Color) -> String {
        MoveText::of(self, color).to_string()
    }
}

impl FromStr for MoveText {
    type Err = ParseMoveError;

    /// As [`MoveText::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MoveText::parse(s)
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveText::Setup(letters) => write!(f, "{letters}"),
            MoveText::Drop { piece, to } => write!(f, "{}{to}", piece.letter()),
            MoveText::Jump { from, to } => write!(f, "{from}{to}"),
        }
    }
}

/// Why text is not a legal move in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is no move at all.
    #[error(transparent)]
    Syntax(#[from] ParseMoveError),
    /// The text is a malformed setup.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A well-formed move the rules forbid here.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}

/// How strictly to read the case of setup letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetupCase {
    /// The case must be the mover's (engines, the protocol).
    Strict,
    /// Either case; the side to move decides the colour (old records: the
    /// CodeCup referee accepted both).
    Lenient,
}

impl Position {
    /// Reads a move in CodeCup notation and checks it against this position.
    pub fn parse_move(&self, text: &str, case: SetupCase) -> Result<GameMove, MoveError> {
        self.move_from_text(MoveText::parse(text)?, case)
    }

    /// Checks a move as written against this position and gives the legal
    /// move it stands for.
    pub fn move_from_text(&self, text: MoveText, case: SetupCase) -> Result<GameMove, MoveError> {
        let mv = match text {
            MoveText::Setup(letters) => {
                let (setup, color) = Setup::parse(letters.as_str())?;
                if case == SetupCase::Strict && color != self.turn() && self.is_setup_phase() {
                    return Err(IllegalMove::SetupColor {
                        expected: self.turn(),
                        found: color,
                    }
                    .into());
                }
                GameMove::Setup(setup)
            }
            MoveText::Drop { piece, to } => {
                if piece.color != self.turn() && !self.is_setup_phase() {
                    return Err(IllegalMove::DropColor {
                        expected: self.turn(),
                        found: piece.color,
                    }
                    .into());
                }
                GameMove::Move(Move::Drop { role: piece.role, to })
            }
            MoveText::Jump { from, to } => GameMove::Move(Move::Jump { from, to }),
        };
        self.check(&mv)?;
        Ok(mv)
    }

    /// The position in the notation of PROTOCOL.md:
    /// `<board> <hands> <side> <ply>`.
    pub fn to_fen(&self) -> String {
        let board = Square::ALL.map(|sq| self.piece_at(sq));
        let hands = Color::ALL.map(|color| *self.hand(color));
        Position::fen_of_parts(&board, &hands, self.turn(), self.ply())
    }

    /// The position string of parts as [`Position::from_parts`] takes them,
    /// whether or not they make a position (for showing packed data as it
    /// is).
    pub fn fen_of_parts(board: &[Option<Piece>; 64], hands: &[Hand; 2], turn: Color, ply: u32) -> String {
        let mut out = String::with_capacity(90);
        for row in 0..8 {
            if row > 0 {
                out.push('/');
            }
            let mut empty = 0;
            for piece in &board[row * 8..row * 8 + 8] {
                match piece {
                    Some(piece) => {
                        if empty > 0 {
                            out.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        out.push(piece.letter());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push((b'0' + empty) as char);
            }
        }
        out.push(' ');
        let hands_start = out.len();
        for color in Color::ALL {
            for role in Role::DROPPABLE {
                for _ in 0..hands[color.index()].count(role) {
                    out.push(role.letter(color));
                }
            }
        }
        if out.len() == hands_start {
            out.push('-');
        }
        out.push_str(match turn {
            Color::Red => " r ",
            Color::Blue => " b ",
        });
        out.push_str(&ply.to_string());
        out
    }

    /// Reads a position string (`<board> <hands> <side> <ply>`) and checks
    /// that the position can arise in a game: piece counts, hands, side to
    /// move and ply agree.
    pub fn from_fen(text: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let field = |i: usize, name: &'static str| fields.get(i).copied().ok_or(FenError::MissingField(name));
        let (board, hands, side, ply_text) = (
            field(0, "board")?,
            field(1, "hands")?,
            field(2, "side")?,
            field(3, "ply")?,
        );
        if let Some(extra) = fields.get(4) {
            return Err(FenError::ExtraField((*extra).to_string()));
        }
        let ply: u32 = ply_text.parse().map_err(|_| FenError::BadPly(ply_text.to_string()))?;
        Position::from_fen_fields(board, hands, side, ply)
    }

    /// Reads the three text fields of a position string, the ply already a
    /// number (the protocol reads the fields as tokens of a longer line),
    /// and checks the position with [`Position::from_parts`].
    pub fn from_fen_fields(board: &str, hands: &str, side: &str, ply: u32) -> Result<Position, FenError> {
        let board = parse_board(board)?;
        let hands = parse_hands(hands)?;
        let turn = match side {
            "r" => Color::Red,
            "b" => Color::Blue,
            other => return Err(FenError::BadSide(other.to_string())),
        };
        Ok(Position::from_parts(board, hands, turn, ply)?)
    }
}

impl From<PositionError> for FenError {
    fn from(err: PositionError) -> FenError {
        match err {
            PositionError::Ply(ply) => FenError::BadPly(ply.to_string()),
            other => FenError::Position(other),
        }
    }
}

impl FenError {
    /// Which of the four fields is at fault: 0 board, 1 hands, 2 side,
    /// 3 ply; `None` when the string as a whole is (a field missing or
    /// one too many). Piece counts that no game produces blame the board.
    pub const fn field(&self) -> Option<usize> {
        match self {
            FenError::MissingField(_) | FenError::ExtraField(_) => None,
            FenError::RowCount(_) | FenError::RowLength { .. } | FenError::BadBoardChar { .. } => Some(0),
            FenError::Position(PositionError::Material(_)) => Some(0),
            FenError::BadHandChar(_) => Some(1),
            FenError::BadSide(_) => Some(2),
            FenError::BadPly(_) | FenError::Position(PositionError::SideMismatch { .. } | PositionError::Ply(_)) => {
                Some(3)
            }
        }
    }
}

/// Why a position string is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Fewer than four fields.
    #[error("position string has no {0} field (expected '<board> <hands> <side> <ply>')")]
    MissingField(&'static str),
    /// More than four fields.
    #[error("unexpected '{0}' after the ply field of the position string")]
    ExtraField(String),
    /// The board does not have 8 rows.
    #[error("the board has {0} rows, not 8 (rows a to h separated by '/')")]
    RowCount(usize),
    /// A row's squares do not add up to 8.
    #[error("row {row} of the board covers {squares} squares, not 8")]
    RowLength {
        /// The row letter.
        row: char,
        /// How many squares it covers.
        squares: usize,
    },
    /// A character that is neither a piece nor a digit 1-8.
    #[error("'{ch}' in row {row} of the board is not a piece letter or a digit 1-8")]
    BadBoardChar {
        /// The row letter.
        row: char,
        /// The character.
        ch: char,
    },
    /// A character in the hands field that names no droppable piece.
    #[error("'{0}' in the hands field is not a piece that can be in hand (A, D, F, N; W never is)")]
    BadHandChar(char),
    /// Side not `r` or `b`.
    #[error("side to move '{0}' is not 'r' or 'b'")]
    BadSide(String),
    /// Ply not a number in 0..=102.
    #[error("ply '{0}' is not a number from 0 to 102")]
    BadPly(String),
    /// The fields do not make a position that can arise in a game: side
    /// and ply disagree, or piece counts that no game can produce (a ply
    /// out of range is [`FenError::BadPly`]).
    #[error(transparent)]
    Position(PositionError),
}

fn parse_board(text: &str) -> Result<[Option<Piece>; 64], FenError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != 8 {
        return Err(FenError::RowCount(rows.len()));
    }
    let mut board = [None; 64];
    for (r, row_text) in rows.iter().enumerate() {
        let row = (b'a' + r as u8) as char;
        let mut col = 0usize;
        for ch in row_text.chars() {
            match ch {
                '1'..='8' => col += ch as usize - '0' as usize,
                _ => {
                    let piece = Piece::from_letter(ch)
                        .filter(|_| ch.is_ascii())
                        .ok_or(FenError::BadBoardChar { row, ch })?;
                    if col < 8 {
                        board[r * 8 + col] = Some(piece);
                    }
                    col += 1;
                }
            }
            if col > 8 {
                break;
            }
        }
        if col != 8 {
            return Err(FenError::RowLength { row, squares: col });
        }
    }
    Ok(board)
}

fn parse_hands(text: &str) -> Result<[Hand; 2], FenError> {
    let mut counts = [[0u8; 5]; 2];
    if text != "-" {
        for ch in text.chars() {
            let piece = Piece::from_letter(ch)
                .filter(|p| ch.is_ascii() && p.role != Role::Wazir)
                .ok_or(FenError::BadHandChar(ch))?;
            let count = &mut counts[piece.color.index()][piece.role.index()];
            *count = count.saturating_add(1).min(32);
        }
    }
    Ok([Hand::from_counts(counts[0]), Hand::from_counts(counts[1])])
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}
