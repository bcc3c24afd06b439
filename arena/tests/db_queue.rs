//! The PostgreSQL queue and ledger against a real server: migrations
//! applied once (also by processes connecting at once), batches claimed
//! without overlap, leases that run out and pass the batch on, late
//! results refused, games never counted twice, and runs that end when
//! their games are in or their SPRT decides.

mod db_common;

use std::time::Duration;

use arena::db::{self, Claim, Recorded, RunState, StoredGame};
use arena::{Mode, RunConfig, SprtSettings, Violations, build_engines};
use results::{GameRecord, GameResult, Termination};

fn kv(k: &str, v: &str) -> (String, String) {
    (k.to_owned(), v.to_owned())
}

fn config(games: u64, sprt: Option<SprtSettings>) -> RunConfig {
    let engines = vec![
        vec![kv("cmd", "/bin/a"), kv("name", "a")],
        vec![kv("cmd", "/bin/b"), kv("name", "b")],
    ];
    RunConfig {
        mode: Mode::Match,
        engines: build_engines(&[kv("depth", "1")], &engines).unwrap(),
        games,
        sprt,
        ..RunConfig::default()
    }
}

/// Game `id` of a match between a and b as the schedule colours it, won by
/// `a` when `a_wins`, otherwise drawn at the ply limit.
fn game(id: u64, a_wins: bool) -> StoredGame {
    let (red, blue) = if id.is_multiple_of(2) { ("a", "b") } else { ("b", "a") };
    let result = match (a_wins, red == "a") {
        (false, _) => GameResult::Draw,
        (true, true) => GameResult::RedWins,
        (true, false) => GameResult::BlueWins,
    };
    StoredGame {
        record: GameRecord {
            game: id,
            pair: id / 2,
            round: 0,
            red: red.to_owned(),
            blue: blue.to_owned(),
            red_setup: String::new(),
            blue_setup: String::new(),
            result,
            termination: if a_wins {
                Termination::Crash
            } else {
                Termination::PlyLimit
            },
            plies: 0,
            red_ms: id,
            blue_ms: 2 * id,
            moves: Vec::new(),
        },
        violations: [
            Violations {
                count: id % 3,
                lines: vec![format!("line of game {id}")],
                dropped: 0,
            },
            Violations::default(),
        ],
    }
}

fn batch_games(claim: &Claim, a_wins: bool) -> Vec<StoredGame> {
    claim.games().map(|id| game(id, a_wins)).collect()
}

fn new_run(client: &mut postgres::Client, games: u64, batch_pairs: u64, sprt: Option<SprtSettings>) -> i64 {
    let a = db::store_engine(client, b"engine a").unwrap();
    let b = db::store_engine(client, b"engine b").unwrap();
    db::create_run(
        client,
        &config(games, sprt),
        None,
        &[("a".into(), a), ("b".into(), b)],
        batch_pairs,
    )
    .unwrap()
}

const LEASE: Duration = Duration::from_secs(60);

#[test]
fn migrations_apply_once_even_when_processes_connect_at_once() {
    let Some(test_db) = db_common::fresh("migrations") else {
        return;
    };
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let url = test_db.url.clone();
            std::thread::spawn(move || {
                db::connect(&url, &db::PgEnv::default())
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    let mut client = db::connect(&test_db.url, &db::PgEnv::default()).unwrap();
    let known = i64::try_from(db::MIGRATIONS.len()).unwrap();
    assert_eq!(db::schema_version(&mut client).unwrap(), known);
    assert_eq!(db::migrate(&mut client).unwrap(), 0, "a second migrate applies nothing");
    let rows: i64 = client
        .query_one("SELECT count(*) FROM schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, known, "each migration recorded once");
    for table in ["runs", "engines", "run_engines", "batches", "games", "workers"] {
        let exists: bool = client
            .query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])
            .unwrap()
            .get(0);
        assert!(exists, "table {table}");
    }
    // A database from a newer arena is refused, not misread.
    client
        .execute("INSERT INTO schema_version (version) VALUES ($1)", &[&(known + 1)])
        .unwrap();
    let error = db::connect(&test_db.url, &db::PgEnv::default())
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("newer than this arena"), "{error}");
}

