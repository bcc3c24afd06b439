//! The one place where data generation touches the engine's search: a
//! fixed-node search of a position, optionally with some root moves left
//! out (how the generator gets the scores of the second and third best
//! moves), and the few search helpers it needs. Kept small so that a
//! change of the search's API is fixed here alone.

use leaper::eval::{Eval, EvalKind};
use leaper::search::{Limits, Searcher, Signals, TableError};
use leaper_rules::{GameMove, Move, MoveList, Position};

pub use leaper::search::is_mate;

/// The evaluations a generator can play with, by the names the engine's
/// `Eval` option uses.
pub fn eval_names() -> Vec<&'static str> {
    EvalKind::ALL.iter().map(|k| k.name()).collect()
}

/// What one search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The best move.
    pub best: Move,
    /// Its score for the side to move, logit x 10,000.
    pub score: i32,
    /// The principal variation, `best` first.
    pub pv: Vec<Move>,
    /// The last finished iteration (0: none finished, the score means
    /// nothing).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

/// A single-threaded searcher with a fixed evaluation.
#[derive(Debug)]
pub struct Engine {
    searcher: Searcher<Eval>,
}

impl Engine {
    /// An engine evaluating with `eval` and a table of `hash_mb` MB.
    ///
    /// # Errors
    /// A message when the table does not fit.
    pub fn new(eval: Eval, hash_mb: usize) -> Result<Engine, String> {
        let searcher = Searcher::with_evaluator(eval, hash_mb).map_err(|e: TableError| e.to_string())?;
        Ok(Engine { searcher })
    }

    /// Forgets the table and histories, so that a game's play depends on
    /// nothing before it.
    pub fn new_game(&mut self) {
        self.searcher.clear();
    }

    /// Searches `pos` (a position where the game goes on, after the
    /// setups) for `nodes` nodes, leaving out the root moves in `exclude`.
    /// `None` when no move is left to search.
    pub fn search(&mut self, pos: &Position, nodes: u64, exclude: &[Move]) -> Option<Line> {
        let mut searchmoves = Vec::new();
        if !exclude.is_empty() {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            searchmoves = list.iter().copied().filter(|m| !exclude.contains(m)).collect();
            if searchmoves.is_empty() {
                return None;
            }
        }
        let limits = Limits {
            nodes: Some(nodes.max(1)),
            searchmoves,
            ..Limits::default()
        };
        let result = self.searcher.search(pos, &limits, &Signals::default(), &mut ());
        let best = match result.best {
            Some(GameMove::Move(m)) if !exclude.contains(&m) => m,
            _ => return None,
        };
        let pv = result
            .pv
            .iter()
            .map_while(|m| match m {
                GameMove::Move(m) => Some(*m),
                GameMove::Setup(_) => None,
            })
            .collect();
        Some(Line {
            best,
            score: result.score,
            pv,
            depth: result.depth,
            nodes: result.nodes,
        })
    }
}

/// The regular moves after which the opponent cannot take the wazir at
/// once (all moves when every one loses it).
pub fn safe_moves(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let safe: Vec<Move> = list
        .iter()
        .copied()
        .filter(|&m| leaper::search::can_capture_wazir(&pos.after(m)).is_none())
        .collect();
    if safe.is_empty() {
        list.as_slice().to_vec()
    } else {
        safe
    }
}
