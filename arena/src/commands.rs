//! The subcommands that play games: `arena match`, `arena gauntlet`,
//! `arena roundrobin` (one set of flags, [`RunArgs`]), `arena bench`, and
//! `arena` alone, the self-test SPRT of the workspace's own engine. Each
//! flag is defined once here with its help text; the library does the
//! work, and this module prints: indicatif progress bars on stderr (when
//! it is a terminal) and fastchess-style summaries on stdout.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use arena::{
    BenchSettings, EngineFailure, EngineSpec, FileConfig, Mode, OpeningsConfig, RunConfig, RunEnd, RunObserver,
    RunReport, SetupChoice, SprtSettings, Standings, Summary, build_engines, players_text, standings_text,
};
use clap::{ArgAction, Args, ValueEnum};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use results::GameRecord;

/// The flags of `arena match`, `arena gauntlet` and `arena roundrobin`.
#[derive(Debug, Default, Args)]
pub struct RunArgs {
    /// An engine: `cmd=PATH [name=N] [args="A B"] [option.NAME=VALUE]... [proto=uci|codecup] [initstr=TEXT]
    /// [restart=on|off] [dir=DIR] [tc=BASE+INC] [movetime=MS] [nodes=N] [depth=N] [timemargin=MS]
    /// [stalltime=MS]`. Repeat for each engine; in a gauntlet the first plays all others. `tc` is in seconds for
    /// the whole game, setups included.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append)]
    pub engine: Vec<String>,

    /// The `--engine` tokens grouped by occurrence (clap's derive flattens
    /// them); filled from the matches by [`RunArgs::group_engines`].
    #[arg(skip)]
    pub engines: Vec<Vec<String>>,

    /// Engine keys applied to every engine (an engine's own keys win), e.g. `--each tc=10+0.1 option.Hash=16`.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append)]
    pub each: Vec<String>,

    /// Games per pairing and round; even, as each opening is played twice with colours reversed [default: 2].
    #[arg(long)]
    pub games: Option<u64>,

    /// Rounds: each round plays --games games in every pairing [default: 1].
    #[arg(long)]
    pub rounds: Option<u64>,

    /// Games played at the same time [default: 1].
    #[arg(long)]
    pub concurrency: Option<usize>,

    /// Openings: `file=PATH [order=random|sequential]`; one `RED_SETUP BLUE_SETUP` pair per line, `#` comments.
    /// Without it, random setup pairs drawn from the seed.
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    pub openings: Vec<String>,

    /// The seed of every random choice (openings, their order) [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,

    /// Stop at an SPRT decision: `[elo0=0] [elo1=5] [alpha=0.05] [beta=0.05] [model=normalized|logistic]`
    /// (matches only).
    #[arg(long, value_name = "KEY=VALUE", num_args = 0..)]
    pub sprt: Option<Vec<String>>,

    /// Without openings: `arena` imposes seeded random setups (pairs share them), or `engine` lets the engines
    /// choose [default: arena].
    #[arg(long, value_enum)]
    pub setups: Option<SetupsArg>,

    /// Print a summary every N games [default: 50].
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,

    /// A TOML file with the same settings (`games`, `concurrency`, `each = {...}`, `[[engine]]` tables,
    /// `[sprt]`, `[openings]`, `out`, ...); flags given here override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The output directory: games.csv, events.jsonl, summary.json, config.json [default:
    /// arena-runs/<mode>-<unix time>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Continue the run saved in DIR (a killed or interrupted one); needs no other flag (--concurrency may
    /// change).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["engine", "each", "games", "rounds", "openings", "seed", "sprt", "setups", "report_every", "config", "out"])]
    pub resume: Option<PathBuf>,

    /// No progress bars and no periodic summaries; only the final one.
    #[arg(long)]
    pub quiet: bool,
}

impl RunArgs {
    /// Groups the `--engine` tokens by occurrence, from the subcommand's
    /// matches.
    pub fn group_engines(&mut self, matches: &clap::ArgMatches) {
        self.engines = matches
            .get_occurrences::<String>("engine")
            .map(|occurrences| occurrences.map(|o| o.cloned().collect()).collect())
            .unwrap_or_default();
    }
}

/// The `--setups` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SetupsArg {
    /// The arena imposes seeded random setup pairs.
    Arena,
    /// The engines choose their setups.
    Engine,
}

