//! The UCI server as a real process over pipes: handshake, options, a whole
//! game played by the engine against itself, `isready` and `stop` during a
//! search, perft, game over, and bad input answered without harm. Lines
//! from the engine are parsed with the `protocol` crate and moves checked
//! with the rules, so these tests pin what a GUI or the arena sees.

mod process;

use leaper::{GameMove, Position, SetupCase};
use process::Engine;
use protocol::{EngineMessage, OptionKind};
use std::time::{Duration, Instant};

fn parse(line: &str) -> EngineMessage {
    line.parse()
        .unwrap_or_else(|e| panic!("engine line `{line}` does not parse: {e}"))
}

fn uci_engine() -> Engine {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    engine.until(|l| l == "uciok");
    engine
}

/// The move of a `bestmove` line, checked to be legal in `pos`.
fn legal_bestmove(line: &str, pos: &Position) -> Option<GameMove> {
    match parse(line) {
        EngineMessage::BestMove(None) => None,
        EngineMessage::BestMove(Some(best)) => Some(
            pos.move_from_text(best.best, SetupCase::Strict)
                .unwrap_or_else(|e| panic!("`{line}` is not legal in {pos:?}: {e}")),
        ),
        other => panic!("expected bestmove, got {other:?}"),
    }
}

#[test]
fn nothing_is_written_before_the_first_line_and_the_handshake_follows_uci() {
    let mut engine = Engine::start(&[]);
    assert_eq!(engine.try_line(Duration::from_millis(300)), None);
    engine.send("uci");
    let lines = engine.until(|l| l == "uciok");
    assert!(matches!(parse(&lines[0]), EngineMessage::Id(protocol::Id::Name(n)) if n.starts_with("leaper")));
    assert!(matches!(parse(&lines[1]), EngineMessage::Id(protocol::Id::Author(_))));
    assert!(lines[2..lines.len() - 1].iter().all(|l| l.starts_with("option name ")));
    assert_eq!(engine.sync(), Vec::<String>::new());
    engine.send("quit");
    assert!(engine.wait().success());
}

