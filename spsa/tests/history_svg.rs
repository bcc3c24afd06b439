//! The history CSV (round trip, torn last line, resume) and the trace plot
//! (well-formed, one polyline per parameter, names escaped).

mod common;

use common::{fake_result, params, scratch, tuner};
use spsa::{HistoryError, HistoryRow, HistoryWriter, Kind, Param, Schedule, history_header, parse_history, traces_svg};

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

/// Checks that every tag is closed in order (a small XML well-formedness
/// test: no prolog, comments or CDATA in this output) and returns the
/// element names in document order.
fn elements(svg: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').expect("tag closed") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "nested '<' in {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else {
            let name: String = tag.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            names.push(name.clone());
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        // Text between tags holds no raw '&' except entities.
        let text_end = rest[close + 1..].find('<').map_or(rest.len(), |i| i + close + 1);
        let text = &rest[close + 1..text_end];
        for (i, _) in text.match_indices('&') {
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| text[i..].starts_with(e))
            );
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    names
}

#[test]
fn the_plot_is_well_formed_with_one_polyline_per_parameter() {
    let (params, rows) = rows_of_a_run();
    let svg = traces_svg(&params, &rows);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let names = elements(&svg);
    assert_eq!(names.first().map(String::as_str), Some("svg"));
    assert_eq!(names.iter().filter(|n| *n == "polyline").count(), params.len());
    for param in &params {
        assert!(svg.contains(&format!("data-name=\"{}\"", param.name)));
    }
    // Every polyline has a point per row, inside the plot area.
    for line in svg.lines().filter(|l| l.starts_with("<polyline")) {
        let points = line
            .split("points=\"")
            .nth(1)
            .and_then(|p| p.split('"').next())
            .expect("points");
        let points: Vec<(f64, f64)> = points
            .split(' ')
            .map(|xy| {
                let (x, y) = xy.split_once(',').expect("x,y");
                (x.parse().expect("x"), y.parse().expect("y"))
            })
            .collect();
        assert_eq!(points.len(), rows.len());
        assert!(
            points
                .iter()
                .all(|&(x, y)| (70.0..=730.0).contains(&x) && (50.0..=470.0).contains(&y))
        );
    }
    assert!(svg.contains("games"));
    assert!(svg.contains("Window = "));
}

#[test]
fn odd_names_empty_and_short_histories_still_make_a_plot() {
    let odd = Param::new("A<b>&'c'", Kind::Float, 0.5, 0.0, 1.0, 0.1, 0.002).expect("valid");
    let svg = traces_svg(std::slice::from_ref(&odd), &[]);
    assert_eq!(elements(&svg).iter().filter(|n| *n == "polyline").count(), 1);
    assert!(svg.contains("A&lt;b&gt;&amp;&apos;c&apos;"));
    let short = [
        HistoryRow {
            games: 10,
            values: vec![],
        },
        HistoryRow {
            games: 20,
            values: vec![f64::NAN],
        },
    ];
    let svg = traces_svg(&params(), &short);
    assert_eq!(elements(&svg).iter().filter(|n| *n == "polyline").count(), 3);
}
