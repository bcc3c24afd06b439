//! Fitting the linear evaluation: logistic regression of game outcomes on
//! the feature differences `own - enemy` (plus a constant for the tempo),
//! with the target a mix of the game result and the search score as in
//! expert iteration: `y = lambda * result + (1 - lambda) * sigmoid(score)`.
//! Full-batch Adam with L2 regularization towards the starting weights
//! (the published model, by default), on several threads; positions
//! of one game in ten (by game) are held out for validation.
//!
//! Data come from self-play records (`selfplay`) and, optionally, from the
//! CodeCup transcripts, whose positions have a result but no score.

use crate::replay::{check_codecup_game, replay_moves};
use leaper::eval::Weights;
use leaper::eval::features::{FEATURES, FeatureSet, WAZIR, difference};
use leaper::search::MATE_BOUND;
use leaper_rules::{Color, Position};
use std::collections::HashSet;
use std::path::Path;

/// One training position: its nonzero feature differences, its result for
/// the side to move (1, 0.5 or 0) and, if known, the search's win
/// probability.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// (feature, value) pairs, value nonzero.
    pub features: Vec<(u16, f32)>,
    /// The game result for the side to move.
    pub result: f32,
    /// sigmoid(search score), if the position was searched.
    pub search: Option<f32>,
    /// The game it comes from (for the validation split).
    pub game: u64,
}

impl Example {
    /// The example of `pos` with the given labels.
    pub fn new(pos: &Position, set: FeatureSet, result: f32, search: Option<f32>, game: u64) -> Example {
        let features = difference(pos, set)
            .into_iter()
            .enumerate()
            .filter(|(_, v)| *v != 0.0)
            .map(|(i, v)| (i as u16, v))
            .collect();
        Example {
            features,
            result,
            search,
            game,
        }
    }

    /// Whether it is held out for validation.
    pub fn is_validation(&self) -> bool {
        self.game.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60 < 2 // about one game in eight
    }
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// A search score (logit x 10,000, mates beyond [`MATE_BOUND`]) as a win
/// probability.
pub fn score_probability(score: i32) -> f32 {
    if score > MATE_BOUND {
        1.0
    } else if score < -MATE_BOUND {
        0.0
    } else {
        sigmoid(f64::from(score) / 10_000.0) as f32
    }
}

/// The result `1-0` / `0-1` / `1/2-1/2` for `color`.
fn result_for(result: &str, color: Color) -> Option<f32> {
    let red = match result {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        _ => return None,
    };
    Some(if color == Color::Red { red } else { 1.0 - red })
}

/// What reading the data found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Positions kept.
    pub positions: usize,
    /// Games seen.
    pub games: usize,
    /// Lines or games skipped as unreadable, forfeited or repeated.
    pub skipped: usize,
}

