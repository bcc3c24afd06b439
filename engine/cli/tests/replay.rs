//! The rules against real games: every CodeCup 2026 game replays, the edge
//! cases of shared/data/edge-cases.txt end as the rules say, and the
//! `leaper replay` binary reports good and damaged files correctly.

use leaper::{Color, EndReason, MAX_PLY, MoveError, Outcome};
use leaper_train::replay::{GameError, check_file, replay_moves};
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(path)
}

fn codecup_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(shared("codecup-2026"))
        .expect("shared/data/codecup-2026 beside the checkout")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_codecup_game_replays_with_a_consistent_result() {
    let files = codecup_files();
    assert_eq!(files.len(), 6);
    let (mut games, mut legal) = (0, 0);
    for file in &files {
        let report = check_file(file).expect("readable transcript");
        for failure in &report.failures {
            eprintln!("{}: game {}: {}", file.display(), failure.game, failure.error);
        }
        assert!(report.failures.is_empty(), "{} has failures", file.display());
        games += report.games;
        legal += report.legal;
    }
    assert_eq!(games, 7288);
    assert_eq!(legal, 7288);
}

fn edge_case(name: &str) -> String {
    let text = std::fs::read_to_string(shared("edge-cases.txt")).expect("edge-cases.txt");
    text.lines()
        .find_map(|l| l.strip_prefix(name).filter(|rest| rest.starts_with(' ')))
        .unwrap_or_else(|| panic!("no edge case {name}"))
        .trim()
        .to_string()
}

#[test]
fn a_side_without_legal_moves_loses() {
    for (name, loser) in [("no-legal-move-red", Color::Red), ("no-legal-move-blue", Color::Blue)] {
        let (pos, _) = replay_moves(&edge_case(name)).expect("legal moves");
        assert_eq!(pos.turn(), loser, "{name}");
        assert_eq!(pos.count_moves(), 0, "{name}");
        assert_eq!(
            pos.outcome(),
            Some(Outcome {
                winner: Some(!loser),
                reason: EndReason::NoLegalMove
            }),
            "{name}"
        );
        assert_eq!(pos.terminal(), None, "{name}: not ended by capture or ply limit");
    }
}

#[test]
fn a_wazir_captured_on_ply_102_wins() {
    let moves = edge_case("capture-on-ply-102");
    let (pos, played) = replay_moves(&moves).expect("legal moves");
    assert_eq!(played.len(), MAX_PLY as usize);
    assert_eq!(pos.ply(), MAX_PLY);
    assert_eq!(
        pos.outcome(),
        Some(Outcome {
            winner: Some(Color::Blue),
            reason: EndReason::WazirCaptured
        })
    );
    // One ply earlier the game was still on.
    let shorter: Vec<&str> = moves.split_whitespace().take(101).collect();
    let (before, _) = replay_moves(&shorter.join(" ")).expect("legal moves");
    assert_eq!(before.outcome(), None);
}

#[test]
fn moves_after_the_end_are_illegal() {
    let mut moves = edge_case("capture-on-ply-102");
    moves.push_str(" a1c3");
    match replay_moves(&moves) {
        Err(GameError::Move {
            ply: 103,
            error: MoveError::Illegal(_),
            ..
        }) => {}
        other => panic!("expected an illegal 103rd move, got {other:?}"),
    }
}

fn leaper() -> Command {
    Command::new(env!("CARGO_BIN_EXE_leaper"))
}

#[test]
fn replay_binary_checks_all_codecup_files() {
    let out = leaper()
        .arg("replay")
        .args(codecup_files())
        .output()
        .expect("run leaper");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("7288 games, 7288 legal, 0 errors"));
}

#[test]
fn replay_binary_names_file_game_ply_and_move_of_an_error() {
    let dir = std::env::temp_dir().join(format!("leaper-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.csv");
    std::fs::write(
        &file,
        "Game,Round,IsSwiss,User1,Score1,Status1,User2,Score2,Status2,Moves\n\
         1,1,swiss,A,21,WIN,B,1,LOSE,AAAAAANWADDADFFD adaafadaaaddwanf b5d5 h7f6 d5f5 f6d7 f5h5\n\
         2,1,swiss,A,21,WIN,B,1,LOSE,AAAAAANWADDADFFD adaafadaaaddwanf b5d6 h7f6\n\
         3,1,swiss,A,1,LOSE,B,21,WIN,AAAAAANWADDADFFD adaafadaaaddwanf b5d5 h7f6 d5f5 f6d7 f5h5\n\
         4,1,swiss,A,0,TIMEOUT,B,21,WIN,AAAAAANWADDADFFD adaafadaaaddwanf b5d5\n",
    )
    .unwrap();
    let out = leaper().arg("replay").arg(&file).output().expect("run leaper");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(stdout.contains("bad.csv: game 2: ply 3, move 'b5d6'"), "{stdout}");
    assert!(stdout.contains("game 3:") && stdout.contains("status LOSE"), "{stdout}");
    assert!(stdout.contains("game 4:") && stdout.contains("forfeit"), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("4 games, 1 legal, 3 errors"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn replay_binary_reads_the_arena_record_format() {
    let dir = std::env::temp_dir().join(format!("leaper-replay-arena-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.csv");
    let moves = "AAAAAANWADDADFFD adaafadaaaddwanf b5d5 h7f6 d5f5 f6d7 f5h5";
    std::fs::write(
        &file,
        format!(
            "game,pair,round,red,blue,red_setup,blue_setup,result,termination,plies,red_ms,blue_ms,moves\n\
             1,1,1,x,y,AAAAAANWADDADFFD,adaafadaaaddwanf,1-0,wazir-captured,7,10,10,{moves}\n\
             2,1,1,y,x,AAAAAANWADDADFFD,adaafadaaaddwanf,0-1,wazir-captured,7,10,10,{moves}\n\
             3,2,1,x,y,AAAAAANWADDADFFD,adaafadaaaddwanf,0-1,time-forfeit,4,10,10,AAAAAANWADDADFFD adaafadaaaddwanf b5d5 h7f6\n"
        ),
    )
    .unwrap();
    let out = leaper().arg("replay").arg(&file).output().expect("run leaper");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("game 2: recorded 0-1 by wazir-captured"), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("3 games, 2 legal, 1 errors"));
    std::fs::remove_dir_all(&dir).ok();
}
