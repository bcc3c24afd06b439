//! Text: CodeCup move notation and the position string (FEN) of PROTOCOL.md.
//!
//! Reading is two steps, each with its own error: text becomes a syntax-only
//! [`MoveText`] (which shape of move it is), then a position checks it and
//! turns it into a legal [`GameMove`]. So "`b9c3` is not a square" and "no
//! piece on b5" are different errors, both naming the place at fault.

use super::moves::{GameMove, Move};
use super::position::{Hand, IllegalMove, MAX_PLY, Position};
use super::setup::{Setup, SetupError};
use super::types::{Color, Piece, Role, Square};
use std::fmt;

/// A move's shape, read from text without looking at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveText<'a> {
    /// 16 letters: a setup (its letters are checked when it is played).
    Setup(&'a str),
    /// A piece letter and a square (`Df8`, `D@f8`).
    Drop {
        /// The piece: role and, by its case, colour.
        piece: Piece,
        /// The target square.
        to: Square,
    },
    /// Two squares (`b5d3`).
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
    #[error("'{text}' is not a square (the {field} square of '{mv}'; squares are a row a-h then a column 1-8)")]
    BadSquare {
        /// Which square of the move.
        field: &'static str,
        /// The offending text.
        text: String,
        /// The whole move.
        mv: String,
    },
    /// A drop whose letter names no piece.
    #[error("'{letter}' in '{mv}' is not a piece letter (A, D, F, N, W)")]
    BadPiece {
        /// The letter found.
        letter: char,
        /// The whole move.
        mv: String,
    },
    /// None of the three shapes.
    #[error("'{0}' is not a move: expected two squares (b5d3), a piece and a square (Df8) or 16 setup letters")]
    BadShape(String),
}

impl<'a> MoveText<'a> {
    /// Reads the shape of a move: 16 letters is a setup, a letter then a
    /// square is a drop (`@` between them allowed), two squares a jump.
    pub fn parse(text: &'a str) -> Result<MoveText<'a>, ParseMoveError> {
        let bytes = text.as_bytes();
        let square = |field: &'static str, part: &[u8]| {
            Square::parse(part).ok_or_else(|| ParseMoveError::BadSquare {
                field,
                text: String::from_utf8_lossy(part).into_owned(),
                mv: text.to_string(),
            })
        };
        match bytes {
            [] => Err(ParseMoveError::Empty),
            _ if bytes.len() == 16 && bytes.iter().all(u8::is_ascii_alphabetic) => Ok(MoveText::Setup(text)),
            [letter, b'@', rest @ ..] | [letter @ b'A'..=b'Z' | letter @ b'a'..=b'z', rest @ ..] if rest.len() == 2 => {
                let letter = *letter as char;
                let piece = Piece::from_letter(letter).ok_or(ParseMoveError::BadPiece {
                    letter,
                    mv: text.to_string(),
                })?;
                Ok(MoveText::Drop {
                    piece,
                    to: square("target", rest)?,
                })
            }
            [a, b, c, d] if a.is_ascii_lowercase() && c.is_ascii_lowercase() => Ok(MoveText::Jump {
                from: square("from", &[*a, *b])?,
                to: square("to", &[*c, *d])?,
            }),
            _ => Err(ParseMoveError::BadShape(text.to_string())),
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
        let mv = match MoveText::parse(text)? {
            MoveText::Setup(letters) => {
                let (setup, color) = Setup::parse(letters)?;
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
        let mut out = String::with_capacity(90);
        for row in 0..8u8 {
            if row > 0 {
                out.push('/');
            }
            let mut empty = 0;
            for col in 0..8u8 {
                match self.piece_at(Square::ALL[(row * 8 + col) as usize]) {
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
                for _ in 0..self.hand(color).count(role) {
                    out.push(role.letter(color));
                }
            }
        }
        if out.len() == hands_start {
            out.push('-');
        }
        out.push_str(match self.turn() {
            Color::Red => " r ",
            Color::Blue => " b ",
        });
        out.push_str(&self.ply().to_string());
        out
    }

    /// Reads a position string (`<board> <hands> <side> <ply>`) and checks
    /// that the position can arise in a game: piece counts, hands, side to
    /// move and ply agree.
    pub fn from_fen(text: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let field = |i: usize, name: &'static str| fields.get(i).copied().ok_or(FenError::MissingField(name));
        let (board_text, hands_text, side_text, ply_text) = (
            field(0, "board")?,
            field(1, "hands")?,
            field(2, "side")?,
            field(3, "ply")?,
        );
        if let Some(extra) = fields.get(4) {
            return Err(FenError::ExtraField((*extra).to_string()));
        }
        let board = parse_board(board_text)?;
        let hands = parse_hands(hands_text)?;
        let turn = match side_text {
            "r" => Color::Red,
            "b" => Color::Blue,
            other => return Err(FenError::BadSide(other.to_string())),
        };
        let ply: u32 = ply_text.parse().map_err(|_| FenError::BadPly(ply_text.to_string()))?;
        if ply > MAX_PLY {
            return Err(FenError::BadPly(ply_text.to_string()));
        }
        if Color::to_move_at(ply) != turn {
            return Err(FenError::SideMismatch { ply, side: turn });
        }
        check_material(&board, &hands, turn, ply)?;
        Ok(Position::from_parts(board, hands, turn, ply))
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
    /// Side and ply disagree.
    #[error("at ply {ply} it cannot be {side} to move (red moves after an even number of plies)")]
    SideMismatch {
        /// The ply.
        ply: u32,
        /// The side given.
        side: Color,
    },
    /// Piece counts that no game can produce.
    #[error("{0}")]
    Material(String),
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

fn check_material(board: &[Option<Piece>; 64], hands: &[Hand; 2], turn: Color, ply: u32) -> Result<(), FenError> {
    let material = |msg: String| Err(FenError::Material(msg));
    let on_board = |piece: Piece| board.iter().filter(|p| **p == Some(piece)).count();
    let placed = board.iter().flatten().count();
    match ply {
        0 => {
            if placed > 0 || hands.iter().any(|h| !h.is_empty()) {
                return material("at ply 0 the board and hands are empty".into());
            }
        }
        1 => {
            let roles: Vec<Role> = (0..16)
                .filter_map(|i| board[Setup::square(Color::Red, i).index()].filter(|p| p.color == Color::Red))
                .map(|p| p.role)
                .collect();
            let setup = <[Role; 16]>::try_from(roles)
                .ok()
                .and_then(|r| Setup::from_roles(r).ok());
            if setup.is_none() || placed != 16 || hands.iter().any(|h| !h.is_empty()) {
                return material("at ply 1 red's 16 setup pieces fill rows a and b and nothing else is placed".into());
            }
        }
        _ => {
            for role in Role::DROPPABLE {
                let total: usize = Color::ALL
                    .iter()
                    .map(|&c| on_board(Piece::new(c, role)) + hands[c.index()].count(role) as usize)
                    .sum();
                let expected = 2 * role.count_per_side() as usize;
                if total != expected {
                    return material(format!(
                        "the position has {total} {}s on the board and in hand; a game has {expected}",
                        role.name()
                    ));
                }
            }
            for color in Color::ALL {
                let wazirs = on_board(Piece::new(color, Role::Wazir));
                if wazirs > 1 {
                    return material(format!("{color} has {wazirs} wazirs; a side has one"));
                }
                // A captured wazir ends the game with its side to move.
                if wazirs == 0 && color != turn {
                    return material(format!("{color} has no wazir, but a captured wazir's side is to move"));
                }
            }
        }
    }
    Ok(())
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}
