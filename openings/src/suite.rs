//! Opening suites for the arena: setup pairs that are varied and balanced.
//!
//! A suite is a book whose entries are played as openings (each pair twice,
//! colours reversed). Balanced: every pair's evaluation is within a bound,
//! so neither side starts far ahead and a game pair measures strength.
//! Varied: no two pairs share a Red setup, even up to the mirror, which
//! would otherwise play the same game twice. Pairs come from a book, or
//! from sampled reasonable setups filtered by a shallow search.

use crate::evaluate::PairEvaluator;
use leaper::search::setup_heuristic;
use leaper::{Color, Setup};
use leaper_book::{Book, BookEntry};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::collections::HashSet;

/// Where a suite's pairs come from.
#[derive(Clone, Copy, Debug)]
pub enum SuiteSource<'a> {
    /// Entries of this book.
    Book(&'a Book),
    /// Sampled setups, each pair searched to this depth.
    Sampled {
        /// Search depth for each candidate pair.
        depth: u32,
    },
}

/// Why a suite could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SuiteError {
    /// Fewer suitable pairs than asked for.
    #[error(
        "only {found} setup pairs with |eval| <= {max_eval} and distinct red setups (up to mirror) were found; {wanted} were asked for (raise --max-eval, or use a larger book)"
    )]
    NotEnough {
        /// Pairs found.
        found: usize,
        /// Pairs asked for.
        wanted: usize,
        /// The evaluation bound.
        max_eval: i32,
    },
}

/// The representative of a setup and its mirror (the one of lower rank):
/// two setups with the same representative play the same games mirrored.
pub fn canonical_red(setup: &Setup) -> Setup {
    let mirror = setup.mirror();
    if mirror.rank() < setup.rank() { mirror } else { *setup }
}

/// The generator for `stream` of a run seeded with `seed`: the workspace's
/// one seeded generator (`Pcg64Mcg`, whose output is fixed across platforms
/// and releases, unlike `StdRng`'s), moved `stream` times 2^64 steps ahead,
/// so that the streams of one seed never overlap and those of different
/// seeds are unrelated.
pub(crate) fn seeded(seed: u64, stream: u64) -> Pcg64Mcg {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    rng.advance(u128::from(stream) << 64);
    rng
}

/// A setup that is varied yet sensible: the best, by the engine's static
/// setup heuristic, of a few uniform samples.
pub fn sample_reasonable<R: Rng + ?Sized>(rng: &mut R, color: Color, tries: usize) -> Setup {
    (0..tries.max(1))
        .map(|_| Setup::random(rng))
        .max_by_key(|s| setup_heuristic(s, color, None))
        .unwrap_or_else(Setup::first)
}

