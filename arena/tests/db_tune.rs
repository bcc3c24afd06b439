//! Tuning runs in the database end to end (`arena tune --db`), with a real
//! PostgreSQL, real `arena` processes and the mock engine tuned on its two
//! tuning options: three workers play a run to the end of its budget;
//! every game is in the ledger once, the tuner told exactly the ledger's
//! pairs, and a fresh local tuner fed the ledger's trials in the order the
//! database told them moves to the very same values, after every update.
//! Then the faults: a worker killed (`kill -9`) in the middle of a trial,
//! the creating process killed while it follows the run, and a worker
//! frozen (`SIGSTOP`) past its lease and then resumed; the run still
//! spends its budget, with nothing told twice.

mod common;
mod db_common;
#[path = "db_common/worker.rs"]
mod db_worker;

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use common::{mock_bin, run_ok, scratch, spawn_arena, strings};
use db_worker::{LIMIT, Worker};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use results::Pentanomial;

/// The mock engine's two tuning options: a spin and a float carried as a
/// string.
const PARAMS: &str = "Knob, int, 5, 0, 10\nRatio, float, 0.5, 0, 1\n";

/// The `arena tune --db` arguments of a run of `games` games of the mock
/// engine (waiting `delay_ms` before each move), `in_flight` trials ahead.
fn tune_args(url: &str, dir: &Path, games: u64, delay_ms: u64, in_flight: u32) -> Vec<String> {
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).expect("params file");
    strings(&[
        "tune",
        "--db",
        url,
        "--quiet",
        "--engine",
        &format!("cmd={}", mock_bin().display()),
        "name=mock",
        &format!("option.DelayMs={delay_ms}"),
        "--each",
        "depth=1",
        "--params",
        params.to_str().expect("utf-8 path"),
        "--games",
        &games.to_string(),
        "--seed",
        "3",
        "--in-flight",
        &in_flight.to_string(),
    ])
}

/// Starts `arena tune --db`, reads its first line, `run <ID>`, and returns
/// the process (its stdout still open) and the run's id.
fn spawn_creator(args: &[String]) -> (Child, BufReader<std::process::ChildStdout>, i64) {
    let mut child = spawn_arena(args);
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("the creator's first line");
    let id = first
        .trim()
        .strip_prefix("run ")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the first line is not `run <ID>`: {first:?}"));
    (child, stdout, id)
}

fn client(url: &str) -> postgres::Client {
    arena::db::connect(url, &arena::db::PgEnv::default()).expect("connect")
}

/// Checks a finished tuning run against its ledger: the run is complete;
/// every game of the budget is in the ledger once; the tuner told exactly
/// the ledger's pairs, each trial once; each pair was played on the
/// opening a local tune gives it; and a fresh tuner with the run's
/// settings, asking as the database asked (`in_flight` ahead) and told
/// the ledger's games of each trial in the database's order, has the
/// database's values after every update. Returns the number of updates.
fn check_against_ledger(url: &str, id: i64, games: u64) -> usize {
    let mut c = client(url);
    let run = arena::db::run_of(&mut c, id).expect("run");
    assert_eq!(run.state, arena::db::RunState::Complete);
    let tune = arena::db::tune_of(&mut c, id).expect("tune").expect("a tuning run");
    let ledger = arena::db::run_games(&mut c, id).expect("games");
    let ids: Vec<u64> = ledger.iter().map(|g| g.record.game).collect();
    assert_eq!(ids, (0..games).collect::<Vec<_>>(), "every game once");
    assert_eq!(tune.tuner.games(), ledger.len() as u64, "told pairs = ledger games / 2");
    assert!(tune.tuner.is_done() && tune.tuner.pending().count() == 0);
    // Openings as a local tune with this seed plays them (no openings
    // file: setups drawn from the seed, pair by pair).
    let openings = arena::OpeningSource::Random { seed: 3 };
    for g in &ledger {
        let opening = openings.opening(g.record.pair);
        // (Blue's setup is written in lower case in the record.)
        assert_eq!(
            (
                g.record.red_setup.to_ascii_uppercase(),
                g.record.blue_setup.to_ascii_uppercase()
            ),
            (
                opening.red.to_string().to_ascii_uppercase(),
                opening.blue.to_string().to_ascii_uppercase()
            ),
            "game {}",
            g.record.game
        );
    }
    // The replay.
    let params = spsa::parse_params(PARAMS).expect("params");
    let config = &tune.config;
    // The tuner a local `arena tune` of the same settings starts with.
    let mut fresh = arena::new_tuner(config, params).expect("tuner");
    let ask = |t: &mut spsa::Tuner| {
        while t.pending().count() < tune.in_flight as usize {
            if t.ask().is_none() {
                break;
            }
        }
    };
    ask(&mut fresh);
    let history = arena::db::tune_history(&mut c, id).expect("history");
    assert_eq!(history[0].trial, None);
    assert_eq!(history[0].row, fresh.history_row());
    let per_trial = u64::from(config.pairs_per_trial);
    let mut told = HashSet::new();
    let mut pairs = 0;
    for point in &history[1..] {
        let trial = point.trial.expect("a told trial");
        assert!(told.insert(trial), "trial {trial} told twice");
        let mut result = Pentanomial::default();
        let in_trial = |g: &&arena::db::StoredGame| g.record.pair / per_trial == trial;
        let games: Vec<_> = ledger.iter().filter(in_trial).collect();
        for pair in games.chunks(2) {
            let outcome = |g: &arena::db::StoredGame| g.record.outcome_for("mock-plus").expect("plus played");
            assert_eq!(pair[0].record.round, trial, "a trial's games are its round");
            result.record_pair(outcome(pair[0]), outcome(pair[1]));
        }
        assert_eq!(
            point.result,
            Some(result),
            "trial {trial}: the told result is the ledger's"
        );
        pairs += result.pairs();
        fresh.tell(spsa::TrialId(trial), result).expect("pending");
        assert_eq!(point.row, fresh.history_row(), "after trial {trial}");
        ask(&mut fresh);
    }
    assert_eq!(pairs * 2, games);
    assert_eq!(fresh.values(), tune.tuner.values());
    assert_eq!(
        fresh.to_json().expect("json"),
        tune.tuner.to_json().expect("json"),
        "the same tuner state"
    );
    // Every batch is a trial, done once told.
    let batches = arena::db::run_batches(&mut c, id).expect("batches");
    assert_eq!(batches.len(), told.len());
    assert!(batches.iter().all(|b| b.state == "done"), "{batches:?}");
    history.len() - 1
}

