//! The command-line front ends of the data tools, as clap argument
//! structs and `run` functions that any binary can mount as subcommands:
//! `datagen` (generate or resume a data file, with a progress bar) and
//! `summary` (what files hold). This is the layer that prints.
//!
//! A data file `F` is made with its settings beside it in `F.json`; a run
//! on an existing `F` resumes it (a torn tail is truncated with a message)
//! and must use the same settings.

use super::file::Writer;
use super::selfplay::{Progress, Settings, generate};
use super::summary::summarize;
use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `datagen`.
#[derive(Clone, Debug, clap::Args)]
pub struct DatagenArgs {
    /// The data file to write; if it exists, the run resumes it (same
    /// settings required: they are kept in FILE.json).
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,
    /// Positions the file should hold when the run ends (it stops at the
    /// end of the game that reaches them).
    #[arg(long, default_value_t = 100_000)]
    pub positions: u64,
    /// Worker threads, each playing its own games (the file is the same
    /// for any count).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Records per chunk (at least; whole games per chunk): a kill loses
    /// at most the chunk being filled.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub chunk_records: u32,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// What the games and scores are made with.
    #[command(flatten)]
    pub settings: Settings,
}

/// Arguments of `summary`.
#[derive(Clone, Debug, clap::Args)]
pub struct SummaryArgs {
    /// Data files, summarised together.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The settings file beside a data file.
#[derive(Debug, Serialize, Deserialize)]
struct SettingsFile {
    /// The data format version the file was made with.
    format_version: u16,
    settings: Settings,
}

fn settings_path(output: &Path) -> PathBuf {
    let mut p = output.as_os_str().to_owned();
    p.push(".json");
    PathBuf::from(p)
}

/// Writes `text` to `path` atomically (temporary file, then rename).
fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))
}

/// Checks that an existing file was made with `settings` (or records them
/// for a new file).
fn check_settings(output: &Path, settings: &Settings) -> anyhow::Result<()> {
    let path = settings_path(output);
    // Settings left from a data file that is gone bind nothing.
    if path.exists() && output.exists() {
        let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let found: SettingsFile =
            serde_json::from_str(&text).with_context(|| format!("{} is not a settings file", path.display()))?;
        if &found.settings != settings {
            let theirs = serde_json::to_value(&found.settings)?;
            let ours = serde_json::to_value(settings)?;
            // Every key either side names (a setting left at its default
            // is not written), where the two differ.
            let keys: std::collections::BTreeSet<&String> = ours
                .as_object()
                .into_iter()
                .chain(theirs.as_object())
                .flat_map(|o| o.keys())
                .collect();
            let none = serde_json::Value::from("-");
            let diff: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    (
                        k,
                        theirs.get(k.as_str()).unwrap_or(&none),
                        ours.get(k.as_str()).unwrap_or(&none),
                    )
                })
                .filter(|(_, t, o)| t != o)
                .map(|(k, t, o)| format!("{k}: file {t} vs now {o}"))
                .collect();
            bail!(
                "{} was made with other settings ({}); use the same settings to resume it, or another output",
                output.display(),
                diff.join(", ")
            );
        }
        return Ok(());
    }
    let file = SettingsFile {
        format_version: super::file::VERSION,
        settings: settings.clone(),
    };
    write_atomic(&path, &(serde_json::to_string_pretty(&file)? + "\n"))
}

/// Runs `datagen`: generates (or resumes) `args.output` until it holds
/// `args.positions` positions.
///
/// # Errors
/// Bad settings, a file that cannot be written or is damaged, an engine
/// that cannot be made.
pub fn datagen(args: &DatagenArgs) -> anyhow::Result<()> {
    args.settings.check().map_err(anyhow::Error::msg)?;
    let mut settings = args.settings.clone();
    let eval = settings.load_evaluator().map_err(anyhow::Error::msg)?;
    if let Some(dir) = args.output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    check_settings(&args.output, &settings)?;
    let (mut writer, existing) = Writer::open(&args.output)?;
    if let Some(torn) = &existing.torn {
        eprintln!("{torn}; truncated, resuming");
    }
    if existing.records > 0 {
        eprintln!(
            "{}: resuming with {} positions from {} games",
            args.output.display(),
            existing.records,
            existing.next_game
        );
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(args.positions)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:24}] {human_pos}/{human_len} positions, {rate}, ETA {eta} {msg}",
        )?
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1}/s", state.per_sec());
            },
        )
        .progress_chars("=> "),
    );
    bar.set_position(existing.records.min(args.positions));
    bar.reset_eta();
    bar.enable_steady_tick(Duration::from_millis(500));
    let report = generate(
        &settings,
        &eval,
        args.threads as usize,
        args.chunk_records as usize,
        &mut writer,
        existing.next_game,
        args.positions,
        |p: Progress| {
            bar.set_position(p.records.min(args.positions));
            bar.set_message(format!("({} games)", p.games));
        },
    )?;
    bar.finish_and_clear();
    let secs = report.elapsed.as_secs_f64().max(1e-9);
    println!(
        "{}: {} positions ({} added from {} games, kept {:.0}% of {} searched plies, in {:.1} s: {:.1} positions/s, {:.0} nodes/s)",
        args.output.display(),
        writer.records(),
        report.records,
        report.games,
        100.0 * report.records as f64 / report.searched.max(1) as f64,
        report.searched,
        secs,
        report.records as f64 / secs,
        report.nodes as f64 / secs,
    );
    Ok(())
}

/// Runs `summary`: prints what the files hold; a dropped torn tail is
/// named on stderr.
///
/// # Errors
/// A file that cannot be read or is damaged.
pub fn summary(args: &SummaryArgs) -> anyhow::Result<()> {
    let summary = summarize(&args.files)?;
    for file in &summary.files {
        if let Some(torn) = &file.torn_tail {
            eprintln!("warning: {torn}");
        }
    }
    let text = if args.json {
        format!("{}\n", serde_json::to_string_pretty(&summary)?)
    } else {
        summary.to_string()
    };
    // A reader that stops early (`| head`) is not an error.
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("cannot write to stdout"),
        _ => Ok(()),
    }
}
