//! The database commands of the `arena` binary: `arena match|gauntlet|
//! roundrobin --db URL` (create a run and follow it; `arena tune --db` is
//! in [`crate::tune_cli`]), `arena worker`,
//! `arena status` (which can also follow a run again) and `arena export`. The work is the library's
//! [`arena::db`]; this module prints. A database URL is only ever shown
//! without its password.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, bail};
use arena::db::{self, Claim, DbError, Recorded, RunState};
use arena::{RunConfig, RunObserver, players_text, score_line, standings_text};
use clap::Args;

use crate::commands::{Progress, title};

/// Creates a run of `config` in the database, in batches of `batch_pairs`
/// game pairs, prints `run <ID>`, and follows it to its end unless
/// `detach`.
///
/// # Errors
/// Bad settings, an engine that fails its check or cannot be read, the
/// database.
pub fn create(mut config: RunConfig, url: &str, batch_pairs: u64, detach: bool, quiet: bool) -> anyhow::Result<()> {
    config.validate()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    config.absolutize(&cwd);
    let mut client = db::connect(url, &pg_env())?;
    let id = db::submit_run(&mut client, &config, batch_pairs)?;
    println!("run {id}");
    if !quiet {
        eprintln!(
            "{}: {} games in the database at {}; play it with `arena worker --db URL` on any host",
            title(&config),
            config.total_games(),
            db::redact_url(url)
        );
    }
    if detach {
        return Ok(());
    }
    follow(&mut client, id, quiet)
}

/// Shows the progress of run `id` until it ends, then its final summary.
fn follow(client: &mut postgres::Client, id: i64, quiet: bool) -> anyhow::Result<()> {
    let run = db::run_of(client, id)?;
    let progress = Arc::new(Progress::new(&run.config, quiet));
    let (run, standings, summary) = loop {
        let run = db::run_of(client, id)?;
        let games = db::run_scores(client, id)?;
        let (board, standings) = db::standings(&run, &games)?;
        progress.run_started(&standings, false);
        if !run.state.is_running() {
            let summary = arena::Summary::new(&board, &standings, true);
            break (run, standings, summary);
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    progress.finish();
    println!("{}", standings_text(&standings, &title(&run.config)));
    if run.config.engines.len() > 2 {
        println!("{}", players_text(&summary));
    }
    let end = match run.state {
        RunState::Sprt(d) => format!("SPRT decided: {}", d.name()),
        RunState::Complete => "all games played".to_owned(),
        RunState::Running | RunState::Stopped => "stopped".to_owned(),
    };
    println!(
        "{end}; {} games in run {id}. Files: arena export --db URL {id} --out DIR",
        standings.done
    );
    Ok(())
}

/// The flags of `arena worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The database: `postgres://USER@HOST:PORT/DB` (what it leaves out comes from PGHOST, PGPORT, PGUSER,
    /// PGPASSWORD, PGDATABASE).
    #[arg(long, value_name = "URL")]
    pub db: String,

    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,

    /// The worker's name, unique among workers [default: HOST-PID].
    #[arg(long)]
    pub name: Option<String>,

    /// Exit once no run it can play is running, instead of waiting for new runs.
    #[arg(long)]
    pub idle_exit: bool,

    /// Seconds a claimed batch is held without a heartbeat; after that it goes to another worker.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub lease: f64,

    /// Where engines are cached by hash [default: $XDG_CACHE_HOME or ~/.cache, then leaper-arena/engines].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

/// Prints what a worker does, one line each.
struct WorkerLog {
    name: String,
}

impl db::WorkerObserver for WorkerLog {
    fn claimed(&self, claim: &Claim) {
        let games = claim.games();
        println!(
            "{}: run {} batch {}: games {}..{}",
            self.name,
            claim.run,
            claim.batch,
            games.start,
            games.end - 1
        );
    }

    fn recorded(&self, claim: &Claim, recorded: &Recorded) {
        match recorded {
            Recorded::Counted { games, state } => println!(
                "{}: run {} batch {}: {games} games recorded (run {})",
                self.name,
                claim.run,
                claim.batch,
                state.name()
            ),
            Recorded::Refused => println!(
                "{}: run {} batch {}: results refused, the lease was lost",
                self.name, claim.run, claim.batch
            ),
        }
    }

    fn lease_lost(&self, claim: &Claim) {
        println!(
            "{}: run {} batch {}: lease lost, batch dropped",
            self.name, claim.run, claim.batch
        );
    }

    fn run_refused(&self, run: i64, reason: &str) {
        eprintln!("{}: run {run} refused: {reason}", self.name);
    }

    fn engine_failed(&self, run: i64, game: u64, engine: &str, failure: &arena::EngineFailure) {
        eprintln!("{}: run {run} game {game}: {engine} failed: {failure}", self.name);
    }

    fn retrying(&self, error: &DbError, wait: Duration) {
        eprintln!("{}: {error}; retrying in {:.1} s", self.name, wait.as_secs_f64());
    }
}

fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("leaper-arena").join("engines")
}

/// Runs `arena worker`.
///
/// # Errors
/// Bad flags or a database error other than a lost connection.
pub fn worker(args: &WorkerArgs) -> anyhow::Result<()> {
    if !(args.lease.is_finite() && args.lease >= 0.5) {
        bail!("--lease {}: must be at least 0.5 seconds", args.lease);
    }
    if args.concurrency == 0 {
        bail!("--concurrency 0: must be at least 1");
    }
    let host = std::fs::read_to_string("/etc/hostname").map_or_else(|_| "host".to_owned(), |h| h.trim().to_owned());
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("{host}-{}", std::process::id()));
    let settings = db::WorkerSettings {
        url: args.db.clone(),
        env: pg_env(),
        name: name.clone(),
        concurrency: args.concurrency,
        cache: args.cache.clone().unwrap_or_else(default_cache),
        lease: Duration::from_secs_f64(args.lease),
        idle_exit: args.idle_exit,
        poll: Duration::from_secs_f64((args.lease / 4.0).min(2.0)),
    };
    let stop = AtomicBool::new(false);
    let report = db::run_worker(&settings, Arc::new(WorkerLog { name: name.clone() }), &stop)?;
    println!(
        "{name}: done: {} batches, {} games recorded, {} batches dropped",
        report.batches, report.games, report.dropped
    );
    Ok(())
}

