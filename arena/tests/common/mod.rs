//! Helpers shared by the arena's end-to-end tests: the binaries (the
//! arena, the mock engine, the workspace's `leaper`), scratch directories,
//! running the arena with a bound on its time, and reading its output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use results::{GameRecord, read_record_file};
use serde_json::Value;

/// The keys of `arena stats --json`, which `summary.json` begins with.
pub const STATS_KEYS: [&str; 11] = [
    "games",
    "pairs",
    "elo",
    "elo_ci95",
    "nelo",
    "nelo_ci95",
    "los",
    "llr",
    "lower_bound",
    "upper_bound",
    "decision",
];

/// The arena binary under test.
pub fn arena_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_arena"))
}

/// The scripted mock engine.
pub fn mock_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mock-engine"))
}

/// The workspace's `leaper`, next to this test's executable
/// (`target/<profile>/deps/..`); `cargo test --workspace` builds it.
pub fn leaper_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe.parent().and_then(Path::parent).expect("target/<profile>");
    let path = dir.join("leaper");
    assert!(
        path.exists(),
        "{} is missing: run the tests with `cargo test --workspace` (or `cargo build -p leaper-cli` first)",
        path.display()
    );
    path
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Starts the arena with `args`, output captured.
pub fn spawn_arena(args: &[String]) -> Child {
    Command::new(arena_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena starts")
}

/// Starts a long match of two mock engines into `out` (5,000 games, one
/// slot), sends it SIGINT (Ctrl-C) once its first game has finished, and
/// returns its output after it exits (within `limit`).
pub fn interrupt_after_first_game(out: &Path, limit: Duration) -> Output {
    let mut args = strings(&["match", "--quiet", "--games", "5000"]);
    args.extend(mock_engine("a", &["args=--delay-ms 2"]));
    args.extend(mock_engine("b", &["args=--delay-ms 2"]));
    args.extend(strings(&["--each", "depth=1", "--out", out.to_str().unwrap()]));
    let child = spawn_arena(&args);
    let log = out.join("events.jsonl");
    let deadline = Instant::now() + limit;
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("\"event\":\"game-finished\"")
    {
        assert!(Instant::now() < deadline, "no game finished in {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    wait_bounded(child, limit, "the interrupted arena")
}

/// Waits for `child` at most `limit`; kills it and fails the test if it
/// takes longer.
pub fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait().expect("wait") {
            Some(_) => return child.wait_with_output().expect("output"),
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let out = child.wait_with_output().expect("output");
                panic!(
                    "{what} took more than {limit:?}\nstdout:\n{}\nstderr:\n{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Runs the arena to its end within `limit`.
pub fn run_arena(args: &[String], limit: Duration) -> Output {
    let what = format!("arena {}", args.join(" "));
    wait_bounded(spawn_arena(args), limit, &what)
}

/// Runs the arena and insists on success.
pub fn run_ok(args: &[String], limit: Duration) -> Output {
    let out = run_arena(args, limit);
    assert!(
        out.status.success(),
        "arena {} failed\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Strings from string slices.
pub fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

/// `--engine` tokens for the mock engine with `extra` keys.
pub fn mock_engine(name: &str, extra: &[&str]) -> Vec<String> {
    let mut tokens = vec![
        "--engine".to_owned(),
        format!("cmd={}", mock_bin().display()),
        format!("name={name}"),
    ];
    tokens.extend(extra.iter().map(|s| (*s).to_owned()));
    tokens
}

/// Plays `games` games of a good instant mock against a mock with `bad`
/// keys, both under `each`, and returns the output directory.
pub fn good_against_bad(name: &str, bad: &[&str], each: &[&str], games: u64) -> PathBuf {
    let dir = scratch(name);
    let mut args = strings(&["match", "--quiet", "--games", &games.to_string(), "--concurrency", "2"]);
    args.extend(mock_engine("good", &[]));
    args.extend(mock_engine("bad", bad));
    args.push("--each".to_owned());
    args.extend(strings(each));
    args.extend(strings(&["--out", dir.to_str().unwrap()]));
    run_ok(&args, Duration::from_secs(60));
    dir
}

/// The games recorded in `dir/games.csv`, with no damaged row.
pub fn games(dir: &Path) -> Vec<GameRecord> {
    let file = read_record_file(dir.join("games.csv")).expect("games.csv reads");
    assert!(file.damaged.is_empty(), "damaged rows: {:?}", file.damaged);
    file.records().cloned().collect()
}

/// `dir/summary.json`.
pub fn summary(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// Every line of `dir/events.jsonl`, parsed (each must be a whole object).
pub fn events(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).expect("events.jsonl");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad event line {l:?}: {e}")))
        .collect()
}

/// Checks `dir/games.csv` with `leaper replay`: every move legal, every
/// result and termination consistent with the moves.
pub fn replay_ok(dir: &Path) {
    let out = Command::new(leaper_bin())
        .arg("replay")
        .arg(dir.join("games.csv"))
        .output()
        .expect("leaper replay runs");
    assert!(
        out.status.success(),
        "leaper replay failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `git -C repo` with a fixed author and returns its output, trimmed;
/// a failing command fails the test with git's message.
pub fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=Tester", "-c", "user.email=tester@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A child process that is killed when the test is done with it (servers
/// and chromedriver run until told to stop).
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An HTTP client that returns 4xx and 5xx answers instead of failing.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}
