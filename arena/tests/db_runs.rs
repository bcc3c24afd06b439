//! Database runs end to end, with a real PostgreSQL and real `arena`
//! processes: `arena match --db` creates a run and follows it, `arena
//! worker`s on it play the games with mock engines, `arena status` and
//! `arena export` show it; and the faults a run must survive: a worker
//! killed (`kill -9`) in the middle of a batch, a worker frozen
//! (`SIGSTOP`) past its lease and then resumed, and an engine whose stored
//! bytes do not match its hash. After each, the run's figures (from the
//! database) equal those `arena stats --from` computes from its exported
//! `games.csv`, which holds every game once.

mod common;
mod db_common;
#[path = "db_common/worker.rs"]
mod db_worker;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::thread::JoinHandle;
use std::time::Duration;

use common::{STATS_KEYS, games, mock_engine, replay_ok, run_ok, scratch, strings, summary};
use db_worker::{LIMIT, Worker};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// The `arena match --db` arguments of a run of `games` games between two
/// mock engines that wait `delay_ms` before each answer.
fn match_args(url: &str, games: u64, delay_ms: u64) -> Vec<String> {
    let delay = format!("option.DelayMs={delay_ms}");
    let mut args = strings(&["match", "--db", url, "--quiet", "--games", &games.to_string()]);
    args.extend(mock_engine("a", &[&delay]));
    args.extend(mock_engine("b", &[&delay]));
    args.extend(strings(&["--each", "depth=1"]));
    args
}

/// Creates a run with `--detach`; returns its id from the `run <ID>` line.
fn create(url: &str, games: u64, delay_ms: u64) -> i64 {
    let mut args = match_args(url, games, delay_ms);
    args.push("--detach".to_owned());
    detached(&args)
}

/// Runs `arena ARGS` (a run created with `--detach`) and returns the id
/// of its first line, `run <ID>`.
fn detached(args: &[String]) -> i64 {
    let out = run_ok(args, LIMIT);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let first = text.lines().next().unwrap_or_default();
    first
        .strip_prefix("run ")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the first line is not `run <ID>`: {text:?}"))
}

/// Exports run `id` into `dir/export` and checks it against the database:
/// every game of the run once, `arena stats --from` equal to the exported
/// summary, moves that `leaper replay` accepts. Returns the summary.
fn export_and_check(url: &str, id: i64, dir: &Path, total: u64) -> Value {
    let out: PathBuf = dir.join("export");
    run_ok(
        &strings(&["export", "--db", url, &id.to_string(), "--out", out.to_str().unwrap()]),
        LIMIT,
    );
    let records = games(&out);
    let mut ids: Vec<u64> = records.iter().map(|r| r.game).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..total).collect::<Vec<_>>(), "every game once");
    let from_db = summary(&out);
    let stats = run_ok(
        &strings(&[
            "stats",
            "--from",
            out.join("games.csv").to_str().unwrap(),
            "--player",
            "a",
            "--json",
        ]),
        LIMIT,
    );
    let from_csv: Value = serde_json::from_slice(&stats.stdout).expect("stats --json");
    for key in STATS_KEYS {
        if key == "decision" || key == "lower_bound" || key == "upper_bound" || key == "llr" {
            continue;
        }
        match (from_db[key].as_f64(), from_csv[key].as_f64()) {
            (Some(x), Some(y)) => assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "{key}: {x} vs {y}"),
            _ => assert_eq!(from_db[key], from_csv[key], "{key}"),
        }
    }
    assert_eq!(from_db["games"], total);
    let events = common::events(&out);
    let finished = events.iter().filter(|e| e["event"] == "game-finished").count();
    assert_eq!(finished as u64, total);
    replay_ok(&out);
    from_db
}

fn client(url: &str) -> postgres::Client {
    arena::db::connect(url, &arena::db::PgEnv::default()).expect("connect")
}

