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

use crate::rules::{Bitboard, Position, Role, mix_key, random_keys};

/// Entries per side to move and per table (a power of two).
const SIZE: usize = 1 << 14;

/// Weights are in 1/`GRAIN` of the gap.
const GRAIN: i32 = 256;

/// The most weight one update has: the running average forgets slowly.
const MAX_WEIGHT: i32 = 64;

/// The weight of each side's table in the mean; the zone table's is
/// `CorrectionZoneWeight` on the same scale.
const SIDE_WEIGHT: i64 = 1000;

/// The squares within two steps (king's distance) of each square, itself
/// left out: the wazir's zone.
static ZONES: [Bitboard; 64] = {
    let mut zones = [Bitboard::EMPTY; 64];
    let mut i: usize = 0;
    while i < 64 {
        let (row, col) = ((i / 8) as i32, (i % 8) as i32);
        let mut bits = 0u64;
        let mut j: usize = 0;
        while j < 64 {
            let (r, c) = ((j / 8) as i32, (j % 8) as i32);
            if j != i && (r - row).abs() <= 2 && (c - col).abs() <= 2 {
                bits |= 1u64 << j;
            }
            j += 1;
        }
        zones[i] = Bitboard(bits);
        i += 1;
    }
    zones
};

/// Keys of the zone's contents, `[(owner (0: the wazir's side) * 5 +
/// role) * 25 + offset from the wazir (row-major over the 5 x 5 box)]`,
/// then one per distance class of the wazir from the edges (so a wazir on
/// the edge, whose zone is cut, differs from one in the open).
static ZONE_KEYS: [u64; 2 * 5 * 25 + 9] = random_keys(0x0c0f_fee0_5a1e_2026);

/// The hash of what stands within two steps of the side to move's wazir
/// (each piece by its owner, role and place relative to the wazir), of how
/// near the edges the wazir stands, and of the other side's hand, whose
/// drops are what reaches a wazir unseen.
fn zone_key(pos: &Position) -> u64 {
    let us = pos.turn();
    let Some(wazir) = pos.wazir(us) else {
        return 0;
    };
    let (row, col) = (i32::from(wazir.row()), i32::from(wazir.col()));
    let edge = |x: i32| x.min(7 - x).min(2) as usize;
    let mut key = ZONE_KEYS[2 * 5 * 25 + edge(row) * 3 + edge(col)];
    for sq in ZONES[wazir.index()] & pos.occupied() {
        if let Some(piece) = pos.piece_at(sq) {
            let owner = usize::from(piece.color != us);
            let offset = (i32::from(sq.row()) - row + 2) * 5 + (i32::from(sq.col()) - col + 2);
            key ^= ZONE_KEYS[(owner * 5 + piece.role.index()) * 25 + offset as usize];
        }
    }
    let hand = pos.hand(!us);
    let packed = Role::DROPPABLE
        .iter()
        .fold(0u64, |acc, &role| acc << 5 | u64::from(hand.count(role)));
    key ^ mix_key(packed)
}

/// Where one node's corrections are kept: its entries in each table.
#[derive(Clone, Copy, Debug)]
pub struct Slots {
    own: usize,
    theirs: usize,
    /// With a zone weight above zero.
    zone: Option<usize>,
}

/// The correction history of one thread: by side to move, a table kept
/// by the side to move's pieces and hand, one by the other side's, and
/// (when its weight is above zero) one by the side to move's wazir zone;
/// each a running average of (score - static evaluation), in the
/// evaluation's unit.
#[derive(Clone, Debug)]
pub struct Correction {
    /// `[side to move][0: own pieces, 1: the other side's, 2: the
    /// wazir's zone][entry]`, flattened.
    entries: Vec<i16>,
}

impl Default for Correction {
    fn default() -> Correction {
        Correction {
            entries: vec![0; 2 * 3 * SIZE],
        }
    }
}

impl Correction {
    /// The entries of `pos` (its side to move's wazir not attacked), with
    /// the zone's when `zone` is true.
    #[inline]
    pub fn slots(pos: &Position, zone: bool) -> Slots {
        let us = pos.turn();
        let base = us.index() * 3 * SIZE;
        Slots {
            own: base + (pos.side_hash(us) as usize & (SIZE - 1)),
            theirs: base + SIZE + (pos.side_hash(!us) as usize & (SIZE - 1)),
            zone: zone.then(|| base + 2 * SIZE + (zone_key(pos) as usize & (SIZE - 1))),
        }
    }

