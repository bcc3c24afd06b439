//! The arena's command line: the formats besides a match (gauntlet, round
//! robin), openings files, the TOML config file, setups chosen by the
//! engines, the bench, and the errors a mistyped flag gives. Each test runs
//! the real binary against the mock engine, within a time bound.

mod common;

use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn a_gauntlet_plays_the_first_engine_against_each_other_one() {
    let dir = scratch("gauntlet");
    let mut args = strings(&[
        "gauntlet",
        "--quiet",
        "--games",
        "4",
        "--rounds",
        "2",
        "--concurrency",
        "2",
    ]);
    args.extend(mock_engine("hero", &["option.Seed=1"]));
    args.extend(mock_engine("x", &["option.Seed=2"]));
    args.extend(mock_engine("y", &["option.Seed=3"]));
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    let out = run_ok(&args, LIMIT);
    let records = games(&dir);
    assert_eq!(records.len(), 2 * 4 * 2);
    assert!(records.iter().all(|r| r.red == "hero" || r.blue == "hero"));
    for opponent in ["x", "y"] {
        let n = records
            .iter()
            .filter(|r| r.red == opponent || r.blue == opponent)
            .count();
        assert_eq!(n, 8, "{opponent}");
    }
    // In a round, both opponents face the same openings.
    let setups = |who: &str| {
        let mut s: Vec<(u64, String)> = records
            .iter()
            .filter(|r| r.red == who || r.blue == who)
            .map(|r| (r.round, r.red_setup.clone()))
            .collect();
        s.sort();
        s
    };
    assert_eq!(setups("x"), setups("y"));
    let s = summary(&dir);
    assert_eq!(s["players"].as_array().unwrap().len(), 3);
    assert_eq!(s["player"], "hero");
    assert_eq!(s["games"], 16);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Rank") && text.contains("hero"), "{text}");
    replay_ok(&dir);
}

#[test]
fn a_round_robin_plays_every_pairing() {
    let dir = scratch("roundrobin");
    let mut args = strings(&["roundrobin", "--quiet", "--games", "2", "--concurrency", "2"]);
    for (name, seed) in [("p", "1"), ("q", "2"), ("r", "3"), ("s", "4")] {
        args.extend(mock_engine(name, &[&format!("option.Seed={seed}")]));
    }
    args.extend(strings(&["--each", "depth=1", "--out", dir.to_str().unwrap()]));
    run_ok(&args, LIMIT);
    let records = games(&dir);
    assert_eq!(records.len(), 6 * 2);
    let mut pairings: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            let mut p = [r.red.clone(), r.blue.clone()];
            p.sort();
            (p[0].clone(), p[1].clone())
        })
        .collect();
    pairings.sort();
    pairings.dedup();
    assert_eq!(pairings.len(), 6);
    assert_eq!(summary(&dir)["players"].as_array().unwrap().len(), 4);
}

#[test]
fn openings_files_are_played_in_order_with_colours_reversed() {
    let dir = scratch("openings");
    let book = dir.join("book.txt");
    std::fs::write(
        &book,
        "# two openings\nAWNAADADAFFAADDA aaaaaffdaddadnwa 0.5\n\nDAAAWNAAFDAADFAD ADAAFNWADDAFAAAD\n",
    )
    .unwrap();
    let out_dir = dir.join("run");
    let mut args = strings(&["match", "--quiet", "--games", "6", "--openings"]);
    args.push(format!("file={}", book.display()));
    args.push("order=sequential".to_owned());
    args.extend(mock_engine("a", &[]));
    args.extend(mock_engine("b", &[]));
    args.extend(strings(&["--each", "depth=1", "--out", out_dir.to_str().unwrap()]));
    run_ok(&args, LIMIT);
    let mut records = games(&out_dir);
    records.sort_by_key(|r| r.game);
    let expected = [
        ("AWNAADADAFFAADDA", "aaaaaffdaddadnwa"),
        ("DAAAWNAAFDAADFAD", "adaafnwaddafaaad"),
        ("AWNAADADAFFAADDA", "aaaaaffdaddadnwa"),
    ];
    for r in &records {
        let (red, blue) = expected[(r.game / 2) as usize];
        assert_eq!(
            (r.red_setup.as_str(), r.blue_setup.as_str()),
            (red, blue),
            "game {}",
            r.game
        );
        let first = if r.game % 2 == 0 { "a" } else { "b" };
        assert_eq!(r.red, first);
    }
    // The run keeps its own copy, so a resume does not depend on the file.
    assert!(out_dir.join("openings.txt").exists());
    replay_ok(&out_dir);
}

