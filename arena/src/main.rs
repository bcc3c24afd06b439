//! The `arena` binary: runs and scores matches between engines. Each
//! subcommand parses its own arguments and calls into the libraries; the
//! statistics all come from the `results` crate.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod stats;

/// Runs and scores matches between engines for the game 0.1.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Elo, nElo, LOS and the SPRT state for counts or game record files.
    Stats(stats::StatsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Stats(args) => stats::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("arena: {error:#}");
            ExitCode::FAILURE
        }
    }
}
