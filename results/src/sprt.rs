//! The generalized sequential probability ratio test (GSPRT) that decides
//! whether a change gains at least `elo1` or at most `elo0`, as fishtest and
//! fastchess run it: the log-likelihood ratio is the exact ratio of the two
//! constrained maximum-likelihood distributions (not a Brownian
//! approximation), and the test stops when it leaves Wald's bounds
//! `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)`.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::elo::NELO_PER_T;
use crate::mle::{Frequencies, PENTANOMIAL_POINTS, TRINOMIAL_POINTS, llr_logistic, llr_t_value};
use crate::tally::{Tally, frequencies_of};

/// The Elo scale in which `elo0` and `elo1` are expressed. Its one
/// spelling, on the command line, in settings files and in records, is
/// [`EloModel::name`] (`normalized`, `logistic`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum EloModel {
    /// Normalized Elo: the hypotheses fix the t-value `(score - 1/2) /
    /// sigma`, so they do not depend on the draw rate (fishtest's default).
    #[default]
    Normalized,
    /// Logistic Elo: the hypotheses fix the expected score.
    Logistic,
}

impl EloModel {
    /// The model's name as the command line spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Normalized => "normalized",
            Self::Logistic => "logistic",
        }
    }

    /// Both models, the default first.
    pub const ALL: [EloModel; 2] = [Self::Normalized, Self::Logistic];
}

impl fmt::Display for EloModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A model name that is neither `normalized` nor `logistic`.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown Elo model {0:?} (expected normalized or logistic)")]
pub struct ParseEloModelError(pub String);

impl FromStr for EloModel {
    type Err = ParseEloModelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| ParseEloModelError(s.to_owned()))
    }
}

/// The design of a test: hypotheses, error rates and model.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SprtConfig {
    /// H0: the Elo difference is `elo0`.
    pub elo0: f64,
    /// H1: the Elo difference is `elo1`; must exceed `elo0`.
    pub elo1: f64,
    /// The largest accepted probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The largest accepted probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// The scale of `elo0` and `elo1`.
    pub model: EloModel,
}

impl Default for SprtConfig {
    /// `[0, 5]` normalized Elo with 5% error rates.
    fn default() -> Self {
        Self {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        }
    }
}

/// Why a test design was refused.
#[derive(Clone, Copy, Debug, Error, PartialEq)]
pub enum SprtError {
    /// `elo0` or `elo1` is NaN or infinite.
    #[error("elo0 and elo1 must be finite")]
    NonFiniteElo,
    /// `elo0` is not below `elo1`.
    #[error("elo0 ({elo0}) must be less than elo1 ({elo1})")]
    EloOrder {
        /// The H0 value given.
        elo0: f64,
        /// The H1 value given.
        elo1: f64,
    },
    /// `alpha` or `beta` is not strictly between 0 and 1.
    #[error("alpha and beta must lie strictly between 0 and 1 (got {alpha} and {beta})")]
    ErrorRate {
        /// The alpha given.
        alpha: f64,
        /// The beta given.
        beta: f64,
    },
    /// `alpha + beta` is 1 or more, which leaves no room to continue.
    #[error("alpha + beta must be less than 1")]
    ErrorRateSum,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The ratio is between the bounds: play on.
    Continue,
    /// The ratio reached the lower bound: the change is not an improvement.
    AcceptH0,
    /// The ratio reached the upper bound: the change is an improvement.
    AcceptH1,
}

impl Decision {
    /// A stable name: `continue`, `accept-h0` or `accept-h1`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Continue => "continue",
            Self::AcceptH0 => "accept-h0",
            Self::AcceptH1 => "accept-h1",
        }
    }
}

/// The state of a test for some tally.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStatus {
    /// The log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// The bound at which H0 is accepted: `ln(beta / (1 - alpha))`.
    pub lower_bound: f64,
    /// The bound at which H1 is accepted: `ln((1 - beta) / alpha)`.
    pub upper_bound: f64,
    /// What the ratio and the bounds decide.
    pub decision: Decision,
}

/// A validated test design; evaluate it on any tally, as often as needed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    config: SprtConfig,
    lower_bound: f64,
    upper_bound: f64,
}

