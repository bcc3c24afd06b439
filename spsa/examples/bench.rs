//! Benchmark of the tuning recipes on synthetic matches with a known
//! optimum: how much Elo each recipe's result still loses at the end of its
//! budget, over a grid of problems users meet.
//!
//! `cargo run --release -p leaper-spsa --example bench -- [--seeds N] [--seed-offset N] [--threads T]
//! [--quick] [--only 'CELL|CELL'] [--c-ratio X] [--precision X] [--gain X] [--hold X] [--alpha X]
//! [--eta X] [--edge X]`
//!
//! Cells: 4, 8 and 16 separable parameters, 8 coupled, 8 with optima at or
//! near a bound, 8 on a flat, nearly tuned surface (`synthetic::Surface`);
//! each with draw-heavy pentanomial noise (about 60% draws, openings biased
//! by 100 Elo) and draw-light noise (10% draws, independent games); and the
//! two surfaces of the benchmark issue 17 quotes, rebuilt from its
//! description (`8 issue`, `8 issue-flat`: `synthetic::IssueSurface`), with
//! draw-heavy noise only, as there; budgets of 20,000 and 100,000 games. Eight workers tell their trials of 2 pairs
//! in random order. Recipes: this crate's default (derived from the ranges,
//! the dimension and the measured draw ratio), fishtest's classic recipe
//! with OpenBench's usual `c_end = range / 20`, `r_end = 0.002`, fishtest's
//! "autoselect" (the classic schedule with `c_end = range / 6` and `r_end`
//! from the number of parameters and the true draw ratio, as van den
//! Bergh's analysis publishes it), and the crate's previous default. The
//! `--c-ratio` ... `--edge` flags change the default's settings, to explore;
//! `--seed-offset` runs other seeds (to check settings chosen on the first
//! ones), `--only` keeps the cells whose name contains one of the
//! `|`-separated texts, and `--quick` runs the default and autoselect only
//! (on three of the generic shapes and the issue's two, unless `--only`
//! picks the cells).

use std::thread;
use std::time::Instant;

use spsa::synthetic::{IssueSurface, MatchModel, Problem, Simulation, Surface};
use spsa::{Config, Param, Schedule, Tuner, derived_rate};

#[derive(Clone, Copy)]
enum Recipe {
    Default(Schedule),
    Classic,
    Autoselect,
    Previous,
}

impl Recipe {
    fn name(self) -> &'static str {
        match self {
            Self::Default(_) => "default",
            Self::Classic => "classic",
            Self::Autoselect => "autoselect",
            Self::Previous => "previous default",
        }
    }

    /// The parameters and schedule this recipe runs with.
    fn setup(self, problem: &Problem, draw_share: f64) -> (Vec<Param>, Schedule) {
        match self {
            Self::Default(schedule) => (problem.params.clone(), schedule),
            Self::Classic => (problem.params.clone(), Schedule::fishtest()),
            Self::Previous => (problem.params.clone(), Schedule::averaged()),
            Self::Autoselect => {
                let r = derived_rate(0.5, problem.params.len(), draw_share);
                let params = problem
                    .params
                    .iter()
                    .map(|p| {
                        let mut p = p.clone();
                        // range / 6 in the parameter's units (at its start
                        // value for a log-scale one).
                        p.c_end = Some(match p.scale {
                            spsa::Scale::Linear => (p.max - p.min) / 6.0,
                            spsa::Scale::Log => p.start * ((p.max / p.min).ln() / 6.0).sinh(),
                        });
                        p.r_end = Some(r);
                        p
                    })
                    .collect();
                (params, Schedule::fishtest())
            }
        }
    }
}

/// A surface and the noises it is run with, for every budget.
struct Shape {
    label: String,
    problem: Problem,
    noises: Vec<(&'static str, MatchModel)>,
}

struct Cell {
    name: String,
    problem: Problem,
    model: MatchModel,
    games: u64,
}

fn main() {
    let mut seeds = 100u64;
    let mut threads = 2usize;
    let mut quick = false;
    let mut seed_offset = 0u64;
    let mut only: Vec<String> = Vec::new();
    let mut derived = Schedule::derived();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if flag == "--quick" {
            quick = true;
            i += 1;
            continue;
        }
        if flag == "--only" {
            let Some(cells) = args.get(i + 1) else {
                eprintln!("--only needs a value: cell names (or parts of them) separated by '|'");
                std::process::exit(2);
            };
            only = cells.split('|').map(str::to_string).collect();
            i += 2;
            continue;
        }
        let value = args.get(i + 1).and_then(|v| v.parse::<f64>().ok());
        let Some(value) = value else {
            eprintln!(
                "usage: bench [--seeds N] [--seed-offset N] [--threads T] [--quick] [--only 'CELL|CELL'] [--c-ratio X] [--precision X] [--gain X] [--hold X] [--alpha X] [--eta X] [--edge X]"
            );
            std::process::exit(2);
        };
        if let Schedule::Derived {
            c_ratio,
            precision,
            gain,
            hold,
            alpha,
            eta,
            edge,
        } = &mut derived
        {
            match flag {
                "--seeds" => seeds = (value as u64).max(1),
                "--seed-offset" => seed_offset = value as u64,
                "--threads" => threads = (value as usize).max(1),
                "--c-ratio" => *c_ratio = value,
                "--precision" => *precision = value,
                "--gain" => *gain = value,
                "--hold" => *hold = value,
                "--alpha" => *alpha = value,
                "--eta" => *eta = value,
                "--edge" => *edge = value,
                _ => {
                    eprintln!("unknown flag {flag}");
                    std::process::exit(2);
                }
            }
        }
        i += 2;
    }
    if let Err(e) = derived.validate() {
        eprintln!("bad default settings: {e}");
        std::process::exit(2);
    }

