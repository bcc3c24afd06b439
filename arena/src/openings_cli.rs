//! `arena openings`: build setup books, draw opening suites from them and
//! describe them. The work is done by the `openings` crate; this module
//! parses arguments, shows progress and prints.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use leaper::{Color, Role};
use openings::{Book, BookStats, EngineEvaluator, GenerateConfig, GenerateError, Generator, SuiteSource, make_suite};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The `openings` subcommands.
#[derive(Debug, Subcommand)]
pub enum OpeningsCommand {
    /// Build a setup book with the engine's search (resumable).
    Generate(GenerateArgs),
    /// Write an opening suite: balanced, varied setup pairs for `arena match --openings`.
    Suite(SuiteArgs),
    /// Describe a book or suite: counts, evaluations, piece placement, duplicates, mirror pairs.
    Stats(StatsArgs),
}

/// Arguments of `arena openings generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The book to write.
    #[arg(long)]
    out: PathBuf,
    /// The state file that lets a stopped run resume [default: <out>.state.json].
    #[arg(long)]
    state: Option<PathBuf>,
    /// Continue the run saved in the state file (the other settings are taken from it).
    #[arg(long)]
    resume: bool,
    /// Seed of the sampling.
    #[arg(long, default_value_t = GenerateConfig::default().seed)]
    seed: u64,
    /// Worker threads.
    #[arg(long, default_value_t = GenerateConfig::default().threads)]
    threads: usize,
    /// Replies every Red setup is searched against.
    #[arg(long, default_value_t = GenerateConfig::default().pool_size)]
    pool: usize,
    /// Fresh Red setups sampled per screening round.
    #[arg(long, default_value_t = GenerateConfig::default().screen_samples)]
    samples: usize,
    /// Screening rounds.
    #[arg(long, default_value_t = GenerateConfig::default().screen_rounds)]
    rounds: usize,
    /// Search depth of the screening.
    #[arg(long, default_value_t = GenerateConfig::default().screen_depth)]
    screen_depth: u32,
    /// Entries of the finished book.
    #[arg(long, default_value_t = GenerateConfig::default().book_size)]
    book_size: usize,
    /// Deepening stages as COUNT:DEPTH,... (the COUNT best searched to DEPTH).
    #[arg(long, default_value_t = deepen_text(&GenerateConfig::default().deepen))]
    deepen: String,
    /// Hash table per thread, MB (cleared before every pair).
    #[arg(long, default_value_t = 2)]
    hash: usize,
}

fn deepen_text(stages: &[(usize, u32)]) -> String {
    stages
        .iter()
        .map(|(n, d)| format!("{n}:{d}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_deepen(text: &str) -> Result<Vec<(usize, u32)>> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|stage| {
            let (n, d) = stage
                .split_once(':')
                .with_context(|| format!("--deepen stage '{stage}' is not COUNT:DEPTH"))?;
            Ok((
                n.trim()
                    .parse()
                    .with_context(|| format!("--deepen count '{n}' is not a number"))?,
                d.trim()
                    .parse()
                    .with_context(|| format!("--deepen depth '{d}' is not a number"))?,
            ))
        })
        .collect()
}

/// Arguments of `arena openings suite`.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// Number of setup pairs.
    #[arg(long, default_value_t = 100)]
    count: usize,
    /// The suite file to write.
    #[arg(long)]
    out: PathBuf,
    /// Draw the pairs from this book instead of sampling and searching.
    #[arg(long)]
    book: Option<PathBuf>,
    /// Largest |evaluation| accepted, logit x 10,000 (1,000 = 0.1 logit, about 2.5% of expected score).
    #[arg(long, default_value_t = 1500)]
    max_eval: i32,
    /// Seed: the same seed gives the same suite.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search depth for sampled pairs.
    #[arg(long, default_value_t = 4)]
    depth: u32,
}

/// Arguments of `arena openings stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The book or suite file.
    file: PathBuf,
}

/// Runs an `openings` subcommand.
pub fn run(command: &OpeningsCommand) -> Result<()> {
    match command {
        OpeningsCommand::Generate(args) => generate(args),
        OpeningsCommand::Suite(args) => suite(args),
        OpeningsCommand::Stats(args) => stats(args),
    }
}

fn bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn read_book(path: &Path) -> Result<Book> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (book, errors) = Book::parse(&text);
    for e in &errors {
        eprintln!("warning: {}: {e}", path.display());
    }
    Ok(book)
}