#[test]
fn options_are_listed_with_types_and_ranges_and_match_spsa() {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    let lines = engine.until(|l| l == "uciok");
    let options: Vec<protocol::UciOption> = lines
        .iter()
        .filter_map(|l| match parse(l) {
            EngineMessage::Option(o) => Some(o),
            _ => None,
        })
        .collect();
    let kind = |name: &str| {
        options
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("option {name} missing"))
            .kind
            .clone()
    };
    assert!(matches!(
        kind("Hash"),
        OptionKind::Spin {
            default: 16,
            min: 1,
            ..
        }
    ));
    assert!(matches!(
        kind("Threads"),
        OptionKind::Spin {
            default: 1,
            min: 1,
            max: 256
        }
    ));
    // One check per feature switch, on by default.
    for switch in [
        "NullMove",
        "Lmr",
        "Futility",
        "Aspiration",
        "CheckExtension",
        "Repetition",
        "Quiescence",
    ] {
        assert_eq!(kind(switch), OptionKind::Check { default: true }, "{switch}");
    }
    assert!(matches!(kind("MoveOverhead"), OptionKind::Spin { min: 0, .. }));
    assert!(matches!(kind("MultiPV"), OptionKind::Spin { default: 1, .. }));
    assert_eq!(kind("OwnBook"), OptionKind::Check { default: true });
    assert!(matches!(
        kind("BookVariety"),
        OptionKind::Spin {
            default: 1,
            min: 1,
            max: 1000
        }
    ));
    assert_eq!(kind("Ponder"), OptionKind::Check { default: false });

    engine.send("spsa");
    let spsa: Vec<protocol::SpsaParam> = engine
        .sync()
        .iter()
        .map(|l| match parse(l) {
            EngineMessage::Spsa(p) => p,
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(spsa.len() >= 5);
    for p in &spsa {
        assert_eq!(
            kind(&p.name),
            OptionKind::Spin {
                default: p.value,
                min: p.min,
                max: p.max
            },
            "{}",
            p.name
        );
    }
    // Names are case-insensitive; a change shows in `spsa`; out of range is
    // refused and changes nothing.
    let name = spsa[0].name.clone();
    let value = (spsa[0].min + spsa[0].max) / 2;
    engine.send(&format!("setoption name {} value {value}", name.to_lowercase()));
    engine.send(&format!("setoption name {name} value {}", spsa[0].max + 1));
    engine.send("spsa");
    let lines = engine.sync();
    assert!(lines[0].starts_with("info string error: "), "{lines:?}");
    assert!(lines[1].starts_with(&format!("{name}, int, {value},")), "{lines:?}");
}

#[test]
fn the_engine_plays_a_whole_game_against_itself_to_a_finished_position() {
    let mut engine = uci_engine();
    engine.send("ucinewgame");
    let mut pos = Position::new();
    let mut moves: Vec<String> = Vec::new();
    for ply in 0.. {
        assert!(ply <= 102, "the game did not end by ply 102");
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        // Alternate limits so both kinds are exercised.
        engine.send(if ply % 2 == 0 { "go nodes 2000" } else { "go depth 2" });
        let lines = engine.bestmove();
        for line in &lines[..lines.len() - 1] {
            assert!(matches!(parse(line), EngineMessage::Info(_)), "{line}");
        }
        let Some(mv) = legal_bestmove(lines.last().unwrap(), &pos) else {
            let outcome = pos.outcome().expect("bestmove (none) only in a finished position");
            let info = lines.iter().rev().nth(1).expect("an info before bestmove (none)");
            assert_eq!(info, &format!("info string gameover {outcome}"));
            break;
        };
        assert!(pos.outcome().is_none());
        moves.push(mv.to_text(pos.turn()));
        pos.play_game_move(&mv);
    }
    assert!(pos.outcome().is_some());
    engine.send("quit");
    assert!(engine.wait().success());
}

#[test]
fn isready_is_answered_during_go_infinite_and_stop_gives_one_bestmove() {
    let mut engine = uci_engine();
    engine.send("position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6");
    for _ in 0..3 {
        engine.send("go infinite");
        std::thread::sleep(Duration::from_millis(100));
        let asked = Instant::now();
        let before = engine.sync();
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "readyok took {:?}",
            asked.elapsed()
        );
        assert!(before.iter().all(|l| l.starts_with("info depth")), "{before:?}");
        engine.send("stop");
        engine.bestmove();
        // Exactly one: nothing but readyok follows.
        engine.send("stop");
        assert_eq!(engine.sync(), Vec::<String>::new());
    }
    engine.send("quit");
    assert!(engine.wait().success());
}

#[test]
fn go_perft_counts_like_the_rules() {
    let mut engine = uci_engine();
    let moves = "AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3";
    engine.send(&format!("position startpos moves {moves}"));
    engine.send("go perft 2");
    let lines = engine.until(|l| l.starts_with("Nodes searched:"));
    let mut pos = Position::new();
    for m in moves.split_whitespace() {
        let mv = pos.parse_move(m, SetupCase::Strict).unwrap();
        pos.play_game_move(&mv);
    }
    let mut sum = 0;
    for line in &lines[..lines.len() - 1] {
        let EngineMessage::PerftMove { nodes, .. } = parse(line) else {
            panic!("{line}")
        };
        sum += nodes;
    }
    assert_eq!(
        parse(lines.last().unwrap()),
        EngineMessage::PerftTotal(leaper::perft(&pos, 2))
    );
    assert_eq!(sum, leaper::perft(&pos, 2));
    // A count that would take days stops on demand.
    engine.send("position startpos");
    engine.send("go perft 3");
    std::thread::sleep(Duration::from_millis(50));
    engine.send("stop");
    let lines = engine.sync();
    assert!(lines.iter().any(|l| l == "info string perft stopped"), "{lines:?}");
}

#[test]
fn a_finished_position_gets_gameover_and_bestmove_none() {
    let mut engine = uci_engine();
    // Blue's wazir has been captured; Blue is to move.
    engine.send("position fen W7/8/8/8/8/6D1/5D2/8 Aaaaaaaaaaaaaaaaddddddffffnn b 41");
    engine.send("go depth 3");
    let lines = engine.bestmove();
    assert_eq!(lines, ["info string gameover 1-0 (wazir-captured)", "bestmove (none)"]);
    engine.send("go infinite");
    assert_eq!(engine.bestmove().last().map(String::as_str), Some("bestmove (none)"));
}

