//! The `leaper` binary: the engine server, its measurements (bench,
//! bench-stop), the rules tools (perft, perft-bench, replay) and training
//! (selfplay, fit, from `leaper-train`). Library code returns values; this
//! file parses arguments, reads the environment and prints.
//!
//! Without a subcommand the engine waits for its first input line, which
//! chooses the protocol (`uci`, or `Start` / a setup for CodeCup); `uci`
//! and `codecup` force one. Nothing goes to stdout before that line, and
//! diagnostics go to stderr only.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use crossbeam_channel::Receiver;
use leaper::eval::{DEFAULT_KIND, Eval, EvalKind, Weights};
use leaper::server::codecup::{self, CodeCupConfig};
use leaper::server::{Flow, Output, Server, bench};
use leaper::{Position, SetupCase, perft_divide};
use leaper_train::cli as eval_cli;
use leaper_train::replay;
use protocol::{Line, LineReader, Protocol};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "leaper",
    version,
    about = "An engine and rules toolkit for the board game 0.1 (Zero Point One)"
)]
struct Cli {
    /// Without one, the first input line picks the protocol.
    #[command(subcommand)]
    command: Option<Command>,
    /// For a CodeCup game chosen by the first line.
    #[command(flatten)]
    game: GameSeed,
}

/// The seed of a CodeCup game, defined once for `leaper` and `leaper
/// codecup`.
#[derive(Args, Debug, Clone, Copy)]
struct GameSeed {
    /// Seed of a CodeCup game's random choices (Red's setup among the book's best); default: drawn from the system's entropy, and logged, so that every game differs. Give the logged seed to replay a game.
    #[arg(long)]
    seed: Option<u64>,
}

