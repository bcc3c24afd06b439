//! Maximum-likelihood machinery behind the GSPRT: the regularized empirical
//! distribution of a tally, the maximum-likelihood distribution with a given
//! expected score (logistic model) or a given t-value (normalized model), and
//! the log-likelihood ratio built from the two.
//!
//! The mathematics follows Michel Van den Bergh's notes used by fishtest
//! ("Comments on normalized Elo", "Support of the MLE for multinomials"):
//! the constrained maximum-likelihood distribution is
//! `p_i = phat_i / (1 + x * b_i)` where `x` solves the secular equation
//! `sum_i phat_i * b_i / (1 + x * b_i) = 0`. Every loop here has a fixed
//! bound, and every result is finite: a statistic that can hang or return
//! NaN would stall or corrupt a match.

use crate::elo::score_from_elo;

/// Pair scores of a trinomial outcome, from loss to win.
pub(crate) const TRINOMIAL_POINTS: [f64; 3] = [0.0, 0.5, 1.0];

/// Pair scores of a pentanomial outcome, from two losses to two wins.
pub(crate) const PENTANOMIAL_POINTS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// A zero count is replaced by this, as fishtest does, so that every outcome
/// has positive probability and the secular equation always has a root.
const REGULARIZATION: f64 = 1e-3;

/// Expected scores are kept this far inside `(0, 1)`: a distribution on
/// `[0, 1]` with every outcome possible cannot have a mean of exactly 0 or 1.
const SCORE_MARGIN: f64 = 1e-10;

/// Newton steps (with bisection as the fallback) allowed to the secular
/// equation; a few dozen suffice, bisection alone needs about 100.
const SECULAR_STEPS: usize = 400;

/// Fixed-point iterations allowed to the t-value MLE from one start.
const FIXED_POINT_STEPS: usize = 100;

/// The fixed-point iteration stops when no probability moves by more.
const FIXED_POINT_TOLERANCE: f64 = 1e-12;

/// Attempts allowed to the continuation that walks the t-value target from
/// 0 to the requested one when the direct iteration fails.
const CONTINUATION_STEPS: usize = 200;

/// The counts of a tally, from the lowest score to the highest, with the
/// number of outcomes fixed by the variant: what the estimates and the
/// GSPRT compute from. Public only inside this private module, so that the
/// sealed trait behind [`crate::Tally`] may return it.
#[derive(Clone, Copy, Debug)]
pub enum Frequencies {
    /// Losses, draws, wins of single games.
    Trinomial([u64; 3]),
    /// Pair scores 0, 1/4, 1/2, 3/4, 1.
    Pentanomial([u64; 5]),
}

/// A tally as a probability distribution over its outcomes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Empirical<const N: usize> {
    /// The regularized number of samples (games or pairs).
    pub total: f64,
    /// The regularized frequency of each outcome; all positive, sum 1.
    pub probs: [f64; N],
}

/// Regularizes counts and turns them into frequencies.
pub(crate) fn empirical<const N: usize>(counts: [u64; N]) -> Empirical<N> {
    // u64 to f64 rounds above 2^53, which is harmless for statistics.
    #[allow(clippy::cast_precision_loss)]
    let regularized = counts.map(|n| if n == 0 { REGULARIZATION } else { n as f64 });
    let total: f64 = regularized.iter().sum();
    Empirical {
        total,
        probs: regularized.map(|n| n / total),
    }
}

/// Mean and variance of a distribution over `points`.
pub(crate) fn mean_variance<const N: usize>(points: &[f64; N], probs: &[f64; N]) -> (f64, f64) {
    let mean: f64 = points.iter().zip(probs).map(|(a, p)| a * p).sum();
    let variance = points.iter().zip(probs).map(|(a, p)| p * (a - mean) * (a - mean)).sum();
    (mean, variance)
}

