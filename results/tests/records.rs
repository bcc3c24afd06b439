//! The game record file: what the writer writes the reader reads back; a
//! torn last line is dropped with one warning, while any other damaged row,
//! a game id recorded twice or a player outside the run stops the reading
//! with the file, line and column; a process killed while writing leaves a
//! file that reads back cleanly; several files merge; and games become
//! tallies with pairs counted only when complete.

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
fn a_torn_last_line_is_dropped_with_one_warning() {
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

    // Appending after the damage cuts the torn line off: the new game
    // takes its line and the file reads back whole.
    let mut writer = RecordWriter::append(&path).unwrap();
    assert_eq!(writer.dropped_tail(), cut.len() as u64);
    writer.write(&game(6, 3, "beta", "alpha", GameResult::Draw)).unwrap();
    drop(writer);
    let file = read_record_file(&path).unwrap();
    assert!(file.damaged.is_empty(), "{:?}", file.damaged);
    assert_eq!(file.games.len(), 5);
    assert_eq!(file.games[4].line, 6);
    assert_eq!(file.games[4].record.game, 6);
    // A whole file is appended to as it is.
    assert_eq!(RecordWriter::append(&path).unwrap().dropped_tail(), 0);
}

/// Writes a real file: the header, a good game, then `row` as line 3 and
/// another good game as line 4; returns what reading it says.
fn read_with_row_3(name: &str, row: &[u8]) -> (PathBuf, Result<results::RecordFile, ReadError>) {
    let dir = temp_dir(name);
    let path = dir.join("games.csv");
    write_file(&path, &a_match("alpha", "beta", 1)[..1]);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(row);
    bytes.push(b'\n');
    let mut more = Vec::new();
    let mut w = RecordWriter::new(&mut more).unwrap();
    w.write(&a_match("alpha", "beta", 1)[1]).unwrap();
    drop(w);
    bytes.extend_from_slice(&more[RECORD_HEADER.join(",").len() + 1..]);
    std::fs::write(&path, &bytes).unwrap();
    let read = read_record_file(&path);
    (path, read)
}

/// A good row of game 9, as CSV text.
fn good_row() -> String {
    let mut bytes = Vec::new();
    let mut w = RecordWriter::new(&mut bytes).unwrap();
    w.write(&game(9, 5, "alpha", "beta", GameResult::RedWins)).unwrap();
    drop(w);
    String::from_utf8(bytes).unwrap().lines().nth(1).unwrap().to_owned()
}