/// The one value that `sql`, whose parameter `$1` is run `id`, returns.
fn query_run<T: postgres::types::FromSqlOwned>(c: &mut postgres::Client, sql: &str, id: i64) -> T {
    c.query_one(sql, &[&id]).unwrap().get(0)
}

/// Starts `arena` with `args` (a `match --db` that creates a run and
/// follows it), reads its first line, `run <ID>`, and returns the process,
/// the run's id and a thread that collects the rest of what it prints.
fn spawn_follower(args: &[String], who: &str) -> (Child, i64, JoinHandle<String>) {
    let mut child = common::spawn_arena(args);
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout
        .read_line(&mut first)
        .unwrap_or_else(|e| panic!("the {who}'s first line: {e}"));
    let id: i64 = first
        .trim()
        .strip_prefix("run ")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the first line is not `run <ID>`: {first:?}"));
    let rest = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    (child, id, rest)
}

/// Runs `arena status` (of run `id` alone when `only` is set, else of
/// every run), checks that it shows run `id` complete with all its
/// `games`, and returns what it printed.
fn status_complete(url: &str, id: i64, games: u64, only: bool) -> String {
    let id_text = id.to_string();
    let mut args = vec!["status", "--db", url];
    if only {
        args.push(&id_text);
    }
    let status = run_ok(&strings(&args), LIMIT);
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(
        status.contains(&format!("run {id}: ")) && status.contains(&format!("[complete]: {games}/{games} games")),
        "{status}"
    );
    status
}

#[test]
fn a_run_in_the_database_is_followed_played_by_workers_and_exported_like_a_local_run() {
    let Some(test_db) = db_common::fresh("db_play") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-play");
    // The follower: prints `run <ID>` first and the summary at the end.
    let (follower, id, rest) = spawn_follower(&match_args(url, 20, 0), "follower");
    // Two workers sharing one engine cache: neither may find the other's
    // copy half written.
    let a = Worker::start(url, "w-a", "10", &dir.join("cache"));
    let b = Worker::start(url, "w-b", "10", &dir.join("cache"));
    let (a_out, a_err) = a.finish();
    let (b_out, b_err) = b.finish();
    assert!(
        !a_err.contains("failed") && !b_err.contains("failed"),
        "{a_err}\n{b_err}"
    );
    let out = common::wait_bounded(follower, LIMIT, "the follower");
    let text = rest.join().expect("follower output");
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("all games played; 20 games"), "{text}");
    // Both workers may have played; together they recorded every game.
    let recorded = |s: &str| -> u64 {
        s.lines()
            .filter_map(|l| {
                l.split(": ")
                    .nth(2)?
                    .split(" games recorded")
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .sum()
    };
    assert_eq!(recorded(&a_out) + recorded(&b_out), 20, "{a_out}\n{b_out}");
    // The engine was cached once, by hash.
    let cached: Vec<String> = std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    assert_eq!(cached[0].len(), 64, "{cached:?}");
    let from_db = export_and_check(url, id, &dir, 20);
    let crashes = games(&dir.join("export"))
        .iter()
        .filter(|g| g.termination == results::Termination::Crash)
        .count();
    assert_eq!(crashes, 0, "the mock engines never crash");
    // `arena status` shows the same figures.
    let status = status_complete(url, id, 20, true);
    let wdl = &from_db["wdl"];
    assert!(
        status.contains(&format!("W{} D{} L{}", wdl[0], wdl[1], wdl[2])),
        "{status}\n{from_db}"
    );
    // The URL of a server that is not there is shown without its password.
    let bad = common::run_arena(
        &strings(&["status", "--db", "postgres://ann:s3cret@127.0.0.1:1/x"]),
        LIMIT,
    );
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.contains("ann:***@127.0.0.1:1") && !err.contains("s3cret"),
        "{err}"
    );
}

