//! The setup policy: how the searcher chooses its setup at ply 0 or 1.
//! With a book (`OwnBook`) Red picks among the book's best setups and Blue
//! answers a Red setup the book knows at once. Otherwise there are
//! 10,810,800 setups per side, so the engine samples a few hundred, ranks
//! them with a cheap static heuristic and leaves the final choice among
//! the best few (or, as Blue against an unknown setup, among the book's
//! replies) to a short search ([`Searcher::choose_setup`]).
//!
//! The heuristic encodes what is known to be good: each piece on squares
//! it values, by the piece-square weights of the published linear model of
//! this game (seed document 000; the wazir wants a corner, ferzes the front
//! row, knights the centre); alfils and dabbabas spread over the four
//! square colours they are confined to; the squares around the wazir
//! guarded; and, once the opponent's setup is known, the wazir away from
//! the file of the opponent's knight.

use super::{Limits, MATE_BOUND, Params, Reporter, SearchResult, Searcher, Signals};
use crate::eval::Evaluator;
use crate::rules::{Color, GameMove, Position, Role, Setup, Square, leaps};
use rand::{Rng, SeedableRng};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Nodes for each candidate's short search when choosing a setup.
const SETUP_NODES: u64 = 3_000;
/// Random setups sampled, and how many of the best are searched.
const SETUP_SAMPLES: usize = 200;
const SETUP_FINALISTS: usize = 6;
/// Book replies searched against a Red setup the book does not know.
const BOOK_FINALISTS: usize = 12;

impl<E: Evaluator> Searcher<E> {
    /// The setup to play at ply 0 or 1: the best by heuristic plus a short
    /// search among the best sampled candidates. For Red each candidate is
    /// answered by Blue's heuristic reply first.
    pub(super) fn choose_setup(
        &mut self,
        pos: &Position,
        limits: &Limits,
        params: &Params,
        signals: &Signals,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        let color = pos.turn();
        let game = self.setups_chosen.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.setups_chosen += 1;
        let mut rng = rand::rngs::StdRng::seed_from_u64(self.seed ^ pos.hash() ^ 0x5e70_5e70 ^ game);
        let opponent = (color == Color::Blue).then(|| red_setup(pos)).flatten();
        if let Some((book, variety)) = &self.book {
            // Scores in the book are Red's view.
            let known = match (color, opponent) {
                (Color::Red, _) => book
                    .choose_red(*variety, |n| rng.random_range(0..n))
                    .map(|red| (red, book.best_reply(&red).map_or(0, |e| e.eval))),
                (Color::Blue, Some(red)) => book.best_reply(&red).map(|e| (e.blue, -e.eval)),
                (Color::Blue, None) => None,
            };
            if let Some((setup, score)) = known {
                return self.one_move_result(GameMove::Setup(setup), score, 0, limits, reporter);
            }
        }
        let finalists = match &self.book {
            // A Red setup the book does not know: search the book's replies.
            Some((book, _)) if color == Color::Blue && !book.is_empty() => {
                let mut replies: Vec<(Setup, i32)> = book
                    .blue_candidates()
                    .into_iter()
                    .map(|s| (s, heuristic(&s, color, opponent.as_ref())))
                    .collect();
                replies.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.rank().cmp(&b.0.rank())));
                replies.truncate(BOOK_FINALISTS);
                replies
            }
            _ => candidates(&mut rng, color, opponent.as_ref(), SETUP_SAMPLES, SETUP_FINALISTS),
        };
        let mut nodes = 0;
        let mut chosen: Option<(Setup, i32, i32)> = None;
        for &(setup, heuristic) in &finalists {
            if signals.stop.load(Ordering::Relaxed) && chosen.is_some() {
                break;
            }
            let mut after = pos.clone();
            after.play_setup(&setup);
            if color == Color::Red {
                let reply = candidates(&mut rng, Color::Blue, Some(&setup), SETUP_SAMPLES / 4, 1);
                match reply.first() {
                    Some((reply, _)) => after.play_setup(reply),
                    None => continue,
                }
            }
            let quick = Limits {
                depth: Some(4),
                nodes: Some(SETUP_NODES),
                start: Instant::now(),
                ..Limits::default()
            };
            let found = self.search_moves(&after, &quick, params, signals, &mut ());
            nodes += found.nodes;
            // `after` has Red to move.
            let for_us = if color == Color::Red { found.score } else { -found.score };
            let total = heuristic + for_us.clamp(-MATE_BOUND, MATE_BOUND);
            if chosen.is_none_or(|(_, best, _)| total > best) {
                chosen = Some((setup, total, for_us));
            }
        }
        let (setup, _, score) = chosen.unwrap_or((Setup::first(), 0, 0));
        self.one_move_result(GameMove::Setup(setup), score, nodes, limits, reporter)
    }
}

