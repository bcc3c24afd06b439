//! Tuning runs in the database (`arena tune --db`): the SPSA tuner's
//! ask/tell state lives in a row of its own (`tunes`, the tuner's JSON),
//! and each trial it asks for is a batch whose row carries the options of
//! its plus and minus engines. Workers claim, play and record these
//! batches with the same claim, lease and heartbeat code as a match's;
//! when a trial's games are recorded ([`super::record_batch`], under the
//! run's lock and in one transaction) the state is loaded, the trial is
//! told with the pentanomial of the ledger's games, the next trials are
//! asked and inserted as batches, and the state is saved. So no process
//! holds the tuner: any of them may die, a batch whose lease runs out goes
//! to another worker, and a late result (an old lease token) is refused
//! before anything is told, so no trial is told twice.
//!
//! The run's `config` is a match of the plus engine against the minus one
//! (the tuned engine under two names), so status, standings and export
//! work on it as on any run; game `2p + k` of a trial's pair `p` is played
//! on the same opening as in a local `arena tune` with the same seed.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use postgres::{Client, GenericClient};
use results::Pentanomial;
use spsa::{HistoryRow, Param, TrialId, Tuner};

use super::DbError;
use super::queue::{Claim, StoredGame, games_in, insert_run, to_i64, to_u64};
use crate::config::{Mode, RunConfig, SetupChoice};
use crate::openings::read_openings;
use crate::schedule::Schedule;
use crate::slot::GameJob;
use crate::spec::EngineSpec;
use crate::tune::{
    TuneConfig, TuneError, TuneReport, check_engine, forfeits_of, new_tuner, option_value, write_tune_files,
};

/// The `mode` of a tuning run's row.
pub const TUNE_MODE: &str = "tune";

/// Trials asked ahead by default: the batches open at once for workers.
pub const IN_FLIGHT: u32 = 4;

/// The trial of a tuning run's batch: the options its plus and minus
/// engines play with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrialBatch {
    /// The trial's id (the games' round).
    pub trial: u64,
    /// `(option, value)` of the plus engine.
    pub plus: Vec<(String, String)>,
    /// `(option, value)` of the minus engine.
    pub minus: Vec<(String, String)>,
}

/// A tuning run as stored.
#[derive(Clone, Debug)]
pub struct DbTune {
    /// The run.
    pub run: i64,
    /// Its settings.
    pub config: TuneConfig,
    /// The tuner as last saved.
    pub tuner: Tuner,
    /// Trials asked ahead of their results.
    pub in_flight: u32,
}

/// One update of a tuning run's history.
#[derive(Clone, Debug, PartialEq)]
pub struct TunePoint {
    /// The trial told (none for the first row, the start values).
    pub trial: Option<u64>,
    /// Its result, from the plus engine's side.
    pub result: Option<Pentanomial>,
    /// Games told so far and the values after the update.
    pub row: HistoryRow,
}

/// The settings of the run's match: the plus engine against the minus one
/// (both the tuned engine, without the trial's options), over the budget.
#[must_use]
pub fn run_config_of(config: &TuneConfig) -> RunConfig {
    let named = |name: String| EngineSpec {
        name,
        ..config.engine.clone()
    };
    RunConfig {
        mode: Mode::Match,
        engines: vec![named(config.plus_name()), named(config.minus_name())],
        games: (config.games / 2).max(1) * 2,
        rounds: 1,
        concurrency: config.concurrency,
        openings: config.openings.clone(),
        setups: SetupChoice::Arena,
        seed: config.seed,
        sprt: None,
        report_every: 50,
    }
}

/// Makes the paths of `config` (program, directory, openings file)
/// absolute against `base`, as a local run saves them.
pub fn absolutize_tune(config: &mut TuneConfig, base: &Path) {
    crate::tune::absolutize(config, base);
}

/// The `(option, value)` pairs that set `params` to `values`.
fn options_of(params: &[Param], values: &[f64]) -> Vec<(String, String)> {
    params
        .iter()
        .zip(values)
        .map(|(p, &v)| (p.name.clone(), option_value(p, v)))
        .collect()
}

/// `spec` with `options` set, replacing options of the same names.
fn with_options(spec: &EngineSpec, options: &[(String, String)]) -> EngineSpec {
    let mut spec = spec.clone();
    for (name, value) in options {
        spec.options.retain(|(n, _)| !protocol::option_names_match(n, name));
        spec.options.push((name.clone(), value.clone()));
    }
    spec
}

