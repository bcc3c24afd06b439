//! Move ordering: which moves the search tries first, since alpha-beta cuts
//! the most when the best move comes first, and generating them in stages
//! so that a node cut by its first move never pays for the rest.
//!
//! Order: the hash move; captures, most valuable victim first and cheapest
//! attacker among equals; the two killer moves of the ply; then quiet moves
//! in bands: those that attack the enemy wazir, those that attack a square
//! next to it, other jumps, other drops (often 60 or more per piece in
//! hand), each band by history plus continuation history (how good the
//! move was as a reply to the move just played). Captures and quiets are
//! generated only when the search gets that far. A node whose wazir is
//! attacked generates its few saving moves (evasions) at once.
//!
//! The move lists live in one [`Frame`] per ply, allocated once per search,
//! so that no node initialises a list of its own. The one exception is
//! [`quiet_checks`], the quiescence search's wazir attacks, built on the
//! stack at the quiescence plies that try checks, by the nodes that get
//! that far.

use super::correction::Correction;
use crate::rules::{Bitboard, Color, MAX_MOVES, Move, MoveList, Piece, Position, Role, Square, leaps};

/// The most plies below the root the search goes (the game itself ends
/// within 100 plies of any root).
pub const MAX_SEARCH_PLY: usize = 128;

const HISTORY_SIZE: usize = 64 * 64 + 5 * 64;
const HISTORY_MAX: i32 = 16_384;
/// A move as the continuation history sees it: the role that lands and
/// its square (a jump and a drop of one role to one square are one).
const PIECE_TO: usize = 5 * 64;

/// Score bands of quiet moves (history stays within ±`HISTORY_MAX`).
const BAND_CHECK: i32 = 3 << 20;
const BAND_ESCAPE: i32 = 2 << 20;
const BAND_JUMP: i32 = 1 << 20;
const BAND_DROP: i32 = 0;
/// Evasion bands: capturing the attacker first.
const EVASION_TT: i32 = 1 << 28;
const EVASION_CAPTURE: i32 = 1 << 26;

/// Quiet moves picked by selection before the rest is sorted.
const SELECTION_PICKS: usize = 3;

/// What the search learns across nodes about quiet moves: killers (per
/// ply), history (per side and move) and continuation history (per side,
/// the move just played by the other side and the reply, each as role and
/// landing square: how good a reply was to that move elsewhere).
#[derive(Clone, Debug)]
pub struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<[i32; HISTORY_SIZE]>,
    continuation: Vec<i32>,
    /// The static evaluation's learned errors (not ordering, but learned
    /// and forgotten with the rest).
    pub correction: Correction,
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; MAX_SEARCH_PLY + 2],
            history: vec![[0; HISTORY_SIZE]; 2],
            continuation: vec![0; 2 * PIECE_TO * PIECE_TO],
            correction: Correction::default(),
        }
    }
}

/// The previous move of a node as the continuation history indexes it:
/// the role now on the square it landed on, and that square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Previous(usize);

impl Previous {
    /// The move that led to `pos`, if it was a move (not a null move).
    #[inline]
    pub fn of(pos: &Position, last: Option<Move>) -> Option<Previous> {
        let to = last?.to();
        let role = pos.piece_at(to)?.role;
        Some(Previous(piece_to(role, to)))
    }
}

/// A role and a landing square as one index below [`PIECE_TO`].
#[inline]
fn piece_to(role: Role, to: Square) -> usize {
    role.index() * 64 + to.index()
}

/// Where the continuation history's row for `color` after `prev` starts:
/// [`PIECE_TO`] entries, one per reply's [`piece_to`].
#[inline]
fn continuation_row(color: Color, prev: Previous) -> usize {
    (color.index() * PIECE_TO + prev.0) * PIECE_TO
}

