//! Synthetic matches whose outcome probabilities are a known smooth function
//! of the parameters, so that a tuning recipe can be scored by how much Elo
//! its result leaves on the table. The benchmark (`examples/bench.rs`) and
//! the convergence tests run the tuner against these instead of an engine.
//!
//! The strength of a parameter set is `Elo(v) = -sum_i k_i (t_i(v_i) -
//! t_i(opt_i))^2`, with `t_i` the parameter's coordinate (the value, or its
//! logarithm for a log-scale parameter). A game pair plays one opening with
//! each colour; the opening favours one side by a normal number of Elo,
//! which makes the two games of a pair anticorrelated, and each game is a
//! win, draw or loss by the BayesElo model with a draw margin. So results
//! carry the pentanomial noise real pairs do.

use results::{Outcome, Pentanomial};

use crate::param::{Kind, Param};
use crate::rng::Rng;
use crate::tuner::{Trial, Tuner};

/// Parameters with a known optimum and curvature.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The parameters, with their start values, ranges and SPSA settings.
    pub params: Vec<Param>,
    /// The best value of each parameter.
    pub optimum: Vec<f64>,
    /// Per parameter, the Elo lost at a distance of one `c_end` from the
    /// optimum (in the parameter's coordinate, at its start value).
    pub elo_per_c_end: Vec<f64>,
}

impl Problem {
    /// Eight parameters shaped like an engine's search and time settings:
    /// integers and floats of very different scales, one log-scale time
    /// factor, one small integer where rounding matters, one optimum near
    /// a bound; `c_end` sometimes too small, sometimes too large for its
    /// curvature (from 0.25 to 3 Elo per `c_end`), as a user's guesses are.
    /// The start values are 34.85 Elo below the optimum.
    #[must_use]
    pub fn engine_like() -> Self {
        let p = |name: &str, kind, start, min, max, c_end| Param {
            name: name.to_string(),
            kind,
            start,
            min,
            max,
            c_end,
            r_end: 0.002,
            scale: crate::param::Scale::Linear,
        };
        let mut time_soft = p("TimeSoft", Kind::Float, 1.0, 0.1, 5.0, 0.08);
        time_soft.scale = crate::param::Scale::Log;
        let params = vec![
            p("AspirationWindow", Kind::Int, 1000.0, 50.0, 20000.0, 150.0),
            p("AspirationMinDepth", Kind::Int, 4.0, 1.0, 32.0, 1.0),
            p("FutilityMargin", Kind::Int, 2500.0, 0.0, 30000.0, 250.0),
            p("TimeIncPermille", Kind::Int, 750.0, 0.0, 1000.0, 50.0),
            time_soft,
            p("TimeHard", Kind::Float, 3.5, 1.0, 10.0, 0.25),
            p("TimeMaxPermille", Kind::Int, 400.0, 10.0, 950.0, 30.0),
            p("LmrBase", Kind::Float, 0.75, 0.0, 3.0, 0.1),
        ];
        // Start offsets of 2.5, 3, -1.5, 4, 3, -4, 1, -1 times c_end.
        let optimum = vec![
            1375.0,
            7.0,
            2125.0,
            950.0,
            1.0 * (3.0 * (0.08f64).asinh()).exp(),
            2.5,
            430.0,
            0.65,
        ];
        let elo_per_c_end = vec![1.0, 0.5, 2.0, 0.25, 0.7, 0.3, 1.5, 3.0];
        Self {
            params,
            optimum,
            elo_per_c_end,
        }
    }

    /// The Elo of a parameter set relative to the optimum (0 at best).
    #[must_use]
    pub fn elo(&self, values: &[f64]) -> f64 {
        let mut elo = 0.0;
        for (((param, &value), &opt), &h) in self
            .params
            .iter()
            .zip(values)
            .zip(&self.optimum)
            .zip(&self.elo_per_c_end)
        {
            let c = param.internal_c_end();
            let d = (param.coordinate(value) - param.coordinate(opt)) / c;
            elo -= h * d * d;
        }
        elo
    }

    /// The Elo lost by a parameter set: `-elo(values)`, never negative.
    #[must_use]
    pub fn elo_lost(&self, values: &[f64]) -> f64 {
        (-self.elo(values)).max(0.0)
    }
}

/// How games between two parameter sets turn out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchModel {
    /// BayesElo's draw margin: the larger, the more draws.
    pub draw_elo: f64,
    /// The standard deviation, in Elo, of an opening's bias for one colour.
    pub opening_sigma: f64,
}

