//! Gain and perturbation schedules: how the step size `a_k` and the
//! perturbation `c_k` shrink as game pairs are played, relative to each
//! parameter's `a_end = r_end * c_end^2` and `c_end`, and whether the result
//! is the last iterate or an average of the iterates.
//!
//! `k` counts game pairs told so far plus one (fishtest's `iter + 1`) and
//! `n` is the run's budget in pairs, so both recipes reach `c_end` at the
//! end of the run whatever its length.

use serde::{Deserialize, Serialize};

/// A recipe for the step and perturbation sizes over the run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "recipe", rename_all = "snake_case")]
pub enum Schedule {
    /// fishtest's (and OpenBench's) SPSA: `c_k = c_end * (n / k)^gamma`,
    /// `a_k = a_end * ((A + n) / (A + k))^alpha` with `A = a_ratio * n`;
    /// the result is the last iterate.
    Classic {
        /// Decay exponent of the step size (fishtest: 0.602).
        alpha: f64,
        /// Decay exponent of the perturbation (fishtest: 0.101).
        gamma: f64,
        /// The stability constant `A` as a share of the pairs (fishtest: 0.1).
        a_ratio: f64,
    },
    /// This crate's default: the same perturbations, a step held at
    /// `gain * a_end` for the first `hold` share of the pairs and decaying
    /// as `(hold * n / k)^alpha` after it, and as result an average of the
    /// iterates weighted by `k^eta` (polynomial-decay averaging), which
    /// averages away the noise the larger steps add while keeping their
    /// faster approach.
    Averaged {
        /// The step, as a multiple of `a_end`, while it is held.
        gain: f64,
        /// The share of the pairs during which the step is held.
        hold: f64,
        /// Decay exponent of the step after the hold.
        alpha: f64,
        /// Decay exponent of the perturbation.
        gamma: f64,
        /// The averaging weight exponent: iterates count by `k^eta`, so
        /// larger values forget the early iterates faster.
        eta: f64,
    },
}

impl Default for Schedule {
    fn default() -> Self {
        Self::averaged()
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

    /// The default recipe, [`Schedule::Averaged`] with the settings the
    /// benchmark in `examples/bench.rs` chose: the step held at 16 times
    /// `a_end` for the first half of the pairs, then decaying with
    /// fishtest's exponent 0.602, fishtest's perturbations, and the iterates
    /// averaged with weights growing linearly with the pair count.
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

    /// A short name for tables and logs.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Classic { .. } => "classic",
            Self::Averaged { .. } => "averaged",
        }
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
        }
    }

    /// `c_k / c_end` at pair `k` (from 1) of `n`.
    pub(crate) fn c_scale(&self, k: f64, n: f64) -> f64 {
        let gamma = match *self {
            Self::Classic { gamma, .. } | Self::Averaged { gamma, .. } => gamma,
        };
        (n / k).powf(gamma)
    }

    /// `a_k / a_end` at pair `k` (from 1) of `n`.
    pub(crate) fn a_scale(&self, k: f64, n: f64) -> f64 {
        match *self {
            Self::Classic { alpha, a_ratio, .. } => {
                let a = a_ratio * n;
                ((a + n) / (a + k)).powf(alpha)
            }
            Self::Averaged { gain, hold, alpha, .. } => {
                let held = hold * n;
                if k <= held { gain } else { gain * (held / k).powf(alpha) }
            }
        }
    }

    /// The averaging exponent, or `None` when the result is the last iterate.
    pub(crate) fn averaging(&self) -> Option<f64> {
        match *self {
            Self::Classic { .. } => None,
            Self::Averaged { eta, .. } => Some(eta),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_reaches_c_end_and_a_end_at_the_last_pair() {
        let s = Schedule::fishtest();
        let n = 30_000.0;
        assert!((s.c_scale(n, n) - 1.0).abs() < 1e-12);
        assert!((s.a_scale(n, n) - 1.0).abs() < 1e-12);
        // At the first pair: c = c_end * n^0.101, a = a_end * (1.1 n / (0.1 n + 1))^0.602.
        assert!((s.c_scale(1.0, n) - n.powf(0.101)).abs() < 1e-9);
        assert!((s.a_scale(1.0, n) - (1.1 * n / (0.1 * n + 1.0)).powf(0.602)).abs() < 1e-9);
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
        assert_eq!(s.a_scale(1.0, 100.0), 4.0);
        assert_eq!(s.a_scale(50.0, 100.0), 4.0);
        assert!((s.a_scale(100.0, 100.0) - 2.0).abs() < 1e-12);
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
}
