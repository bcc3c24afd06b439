//! `arena regress` end to end, on small real git repositories whose
//! "build" is a shell script that installs a script engine: a wrapper
//! that answers `bench` with a fixed node count and otherwise runs the
//! workspace's `leaper` (at depth 2) or the mock engine (random legal
//! moves). A commit that swaps `leaper` for the mock is a weakening the
//! non-regression SPRT must fail; an engine against itself must not fail.
//! Wrong `Bench:` lines, missing refs and broken builds stop the test with
//! exit status 2 and leave no worktree; the ledger keeps one whole row per
//! test through a `kill -9`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use arena::regress::{self, LEDGER_FILE, Verdict};
use common::*;

/// A wrapper engine: `bench` prints `nodes`, anything else runs `program`.
fn engine_script(program: &Path, extra: &str, nodes: u64) -> String {
    format!(
        "#!/bin/sh\nif [ \"$1\" = bench ]; then\n  echo \"position 1: 3 nodes\"\n  echo \"{nodes} nodes 1000 nps\"\n  exit \
         0\nfi\nexec {} {extra}\n",
        program.display()
    )
}

/// The build of every commit: counts itself in `$BUILD_COUNTER` (outside
/// the worktree), sleeps `$BUILD_SLEEP` seconds if set, then installs the
/// engine.
const BUILD_SH: &str = "#!/bin/sh\n[ -n \"$BUILD_COUNTER\" ] && echo built >> \"$BUILD_COUNTER\"\n[ -n \"$BUILD_SLEEP\" \
                        ] && sleep \"$BUILD_SLEEP\"\ncp engine.sh engine && chmod +x engine\n";

/// Writes `files` and commits them with `message`; returns the hash.
fn commit(repo: &Path, files: &[(&str, &str)], message: &str) -> String {
    for (name, text) in files {
        std::fs::write(repo.join(name), text).unwrap();
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", message]);
    git(repo, &["rev-parse", "HEAD"])
}

/// A repository with branches `strong` (leaper, Bench: 5000), `weak` (the
/// mock engine, Bench: 4000) and `random` (the mock, no Bench: line).
fn engine_repo(name: &str) -> PathBuf {
    let dir = scratch(name);
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "strong"]);
    let leaper = engine_script(&leaper_bin(), "", 5000);
    commit(
        &repo,
        &[("build.sh", BUILD_SH), ("engine.sh", &leaper)],
        "The engine: leaper\n\nBench: 5000",
    );
    git(&repo, &["checkout", "-q", "-b", "weak"]);
    let mock = engine_script(&mock_bin(), "", 4000);
    commit(
        &repo,
        &[("engine.sh", &mock)],
        "Play random moves (much faster!)\n\nBench: 4000",
    );
    git(&repo, &["checkout", "-q", "-b", "random"]);
    let mock = engine_script(&mock_bin(), "", 4001);
    commit(&repo, &[("engine.sh", &mock)], "Random moves, another bench");
    git(&repo, &["checkout", "-q", "strong"]);
    repo
}

fn regress_args(repo: &Path, ledger: &Path, dev: &str, base: &str, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&[
        "regress",
        "--quiet",
        "--repo",
        repo.to_str().unwrap(),
        "--dev",
        dev,
        "--base",
        base,
        "--build",
        "sh build.sh",
        "--bin",
        "engine",
        "--ledger",
        ledger.to_str().unwrap(),
        "--each",
        "depth=2",
    ]);
    args.extend(strings(extra));
    args
}

/// Runs the arena with `envs` in `cwd`, at most `limit`.
fn arena_env(args: &[String], envs: &[(&str, &Path)], cwd: &Path, limit: Duration) -> Output {
    let mut command = Command::new(arena_bin());
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        command.env(key, value);
    }
    wait_bounded(command.spawn().expect("arena starts"), limit, "arena regress")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The repository's worktrees besides the main one.
fn extra_worktrees(repo: &Path) -> Vec<String> {
    git(repo, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .filter(|p| Path::new(p) != std::fs::canonicalize(repo).unwrap())
        .map(str::to_owned)
        .collect()
}

/// Test worktree directories of `hash` left in the temporary directory.
fn leftover_dirs(hash: &str) -> Vec<PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("arena-regress-") && name.ends_with(&hash[..12])
        })
        .collect()
}