/// Exports run `id` and checks the tuner's files: a state that loads with
/// the database's values, a history of `updates + 1` rows, a plot, the
/// game record.
fn export_and_check(url: &str, id: i64, dir: &Path, games: u64, updates: usize) {
    let out = dir.join("export");
    run_ok(
        &strings(&["export", "--db", url, &id.to_string(), "--out", out.to_str().unwrap()]),
        LIMIT,
    );
    let state = spsa::Tuner::load(&out.join("state.json")).expect("state.json loads");
    let tune = arena::db::tune_of(&mut client(url), id)
        .expect("tune")
        .expect("tuning run");
    assert_eq!(state.values(), tune.tuner.values());
    let history = spsa::parse_history(&std::fs::read_to_string(out.join("history.csv")).expect("history.csv"))
        .expect("history parses");
    assert_eq!(history.rows.len(), updates + 1);
    assert_eq!(history.rows.last().map(|r| r.games), Some(games));
    let svg = std::fs::read_to_string(out.join("traces.svg")).expect("traces.svg");
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..svg.len().min(80)]
    );
    let config: arena::TuneConfig =
        serde_json::from_str(&std::fs::read_to_string(out.join("tune.json")).expect("tune.json")).expect("parses");
    assert_eq!(config.games, games);
    let records = common::games(&out);
    assert_eq!(records.len() as u64, games);
    // Each game's event names its trial, as a local tune's do.
    let finished: Vec<_> = common::events(&out)
        .into_iter()
        .filter(|e| e["event"] == "game-finished")
        .collect();
    assert_eq!(finished.len() as u64, games);
    for (event, record) in finished.iter().zip(&records) {
        assert_eq!(event["trial"], record.round, "{event}");
    }
}

#[test]
fn a_tuning_run_played_by_three_workers_tells_the_ledger_once_as_a_local_tuner_would() {
    let Some(test_db) = db_common::fresh("db_tune_play") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-tune-play");
    let (creator, mut stdout, id) = spawn_creator(&tune_args(url, &dir, 24, 0, 3));
    let workers: Vec<Worker> = ["w-a", "w-b", "w-c"]
        .iter()
        .map(|name| Worker::start(url, name, "10", &dir.join("cache")))
        .collect();
    for worker in workers {
        worker.finish();
    }
    let out = common::wait_bounded(creator, LIMIT, "the creator");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut text).expect("the creator's output");
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    // The local tune's final report.
    assert!(text.contains("tuned 2 parameters of mock in 24 games"), "{text}");
    for name in ["Knob", "Ratio"] {
        assert!(text.lines().any(|l| l.starts_with(&format!("{name}, "))), "{text}");
        assert!(text.contains(&format!("setoption name {name} value ")), "{text}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("arena match ") && l.contains("--sprt")),
        "{text}"
    );
    let updates = check_against_ledger(url, id, 24);
    assert_eq!(updates, 6, "24 games in trials of 2 pairs");
    export_and_check(url, id, &dir, 24, updates);
    let status = run_ok(&strings(&["status", "--db", url, &id.to_string()]), LIMIT);
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains("[complete]: 24/24 games"), "{status}");
    assert!(
        status.contains("tune: 24/24 games told, 6 updates, 0 trials in play"),
        "{status}"
    );
    assert!(status.contains("Knob=") && status.contains("Ratio="), "{status}");
}

