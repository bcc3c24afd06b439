//! Run directories and run settings end to end, with real processes: one
//! runner per directory (a second is refused, a killed one's lock does not
//! block a resume), bad settings refused before any game, `arena tune`
//! keeping a game record, float parameters on UCI engines, and protocol
//! violations written to the record and the summary (issues 16.3, 16.4,
//! 18.2, 18.4, 18.7).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

const LIMIT: Duration = Duration::from_secs(60);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Waits up to `limit` for `path` to exist.
fn wait_for(path: &Path, limit: Duration) {
    let deadline = Instant::now() + limit;
    while !path.exists() {
        assert!(Instant::now() < deadline, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_runner_on_a_directory_is_refused_and_a_killed_ones_lock_does_not_block_resume() {
    let dir = scratch("lock");
    let out = dir.join("run");
    let mut args = strings(&["match", "--quiet", "--games", "8"]);
    // Slow engines: the first runner is still playing when the others come.
    args.extend(mock_engine(
        "a",
        &["option.Mode=slow", "option.After=1", "option.DelayMs=5"],
    ));
    args.extend(mock_engine(
        "b",
        &["option.Mode=slow", "option.After=1", "option.DelayMs=5"],
    ));
    args.extend(strings(&["--each", "depth=1", "--out", out.to_str().unwrap()]));
    let mut first = spawn_arena(&args);
    let pid = first.id();
    wait_for(&out.join("config.json"), Duration::from_secs(20));

    for second in [
        strings(&["match", "--quiet", "--resume", out.to_str().unwrap()]),
        strings(&["roundrobin", "--quiet", "--resume", out.to_str().unwrap()]),
    ] {
        let began = Instant::now();
        let refused = run_arena(&second, Duration::from_secs(10));
        let err = text(&refused.stderr);
        assert!(!refused.status.success(), "a second runner ran:\n{err}");
        assert!(
            began.elapsed() < Duration::from_secs(3),
            "refused only after {:?}",
            began.elapsed()
        );
        assert!(
            err.contains(out.to_str().unwrap()),
            "the directory is not named:\n{err}"
        );
        assert!(
            err.contains(&format!("process {pid}")),
            "the holder {pid} is not named:\n{err}"
        );
    }
    assert!(first.try_wait().unwrap().is_none(), "the first runner ended early");

    // kill -9: the system releases the lock with the process.
    first.kill().unwrap();
    first.wait().unwrap();
    let resumed = run_ok(
        &strings(&["match", "--quiet", "--resume", out.to_str().unwrap()]),
        LIMIT,
    );
    assert!(text(&resumed.stdout).contains("8 games"), "{}", text(&resumed.stdout));
    let records = games(&out);
    let mut ids: Vec<u64> = records.iter().map(|r| r.game).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..8).collect::<Vec<_>>(), "every game once");
}

#[test]
fn a_tuning_runs_directory_is_locked_too() {
    let dir = scratch("tune-lock");
    let out = dir.join("run");
    let params = dir.join("params.txt");
    std::fs::write(&params, "Knob, int, 5, 0, 10, 1, 0.002\n").unwrap();
    let mut args = strings(&[
        "tune",
        "--quiet",
        "--games",
        "400",
        "--params",
        params.to_str().unwrap(),
    ]);
    args.extend(mock_engine(
        "m",
        &["option.Mode=slow", "option.After=1", "option.DelayMs=5"],
    ));
    args.extend(strings(&["--each", "depth=1", "--out", out.to_str().unwrap()]));
    let mut first = spawn_arena(&args);
    let pid = first.id();
    wait_for(&out.join("tune.json"), Duration::from_secs(20));
    let refused = run_arena(
        &strings(&["tune", "--quiet", "--resume", out.to_str().unwrap()]),
        Duration::from_secs(10),
    );
    let err = text(&refused.stderr);
    let _ = first.kill();
    let _ = first.wait();
    assert!(!refused.status.success(), "a second tuner ran:\n{err}");
    assert!(
        err.contains(out.to_str().unwrap()) && err.contains(&format!("process {pid}")),
        "{err}"
    );
}

#[test]
fn bad_settings_are_refused_before_any_game_naming_the_setting_and_its_range() {
    let dir = scratch("bad-settings");
    let cases: &[(&[&str], &[&str], &str)] = &[
        (&["movetime=0"], &[], "movetime=0"),
        (&["depth=1", "stalltime=0"], &[], "stalltime=0"),
        (&["tc=10+5000"], &[], "tc increment"),
        (&["tc=100000+0"], &[], "tc base"),
        (&["depth=1", "timemargin=99999999"], &[], "timemargin"),
        (&["depth=0"], &[], "depth=0"),
        (&["nodes=0"], &[], "nodes=0"),
        (&["depth=1"], &["--concurrency", "0"], "--concurrency=0"),
        (&["depth=1"], &["--concurrency", "100000"], "--concurrency=100000"),
        (&["depth=1"], &["--games", "0"], "--games=0"),
        (&["depth=1"], &["--rounds", "0"], "--rounds=0"),
        (&["depth=1"], &["--report-every", "0"], "--report-every=0"),
    ];
    for (i, (each, flags, named)) in cases.iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        let mut args = strings(&["match", "--quiet"]);
        args.extend(strings(flags));
        args.extend(mock_engine("a", &[]));
        args.extend(mock_engine("b", &[]));
        args.push("--each".to_owned());
        args.extend(strings(each));
        args.extend(strings(&["--out", out.to_str().unwrap()]));
        let run = run_arena(&args, LIMIT);
        let err = text(&run.stderr);
        assert!(!run.status.success(), "{each:?} {flags:?} was accepted:\n{err}");
        assert!(
            err.contains(named) && err.contains("expected"),
            "{each:?} {flags:?}: the message does not name {named:?} and its range:\n{err}"
        );
        assert!(!out.join("games.csv").exists(), "{each:?} {flags:?}: games were played");
    }
    // The same check for a tuning run.
    let params = dir.join("params.txt");
    std::fs::write(&params, "Knob, int, 5, 0, 10, 1, 0.002\n").unwrap();
    for (each, named) in [("movetime=0", "movetime=0"), ("stalltime=0", "stalltime=0")] {
        let out = dir.join(format!("tune-{named}"));
        let mut args = strings(&["tune", "--quiet", "--games", "4", "--params", params.to_str().unwrap()]);
        args.extend(mock_engine("m", &["depth=1", each]));
        args.extend(strings(&["--out", out.to_str().unwrap()]));
        let run = run_arena(&args, LIMIT);
        let err = text(&run.stderr);
        assert!(
            !run.status.success() && err.contains(named) && err.contains("expected"),
            "{err}"
        );
        assert!(!out.join("games.csv").exists());
    }
    // And for --concurrency given to a resume.
    let out = dir.join("resume");
    let mut args = strings(&["match", "--quiet", "--games", "2"]);
    args.extend(mock_engine("a", &[]));
    args.extend(mock_engine("b", &[]));
    args.extend(strings(&["--each", "depth=1", "--out", out.to_str().unwrap()]));
    run_ok(&args, LIMIT);
    let run = run_arena(
        &strings(&[
            "match",
            "--quiet",
            "--resume",
            out.to_str().unwrap(),
            "--concurrency",
            "0",
        ]),
        LIMIT,
    );
    assert!(
        !run.status.success() && text(&run.stderr).contains("--concurrency=0"),
        "{}",
        text(&run.stderr)
    );
}