/// The flags of `arena status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The database (as for `arena worker`).
    #[arg(long, value_name = "URL")]
    pub db: String,

    /// Only this run [default: every run].
    pub run: Option<i64>,

    /// Follow RUN until it ends, as `arena match --db` does without --detach: progress, then its summary.
    /// Stopping the follower leaves the run going.
    #[arg(long, requires = "run")]
    pub follow: bool,

    /// With --follow: no progress bars, only the final summary.
    #[arg(long, requires = "follow")]
    pub quiet: bool,
}

/// Runs `arena status`.
///
/// # Errors
/// The database, or a run that does not exist.
pub fn status(args: &StatusArgs) -> anyhow::Result<()> {
    let mut client = db::connect(&args.db, &pg_env())?;
    if args.follow
        && let Some(id) = args.run
    {
        if db::run_of(&mut client, id)?.mode == db::TUNE_MODE {
            return crate::tune_cli::follow(&mut client, id, args.quiet);
        }
        return follow(&mut client, id, args.quiet);
    }
    let runs = match args.run {
        Some(id) => vec![db::run_of(&mut client, id)?],
        None => db::runs(&mut client)?,
    };
    let alive: i64 = client
        .query_one(
            "SELECT count(*) FROM workers WHERE heartbeat > now() - interval '2 minutes'",
            &[],
        )?
        .get(0);
    println!("workers alive (heartbeat in the last 2 minutes): {alive}");
    if runs.is_empty() {
        println!("no runs");
    }
    for run in runs {
        let games = db::run_scores(&mut client, run.id)?;
        let (_, s) = db::standings(&run, &games)?;
        let recent: i64 = client
            .query_one(
                "SELECT count(*) FROM games WHERE run = $1 AND recorded > now() - interval '60 seconds'",
                &[&run.id],
            )?
            .get(0);
        let working: i64 = client
            .query_one(
                "SELECT count(*) FROM batches WHERE run = $1 AND state = 'claimed' AND lease_until > now()",
                &[&run.id],
            )?
            .get(0);
        let p = &s.main.pentanomial;
        println!(
            "run {}: {} [{}]: {}/{} games, {} batches in play, {:.2} games/s over the last minute",
            run.id,
            title(&run.config),
            run.state.name(),
            s.done,
            s.total,
            working,
            recent as f64 / 60.0
        );
        println!(
            "  {}  pentanomial [{}, {}, {}, {}, {}]",
            score_line(&s),
            p.ll,
            p.ld,
            p.dd,
            p.wd,
            p.ww
        );
        if let Some(tune) = db::tune_of(&mut client, run.id)? {
            let tuner = &tune.tuner;
            let values: Vec<String> = tuner
                .named_values()
                .into_iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            println!(
                "  tune: {}/{} games told, {} updates, {} trials in play, draws {:.0}%; values {}",
                tuner.games(),
                tuner.budget_games(),
                tuner.updates(),
                tuner.pending().count(),
                100.0 * tuner.draw_ratio(),
                values.join(" ")
            );
        }
        if let Some((_, st)) = &s.sprt {
            println!(
                "  SPRT: LLR {:.2} ({:.2}, {:.2}): {}",
                st.llr,
                st.lower_bound,
                st.upper_bound,
                st.decision.name()
            );
        }
    }
    Ok(())
}

