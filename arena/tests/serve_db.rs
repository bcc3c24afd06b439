//! `arena serve --db` end to end, with a real PostgreSQL and real `arena`
//! processes: `arena match --db --detach` creates runs of the mock engine,
//! `arena worker --idle-exit` plays them, and the real server, started on
//! the database alone and on the database and a local run directory,
//! lists the database's runs over HTTP with the figures of `arena
//! export`'s `summary.json` and the state of the database, follows a run
//! created while it serves from `running` to `finished`, and replays its
//! games with the moves of the exported `games.csv`. A bad `--db` URL is a
//! clear error that never shows the password.

mod common;
mod db_common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Killed, agent, arena_bin, games, mock_engine, run_arena, run_ok, scratch, strings, summary};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(120);

fn get_json(agent: &ureq::Agent, url: &str) -> Value {
    let mut response = agent.get(url).call().unwrap_or_else(|e| panic!("GET {url}: {e}"));
    assert_eq!(response.status().as_u16(), 200, "GET {url}");
    let body = response.body_mut().read_to_string().expect("body");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {url}: not JSON ({e}): {body}"))
}

/// Creates a run of `games` games between two mock engines with
/// `--detach`; returns its id from the `run <ID>` line.
fn create(url: &str, games: u64) -> i64 {
    let mut args = strings(&["match", "--db", url, "--quiet", "--games", &games.to_string()]);
    args.extend(mock_engine("a", &[]));
    args.extend(mock_engine("b", &["args=--seed 7"]));
    args.extend(strings(&["--each", "depth=1", "--detach"]));
    let out = run_ok(&args, LIMIT);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .next()
        .and_then(|l| l.strip_prefix("run "))
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the first line is not `run <ID>`: {text:?}"))
}

/// Plays every batch of the database with one worker that exits when
/// there is nothing left.
fn work(url: &str, cache: &Path) {
    let mut args = strings(&["worker", "--db", url, "--name", "w1", "--idle-exit", "--cache"]);
    args.push(cache.to_str().unwrap().to_owned());
    run_ok(&args, LIMIT);
}

/// Exports run `id` into `out` with `arena export`.
fn export(url: &str, id: i64, out: &Path) {
    run_ok(
        &strings(&["export", "--db", url, &id.to_string(), "--out", out.to_str().unwrap()]),
        LIMIT,
    );
}

