//! The position string `<board> <hands> <side> <ply>` kept as its four
//! syntactic fields. This crate checks only that the fields are there,
//! printable and that the ply is a number; what they mean (17 wazirs, a
//! side that disagrees with the ply) is for the rules crate to judge, with
//! its own errors.

use std::fmt;
use std::str::FromStr;

use crate::error::{ParseError, Tokens, U32, excerpt, parse_int};

/// The four fields of a position as written after `position fen`, for
/// example `1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26`.
///
/// Invariant: `board`, `hands` and `side` are non-empty printable ASCII
/// (no whitespace), so a `Fen` always formats as four tokens.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fen {
    board: String,
    hands: String,
    side: String,
    ply: u32,
}

impl Fen {
    /// A FEN from its fields.
    ///
    /// # Errors
    /// [`ParseError::FenField`] (with `index` 0, 1 or 2 naming the field)
    /// if a text field is empty or holds anything but printable ASCII.
    pub fn new(board: &str, hands: &str, side: &str, ply: u32) -> Result<Fen, ParseError> {
        Ok(Fen {
            board: check_field(0, "board", board)?,
            hands: check_field(1, "hands", hands)?,
            side: check_field(2, "side", side)?,
            ply,
        })
    }

    /// Rows `a` to `h` separated by `/`, as written.
    pub fn board(&self) -> &str {
        &self.board
    }

    /// The pieces in hand (`-` for none), as written.
    pub fn hands(&self) -> &str {
        &self.hands
    }

    /// The side to move (`r` or `b` when well-formed), as written.
    pub fn side(&self) -> &str {
        &self.side
    }

    /// Plies played so far, setups included.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Reads the four fields from tokens `first..first + 4`.
    pub(crate) fn from_tokens(tokens: &Tokens<'_>, first: usize) -> Result<Fen, ParseError> {
        let field = |offset: usize, name: &'static str| {
            let index = first + offset;
            let token = tokens.require(index, &format!("fen {name}"))?;
            check_field(index, name, token)
        };
        let board = field(0, "board")?;
        let hands = field(1, "hands")?;
        let side = field(2, "side")?;
        let ply_token = tokens.require(first + 3, "fen ply")?;
        let ply = parse_int(first + 3, ply_token, U32, false)?;
        Ok(Fen {
            board,
            hands,
            side,
            ply,
        })
    }
}

fn check_field(index: usize, field: &'static str, token: &str) -> Result<String, ParseError> {
    if !token.is_empty() && token.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(token.to_owned())
    } else {
        Err(ParseError::FenField {
            index,
            field,
            token: excerpt(token),
        })
    }
}

impl FromStr for Fen {
    type Err = ParseError;

    /// Parses exactly four whitespace-separated fields.
    ///
    /// # Errors
    /// [`ParseError::Missing`] for a missing field,
    /// [`ParseError::FenField`] for a non-printable one,
    /// [`ParseError::Number`] for a ply that is not a `u32`, and
    /// [`ParseError::Unexpected`] for a fifth token.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let tokens = Tokens::new(s);
        let fen = Fen::from_tokens(&tokens, 0)?;
        tokens.expect_end(4)?;
        Ok(fen)
    }
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {} {}", self.board, self.hands, self.side, self.ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_kept_as_written() {
        let text = "1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26";
        let fen: Fen = text.parse().unwrap();
        assert_eq!(
            fen.board(),
            "1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a"
        );
        assert_eq!((fen.hands(), fen.side(), fen.ply()), ("AFf", "r", 26));
        assert_eq!(fen.to_string(), text);
        // Meaning is not checked here.
        assert!("x y z 999".parse::<Fen>().is_ok());
    }

    #[test]
    fn shape_errors_name_the_field() {
        assert_eq!(
            "8/8 - r".parse::<Fen>(),
            Err(ParseError::Missing {
                index: 3,
                expected: "fen ply".into()
            })
        );
        assert!(matches!(
            "8/8 - r x".parse::<Fen>(),
            Err(ParseError::Number { index: 3, .. })
        ));
        assert!(matches!(
            "8/8 - r -1".parse::<Fen>(),
            Err(ParseError::Number { index: 3, .. })
        ));
        assert!(matches!(
            "8/é - r 1".parse::<Fen>(),
            Err(ParseError::FenField {
                index: 0,
                field: "board",
                ..
            })
        ));
        assert!(matches!(
            "a b c 1 d".parse::<Fen>(),
            Err(ParseError::Unexpected { index: 4, .. })
        ));
        assert!(Fen::new("a b", "-", "r", 0).is_err());
        assert!(Fen::new("8", "", "r", 0).is_err());
    }
}