#[test]
fn a_worker_killed_mid_batch_loses_no_game_and_counts_none_twice() {
    let Some(test_db) = db_common::fresh("db_kill") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-kill");
    let id = create(url, 16, 15);
    let mut victim = Worker::start(url, "victim", "1.5", &dir.join("cache"));
    victim.wait_for("games 0..7");
    std::thread::sleep(Duration::from_millis(800));
    kill(victim.pid(), Signal::SIGKILL).expect("kill -9");
    let _ = victim.child.wait();
    let rescuer = Worker::start(url, "rescuer", "1.5", &dir.join("cache"));
    let (out, _) = rescuer.finish();
    assert!(
        out.contains("run 1 batch 0: 8 games recorded"),
        "the batch went to the rescuer:\n{out}"
    );
    let mut c = client(url);
    let attempts: i32 = query_run(&mut c, "SELECT attempts FROM batches WHERE run = $1 AND batch = 0", id);
    assert_eq!(attempts, 2, "claimed by the victim, then by the rescuer");
    let by_victim: i64 = query_run(
        &mut c,
        "SELECT count(*) FROM games WHERE run = $1 AND worker = 'victim'",
        id,
    );
    assert_eq!(by_victim, 0);
    export_and_check(url, id, &dir, 16);
}

#[test]
fn a_worker_frozen_past_its_lease_has_its_late_results_refused() {
    let Some(test_db) = db_common::fresh("db_stop") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-stop");
    let id = create(url, 8, 15);
    let mut frozen = Worker::start(url, "frozen", "1", &dir.join("cache"));
    frozen.wait_for("games 0..7");
    std::thread::sleep(Duration::from_millis(300));
    kill(frozen.pid(), Signal::SIGSTOP).expect("SIGSTOP");
    // The lease runs out while it sleeps: another worker plays the batch.
    let other = Worker::start(url, "other", "1", &dir.join("cache"));
    let (out, _) = other.finish();
    assert!(out.contains("8 games recorded (run complete)"), "{out}");
    kill(frozen.pid(), Signal::SIGCONT).expect("SIGCONT");
    let (late, _) = frozen.finish();
    assert!(
        late.contains("lease lost") || late.contains("results refused"),
        "the frozen worker's results must not count:\n{late}"
    );
    let mut c = client(url);
    let by_frozen: i64 = query_run(
        &mut c,
        "SELECT count(*) FROM games WHERE run = $1 AND worker = 'frozen'",
        id,
    );
    assert_eq!(by_frozen, 0);
    export_and_check(url, id, &dir, 8);
}

#[test]
fn an_engine_that_does_not_match_its_hash_is_refused() {
    let Some(test_db) = db_common::fresh("db_hash") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-hash");
    let id = create(url, 4, 0);
    let mut c = client(url);
    let tampered = c
        .execute(
            "UPDATE engines SET bytes = bytes || '\\x00'::bytea \
             WHERE sha256 = (SELECT sha256 FROM run_engines WHERE run = $1 AND idx = 0)",
            &[&id],
        )
        .unwrap();
    assert_eq!(tampered, 1);
    let worker = Worker::start(url, "careful", "5", &dir.join("cache"));
    let (out, err) = worker.finish();
    assert!(
        err.contains(&format!("run {id} refused: engine a: the stored engine")),
        "{err}"
    );
    assert!(err.contains("does not match its hash"), "{err}");
    assert!(out.contains("0 games recorded"), "{out}");
    let count: i64 = c.query_one("SELECT count(*) FROM games", &[]).unwrap().get(0);
    assert_eq!(count, 0);
    let cached = std::fs::read_dir(dir.join("cache")).map_or(0, |d| d.count());
    assert_eq!(cached, 0, "nothing unverified is cached");
    // The batch was given back for a worker that can check the engine.
    let state: String = query_run(&mut c, "SELECT state FROM batches WHERE run = $1 AND batch = 0", id);
    assert_eq!(state, "open");
}

