//! The ask/tell cycle: what a trial holds, how results are accepted or
//! refused, the budget, late and out-of-order results, and rounding and
//! clipping statistics of the values handed out.

mod common;

use common::{fake_result, params, tuner};
use spsa::{Config, Kind, Param, Pentanomial, Schedule, TellError, TrialId, Tuner};

#[test]
fn a_trial_holds_both_value_sets_within_range_and_the_pairs_to_play() {
    let mut tuner = tuner(1000, Schedule::default(), 1);
    let trial = tuner.ask().expect("budget left");
    assert_eq!(trial.id, TrialId(0));
    assert_eq!(trial.pairs, 2);
    assert_eq!(trial.plus.len(), 3);
    assert_eq!(trial.minus.len(), 3);
    for ((param, &plus), &minus) in tuner.params().iter().zip(&trial.plus).zip(&trial.minus) {
        assert!((param.min..=param.max).contains(&plus) && (param.min..=param.max).contains(&minus));
        assert_ne!(plus, minus, "{}", param.name);
        if param.kind == Kind::Int {
            assert_eq!(plus.fract(), 0.0);
            assert_eq!(minus.fract(), 0.0);
        }
    }
    assert_eq!(tuner.pending().count(), 1);
    assert_eq!(tuner.ask().map(|t| t.id), Some(TrialId(1)));
}

#[test]
fn a_won_trial_moves_every_parameter_toward_the_plus_values() {
    let mut tuner = tuner(1000, Schedule::fishtest(), 2);
    let before = tuner.iterate();
    let trial = tuner.ask().expect("budget left");
    tuner.tell(trial.id, Pentanomial::new(0, 0, 0, 0, 2)).expect("pending");
    let after = tuner.iterate();
    for i in 0..3 {
        let toward_plus = (trial.plus[i] - trial.minus[i]).signum();
        assert_eq!((after[i] - before[i]).signum(), toward_plus, "parameter {i}");
    }
    assert_eq!(tuner.games(), 4);
    assert_eq!(tuner.updates(), 1);
    assert_eq!(tuner.tally(), Pentanomial::new(0, 0, 0, 0, 2));
}

#[test]
fn unknown_repeated_and_oversized_results_are_refused_and_change_nothing() {
    let mut tuner = tuner(1000, Schedule::default(), 3);
    let first = tuner.ask().expect("budget left");
    let untouched = tuner.clone();
    assert_eq!(
        tuner.tell(TrialId(7), Pentanomial::default()),
        Err(TellError::Unknown(TrialId(7)))
    );
    assert_eq!(
        tuner.tell(first.id, Pentanomial::new(1, 1, 1, 0, 0)),
        Err(TellError::TooManyPairs {
            id: first.id,
            asked: 2,
            told: 3
        })
    );
    assert_eq!(tuner, untouched);
    tuner.tell(first.id, Pentanomial::new(0, 1, 1, 0, 0)).expect("pending");
    assert_eq!(
        tuner.tell(first.id, Pentanomial::default()),
        Err(TellError::NotPending(first.id))
    );
    assert_eq!(tuner.cancel(first.id), Err(TellError::NotPending(first.id)));
    assert_eq!(tuner.cancel(TrialId(99)), Err(TellError::Unknown(TrialId(99))));
}

#[test]
fn the_budget_limits_asks_and_short_or_cancelled_trials_give_pairs_back() {
    // 10 games = 5 pairs: trials of 2, 2 and 1 pairs.
    let mut tuner = tuner(10, Schedule::default(), 4);
    let trials: Vec<_> = std::iter::from_fn(|| tuner.ask()).collect();
    assert_eq!(trials.iter().map(|t| t.pairs).collect::<Vec<_>>(), vec![2, 2, 1]);
    assert!(tuner.ask().is_none());
    tuner.cancel(trials[1].id).expect("pending");
    // One pair of the first trial failed: told with one pair only.
    tuner
        .tell(trials[0].id, Pentanomial::new(0, 0, 1, 0, 0))
        .expect("pending");
    tuner
        .tell(trials[2].id, Pentanomial::new(0, 0, 0, 1, 0))
        .expect("pending");
    assert_eq!(tuner.games(), 4);
    assert!(!tuner.is_done());
    let again = tuner.ask().expect("three pairs are free again");
    assert_eq!(again.pairs, 2);
    tuner.tell(again.id, Pentanomial::new(0, 0, 2, 0, 0)).expect("pending");
    let last = tuner.ask().expect("one pair left");
    assert_eq!(last.pairs, 1);
    tuner.tell(last.id, Pentanomial::new(1, 0, 0, 0, 0)).expect("pending");
    assert!(tuner.is_done());
    assert!(tuner.ask().is_none());
    assert_eq!(tuner.games(), 10);
}