#[test]
fn an_unreachable_server_is_a_clear_error_without_the_password() {
    // Port 1 refuses connections.
    let error = db::connect("postgres://ann:s3cret@127.0.0.1:1/x", &db::PgEnv::default())
        .err()
        .expect("refused")
        .to_string();
    assert!(
        error.contains("cannot connect to the database at postgres://ann:***@127.0.0.1:1/x"),
        "{error}"
    );
    assert!(!error.contains("s3cret"), "{error}");
}

#[test]
fn engines_are_stored_once_by_hash() {
    let Some(test_db) = db_common::fresh("engines") else {
        return;
    };
    let mut client = db::connect(&test_db.url, &db::PgEnv::default()).unwrap();
    let first = db::store_engine(&mut client, b"#!/bin/sh\necho hi\n").unwrap();
    let again = db::store_engine(&mut client, b"#!/bin/sh\necho hi\n").unwrap();
    assert_eq!(first, again);
    assert_eq!(first.len(), 64);
    assert_eq!(first, db::sha256_hex(b"#!/bin/sh\necho hi\n"));
    let count: i64 = client.query_one("SELECT count(*) FROM engines", &[]).unwrap().get(0);
    assert_eq!(count, 1);
    assert_eq!(
        db::engine_bytes(&mut client, &first).unwrap().unwrap(),
        b"#!/bin/sh\necho hi\n"
    );
    assert_eq!(db::engine_bytes(&mut client, &db::sha256_hex(b"other")).unwrap(), None);
}

#[test]
fn a_run_is_played_batch_by_batch_and_completes() {
    let Some(test_db) = db_common::fresh("complete") else {
        return;
    };
    let mut client = db::connect(&test_db.url, &db::PgEnv::default()).unwrap();
    let id = new_run(&mut client, 10, 2, None);
    let run = db::run_of(&mut client, id).unwrap();
    assert_eq!((run.total_games, run.state), (10, RunState::Running));
    assert_eq!(run.config, config(10, None));
    assert_eq!(db::run_engines(&mut client, id).unwrap().len(), 2);
    // 5 pairs in batches of 2: 2 + 2 + 1, claimed in order and never twice.
    let claims: Vec<Claim> = (0..3)
        .map(|i| {
            db::claim_batch(&mut client, &format!("w{i}"), LEASE, &[])
                .unwrap()
                .unwrap()
        })
        .collect();
    assert_eq!(db::claim_batch(&mut client, "w3", LEASE, &[]).unwrap(), None);
    assert_eq!(
        claims.iter().map(|c| (c.first_pair, c.pairs)).collect::<Vec<_>>(),
        [(0, 2), (2, 2), (4, 1)]
    );
    let mut state = RunState::Running;
    for (i, claim) in claims.iter().enumerate() {
        assert!(db::heartbeat(&mut client, claim, &format!("w{i}"), LEASE).unwrap());
        let recorded = db::record_batch(&mut client, claim, &format!("w{i}"), &batch_games(claim, i == 1)).unwrap();
        let Recorded::Counted { games, state: s } = recorded else {
            panic!("batch {i} refused")
        };
        assert_eq!(games, claim.pairs * 2);
        state = s;
    }
    assert_eq!(state, RunState::Complete);
    assert_eq!(db::run_of(&mut client, id).unwrap().state, RunState::Complete);
    let stored = db::run_games(&mut client, id).unwrap();
    let expected: Vec<StoredGame> = (0..10).map(|g| game(g, (4..8).contains(&g))).collect();
    assert_eq!(stored, expected, "the games read back as written");
    // The scoreboard counts them as a local run would: 4 wins of a, 6 draws.
    let board = db::scoreboard(&run, &stored);
    let main = board.main();
    assert_eq!(
        (main.trinomial.wins, main.trinomial.draws, main.trinomial.losses),
        (4, 6, 0)
    );
    let violations: u64 = stored.iter().map(|g| g.violations[0].count).sum();
    assert_eq!(
        board.violations().values().map(|v| v.violations).sum::<u64>(),
        violations
    );
}

