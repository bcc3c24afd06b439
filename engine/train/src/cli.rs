//! The `selfplay` and `fit` subcommands of the `leaper` binary: argument
//! parsing and printing around [`selfplay`](crate::selfplay) and
//! [`fit`](crate::fit), which do the work and never print. The binary
//! wires them in (and supplies the evaluator, whose weights it may read
//! from the environment).

use crate::fit::{self, FitConfig, Losses};
use crate::selfplay;
use anyhow::{Context, Result, bail};
use clap::Args;
use leaper::eval::{Eval, EvalKind, FeatureSet, Weights};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `leaper selfplay`.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Record file to write (positions and games).
    #[arg(long)]
    out: PathBuf,
    /// Search depth per move (default 4 unless --nodes is given).
    #[arg(long)]
    depth: Option<u32>,
    /// Nodes per move.
    #[arg(long)]
    nodes: Option<u64>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of the setups and random moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Regular plies played at random at the start of each game.
    #[arg(long, default_value_t = 4)]
    random_plies: u32,
    /// Evaluation to play with: material, psq, full or nnue.
    #[arg(long, default_value = "full", value_parser = parse_kind)]
    eval: EvalKind,
    /// Hash table per thread, MB.
    #[arg(long, default_value_t = 8)]
    hash: usize,
}

/// An `--eval` value.
pub fn parse_kind(text: &str) -> Result<EvalKind, String> {
    EvalKind::from_name(text).ok_or_else(|| format!("'{text}' is not material, psq, full, nnue or linear"))
}

/// Runs `leaper selfplay`, playing with the evaluator `eval_of` gives for
/// the `--eval` kind.
pub fn selfplay_command(args: &SelfplayArgs, eval_of: impl Fn(EvalKind) -> Eval) -> Result<ExitCode> {
    let config = selfplay::Config {
        games: args.games,
        depth: args.depth,
        nodes: args.nodes,
        threads: args.threads.max(1),
        seed: args.seed,
        random_plies: args.random_plies,
        eval: eval_of(args.eval),
        hash_mb: args.hash.max(1),
    };
    let file = std::fs::File::create(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut out = std::io::BufWriter::new(file);
    writeln!(
        out,
        "# leaper selfplay: games {} depth {:?} nodes {:?} seed {} random plies {} eval {}",
        config.games,
        config.depth,
        config.nodes,
        config.seed,
        config.random_plies,
        config.eval.kind().name()
    )?;
    let start = Instant::now();
    let (mut done, mut positions, mut io_error) = (0usize, 0usize, None);
    let mut score = [0usize; 3];
    selfplay::run(&config, |game| {
        done += 1;
        positions += game.samples.len();
        score[match game.outcome.winner {
            Some(leaper::Color::Red) => 0,
            None => 1,
            Some(leaper::Color::Blue) => 2,
        }] += 1;
        if io_error.is_none()
            && let Err(err) = out.write_all(game.to_text().as_bytes())
        {
            io_error = Some(err);
        }
        if done % 10 == 0 || done == config.games {
            eprintln!(
                "{done}/{} games, {positions} positions, red wins {} draws {} blue wins {}, {:.0} s",
                config.games,
                score[0],
                score[1],
                score[2],
                start.elapsed().as_secs_f64()
            );
        }
    })?;
    if let Some(err) = io_error {
        return Err(err).context("writing the record");
    }
    out.flush()?;
    println!("{done} games, {positions} positions written to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// `leaper fit`.
#[derive(Args, Debug)]
pub struct FitArgs {
    /// Self-play records (from `leaper selfplay`).
    #[arg(long, num_args = 1..)]
    data: Vec<PathBuf>,
    /// CodeCup transcript CSVs, as extra positions with results only.
    #[arg(long, num_args = 1..)]
    codecup: Vec<PathBuf>,
    /// Keep one CodeCup position in this many, so that self-play stays the main source.
    #[arg(long, default_value_t = 1)]
    codecup_stride: usize,
    /// Weights file to write.
    #[arg(long)]
    out: PathBuf,
    /// Features to fit: psq (piece-square, hand, tempo) or full (also the wazir features).
    #[arg(long, default_value = "full")]
    model: String,
    /// Weight of the game result in the target; the rest is the search score.
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// L2 penalty per weight on its distance from the starting weights (logits squared).
    #[arg(long, default_value_t = 1e-6)]
    l2: f64,
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 400)]
    iterations: usize,
    /// Adam step size, logits.
    #[arg(long, default_value_t = 0.01)]
    learning_rate: f64,
    /// Threads for the gradient.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Starting weights: a weights file (default: the published piece-square model).
    #[arg(long)]
    start: Option<PathBuf>,
}

fn show(l: Losses) -> String {
    format!("{:.5} (result {:.5}, {} positions)", l.target, l.result, l.count)
}

/// Runs `leaper fit`.
pub fn fit_command(args: &FitArgs) -> Result<ExitCode> {
    let set = match args.model.as_str() {
        "psq" => FeatureSet::Psq,
        "full" => FeatureSet::Full,
        other => bail!("--model '{other}': expected psq or full"),
    };
    if args.data.is_empty() && args.codecup.is_empty() {
        bail!("no data: give --data and/or --codecup files");
    }
    let mut data = Vec::new();
    for (i, path) in args.data.iter().enumerate() {
        let r = fit::load_selfplay(path, i as u64, set, &mut data)
            .with_context(|| format!("cannot read {}", path.display()))?;
        eprintln!(
            "{}: {} games, {} positions, {} lines skipped",
            path.display(),
            r.games,
            r.positions,
            r.skipped
        );
    }
    let mut seen = HashSet::new();
    for (i, path) in args.codecup.iter().enumerate() {
        let id = 1000 + i as u64;
        let r = fit::load_codecup(path, id, set, args.codecup_stride.max(1), &mut seen, &mut data)
            .with_context(|| format!("cannot read {}", path.display()))?;
        eprintln!(
            "{}: {} games, {} positions, {} games skipped",
            path.display(),
            r.games,
            r.positions,
            r.skipped
        );
    }
    let start = match &args.start {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            Weights::parse(&text).with_context(|| format!("bad weights file {}", path.display()))?
        }
        None => Weights::seed(),
    };
    let config = FitConfig {
        lambda: args.lambda,
        l2: args.l2,
        iterations: args.iterations,
        learning_rate: args.learning_rate,
        threads: args.threads.max(1),
        set,
    };
    let seed_losses = fit::evaluate(&data, &Weights::seed(), config.lambda);
    eprintln!("published piece-square weights, all data: {}", show(seed_losses));
    let report = fit::fit(&data, &start, &config, |step, train, valid| {
        eprintln!("step {step:>5}: train {}  validation {}", show(train), show(valid));
    });
    println!(
        "start:  train {}  validation {}",
        show(report.start.0),
        show(report.start.1)
    );
    println!(
        "fitted: train {}  validation {}",
        show(report.end.0),
        show(report.end.1)
    );
    let header = format!(
        "leaper fit --model {} --lambda {} --l2 {} --iterations {}: {} positions\n\
         train log-loss {:.5} (result {:.5}), validation {:.5} (result {:.5})",
        args.model,
        args.lambda,
        args.l2,
        args.iterations,
        data.len(),
        report.end.0.target,
        report.end.0.result,
        report.end.1.target,
        report.end.1.result
    );
    std::fs::write(&args.out, report.weights.to_text(&header))
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!("weights written to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
