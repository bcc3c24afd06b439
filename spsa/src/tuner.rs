//! The SPSA tuner as an ask/tell state machine. [`Tuner::ask`] hands out a
//! [`Trial`]: the values of every parameter for the plus engine and for the
//! minus engine (the current values moved by `+c` and `-c` along a random
//! sign per parameter) and the number of game pairs to play between them.
//! [`Tuner::tell`] takes the pentanomial result of those pairs, seen from the
//! plus engine, and moves every parameter toward the side that scored
//! better. Trials may be told in any order and long after they were asked,
//! as fishtest's asynchronous workers report: each pending trial keeps the
//! step sizes fixed when it was asked, so a late result updates exactly as
//! it would have on time. The whole tuner (random generator and pending
//! trials included) is plain data that serializes, see `state.rs`.

use results::Pentanomial;
use serde::{Deserialize, Serialize};

use crate::param::{Param, ParamError, clamp_to};
use crate::rng::Rng;
use crate::schedule::{Schedule, ScheduleError};

/// The number of a trial, unique within a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TrialId(pub u64);

impl std::fmt::Display for TrialId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One trial: play `pairs` game pairs (each opening once with each colour)
/// between an engine set to `plus` and one set to `minus`, and tell the
/// result from the plus engine's side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// The trial's number, for [`Tuner::tell`].
    pub id: TrialId,
    /// Game pairs to play.
    pub pairs: u32,
    /// The plus engine's value of every parameter, in the order of
    /// [`Tuner::params`]; whole numbers for integer parameters.
    pub plus: Vec<f64>,
    /// The minus engine's values, in the same order.
    pub minus: Vec<f64>,
}

/// A trial handed out and not yet told, with what its update needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Pending {
    trial: Trial,
    /// Per parameter, the move of its coordinate per unit of result
    /// (wins minus losses of the plus engine): `a_k / c_k` times the sign
    /// when the values played were not clipped at a bound.
    steps: Vec<f64>,
}

/// The run's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The budget in games (two per pair); the schedules are scaled to it.
    pub games: u64,
    /// Game pairs per trial.
    pub pairs_per_trial: u32,
    /// The step and perturbation recipe.
    pub schedule: Schedule,
    /// The seed of the random signs and roundings.
    pub seed: u64,
}

impl Config {
    /// The default settings for a budget of `games`: two pairs per trial,
    /// the default schedule, seed 0.
    #[must_use]
    pub fn new(games: u64) -> Self {
        Self {
            games,
            pairs_per_trial: 2,
            schedule: Schedule::default(),
            seed: 0,
        }
    }
}

/// The most games a run may budget: far beyond any real run, and small
/// enough that every count stays exact in an `f64`.
pub const MAX_GAMES: u64 = 1 << 40;

/// The most pairs one trial may hold.
pub const MAX_PAIRS_PER_TRIAL: u32 = 1 << 20;

/// Why a tuner cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// There is nothing to tune.
    #[error("no parameters to tune")]
    NoParams,
    /// A parameter is unusable.
    #[error("parameter {name}: {source}")]
    Param {
        /// The parameter's name.
        name: String,
        /// What is wrong with it.
        source: ParamError,
    },
    /// Two parameters have the same name.
    #[error("parameter {0} is listed twice")]
    Duplicate(String),
    /// The budget is below one pair or above [`MAX_GAMES`].
    #[error("the budget must be from 2 to {MAX_GAMES} games, not {0}")]
    Games(u64),
    /// The pairs per trial are 0 or above [`MAX_PAIRS_PER_TRIAL`].
    #[error("pairs per trial must be from 1 to {MAX_PAIRS_PER_TRIAL}, not {0}")]
    PairsPerTrial(u32),
    /// The recipe needs `c_end` and `r_end` and a parameter lacks them.
    #[error(
        "the {recipe} recipe needs c_end and r_end, and parameter {name} has none (give them, or use the default recipe)"
    )]
    NeedsCEndREnd {
        /// The recipe's name.
        recipe: &'static str,
        /// The parameter without them.
        name: String,
    },
    /// The schedule is unusable.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
}

