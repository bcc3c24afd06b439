//! `arena regress`: tests a build for Elo regressions from two git refs
//! (see the library's `arena::regress`), printing each step on stderr and
//! the verdict on stdout, and `arena regress --history`, the ledger as a
//! table; with `--db URL` the match is a database run played by workers
//! and the ledger a table of that database. The exit status gates a merge: 0 PASSED, 1 FAILED, 2 for a test
//! that stopped or ran out of games without a verdict.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use arena::db;
use arena::regress::{self, LEDGER_FILE, LedgerRow, Plan, Preset, Recipe, Side, Verdict};
use arena::{RunConfig, RunObserver, key_value, openings_of, standings_text};
use clap::{ArgAction, Args};

use crate::commands::{Progress, print_final, title};

/// The flags of `arena regress`.
#[derive(Debug, Args)]
pub struct RegressArgs {
    /// The engine's git repository.
    #[arg(long, value_name = "PATH", default_value = ".")]
    pub repo: PathBuf,

    /// The ref under test (a branch, tag or commit).
    #[arg(long, value_name = "REF", required_unless_present = "history")]
    pub dev: Option<String>,

    /// The ref it is tested against.
    #[arg(long, value_name = "REF", required_unless_present = "history")]
    pub base: Option<String>,

    /// The SPRT bounds in normalized Elo: `gainer` [0, 2], `nonregression` [-1.75, 0.25], or `ELO0,ELO1`.
    #[arg(long, value_name = "NAME|ELO0,ELO1", default_value = "nonregression",
          allow_hyphen_values = true, value_parser = parse_preset)]
    pub preset: Preset,

    /// Engine keys for both engines, e.g. `--each tc=10+0.1 option.Hash=16` [default: tc=10+0.1].
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append, value_parser = key_value)]
    pub each: Vec<(String, String)>,

    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,

    /// The budget: at most this many games (even); without a decision by then the test is INCONCLUSIVE.
    #[arg(long, default_value_t = 20_000)]
    pub games: u64,

    /// The seed of the openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Openings: `file=PATH [order=random|sequential]` [default: random setup pairs from the seed].
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., value_parser = key_value)]
    pub openings: Option<Vec<(String, String)>>,

    /// The build: a shell command run in each ref's worktree [default: `cargo build --release --bin leaper`,
    /// into a cargo target directory shared by the cache's builds].
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,

    /// The engine's path in the worktree after --build [default: the workspace's `leaper`].
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,

    /// The ledger's directory: ledger.csv, and by default the build cache and the runs.
    #[arg(long, value_name = "DIR", default_value = "arena-runs/regress")]
    pub ledger: PathBuf,

    /// The build cache, one entry per commit [default: <ledger>/cache].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// The run's output directory [default: <ledger>/runs/<unix time>-<dev>-<base>].
    #[arg(long, value_name = "DIR", conflicts_with = "db")]
    pub out: Option<PathBuf>,

    /// Play the SPRT as a run in this PostgreSQL database (played by `arena worker --db URL` on any host) and
    /// keep the ledger in its `regress_ledger` table instead of ledger.csv.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,

    /// Print the ledger as a table and exit.
    #[arg(long, conflicts_with_all = ["dev", "base"])]
    pub history: bool,

    /// No progress bars and no periodic summaries.
    #[arg(long)]
    pub quiet: bool,
}

fn parse_preset(text: &str) -> Result<Preset, String> {
    Preset::parse(text).map_err(|e| e.to_string())
}

/// How often a database run is looked at.
const POLL: Duration = Duration::from_millis(500);

/// The exit status of a test that stopped without a verdict.
const STOPPED: u8 = 2;

