//! The subcommands that play games: `arena match`, `arena gauntlet`,
//! `arena roundrobin` (one set of flags, [`RunArgs`]), `arena bench`, and
//! `arena` alone, the self-test SPRT of the workspace's own engine. The
//! flags are the library's [`RunSettings`]; the library does the work, and
//! this module prints: indicatif progress bars on stderr (when
//! it is a terminal) and fastchess-style summaries on stdout.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use arena::{
    BenchSettings, EngineFailure, EngineSpec, Mode, RunConfig, RunEnd, RunObserver, RunReport, RunSettings, Standings,
    Summary, key_value, players_text, score_line, standings_text,
};
use clap::{ArgMatches, Args};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use results::GameRecord;

pub(crate) fn default_out(name: &str) -> PathBuf {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    PathBuf::from("arena-runs").join(format!("{name}-{secs}"))
}

/// A title like `leaper vs leaper-weak (tc=1+0.01, 2 threads)`.
pub(crate) fn title(config: &RunConfig) -> String {
    let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
    let who = match config.mode {
        Mode::Match => names.join(" vs "),
        Mode::Gauntlet => format!("{} vs {}", names[0], names[1..].join(", ")),
        Mode::Roundrobin => format!("{} (round robin)", names.join(", ")),
    };
    let limits = config.engines.first().map(|e| e.limits.describe()).unwrap_or_default();
    format!("{who} ({limits}, concurrency {})", config.concurrency)
}

/// Progress bars and periodic summaries.
pub(crate) struct Progress {
    games: ProgressBar,
    stats: ProgressBar,
    title: String,
    quiet: bool,
    many: bool,
}

impl Progress {
    pub(crate) fn new(config: &RunConfig, quiet: bool) -> Self {
        let multi = MultiProgress::with_draw_target(if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        });
        let games = multi.add(ProgressBar::new(config.total_games()));
        games.set_style(games_style(""));
        games.enable_steady_tick(Duration::from_millis(200));
        let stats = multi.add(ProgressBar::new(0));
        stats.set_style(ProgressStyle::with_template("  {msg}").unwrap_or_else(|_| ProgressStyle::default_bar()));
        Self {
            games,
            stats,
            title: title(config),
            quiet,
            many: config.engines.len() > 2,
        }
    }

    fn show(&self, s: &Standings) {
        self.games.set_position(s.done);
        let mut msg = score_line(s);
        if let Some((_, status)) = &s.sprt {
            msg.push_str(&format!(
                "  LLR {:.2} ({:.2}, {:.2})",
                status.llr, status.lower_bound, status.upper_bound
            ));
        }
        let forfeits: u64 = s.failures.values().flat_map(|k| k.values()).sum();
        if forfeits > 0 {
            msg.push_str(&format!("  forfeits {forfeits}"));
        }
        self.stats.set_message(msg);
    }

    pub(crate) fn finish(&self) {
        self.games.finish_and_clear();
        self.stats.finish_and_clear();
    }
}

impl RunObserver for Progress {
    fn run_started(&self, standings: &Standings, resumed: bool) {
        if resumed && !self.quiet {
            self.games.println(format!(
                "resuming: {} of {} games already played",
                standings.done, standings.total
            ));
        }
        self.games.set_position(standings.done);
        self.games.reset_eta();
        self.show(standings);
    }

    fn game_finished(&self, _record: &GameRecord, standings: &Standings) {
        self.show(standings);
    }

    fn engine_failed(&self, game: u64, engine: &str, failure: &EngineFailure) {
        if !self.quiet {
            self.games
                .suspend(|| eprintln!("game {game}: {engine} failed: {failure}"));
        }
    }

    fn report(&self, standings: &Standings, summary: &Summary) {
        if self.quiet {
            return;
        }
        self.games.suspend(|| {
            println!("{}", standings_text(standings, &self.title));
            if self.many {
                println!("{}", players_text(summary));
            }
        });
    }
}