#[inline]
fn history_index(mv: Move) -> usize {
    match mv {
        Move::Jump { from, to } => from.index() * 64 + to.index(),
        Move::Drop { role, to } => 64 * 64 + piece_to(role, to),
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

    /// The killer moves of `ply`.
    #[inline]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers.get(ply).copied().unwrap_or([None; 2])
    }

    #[inline]
    fn history(&self, color: Color, mv: Move) -> i32 {
        self.history[color.index()][history_index(mv)]
    }

    /// How good the quiet move `mv` of `pos`'s side has been: its history
    /// plus its continuation history after `prev`, within
    /// ±2 x `HISTORY_MAX`.
    #[inline]
    pub fn quiet_score(&self, pos: &Position, prev: Option<Previous>, mv: Move) -> i32 {
        let color = pos.turn();
        let history = self.history(color, mv);
        match (prev, role_of(pos, mv)) {
            (Some(prev), Some(role)) => {
                history + self.continuation[continuation_row(color, prev) + piece_to(role, mv.to())]
            }
            _ => history,
        }
    }

    /// A quiet move caused a beta cutoff at `ply` after `depth`: make it a
    /// killer, raise its history and lower that of the quiet moves tried
    /// before it.
    /// With `prev` (the move before, and the position the moves are made
    /// in), the continuation history is rewarded the same way.
    pub fn reward(
        &mut self,
        pos: &Position,
        prev: Option<Previous>,
        ply: usize,
        depth: i32,
        best: Move,
        tried: &[Move],
    ) {
        let color = pos.turn();
        if let Some(k) = self.killers.get_mut(ply)
            && k[0] != Some(best)
        {
            k[1] = k[0];
            k[0] = Some(best);
        }
        let bonus = (depth * depth).min(HISTORY_MAX / 4);
        let history = &mut self.history[color.index()];
        let continuation = &mut self.continuation;
        let mut update = |mv: Move, delta: i32| {
            gravity(&mut history[history_index(mv)], delta);
            if let (Some(prev), Some(role)) = (prev, role_of(pos, mv)) {
                gravity(
                    &mut continuation[continuation_row(color, prev) + piece_to(role, mv.to())],
                    delta,
                );
            }
        };
        update(best, bonus);
        for &mv in tried.iter().filter(|&&mv| mv != best) {
            update(mv, -bonus);
        }
    }
}

/// Adds `delta` to a history entry with gravity: entries saturate at
/// ±`HISTORY_MAX`.
#[inline]
fn gravity(h: &mut i32, delta: i32) {
    *h += delta - *h * delta.abs() / HISTORY_MAX;
}

/// Whether `mv` lands on an enemy piece.
#[inline]
pub fn is_capture(pos: &Position, mv: Move) -> bool {
    matches!(mv, Move::Jump { to, .. } if pos.pieces_of(!pos.turn()).contains(to))
}

/// The role `mv` moves or drops.
#[inline]
fn role_of(pos: &Position, mv: Move) -> Option<Role> {
    match mv {
        Move::Jump { from, .. } => pos.piece_at(from).map(|p| p.role),
        Move::Drop { role, .. } => Some(role),
    }
}

/// Whether the piece `mv` moves or drops attacks `target` (the enemy
/// wazir's square) from where it lands.
#[inline]
pub fn attacks_after(pos: &Position, mv: Move, target: Option<Square>) -> bool {
    match (target, role_of(pos, mv)) {
        (Some(target), Some(role)) => leaps(role, mv.to()).contains(target),
        _ => false,
    }
}

/// Whether the piece `mv` moves or drops attacks, from where it lands, a
/// square next to `wazir` (the enemy wazir's square): a move that closes
/// the wazir's ways out, as the quiet band `BAND_ESCAPE` orders them.
#[inline]
pub fn attacks_next_to(pos: &Position, mv: Move, wazir: Option<Square>) -> bool {
    match (wazir, role_of(pos, mv)) {
        (Some(wazir), Some(role)) => (leaps(role, mv.to()) & leaps(Role::Wazir, wazir)).is_nonempty(),
        _ => false,
    }
}

