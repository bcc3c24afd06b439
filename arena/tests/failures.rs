//! Every engine failure ends the game, never the run: real `arena match`
//! runs against the scripted mock engine misbehaving in each way, checked
//! through the files they leave (the right winner and termination in
//! `games.csv`, the failure kind in `events.jsonl`, the forfeit counts in
//! `summary.json`) and through `leaper replay`. Every run has a time bound.

mod common;

use std::time::{Duration, Instant};

use common::*;
use results::{GameResult, Termination};

/// Every game was lost by `bad` with `termination`, every failure event of
/// the kind `kind`, and the summary counts them.
#[track_caller]
fn assert_bad_forfeits(dir: &std::path::Path, count: usize, termination: Termination, kind: &str) {
    let records = games(dir);
    assert_eq!(records.len(), count);
    for r in &records {
        let winner = match r.result {
            GameResult::RedWins => &r.red,
            GameResult::BlueWins => &r.blue,
            GameResult::Draw => panic!("game {} drawn: {r:?}", r.game),
        };
        assert_eq!(winner, "good", "game {}", r.game);
        assert_eq!(r.termination, termination, "game {}", r.game);
    }
    let failures: Vec<_> = events(dir)
        .into_iter()
        .filter(|e| e["event"] == "engine-failure")
        .collect();
    assert_eq!(failures.len(), count, "one failure event per game");
    for f in &failures {
        assert_eq!(f["engine"], "bad");
        assert_eq!(f["kind"], kind, "{f}");
    }
    let s = summary(dir);
    assert_eq!(s["failures"]["bad"][termination.as_str()], count as u64);
    assert_eq!(s["failures"]["good"].as_object().map(|o| o.len()), Some(0));
    assert_eq!(s["wdl"][0], count as u64, "the good engine won them all");
    assert_eq!(s["finished"], true);
    replay_ok(dir);
}

#[test]
fn a_crash_on_go_loses_the_game_and_the_engine_is_restarted() {
    let dir = good_against_bad("crash", &["args=--mode crash --after 1"], &["tc=5+0.1"], 4);
    assert_bad_forfeits(&dir, 4, Termination::Crash, "crash");
    let detail = events(&dir)
        .into_iter()
        .find(|e| e["event"] == "engine-failure")
        .unwrap();
    assert!(detail["detail"].as_str().unwrap().contains("signal"), "{detail}");
    // Each game needed a fresh process for the crashed engine.
    let starts = events(&dir)
        .into_iter()
        .filter(|e| e["event"] == "engine-started" && e["engine"] == "bad")
        .count();
    assert_eq!(starts, 4);
}

#[test]
fn an_exit_mid_game_is_a_crash_in_the_record_and_an_exit_in_the_events() {
    let dir = good_against_bad("exit", &["args=--mode exit --after 2"], &["tc=5+0.1"], 4);
    assert_bad_forfeits(&dir, 4, Termination::Crash, "exit");
}

#[test]
fn an_illegal_move_loses_and_is_not_recorded() {
    let dir = good_against_bad("illegal", &["option.Mode=illegal", "option.After=1"], &["tc=5+0.1"], 4);
    assert_bad_forfeits(&dir, 4, Termination::IllegalMove, "illegal-move");
    for r in games(&dir) {
        // The setups, and the good engine's first move when it is Red.
        assert!(r.plies == 2 || r.plies == 3, "{r:?}");
    }
}

#[test]
fn garbage_output_is_a_malformed_move() {
    let dir = good_against_bad("garbage", &["args=--mode garbage"], &["tc=5+0.1"], 2);
    assert_bad_forfeits(&dir, 2, Termination::IllegalMove, "malformed-move");
}

#[test]
fn bestmove_none_in_an_unfinished_game_is_illegal() {
    let dir = good_against_bad("none", &["args=--mode none --after 2"], &["movetime=1000"], 2);
    assert_bad_forfeits(&dir, 2, Termination::IllegalMove, "illegal-move");
}

#[test]
fn a_stalled_engine_on_a_clock_loses_on_time_and_is_killed() {
    let start = Instant::now();
    let dir = good_against_bad("stall-tc", &["args=--mode stall --after 2"], &["tc=0.5+0"], 2);
    assert_bad_forfeits(&dir, 2, Termination::TimeForfeit, "time-forfeit");
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
}

#[test]
fn a_stalled_engine_under_a_depth_limit_stalls_and_is_killed() {
    let start = Instant::now();
    let dir = good_against_bad(
        "stall-depth",
        &["args=--mode stall --after 1", "stalltime=300"],
        &["depth=3"],
        2,
    );
    assert_bad_forfeits(&dir, 2, Termination::Stall, "stall");
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
}