/// Why a result or a cancellation was refused; the tuner is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TellError {
    /// No trial with this number was ever asked.
    #[error("trial {0} was never asked")]
    Unknown(TrialId),
    /// The trial was already told or cancelled.
    #[error("trial {0} was already told or cancelled")]
    NotPending(TrialId),
    /// The result holds more pairs than the trial asked for.
    #[error("trial {id} asked for {asked} pairs, the result holds {told}")]
    TooManyPairs {
        /// The trial.
        id: TrialId,
        /// Pairs asked.
        asked: u32,
        /// Pairs in the result.
        told: u64,
    },
}

/// The SPSA tuner: parameters, schedule, current iterate, its average,
/// counts, random generator and pending trials. Everything it holds
/// serializes, so a run stops and resumes exactly (see [`Tuner::save`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tuner {
    /// The state file's format version.
    pub(crate) format: u32,
    pub(crate) params: Vec<Param>,
    pub(crate) config: Config,
    /// The current iterate, in each parameter's coordinate.
    pub(crate) theta: Vec<f64>,
    /// The weighted average of the iterates, in the same coordinates.
    pub(crate) average: Vec<f64>,
    pub(crate) told_pairs: u64,
    pub(crate) updates: u64,
    pub(crate) next_id: u64,
    /// Pairs told, by the plus engine's pair score: ll, ld, dd, wd, ww.
    pub(crate) tally: [u64; 5],
    pub(crate) rng: Rng,
    /// Trials asked and not yet told, by increasing id.
    pending: Vec<Pending>,
}

/// The format version this build writes and reads.
pub(crate) const STATE_FORMAT: u32 = 2;

impl Tuner {
    /// A tuner at the start of a run.
    ///
    /// # Errors
    /// [`ConfigError`] for no parameters, a bad parameter, a repeated name,
    /// or settings out of range.
    pub fn new(params: Vec<Param>, config: Config) -> Result<Self, ConfigError> {
        check_setup(&params, &config)?;
        let theta: Vec<f64> = params.iter().map(|p| p.coordinate(p.start)).collect();
        Ok(Self {
            format: STATE_FORMAT,
            average: theta.clone(),
            theta,
            rng: Rng::seeded(config.seed),
            params,
            config,
            told_pairs: 0,
            updates: 0,
            next_id: 0,
            tally: [0; 5],
            pending: Vec::new(),
        })
    }

    /// The next trial, or `None` when the told and pending pairs already
    /// fill the budget (tell or cancel pending trials, or stop).
    pub fn ask(&mut self) -> Option<Trial> {
        let budget = self.budget_pairs();
        let committed = self.told_pairs.saturating_add(self.pending_pairs());
        if committed >= budget {
            return None;
        }
        let pairs = u32::try_from(budget - committed).map_or(self.config.pairs_per_trial, |left| {
            left.min(self.config.pairs_per_trial)
        });
        let k = self.told_pairs as f64 + 1.0;
        let n = budget as f64;
        let schedule = self.config.schedule;
        let c_scale = schedule.c_scale(k, n);
        let a_scale = schedule.a_scale(k, n, self.params.len(), self.draw_ratio());
        let count = self.params.len();
        let (mut plus, mut minus, mut steps) = (
            Vec::with_capacity(count),
            Vec::with_capacity(count),
            Vec::with_capacity(count),
        );
        for (param, &theta) in self.params.iter().zip(&self.theta) {
            let (lo, hi) = param.internal_range();
            // The scheduled half-width `c` and the step per unit of result
            // at that width, `a / c^2` (fishtest's `a_k / c_k` divided by
            // `c_k` once more: the update below multiplies by the half-width
            // actually played).
            let (c, a_over_c2) = match schedule {
                Schedule::Derived { .. } => (c_scale * (hi - lo), a_scale),
                _ => {
                    let (c_end, r_end) = param.internal_c_end_r_end();
                    let c = c_scale * c_end;
                    (c, r_end * c_end * c_end * a_scale / (c * c))
                }
            };
            // At least one whole step between the two values of an integer,
            // at most half the range.
            let full = c.max(param.min_int_half_width(theta)).min(0.5 * (hi - lo));
            // Near a bound, shrink toward the distance to it (down to
            // `edge * c`), so both values stay symmetric about the iterate
            // and their difference measures the slope there, not at a point
            // pulled inward; the step per unit of result is kept at the
            // scheduled width's (`a / c`), so the iterate still moves as fast.
            let c = full
                .min((theta - lo).min(hi - theta).max(schedule.edge() * full))
                .max(param.min_int_half_width(theta));
            // Closer still, the played values are clipped, not the centre:
            // the iterate may reach the bound, and the update uses the
            // half-width actually played on each side.
            let sign = self.rng.sign();
            let u = self.rng.unit();
            let up = clamp_to(theta + sign * c, lo, hi);
            let down = clamp_to(theta - sign * c, lo, hi);
            plus.push(param.trial_value(param.value_at(up), u));
            minus.push(param.trial_value(param.value_at(down), u));
            let half = 0.5 * (up - down);
            let step = a_over_c2 * half * (full / c);
            steps.push(if step.is_finite() { step } else { 0.0 });
        }
        let id = TrialId(self.next_id);
        self.next_id += 1;
        let trial = Trial { id, pairs, plus, minus };
        self.pending.push(Pending {
            trial: trial.clone(),
            steps,
        });
        Some(trial)
    }

