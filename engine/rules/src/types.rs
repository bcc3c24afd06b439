//! The atoms of the game: colours, piece roles, pieces and squares.
//!
//! They are small `Copy` values whose constructors keep them in range, so the
//! rest of the rules can index tables with them without checks. Squares use
//! the CodeCup numbering (`a1` = 0, `a8` = 7, `b1` = 8, `h8` = 63): the letter
//! names the row, the digit the column.

use std::fmt;
use std::ops::Not;
use std::str::FromStr;

/// One of the two sides. Red sets up on rows `a`/`b` and moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Upper-case letters, home rows `a` and `b`, moves first.
    Red,
    /// Lower-case letters, home rows `g` and `h`.
    Blue,
}

impl Color {
    /// Both colours, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Blue];

    /// 0 for Red, 1 for Blue: an index into per-colour tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other side.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Blue,
            Color::Blue => Color::Red,
        }
    }

    /// The colour a letter's case denotes: upper case is Red, lower case Blue.
    pub const fn from_case(letter: char) -> Color {
        if letter.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Blue
        }
    }

    /// The side that moves at a ply count (plies played so far): Red after
    /// an even number, Blue after an odd one.
    pub const fn to_move_at(ply: u32) -> Color {
        if ply.is_multiple_of(2) { Color::Red } else { Color::Blue }
    }

    /// `"red"` or `"blue"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Blue => "blue",
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A kind of piece, regardless of colour. The order is alphabetical by
/// letter, which makes the rank of a setup its index in sorted text order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// `A`: leaps two squares diagonally.
    Alfil,
    /// `D`: leaps two squares orthogonally.
    Dabbaba,
    /// `F`: steps one square diagonally.
    Ferz,
    /// `N`: the chess knight's leap.
    Knight,
    /// `W`: steps one square orthogonally; losing it loses the game.
    Wazir,
}

impl Role {
    /// All roles in index order.
    pub const ALL: [Role; 5] = [Role::Alfil, Role::Dabbaba, Role::Ferz, Role::Knight, Role::Wazir];

    /// The roles that can be in a hand (a wazir never is).
    pub const DROPPABLE: [Role; 4] = [Role::Alfil, Role::Dabbaba, Role::Ferz, Role::Knight];

    /// Index into per-role tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How many pieces of this role each side owns.
    pub const fn count_per_side(self) -> u8 {
        match self {
            Role::Alfil => 8,
            Role::Dabbaba => 4,
            Role::Ferz => 2,
            Role::Knight => 1,
            Role::Wazir => 1,
        }
    }

    /// The upper-case letter.
    pub const fn upper(self) -> char {
        match self {
            Role::Alfil => 'A',
            Role::Dabbaba => 'D',
            Role::Ferz => 'F',
            Role::Knight => 'N',
            Role::Wazir => 'W',
        }
    }

    /// The letter in the case of `color`.
    pub const fn letter(self, color: Color) -> char {
        match color {
            Color::Red => self.upper(),
            Color::Blue => self.upper().to_ascii_lowercase(),
        }
    }

    /// The role a letter names, in either case.
    pub const fn from_letter(letter: char) -> Option<Role> {
        match letter.to_ascii_uppercase() {
            'A' => Some(Role::Alfil),
            'D' => Some(Role::Dabbaba),
            'F' => Some(Role::Ferz),
            'N' => Some(Role::Knight),
            'W' => Some(Role::Wazir),
            _ => None,
        }
    }

    /// The English name, lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Alfil => "alfil",
            Role::Dabbaba => "dabbaba",
            Role::Ferz => "ferz",
            Role::Knight => "knight",
            Role::Wazir => "wazir",
        }
    }

    /// The (row, column) offsets of its leaps.
    pub const fn leaps(self) -> &'static [(i8, i8)] {
        match self {
            Role::Wazir => &[(1, 0), (-1, 0), (0, 1), (0, -1)],
            Role::Ferz => &[(1, 1), (1, -1), (-1, 1), (-1, -1)],
            Role::Dabbaba => &[(2, 0), (-2, 0), (0, 2), (0, -2)],
            Role::Alfil => &[(2, 2), (2, -2), (-2, 2), (-2, -2)],
            Role::Knight => &[(1, 2), (1, -2), (-1, 2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)],
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A coloured piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its owner.
    pub color: Color,
    /// Its kind.
    pub role: Role,
}

