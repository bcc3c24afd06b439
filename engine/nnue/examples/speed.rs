//! How fast the integer network follows a search: along random games, from
//! every position a few random moves are made and unmade, each an
//! incremental accumulator update (`push`), an evaluation and a `pop`, as
//! a search does at its leaves; then the game move is pushed. For
//! comparison, the same evaluations from scratch. Last, the trainer's
//! throughput: one epoch of stage B on the positions of those games (with
//! random targets: the speed does not depend on them).
//!
//! `cargo run --release -p leaper-nnue --example speed`

use leaper_nnue::train::{Sample, TrainConfig, Trainer};
use leaper_nnue::{AccumulatorStack, FloatNetwork, QuantNetwork};
use leaper_rules::{Move, MoveList, Position, Setup};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;

/// A random game: its start and, per ply, some tried moves (with the
/// positions after them) and the move played.
struct Game {
    start: Position,
    plies: Vec<Ply>,
}

struct Ply {
    tries: Vec<(Move, Position)>,
    played: (Position, Move, Position),
}

fn random_games(rng: &mut StdRng, steps: usize) -> Vec<Game> {
    let mut games = Vec::new();
    let mut total = 0;
    let mut list = MoveList::new();
    while total < steps {
        let start = Position::from_setups(&Setup::random(rng), &Setup::random(rng));
        let mut pos = start.clone();
        let mut plies = Vec::new();
        loop {
            list.clear();
            pos.legal_moves(&mut list);
            let moves = list.as_slice();
            if moves.is_empty() {
                break;
            }
            let tries: Vec<(Move, Position)> = (0..8)
                .map(|_| moves[rng.random_range(0..moves.len())])
                .map(|m| (m, pos.after(m)))
                .collect();
            total += tries.len();
            let mv = moves[rng.random_range(0..moves.len())];
            let after = pos.after(mv);
            plies.push(Ply {
                tries,
                played: (pos.clone(), mv, after.clone()),
            });
            pos = after;
        }
        games.push(Game { start, plies });
    }
    games
}

/// This thread's time on a CPU in ns (Linux), so that the figure means
/// something on a machine shared with other jobs; `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Prints a rate by wall-clock time and, where known, by CPU time.
fn report(what: &str, n: usize, wall: std::time::Duration, cpu: Option<u64>, checksum: i64) {
    let wall = wall.as_secs_f64();
    print!(
        "{what}: {:.2} M/s wall ({:.0} ns each)",
        n as f64 / wall / 1e6,
        wall * 1e9 / n as f64
    );
    if let Some(cpu) = cpu {
        let cpu = cpu as f64 / 1e9;
        print!(
            ", {:.2} M/s CPU ({:.0} ns each)",
            n as f64 / cpu / 1e6,
            cpu * 1e9 / n as f64
        );
    }
    println!("; {n} steps, checksum {checksum}");
}

fn main() {
    let mut rng = StdRng::seed_from_u64(1);
    let net: QuantNetwork = FloatNetwork::random(&mut rng).quantize();
    let games = random_games(&mut rng, 200_000);

    let mut stack = AccumulatorStack::new();
    let rounds = 10;
    let (mut steps, mut checksum) = (0usize, 0i64);
    let (start, cpu0) = (Instant::now(), cpu_ns());
    for _ in 0..rounds {
        for game in &games {
            stack.reset(&net, &game.start);
            for ply in &game.plies {
                let before = &ply.played.0;
                for (mv, after) in &ply.tries {
                    stack.push(before, *mv, after);
                    checksum += i64::from(stack.evaluate(&net, black_box(after)));
                    stack.pop();
                    steps += 1;
                }
                let (before, mv, after) = &ply.played;
                stack.push(before, *mv, after);
            }
        }
    }
    let cpu = cpu_ns().zip(cpu0).map(|(b, a)| b - a);
    report(
        "incremental push + evaluate + pop",
        steps,
        start.elapsed(),
        cpu,
        checksum,
    );

    let (mut n, mut checksum) = (0usize, 0i64);
    let (start, cpu0) = (Instant::now(), cpu_ns());
    for game in &games {
        for ply in &game.plies {
            for (_, after) in &ply.tries {
                checksum += i64::from(net.evaluate(black_box(after)));
                n += 1;
            }
        }
    }
    let cpu = cpu_ns().zip(cpu0).map(|(b, a)| b - a);
    report(
        "from scratch (both accumulators + evaluate)",
        n,
        start.elapsed(),
        cpu,
        checksum,
    );

    let samples: Vec<Sample> = games
        .iter()
        .flat_map(|g| g.plies.iter())
        .map(|p| Sample::new(&p.played.0, rng.random_range(-20_000..20_000), 0.5, 0.1))
        .collect();
    for threads in [1, 2] {
        let config = TrainConfig {
            epochs: 1,
            threads,
            validation_fraction: 0.0,
            ..TrainConfig::default()
        };
        let mut trainer = Trainer::new(FloatNetwork::random(&mut rng), samples.clone(), config);
        let report = trainer.train_epoch();
        println!(
            "training (stage B, batch 4096, {threads} thread{}): {:.0} samples/s wall; {} samples",
            if threads == 1 { "" } else { "s" },
            report.samples_per_second,
            samples.len()
        );
    }
}