#[test]
fn late_results_apply_the_steps_fixed_when_asked_in_any_order() {
    // Eight trials in flight, told in reverse and in order: the iterates
    // agree (up to rounding), because each update uses its own trial's
    // steps and sums commute while no bound is touched.
    let mut forward = tuner(100_000, Schedule::fishtest(), 5);
    let mut backward = forward.clone();
    let trials: Vec<_> = (0..8).filter_map(|_| forward.ask()).collect();
    let again: Vec<_> = (0..8).filter_map(|_| backward.ask()).collect();
    assert_eq!(trials, again);
    for trial in &trials {
        forward.tell(trial.id, fake_result(trial)).expect("pending");
    }
    for trial in trials.iter().rev() {
        backward.tell(trial.id, fake_result(trial)).expect("pending");
    }
    for (a, b) in forward.iterate().iter().zip(backward.iterate()) {
        assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{a} vs {b}");
    }
    assert_eq!(forward.games(), backward.games());
    assert_eq!(forward.tally(), backward.tally());
}

/// Asks `n` trials of a fresh tuner, cancelling each so the schedule stays
/// at its first step, and returns the plus and minus values of parameter 0.
fn probe(param: Param, n: usize) -> (Tuner, Vec<(f64, f64)>) {
    let config = Config {
        games: 2_000_000,
        pairs_per_trial: 1,
        schedule: Schedule::fishtest(),
        seed: 11,
    };
    let mut tuner = Tuner::new(vec![param], config).expect("valid");
    let mut values = Vec::with_capacity(n);
    for _ in 0..n {
        let trial = tuner.ask().expect("budget left");
        values.push((trial.plus[0], trial.minus[0]));
        tuner.cancel(trial.id).expect("pending");
    }
    (tuner, values)
}

#[test]
fn integer_rounding_is_unbiased_and_keeps_the_scheduled_spread() {
    // c = c_end * n^0.101 with n = 10^6 pairs: 0.3 * 4.04 = 1.21.
    let param = Param::new("n", Kind::Int, 10.3, 0.0, 100.0, 0.3, 0.002).expect("valid");
    let n = 40_000;
    let (_, values) = probe(param, n);
    let c = 0.3 * 1e6f64.powf(0.101);
    let mean_mid = values.iter().map(|(p, m)| (p + m) / 2.0).sum::<f64>() / n as f64;
    let mean_spread = values.iter().map(|(p, m)| (p - m).abs()).sum::<f64>() / n as f64;
    // The midpoint has a standard deviation below 1/2 per draw.
    assert!((mean_mid - 10.3).abs() < 4.0 * 0.5 / (n as f64).sqrt(), "{mean_mid}");
    assert!(
        (mean_spread - 2.0 * c).abs() < 4.0 * 0.5 / (n as f64).sqrt(),
        "{mean_spread} vs {}",
        2.0 * c
    );
    let up = values.iter().filter(|(p, m)| p > m).count() as f64 / n as f64;
    assert!((up - 0.5).abs() < 0.01, "{up}");
}

#[test]
fn an_integer_perturbation_is_never_below_one_step() {
    // c_end 0.01 schedules c = 0.04, far below half a step.
    let linear = Param::new("n", Kind::Int, 7.6, 0.0, 100.0, 0.01, 0.002).expect("valid");
    let (_, values) = probe(linear, 5_000);
    assert!(values.iter().all(|(p, m)| (p - m).abs() == 1.0));
    let mean_mid = values.iter().map(|(p, m)| (p + m) / 2.0).sum::<f64>() / 5_000.0;
    assert!((mean_mid - 7.6).abs() < 0.03, "{mean_mid}");
    let log = Param::new("t", Kind::Int, 40.0, 1.0, 1000.0, 0.01, 0.002)
        .and_then(Param::log_scale)
        .expect("valid");
    let (_, values) = probe(log, 5_000);
    assert!(values.iter().all(|(p, m)| (p - m).abs() >= 1.0));
}