/// Red's setup as it stands on rows `a` and `b` at ply 1.
fn red_setup(pos: &Position) -> Option<Setup> {
    let mut roles = [Role::Alfil; 16];
    for (i, slot) in roles.iter_mut().enumerate() {
        let piece = pos.piece_at(Setup::square(Color::Red, i))?;
        *slot = piece.role;
    }
    Setup::from_roles(roles).ok()
}

/// Piece-square weights over the 10 squares of the board's 8-fold
/// symmetry (`a1 a2 a3 a4 b2 b3 b4 c3 c4 d4`), logit x 1,000, from the
/// published linear model.
const PIECE_SQUARE: [[i32; 10]; 5] = [
    [83, 89, 163, 222, 112, 194, 203, 311, 313, 365],
    [74, 60, 115, 185, 59, 181, 212, 320, 330, 309],
    [18, 49, 62, 126, 206, 226, 247, 289, 286, 250],
    [188, 221, 282, 318, 265, 343, 419, 449, 442, 405],
    [655, 626, 25, -148, 599, 44, -304, -283, -514, -701],
];

/// The index of `sq` among the 10 symmetry classes.
fn normalized(sq: Square) -> usize {
    let r = sq.row().min(7 - sq.row()) as usize;
    let c = sq.col().min(7 - sq.col()) as usize;
    let (a, b) = if r <= c { (r, c) } else { (c, r) };
    // Rows of the triangle: a = 0 has 4 squares, a = 1 has 3, a = 2 has 2.
    const START: [usize; 4] = [0, 4, 7, 9];
    START[a] + (b - a)
}

/// The static value of `setup` for `color` (logit x 10,000), knowing the
/// opponent's setup when it has been played.
pub fn heuristic(setup: &Setup, color: Color, opponent: Option<&Setup>) -> i32 {
    let mut score = 0;
    let mut classes = [[0i32; 4]; 5];
    let mut wazir = None;
    let mut guards = crate::rules::Bitboard::EMPTY;
    for (i, &role) in setup.roles().iter().enumerate() {
        let sq = Setup::square(color, i);
        score += PIECE_SQUARE[role.index()][normalized(sq)] * 10;
        classes[role.index()][((sq.row() & 1) * 2 + (sq.col() & 1)) as usize] += 1;
        if role == Role::Wazir {
            wazir = Some(sq);
        } else {
            guards |= leaps(role, sq);
        }
    }
    // Alfils and dabbabas never leave their square colour: spread them.
    for (role, weight) in [(Role::Alfil, 300), (Role::Dabbaba, 500)] {
        let ideal = i32::from(role.count_per_side()) / 4;
        score -= classes[role.index()]
            .iter()
            .map(|&n| (n - ideal) * (n - ideal))
            .sum::<i32>()
            * weight;
    }
    if let Some(w) = wazir {
        score += (leaps(Role::Wazir, w) & guards).count() as i32 * 400;
        if let Some(knight_col) = opponent.and_then(|o| o.roles().iter().position(|&r| r == Role::Knight)) {
            let col = Setup::square(!color, knight_col).col();
            if col.abs_diff(w.col()) <= 2 {
                score -= 800;
            }
        }
    }
    score
}

/// The `keep` best of `samples` random setups (and their mirror images) by
/// [`heuristic`], best first, without repeats.
pub fn candidates<R: Rng + ?Sized>(
    rng: &mut R,
    color: Color,
    opponent: Option<&Setup>,
    samples: usize,
    keep: usize,
) -> Vec<(Setup, i32)> {
    let mut all: Vec<(Setup, i32)> = (0..samples)
        .flat_map(|_| {
            let s = Setup::random(rng);
            [s, s.mirror()]
        })
        .map(|s| (s, heuristic(&s, color, opponent)))
        .collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.rank().cmp(&b.0.rank())));
    all.dedup_by(|a, b| a.0 == b.0);
    all.truncate(keep.max(1));
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn symmetry_classes_cover_the_board() {
        let names = ["a1", "a2", "a3", "a4", "b2", "b3", "b4", "c3", "c4", "d4"];
        for (i, name) in names.iter().enumerate() {
            let sq = Square::parse(name.as_bytes()).unwrap();
            assert_eq!(normalized(sq), i, "{name}");
            assert_eq!(normalized(sq.mirror()), i, "{name}");
        }
        assert_eq!(normalized(Square::parse(b"h8").unwrap()), 0);
        assert_eq!(normalized(Square::parse(b"b1").unwrap()), 1);
        assert_eq!(normalized(Square::parse(b"e5").unwrap()), 9);
    }

    #[test]
    fn good_setups_put_the_wazir_in_a_corner_and_ferzes_in_front() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for color in Color::ALL {
            let best = candidates(&mut rng, color, None, 300, 3);
            assert_eq!(best.len(), 3);
            for (setup, _) in &best {
                let w = setup.roles().iter().position(|&r| r == Role::Wazir).unwrap();
                let col = Setup::square(color, w).col();
                assert!(col <= 1 || col >= 6, "{} for {color}", setup.to_text(color));
            }
            assert!(best[0].1 >= best[1].1 && best[1].1 >= best[2].1);
        }
    }
}
