//! The operations of the shared queue and ledger: engines stored once by
//! SHA-256, runs created with their batches of game pairs, batches claimed
//! with `FOR UPDATE SKIP LOCKED` and a lease that a heartbeat extends,
//! and a batch's games recorded in one transaction that counts them only
//! while the claim's lease token is still the batch's. A batch whose
//! lease ran out goes to the next worker with a new token, so the late
//! results of a frozen worker are refused; and a game's key (run, game)
//! makes a second insert of it do nothing.
//!
//! A run ends when its games are all recorded, or when the SPRT of its
//! recorded games (computed by the same [`crate::Scoreboard`] as a local
//! run) decides; workers then claim no more of its batches.

use std::time::Duration;

use postgres::{Client, GenericClient};
use results::{Decision, GameRecord, Sprt};
use sha2::{Digest, Sha256};

use super::DbError;
use crate::config::RunConfig;
use crate::openings::{Opening, parse_openings};
use crate::player::Violations;
use crate::schedule::Schedule;
use crate::score::{Scoreboard, status_of};

/// The state of a run in the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Batches remain to be played.
    Running,
    /// Every game was recorded.
    Complete,
    /// The SPRT decided.
    Sprt(Decision),
    /// Stopped by hand.
    Stopped,
}

impl RunState {
    /// Whether workers should still play the run.
    #[must_use]
    pub fn is_running(self) -> bool {
        self == Self::Running
    }

    /// The name shown by `arena status`.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Self::Running => "running".to_owned(),
            Self::Complete => "complete".to_owned(),
            Self::Sprt(d) => format!("SPRT {}", d.name()),
            Self::Stopped => "stopped".to_owned(),
        }
    }
}

/// A run as stored.
#[derive(Clone, Debug)]
pub struct DbRun {
    /// Its key.
    pub id: i64,
    /// Its settings.
    pub config: RunConfig,
    /// The openings of its openings file, if it has one.
    pub openings: Option<Vec<Opening>>,
    /// The number of scheduled games.
    pub total_games: u64,
    /// `match`, `gauntlet`, `roundrobin`, or [`super::tune::TUNE_MODE`] for
    /// a tuning run (whose `config` is the plus engine against the minus
    /// one, and whose batches are the tuner's trials).
    pub mode: String,
    /// Where it stands.
    pub state: RunState,
}

impl DbRun {
    /// The run's schedule: game `i` is the same on every host.
    #[must_use]
    pub fn schedule(&self) -> Schedule {
        Schedule::new(&self.config, self.openings.clone())
    }
}

/// A batch claimed by a worker: pairs `first_pair..first_pair + pairs` of
/// a run, held while `token` is the batch's lease token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The run.
    pub run: i64,
    /// The batch's number in the run.
    pub batch: i64,
    /// Its first pair.
    pub first_pair: u64,
    /// How many pairs it holds.
    pub pairs: u64,
    /// The lease token: only results under this token count.
    pub token: i64,
}

impl Claim {
    /// The ids of the batch's games.
    #[must_use]
    pub fn games(&self) -> std::ops::Range<u64> {
        self.first_pair * 2..(self.first_pair + self.pairs) * 2
    }
}

/// A batch as stored, for status and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Its number.
    pub batch: i64,
    /// `open`, `claimed` or `done`.
    pub state: String,
    /// Its last worker.
    pub worker: Option<String>,
    /// How many times it was claimed.
    pub attempts: i32,
}

/// A recorded game: its row of `games.csv` and what its engines wrote out
/// of turn (Red, Blue).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// The game.
    pub record: GameRecord,
    /// Protocol violations of Red and Blue.
    pub violations: [Violations; 2],
}

/// What became of a batch's results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Counted: this many games were new (a game already recorded is not
    /// counted again); the run's state after them.
    Counted {
        /// New games.
        games: u64,
        /// The run's state.
        state: RunState,
    },
    /// Refused: the claim's lease was lost (the batch went to another
    /// worker, or is done).
    Refused,
}