#[test]
fn bad_input_is_answered_with_errors_and_changes_nothing() {
    let mut engine = uci_engine();
    let good = "position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa";
    engine.send(good);
    engine.send("d");
    let fen_line = |lines: &[String]| lines.iter().find(|l| l.starts_with("fen: ")).cloned().unwrap();
    let fen = fen_line(&engine.sync());
    let bad = [
        "position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa b5d9",
        "position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa a1a2",
        "position startpos moves AWNAADADAFFAADDA AWNAADADAFFAADDA",
        "position startpos moves aaaaaffdaddadnwa",
        "position fen WWWWWWWW/WWWWWWWW/W7/8/8/8/aaaaaaaa/ddddffnw - r 2",
        "position fen 8/8/8/8/8/8/8/8 - b 0",
        "position fen",
        "position",
        "setoption name NoSuchOption value 3",
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name Hash value 100000000",
        "setoption name OwnBook value maybe",
        "setoption name Threads value 0",
        "setoption name NullMove value maybe",
        "setoption name FutilityMargin value -5",
        "setoption name FutilityMargin",
        "go depth x",
        "go depth 3 depth 4",
        "go perft",
        "xyzzy",
        "\u{1}\u{2}\u{3}",
        "uci extra",
    ];
    for line in bad {
        engine.send(line);
        let lines = engine.sync();
        assert!(
            lines.len() == 1 && lines[0].starts_with("info string error: "),
            "`{line}` gave {lines:?}"
        );
    }
    engine.send_bytes(b"go \xff\xfe depth\n");
    engine.send_bytes(&vec![b'x'; 2 << 20]);
    engine.send_bytes(b"\n\n   \n");
    let lines = engine.sync();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("info string error: ")));
    engine.send("d");
    assert_eq!(fen_line(&engine.sync()), fen, "a bad line changed the position");
    // And the engine still plays.
    engine.send("go depth 3");
    let lines = engine.bestmove();
    let pos = Position::from_fen(fen.trim_start_matches("fen: ")).unwrap();
    assert!(legal_bestmove(lines.last().unwrap(), &pos).is_some());
    engine.send("quit");
    assert!(engine.wait().success());
}

#[test]
fn go_before_position_plays_a_setup_and_end_of_input_quits() {
    let mut engine = uci_engine();
    engine.send("go wtime 30000 btime 30000");
    let lines = engine.bestmove();
    assert!(legal_bestmove(lines.last().unwrap(), &Position::new()).is_some());
    engine.send("position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    engine.close_input();
    // The running search still answers, then the engine exits cleanly.
    engine.bestmove();
    assert!(engine.wait().success());
}

#[test]
fn clock_limits_are_honoured() {
    let mut engine = uci_engine();
    engine.send("position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6");
    for (go, most) in [
        ("go movetime 300", 1_000),
        ("go wtime 3000 btime 3000", 1_500),
        ("go wtime 1000 winc 100 btime 5", 1_000),
    ] {
        let start = Instant::now();
        engine.send(go);
        engine.bestmove();
        let took = start.elapsed();
        assert!(took < Duration::from_millis(most), "`{go}` took {took:?}");
    }
}

#[test]
fn ponder_waits_for_ponderhit_and_searchmoves_restrict_the_root() {
    let mut engine = uci_engine();
    engine.send("position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6");
    engine.send("go ponder wtime 2000 btime 2000 movetime 100");
    std::thread::sleep(Duration::from_millis(400));
    // Pondering ignores the clock: no bestmove yet.
    let early = engine.sync();
    assert!(early.iter().all(|l| !l.starts_with("bestmove")), "{early:?}");
    let hit = Instant::now();
    engine.send("ponderhit");
    engine.bestmove();
    assert!(
        hit.elapsed() < Duration::from_secs(3),
        "{:?} after ponderhit",
        hit.elapsed()
    );

    engine.send("go depth 3 searchmoves a3c4 b4d6");
    let lines = engine.bestmove();
    let best = lines.last().unwrap();
    assert!(
        best.starts_with("bestmove a3c4") || best.starts_with("bestmove b4d6"),
        "{lines:?}"
    );
    engine.send("go depth 1 searchmoves a1h8");
    let lines = engine.bestmove();
    assert!(lines[0].starts_with("info string error: go searchmoves"), "{lines:?}");
}
