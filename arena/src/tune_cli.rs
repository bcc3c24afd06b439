//! `arena tune`: SPSA tuning of one engine's parameters against itself.
//! The flags are the library's [`TuneSettings`]; the library
//! ([`arena::start_tune`], [`arena::resume_tune`]) plays and saves, and this
//! module prints: a progress bar on stderr (games, games per second, ETA,
//! the current values) and, at the end, the tuned values as `name, value`
//! and `setoption` lines and the `arena match` command that checks them.
//! With `--db` the run is created in a database ([`arena::db::submit_tune`])
//! and followed there with the same progress line and final report.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use arena::{
    DEFAULT_STALLTIME_MS, EngineFailure, EngineSpec, Proto, TuneConfig, TuneObserver, TuneReport, TuneSettings,
};
use indicatif::{ProgressBar, ProgressDrawTarget};
use spsa::Tuner;

/// `(current values)` as `name=value` text, for the progress bar.
fn values_text(tuner: &Tuner) -> String {
    // The measured draw ratio and, per parameter, the current step: how far
    // one game won by the plus engine moves it, in units of its range.
    let steps = tuner.current_steps();
    let mean_step = tuner
        .params()
        .iter()
        .zip(&steps)
        .map(|(p, s)| s / (p.max - p.min))
        .sum::<f64>()
        / steps.len().max(1) as f64;
    let values = tuner
        .named_values()
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "draws {:.0}%  step {:.4}% of range per game\n  {values}",
        100.0 * tuner.draw_ratio(),
        100.0 * mean_step
    )
}

/// The progress bar: games told, games per second, ETA, current values.
struct Progress {
    bar: ProgressBar,
    quiet: bool,
}

impl Progress {
    fn new(quiet: bool) -> Self {
        let bar = ProgressBar::with_draw_target(
            Some(0),
            if quiet {
                ProgressDrawTarget::hidden()
            } else {
                ProgressDrawTarget::stderr()
            },
        );
        bar.set_style(crate::commands::games_style("\n  {wide_msg}"));
        bar.enable_steady_tick(Duration::from_millis(200));
        Self { bar, quiet }
    }
}

impl TuneObserver for Progress {
    fn started(&self, tuner: &Tuner, resumed: bool, replayed: usize) {
        self.bar.set_length(tuner.budget_games());
        self.bar.set_position(tuner.games());
        self.bar.reset_eta();
        if resumed && !self.quiet {
            self.bar.println(format!(
                "resuming: {} of {} games told; {replayed} pending trials are played again",
                tuner.games(),
                tuner.budget_games()
            ));
        }
        self.bar.set_message(values_text(tuner));
    }

    fn updated(&self, tuner: &Tuner) {
        self.bar.set_position(tuner.games());
        self.bar.set_message(values_text(tuner));
    }

    fn engine_failed(&self, game: u64, engine: &str, failure: &EngineFailure) {
        if !self.quiet {
            self.bar
                .suspend(|| eprintln!("game {game}: {engine} failed: {failure}"));
        }
    }
}

/// Quotes a token for a POSIX shell when it needs it.
fn shell_quote(token: &str) -> String {
    let plain = !token.is_empty()
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=+:,@%".contains(c));
    if plain {
        token.to_owned()
    } else {
        format!("'{}'", token.replace('\'', r"'\''"))
    }
}

/// The `--engine` tokens that start `spec` under `name` with `options`
/// (its limits go to `--each`, see [`limit_tokens`]).
fn engine_tokens(spec: &EngineSpec, name: &str, options: &[(String, String)]) -> Vec<String> {
    let mut tokens = vec![format!("cmd={}", spec.cmd.display()), format!("name={name}")];
    if !spec.args.is_empty() {
        tokens.push(format!("args={}", spec.args.join(" ")));
    }
    if let Some(dir) = &spec.dir {
        tokens.push(format!("dir={}", dir.display()));
    }
    if spec.restart {
        tokens.push("restart=on".to_owned());
    }
    if spec.proto == Proto::Codecup {
        tokens.push("proto=codecup".to_owned());
    }
    tokens.extend(options.iter().map(|(n, v)| format!("option.{n}={v}")));
    tokens
}

