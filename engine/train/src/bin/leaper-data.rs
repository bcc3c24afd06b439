//! `leaper-data`: the self-play data tools as a binary of their own (the
//! engine binary `leaper` carries none of them): `datagen` writes or resumes a data
//! file, `summary` tells what data files hold, `train` fits the NNUE to them,
//! `loss` scores model files on held-out games.

use clap::{Parser, Subcommand};
use leaper_train::data::cli::{DatagenArgs, SummaryArgs, datagen, summary};
use leaper_train::train_cli::{LossArgs, TrainArgs, loss, train};

/// Self-play training data for leaper's evaluation.
#[derive(Debug, Parser)]
#[command(name = "leaper-data", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play self-play games and store quiet positions with deeper scores
    /// and game results.
    Datagen(DatagenArgs),
    /// Counts, result balance, score and ply histograms, duplicates.
    Summary(SummaryArgs),
    /// Train the NNUE on data files and export the integer network.
    Train(TrainArgs),
    /// Score model files on the games a training run held out (or on
    /// all of a data file), as the engine evaluates them.
    Loss(LossArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Datagen(args) => datagen(args),
        Command::Summary(args) => summary(args),
        Command::Train(args) => train(args),
        Command::Loss(args) => loss(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
