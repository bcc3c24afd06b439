//! Sets of squares as 64-bit masks, and the leap tables of every role.
//!
//! All pieces are leapers, so a piece's targets depend only on its role and
//! square: one table lookup, no blocker logic. The tables are built at
//! compile time from [`Role::leaps`].

use super::types::{Role, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares; bit `i` is the square with index `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const FULL: Bitboard = Bitboard(!0);

    /// The set holding one square.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// The squares of rows `first..=last` (0 = `a`).
    pub const fn rows(first: u8, last: u8) -> Bitboard {
        let mut bits = 0u64;
        let mut row = first;
        while row <= last {
            bits |= 0xff << (row * 8);
            row += 1;
        }
        Bitboard(bits)
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// Number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set has a square.
    #[inline]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_masked(self.0.trailing_zeros()))
        }
    }

    /// The set mirrored left to right.
    pub const fn mirror(self) -> Bitboard {
        // Reverse the bits of each byte (each row).
        let mut x = self.0;
        x = ((x >> 1) & 0x5555_5555_5555_5555) | ((x & 0x5555_5555_5555_5555) << 1);
        x = ((x >> 2) & 0x3333_3333_3333_3333) | ((x & 0x3333_3333_3333_3333) << 2);
        x = ((x >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((x & 0x0f0f_0f0f_0f0f_0f0f) << 4);
        Bitboard(x)
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index_masked(self.0.trailing_zeros());
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bit_ops {
    ($($tr:ident $f:ident $atr:ident $af:ident $op:tt;)*) => {$(
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard { Bitboard(self.0 $op rhs.0) }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) { self.0 = self.0 $op rhs.0; }
        }
    )*};
}

bit_ops! {
    BitAnd bitand BitAndAssign bitand_assign &;
    BitOr bitor BitOrAssign bitor_assign |;
    BitXor bitxor BitXorAssign bitxor_assign ^;
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

const fn leap_table(role: Role) -> [u64; 64] {
    let mut table = [0u64; 64];
    let leaps = role.leaps();
    let mut sq = 0;
    while sq < 64 {
        let (row, col) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut i = 0;
        while i < leaps.len() {
            if let Some(to) = Square::from_coords(row + leaps[i].0 as i32, col + leaps[i].1 as i32) {
                table[sq] |= 1 << to.index();
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

static LEAPS: [[u64; 64]; 5] = [
    leap_table(Role::Alfil),
    leap_table(Role::Dabbaba),
    leap_table(Role::Ferz),
    leap_table(Role::Knight),
    leap_table(Role::Wazir),
];

/// The squares a piece of `role` on `from` leaps to on an empty board.
/// Every leap is symmetric, so these are also the squares it is attacked from
/// by a piece of the same role.
#[inline]
pub fn leaps(role: Role, from: Square) -> Bitboard {
    Bitboard(LEAPS[role.index()][from.index()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leap_counts_from_open_and_corner_squares() {
        let d4 = Square::parse(b"d4").unwrap();
        let a1 = Square::parse(b"a1").unwrap();
        let expected_open = [4, 4, 4, 8, 4];
        let expected_corner = [1, 2, 1, 2, 2];
        for (i, role) in Role::ALL.into_iter().enumerate() {
            assert_eq!(leaps(role, d4).count(), expected_open[i], "{role} on d4");
            assert_eq!(leaps(role, a1).count(), expected_corner[i], "{role} on a1");
        }
        assert!(leaps(Role::Knight, a1).contains(Square::parse(b"b3").unwrap()));
        assert!(leaps(Role::Knight, a1).contains(Square::parse(b"c2").unwrap()));
    }

    #[test]
    fn leaps_are_symmetric_and_mirror_consistent() {
        for role in Role::ALL {
            for from in Square::ALL {
                for to in leaps(role, from) {
                    assert!(leaps(role, to).contains(from));
                }
                assert_eq!(leaps(role, from).mirror(), leaps(role, from.mirror()));
            }
        }
    }
}
