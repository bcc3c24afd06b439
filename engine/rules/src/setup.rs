//! Setup moves: the 16-piece placements that open the game.
//!
//! A setup is a permutation of `AAAAAAAADDDDFFNW` (10,810,800 of them). This
//! module validates setup text with precise errors, ranks and unranks setups
//! (a bijection with `0..10_810_800` in sorted text order, which books and
//! samplers use), enumerates them all, draws uniform random ones and mirrors
//! them left to right.

use super::types::{Color, Role, Square};
use std::fmt;

/// The number of distinct setups of one side: 16! / (8! 4! 2! 1! 1!).
pub const SETUP_COUNT: u32 = 10_810_800;

/// How many pieces of each role a setup holds, indexed by [`Role::index`].
const COUNTS: [u8; 5] = [8, 4, 2, 1, 1];

/// One side's 16 pieces in placement order: letter `i` of the text goes to
/// square `i` of the side's two home rows (Red: `a1..a8, b1..b8`; Blue:
/// `g1..g8, h1..h8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Setup {
    roles: [Role; 16],
}

/// Why a setup string is not a valid setup.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// Not 16 characters.
    #[error("a setup has 16 letters, not {0}")]
    WrongLength(usize),
    /// A character that names no piece.
    #[error("'{ch}' at position {index} of the setup is not a piece letter (A, D, F, N, W)")]
    WrongLetter {
        /// 0-based position in the text.
        index: usize,
        /// The character found.
        ch: char,
    },
    /// Upper and lower case mixed.
    #[error(
        "'{ch}' at position {index} of the setup breaks its case: a setup is all upper case (red) or all lower case (blue)"
    )]
    MixedCase {
        /// 0-based position in the text.
        index: usize,
        /// The character found.
        ch: char,
    },
    /// A role appears too often or too rarely.
    #[error("a setup has {expected} {role} letters, this one has {found}")]
    WrongCount {
        /// The role miscounted.
        role: Role,
        /// How many a setup must hold.
        expected: u8,
        /// How many the text holds.
        found: u8,
    },
    /// The case says the other side.
    #[error("this setup is written for {found} but {expected} is to place its pieces")]
    WrongColor {
        /// The side to move.
        expected: Color,
        /// The side the case denotes.
        found: Color,
    },
}

const FACTORIAL: [u64; 17] = {
    let mut f = [1u64; 17];
    let mut i = 1;
    while i < 17 {
        f[i] = f[i - 1] * i as u64;
        i += 1;
    }
    f
};

/// The number of distinct arrangements of a multiset with these counts.
fn arrangements(counts: &[u8; 5]) -> u64 {
    let n: usize = counts.iter().map(|&c| c as usize).sum();
    counts.iter().fold(FACTORIAL[n], |acc, &c| acc / FACTORIAL[c as usize])
}

impl Setup {
    /// The setup from its 16 roles, if their counts are right.
    pub fn from_roles(roles: [Role; 16]) -> Result<Setup, SetupError> {
        let mut counts = [0u8; 5];
        for role in roles {
            counts[role.index()] += 1;
        }
        for role in Role::ALL {
            if counts[role.index()] != COUNTS[role.index()] {
                return Err(SetupError::WrongCount {
                    role,
                    expected: COUNTS[role.index()],
                    found: counts[role.index()],
                });
            }
        }
        Ok(Setup { roles })
    }

    /// Parses setup text, returning the setup and the colour its case
    /// denotes. The letters must be all upper or all lower case.
    pub fn parse(text: &str) -> Result<(Setup, Color), SetupError> {
        let chars: Vec<char> = text.chars().take(17).collect();
        if chars.len() != 16 {
            return Err(SetupError::WrongLength(text.chars().count()));
        }
        let mut roles = [Role::Alfil; 16];
        let color = Color::from_case(chars[0]);
        for (index, &ch) in chars.iter().enumerate() {
            roles[index] = Role::from_letter(ch)
                .filter(|_| ch.is_ascii())
                .ok_or(SetupError::WrongLetter { index, ch })?;
            if Color::from_case(ch) != color {
                return Err(SetupError::MixedCase { index, ch });
            }
        }
        Ok((Setup::from_roles(roles)?, color))
    }

    /// The 16 roles in placement order.
    pub const fn roles(&self) -> &[Role; 16] {
        &self.roles
    }

    /// The square that letter `i` of a setup of `color` goes to.
    pub fn square(color: Color, i: usize) -> Square {
        let base = match color {
            Color::Red => 0,
            Color::Blue => 48,
        };
        Square::ALL[base + (i & 15)]
    }

    /// The text of this setup in the case of `color`.
    pub fn to_text(&self, color: Color) -> String {
        self.roles.iter().map(|r| r.letter(color)).collect()
    }

    /// Its rank: its index among all setups in sorted text order.
    pub fn rank(&self) -> u32 {
        let mut counts = COUNTS;
        let mut rank = 0u64;
        for &role in &self.roles {
            for smaller in &Role::ALL[..role.index()] {
                if counts[smaller.index()] > 0 {
                    counts[smaller.index()] -= 1;
                    rank += arrangements(&counts);
                    counts[smaller.index()] += 1;
                }
            }
            counts[role.index()] -= 1;
        }
        rank as u32
    }

