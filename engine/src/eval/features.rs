//! The features of the linear evaluation, computed for one side at a time:
//! piece-square terms on the ten squares the board's 8-fold symmetry leaves
//! distinct, pieces in hand by count, and terms about the enemy wazir
//! (how free it is, who attacks its neighbours, what can jump or be dropped
//! to attack it).
//!
//! One function, [`side_features`], feeds both the evaluator (which sums
//! weights) and the fitter (which collects feature values), so the two can
//! never disagree. Every feature is a function of leap geometry and the
//! normalized square, hence invariant under the board's rotations and
//! reflections and under swapping the colours; the evaluation `own - enemy
//! + tempo` inherits that symmetry.

use crate::rules::{Bitboard, Color, Position, Role, Square, leaps};

/// Distinct squares up to the board's symmetry.
pub const NORMALIZED_SQUARES: usize = 10;
/// First piece-square feature: `role * 10 + normalized square`.
pub const PSQ: usize = 0;
/// First hand feature; the `k`-th piece of a role in hand has its own
/// feature, so a hand of `n` counts features `0..n` of its role.
pub const HAND: usize = PSQ + 5 * NORMALIZED_SQUARES;
/// Hand features per droppable role (the most a side can hold of it).
pub const HAND_SIZES: [usize; 4] = [16, 8, 4, 2];
const HAND_OFFSETS: [usize; 4] = [0, 16, 24, 28];
/// First feature about the enemy wazir.
pub const WAZIR: usize = HAND + 30;
/// Wazir features per block; there are two blocks, the first used when the
/// side whose features these are is to move, the second when not.
pub const WAZIR_BLOCK: usize = 35;
/// All features of one side.
pub const FEATURES: usize = WAZIR + 2 * WAZIR_BLOCK;

// Offsets inside a wazir block.
const ESCAPES: usize = 0; // one-hot 0..=4: neighbours free of its own pieces and not attacked
const BLOCKED: usize = 5; // one-hot 0..=4: neighbours held by its own pieces
const RING_ATTACKED: usize = 10; // one-hot 0..=4: neighbours we attack
const RING_ATTACKERS: usize = 15; // per role: our pieces attacking a neighbour
const THREATS: usize = 20; // per role: our pieces that can leap to a square attacking it
const DROP_CHECK: usize = 25; // per droppable role in hand: a drop would attack it
const DROP_ESCAPE: usize = 29; // per droppable role in hand: free escapes a drop could attack
const DEFENDERS: usize = 33; // its own pieces (not the wazir) covering its neighbours, up to 4
const CORNERED_HAND: usize = 34; // at most one escape while we hold a piece in hand

/// Which features to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureSet {
    /// Piece-square and hand features only.
    Psq,
    /// Also the features about the enemy wazir.
    Full,
}

/// The normalized square (0..10) of each square: fold rows and columns to
/// their nearer edge, then order the pair so the row is not larger.
pub const NORMALIZED: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let (row, col) = (sq / 8, sq % 8);
        let r = if row < 4 { row } else { 7 - row };
        let c = if col < 4 { col } else { 7 - col };
        let (r, c) = if r <= c { (r, c) } else { (c, r) };
        // Rows of the triangle a1-a4, b2-b4, c3-c4, d4 start at 0, 4, 7, 9.
        let start = [0, 4, 7, 9][r];
        table[sq] = (start + c - r) as u8;
        sq += 1;
    }
    table
};

/// Receives features as (index, value) pairs.
pub trait Sink {
    /// Adds `value` to feature `index` (< [`FEATURES`]).
    fn add(&mut self, index: usize, value: i32);
}

