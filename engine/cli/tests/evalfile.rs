//! `Eval nnue` and `EvalFile` through the real process: the options are
//! listed, searches with the embedded network and with a loaded one give
//! legal moves, and a file that does not load is named in an `info string`
//! error while the engine keeps the network it had.

mod process;

use leaper::{Position, SetupCase};
use leaper_nnue::FloatNetwork;
use process::Engine;
use protocol::{EngineMessage, OptionKind};
use rand::SeedableRng;
use rand::rngs::StdRng;

const MOVES: &str = "AWNAADADAFFAADDA aaaaaffdaddadnwa";

fn uci_engine() -> Engine {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    engine.until(|l| l == "uciok");
    engine
}

/// Searches the position after `MOVES` and checks the move is legal.
fn search_is_legal(engine: &mut Engine) {
    engine.send(&format!("position startpos moves {MOVES}"));
    engine.send("go depth 4");
    let lines = engine.bestmove();
    let Ok(EngineMessage::BestMove(Some(best))) = lines.last().unwrap().parse::<EngineMessage>() else {
        panic!("{lines:?}");
    };
    let mut pos = Position::new();
    for text in MOVES.split_whitespace() {
        let mv = pos.parse_move(text, SetupCase::Strict).unwrap();
        pos.play_game_move(&mv);
    }
    pos.move_from_text(best.best, SetupCase::Strict)
        .unwrap_or_else(|e| panic!("{lines:?}: not legal: {e}"));
}

#[test]
fn eval_and_evalfile_are_listed() {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    let lines = engine.until(|l| l == "uciok");
    let options: Vec<protocol::UciOption> = lines
        .iter()
        .filter_map(|l| match l.parse() {
            Ok(EngineMessage::Option(o)) => Some(o),
            _ => None,
        })
        .collect();
    let eval = options.iter().find(|o| o.name == "Eval").expect("Eval listed");
    let OptionKind::Combo { vars, .. } = &eval.kind else {
        panic!("{eval:?}")
    };
    assert!(vars.iter().any(|v| v == "nnue"), "{vars:?}");
    let file = options.iter().find(|o| o.name == "EvalFile").expect("EvalFile listed");
    assert!(matches!(file.kind, OptionKind::String { .. }), "{file:?}");
}

#[test]
fn nnue_searches_with_the_embedded_and_a_loaded_network() {
    let mut engine = uci_engine();
    engine.send("setoption name Eval value nnue");
    assert_eq!(engine.sync(), Vec::<String>::new());
    search_is_legal(&mut engine);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("random.nnue");
    FloatNetwork::random(&mut StdRng::seed_from_u64(4))
        .quantize()
        .save(&path)
        .unwrap();
    engine.send(&format!("setoption name EvalFile value {}", path.display()));
    assert_eq!(engine.sync(), Vec::<String>::new());
    search_is_legal(&mut engine);
    engine.send("quit");
    assert!(engine.wait().success());
}

/// The candidate network kept in the repository for the next round of
/// training (`engine/data/candidate.nnue`, engine/train/README.md) loads
/// through `EvalFile` without an error and searches legally: a later
/// session starts from it, so it must stay a valid file of this format.
#[test]
fn the_committed_candidate_network_loads_and_searches() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/candidate.nnue");
    assert!(path.is_file(), "{} is missing", path.display());
    let mut engine = uci_engine();
    engine.send("setoption name Eval value nnue");
    engine.send(&format!("setoption name EvalFile value {}", path.display()));
    assert_eq!(engine.sync(), Vec::<String>::new());
    search_is_legal(&mut engine);
    engine.send("quit");
    assert!(engine.wait().success());
}