    let mut cells = Vec::new();
    let generic: Vec<(usize, Surface)> = if quick && only.is_empty() {
        vec![(8, Surface::Separable), (8, Surface::NearBound), (8, Surface::Flat)]
    } else {
        vec![
            (4, Surface::Separable),
            (8, Surface::Separable),
            (16, Surface::Separable),
            (8, Surface::Coupled),
            (8, Surface::NearBound),
            (8, Surface::Flat),
        ]
    };
    // Each shape with the noises it is run with: the generic surfaces with
    // both, the issue's with its draw-heavy noise only.
    let heavy = ("draw-heavy", MatchModel::draw_heavy());
    let light = ("draw-light", MatchModel::draw_light());
    let mut shapes: Vec<Shape> = generic
        .into_iter()
        .map(|(n, surface)| Shape {
            label: format!("{n} {}", surface.name()),
            problem: Problem::surface(n, surface),
            noises: vec![heavy, light],
        })
        .collect();
    for surface in IssueSurface::ALL {
        shapes.push(Shape {
            label: format!("8 {}", surface.name()),
            problem: Problem::issue(surface),
            noises: vec![heavy],
        });
    }
    for games in [20_000u64, 100_000] {
        for shape in &shapes {
            for &(noise, model) in &shape.noises {
                let name = format!("{}k, {}, {noise}", games / 1000, shape.label);
                if !only.is_empty() && !only.iter().any(|o| name.contains(o.as_str())) {
                    continue;
                }
                cells.push(Cell {
                    name,
                    problem: shape.problem.clone(),
                    model,
                    games,
                });
            }
        }
    }
    let recipes = if quick {
        vec![Recipe::Default(derived), Recipe::Autoselect]
    } else {
        vec![
            Recipe::Default(derived),
            Recipe::Autoselect,
            Recipe::Classic,
            Recipe::Previous,
        ]
    };

    println!("Default settings: {derived:?}");
    println!("{seeds} seeds per cell, {threads} threads; 8 workers, 2 pairs per trial.");
    println!("Elo still lost at the end: mean ± standard error, median, 90th percentile (lower is better).\n");
    print!("| budget, parameters, surface, noise | to gain |");
    for r in &recipes {
        print!(" {} |", r.name());
    }
    println!("\n|---|---|{}", "---|".repeat(recipes.len()));
    let clock = Instant::now();
    let mut wins = 0;
    for cell in &cells {
        let start: Vec<f64> = cell.problem.params.iter().map(|p| p.start).collect();
        let draw_share = cell.model.draw_share(200_000, 99);
        print!("| {} | {:.2} |", cell.name, cell.problem.elo_lost(&start));
        let mut means = Vec::new();
        for &recipe in &recipes {
            let (params, schedule) = recipe.setup(&cell.problem, draw_share);
            let sim = Simulation {
                problem: cell.problem.clone(),
                model: cell.model,
                workers: 8,
            };
            let mut lost: Vec<f64> = thread::scope(|scope| {
                let handles: Vec<_> = (0..threads as u64)
                    .map(|t| {
                        let (sim, params) = (&sim, &params);
                        scope.spawn(move || {
                            (seed_offset..seed_offset + seeds)
                                .filter(|s| s % threads as u64 == t)
                                .map(|seed| {
                                    let config = Config {
                                        games: cell.games,
                                        pairs_per_trial: 2,
                                        schedule,
                                        seed,
                                    };
                                    match Tuner::new(params.clone(), config) {
                                        Ok(mut tuner) => sim.run(&mut tuner, 1000 + seed),
                                        Err(e) => {
                                            eprintln!("bad recipe {}: {e}", recipe.name());
                                            std::process::exit(1);
                                        }
                                    }
                                })
                                .collect::<Vec<f64>>()
                        })
                    })
                    .collect();
                handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
            });
            lost.sort_by(f64::total_cmp);
            let n = lost.len() as f64;
            let mean = lost.iter().sum::<f64>() / n;
            let var = lost.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
            let at = |q: f64| lost[((lost.len() - 1) as f64 * q).round() as usize];
            print!(" {mean:.2} ± {:.2}, {:.2}, {:.2} |", (var / n).sqrt(), at(0.5), at(0.9));
            means.push(mean);
        }
        if means.len() > 1 && means[0] <= means[1] {
            wins += 1;
        }
        println!();
    }
    println!(
        "\nThe default's mean loss is at most autoselect's in {wins} of {} cells. ({:.0} s)",
        cells.len(),
        clock.elapsed().as_secs_f64()
    );
}