/// The features of `color`: its pieces and hand, and (for
/// [`FeatureSet::Full`]) what it does to the enemy wazir.
#[inline]
pub fn side_features<S: Sink>(pos: &Position, color: Color, set: FeatureSet, sink: &mut S) {
    let own = pos.pieces_of(color);
    for role in Role::ALL {
        let base = PSQ + role.index() * NORMALIZED_SQUARES;
        for sq in pos.role_squares(role) & own {
            sink.add(base + NORMALIZED[sq.index()] as usize, 1);
        }
    }
    let hand = pos.hand(color);
    for (i, role) in Role::DROPPABLE.into_iter().enumerate() {
        let n = (hand.count(role) as usize).min(HAND_SIZES[i]);
        for k in 0..n {
            sink.add(HAND + HAND_OFFSETS[i] + k, 1);
        }
    }
    if set == FeatureSet::Full
        && let Some(wazir) = pos.wazir(!color)
    {
        let base = WAZIR + if pos.turn() == color { 0 } else { WAZIR_BLOCK };
        wazir_features(pos, color, wazir, base, sink);
    }
}

/// Features of `color` against the enemy wazir on `wazir`.
#[inline]
fn wazir_features<S: Sink>(pos: &Position, color: Color, wazir: Square, base: usize, sink: &mut S) {
    let us = pos.pieces_of(color);
    let them = pos.pieces_of(!color);
    let empty = !(us | them);
    let ring = leaps(Role::Wazir, wazir);
    let mut attacked = Bitboard::EMPTY;
    let mut defenders = 0;
    for role in Role::ALL {
        let role_squares = pos.role_squares(role);
        // Squares from which a piece of this role attacks a ring square.
        let mut covering = Bitboard::EMPTY;
        for n in ring {
            let from = leaps(role, n);
            covering |= from;
            if (from & role_squares & us).is_nonempty() {
                attacked |= Bitboard::from_square(n);
            }
        }
        let attackers = (covering & role_squares & us).count() as i32;
        if attackers > 0 {
            sink.add(base + RING_ATTACKERS + role.index(), attackers);
        }
        if role != Role::Wazir {
            defenders += (covering & role_squares & them).count() as i32;
        }
        // Squares from which a piece of this role can leap to a square that
        // attacks the wazir.
        let mut reach = Bitboard::EMPTY;
        for t in leaps(role, wazir) & !us {
            reach |= leaps(role, t);
        }
        let threats = (reach & role_squares & us).count() as i32;
        if threats > 0 {
            sink.add(base + THREATS + role.index(), threats);
        }
    }
    let free = ring & !them;
    let escapes = free & !attacked;
    sink.add(base + ESCAPES + escapes.count() as usize, 1);
    sink.add(base + BLOCKED + (ring & them).count() as usize, 1);
    sink.add(base + RING_ATTACKED + attacked.count() as usize, 1);
    if defenders > 0 {
        sink.add(base + DEFENDERS, defenders.min(4));
    }
    let hand = pos.hand(color);
    if hand.is_empty() {
        return;
    }
    if escapes.count() <= 1 {
        sink.add(base + CORNERED_HAND, 1);
    }
    for (i, role) in Role::DROPPABLE.into_iter().enumerate() {
        if hand.count(role) == 0 {
            continue;
        }
        if (leaps(role, wazir) & empty).is_nonempty() {
            sink.add(base + DROP_CHECK + i, 1);
        }
        let coverable = escapes.filter(|&n| (leaps(role, n) & empty).is_nonempty()).count() as i32;
        if coverable > 0 {
            sink.add(base + DROP_ESCAPE + i, coverable);
        }
    }
}