/// Solves `sum_i p_i * b_i / (1 + x * b_i) = 0` for `x`.
///
/// The left side falls strictly from `+inf` to `-inf` on the interval where
/// every `1 + x * b_i` is positive, so a root exists exactly when some `b_i`
/// (with `p_i > 0`) is negative and some positive; otherwise `None`. The
/// returned `x` keeps every `1 + x * b_i` positive.
fn secular<const N: usize>(b: &[f64; N], p: &[f64; N]) -> Option<f64> {
    let (mut b_min, mut b_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for (&bi, &pi) in b.iter().zip(p) {
        if pi > 0.0 {
            b_min = b_min.min(bi);
            b_max = b_max.max(bi);
        }
    }
    if !(b_min < 0.0 && b_max > 0.0 && b_min.is_finite() && b_max.is_finite()) {
        return None;
    }
    // The open domain of x; the root lies strictly inside, and so does 0.
    let mut lo = -1.0 / b_max;
    let mut hi = -1.0 / b_min;
    // f and f' at x, or None when rounding puts x outside the domain.
    let eval = |x: f64| -> Option<(f64, f64)> {
        let (mut f, mut df) = (0.0, 0.0);
        for (&bi, &pi) in b.iter().zip(p) {
            if pi > 0.0 {
                let d = 1.0 + x * bi;
                if d <= 0.0 {
                    return None;
                }
                let q = bi / d;
                f += pi * q;
                df -= pi * q * q;
            }
        }
        (f.is_finite() && df.is_finite()).then_some((f, df))
    };
    let mut x = 0.0;
    let mut best = None;
    for _ in 0..SECULAR_STEPS {
        let Some((f, df)) = eval(x) else {
            // Outside the domain on the side of x's sign: shrink towards 0.
            if x < 0.0 {
                lo = x;
            } else {
                hi = x;
            }
            let mid = lo + 0.5 * (hi - lo);
            if mid == x {
                break;
            }
            x = mid;
            continue;
        };
        best = Some(x);
        if f == 0.0 {
            break;
        }
        if f > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - f / df;
        let next = if newton > lo && newton < hi {
            newton
        } else {
            lo + 0.5 * (hi - lo)
        };
        if next == x || (next - x).abs() <= 4.0 * f64::EPSILON * x.abs() {
            if eval(next).is_some() {
                best = Some(next);
            }
            break;
        }
        x = next;
    }
    best
}

/// Applies the secular solution: `p_i = phat_i / (1 + x * b_i)`.
fn tilt<const N: usize>(phat: &[f64; N], b: &[f64; N], x: f64) -> [f64; N] {
    std::array::from_fn(|i| phat[i] / (1.0 + x * b[i]))
}

/// The maximum-likelihood distribution over `points` with expected value
/// `s`, given the empirical distribution `phat` (all positive).
pub(crate) fn mle_expected<const N: usize>(points: &[f64; N], phat: &[f64; N], s: f64) -> [f64; N] {
    let lowest = points[0] + SCORE_MARGIN;
    let highest = points[N - 1] - SCORE_MARGIN;
    let s = if s.is_nan() { 0.5 } else { s.clamp(lowest, highest) };
    let b = points.map(|a| a - s);
    match secular(&b, phat) {
        Some(x) => tilt(phat, &b, x),
        // Unreachable with positive phat and s strictly inside the points.
        None => *phat,
    }
}

/// One run of the fixed-point iteration for the t-value MLE from `start`;
/// `None` when it leaves the domain or does not settle.
fn iterate_t_value<const N: usize>(
    points: &[f64; N],
    phat: &[f64; N],
    reference: f64,
    t: f64,
    start: [f64; N],
) -> Option<[f64; N]> {
    let mut p = start;
    for _ in 0..FIXED_POINT_STEPS {
        let (mu, var) = mean_variance(points, &p);
        let sigma = var.sqrt();
        if !(sigma > 0.0 && sigma.is_finite()) {
            return None;
        }
        // The constraint (mu - reference) / sigma = t, linearized at p.
        let phi = points.map(|a| {
            let z = (mu - a) / sigma;
            a - reference - 0.5 * t * sigma * (1.0 + z * z)
        });
        let x = secular(&phi, phat)?;
        let next = tilt(phat, &phi, x);
        if next.iter().any(|q| !(q.is_finite() && *q > 0.0)) {
            return None;
        }
        let moved = next.iter().zip(&p).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        p = next;
        if moved < FIXED_POINT_TOLERANCE {
            return Some(p);
        }
    }
    None
}

/// The maximum-likelihood distribution over `points` whose t-value
/// `(mean - reference) / sd` is `t`, given the empirical distribution `phat`.
///
/// The fixed-point iteration starts from the uniform distribution, as
/// fishtest's does. For targets far from the data it may find no root, so
/// it then walks the target from 0 (always solvable) towards `t`, each step
/// starting from the previous solution, doubling the step on success and
/// halving it on failure. If the budget runs out, the solution for the
/// nearest target reached is returned: finite, and in practice only for
/// absurd bounds.
pub(crate) fn mle_t_value<const N: usize>(points: &[f64; N], phat: &[f64; N], reference: f64, t: f64) -> [f64; N] {
    #[allow(clippy::cast_precision_loss)]
    let uniform = [1.0 / N as f64; N];
    let t = if t.is_finite() { t } else { 0.0 };
    if let Some(p) = iterate_t_value(points, phat, reference, t, uniform) {
        return p;
    }
    let Some(mut p) = iterate_t_value(points, phat, reference, 0.0, uniform) else {
        return *phat;
    };
    let mut reached = 0.0;
    let mut step = t;
    for _ in 0..CONTINUATION_STEPS {
        let target = if (t - reached).abs() <= step.abs() {
            t
        } else {
            reached + step
        };
        if let Some(q) = iterate_t_value(points, phat, reference, target, p) {
            p = q;
            reached = target;
            if reached == t {
                break;
            }
            step *= 2.0;
        } else {
            step /= 2.0;
        }
    }
    p
}

/// `total * sum_i phat_i * ln(p1_i / p0_i)`, kept finite.
fn log_likelihood_ratio<const N: usize>(empirical: &Empirical<N>, p0: &[f64; N], p1: &[f64; N]) -> f64 {
    let per_sample: f64 = (0..N).map(|i| empirical.probs[i] * (p1[i].ln() - p0[i].ln())).sum();
    let llr = empirical.total * per_sample;
    // Every p is positive and finite by construction; this only keeps the
    // promise of a finite result if rounding ever says otherwise.
    if llr.is_finite() { llr } else { 0.0 }
}

/// The GSPRT log-likelihood ratio of H1 (expected score at `elo1`) against
/// H0 (at `elo0`), logistic Elo, for counts over `points`.
pub(crate) fn llr_logistic<const N: usize>(points: &[f64; N], counts: [u64; N], elo0: f64, elo1: f64) -> f64 {
    let e = empirical(counts);
    let p0 = mle_expected(points, &e.probs, score_from_elo(elo0));
    let p1 = mle_expected(points, &e.probs, score_from_elo(elo1));
    log_likelihood_ratio(&e, &p0, &p1)
}

/// The GSPRT log-likelihood ratio of H1 (t-value `t1`) against H0 (`t0`)
/// for counts over `points`, with the t-value measured from a score of 1/2.
pub(crate) fn llr_t_value<const N: usize>(points: &[f64; N], counts: [u64; N], t0: f64, t1: f64) -> f64 {
    let e = empirical(counts);
    let p0 = mle_t_value(points, &e.probs, 0.5, t0);
    let p1 = mle_t_value(points, &e.probs, 0.5, t1);
    log_likelihood_ratio(&e, &p0, &p1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t_value<const N: usize>(points: &[f64; N], p: &[f64; N]) -> f64 {
        let (mu, var) = mean_variance(points, p);
        (mu - 0.5) / var.sqrt()
    }

    #[test]
    fn secular_root_is_a_root() {
        let b = [-0.5, -0.25, 0.0, 0.25, 0.5];
        let p = [0.1, 0.2, 0.3, 0.25, 0.15];
        let x = secular(&b, &p).unwrap();
        let f: f64 = (0..5).map(|i| p[i] * b[i] / (1.0 + x * b[i])).sum();
        assert!(f.abs() < 1e-15, "f(x) = {f}");
        assert_eq!(secular(&[0.1, 0.2], &[0.5, 0.5]), None);
        assert_eq!(secular(&[-0.1, 0.0], &[0.5, 0.5]), None);
    }

    #[test]
    fn mle_expected_has_the_requested_mean() {
        let e = empirical([10u64, 20, 40, 25, 5]);
        for s in [0.01, 0.3, 0.5, 0.51, 0.99] {
            let p = mle_expected(&PENTANOMIAL_POINTS, &e.probs, s);
            let (mu, _) = mean_variance(&PENTANOMIAL_POINTS, &p);
            assert!((mu - s).abs() < 1e-12, "mean {mu} for {s}");
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn mle_t_value_has_the_requested_t_value_even_far_from_the_data() {
        // Targets beyond about 0.94 defeat the iteration from the uniform
        // start; the continuation must still get there.
        let cases: [[u64; 5]; 4] = [
            [10789, 19328, 33806, 19402, 10543],
            [1, 2, 3, 4, 5],
            [0, 0, 1000, 0, 0],
            [100, 0, 0, 0, 0],
        ];
        for counts in cases {
            let e = empirical(counts);
            for t in [-6.0, -4.0, -1.0, -0.5, 0.0, 0.01, 0.5, 1.0, 2.0, 4.0, 6.0] {
                let p = mle_t_value(&PENTANOMIAL_POINTS, &e.probs, 0.5, t);
                let got = t_value(&PENTANOMIAL_POINTS, &p);
                assert!(
                    (got - t).abs() < 1e-6 * t.abs().max(1.0),
                    "{counts:?}: t-value {got} for target {t}"
                );
            }
        }
    }

    #[test]
    fn llr_is_zero_when_the_hypotheses_coincide() {
        let counts = [10u64, 20, 40, 25, 5];
        assert!(llr_logistic(&PENTANOMIAL_POINTS, counts, 3.0, 3.0).abs() < 1e-12);
        assert!(llr_t_value(&PENTANOMIAL_POINTS, counts, 0.01, 0.01).abs() < 1e-12);
    }
}