fn content(run: i64, what: impl std::fmt::Display) -> DbError {
    DbError::Content(format!("tuning run {run}: {what}"))
}

/// Asks the tuner for trials until `in_flight` are pending (or the budget
/// is asked for) and inserts each as a batch of its pairs.
fn ask_trials(tx: &mut impl GenericClient, run: i64, tuner: &mut Tuner, in_flight: u32) -> Result<(), DbError> {
    let per_trial = u64::from(tuner.config().pairs_per_trial);
    while tuner.pending().count() < in_flight as usize {
        let Some(trial) = tuner.ask() else { break };
        // Pairs are numbered from the trial's id, as a local run numbers
        // them: the same openings for the same trial.
        let first = trial.id.0.saturating_mul(per_trial);
        let plus = serde_json::to_value(options_of(tuner.params(), &trial.plus)).map_err(|e| content(run, e))?;
        let minus = serde_json::to_value(options_of(tuner.params(), &trial.minus)).map_err(|e| content(run, e))?;
        let id = to_i64(trial.id.0, "trial")?;
        tx.execute(
            "INSERT INTO batches (run, batch, first_pair, pairs, trial, plus, minus) \
             VALUES ($1, $2, $3, $4, $2, $5, $6)",
            &[
                &run,
                &id,
                &to_i64(first, "pair")?,
                &i64::from(trial.pairs),
                &plus,
                &minus,
            ],
        )?;
    }
    Ok(())
}

fn save_state(tx: &mut impl GenericClient, run: i64, tuner: &Tuner) -> Result<(), DbError> {
    let state = tuner.to_json().map_err(|e| content(run, e))?;
    tx.execute("UPDATE tunes SET state = $2 WHERE run = $1", &[&run, &state])?;
    Ok(())
}

fn insert_history(
    tx: &mut impl GenericClient,
    run: i64,
    trial: Option<u64>,
    result: Option<&Pentanomial>,
    tuner: &Tuner,
) -> Result<(), DbError> {
    let row = tuner.history_row();
    let trial = trial.map(|t| to_i64(t, "trial")).transpose()?;
    let counts = result
        .map(|p| {
            [p.ll, p.ld, p.dd, p.wd, p.ww]
                .into_iter()
                .map(|n| to_i64(n, "pairs"))
                .collect::<Result<Vec<i64>, _>>()
        })
        .transpose()?;
    tx.execute(
        "INSERT INTO tune_history (run, update_no, trial, pentanomial, games, vals) \
         SELECT $1, COALESCE(max(update_no) + 1, 0), $2, $3, $4, $5 FROM tune_history WHERE run = $1",
        &[&run, &trial, &counts, &to_i64(row.games, "games")?, &row.values],
    )?;
    Ok(())
}

/// Checks the settings, the parameters and the engine (as a local
/// `arena tune` does), stores the engine by hash and creates the tuning
/// run with its first `in_flight` trials as batches, in one transaction;
/// returns the run's key. `config`'s paths must be absolute.
///
/// # Errors
/// [`TuneError`] for bad settings, an engine that fails its check, or
/// the database (then nothing is created).
pub fn submit_tune(
    client: &mut Client,
    config: &TuneConfig,
    params: Vec<Param>,
    in_flight: u32,
) -> Result<i64, TuneError> {
    config.validate()?;
    if in_flight == 0 {
        return Err(TuneError::Invalid("--in-flight 0: must be at least 1".to_owned()));
    }
    let mut tuner = new_tuner(config, params)?;
    check_engine(config, &tuner)?;
    let openings = match &config.openings {
        Some(o) => Some(read_openings(&o.file)?),
        None => None,
    };
    let run_config = run_config_of(config);
    run_config.validate().map_err(|e| TuneError::Invalid(e.to_string()))?;
    let engines = super::submit::store_engines(client, &run_config).map_err(|e| match e {
        super::SubmitError::Db(e) => TuneError::Db(e),
        other => TuneError::Invalid(other.to_string()),
    })?;
    let json = serde_json::to_value(config).map_err(|e| TuneError::Invalid(e.to_string()))?;
    let mut tx = client.transaction().map_err(DbError::from)?;
    let id = insert_run(
        &mut tx,
        TUNE_MODE,
        &run_config,
        openings.as_deref(),
        &engines,
        config.games,
    )?;
    let in_flight_i32 = i32::try_from(in_flight).unwrap_or(i32::MAX);
    tx.execute(
        "INSERT INTO tunes (run, config, state, in_flight) VALUES ($1, $2, '', $3)",
        &[&id, &json, &in_flight_i32],
    )
    .map_err(DbError::from)?;
    insert_history(&mut tx, id, None, None, &tuner)?;
    ask_trials(&mut tx, id, &mut tuner, in_flight)?;
    save_state(&mut tx, id, &tuner)?;
    tx.commit().map_err(DbError::from)?;
    Ok(id)
}

