//! Recipes for the perturbation `c` and the step of every parameter over the
//! run, and for the result (the last iterate or an average of iterates).
//!
//! - [`Schedule::Derived`], the default, needs nothing but each parameter's
//!   range, the number of parameters and the game budget: the perturbation
//!   is a share of the range (`c_i = c_ratio * (max_i - min_i)`), and the
//!   learning rate is the one for which, at a constant rate, the expected
//!   Elo lost to the noise of the iterate stays below `precision` with 95%
//!   confidence (the rule fishtest's "autoselect" takes from van den
//!   Bergh's analysis): `r = precision / (C * chi2_95(n) * (1 - d) / 8)`
//!   with `C = 800 / ln 10` (Elo per unit of expected score difference of
//!   two games), `n` the number of parameters and `d` the draw ratio
//!   **measured from the pairs told so far** (see [`draw_ratio`]). The rate
//!   is held at `gain * r` for the first `hold` share of the pairs (of at
//!   most [`HOLD_REFERENCE_PAIRS`], so a longer run ends with a smaller
//!   rate) and decays as `(held / k)^alpha` after (`alpha` 0.6 by
//!   default), and the result is the average of the iterates weighted by
//!   `k^eta`, which with a large `eta` forgets the early iterates and so
//!   does not lag behind the iterate. Each trial moves parameter `i` by
//!   `r_k * c_i^2 / c_i * (wins - losses) * sign_i`, as in fishtest
//!   (`a = r * c^2`). Near a bound `c_i` shrinks to the distance to it, but not
//!   below `edge * c_i`, keeping the scheduled `a / c` (see `Tuner::ask`).
//!   `c_end` and `r_end` are ignored.
//! - [`Schedule::Classic`]: fishtest's and OpenBench's SPSA from each
//!   parameter's `c_end` and `r_end`, for reproducing a run of those tools.
//! - [`Schedule::Averaged`]: this crate's previous default (classic
//!   perturbations from `c_end`, a held then decaying step, `k`-weighted
//!   average), kept to compare against.
//!
//! `k` counts game pairs told so far plus one (fishtest's `iter + 1`) and
//! `N` is the run's budget in pairs.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// Elo per unit of the expected `wins - losses` of one game, near equal
/// strength: `800 / ln 10` (logistic model).
pub const ELO_PER_SCORE: f64 = 347.435_585_522_601_5;

/// A recipe for the step and perturbation sizes over the run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "recipe", rename_all = "snake_case")]
pub enum Schedule {
    /// fishtest's (and OpenBench's) SPSA: `c_k = c_end * (N / k)^gamma`,
    /// `a_k = a_end * ((A + N) / (A + k))^alpha` with `A = a_ratio * N` and
    /// `a_end = r_end * c_end^2`; the result is the last iterate.
    Classic {
        /// Decay exponent of the step size (fishtest: 0.602).
        alpha: f64,
        /// Decay exponent of the perturbation (fishtest: 0.101).
        gamma: f64,
        /// The stability constant `A` as a share of the pairs (fishtest: 0.1).
        a_ratio: f64,
    },
    /// The previous default: classic perturbations, a step held at
    /// `gain * a_end` for the first `hold` share of the pairs and decaying
    /// as `(hold * N / k)^alpha` after it, and the average of the iterates
    /// weighted by `k^eta`.
    Averaged {
        /// The step, as a multiple of `a_end`, while it is held.
        gain: f64,
        /// The share of the pairs during which the step is held.
        hold: f64,
        /// Decay exponent of the step after the hold.
        alpha: f64,
        /// Decay exponent of the perturbation.
        gamma: f64,
        /// The averaging weight exponent.
        eta: f64,
    },
    /// The default: perturbation and step derived from the ranges, the
    /// number of parameters and the measured draw ratio (see the module
    /// documentation); `c_end` and `r_end` are not used.
    Derived {
        /// The perturbation as a share of each parameter's range.
        c_ratio: f64,
        /// The Elo the noise of a constant-rate iterate may cost (95%).
        precision: f64,
        /// The rate while it is held, as a multiple of the derived rate.
        gain: f64,
        /// The share of the pairs during which the rate is held.
        hold: f64,
        /// Decay exponent of the rate after the hold.
        alpha: f64,
        /// The averaging weight exponent: iterates count by `k^eta`, so
        /// the average spans about the last `1 / (eta + 1)` of the run.
        eta: f64,
        /// Near a bound the perturbation shrinks to the distance from the
        /// iterate to the bound, so the two values stay symmetric about it,
        /// but not below this share of `c`; only closer than that are the
        /// played values clipped. 1 never shrinks (states saved before the
        /// field existed read as 1, their behaviour).
        #[serde(default = "no_shrink")]
        edge: f64,
    },
}