#[test]
fn a_config_file_holds_the_same_settings_and_flags_override_it() {
    let dir = scratch("config");
    let mock = mock_bin();
    let run_dir = dir.join("run");
    let config = format!(
        r#"
games = 8
concurrency = 2
seed = 5
out = "{}"
each = {{ depth = 1 }}
[[engine]]
cmd = "{}"
name = "alpha"
[[engine]]
cmd = "{}"
name = "beta"
"option.Seed" = 9
"#,
        run_dir.display(),
        mock.display(),
        mock.display()
    );
    let path = dir.join("arena.toml");
    std::fs::write(&path, config).unwrap();
    run_ok(
        &strings(&["match", "--quiet", "--config", path.to_str().unwrap(), "--games", "4"]),
        LIMIT,
    );
    let records = games(&run_dir);
    assert_eq!(records.len(), 4, "--games overrides the file");
    assert!(records.iter().any(|r| r.red == "alpha") && records.iter().any(|r| r.red == "beta"));
    let saved = std::fs::read_to_string(run_dir.join("config.json")).unwrap();
    assert!(saved.contains("\"seed\": 5"), "{saved}");
}

#[test]
fn engines_choose_their_setups_when_asked() {
    let dir = scratch("engine-setups");
    let mut args = strings(&["match", "--quiet", "--games", "4", "--setups", "engine"]);
    args.extend(mock_engine("a", &["option.Seed=1"]));
    args.extend(mock_engine("b", &["option.Seed=2"]));
    args.extend(strings(&["--each", "tc=5+0", "--out", dir.to_str().unwrap()]));
    run_ok(&args, LIMIT);
    let records = games(&dir);
    // The engines' own setups: they spend clock time on them, and differ.
    let setups: std::collections::BTreeSet<_> = records.iter().map(|r| r.red_setup.clone()).collect();
    assert!(setups.len() > 1, "{records:?}");
    let first_moves = events(&dir)
        .into_iter()
        .filter(|e| e["event"] == "move" && e["ply"] == 1)
        .count();
    assert_eq!(first_moves, 4);
    replay_ok(&dir);
}

#[test]
fn mistakes_on_the_command_line_are_reported_not_played() {
    let dir = scratch("mistakes");
    let out_dir = dir.join("run");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            {
                let mut a = strings(&["match"]);
                a.extend(mock_engine("a", &["depth=1"]));
                a
            },
            "exactly 2 engines",
        ),
        (
            {
                let mut a = strings(&["match", "--games", "3"]);
                a.extend(mock_engine("a", &["depth=1"]));
                a.extend(mock_engine("b", &["depth=1"]));
                a
            },
            "even",
        ),
        (
            {
                let mut a = strings(&["match"]);
                a.extend(mock_engine("a", &[]));
                a.extend(mock_engine("b", &[]));
                a
            },
            "no limit",
        ),
        (
            {
                let mut a = strings(&["match"]);
                a.extend(mock_engine("a", &["depth=1", "colour=red"]));
                a.extend(mock_engine("b", &["depth=1"]));
                a
            },
            "unknown engine key",
        ),
        (
            {
                let mut a = strings(&["gauntlet", "--sprt", "elo1=5"]);
                a.extend(mock_engine("a", &["depth=1"]));
                a.extend(mock_engine("b", &["depth=1"]));
                a.extend(mock_engine("c", &["depth=1"]));
                a
            },
            "--sprt needs a match",
        ),
        (
            {
                let mut a = strings(&["match", "--sprt", "elo0=5", "elo1=0"]);
                a.extend(mock_engine("a", &["depth=1"]));
                a.extend(mock_engine("b", &["depth=1"]));
                a
            },
            "elo0",
        ),
    ];
    for (mut args, expected) in cases {
        args.extend(strings(&["--out", out_dir.to_str().unwrap()]));
        let out = run_arena(&args, LIMIT);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(expected), "{args:?}: expected {expected:?} in {err}");
        assert!(!out_dir.join("games.csv").exists(), "{args:?} left a run");
    }
}

#[test]
fn the_bench_reports_its_figures() {
    let out = run_ok(
        &strings(&["bench", "--games", "10", "--runs", "1"]),
        Duration::from_secs(120),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("games/s") && text.contains("ms/move") && text.contains("start-up"),
        "{text}"
    );
    assert!(text.contains("restart=on costs"), "{text}");
}