#[test]
fn values_never_leave_the_range_even_pushed_against_a_bound() {
    // Start on the upper bound of a narrow range with a wide perturbation.
    for kind in [Kind::Int, Kind::Float] {
        let param = Param::new("x", kind, 3.0, 0.0, 3.0, 5.0, 0.5).expect("valid");
        let (_, values) = probe(param.clone(), 2_000);
        assert!(
            values
                .iter()
                .all(|&(p, m)| (0.0..=3.0).contains(&p) && (0.0..=3.0).contains(&m))
        );
        // Results that always favour one side drive the iterate into the
        // bound, where it stays.
        let config = Config {
            games: 4_000,
            pairs_per_trial: 2,
            schedule: Schedule::default(),
            seed: 3,
        };
        let mut tuner = Tuner::new(vec![param], config).expect("valid");
        while let Some(trial) = tuner.ask() {
            assert!(trial.plus.iter().chain(&trial.minus).all(|v| (0.0..=3.0).contains(v)));
            let result = if trial.plus[0] > trial.minus[0] {
                Pentanomial::new(0, 0, 0, 0, 2)
            } else {
                Pentanomial::new(2, 0, 0, 0, 0)
            };
            tuner.tell(trial.id, result).expect("pending");
            let now = tuner.iterate()[0];
            assert!((0.0..=3.0).contains(&now), "{now}");
        }
        assert_eq!(tuner.values(), vec![3.0]);
    }
}

#[test]
fn parameters_that_are_all_good_start_a_run_and_others_do_not() {
    let mut twice = params();
    twice.push(twice[0].clone());
    assert!(matches!(
        Tuner::new(twice, Config::new(100)),
        Err(spsa::ConfigError::Duplicate(_))
    ));
    assert!(matches!(
        Tuner::new(Vec::new(), Config::new(100)),
        Err(spsa::ConfigError::NoParams)
    ));
    assert!(matches!(
        Tuner::new(params(), Config::new(1)),
        Err(spsa::ConfigError::Games(1))
    ));
    let mut bad = params();
    bad[1].c_end = Some(f64::NAN);
    assert!(matches!(
        Tuner::new(bad, Config::new(100)),
        Err(spsa::ConfigError::Param { .. })
    ));
    let config = Config {
        pairs_per_trial: 0,
        ..Config::new(100)
    };
    assert!(matches!(
        Tuner::new(params(), config),
        Err(spsa::ConfigError::PairsPerTrial(0))
    ));
}

#[test]
fn near_a_bound_the_default_shrinks_the_perturbation_then_clips() {
    // One float in [0, 100]: the default perturbation is 30% of the range,
    // shrunk to the distance to the nearer bound but not below half of it
    // (15); closer than that the values are clipped.
    let Schedule::Derived { c_ratio, edge, .. } = Schedule::default() else {
        panic!("the default recipe is the derived one");
    };
    assert_eq!((c_ratio, edge), (0.3, 0.5));
    for (start, expected) in [
        (50.0, (20.0, 80.0)),
        (70.0, (40.0, 100.0)),
        (80.0, (60.0, 100.0)),
        (90.0, (75.0, 100.0)),
        (100.0, (85.0, 100.0)),
        (25.0, (0.0, 50.0)),
        (5.0, (0.0, 20.0)),
    ] {
        let param = Param::plain("X", Kind::Float, start, 0.0, 100.0).expect("valid");
        let mut tuner = Tuner::new(vec![param], Config::new(1000)).expect("valid");
        let trial = tuner.ask().expect("budget left");
        let (lo, hi) = (trial.plus[0].min(trial.minus[0]), trial.plus[0].max(trial.minus[0]));
        assert!(
            (lo - expected.0).abs() < 1e-9 && (hi - expected.1).abs() < 1e-9,
            "start {start}: played {lo} and {hi}, expected {expected:?}"
        );
    }
}