impl GameSeed {
    /// The seed given, or a fresh one from the operating system's entropy
    /// (read here, in the binary: the library takes the seed as a value).
    fn resolve(self) -> u64 {
        self.seed.unwrap_or_else(rand::random)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak UCI (with drops and setups) on stdin/stdout.
    Uci,
    /// Play one CodeCup game against the referee on stdin/stdout.
    Codecup {
        /// The whole game's thinking time, ms.
        #[arg(long, default_value_t = 30_000)]
        time_ms: u64,
        #[command(flatten)]
        game: GameSeed,
    },
    /// Search the bench positions to a fixed depth; the last line is `<nodes> nodes <nps> nps`.
    Bench {
        /// Search depth, plies.
        #[arg(long, default_value_t = leaper::server::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Evaluation to search with: material, psq, full, nnue or linear (default: the engine's default, that of the UCI option Eval).
        #[arg(long, value_parser = eval_cli::parse_kind)]
        eval: Option<EvalKind>,
        /// A network or linear model file for nnue or linear (as the UCI option EvalFile).
        #[arg(long, value_name = "FILE")]
        eval_file: Option<PathBuf>,
    },
    /// Measure how fast the engine, run as a process over pipes, answers `stop` during `go infinite`.
    BenchStop {
        /// Stops to measure; the median is reported.
        #[arg(long, default_value_t = 15)]
        runs: usize,
        /// Search time before each stop, ms.
        #[arg(long, default_value_t = 200)]
        think_ms: u64,
    },
    /// Count move sequences of exactly <DEPTH> plies, split by root move.
    Perft {
        /// Plies to count.
        depth: u32,
        /// Moves from the starting position (or from --fen), space-separated.
        #[arg(long, default_value = "")]
        moves: String,
        /// Start from this position (`<board> <hands> <side> <ply>`) instead of the empty board.
        #[arg(long)]
        fen: Option<String>,
    },
    /// Check recorded games (CodeCup transcripts or arena records): every move legal, every result consistent.
    Replay {
        /// CSV files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Play self-play games and record quiet positions with scores and results, for `fit`.
    Selfplay(eval_cli::SelfplayArgs),
    /// Fit the evaluation weights to self-play records (and CodeCup games) by logistic regression.
    Fit(eval_cli::FitArgs),
    /// Measure perft speed (leaf nodes per second) on the positions of a perft file.
    PerftBench {
        /// Perft cases (the format of shared/data/perft-sample.txt).
        #[arg(long, default_value = "../shared/data/perft-sample.txt")]
        file: PathBuf,
        /// Skip counts above this many leaf nodes.
        #[arg(long, default_value_t = 300_000_000)]
        max_nodes: u64,
        /// Runs per position; the median is reported.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Threads to count with.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
}

/// An environment variable naming a weights file that replaces the
/// shipped full-model weights, for trying fitted weights in the arena
/// without a rebuild. Unset (or unreadable, or not a weights file) means
/// the shipped ones.
const WEIGHTS_ENV: &str = "LEAPER_EVAL_WEIGHTS";

/// The evaluator of `kind` this process plays with: the full model's
/// weights come from [`WEIGHTS_ENV`] when it names a weights file.
fn engine_eval(kind: EvalKind) -> Eval {
    let weights = std::env::var_os(WEIGHTS_ENV)
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| Weights::parse(&text).ok());
    match weights {
        Some(weights) => Eval::with_full_weights(kind, Arc::new(weights)),
        None => Eval::new(kind),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("leaper: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let Some(command) = cli.command else {
        return serve(None, cli.game);
    };
    match command {
        Command::Uci => serve(Some(Protocol::Uci), cli.game),
        Command::Codecup { time_ms, game } => {
            codecup_mode(None, &input_lines(), Duration::from_millis(time_ms), game)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { depth, eval, eval_file } => {
            let mut engine = engine_eval(eval.unwrap_or(DEFAULT_KIND));
            if let Some(path) = eval_file {
                let model = leaper_nnue::EvalModel::load(&path)
                    .with_context(|| format!("cannot load the evaluation file {}", path.display()))?;
                engine = engine.with_model(model).0;
            }
            bench_command(depth, &engine)
        }
        Command::BenchStop { runs, think_ms } => bench_stop(runs, Duration::from_millis(think_ms)),
        Command::Perft { depth, moves, fen } => perft_command(depth, &moves, fen.as_deref()),
        Command::Replay { files } => replay_command(&files),
        Command::Selfplay(args) => eval_cli::selfplay_command(&args, engine_eval),
        Command::Fit(args) => eval_cli::fit_command(&args),
        Command::PerftBench {
            file,
            max_nodes,
            runs,
            threads,
        } => perft_bench(&file, max_nodes, runs, threads),
    }
}

/// Input lines, read on their own thread so that the server can answer
/// `isready` and `stop` while it searches. The channel closes at end of
/// input.
fn input_lines() -> Receiver<io::Result<Line>> {
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        for line in LineReader::new(io::stdin().lock()) {
            let failed = line.is_err();
            if tx.send(line).is_err() || failed {
                break;
            }
        }
    });
    rx
}

/// Runs the engine server: `protocol` forced, or chosen by the first line
/// (`game` seeds a CodeCup game).
fn serve(protocol: Option<Protocol>, game: GameSeed) -> Result<ExitCode> {
    let lines = input_lines();
    let mut first = None;
    let protocol = match protocol {
        Some(p) => p,
        None => {
            let Ok(line) = lines.recv() else {
                return Ok(ExitCode::SUCCESS);
            };
            let line = line.context("reading stdin")?;
            let detected = match &line {
                Line::Text(text) => Protocol::detect(text),
                Line::TooLong { .. } => None,
            };
            first = Some(line);
            // Anything else is taken as UCI, and answered as such.
            detected.unwrap_or(Protocol::Uci)
        }
    };
    match protocol {
        Protocol::Uci => uci_mode(first, &lines)?,
        Protocol::CodeCup => codecup_mode(first, &lines, Duration::from_secs(30), game)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn uci_mode(first: Option<Line>, lines: &Receiver<io::Result<Line>>) -> Result<()> {
    let mut server = Server::with_eval(Output::stdout(), engine_eval(DEFAULT_KIND))?;
    if let Some(line) = first
        && server.handle_input(&line) == Flow::Quit
    {
        return Ok(());
    }
    while let Ok(line) = lines.recv() {
        match line {
            Ok(line) => {
                if server.handle_input(&line) == Flow::Quit {
                    break;
                }
            }
            Err(err) => {
                eprintln!("leaper: reading stdin: {err}");
                break;
            }
        }
    }
    // End of input is a quit: the running search (if any) answers first.
    drop(server);
    Ok(())
}

fn codecup_mode(
    first: Option<Line>,
    lines: &Receiver<io::Result<Line>>,
    budget: Duration,
    game: GameSeed,
) -> Result<()> {
    let seed = game.resolve();
    // Logged first, so that a game can be replayed with `--seed`.
    eprintln!("leaper: codecup game, seed {seed}");
    let config = CodeCupConfig {
        budget,
        seed,
        eval: engine_eval(DEFAULT_KIND),
        ..CodeCupConfig::default()
    };
    let summary = codecup::play(first, lines.iter(), &Output::stdout(), &mut io::stderr(), &config)?;
    eprintln!(
        "leaper: {} moves in {} ms, final position {}",
        summary.moves,
        summary.used.as_millis(),
        summary.fen
    );
    Ok(())
}

fn bench_command(depth: u32, eval: &Eval) -> Result<ExitCode> {
    let start = Instant::now();
    let lines = bench::run(depth, eval, |line| {
        println!(
            "position {:>2}: {:>10} nodes {:>8} ms  bestmove {}",
            line.index + 1,
            line.nodes,
            line.elapsed.as_millis(),
            line.best
        );
    })?;
    let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
    let search_time: Duration = lines.iter().map(|l| l.elapsed).sum();
    eprintln!("depth {depth}, {} ms in all", start.elapsed().as_millis());
    println!(
        "{nodes} nodes {} nps",
        (nodes as f64 / search_time.as_secs_f64().max(1e-6)) as u64
    );
    Ok(ExitCode::SUCCESS)
}

fn bench_stop(runs: usize, think: Duration) -> Result<ExitCode> {
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let mut latencies = bench::stop_latency(&exe, runs.max(1), think)?;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    for (i, d) in latencies.iter().enumerate() {
        println!("stop {:>2}: {:.3} ms", i + 1, ms(*d));
    }
    latencies.sort();
    let (Some(min), Some(max)) = (latencies.first(), latencies.last()) else {
        bail!("no stop measured");
    };
    println!(
        "stop latency median {:.3} ms (min {:.3} ms, max {:.3} ms, {} runs, {} ms of search before each stop)",
        ms(latencies[latencies.len() / 2]),
        ms(*min),
        ms(*max),
        latencies.len(),
        think.as_millis()
    );
    Ok(ExitCode::SUCCESS)
}

/// The position reached by `moves` from `fen` (or the empty board).
fn position_from(fen: Option<&str>, moves: &str) -> Result<Position> {
    let mut pos = match fen {
        Some(fen) => Position::from_fen(fen).with_context(|| format!("bad --fen '{fen}'"))?,
        None => Position::new(),
    };
    for (i, text) in moves.split_whitespace().enumerate() {
        let mv = pos
            .parse_move(text, SetupCase::Lenient)
            .with_context(|| format!("move {} '{text}'", i + 1))?;
        pos.play_game_move(&mv);
    }
    Ok(pos)
}

fn perft_command(depth: u32, moves: &str, fen: Option<&str>) -> Result<ExitCode> {
    let pos = position_from(fen, moves)?;
    let start = Instant::now();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut io_result = Ok(());
    let turn = pos.turn();
    let total = perft_divide(&pos, depth, |mv, n| {
        if io_result.is_ok() {
            io_result = writeln!(out, "{}: {n}", mv.to_text(turn));
        }
    });
    io_result?;
    writeln!(out, "Nodes searched: {total}")?;
    out.flush()?;
    let secs = start.elapsed().as_secs_f64();
    eprintln!("{:.3} s, {:.1} M nodes/s", secs, total as f64 / secs.max(1e-9) / 1e6);
    Ok(ExitCode::SUCCESS)
}

fn replay_command(files: &[PathBuf]) -> Result<ExitCode> {
    let (mut games, mut legal, mut errors) = (0usize, 0usize, 0usize);
    for file in files {
        match replay::check_file(file) {
            Ok(report) => {
                games += report.games;
                legal += report.legal;
                for failure in &report.failures {
                    errors += 1;
                    println!("{}: game {}: {}", file.display(), failure.game, failure.error);
                }
            }
            Err(err) => {
                errors += 1;
                println!("{}: {err}", file.display());
            }
        }
    }
    println!("{games} games, {legal} legal, {errors} errors");
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn perft_bench(file: &PathBuf, max_nodes: u64, runs: usize, threads: usize) -> Result<ExitCode> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let cases = leaper::parse_perft_cases(&text).map_err(anyhow::Error::msg)?;
    let (mut all_nodes, mut all_secs) = (0u64, 0f64);
    for case in &cases {
        let pos = position_from(None, &case.moves)?;
        let Some(&(depth, expected)) = case.counts.iter().filter(|(_, n)| *n <= max_nodes).max() else {
            continue;
        };
        let mut times = Vec::new();
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            let n = leaper::perft_parallel(&pos, depth, threads);
            times.push(start.elapsed().as_secs_f64());
            if n != expected {
                bail!("{}: perft {depth} gives {n}, expected {expected}", case.id);
            }
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        all_nodes += expected;
        all_secs += median;
        println!(
            "{:<20} depth {depth} {expected:>12} nodes {:>9.3} s {:>8.1} M nodes/s",
            case.id,
            median,
            expected as f64 / median / 1e6
        );
    }
    println!(
        "total {all_nodes} nodes {:.3} s {:.1} M nodes/s",
        all_secs,
        all_nodes as f64 / all_secs.max(1e-9) / 1e6
    );
    Ok(ExitCode::SUCCESS)
}
