//! Move ordering: which moves the search tries first, since alpha-beta cuts
//! the most when the best move comes first.
//!
//! Order: the hash move; captures, most valuable victim first and cheapest
//! attacker among equals; the two killer moves of the ply; quiet moves that
//! attack the enemy wazir; other jumps by history; drops (often 60 or more
//! per piece in hand) last, by history. Moves are scored once and picked
//! best first, so a cutoff after the first move costs no sort.

use super::eval::Evaluator;
use crate::rules::{Bitboard, Color, Move, MoveList, Position, Role, Square, leaps};

/// The most plies below the root the search goes (the game itself ends
/// within 100 plies of any root).
pub const MAX_SEARCH_PLY: usize = 128;

const HISTORY_SIZE: usize = 64 * 64 + 5 * 64;
const HISTORY_MAX: i32 = 16_384;

const TT_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 29;
const KILLER: i32 = 1 << 28;
const CHECK: i32 = 1 << 27;
const DROP: i32 = -(1 << 20);

/// What the search learns across nodes about quiet moves: killers (per
/// ply) and history (per side and move).
#[derive(Clone, Debug)]
pub struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<[i32; HISTORY_SIZE]>,
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; MAX_SEARCH_PLY + 2],
            history: vec![[0; HISTORY_SIZE]; 2],
        }
    }
}

fn history_index(mv: Move) -> usize {
    match mv {
        Move::Jump { from, to } => from.index() * 64 + to.index(),
        Move::Drop { role, to } => 64 * 64 + role.index() * 64 + to.index(),
    }
}

impl Heuristics {
    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        *self = Heuristics::default();
    }

    /// Forgets the killers, which belong to one search's plies.
    pub fn new_search(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
    }

    fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers.get(ply).copied().unwrap_or([None; 2])
    }

    fn history(&self, color: Color, mv: Move) -> i32 {
        self.history[color.index()][history_index(mv)]
    }

    /// A quiet move caused a beta cutoff at `ply` after `depth`: make it a
    /// killer, raise its history and lower that of the quiet moves tried
    /// before it.
    pub fn reward(&mut self, color: Color, ply: usize, depth: i32, best: Move, tried: impl IntoIterator<Item = Move>) {
        if let Some(k) = self.killers.get_mut(ply)
            && k[0] != Some(best)
        {
            k[1] = k[0];
            k[0] = Some(best);
        }
        let bonus = (depth * depth).min(HISTORY_MAX / 4);
        let table = &mut self.history[color.index()];
        let mut update = |mv: Move, delta: i32| {
            let h = &mut table[history_index(mv)];
            // Gravity: entries saturate at ±HISTORY_MAX.
            *h += delta - *h * delta.abs() / HISTORY_MAX;
        };
        update(best, bonus);
        for mv in tried.into_iter().filter(|&mv| mv != best) {
            update(mv, -bonus);
        }
    }
}

/// Whether `mv` lands on an enemy piece.
#[inline]
pub fn is_capture(pos: &Position, mv: Move) -> bool {
    matches!(mv, Move::Jump { to, .. } if pos.pieces_of(!pos.turn()).contains(to))
}

/// Whether the piece `mv` moves or drops attacks `target` (the enemy
/// wazir's square) from where it lands.
#[inline]
pub fn attacks_after(pos: &Position, mv: Move, target: Option<Square>) -> bool {
    let Some(target) = target else {
        return false;
    };
    let role = match mv {
        Move::Jump { from, .. } => match pos.piece_at(from) {
            Some(piece) => piece.role,
            None => return false,
        },
        Move::Drop { role, .. } => role,
    };
    leaps(role, mv.to()).contains(target)
}

/// The moves of one node with their ordering scores, handed out best first.
///
/// Each move is kept as one key, score above move code, so that ordering
/// moves is ordering integers. The first few are picked by selection (a
/// cutoff usually comes early); the rest are then sorted once, which keeps
/// nodes with 200 drops from costing a quadratic pick.
pub struct Picker {
    keys: [i64; crate::rules::MAX_MOVES],
    len: usize,
    next: usize,
}

