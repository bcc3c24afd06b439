//! The arena against engines that misbehave at the process level (issues
//! 18 and 16.2), with real processes: the mock engine in its flooding,
//! repeating and `ponder (none)` modes, and the shell wrappers in
//! `tests/engines/` (an engine that dies while a helper holds its stdout, an
//! engine that ignores `quit` and `SIGTERM` and leaves helpers behind).
//! Every process a wrapper starts carries a marker unique to its test in
//! its environment, so a test can scan `/proc` for leftovers; leftovers are
//! killed before a test fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;
use results::Termination;

/// A shell wrapper engine from `tests/engines/`.
fn wrapper(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines").join(name)
}

/// A marker unique to this test process and `name`.
fn marker(name: &str) -> String {
    format!("arena-faults-{}-{name}", std::process::id())
}

/// Starts the arena with `args`; wrapper engines find the mock engine and
/// their marker in the environment.
fn spawn_marked(args: &[String], marker: &str) -> Child {
    Command::new(arena_bin())
        .args(args)
        .env("MOCK_ENGINE", mock_bin())
        .env("ORPHAN_MARKER", marker)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena starts")
}

/// The ids of the live processes whose environment holds `marker`.
fn marked(marker: &str) -> Vec<u32> {
    let needle = format!("ORPHAN_MARKER={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == needle.as_bytes()))
        })
        .collect()
}

/// The process group of `pid`, from `/proc/<pid>/stat`.
fn group_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command (which may hold spaces) : state ppid pgrp.
    stat.rsplit_once(')')?.1.split_whitespace().nth(2)?.parse().ok()
}

