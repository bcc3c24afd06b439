//! The game record file: what the writer writes the reader reads back;
//! damaged rows (a torn last line, a bad field) are skipped and reported
//! with their file and line; a process killed while writing leaves a file
//! that reads back cleanly; several files merge; and games become tallies
//! with pairs counted only when complete.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use results::{
    GameRecord, GameResult, Outcome, Pentanomial, RECORD_HEADER, ReadError, RecordWriter, RowError, Termination,
    Trinomial, WriteError, parse_record_file, read_record_file, read_record_files,
};

const RED_SETUP: &str = "WNFFDDDDAAAAAAAA";
const BLUE_SETUP: &str = "aaaaaaaaddddffnw";

/// A game between `red` and `blue` in `pair`, with a plausible move list.
fn game(game: u64, pair: u64, red: &str, blue: &str, result: GameResult) -> GameRecord {
    let moves: Vec<String> = [RED_SETUP, BLUE_SETUP, "b5d4", "g3e2", "Dc4"]
        .iter()
        .map(|m| (*m).to_owned())
        .collect();
    GameRecord {
        game,
        pair,
        round: 0,
        red: red.to_owned(),
        blue: blue.to_owned(),
        red_setup: RED_SETUP.to_owned(),
        blue_setup: BLUE_SETUP.to_owned(),
        result,
        termination: match result {
            GameResult::Draw => Termination::PlyLimit,
            _ => Termination::WazirCaptured,
        },
        plies: 5,
        red_ms: 1234,
        blue_ms: 987,
        moves,
    }
}

/// A match of `pairs` pairs between `a` and `b`, `a` Red in each pair's
/// first game.
fn a_match(a: &str, b: &str, pairs: u64) -> Vec<GameRecord> {
    let results = [GameResult::RedWins, GameResult::Draw, GameResult::BlueWins];
    (0..pairs)
        .flat_map(|p| {
            let r1 = results[usize::try_from(p % 3).unwrap()];
            let r2 = results[usize::try_from((p / 3) % 3).unwrap()];
            [game(2 * p + 1, p + 1, a, b, r1), game(2 * p + 2, p + 1, b, a, r2)]
        })
        .collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "leaper-results-{name}-{}-{}",
        std::process::id(),
        std::thread::current().name().unwrap_or("t").replace("::", "-")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_file(path: &Path, games: &[GameRecord]) {
    let mut writer = RecordWriter::create(path).unwrap();
    for g in games {
        writer.write(g).unwrap();
    }
}

#[test]
fn what_is_written_reads_back() {
    let dir = temp_dir("roundtrip");
    let path = dir.join("games.csv");
    let mut games = a_match("alpha", "beta", 5);
    // Names that need CSV quoting survive.
    games[0].red = "alpha, \"the first\"".to_owned();
    games[1].blue = "alpha, \"the first\"".to_owned();
    // A game that ended at Blue's setup (Red's setup only).
    games[2].blue_setup = String::new();
    games[2].moves.truncate(1);
    games[2].plies = 1;
    games[2].termination = Termination::TimeForfeit;
    games[2].result = GameResult::RedWins;
    write_file(&path, &games);

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(&(RECORD_HEADER.join(",") + "\n")));
    assert!(text.ends_with('\n'));
    assert_eq!(text.lines().count(), 1 + games.len());
    assert!(
        text.lines()
            .nth(8)
            .unwrap()
            .ends_with(",1/2-1/2,ply-limit,5,1234,987,WNFFDDDDAAAAAAAA aaaaaaaaddddffnw b5d4 g3e2 Dc4")
    );

    let file = read_record_file(&path).unwrap();
    assert!(file.damaged.is_empty(), "{:?}", file.damaged);
    let read: Vec<GameRecord> = file.records().cloned().collect();
    assert_eq!(read, games);
    assert_eq!(file.games[0].line, 2);
    assert_eq!(file.games[9].line, 11);
}