/// Splits `KEY=VALUE` tokens.
fn pairs(tokens: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    tokens
        .iter()
        .map(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .with_context(|| format!("expected KEY=VALUE, got {t:?}"))
        })
        .collect()
}

/// The config of a new run: the file's settings, then the flags.
fn build_config(mode: Mode, args: &RunArgs) -> anyhow::Result<(RunConfig, Option<PathBuf>)> {
    let file = match &args.config {
        Some(path) => FileConfig::read(path)?,
        None => FileConfig::default(),
    };
    let mut each = file.each.clone();
    each.extend(pairs(&args.each)?);
    let mut engine_pairs = file.engines.clone();
    for tokens in &args.engines {
        engine_pairs.push(pairs(tokens)?);
    }
    let engines = build_engines(&each, &engine_pairs)?;
    let defaults = RunConfig::default();
    let openings = if args.openings.is_empty() {
        file.openings.clone()
    } else {
        Some(OpeningsConfig::from_tokens(&args.openings)?)
    };
    let sprt = match &args.sprt {
        Some(tokens) => Some(SprtSettings::from_tokens(tokens)?),
        None => file.sprt,
    };
    let config = RunConfig {
        mode,
        engines,
        games: args.games.or(file.games).unwrap_or(defaults.games),
        rounds: args.rounds.or(file.rounds).unwrap_or(defaults.rounds),
        concurrency: args.concurrency.or(file.concurrency).unwrap_or(defaults.concurrency),
        openings,
        setups: match args.setups {
            Some(SetupsArg::Arena) => SetupChoice::Arena,
            Some(SetupsArg::Engine) => SetupChoice::Engine,
            None => file.setups.unwrap_or_default(),
        },
        seed: args.seed.or(file.seed).unwrap_or(defaults.seed),
        sprt,
        report_every: args.report_every.or(file.report_every).unwrap_or(defaults.report_every),
    };
    config.validate()?;
    Ok((config, args.out.clone().or(file.out)))
}

fn default_out(name: &str) -> PathBuf {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    PathBuf::from("arena-runs").join(format!("{name}-{secs}"))
}

/// A title like `leaper vs leaper-weak (tc=1+0.01, 2 threads)`.
fn title(config: &RunConfig) -> String {
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
struct Progress {
    games: ProgressBar,
    stats: ProgressBar,
    title: String,
    quiet: bool,
    many: bool,
}

impl Progress {
    fn new(config: &RunConfig, quiet: bool) -> Self {
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
        let e = &s.estimates;
        let mut msg = format!(
            "{} vs {}: Elo {:+.1} ± {:.1}  nElo {:+.1} ± {:.1}  W{} D{} L{}",
            s.main.first,
            s.main.second,
            e.elo,
            e.elo_ci95,
            e.nelo,
            e.nelo_ci95,
            s.main.trinomial.wins,
            s.main.trinomial.draws,
            s.main.trinomial.losses
        );
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

    fn finish(&self) {
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

fn print_final(report: &RunReport, config: &RunConfig, out: &Path) {
    println!("{}", standings_text(&report.standings, &title(config)));
    if config.engines.len() > 2 {
        println!("{}", players_text(&report.summary));
    }
    let end = match report.end {
        RunEnd::Complete if report.summary.finished => "all games played".to_owned(),
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

/// Runs `arena match|gauntlet|roundrobin`.
///
/// # Errors
/// Bad settings, an engine that fails its check, unwritable files.
pub fn run(mode: Mode, args: &RunArgs) -> anyhow::Result<()> {
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
    let (config, out) = build_config(mode, args)?;
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
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    pub engine: Vec<String>,

    /// Games per run.
    #[arg(long, default_value_t = 200)]
    pub games: u64,

    /// Runs of each kind (engines reused, restart=on); medians are reported.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,

    /// Games at a time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
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
    let engine: EngineSpec = if args.engine.is_empty() {
        let mock = sibling("mock-engine")?;
        EngineSpec::from_tokens(&[
            format!("cmd={}", mock.display()),
            "name=instant".to_owned(),
            "depth=1".to_owned(),
        ])?
    } else {
        EngineSpec::from_pairs(&pairs(&args.engine)?)?
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
