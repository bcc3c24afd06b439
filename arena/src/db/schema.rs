//! The database schema as numbered migrations. [`migrate`] applies those
//! the database lacks, each in one transaction with its number recorded in
//! `schema_version`; an advisory lock makes processes that connect at once
//! take turns, so each migration runs exactly once. A database with a
//! newer schema than this binary knows is refused rather than misread.

use postgres::Client;

use super::DbError;

/// The migrations, in order; migration `i + 1` is `MIGRATIONS[i]`. Never
/// edit one that has shipped: add the next.
pub const MIGRATIONS: &[&str] = &[
    // 1: runs, engines, batches of pairs, games, workers.
    r"
    CREATE TABLE runs (
        id BIGSERIAL PRIMARY KEY,
        mode TEXT NOT NULL,
        config JSONB NOT NULL,
        openings JSONB,
        total_games BIGINT NOT NULL CHECK (total_games >= 0),
        state TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'complete', 'sprt', 'stopped')),
        decision TEXT,
        created TIMESTAMPTZ NOT NULL DEFAULT now(),
        finished TIMESTAMPTZ
    );
    CREATE TABLE engines (
        sha256 TEXT PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        bytes BYTEA NOT NULL,
        stored TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE TABLE run_engines (
        run BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL CHECK (idx >= 0),
        name TEXT NOT NULL,
        sha256 TEXT NOT NULL REFERENCES engines (sha256),
        PRIMARY KEY (run, idx),
        UNIQUE (run, name)
    );
    CREATE SEQUENCE lease_tokens;
    CREATE TABLE batches (
        run BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        batch BIGINT NOT NULL CHECK (batch >= 0),
        first_pair BIGINT NOT NULL CHECK (first_pair >= 0),
        pairs BIGINT NOT NULL CHECK (pairs > 0),
        state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'claimed', 'done')),
        worker TEXT,
        lease_token BIGINT,
        lease_until TIMESTAMPTZ,
        attempts INTEGER NOT NULL DEFAULT 0,
        done TIMESTAMPTZ,
        PRIMARY KEY (run, batch)
    );
    CREATE INDEX batches_claimable ON batches (run, batch) WHERE state <> 'done';
    CREATE TABLE games (
        run BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        game BIGINT NOT NULL CHECK (game >= 0),
        pair BIGINT NOT NULL CHECK (pair = game / 2),
        round BIGINT NOT NULL,
        red TEXT NOT NULL,
        blue TEXT NOT NULL,
        red_setup TEXT NOT NULL,
        blue_setup TEXT NOT NULL,
        result TEXT NOT NULL,
        termination TEXT NOT NULL,
        plies INTEGER NOT NULL,
        red_ms BIGINT NOT NULL,
        blue_ms BIGINT NOT NULL,
        moves TEXT[] NOT NULL,
        violations JSONB NOT NULL,
        batch BIGINT NOT NULL,
        worker TEXT NOT NULL,
        recorded TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (run, game)
    );
    CREATE TABLE workers (
        name TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        started TIMESTAMPTZ NOT NULL DEFAULT now(),
        heartbeat TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    ",
    // 2: the ledger of `arena regress --db`, one row per test, the columns
    // of its CSV ledger (`out` names the database run).
    r"
    CREATE TABLE regress_ledger (
        id BIGSERIAL PRIMARY KEY,
        time TEXT NOT NULL,
        dev_ref TEXT NOT NULL,
        dev_commit TEXT NOT NULL,
        base_ref TEXT NOT NULL,
        base_commit TEXT NOT NULL,
        dev_bench BIGINT NOT NULL CHECK (dev_bench >= 0),
        base_bench BIGINT NOT NULL CHECK (base_bench >= 0),
        preset TEXT NOT NULL,
        elo0 DOUBLE PRECISION NOT NULL,
        elo1 DOUBLE PRECISION NOT NULL,
        tc TEXT NOT NULL,
        games BIGINT NOT NULL CHECK (games >= 0),
        ll BIGINT NOT NULL CHECK (ll >= 0),
        ld BIGINT NOT NULL CHECK (ld >= 0),
        dd BIGINT NOT NULL CHECK (dd >= 0),
        wd BIGINT NOT NULL CHECK (wd >= 0),
        ww BIGINT NOT NULL CHECK (ww >= 0),
        elo DOUBLE PRECISION NOT NULL,
        elo_ci95 DOUBLE PRECISION NOT NULL,
        nelo DOUBLE PRECISION NOT NULL,
        nelo_ci95 DOUBLE PRECISION NOT NULL,
        llr DOUBLE PRECISION NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('PASSED', 'FAILED', 'INCONCLUSIVE')),
        out TEXT NOT NULL
    );
    ",
    // 3: tuning runs (`arena tune --db`). The tuner's state (its JSON) per
    // run; a batch of a tuning run is one trial and carries the options of
    // its plus and minus engines; one history row per update, with the
    // trial told and its pentanomial, so the run can be replayed.
    r"
    ALTER TABLE batches ADD COLUMN trial BIGINT CHECK (trial >= 0),
        ADD COLUMN plus JSONB, ADD COLUMN minus JSONB;
    CREATE TABLE tunes (
        run BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        config JSONB NOT NULL,
        state TEXT NOT NULL,
        in_flight INTEGER NOT NULL CHECK (in_flight > 0)
    );
    CREATE TABLE tune_history (
        run BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        update_no BIGINT NOT NULL CHECK (update_no >= 0),
        trial BIGINT,
        pentanomial BIGINT[],
        games BIGINT NOT NULL CHECK (games >= 0),
        vals DOUBLE PRECISION[] NOT NULL,
        PRIMARY KEY (run, update_no)
    );
    ",
];

/// The key of the advisory lock held while migrating.
const MIGRATION_LOCK: i64 = 0x6c65_6170_6572_0001;

/// The schema version of the database (0 for an empty one).
///
/// # Errors
/// A failed query.
pub fn schema_version(client: &mut Client) -> Result<i64, DbError> {
    let exists: bool = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])?
        .get(0);
    if !exists {
        return Ok(0);
    }
    Ok(client
        .query_one("SELECT COALESCE(max(version), 0) FROM schema_version", &[])?
        .get(0))
}

/// Applies the migrations the database lacks, each in its own
/// transaction; returns how many were applied.
///
/// # Errors
/// A failed migration (rolled back), or a database whose schema is newer
/// than this binary's.
pub fn migrate(client: &mut Client) -> Result<usize, DbError> {
    let mut applied = 0;
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    loop {
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_version (
                version BIGINT PRIMARY KEY,
                applied TIMESTAMPTZ NOT NULL DEFAULT now()
            )",
        )?;
        let version: i64 = tx
            .query_one("SELECT COALESCE(max(version), 0) FROM schema_version", &[])?
            .get(0);
        if version > known {
            return Err(DbError::Content(format!(
                "the database's schema is version {version}, newer than this arena's {known}: upgrade the arena"
            )));
        }
        if version == known {
            tx.commit()?;
            return Ok(applied);
        }
        let index = usize::try_from(version).unwrap_or(0);
        tx.batch_execute(MIGRATIONS[index])?;
        tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&(version + 1)])?;
        tx.commit()?;
        applied += 1;
    }
}