    /// Applies the result of a pending trial: `result` counts the trial's
    /// pairs by the plus engine's pair score. A result with fewer pairs than
    /// asked (some pairs failed) is applied as it is, and the missing pairs
    /// go back to the budget.
    ///
    /// # Errors
    /// [`TellError::Unknown`] or [`TellError::NotPending`] for an id that
    /// is not pending, [`TellError::TooManyPairs`] for a result larger than
    /// the trial; the tuner is unchanged.
    pub fn tell(&mut self, id: TrialId, result: Pentanomial) -> Result<(), TellError> {
        let index = self.pending_index(id)?;
        let asked = self.pending[index].trial.pairs;
        let told = result.pairs();
        if told > u64::from(asked) {
            return Err(TellError::TooManyPairs { id, asked, told });
        }
        let pending = self.pending.remove(index);
        // Wins minus losses over the trial's games, from the pair scores.
        let score = 2.0 * (result.ww as f64 - result.ll as f64) + (result.wd as f64 - result.ld as f64);
        for ((theta, param), step) in self.theta.iter_mut().zip(&self.params).zip(&pending.steps) {
            let (lo, hi) = param.internal_range();
            *theta = clamp_to(*theta + step * score, lo, hi);
        }
        let before = self.told_pairs as f64;
        self.told_pairs += told;
        self.updates += 1;
        for (slot, n) in self
            .tally
            .iter_mut()
            .zip([result.ll, result.ld, result.dd, result.wd, result.ww])
        {
            *slot = slot.saturating_add(n);
        }
        self.update_average(before, self.told_pairs as f64);
        Ok(())
    }

    /// Drops a pending trial without a result (its engines failed, say);
    /// its pairs go back to the budget.
    ///
    /// # Errors
    /// [`TellError::Unknown`] or [`TellError::NotPending`] for an id that
    /// is not pending; the tuner is unchanged.
    pub fn cancel(&mut self, id: TrialId) -> Result<(), TellError> {
        let index = self.pending_index(id)?;
        self.pending.remove(index);
        Ok(())
    }

    /// The trials asked and not yet told, by increasing id. After a resume,
    /// a driver plays these again (or cancels them) before asking for more.
    pub fn pending(&self) -> impl Iterator<Item = &Trial> {
        self.pending.iter().map(|p| &p.trial)
    }

    /// The parameters, in the order of every value list.
    #[must_use]
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The run's settings.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The tuned values to use now: [`Tuner::estimate`] with integers
    /// rounded to the nearest whole number.
    #[must_use]
    pub fn values(&self) -> Vec<f64> {
        self.params
            .iter()
            .zip(self.estimate())
            .map(|(p, v)| p.settle(v))
            .collect()
    }