/// Runs a short tune of the mock engine's `params` in `out`.
fn tune_mock(out: &Path, params: &str, games: u64) -> std::process::Output {
    let file = out.with_extension("params");
    std::fs::write(&file, params).unwrap();
    let mut args = strings(&[
        "tune",
        "--quiet",
        "--games",
        &games.to_string(),
        "--pairs-per-trial",
        "1",
        "--params",
        file.to_str().unwrap(),
    ]);
    args.extend(mock_engine("m", &["depth=1"]));
    args.extend(strings(&["--out", out.to_str().unwrap()]));
    run_arena(&args, LIMIT)
}

#[test]
fn a_tuning_run_keeps_a_game_record_that_replays() {
    let dir = scratch("tune-record");
    let out = dir.join("run");
    let run = tune_mock(&out, "Knob, int, 5, 0, 10, 1, 0.002\n", 8);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let records = games(&out);
    assert_eq!(records.len(), 8, "{records:?}");
    let mut ids: Vec<u64> = records.iter().map(|r| r.game).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 8, "game ids are unique");
    assert!(records.iter().all(|r| r.red == "m-plus" || r.red == "m-minus"));
    replay_ok(&out);
    let stats = Command::new(arena_bin())
        .args(["stats", "--json", "--from"])
        .arg(out.join("games.csv"))
        .output()
        .unwrap();
    assert!(stats.status.success(), "{}", text(&stats.stderr));
    let json: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(json["games"], 8);
    // Each game's trial is in its events; the round column holds it too.
    let finished: Vec<_> = events(&out)
        .into_iter()
        .filter(|e| e["event"] == "game-finished")
        .collect();
    assert_eq!(finished.len(), 8);
    for e in &finished {
        let game = e["game"].as_u64().unwrap();
        let record = records.iter().find(|r| r.game == game).unwrap();
        assert_eq!(e["trial"].as_u64(), Some(record.round), "{e}");
    }
    let stdout = text(&run.stdout);
    assert!(
        stdout.contains("failures:"),
        "no failure count in the report:\n{stdout}"
    );
}

