//! Correction history: what one thread's search has learned about its
//! static evaluation's errors, by each side's arrangement of pieces.
//!
//! After a node's search, the gap between the score it found and its
//! static evaluation is folded into two running averages, one kept by
//! the side to move's own pieces and hand ([`Position::side_hash`]), one
//! by the other side's, and their mean is added to the static evaluation
//! of every later node with the same arrangement. So an evaluation that
//! misjudges an arrangement (the network reads a wazir as safe that drops
//! will reach) is set right for the pruning tests and the stand pat in the
//! rest of the search, and in the game's next searches: the other side's
//! moves leave one side's hash alone, so what was learned in one subtree
//! applies across them. Only gaps the search settles are learned: not in
//! a node whose wazir is attacked (it has no static evaluation), nor when
//! a capture was best (the quiescence search judges those), nor from a
//! bound on the wrong side of the evaluation.

use crate::rules::Position;

/// Entries per side to move and per table (a power of two).
const SIZE: usize = 1 << 14;

/// Weights are in 1/`GRAIN` of the gap.
const GRAIN: i32 = 256;

/// The most weight one update has: the running average forgets slowly.
const MAX_WEIGHT: i32 = 64;

/// The correction history of one thread: two tables by side to move,
/// each a running average of (score - static evaluation), in the
/// evaluation's unit.
#[derive(Clone, Debug)]
pub struct Correction {
    /// `[side to move][0: own pieces, 1: the other side's][entry]`,
    /// flattened.
    entries: Vec<i16>,
}

impl Default for Correction {
    fn default() -> Correction {
        Correction {
            entries: vec![0; 2 * 2 * SIZE],
        }
    }
}

impl Correction {
    /// The indices of `pos`'s two entries.
    #[inline]
    fn slots(pos: &Position) -> [usize; 2] {
        let us = pos.turn();
        let base = us.index() * 2 * SIZE;
        [
            base + (pos.side_hash(us) as usize & (SIZE - 1)),
            base + SIZE + (pos.side_hash(!us) as usize & (SIZE - 1)),
        ]
    }

    /// What to add to `pos`'s static evaluation: the mean of its two
    /// entries, times `permille` / 1000.
    #[inline]
    pub fn of(&self, pos: &Position, permille: i32) -> i32 {
        let [own, theirs] = Correction::slots(pos);
        let sum = i32::from(self.entries[own]) + i32::from(self.entries[theirs]);
        sum * permille / 2000
    }

    /// Folds the gap `score - raw_eval` (the evaluation before any
    /// correction), at most `limit` either way, into `pos`'s entries with
    /// a weight that grows with the search's `depth`.
    #[inline]
    pub fn update(&mut self, pos: &Position, raw_eval: i32, score: i32, depth: i32, limit: i32) {
        let limit = limit.clamp(0, i32::from(i16::MAX));
        let gap = score.saturating_sub(raw_eval).clamp(-limit, limit);
        let weight = (depth + 1).saturating_mul(depth + 1).clamp(1, MAX_WEIGHT);
        for slot in Correction::slots(pos) {
            let old = i32::from(self.entries[slot]);
            let new = (old * (GRAIN - weight) + gap * weight) / GRAIN;
            self.entries[slot] = new.clamp(-limit, limit) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Red (upper case) to move, with its wazir on `red` and Blue's on
    /// `blue` (rank 5 and rank 1 squares as board columns); the rest of
    /// the pieces in hands.
    fn position(blue_file: usize, red_file: usize) -> Position {
        let rank = |file: usize, piece: char| {
            let mut text = String::new();
            if file > 0 {
                text.push_str(&file.to_string());
            }
            text.push(piece);
            if file < 7 {
                text.push_str(&(7 - file).to_string());
            }
            text
        };
        let fen = format!(
            "8/8/8/{}/8/8/8/{} D{}{}ffffnn r 40",
            rank(blue_file, 'w'),
            rank(red_file, 'W'),
            "a".repeat(16),
            "d".repeat(7)
        );
        Position::from_fen(&fen).unwrap()
    }

    #[test]
    fn learns_the_gap_and_stays_within_the_limit() {
        let pos = position(4, 0);
        let mut c = Correction::default();
        assert_eq!(c.of(&pos, 1000), 0);
        for _ in 0..200 {
            c.update(&pos, 1_000, 3_000, 10, 5_000);
        }
        // Both entries near the gap of 2,000 (integer rounding stops a
        // running average a little short), and their mean is what is
        // added, scaled by the permille.
        let learned = c.of(&pos, 1000);
        assert!((1_950..=2_000).contains(&learned), "{learned}");
        assert_eq!(c.of(&pos, 500), learned / 2);
        for _ in 0..200 {
            c.update(&pos, 0, -900_000, 10, 5_000);
        }
        // The gap is cut to the limit, and so is every entry.
        let limited = c.of(&pos, 1000);
        assert!((-5_000..=-4_950).contains(&limited), "{limited}");
    }

    #[test]
    fn each_side_arrangement_carries_its_half() {
        let pos = position(4, 0);
        let mut c = Correction::default();
        for _ in 0..200 {
            c.update(&pos, 0, 4_000, 8, 5_000);
        }
        let learned = c.of(&pos, 1000);
        assert!(learned > 3_900, "{learned}");
        // Blue's wazir elsewhere: Red's own entry alone carries; Red's
        // elsewhere: Blue's alone; both: nothing.
        let half = learned / 2;
        assert!((half - 1..=half + 1).contains(&c.of(&position(5, 0), 1000)));
        assert!((half - 1..=half + 1).contains(&c.of(&position(4, 1), 1000)));
        assert_eq!(c.of(&position(5, 1), 1000), 0);
        // The tables are kept by side to move: Blue to move in Red's
        // arrangement has learned nothing.
        assert_eq!(c.of(&pos.null_move(), 1000), 0);
    }
}