/// Whether `mv` is a legal move of the side to move in `pos` (a hash move
/// or a killer found elsewhere may not be).
#[inline]
pub fn is_pseudo_legal(pos: &Position, mv: Move) -> bool {
    let us = pos.turn();
    match mv {
        Move::Jump { from, to } => {
            pos.piece_at(from)
                .is_some_and(|p| p.color == us && leaps(p.role, from).contains(to))
                && !pos.pieces_of(us).contains(to)
        }
        Move::Drop { role, to } => role != Role::Wazir && pos.hand(us).count(role) > 0 && pos.piece_at(to).is_none(),
    }
}

/// A move as a sortable key: its score above its 16-bit code.
#[inline]
fn key(score: i32, mv: Move) -> i64 {
    (i64::from(score) << 16) | i64::from(mv.to_u16())
}

#[inline]
fn key_move(key: i64) -> Option<Move> {
    Move::from_u16(key as u16)
}

/// The value of a capture for ordering: most valuable victim, then least
/// valuable attacker.
#[inline]
fn mvv_lva(values: &[i32; 5], victim: Role, attacker: Role) -> i32 {
    values[victim.index()].min(1 << 20) * 8 - values[attacker.index()].min(1 << 20) / 16
}

/// Where a node's move generation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    TtMove,
    GenCaptures,
    Captures,
    Killer1,
    Killer2,
    GenQuiets,
    Quiets,
    /// Evasions, or quiescence captures: one list, picked best first.
    List,
    Done,
}

/// The moves of one node (one per ply), handed out in stages, best first.
pub struct Frame {
    keys: [i64; MAX_MOVES],
    len: usize,
    next: usize,
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    /// Quiet stage: only moves that attack the enemy wazir (futility).
    checks_only: bool,
    /// The move before, for the continuation history of the quiets.
    prev: Option<Previous>,
    /// Sort the rest of the list once selection has picked a few.
    sort_after_selection: bool,
    /// Quiet moves searched at this node (for the history malus).
    pub quiets: [Move; 64],
    /// How many of `quiets` are filled.
    pub quiet_count: usize,
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("len", &self.len)
            .field("next", &self.next)
            .field("stage", &self.stage)
            .finish()
    }
}

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            keys: [0; MAX_MOVES],
            len: 0,
            next: 0,
            stage: Stage::Done,
            tt_move: None,
            killers: [None; 2],
            checks_only: false,
            prev: None,
            sort_after_selection: false,
            quiets: [Move::Drop {
                role: Role::Alfil,
                to: Square::ALL[0],
            }; 64],
            quiet_count: 0,
        }
    }
}

impl Frame {
    /// One frame per ply a search can reach.
    pub fn stack() -> Vec<Frame> {
        std::iter::repeat_with(Frame::default)
            .take(MAX_SEARCH_PLY + 2)
            .collect()
    }

    fn reset(&mut self, stage: Stage) {
        self.len = 0;
        self.next = 0;
        self.stage = stage;
        self.quiet_count = 0;
        self.tt_move = None;
        self.killers = [None; 2];
        self.checks_only = false;
        self.prev = None;
        self.sort_after_selection = false;
    }

    /// Starts a node whose wazir is safe: hash move, captures, killers,
    /// quiets. With `checks_only`, the quiet stage yields only moves that
    /// attack the enemy wazir. Quiets are ordered by history plus, after
    /// `prev`, continuation history.
    pub fn start(
        &mut self,
        pos: &Position,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        checks_only: bool,
        prev: Option<Previous>,
    ) {
        self.reset(Stage::TtMove);
        self.tt_move = tt_move.filter(|&mv| is_pseudo_legal(pos, mv));
        self.killers = killers;
        self.checks_only = checks_only;
        self.prev = prev;
    }