/// Reads a self-play record (see `selfplay`), adding its positions to
/// `out`; `file_id` keeps game numbers of different files apart.
///
/// # Errors
/// The file cannot be read; bad lines are counted, not fatal.
pub fn load_selfplay(
    path: &Path,
    file_id: u64,
    set: FeatureSet,
    out: &mut Vec<Example>,
) -> std::io::Result<LoadReport> {
    let text = std::fs::read_to_string(path)?;
    let mut report = LoadReport::default();
    for line in text.lines() {
        if line.starts_with("# game") {
            report.games += 1;
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(';').collect();
        let parsed = (|| {
            let [fen, score, result, game] = fields.as_slice() else {
                return None;
            };
            let pos = Position::from_fen(fen).ok()?;
            let result = result_for(result, pos.turn())?;
            let search = if *score == "-" {
                None
            } else {
                Some(score_probability(score.parse().ok()?))
            };
            let game: u64 = game.parse().ok()?;
            Some(Example::new(&pos, set, result, search, (file_id << 32) | game))
        })();
        match parsed {
            Some(example) => {
                out.push(example);
                report.positions += 1;
            }
            None => report.skipped += 1,
        }
    }
    Ok(report)
}

/// Reads a CodeCup transcript CSV: one in `stride` of the quiet positions
/// from ply 6 on (two regular moves each) of each game that ended by the rules (forfeits and
/// repeated games skipped), with the game's result and no score.
///
/// # Errors
/// The file cannot be read or is not CSV; bad games are counted.
pub fn load_codecup(
    path: &Path,
    file_id: u64,
    set: FeatureSet,
    stride: usize,
    seen: &mut HashSet<String>,
    out: &mut Vec<Example>,
) -> Result<LoadReport, csv::Error> {
    let mut reader = csv::Reader::from_path(path)?;
    let headers = reader.headers()?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (Some(s1), Some(s2), Some(c1), Some(c2), Some(mv)) = (
        column("Status1"),
        column("Status2"),
        column("Score1"),
        column("Score2"),
        column("Moves"),
    ) else {
        return Ok(LoadReport {
            skipped: 1,
            ..LoadReport::default()
        });
    };
    let mut report = LoadReport::default();
    let mut quiet = 0usize;
    for (row, record) in reader.records().enumerate() {
        report.games += 1;
        let Ok(record) = record else {
            report.skipped += 1;
            continue;
        };
        let get = |i: usize| record.get(i).unwrap_or("");
        let moves = get(mv);
        if !seen.insert(moves.to_string()) {
            report.skipped += 1;
            continue;
        }
        let Ok(Some(outcome)) = check_codecup_game(moves, [get(s1), get(s2)], [get(c1), get(c2)]) else {
            report.skipped += 1;
            continue;
        };
        let Ok((_, played)) = replay_moves(moves) else {
            report.skipped += 1;
            continue;
        };
        let mut pos = Position::new();
        for (ply, m) in played.iter().enumerate() {
            if ply >= 6 && pos.outcome().is_none() && super::selfplay::is_quiet(&pos) {
                quiet += 1;
                if !quiet.is_multiple_of(stride.max(1)) {
                    pos.play_game_move(m);
                    continue;
                }
                let result = match outcome.winner {
                    None => 0.5,
                    Some(c) if c == pos.turn() => 1.0,
                    Some(_) => 0.0,
                };
                out.push(Example::new(&pos, set, result, None, (file_id << 32) | row as u64));
                report.positions += 1;
            }
            pos.play_game_move(m);
        }
    }
    Ok(report)
}

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Weight of the game result in the target (the rest is the search).
    pub lambda: f32,
    /// L2 penalty per weight on its distance from the starting weight (in
    /// logits squared), added to the mean loss.
    pub l2: f64,
    /// Full-batch Adam steps.
    pub iterations: usize,
    /// Adam step size, logits.
    pub learning_rate: f64,
    /// Threads for the gradient.
    pub threads: usize,
    /// Which features may have nonzero weights.
    pub set: FeatureSet,
}

impl Default for FitConfig {
    fn default() -> FitConfig {
        FitConfig {
            lambda: 0.5,
            l2: 1e-6,
            iterations: 400,
            learning_rate: 0.01,
            threads: 1,
            set: FeatureSet::Full,
        }
    }
}

/// Losses of a model on a data set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    /// Mean cross-entropy against the mixed target.
    pub target: f64,
    /// Mean cross-entropy against the game result alone.
    pub result: f64,
    /// Positions.
    pub count: usize,
}

/// The target of an example under `lambda`.
fn target(e: &Example, lambda: f32) -> f64 {
    f64::from(match e.search {
        Some(s) => lambda * e.result + (1.0 - lambda) * s,
        None => e.result,
    })
}