    /// The current estimate of the best values, unrounded: the averaged
    /// iterate under an averaging schedule, else the current iterate.
    #[must_use]
    pub fn estimate(&self) -> Vec<f64> {
        let source = if self.config.schedule.averaging().is_some() {
            &self.average
        } else {
            &self.theta
        };
        self.params.iter().zip(source).map(|(p, &u)| p.value_at(u)).collect()
    }

    /// The current iterate in each parameter's units, unrounded: where the
    /// next trial is centred.
    #[must_use]
    pub fn iterate(&self) -> Vec<f64> {
        self.params
            .iter()
            .zip(&self.theta)
            .map(|(p, &u)| p.value_at(u))
            .collect()
    }

    /// The tuned values as `(name, value)` text, values formatted for the
    /// engine (see [`Param::format_value`]).
    #[must_use]
    pub fn named_values(&self) -> Vec<(String, String)> {
        self.params
            .iter()
            .zip(self.values())
            .map(|(p, v)| (p.name.clone(), p.format_value(v)))
            .collect()
    }

    /// Games told so far (two per pair).
    #[must_use]
    pub fn games(&self) -> u64 {
        self.told_pairs.saturating_mul(2)
    }

    /// The budget in games, as configured.
    #[must_use]
    pub fn budget_games(&self) -> u64 {
        self.config.games
    }

