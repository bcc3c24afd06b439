//! Convergence on synthetic problems, each in a few seconds: a short run
//! with eight workers telling out of order recovers most of what the start
//! values lose, and beats fishtest's classic recipe on that budget; an
//! optimum at a bound is reached, not held off by the perturbation.

use spsa::synthetic::{MatchModel, Problem, Simulation, Surface};
use spsa::{Config, Kind, Param, Schedule, Tuner};

fn run(sim: &Simulation, schedule: Schedule, games: u64, seed: u64) -> (f64, Tuner) {
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
    (loss, tuner)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

#[test]
fn twenty_thousand_games_recover_most_of_the_lost_elo() {
    let sim = Simulation {
        problem: Problem::surface(4, Surface::Separable),
        model: MatchModel::draw_light(),
        workers: 8,
    };
    let start: Vec<f64> = sim.problem.params.iter().map(|p| p.start).collect();
    let to_gain = sim.problem.elo_lost(&start);
    let default = median((0..7).map(|s| run(&sim, Schedule::default(), 20_000, s).0).collect());
    let classic = median((0..7).map(|s| run(&sim, Schedule::fishtest(), 20_000, s).0).collect());
    assert!(
        default < 0.25 * to_gain,
        "default recipe left {default:.2} Elo of {to_gain:.2}"
    );
    assert!(default < classic, "default {default:.2} vs classic {classic:.2}");
}

#[test]
fn an_optimum_at_a_bound_is_reached() {
    let params = vec![
        Param::plain("AtMax", Kind::Float, 0.5, 0.0, 1.0).expect("valid"),
        Param::plain("Inside", Kind::Int, 50.0, 0.0, 100.0).expect("valid"),
    ];
    let sim = Simulation {
        problem: Problem {
            params,
            optimum: vec![1.0, 30.0],
            unit: vec![1.0, 100.0],
            weight: vec![40.0, 40.0],
            coupling: 0.0,
        },
        model: MatchModel::draw_light(),
        workers: 8,
    };
    for seed in 0..3 {
        let (_, tuner) = run(&sim, Schedule::default(), 20_000, seed);
        let values = tuner.values();
        // A perturbation that held it off would stop it at 1 - c/2 = 0.85
        // at best (1 - c = 0.7 with the played values clipped at full c);
        // the default's lower hold (3 r for 20%, from 5 r for 10%) ends
        // 0.94 to 0.96 on these seeds, 0.955 to 0.978 before.
        assert!(values[0] > 0.9, "seed {seed}: AtMax ended at {}", values[0]);
        // The other parameter, far from its bounds, still moves toward its
        // optimum (it is less sensitive than the pull at the bound).
        assert!(values[1] < 45.0, "seed {seed}: Inside ended at {}", values[1]);
    }
}
