//! What a setup pair is worth: the search of the position after both
//! setups, Red to move, seen from Red's side.
//!
//! Book building and suite filtering only need this one question answered,
//! so they take a [`PairEvaluator`]; [`EngineEvaluator`] answers it with
//! the engine's own search, and tests can answer it with anything cheaper.

use leaper::Position;
use leaper::Setup;
use leaper::search::{Limits, Searcher, Signals};

/// Scores setup pairs.
pub trait PairEvaluator: Send {
    /// The value of `red` against `blue` for Red, logit x 10,000, from a
    /// search of `depth` plies after both setups.
    fn evaluate(&mut self, red: &Setup, blue: &Setup, depth: u32) -> i32;
}

/// The engine's search at a fixed depth, with a fresh history per pair so
/// that results do not depend on evaluation order (the hash table is
/// cleared too: the same pair always gets the same value).
#[derive(Debug)]
pub struct EngineEvaluator {
    searcher: Searcher,
}

impl EngineEvaluator {
    /// An evaluator with a hash table of `hash_mb` MB. Keep it small (1-4
    /// MB): the table is cleared before every pair.
    pub fn new(hash_mb: usize) -> Result<EngineEvaluator, leaper::search::TableError> {
        Ok(EngineEvaluator {
            searcher: Searcher::new(hash_mb)?,
        })
    }
}

impl PairEvaluator for EngineEvaluator {
    fn evaluate(&mut self, red: &Setup, blue: &Setup, depth: u32) -> i32 {
        let pos = Position::from_setups(red, blue);
        self.searcher.clear();
        let limits = Limits {
            depth: Some(depth.max(1)),
            ..Limits::default()
        };
        let result = self.searcher.search(&pos, &limits, &Signals::default(), &mut ());
        // Red is to move after both setups, so the side to move's score is Red's.
        result.score
    }
}