#[test]
fn a_bad_network_file_is_named_and_the_previous_network_stays() {
    let mut engine = uci_engine();
    engine.send("setoption name Eval value nnue");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.nnue");
    engine.send(&format!("setoption name EvalFile value {}", missing.display()));
    let lines = engine.sync();
    assert!(
        lines.len() == 1 && lines[0].starts_with("info string error") && lines[0].contains("missing.nnue"),
        "{lines:?}"
    );

    let junk = dir.path().join("junk.nnue");
    std::fs::write(&junk, b"LEAPDATA this is no network").unwrap();
    engine.send(&format!("setoption name EvalFile value {}", junk.display()));
    let lines = engine.sync();
    assert!(
        lines.len() == 1 && lines[0].contains("junk.nnue") && lines[0].contains("keeping the previous network"),
        "{lines:?}"
    );

    // A network whose payload was damaged after it was written.
    let damaged = dir.path().join("damaged.nnue");
    FloatNetwork::random(&mut StdRng::seed_from_u64(5))
        .quantize()
        .save(&damaged)
        .unwrap();
    let mut bytes = std::fs::read(&damaged).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&damaged, &bytes).unwrap();
    engine.send(&format!("setoption name EvalFile value {}", damaged.display()));
    let lines = engine.sync();
    assert!(lines.len() == 1 && lines[0].contains("damaged.nnue"), "{lines:?}");
    eprintln!("{lines:?}");

    search_is_legal(&mut engine);
}

/// `Eval linear` is the default, with the embedded model: choosing it
/// needs no file and searches legally; after `EvalFile` names another
/// linear model it searches legally with that one.
#[test]
fn linear_searches_with_a_loaded_linear_model() {
    let mut engine = uci_engine();
    engine.send("setoption name Eval value linear");
    assert_eq!(engine.sync(), Vec::<String>::new());
    search_is_legal(&mut engine);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.linear");
    let mut model = leaper_nnue::train::LinearModel::default();
    let mut rng = StdRng::seed_from_u64(9);
    model
        .weights
        .iter_mut()
        .for_each(|w| *w = rand::Rng::random_range(&mut rng, -0.5..0.5));
    leaper_nnue::LinearNet::from_model(&model).save(&path).unwrap();
    engine.send(&format!("setoption name EvalFile value {}", path.display()));
    assert_eq!(engine.sync(), Vec::<String>::new());
    engine.send("setoption name Eval value linear");
    assert_eq!(engine.sync(), Vec::<String>::new());
    search_is_legal(&mut engine);
    engine.send("quit");
    assert!(engine.wait().success());
}

/// `leaper bench --eval linear --eval-file FILE` searches with the loaded
/// model: the same count twice, another than with the embedded model or
/// with full; a file that does not load is named.
#[test]
fn bench_takes_an_evaluation_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.linear");
    let mut model = leaper_nnue::train::LinearModel::default();
    let mut rng = StdRng::seed_from_u64(10);
    model
        .weights
        .iter_mut()
        .for_each(|w| *w = rand::Rng::random_range(&mut rng, -0.5..0.5));
    leaper_nnue::LinearNet::from_model(&model).save(&path).unwrap();
    let bench = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_leaper"))
            .args(["bench", "--depth", "4"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let nodes = |stdout: &str| {
        stdout
            .lines()
            .last()
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
    };
    let file = path.to_str().unwrap();
    let (ok, a, err) = bench(&["--eval", "linear", "--eval-file", file]);
    assert!(ok, "{err}");
    let (_, b, _) = bench(&["--eval", "linear", "--eval-file", file]);
    let (_, full, _) = bench(&["--eval", "full"]);
    let (_, shipped, _) = bench(&["--eval", "linear"]);
    assert_eq!(nodes(&a), nodes(&b));
    assert_ne!(nodes(&a), nodes(&shipped), "the loaded model is not used");
    assert_ne!(nodes(&a), nodes(&full), "the loaded model is not used");
    let (ok, _, err) = bench(&["--eval", "linear", "--eval-file", "/nonexistent/x.linear"]);
    assert!(!ok && err.contains("x.linear"), "{err}");
}
