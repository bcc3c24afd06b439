//! A driver shaped like `arena tune`: the tuner lives on the driver thread,
//! worker threads play trials and send results back in whatever order they
//! finish, and after every result the driver saves the state, appends a
//! history row. Halfway the driver dies without
//! warning (its tuner is simply dropped, results in flight are lost), and a
//! new driver resumes from the files alone.

mod common;

use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

use common::{fake_result, scratch, tuner};
use spsa::{HistoryWriter, Pentanomial, Schedule, Trial, TrialId, Tuner, parse_history};

const WORKERS: usize = 4;

/// Plays trials until `stop_after` results are told (or the run ends);
/// returns how many were told.
fn drive(tuner: &mut Tuner, dir: &Path, history: &mut HistoryWriter, stop_after: usize) -> usize {
    let (trial_tx, trial_rx) = mpsc::channel::<Trial>();
    let (result_tx, result_rx) = mpsc::channel::<(TrialId, Pentanomial)>();
    let trial_rx = Arc::new(Mutex::new(trial_rx));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let trials = Arc::clone(&trial_rx);
            let results = result_tx.clone();
            thread::spawn(move || {
                loop {
                    let next = trials.lock().map(|rx| rx.recv());
                    let Ok(Ok(trial)) = next else { break };
                    if results.send((trial.id, fake_result(&trial))).is_err() {
                        break;
                    }
                }
            })
        })
        .collect();
    drop(result_tx);

    // Trials left pending by a previous driver are played again first.
    let mut in_flight = 0;
    for trial in tuner.pending() {
        trial_tx.send(trial.clone()).expect("workers alive");
        in_flight += 1;
    }
    let mut told = 0;
    while told < stop_after {
        while in_flight < WORKERS {
            let Some(trial) = tuner.ask() else { break };
            trial_tx.send(trial).expect("workers alive");
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        let (id, result) = result_rx.recv().expect("a worker answers");
        in_flight -= 1;
        tuner.tell(id, result).expect("every id told once");
        told += 1;
        tuner.save(&dir.join("state.json")).expect("state saved");
        history.append(&tuner.history_row()).expect("row appended");
    }
    drop(trial_tx);
    for worker in workers {
        worker.join().expect("worker finished");
    }
    told
}

#[test]
fn a_killed_driver_resumes_from_its_files_and_finishes_the_budget() {
    let dir = scratch("driver");
    let names: Vec<String> = common::params().into_iter().map(|p| p.name).collect();

    let mut first = tuner(2_000, Schedule::default(), 17);
    let mut history = HistoryWriter::create(&dir.join("history.csv"), &names).expect("history");
    first.save(&dir.join("state.json")).expect("state saved");
    let told = drive(&mut first, &dir, &mut history, 200);
    assert_eq!(told, 200);
    drop((first, history)); // kill -9: nothing more is written

    let mut resumed = Tuner::load(&dir.join("state.json")).expect("state loads");
    assert_eq!(resumed.games(), 800);
    let (mut history, kept) =
        HistoryWriter::resume(&dir.join("history.csv"), &names, resumed.games()).expect("history resumes");
    assert_eq!(kept.last().map(|r| r.games), Some(800));
    drive(&mut resumed, &dir, &mut history, usize::MAX);

    assert!(resumed.is_done());
    assert_eq!(resumed.pending().count(), 0);
    assert_eq!(Tuner::load(&dir.join("state.json")).expect("final state"), resumed);
    let rows = parse_history(&std::fs::read_to_string(dir.join("history.csv")).expect("read"))
        .expect("parsed")
        .rows;
    assert_eq!(rows.last().map(|r| r.games), Some(2_000));
    assert!(rows.windows(2).all(|w| w[0].games <= w[1].games));
    let _ = std::fs::remove_dir_all(dir);
}
