//! Moves as syntax: piece letters, setup strings and the [`MoveToken`]
//! that tells them apart by shape alone (squares are the rules' type). Nothing here knows
//! a position; the rules crate turns a token into a legal move or says why
//! it is not one. Keeping the raw letters (case included) lets the rules
//! report "wrong counts" or "wrong case" in their own words.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Why a token is not shaped like a move.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseMoveError {
    /// The token is empty.
    #[error("empty move")]
    Empty,
    /// The token has none of the three shapes.
    #[error("expected 16 setup letters, a drop like `Df8` or `D@f8`, or two squares like `b5d3`")]
    Shape,
    /// A drop whose first character is not a piece letter.
    #[error("bad piece letter `{0}`, expected one of A D F N W in either case")]
    Piece(char),
    /// A square that is not a row `a`..`h` then a column `1`..`8`.
    #[error("bad square `{0}`, expected a row a..h then a column 1..8")]
    Square(String),
}

/// Squares are the rules' [`Square`] (`a1` = 0, `b1` = 8, `h8` = 63): one
/// type and one text form for both crates.
pub use leaper_rules::Square;

/// The letter of a dropped piece as written: one of `A D F N W` in either
/// case (upper case is Red, lower case Blue). A wazir drop is never legal,
/// but rejecting it is the rules' job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PieceLetter(u8);

impl PieceLetter {
    /// The letter, or `None` if `c` is not one of `AaDdFfNnWw`.
    pub const fn new(c: char) -> Option<PieceLetter> {
        match c {
            'A' | 'a' | 'D' | 'd' | 'F' | 'f' | 'N' | 'n' | 'W' | 'w' => Some(PieceLetter(c as u8)),
            _ => None,
        }
    }

    /// The letter as written.
    pub const fn as_char(self) -> char {
        self.0 as char
    }

    /// True for an upper-case (Red) letter.
    pub const fn is_upper(self) -> bool {
        self.0.is_ascii_uppercase()
    }
}

impl fmt::Display for PieceLetter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_char())
    }
}

/// The 16 ASCII letters of a setup move, as written. Letter counts and case
/// are not checked: `xxxxxxxxxxxxxxxx` is a setup token that the rules will
/// reject.
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

/// A move as written, checked for shape only. The shape tells the kinds
/// apart: 16 letters is a setup, a piece letter then a square is a drop
/// (`Df8`; `D@f8` is accepted on input and formats as `Df8`), two squares
/// is a jump or capture (`b5d3`). Formatting gives canonical CodeCup
/// notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveToken {
    /// A whole setup: 16 letters.
    Setup(SetupLetters),
    /// A piece from the hand placed on a square.
    Drop {
        /// The piece letter as written (its case names the side).
        piece: PieceLetter,
        /// Where it lands.
        to: Square,
    },
    /// A piece leaping, capturing or not; `from == to` is left for the
    /// rules to reject.
    Jump {
        /// Where the piece stands.
        from: Square,
        /// Where it lands.
        to: Square,
    },
}

impl FromStr for MoveToken {
    type Err = ParseMoveError;

    /// Parses one move token (no surrounding whitespace).
    ///
    /// # Errors
    /// [`ParseMoveError::Empty`] for `""`, [`ParseMoveError::Piece`] or
    /// [`ParseMoveError::Square`] for a drop or jump with a bad part, and
    /// [`ParseMoveError::Shape`] for anything else.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let b = s.as_bytes();
        let square = |part: &[u8]| {
            Square::parse(part).ok_or_else(|| ParseMoveError::Square(String::from_utf8_lossy(part).into_owned()))
        };
        let drop = |piece: u8, to: &[u8]| {
            let piece = PieceLetter::new(char::from(piece)).ok_or(ParseMoveError::Piece(char::from(piece)))?;
            Ok(MoveToken::Drop { piece, to: square(to)? })
        };
        match b.len() {
            0 => Err(ParseMoveError::Empty),
            16 if b.iter().all(u8::is_ascii_alphabetic) => {
                let mut letters = [0; 16];
                letters.copy_from_slice(b);
                Ok(MoveToken::Setup(SetupLetters(letters)))
            }
            3 if b[0].is_ascii_alphabetic() && b[1].is_ascii_lowercase() => drop(b[0], &b[1..]),
            4 if b[1] == b'@' && b[0].is_ascii_alphabetic() => drop(b[0], &b[2..]),
            4 if b[0].is_ascii_lowercase() && b[2].is_ascii_lowercase() => Ok(MoveToken::Jump {
                from: square(&b[..2])?,
                to: square(&b[2..])?,
            }),
            _ => Err(ParseMoveError::Shape),
        }
    }
}

