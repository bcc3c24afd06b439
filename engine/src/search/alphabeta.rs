//! The tree search proper: principal variation search with a transposition
//! table, null-move pruning, futility and reverse futility pruning,
//! late-move reductions and pruning, check extensions, repetition detection
//! and a quiescence search over captures (not those that lose the capturer
//! to a recapture) and, on its first `QsearchCheckPlies` plies, over the
//! quiet moves and drops that attack the enemy wazir from a safe square:
//! the attacks built with drops are what a capture search alone does not
//! see coming. Scores follow [`super::score`].
//!
//! The rules have no check, so the search supplies the two facts that make
//! the wazir special: a side that can capture the enemy wazir wins at once
//! (no need to search further), and a side whose wazir is attacked only
//! looks at moves that save it, since every other move loses it on the next
//! ply. Leapers cannot be blocked, so those moves are few. For the same
//! reason a null move is never tried by a side whose wazir is attacked: the
//! opponent would simply capture it.
//!
//! The pruning tests and the stand pat compare the static evaluation with
//! one threshold each, so they take it as bounds ([`Evaluator::bounds`])
//! and ask for the exact value only when the bounds straddle the
//! threshold: the network then skips its dense layers where its psq sums
//! settle the test (`LazyEval`).
//!
//! Every pruning and extension can be switched off in [`Params`], so that
//! an Elo ladder can measure each one. Six steps are there but off by
//! default, none yet shown to gain: an internal iterative reduction
//! (`InternalReduction`), reductions that follow a quiet move's history
//! (`LmrHistory`), the table in the quiescence search (`QsearchTable`),
//! a ply more for a wazir whose one saving move is a step
//! (`SingleReplyExtension`), no late-move pruning and a ply less
//! reduction for the moves that attack the squares next to the enemy
//! wazir (`SpareWazirNet`), and the static evaluation corrected by the
//! errors the search has found in it (`CorrectionHistory`, see the
//! correction module).

use super::correction::{Correction, Slots};
use super::ordering::{
    Frame, Heuristics, MAX_SEARCH_PLY, Previous, attacks_after, attacks_next_to, is_capture, quiet_checks,
};
use super::params::Params;
use super::score::{INFINITY, MATE_BOUND, is_mate, loss_at, win_at};
use super::tt::{Bound, Hit, Table};
use crate::eval::Evaluator;
use crate::rules::{Bitboard, Color, MAX_PLY, Move, MoveList, Outcome, Position, Role, Square};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
                role: Role::Alfil,
                to: Square::ALL[0],
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
pub(super) fn wazir_attack(pos: &Position) -> Option<(Square, Bitboard)> {
    if pos.ply() + 1 >= MAX_PLY {
        return None;
    }
    let wazir = pos.wazir(pos.turn())?;
    let attackers = pos.attackers(wazir, !pos.turn());
    attackers.is_nonempty().then_some((wazir, attackers))
}

/// Whether a check (`mv`, which attacks the enemy wazir) is searched a
/// ply deeper, given that `CheckExtension` is on: always, or with
/// `SafeCheckExtension` only when no enemy piece attacks the square it
/// lands on. A side with pieces in hand has checks by drops on many
/// squares, and extending every one lets a chain of them (each reply an
/// evasion, each evasion met by a new drop) keep the depth from falling.
#[inline]
pub(super) fn extends_check(params: &Params, pos: &Position, mv: Move) -> bool {
    !params.safe_check_extension || pos.attackers(mv.to(), !pos.turn()).is_empty()
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

/// Late-move reductions by remaining depth and move number, in plies.
pub(super) type LmrTable = [[u8; 64]; 64];

/// The reduction table from the tunables: `base + ln(depth) ln(moves) /
/// divisor`.
pub(super) fn lmr_table(params: &Params) -> Box<LmrTable> {
    let mut table = Box::new([[0u8; 64]; 64]);
    let base = f64::from(params.lmr_base) / 100.0;
    let divisor = f64::from(params.lmr_divisor.max(1)) / 100.0;
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (moves, r) in row.iter_mut().enumerate().skip(1) {
            let value = base + (depth as f64).ln() * (moves as f64).ln() / divisor;
            *r = value.clamp(0.0, 32.0) as u8;
        }
    }
    table
}

