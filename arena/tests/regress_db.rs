//! `arena regress --db` end to end, with a real PostgreSQL, a real `arena
//! worker` process and a small real git repository whose "build" is a
//! shell script that installs a script engine (a wrapper that answers
//! `bench` with a fixed node count and otherwise runs the workspace's
//! `leaper` at depth 2, or the mock engine's random moves). A commit that
//! swaps `leaper` for the mock must FAIL the non-regression SPRT, played
//! as a database run by the worker; the verdict lands as one row of the
//! database's `regress_ledger`, whose figures are the run's own, and
//! `arena regress --history --db` prints it.

mod common;
mod db_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arena::db::{self, RunState};
use arena::regress::{self, LEDGER_FILE, Verdict};
use common::{arena_bin, git, leaper_bin, mock_bin, run_ok, scratch, strings, wait_bounded};
use results::Decision;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(300);

/// A wrapper engine: `bench` prints `nodes`, anything else runs `program`.
fn engine_script(program: &Path, nodes: u64) -> String {
    format!(
        "#!/bin/sh\nif [ \"$1\" = bench ]; then\n  echo \"{nodes} nodes 1000 nps\"\n  exit 0\nfi\nexec {}\n",
        program.display()
    )
}

/// Writes `files` and commits them with `message`.
fn commit(repo: &Path, files: &[(&str, &str)], message: &str) {
    for (name, text) in files {
        std::fs::write(repo.join(name), text).unwrap();
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", message]);
}

/// A repository with branches `strong` (leaper, Bench: 5000) and `weak`
/// (the mock engine, Bench: 4000).
fn engine_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "strong"]);
    let build = "#!/bin/sh\ncp engine.sh engine && chmod +x engine\n";
    commit(
        &repo,
        &[("build.sh", build), ("engine.sh", &engine_script(&leaper_bin(), 5000))],
        "The engine: leaper\n\nBench: 5000",
    );
    git(&repo, &["checkout", "-q", "-b", "weak"]);
    commit(
        &repo,
        &[("engine.sh", &engine_script(&mock_bin(), 4000))],
        "Play random moves (much faster!)\n\nBench: 4000",
    );
    git(&repo, &["checkout", "-q", "strong"]);
    repo
}

/// The runs in the database.
fn run_ids(url: &str) -> Vec<i64> {
    let mut client = db::connect(url, &db::PgEnv::default()).expect("connect");
    db::runs(&mut client).expect("runs").iter().map(|r| r.id).collect()
}