impl Sprt {
    /// Checks a design and computes its bounds.
    ///
    /// # Errors
    /// [`SprtError`] when the Elo values are not finite or not ordered,
    /// when alpha or beta is outside `(0, 1)`, or when they sum to 1 or more.
    pub fn new(config: SprtConfig) -> Result<Self, SprtError> {
        let SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
            ..
        } = config;
        if !(elo0.is_finite() && elo1.is_finite()) {
            return Err(SprtError::NonFiniteElo);
        }
        if elo0 >= elo1 {
            return Err(SprtError::EloOrder { elo0, elo1 });
        }
        let rate = |r: f64| r > 0.0 && r < 1.0;
        if !(rate(alpha) && rate(beta)) {
            return Err(SprtError::ErrorRate { alpha, beta });
        }
        if alpha + beta >= 1.0 {
            return Err(SprtError::ErrorRateSum);
        }
        Ok(Self {
            config,
            lower_bound: (beta / (1.0 - alpha)).ln(),
            upper_bound: ((1.0 - beta) / alpha).ln(),
        })
    }

    /// The design this test was built from.
    #[must_use]
    pub fn config(&self) -> SprtConfig {
        self.config
    }

    /// The bound at which H0 is accepted: `ln(beta / (1 - alpha))`.
    #[must_use]
    pub fn lower_bound(&self) -> f64 {
        self.lower_bound
    }

    /// The bound at which H1 is accepted: `ln((1 - beta) / alpha)`.
    #[must_use]
    pub fn upper_bound(&self) -> f64 {
        self.upper_bound
    }

    /// The log-likelihood ratio of H1 against H0 for a tally: always finite.
    ///
    /// Zero counts are replaced by 0.001 first, as fishtest does. For a
    /// pentanomial in the normalized model, the t-values of the hypotheses
    /// are those of a pair (`sqrt 2` times a game's), as in fishtest.
    #[must_use]
    pub fn llr<T: Tally>(&self, tally: &T) -> f64 {
        let SprtConfig { elo0, elo1, model, .. } = self.config;
        match (frequencies_of(tally), model) {
            (Frequencies::Trinomial(c), EloModel::Logistic) => llr_logistic(&TRINOMIAL_POINTS, c, elo0, elo1),
            (Frequencies::Pentanomial(c), EloModel::Logistic) => llr_logistic(&PENTANOMIAL_POINTS, c, elo0, elo1),
            (Frequencies::Trinomial(c), EloModel::Normalized) => {
                llr_t_value(&TRINOMIAL_POINTS, c, elo0 / NELO_PER_T, elo1 / NELO_PER_T)
            }
            (Frequencies::Pentanomial(c), EloModel::Normalized) => {
                let per_pair = std::f64::consts::SQRT_2 / NELO_PER_T;
                llr_t_value(&PENTANOMIAL_POINTS, c, elo0 * per_pair, elo1 * per_pair)
            }
        }
    }

    /// What a log-likelihood ratio decides: H1 at or above the upper bound,
    /// H0 at or below the lower bound, otherwise continue.
    #[must_use]
    pub fn decision(&self, llr: f64) -> Decision {
        if llr >= self.upper_bound {
            Decision::AcceptH1
        } else if llr <= self.lower_bound {
            Decision::AcceptH0
        } else {
            Decision::Continue
        }
    }

    /// The ratio, the bounds and the decision for a tally.
    #[must_use]
    pub fn status<T: Tally>(&self, tally: &T) -> SprtStatus {
        let llr = self.llr(tally);
        SprtStatus {
            llr,
            lower_bound: self.lower_bound,
            upper_bound: self.upper_bound,
            decision: self.decision(llr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_spelled_one_way() {
        for model in EloModel::ALL {
            assert_eq!(model.name().parse::<EloModel>(), Ok(model));
            assert_eq!(model.to_string(), model.name());
        }
        assert_eq!(EloModel::ALL[0], EloModel::default());
        let err = "bayes".parse::<EloModel>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown Elo model \"bayes\" (expected normalized or logistic)"
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn the_design_round_trips_through_serde_with_the_same_names() {
        let config = SprtConfig {
            model: EloModel::Logistic,
            ..SprtConfig::default()
        };
        let text = serde_json::to_string(&config).unwrap();
        assert!(text.contains("\"model\":\"logistic\""), "{text}");
        assert_eq!(serde_json::from_str::<SprtConfig>(&text).unwrap(), config);
        for model in EloModel::ALL {
            let json = format!("\"{}\"", model.name());
            assert_eq!(serde_json::from_str::<EloModel>(&json).unwrap(), model);
        }
        assert!(serde_json::from_str::<EloModel>("\"bayes\"").is_err());
    }
}