/// The `edge` of states saved before the field existed: no shrinking.
fn no_shrink() -> f64 {
    1.0
}

impl Default for Schedule {
    fn default() -> Self {
        Self::derived()
    }
}

/// Why a schedule is unusable.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ScheduleError {
    /// A field is NaN, infinite or outside its range.
    #[error("schedule field {field} must be in [{min}, {max}], not {value}")]
    OutOfRange {
        /// The field's name.
        field: &'static str,
        /// The value given.
        value: f64,
        /// The least allowed value.
        min: f64,
        /// The greatest allowed value.
        max: f64,
    },
}

/// The named recipes a user picks from (`arena tune --recipe NAME`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recipe {
    /// [`Schedule::derived`]: needs only ranges and the budget.
    #[default]
    Default,
    /// fishtest's classic SPSA from `c_end` and `r_end`.
    Classic,
    /// OpenBench's SPSA from `c_end` and `r_end` (the same formulas as
    /// fishtest's, counted per pair).
    OpenBench,
    /// The previous default ([`Schedule::Averaged`]).
    Averaged,
}

impl Recipe {
    /// Every recipe, in the order of [`Recipe::NAMES`].
    pub const ALL: [Self; 4] = [Self::Default, Self::Classic, Self::OpenBench, Self::Averaged];
    /// The names of [`Recipe::ALL`] as the command line takes them.
    pub const NAMES: [&'static str; 4] = ["default", "classic", "openbench", "averaged"];

    /// The recipe's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Classic => "classic",
            Self::OpenBench => "openbench",
            Self::Averaged => "averaged",
        }
    }

    /// The recipe's schedule.
    #[must_use]
    pub fn schedule(self) -> Schedule {
        match self {
            Self::Default => Schedule::derived(),
            Self::Classic | Self::OpenBench => Schedule::fishtest(),
            Self::Averaged => Schedule::averaged(),
        }
    }

    /// Whether the recipe takes `c_end` and `r_end` from the parameters.
    #[must_use]
    pub fn uses_c_end_r_end(self) -> bool {
        self.schedule().uses_c_end_r_end()
    }
}

impl std::str::FromStr for Recipe {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| format!("unknown recipe '{text}' (expected one of {})", Self::NAMES.join(", ")))
    }
}

impl std::fmt::Display for Recipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Schedule {
    /// fishtest's recipe: alpha 0.602, gamma 0.101, A = 10% of the pairs.
    #[must_use]
    pub fn fishtest() -> Self {
        Self::Classic {
            alpha: 0.602,
            gamma: 0.101,
            a_ratio: 0.1,
        }
    }

    /// The previous default, [`Schedule::Averaged`]: the step held at 16
    /// times `a_end` for the first half of the pairs, then decaying with
    /// exponent 0.602, fishtest's perturbations, `k`-weighted average.
    #[must_use]
    pub fn averaged() -> Self {
        Self::Averaged {
            gain: 16.0,
            hold: 0.5,
            alpha: 0.602,
            gamma: 0.101,
            eta: 1.0,
        }
    }

    /// The default recipe, [`Schedule::Derived`], with the settings the
    /// benchmark in `examples/bench.rs` chose: the perturbation 30% of the
    /// range, the rate held at 3 times the derived one for the first 20%
    /// of the pairs (of at most [`HOLD_REFERENCE_PAIRS`]), then decaying as
    /// `k^-0.6`. A `1/k` decay (an earlier setting, gain 8) shrinks the
    /// step so fast that parameters of low curvature stop short of their
    /// optimum (stochastic approximation with a `1/k` step converges at
    /// that rate only when gain times curvature exceeds one half); the
    /// slower decay keeps every parameter moving, and the `k^3`-weighted
    /// average takes out the noise that the larger late steps add. The
    /// hold is long and low rather than short and high (it was 5 times the
    /// rate for 10%) because a parameter that barely matters has no pull
    /// back to its optimum: it random-walks by the square root of the sum
    /// of the squared steps, which a high start inflates, while the
    /// parameters that matter need only the sum of the steps (on a nearly
    /// tuned surface four such parameters had ended farther from their
    /// optimum than they started).
    #[must_use]
    pub fn derived() -> Self {
        Self::Derived {
            c_ratio: 0.3,
            precision: 0.5,
            gain: 3.0,
            hold: 0.2,
            alpha: 0.6,
            eta: 3.0,
            edge: 0.5,
        }
    }

