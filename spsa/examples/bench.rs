//! Benchmark of the tuning recipes on synthetic matches with a known
//! optimum: how much Elo each recipe's result still loses after budgets of
//! 20,000 and 100,000 games, as the median (and quartiles) over seeds.
//!
//! `cargo run --release -p leaper-spsa --example bench -- [--seeds N] [--workers W] [--pairs P]`
//!
//! The problem is `synthetic::Problem::engine_like()`: eight parameters of
//! mixed scales whose start values lose 34.85 Elo; games follow the
//! BayesElo model with about 10% draws and openings biased by 60 Elo
//! (pentanomial noise); eight workers tell their trials in random order.

use std::time::Instant;

use spsa::synthetic::{MatchModel, Problem, Simulation};
use spsa::{Config, Param, Schedule, Tuner};

struct Recipe {
    name: &'static str,
    schedule: Schedule,
    /// Multiplies every parameter's `r_end` (0.002 as declared), to see how
    /// a recipe copes with a misjudged learning rate.
    r_factor: f64,
}

fn main() {
    let mut seeds = 20u64;
    let mut workers = 8usize;
    let mut pairs = 2u32;
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).and_then(|v| v.parse::<u64>().ok());
        match (pair[0].as_str(), value) {
            ("--seeds", Some(v)) => seeds = v.max(1),
            ("--workers", Some(v)) => workers = usize::try_from(v).unwrap_or(8).max(1),
            ("--pairs", Some(v)) => pairs = u32::try_from(v).unwrap_or(2).max(1),
            _ => {
                eprintln!("usage: bench [--seeds N] [--workers W] [--pairs P]");
                std::process::exit(2);
            }
        }
    }

    let default = Schedule::default();
    let averaging_only = match default {
        Schedule::Averaged {
            hold,
            alpha,
            gamma,
            eta,
            ..
        } => Schedule::Averaged {
            gain: 1.0,
            hold,
            alpha,
            gamma,
            eta,
        },
        other => other,
    };
    let fishtest = Schedule::fishtest();
    let recipe = |name, schedule, r_factor| Recipe {
        name,
        schedule,
        r_factor,
    };
    let recipes = [
        recipe("fishtest (alpha 0.602, gamma 0.101, A 10%)", fishtest, 1.0),
        recipe("averaging alone (gain 1)", averaging_only, 1.0),
        recipe("averaged: gain 16 held, decay, average (default)", default, 1.0),
        recipe("fishtest, r_end / 4", fishtest, 0.25),
        recipe("default, r_end / 4", default, 0.25),
        recipe("fishtest, r_end x 4", fishtest, 4.0),
        recipe("default, r_end x 4", default, 4.0),
    ];
    let budgets = [20_000u64, 100_000];

    let sim = Simulation {
        problem: Problem::engine_like(),
        model: MatchModel::default(),
        workers,
    };
    let start: Vec<f64> = sim.problem.params.iter().map(|p| p.start).collect();
    println!(
        "Synthetic problem: {} parameters, start values lose {:.2} Elo; {} seeds, {} workers, {} pairs per trial.",
        sim.problem.params.len(),
        sim.problem.elo_lost(&start),
        seeds,
        workers,
        pairs
    );
    println!("Elo still lost at the end (median [quartiles]; lower is better):\n");
    print!("| recipe |");
    for games in budgets {
        print!(" {games} games |");
    }
    println!("\n|---|{}", "---|".repeat(budgets.len()));
    let clock = Instant::now();
    for recipe in &recipes {
        print!("| {} |", recipe.name);
        for games in budgets {
            let mut lost: Vec<f64> = (0..seeds)
                .map(|seed| {
                    let params: Vec<Param> = sim
                        .problem
                        .params
                        .iter()
                        .map(|p| Param {
                            r_end: p.r_end * recipe.r_factor,
                            ..p.clone()
                        })
                        .collect();
                    let config = Config {
                        games,
                        pairs_per_trial: pairs,
                        schedule: recipe.schedule,
                        seed,
                    };
                    match Tuner::new(params, config) {
                        Ok(mut tuner) => sim.run(&mut tuner, 1000 + seed),
                        Err(e) => {
                            eprintln!("bad recipe {}: {e}", recipe.name);
                            std::process::exit(1);
                        }
                    }
                })
                .collect();
            lost.sort_by(f64::total_cmp);
            let at = |q: f64| lost[((lost.len() - 1) as f64 * q).round() as usize];
            print!(" {:.2} [{:.2}-{:.2}] |", at(0.5), at(0.25), at(0.75));
        }
        println!();
    }
    println!("\n({:.1} s)", clock.elapsed().as_secs_f64());
}