/// Runs `arena regress`; the exit status is the verdict's.
pub fn run(args: &RegressArgs) -> ExitCode {
    let outcome = if args.history {
        match &args.db {
            Some(url) => history_db(url),
            None => history(&args.ledger),
        }
        .map(|()| ExitCode::SUCCESS)
    } else {
        test(args).map(|verdict| match verdict {
            Verdict::Passed => ExitCode::SUCCESS,
            Verdict::Failed => ExitCode::from(1),
            Verdict::Inconclusive => ExitCode::from(STOPPED),
        })
    };
    outcome.unwrap_or_else(|error| {
        eprintln!("arena regress: {error:#}");
        ExitCode::from(STOPPED)
    })
}

fn history(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(LEDGER_FILE);
    let ledger = regress::read_ledger(&path)?;
    if ledger.rows.is_empty() {
        println!("{}: no tests yet", path.display());
    } else {
        println!("{}", regress::history_text(&ledger.rows));
        println!("{} tests in {}", ledger.rows.len(), path.display());
    }
    if ledger.torn {
        eprintln!(
            "note: the last line of {} is torn (a test killed while writing it) and is not counted",
            path.display()
        );
    }
    if !ledger.damaged.is_empty() {
        eprintln!(
            "warning: lines {:?} of {} are not ledger rows and were skipped",
            ledger.damaged,
            path.display()
        );
    }
    Ok(())
}

fn history_db(url: &str) -> anyhow::Result<()> {
    let mut client = db::connect(url, &crate::db_cli::pg_env())?;
    let rows = regress::read_ledger_db(&mut client)?;
    let place = format!("the regress_ledger table of {}", db::redact_url(url));
    if rows.is_empty() {
        println!("{place}: no tests yet");
    } else {
        println!("{}", regress::history_text(&rows));
        println!("{} tests in {place}", rows.len());
    }
    Ok(())
}

/// Resolves, builds and benches one side, saying what it does.
fn side(args: &RegressArgs, role: &str, refname: &str, recipe: &Recipe, cache: &Path) -> anyhow::Result<Side> {
    let commit = regress::resolve(&args.repo, refname)?;
    let short = commit.short().to_owned();
    let engine = match regress::cached_engine(&commit, recipe, cache) {
        Some(engine) => {
            eprintln!("{role} {refname} = {short}: cached build {}", engine.display());
            engine
        }
        None => {
            eprintln!("{role} {refname} = {short}: building (`{}`)...", recipe.command_text());
            let start = Instant::now();
            let built = regress::build(&args.repo, &commit, recipe, cache)?;
            eprintln!(
                "{role} {short}: built {} in {:.0} s",
                built.engine.display(),
                start.elapsed().as_secs_f64()
            );
            built.engine
        }
    };
    let bench = regress::run_bench(&commit, &engine)?;
    match regress::check_signature(&commit, bench)? {
        Some(_) => eprintln!("{role} {short}: bench {bench} nodes, as its commit message says"),
        None => eprintln!("{role} {short}: bench {bench} nodes (no `Bench:` line in its commit message)"),
    }
    Ok(Side { commit, engine, bench })
}