pub(crate) fn print_final(report: &RunReport, config: &RunConfig, out: &Path) {
    println!("{}", standings_text(&report.standings, &title(config)));
    if config.engines.len() > 2 {
        println!("{}", players_text(&report.summary));
    }
    let end = match report.end {
        RunEnd::Complete if report.summary.finished => "all games played".to_owned(),
        RunEnd::Complete if arena::stopping() => format!(
            "interrupted (the games in flight are not counted; --resume {} plays the rest)",
            out.display()
        ),
        RunEnd::Complete => "stopped early".to_owned(),
        RunEnd::Sprt(d) => format!("SPRT decided: {}", d.name()),
    };
    println!(
        "{end}; {} games in {} ({} this session). Output: {}",
        report.standings.done,
        out.display(),
        report.played,
        [arena::GAMES_FILE, arena::EVENTS_FILE, arena::SUMMARY_FILE].join(", ")
    );
    if report.damaged_rows > 0 {
        eprintln!(
            "warning: {} damaged rows of {} were dropped or skipped (a torn last row is normal after a kill)",
            report.damaged_rows,
            out.join(arena::GAMES_FILE).display()
        );
    }
}

/// Runs `arena match|gauntlet|roundrobin` with the settings of the
/// subcommand's `matches` (over those of its `--config` file).
///
/// # Errors
/// Bad settings, an engine that fails its check, unwritable files.
pub fn run(mode: Mode, matches: &ArgMatches) -> anyhow::Result<()> {
    let args = RunSettings::from_matches(matches)?;
    crate::REPORTS_ON_INTERRUPT.store(true, std::sync::atomic::Ordering::SeqCst);
    if let Some(dir) = &args.resume {
        let mut config = arena::saved_config(dir)?;
        if let Some(n) = args.concurrency {
            config.concurrency = n;
        }
        let progress = Arc::new(Progress::new(&config, args.quiet));
        let report = arena::resume(dir, args.concurrency, Arc::clone(&progress) as Arc<dyn RunObserver>);
        progress.finish();
        print_final(&report?, &config, dir);
        return Ok(());
    }
    let (config, out) = args.to_config(mode)?;
    if let Some(url) = &args.db {
        return crate::db_cli::create(config, url, args.batch_pairs, args.detach, args.quiet);
    }
    let out = out.unwrap_or_else(|| default_out(mode.name()));
    let progress = Arc::new(Progress::new(&config, args.quiet));
    if !args.quiet {
        eprintln!(
            "{}: {} games, output in {}",
            title(&config),
            config.total_games(),
            out.display()
        );
    }
    let report = arena::run(config.clone(), &out, Arc::clone(&progress) as Arc<dyn RunObserver>);
    progress.finish();
    print_final(&report?, &config, &out);
    Ok(())
}

/// The binaries built next to this one (`target/<profile>/`).
fn sibling(name: &str) -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the arena's own path")?;
    let dir = exe.parent().context("the arena's path has no directory")?;
    let path = dir.join(name);
    if !path.exists() {
        bail!(
            "{} not found next to the arena: build it first (`cargo build --release --workspace`)",
            path.display()
        );
    }
    Ok(path)
}

/// `arena` alone: a short SPRT of the workspace's `leaper` against itself
/// with a weakened option, on two game slots.
///
/// # Errors
/// No `leaper` next to the arena, or the run failing to start.
pub fn selftest(quiet: bool) -> anyhow::Result<()> {
    crate::REPORTS_ON_INTERRUPT.store(true, std::sync::atomic::Ordering::SeqCst);
    let leaper = sibling("leaper")?;
    let config = arena::selftest_config(&leaper)?;
    let (option, value) = arena::SELFTEST_WEAKENING;
    let out = default_out("selftest");
    if !quiet {
        eprintln!(
            "self-test: leaper vs leaper-weak ({option}={value}), SPRT [0, 40] logistic Elo, tc 1+0.01, 2 games at a \
             time, at most 300 games; output in {}",
            out.display()
        );
    }
    let progress = Arc::new(Progress::new(&config, quiet));
    let report = arena::run(config.clone(), &out, Arc::clone(&progress) as Arc<dyn RunObserver>);
    progress.finish();
    print_final(&report?, &config, &out);
    Ok(())
}