#[test]
fn a_lost_lease_refuses_late_results_and_no_game_counts_twice() {
    let Some(test_db) = db_common::fresh("lease") else {
        return;
    };
    let mut client = db::connect(&test_db.url, &db::PgEnv::default()).unwrap();
    let id = new_run(&mut client, 4, 2, None);
    let short = Duration::from_millis(200);
    let frozen = db::claim_batch(&mut client, "frozen", short, &[]).unwrap().unwrap();
    assert_eq!(
        db::claim_batch(&mut client, "other", LEASE, &[]).unwrap(),
        None,
        "leased"
    );
    std::thread::sleep(Duration::from_millis(400));
    // The lease ran out: the batch goes to another worker with a new token.
    let taken = db::claim_batch(&mut client, "other", LEASE, &[]).unwrap().unwrap();
    assert_eq!((taken.run, taken.batch), (frozen.run, frozen.batch));
    assert_ne!(taken.token, frozen.token);
    assert!(
        !db::heartbeat(&mut client, &frozen, "frozen", LEASE).unwrap(),
        "the frozen worker's lease is lost"
    );
    // The frozen worker wakes and reports first: refused.
    assert_eq!(
        db::record_batch(&mut client, &frozen, "frozen", &batch_games(&frozen, true)).unwrap(),
        Recorded::Refused
    );
    assert_eq!(db::run_games(&mut client, id).unwrap().len(), 0);
    let Recorded::Counted { games, state } =
        db::record_batch(&mut client, &taken, "other", &batch_games(&taken, false)).unwrap()
    else {
        panic!("refused")
    };
    assert_eq!((games, state), (4, RunState::Complete));
    // A repeat of the same results is refused: the batch is done.
    assert_eq!(
        db::record_batch(&mut client, &taken, "other", &batch_games(&taken, false)).unwrap(),
        Recorded::Refused
    );
    let batches = db::run_batches(&mut client, id).unwrap();
    assert_eq!(batches.len(), 1);
    assert_eq!((batches[0].state.as_str(), batches[0].attempts), ("done", 2));
    let stored = db::run_games(&mut client, id).unwrap();
    assert_eq!(stored.len(), 4);
    assert!(
        stored.iter().all(|g| g.record.result == GameResult::Draw),
        "the other worker's games"
    );
    // Games outside a batch are an error, and nothing is written.
    let id2 = new_run(&mut client, 4, 1, None);
    let claim = db::claim_batch(&mut client, "w", LEASE, &[]).unwrap().unwrap();
    assert_eq!((claim.run, claim.first_pair), (id2, 0));
    let error = db::record_batch(&mut client, &claim, "w", &[game(2, true)])
        .unwrap_err()
        .to_string();
    assert!(error.contains("game 2 is not in batch 0"), "{error}");
    assert_eq!(db::run_games(&mut client, id2).unwrap().len(), 0);
}

#[test]
fn a_game_already_recorded_is_not_counted_again() {
    let Some(test_db) = db_common::fresh("dedup") else {
        return;
    };
    let mut client = db::connect(&test_db.url, &db::PgEnv::default()).unwrap();
    let id = new_run(&mut client, 4, 2, None);
    let claim = db::claim_batch(&mut client, "w", LEASE, &[]).unwrap().unwrap();
    // A game of the batch already in the ledger (as after a retry whose
    // first commit went through): the batch counts only the new ones.
    client
        .execute(
            "INSERT INTO games (run, game, pair, round, red, blue, red_setup, blue_setup, result, termination, \
             plies, red_ms, blue_ms, moves, violations, batch, worker) \
             VALUES ($1, 1, 0, 0, 'b', 'a', '', '', $2, $3, 0, 0, 0, '{}', '[{}, {}]', 0, 'w')",
            &[&id, &GameResult::Draw.as_str(), &Termination::PlyLimit.as_str()],
        )
        .unwrap();
    let Recorded::Counted { games, .. } =
        db::record_batch(&mut client, &claim, "w", &batch_games(&claim, true)).unwrap()
    else {
        panic!("refused")
    };
    assert_eq!(games, 3);
    let stored = db::run_games(&mut client, id).unwrap();
    assert_eq!(stored.len(), 4);
    // The first record of a game stands.
    assert_eq!(stored[1].record.result, GameResult::Draw);
    assert_eq!(stored[0].record.result, GameResult::RedWins);
}