    /// What to add to a static evaluation: the weighted mean of its
    /// entries (each side's table weighs 1000, the zone's `zone_weight`),
    /// times `permille` / 1000.
    #[inline]
    pub fn of(&self, slots: &Slots, permille: i32, zone_weight: i32) -> i32 {
        let entry = |slot: usize| i64::from(self.entries[slot]);
        let mut sum = (entry(slots.own) + entry(slots.theirs)) * SIDE_WEIGHT;
        let mut weight = 2 * SIDE_WEIGHT;
        if let Some(zone) = slots.zone {
            let zone_weight = i64::from(zone_weight.max(0));
            sum += entry(zone) * zone_weight;
            weight += zone_weight;
        }
        (sum * i64::from(permille) / (weight * 1000)) as i32
    }

    /// Folds the gap `score - raw_eval` (the evaluation before any
    /// correction), at most `limit` either way, into the entries of
    /// `slots` with a weight that grows with the search's `depth`.
    #[inline]
    pub fn update(&mut self, slots: &Slots, raw_eval: i32, score: i32, depth: i32, limit: i32) {
        let limit = limit.clamp(0, i32::from(i16::MAX));
        let gap = score.saturating_sub(raw_eval).clamp(-limit, limit);
        let weight = (depth + 1).saturating_mul(depth + 1).clamp(1, MAX_WEIGHT);
        for slot in [Some(slots.own), Some(slots.theirs), slots.zone].into_iter().flatten() {
            let old = i32::from(self.entries[slot]);
            let new = (old * (GRAIN - weight) + gap * weight) / GRAIN;
            self.entries[slot] = new.clamp(-limit, limit) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Red (upper case) to move at ply 40, with Blue's wazir in column
    /// `blue_file` of the board's fourth row and Red's in column
    /// `red_file` of its last row, four rows apart (out of each other's
    /// zone); Red holds a dabbaba, Blue the other pieces.
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

    /// The correction of `pos` with the zone's table at `zone_weight`.
    fn of(c: &Correction, pos: &Position, zone_weight: i32) -> i32 {
        c.of(&Correction::slots(pos, zone_weight > 0), 1000, zone_weight)
    }

    fn learn(c: &mut Correction, pos: &Position, zone: bool, raw: i32, score: i32) {
        for _ in 0..200 {
            c.update(&Correction::slots(pos, zone), raw, score, 10, 5_000);
        }
    }

    #[test]
    fn learns_the_gap_and_stays_within_the_limit() {
        let pos = position(4, 0);
        let mut c = Correction::default();
        assert_eq!(of(&c, &pos, 0), 0);
        learn(&mut c, &pos, false, 1_000, 3_000);
        // Both entries near the gap of 2,000 (integer rounding stops a
        // running average a little short), and their mean is what is
        // added, scaled by the permille.
        let learned = of(&c, &pos, 0);
        assert!((1_950..=2_000).contains(&learned), "{learned}");
        assert_eq!(c.of(&Correction::slots(&pos, false), 500, 0), learned / 2);
        // The gap is cut to the limit, and so is every entry.
        learn(&mut c, &pos, false, 0, -900_000);
        let limited = of(&c, &pos, 0);
        assert!((-5_000..=-4_950).contains(&limited), "{limited}");
    }

    #[test]
    fn each_side_arrangement_carries_its_half() {
        let pos = position(4, 0);
        let mut c = Correction::default();
        learn(&mut c, &pos, false, 0, 4_000);
        let learned = of(&c, &pos, 0);
        assert!(learned > 3_900, "{learned}");
        // Blue's wazir elsewhere: Red's own entry alone carries; Red's
        // elsewhere: Blue's alone; both: nothing.
        let half = learned / 2;
        assert!((half - 1..=half + 1).contains(&of(&c, &position(5, 0), 0)));
        assert!((half - 1..=half + 1).contains(&of(&c, &position(4, 1), 0)));
        assert_eq!(of(&c, &position(5, 1), 0), 0);
        // The tables are kept by side to move: Blue to move in Red's
        // arrangement has learned nothing.
        assert_eq!(of(&c, &pos.null_move(), 0), 0);
    }

    #[test]
    fn the_zone_carries_what_surrounds_the_wazir_wherever_it_stands() {
        // Red's wazir on d- and e- columns of its edge row, Blue's far
        // away on another column: both sides' arrangements differ, the
        // zone (an empty box at the same distance from the edges, and
        // the same Blue hand) does not.
        let (pos, moved) = (position(4, 3), position(5, 4));
        let mut c = Correction::default();
        learn(&mut c, &pos, true, 0, 4_000);
        let learned = of(&c, &pos, 2000);
        assert!(learned > 3_900, "{learned}");
        let zone_only = of(&c, &moved, 2000);
        assert!((learned / 2 - 1..=learned / 2 + 1).contains(&zone_only), "{zone_only}");
        // Without the zone's weight the same history adds nothing there,
        // and a wazir in the corner (another edge class) shares nothing.
        assert_eq!(of(&c, &moved, 0), 0);
        assert_eq!(of(&c, &position(6, 0), 2000), 0);
    }
}