impl Default for MatchModel {
    /// About 10% draws between equal engines (CodeCup 2026's recorded games
    /// have 4.5% between players of mixed strength) and openings whose bias
    /// has a standard deviation of 60 Elo.
    fn default() -> Self {
        Self {
            draw_elo: 35.0,
            opening_sigma: 60.0,
        }
    }
}

impl MatchModel {
    /// The win and loss probabilities of a game with an Elo edge `x`.
    #[must_use]
    pub fn win_loss(&self, x: f64) -> (f64, f64) {
        let win = 1.0 / (1.0 + 10f64.powf((self.draw_elo - x) / 400.0));
        let loss = 1.0 / (1.0 + 10f64.powf((self.draw_elo + x) / 400.0));
        (win, loss)
    }

    fn game(&self, rng: &mut Rng, x: f64) -> Outcome {
        let (win, loss) = self.win_loss(x);
        let u = rng.unit();
        if u < win {
            Outcome::Win
        } else if u < win + loss {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }

    /// Plays `pairs` pairs for a player `elo` stronger than its opponent.
    fn pairs(&self, rng: &mut Rng, elo: f64, pairs: u32) -> Pentanomial {
        let mut tally = Pentanomial::default();
        for _ in 0..pairs {
            let bias = self.opening_sigma * rng.normal();
            let first = self.game(rng, elo + bias);
            let second = self.game(rng, elo - bias);
            tally.record_pair(first, second);
        }
        tally
    }
}

/// A tuning run against a [`Problem`], with several workers that finish
/// their trials in random order.
#[derive(Clone, Debug, PartialEq)]
pub struct Simulation {
    /// What is tuned.
    pub problem: Problem,
    /// How games turn out.
    pub model: MatchModel,
    /// Trials in flight at once.
    pub workers: usize,
}

impl Simulation {
    /// Plays a trial's pairs: the plus engine against the minus engine.
    fn play(&self, rng: &mut Rng, trial: &Trial) -> Pentanomial {
        let elo = self.problem.elo(&trial.plus) - self.problem.elo(&trial.minus);
        self.model.pairs(rng, elo, trial.pairs)
    }

    /// Runs `tuner` to the end of its budget, keeping `workers` trials in
    /// flight and telling a random one of them at each step, and returns
    /// the Elo its tuned values lose against the optimum.
    pub fn run(&self, tuner: &mut Tuner, seed: u64) -> f64 {
        self.run_observed(tuner, seed, |_| {})
    }

    /// As [`Simulation::run`], calling `after_tell` with the tuner after
    /// every result, where a driver would save and plot.
    pub fn run_observed(&self, tuner: &mut Tuner, seed: u64, mut after_tell: impl FnMut(&Tuner)) -> f64 {
        let mut rng = Rng::seeded(seed ^ 0x5EED_5EED_5EED);
        let mut in_flight: Vec<Trial> = tuner.pending().cloned().collect();
        loop {
            while in_flight.len() < self.workers.max(1) {
                match tuner.ask() {
                    Some(trial) => in_flight.push(trial),
                    None => break,
                }
            }
            if in_flight.is_empty() {
                break;
            }
            let index = usize::try_from(rng.below(in_flight.len() as u64)).unwrap_or(0);
            let trial = in_flight.swap_remove(index);
            let result = self.play(&mut rng, &trial);
            if tuner.tell(trial.id, result).is_err() {
                break;
            }
            after_tell(tuner);
        }
        self.problem.elo_lost(&tuner.values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_optimum_loses_nothing_and_the_start_loses_the_stated_elo() {
        let problem = Problem::engine_like();
        assert!(problem.elo_lost(&problem.optimum) < 1e-9);
        let start: Vec<f64> = problem.params.iter().map(|p| p.start).collect();
        assert!(
            (problem.elo_lost(&start) - 34.85).abs() < 1e-9,
            "{}",
            problem.elo_lost(&start)
        );
        for (param, &opt) in problem.params.iter().zip(&problem.optimum) {
            assert!((param.min..=param.max).contains(&opt), "{}", param.name);
        }
    }

    #[test]
    fn draw_rate_and_pair_score_match_the_model() {
        let model = MatchModel::default();
        let mut rng = Rng::seeded(5);
        let (win, loss) = model.win_loss(0.0);
        assert!((1.0 - win - loss - 0.1).abs() < 0.001);
        let strong = model.pairs(&mut rng, 50.0, 20_000);
        let score = (strong.ld + 2 * strong.dd + 3 * strong.wd + 4 * strong.ww) as f64 / (4.0 * 20_000.0);
        assert!(score > 0.55 && score < 0.6, "{score}");
    }
}