/// One thread's search state: borrowed tables, its own move stacks, and
/// counters.
pub struct Context<'a, E: Evaluator> {
    pub(super) tt: &'a Table,
    pub(super) eval: &'a mut E,
    pub(super) heur: &'a mut Heuristics,
    pub(super) params: &'a Params,
    pub(super) stop: &'a AtomicBool,
    pub(super) pondering: &'a AtomicBool,
    pub(super) deadline: Deadline,
    pub(super) nodes: u64,
    pub(super) seldepth: i32,
    pub(super) stopped: bool,
    /// Where helper threads add their node counts (every 1024 nodes).
    pub(super) shared_nodes: Option<&'a AtomicU64>,
    /// Nodes already added to `shared_nodes`.
    reported: u64,
    /// The node count at which the clock is next looked at.
    next_check: u64,
    frames: Vec<Frame>,
    /// The move made at each ply of the current path (`None`: a null
    /// move), for the continuation history.
    path: Vec<Option<Move>>,
    pvs: Vec<Line>,
    values: [i32; 5],
    lmr: Box<LmrTable>,
    /// Hashes of the game's positions before the root, then of the path
    /// from the root (`keys[base + ply]`), for repetitions.
    keys: Vec<u64>,
    base: usize,
    /// Repetitions are looked for at indices from here on (a null move
    /// cuts the path).
    floor: usize,
    root_color: Color,
    root_depth: i32,
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

/// What a [`Context`] is made of.
pub(super) struct Setting<'a, E: Evaluator> {
    pub tt: &'a Table,
    pub eval: &'a mut E,
    pub heur: &'a mut Heuristics,
    pub params: &'a Params,
    pub stop: &'a AtomicBool,
    pub pondering: &'a AtomicBool,
    pub deadline: Deadline,
    pub shared_nodes: Option<&'a AtomicU64>,
    /// Hashes of the game's positions before the root, oldest first.
    pub history: &'a [u64],
    pub root: &'a Position,
}

impl<'a, E: Evaluator> Context<'a, E> {
    pub(super) fn new(s: Setting<'a, E>) -> Context<'a, E> {
        let values = Role::ALL.map(|role| s.eval.piece_value(role));
        let mut keys = Vec::with_capacity(s.history.len() + MAX_SEARCH_PLY + 2);
        keys.extend_from_slice(s.history);
        let base = keys.len();
        keys.resize(base + MAX_SEARCH_PLY + 2, 0);
        keys[base] = s.root.hash();
        Context {
            tt: s.tt,
            eval: s.eval,
            heur: s.heur,
            params: s.params,
            stop: s.stop,
            pondering: s.pondering,
            deadline: s.deadline,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            shared_nodes: s.shared_nodes,
            reported: 0,
            next_check: 1024,
            frames: Frame::stack(),
            path: vec![None; MAX_SEARCH_PLY + 2],
            pvs: vec![Line::default(); MAX_SEARCH_PLY + 2],
            values,
            lmr: lmr_table(s.params),
            keys,
            base,
            floor: 0,
            root_color: s.root.turn(),
            root_depth: 1,
        }
    }

    /// The principal variation of the last root search.
    pub(super) fn root_pv(&self) -> &[Move] {
        self.pvs[0].moves()
    }

    /// Counts a node and decides whether the search must stop: the stop
    /// flag (every node), the node limit, the hard time limit (every 1024
    /// nodes, and never while pondering).
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.stopped {
            return true;
        }
        if self.stop.load(Ordering::Relaxed) || self.nodes >= self.deadline.nodes {
            self.stopped = true;
        } else if self.nodes >= self.next_check {
            // Other paths count nodes too, so the check runs on a counter
            // of its own rather than on multiples of 1024.
            if let Some(shared) = self.shared_nodes {
                shared.fetch_add(self.nodes - self.reported, Ordering::Relaxed);
                self.reported = self.nodes;
            }
            self.next_check = self.nodes + 1024;
            if let Some(hard) = self.deadline.hard
                && !self.pondering.load(Ordering::Relaxed)
                && self.deadline.start.elapsed() >= hard
            {
                self.stopped = true;
            }
        }
        self.stopped
    }