#[test]
fn a_torn_last_line_is_skipped_and_reported() {
    let dir = temp_dir("torn");
    let path = dir.join("games.csv");
    let games = a_match("alpha", "beta", 2);
    write_file(&path, &games);
    // What a kill -9 in the middle of a write leaves: half a row, no line
    // end. Even a cut inside the move list must not pass for a game.
    let mut row = Vec::new();
    let mut w = RecordWriter::new(&mut row).unwrap();
    w.write(&game(5, 3, "alpha", "beta", GameResult::RedWins)).unwrap();
    let row = String::from_utf8(row).unwrap();
    let row = row.lines().nth(1).unwrap();
    let cut = &row[..row.len() - 6];
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(cut.as_bytes())
        .unwrap();

    let file = read_record_file(&path).unwrap();
    assert_eq!(file.games.len(), 4);
    assert_eq!(file.damaged.len(), 1);
    let damage = &file.damaged[0];
    assert_eq!(damage.line, 6);
    assert_eq!(damage.error, RowError::Torn);
    assert_eq!(damage.path, path);
    let report = damage.to_string();
    assert!(report.contains("games.csv:6: torn last line"), "{report}");

    // Appending after the damage ends the torn line first: the new game is
    // intact and the old fragment stays one damaged line.
    let mut writer = RecordWriter::append(&path).unwrap();
    writer.write(&game(6, 3, "beta", "alpha", GameResult::Draw)).unwrap();
    let file = read_record_file(&path).unwrap();
    assert_eq!(file.games.len(), 5);
    assert_eq!(file.games[4].line, 7);
    assert_eq!(file.damaged.len(), 1);
    assert_eq!(file.damaged[0].line, 6);
    assert!(matches!(
        file.damaged[0].error,
        RowError::PlyCount { .. } | RowError::FieldCount { .. } | RowError::Field { .. }
    ));
}

#[test]
fn damaged_rows_in_the_middle_are_skipped_with_their_line() {
    let good = a_match("alpha", "beta", 1);
    let mut bytes = Vec::new();
    let mut w = RecordWriter::new(&mut bytes).unwrap();
    w.write(&good[0]).unwrap();
    drop(w);
    let mut text = String::from_utf8(bytes).unwrap();
    let row = text.lines().nth(1).unwrap().to_owned();
    text.push_str(&row.replace("1-0", "2-0")); // line 3: bad result
    text.push('\n');
    text.push_str("1,2,3\n"); // line 4: too few fields
    text.push_str(&row.replace(",5,1234,", ",x,1234,")); // line 5: bad plies
    text.push('\n');
    text.push_str(&row.replace(",5,1234,", ",4,1234,")); // line 6: plies vs moves
    text.push('\n');
    text.push_str(&row.replace("wazir-captured", "resigned")); // line 7
    text.push('\n');
    text.push_str(&row.replace(",WNFFDDDDAAAAAAAA,", ",WNFFDDDDAAAAAAAD,")); // line 8
    text.push('\n');
    text.push_str(&row); // line 9: fine
    text.push('\n');

    let file = parse_record_file("mem.csv", text.as_bytes()).unwrap();
    assert_eq!(file.games.len(), 2);
    assert_eq!(file.games[1].line, 9);
    let lines: Vec<u64> = file.damaged.iter().map(|d| d.line).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 8]);
    let errors: Vec<&RowError> = file.damaged.iter().map(|d| &d.error).collect();
    assert!(matches!(errors[0], RowError::Field { field: "result", .. }));
    assert_eq!(*errors[1], RowError::FieldCount { found: 3 });
    assert!(matches!(errors[2], RowError::Field { field: "plies", .. }));
    assert_eq!(*errors[3], RowError::PlyCount { plies: 4, moves: 5 });
    assert!(matches!(
        errors[4],
        RowError::Field {
            field: "termination",
            ..
        }
    ));
    assert_eq!(*errors[5], RowError::SetupMismatch { field: "red_setup" });
    assert!(file.damaged[0].to_string().starts_with("mem.csv:3: field result"));
}

