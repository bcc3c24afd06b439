//! The history CSV: round trip, torn last line, resume.

mod common;

use common::{fake_result, scratch, tuner};
use spsa::{HistoryError, HistoryRow, HistoryWriter, Param, Schedule, history_header, parse_history};

fn rows_of_a_run() -> (Vec<Param>, Vec<HistoryRow>) {
    let mut tuner = tuner(400, Schedule::default(), 9);
    let mut rows = vec![tuner.history_row()];
    while let Some(trial) = tuner.ask() {
        tuner.tell(trial.id, fake_result(&trial)).expect("pending");
        rows.push(tuner.history_row());
    }
    (tuner.params().to_vec(), rows)
}

#[test]
fn the_history_round_trips_exactly() {
    let dir = scratch("history");
    let path = dir.join("history.csv");
    let (params, rows) = rows_of_a_run();
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let mut writer = HistoryWriter::create(&path, &names).expect("created");
    for row in &rows {
        writer.append(row).expect("appended");
    }
    drop(writer);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.starts_with("games,Window,Lmr,Hard\n0,1000,0.75,"), "{text}");
    let history = parse_history(&text).expect("parsed");
    assert_eq!(history.names, names);
    assert_eq!(history.rows, rows);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_torn_last_line_is_dropped_and_resume_cuts_rows_past_the_state() {
    let dir = scratch("history-resume");
    let path = dir.join("history.csv");
    let names = ["a", "b"];
    let row = |games, a, b| HistoryRow {
        games,
        values: vec![a, b],
    };
    let mut writer = HistoryWriter::create(&path, &names).expect("created");
    for r in [row(4, 1.0, 2.0), row(8, 1.5, 2.5), row(12, 2.0, 3.0)] {
        writer.append(&r).expect("appended");
    }
    drop(writer);
    // A kill in the middle of the next write.
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("16,2.5,3");
    std::fs::write(&path, &text).expect("written");
    assert_eq!(parse_history(&text).expect("parsed").rows.len(), 3);

    // The state was saved after 8 games: rows 12 and the torn one go.
    let (mut writer, kept) = HistoryWriter::resume(&path, &names, 8).expect("resumed");
    assert_eq!(kept, vec![row(4, 1.0, 2.0), row(8, 1.5, 2.5)]);
    writer.append(&row(12, 9.0, 9.5)).expect("appended");
    let text = std::fs::read_to_string(&path).expect("read");
    assert_eq!(text, "games,a,b\n4,1,2\n8,1.5,2.5\n12,9,9.5\n");

    assert!(matches!(
        HistoryWriter::resume(&path, &["a", "c"], 8),
        Err(HistoryError::Header { .. })
    ));
    let (_, none) = HistoryWriter::resume(&dir.join("new.csv"), &names, 0).expect("fresh");
    assert!(none.is_empty());
    assert_eq!(
        std::fs::read_to_string(dir.join("new.csv")).expect("read"),
        history_header(&names)
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_rows_are_reported_with_their_line() {
    assert!(matches!(parse_history(""), Err(HistoryError::NoHeader)));
    assert!(matches!(parse_history("name,a\n"), Err(HistoryError::NoHeader)));
    assert!(matches!(
        parse_history("games,a\n1,2\nx,3\n"),
        Err(HistoryError::Row { line: 3, .. })
    ));
    assert!(matches!(
        parse_history("games,a\n1,2,3\n"),
        Err(HistoryError::Row { line: 2, .. })
    ));
}