/// Waits up to two seconds for every process with `marker` to be gone;
/// kills the ones that remain and fails, naming them.
#[track_caller]
fn assert_no_leftovers(marker: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = marked(marker);
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            let names: Vec<String> = left
                .iter()
                .map(|pid| {
                    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    format!("{pid}: {}", String::from_utf8_lossy(&cmd).replace('\0', " "))
                })
                .collect();
            for pid in &left {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            }
            panic!(
                "{what}: {} processes outlived their engine:\n{}",
                left.len(),
                names.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `--engine` tokens for a wrapper engine.
fn wrapped_engine(name: &str, script: &str, extra: &[&str]) -> Vec<String> {
    let mut tokens = vec![
        "--engine".to_owned(),
        format!("cmd={}", wrapper(script).display()),
        format!("name={name}"),
    ];
    tokens.extend(extra.iter().map(|s| (*s).to_owned()));
    tokens
}

fn check_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The VmHWM (peak resident memory) of a live process, in kB.
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_flooding_engine_keeps_the_arena_under_256_mb() {
    // 300 MB of short lines before the first answer, while the arena
    // waits for it.
    let dir = scratch("flood");
    let mut args = strings(&["match", "--quiet", "--games", "2"]);
    args.extend(mock_engine("good", &[]));
    args.extend(mock_engine("flood", &["args=--mode flood --flood-mb 300"]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let mut child = spawn_marked(&args, &marker("flood"));
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut peak = 0;
    while child.try_wait().expect("wait").is_none() {
        if let Some(kb) = peak_rss_kb(pid) {
            peak = peak.max(kb);
        }
        assert!(Instant::now() < deadline, "the flooded match took over 120 s");
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    check_success(&out, "the flooded match");
    eprintln!(
        "peak resident memory of the arena under a 300 MB flood: {} MB",
        peak / 1024
    );
    assert!(
        peak < 256 * 1024,
        "the arena's peak resident memory was {} MB",
        peak / 1024
    );
    let records = games(&dir);
    assert_eq!(records.len(), 2, "both games are recorded");
    assert!(records.iter().all(|r| !r.termination.is_forfeit()), "{records:?}");
    replay_ok(&dir);
}

#[track_caller]
fn assert_no_forfeits(dir: &Path, count: usize) {
    let records = games(dir);
    assert_eq!(records.len(), count);
    for r in &records {
        assert!(
            !r.termination.is_forfeit(),
            "game {} ended {}: {r:?}",
            r.game,
            r.termination
        );
    }
    let failures: Vec<_> = events(dir)
        .into_iter()
        .filter(|e| e["event"] == "engine-failure")
        .collect();
    assert!(failures.is_empty(), "{failures:?}");
    replay_ok(dir);
}

#[test]
fn a_repeated_bestmove_is_never_the_answer_to_the_next_go() {
    // The copy at once, before the arena sends the next `go`.
    let dir = good_against_bad("twice", &["args=--mode twice"], &["depth=1"], 4);
    assert_no_forfeits(&dir, 4);
    // The copy 20 ms later, after the next `go` has gone out (the good
    // engine answers at once).
    let dir = good_against_bad("twice-late", &["args=--mode twice --delay-ms 20"], &["depth=1"], 4);
    assert_no_forfeits(&dir, 4);
}

#[test]
fn bestmove_with_ponder_none_is_a_move() {
    let dir = good_against_bad("ponder-none", &["args=--mode ponder-none"], &["depth=1"], 2);
    assert_no_forfeits(&dir, 2);
}

#[test]
fn a_time_forfeit_restarts_the_engine_so_its_late_answer_is_never_taken() {
    // From its third search on, the bad engine answers 300 ms late under a
    // 50 ms move time: a time forfeit; its late `bestmove` would answer the
    // next `go`, but the engine is killed and a fresh one plays the next
    // game.
    let dir = good_against_bad(
        "late-after-forfeit",
        &["args=--mode slow --after 3 --delay-ms 300"],
        &["movetime=50"],
        4,
    );
    let records = games(&dir);
    assert_eq!(records.len(), 4);
    for r in &records {
        assert_eq!(r.termination, Termination::TimeForfeit, "{r:?}");
    }
    let starts = events(&dir)
        .into_iter()
        .filter(|e| e["event"] == "engine-started" && e["engine"] == "bad")
        .count();
    assert_eq!(starts, 4, "one fresh process per game");
    replay_ok(&dir);
}

#[test]
fn an_engine_that_dies_while_a_child_holds_its_stdout_crashes_at_once() {
    let dir = scratch("dies-holding-stdout");
    let mark = marker("dies-holding-stdout");
    let mut args = strings(&["match", "--quiet", "--games", "2"]);
    args.extend(mock_engine("good", &[]));
    args.extend(wrapped_engine(
        "bad",
        "dies-holding-stdout.sh",
        &["args=--mode crash --after 2"],
    ));
    args.extend(strings(&["--each", "tc=8+0.1", "--out", dir.to_str().unwrap()]));
    let start = Instant::now();
    let out = wait_bounded(spawn_marked(&args, &mark), Duration::from_secs(60), "the match");
    let took = start.elapsed();
    check_success(&out, "the match");
    assert_no_leftovers(&mark, "a crashed engine's helper");
    let records = games(&dir);
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!(r.termination, Termination::Crash, "{r:?}");
        let bad_ms = if r.red == "bad" { r.red_ms } else { r.blue_ms };
        assert!(bad_ms < 1000, "the dead engine's clock was charged {bad_ms} ms: {r:?}");
    }
    let failures: Vec<_> = events(&dir)
        .into_iter()
        .filter(|e| e["event"] == "engine-failure")
        .collect();
    assert_eq!(failures.len(), 2);
    for f in &failures {
        assert_eq!(f["kind"], "crash", "{f}");
        assert!(f["detail"].as_str().unwrap().contains("signal"), "{f}");
    }
    // Two clocks of 8 s were not waited out.
    assert!(took < Duration::from_secs(8), "{took:?}");
    replay_ok(&dir);
}

#[test]
fn no_engine_helper_outlives_a_match_or_a_gauntlet() {
    let mark = marker("match");
    let dir = scratch("orphans-match");
    let mut args = strings(&["match", "--quiet", "--games", "2"]);
    args.extend(wrapped_engine("a", "orphaning.sh", &[]));
    args.extend(wrapped_engine("b", "orphaning.sh", &[]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let out = wait_bounded(spawn_marked(&args, &mark), Duration::from_secs(60), "the match");
    check_success(&out, "the match");
    assert_eq!(games(&dir).len(), 2);
    assert_no_leftovers(&mark, "after a match");

    let mark = marker("gauntlet");
    let dir = scratch("orphans-gauntlet");
    let mut args = strings(&["gauntlet", "--quiet", "--games", "2", "--concurrency", "2"]);
    args.extend(wrapped_engine("a", "orphaning.sh", &[]));
    args.extend(mock_engine("b", &[]));
    args.extend(wrapped_engine("c", "orphaning.sh", &["args=--seed 5"]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let out = wait_bounded(spawn_marked(&args, &mark), Duration::from_secs(60), "the gauntlet");
    check_success(&out, "the gauntlet");
    assert_eq!(games(&dir).len(), 4);
    assert_no_leftovers(&mark, "after a gauntlet");
}

#[test]
fn no_engine_helper_outlives_a_tuning_run() {
    let mark = marker("tune");
    let dir = scratch("orphans-tune");
    let params = dir.join("params.txt");
    std::fs::write(&params, "Seed, int, 500, 0, 1000, 50, 0.002\n").unwrap();
    let args = strings(&[
        "tune",
        "--quiet",
        "--engine",
        &format!("cmd={}", wrapper("orphaning.sh").display()),
        "--each",
        "depth=1",
        "--params",
        params.to_str().unwrap(),
        "--games",
        "4",
        "--out",
        dir.join("run").to_str().unwrap(),
    ]);
    let out = wait_bounded(spawn_marked(&args, &mark), Duration::from_secs(60), "the tuning run");
    check_success(&out, "the tuning run");
    assert_no_leftovers(&mark, "after a tuning run");
}

/// Starts a long match of two orphaning engines answering every 20 ms and
/// waits until both are running; returns the arena and its run directory.
fn long_orphaning_match(name: &str, mark: &str) -> (Child, PathBuf) {
    let dir = scratch(name);
    let mut args = strings(&["match", "--quiet", "--games", "200"]);
    args.extend(wrapped_engine("a", "orphaning.sh", &["args=--delay-ms 20"]));
    args.extend(wrapped_engine("b", "orphaning.sh", &["args=--delay-ms 20"]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let child = spawn_marked(&args, mark);
    let deadline = Instant::now() + Duration::from_secs(20);
    // Each engine: the wrapper, its helper and the helper's sleep, the mock.
    while marked(mark).len() < 8 {
        assert!(Instant::now() < deadline, "the engines did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, dir)
}

/// The `game-started` and `game-finished` events in an event log.
fn started_and_finished(log: &str) -> (usize, usize) {
    let count = |event: &str| log.matches(&format!("\"event\":\"{event}\"")).count();
    (count("game-started"), count("game-finished"))
}

#[test]
fn ctrl_c_of_the_arena_ends_every_engine_and_its_helpers() {
    let mark = marker("ctrl-c");
    let (child, dir) = long_orphaning_match("orphans-ctrl-c", &mark);
    let pid = child.id();
    let status = Command::new("kill").arg("-INT").arg(pid.to_string()).status().unwrap();
    assert!(status.success());
    let out = wait_bounded(child, Duration::from_secs(10), "the interrupted arena");
    assert_eq!(
        out.status.code(),
        Some(130),
        "an interrupted run exits as a shell's Ctrl-C does"
    );
    assert_no_leftovers(&mark, "after Ctrl-C");
    // No game starts once the arena is stopping: at most the one game in
    // flight (one slot) is started and not finished, where the games left
    // of the 200 used to be logged as started and abandoned at once.
    let log = std::fs::read_to_string(dir.join("events.jsonl")).expect("events.jsonl");
    let (started, finished) = started_and_finished(&log);
    assert!(started >= 1, "{log}");
    assert!(started <= finished + 1, "{started} games started, {finished} finished");
}

/// Ctrl-C in a match of engines that end at `SIGTERM`: the game in flight
/// is abandoned at once, which frees its slot, and no game of the rest of
/// the schedule is started (each was logged as started and abandoned at
/// once, hundreds in the handler's last milliseconds).
#[test]
fn ctrl_c_starts_no_more_games() {
    let dir = scratch("ctrl-c-no-more-games");
    let out = interrupt_after_first_game(&dir, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(130));
    let read_log = || std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
    let (started, finished) = started_and_finished(&read_log());
    assert!(
        started <= finished + 1,
        "{started} games started, {finished} finished, with one slot"
    );
    assert!(finished < 5000, "the run was interrupted before its end");
    // It prints the standings of the games it recorded, says it was
    // interrupted, and leaves a summary of exactly those games.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let recorded = std::fs::read_to_string(dir.join("games.csv"))
        .expect("games.csv")
        .lines()
        .count()
        - 1;
    assert!(
        recorded >= 1 && recorded <= finished,
        "{recorded} rows, {finished} finished"
    );
    assert!(stdout.contains(&format!("Games: {recorded},")), "{stdout}");
    assert!(stdout.contains("interrupted"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary.json")).unwrap();
    assert_eq!(summary["games"], recorded, "{summary}");
}

#[test]
fn a_killed_engine_takes_its_helpers_with_it() {
    let mark = marker("kill-9");
    let (child, _) = long_orphaning_match("orphans-kill-9", &mark);
    let arena = child.id();
    // The engines' wrappers are the arena's children, each leading its
    // group.
    let leader = marked(&mark)
        .into_iter()
        .find(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| s.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse::<u32>().ok())
                == Some(arena)
        })
        .expect("an engine of the arena");
    let group = group_of(leader).expect("its group");
    let in_group = || {
        marked(&mark)
            .into_iter()
            .filter(|&p| group_of(p) == Some(group))
            .count()
    };
    assert!(in_group() >= 3, "the wrapper, its helper, the mock");
    let status = Command::new("kill").arg("-9").arg(leader.to_string()).status().unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(3);
    while in_group() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = in_group();
    let _ = Command::new("kill").arg("-INT").arg(arena.to_string()).status();
    let _ = wait_bounded(child, Duration::from_secs(10), "the arena");
    assert_no_leftovers(&mark, "after the run");
    assert_eq!(
        left, 0,
        "processes of the killed engine's group still ran 3 s after the kill"
    );
}