/// The flags of `arena export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The database (as for `arena worker`).
    #[arg(long, value_name = "URL")]
    pub db: String,

    /// The run.
    pub run: i64,

    /// The directory to write: config.json, games.csv, events.jsonl, summary.json.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Runs `arena export`.
///
/// # Errors
/// The database, or files that cannot be written.
pub fn export(args: &ExportArgs) -> anyhow::Result<()> {
    let mut client = db::connect(&args.db, &pg_env())?;
    let summary = db::export_run(&mut client, args.run, &args.out)?;
    println!(
        "run {}: {} games written to {} ({})",
        args.run,
        summary.games,
        args.out.display(),
        [arena::GAMES_FILE, arena::EVENTS_FILE, arena::SUMMARY_FILE].join(", ")
    );
    Ok(())
}

/// The `PG*` variables of this process: what a `--db` URL leaves out. The
/// binary reads them; the library takes the value.
pub fn pg_env() -> db::PgEnv {
    db::PgEnv::from_lookup(|name| std::env::var(name).ok())
}

/// Runs `arena bench --db`: for each number of workers, `runs` runs of
/// `games` games of the mock engine waiting `delay_ms` per move; prints
/// each run, then the medians, the speed-up over one worker and the
/// database's milliseconds per game.
///
/// # Errors
/// Bad flags, an engine that fails its check, the database.
pub fn bench_db(args: &crate::commands::BenchArgs, url: &str, mock: &std::path::Path) -> anyhow::Result<()> {
    if args.workers.is_empty() || args.workers.contains(&0) {
        bail!("--workers {:?}: give numbers of at least 1", args.workers);
    }
    if args.batch_pairs == 0 {
        bail!("--batch-pairs 0: must be at least 1");
    }
    let engine = arena::EngineSpec::from_tokens(&[
        format!("cmd={}", mock.display()),
        "name=sleeper".to_owned(),
        "depth=1".to_owned(),
        format!("option.DelayMs={}", args.delay_ms),
    ])?;
    let cache = std::env::temp_dir().join(format!("leaper-arena-bench-{}", std::process::id()));
    println!(
        "arena bench --db {}: {} games per run ({} pairs per batch), {} runs per count of workers, the mock engine \
         waiting {} ms per move",
        db::redact_url(url),
        args.games,
        args.batch_pairs,
        args.runs.max(1),
        args.delay_ms
    );
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let mut rows = Vec::new();
    for &workers in &args.workers {
        let (mut gps, mut db_ms, mut cache_ms, mut plies) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..args.runs.max(1) {
            let f = db::db_bench(&db::DbBenchSettings {
                url: url.to_owned(),
                env: pg_env(),
                engine: engine.clone(),
                games: args.games,
                batch_pairs: args.batch_pairs,
                workers,
                cache: cache.clone(),
            })?;
            println!(
                "  {workers} workers, run {} (db run {}): {} games, {} moves, {:.2} s: {:.3} games/s, database \
                 {:.2} ms per game, engine cache check {:.2} ms per game",
                i + 1,
                f.run,
                f.games,
                f.plies,
                f.wall.as_secs_f64(),
                f.games_per_second(),
                f.db_ms_per_game(),
                f.cache_ms_per_game()
            );
            gps.push(f.games_per_second());
            db_ms.push(f.db_ms_per_game());
            cache_ms.push(f.cache_ms_per_game());
            plies.push(f.plies as f64 / f.games.max(1) as f64);
        }
        rows.push((workers, median(gps), median(db_ms), median(cache_ms), median(plies)));
    }
    let _ = std::fs::remove_dir_all(&cache);
    println!("medians:");
    let base = rows.first().map_or(f64::NAN, |r| r.1 / r.0 as f64);
    for (workers, gps, db_ms, cache_ms, plies) in &rows {
        println!(
            "  {workers} workers: {gps:.3} games/s ({:.2}x one worker), database {db_ms:.2} ms per game, engine \
             cache check {cache_ms:.2} ms per game, {plies:.1} moves per game ({:.0} ms of engine time)",
            gps / base,
            plies * args.delay_ms as f64
        );
    }
    Ok(())
}