/// The limit keys of `spec`.
fn limit_tokens(spec: &EngineSpec) -> Vec<String> {
    let l = &spec.limits;
    let mut tokens: Vec<String> = l.describe().split_whitespace().map(str::to_owned).collect();
    if l.timemargin_ms > 0 {
        tokens.push(format!("timemargin={}", l.timemargin_ms));
    }
    if l.stalltime_ms != DEFAULT_STALLTIME_MS {
        tokens.push(format!("stalltime={}", l.stalltime_ms));
    }
    tokens
}

/// The `arena match` command that verifies the tuned values by SPRT
/// against the starting ones.
fn verify_command(report: &TuneReport, out: &Path) -> String {
    let config = &report.config;
    let tuner = &report.tuner;
    let spec = &config.engine;
    let start: Vec<f64> = tuner.params().iter().map(|p| p.start).collect();
    let tuned_spec = config.engine_with("tuned", tuner.params(), &tuner.values());
    let start_spec = config.engine_with("start", tuner.params(), &start);
    let mut words = vec!["arena".to_owned(), "match".to_owned(), "--engine".to_owned()];
    words.extend(engine_tokens(spec, "tuned", &tuned_spec.options));
    words.push("--engine".to_owned());
    words.extend(engine_tokens(spec, "start", &start_spec.options));
    words.push("--each".to_owned());
    words.extend(limit_tokens(spec));
    words.extend(
        [
            "--games",
            "20000",
            "--concurrency",
            &config.concurrency.to_string(),
            "--sprt",
            "elo0=0",
            "elo1=5",
        ]
        .map(str::to_owned),
    );
    if let Some(o) = &config.openings {
        words.push("--openings".to_owned());
        words.push(format!("file={}", o.file.display()));
        if o.order == arena::Order::Random {
            words.push("order=random".to_owned());
        }
    }
    words.push("--out".to_owned());
    words.push(out.join("verify").display().to_string());
    words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// Where a tuning run's files are: a local run's directory, or a
/// database run (exported with `arena export`).
#[derive(Clone, Copy)]
enum Where<'a> {
    Dir(&'a Path),
    Db(i64),
}

fn print_final(report: &TuneReport, place: Where<'_>) {
    let db_out = match place {
        Where::Db(id) => std::path::PathBuf::from(format!("tune-run-{id}")),
        Where::Dir(dir) => dir.to_path_buf(),
    };
    let out = db_out.as_path();
    let tuner = &report.tuner;
    let tally = tuner.tally();
    let secs = report.elapsed.as_secs_f64();
    println!(
        "tuned {} parameters of {} in {} games ({} updates); {}: {} games in {:.1} s ({:.2} games/s{})",
        tuner.params().len(),
        report.config.engine.name,
        tuner.games(),
        tuner.updates(),
        match place {
            Where::Dir(_) => "this session",
            Where::Db(_) => "the run in the database",
        },
        report.played,
        secs,
        if secs > 0.0 { report.played as f64 / secs } else { 0.0 },
        if report.replayed > 0 {
            format!(", {} pending trials played again", report.replayed)
        } else {
            String::new()
        },
    );
    println!(
        "plus engine's pairs: Ptnml(0-2) [{}, {}, {}, {}, {}]",
        tally.ll, tally.ld, tally.dd, tally.wd, tally.ww
    );
    println!(
        "recipe {}; measured draw ratio {:.0}%",
        tuner.config().schedule.name(),
        100.0 * tuner.draw_ratio()
    );
    let failures: Vec<String> = report
        .failures
        .iter()
        .map(|(engine, kinds)| {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            format!(
                "{engine}: {}",
                if list.is_empty() {
                    "none".to_owned()
                } else {
                    list.join(", ")
                }
            )
        })
        .collect();
    println!("failures: {}", failures.join("; "));
    println!("\ntuned values (name, value; start in brackets; move in units of the range):");
    for (((name, value), param), tuned) in tuner.named_values().iter().zip(tuner.params()).zip(tuner.values()) {
        println!(
            "{name}, {value}    [{}]    {:+.3}",
            param.format_value(param.start),
            (tuned - param.start) / (param.max - param.min)
        );
    }
    println!("\nas UCI options:");
    for (name, value) in tuner.named_values() {
        println!("setoption name {name} value {value}");
    }
    println!("\nverify them against the start values (SPRT):");
    println!("{}", verify_command(report, out));
    if let Where::Db(id) = place {
        println!(
            "\nrun {id} in the database; its files ({}, {}, {}, {}, {}, {}): arena export --db URL {id} --out {}",
            arena::TUNE_FILE,
            arena::STATE_FILE,
            arena::HISTORY_FILE,
            arena::TRACES_FILE,
            arena::GAMES_FILE,
            arena::EVENTS_FILE,
            out.display()
        );
        return;
    }
    println!(
        "\noutput in {}: {}, {}, {}, {}, {}, {}",
        out.display(),
        arena::TUNE_FILE,
        arena::STATE_FILE,
        arena::HISTORY_FILE,
        arena::TRACES_FILE,
        arena::GAMES_FILE,
        arena::EVENTS_FILE
    );
}

/// The flags of `arena tune`: the library's settings and those of a
/// tuning run in a database.
#[derive(Debug, clap::Args)]
pub struct TuneArgs {
    #[command(flatten)]
    pub settings: TuneSettings,

    /// Create the tuning run in this PostgreSQL database instead of playing it here, print `run <ID>`, and
    /// follow it: `arena worker --db URL` plays its trials on any host, and the tuner's state lives in the
    /// database. `postgres://USER@HOST:PORT/DB`; what it leaves out comes from PGHOST, PGPORT, PGUSER,
    /// PGPASSWORD, PGDATABASE.
    #[arg(long, value_name = "URL", conflicts_with_all = ["resume", "out"])]
    pub db: Option<String>,

    /// With --db: return once the run is created (stopping the follower never stops the run).
    #[arg(long, requires = "db")]
    pub detach: bool,

    /// With --db: trials asked ahead of their results, each a batch a worker claims; at least the number of
    /// workers keeps them all busy [default: 4].
    #[arg(long, requires = "db", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub in_flight: Option<u32>,
}

/// Creates a tuning run in the database, prints `run <ID>`, and follows
/// it (progress line, then the final report) unless `--detach`.
fn run_db(args: &TuneArgs, url: &str) -> anyhow::Result<()> {
    let settings = &args.settings;
    let mut config = TuneConfig::new(settings)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    arena::db::tune::absolutize_tune(&mut config, &cwd);
    let params = match &settings.params {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            spsa::parse_params(&text).with_context(|| format!("{}", path.display()))?
        }
        None => arena::engine_params(&config.engine)?,
    };
    let mut client = arena::db::connect(url, &crate::db_cli::pg_env())?;
    let id = arena::db::submit_tune(
        &mut client,
        &config,
        params,
        args.in_flight.unwrap_or(arena::db::IN_FLIGHT),
    )?;
    println!("run {id}");
    if !settings.quiet {
        eprintln!(
            "tuning {} ({}): {} games in the database at {}; play it with `arena worker --db URL` on any host",
            config.engine.name,
            config.engine.limits.describe(),
            config.games,
            arena::db::redact_url(url)
        );
    }
    if args.detach {
        return Ok(());
    }
    follow(&mut client, id, settings.quiet)
}