#[test]
fn files_that_are_not_records_are_refused() {
    let err = parse_record_file("x.csv", b"Game,Round,IsSwiss\n1,2,3\n").unwrap_err();
    assert!(matches!(err, ReadError::Header { .. }));
    assert!(err.to_string().contains("x.csv"));
    let err = read_record_file("/nonexistent/leaper/games.csv").unwrap_err();
    assert!(matches!(err, ReadError::Io { .. }));

    // An empty file (a run killed before its first game) is fine, and so
    // is one killed while writing its header.
    let empty = parse_record_file("e.csv", b"").unwrap();
    assert!(empty.games.is_empty() && empty.damaged.is_empty());
    let torn = parse_record_file("t.csv", b"game,pair,rou").unwrap();
    assert!(torn.games.is_empty());
    assert_eq!(torn.damaged[0].error, RowError::Torn);

    let dir = temp_dir("refuse");
    let path = dir.join("other.csv");
    std::fs::write(&path, "a,b,c\n").unwrap();
    assert!(matches!(RecordWriter::append(&path), Err(WriteError::Header { .. })));
    // Appending to a file holding a torn header starts it afresh.
    std::fs::write(&path, "game,pair,ro").unwrap();
    let mut w = RecordWriter::append(&path).unwrap();
    w.write(&game(1, 1, "a", "b", GameResult::Draw)).unwrap();
    let file = read_record_file(&path).unwrap();
    assert_eq!(file.games.len(), 1);
    assert!(file.damaged.is_empty());
}

#[test]
fn the_writer_refuses_inconsistent_records_and_writes_nothing() {
    let mut bytes = Vec::new();
    let mut w = RecordWriter::new(&mut bytes).unwrap();
    let mut bad = game(1, 1, "a", "b", GameResult::Draw);
    bad.plies = 7;
    assert!(matches!(
        w.write(&bad),
        Err(WriteError::Invalid {
            game: 1,
            error: RowError::PlyCount { .. }
        })
    ));
    let mut bad = game(2, 1, "a", "b", GameResult::Draw);
    bad.red = "a\nb".to_owned();
    assert!(w.write(&bad).is_err());
    let mut bad = game(3, 1, "a", "b", GameResult::Draw);
    bad.moves[2] = "b5 d4".to_owned();
    assert!(w.write(&bad).is_err());
    drop(w);
    assert_eq!(bytes, (RECORD_HEADER.join(",") + "\n").into_bytes());
}

#[test]
fn pairs_count_only_when_both_games_are_present() {
    let dir = temp_dir("pairs");
    let path = dir.join("games.csv");
    let mut games = a_match("alpha", "beta", 3);
    // Pair 3 lost its second game (say the run was killed).
    games.pop();
    write_file(&path, &games);

    let set = read_record_files(&[&path]).unwrap();
    assert_eq!(set.first_player(), Some("alpha"));
    assert_eq!(set.players(), ["alpha", "beta"]);
    let t = set.match_tally("alpha");
    assert_eq!(t.opponents, ["beta"]);
    // alpha's games: pair 1: win (Red wins), loss (Red=beta wins);
    // pair 2: draw, loss; pair 3: loss (Blue wins).
    assert_eq!(t.trinomial, Trinomial::new(1, 1, 3));
    assert_eq!(t.pentanomial, Pentanomial::new(0, 1, 1, 0, 0));
    assert_eq!(t.unpaired_games, 1);
    assert_eq!(t.other_games, 0);
    let b = set.match_tally("beta");
    assert_eq!(b.trinomial, t.trinomial.reversed());
    assert_eq!(b.pentanomial, t.pentanomial.reversed());
}