#[test]
fn float_parameters_reach_string_options_as_decimals_and_spin_options_refuse_them() {
    let dir = scratch("tune-float");
    // Ratio is a string option: the mock engine dies (a crash) on any value
    // that is not a decimal in [0, 1].
    let out = dir.join("ratio");
    let run = tune_mock(&out, "Ratio, float, 0.5, 0.0, 1.0, 0.2, 0.002\n", 8);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let records = games(&out);
    assert_eq!(records.len(), 8);
    assert!(
        records.iter().all(|r| r.termination != results::Termination::Crash),
        "the engine refused a value: {records:?}\n{}",
        text(&run.stderr)
    );
    // The same parameter at an end of its range is still sent as a decimal.
    let out = dir.join("ratio-edge");
    let run = tune_mock(&out, "Ratio, float, 1.0, 0.999, 1.0, 0.2, 0.002\n", 4);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(games(&out).iter().all(|r| r.termination != results::Termination::Crash));

    // Knob is a spin: a float parameter for it is refused before any game.
    let out = dir.join("knob");
    let run = tune_mock(&out, "Knob, float, 5, 0, 10, 1, 0.002\n", 4);
    let err = text(&run.stderr);
    assert!(!run.status.success(), "a float was tuned on a spin option:\n{err}");
    assert!(
        err.contains("Knob") && err.contains("spin") && err.contains("float"),
        "{err}"
    );
    assert!(!out.join("games.csv").exists());
}

#[test]
fn protocol_violations_are_recorded_and_counted_per_engine() {
    let dir = scratch("violations");
    let mut args = strings(&["match", "--games", "2"]);
    args.extend(mock_engine(
        "twice",
        &["option.Mode=twice", "option.After=1", "option.DelayMs=1"],
    ));
    args.extend(mock_engine("clean", &[]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let run = run_ok(&args, LIMIT);
    let violations: Vec<_> = events(&dir)
        .into_iter()
        .filter(|e| e["event"] == "protocol-violation")
        .collect();
    assert!(!violations.is_empty(), "no protocol-violation event");
    let mut total = 0;
    for e in &violations {
        assert_eq!(e["engine"], "twice", "{e}");
        let count = e["count"].as_u64().unwrap();
        assert!(count > 0, "{e}");
        total += count;
        let lines = e["lines"].as_array().unwrap();
        assert!(
            !lines.is_empty() && lines[0].as_str().unwrap().starts_with("bestmove"),
            "{e}"
        );
        assert_eq!(e["dropped"], 0, "{e}");
        assert!(e["game"].is_u64(), "{e}");
    }
    let summary = summary(&dir);
    assert_eq!(
        summary["violations"]["twice"]["violations"].as_u64(),
        Some(total),
        "{summary}"
    );
    assert_eq!(
        summary["violations"]["clean"]["violations"].as_u64(),
        Some(0),
        "{summary}"
    );
    assert_eq!(
        summary["violations"]["twice"]["dropped_lines"].as_u64(),
        Some(0),
        "{summary}"
    );
    let stdout = text(&run.stdout);
    assert!(
        stdout.contains(&format!("twice: {total} violations, 0 dropped lines")),
        "no violation count in the terminal summary:\n{stdout}"
    );
}