/// The pentanomial of a trial's pairs from the plus engine's side: pair
/// `p` of `claim` is games `2p` and `2p + 1`; a pair missing a game is
/// left out (its pairs go back to the tuner's budget).
fn pentanomial_of(games: &[StoredGame], claim: &Claim, plus: &str) -> Pentanomial {
    let by_id: HashMap<u64, &StoredGame> = games.iter().map(|g| (g.record.game, g)).collect();
    let mut result = Pentanomial::default();
    for pair in claim.first_pair..claim.first_pair + claim.pairs {
        let outcome = |id: u64| by_id.get(&id).and_then(|g| g.record.outcome_for(plus));
        if let (Some(a), Some(b)) = (outcome(2 * pair), outcome(2 * pair + 1)) {
            result.record_pair(a, b);
        }
    }
    result
}

/// Tells the trial of `claim`'s batch, if its run is a tuning run: called
/// by [`super::record_batch`] in its transaction, under the run's lock,
/// once the batch's games are in and the batch is done. Loads the state,
/// tells the ledger's games of the batch, adds a history row, asks the
/// next trials as batches and saves the state.
///
/// # Errors
/// A failed statement, or a state or trial that does not read (then the
/// transaction, games included, is rolled back).
pub(super) fn tell_trial(tx: &mut impl GenericClient, claim: &Claim) -> Result<(), DbError> {
    let run = claim.run;
    let Some(mut tune) = load_tune(tx, run)? else {
        return Ok(());
    };
    let trial: Option<i64> = tx
        .query_one(
            "SELECT trial FROM batches WHERE run = $1 AND batch = $2",
            &[&run, &claim.batch],
        )?
        .get(0);
    let trial = to_u64(
        trial.ok_or_else(|| content(run, format!("batch {} carries no trial", claim.batch)))?,
        "trial",
    )?;
    let games = games_in(tx, run, claim.games())?;
    let result = pentanomial_of(&games, claim, &tune.config.plus_name());
    tune.tuner
        .tell(TrialId(trial), result)
        .map_err(|e| content(run, format!("telling trial {trial}: {e}")))?;
    insert_history(tx, run, Some(trial), Some(&result), &tune.tuner)?;
    ask_trials(tx, run, &mut tune.tuner, tune.in_flight)?;
    save_state(tx, run, &tune.tuner)
}

fn load_tune(client: &mut impl GenericClient, run: i64) -> Result<Option<DbTune>, DbError> {
    let Some(row) = client.query_opt("SELECT config, state, in_flight FROM tunes WHERE run = $1", &[&run])? else {
        return Ok(None);
    };
    let config: TuneConfig =
        serde_json::from_value(row.get(0)).map_err(|e| content(run, format!("its settings do not read: {e}")))?;
    let state: String = row.get(1);
    let tuner = Tuner::from_json(&state).map_err(|e| content(run, format!("its tuner state does not read: {e}")))?;
    let in_flight = u32::try_from(row.get::<_, i32>(2)).map_err(|_| content(run, "in_flight is negative"))?;
    Ok(Some(DbTune {
        run,
        config,
        tuner,
        in_flight,
    }))
}

/// The tuning run `run`, or `None` when `run` is not one.
///
/// # Errors
/// A failed query, or settings or a state that do not read.
pub fn tune_of(client: &mut impl GenericClient, run: i64) -> Result<Option<DbTune>, DbError> {
    load_tune(client, run)
}

