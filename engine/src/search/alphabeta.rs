//! The tree search proper: principal variation search with a transposition
//! table, futility pruning at the last ply, and a quiescence search over
//! captures. Scores follow [`super::score`].
//!
//! The rules have no check, so the search supplies the two facts that make
//! the wazir special: a side that can capture the enemy wazir wins at once
//! (no need to search further), and a side whose wazir is attacked only
//! looks at moves that save it, since every other move loses it on the next
//! ply. Leapers cannot be blocked, so those moves are few.

use super::eval::Evaluator;
use super::ordering::{Heuristics, MAX_SEARCH_PLY, Picker, attacks_after, evasions, is_capture};
use super::params::Params;
use super::score::{INFINITY, loss_at, win_at};
use super::tt::{Bound, Table};
use crate::rules::{Color, MAX_PLY, Move, MoveList, Outcome, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A principal variation: the moves of the best line found below a node.
/// A fixed array, so that the search never allocates.
#[derive(Clone, Debug)]
pub struct Line {
    moves: [Move; MAX_SEARCH_PLY],
    len: usize,
}

impl Default for Line {
    fn default() -> Line {
        Line {
            moves: [Move::Drop {
                role: crate::rules::Role::Alfil,
                to: crate::rules::Square::ALL[0],
            }; MAX_SEARCH_PLY],
            len: 0,
        }
    }
}

impl Line {
    fn clear(&mut self) {
        self.len = 0;
    }

    fn set(&mut self, first: Move, rest: &Line) {
        let n = rest.len.min(MAX_SEARCH_PLY - 1);
        self.moves[0] = first;
        self.moves[1..=n].copy_from_slice(&rest.moves[..n]);
        self.len = n + 1;
    }

    /// The moves, first to last.
    pub fn moves(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

/// The hash key of a position in the table: the position's hash with its
/// ply mixed in, since the same board is a different position closer to
/// the ply limit.
#[inline]
pub fn table_key(pos: &Position) -> u64 {
    pos.hash() ^ (pos.ply() as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The score of a finished game for the side to move, `ply` plies below
/// the root.
pub fn terminal_score(outcome: Outcome, turn: Color, ply: i32) -> i32 {
    match outcome.winner {
        None => 0,
        Some(winner) if winner == turn => win_at(ply),
        Some(_) => loss_at(ply),
    }
}

/// Whether the side to move's wazir is attacked while the game goes on
/// after its move (on ply 101 the last move draws whatever it leaves).
#[inline]
fn wazir_attack(pos: &Position) -> Option<(crate::rules::Square, crate::rules::Bitboard)> {
    if pos.ply() + 1 >= MAX_PLY {
        return None;
    }
    let wazir = pos.wazir(pos.turn())?;
    let attackers = pos.attackers(wazir, !pos.turn());
    attackers.is_nonempty().then_some((wazir, attackers))
}

/// Whether the side to move can capture the enemy wazir now.
#[inline]
pub fn can_capture_wazir(pos: &Position) -> Option<Move> {
    let target = pos.wazir(!pos.turn())?;
    let from = pos.attackers(target, pos.turn()).first()?;
    Some(Move::Jump { from, to: target })
}

/// The limits one search runs under, already resolved to nodes and times.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    /// When the search started.
    pub start: Instant,
    /// Stop at once after this long (if any).
    pub hard: Option<Duration>,
    /// Stop at this many nodes.
    pub nodes: u64,
}

/// One search's state: borrowed tables and counters.
pub struct Context<'a, E: Evaluator> {
    pub(super) tt: &'a mut Table,
    pub(super) eval: &'a E,
    pub(super) heur: &'a mut Heuristics,
    pub(super) params: &'a Params,
    pub(super) stop: &'a AtomicBool,
    pub(super) pondering: &'a AtomicBool,
    pub(super) deadline: Deadline,
    pub(super) nodes: u64,
    pub(super) seldepth: i32,
    pub(super) stopped: bool,
}

impl<E: Evaluator> std::fmt::Debug for Context<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("nodes", &self.nodes)
            .field("seldepth", &self.seldepth)
            .field("stopped", &self.stopped)
            .finish()
    }
}

impl<E: Evaluator> Context<'_, E> {
    /// Counts a node and decides whether the search must stop: the stop
    /// flag (every node), the node limit, the hard time limit (every 256
    /// nodes, and never while pondering).
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.stopped {
            return true;
        }
        if self.stop.load(Ordering::Relaxed) || self.nodes >= self.deadline.nodes {
            self.stopped = true;
        } else if self.nodes & 255 == 0
            && let Some(hard) = self.deadline.hard
            && !self.pondering.load(Ordering::Relaxed)
            && self.deadline.start.elapsed() >= hard
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Searches the children of the root in `order` (the first is searched
    /// with the full window) to `depth`. Returns the best score and the
    /// index of the best move in `order`, or `None` if stopped before any
    /// move was fully searched.
    pub(super) fn root(
        &mut self,
        pos: &Position,
        order: &[Move],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        pv: &mut Line,
    ) -> (i32, Option<usize>) {
        self.nodes += 1;
        let mut best = -INFINITY;
        let mut best_index = None;
        let mut child_pv = Line::default();
        for (i, &mv) in order.iter().enumerate() {
            let child = pos.after(mv);
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, 1, &mut child_pv)
            } else {
                let s = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, 1, &mut child_pv);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child, depth - 1, -beta, -alpha, 1, &mut child_pv)
                } else {
                    s
                }
            };
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                if score > alpha || best_index.is_none() {
                    best_index = Some(i);
                    pv.set(mv, &child_pv);
                }
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_index)
    }

    /// Negamax with principal variation search below the root.
    pub(super) fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: i32,
        pv: &mut Line,
    ) -> i32 {
        pv.clear();
        if let Some(outcome) = pos.terminal() {
            self.nodes += 1;
            return terminal_score(outcome, pos.turn(), ply);
        }
        if can_capture_wazir(pos).is_some() {
            self.nodes += 1;
            return win_at(ply + 1);
        }
        if depth <= 0 {
            return self.quiescence(pos, alpha, beta, ply);
        }
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply as usize >= MAX_SEARCH_PLY {
            return self.eval.evaluate(pos);
        }
        // Mate distance: nothing here beats a capture on the next ply or
        // loses faster than now.
        alpha = alpha.max(loss_at(ply));
        beta = beta.min(win_at(ply + 1));
        if alpha >= beta {
            return alpha;
        }
        let pv_node = beta - alpha > 1;
        let key = table_key(pos);
        let hit = self.tt.probe(key);
        if let Some(h) = hit
            && !pv_node
            && h.depth >= depth
        {
            let score = super::score::from_table(h.score, ply);
            let cut = match h.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if cut {
                return score;
            }
        }
        let tt_move = hit.and_then(|h| h.mv);
        let attack = wazir_attack(pos);
        let mut list = MoveList::new();
        match attack {
            Some((wazir, attackers)) => evasions(pos, wazir, attackers, &mut list),
            None => pos.legal_moves(&mut list),
        }
        if list.is_empty() {
            // Without a saving move the wazir falls next ply; without any
            // move the side to move loses now.
            return if attack.is_some() && pos.count_moves() > 0 {
                loss_at(ply + 2)
            } else {
                loss_at(ply)
            };
        }
        let static_eval = if attack.is_some() {
            -INFINITY
        } else {
            self.eval.evaluate(pos)
        };
        let futile = depth == 1 && attack.is_none() && !pv_node && static_eval + self.params.futility_margin <= alpha;
        let their_wazir = pos.wazir(!pos.turn());
        let alpha_start = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried = [None::<Move>; 64];
        let mut quiet_count = 0;
        let mut child_pv = Line::default();
        let picker = Picker::new(pos, list, tt_move, self.heur, ply as usize, self.eval);
        for (searched, mv) in picker.enumerate() {
            let capture = is_capture(pos, mv);
            if futile && !capture && best_move.is_some() && !attacks_after(pos, mv, their_wazir) {
                continue;
            }
            let child = pos.after(mv);
            let score = if searched == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, &mut child_pv)
            } else {
                let s = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1, &mut child_pv);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, &mut child_pv)
                } else {
                    s
                }
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    pv.set(mv, &child_pv);
                    if score >= beta {
                        if !capture {
                            let tried = quiets_tried[..quiet_count].iter().flatten().copied();
                            self.heur.reward(pos.turn(), ply as usize, depth, mv, tried);
                        }
                        break;
                    }
                }
            }
            if !capture && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = Some(mv);
                quiet_count += 1;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_start {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, super::score::to_table(best, ply), depth, bound);
        best
    }

    /// Quiescence search: captures only after the side to move may stand
    /// pat, or every saving move when its wazir is attacked.
    fn quiescence(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(outcome) = pos.terminal() {
            return terminal_score(outcome, pos.turn(), ply);
        }
        if can_capture_wazir(pos).is_some() {
            return win_at(ply + 1);
        }
        if ply as usize >= MAX_SEARCH_PLY {
            return self.eval.evaluate(pos);
        }
        let attack = wazir_attack(pos);
        let mut list = MoveList::new();
        let mut best;
        match attack {
            Some((wazir, attackers)) => {
                evasions(pos, wazir, attackers, &mut list);
                if list.is_empty() {
                    return if pos.count_moves() > 0 {
                        loss_at(ply + 2)
                    } else {
                        loss_at(ply)
                    };
                }
                best = -INFINITY;
            }
            None => {
                best = self.eval.evaluate(pos);
                if best >= beta {
                    return best;
                }
                alpha = alpha.max(best);
                pos.captures(&mut list);
            }
        }
        for mv in Picker::captures(pos, list, self.eval) {
            let score = -self.quiescence(&pos.after(mv), -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