/// Makes a suite of `count` pairs with `|eval| <= max_eval`, distinct Red
/// setups up to mirror, reproducible from `seed`. `progress` is told the
/// pairs accepted so far.
pub fn make_suite(
    source: SuiteSource<'_>,
    count: usize,
    max_eval: i32,
    seed: u64,
    evaluator: &mut dyn PairEvaluator,
    mut progress: impl FnMut(usize),
) -> Result<Vec<BookEntry>, SuiteError> {
    let mut rng = seeded(seed, 0);
    let mut used = HashSet::new();
    let mut suite = Vec::with_capacity(count);
    match source {
        SuiteSource::Book(book) => {
            let mut entries: Vec<BookEntry> = book
                .entries()
                .iter()
                .copied()
                .filter(|e| e.eval.unsigned_abs() <= max_eval.unsigned_abs())
                .collect();
            entries.shuffle(&mut rng);
            for e in entries {
                if suite.len() == count {
                    break;
                }
                if used.insert(canonical_red(&e.red)) {
                    suite.push(e);
                    progress(suite.len());
                }
            }
        }
        SuiteSource::Sampled { depth } => {
            let attempts = count.saturating_mul(200).max(1000);
            for _ in 0..attempts {
                if suite.len() == count {
                    break;
                }
                let red = sample_reasonable(&mut rng, Color::Red, 8);
                if used.contains(&canonical_red(&red)) {
                    continue;
                }
                let blue = sample_reasonable(&mut rng, Color::Blue, 8);
                let eval = evaluator.evaluate(&red, &blue, depth);
                if eval.unsigned_abs() <= max_eval.unsigned_abs() {
                    used.insert(canonical_red(&red));
                    suite.push(BookEntry {
                        red,
                        blue,
                        eval,
                        depth,
                        weight: None,
                    });
                    progress(suite.len());
                }
            }
        }
    }
    if suite.len() < count {
        return Err(SuiteError::NotEnough {
            found: suite.len(),
            wanted: count,
            max_eval,
        });
    }
    Ok(suite)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cheap stand-in for the search: the static setup heuristics.
    struct Static;
    impl PairEvaluator for Static {
        fn evaluate(&mut self, red: &Setup, blue: &Setup, _depth: u32) -> i32 {
            setup_heuristic(red, Color::Red, Some(blue)) - setup_heuristic(blue, Color::Blue, Some(red))
        }
    }

    #[test]
    fn sampled_suites_are_balanced_distinct_and_reproducible() {
        let a = make_suite(SuiteSource::Sampled { depth: 1 }, 30, 2_000, 5, &mut Static, |_| {}).unwrap();
        let b = make_suite(SuiteSource::Sampled { depth: 1 }, 30, 2_000, 5, &mut Static, |_| {}).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 30);
        let reds: HashSet<Setup> = a.iter().map(|e| canonical_red(&e.red)).collect();
        assert_eq!(reds.len(), 30);
        for e in &a {
            assert!(e.eval.abs() <= 2_000);
            assert_eq!(Static.evaluate(&e.red, &e.blue, 1), e.eval);
        }
    }

    #[test]
    fn book_suites_filter_and_deduplicate_mirrors() {
        let text = "AWAAAAAADFFDDDAN addadffdnaaaaawa 120 8\n\
                    AAAAAAWANADDDFFD dffdaddaawaaaaan 110 8\n\
                    AADWNDAAFDAAAADF fdaaaadfaadwndaa 5000 4\n\
                    AADWNDAAFDAAAADN fdaaaadfaadwndaa 0 4\n";
        let (book, errors) = Book::parse(text);
        assert_eq!(errors.len(), 1, "the last line has two knights");
        let suite = make_suite(SuiteSource::Book(&book), 1, 200, 1, &mut Static, |_| {}).unwrap();
        assert!(suite[0].eval.abs() <= 200);
        assert_eq!(
            make_suite(SuiteSource::Book(&book), 2, 200, 1, &mut Static, |_| {}),
            Err(SuiteError::NotEnough {
                found: 1,
                wanted: 2,
                max_eval: 200
            })
        );
    }

    #[test]
    fn a_setup_and_its_mirror_share_their_representative() {
        let mut rng = seeded(11, 0);
        for _ in 0..200 {
            let s = Setup::random(&mut rng);
            let c = canonical_red(&s);
            assert_eq!(canonical_red(&s.mirror()), c);
            assert_eq!(canonical_red(&c), c);
            assert!(c == s || c == s.mirror());
        }
    }

    #[test]
    fn seeds_give_different_suites_and_progress_counts_up() {
        let mut reported = Vec::new();
        let a = make_suite(SuiteSource::Sampled { depth: 1 }, 10, 2_000, 1, &mut Static, |n| {
            reported.push(n)
        })
        .unwrap();
        assert_eq!(reported, (1..=10).collect::<Vec<_>>());
        let b = make_suite(SuiteSource::Sampled { depth: 1 }, 10, 2_000, 2, &mut Static, |_| {}).unwrap();
        assert_ne!(a, b);
        // A suite of none is empty, whatever the source.
        let none = make_suite(SuiteSource::Sampled { depth: 1 }, 0, 0, 1, &mut Static, |_| {}).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn sampled_suites_vary_where_the_pieces_stand() {
        let suite = make_suite(SuiteSource::Sampled { depth: 1 }, 40, 2_000, 7, &mut Static, |_| {}).unwrap();
        let stats = crate::BookStats::of(&Book::new(suite));
        assert_eq!(stats.distinct_red_up_to_mirror, 40);
        for (color, role) in [(Color::Red, leaper::Role::Wazir), (Color::Blue, leaper::Role::Wazir)] {
            let squares = stats.placement_share(color, role).iter().filter(|&&s| s > 0.0).count();
            assert!(squares >= 4, "{color:?} {role:?} on only {squares} squares");
        }
    }

    #[test]
    fn the_bound_is_inclusive_and_the_book_order_does_not_matter() {
        // Four distinct red setups (none the mirror of another) with evals
        // -300, -200, 200 and 300.
        let mut rng = seeded(5, 0);
        let mut reds: Vec<Setup> = Vec::new();
        while reds.len() < 4 {
            let s = Setup::random(&mut rng);
            if reds.iter().all(|r| canonical_red(r) != canonical_red(&s)) {
                reds.push(s);
            }
        }
        let blue = Setup::random(&mut rng);
        let entries: Vec<BookEntry> = reds
            .iter()
            .zip([-300, -200, 200, 300])
            .map(|(&red, eval)| BookEntry {
                red,
                blue,
                eval,
                depth: 3,
                weight: None,
            })
            .collect();
        let book = Book::new(entries.clone());
        let suite = make_suite(SuiteSource::Book(&book), 2, 200, 3, &mut Static, |_| {}).unwrap();
        let evals: HashSet<i32> = suite.iter().map(|e| e.eval).collect();
        assert_eq!(evals, HashSet::from([-200, 200]));
        let reversed = Book::new(entries.into_iter().rev().collect());
        let again = make_suite(SuiteSource::Book(&reversed), 2, 200, 3, &mut Static, |_| {}).unwrap();
        let again: HashSet<i32> = again.iter().map(|e| e.eval).collect();
        assert_eq!(again, evals);
    }
}