#[test]
fn the_run_outlives_the_process_that_created_it() {
    let Some(test_db) = db_common::fresh("db_creator") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-creator");
    let (mut creator, id, _) = spawn_follower(&match_args(url, 12, 0), "creator");
    let pid = Pid::from_raw(i32::try_from(creator.id()).unwrap());
    kill(pid, Signal::SIGKILL).expect("kill -9");
    let _ = creator.wait();
    let worker = Worker::start(url, "after", "5", &dir.join("cache"));
    let (out, _) = worker.finish();
    assert!(out.contains("(run complete)"), "{out}");
    status_complete(url, id, 12, false);
    export_and_check(url, id, &dir, 12);
}

#[test]
fn a_run_whose_sprt_decides_ends_and_its_workers_move_on() {
    let Some(test_db) = db_common::fresh("db_sprt") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-sprt");
    // b answers its second move with an illegal one: a wins every game.
    let mut args = strings(&[
        "match", "--db", url, "--quiet", "--games", "400", "--sprt", "elo0=0", "elo1=20",
    ]);
    args.extend(mock_engine("a", &[]));
    args.extend(mock_engine("b", &["option.Mode=illegal", "option.After=2"]));
    args.extend(strings(&["--each", "depth=1"]));
    let (follower, id, rest) = spawn_follower(&args, "follower");
    let worker = Worker::start(url, "sprt", "10", &dir.join("cache"));
    let (out, _) = worker.finish();
    assert!(out.contains("(run SPRT accept-h1)"), "{out}");
    let done = common::wait_bounded(follower, LIMIT, "the follower");
    assert!(done.status.success());
    let text = rest.join().unwrap();
    assert!(text.contains("SPRT decided: accept-h1"), "{text}");
    let mut c = client(url);
    let recorded: i64 = query_run(&mut c, "SELECT count(*) FROM games WHERE run = $1", id);
    assert!(recorded < 400, "stopped early ({recorded} games)");
    let open: i64 = query_run(
        &mut c,
        "SELECT count(*) FROM batches WHERE run = $1 AND state = 'open'",
        id,
    );
    assert!(open > 0, "batches were left unplayed");
    let summary = export_and_check(url, id, &dir, u64::try_from(recorded).unwrap());
    assert_eq!(summary["decision"], "accept-h1");
    assert_eq!(summary["sprt"], true);
}

#[test]
fn batch_pairs_sets_the_size_of_a_batch_and_status_follow_reattaches_a_follower() {
    let Some(test_db) = db_common::fresh("db_batch_follow") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-batch-follow");
    // 10 pairs in batches of 3: 3, 3, 3 and 1.
    let mut args = match_args(url, 20, 0);
    args.extend(strings(&["--batch-pairs", "3", "--detach"]));
    let id = detached(&args);
    let mut c = client(url);
    let sizes: Vec<i64> = c
        .query("SELECT pairs FROM batches WHERE run = $1 ORDER BY batch", &[&id])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(sizes, [3, 3, 3, 1]);
    // A follower attached to the detached run sees it to its end.
    let follower = common::spawn_arena(&strings(&[
        "status",
        "--db",
        url,
        &id.to_string(),
        "--follow",
        "--quiet",
    ]));
    let worker = Worker::start(url, "w", "10", &dir.join("cache"));
    let (worker_out, _) = worker.finish();
    assert!(worker_out.contains("(run complete)"), "{worker_out}");
    let done = common::wait_bounded(follower, LIMIT, "the follower");
    let text = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(
        text.contains(&format!("all games played; 20 games in run {id}")),
        "{text}"
    );
    export_and_check(url, id, &dir, 20);
    // Bad values are refused with the flag named.
    for (extra, needle) in [
        (vec!["--batch-pairs", "0"], "--batch-pairs"),
        (vec!["--follow"], "--follow"),
    ] {
        let mut args = if extra[0] == "--follow" {
            strings(&["status", "--db", url])
        } else {
            let mut a = match_args(url, 4, 0);
            a.push("--detach".to_owned());
            a
        };
        args.extend(strings(&extra));
        let bad = common::run_arena(&args, LIMIT);
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(!bad.status.success() && err.contains(needle), "{args:?}: {err}");
    }
    let runs: i64 = c.query_one("SELECT count(*) FROM runs", &[]).unwrap().get(0);
    assert_eq!(runs, 1, "a refused command creates no run");
}