impl fmt::Display for MoveToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveToken::Setup(letters) => write!(f, "{letters}"),
            MoveToken::Drop { piece, to } => write!(f, "{piece}{to}"),
            MoveToken::Jump { from, to } => write!(f, "{from}{to}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn square_indices_follow_the_rules() {
        assert_eq!(sq("a1").index(), 0);
        assert_eq!(sq("a8").index(), 7);
        assert_eq!(sq("b1").index(), 8);
        assert_eq!(sq("b5").index(), 12);
        assert_eq!(sq("h8").index(), 63);
        for i in 0..64 {
            let s = Square::new(i).unwrap();
            assert_eq!(s.to_string().parse::<Square>(), Ok(s));
            assert_eq!(Square::from_coords(i32::from(s.row()), i32::from(s.col())), Some(s));
        }
        assert_eq!(Square::new(64), None);
        for bad in ["", "a0", "a9", "i1", "A1", "a", "a10", "1a"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shapes_are_told_apart() {
        let setup: MoveToken = "AWNAADADAFFAADDA".parse().unwrap();
        assert!(matches!(setup, MoveToken::Setup(l) if l.as_str() == "AWNAADADAFFAADDA"));
        assert_eq!(
            "b5d3".parse(),
            Ok(MoveToken::Jump {
                from: sq("b5"),
                to: sq("d3")
            })
        );
        let drop = MoveToken::Drop {
            piece: PieceLetter::new('D').unwrap(),
            to: sq("f8"),
        };
        assert_eq!("Df8".parse(), Ok(drop));
        assert_eq!("D@f8".parse(), Ok(drop));
        assert_eq!("D@f8".parse::<MoveToken>().unwrap().to_string(), "Df8");
        let blue = "ac3".parse::<MoveToken>().unwrap();
        assert!(matches!(blue, MoveToken::Drop { piece, .. } if !piece.is_upper()));
        // Mixed case and wrong counts are the rules' business.
        assert!("aaaaaffdaddAdnwa".parse::<MoveToken>().is_ok());
        assert!("zzzzzzzzzzzzzzzz".parse::<MoveToken>().is_ok());
    }

    #[test]
    fn malformed_moves_say_what_is_wrong() {
        assert_eq!("".parse::<MoveToken>(), Err(ParseMoveError::Empty));
        assert_eq!("Xf8".parse::<MoveToken>(), Err(ParseMoveError::Piece('X')));
        assert_eq!("X@f8".parse::<MoveToken>(), Err(ParseMoveError::Piece('X')));
        assert_eq!("Df9".parse::<MoveToken>(), Err(ParseMoveError::Square("f9".into())));
        assert_eq!("b5d9".parse::<MoveToken>(), Err(ParseMoveError::Square("d9".into())));
        assert_eq!("i5d3".parse::<MoveToken>(), Err(ParseMoveError::Square("i5".into())));
        for bad in [
            "b5",
            "b5d3x",
            "AWNAADADAFFAADD1",
            "AWNAADADAFFAADD",
            "é5d",
            "ééé",
            "0000",
            "(none)",
        ] {
            assert!(bad.parse::<MoveToken>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_move_token_stays_small_enough_to_copy_freely() {
        assert_eq!(size_of::<MoveToken>(), 17);
        assert_eq!(size_of::<Option<MoveToken>>(), 17);
    }
}