/// Starts `arena serve` with `args` on a free loopback port; returns the
/// process, the base URL and the lines it printed about its runs.
fn start_server(args: &[String]) -> (Killed, String, Vec<String>) {
    let mut child = Command::new(arena_bin())
        .arg("serve")
        .args(args)
        .args(["--addr", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("arena serve starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).expect("first line");
    let url = line
        .trim()
        .strip_prefix("serving on ")
        .unwrap_or_else(|| panic!("arena serve's first line: {line:?}"))
        .to_owned();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // The run lines are printed right after the first.
    std::thread::sleep(Duration::from_millis(200));
    let lines = rx.try_iter().collect();
    (Killed(child), url, lines)
}

/// The cache directories of the server with process id `pid`.
fn caches_of(pid: u32) -> Vec<std::path::PathBuf> {
    let prefix = format!("arena-serve-db-{pid}-");
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// The entry of database run `id` in the list of runs.
fn db_entry(runs: &Value, id: i64) -> Option<Value> {
    runs.as_array()?.iter().find(|r| r["db_run"] == id).cloned()
}

/// Checks that the server shows run `id` as exported into `out`: the
/// figures of `summary.json`, the state, and every game with its moves.
fn check_served(agent: &ureq::Agent, base: &str, id: i64, out: &Path, state: &str) {
    let runs = get_json(agent, &format!("{base}api/runs"));
    let entry = db_entry(&runs, id).unwrap_or_else(|| panic!("run {id} is not listed: {runs}"));
    assert_eq!(entry["state"], state, "{entry}");
    assert_eq!(entry["summary"], summary(out), "the figures of summary.json");
    assert_eq!(entry["name"], format!("db-{id}"));
    assert_eq!(entry["mode"], "match");
    let index = entry["index"].as_u64().expect("index");
    let details = get_json(agent, &format!("{base}api/run/{index}"));
    assert_eq!(details["summary"], summary(out));
    let records = games(out);
    assert!(!records.is_empty());
    assert_eq!(
        details["games_listed"].as_array().map(Vec::len),
        Some(records.len()),
        "every game listed"
    );
    for record in &records {
        let game = get_json(agent, &format!("{base}api/run/{index}/game/{}", record.game));
        let moves: Vec<&str> = game["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["text"].as_str().expect("move text"))
            .collect();
        assert_eq!(moves, record.moves, "game {} moves", record.game);
        assert_eq!(game["result"], record.result.as_str());
        assert_eq!(game["error"], Value::Null, "the rules accept game {}", record.game);
    }
    let status = agent
        .get(&format!("{base}api/run/{index}/game/999999"))
        .call()
        .expect("GET")
        .status()
        .as_u16();
    assert_eq!(status, 404, "no such game");
}

#[test]
fn database_runs_are_served_with_the_figures_and_games_of_their_export() {
    let Some(test_db) = db_common::fresh("serve_db") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("serve-db");
    let cache = dir.join("engines");
    let agent = agent();

    // A run played to its end before the server starts.
    let first = create(url, 6);
    work(url, &cache);
    let first_out = dir.join("first");
    export(url, first, &first_out);

    let (server, base, lines) = start_server(&strings(&["--db", url]));
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("db-{first}")) && l.contains("run 0:")),
        "{lines:?}"
    );
    check_served(&agent, &base, first, &first_out, "finished");

    // A run created while the server runs joins the list as running, and
    // is followed to its end.
    let second = create(url, 4);
    let deadline = Instant::now() + LIMIT;
    let running = loop {
        let runs = get_json(&agent, &format!("{base}api/runs"));
        if let Some(entry) = db_entry(&runs, second) {
            break entry;
        }
        assert!(Instant::now() < deadline, "run {second} never listed: {runs}");
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(running["state"], "running", "{running}");
    assert_eq!(running["summary"]["games"], 0);
    work(url, &cache);
    let second_out = dir.join("second");
    export(url, second, &second_out);
    loop {
        let runs = get_json(&agent, &format!("{base}api/runs"));
        let entry = db_entry(&runs, second).expect("still listed");
        if entry["state"] == "finished" {
            break;
        }
        assert!(Instant::now() < deadline, "run {second} never shown finished: {entry}");
        std::thread::sleep(Duration::from_millis(300));
    }
    check_served(&agent, &base, second, &second_out, "finished");
    let pid = server.0.id();
    assert_eq!(caches_of(pid).len(), 1, "one cache directory while serving");
    for cache in caches_of(pid) {
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&cache).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o700, "{}", cache.display());
    }
    // Killed, it cannot remove its cache: the next server does.
    drop(server);
    assert_eq!(caches_of(pid).len(), 1);

    // With a local run directory too: it comes first, the database's after.
    let local = dir.join("local");
    let mut args = strings(&["match", "--quiet", "--games", "2"]);
    args.extend(mock_engine("x", &[]));
    args.extend(mock_engine("y", &["args=--seed 3"]));
    args.extend(strings(&["--each", "depth=1", "--out", local.to_str().unwrap()]));
    run_ok(&args, LIMIT);
    let (_server, base, lines) = start_server(&[local.to_str().unwrap().to_owned(), "--db".to_owned(), url.clone()]);
    assert!(lines.iter().any(|l| l.contains("run 0: local")), "{lines:?}");
    assert!(caches_of(pid).is_empty(), "the cache of a server gone is removed");
    let runs = get_json(&agent, &format!("{base}api/runs"));
    assert_eq!(runs.as_array().map(Vec::len), Some(3), "{runs}");
    assert_eq!(runs[0]["name"], "local");
    assert_eq!(runs[0]["db_run"], Value::Null);
    assert_eq!(runs[0]["summary"], summary(&local));
    check_served(&agent, &base, first, &first_out, "finished");
    check_served(&agent, &base, second, &second_out, "finished");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_database_url_is_a_clear_error_without_its_password() {
    // Nothing listens on port 1 of loopback: the connection is refused.
    let out = run_arena(
        &strings(&[
            "serve",
            "--db",
            "postgres://ann:s3cret@127.0.0.1:1/runs",
            "--addr",
            "127.0.0.1:0",
        ]),
        LIMIT,
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("postgres://ann:***@127.0.0.1:1/runs"), "{stderr}");
    assert!(stderr.contains("cannot connect"), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("s3cret"), "{stdout}");

    // Neither a directory nor --db: clap says what is missing.
    let out = run_arena(&strings(&["serve", "--addr", "127.0.0.1:0"]), LIMIT);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("DIR"));
}