    /// A short name for tables and logs.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Classic { .. } => "classic",
            Self::Averaged { .. } => "averaged",
            Self::Derived { .. } => "default",
        }
    }

    /// Whether the schedule takes `c_end` and `r_end` from the parameters.
    #[must_use]
    pub fn uses_c_end_r_end(&self) -> bool {
        !matches!(self, Self::Derived { .. })
    }

    /// Checks every field against its range.
    ///
    /// # Errors
    /// [`ScheduleError::OutOfRange`] for the first field at fault.
    pub fn validate(&self) -> Result<(), ScheduleError> {
        let check = |field: &'static str, value: f64, min: f64, max: f64| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(ScheduleError::OutOfRange { field, value, min, max })
            }
        };
        match *self {
            Self::Classic { alpha, gamma, a_ratio } => {
                check("alpha", alpha, 0.0, 2.0)?;
                check("gamma", gamma, 0.0, 1.0)?;
                check("a_ratio", a_ratio, 0.0, 10.0)
            }
            Self::Averaged {
                gain,
                hold,
                alpha,
                gamma,
                eta,
            } => {
                check("gain", gain, 1e-3, 1e3)?;
                check("hold", hold, 1e-6, 1.0)?;
                check("alpha", alpha, 0.0, 2.0)?;
                check("gamma", gamma, 0.0, 1.0)?;
                check("eta", eta, 0.0, 100.0)
            }
            Self::Derived {
                c_ratio,
                precision,
                gain,
                hold,
                alpha,
                eta,
                edge,
            } => {
                check("c_ratio", c_ratio, 1e-6, 0.5)?;
                check("edge", edge, 0.0, 1.0)?;
                check("precision", precision, 1e-6, 1e3)?;
                check("gain", gain, 1e-3, 1e3)?;
                check("hold", hold, 1e-6, 1.0)?;
                check("alpha", alpha, 0.0, 2.0)?;
                check("eta", eta, 0.0, 100.0)
            }
        }
    }

    /// The perturbation at pair `k` (from 1) of `n`, as a multiple of
    /// `c_end` for the schedules that use it, and of the range for
    /// [`Schedule::Derived`].
    pub(crate) fn c_scale(&self, k: f64, n: f64) -> f64 {
        match *self {
            Self::Classic { gamma, .. } | Self::Averaged { gamma, .. } => (n / k).powf(gamma),
            Self::Derived { c_ratio, .. } => c_ratio,
        }
    }

    /// The step at pair `k` (from 1) of `n`: a multiple of `a_end` for the
    /// schedules that use it; for [`Schedule::Derived`] the learning rate
    /// `r_k` itself, given the number of parameters and the draw ratio.
    pub(crate) fn a_scale(&self, k: f64, n: f64, params: usize, draw_ratio: f64) -> f64 {
        let held = |gain: f64, hold: f64, alpha: f64| {
            let held = hold * n;
            if k <= held { gain } else { gain * (held / k).powf(alpha) }
        };
        match *self {
            Self::Classic { alpha, a_ratio, .. } => {
                let a = a_ratio * n;
                ((a + n) / (a + k)).powf(alpha)
            }
            Self::Averaged { gain, hold, alpha, .. } => held(gain, hold, alpha),
            Self::Derived {
                precision,
                gain,
                hold,
                alpha,
                ..
            } => {
                // Held for a share of at most HOLD_REFERENCE_PAIRS, so longer
                // runs end with a smaller rate and less noise.
                let held_pairs = hold * n.min(HOLD_REFERENCE_PAIRS);
                let scale = if k <= held_pairs {
                    gain
                } else {
                    gain * (held_pairs / k).powf(alpha)
                };
                derived_rate(precision, params, draw_ratio) * scale
            }
        }
    }

    /// The least share of the perturbation kept near a bound (see
    /// [`Schedule::Derived`]'s `edge`); 1 for the recipes that never shrink it.
    pub(crate) fn edge(&self) -> f64 {
        match *self {
            Self::Derived { edge, .. } => edge,
            _ => 1.0,
        }
    }

    /// The averaging exponent, or `None` when the result is the last iterate.
    pub(crate) fn averaging(&self) -> Option<f64> {
        match *self {
            Self::Classic { .. } => None,
            Self::Averaged { eta, .. } | Self::Derived { eta, .. } => Some(eta),
        }
    }
}

