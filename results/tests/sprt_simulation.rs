//! The GSPRT keeps its promises: simulated tests whose true Elo is `elo0`
//! accept H1 at most about `alpha` of the time, and those at `elo1` accept
//! H0 at most about `beta` of the time, in both Elo models.
//!
//! Game pairs are drawn from a known pentanomial: two independent games,
//! each won, drawn or lost with fixed probabilities whose expected score
//! puts the true Elo (logistic or normalized) exactly on the hypothesis.
//! The LLR is checked after every pair, as a match runner would.
//!
//! Slack: with `n` runs the observed rate of a test whose true error rate
//! is `alpha` has a standard deviation `sqrt(alpha (1 - alpha) / n)`; we
//! allow three of them (0.021 for n = 1000, so a correct test fails this
//! check with probability about 0.1% per seed). The GSPRT's rates are
//! nominal only asymptotically: overshooting the bounds lowers them, while
//! the plug-in maximum-likelihood estimates of the draw structure raise them
//! slightly in short tests, so the hypotheses here are kept wide enough to
//! run fast (a few hundred pairs per test) yet narrow enough to be in the
//! regime real tests use. The seed is fixed, so the test is reproducible.

use rand::SeedableRng;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand_pcg::Pcg64Mcg;
use results::{Decision, EloModel, NELO_PER_T, Pentanomial, Sprt, SprtConfig, Tally, score_from_elo};

const RUNS: usize = 1000;
const DRAW_RATE: f64 = 0.4;
const MAX_PAIRS: u64 = 20_000;
const ALPHA: f64 = 0.05;
const BETA: f64 = 0.05;

/// The pentanomial of two independent games with score `s` and the fixed
/// draw rate, as probabilities of pair scores 0, 1/4, 1/2, 3/4, 1.
fn pair_probabilities(s: f64) -> [f64; 5] {
    let w = s - DRAW_RATE / 2.0;
    let l = 1.0 - s - DRAW_RATE / 2.0;
    let d = DRAW_RATE;
    assert!(w > 0.0 && l > 0.0);
    [l * l, 2.0 * l * d, d * d + 2.0 * w * l, 2.0 * w * d, w * w]
}

/// The per-game score whose pentanomial has normalized Elo `nelo`.
fn score_for_nelo(nelo: f64) -> f64 {
    let nelo_of = |s: f64| {
        let p = pair_probabilities(s);
        let points = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mean: f64 = p.iter().zip(points).map(|(p, a)| p * a).sum();
        let var: f64 = p.iter().zip(points).map(|(p, a)| p * (a - mean).powi(2)).sum();
        (mean - 0.5) / (2.0 * var).sqrt() * NELO_PER_T
    };
    let (mut lo, mut hi) = (0.3, 0.7);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if nelo_of(mid) < nelo {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Runs one test to its end; `None` if it is still undecided at the cap.
fn run_one(sprt: &Sprt, pairs: &WeightedIndex<f64>, rng: &mut Pcg64Mcg) -> Option<Decision> {
    let mut tally = Pentanomial::default();
    while tally.pairs() < MAX_PAIRS {
        match pairs.sample(rng) {
            0 => tally.ll += 1,
            1 => tally.ld += 1,
            2 => tally.dd += 1,
            3 => tally.wd += 1,
            _ => tally.ww += 1,
        }
        let decision = sprt.decision(sprt.llr(&tally));
        if decision != Decision::Continue {
            return Some(decision);
        }
    }
    None
}

/// Observed rate of `wrong` decisions, and the number of undecided runs.
fn error_rate(sprt: &Sprt, score: f64, wrong: Decision, seed: u64) -> (f64, usize) {
    let pairs = WeightedIndex::new(pair_probabilities(score)).expect("probabilities are positive");
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut errors = 0;
    let mut undecided = 0;
    for _ in 0..RUNS {
        match run_one(sprt, &pairs, &mut rng) {
            Some(d) if d == wrong => errors += 1,
            Some(_) => {}
            None => undecided += 1,
        }
    }
    #[allow(clippy::cast_precision_loss)]
    (errors as f64 / RUNS as f64, undecided)
}

fn slack(rate: f64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let n = RUNS as f64;
    3.0 * (rate * (1.0 - rate) / n).sqrt()
}

fn check_model(model: EloModel, elo0: f64, elo1: f64, seed: u64) {
    let sprt = Sprt::new(SprtConfig {
        elo0,
        elo1,
        alpha: ALPHA,
        beta: BETA,
        model,
    })
    .unwrap();
    let score = |elo: f64| match model {
        EloModel::Logistic => score_from_elo(elo),
        EloModel::Normalized => score_for_nelo(elo),
    };
    let (false_positive, undecided0) = error_rate(&sprt, score(elo0), Decision::AcceptH1, seed);
    let (false_negative, undecided1) = error_rate(&sprt, score(elo1), Decision::AcceptH0, seed + 1);
    eprintln!(
        "{model:?} [{elo0}, {elo1}]: false positives {false_positive:.3}, \
         false negatives {false_negative:.3}, undecided {undecided0} + {undecided1}"
    );
    assert!(
        false_positive <= ALPHA + slack(ALPHA),
        "{model:?}: false-positive rate {false_positive} above alpha {ALPHA}"
    );
    assert!(
        false_negative <= BETA + slack(BETA),
        "{model:?}: false-negative rate {false_negative} above beta {BETA}"
    );
    assert!(undecided0 + undecided1 <= RUNS / 100, "too many tests undecided");
}

#[test]
fn logistic_error_rates_are_within_alpha_and_beta() {
    check_model(EloModel::Logistic, 0.0, 20.0, 1);
}

#[test]
fn normalized_error_rates_are_within_alpha_and_beta() {
    check_model(EloModel::Normalized, 0.0, 25.0, 11);
}

/// The same check for a hypothesis pair that does not start at 0.
#[test]
fn shifted_hypotheses_keep_their_error_rates() {
    check_model(EloModel::Logistic, -10.0, 10.0, 21);
}

/// The known pentanomials really sit on the hypotheses.
#[test]
fn simulated_distributions_have_the_intended_elo() {
    let s = score_for_nelo(50.0);
    let p = pair_probabilities(s);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let big = |x: f64| (x * 1e9).round() as u64;
    let tally = Pentanomial::new(big(p[0]), big(p[1]), big(p[2]), big(p[3]), big(p[4]));
    let e = tally.estimates();
    assert!((e.nelo - 50.0).abs() < 1e-3, "nElo {}", e.nelo);
    let p = pair_probabilities(score_from_elo(40.0));
    let tally = Pentanomial::new(big(p[0]), big(p[1]), big(p[2]), big(p[3]), big(p[4]));
    assert!((tally.estimates().elo - 40.0).abs() < 1e-3);
}
