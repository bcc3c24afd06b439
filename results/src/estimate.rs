//! Point estimates with 95% intervals from a tally: logistic Elo, normalized
//! Elo, LOS, draw ratio and score. The formulas are fishtest's
//! (`stat_util.get_elo`) and fastchess's (`EloWDL`, `EloPentanomial`): zero
//! counts are regularized first, and for paired games the variance is the
//! one of pair scores, which is what makes pairs worth playing.

use crate::elo::{NELO_PER_T, elo_from_score};
use crate::mle::{Frequencies, PENTANOMIAL_POINTS, TRINOMIAL_POINTS, empirical, mean_variance};
use crate::normal::{Z95, normal_cdf};

/// What a tally says about the strength of the player it counts for.
///
/// Every field is finite for every tally, including an empty one: zero
/// counts are replaced by 0.001 before anything is computed (as fishtest
/// does), and Elo is clamped to about ±1200.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimates {
    /// Games counted (twice the pairs for a pentanomial).
    pub games: u64,
    /// Pairs counted, or `None` for a trinomial.
    pub pairs: Option<u64>,
    /// Mean score per game, in `[0, 1]`.
    pub score: f64,
    /// The fraction of draws: drawn games for a trinomial, pairs scoring
    /// exactly one point (two draws or a win and a loss) for a pentanomial.
    pub draw_ratio: f64,
    /// Logistic Elo difference to the opponent.
    pub elo: f64,
    /// Half-width of the 95% interval of `elo`: `(elo(s+) - elo(s-)) / 2`
    /// where `s±` bound the 95% interval of the score.
    pub elo_ci95: f64,
    /// Normalized Elo: `(score - 1/2) / sigma * 800 / ln 10`, with `sigma`
    /// the standard deviation of one game (for pairs: of a pair's score
    /// times `sqrt 2`).
    pub nelo: f64,
    /// Half-width of the 95% interval of `nelo`.
    pub nelo_ci95: f64,
    /// Likelihood of superiority: the probability that the player is the
    /// stronger, under a normal approximation of the mean score.
    pub los: f64,
}

/// Computes the estimates for a tally's frequencies.
pub(crate) fn estimates_of(frequencies: Frequencies, games: u64, pairs: Option<u64>) -> Estimates {
    match frequencies {
        Frequencies::Trinomial(counts) => {
            let draw_ratio = ratio(counts[1], games);
            compute(&TRINOMIAL_POINTS, counts, 1.0, games, pairs, draw_ratio)
        }
        Frequencies::Pentanomial(counts) => {
            let draw_ratio = ratio(counts[2], pairs.unwrap_or(0));
            compute(
                &PENTANOMIAL_POINTS,
                counts,
                std::f64::consts::SQRT_2,
                games,
                pairs,
                draw_ratio,
            )
        }
    }
}

/// `part / whole`, or 0 for no games.
#[allow(clippy::cast_precision_loss)]
fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

/// The estimates for counts over `points`, where one sample's standard
/// deviation times `per_game` is the per-game sigma of normalized Elo.
fn compute<const N: usize>(
    points: &[f64; N],
    counts: [u64; N],
    per_game: f64,
    games: u64,
    pairs: Option<u64>,
    draw_ratio: f64,
) -> Estimates {
    let e = empirical(counts);
    let (score, variance) = mean_variance(points, &e.probs);
    // Regularization keeps the variance and the sample count positive.
    let standard_error = (variance / e.total).sqrt();
    let low = elo_from_score(score - Z95 * standard_error);
    let high = elo_from_score(score + Z95 * standard_error);
    let sigma = variance.sqrt() * per_game;
    Estimates {
        games,
        pairs,
        score,
        draw_ratio,
        elo: elo_from_score(score),
        elo_ci95: (high - low) / 2.0,
        nelo: finite((score - 0.5) / sigma * NELO_PER_T),
        nelo_ci95: finite(Z95 * standard_error / sigma * NELO_PER_T),
        los: normal_cdf((score - 0.5) / standard_error),
    }
}

/// The value itself, or the largest finite value of its sign: nElo of a
/// perfect score grows without bound as the counts grow.
fn finite(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(f64::MIN, f64::MAX) }
}