/// The SHA-256 of `bytes`, in lower-case hex.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Stores an engine's bytes once, keyed by their SHA-256; returns the hash.
///
/// # Errors
/// A failed statement.
pub fn store_engine(client: &mut impl GenericClient, bytes: &[u8]) -> Result<String, DbError> {
    let sha = sha256_hex(bytes);
    client.execute(
        "INSERT INTO engines (sha256, bytes) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING",
        &[&sha, &bytes],
    )?;
    Ok(sha)
}

/// The stored bytes of the engine with hash `sha256`, if any.
///
/// # Errors
/// A failed query.
pub fn engine_bytes(client: &mut impl GenericClient, sha256: &str) -> Result<Option<Vec<u8>>, DbError> {
    Ok(client
        .query_opt("SELECT bytes FROM engines WHERE sha256 = $1", &[&sha256])?
        .map(|row| row.get(0)))
}

pub(super) fn to_i64(x: u64, what: &str) -> Result<i64, DbError> {
    i64::try_from(x).map_err(|_| DbError::Content(format!("{what} {x} is too large")))
}

pub(super) fn to_u64(x: i64, what: &str) -> Result<u64, DbError> {
    u64::try_from(x).map_err(|_| DbError::Content(format!("{what} {x} is negative")))
}

/// Creates a run of `config` (checked first) with its openings and its
/// engines (`(name, sha256)` in config order, each already stored), split
/// into batches of `batch_pairs` pairs; returns its key.
///
/// # Errors
/// Bad settings, an engine list that does not match the config, or a
/// failed statement (then nothing is created).
pub fn create_run(
    client: &mut Client,
    config: &RunConfig,
    openings: Option<&[Opening]>,
    engines: &[(String, String)],
    batch_pairs: u64,
) -> Result<i64, DbError> {
    config.validate().map_err(|e| DbError::Content(e.to_string()))?;
    if engines.len() != config.engines.len() {
        return Err(DbError::Content(format!(
            "{} engine hashes for {} engines",
            engines.len(),
            config.engines.len()
        )));
    }
    let total = config.total_games();
    let mut tx = client.transaction()?;
    let id = insert_run(&mut tx, config.mode.name(), config, openings, engines, total)?;
    let pairs = total / 2;
    let per = batch_pairs.max(1);
    let mut first = 0;
    let mut batch = 0i64;
    while first < pairs {
        let n = per.min(pairs - first);
        tx.execute(
            "INSERT INTO batches (run, batch, first_pair, pairs) VALUES ($1, $2, $3, $4)",
            &[&id, &batch, &to_i64(first, "pair")?, &to_i64(n, "pairs")?],
        )?;
        first += n;
        batch += 1;
    }
    tx.commit()?;
    Ok(id)
}

/// Inserts the row of a run of `mode` and its engines (`(name, sha256)`
/// in config order); returns its key. The caller adds its batches and
/// commits.
pub(super) fn insert_run(
    tx: &mut postgres::Transaction<'_>,
    mode: &str,
    config: &RunConfig,
    openings: Option<&[Opening]>,
    engines: &[(String, String)],
    total: u64,
) -> Result<i64, DbError> {
    let json = serde_json::to_value(config).map_err(|e| DbError::Content(e.to_string()))?;
    let openings_text: Option<String> = openings.map(|list| list.iter().map(|o| o.to_line() + "\n").collect());
    let id: i64 = tx
        .query_one(
            "INSERT INTO runs (mode, config, openings, total_games) VALUES ($1, $2, to_jsonb($3::text), $4) \
             RETURNING id",
            &[&mode, &json, &openings_text, &to_i64(total, "games")?],
        )?
        .get(0);
    for (i, (name, sha)) in engines.iter().enumerate() {
        let idx = i32::try_from(i).map_err(|_| DbError::Content("too many engines".to_owned()))?;
        tx.execute(
            "INSERT INTO run_engines (run, idx, name, sha256) VALUES ($1, $2, $3, $4)",
            &[&id, &idx, name, sha],
        )?;
    }
    Ok(id)
}

