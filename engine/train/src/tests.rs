//! Tests of training: the self-play generator's games replay legally with
//! quiet samples, and the fitter recovers known weights from synthetic
//! data.

use crate::fit::{Example, FitConfig, fit, sigmoid};
use crate::selfplay::{self, Config, play_game};
use leaper::eval::{Eval, EvalKind, FeatureSet, Weights, linear};
use leaper_rules::{Position, random_game_positions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Positions of random games from random setups, the game still going on.
fn random_positions(seed: u64, games: usize) -> Vec<Position> {
    random_game_positions(&mut StdRng::seed_from_u64(seed), games, 0.5)
}

#[test]
fn selfplay_games_are_legal_and_samples_quiet() {
    let config = Config {
        games: 2,
        depth: Some(1),
        random_plies: 6,
        eval: Eval::new(EvalKind::Full),
        hash_mb: 1,
        ..Config::default()
    };
    for index in 0..config.games {
        let game = play_game(&config, index).expect("a 1 MB table");
        let text = game.to_text();
        let first = text.lines().next().unwrap_or("");
        let moves: Vec<&str> = first.split_whitespace().skip(4).collect();
        assert_eq!(moves.len(), game.moves.len());
        let (end, _) = crate::replay::replay_moves(&moves.join(" ")).expect("legal moves");
        assert_eq!(end.outcome(), Some(game.outcome));
        assert!(first.contains(game.outcome.result_text()));
        for line in text.lines().skip(1) {
            let fen = line.split(';').next().unwrap_or("");
            let pos = Position::from_fen(fen).expect("a FEN");
            assert!(selfplay::is_quiet(&pos));
        }
        // Same seed, same game.
        assert_eq!(play_game(&config, index).map(|g| g.moves).ok(), Some(game.moves));
    }
}

#[test]
fn fitter_recovers_known_weights() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut truth = Weights::zero();
    for w in truth.features.iter_mut() {
        *w = rng.random_range(-3000..3000);
    }
    truth.tempo = 2000;
    let positions = random_positions(11, 40);
    let data: Vec<Example> = positions
        .iter()
        .enumerate()
        .map(|(i, pos)| {
            let p = sigmoid(f64::from(linear(pos, &truth, FeatureSet::Full)) / 10_000.0) as f32;
            Example::new(pos, FeatureSet::Full, 0.5, Some(p), i as u64)
        })
        .collect();
    let config = FitConfig {
        lambda: 0.0,
        l2: 0.0,
        iterations: 300,
        learning_rate: 0.05,
        threads: 2,
        set: FeatureSet::Full,
    };
    let report = fit(&data, &Weights::zero(), &config, |_, _, _| {});
    let mut worst: f64 = 0.0;
    let mut total = 0.0;
    for pos in &positions {
        let want = sigmoid(f64::from(linear(pos, &truth, FeatureSet::Full)) / 10_000.0);
        let got = sigmoid(f64::from(linear(pos, &report.weights, FeatureSet::Full)) / 10_000.0);
        worst = worst.max((want - got).abs());
        total += (want - got).abs();
    }
    let mean = total / positions.len() as f64;
    assert!(mean < 0.02, "mean error {mean}, worst {worst}");
    assert!(report.end.1.target < report.start.1.target);
}
