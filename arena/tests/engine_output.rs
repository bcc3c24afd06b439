//! What the arena keeps of an engine's output, through the library with
//! real processes: long lines it does not need are dropped and counted
//! past its byte budget (never an answer it waits for), `info` lines are never
//! queued but their last score reaches the answer, and a repeated
//! `bestmove` is a counted violation, never the next answer.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use arena::{Allowance, EngineProcess, EngineSpec, FailureKind, UciEngine};
use common::mock_bin;
use protocol::SearchLimits;

fn spec(tokens: &[String]) -> Arc<EngineSpec> {
    Arc::new(EngineSpec::from_tokens(tokens).unwrap())
}

#[test]
fn long_unneeded_lines_are_dropped_and_counted_past_the_byte_budget() {
    // 2000 unknown lines of 2 KB (4 MB) and 100 000 `info` lines while
    // the arena is not reading, then the answers it waits for.
    let script = "pad=$(printf '%02000d' 0); i=0; while [ $i -lt 100000 ]; do \
                  [ $((i % 50)) -eq 0 ] && echo junk $i $pad; echo info score cp $i; i=$((i+1)); done; \
                  echo 'bestmove a3c4'; echo readyok; sleep 5";
    // `args=` splits at spaces: the script is one argument.
    let mut spec = EngineSpec::from_tokens(&["cmd=/bin/sh", "name=sh", "depth=1"]).unwrap();
    spec.args = vec!["-c".to_owned(), script.to_owned()];
    let mut process = EngineProcess::spawn(&spec).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut junk = 0u64;
    let mut best = None;
    // Let the queue fill before reading.
    std::thread::sleep(Duration::from_millis(500));
    loop {
        let line = process.recv(deadline, None).expect("every needed line arrives");
        let text = line.text.unwrap_or_default();
        if text.starts_with("junk") {
            junk += 1;
        } else if text.starts_with("bestmove") {
            best = Some((text, line.score));
        } else if text == "readyok" {
            break;
        } else {
            panic!("unexpected line {text:?}");
        }
    }
    let dropped = process.dropped_lines();
    eprintln!("{junk} junk lines kept, {dropped} dropped");
    assert_eq!(junk + dropped, 2000, "every unknown line is kept or counted");
    assert!(dropped > 0);
    assert_eq!(
        best,
        Some(("bestmove a3c4".to_owned(), Some("cp 99999".to_owned()))),
        "the last info line's score comes with the answer"
    );
}

#[test]
fn a_repeated_bestmove_is_a_violation_not_an_answer() {
    let spec = spec(&[
        format!("cmd={}", mock_bin().display()),
        "name=twice".to_owned(),
        "args=--mode twice".to_owned(),
        "depth=1".to_owned(),
    ]);
    let mut engine = UciEngine::start(spec, None).unwrap();
    engine.new_game(None).unwrap();
    let allowance = Allowance {
        time: Duration::from_secs(10),
        on_timeout: FailureKind::Stall,
    };
    let limits = SearchLimits {
        depth: Some(1),
        ..SearchLimits::default()
    };
    let mut moves = Vec::new();
    for _ in 0..4 {
        let answer = engine.search(&moves, limits.clone(), allowance, None).unwrap();
        assert_eq!(answer.score.as_deref(), Some("cp 0"));
        moves.push(answer.mv);
    }
    let violations = engine.take_violations();
    // Each answer but the last was repeated before the next search.
    assert_eq!(violations.count, 3, "{violations:?}");
    assert!(
        violations.lines.iter().all(|l| l.starts_with("bestmove ")),
        "{violations:?}"
    );
    assert_eq!(violations.dropped, 0, "nothing dropped");
    assert_eq!(engine.take_violations().count, 0, "taken once");
    engine.quit();
}

/// An engine whose `spsa` answer holds a line shaped like a parameter that
/// does not read: the tuner names it instead of dropping the parameter.
fn spsa_answer(lines: &str) -> Result<Vec<spsa::Param>, String> {
    let script = format!(
        "while read -r cmd; do case \"$cmd\" in uci) echo uciok;; spsa) {lines};; isready) echo readyok;; quit) exit 0;; esac; done"
    );
    let mut spec = EngineSpec::from_tokens(&["cmd=/bin/sh", "name=sh", "depth=1"]).unwrap();
    spec.args = vec!["-c".to_owned(), script];
    arena::engine_params(&spec).map_err(|e| e.to_string())
}

#[test]
fn a_malformed_spsa_line_is_named_not_dropped() {
    let good = spsa_answer("echo 'Alpha, int, 10, 0, 20, 2, 0.002'; echo 'Beta, int, 5, 0, 9, 1, 0.002'").unwrap();
    assert_eq!(
        good.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["Alpha", "Beta"]
    );
    let bad = spsa_answer("echo 'Alpha, int, 10, 0, 20, 2, 0.002'; echo 'Beta, int, 50, 0, 9, 1, 0.002'").unwrap_err();
    assert!(
        bad.contains("bad `spsa` line") && bad.contains("Beta") && bad.contains("outside"),
        "{bad}"
    );
    let float = spsa_answer("echo 'Gamma, float, 0.5, 0, 1, 0.1, 0.002'").unwrap_err();
    assert!(float.contains("Gamma") && float.contains("--params"), "{float}");
}