#[test]
fn a_weakening_fails_as_a_database_run_and_the_verdict_is_a_row_of_the_database_ledger() {
    let Some(test_db) = db_common::fresh("regress_db") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("regress-db");
    let repo = engine_repo(&dir);
    let ledger = dir.join("ledger");

    // The history of a new database is empty.
    let out = run_ok(&strings(&["regress", "--history", "--db", url]), LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(stdout.contains("no tests yet"), "{stdout}");

    let mut args = strings(&[
        "regress",
        "--quiet",
        "--db",
        url,
        "--repo",
        repo.to_str().unwrap(),
        "--dev",
        "weak",
        "--base",
        "strong",
        "--build",
        "sh build.sh",
        "--bin",
        "engine",
        "--ledger",
        ledger.to_str().unwrap(),
        "--each",
        "depth=2",
        "--preset",
        "nonregression",
        "--games",
        "4000",
    ]);
    let regress_child = Command::new(arena_bin())
        .args(&args)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena regress starts");

    // The worker starts once the run exists (with --idle-exit it would
    // otherwise leave at once).
    let deadline = Instant::now() + LIMIT;
    let id = loop {
        if let Some(&id) = run_ids(url).first() {
            break id;
        }
        assert!(Instant::now() < deadline, "arena regress created no run");
        std::thread::sleep(Duration::from_millis(100));
    };
    let worker = Command::new(arena_bin())
        .args([
            "worker",
            "--db",
            url,
            "--name",
            "w-regress",
            "--idle-exit",
            "--concurrency",
            "2",
            "--cache",
        ])
        .arg(dir.join("engines"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena worker starts");

    let out = wait_bounded(regress_child, LIMIT, "arena regress --db");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let worker_out = wait_bounded(worker, LIMIT, "arena worker");
    let worker_text = String::from_utf8_lossy(&worker_out.stdout).into_owned();
    assert!(
        worker_out.status.success(),
        "{worker_text}\n{}",
        String::from_utf8_lossy(&worker_out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("FAILED: weak ("), "{stdout}");
    assert!(stdout.contains(&format!("games in run {id}")), "{stdout}");
    assert!(
        stderr.contains("bench 4000 nodes, as its commit message says")
            && stderr.contains("bench 5000 nodes, as its commit message says"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("as run {id} in the database")), "{stderr}");
    assert!(worker_text.contains(&format!("run {id} batch")), "{worker_text}");
    // The ledger is the database's: no CSV ledger, no local run directory.
    assert!(!ledger.join(LEDGER_FILE).exists());
    assert!(!ledger.join("runs").exists());

    // The run ended at the SPRT's H0.
    let mut client = db::connect(url, &db::PgEnv::default()).expect("connect");
    let run = db::run_of(&mut client, id).expect("the run");
    assert_eq!(run.state, RunState::Sprt(Decision::AcceptH0));
    assert_eq!(run_ids(url), vec![id], "one run");

    // One row, with the verdict and the run's figures as `arena export`
    // writes them.
    let rows = regress::read_ledger_db(&mut client).expect("the ledger");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    eprintln!("the row: {row:?}");
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
    assert_eq!(row.out, format!("db run {id}"));
    let export = dir.join("export");
    run_ok(
        &strings(&[
            "export",
            "--db",
            url,
            &id.to_string(),
            "--out",
            export.to_str().unwrap(),
        ]),
        LIMIT,
    );
    let summary: Value = serde_json::from_slice(&std::fs::read(export.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["games"].as_u64(), Some(row.games), "{summary}");
    let pentanomial: Vec<u64> = summary["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(pentanomial, row.pentanomial.to_vec(), "{summary}");
    assert_eq!(row.pentanomial.iter().sum::<u64>() * 2, row.games);
    for (key, value) in [
        ("nelo", row.nelo),
        ("nelo_ci95", row.nelo_ci95),
        ("elo", row.elo),
        ("llr", row.llr),
    ] {
        let exported = summary[key].as_f64().unwrap();
        assert!(
            (exported - value).abs() <= 1e-9 * (1.0 + value.abs()),
            "{key}: {exported} vs {value}"
        );
    }
    assert_eq!(summary["decision"], "accept-h0");
    assert!(row.games < 4000 && row.nelo < 0.0, "{row:?}");
    // The SPRT stopped at its lower bound: log(β / (1 - α)).
    assert!(row.llr <= (0.05f64 / 0.95).ln() + 1e-9, "{row:?}");

    // The history prints the row.
    let out = run_ok(&strings(&["regress", "--history", "--db", url]), LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = stdout
        .lines()
        .find(|l| l.contains("FAILED"))
        .unwrap_or_else(|| panic!("no FAILED row: {stdout}"));
    assert!(
        line.contains(&format!("weak ({})", &row.dev_commit[..8]))
            && line.contains(&format!("strong ({})", &row.base_commit[..8]))
            && line.contains(&row.games.to_string()),
        "{stdout}"
    );
    assert!(stdout.contains("1 tests in the regress_ledger table"), "{stdout}");

    // --out is for local runs only.
    args.extend(strings(&["--out", dir.join("x").to_str().unwrap()]));
    let out = common::run_arena(&args, LIMIT);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out"));
}

#[test]
fn an_unreachable_database_stops_the_test_before_any_build_and_hides_the_password() {
    let dir = scratch("regress-db-unreachable");
    let repo = engine_repo(&dir);
    let cache = dir.join("cache");
    let args = strings(&[
        "regress",
        "--db",
        "postgres://ann:s3cret@127.0.0.1:1/x",
        "--repo",
        repo.to_str().unwrap(),
        "--dev",
        "weak",
        "--base",
        "strong",
        "--build",
        "sh build.sh",
        "--bin",
        "engine",
        "--cache",
        cache.to_str().unwrap(),
    ]);
    let out = common::run_arena(&args, LIMIT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ann:***@127.0.0.1:1") && !stderr.contains("s3cret"),
        "{stderr}"
    );
    assert!(!cache.exists(), "nothing was built");
    let out = common::run_arena(
        &strings(&["regress", "--history", "--db", "postgres://ann:s3cret@127.0.0.1:1/x"]),
        LIMIT,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
}
