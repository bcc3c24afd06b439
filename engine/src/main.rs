//! The `leaper` binary: the engine server and the rules tools (perft,
//! replay). Library code returns values; this file parses arguments and
//! prints.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use leaper::{Position, SetupCase, perft_divide, replay};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "leaper",
    version,
    about = "An engine and rules toolkit for the board game 0.1 (Zero Point One)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
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
    match cli.command {
        Command::Perft { depth, moves, fen } => perft_command(depth, &moves, fen.as_deref()),
        Command::Replay { files } => replay_command(&files),
        Command::PerftBench {
            file,
            max_nodes,
            runs,
            threads,
        } => perft_bench(&file, max_nodes, runs, threads),
    }
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
    let stdout = std::io::stdout();
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
