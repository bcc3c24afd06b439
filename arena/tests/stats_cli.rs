//! `arena stats` end to end, through the real binary: the published
//! fishtest values come out of `--penta` and `--wdl`, `--json` prints
//! exactly the documented keys, `--from` reads files written by the
//! `results` writer (skipping and reporting a torn row), and bad input
//! fails with a message and a non-zero exit code.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::STATS_KEYS;
use results::{GameRecord, GameResult, RecordWriter, Tally, Termination, read_record_files};
use serde_json::Value;

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .output()
        .expect("arena runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn json(args: &[&str]) -> Value {
    let output = arena(args);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(text.lines().count(), 1, "one JSON object on one line: {text}");
    serde_json::from_str(&text).expect("valid JSON")
}

#[track_caller]
fn close(value: &Value, key: &str, expected: f64, tolerance: f64) {
    let got = value[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {value}"));
    assert!(
        (got - expected).abs() <= tolerance,
        "{key}: got {got}, expected {expected}"
    );
}

#[test]
fn penta_json_has_fishtest_values_and_exactly_the_documented_keys() {
    let v = json(&["stats", "--penta", "10789,19328,33806,19402,10543", "--json"]);
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut expected = STATS_KEYS.to_vec();
    expected.sort_unstable();
    assert_eq!(keys, expected);

    assert_eq!(v["games"], 187_736);
    assert_eq!(v["pairs"], 93868);
    // Defaults: normalized [0, 5], alpha = beta = 0.05.
    close(&v, "llr", -26.838449, 1e-6);
    close(&v, "elo", -0.773577, 1e-6);
    close(&v, "elo_ci95", 1.277580, 1e-6);
    close(&v, "nelo", -0.951629, 1e-6);
    close(&v, "los", 0.117659, 1e-6);
    close(&v, "lower_bound", -2.944439, 1e-6);
    close(&v, "upper_bound", 2.944439, 1e-6);
    assert_eq!(v["decision"], "accept-h0");

    let v = json(&[
        "stats",
        "--penta",
        "10789,19328,33806,19402,10543",
        "--model",
        "logistic",
        "--json",
    ]);
    close(&v, "llr", -38.514408, 1e-6);
}

#[test]
fn wdl_json_has_fishtest_values() {
    let v = json(&[
        "stats",
        "--wdl",
        "65388,56553,65804",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--alpha",
        "0.05",
        "--beta",
        "0.05",
        "--model",
        "logistic",
        "--json",
    ]);
    close(&v, "llr", -36.387524, 1e-6);
    close(&v, "elo", -0.769839, 1e-6);
    close(&v, "elo_ci95", 1.313743, 1e-6);
    close(&v, "los", 0.125376, 1e-6);
    assert_eq!(v["games"], 187_745);
    assert!(v["pairs"].is_null());

    let v = json(&["stats", "--wdl", "65388,56553,65804", "--json"]);
    close(&v, "llr", -26.601470, 1e-6);

    // Negative bounds and other error rates reach the test.
    let v = json(&[
        "stats",
        "--wdl",
        "65388,56553,65804",
        "--elo0",
        "-3",
        "--elo1",
        "1",
        "--alpha",
        "0.01",
        "--beta",
        "0.1",
        "--json",
    ]);
    close(&v, "llr", 0.491712, 1e-6);
    close(&v, "lower_bound", (0.1f64 / 0.99).ln(), 1e-12);
    close(&v, "upper_bound", (0.9f64 / 0.01).ln(), 1e-12);
    assert_eq!(v["decision"], "continue");
}

#[test]
fn text_report_has_the_fastchess_layout() {
    let output = arena(&["stats", "--penta", "10789,19328,33806,19402,10543"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let expected = "\
--------------------------------------------------
Results of pentanomial counts:
Elo: -0.77 +/- 1.28, nElo: -0.95 +/- 1.57
LOS: 11.77 %, DrawRatio: 36.01 %, Score: 49.89 %
Games: 187736
Ptnml(0-2): [10789, 19328, 33806, 19402, 10543], Pairs: 93868
LLR: -26.84 (-2.94, 2.94) [0.00, 5.00] normalized: H0 accepted
--------------------------------------------------
";
    assert_eq!(text, expected);

    let output = arena(&["stats", "--wdl", "30,40,20", "--elo1", "10"]);
    let text = stdout(&output);
    assert!(text.contains("Games: 90, Wins: 30, Losses: 20, Draws: 40\n"), "{text}");
    assert!(!text.contains("Ptnml"));
    assert!(text.contains("[0.00, 10.00] normalized: continue"), "{text}");
}

fn game(n: u64, red: &str, blue: &str, result: GameResult) -> GameRecord {
    let moves = vec![
        "WNFFDDDDAAAAAAAA".to_owned(),
        "aaaaaaaaddddffnw".to_owned(),
        "b5d4".to_owned(),
    ];
    GameRecord {
        game: n,
        pair: n.div_ceil(2),
        round: 0,
        red: red.to_owned(),
        blue: blue.to_owned(),
        red_setup: moves[0].clone(),
        blue_setup: moves[1].clone(),
        result,
        termination: if result == GameResult::Draw {
            Termination::PlyLimit
        } else {
            Termination::WazirCaptured
        },
        plies: 3,
        red_ms: 10,
        blue_ms: 20,
        moves,
    }
}

/// A match file: `new` is Red in odd games; a torn row at the end.
fn match_file(dir: &Path) -> PathBuf {
    let path = dir.join("games.csv");
    let mut writer = RecordWriter::create(&path).unwrap();
    let results = [
        GameResult::RedWins,
        GameResult::Draw,
        GameResult::BlueWins,
        GameResult::RedWins,
        GameResult::Draw,
    ];
    for n in 1..=41u64 {
        let (red, blue) = if n % 2 == 1 { ("new", "old") } else { ("old", "new") };
        let r = results[usize::try_from((n * 7 + n / 3) % 5).unwrap()];
        writer.write(&game(n, red, blue, r)).unwrap();
    }
    drop(writer);
    // A run killed mid-write: half a row without its line end.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("42,21,0,old,new,WNFFDDDD");
    std::fs::write(&path, text).unwrap();
    path
}

/// The figures of `arena stats --from FILE --json` for `rows` written in
/// that order.
fn stats_of_rows(dir: &Path, name: &str, rows: &[GameRecord], extra: &[&str]) -> Value {
    let path = dir.join(name);
    let mut writer = RecordWriter::create(&path).unwrap();
    for row in rows {
        writer.write(row).unwrap();
    }
    drop(writer);
    let mut args = vec!["stats", "--from", path.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let output = arena(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

#[test]
fn the_default_player_is_the_runs_first_engine_whatever_the_row_order() {
    let dir = temp_dir("shuffled");
    // An arena match: game 2k gives Red to the first engine, `new`, which
    // wins most games.
    let rows: Vec<GameRecord> = (0..16u64)
        .map(|n| {
            let (red, blue) = if n % 2 == 0 { ("new", "old") } else { ("old", "new") };
            let winner_red = red == "new" || n % 5 == 0;
            let mut g = game(
                n,
                red,
                blue,
                if winner_red {
                    GameResult::RedWins
                } else {
                    GameResult::BlueWins
                },
            );
            g.pair = n / 2;
            g
        })
        .collect();
    let ordered = stats_of_rows(&dir, "ordered.csv", &rows, &[]);
    assert!(ordered["elo"].as_f64().unwrap() > 0.0, "{ordered}");
    assert_eq!(ordered, stats_of_rows(&dir, "named.csv", &rows, &["--player", "new"]));
    // The order a resumed run leaves: the rows as games finished, the
    // first one with `old` as Red. Several shuffles, all the same figures.
    for shift in [1, 5, 11] {
        let mut shuffled = rows.clone();
        shuffled.rotate_left(shift);
        shuffled.swap(2, 9);
        assert_eq!(shuffled[0].red, "old");
        let name = format!("shuffled-{shift}.csv");
        assert_eq!(stats_of_rows(&dir, &name, &shuffled, &[]), ordered, "shift {shift}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("leaper-arena-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn from_reads_a_real_file_and_reports_the_torn_row() {
    let dir = temp_dir("from");
    let path = match_file(&dir);
    let path_str = path.to_str().unwrap();

    let output = arena(&["stats", "--from", path_str, "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let warnings = stderr(&output);
    assert!(
        warnings.contains(&format!("{path_str}:43: torn last line")),
        "{warnings}"
    );
    // Game 41 is the first of pair 21, whose second game was torn.
    assert!(
        warnings.contains("1 of new's games have no complete pair"),
        "{warnings}"
    );
    let v: Value = serde_json::from_str(&stdout(&output)).unwrap();

    // The binary says what the library says about the same file.
    let set = read_record_files(&[&path]).unwrap();
    let tally = set.match_tally("new");
    assert_eq!(tally.trinomial.games(), 41);
    assert_eq!(tally.pentanomial.pairs(), 20);
    let e = tally.pentanomial.estimates();
    assert_eq!(v["games"], 41);
    assert_eq!(v["pairs"], 20);
    close(&v, "elo", e.elo, 1e-9);
    close(&v, "nelo", e.nelo, 1e-9);
    close(&v, "los", e.los, 1e-9);

    // The other side, chosen by name, sees the mirror image.
    // With mirrored hypotheses, its LLR is the opposite.
    let mirror = json(&[
        "stats", "--from", path_str, "--player", "old", "--elo0", "-5", "--elo1", "0", "--json",
    ]);
    close(&mirror, "elo", -e.elo, 1e-9);
    close(&mirror, "llr", -v["llr"].as_f64().unwrap(), 1e-6);

    // The text report names the players and the counts.
    let output = arena(&["stats", "--from", path_str]);
    let text = stdout(&output);
    assert!(text.contains("Results of new vs old:"), "{text}");
    let t = tally.trinomial;
    assert!(
        text.contains(&format!(
            "Games: 41, Wins: {}, Losses: {}, Draws: {}",
            t.wins, t.losses, t.draws
        )),
        "{text}"
    );
    assert!(text.contains("Pairs: 20"), "{text}");
}

#[test]
fn several_files_merge() {
    let dir = temp_dir("merge");
    let one = match_file(&dir);
    let two = dir.join("copy.csv");
    std::fs::copy(&one, &two).unwrap();
    let v = json(&[
        "stats",
        "--from",
        one.to_str().unwrap(),
        two.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["games"], 82);
    assert_eq!(v["pairs"], 40);
}

#[test]
fn bad_input_fails_with_a_message() {
    // Usage errors: clap's exit code 2.
    for args in [
        vec!["stats"],
        vec!["stats", "--penta", "1,2,3,4"],
        vec!["stats", "--wdl", "1,2,x"],
        vec!["stats", "--wdl", "1,2,3", "--penta", "1,2,3,4,5"],
        vec!["stats", "--wdl", "1,2,3", "--model", "bayes"],
        vec!["stats", "--wdl", "1,2,3", "--player", "x"],
        vec!["no-such-subcommand"],
    ] {
        let output = arena(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&output).is_empty());
    }
    // Refused by the statistics or the files: exit code 1.
    let output = arena(&["stats", "--wdl", "1,2,3", "--elo0", "5", "--elo1", "0"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("elo0 (5) must be less than elo1 (0)"));
    let output = arena(&["stats", "--penta", "1,2,3,4,5", "--alpha", "1.5"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("alpha and beta"));
    let output = arena(&["stats", "--from", "/nonexistent/games.csv"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("/nonexistent/games.csv"));

    let dir = temp_dir("bad");
    let path = match_file(&dir);
    let output = arena(&["stats", "--from", path.to_str().unwrap(), "--player", "nobody"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("nobody played no game"));
    assert!(stderr(&output).contains("players: new, old"));
}

#[test]
fn degenerate_counts_still_give_numbers() {
    for args in [
        ["stats", "--wdl", "0,0,0", "--json"],
        ["stats", "--wdl", "100,0,0", "--json"],
        ["stats", "--penta", "0,0,5000,0,0", "--json"],
        ["stats", "--penta", "18446744073709551615,0,0,0,0", "--json"],
    ] {
        let v = json(&args);
        for key in STATS_KEYS.iter().filter(|k| !matches!(**k, "decision" | "pairs")) {
            assert!(v[key].is_number(), "{args:?}: {key} is {}", v[key]);
        }
    }
}

#[test]
fn help_documents_every_flag() {
    let output = arena(&["stats", "--help"]);
    assert!(output.status.success());
    let help = stdout(&output);
    for flag in [
        "--penta <LL,LD,DD,WD,WW>",
        "--wdl <W,D,L>",
        "--from <GAMES.CSV>",
        "--player <NAME>",
        "--elo0 <ELO0>",
        "--elo1 <ELO1>",
        "--alpha <A>",
        "--beta <B>",
        "--model <MODEL>",
        "--json",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    let output = arena(&["--help"]);
    assert!(stdout(&output).contains("stats"));
}
