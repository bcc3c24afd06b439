//! No input makes the statistics fail: every count (zero games, all draws,
//! all wins, u64::MAX), every valid design (extreme and tiny Elo bounds,
//! extreme error rates) and every crosstable gives finite numbers, no
//! panic, and an answer in bounded time.

use proptest::prelude::*;
use results::{Crosstable, EloModel, Pentanomial, Sprt, SprtConfig, Tally, Trinomial, rating_table};

/// Counts biased towards the edge cases: zero, one, small, huge, maximal.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1u64),
        0u64..100,
        0u64..1_000_000,
        Just(u64::MAX),
        any::<u64>(),
    ]
}

fn model() -> impl Strategy<Value = EloModel> {
    prop_oneof![Just(EloModel::Normalized), Just(EloModel::Logistic)]
}

/// Valid designs, from the usual to the absurd.
fn design() -> impl Strategy<Value = SprtConfig> {
    let elo = prop_oneof![-10.0f64..10.0, -2000.0f64..2000.0, Just(-1e6), Just(1e6), Just(0.0)];
    let width = prop_oneof![1e-9f64..1e-3, 0.1f64..10.0, 10.0f64..5000.0];
    let rate = prop_oneof![Just(0.05), 1e-9f64..0.499, Just(0.4999)];
    (elo, width, rate.clone(), rate, model()).prop_map(|(elo0, width, alpha, beta, model)| SprtConfig {
        elo0,
        elo1: elo0 + width,
        alpha,
        beta,
        model,
    })
}

fn check_estimates(e: &results::Estimates) -> Result<(), TestCaseError> {
    for (name, v) in [
        ("score", e.score),
        ("draw ratio", e.draw_ratio),
        ("elo", e.elo),
        ("elo ci", e.elo_ci95),
        ("nelo", e.nelo),
        ("nelo ci", e.nelo_ci95),
        ("los", e.los),
    ] {
        prop_assert!(v.is_finite(), "{name} = {v} for {e:?}");
    }
    prop_assert!((0.0..=1.0).contains(&e.score));
    prop_assert!((0.0..=1.0).contains(&e.los));
    prop_assert!((0.0..=1.0).contains(&e.draw_ratio));
    prop_assert!(e.elo_ci95 >= 0.0 && e.nelo_ci95 >= 0.0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn trinomial_statistics_are_finite(
        w in count(), d in count(), l in count(), config in design(),
    ) {
        let tally = Trinomial::new(w, d, l);
        check_estimates(&tally.estimates())?;
        let sprt = Sprt::new(config).unwrap();
        let status = sprt.status(&tally);
        prop_assert!(status.llr.is_finite(), "LLR {} for {tally:?} {config:?}", status.llr);
        prop_assert!(status.lower_bound.is_finite() && status.upper_bound.is_finite());
        prop_assert!(status.lower_bound < 0.0 && status.upper_bound > 0.0);
    }

    #[test]
    fn pentanomial_statistics_are_finite(
        c in [count(), count(), count(), count(), count()], config in design(),
    ) {
        let tally = Pentanomial::new(c[0], c[1], c[2], c[3], c[4]);
        check_estimates(&tally.estimates())?;
        let sprt = Sprt::new(config).unwrap();
        let llr = sprt.llr(&tally);
        prop_assert!(llr.is_finite(), "LLR {llr} for {tally:?} {config:?}");
    }

    /// Reversing the tally and negating the hypotheses mirrors the test:
    /// the ratio of H1 (-elo0) against H0 (-elo1) is the opposite.
    #[test]
    fn mirrored_tests_give_opposite_ratios(
        c in [0u64..5000, 0u64..5000, 0u64..5000, 0u64..5000, 0u64..5000],
        elo0 in -20.0f64..20.0, width in 0.5f64..20.0, model in model(),
    ) {
        let tally = Pentanomial::new(c[0], c[1], c[2], c[3], c[4]);
        let design = |elo0: f64, elo1: f64| Sprt::new(SprtConfig {
            elo0, elo1, model, ..SprtConfig::default()
        }).unwrap();
        let llr = design(elo0, elo0 + width).llr(&tally);
        let mirrored = design(-elo0 - width, -elo0).llr(&tally.reversed());
        prop_assert!((llr + mirrored).abs() < 1e-6 * llr.abs().max(1.0),
            "{llr} vs {mirrored}");
    }

    /// A tally that sums two others has the others' games.
    #[test]
    fn sums_count_every_game(
        a in proptest::array::uniform5(0u64..1000), b in proptest::array::uniform5(0u64..1000),
    ) {
        let x = Pentanomial::new(a[0], a[1], a[2], a[3], a[4]);
        let y = Pentanomial::new(b[0], b[1], b[2], b[3], b[4]);
        prop_assert_eq!((x + y).pairs(), x.pairs() + y.pairs());
        prop_assert_eq!((x + y).estimates().games, x.games() + y.games());
    }

    #[test]
    fn rating_tables_are_finite(
        results in proptest::collection::vec(
            (0usize..5, 0usize..5, count(), count(), count()), 1..12),
    ) {
        let names = ["a", "b", "c", "d", "e"];
        let mut table = Crosstable::new();
        for (i, j, w, d, l) in results {
            table.add(names[i], names[j], Trinomial::new(w, d, l));
        }
        let Some(anchor) = table.players().first().cloned() else {
            return Ok(());
        };
        if let Ok(t) = rating_table(&table, &anchor) {
            for r in &t.ratings {
                prop_assert!(r.elo.is_finite() && r.elo_ci95.is_finite(), "{r:?}");
                prop_assert!(r.score.is_finite());
            }
        }
    }
}