/// The history of tuning run `run`, first row (the start) first.
///
/// # Errors
/// A failed query, or a row that does not read.
pub fn tune_history(client: &mut impl GenericClient, run: i64) -> Result<Vec<TunePoint>, DbError> {
    let rows = client.query(
        "SELECT trial, pentanomial, games, vals FROM tune_history WHERE run = $1 ORDER BY update_no",
        &[&run],
    )?;
    rows.iter()
        .map(|row| {
            let trial = row.get::<_, Option<i64>>(0).map(|t| to_u64(t, "trial")).transpose()?;
            let result = match row.get::<_, Option<Vec<i64>>>(1) {
                Some(counts) if counts.len() == 5 => {
                    let n = |i: usize| to_u64(counts[i], "pairs");
                    Some(Pentanomial::new(n(0)?, n(1)?, n(2)?, n(3)?, n(4)?))
                }
                Some(counts) => return Err(content(run, format!("a pentanomial of {} counts", counts.len()))),
                None => None,
            };
            Ok(TunePoint {
                trial,
                result,
                row: HistoryRow {
                    games: to_u64(row.get(2), "games")?,
                    values: row.get(3),
                },
            })
        })
        .collect()
}

/// The trial of a claimed batch, or `None` for a batch without one (a
/// match's batch).
///
/// # Errors
/// A failed query, or options that do not read.
pub fn batch_trial(client: &mut impl GenericClient, claim: &Claim) -> Result<Option<TrialBatch>, DbError> {
    let row = client.query_one(
        "SELECT trial, plus, minus FROM batches WHERE run = $1 AND batch = $2",
        &[&claim.run, &claim.batch],
    )?;
    let Some(trial) = row.get::<_, Option<i64>>(0) else {
        return Ok(None);
    };
    let options = |i: usize| -> Result<Vec<(String, String)>, DbError> {
        let value: Option<serde_json::Value> = row.get(i);
        serde_json::from_value(value.unwrap_or_default()).map_err(|e| {
            content(
                claim.run,
                format!("batch {}: its options do not read: {e}", claim.batch),
            )
        })
    };
    Ok(Some(TrialBatch {
        trial: to_u64(trial, "trial")?,
        plus: options(1)?,
        minus: options(2)?,
    }))
}

/// Game `id` of a trial: the schedule's game (colours and opening) with
/// the plus engine (engine 0) and the minus engine (engine 1) set to the
/// trial's options, in the trial's round.
#[must_use]
pub fn tune_job(schedule: &Schedule, trial: &TrialBatch, id: u64) -> Option<GameJob> {
    let mut job = schedule.job(id)?;
    let engines = schedule.engines();
    let (plus, minus) = (&engines[0].name, &engines[1].name);
    let set = |spec: &Arc<EngineSpec>| -> Arc<EngineSpec> {
        if &spec.name == plus {
            Arc::new(with_options(spec, &trial.plus))
        } else if &spec.name == minus {
            Arc::new(with_options(spec, &trial.minus))
        } else {
            Arc::clone(spec)
        }
    };
    job.red = set(&job.red);
    job.blue = set(&job.blue);
    job.round = trial.trial;
    Some(job)
}

/// The report of tuning run `run` as a local `arena tune` ends with it:
/// the tuner as saved, the games in the ledger (`played`), the forfeits
/// of its games, and `elapsed`: the run's own time in the database, from
/// its creation to its end (or to now while it runs), whoever follows it
/// and since when.
///
/// # Errors
/// [`TuneError::Db`] for a run that is not a tuning run or that does not
/// read.
pub fn tune_report(client: &mut impl GenericClient, run: i64) -> Result<TuneReport, TuneError> {
    let tune = load_tune(client, run)?.ok_or_else(|| content(run, "not a tuning run"))?;
    let seconds: f64 = client
        .query_one(
            "SELECT EXTRACT(EPOCH FROM (coalesce(finished, now()) - created))::float8 FROM runs WHERE id = $1",
            &[&run],
        )
        .map_err(DbError::from)?
        .get(0);
    let elapsed = Duration::try_from_secs_f64(seconds).unwrap_or_default();
    let games = super::queue::run_scores(client, run)?;
    let engines = [tune.config.plus_name(), tune.config.minus_name()];
    Ok(TuneReport {
        failures: forfeits_of(games.iter().map(|g| &g.record), &engines),
        played: games.len() as u64,
        replayed: 0,
        elapsed,
        tuner: tune.tuner,
        config: tune.config,
    })
}