#[test]
fn a_run_ends_when_its_sprt_decides_and_its_batches_are_no_longer_claimed() {
    let Some(test_db) = db_common::fresh("sprt") else {
        return;
    };
    let mut client = db::connect(&test_db.url, &db::PgEnv::default()).unwrap();
    let sprt = SprtSettings {
        elo0: 0.0,
        elo1: 20.0,
        ..SprtSettings::default()
    };
    let id = new_run(&mut client, 400, 5, Some(sprt));
    let settings = sprt.to_results();
    let test = results::Sprt::new(settings).unwrap();
    let mut batches = 0;
    let state = loop {
        let claim = db::claim_batch(&mut client, "w", LEASE, &[])
            .unwrap()
            .expect("a batch while running");
        batches += 1;
        let Recorded::Counted { state, .. } =
            db::record_batch(&mut client, &claim, "w", &batch_games(&claim, true)).unwrap()
        else {
            panic!("refused")
        };
        if state != RunState::Running {
            break state;
        }
    };
    assert_eq!(state, RunState::Sprt(results::Decision::AcceptH1));
    assert!(batches < 40, "decided before the end ({batches} batches)");
    assert_eq!(
        db::claim_batch(&mut client, "w", LEASE, &[]).unwrap(),
        None,
        "no work after the decision"
    );
    // The decision is that of the recorded games by the results crate.
    let run = db::run_of(&mut client, id).unwrap();
    let board = db::scoreboard(&run, &db::run_games(&mut client, id).unwrap());
    assert_eq!(
        arena::status_of(&test, &board.main()).decision,
        results::Decision::AcceptH1
    );
    // One batch earlier it had not decided.
    let games = db::run_games(&mut client, id).unwrap();
    let fewer = &games[..games.len() - 10];
    let board = db::scoreboard(&run, fewer);
    assert_eq!(
        arena::status_of(&test, &board.main()).decision,
        results::Decision::Continue
    );
}

#[test]
fn the_last_batches_recorded_at_once_still_end_the_run() {
    // Each transaction used to count the other's batch as not done (not
    // committed yet), so neither ended the run: it stayed `running` with
    // every game in, and idle workers waited on it for ever.
    let Some(test_db) = db_common::fresh("last_batches_at_once") else {
        return;
    };
    let mut client = db::connect(&test_db.url, &db::PgEnv::default()).unwrap();
    const WORKERS: usize = 4;
    for round in 0..10 {
        let id = new_run(&mut client, 2 * WORKERS as u64, 1, None);
        let claims: Vec<Claim> = (0..WORKERS)
            .map(|w| {
                db::claim_batch(&mut client, &format!("w{w}"), LEASE, &[])
                    .unwrap()
                    .expect("a batch for each worker")
            })
            .collect();
        assert!(claims.iter().all(|c| c.run == id));
        let start = std::sync::Arc::new(std::sync::Barrier::new(WORKERS));
        let threads: Vec<_> = claims
            .into_iter()
            .enumerate()
            .map(|(w, claim)| {
                let url = test_db.url.clone();
                let start = std::sync::Arc::clone(&start);
                std::thread::spawn(move || {
                    let mut c = db::connect(&url, &db::PgEnv::default()).unwrap();
                    start.wait();
                    db::record_batch(&mut c, &claim, &format!("w{w}"), &batch_games(&claim, false)).unwrap()
                })
            })
            .collect();
        let recorded: Vec<Recorded> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(
            recorded.iter().all(|r| matches!(r, Recorded::Counted { games: 2, .. })),
            "round {round}: {recorded:?}"
        );
        let run = db::run_of(&mut client, id).unwrap();
        assert_eq!(run.state, RunState::Complete, "round {round}: {recorded:?}");
        let completes = recorded
            .iter()
            .filter(|r| {
                matches!(
                    r,
                    Recorded::Counted {
                        state: RunState::Complete,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(completes, 1, "round {round}: the last one ends the run: {recorded:?}");
    }
}