fn lines_of(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn a_weakening_fails_the_nonregression_test_and_an_engine_does_not_fail_against_itself() {
    let repo = engine_repo("regress-verdicts");
    let ledger = repo.parent().unwrap().join("ledger");
    let counter = repo.parent().unwrap().join("builds.txt");
    let envs = [("BUILD_COUNTER", counter.as_path())];

    // Random moves against leaper: FAILED (exit status 1).
    let args = regress_args(
        &repo,
        &ledger,
        "weak",
        "strong",
        &["--preset", "nonregression", "--concurrency", "2", "--games", "4000"],
    );
    let out = arena_env(&args, &envs, &repo, Duration::from_secs(300));
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("FAILED: weak ("), "{stdout}");
    assert!(
        stderr.contains("bench 4000 nodes, as its commit message says"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bench 5000 nodes, as its commit message says"),
        "{stderr}"
    );
    let rows = regress::read_ledger(&ledger.join(LEDGER_FILE)).unwrap();
    assert_eq!(rows.rows.len(), 1);
    assert!(rows.damaged.is_empty() && !rows.torn);
    let row = &rows.rows[0];
    assert_eq!(row.verdict, Verdict::Failed);
    assert_eq!((row.dev_ref.as_str(), row.base_ref.as_str()), ("weak", "strong"));
    assert_eq!(row.dev_commit, git(&repo, &["rev-parse", "weak"]));
    assert_eq!(row.base_commit, git(&repo, &["rev-parse", "strong"]));
    assert_eq!((row.dev_bench, row.base_bench), (4000, 5000));
    assert_eq!(
        (row.preset.as_str(), row.elo0, row.elo1),
        ("nonregression", -1.75, 0.25)
    );
    assert_eq!(row.tc, "depth=2");
    // The games played: the SPRT's pairs, and at most one game of each
    // pair still being played on the two slots when it decided.
    let paired = row.pentanomial.iter().sum::<u64>() * 2;
    assert!((paired..=paired + 2).contains(&row.games), "{row:?}");
    assert!(row.games < 4000 && row.nelo < 0.0, "{row:?}");
    // The SPRT stopped at its lower bound: log(β / (1 - α)).
    assert!(row.llr <= (0.05f64 / 0.95).ln() + 1e-9, "{row:?}");
    // The run's own record agrees with the row.
    let run_games = games(Path::new(&row.out));
    assert_eq!(run_games.len() as u64, row.games);
    assert_eq!(lines_of(&counter), 2, "both refs built once");
    assert!(extra_worktrees(&repo).is_empty());

    // The same engine against itself: never FAILED; within a budget of 40
    // games it passes or (far more likely) stays inconclusive, exit 0 or 2
    // as the verdict says. (The ledger named relative to the current
    // directory, as by default.)
    let args = regress_args(
        &repo,
        Path::new("ledger"),
        "weak",
        "weak",
        &["--games", "40", "--preset", "-3,1"],
    );
    let out = arena_env(&args, &envs, repo.parent().unwrap(), Duration::from_secs(120));
    let (stdout, stderr) = text(&out);
    let rows = regress::read_ledger(&ledger.join(LEDGER_FILE)).unwrap().rows;
    assert_eq!(rows.len(), 2, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let row = &rows[1];
    let (lower, upper) = ((0.05f64 / 0.95).ln(), (0.95f64 / 0.05).ln());
    match row.verdict {
        Verdict::Passed => assert!(out.status.code() == Some(0) && row.llr >= upper - 1e-9, "{row:?}"),
        Verdict::Inconclusive => {
            assert_eq!(out.status.code(), Some(2), "{stderr}");
            assert_eq!(row.games, 40);
            assert!(lower < row.llr && row.llr < upper, "{row:?}");
        }
        Verdict::Failed => panic!("an engine failed against itself: {row:?}\n{stdout}"),
    }
    assert_eq!((row.preset.as_str(), row.elo0, row.elo1), ("bounds", -3.0, 1.0));
    assert!(stdout.contains(row.verdict.name()), "{stdout}");
    assert!(stderr.contains("cached build"), "{stderr}");
    assert_eq!(lines_of(&counter), 2, "a commit built before is not built again");

    // The history shows both tests.
    let out = run_ok(
        &strings(&["regress", "--history", "--ledger", ledger.to_str().unwrap()]),
        Duration::from_secs(30),
    );
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("FAILED") && stdout.contains(row.verdict.name()),
        "{stdout}"
    );
    assert!(stdout.contains("2 tests in"), "{stdout}");
}

#[test]
fn a_wrong_bench_line_stops_the_test() {
    let repo = engine_repo("regress-bench");
    git(&repo, &["checkout", "-q", "-b", "liar", "weak"]);
    let mock = engine_script(&mock_bin(), "", 4002);
    commit(
        &repo,
        &[("engine.sh", &mock)],
        "Claims a bench it does not have\n\nBench: 4999",
    );
    let ledger = repo.parent().unwrap().join("ledger");
    let out = run_arena(
        &regress_args(&repo, &ledger, "liar", "weak", &["--games", "20"]),
        Duration::from_secs(60),
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        stderr.contains("bench gives 4002 nodes but the commit message says Bench: 4999"),
        "{stderr}"
    );
    assert!(!stdout.contains("PASSED") && !stdout.contains("FAILED"));
    assert!(!ledger.join(LEDGER_FILE).exists(), "a stopped test writes no row");
    assert!(extra_worktrees(&repo).is_empty());
}

#[test]
fn a_missing_ref_or_a_broken_build_is_named_and_leaves_no_worktree() {
    let repo = engine_repo("regress-broken");
    let ledger = repo.parent().unwrap().join("ledger");

    let out = run_arena(
        &regress_args(&repo, &ledger, "no-such-branch", "weak", &[]),
        Duration::from_secs(60),
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ref \"no-such-branch\" does not name a commit"),
        "{stderr}"
    );

    let out = run_arena(
        &regress_args(&repo.join("missing"), &ledger, "weak", "weak", &[]),
        Duration::from_secs(60),
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not a git repository"), "{stderr}");

    let out = run_arena(
        &regress_args(&repo, &ledger, "weak", "weak", &["--preset", "2,0"]),
        Duration::from_secs(60),
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--preset \"2,0\": expected gainer, nonregression or ELO0,ELO1"),
        "{stderr}"
    );

    git(&repo, &["checkout", "-q", "-b", "broken", "weak"]);
    let broken = commit(
        &repo,
        &[(
            "build.sh",
            "#!/bin/sh\necho compiling\necho 'error: expected one of `;` at engine.rs:12' >&2\nexit 3\n",
        )],
        "Break the build",
    );
    let out = run_arena(
        &regress_args(&repo, &ledger, "broken", "weak", &[]),
        Duration::from_secs(60),
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("broken ({}) does not build", &broken[..8])),
        "{stderr}"
    );
    assert!(stderr.contains("exited with status 3"), "{stderr}");
    assert!(
        stderr.contains("error: expected one of `;` at engine.rs:12"),
        "{stderr}"
    );
    assert!(extra_worktrees(&repo).is_empty(), "{:?}", extra_worktrees(&repo));
    assert!(leftover_dirs(&broken).is_empty());

    // A build that leaves no engine where --bin says.
    let mut args = regress_args(&repo, &ledger, "weak", "weak", &[]);
    let bin = args.iter().position(|a| a == "--bin").unwrap();
    args[bin + 1] = "target/nothing".to_owned();
    let out = run_arena(&args, Duration::from_secs(60));
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("there is no engine at target/nothing"), "{stderr}");
    assert!(extra_worktrees(&repo).is_empty());
    assert!(!ledger.join(LEDGER_FILE).exists());
}

