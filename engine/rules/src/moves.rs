//! Moves: the regular `Move` (jump, capture or drop), the `GameMove` that
//! also covers setups, and a fixed-capacity `MoveList` for the generator.
//!
//! `Move` is three bytes and `Copy`, so search code can pass and store it
//! freely; a capture is a jump whose target holds an enemy piece, which the
//! position knows, so it needs no variant of its own.

use super::setup::Setup;
use super::types::{Role, Square};
use std::fmt;

/// A regular move (from ply 3 on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece leaps from `from` to `to`, capturing whatever enemy piece is
    /// there.
    Jump {
        /// Where the piece stands.
        from: Square,
        /// Where it lands.
        to: Square,
    },
    /// A piece of `role` from the mover's hand goes onto the empty `to`.
    Drop {
        /// The role dropped.
        role: Role,
        /// The empty target square.
        to: Square,
    },
}

impl Move {
    /// The square the move lands on.
    #[inline]
    pub const fn to(self) -> Square {
        match self {
            Move::Jump { to, .. } | Move::Drop { to, .. } => to,
        }
    }

    /// The square a jump leaves; `None` for a drop.
    #[inline]
    pub const fn from(self) -> Option<Square> {
        match self {
            Move::Jump { from, .. } => Some(from),
            Move::Drop { .. } => None,
        }
    }

    /// Whether it is a drop.
    #[inline]
    pub const fn is_drop(self) -> bool {
        matches!(self, Move::Drop { .. })
    }

    /// The move seen in the left-right mirror.
    pub const fn mirror(self) -> Move {
        match self {
            Move::Jump { from, to } => Move::Jump {
                from: from.mirror(),
                to: to.mirror(),
            },
            Move::Drop { role, to } => Move::Drop { role, to: to.mirror() },
        }
    }

    /// A 16-bit code, unique per move and never 0: for hash tables.
    pub const fn to_u16(self) -> u16 {
        match self {
            Move::Jump { from, to } => 0x8000 | ((from.index() as u16) << 6) | to.index() as u16,
            Move::Drop { role, to } => 0x4000 | ((role.index() as u16) << 6) | to.index() as u16,
        }
    }

    /// The move a [`Move::to_u16`] code stands for, or `None` for a code no
    /// move has.
    pub const fn from_u16(code: u16) -> Option<Move> {
        let to = Square::from_index_masked(code as u32);
        let hi = ((code >> 6) & 63) as usize;
        match code >> 12 {
            0x8 => Some(Move::Jump {
                from: Square::from_index_masked(hi as u32),
                to,
            }),
            0x4 if hi < 5 => Some(Move::Drop {
                role: Role::ALL[hi],
                to,
            }),
            _ => None,
        }
    }
}

/// Any move of a game: one of the two setups, or a regular move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameMove {
    /// Plies 1 and 2: the mover places all 16 pieces.
    Setup(Setup),
    /// Plies 3 on.
    Move(Move),
}

impl From<Move> for GameMove {
    fn from(mv: Move) -> GameMove {
        GameMove::Move(mv)
    }
}

impl From<Setup> for GameMove {
    fn from(setup: Setup) -> GameMove {
        GameMove::Setup(setup)
    }
}

/// The most regular moves a side can have: 4 wazir + 8 knight + 4 x 61
/// drops (see RULES.md).
pub const MAX_MOVES: usize = 256;

/// A list of up to [`MAX_MOVES`] moves on the stack; the generator fills it
/// without allocating.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move::Drop {
                role: Role::Alfil,
                to: Square::ALL[0],
            }; MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move. The rules never produce more than [`MAX_MOVES`].
    #[inline]
    pub fn push(&mut self, mv: Move) {
        debug_assert!(self.len < MAX_MOVES);
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = mv;
            self.len += 1;
        }
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Number of moves.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no move.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The moves as a mutable slice (for ordering them in place).
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_is_small() {
        assert_eq!(size_of::<Move>(), 3);
        assert_eq!(size_of::<Option<Move>>(), 3);
    }

    #[test]
    fn u16_codes_round_trip() {
        for from in Square::ALL {
            for to in Square::ALL {
                let mv = Move::Jump { from, to };
                assert_ne!(mv.to_u16(), 0);
                assert_eq!(Move::from_u16(mv.to_u16()), Some(mv));
            }
            for role in Role::ALL {
                let mv = Move::Drop { role, to: from };
                assert_eq!(Move::from_u16(mv.to_u16()), Some(mv));
            }
        }
        assert_eq!(Move::from_u16(0), None);
    }
}