fn write_book(path: &Path, book: &Book) -> Result<()> {
    arena::write_atomic(path, book.to_text().as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

fn generate(args: &GenerateArgs) -> Result<()> {
    let state = args
        .state
        .clone()
        .unwrap_or_else(|| args.out.with_extension("state.json"));
    let mut generator = if args.resume {
        Generator::resume(&state)?
    } else {
        let config = GenerateConfig {
            seed: args.seed,
            pool_size: args.pool.max(1),
            screen_samples: args.samples,
            screen_rounds: args.rounds,
            screen_depth: args.screen_depth.max(1),
            book_size: args.book_size.max(1),
            deepen: parse_deepen(&args.deepen)?,
            threads: args.threads.max(1),
        };
        Generator::new(config, &state)?
    };
    let hash = args.hash.max(1);
    EngineEvaluator::new(hash).context("hash table")?;
    let start = Instant::now();
    let progress = bar(0, "{prefix:>22} [{bar:40}] {pos}/{len} setups  {per_sec}  ETA {eta}");
    let stop = AtomicBool::new(false);
    let mut stage = usize::MAX;
    let result = generator.run(
        // The size was allocated once above, so a worker's table fits too.
        || EngineEvaluator::new(hash).expect("hash table size checked before the run"),
        &stop,
        |p| {
            if p.stage != stage {
                stage = p.stage;
                progress.reset();
                progress.set_length(p.total as u64);
                progress.set_prefix(format!("stage {}/{} {}", p.stage + 1, p.stages, p.name));
            }
            progress.set_position(p.done as u64);
        },
    );
    progress.finish_and_clear();
    let book = match result {
        Ok(book) => book,
        Err(GenerateError::Stopped(path)) => bail!("stopped; resume with --resume --state {}", path.display()),
        Err(e) => return Err(e.into()),
    };
    write_book(&args.out, &book)?;
    println!(
        "wrote {} entries to {} in {:.0} s (state in {})",
        book.len(),
        args.out.display(),
        start.elapsed().as_secs_f64(),
        state.display()
    );
    Ok(())
}

fn suite(args: &SuiteArgs) -> Result<()> {
    let book = args.book.as_deref().map(read_book).transpose()?;
    let source = match &book {
        Some(book) => SuiteSource::Book(book),
        None => SuiteSource::Sampled {
            depth: args.depth.max(1),
        },
    };
    let mut evaluator = EngineEvaluator::new(2).context("hash table")?;
    let progress = bar(args.count as u64, "suite [{bar:40}] {pos}/{len} pairs  ETA {eta}");
    let start = Instant::now();
    let pairs = make_suite(source, args.count, args.max_eval, args.seed, &mut evaluator, |n| {
        progress.set_position(n as u64)
    });
    progress.finish_and_clear();
    let pairs = pairs?;
    let mut text = format!(
        "# leaper opening suite: {} pairs, |eval| <= {}, seed {}\n# red_setup blue_setup eval(logit x 10000, red's view) depth\n",
        pairs.len(),
        args.max_eval,
        args.seed
    );
    for entry in &pairs {
        text.push_str(&format!("{entry}\n"));
    }
    arena::write_atomic(&args.out, text.as_bytes()).with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "wrote {} pairs to {} in {:.1} s",
        pairs.len(),
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn stats(args: &StatsArgs) -> Result<()> {
    let book = read_book(&args.file)?;
    let s = BookStats::of(&book);
    println!("entries            {}", s.entries);
    println!(
        "distinct red       {} ({} up to mirror)",
        s.distinct_red, s.distinct_red_up_to_mirror
    );
    println!("duplicate pairs    {}", s.duplicates);
    println!("mirror pairs       {}", s.mirror_pairs);
    if let Some((min, median, max)) = s.eval_min_median_max {
        println!(
            "eval               min {min}  median {median}  max {max}  mean |eval| {:.0}",
            s.mean_abs_eval
        );
        println!("eval histogram (logit x 10000, red's view):");
        let peak = s.histogram.counts.iter().copied().max().unwrap_or(1).max(1);
        for (i, &n) in s.histogram.counts.iter().enumerate() {
            let low = s.histogram.low as i64 + i as i64 * s.histogram.width as i64;
            println!(
                "  {low:>8} .. {:<8} {n:>6} {}",
                low + s.histogram.width as i64 - 1,
                "#".repeat(n * 40 / peak)
            );
        }
    }
    for color in Color::ALL {
        println!("{color} placements (% of entries; columns 1-8):");
        for role in Role::ALL {
            let share = s.placement_share(color, role);
            for (half, label) in [(0, "first row "), (8, "second row")] {
                let row: Vec<String> = share[half..half + 8]
                    .iter()
                    .map(|x| format!("{:>4.0}", x * 100.0))
                    .collect();
                let first = BookStats::square_name(color, half);
                println!("  {:<8} {label} ({}..) {}", role.name(), &first[..1], row.join(""));
            }
        }
    }
    Ok(())
}