#[test]
fn several_files_merge_with_pairs_local_to_each_file() {
    let dir = temp_dir("merge");
    let first = dir.join("first.csv");
    let second = dir.join("second.csv");
    // Both files number their pairs from 1, and each leaves a pair half
    // done: the halves must not combine across files.
    let mut a = a_match("alpha", "beta", 2);
    a.pop();
    let mut b = a_match("alpha", "beta", 4);
    b.remove(2);
    write_file(&first, &a);
    write_file(&second, &b);
    let set = read_record_files(&[&first, &second]).unwrap();
    let t = set.match_tally("alpha");
    assert_eq!(t.trinomial.wins + t.trinomial.draws + t.trinomial.losses, 10);
    assert_eq!(t.pentanomial.pairs(), 4);
    assert_eq!(t.unpaired_games, 2);
    let single: Vec<_> = set.files.iter().map(|f| f.match_tally("alpha").pentanomial).collect();
    assert_eq!(single[0] + single[1], t.pentanomial);

    // A third player's games are not alpha's.
    let third = dir.join("third.csv");
    write_file(&third, &a_match("gamma", "beta", 1));
    let set = read_record_files(&[&first, &third]).unwrap();
    let t = set.match_tally("alpha");
    assert_eq!(t.other_games, 2);
    assert_eq!(set.players(), ["alpha", "beta", "gamma"]);
    let table = set.crosstable();
    assert_eq!(
        table.between("gamma", "beta").wins + table.between("gamma", "beta").losses,
        2
    );
}

#[test]
fn outcomes_follow_the_result_from_each_side() {
    let g = game(1, 1, "r", "b", GameResult::BlueWins);
    assert_eq!(g.outcome_for("r"), Some(Outcome::Loss));
    assert_eq!(g.outcome_for("b"), Some(Outcome::Win));
    assert_eq!(g.outcome_for("x"), None);
    assert_eq!(g.opponent_of("r"), Some("b"));
}

/// The name of the test that plays the victim of the kill test.
const CHILD: &str = "writer_killed_mid_run_child";

/// Run in a child process by the kill test: writes games as fast as it can
/// until it is killed. Does nothing when run directly.
#[test]
fn writer_killed_mid_run_child() {
    let Ok(path) = std::env::var("LEAPER_RESULTS_KILL_TEST_FILE") else {
        return;
    };
    let mut writer = RecordWriter::create(&path).unwrap();
    let mut g = game(0, 0, "victim", "killer", GameResult::Draw);
    // Long rows make a torn write more likely.
    g.moves = std::iter::repeat_n("b5d4".to_owned(), 2000).collect();
    g.moves[0] = RED_SETUP.to_owned();
    g.moves[1] = BLUE_SETUP.to_owned();
    g.plies = 2000;
    for n in 1.. {
        g.game = n;
        g.pair = n.div_ceil(2);
        writer.write(&g).unwrap();
    }
}

/// A run killed with SIGKILL while writing leaves a file whose every row,
/// but at most a torn last one, reads back as a game.
#[test]
fn a_killed_writer_leaves_a_readable_file() {
    if std::env::var("LEAPER_RESULTS_KILL_TEST_FILE").is_ok() {
        return;
    }
    let dir = temp_dir("kill");
    let path = dir.join("games.csv");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", CHILD, "--nocapture", "--test-threads=1"])
        .env("LEAPER_RESULTS_KILL_TEST_FILE", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&path).map_or(0, |m| m.len()) < 2_000_000 {
        assert!(Instant::now() < deadline, "the child wrote nothing");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();

    let file = read_record_file(&path).unwrap();
    assert!(file.games.len() > 10, "only {} games", file.games.len());
    for (i, g) in file.games.iter().enumerate() {
        assert_eq!(g.record.game, i as u64 + 1, "a game is missing");
    }
    match file.damaged.as_slice() {
        [] => {}
        [torn] => {
            assert_eq!(torn.error, RowError::Torn);
            assert_eq!(torn.line, file.games.len() as u64 + 2);
        }
        more => panic!("more than a torn last line is damaged: {more:?}"),
    }
}
