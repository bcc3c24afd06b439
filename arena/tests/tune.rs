//! `arena tune` end to end against the workspace's `leaper` at a node
//! limit: a run killed with SIGKILL after a few updates and resumed ends
//! with the whole budget told, a history without gaps or repeats, a state
//! that loads and a plot with one trace per parameter; a two-parameter file
//! is read and printed back; bad parameters stop the run before anything
//! is written.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::*;

/// The `games` column of `history.csv`.
fn history_games(dir: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join("history.csv")).expect("history.csv");
    let history = spsa::parse_history(&text).expect("history.csv parses");
    history.rows.iter().map(|r| r.games).collect()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The final `name, value` and `setoption` lines name every parameter; each
/// value line shows the start in brackets and the move in units of the
/// parameter's range (checked against the state's parameters), and the
/// measured draw ratio is printed.
fn check_final_lines(text: &str, names: &[&str], state: &Path) {
    let tuner = spsa::Tuner::load(state).expect("state loads");
    for name in names {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name}, ")))
            .unwrap_or_else(|| panic!("no `{name}, value` line in:\n{text}"));
        // `name, value    [start]    +0.123`
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.len(), 4, "{line}");
        let value: f64 = fields[1].parse().expect(line);
        let start: f64 = fields[2].trim_matches(|c| c == '[' || c == ']').parse().expect(line);
        let moved: f64 = fields[3].parse().expect(line);
        let param = tuner.params().iter().find(|p| p.name == *name).expect("named");
        assert_eq!(start, param.start, "{line}");
        let expected = (value - start) / (param.max - param.min);
        assert!(
            (moved - expected).abs() <= 0.0005 + 1e-12,
            "{line}: expected {expected:+.3}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("setoption name {name} value "))),
            "no setoption line for {name} in:\n{text}"
        );
    }
    let draws = text
        .lines()
        .find_map(|l| l.split("measured draw ratio ").nth(1))
        .unwrap_or_else(|| panic!("no measured draw ratio in:\n{text}"));
    assert_eq!(draws, format!("{:.0}%", 100.0 * tuner.draw_ratio()), "{text}");
    let verify = text
        .lines()
        .find(|l| l.starts_with("arena match "))
        .unwrap_or_else(|| panic!("no verification command in:\n{text}"));
    assert!(verify.contains("name=tuned") && verify.contains("name=start") && verify.contains("--sprt"));
    for name in names {
        assert_eq!(verify.matches(&format!("option.{name}=")).count(), 2, "{verify}");
    }
}