fn test(args: &RegressArgs) -> anyhow::Result<Verdict> {
    let (Some(dev_ref), Some(base_ref)) = (&args.dev, &args.base) else {
        anyhow::bail!("--dev and --base are both needed");
    };
    let cache = args.cache.clone().unwrap_or_else(|| args.ledger.join("cache"));
    let recipe = Recipe {
        command: args.build.clone(),
        bin: args.bin.clone(),
    };
    // Check the settings that need no build first, and the database.
    let openings = args.openings.as_deref().map(openings_of).transpose()?;
    let client = args
        .db
        .as_deref()
        .map(|url| db::connect(url, &crate::db_cli::pg_env()))
        .transpose()?;
    let dev = side(args, "dev", dev_ref, &recipe, &cache)?;
    let base = side(args, "base", base_ref, &recipe, &cache)?;
    let plan = Plan {
        preset: args.preset,
        each: args.each.clone(),
        concurrency: args.concurrency,
        games: args.games,
        seed: args.seed,
        openings,
    };
    let config = regress::match_config(&dev, &base, &plan)?;
    if let (Some(url), Some(client)) = (&args.db, client) {
        return test_db(args, url, client, &dev, &base, config);
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        args.ledger
            .join("runs")
            .join(format!("{secs}-{}-{}", dev.commit.short(), base.commit.short()))
    });
    let (elo0, elo1) = args.preset.bounds();
    eprintln!(
        "{}: SPRT {} [{elo0}, {elo1}] normalized Elo, at most {} games, output in {}",
        title(&config),
        args.preset.name(),
        config.total_games(),
        out.display()
    );
    let progress = Arc::new(Progress::new(&config, args.quiet));
    let report = arena::run(config.clone(), &out, Arc::clone(&progress) as Arc<dyn RunObserver>);
    progress.finish();
    let report = report?;
    print_final(&report, &config, &out);
    let out = std::fs::canonicalize(&out).unwrap_or(out);
    let row = LedgerRow::new(&dev, &base, args.preset, &config, &report, &out);
    let ledger = args.ledger.join(LEDGER_FILE);
    regress::append_row(&ledger, &row).context("the verdict could not be recorded in the ledger")?;
    println!(
        "{}",
        verdict_line(&row, &dev, &base, args.preset, "", &ledger.display().to_string())
    );
    Ok(row.verdict)
}

/// The match as a database run: created, played by workers, followed to
/// its end; the verdict is the run's SPRT decision and the row goes into
/// the database's ledger.
fn test_db(
    args: &RegressArgs,
    url: &str,
    mut client: postgres::Client,
    dev: &Side,
    base: &Side,
    mut config: RunConfig,
) -> anyhow::Result<Verdict> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    config.absolutize(&cwd);
    let id = db::submit_run(&mut client, &config, db::BATCH_PAIRS)?;
    let (elo0, elo1) = args.preset.bounds();
    eprintln!(
        "{}: SPRT {} [{elo0}, {elo1}] normalized Elo, at most {} games, as run {id} in the database at {}; play it \
         with `arena worker --db URL` on any host",
        title(&config),
        args.preset.name(),
        config.total_games(),
        db::redact_url(url)
    );
    let progress = Progress::new(&config, args.quiet);
    let waited = db::wait_run(&mut client, id, POLL, |_, standings| {
        progress.run_started(standings, false)
    });
    progress.finish();
    let (run, standings) = waited?;
    println!("{}", standings_text(&standings, &title(&run.config)));
    let Some(verdict) = Verdict::of_db_run(run.state) else {
        anyhow::bail!("run {id} was stopped before the SPRT decided; no verdict, nothing recorded in the ledger");
    };
    let out = format!("db run {id}");
    let row = LedgerRow::of_standings(dev, base, args.preset, &config, &standings, verdict, &out);
    regress::append_row_db(&mut client, &row).context("the verdict could not be recorded in the ledger")?;
    println!(
        "{}",
        verdict_line(
            &row,
            dev,
            base,
            args.preset,
            &format!(" in run {id}"),
            "the regress_ledger table"
        )
    );
    Ok(verdict)
}

/// The verdict line a test ends with: refs, preset and bounds, games (with
/// `games_where`, e.g. the database run), nElo, LLR, and where the ledger
/// row went.
fn verdict_line(row: &LedgerRow, dev: &Side, base: &Side, preset: Preset, games_where: &str, ledger: &str) -> String {
    let (elo0, elo1) = preset.bounds();
    format!(
        "{}: {} ({}) vs {} ({}), {} [{elo0}, {elo1}]: {} games{games_where}, nElo {:+.2} ± {:.2}, LLR {:.2}. Ledger: {ledger}",
        row.verdict.name(),
        dev.commit.refname,
        dev.commit.short(),
        base.commit.refname,
        base.commit.short(),
        preset.name(),
        row.games,
        row.nelo,
        row.nelo_ci95,
        row.llr,
    )
}