/// Waits until `ready` holds, at most `limit`.
fn wait_until(limit: Duration, what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + limit;
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_ledger_and_the_worktrees_survive_kill_9() {
    let repo = engine_repo("regress-kill");
    let ledger = repo.parent().unwrap().join("ledger");
    let path = ledger.join(LEDGER_FILE);
    let quick = regress_args(&repo, &ledger, "random", "weak", &["--games", "10"]);
    run_arena(&quick, Duration::from_secs(60));
    assert_eq!(regress::read_ledger(&path).unwrap().rows.len(), 1);

    // Killed in the middle of its games: no row, and the ledger is whole.
    let out = ledger.join("killed-run");
    let mut args = regress_args(&repo, &ledger, "random", "weak", &["--games", "100000"]);
    args.extend(strings(&["--out", out.to_str().unwrap()]));
    let mut child = spawn_arena(&args);
    wait_until(Duration::from_secs(60), "games of the killed run", || {
        lines_of(&out.join("games.csv")) > 5
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let read = regress::read_ledger(&path).unwrap();
    assert_eq!((read.rows.len(), read.torn, read.damaged.len()), (1, false, 0));

    // Killed while building: its worktree is left, and the next build in
    // the repository removes it.
    git(&repo, &["checkout", "-q", "-b", "slow", "random"]);
    let slow = commit(&repo, &[("notes.txt", "slow\n")], "A commit to build slowly");
    let args = regress_args(&repo, &ledger, "slow", "weak", &["--games", "10"]);
    let mut command = Command::new(arena_bin());
    command
        .args(&args)
        .env("BUILD_SLEEP", "3")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    wait_until(Duration::from_secs(30), "the slow build's worktree", || {
        !extra_worktrees(&repo).is_empty()
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(extra_worktrees(&repo).len(), 1, "kill -9 leaves the worktree");
    // A row torn by a kill in the middle of its write (one write of the
    // whole line makes this all a kill can leave).
    let whole = std::fs::read_to_string(&path).unwrap();
    let torn_row = whole.lines().last().unwrap();
    std::fs::write(&path, format!("{whole}{}", &torn_row[..torn_row.len() / 2])).unwrap();
    let read = regress::read_ledger(&path).unwrap();
    assert_eq!((read.rows.len(), read.torn), (1, true), "a torn row is not counted");
    let history = run_ok(
        &strings(&["regress", "--history", "--ledger", ledger.to_str().unwrap()]),
        Duration::from_secs(30),
    );
    let (stdout, stderr) = text(&history);
    assert!(
        stdout.contains("1 tests in") && stderr.contains("torn"),
        "{stdout}{stderr}"
    );

    let out = run_arena(&args, Duration::from_secs(60));
    assert!(matches!(out.status.code(), Some(0 | 2)), "{:?}", text(&out));
    assert!(extra_worktrees(&repo).is_empty(), "the stale worktree is removed");
    assert!(leftover_dirs(&slow).is_empty());
    let read = regress::read_ledger(&path).unwrap();
    assert_eq!((read.rows.len(), read.torn, read.damaged.len()), (2, false, 0));
    assert_eq!(read.rows[1].dev_ref, "slow");
    assert!(std::fs::read_to_string(&path).unwrap().ends_with('\n'));
}