/// Cross-entropy of probability `p` against target `y`.
fn cross_entropy(p: f64, y: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// Weights in logits: [`FEATURES`] features, then the tempo.
fn logit(e: &Example, w: &[f64]) -> f64 {
    let mut z = w.get(FEATURES).copied().unwrap_or(0.0);
    for &(i, v) in &e.features {
        z += w.get(i as usize).copied().unwrap_or(0.0) * f64::from(v);
    }
    z
}

/// The losses of weights `w` (logits) on `data`.
fn losses_of(data: &[&Example], w: &[f64], lambda: f32) -> Losses {
    let mut l = Losses {
        count: data.len(),
        ..Losses::default()
    };
    for e in data {
        let p = sigmoid(logit(e, w));
        l.target += cross_entropy(p, target(e, lambda));
        l.result += cross_entropy(p, f64::from(e.result));
    }
    let n = data.len().max(1) as f64;
    l.target /= n;
    l.result /= n;
    l
}

/// The losses of integer weights on `data` (all of it).
pub fn evaluate(data: &[Example], weights: &Weights, lambda: f32) -> Losses {
    let refs: Vec<&Example> = data.iter().collect();
    losses_of(&refs, &to_logits(weights), lambda)
}

fn to_logits(weights: &Weights) -> Vec<f64> {
    let mut w: Vec<f64> = weights.features.iter().map(|&v| f64::from(v) / 10_000.0).collect();
    w.push(f64::from(weights.tempo) / 10_000.0);
    w
}

fn to_weights(w: &[f64]) -> Weights {
    let mut out = Weights::zero();
    for (o, v) in out.features.iter_mut().zip(w) {
        *o = (v * 10_000.0).round() as i32;
    }
    out.tempo = (w.get(FEATURES).copied().unwrap_or(0.0) * 10_000.0).round() as i32;
    out
}

/// The gradient of the mean loss over `data`, on `threads` threads.
fn gradient(data: &[&Example], w: &[f64], lambda: f32, threads: usize) -> Vec<f64> {
    let chunk = data.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = data
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut g = vec![0.0; FEATURES + 1];
                    for e in part {
                        let d = sigmoid(logit(e, w)) - target(e, lambda);
                        for &(i, v) in &e.features {
                            if let Some(gi) = g.get_mut(i as usize) {
                                *gi += d * f64::from(v);
                            }
                        }
                        if let Some(gt) = g.get_mut(FEATURES) {
                            *gt += d;
                        }
                    }
                    g
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let n = data.len().max(1) as f64;
    let mut g = vec![0.0; FEATURES + 1];
    for part in parts {
        for (a, b) in g.iter_mut().zip(part) {
            *a += b / n;
        }
    }
    g
}

/// What a fit produced.
#[derive(Clone, Debug)]
pub struct FitReport {
    /// The fitted weights.
    pub weights: Weights,
    /// Losses of the starting weights, training and validation.
    pub start: (Losses, Losses),
    /// Losses of the fitted weights, training and validation.
    pub end: (Losses, Losses),
}

/// Fits weights to `data`, starting from `start`, reporting progress every
/// 50 steps to `progress` (step, training losses, validation losses).
pub fn fit(
    data: &[Example],
    start: &Weights,
    config: &FitConfig,
    mut progress: impl FnMut(usize, Losses, Losses),
) -> FitReport {
    let (valid, train): (Vec<&Example>, Vec<&Example>) = data.iter().partition(|e| e.is_validation());
    let mut w = to_logits(start);
    let allowed: Vec<bool> = (0..=FEATURES)
        .map(|i| config.set == FeatureSet::Full || !(WAZIR..FEATURES).contains(&i))
        .collect();
    for (wi, ok) in w.iter_mut().zip(&allowed) {
        if !ok {
            *wi = 0.0;
        }
    }
    // The penalty pulls towards the starting weights, not towards zero, so
    // that features seldom seen (the eighth alfil in hand) keep their prior
    // values instead of whatever a few games say.
    let prior = w.clone();
    let start_losses = (
        losses_of(&train, &w, config.lambda),
        losses_of(&valid, &w, config.lambda),
    );
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; FEATURES + 1];
    let mut v = vec![0.0; FEATURES + 1];
    for step in 1..=config.iterations {
        let mut g = gradient(&train, &w, config.lambda, config.threads);
        for ((gi, wi), pi) in g.iter_mut().zip(&w).zip(&prior).take(FEATURES) {
            *gi += 2.0 * config.l2 * (wi - pi);
        }
        for i in 0..=FEATURES {
            if !allowed[i] {
                continue;
            }
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(step as i32));
            let vh = v[i] / (1.0 - b2.powi(step as i32));
            w[i] -= config.learning_rate * mh / (vh.sqrt() + eps);
        }
        if step % 50 == 0 || step == config.iterations {
            progress(
                step,
                losses_of(&train, &w, config.lambda),
                losses_of(&valid, &w, config.lambda),
            );
        }
    }
    let weights = to_weights(&w);
    let rounded = to_logits(&weights);
    FitReport {
        weights,
        start: start_losses,
        end: (
            losses_of(&train, &rounded, config.lambda),
            losses_of(&valid, &rounded, config.lambda),
        ),
    }
}
