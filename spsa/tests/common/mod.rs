//! Helpers shared by the integration tests: a small parameter set, a
//! deterministic stand-in for playing a trial, and scratch folders.

#![allow(dead_code)]

use std::path::PathBuf;

use spsa::{Config, Kind, Param, Pentanomial, Schedule, Trial, Tuner};

/// Three parameters: a linear integer, a float, a log-scale integer.
pub fn params() -> Vec<Param> {
    let log_int = Param::new("Hard", Kind::Int, 350.0, 100.0, 1000.0, 25.0, 0.002).and_then(Param::log_scale);
    vec![
        Param::new("Window", Kind::Int, 1000.0, 50.0, 20000.0, 150.0, 0.002).expect("valid"),
        Param::new("Lmr", Kind::Float, 0.75, 0.0, 3.0, 0.1, 0.002).expect("valid"),
        log_int.expect("valid"),
    ]
}

pub fn tuner(games: u64, schedule: Schedule, seed: u64) -> Tuner {
    Tuner::new(
        params(),
        Config {
            games,
            pairs_per_trial: 2,
            schedule,
            seed,
        },
    )
    .expect("valid config")
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A result that depends only on the trial (its id and values), as if the
/// same games were replayed: lets two runs be compared result for result.
pub fn fake_result(trial: &Trial) -> Pentanomial {
    let mut seed = trial.id.0;
    for v in trial.plus.iter().chain(&trial.minus) {
        seed = mix(seed ^ v.to_bits());
    }
    let mut tally = Pentanomial::default();
    for j in 0..trial.pairs {
        let slot = mix(seed.wrapping_add(u64::from(j))) % 5;
        match slot {
            0 => tally.ll += 1,
            1 => tally.ld += 1,
            2 => tally.dd += 1,
            3 => tally.wd += 1,
            _ => tally.ww += 1,
        }
    }
    tally
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("leaper-spsa-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
