//! The `arena` binary: runs and scores matches between engines. Each
//! subcommand parses its own arguments and calls into the libraries; the
//! statistics all come from the `results` crate.

use std::process::ExitCode;

use arena::Mode;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod clock_cli;
mod commands;
mod db_cli;
mod openings_cli;
mod regress_cli;
mod serve_cli;
mod stats;
mod tune_cli;

/// Runs and scores matches between engines for the game 0.1.
///
/// Without a subcommand: a short SPRT of the workspace's own `leaper`
/// against itself with a weakened option (the self-test).
#[derive(Debug, Parser)]
#[command(name = "arena", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Self-test without progress bars.
    #[arg(long)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Elo, nElo, LOS and the SPRT state for counts or game record files.
    Stats(stats::StatsArgs),
    /// Where each engine's clock went: median thinking time by move number, from runs' event logs.
    Clock(clock_cli::ClockArgs),
    /// Play a match between two engines (optionally until an SPRT decides).
    Match(arena::RunSettings),
    /// Play the first engine against every other one.
    Gauntlet(arena::RunSettings),
    /// Play every engine against every other one.
    Roundrobin(arena::RunSettings),
    /// Measure the arena's own overhead with an engine that answers at once.
    Bench(commands::BenchArgs),
    /// Setup books and opening suites: generate, suite, stats.
    Openings {
        #[command(subcommand)]
        command: openings_cli::OpeningsCommand,
    },
    /// Tune an engine's parameters by SPSA, playing it against itself.
    Tune(tune_cli::TuneArgs),
    /// Show runs in the browser: a local web server with the runs, their
    /// charts and a game viewer.
    Serve(arena::serve::ServeArgs),
    /// Test a build for Elo regressions: build two git refs, check their bench, SPRT, verdict, ledger.
    Regress(regress_cli::RegressArgs),
    /// Play the runs of a PostgreSQL database: claim batches of game pairs, play them, record them.
    Worker(db_cli::WorkerArgs),
    /// The runs of a PostgreSQL database: progress, Elo, LLR, pentanomial, workers, games per second.
    Status(db_cli::StatusArgs),
    /// Write a database run into a directory: games.csv, events.jsonl, summary.json, as a local run.
    Export(db_cli::ExportArgs),
}

/// The exit status after Ctrl-C or `SIGTERM` (128 + SIGINT, as shells do).
const INTERRUPTED: u8 = 130;

/// How long the Ctrl-C handler, once the engines are gone, leaves a
/// command that reports on interruption (see [`REPORTS_ON_INTERRUPT`])
/// to return and print what it had, before it exits anyway.
const AFTER_INTERRUPT: std::time::Duration = std::time::Duration::from_secs(5);

/// Set by the commands that end their run when interrupted and print its
/// standings (match, gauntlet, round robin, a resumed run, the self-test):
/// the Ctrl-C handler then leaves them time to. Other commands (a server,
/// a worker waiting on its database) exit as soon as the engines are gone.
pub(crate) static REPORTS_ON_INTERRUPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn main() -> ExitCode {
    // Engines run in process groups of their own, out of reach of the
    // terminal's Ctrl-C: end them all before going.
    if let Err(error) = ctrlc::set_handler(|| {
        arena::stop_all_engines(arena::TERM_GRACE);
        if REPORTS_ON_INTERRUPT.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(AFTER_INTERRUPT);
        }
        std::process::exit(i32::from(INTERRUPTED));
    }) {
        eprintln!("arena: warning: cannot handle Ctrl-C ({error}); engines may outlive an interrupted run");
    }
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    // The run commands read their settings from the matches themselves,
    // over those of a --config file.
    let sub = matches.subcommand().map_or(&matches, |(_, sub)| sub);
    let outcome = match &cli.command {
        Some(Command::Stats(args)) => stats::run(args),
        Some(Command::Clock(args)) => clock_cli::run(args),
        Some(Command::Match(_)) => commands::run(Mode::Match, sub),
        Some(Command::Gauntlet(_)) => commands::run(Mode::Gauntlet, sub),
        Some(Command::Roundrobin(_)) => commands::run(Mode::Roundrobin, sub),
        Some(Command::Bench(args)) => commands::bench(args),
        Some(Command::Openings { command }) => openings_cli::run(command),
        Some(Command::Tune(args)) => tune_cli::run(args),
        Some(Command::Serve(args)) => serve_cli::run(args),
        Some(Command::Regress(args)) => return regress_cli::run(args),
        Some(Command::Worker(args)) => db_cli::worker(args),
        Some(Command::Status(args)) => db_cli::status(args),
        Some(Command::Export(args)) => db_cli::export(args),
        None => commands::selftest(cli.quiet),
    };
    // Ctrl-C or SIGTERM: the handler is ending the engines. A run's
    // games in flight were abandoned, not recorded, and the command has
    // printed the standings of those played. Exiting before the handler
    // is done could leave an engine behind: wait for it, then exit as
    // interrupted (an error is one the interruption caused).
    if arena::stopping() {
        arena::wait_engines_stopped();
        if let Err(error) = outcome {
            eprintln!("arena: interrupted: {error:#}");
        }
        return ExitCode::from(INTERRUPTED);
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("arena: {error:#}");
            ExitCode::FAILURE
        }
    }
}
