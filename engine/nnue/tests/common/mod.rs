//! Random games for the tests: every kind of move (jumps, captures, drops,
//! wazir moves) turns up often, which uniform choice alone would not do once
//! hands fill with drops.

#![allow(dead_code)]

use leaper_rules::{Move, MoveList, Position, Role, Setup};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What a random game's moves were, to check that the tests saw each kind.
#[derive(Debug, Default, Clone, Copy)]
pub struct MoveKinds {
    pub jumps: usize,
    pub captures: usize,
    pub drops: usize,
    pub wazir_moves: usize,
    pub wazir_captures: usize,
}

/// A random legal move: a capture with probability 0.35 when there is one,
/// a wazir move with probability 0.2, otherwise any legal move.
pub fn random_move(pos: &Position, rng: &mut StdRng) -> Option<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let moves = list.as_slice();
    if moves.is_empty() {
        return None;
    }
    let captures: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| !m.is_drop() && pos.piece_at(m.to()).is_some())
        .collect();
    let wazir: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| {
            m.from()
                .is_some_and(|f| pos.piece_at(f).is_some_and(|p| p.role == Role::Wazir))
        })
        .collect();
    let roll: f64 = rng.random();
    if roll < 0.35 && !captures.is_empty() {
        return Some(captures[rng.random_range(0..captures.len())]);
    }
    if roll < 0.55 && !wazir.is_empty() {
        return Some(wazir[rng.random_range(0..wazir.len())]);
    }
    Some(moves[rng.random_range(0..moves.len())])
}

/// Classifies `mv` in `pos` into `kinds`.
pub fn count_kind(pos: &Position, mv: Move, kinds: &mut MoveKinds) {
    match mv {
        Move::Drop { .. } => kinds.drops += 1,
        Move::Jump { from, to } => {
            kinds.jumps += 1;
            if pos.piece_at(from).is_some_and(|p| p.role == Role::Wazir) {
                kinds.wazir_moves += 1;
            }
            if let Some(victim) = pos.piece_at(to) {
                kinds.captures += 1;
                if victim.role == Role::Wazir {
                    kinds.wazir_captures += 1;
                }
            }
        }
    }
}

/// A random game from random setups: the positions after each ply (the
/// first after both setups) and the moves between them.
pub fn random_game(seed: u64) -> (Vec<Position>, Vec<Move>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Position::from_setups(&Setup::random(&mut rng), &Setup::random(&mut rng));
    let mut positions = vec![pos.clone()];
    let mut moves = Vec::new();
    while let Some(mv) = random_move(&pos, &mut rng) {
        pos.play(mv);
        positions.push(pos.clone());
        moves.push(mv);
    }
    (positions, moves)
}