#[test]
fn kill_9_of_a_worker_mid_trial_and_of_the_creator_count_nothing_twice() {
    let Some(test_db) = db_common::fresh("db_tune_kill") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-tune-kill");
    // The creator is killed while it follows: the run does not need it.
    let (mut creator, _stdout, id) = spawn_creator(&tune_args(url, &dir, 24, 10, 2));
    kill(
        Pid::from_raw(i32::try_from(creator.id()).expect("pid")),
        Signal::SIGKILL,
    )
    .expect("kill -9");
    let _ = creator.wait();
    // A worker killed in the middle of its first trial.
    let mut victim = Worker::start(url, "victim", "1.5", &dir.join("cache"));
    let claimed = victim.wait_for(": games ");
    std::thread::sleep(Duration::from_millis(300));
    kill(victim.pid(), Signal::SIGKILL).expect("kill -9");
    let _ = victim.child.wait();
    assert!(
        !victim.seen.iter().any(|l| l.contains("recorded")),
        "the victim recorded before it was killed: {:?}",
        victim.seen
    );
    let batch: i64 = number_after(&claimed, " batch ", ':').unwrap_or_else(|| panic!("{claimed}"));
    let rescuers: Vec<Worker> = ["r-a", "r-b"]
        .iter()
        .map(|name| Worker::start(url, name, "1.5", &dir.join("cache")))
        .collect();
    for worker in rescuers {
        worker.finish();
    }
    let updates = check_against_ledger(url, id, 24);
    // The victim's trial went to another worker, with a new lease.
    let batches = arena::db::run_batches(&mut client(url), id).expect("batches");
    let theirs = batches.iter().find(|b| b.batch == batch).expect("the victim's batch");
    assert!(theirs.attempts >= 2, "{theirs:?}");
    assert_ne!(theirs.worker.as_deref(), Some("victim"));
    export_and_check(url, id, &dir, 24, updates);
    // A follower attached again reports the end.
    let follow = run_ok(
        &strings(&["status", "--db", url, &id.to_string(), "--follow", "--quiet"]),
        LIMIT,
    );
    let text = String::from_utf8_lossy(&follow.stdout);
    assert!(text.contains("tuned 2 parameters of mock in 24 games"), "{text}");
    // Its speed is the run's own, from creation to end (a lease ran out in
    // it), not the instant this follower took to see it ended.
    let seconds: f64 = number_after(&text, "the run in the database: 24 games in ", ' ')
        .unwrap_or_else(|| panic!("no run time in {text}"));
    assert!(seconds > 1.0, "{text}");
}

#[test]
fn a_worker_frozen_past_its_lease_has_its_late_trial_refused_not_told_twice() {
    let Some(test_db) = db_common::fresh("db_tune_freeze") else {
        return;
    };
    let url = &test_db.url;
    let dir = scratch("db-tune-freeze");
    let mut args = tune_args(url, &dir, 16, 10, 2);
    args.push("--detach".to_owned());
    let (creator, _stdout, id) = spawn_creator(&args);
    assert!(common::wait_bounded(creator, LIMIT, "the creator").status.success());
    let mut frozen = Worker::start(url, "frozen", "1.5", &dir.join("cache"));
    frozen.wait_for(": games ");
    let pid = frozen.pid();
    kill(pid, Signal::SIGSTOP).expect("SIGSTOP");
    // Another worker takes the frozen one's trial once its lease runs out,
    // and plays the run to its end.
    let rescuer = Worker::start(url, "rescuer", "1.5", &dir.join("cache"));
    rescuer.finish();
    let updates = check_against_ledger(url, id, 16);
    let state = arena::db::tune_of(&mut client(url), id)
        .expect("tune")
        .expect("tuning run");
    // Resumed, the frozen worker's results are refused (or its batch
    // dropped): the tuner is as it was.
    kill(pid, Signal::SIGCONT).expect("SIGCONT");
    let (said, _) = frozen.finish();
    assert!(
        said.contains("results refused, the lease was lost") || said.contains("lease lost, batch dropped"),
        "{said}"
    );
    assert!(!said.contains(" games recorded (run "), "{said}");
    let after = arena::db::tune_of(&mut client(url), id)
        .expect("tune")
        .expect("tuning run");
    assert_eq!(
        after.tuner.to_json().expect("json"),
        state.tuner.to_json().expect("json")
    );
    assert_eq!(check_against_ledger(url, id, 16), updates);
}

/// The number that follows `marker` in `text`, up to `end`: how these
/// tests read a figure out of a line the binary prints.
fn number_after<T: std::str::FromStr>(text: &str, marker: &str, end: char) -> Option<T> {
    text.split(marker).nth(1)?.split(end).next()?.parse().ok()
}