    /// Starts a node whose wazir on `wazir` is attacked from `attackers`:
    /// only the moves that save it, capturing the attacker first.
    pub fn start_evasions(
        &mut self,
        pos: &Position,
        wazir: Square,
        attackers: Bitboard,
        tt_move: Option<Move>,
        heur: &Heuristics,
        values: &[i32; 5],
    ) {
        self.reset(Stage::List);
        self.sort_after_selection = true;
        let us = pos.turn();
        let own = pos.pieces_of(us);
        let enemy = pos.pieces_of(!us);
        for to in leaps(Role::Wazir, wazir) & !own {
            if pos.attackers(to, !us).is_empty() {
                let mv = Move::Jump { from: wazir, to };
                let score = match pos.piece_at(to) {
                    Some(victim) if enemy.contains(to) => EVASION_CAPTURE + mvv_lva(values, victim.role, Role::Wazir),
                    _ => heur.history(us, mv),
                };
                self.push(mv, score, tt_move);
            }
        }
        if attackers.count() == 1
            && let Some(attacker) = attackers.first()
            && let Some(victim) = pos.piece_at(attacker)
        {
            for from in pos.attackers(attacker, us) & !Bitboard::from_square(wazir) {
                let role = pos.piece_at(from).map_or(Role::Wazir, |p| p.role);
                let mv = Move::Jump { from, to: attacker };
                self.push(mv, EVASION_CAPTURE + mvv_lva(values, victim.role, role), tt_move);
            }
        }
    }

    /// Starts a quiescence node: captures only, best first.
    pub fn start_captures(&mut self, pos: &Position, values: &[i32; 5]) {
        self.reset(Stage::List);
        self.generate_captures(pos, values);
    }

    /// Whether the node has no move at all (only meaningful right after
    /// [`Frame::start_evasions`]).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The node's only move, if it has exactly one (only meaningful right
    /// after [`Frame::start_evasions`]).
    pub fn only_move(&self) -> Option<Move> {
        if self.len == 1 { key_move(self.keys[0]) } else { None }
    }

    #[inline]
    fn push(&mut self, mv: Move, score: i32, tt_move: Option<Move>) {
        if let Some(slot) = self.keys.get_mut(self.len) {
            let score = if Some(mv) == tt_move { EVASION_TT } else { score };
            *slot = key(score, mv);
            self.len += 1;
        }
    }

    fn generate_captures(&mut self, pos: &Position, values: &[i32; 5]) {
        let us = pos.turn();
        let own = pos.pieces_of(us);
        let enemy = pos.pieces_of(!us);
        for role in Role::ALL {
            for from in pos.role_squares(role) & own {
                for to in leaps(role, from) & enemy {
                    let victim = pos.piece_at(to).map_or(Role::Alfil, |p| p.role);
                    let mv = Move::Jump { from, to };
                    if let Some(slot) = self.keys.get_mut(self.len) {
                        *slot = key(mvv_lva(values, victim, role), mv);
                        self.len += 1;
                    }
                }
            }
        }
    }

    fn generate_quiets(&mut self, pos: &Position, heur: &Heuristics) {
        let us = pos.turn();
        let own = pos.pieces_of(us);
        let empty = !pos.occupied();
        let their_wazir = pos.wazir(!us);
        let escapes = their_wazir.map_or(Bitboard::EMPTY, |w| leaps(Role::Wazir, w));
        let history = &heur.history[us.index()];
        // The continuation history's row for the move before (zeros when
        // there is none).
        const NO_ROW: [i32; PIECE_TO] = [0; PIECE_TO];
        let cont: &[i32] = match self.prev {
            Some(prev) => {
                let start = continuation_row(us, prev);
                &heur.continuation[start..start + PIECE_TO]
            }
            None => &NO_ROW,
        };
        let checks_only = self.checks_only;
        // The squares from which each role attacks the enemy wazir.
        let check_squares = |role: Role| their_wazir.map_or(Bitboard::EMPTY, |w| leaps(role, w));
        for role in Role::ALL {
            let checks = check_squares(role);
            let targets_mask = if checks_only { checks & empty } else { empty };
            for from in pos.role_squares(role) & own {
                for to in leaps(role, from) & targets_mask {
                    let mv = Move::Jump { from, to };
                    let band = if checks.contains(to) {
                        BAND_CHECK
                    } else if (leaps(role, to) & escapes).is_nonempty() {
                        BAND_ESCAPE
                    } else {
                        BAND_JUMP
                    };
                    if let Some(slot) = self.keys.get_mut(self.len) {
                        *slot = key(band + history[history_index(mv)] + cont[piece_to(role, to)], mv);
                        self.len += 1;
                    }
                }
            }
        }
        let hand = pos.hand(us);
        for role in Role::DROPPABLE {
            if hand.count(role) == 0 {
                continue;
            }
            let checks = check_squares(role);
            let targets_mask = if checks_only { checks & empty } else { empty };
            for to in targets_mask {
                let mv = Move::Drop { role, to };
                let band = if checks.contains(to) {
                    BAND_CHECK
                } else if (leaps(role, to) & escapes).is_nonempty() {
                    BAND_ESCAPE
                } else {
                    BAND_DROP
                };
                if let Some(slot) = self.keys.get_mut(self.len) {
                    *slot = key(band + history[history_index(mv)] + cont[piece_to(role, to)], mv);
                    self.len += 1;
                }
            }
        }
    }