    /// The setup of rank `rank`, or `None` when `rank >= SETUP_COUNT`.
    pub fn unrank(rank: u32) -> Option<Setup> {
        if rank >= SETUP_COUNT {
            return None;
        }
        let mut rank = rank as u64;
        let mut counts = COUNTS;
        let mut roles = [Role::Alfil; 16];
        for slot in &mut roles {
            for role in Role::ALL {
                if counts[role.index()] == 0 {
                    continue;
                }
                counts[role.index()] -= 1;
                let block = arrangements(&counts);
                if rank < block {
                    *slot = role;
                    break;
                }
                rank -= block;
                counts[role.index()] += 1;
            }
        }
        Some(Setup { roles })
    }

    /// A uniformly random setup drawn with `rng`.
    pub fn random<R: rand::Rng + ?Sized>(rng: &mut R) -> Setup {
        Setup::unrank(rng.random_range(0..SETUP_COUNT)).expect("rank drawn in range")
    }

    /// The setup seen in the left-right mirror: each home row reversed.
    pub fn mirror(&self) -> Setup {
        let mut roles = self.roles;
        roles[..8].reverse();
        roles[8..].reverse();
        Setup { roles }
    }

    /// The same formation for the other side: Red's text fills its back
    /// row first, Blue's its front row first, so a formation changes sides
    /// by swapping the text's two halves (the back row stays at the back).
    pub fn for_other_side(&self) -> Setup {
        let mut roles = self.roles;
        roles.rotate_left(8);
        Setup { roles }
    }

    /// The first setup in sorted text order (`AAAAAAAADDDDFFNW`).
    pub const fn first() -> Setup {
        use Role::*;
        Setup {
            roles: [
                Alfil, Alfil, Alfil, Alfil, Alfil, Alfil, Alfil, Alfil, Dabbaba, Dabbaba, Dabbaba, Dabbaba, Ferz, Ferz,
                Knight, Wazir,
            ],
        }
    }

    /// The next setup in sorted text order, or `None` after the last.
    pub fn next(&self) -> Option<Setup> {
        // The standard next-permutation step, which handles repeated letters.
        let mut roles = self.roles;
        let i = (0..15).rev().find(|&i| roles[i] < roles[i + 1])?;
        let j = (i + 1..16).rev().find(|&j| roles[j] > roles[i])?;
        roles.swap(i, j);
        roles[i + 1..].reverse();
        Some(Setup { roles })
    }

    /// Every setup, in rank order.
    pub fn all() -> impl Iterator<Item = Setup> {
        std::iter::successors(Some(Setup::first()), Setup::next)
    }
}

impl fmt::Display for Setup {
    /// Upper case (Red's notation); use [`Setup::to_text`] for Blue's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text(Color::Red))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn errors_name_what_is_wrong() {
        assert_eq!(Setup::parse("AAAA"), Err(SetupError::WrongLength(4)));
        assert_eq!(Setup::parse("AAAAAAAADDDDFFNWA"), Err(SetupError::WrongLength(17)));
        assert_eq!(
            Setup::parse("AAAAAAAADDDDFFNX"),
            Err(SetupError::WrongLetter { index: 15, ch: 'X' })
        );
        assert_eq!(
            Setup::parse("AAAAAAAADDDdFFNW"),
            Err(SetupError::MixedCase { index: 11, ch: 'd' })
        );
        assert_eq!(
            Setup::parse("AAAAAAAADDDDFFNN"),
            Err(SetupError::WrongCount {
                role: Role::Knight,
                expected: 1,
                found: 2
            })
        );
        assert_eq!(Setup::parse("aaaaaaaaddddffnw").map(|(_, c)| c), Ok(Color::Blue));
        assert!(Setup::parse("ÀAAAAAAADDDDFFNW").is_err());
    }

    #[test]
    fn rank_is_sorted_text_order() {
        let first = Setup::first();
        assert_eq!(first.rank(), 0);
        assert_eq!(first.to_string(), "AAAAAAAADDDDFFNW");
        let last = Setup::unrank(SETUP_COUNT - 1).unwrap();
        assert_eq!(last.to_string(), "WNFFDDDDAAAAAAAA");
        assert_eq!(last.next(), None);
        assert_eq!(Setup::unrank(SETUP_COUNT), None);
        let mut prev = first;
        for (i, s) in Setup::all().take(2000).enumerate() {
            assert_eq!(s.rank(), i as u32);
            assert!(i == 0 || prev.to_string() < s.to_string());
            prev = s;
        }
    }

    #[test]
    fn enumeration_yields_every_setup_once() {
        let mut n = 0u32;
        for s in Setup::all() {
            debug_assert_eq!(s.rank(), n);
            n += 1;
        }
        assert_eq!(n, SETUP_COUNT);
    }

    proptest! {
        #[test]
        fn rank_unrank_round_trip(rank in 0..SETUP_COUNT) {
            let setup = Setup::unrank(rank).unwrap();
            prop_assert_eq!(setup.rank(), rank);
            let (parsed, color) = Setup::parse(&setup.to_text(Color::Blue)).unwrap();
            prop_assert_eq!(parsed, setup);
            prop_assert_eq!(color, Color::Blue);
            prop_assert_eq!(setup.mirror().mirror(), setup);
            prop_assert_eq!(setup.for_other_side().for_other_side(), setup);
            prop_assert!(Setup::from_roles(*setup.mirror().roles()).is_ok());
        }
    }
}