fn state_of(state: &str, decision: Option<&str>) -> Result<RunState, DbError> {
    Ok(match (state, decision) {
        ("running", _) => RunState::Running,
        ("complete", _) => RunState::Complete,
        ("stopped", _) => RunState::Stopped,
        ("sprt", Some("accept-h0")) => RunState::Sprt(Decision::AcceptH0),
        ("sprt", Some("accept-h1")) => RunState::Sprt(Decision::AcceptH1),
        _ => return Err(DbError::Content(format!("run state {state} / {decision:?}"))),
    })
}

fn run_from_row(row: &postgres::Row) -> Result<DbRun, DbError> {
    let id: i64 = row.get("id");
    let config: RunConfig = serde_json::from_value(row.get("config"))
        .map_err(|e| DbError::Content(format!("run {id}: its settings do not read: {e}")))?;
    let openings = match row.get::<_, Option<serde_json::Value>>("openings") {
        Some(serde_json::Value::String(text)) => Some(
            parse_openings(&text).map_err(|e| DbError::Content(format!("run {id}: its openings do not read: {e}")))?,
        ),
        _ => None,
    };
    Ok(DbRun {
        id,
        config,
        openings,
        total_games: to_u64(row.get("total_games"), "total games")?,
        mode: row.get("mode"),
        state: state_of(row.get("state"), row.get("decision"))?,
    })
}

const RUN_COLUMNS: &str = "id, mode, config, openings, total_games, state, decision";