    /// The best key left in `keys[next..len]`, by selection (or from the
    /// sorted rest once `SELECTION_PICKS` have been picked, if asked).
    #[inline]
    fn pick(&mut self) -> Option<Move> {
        let rest = self.keys.get_mut(self.next..self.len)?;
        if rest.is_empty() {
            return None;
        }
        if !self.sort_after_selection || self.next < SELECTION_PICKS {
            let mut best = 0;
            for i in 1..rest.len() {
                if rest[i] > rest[best] {
                    best = i;
                }
            }
            rest.swap(0, best);
        } else if self.next == SELECTION_PICKS {
            rest.sort_unstable_by(|a, b| b.cmp(a));
        }
        let key = rest[0];
        self.next += 1;
        key_move(key)
    }

    /// The next move to search, or `None` when the node has no more.
    #[inline]
    pub fn next(&mut self, pos: &Position, heur: &Heuristics, values: &[i32; 5]) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenCaptures;
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::GenCaptures => {
                    self.len = 0;
                    self.next = 0;
                    self.generate_captures(pos, values);
                    self.stage = Stage::Captures;
                }
                Stage::Captures => match self.pick() {
                    Some(mv) if Some(mv) == self.tt_move => {}
                    Some(mv) => return Some(mv),
                    None => self.stage = Stage::Killer1,
                },
                Stage::Killer1 | Stage::Killer2 => {
                    let index = usize::from(self.stage == Stage::Killer2);
                    self.stage = if index == 0 { Stage::Killer2 } else { Stage::GenQuiets };
                    let Some(mv) = self.killers[index] else { continue };
                    if Some(mv) != self.tt_move
                        && is_pseudo_legal(pos, mv)
                        && !is_capture(pos, mv)
                        && (!self.checks_only || attacks_after(pos, mv, pos.wazir(!pos.turn())))
                    {
                        return Some(mv);
                    }
                }
                Stage::GenQuiets => {
                    self.len = 0;
                    self.next = 0;
                    self.sort_after_selection = true;
                    self.generate_quiets(pos, heur);
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => match self.pick() {
                    Some(mv) if Some(mv) == self.tt_move || self.killers.contains(&Some(mv)) => {}
                    Some(mv) => return Some(mv),
                    None => self.stage = Stage::Done,
                },
                Stage::List => match self.pick() {
                    Some(mv) => return Some(mv),
                    None => self.stage = Stage::Done,
                },
                Stage::Done => return None,
            }
        }
    }

    /// Notes a quiet move searched at this node.
    #[inline]
    pub fn note_quiet(&mut self, mv: Move) {
        if let Some(slot) = self.quiets.get_mut(self.quiet_count) {
            *slot = mv;
            self.quiet_count += 1;
        }
    }

    /// The quiet moves searched so far.
    pub fn quiets_tried(&self) -> &[Move] {
        &self.quiets[..self.quiet_count]
    }
}