    /// Whether the told pairs fill the budget.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.told_pairs >= self.budget_pairs()
    }

    /// The number of results applied (trials told).
    #[must_use]
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The draw ratio measured from the pairs told so far (see
    /// [`crate::draw_ratio`]); the derived recipe's step follows it.
    #[must_use]
    pub fn draw_ratio(&self) -> f64 {
        crate::schedule::draw_ratio(self.tally)
    }

    /// The current step of every parameter, in its units at the current
    /// iterate: how far one game won (or lost) by the plus engine moves it
    /// (fishtest's `a_k / c_k`), for a progress line.
    #[must_use]
    pub fn current_steps(&self) -> Vec<f64> {
        let n = self.budget_pairs() as f64;
        let k = (self.told_pairs as f64 + 1.0).min(n);
        let schedule = self.config.schedule;
        let c_scale = schedule.c_scale(k, n);
        let a_scale = schedule.a_scale(k, n, self.params.len(), self.draw_ratio());
        self.params
            .iter()
            .zip(&self.theta)
            .map(|(param, &theta)| {
                let (lo, hi) = param.internal_range();
                let a_over_c = match schedule {
                    Schedule::Derived { .. } => a_scale * c_scale * (hi - lo),
                    _ => {
                        let (c_end, r_end) = param.internal_c_end_r_end();
                        r_end * c_end * a_scale / c_scale
                    }
                };
                // In the parameter's units: the derivative of its value.
                let slope = match param.scale {
                    crate::param::Scale::Linear => 1.0,
                    crate::param::Scale::Log => theta.exp(),
                };
                a_over_c * slope
            })
            .collect()
    }

    /// All pairs told, from the plus engines' side.
    #[must_use]
    pub fn tally(&self) -> Pentanomial {
        let [ll, ld, dd, wd, ww] = self.tally;
        Pentanomial::new(ll, ld, dd, wd, ww)
    }

    /// The budget in pairs (an odd game budget rounds up to whole pairs).
    fn budget_pairs(&self) -> u64 {
        self.config.games.div_ceil(2)
    }

    fn pending_pairs(&self) -> u64 {
        self.pending.iter().map(|p| u64::from(p.trial.pairs)).sum()
    }

    fn pending_index(&self, id: TrialId) -> Result<usize, TellError> {
        match self.pending.binary_search_by_key(&id, |p| p.trial.id) {
            Ok(index) => Ok(index),
            Err(_) if id.0 >= self.next_id => Err(TellError::Unknown(id)),
            Err(_) => Err(TellError::NotPending(id)),
        }
    }

    /// Folds the iterate, held from pair `before` to pair `after`, into the
    /// average weighted by `k^eta`: the weight of that stretch is
    /// `after^(eta+1) - before^(eta+1)` out of `after^(eta+1)`.
    fn update_average(&mut self, before: f64, after: f64) {
        match self.config.schedule.averaging() {
            Some(eta) if after > 0.0 => {
                let share = 1.0 - (before / after).powf(eta + 1.0);
                for (avg, &theta) in self.average.iter_mut().zip(&self.theta) {
                    *avg += share * (theta - *avg);
                }
            }
            _ => self.average.clone_from(&self.theta),
        }
    }

    /// Checks a tuner read from a file: every invariant [`Tuner::new`],
    /// [`Tuner::ask`] and [`Tuner::tell`] keep.
    pub(crate) fn check(&self) -> Result<(), String> {
        check_setup(&self.params, &self.config).map_err(|e| e.to_string())?;
        let count = self.params.len();
        if self.theta.len() != count || self.average.len() != count {
            return Err(format!("expected {count} values per vector"));
        }
        for ((param, &theta), &avg) in self.params.iter().zip(&self.theta).zip(&self.average) {
            let (lo, hi) = param.internal_range();
            if !(lo..=hi).contains(&theta) || !(lo..=hi).contains(&avg) {
                return Err(format!("{} lies outside its range", param.name));
            }
        }
        let mut last = None;
        for p in &self.pending {
            let t = &p.trial;
            if last.is_some_and(|id| id >= t.id) || t.id.0 >= self.next_id {
                return Err(format!("pending trial {} is out of order", t.id));
            }
            last = Some(t.id);
            if t.plus.len() != count || t.minus.len() != count || p.steps.len() != count {
                return Err(format!(
                    "pending trial {} has {} values, not {count}",
                    t.id,
                    t.plus.len()
                ));
            }
            if t.pairs == 0 || t.pairs > self.config.pairs_per_trial {
                return Err(format!("pending trial {} has {} pairs", t.id, t.pairs));
            }
            if !p.steps.iter().all(|s| s.is_finite()) {
                return Err(format!("pending trial {} has a step that is not finite", t.id));
            }
            let in_range = |values: &[f64]| {
                values
                    .iter()
                    .zip(&self.params)
                    .all(|(v, p)| (p.min..=p.max).contains(v))
            };
            if !in_range(&t.plus) || !in_range(&t.minus) {
                return Err(format!("pending trial {} has a value outside its range", t.id));
            }
        }
        if !self.rng.is_valid() {
            return Err("the random generator's state is all zeros".to_string());
        }
        if self.tally.iter().fold(0u64, |sum, &n| sum.saturating_add(n)) != self.told_pairs {
            return Err("the tally does not add up to the pairs told".to_string());
        }
        Ok(())
    }
}

fn check_setup(params: &[Param], config: &Config) -> Result<(), ConfigError> {
    if params.is_empty() {
        return Err(ConfigError::NoParams);
    }
    for (i, param) in params.iter().enumerate() {
        param.validate().map_err(|source| ConfigError::Param {
            name: param.name.clone(),
            source,
        })?;
        if params[..i].iter().any(|p| p.name == param.name) {
            return Err(ConfigError::Duplicate(param.name.clone()));
        }
    }
    if !(2..=MAX_GAMES).contains(&config.games) {
        return Err(ConfigError::Games(config.games));
    }
    if !(1..=MAX_PAIRS_PER_TRIAL).contains(&config.pairs_per_trial) {
        return Err(ConfigError::PairsPerTrial(config.pairs_per_trial));
    }
    config.schedule.validate()?;
    if config.schedule.uses_c_end_r_end()
        && let Some(param) = params.iter().find(|p| p.c_end.is_none() || p.r_end.is_none())
    {
        return Err(ConfigError::NeedsCEndREnd {
            recipe: config.schedule.name(),
            name: param.name.clone(),
        });
    }
    Ok(())
}
