//! Property tests: no input makes the tuner, the parser or the writers
//! panic or produce NaN, values stay in range whatever the results, and the
//! state round-trips at any point.

use proptest::prelude::*;
use spsa::{
    Config, Kind, Param, Pentanomial, Scale, Schedule, TrialId, Tuner, history_line, parse_history, parse_params,
};

/// Any f64, with the awkward ones well represented.
fn any_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(-0.0),
        Just(1e15),
        Just(-1e15),
        -1e6..1e6f64,
        -10.0..10.0f64,
        any::<f64>(),
    ]
}

/// Parameters that pass validation, of every shape.
fn valid_param() -> impl Strategy<Value = Param> {
    (
        any::<bool>(),
        any::<bool>(),
        -1e6..1e6f64,
        1e-3..1e6f64,
        0.0..1.0f64,
        1e-6..1e7f64,
        1e-6..10.0f64,
    )
        .prop_map(|(int, log, low, width, at, c_end, r_end)| {
            let (mut min, mut max) = (low, low + width);
            if int {
                min = min.floor();
                max = max.ceil().max(min + 1.0);
            }
            if log {
                let shift = 1e-3 - min.min(0.0);
                min += if int { shift.ceil() + 1.0 } else { shift };
                max += if int { shift.ceil() + 1.0 } else { shift };
            }
            let start = min + at * (max - min);
            Param {
                name: "p".to_string(),
                kind: if int { Kind::Int } else { Kind::Float },
                start,
                min,
                max,
                c_end: Some(c_end),
                r_end: Some(r_end),
                scale: if log { Scale::Log } else { Scale::Linear },
            }
        })
        .prop_filter("valid", |p| p.validate().is_ok())
}

fn schedule() -> impl Strategy<Value = Schedule> {
    prop_oneof![
        Just(Schedule::default()),
        Just(Schedule::fishtest()),
        (
            1e-6..0.5f64,
            1e-6..1e3f64,
            1e-3..1e3f64,
            1e-6..1.0f64,
            0.0..2.0f64,
            0.0..100.0f64,
            0.0..=1.0f64
        )
            .prop_map(|(c_ratio, precision, gain, hold, alpha, eta, edge)| Schedule::Derived {
                c_ratio,
                precision,
                gain,
                hold,
                alpha,
                eta,
                edge
            }),
        (1e-3..1e3f64, 1e-6..1.0f64, 0.0..2.0f64, 0.0..1.0f64, 0.0..100.0f64).prop_map(
            |(gain, hold, alpha, gamma, eta)| Schedule::Averaged {
                gain,
                hold,
                alpha,
                gamma,
                eta
            }
        ),
    ]
}

#[derive(Clone, Debug)]
enum Step {
    Ask,
    Tell(usize, [u8; 5]),
    TellUnknown(u64),
    Cancel(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Ask),
        4 => (any::<usize>(), any::<[u8; 5]>()).prop_map(|(i, r)| Step::Tell(i, r)),
        1 => any::<u64>().prop_map(Step::TellUnknown),
        1 => any::<usize>().prop_map(Step::Cancel),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_numbers_make_a_param_or_an_error(
        start in any_number(), min in any_number(), max in any_number(),
        c_end in any_number(), r_end in any_number(), int: bool, log: bool,
    ) {
        let kind = if int { Kind::Int } else { Kind::Float };
        let param = Param::new("x", kind, start, min, max, c_end, r_end);
        let param = if log { param.and_then(Param::log_scale) } else { param };
        if let Ok(param) = param {
            prop_assert!(param.validate().is_ok());
            prop_assert!(Tuner::new(vec![param], Config::new(10)).is_ok());
        }
    }

    #[test]
    fn any_text_parses_or_reports_lines(text in "(?s).{0,400}") {
        match parse_params(&text) {
            Ok(params) => prop_assert!(params.iter().all(|p| p.validate().is_ok())),
            Err(error) => prop_assert!(error.lines.iter().all(|e| e.line >= 1 && e.line <= text.lines().count())),
        }
        let _ = parse_history(&text);
    }

    #[test]
    fn any_line_shaped_text_parses_or_reports(
        fields in proptest::collection::vec("[ -+.0-9a-zA-Z_eE]{0,12}", 0..10),
    ) {
        let _ = parse_params(&fields.join(","));
    }

    #[test]
    fn any_results_in_any_order_keep_values_finite_and_in_range(
        params in proptest::collection::vec(valid_param(), 1..5),
        schedule in schedule(),
        games in 2u64..400,
        pairs_per_trial in 1u32..5,
        seed: u64,
        steps in proptest::collection::vec(step(), 0..120),
    ) {
        let params: Vec<Param> = params
            .into_iter()
            .enumerate()
            .map(|(i, p)| Param { name: format!("p{i}"), ..p })
            .collect();
        let config = Config { games, pairs_per_trial, schedule, seed };
        let mut tuner = Tuner::new(params.clone(), config).expect("valid by construction");
        let mut in_flight: Vec<spsa::Trial> = Vec::new();
        for step in steps {
            match step {
                Step::Ask => {
                    if let Some(trial) = tuner.ask() {
                        for ((p, &plus), &minus) in params.iter().zip(&trial.plus).zip(&trial.minus) {
                            prop_assert!((p.min..=p.max).contains(&plus), "{} {plus}", p);
                            prop_assert!((p.min..=p.max).contains(&minus), "{} {minus}", p);
                        }
                        in_flight.push(trial);
                    }
                }
                Step::Tell(i, r) if !in_flight.is_empty() => {
                    let trial = in_flight.remove(i % in_flight.len());
                    let counts = r.map(u64::from);
                    let result = Pentanomial::new(counts[0], counts[1], counts[2], counts[3], counts[4]);
                    let told = tuner.tell(trial.id, result);
                    prop_assert_eq!(told.is_ok(), result.pairs() <= u64::from(trial.pairs));
                    if told.is_err() {
                        tuner.cancel(trial.id).expect("still pending");
                    }
                }
                Step::Cancel(i) if !in_flight.is_empty() => {
                    let trial = in_flight.remove(i % in_flight.len());
                    prop_assert!(tuner.cancel(trial.id).is_ok());
                }
                Step::TellUnknown(id) if !in_flight.iter().any(|t| t.id.0 == id) => {
                    prop_assert!(tuner.tell(TrialId(id), Pentanomial::default()).is_err());
                }
                _ => {}
            }
            for (p, v) in params.iter().zip(tuner.values()) {
                prop_assert!(v.is_finite() && (p.min..=p.max).contains(&v), "{} {v}", p);
            }
            for (p, v) in params.iter().zip(tuner.iterate()) {
                prop_assert!(v.is_finite() && (p.min..=p.max).contains(&v), "{} {v}", p);
            }
        }
        let json = tuner.to_json().expect("serializes");
        prop_assert_eq!(&Tuner::from_json(&json).expect("restores"), &tuner);
        let row = tuner.history_row();
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        let csv = format!("{}{}", spsa::history_header(&names), history_line(&row));
        prop_assert_eq!(parse_history(&csv).expect("parses").rows, vec![row]);
    }
}