/// Shows the progress of tuning run `id` (the local tune's line: games
/// told, draw ratio, step, values) until it ends, then its final report.
///
/// # Errors
/// The database, or a run that is not a tuning run.
pub fn follow(client: &mut postgres::Client, id: i64, quiet: bool) -> anyhow::Result<()> {
    let progress = Progress::new(quiet);
    let mut first = true;
    loop {
        let run = arena::db::run_of(client, id)?;
        let tune = arena::db::tune_of(client, id)?.with_context(|| format!("run {id} is not a tuning run"))?;
        if first {
            progress.started(&tune.tuner, false, 0);
            first = false;
        } else {
            progress.updated(&tune.tuner);
        }
        if !run.state.is_running() {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    progress.bar.finish_and_clear();
    let report = arena::db::tune_report(client, id)?;
    print_final(&report, Where::Db(id));
    Ok(())
}

/// Runs `arena tune`.
///
/// # Errors
/// Bad settings or parameters, an engine that fails its check, unwritable
/// files.
pub fn run(args: &TuneArgs) -> anyhow::Result<()> {
    if let Some(url) = &args.db {
        return run_db(args, url);
    }
    let args = &args.settings;
    let progress = Arc::new(Progress::new(args.quiet));
    if let Some(dir) = &args.resume {
        let report = arena::resume_tune(dir, args.concurrency, Arc::clone(&progress) as Arc<dyn TuneObserver>);
        progress.bar.finish_and_clear();
        print_final(&report?, Where::Dir(dir));
        return Ok(());
    }
    let config = TuneConfig::new(args)?;
    let params = match &args.params {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            spsa::parse_params(&text).with_context(|| format!("{}", path.display()))?
        }
        None => arena::engine_params(&config.engine)?,
    };
    let out = args.out.clone().unwrap_or_else(|| crate::commands::default_out("tune"));
    if !args.quiet {
        eprintln!(
            "tuning {} parameters of {} ({}, concurrency {}): {} games, output in {}",
            params.len(),
            config.engine.name,
            config.engine.limits.describe(),
            config.concurrency,
            config.games,
            out.display()
        );
    }
    let report = arena::start_tune(config, params, &out, Arc::clone(&progress) as Arc<dyn TuneObserver>);
    progress.bar.finish_and_clear();
    print_final(&report?, Where::Dir(&out));
    Ok(())
}

#[cfg(test)]
mod tests {
    use results::Pentanomial;

    use super::*;

    /// The number after `label` in `text`, up to the next space or `%`.
    fn number_after(text: &str, label: &str) -> f64 {
        let rest = text
            .split(label)
            .nth(1)
            .unwrap_or_else(|| panic!("no '{label}' in {text}"));
        rest.split([' ', '%'])
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{text}"))
    }

    #[test]
    fn the_progress_line_shows_the_measured_draw_ratio_the_step_and_the_values() {
        let params = spsa::parse_params("A, int, 50, 0, 100\nB, float, 1.5, 0, 2\n").expect("valid");
        let mut tuner = Tuner::new(params, spsa::Config::new(20_000)).expect("valid");
        let check = |tuner: &Tuner| {
            let text = values_text(tuner);
            assert_eq!(
                number_after(&text, "draws "),
                (100.0 * tuner.draw_ratio()).round(),
                "{text}"
            );
            let steps = tuner.current_steps();
            let mean = 100.0 * (steps[0] / 100.0 + steps[1] / 2.0) / 2.0;
            let shown = number_after(&text, "step ");
            assert!(mean > 0.0 && (shown - mean).abs() <= 0.000_05 + 1e-12, "{text}: {mean}");
            assert!(text.contains("A=") && text.contains("B="), "{text}");
            (number_after(&text, "draws "), shown)
        };
        // Before any pair: the prior, one half.
        let (draws, before) = check(&tuner);
        assert_eq!(draws, 50.0);
        // 64 pairs that all split one game each: half the prior's spread, 75%.
        for _ in 0..32 {
            let trial = tuner.ask().expect("budget left");
            tuner.tell(trial.id, Pentanomial::new(0, 0, 2, 0, 0)).expect("pending");
        }
        let (draws, step) = check(&tuner);
        assert_eq!(draws, 75.0);
        // More draws, less noise per game: the derived step is larger (the
        // rate is still held at 64 of 10,000 pairs).
        assert!(step > before, "{step} {before}");
    }
}