/// Appends the quiet moves and drops of the side to move in `pos` that
/// attack `wazir` (the enemy's) from a square the enemy does not attack:
/// every leap is symmetric, so a piece of a role attacks the wazir from
/// exactly the squares that role leaps to from the wazir. The own wazir is
/// left out (next to the enemy wazir it is attacked by it).
pub(super) fn quiet_checks(pos: &Position, wazir: Square, list: &mut MoveList) {
    let us = pos.turn();
    let empty = !pos.occupied();
    for role in Role::ALL {
        if role == Role::Wazir {
            continue;
        }
        let mut targets = Bitboard::EMPTY;
        for to in leaps(role, wazir) & empty {
            if pos.attackers(to, !us).is_empty() {
                targets |= Bitboard::from_square(to);
            }
        }
        if targets.is_empty() {
            continue;
        }
        for from in pos.squares_of(Piece::new(us, role)) {
            for to in leaps(role, from) & targets {
                list.push(Move::Jump { from, to });
            }
        }
        if pos.hand(us).count(role) > 0 {
            for to in targets {
                list.push(Move::Drop { role, to });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Red's ferz drops around Blue's wazir on d5: on e7 it attacks d6, a
    /// square next to the wazir; on d7 it attacks c6, c8, e6 and e8, none
    /// of them next to it; on c6 it attacks the wazir itself (a check) and
    /// no square next to it.
    #[test]
    fn moves_that_attack_a_square_next_to_the_wazir() {
        let pos = Position::from_fen(&format!(
            "8/8/8/4w3/8/8/8/W5a1 DF{}{}fffnn r 40",
            "a".repeat(15),
            "d".repeat(7)
        ))
        .unwrap();
        let wazir = pos.wazir(Color::Blue);
        assert_eq!(wazir, Some("d5".parse().unwrap()));
        let ferz = |to: &str| Move::Drop {
            role: Role::Ferz,
            to: to.parse().unwrap(),
        };
        assert!(attacks_next_to(&pos, ferz("e7"), wazir));
        assert!(!attacks_next_to(&pos, ferz("d7"), wazir));
        assert!(!attacks_next_to(&pos, ferz("c6"), wazir));
        assert!(attacks_after(&pos, ferz("c6"), wazir));
        assert!(!attacks_next_to(&pos, ferz("e7"), None));
    }

    /// The staged picker yields every legal move exactly once (and the
    /// evasions exactly the moves that do not leave the wazir en prise).
    #[test]
    fn stages_yield_each_legal_move_once() {
        let mut rng = StdRng::seed_from_u64(5);
        let heur = Heuristics::default();
        let values = [2200, 2000, 2000, 3500, 100_000];
        let mut frame = Frame::default();
        for _ in 0..300 {
            let mut pos = Position::from_setups(
                &crate::rules::Setup::random(&mut rng),
                &crate::rules::Setup::random(&mut rng),
            );
            for _ in 0..rng.random_range(0..60) {
                let mut list = MoveList::new();
                pos.legal_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                let next = pos.after(list.as_slice()[rng.random_range(0..list.len())]);
                if next.terminal().is_some() {
                    break;
                }
                pos = next;
            }
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let mut expected: Vec<u16> = list.iter().map(|m| m.to_u16()).collect();
            expected.sort_unstable();
            let tt = list.iter().nth(list.len() / 2).copied();
            let killer = list.iter().last().copied();
            frame.start(
                &pos,
                tt,
                [killer, tt],
                false,
                Some(Previous(rng.random_range(0..PIECE_TO))),
            );
            let mut got = Vec::new();
            while let Some(mv) = frame.next(&pos, &heur, &values) {
                got.push(mv.to_u16());
            }
            got.sort_unstable();
            assert_eq!(got, expected, "{pos:?}");
        }
    }

    /// Two quiet drops of one band, rewarded equally in the history but
    /// each after a different previous move, are ordered by that move:
    /// after the first, the first drop comes first, after the second the
    /// second.
    #[test]
    fn continuation_history_orders_replies_by_the_move_before() {
        let mut rng = StdRng::seed_from_u64(9);
        let values = [2200, 2000, 2000, 3500, 100_000];
        let mut frame = Frame::default();
        let (mut tested, mut tries) = (0, 0);
        while tested < 50 {
            tries += 1;
            assert!(
                tries < 10_000,
                "only {tested} positions with two plain drops in {tries} games"
            );
            // Random moves until the side to move has a piece in hand to
            // drop (captured pieces change sides).
            let mut pos = Position::from_setups(
                &crate::rules::Setup::random(&mut rng),
                &crate::rules::Setup::random(&mut rng),
            );
            for _ in 0..80 {
                if Role::DROPPABLE.iter().any(|&role| pos.hand(pos.turn()).count(role) > 0) {
                    break;
                }
                let mut list = MoveList::new();
                pos.legal_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                pos = pos.after(list.as_slice()[rng.random_range(0..list.len())]);
                if pos.terminal().is_some() {
                    break;
                }
            }
            if pos.terminal().is_some() || crate::search::alphabeta::wazir_attack(&pos).is_some() {
                continue;
            }
            let Some(their_wazir) = pos.wazir(!pos.turn()) else {
                continue;
            };
            let plain = |mv: &&Move| match **mv {
                Move::Drop { role, to } => {
                    !leaps(role, to).contains(their_wazir)
                        && (leaps(role, to) & leaps(Role::Wazir, their_wazir)).is_empty()
                }
                Move::Jump { .. } => false,
            };
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let drops: Vec<Move> = list.iter().filter(plain).copied().collect();
            let (Some(&a), Some(&b)) = (drops.first(), drops.last()) else {
                continue;
            };
            if a == b {
                continue;
            }
            let (p0, p1) = (Previous(3), Previous(200));
            let mut heur = Heuristics::default();
            heur.reward(&pos, Some(p0), 0, 8, a, &[]);
            heur.reward(&pos, Some(p1), 0, 8, b, &[]);
            let order = |prev: Previous, frame: &mut Frame| {
                frame.start(&pos, None, [None; 2], false, Some(prev));
                let mut got = Vec::new();
                while let Some(mv) = frame.next(&pos, &heur, &values) {
                    got.push(mv);
                }
                let at = |m: Move| got.iter().position(|&x| x == m);
                (at(a), at(b))
            };
            let (a0, b0) = order(p0, &mut frame);
            let (a1, b1) = order(p1, &mut frame);
            assert!(a0 < b0, "after p0, {a:?} first: {a0:?} {b0:?}");
            assert!(b1 < a1, "after p1, {b:?} first: {a1:?} {b1:?}");
            tested += 1;
        }
    }

    /// The quiescence search's checks are exactly the legal non-captures,
    /// not by the wazir, after which the moved or dropped piece attacks
    /// the enemy wazir, from a square no enemy piece attacks.
    #[test]
    fn quiet_checks_are_the_safe_wazir_attacks() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut found = 0;
        for pos in crate::rules::random_game_positions(&mut rng, 60, 0.5) {
            let us = pos.turn();
            let Some(wazir) = pos.wazir(!us) else { continue };
            let mut list = MoveList::new();
            quiet_checks(&pos, wazir, &mut list);
            let mut got: Vec<u16> = list.iter().map(|m| m.to_u16()).collect();
            got.sort_unstable();
            let mut all = MoveList::new();
            pos.legal_moves(&mut all);
            let mut expected: Vec<u16> = all
                .iter()
                .filter(|&&mv| {
                    !is_capture(&pos, mv)
                        && role_of(&pos, mv) != Some(Role::Wazir)
                        && attacks_after(&pos, mv, Some(wazir))
                        && pos.attackers(mv.to(), !us).is_empty()
                })
                .map(|m| m.to_u16())
                .collect();
            expected.sort_unstable();
            assert_eq!(got, expected, "{pos:?}");
            found += got.len();
        }
        assert!(found > 50, "only {found} checks in 60 games' positions");
    }
}