/// Writes the tuner's files of run `run` into `out` as a local tuning run
/// keeps them (`tune.json`, `state.json`, `history.csv`, `traces.svg`, by
/// the local writers); returns false, writing nothing, when `run` is not
/// a tuning run. An openings file is named as `out`'s `openings.txt`.
///
/// # Errors
/// The database, or a file that cannot be written.
pub fn export_tune(client: &mut impl GenericClient, run: i64, out: &Path) -> Result<bool, TuneError> {
    let Some(mut tune) = load_tune(client, run)? else {
        return Ok(false);
    };
    if let Some(o) = &mut tune.config.openings {
        o.file = out.join(crate::runner::OPENINGS_FILE);
    }
    let rows: Vec<HistoryRow> = tune_history(client, run)?.into_iter().map(|p| p.row).collect();
    write_tune_files(out, &tune.config, &tune.tuner, &rows)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use results::{GameRecord, GameResult, Termination};

    use super::*;

    fn game(id: u64, red: &str, blue: &str, result: GameResult) -> StoredGame {
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
                termination: Termination::WazirCaptured,
                plies: 10,
                red_ms: 0,
                blue_ms: 0,
                moves: Vec::new(),
            },
            violations: Default::default(),
        }
    }

    #[test]
    fn a_trials_pairs_are_counted_from_the_plus_engines_side_and_an_incomplete_pair_is_left_out() {
        let claim = Claim {
            run: 1,
            batch: 3,
            first_pair: 6,
            pairs: 3,
            token: 9,
        };
        let (p, m) = ("x-plus", "x-minus");
        let games = [
            // Pair 6: plus wins as Red, draws as Blue.
            game(12, p, m, GameResult::RedWins),
            game(13, m, p, GameResult::Draw),
            // Pair 7: plus loses both.
            game(14, p, m, GameResult::BlueWins),
            game(15, m, p, GameResult::RedWins),
            // Pair 8: one game only.
            game(16, p, m, GameResult::RedWins),
        ];
        let result = pentanomial_of(&games, &claim, p);
        assert_eq!(result, Pentanomial::new(1, 0, 0, 1, 0));
        assert_eq!(result.pairs(), 2);
    }

    #[test]
    fn a_trials_options_replace_the_engines_own_of_the_same_name() {
        let spec = EngineSpec::from_tokens(&["cmd=/bin/true", "name=x", "depth=1", "option.Knob=1", "option.Hash=8"])
            .expect("spec");
        let set = with_options(&spec, &[("knob".to_owned(), "7".to_owned())]);
        assert_eq!(
            set.options,
            vec![("Hash".to_owned(), "8".to_owned()), ("knob".to_owned(), "7".to_owned())]
        );
    }

    #[test]
    fn a_tuning_runs_match_covers_the_budget_with_the_plus_engine_first() {
        let config = TuneConfig {
            engine: EngineSpec::from_tokens(&["cmd=/bin/true", "name=x", "depth=1"]).expect("spec"),
            games: 25,
            concurrency: 1,
            openings: None,
            seed: 5,
            pairs_per_trial: 2,
            recipe: spsa::Recipe::default(),
        };
        let run = run_config_of(&config);
        run.validate().expect("a valid match");
        let names: Vec<&str> = run.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["x-plus", "x-minus"]);
        assert_eq!((run.games, run.seed), (24, 5));
        // Game 2p is the plus engine's as Red, on pair p's opening.
        let schedule = Schedule::new(&run, None);
        let trial = TrialBatch {
            trial: 4,
            plus: vec![("Knob".to_owned(), "6".to_owned())],
            minus: vec![("Knob".to_owned(), "4".to_owned())],
        };
        let job = tune_job(&schedule, &trial, 17).expect("in the budget");
        assert_eq!((job.red.name.as_str(), job.blue.name.as_str()), ("x-minus", "x-plus"));
        assert_eq!(job.round, 4);
        assert!(job.blue.options.contains(&("Knob".to_owned(), "6".to_owned())));
        assert!(job.red.options.contains(&("Knob".to_owned(), "4".to_owned())));
        let opening = crate::openings::OpeningSource::Random { seed: 5 }.opening(8);
        assert_eq!(job.setups, Some((opening.red, opening.blue)));
    }
}
