//! Saving and resuming: a run stopped at any point (with trials still in
//! flight) and restored from its file continues exactly as the run that
//! never stopped; the file is replaced atomically; damaged or edited
//! states are refused.

mod common;

use common::{fake_result, scratch, tuner};
use spsa::{Schedule, StateError, Trial, Tuner, write_atomic};

/// Drives a tuner for `steps` steps with four trials in flight, telling
/// them out of order (the second-oldest first), and records every trial.
fn drive(tuner: &mut Tuner, steps: usize, log: &mut Vec<Trial>) {
    let mut in_flight: Vec<Trial> = tuner.pending().cloned().collect();
    for _ in 0..steps {
        while in_flight.len() < 4 {
            match tuner.ask() {
                Some(trial) => {
                    log.push(trial.clone());
                    in_flight.push(trial);
                }
                None => break,
            }
        }
        if in_flight.is_empty() {
            return;
        }
        let trial = in_flight.remove(in_flight.len().min(2) - 1);
        tuner.tell(trial.id, fake_result(&trial)).expect("pending");
    }
}

#[test]
fn a_resumed_run_follows_the_uninterrupted_one_exactly() {
    for schedule in [Schedule::default(), Schedule::fishtest()] {
        let dir = scratch(&format!("resume-{}", schedule.name()));
        let path = dir.join("state.json");

        let mut straight = tuner(2_000, schedule, 42);
        let mut straight_log = Vec::new();
        drive(&mut straight, 700, &mut straight_log);

        let mut first = tuner(2_000, schedule, 42);
        let mut resumed_log = Vec::new();
        drive(&mut first, 137, &mut resumed_log);
        assert!(first.pending().count() > 0, "the save must catch trials in flight");
        first.save(&path).expect("saved");
        let mut resumed = Tuner::load(&path).expect("loaded");
        assert_eq!(resumed, first, "the restored state equals the saved one");
        drop(first);
        drive(&mut resumed, 700 - 137, &mut resumed_log);

        assert_eq!(resumed_log, straight_log, "the same trials, values and ids");
        assert_eq!(resumed, straight, "the same final state, bit for bit");
        assert!(resumed.is_done());
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn saving_replaces_the_file_whole_and_leaves_no_temporary_file() {
    let dir = scratch("atomic");
    let path = dir.join("state.json");
    std::fs::write(&path, "old contents").expect("written");
    let mut tuner = tuner(100, Schedule::default(), 1);
    let trial = tuner.ask().expect("budget left");
    tuner.save(&path).expect("saved");
    tuner.tell(trial.id, fake_result(&trial)).expect("pending");
    tuner.save(&path).expect("saved again");
    assert_eq!(Tuner::load(&path).expect("loaded"), tuner);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .expect("listed")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("state.json")]);
    assert!(write_atomic(&dir.join("missing-folder").join("x"), b"x").is_err());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn damaged_foreign_or_edited_states_are_refused() {
    assert!(matches!(
        Tuner::from_json("{\"format\": 1, \"par"),
        Err(StateError::Json(_))
    ));
    assert!(matches!(Tuner::from_json("[]"), Err(StateError::Json(_))));
    let mut tuner = tuner(100, Schedule::default(), 1);
    let _ = tuner.ask();
    let json = tuner.to_json().expect("serialized");
    assert_eq!(Tuner::from_json(&json).expect("parsed"), tuner);

    let future = json.replacen("\"format\": 2", "\"format\": 99", 1);
    assert!(matches!(
        Tuner::from_json(&future),
        Err(StateError::Format { found: 99 })
    ));
    // A state of the previous format (another generator and recipe) is
    // refused with a message saying so.
    let old = json.replacen("\"format\": 2", "\"format\": 1", 1);
    let error = Tuner::from_json(&old).expect_err("old format");
    assert!(error.to_string().contains("older leaper-spsa"), "{error}");

    let mut value: serde_json::Value = serde_json::from_str(&json).expect("json");
    value["theta"][1] = serde_json::json!(1e9);
    assert!(matches!(
        Tuner::from_json(&value.to_string()),
        Err(StateError::Inconsistent(_))
    ));

    let mut value: serde_json::Value = serde_json::from_str(&json).expect("json");
    value["told_pairs"] = serde_json::json!(5);
    assert!(matches!(
        Tuner::from_json(&value.to_string()),
        Err(StateError::Inconsistent(_))
    ));

    let mut value: serde_json::Value = serde_json::from_str(&json).expect("json");
    value["pending"][0]["trial"]["plus"] = serde_json::json!([1.0]);
    assert!(matches!(
        Tuner::from_json(&value.to_string()),
        Err(StateError::Inconsistent(_))
    ));

    assert!(matches!(
        Tuner::load(std::path::Path::new("/nonexistent/state.json")),
        Err(StateError::Io(_))
    ));
}

#[test]
fn a_state_saved_under_an_earlier_default_resumes_with_its_own_settings() {
    // The default recipe's settings are saved in the state, so a run started
    // before the default changed (gain 8, 1/k decay) resumes with the
    // settings it started with, not today's.
    let earlier = Schedule::Derived {
        c_ratio: 0.25,
        precision: 0.5,
        gain: 8.0,
        hold: 0.1,
        alpha: 1.0,
        eta: 3.0,
        edge: 1.0,
    };
    assert_ne!(earlier, Schedule::default());
    let dir = scratch("earlier-default");
    let path = dir.join("state.json");
    let mut first = tuner(2_000, earlier, 7);
    let mut log = Vec::new();
    drive(&mut first, 50, &mut log);
    first.save(&path).expect("saved");
    let resumed = Tuner::load(&path).expect("an earlier default's state loads");
    assert_eq!(resumed.config().schedule, earlier);
    assert_eq!(resumed, first);
    assert_eq!(resumed.current_steps(), first.current_steps());

    // States written before the `edge` field existed lack it: they read as
    // 1 (never shrink), the behaviour they were run with.
    let mut value: serde_json::Value = serde_json::from_str(&first.to_json().expect("json")).expect("json");
    let schedule = value["config"]["schedule"].as_object_mut().expect("schedule object");
    assert!(schedule.remove("edge").is_some(), "{schedule:?}");
    let old = Tuner::from_json(&value.to_string()).expect("a state without edge loads");
    assert_eq!(old, first);
    let _ = std::fs::remove_dir_all(dir);
}
