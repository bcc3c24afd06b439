//! Convergence on the synthetic problem: a short run with eight workers
//! telling out of order recovers most of the 34.85 Elo the start values
//! lose, and the default recipe beats fishtest's on that budget. Runs in a
//! few seconds.

use spsa::synthetic::{MatchModel, Problem, Simulation};
use spsa::{Config, Schedule, Tuner};

fn median_loss(schedule: Schedule, games: u64, seeds: u64) -> f64 {
    let sim = Simulation {
        problem: Problem::engine_like(),
        model: MatchModel::default(),
        workers: 8,
    };
    let mut lost: Vec<f64> = (0..seeds)
        .map(|seed| {
            let config = Config {
                games,
                pairs_per_trial: 2,
                schedule,
                seed,
            };
            let mut tuner = Tuner::new(sim.problem.params.clone(), config).expect("valid");
            let loss = sim.run(&mut tuner, 1000 + seed);
            assert!(tuner.is_done());
            assert_eq!(tuner.games(), games);
            loss
        })
        .collect();
    lost.sort_by(f64::total_cmp);
    lost[lost.len() / 2]
}

#[test]
fn twenty_thousand_games_recover_most_of_the_lost_elo() {
    let default = median_loss(Schedule::default(), 20_000, 7);
    let fishtest = median_loss(Schedule::fishtest(), 20_000, 7);
    assert!(default < 6.0, "default recipe left {default:.2} Elo of 34.85");
    assert!(fishtest < 20.0, "fishtest recipe left {fishtest:.2} Elo of 34.85");
    assert!(default < fishtest, "default {default:.2} vs fishtest {fishtest:.2}");
}