#[test]
fn a_slow_engine_loses_on_time_unless_the_margin_covers_it() {
    // 200 ms per move against a 0.5 s clock: the third move flags.
    let dir = good_against_bad("slow", &["args=--mode slow --delay-ms 200"], &["tc=0.5+0"], 2);
    assert_bad_forfeits(&dir, 2, Termination::TimeForfeit, "time-forfeit");
    for r in games(&dir) {
        let bad_ms = if r.red == "bad" { r.red_ms } else { r.blue_ms };
        assert!(bad_ms >= 500, "the clock ran out: {r:?}");
    }

    // 60 ms per move against movetime=20 with a 200 ms margin: no loss.
    let dir = good_against_bad(
        "slow-margin",
        &["args=--mode slow --delay-ms 60", "movetime=20", "timemargin=200"],
        &["movetime=20"],
        2,
    );
    let records = games(&dir);
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| !r.termination.is_forfeit()), "{records:?}");
}

#[test]
fn codecup_engines_play_whole_games_and_forfeit_like_the_others() {
    let dir = scratch("codecup");
    let mut args = strings(&["match", "--quiet", "--games", "4", "--concurrency", "2"]);
    args.extend(mock_engine("cc-a", &["proto=codecup"]));
    args.extend(mock_engine("uci-b", &[]));
    args.extend(strings(&["--each", "tc=5+0", "--out", dir.to_str().unwrap()]));
    run_ok(&args, Duration::from_secs(60));
    let records = games(&dir);
    assert_eq!(records.len(), 4);
    for r in &records {
        assert!(!r.termination.is_forfeit(), "{r:?}");
        assert_eq!(r.red_setup.len(), 16);
    }
    // A CodeCup engine cannot be told a setup: the engines chose theirs.
    replay_ok(&dir);

    let dir = good_against_bad(
        "codecup-crash",
        &["proto=codecup", "args=--mode crash --after 2"],
        &["tc=5+0"],
        2,
    );
    assert_bad_forfeits(&dir, 2, Termination::Crash, "crash");
}

#[test]
fn codecup_engines_with_an_opening_line_are_told_the_runs_setups() {
    let dir = scratch("codecup-opening");
    let book = dir.join("book.txt");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        &book,
        "AWNAADADAFFAADDA aaaaaffdaddadnwa\nDAAAWNAAFDAADFAD adaafnwaddafaaad\n",
    )
    .unwrap();
    let out = dir.join("run");
    let mut args = strings(&["match", "--quiet", "--games", "4", "--concurrency", "2", "--openings"]);
    args.push(format!("file={}", book.display()));
    args.push("order=sequential".to_owned());
    args.extend(mock_engine("cc", &["proto=codecup", "openingline=Opening"]));
    args.extend(mock_engine("uci", &[]));
    args.extend(strings(&["--each", "tc=5+0", "--out", out.to_str().unwrap()]));
    run_ok(&args, Duration::from_secs(60));
    let mut records = games(&out);
    records.sort_by_key(|r| r.game);
    assert_eq!(records.len(), 4);
    let expected = [
        ("AWNAADADAFFAADDA", "aaaaaffdaddadnwa"),
        ("DAAAWNAAFDAADFAD", "adaafnwaddafaaad"),
    ];
    for r in &records {
        // The mock exits on a move it cannot play, so a game that went past
        // the setups with both sides moving proves it heard them.
        assert!(!r.termination.is_forfeit(), "{r:?}");
        assert_eq!(
            (r.red_setup.as_str(), r.blue_setup.as_str()),
            expected[(r.game / 2) as usize],
            "{r:?}"
        );
    }
    replay_ok(&out);

    // Without the keyword the engines still choose their own setups.
    let dir = scratch("codecup-no-opening");
    let mut args = strings(&["match", "--quiet", "--games", "2", "--openings"]);
    args.push(format!("file={}", book.display()));
    args.push("order=sequential".to_owned());
    args.extend(mock_engine("cc", &["proto=codecup"]));
    args.extend(mock_engine("uci", &[]));
    args.extend(strings(&["--each", "tc=5+0", "--out", dir.to_str().unwrap()]));
    run_ok(&args, Duration::from_secs(60));
    for r in &games(&dir) {
        assert_ne!(r.red_setup, "AWNAADADAFFAADDA", "{r:?}");
    }
}

#[test]
fn an_engine_that_never_answers_uci_stops_the_run_before_it_starts() {
    let dir = scratch("mute");
    let mut args = strings(&["match", "--quiet"]);
    args.extend(mock_engine("good", &[]));
    args.extend(mock_engine("mute", &["args=--mode mute"]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let out = run_arena(&args, Duration::from_secs(30));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mute") && err.contains("uciok"), "{err}");
    assert!(!dir.join("games.csv").exists(), "no run is left behind");
}

#[test]
fn an_unknown_option_is_refused_before_the_run() {
    let dir = scratch("unknown-option");
    let mut args = strings(&["match", "--quiet"]);
    args.extend(mock_engine("a", &["option.Hsah=16"]));
    args.extend(mock_engine("b", &[]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let out = run_arena(&args, Duration::from_secs(30));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no option named Hsah"), "{err}");
}