impl Piece {
    /// A piece of `color` and `role`.
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// Its letter: upper case for Red, lower case for Blue.
    pub const fn letter(self) -> char {
        self.role.letter(self.color)
    }

    /// The piece a letter denotes (case gives the colour).
    pub const fn from_letter(letter: char) -> Option<Piece> {
        match Role::from_letter(letter) {
            Some(role) => Some(Piece {
                color: Color::from_case(letter),
                role,
            }),
            None => None,
        }
    }

    /// Index 0..10 into per-piece tables.
    #[inline]
    pub const fn index(self) -> usize {
        self.color.index() * 5 + self.role.index()
    }
}

/// A square of the 8x8 board; always in range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// All 64 squares in index order.
    pub const ALL: [Square; 64] = {
        let mut all = [Square(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with index `index` (0..64), or `None`.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 { Some(Square(index)) } else { None }
    }

    /// The square at row 0..8 (`a`..`h`) and column 0..8 (`1`..`8`), or
    /// `None` when either is off the board.
    pub const fn from_coords(row: i32, col: i32) -> Option<Square> {
        if row >= 0 && row < 8 && col >= 0 && col < 8 {
            Some(Square((row * 8 + col) as u8))
        } else {
            None
        }
    }

    /// `index & 63` as a square: for indices known to be in range, such as
    /// a bitboard's set bits.
    #[inline]
    pub const fn from_index_masked(index: u32) -> Square {
        Square((index & 63) as u8)
    }

    /// Its index 0..64.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Its row, 0 for `a` .. 7 for `h`.
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 / 8
    }

    /// Its column, 0 for `1` .. 7 for `8`.
    #[inline]
    pub const fn col(self) -> u8 {
        self.0 % 8
    }

    /// The square seen in the left-right mirror (column `c` to `9 - c`).
    pub const fn mirror(self) -> Square {
        Square(self.0 ^ 7)
    }

    /// Parses `b5`: a row letter `a`..`h`, then a column digit `1`..`8`.
    pub fn parse(text: &[u8]) -> Option<Square> {
        match text {
            [r @ b'a'..=b'h', c @ b'1'..=b'8'] => Some(Square((r - b'a') * 8 + (c - b'1'))),
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.row()) as char, (b'1' + self.col()) as char)
    }
}

/// Text that is not a square: not a row `a`..`h` then a column `1`..`8`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad square `{0}`, expected a row a..h then a column 1..8")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `a1`..`h8` (lower-case row letter only).
    ///
    /// # Errors
    /// [`ParseSquareError`] for anything else.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        Square::parse(s.as_bytes()).ok_or_else(|| ParseSquareError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_follow_codecup_numbering() {
        assert_eq!(Square::parse(b"a1").map(Square::index), Some(0));
        assert_eq!(Square::parse(b"a8").map(Square::index), Some(7));
        assert_eq!(Square::parse(b"b1").map(Square::index), Some(8));
        assert_eq!(Square::parse(b"h8").map(Square::index), Some(63));
        assert_eq!(Square::parse(b"i1"), None);
        assert_eq!(Square::parse(b"a9"), None);
        assert_eq!(Square::parse(b"a"), None);
        for sq in Square::ALL {
            assert_eq!(Square::parse(sq.to_string().as_bytes()), Some(sq));
            assert_eq!(sq.mirror().mirror(), sq);
            assert_eq!(sq.mirror().row(), sq.row());
            assert_eq!(sq.mirror().col(), 7 - sq.col());
        }
    }

    #[test]
    fn letters_round_trip() {
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                assert_eq!(Piece::from_letter(piece.letter()), Some(piece));
            }
        }
        assert_eq!(Piece::from_letter('x'), None);
        let total: u8 = Role::ALL.iter().map(|r| r.count_per_side()).sum();
        assert_eq!(total, 16);
    }
}
