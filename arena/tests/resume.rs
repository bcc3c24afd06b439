//! Resume after a real kill: `arena match --out DIR` is killed with SIGKILL
//! in the middle of its run (twice), a torn half row is left at the end of
//! `games.csv`, and `arena match --resume DIR` finishes the run. Then
//! `games.csv` holds exactly the scheduled games, none twice, every one
//! legal (the torn row dropped, so `leaper replay` passes on the file); the summary equals a recount by `arena stats`; and each game's
//! pairing, colours and opening equal those of an uninterrupted run with
//! the same seed.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

const GAMES: u64 = 40;

fn match_args(dir: &std::path::Path) -> Vec<String> {
    let mut args = strings(&[
        "match",
        "--quiet",
        "--games",
        &GAMES.to_string(),
        "--concurrency",
        "2",
        "--seed",
        "77",
        "--sprt",
        "elo0=0",
        "elo1=2",
        "alpha=0.0001",
        "beta=0.0001",
    ]);
    // About 5 ms per move: a game lasts a fraction of a second, so the run
    // is long enough to be killed in the middle.
    args.extend(mock_engine("a", &["args=--delay-ms 4 --seed 3"]));
    args.extend(mock_engine("b", &["args=--delay-ms 4 --seed 5"]));
    args.extend(strings(&["--each", "tc=10+0.1", "--out", dir.to_str().unwrap()]));
    args
}

fn rows(dir: &std::path::Path) -> usize {
    std::fs::read_to_string(dir.join("games.csv"))
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// Starts the run and kills it with SIGKILL once `games.csv` has at least
/// `at_least` rows.
fn kill_after(args: &[String], dir: &std::path::Path, at_least: usize) {
    let mut child = spawn_arena(args);
    let deadline = Instant::now() + Duration::from_secs(60);
    while rows(dir) < at_least {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        assert!(Instant::now() < deadline, "no progress in games.csv");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_a_game() {
    let dir = scratch("resume");
    kill_after(&match_args(&dir), &dir, 6);
    let after_first_kill = rows(&dir);
    assert!(after_first_kill < GAMES as usize);

    // The second life is killed too, then a torn row is left behind as if
    // the kill had hit a write.
    let resume = strings(&["match", "--quiet", "--resume", dir.to_str().unwrap()]);
    kill_after(&resume, &dir, after_first_kill + 6);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("games.csv"))
        .unwrap();
    file.write_all(b"999,499,0,a,b,AWNAADADAFFAADDA,aaaa").unwrap();
    drop(file);

    let out = run_ok(&resume, Duration::from_secs(120));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("damaged rows"), "the torn row is reported: {stderr}");

    // Exactly the scheduled games, once each; the torn row was dropped.
    let file = results::read_record_file(dir.join("games.csv")).unwrap();
    assert!(file.damaged.is_empty(), "{:?}", file.damaged);
    let mut ids: Vec<u64> = file.records().map(|r| r.game).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..GAMES).collect::<Vec<_>>());
    replay_ok(&dir);

    // The summary is a recount of the file.
    let summary = summary(&dir);
    assert_eq!(summary["finished"], true);
    let recount = stats_json(&dir);
    for &key in STATS_KEYS.iter().filter(|k| **k != "decision") {
        let (a, b) = (summary[key].as_f64().unwrap(), recount[key].as_f64().unwrap());
        assert!(
            (a - b).abs() <= 1e-9 * (1.0 + a.abs()),
            "{key}: summary {a}, recount {b}"
        );
    }
    assert_eq!(summary["games"], GAMES);
    assert_eq!(summary["pairs"], GAMES / 2);

    // Same games as an uninterrupted run with the same seed.
    let fresh = scratch("resume-fresh");
    run_ok(&match_args(&fresh), Duration::from_secs(120));
    let key = |records: Vec<results::GameRecord>| -> BTreeMap<u64, (u64, String, String, String, String)> {
        records
            .into_iter()
            .map(|r| (r.game, (r.pair, r.red, r.blue, r.red_setup, r.blue_setup)))
            .collect()
    };
    let resumed: Vec<_> = file.records().cloned().collect();
    assert_eq!(key(resumed), key(games(&fresh)));

    // The event log stayed one object per line through the kills.
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let whole = text
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).is_ok())
        .count();
    assert!(whole + 2 >= text.lines().count(), "at most one torn line per kill");
    assert!(text.lines().any(|l| l.contains("\"run-resumed\"")));
}

fn stats_json(dir: &std::path::Path) -> Value {
    let out = std::process::Command::new(arena_bin())
        .args(["stats", "--json", "--player", "a", "--elo0", "0", "--elo1", "2"])
        .args(["--alpha", "0.0001", "--beta", "0.0001"])
        .arg("--from")
        .arg(dir.join("games.csv"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap()
}

#[test]
fn resume_of_a_finished_run_plays_nothing_and_a_new_run_refuses_its_directory() {
    let dir = scratch("resume-done");
    let mut args = strings(&["match", "--quiet", "--games", "4"]);
    args.extend(mock_engine("a", &[]));
    args.extend(mock_engine("b", &[]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    run_ok(&args, Duration::from_secs(60));
    let before = std::fs::read(dir.join("games.csv")).unwrap();

    let out = run_ok(
        &strings(&["match", "--quiet", "--resume", dir.to_str().unwrap()]),
        Duration::from_secs(60),
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("(0 this session)"));
    assert_eq!(std::fs::read(dir.join("games.csv")).unwrap(), before);

    let out = run_arena(&args, Duration::from_secs(60));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already holds a run"));

    let empty = scratch("resume-empty");
    let out = run_arena(
        &strings(&["match", "--resume", empty.to_str().unwrap()]),
        Duration::from_secs(60),
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run to resume"));
}