#[test]
fn an_engine_given_as_a_directory_is_stored_whole_unpacked_by_workers_and_checked() {
    let Some(test_db) = db_common::fresh("db_dir") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-dir");
    // The engine: its program and a data file, the program inside its dir.
    let engine = dir.join("engine");
    std::fs::create_dir_all(engine.join("bin")).unwrap();
    std::fs::copy(common::mock_bin(), engine.join("bin/mock")).unwrap();
    std::fs::write(engine.join("net.txt"), "weights 1").unwrap();
    let cmd = format!("cmd={}", engine.join("bin/mock").display());
    let at = format!("dir={}", engine.display());
    let mut args = strings(&["match", "--db", url, "--quiet", "--games", "4", "--detach"]);
    args.extend(strings(&["--engine", &cmd, &at, "name=a"]));
    args.extend(mock_engine("b", &[]));
    args.extend(strings(&["--each", "depth=1"]));
    let id = detached(&args);
    // Stored as the pack of the directory, under the pack's hash.
    let mut c = client(url);
    let sha: String = query_run(&mut c, "SELECT sha256 FROM run_engines WHERE run = $1 AND idx = 0", id);
    let pack = arena::db::pack_dir(&engine).unwrap();
    assert_eq!(sha, arena::db::sha256_hex(&pack));
    let stored = arena::db::engine_bytes(&mut c, &sha).unwrap().unwrap();
    assert_eq!(stored, pack);
    // The engine directory changes after the run was made: the worker
    // plays what was stored, not what is on this disk.
    std::fs::write(engine.join("net.txt"), "weights 2").unwrap();
    let cache = dir.join("cache");
    let worker = Worker::start(url, "w", "10", &cache);
    let (worker_out, worker_err) = worker.finish();
    assert!(worker_out.contains("(run complete)"), "{worker_out}\n{worker_err}");
    let unpacked = cache.join(&sha);
    assert_eq!(std::fs::read_to_string(unpacked.join("net.txt")).unwrap(), "weights 1");
    assert_eq!(
        arena::db::pack_dir(&unpacked).unwrap(),
        pack,
        "the cache holds the stored tree"
    );
    export_and_check(url, id, &dir, 4);
    // A cached tree tampered with is replaced before it runs again.
    std::fs::write(unpacked.join("net.txt"), "tampered").unwrap();
    let id2 = {
        let out = run_ok(&args, LIMIT);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("run ")?.parse::<i64>().ok())
            .expect("run <ID>")
    };
    let sha2: String = query_run(&mut c, "SELECT sha256 FROM run_engines WHERE run = $1 AND idx = 0", id2);
    // The second run stored the changed tree: a new hash, a second copy.
    assert_ne!(sha2, sha);
    let worker = Worker::start(url, "w2", "10", &cache);
    let (worker_out, _) = worker.finish();
    assert!(worker_out.contains("(run complete)"), "{worker_out}");
    assert_eq!(
        std::fs::read_to_string(cache.join(&sha2).join("net.txt")).unwrap(),
        "weights 2"
    );
    // A third run of the first tree finds its cached copy tampered with
    // (above): the worker unpacks it afresh before playing.
    std::fs::write(engine.join("net.txt"), "weights 1").unwrap();
    let out = run_ok(&args, LIMIT);
    let id3: i64 = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("run ")?.parse().ok())
        .expect("run <ID>");
    let sha3: String = query_run(&mut c, "SELECT sha256 FROM run_engines WHERE run = $1 AND idx = 0", id3);
    assert_eq!(sha3, sha, "the same tree, the same hash");
    let worker = Worker::start(url, "w3", "10", &cache);
    let (worker_out, _) = worker.finish();
    assert!(worker_out.contains("(run complete)"), "{worker_out}");
    assert_eq!(
        std::fs::read_to_string(unpacked.join("net.txt")).unwrap(),
        "weights 1",
        "the tampered cached copy was replaced"
    );
}