#[test]
fn a_tuning_run_killed_and_resumed_loses_nothing() {
    let dir = scratch("tune-resume");
    let out = dir.join("run");
    let args = strings(&[
        "tune",
        "--quiet",
        "--engine",
        &format!("cmd={}", leaper_bin().display()),
        "--each",
        "nodes=1500",
        "option.Hash=8",
        "--games",
        "64",
        "--concurrency",
        "2",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut child = spawn_arena(&args);
    // Kill it (SIGKILL) once a few updates are on disk.
    // (A bound for a loaded machine: a debug `leaper` plays these games, and
    // on 2 shared cores at load 20 an update can take 15 s.)
    let deadline = Instant::now() + Duration::from_secs(90);
    let updates = |dir: &Path| {
        std::fs::read_to_string(dir.join("history.csv"))
            .ok()
            .and_then(|text| spsa::parse_history(&text).ok())
            .map_or(0, |h| h.rows.len())
    };
    let mut ended = None;
    while Instant::now() < deadline && ended.is_none() && updates(&out) < 4 {
        ended = child.try_wait().ok().flatten();
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(ended.is_none(), "the run ended ({ended:?}) before it could be killed");
    let killed_at = Some(history_games(&out)).filter(|rows| rows.len() >= 4);
    let before = killed_at.expect("three updates within 90 s");
    assert!(*before.last().unwrap() < 64, "killed after the end: {before:?}");

    let resumed = run_ok(
        &strings(&["tune", "--quiet", "--resume", out.to_str().unwrap()]),
        Duration::from_secs(150),
    );
    let text = stdout(&resumed);

    let games = history_games(&out);
    assert_eq!(games.first(), Some(&0), "{games:?}");
    assert_eq!(games.last(), Some(&64), "{games:?}");
    assert!(games.windows(2).all(|w| w[0] < w[1]), "not increasing: {games:?}");
    assert!(games.len() >= before.len());

    let tuner = spsa::Tuner::load(&out.join("state.json")).expect("state.json loads");
    assert_eq!(tuner.games(), 64);
    assert!(tuner.is_done());
    assert_eq!(tuner.pending().count(), 0);
    assert_eq!(tuner.tally().pairs(), 32);

    let svg = std::fs::read_to_string(out.join("traces.svg")).expect("traces.svg");
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..svg.len().min(80)]
    );
    // A line and a legend entry (name = latest value) per parameter.
    assert!(svg.matches("<polyline").count() >= tuner.params().len());
    for param in tuner.params() {
        assert!(svg.contains(&format!("{} = ", param.name)), "{} missing", param.name);
    }
    assert!(svg.contains("64 games"));
    // Whole, though the kill may have hit a rewrite of it.
    assert!(
        svg.trim_end().ends_with("</svg>"),
        "{}",
        &svg[svg.len().saturating_sub(80)..]
    );

    let names: Vec<&str> = tuner.params().iter().map(|p| p.name.as_str()).collect();
    assert!(
        names.contains(&"LmrBase") && names.contains(&"TimeSoftPermille"),
        "{names:?}"
    );
    check_final_lines(&text, &names, &out.join("state.json"));
    assert!(text.contains("in 64 games"), "{text}");

    // The game record survives the kill: every game of the budget once
    // (a pending trial's replayed games keep their first row), legal.
    let records = common::games(&out);
    let mut ids: Vec<u64> = records.iter().map(|r| r.game).collect();
    ids.sort_unstable();
    let unique = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), unique, "a game id written twice");
    assert_eq!(ids, (0..64).collect::<Vec<_>>(), "the budget's games, each once");
    replay_ok(&out);

    // The finished run resumed again plays nothing more.
    let again = run_ok(
        &strings(&["tune", "--quiet", "--resume", out.to_str().unwrap()]),
        Duration::from_secs(20),
    );
    assert!(stdout(&again).contains("this session: 0 games"), "{}", stdout(&again));
    assert_eq!(history_games(&out), games);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_two_parameter_file_is_tuned_and_printed() {
    let dir = scratch("tune-params");
    let params = dir.join("params.txt");
    std::fs::write(
        &params,
        "# two of leaper's parameters\nLmrBase, int, 75, 0, 300, 10, 0.002\n\nTimeSoftPermille, int, 1000, 100, 5000, 80, 0.002, log\n",
    )
    .unwrap();
    let out = dir.join("run");
    let args = strings(&[
        "tune",
        "--quiet",
        "--engine",
        &format!("cmd={}", leaper_bin().display()),
        "name=lp",
        "--each",
        "nodes=2000",
        "--params",
        params.to_str().unwrap(),
        "--games",
        "12",
        "--concurrency",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&run_ok(&args, Duration::from_secs(60)));
    check_final_lines(&text, &["LmrBase", "TimeSoftPermille"], &out.join("state.json"));
    assert_eq!(
        text.lines().filter(|l| l.starts_with("setoption name ")).count(),
        2,
        "{text}"
    );
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    assert!(history.starts_with("games,LmrBase,TimeSoftPermille\n"), "{history}");
    assert_eq!(history_games(&out), vec![0, 4, 8, 12]);
    let tuner = spsa::Tuner::load(&out.join("state.json")).unwrap();
    assert_eq!(tuner.params()[1].scale, spsa::Scale::Log);
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tune.json")).unwrap()).unwrap();
    assert_eq!(config["engine"]["name"], "lp");
    assert_eq!(config["games"], 12);

    // A new run into the same directory is refused.
    let again = run_arena(&args, Duration::from_secs(20));
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_parameters_stop_the_run_before_anything_is_written() {
    let dir = scratch("tune-bad");
    let engine = format!("cmd={}", leaper_bin().display());
    let run = |params: &str, name: &str| {
        let file = dir.join(format!("{name}.txt"));
        std::fs::write(&file, params).unwrap();
        let out = dir.join(name);
        let result = run_arena(
            &strings(&[
                "tune",
                "--quiet",
                "--engine",
                &engine,
                "nodes=1000",
                "--params",
                file.to_str().unwrap(),
                "--games",
                "8",
                "--out",
                out.to_str().unwrap(),
            ]),
            Duration::from_secs(20),
        );
        assert!(!result.status.success(), "{name} was accepted");
        assert!(!out.join("tune.json").exists() && !out.join("state.json").exists());
        String::from_utf8_lossy(&result.stderr).into_owned()
    };
    let bad_line = run(
        "LmrBase, int, 75, 0, 300, 10, 0.002\nLmrStart, int, five, 1, 20, 1, 0.002\n",
        "line",
    );
    assert!(bad_line.contains("line 2"), "{bad_line}");
    let unknown = run("NoSuchOption, int, 5, 0, 10, 1, 0.002\n", "unknown");
    assert!(unknown.contains("NoSuchOption"), "{unknown}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_flags_are_documented_and_a_missing_run_is_reported() {
    let help = stdout(&run_ok(&strings(&["tune", "--help"]), Duration::from_secs(10)));
    for flag in [
        "--engine",
        "--each",
        "--params",
        "--games",
        "--concurrency",
        "--pairs-per-trial",
        "--openings",
        "--seed",
        "--out",
        "--resume",
        "--quiet",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    let dir = scratch("tune-none");
    let out = run_arena(
        &strings(&["tune", "--resume", dir.to_str().unwrap()]),
        Duration::from_secs(10),
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tuning run"));
    let both = run_arena(
        &strings(&["tune", "--resume", dir.to_str().unwrap(), "--games", "10"]),
        Duration::from_secs(10),
    );
    assert!(!both.status.success());
    let none = run_arena(&strings(&["tune", "--games", "10"]), Duration::from_secs(10));
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("--engine"));
    let _ = std::fs::remove_dir_all(&dir);
}
