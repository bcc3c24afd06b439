//! The `arena clock` subcommand: each engine's median thinking time by
//! move number, from the event logs of runs ([`arena::read_clock_use`]),
//! printed as a table or one JSON object. It answers "does this engine
//! spend its clock where games are decided?" for a time-management change,
//! before any SPRT.

use std::path::PathBuf;

use anyhow::bail;
use arena::{ClockUse, read_clock_use};
use clap::Args;
use serde::Serialize;

/// Arguments of `arena clock`.
#[derive(Debug, Args)]
pub struct ClockArgs {
    /// Run directories (their `events.jsonl`) or event logs; their games are
    /// merged.
    #[arg(value_name = "RUN", required = true, num_args = 1..)]
    pub runs: Vec<PathBuf>,

    /// Regular moves per band of the table.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub band: u32,

    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct JsonBand {
    first: usize,
    last: usize,
    moves: usize,
    median_ms: u64,
}

#[derive(Serialize)]
struct JsonEngine<'a> {
    name: &'a str,
    games: usize,
    setup_median_ms: u64,
    game_median_ms: u64,
    game_ms: &'a [u64],
    bands: Vec<JsonBand>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    games: usize,
    unfinished: usize,
    skipped: usize,
    band: u32,
    engines: Vec<JsonEngine<'a>>,
}

/// Runs `arena clock`: the report on stdout, skipped lines on stderr.
///
/// # Errors
/// An unreadable log, or logs without a finished game.
pub fn run(args: &ClockArgs) -> anyhow::Result<()> {
    let clock = read_clock_use(&args.runs)?;
    for line in &clock.skipped {
        eprintln!("warning: {line} (skipped)");
    }
    if clock.games == 0 {
        bail!(
            "no finished game in {} ({} unfinished)",
            args.runs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            clock.unfinished
        );
    }
    let width = args.band as usize;
    if args.json {
        let engines = clock
            .engines
            .iter()
            .map(|(name, e)| JsonEngine {
                name,
                games: e.games,
                setup_median_ms: e.median_setup(),
                game_median_ms: e.median_total(),
                game_ms: &e.totals,
                bands: e
                    .bands(width)
                    .into_iter()
                    .map(|b| JsonBand {
                        first: b.first,
                        last: b.last,
                        moves: b.moves,
                        median_ms: b.median_ms,
                    })
                    .collect(),
            })
            .collect();
        let report = JsonReport {
            games: clock.games,
            unfinished: clock.unfinished,
            skipped: clock.skipped.len(),
            band: args.band,
            engines,
        };
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", table(&clock, width));
    }
    Ok(())
}

/// The text report: one row per engine, one column per band.
fn table(clock: &ClockUse, width: usize) -> String {
    let bands = clock.engines.values().map(|e| e.bands(width).len()).max().unwrap_or(0);
    let name_width = clock.engines.keys().map(String::len).max().unwrap_or(0).max(6);
    let mut out = format!(
        "Median thinking time per move, ms, by regular move number ({} finished games{}):\n",
        clock.games,
        if clock.unfinished > 0 {
            format!(", {} unfinished left out", clock.unfinished)
        } else {
            String::new()
        }
    );
    let mut header = format!("{:<name_width$} {:>6} {:>6}", "engine", "games", "setup");
    for i in 0..bands {
        let (first, last) = (i * width + 1, i * width + width);
        let label = if width == 1 {
            first.to_string()
        } else {
            format!("{first}-{last}")
        };
        header += &format!(" {label:>6}");
    }
    header += &format!(" {:>7}", "game");
    out += &header;
    out.push('\n');
    for (name, engine) in &clock.engines {
        let mut row = format!("{name:<name_width$} {:>6} {:>6}", engine.games, engine.median_setup());
        let own = engine.bands(width);
        for i in 0..bands {
            match own.get(i) {
                Some(b) if b.moves > 0 => row += &format!(" {:>6}", b.median_ms),
                _ => row += &format!(" {:>6}", "-"),
            }
        }
        row += &format!(" {:>7}", engine.median_total());
        out += &row;
        out.push('\n');
    }
    out += "(game: the median of a whole game's thinking time, setup included)\n";
    out
}
