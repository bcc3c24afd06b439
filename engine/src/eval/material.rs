//! Static evaluation as the search sees it: the [`Evaluator`] trait, and
//! [`Material`], a plain material count.
//!
//! Scores are logits of the side to move's expected score scaled by 10,000
//! (so 10,000 is a logit of 1, about 73%, and 100 cp in the protocol). The
//! trait is all the search knows of evaluation, so a piece-square model or
//! a network can replace [`Material`] without touching the search. The
//! search owns one evaluator per thread (cloned for helper threads) and
//! calls it through `&mut self`, so an evaluator may keep state of its own
//! (an incrementally updated accumulator) without locks.

use crate::rules::{Color, Move, Position, Role};

/// A static evaluation function, owned by one search thread.
pub trait Evaluator: Clone + Send {
    /// The value of `pos` for the side to move, in logit x 10,000. Called
    /// only on positions where the game goes on (both wazirs on the board,
    /// ply below 102); must stay within ±[`EVAL_BOUND`](super::EVAL_BOUND),
    /// far inside the search's mate scores.
    fn evaluate(&mut self, pos: &Position) -> i32;

    /// Bounds on [`Evaluator::evaluate`]'s value of `pos`: `(low, high)`
    /// with `low <= evaluate(pos) <= high`, for a caller that needs only
    /// to compare the evaluation with a threshold and can skip the exact
    /// value when the bounds settle it. An evaluator whose cheap part
    /// bounds the rest (the network's psq sums) returns that; the others
    /// evaluate (`low == high`).
    #[inline]
    fn bounds(&mut self, pos: &Position) -> (i32, i32) {
        let score = self.evaluate(pos);
        (score, score)
    }

    /// A value of `pos` that compares with the window `alpha..beta` as
    /// [`Evaluator::evaluate`]'s does: exact inside it; at or above `beta`
    /// a lower bound of the evaluation (itself at least `beta`), at or
    /// below `alpha` an upper bound (at most `alpha`), from
    /// [`Evaluator::bounds`] when they settle it.
    #[inline]
    fn evaluate_within(&mut self, pos: &Position, alpha: i32, beta: i32) -> i32 {
        let (low, high) = self.bounds(pos);
        if low >= beta || low == high {
            low
        } else if high <= alpha {
            high
        } else {
            self.evaluate(pos)
        }
    }

    /// A rough value of a piece of `role` on the board, in the same unit,
    /// for move ordering (most valuable victim first) and futility margins.
    fn piece_value(&self, role: Role) -> i32;

    /// A search starts at `root`: an incremental evaluator starts its path
    /// there. The search calls [`Evaluator::push`] / [`Evaluator::pop`]
    /// around every move it makes below, [`Evaluator::push_null`] around a
    /// null move, and [`Evaluator::end`] when the root search returns.
    /// Stateless evaluators ignore all five.
    #[inline]
    fn begin(&mut self, _root: &Position) {}

    /// The search made `mv`, going from `before` (the current position) to
    /// `after`.
    #[inline]
    fn push(&mut self, _before: &Position, _mv: Move, _after: &Position) {}

    /// The search made a null move.
    #[inline]
    fn push_null(&mut self) {}

    /// The search took back the last move (or null move).
    #[inline]
    fn pop(&mut self) {}

    /// The root search returned: later calls of [`Evaluator::evaluate`]
    /// are on positions off the search path.
    #[inline]
    fn end(&mut self) {}
}

/// Material: a value per piece on the board and per piece in hand, plus a
/// bonus for the side to move (having the move is worth much in a game
/// with drops).
///
/// The defaults are rounded from the averages of a published linear model
/// of this game (see `../shared/seeds`): a knight is worth most, the other
/// pieces about the same, and a piece in hand about as much as one on the
/// board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Material {
    /// Value of a piece on the board, by [`Role::index`] (the wazir's is 0:
    /// both are always there while the game goes on).
    pub board: [i32; 5],
    /// Value of a piece in hand, by [`Role::index`].
    pub hand: [i32; 5],
    /// Bonus for the side to move.
    pub tempo: i32,
}

impl Default for Material {
    fn default() -> Material {
        Material {
            board: [2200, 2000, 2000, 3500, 0],
            hand: [1500, 1800, 2200, 3500, 0],
            tempo: 2000,
        }
    }
}

impl Material {
    fn side(&self, pos: &Position, color: Color) -> i32 {
        let own = pos.pieces_of(color);
        let hand = pos.hand(color);
        Role::DROPPABLE
            .iter()
            .map(|&role| {
                let on_board = (pos.role_squares(role) & own).count() as i32;
                on_board * self.board[role.index()] + hand.count(role) as i32 * self.hand[role.index()]
            })
            .sum()
    }
}

impl Evaluator for Material {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let us = pos.turn();
        self.side(pos, us) - self.side(pos, !us) + self.tempo
    }

    fn piece_value(&self, role: Role) -> i32 {
        match role {
            Role::Wazir => 100_000,
            _ => self.board[role.index()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Setup, SetupCase};

    #[test]
    fn material_is_symmetric_and_counts_hands() {
        let setup = Setup::first();
        let pos = Position::from_setups(&setup, &setup);
        let mut eval = Material::default();
        assert_eq!(eval.evaluate(&pos), eval.tempo);
        // Red's dabbaba on b1 (letter 8 of the setup) takes nothing; a capture
        // shifts material by the victim's board value plus its hand value.
        let fen = "AAAAAAAA/DDDDFFNW/8/8/8/8/aaaaaaaa/ddddffnw A r 4";
        let fen_pos = Position::from_fen(fen);
        assert!(fen_pos.is_err(), "material must add up: one alfil too many");
        let mut pos = Position::from_fen("AAAAAAAA/DDDDFFNW/8/8/8/8/1aaaaaaa/ddddffnw A r 4").unwrap();
        assert_eq!(eval.evaluate(&pos), eval.board[0] + eval.hand[0] + eval.tempo);
        let mv = pos.parse_move("Ad5", SetupCase::Strict).unwrap();
        pos.play_game_move(&mv);
        assert_eq!(eval.evaluate(&pos), -(2 * eval.board[0]) + eval.tempo);
    }
}