/// The flags of `arena bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The instant engine [default: the mock engine next to the arena, which answers at once].
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., value_parser = key_value)]
    pub engine: Vec<(String, String)>,

    /// Games per run.
    #[arg(long, default_value_t = 200)]
    pub games: u64,

    /// Runs of each kind (engines reused, restart=on); medians are reported.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,

    /// Games at a time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,

    /// Measure runs in this PostgreSQL database instead (a scratch one: runs are added): games per second
    /// with each number of --workers on this machine, and the database's milliseconds per game. The engine
    /// is the mock engine waiting --delay-ms per move (no CPU), standing for workers on many machines.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,

    /// With --db: the numbers of workers to measure.
    #[arg(long, requires = "db", value_delimiter = ',', default_value = "1,2,3")]
    pub workers: Vec<usize>,

    /// With --db: the engine's fixed time per move, in milliseconds.
    #[arg(long, requires = "db", default_value_t = 10)]
    pub delay_ms: u64,

    /// With --db: game pairs per batch.
    #[arg(long, requires = "db", default_value_t = 1)]
    pub batch_pairs: u64,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Runs `arena bench`: the arena's overhead with an instant engine.
///
/// # Errors
/// No engine, or an engine that fails its check.
pub fn bench(args: &BenchArgs) -> anyhow::Result<()> {
    if let Some(url) = &args.db {
        let mock = sibling("mock-engine")?;
        return crate::db_cli::bench_db(args, url, &mock);
    }
    let engine: EngineSpec = if args.engine.is_empty() {
        let mock = sibling("mock-engine")?;
        EngineSpec::from_tokens(&[
            format!("cmd={}", mock.display()),
            "name=instant".to_owned(),
            "depth=1".to_owned(),
        ])?
    } else {
        EngineSpec::from_pairs(&args.engine)?
    };
    println!(
        "arena bench: {} games per run, {} runs, concurrency {}, engine {}",
        args.games,
        args.runs,
        args.concurrency,
        engine.cmd.display()
    );
    let mut rows = Vec::new();
    for restart in [false, true] {
        let (mut gps, mut wall, mut cpu, mut startup) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for run in 0..args.runs.max(1) {
            let figures = arena::bench(&BenchSettings {
                engine: engine.clone(),
                games: args.games,
                concurrency: args.concurrency,
                restart,
            })?;
            println!(
                "  restart={} run {}: {} games, {} moves, {:.3} s: {:.1} games/s, {:.4} ms/move wall, {} ms/move \
                 arena CPU, start-up {} ms",
                if restart { "on " } else { "off" },
                run + 1,
                figures.games,
                figures.moves,
                figures.wall.as_secs_f64(),
                figures.games_per_second(),
                figures.wall_ms_per_move(),
                figures
                    .cpu_ms_per_move()
                    .map_or_else(|| "?".to_owned(), |x| format!("{x:.4}")),
                figures
                    .median_startup_ms()
                    .map_or_else(|| "?".to_owned(), |x| format!("{x:.2}")),
            );
            gps.push(figures.games_per_second());
            wall.push(figures.wall_ms_per_move());
            cpu.push(figures.cpu_ms_per_move().unwrap_or(f64::NAN));
            if let Some(s) = figures.median_startup_ms() {
                startup.push(s);
            }
        }
        rows.push((restart, median(gps), median(wall), median(cpu), median(startup)));
    }
    println!("medians:");
    for (restart, gps, wall, cpu, startup) in &rows {
        println!(
            "  restart={}: {gps:.1} games/s, {wall:.4} ms/move wall, {cpu:.4} ms/move arena CPU, engine start-up \
             {startup:.2} ms",
            if *restart { "on " } else { "off" }
        );
    }
    if let [(_, off, ..), (_, on, ..)] = rows[..] {
        println!(
            "  restart=on costs {:.2} ms per game (two engine starts)",
            1000.0 / on - 1000.0 / off
        );
    }
    Ok(())
}

/// The style of a games progress bar (shared by matches and `arena tune`):
/// spinner, elapsed time, bar, games done, games per second and ETA, then
/// `suffix` (for example a second line).
pub(crate) fn games_style(suffix: &str) -> ProgressStyle {
    ProgressStyle::with_template(&format!(
        "{{spinner}} [{{elapsed_precise}}] {{bar:32.cyan/blue}} {{pos}}/{{len}} games  {{rate}}  ETA {{eta}}{suffix}"
    ))
    .map(|style| {
        style.with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.2} games/s", state.per_sec());
        })
    })
    .unwrap_or_else(|_| ProgressStyle::default_bar())
}