/// The name of feature `index`, as the weights file writes it.
pub fn feature_name(index: usize) -> String {
    let role = |i: usize| Role::ALL.get(i).map_or("?", |r| r.name());
    if index < HAND {
        let i = index - PSQ;
        return format!(
            "psq.{}.{}",
            role(i / NORMALIZED_SQUARES),
            SQUARE_NAMES[i % NORMALIZED_SQUARES]
        );
    }
    if index < WAZIR {
        let i = index - HAND;
        let r = HAND_OFFSETS.iter().rposition(|&o| o <= i).unwrap_or(0);
        return format!("hand.{}.{}", role(r), i - HAND_OFFSETS[r] + 1);
    }
    let i = index - WAZIR;
    let (block, i) = (i / WAZIR_BLOCK, i % WAZIR_BLOCK);
    let when = if block == 0 { "tomove" } else { "waiting" };
    let what = match i {
        ESCAPES..BLOCKED => format!("escapes.{}", i - ESCAPES),
        BLOCKED..RING_ATTACKED => format!("blocked.{}", i - BLOCKED),
        RING_ATTACKED..RING_ATTACKERS => format!("ring_attacked.{}", i - RING_ATTACKED),
        RING_ATTACKERS..THREATS => format!("ring_attackers.{}", role(i - RING_ATTACKERS)),
        THREATS..DROP_CHECK => format!("threats.{}", role(i - THREATS)),
        DROP_CHECK..DROP_ESCAPE => format!("drop_check.{}", role(i - DROP_CHECK)),
        DROP_ESCAPE..DEFENDERS => format!("drop_escape.{}", role(i - DROP_ESCAPE)),
        DEFENDERS => "defenders".to_string(),
        _ => "cornered_hand".to_string(),
    };
    format!("wazir.{when}.{what}")
}

/// The normalized squares by name, in index order.
pub const SQUARE_NAMES: [&str; NORMALIZED_SQUARES] = ["a1", "a2", "a3", "a4", "b2", "b3", "b4", "c3", "c4", "d4"];

/// Collects the features of a position as `own - enemy` for the side to
/// move: the vector the evaluation is a dot product with (tempo aside).
#[derive(Clone, Debug)]
pub struct Difference {
    /// Feature values, [`FEATURES`] of them.
    pub values: Vec<f32>,
    sign: f32,
}

impl Sink for Difference {
    #[inline]
    fn add(&mut self, index: usize, value: i32) {
        if let Some(v) = self.values.get_mut(index) {
            *v += self.sign * value as f32;
        }
    }
}

/// The feature difference `own - enemy` for the side to move of `pos`.
pub fn difference(pos: &Position, set: FeatureSet) -> Vec<f32> {
    let mut diff = Difference {
        values: vec![0.0; FEATURES],
        sign: 1.0,
    };
    side_features(pos, pos.turn(), set, &mut diff);
    diff.sign = -1.0;
    side_features(pos, !pos.turn(), set, &mut diff);
    diff.values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_squares_follow_the_symmetry() {
        let name = |i: usize| Square::ALL[i].to_string();
        for (i, expected) in SQUARE_NAMES.iter().enumerate() {
            let sq = Square::parse(expected.as_bytes()).map(|s| s.index()).unwrap_or(64);
            assert_eq!(NORMALIZED[sq] as usize, i, "{}", name(sq));
        }
        for sq in Square::ALL {
            let (r, c) = (sq.row() as i32, sq.col() as i32);
            for (r2, c2) in [(7 - r, c), (r, 7 - c), (c, r), (7 - c, 7 - r)] {
                let other = Square::from_coords(r2, c2).map(|s| s.index()).unwrap_or(64);
                assert_eq!(NORMALIZED[sq.index()], NORMALIZED[other]);
            }
        }
        let mut seen = [0; NORMALIZED_SQUARES];
        for n in NORMALIZED {
            seen[n as usize] += 1;
        }
        assert_eq!(seen, [4, 8, 8, 8, 4, 8, 8, 4, 8, 4]);
    }

    #[test]
    fn feature_names_are_distinct() {
        let names: std::collections::HashSet<String> = (0..FEATURES).map(feature_name).collect();
        assert_eq!(names.len(), FEATURES);
        assert_eq!(feature_name(HAND), "hand.alfil.1");
        assert_eq!(feature_name(WAZIR - 1), "hand.knight.2");
    }
}
