//! The parameter file: OpenBench's lines as the engine's `spsa` command
//! prints them, comments and blank lines, and every bad line reported with
//! its number.

use spsa::{Kind, LineErrorKind, Param, ParamError, Scale, parse_params};

#[test]
fn engine_output_and_openbench_lines_parse() {
    let text = "\
AspirationWindow, int, 1000, 50, 20000, 150, 0.002
# a comment, then a blank line

TimeSoft, float, 1.0, 0.1, 5.0, 0.08, 0.002, log
CountermoveBonus, int, 8000.0, 4000.0, 16000.0, 500.0, 0.002
  Spaced ,  FLOAT , 0.5 , 0 , 1 , 0.05 , 0.002 , linear  \r
";
    let params = parse_params(text).expect("all lines good");
    assert_eq!(params.len(), 4);
    assert_eq!(
        params[0],
        Param::new("AspirationWindow", Kind::Int, 1000.0, 50.0, 20000.0, 150.0, 0.002).expect("ok")
    );
    assert_eq!(params[1].scale, Scale::Log);
    assert_eq!(params[2].start, 8000.0);
    assert_eq!(params[3].name, "Spaced");
    assert_eq!(params[3].kind, Kind::Float);
    // Each parameter prints back as its own line.
    let again: String = params.iter().map(|p| format!("{p}\n")).collect();
    assert_eq!(parse_params(&again).expect("round trip"), params);
}

#[test]
fn every_bad_line_is_reported_with_its_number() {
    let text = "\
Good, int, 5, 0, 10, 1, 0.002
TooFew, int, 5, 0, 10, 1
Kindless, integer, 5, 0, 10, 1, 0.002
Wordy, int, five, 0, 10, 1, 0.002
# fine
Upside, int, 5, 10, 0, 1, 0.002
Outside, float, 11, 0, 10, 1, 0.002
Half, int, 5, 0.5, 10, 1, 0.002
Still, float, 5, 0, 10, 0, 0.002
LogZero, float, 5, 0, 10, 1, 0.002, log
Scaled, float, 5, 1, 10, 1, 0.002, cubic
Good, int, 6, 0, 10, 1, 0.002
Nan, float, NaN, 0, 10, 1, 0.002
Huge, float, 5, 0, 1e300, 1, 0.002
, int, 5, 0, 10, 1, 0.002
";
    let error = parse_params(text).expect_err("bad lines");
    let lines: Vec<usize> = error.lines.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    let kinds: Vec<&LineErrorKind> = error.lines.iter().map(|e| &e.kind).collect();
    assert_eq!(kinds[0], &LineErrorKind::FieldCount(6));
    assert_eq!(kinds[1], &LineErrorKind::UnknownKind("integer".to_string()));
    assert_eq!(
        kinds[2],
        &LineErrorKind::BadNumber {
            field: "start",
            text: "five".to_string()
        }
    );
    assert_eq!(
        kinds[3],
        &LineErrorKind::Invalid(ParamError::EmptyRange { min: 10.0, max: 0.0 })
    );
    assert!(matches!(
        kinds[4],
        LineErrorKind::Invalid(ParamError::StartOutside { .. })
    ));
    assert_eq!(
        kinds[5],
        &LineErrorKind::Invalid(ParamError::NotWhole {
            field: "min",
            value: 0.5
        })
    );
    assert_eq!(
        kinds[6],
        &LineErrorKind::Invalid(ParamError::NotPositive {
            field: "c_end",
            value: 0.0
        })
    );
    assert_eq!(kinds[7], &LineErrorKind::Invalid(ParamError::LogNeedsPositive(0.0)));
    assert_eq!(kinds[8], &LineErrorKind::UnknownScale("cubic".to_string()));
    assert_eq!(kinds[9], &LineErrorKind::Duplicate("Good".to_string()));
    assert_eq!(
        kinds[10],
        &LineErrorKind::Invalid(ParamError::OutOfScale { field: "start" })
    );
    assert_eq!(
        kinds[11],
        &LineErrorKind::Invalid(ParamError::OutOfScale { field: "max" })
    );
    assert_eq!(kinds[12], &LineErrorKind::Invalid(ParamError::EmptyName));
    let message = error.to_string();
    assert!(message.starts_with("line 2: expected 5 or 7 fields"), "{message}");
    assert!(message.contains("line 4: start is not a number: 'five'"), "{message}");
}

#[test]
fn an_empty_file_has_no_parameters() {
    assert_eq!(parse_params("").expect("empty is fine"), Vec::new());
    assert_eq!(parse_params("# nothing\n\n").expect("comments only"), Vec::new());
}