/// The run `id`.
///
/// # Errors
/// [`DbError::NoRun`], or a row that does not read.
pub fn run_of(client: &mut impl GenericClient, id: i64) -> Result<DbRun, DbError> {
    let row = client
        .query_opt(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1"), &[&id])?
        .ok_or(DbError::NoRun(id))?;
    run_from_row(&row)
}

/// Every run, oldest first.
///
/// # Errors
/// A failed query or a row that does not read.
pub fn runs(client: &mut impl GenericClient) -> Result<Vec<DbRun>, DbError> {
    client
        .query(&format!("SELECT {RUN_COLUMNS} FROM runs ORDER BY id"), &[])?
        .iter()
        .map(run_from_row)
        .collect()
}

/// The engines of run `id`: `(name, sha256)` in config order.
///
/// # Errors
/// A failed query.
pub fn run_engines(client: &mut impl GenericClient, id: i64) -> Result<Vec<(String, String)>, DbError> {
    Ok(client
        .query(
            "SELECT name, sha256 FROM run_engines WHERE run = $1 ORDER BY idx",
            &[&id],
        )?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect())
}

/// The batches of run `id`, in order.
///
/// # Errors
/// A failed query.
pub fn run_batches(client: &mut impl GenericClient, id: i64) -> Result<Vec<Batch>, DbError> {
    Ok(client
        .query(
            "SELECT batch, state, worker, attempts FROM batches WHERE run = $1 ORDER BY batch",
            &[&id],
        )?
        .iter()
        .map(|row| Batch {
            batch: row.get(0),
            state: row.get(1),
            worker: row.get(2),
            attempts: row.get(3),
        })
        .collect())
}

/// Records (or refreshes) a worker and its heartbeat.
///
/// # Errors
/// A failed statement.
pub fn register_worker(client: &mut impl GenericClient, name: &str, host: &str) -> Result<(), DbError> {
    client.execute(
        "INSERT INTO workers (name, host) VALUES ($1, $2) \
         ON CONFLICT (name) DO UPDATE SET host = EXCLUDED.host, heartbeat = now()",
        &[&name, &host],
    )?;
    Ok(())
}

/// Claims the first batch of a running run (other than `skip_runs`) that
/// is open or whose lease ran out, for `lease`; other workers skip the
/// rows being claimed.
///
/// # Errors
/// A failed statement.
pub fn claim_batch(
    client: &mut impl GenericClient,
    worker: &str,
    lease: Duration,
    skip_runs: &[i64],
) -> Result<Option<Claim>, DbError> {
    let row = client.query_opt(
        "UPDATE batches AS b SET state = 'claimed', worker = $1, lease_token = nextval('lease_tokens'), \
             lease_until = now() + make_interval(secs => $2), attempts = b.attempts + 1 \
         FROM (SELECT c.run, c.batch FROM batches c JOIN runs r ON r.id = c.run \
               WHERE r.state = 'running' AND NOT (c.run = ANY($3)) \
                 AND (c.state = 'open' OR (c.state = 'claimed' AND c.lease_until < now())) \
               ORDER BY c.run, c.batch LIMIT 1 FOR UPDATE OF c SKIP LOCKED) AS pick \
         WHERE b.run = pick.run AND b.batch = pick.batch \
         RETURNING b.run, b.batch, b.first_pair, b.pairs, b.lease_token",
        &[&worker, &lease.as_secs_f64(), &skip_runs],
    )?;
    row.map(|row| {
        Ok(Claim {
            run: row.get(0),
            batch: row.get(1),
            first_pair: to_u64(row.get(2), "pair")?,
            pairs: to_u64(row.get(3), "pairs")?,
            token: row.get(4),
        })
    })
    .transpose()
}

/// Extends the lease of `claim` by `lease` from now, and the worker's
/// heartbeat. Returns false when the lease is lost (the batch went to
/// another worker, or its run ended): the worker should drop the batch.
///
/// # Errors
/// A failed statement.
pub fn heartbeat(
    client: &mut impl GenericClient,
    claim: &Claim,
    worker: &str,
    lease: Duration,
) -> Result<bool, DbError> {
    client.execute("UPDATE workers SET heartbeat = now() WHERE name = $1", &[&worker])?;
    let n = client.execute(
        "UPDATE batches SET lease_until = now() + make_interval(secs => $4) \
         WHERE run = $1 AND batch = $2 AND lease_token = $3 AND state = 'claimed' \
           AND EXISTS (SELECT 1 FROM runs WHERE id = $1 AND state = 'running')",
        &[&claim.run, &claim.batch, &claim.token, &lease.as_secs_f64()],
    )?;
    Ok(n == 1)
}

/// Gives a claimed batch back (for example when its engines cannot run
/// here), if the claim still holds it.
///
/// # Errors
/// A failed statement.
pub fn release_batch(client: &mut impl GenericClient, claim: &Claim) -> Result<(), DbError> {
    client.execute(
        "UPDATE batches SET state = 'open', lease_token = NULL, lease_until = NULL \
         WHERE run = $1 AND batch = $2 AND lease_token = $3 AND state = 'claimed'",
        &[&claim.run, &claim.batch, &claim.token],
    )?;
    Ok(())
}

fn violations_json(v: &Violations) -> serde_json::Value {
    serde_json::json!({"count": v.count, "lines": v.lines, "dropped": v.dropped})
}

fn violations_of(value: &serde_json::Value) -> Violations {
    Violations {
        count: value["count"].as_u64().unwrap_or(0),
        lines: value["lines"]
            .as_array()
            .map(|l| l.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
        dropped: value["dropped"].as_u64().unwrap_or(0),
    }
}

/// Records the games of a claimed batch in one transaction, if the claim
/// still holds the batch's lease: each game not yet recorded is inserted,
/// the batch is marked done, and the run ends when all its games are in or
/// its SPRT decides. Games outside the batch are refused as an error.
///
/// # Errors
/// A game outside the batch, or a failed statement (nothing is recorded).
pub fn record_batch(
    client: &mut Client,
    claim: &Claim,
    worker: &str,
    games: &[StoredGame],
) -> Result<Recorded, DbError> {
    let range = claim.games();
    if let Some(bad) = games.iter().find(|g| !range.contains(&g.record.game)) {
        return Err(DbError::Content(format!(
            "game {} is not in batch {} of run {} (games {}..{})",
            bad.record.game, claim.batch, claim.run, range.start, range.end
        )));
    }
    let mut tx = client.transaction()?;
    // The run's row is locked first, so that the batches of one run are
    // recorded one after another. Without it two workers finishing the
    // last two batches at once each saw the other's batch as not done
    // yet (its transaction had not committed) and neither ended the run:
    // it stayed `running` with every game in, and idle workers waited on
    // it for ever. Under READ COMMITTED every statement after the lock
    // sees what the previous holder committed, so the count of open
    // batches and the SPRT's games in `settle_run` are complete.
    tx.query_opt("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", &[&claim.run])?;
    let held = tx
        .query_opt(
            "SELECT 1 FROM batches WHERE run = $1 AND batch = $2 AND lease_token = $3 AND state = 'claimed' \
             FOR UPDATE",
            &[&claim.run, &claim.batch, &claim.token],
        )?
        .is_some();
    if !held {
        return Ok(Recorded::Refused);
    }
    let mut new = 0;
    for game in games {
        let r = &game.record;
        let plies = i32::try_from(r.plies).unwrap_or(i32::MAX);
        let violations = serde_json::json!([
            violations_json(&game.violations[0]),
            violations_json(&game.violations[1])
        ]);
        new += tx.execute(
            "INSERT INTO games (run, game, pair, round, red, blue, red_setup, blue_setup, result, termination, \
                 plies, red_ms, blue_ms, moves, violations, batch, worker) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
             ON CONFLICT (run, game) DO NOTHING",
            &[
                &claim.run,
                &to_i64(r.game, "game")?,
                &to_i64(r.pair, "pair")?,
                &to_i64(r.round, "round")?,
                &r.red,
                &r.blue,
                &r.red_setup,
                &r.blue_setup,
                &r.result.as_str(),
                &r.termination.as_str(),
                &plies,
                &to_i64(r.red_ms, "time")?,
                &to_i64(r.blue_ms, "time")?,
                &r.moves,
                &violations,
                &claim.batch,
                &worker,
            ],
        )?;
    }
    tx.execute(
        "UPDATE batches SET state = 'done', done = now() WHERE run = $1 AND batch = $2",
        &[&claim.run, &claim.batch],
    )?;
    // A tuning run's trial is told here, under the run's lock and in this
    // transaction: it is told once, with the games the ledger holds, and
    // its next trials become batches before the run is settled.
    super::tune::tell_trial(&mut tx, claim)?;
    let state = settle_run(&mut tx, claim.run)?;
    tx.commit()?;
    Ok(Recorded::Counted { games: new, state })
}

/// Ends run `id` if all its batches are done or the SPRT of its games
/// decided; returns its state.
fn settle_run(tx: &mut postgres::Transaction<'_>, id: i64) -> Result<RunState, DbError> {
    let run = run_of(tx, id)?;
    if !run.state.is_running() {
        return Ok(run.state);
    }
    let mut state = RunState::Running;
    if let Some(settings) = &run.config.sprt {
        let sprt = Sprt::new(settings.to_results()).map_err(|e| DbError::Content(format!("run {id}: --sprt: {e}")))?;
        let board = scoreboard(&run, &run_scores(tx, id)?);
        let decision = status_of(&sprt, &board.main()).decision;
        if decision != Decision::Continue {
            state = RunState::Sprt(decision);
        }
    }
    if state == RunState::Running {
        let open: i64 = tx
            .query_one(
                "SELECT count(*) FROM batches WHERE run = $1 AND state <> 'done'",
                &[&id],
            )?
            .get(0);
        if open == 0 {
            state = RunState::Complete;
        }
    }
    match state {
        RunState::Running => {}
        RunState::Sprt(d) => {
            tx.execute(
                "UPDATE runs SET state = 'sprt', decision = $2, finished = now() WHERE id = $1",
                &[&id, &d.name()],
            )?;
        }
        _ => {
            tx.execute(
                "UPDATE runs SET state = 'complete', finished = now() WHERE id = $1",
                &[&id],
            )?;
        }
    }
    Ok(state)
}

/// The scoreboard of `games` of `run`: the same counting as a local run,
/// protocol violations included.
#[must_use]
pub fn scoreboard(run: &DbRun, games: &[StoredGame]) -> Scoreboard {
    let schedule = run.schedule();
    let names: Vec<String> = schedule.engines().iter().map(|e| e.name.clone()).collect();
    let mut board = Scoreboard::new(&names, schedule.pairings());
    for game in games {
        board.add(&game.record);
        for (engine, v) in [&game.record.red, &game.record.blue].into_iter().zip(&game.violations) {
            board.add_violations(engine, v.count, v.dropped);
        }
    }
    board
}

/// The recorded games of run `id`, in game order.
///
/// # Errors
/// A failed query, or a row that does not read.
pub fn run_games(client: &mut impl GenericClient, id: i64) -> Result<Vec<StoredGame>, DbError> {
    load_games(client, id, true)
}

/// The recorded games of run `id` without their moves (empty): all that
/// its figures need, at a fraction of the reading.
///
/// # Errors
/// As for [`run_games`].
pub fn run_scores(client: &mut impl GenericClient, id: i64) -> Result<Vec<StoredGame>, DbError> {
    load_games(client, id, false)
}

/// The recorded games of run `id` whose ids lie in `range`, without
/// their moves, in game order.
///
/// # Errors
/// As for [`run_games`].
pub fn games_in(
    client: &mut impl GenericClient,
    id: i64,
    range: std::ops::Range<u64>,
) -> Result<Vec<StoredGame>, DbError> {
    load_games_in(client, id, false, range)
}

fn load_games(client: &mut impl GenericClient, id: i64, moves: bool) -> Result<Vec<StoredGame>, DbError> {
    load_games_in(client, id, moves, 0..i64::MAX as u64)
}

fn load_games_in(
    client: &mut impl GenericClient,
    id: i64,
    moves: bool,
    range: std::ops::Range<u64>,
) -> Result<Vec<StoredGame>, DbError> {
    let (from, to) = (to_i64(range.start, "game")?, to_i64(range.end, "game")?);
    let rows = client.query(
        "SELECT game, pair, round, red, blue, red_setup, blue_setup, result, termination, plies, red_ms, \
             blue_ms, CASE WHEN $2 THEN moves ELSE '{}'::text[] END, violations FROM games \
             WHERE run = $1 AND game >= $3 AND game < $4 ORDER BY game",
        &[&id, &moves, &from, &to],
    )?;
    rows.iter()
        .map(|row| {
            let game = to_u64(row.get(0), "game")?;
            let bad = |what: &str, text: &str| DbError::Content(format!("run {id} game {game}: {what} {text:?}"));
            let result: &str = row.get(7);
            let termination: &str = row.get(8);
            let violations: serde_json::Value = row.get(13);
            let record = GameRecord {
                game,
                pair: to_u64(row.get(1), "pair")?,
                round: to_u64(row.get(2), "round")?,
                red: row.get(3),
                blue: row.get(4),
                red_setup: row.get(5),
                blue_setup: row.get(6),
                result: result.parse().map_err(|_| bad("result", result))?,
                termination: termination.parse().map_err(|_| bad("termination", termination))?,
                plies: u32::try_from(row.get::<_, i32>(9)).map_err(|_| bad("plies", "negative"))?,
                red_ms: to_u64(row.get(10), "time")?,
                blue_ms: to_u64(row.get(11), "time")?,
                moves: row.get(12),
            };
            Ok(StoredGame {
                record,
                violations: [violations_of(&violations[0]), violations_of(&violations[1])],
            })
        })
        .collect()
}