#[test]
fn a_damaged_row_stops_the_reading_with_file_line_and_column() {
    let row = good_row();
    let without_round: String = {
        let mut fields: Vec<&str> = row.split(',').collect();
        fields.remove(2);
        fields.join(",")
    };
    // A byte that is never UTF-8 in Red's name.
    let mut not_utf8 = row.replacen("alpha", "al#pha", 1).into_bytes();
    if let Some(i) = not_utf8.iter().position(|&b| b == b'#') {
        not_utf8[i] = 0xff;
    }
    let cases: [(&str, Vec<u8>, usize, &str); 9] = [
        (
            "missing-column",
            without_round.into_bytes(),
            13,
            "12 columns instead of 13: the row ends before column 13 (moves)",
        ),
        (
            "few-columns",
            b"1,2,3".to_vec(),
            4,
            "the row ends before column 4 (red)",
        ),
        (
            "extra-column",
            format!("{row},x").into_bytes(),
            14,
            "the row goes on after column 13 (moves)",
        ),
        (
            "result",
            row.replace("1-0", "2-0").into_bytes(),
            8,
            "column 8 (result): unknown result \"2-0\"",
        ),
        (
            "termination",
            row.replace("wazir-captured", "resigned").into_bytes(),
            9,
            "column 9 (termination): unknown termination \"resigned\"",
        ),
        (
            "plies",
            row.replace(",5,1234,", ",x,1234,").into_bytes(),
            10,
            "column 10 (plies): \"x\" is not a whole number",
        ),
        (
            "ply-count",
            row.replace(",5,1234,", ",4,1234,").into_bytes(),
            10,
            "column 10 (plies) is 4 but 5 moves are listed",
        ),
        (
            "setup",
            row.replacen(",WNFFDDDDAAAAAAAA,", ",WNFFDDDDAAAAAAAD,", 1).into_bytes(),
            6,
            "column 6 (red_setup) disagrees with the move list",
        ),
        ("utf8", not_utf8, 4, "column 4 (red) is not valid UTF-8"),
    ];
    for (name, bad, column, message) in cases {
        let (path, read) = read_with_row_3(name, &bad);
        let err = read.expect_err(name);
        let ReadError::Row(damage) = &err else {
            panic!("{name}: {err}");
        };
        assert_eq!(damage.path, path, "{name}");
        assert_eq!(damage.line, 3, "{name}");
        assert_eq!(damage.error.column(), Some(column), "{name}: {err}");
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("{}:3: ", path.display())) && text.contains(message),
            "{name}: {text}"
        );
    }
    // The same rows as the last line, with their line end, are damage too:
    // only a line without its end is a torn write.
    let dir = temp_dir("bad-last");
    let path = dir.join("games.csv");
    write_file(&path, &a_match("alpha", "beta", 1));
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&row.replace("1-0", "1:0"));
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    let err = read_record_file(&path).unwrap_err();
    assert!(err.to_string().contains(":4: column 8 (result)"), "{err}");
}

#[test]
fn a_game_id_recorded_twice_is_refused_naming_the_id_and_its_lines() {
    // A record merged by hand: two of its rows (games 2 and 4) pasted again
    // at its end, as a careless `cat` or a doubly-written resume leaves.
    let dir = temp_dir("duplicates");
    let path = dir.join("games.csv");
    let games = a_match("alpha", "beta", 2);
    write_file(&path, &games);
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let doubled = format!("{text}{}\n{}\n", rows[1], rows[3]);
    std::fs::write(&path, doubled).unwrap();

    let err = read_record_file(&path).unwrap_err();
    match &err {
        ReadError::DuplicateGame {
            path: at,
            game,
            lines,
            other_ids,
        } => {
            assert_eq!(at, &path);
            assert_eq!(*game, 2);
            assert_eq!(lines, &[3, 6]);
            assert_eq!(*other_ids, 1);
        }
        other => panic!("{other}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("game 2 is recorded on lines 3 and 6 (and 1 other id is recorded more than once)"),
        "{message}"
    );
    assert!(message.starts_with(&path.display().to_string()), "{message}");
    assert!(read_record_files(&[&path]).is_err());
}

#[test]
fn the_same_file_named_twice_is_refused() {
    let dir = temp_dir("twice");
    let path = dir.join("games.csv");
    write_file(&path, &a_match("alpha", "beta", 1));
    let other_spelling = dir.join(".").join("games.csv");
    let err = read_record_files(&[&path, &other_spelling]).unwrap_err();
    assert!(matches!(err, ReadError::SameFileTwice(_)), "{err}");
    assert!(err.to_string().ends_with("games.csv is named twice"), "{err}");
}

#[test]
fn players_outside_the_run_are_refused_with_line_and_column() {
    let dir = temp_dir("players");
    let path = dir.join("games.csv");
    let mut games = a_match("alpha", "beta", 2);
    games[3].blue = "gamma".to_owned();
    write_file(&path, &games);
    let file = read_record_file(&path).unwrap();
    file.check_players(&["alpha", "beta", "gamma"]).unwrap();
    let err = file.check_players(&["alpha", "beta"]).unwrap_err();
    assert!(
        matches!(&err, ReadError::UnknownPlayer { line: 5, column: 5, field: "blue", name, .. } if name == "gamma"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}:5: column 5 (blue): unknown player \"gamma\" (this run's players: alpha, beta)",
            path.display()
        )
    );
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