/// The learning rate for which a constant-rate iterate's noise costs at most
/// `precision` Elo with 95% confidence, for `params` parameters and games
/// with draw ratio `draw_ratio`: `precision / (C * chi2_95(params) * (1 -
/// draw_ratio) / 8)`, with `C` = [`ELO_PER_SCORE`]. The draw ratio is held
/// below 0.95 so the rate stays finite.
#[must_use]
pub fn derived_rate(precision: f64, params: usize, draw_ratio: f64) -> f64 {
    let dof = params.max(1) as f64;
    let chi2 = ChiSquared::new(dof).map_or(dof, |d| d.inverse_cdf(0.95));
    let draws = draw_ratio.clamp(0.0, 0.95);
    precision / (ELO_PER_SCORE * chi2 * (1.0 - draws) / 8.0)
}

/// The derived recipe holds its rate for a share of the budget's pairs, but
/// of at most this many pairs (20,000 games): a longer run decays from the
/// same point and so ends with a smaller rate and less noise.
pub const HOLD_REFERENCE_PAIRS: f64 = 10_000.0;

/// Pairs of prior belief in the draw ratio measured by [`draw_ratio`]: the
/// measurement counts as this many pairs at a draw ratio of one half until
/// the pairs told outweigh it.
pub const DRAW_PRIOR_PAIRS: f64 = 64.0;