    #[inline]
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pvs.split_at_mut(ply + 1);
        if let (Some(line), Some(rest)) = (head.last_mut(), tail.first()) {
            line.set(mv, rest);
        }
    }

    /// Whether the position at `ply` (its hash already in `keys`) occurred
    /// before, in the game or on the path, with the same side to move.
    #[inline]
    fn is_repetition(&self, ply: usize) -> bool {
        let here = self.base + ply;
        let hash = self.keys[here];
        let mut i = here;
        while i >= self.floor + 2 {
            i -= 2;
            if self.keys[i] == hash {
                return true;
            }
        }
        false
    }

    /// The score of a repetition for the side to move: a draw, which the
    /// engine's own side likes `Optimism` less than the opponent does.
    #[inline]
    fn draw_score(&self, pos: &Position) -> i32 {
        if pos.turn() == self.root_color {
            -self.params.optimism
        } else {
            self.params.optimism
        }
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
    ) -> (i32, Option<usize>) {
        self.nodes += 1;
        self.root_depth = depth;
        self.keys[self.base] = pos.hash();
        let mut best = -INFINITY;
        let mut best_index = None;
        let their_wazir = pos.wazir(!pos.turn());
        self.eval.begin(pos);
        for (i, &mv) in order.iter().enumerate() {
            let child = pos.after(mv);
            self.path[0] = Some(mv);
            self.eval.push(pos, mv, &child);
            let extend = self.params.check_extension
                && attacks_after(pos, mv, their_wazir)
                && extends_check(self.params, pos, mv);
            let new_depth = depth - 1 + i32::from(extend);
            let score = if i == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, 1, true)
            } else {
                let s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, 1, true);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child, new_depth, -beta, -alpha, 1, true)
                } else {
                    s
                }
            };
            self.eval.pop();
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                if score > alpha || best_index.is_none() {
                    best_index = Some(i);
                    self.update_pv(0, mv);
                }
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.eval.end();
        (best, best_index)
    }

    /// Negamax with principal variation search below the root. `null_ok`
    /// is false right after a null move (two in a row prove nothing).
    pub(super) fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        self.pvs[ply].clear();
        let iply = ply as i32;
        if let Some(outcome) = pos.terminal() {
            self.nodes += 1;
            return terminal_score(outcome, pos.turn(), iply);
        }
        if can_capture_wazir(pos).is_some() {
            self.nodes += 1;
            return win_at(iply + 1);
        }
        self.keys[self.base + ply] = pos.hash();
        if self.params.repetition && self.is_repetition(ply) {
            self.nodes += 1;
            return self.draw_score(pos);
        }
        if depth <= 0 {
            let checks = if self.params.qsearch_checks {
                self.params.qsearch_check_plies
            } else {
                0
            };
            return self.quiescence(pos, alpha, beta, ply, checks);
        }
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(iply);
        if ply >= MAX_SEARCH_PLY - 1 {
            return self.eval.evaluate(pos);
        }
        // Mate distance: nothing here beats a capture on the next ply or
        // loses faster than now.
        alpha = alpha.max(loss_at(iply));
        beta = beta.min(win_at(iply + 1));
        if alpha >= beta {
            return alpha;
        }
        let params = self.params;
        let pv_node = beta - alpha > 1;
        let key = table_key(pos);
        let hit = self.tt.probe(key);
        if let Some(h) = hit
            && !pv_node
            && h.depth >= depth
            && let Some(score) = table_cutoff(h, iply, alpha, beta)
        {
            return score;
        }
        let tt_move = hit.and_then(|h| h.mv);
        if params.internal_reduction && tt_move.is_none() && depth >= params.iir_min_depth {
            depth -= 1;
        }
        let attack = wazir_attack(pos);
        // The static evaluation as bounds, exact unless the evaluator
        // bounds it cheaply (see `at_least`): each pruning test below
        // compares it with one threshold, last in its condition.
        let mut static_eval = if attack.is_some() {
            (-INFINITY, -INFINITY)
        } else if params.lazy_eval {
            self.eval.bounds(pos)
        } else {
            let score = self.eval.evaluate(pos);
            (score, score)
        };
        // With CorrectionHistory, what the search has learned about the
        // evaluation here: `static_eval` stays the raw evaluation, and
        // each test below compares it with its threshold less this.
        let (slots, correction) = if attack.is_none() {
            self.correction_at(pos)
        } else {
            (None, 0)
        };

        if params.reverse_futility
            && !pv_node
            && attack.is_none()
            && depth <= params.reverse_futility_depth
            && !is_mate(beta)
            && self.at_least(
                pos,
                &mut static_eval,
                beta.saturating_add(params.reverse_futility_margin.saturating_mul(depth))
                    .saturating_sub(correction),
            )
        {
            return static_eval.0.saturating_add(correction);
        }

        if params.null_move
            && null_ok
            && !pv_node
            && attack.is_none()
            && depth >= params.null_move_min_depth
            && !is_mate(beta)
            && pos.ply() + 2 < MAX_PLY
            && self.at_least(
                pos,
                &mut static_eval,
                beta.saturating_add(params.null_move_margin).saturating_sub(correction),
            )
        {
            let reduction = params.null_move_reduction + depth / 6;
            let child = pos.null_move();
            self.path[ply] = None;
            let floor = self.floor;
            self.floor = self.base + ply + 1;
            self.eval.push_null();
            let score = -self.negamax(&child, depth - 1 - reduction, -beta, -beta + 1, ply + 1, false);
            self.eval.pop();
            self.floor = floor;
            if self.stopped {
                return 0;
            }
            if score >= beta {
                return if is_mate(score) { beta } else { score };
            }
        }

        let futility_margin = params.futility_margin.saturating_mul(depth);
        let futile = params.futility
            && !pv_node
            && attack.is_none()
            && depth <= params.futility_depth
            && !is_mate(alpha)
            && !self.at_least(
                pos,
                &mut static_eval,
                alpha
                    .saturating_sub(futility_margin)
                    .saturating_add(1)
                    .saturating_sub(correction),
            );
        // At most alpha when futile (the upper bound, if only bounds were needed).
        let futility_bound = static_eval.1.saturating_add(correction).saturating_add(futility_margin);
        let prev = if params.continuation_history {
            Previous::of(pos, self.path[ply - 1])
        } else {
            None
        };
        let killers = if params.killers {
            self.heur.killers(ply)
        } else {
            [None; 2]
        };
        match attack {
            Some((wazir, attackers)) => {
                self.frames[ply].start_evasions(pos, wazir, attackers, tt_move, self.heur, &self.values);
                if self.frames[ply].is_empty() {
                    // Without a saving move the wazir falls next ply; without
                    // any move the side to move loses now.
                    return if pos.count_moves() > 0 {
                        loss_at(iply + 2)
                    } else {
                        loss_at(iply)
                    };
                }
                // A wazir that can only step away is being chased: follow
                // the chase a ply further (within the root depth's plies,
                // where it costs some 18% more nodes; unbounded, 91%).
                if params.single_reply_extension
                    && self.frames[ply]
                        .only_move()
                        .is_some_and(|mv| matches!(mv, Move::Jump { from, .. } if from == wazir))
                    && iply < self.root_depth
                {
                    depth += 1;
                }
            }
            None => self.frames[ply].start(pos, tt_move, killers, futile, prev),
        }
        let us = pos.turn();
        let their_wazir = pos.wazir(!us);
        let alpha_start = alpha;
        let mut best = if futile { futility_bound } else { -INFINITY };
        let mut best_move = None;
        let mut searched = 0usize;
        let extend_ok = params.check_extension && iply < 2 * self.root_depth;
        // Late-move pruning: at a shallow node that is expected to fail
        // low or high anyway, the quiet moves ordered this late (drops
        // make them many) are skipped once a move has saved the game.
        let lmp_count = if params.late_move_pruning && !pv_node && attack.is_none() && depth <= params.lmp_depth {
            usize::try_from(
                params
                    .lmp_base
                    .saturating_add(params.lmp_scale.saturating_mul(depth * depth)),
            )
            .unwrap_or(0)
        } else {
            usize::MAX
        };
        while let Some(mv) = self.frames[ply].next(pos, self.heur, &self.values) {
            let capture = is_capture(pos, mv);
            let check = attacks_after(pos, mv, their_wazir);
            // With SpareWazirNet, the moves that attack the squares next
            // to the enemy wazir (checked only where it matters).
            let net = || params.spare_wazir_net && !capture && attacks_next_to(pos, mv, their_wazir);
            if searched >= lmp_count && !capture && !check && best > -MATE_BOUND && !net() {
                continue;
            }
            let child = pos.after(mv);
            let extend = extend_ok && check && extends_check(params, pos, mv);
            let new_depth = depth - 1 + i32::from(extend);
            if params.prefetch && (new_depth > 0 || params.qsearch_table) {
                self.tt.prefetch(table_key(&child));
            }
            self.path[ply] = Some(mv);
            self.eval.push(pos, mv, &child);
            let score = if searched == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true)
            } else {
                let mut reduction = 0;
                if params.lmr
                    && depth >= params.lmr_min_depth
                    && searched >= params.lmr_start.max(1) as usize
                    && !capture
                    && !check
                    && attack.is_none()
                {
                    let mut r = i32::from(self.lmr[(depth as usize).min(63)][searched.min(63)]) - i32::from(pv_node);
                    if params.lmr_history {
                        r -= self.heur.quiet_score(pos, prev, mv) / params.lmr_history_divisor.max(1);
                    }
                    if net() {
                        r -= 1;
                    }
                    reduction = r.clamp(0, (new_depth - 1).max(0));
                }
                let mut s = -self.negamax(&child, new_depth - reduction, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && reduction > 0 && !self.stopped {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, true);
                }
                if s > alpha && s < beta && !self.stopped {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true);
                }
                s
            };
            self.eval.pop();
            if self.stopped {
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if !capture && params.killers {
                            self.heur
                                .reward(pos, prev, ply, depth, mv, self.frames[ply].quiets_tried());
                        }
                        break;
                    }
                }
            }
            if !capture {
                self.frames[ply].note_quiet(mv);
            }
        }
        if searched == 0 && pos.count_moves() == 0 {
            return loss_at(iply);
        }
        let bound = bound_of(best, alpha_start, beta, best_move.is_some());
        if let Some(slots) = slots
            && !is_mate(best)
            && best_move.is_none_or(|mv| !is_capture(pos, mv))
        {
            // What the search found goes into the history when it says on
            // which side of the corrected evaluation the truth lies.
            let raw = if static_eval.0 == static_eval.1 {
                static_eval.0
            } else {
                self.eval.evaluate(pos)
            };
            if settles(bound, best, raw.saturating_add(correction)) {
                self.heur
                    .correction
                    .update(&slots, raw, best, depth, params.correction_limit);
            }
        }
        self.tt
            .store(key, best_move, super::score::to_table(best, iply), depth, bound);
        best
    }

    /// With `CorrectionHistory`, the correction history's entries for
    /// `pos` (its wazir not attacked) and what they add to its static
    /// evaluation; else nothing and 0.
    #[inline]
    fn correction_at(&self, pos: &Position) -> (Option<Slots>, i32) {
        let params = self.params;
        if !params.correction_history {
            return (None, 0);
        }
        let slots = Correction::slots(pos, params.correction_zone_weight > 0);
        let correction = self
            .heur
            .correction
            .of(&slots, params.correction_permille, params.correction_zone_weight);
        (Some(slots), correction)
    }

    /// Whether the static evaluation, held as `(low, high)` bounds, is at
    /// least `threshold`: settled by the bounds when they lie on one side,
    /// else by the exact evaluation, which then replaces them.
    #[inline]
    fn at_least(&mut self, pos: &Position, eval: &mut (i32, i32), threshold: i32) -> bool {
        if eval.0 >= threshold {
            return true;
        }
        if eval.1 < threshold {
            return false;
        }
        let score = self.eval.evaluate(pos);
        *eval = (score, score);
        score >= threshold
    }

    /// Quiescence search: captures only after the side to move may stand
    /// pat, or every saving move when its wazir is attacked; while `checks`
    /// (its first `QsearchCheckPlies` plies, when `QsearchChecks` is on) is
    /// above zero, then the quiet moves and drops that attack the enemy
    /// wazir from a square the enemy does not attack, whose replies are the
    /// evasions.
    fn quiescence(&mut self, pos: &Position, alpha: i32, beta: i32, ply: usize, checks: i32) -> i32 {
        self.pvs[ply].clear();
        if self.tick() {
            return 0;
        }
        let iply = ply as i32;
        self.seldepth = self.seldepth.max(iply);
        if ply >= MAX_SEARCH_PLY - 1 {
            return self.eval.evaluate(pos);
        }
        if !self.params.qsearch_table {
            return self.quiescence_moves(pos, alpha, beta, ply, checks).0;
        }
        let key = table_key(pos);
        if beta - alpha == 1
            && let Some(hit) = self.tt.probe(key)
            && let Some(score) = table_cutoff(hit, iply, alpha, beta)
        {
            return score;
        }
        let (best, best_move) = self.quiescence_moves(pos, alpha, beta, ply, checks);
        if self.stopped {
            return 0;
        }
        // Without a move above alpha, a best above it is the stand pat:
        // exact all the same.
        let bound = bound_of(best, alpha, beta, true);
        self.tt
            .store(key, best_move, super::score::to_table(best, iply), 0, bound);
        best
    }

    /// The moves of a quiescence node (see `quiescence`): its
    /// score and the move that raised alpha last, if any.
    fn quiescence_moves(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        checks: i32,
    ) -> (i32, Option<Move>) {
        let iply = ply as i32;
        let mut best_move = None;
        let mut best;
        let evading = match wazir_attack(pos) {
            Some((wazir, attackers)) => {
                self.frames[ply].start_evasions(pos, wazir, attackers, None, self.heur, &self.values);
                if self.frames[ply].is_empty() {
                    let score = if pos.count_moves() > 0 {
                        loss_at(iply + 2)
                    } else {
                        loss_at(iply)
                    };
                    return (score, None);
                }
                best = -INFINITY;
                true
            }
            None => {
                let (_, correction) = self.correction_at(pos);
                let raw = if self.params.quiescence && self.params.lazy_eval {
                    self.eval
                        .evaluate_within(pos, alpha.saturating_sub(correction), beta.saturating_sub(correction))
                } else {
                    self.eval.evaluate(pos)
                };
                best = raw.saturating_add(correction);
                if best >= beta || !self.params.quiescence {
                    return (best, None);
                }
                alpha = alpha.max(best);
                self.frames[ply].start_captures(pos, &self.values);
                false
            }
        };
        let them = !pos.turn();
        while let Some(mv) = self.frames[ply].next(pos, self.heur, &self.values) {
            // A capture by a piece worth more than its victim, on a square
            // the other side attacks, loses material to the recapture (a
            // captured piece changes hands, so both count twice): not
            // worth a quiescence search.
            if self.params.qsearch_bad_captures
                && !evading
                && let Move::Jump { from, to } = mv
                && let (Some(attacker), Some(victim)) = (pos.piece_at(from), pos.piece_at(to))
                && self.values[attacker.role.index()] > self.values[victim.role.index()]
                && pos.attackers(to, them).is_nonempty()
            {
                continue;
            }
            let score = self.quiescence_child(pos, mv, alpha, beta, ply, checks);
            if self.stopped {
                return (0, None);
            }
            if raise(&mut best, &mut alpha, &mut best_move, mv, score, beta) {
                return (best, best_move);
            }
        }
        if checks > 0
            && !evading
            && let Some(wazir) = pos.wazir(them)
        {
            let mut list = MoveList::new();
            quiet_checks(pos, wazir, &mut list);
            for &mv in list.iter() {
                let score = self.quiescence_child(pos, mv, alpha, beta, ply, checks);
                if self.stopped {
                    return (0, None);
                }
                if raise(&mut best, &mut alpha, &mut best_move, mv, score, beta) {
                    break;
                }
            }
        }
        (best, best_move)
    }

    /// The score of `mv` in a quiescence search of `pos`, from `pos`'s side;
    /// `checks` is `pos`'s own count of plies with checks.
    #[inline]
    fn quiescence_child(&mut self, pos: &Position, mv: Move, alpha: i32, beta: i32, ply: usize, checks: i32) -> i32 {
        let iply = ply as i32;
        let child = pos.after(mv);
        // The child's own first checks, done here to save a call: a
        // finished game, or a wazir the child's mover captures at once.
        if let Some(outcome) = child.terminal() {
            -terminal_score(outcome, child.turn(), iply + 1)
        } else if can_capture_wazir(&child).is_some() {
            -win_at(iply + 2)
        } else {
            if self.params.qsearch_table && self.params.prefetch {
                self.tt.prefetch(table_key(&child));
            }
            self.eval.push(pos, mv, &child);
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1, (checks - 1).max(0));
            self.eval.pop();
            score
        }
    }
}