impl std::fmt::Debug for Picker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Picker")
            .field("len", &self.len)
            .field("next", &self.next)
            .finish()
    }
}

/// Picks done by selection before the rest is sorted.
const SELECTION_PICKS: usize = 3;

impl Picker {
    fn from_scores(list: &MoveList, score: impl Fn(Move) -> i32) -> Picker {
        let mut keys = [0i64; crate::rules::MAX_MOVES];
        for (key, &mv) in keys.iter_mut().zip(list.iter()) {
            *key = (i64::from(score(mv)) << 16) | i64::from(mv.to_u16());
        }
        Picker {
            keys,
            len: list.len(),
            next: 0,
        }
    }

    /// Scores the moves of `list` for the side to move of `pos`.
    pub fn new<E: Evaluator>(
        pos: &Position,
        list: MoveList,
        tt_move: Option<Move>,
        heur: &Heuristics,
        ply: usize,
        eval: &E,
    ) -> Picker {
        let us = pos.turn();
        let their_wazir = pos.wazir(!us);
        let killers = heur.killers(ply);
        Picker::from_scores(&list, |mv| {
            if Some(mv) == tt_move {
                TT_MOVE
            } else if let Move::Jump { from, to } = mv
                && let Some(victim) = pos.piece_at(to)
            {
                let attacker = pos.piece_at(from).map_or(Role::Wazir, |p| p.role);
                CAPTURE + eval.piece_value(victim.role) * 8 - eval.piece_value(attacker).min(1 << 20) / 16
            } else if killers[0] == Some(mv) {
                KILLER + 1
            } else if killers[1] == Some(mv) {
                KILLER
            } else {
                let h = heur.history(us, mv);
                if attacks_after(pos, mv, their_wazir) {
                    CHECK + h
                } else if mv.is_drop() {
                    DROP + h
                } else {
                    h
                }
            }
        })
    }

    /// Captures only, most valuable victim first (quiescence search).
    pub fn captures<E: Evaluator>(pos: &Position, list: MoveList, eval: &E) -> Picker {
        Picker::from_scores(&list, |mv| match mv {
            Move::Jump { from, to } => {
                let victim = pos.piece_at(to).map_or(0, |p| eval.piece_value(p.role));
                let attacker = pos.piece_at(from).map_or(0, |p| eval.piece_value(p.role).min(1 << 20));
                victim * 8 - attacker / 16
            }
            Move::Drop { .. } => 0,
        })
    }
}

impl Iterator for Picker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let rest = self.keys.get_mut(self.next..self.len)?;
        if rest.is_empty() {
            return None;
        }
        if self.next < SELECTION_PICKS {
            let best = (0..rest.len()).max_by_key(|&i| rest[i]).unwrap_or(0);
            rest.swap(0, best);
        } else if self.next == SELECTION_PICKS {
            rest.sort_unstable_by(|a, b| b.cmp(a));
        }
        let key = rest[0];
        self.next += 1;
        Move::from_u16(key as u16)
    }
}

/// The moves that do not lose the wazir at once when it is attacked:
/// wazir steps to unattacked squares, and captures of a lone attacker.
/// Leapers cannot be blocked, so nothing else helps.
pub fn evasions(pos: &Position, wazir: Square, attackers: Bitboard, list: &mut MoveList) {
    let us = pos.turn();
    let own = pos.pieces_of(us);
    for to in leaps(Role::Wazir, wazir) & !own {
        if pos.attackers(to, !us).is_empty() {
            list.push(Move::Jump { from: wazir, to });
        }
    }
    if attackers.count() == 1
        && let Some(attacker) = attackers.first()
    {
        for from in pos.attackers(attacker, us) & !Bitboard::from_square(wazir) {
            list.push(Move::Jump { from, to: attacker });
        }
    }
}