/// The draw ratio that the spread of the pairs told corresponds to: the
/// draw ratio of independent games whose pairs would spread as much. A
/// pair's `wins - losses` from the counts `[ll, ld, dd, wd, ww]` is -2 to 2;
/// independent games with draw ratio `d` give it a variance of `2 (1 - d)`,
/// so `d = 1 - var / 2`. Openings that decide both games of a pair make the
/// spread smaller, which counts as more draws, as it should: it is the noise
/// that matters. Before the first pairs the prior ([`DRAW_PRIOR_PAIRS`] at
/// one half) dominates. The result lies in `[0, 0.95]`.
#[must_use]
pub fn draw_ratio(tally: [u64; 5]) -> f64 {
    let [ll, ld, dd, wd, ww] = tally.map(|n| n as f64);
    let pairs = ll + ld + dd + wd + ww;
    let sum = 2.0 * (ww - ll) + (wd - ld);
    let sum_sq = 4.0 * (ww + ll) + (wd + ld);
    let total = pairs + DRAW_PRIOR_PAIRS;
    let mean = sum / total;
    // The prior: variance 1 per pair (independent games, half drawn).
    let var = (sum_sq + DRAW_PRIOR_PAIRS) / total - mean * mean;
    let _ = dd;
    (1.0 - var / 2.0).clamp(0.0, 0.95)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_reaches_c_end_and_a_end_at_the_last_pair() {
        let s = Schedule::fishtest();
        let n = 30_000.0;
        assert!((s.c_scale(n, n) - 1.0).abs() < 1e-12);
        assert!((s.a_scale(n, n, 8, 0.5) - 1.0).abs() < 1e-12);
        // At the first pair: c = c_end * n^0.101, a = a_end * (1.1 n / (0.1 n + 1))^0.602.
        assert!((s.c_scale(1.0, n) - n.powf(0.101)).abs() < 1e-9);
        assert!((s.a_scale(1.0, n, 8, 0.5) - (1.1 * n / (0.1 * n + 1.0)).powf(0.602)).abs() < 1e-9);
    }

    #[test]
    fn averaged_holds_then_decays() {
        let s = Schedule::Averaged {
            gain: 4.0,
            hold: 0.5,
            alpha: 1.0,
            gamma: 0.101,
            eta: 2.0,
        };
        assert_eq!(s.a_scale(1.0, 100.0, 3, 0.0), 4.0);
        assert_eq!(s.a_scale(50.0, 100.0, 3, 0.0), 4.0);
        assert!((s.a_scale(100.0, 100.0, 3, 0.0) - 2.0).abs() < 1e-12);
        assert!(s.validate().is_ok());
        assert!(
            Schedule::Averaged {
                gain: f64::NAN,
                hold: 0.5,
                alpha: 1.0,
                gamma: 0.1,
                eta: 2.0
            }
            .validate()
            .is_err()
        );
    }

    #[test]
    fn the_derived_rate_follows_the_documented_formula() {
        // chi2_95 quantiles: 3.841 for 1 degree of freedom, 15.507 for 8.
        let r1 = derived_rate(0.5, 1, 0.0);
        assert!(
            (r1 - 0.5 / (ELO_PER_SCORE * 3.841_458_820_694_124 / 8.0)).abs() < 1e-12,
            "{r1}"
        );
        let r8 = derived_rate(0.5, 8, 0.6);
        let expected = 0.5 / (ELO_PER_SCORE * 15.507_313_055_865_453 * 0.4 / 8.0);
        assert!((r8 - expected).abs() < 1e-9 * expected, "{r8} {expected}");
        // More draws, a larger rate; more parameters, a smaller one.
        assert!(derived_rate(0.5, 8, 0.6) > derived_rate(0.5, 8, 0.1));
        assert!(derived_rate(0.5, 16, 0.3) < derived_rate(0.5, 4, 0.3));
        assert!((ELO_PER_SCORE - 800.0 / std::f64::consts::LN_10).abs() < 1e-9);
        // The derived schedule: c a share of the range, the rate times the gain while held,
        // then decaying as (hold N / k)^alpha.
        let s = Schedule::derived();
        let Schedule::Derived {
            c_ratio,
            gain,
            hold,
            alpha,
            ..
        } = s
        else {
            unreachable!()
        };
        // The settings the README documents: 30% of the range, 3 r held
        // for 20% of the pairs, then k^-0.6, k^3 average, shrink to c/2.
        assert_eq!(
            s,
            Schedule::Derived {
                c_ratio: 0.3,
                precision: 0.5,
                gain: 3.0,
                hold: 0.2,
                alpha: 0.6,
                eta: 3.0,
                edge: 0.5
            }
        );
        assert_eq!(s.edge(), 0.5);
        assert_eq!(Schedule::fishtest().edge(), 1.0);
        assert!((s.c_scale(7.0, 1000.0) - c_ratio).abs() < 1e-15);
        assert!((s.a_scale(1.0, 1000.0, 8, 0.6) - gain * r8).abs() < 1e-12);
        let late = s.a_scale(1000.0, 1000.0, 8, 0.6);
        assert!((late - gain * r8 * hold.powf(alpha)).abs() < 1e-12);
        // A budget beyond the reference holds for the same pairs.
        let n = 5.0 * HOLD_REFERENCE_PAIRS;
        let held = hold * HOLD_REFERENCE_PAIRS;
        assert!((s.a_scale(held, n, 8, 0.6) - gain * r8).abs() < 1e-12);
        assert!((s.a_scale(n, n, 8, 0.6) - gain * r8 * (held / n).powf(alpha)).abs() < 1e-12);
        // In numbers: 100,000 games are 50,000 pairs; 3 r for the first
        // 2,000, then 3 r (2,000 / k)^0.6, which ends at 0.435 r (0.4349).
        assert!((s.a_scale(2000.0, 50_000.0, 8, 0.6) / r8 - 3.0).abs() < 1e-12);
        assert!(s.a_scale(2001.0, 50_000.0, 8, 0.6) / r8 < 3.0);
        assert!((s.a_scale(50_000.0, 50_000.0, 8, 0.6) / r8 - 0.4349).abs() < 1e-4);
        // 20,000 games: held for 20% of their 10,000 pairs, the same 2,000.
        assert!((s.a_scale(2000.0, 10_000.0, 8, 0.6) / r8 - 3.0).abs() < 1e-12);
        assert!((s.a_scale(10_000.0, 10_000.0, 8, 0.6) / r8 - 3.0 * 0.2f64.powf(0.6)).abs() < 1e-12);
    }

    #[test]
    fn the_draw_ratio_is_measured_from_the_spread_of_the_pairs() {
        // No pairs: the prior, one half.
        assert!((draw_ratio([0; 5]) - 0.5).abs() < 1e-12);
        // Independent games with 60% draws, no edge: pair scores
        // ll 0.04, ld 0.24, dd 0.36 + 0.08, wd 0.24, ww 0.04.
        let n = 1_000_000.0;
        let counts = [0.04, 0.24, 0.44, 0.24, 0.04].map(|p: f64| (p * n) as u64);
        assert!((draw_ratio(counts) - 0.6).abs() < 0.001, "{}", draw_ratio(counts));
        // Every pair split 1-1: no noise at all, held at 0.95.
        assert!((draw_ratio([0, 0, 100_000, 0, 0]) - 0.95).abs() < 1e-12);
        // Only decisive, unanimous pairs: maximal spread.
        assert_eq!(draw_ratio([50_000, 0, 0, 0, 50_000]), 0.0);
    }
}
