//! Conversions between an expected score and the two Elo scales: logistic
//! Elo (the classic scale, where a score of 0.64 is about +100) and
//! normalized Elo (the score's distance from 1/2 in standard deviations of
//! one game, scaled so that small differences read like logistic Elo).

/// Normalized Elo per unit of the t-value `(score - 1/2) / sigma`:
/// `800 / ln 10`, about 347.4. With this factor nElo equals logistic Elo
/// near zero for games that are never drawn (sigma 1/2 per game).
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Scores closer than this to 0 or 1 are clamped before conversion to Elo,
/// as fishtest does, so every Elo value stays finite (within about ±1200).
const SCORE_CLAMP: f64 = 1e-3;

/// The expected score of a player `elo` logistic Elo stronger than its
/// opponent: `1 / (1 + 10^(-elo/400))`, in `[0, 1]`.
#[must_use]
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic Elo difference that gives the expected score `score`.
///
/// Scores are clamped to `[0.001, 0.999]` first (fishtest does the same), so
/// the result is finite and within about ±1200 for every input; NaN gives 0.
#[must_use]
pub fn elo_from_score(score: f64) -> f64 {
    if score.is_nan() {
        return 0.0;
    }
    let s = score.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
    -400.0 * (1.0 / s - 1.0).log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_inverse_within_the_clamp() {
        for elo in [-1000.0, -100.0, -1.0, 0.0, 0.5, 35.0, 400.0, 1100.0] {
            let back = elo_from_score(score_from_elo(elo));
            assert!((back - elo).abs() < 1e-9, "{elo} came back as {back}");
        }
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-15);
        assert_eq!(score_from_elo(0.0), 0.5);
    }

    #[test]
    fn extreme_scores_stay_finite() {
        let top = elo_from_score(1.0);
        assert!(top.is_finite() && top > 1199.0 && top < 1200.0);
        assert!((elo_from_score(0.0) + top).abs() < 1e-9);
        assert_eq!(elo_from_score(f64::NAN), 0.0);
        assert_eq!(score_from_elo(1e9), 1.0);
        assert_eq!(score_from_elo(-1e9), 0.0);
    }
}