/// The score of a table entry `iply` plies below the root, if its bound
/// settles the window (`alpha`, `beta`).
#[inline]
fn table_cutoff(hit: Hit, iply: i32, alpha: i32, beta: i32) -> Option<i32> {
    let score = super::score::from_table(hit.score, iply);
    let cut = match hit.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    cut.then_some(score)
}

/// Whether a node's search result, `best` as a `bound`, tells on which
/// side of the static evaluation `eval` the truth lies: an exact score
/// always, a lower bound above it, an upper bound below it.
#[inline]
fn settles(bound: Bound, best: i32, eval: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => best > eval,
        Bound::Upper => best < eval,
    }
}

/// What a fail-soft search's `best` is for the window (`alpha`, `beta`)
/// it was searched with: exact between them only if `exact_ok` (the
/// main search asks for a best move too).
#[inline]
fn bound_of(best: i32, alpha: i32, beta: i32, exact_ok: bool) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if best > alpha && exact_ok {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// Raises a fail-soft search's `best` and `alpha` to `score`, the score of
/// `mv`, which becomes `best_move` when it raises alpha; whether `score`
/// reaches `beta` (a cut).
#[inline]
fn raise(best: &mut i32, alpha: &mut i32, best_move: &mut Option<Move>, mv: Move, score: i32, beta: i32) -> bool {
    if score > *best {
        *best = score;
        if score > *alpha {
            *alpha = score;
            *best_move = Some(mv);
            return score >= beta;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Red's dabbaba drops that attack Blue's wazir on d5: from f5, which
    /// Blue's alfil on h7 attacks, and from b5, which no blue piece does
    /// (Red's wazir stands on h1, the other pieces are in Blue's hand).
    /// Without `SafeCheckExtension` both are extended; with it (the default)
    /// only b5.
    #[test]
    fn only_checks_from_unattacked_squares_extend_when_safe() {
        let pos = Position::from_fen(&format!(
            "8/8/8/4w3/8/8/8/W5a1 D{}{}ffffnn r 40",
            "a".repeat(15),
            "d".repeat(7)
        ))
        .unwrap();
        let drop = |to: &str| Move::Drop {
            role: Role::Dabbaba,
            to: to.parse().unwrap(),
        };
        let (attacked, free) = (drop("f5"), drop("b5"));
        let wazir = pos.wazir(Color::Blue);
        assert!(attacks_after(&pos, attacked, wazir) && attacks_after(&pos, free, wazir));
        let mut params = Params {
            safe_check_extension: false,
            ..Params::default()
        };
        assert!(extends_check(&params, &pos, attacked) && extends_check(&params, &pos, free));
        params.safe_check_extension = true;
        assert!(!extends_check(&params, &pos, attacked));
        assert!(extends_check(&params, &pos, free));
    }
}
