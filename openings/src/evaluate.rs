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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn pairs(n: usize) -> Vec<(Setup, Setup)> {
        // Stream 0 of the suite's generator (the suite's module imports
        // this one, so its helper is not imported back).
        let mut rng = Pcg64Mcg::seed_from_u64(21);
        (0..n)
            .map(|_| (Setup::random(&mut rng), Setup::random(&mut rng)))
            .collect()
    }

    #[test]
    fn the_value_of_a_pair_does_not_depend_on_what_was_searched_before() {
        let pairs = pairs(4);
        let mut forward = EngineEvaluator::new(1).unwrap();
        let first: Vec<i32> = pairs.iter().map(|(r, b)| forward.evaluate(r, b, 2)).collect();
        let mut backward = EngineEvaluator::new(1).unwrap();
        let mut second: Vec<i32> = pairs.iter().rev().map(|(r, b)| backward.evaluate(r, b, 2)).collect();
        second.reverse();
        assert_eq!(first, second);
        // And the same evaluator asked again agrees with itself.
        let (r, b) = &pairs[0];
        assert_eq!(forward.evaluate(r, b, 2), first[0]);
    }

    #[test]
    fn the_value_is_the_search_of_the_position_after_both_setups() {
        let (red, blue) = pairs(1)[0];
        let mut evaluator = EngineEvaluator::new(1).unwrap();
        let mut searcher = Searcher::new(1).unwrap();
        let limits = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        let pos = Position::from_setups(&red, &blue);
        let direct = searcher.search(&pos, &limits, &Signals::default(), &mut ()).score;
        assert_eq!(evaluator.evaluate(&red, &blue, 2), direct);
        // Depth 0 is searched as depth 1, never as no search at all.
        assert_eq!(evaluator.evaluate(&red, &blue, 0), evaluator.evaluate(&red, &blue, 1));
        // The values are in the engine's range (logit x 10,000 fits in i32
        // with room to spare), not a sentinel.
        assert!(direct.abs() < 1_000_000, "{direct}");
    }
}
