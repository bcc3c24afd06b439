//! The `leaper-data` binary as a user runs it, as a real process on real
//! files: `datagen` is reproducible with a seed (on any thread count),
//! resumes after a kill -9 to the very file an uninterrupted run writes,
//! truncates a torn tail with a message, refuses a damaged file or other
//! settings; `summary` prints the right numbers for a file of known
//! content; `datagen --games` follows real CodeCup games and labels their
//! positions with the recorded results; `datagen --eval-file` plays with
//! the file's network and binds a resume to the file's content.

use leaper_rules::{Color, MoveList, Position, Setup};
use leaper_train::data::{GameResult, HEADER_SIZE, Opening, PackedPosition, Reader, Record, Writer, summarize};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_leaper-data");

/// Small, fast settings: short searches, small chunks.
const FAST: [&str; 10] = [
    "--move-nodes",
    "200",
    "--score-nodes",
    "400",
    "--chunk-records",
    "40",
    "--hash-mb",
    "2",
    "--quiet",
    "--book-fraction=0.5",
];

fn datagen(out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("datagen").arg("--output").arg(out).args(FAST).args(extra);
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.output().expect("run leaper-data")
}

fn ok(cmd: Command) -> Output {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn summary_json(path: &Path) -> Value {
    let mut cmd = Command::new(BIN);
    cmd.args(["summary", "--json"]).arg(path);
    serde_json::from_slice(&ok(cmd).stdout).unwrap()
}

#[test]
fn datagen_is_reproducible_with_a_seed_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c, d) = (
        dir.path().join("a.bin"),
        dir.path().join("b.bin"),
        dir.path().join("c.bin"),
        dir.path().join("d.bin"),
    );
    let out = ok(datagen(&a, &["--positions", "150", "--seed", "5"]));
    assert!(text(&out.stdout).contains("positions/s"), "{}", text(&out.stdout));
    ok(datagen(&b, &["--positions", "150", "--seed", "5"]));
    ok(datagen(&c, &["--positions", "150", "--seed", "5", "--threads", "2"]));
    ok(datagen(&d, &["--positions", "150", "--seed", "6"]));
    let bytes = std::fs::read(&a).unwrap();
    assert_eq!(bytes, std::fs::read(&b).unwrap(), "same seed, same file");
    assert_eq!(bytes, std::fs::read(&c).unwrap(), "two threads write the same file");
    assert_ne!(bytes, std::fs::read(&d).unwrap(), "another seed, other games");

    let s = summary_json(&a);
    let n = s["records"].as_u64().unwrap();
    assert!(n >= 150, "{s}");
    assert!(s["games"].as_u64().unwrap() >= 2, "{s}");
    // Every stored position decodes to a position of the game where the
    // side to move's wazir is safe.
    let mut count = 0;
    for sample in leaper_train::data::samples(&a).unwrap() {
        let sample = sample.unwrap();
        assert!(
            !leaper_train::data::wazir_attacked(&sample.position),
            "{:?}",
            sample.position
        );
        assert!(sample.position.outcome().is_none());
        assert!(sample.score.abs() < 500_000, "no mate scores: {}", sample.score);
        count += 1;
    }
    assert_eq!(count, n);
    // Results agree within each game: one winner per game.
    let summary = summarize(&[&a]).unwrap();
    assert_eq!(summary.records, n);
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("a.bin.json")).unwrap()).unwrap();
    assert_eq!(settings["settings"]["seed"], 5);
    assert_eq!(settings["settings"]["move_nodes"], 200);
    assert!(settings["settings"].get("offer_fraction").is_none(), "{settings}");
}

/// `--offer-fraction` plays the same kind of games but offers a position
/// on only some of the searched plies: fewer positions a game, so more
/// games for the same positions, and still reproducible from the seed; a
/// fraction outside (0, 1] is refused by name.
#[test]
fn datagen_offers_positions_on_a_fraction_of_plies() {
    let dir = tempfile::tempdir().unwrap();
    let (all, some, again) = (
        dir.path().join("all.bin"),
        dir.path().join("some.bin"),
        dir.path().join("again.bin"),
    );
    ok(datagen(&all, &["--positions", "120", "--seed", "8"]));
    ok(datagen(
        &some,
        &["--positions", "120", "--seed", "8", "--offer-fraction", "0.25"],
    ));
    ok(datagen(
        &again,
        &[
            "--positions",
            "120",
            "--seed",
            "8",
            "--offer-fraction",
            "0.25",
            "--threads",
            "2",
        ],
    ));
    assert_eq!(std::fs::read(&some).unwrap(), std::fs::read(&again).unwrap());
    let per_game = |path: &Path| {
        let s = summary_json(path);
        s["records"].as_f64().unwrap() / s["games"].as_f64().unwrap()
    };
    let (dense, sparse) = (per_game(&all), per_game(&some));
    assert!(sparse < dense / 2.0, "{sparse} positions a game against {dense}");
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("some.bin.json")).unwrap()).unwrap();
    assert_eq!(settings["settings"]["offer_fraction"], 0.25);
    // Resuming with another fraction is another run's settings.
    let out = run(datagen(&some, &["--positions", "200", "--seed", "8"]));
    assert!(!out.status.success());
    for bad in ["--offer-fraction=0", "--offer-fraction=1.5", "--offer-fraction=-0.2"] {
        let out = run(datagen(&dir.path().join("bad.bin"), &[bad]));
        assert!(!out.status.success(), "{bad} accepted");
        assert!(text(&out.stderr).contains("--offer-fraction"), "{}", text(&out.stderr));
    }
}

#[test]
fn datagen_resumes_after_kill_9_to_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("ref.bin");
    let killed = dir.path().join("killed.bin");
    let args = ["--positions", "400", "--seed", "11"];
    ok(datagen(&reference, &args));
    let want = std::fs::read(&reference).unwrap();

    // Start the same run, kill -9 it once it has written a chunk or two.
    let mut child = datagen(&killed, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let first_chunks = HEADER_SIZE + 2 * (16 + 40 * 48);
    loop {
        let len = std::fs::metadata(&killed).map(|m| m.len()).unwrap_or(0);
        if len >= first_chunks || start.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let cut = std::fs::read(&killed).unwrap();
    assert!(
        cut.len() < want.len(),
        "killed before the end ({} of {} bytes)",
        cut.len(),
        want.len()
    );
    assert_eq!(
        cut[..],
        want[..cut.len()],
        "what was written is a prefix of the full run"
    );
    let partial = summary_json(&killed)["records"].as_u64().unwrap();
    assert!(partial < 400);

    // A write cut short: half a chunk at the end.
    let mut torn = cut.clone();
    torn.extend_from_slice(&want[cut.len()..(cut.len() + 100).min(want.len())]);
    std::fs::write(&killed, &torn).unwrap();
    let out = ok(datagen(&killed, &args));
    let err = text(&out.stderr);
    assert!(
        err.contains("killed.bin") && err.contains("torn tail") && err.contains(&format!("offset {}", cut.len())),
        "{err}"
    );
    assert!(err.contains(&format!("resuming with {partial} positions")), "{err}");
    assert_eq!(
        std::fs::read(&killed).unwrap(),
        want,
        "the resumed file is the uninterrupted one"
    );
    // Asking again for what it holds does nothing.
    ok(datagen(&killed, &args));
    assert_eq!(std::fs::read(&killed).unwrap(), want);
    // Asking for more goes on.
    ok(datagen(&killed, &["--positions", "450", "--seed", "11"]));
    assert!(summary_json(&killed)["records"].as_u64().unwrap() >= 450);
}

#[test]
fn datagen_refuses_other_settings_and_damaged_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.bin");
    ok(datagen(&path, &["--positions", "100", "--seed", "2"]));
    let out = run(datagen(&path, &["--positions", "200", "--seed", "3"]));
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("x.bin") && err.contains("seed: file 2 vs now 3"), "{err}");

    // Damage the first chunk's records: the second still follows.
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(
        bytes.len() as u64 > HEADER_SIZE + 2 * (16 + 40 * 48),
        "two chunks at least"
    );
    bytes[(HEADER_SIZE + 16 + 10) as usize] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    for mut cmd in [datagen(&path, &["--positions", "200", "--seed", "2"]), {
        let mut c = Command::new(BIN);
        c.arg("summary").arg(&path);
        c
    }] {
        let out = cmd.output().unwrap();
        assert!(!out.status.success());
        let err = text(&out.stderr);
        assert!(err.contains("x.bin: chunk 0 (at byte offset 16) is damaged"), "{err}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "a damaged file is left alone");

    for (flag, value, needle) in [
        ("--book-fraction", "1.5", "--book-fraction 1.5"),
        ("--eval", "magic", "unknown evaluation 'magic'"),
        ("--move-nodes", "5", "--move-nodes"),
        ("--temperature", "-1", "--temperature -1"),
    ] {
        let mut cmd = Command::new(BIN);
        cmd.args(["datagen", "--quiet", "--output"])
            .arg(dir.path().join("y.bin"))
            .arg(format!("{flag}={value}"));
        let out = run(cmd);
        assert!(!out.status.success(), "{flag} {value}");
        assert!(text(&out.stderr).contains(needle), "{flag}: {}", text(&out.stderr));
    }
    assert!(!dir.path().join("y.bin").exists(), "bad settings write nothing");
}

/// A network file of the repository (`engine/data`).
fn network_file(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(name)
}

/// `--eval-file` plays and scores with the file's network: the embedded
/// network's own file gives the very file the default does, another
/// network (the shipped one trained a step) other games; the settings keep
/// the file's SHA-256, so a resume with other content under the same path
/// is refused, and a file the evaluation kind cannot use or cannot read is
/// refused by name.
#[test]
fn datagen_plays_with_an_eval_file_and_binds_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, same, other) = (
        dir.path().join("plain.bin"),
        dir.path().join("same.bin"),
        dir.path().join("other.bin"),
    );
    let common = ["--positions", "120", "--seed", "9"];
    ok(datagen(&plain, &common));
    let shipped = network_file("leaper.nnue");
    let mut args = common.to_vec();
    args.extend(["--eval-file", shipped.to_str().unwrap()]);
    ok(datagen(&same, &args));
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&same).unwrap(),
        "the embedded network's file plays the same games"
    );
    // Another network, under a path of the test's own to change it later:
    // the shipped one trained a step on these games (the repository's
    // candidate may be the shipped network itself).
    let net = dir.path().join("net.nnue");
    let mut train = Command::new(BIN);
    train.args(["train", "--model", "nnue", "--data", plain.to_str().unwrap()]);
    train.args(["--init", shipped.to_str().unwrap(), "--epochs", "1", "--lr", "0.01"]);
    train.args(["--export", "last", "--val-fraction", "0.2", "--threads", "1"]);
    train.args(["--out", net.to_str().unwrap()]);
    ok(train);
    assert_ne!(
        std::fs::read(&net).unwrap(),
        std::fs::read(&shipped).unwrap(),
        "a step moves the network"
    );
    let mut args = common.to_vec();
    args.extend(["--eval-file", net.to_str().unwrap()]);
    ok(datagen(&other, &args));
    assert_ne!(
        all_records(&plain),
        all_records(&other),
        "another network, other moves and scores"
    );
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("other.bin.json")).unwrap()).unwrap();
    let sha = settings["settings"]["eval_file_sha256"].as_str().unwrap().to_string();
    assert_eq!(sha.len(), 64, "{settings}");
    assert!(
        settings["settings"]["eval_file"]
            .as_str()
            .unwrap()
            .ends_with("net.nnue")
    );
    assert!(
        !std::fs::read_to_string(dir.path().join("plain.bin.json"))
            .unwrap()
            .contains("eval_file"),
        "no file, no key"
    );

    // Same path, other content: the resume is refused, the file kept.
    let before = std::fs::read(&other).unwrap();
    std::fs::copy(&shipped, &net).unwrap();
    let mut args = vec!["--positions", "240", "--seed", "9"];
    args.extend(["--eval-file", net.to_str().unwrap()]);
    let out = run(datagen(&other, &args));
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("other.bin") && err.contains("eval_file_sha256") && err.contains(&sha),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&other).unwrap(),
        before,
        "a refused resume writes nothing"
    );
    // Resuming without the file is refused as well.
    let out = run(datagen(&other, &["--positions", "240", "--seed", "9"]));
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("eval_file: file"), "{}", text(&out.stderr));

    let missing = dir.path().join("missing.nnue");
    for (extra, needle) in [
        (
            vec!["--eval", "linear"],
            "holds a model for --eval nnue, not for --eval linear".to_string(),
        ),
        (vec![], format!("--eval-file {}", missing.display())),
    ] {
        let file = if extra.is_empty() { &missing } else { &net };
        let mut cmd = datagen(&dir.path().join("z.bin"), &extra);
        cmd.arg("--eval-file").arg(file);
        let out = run(cmd);
        assert!(!out.status.success(), "{extra:?}");
        assert!(text(&out.stderr).contains(&needle), "{needle}: {}", text(&out.stderr));
    }
    assert!(!dir.path().join("z.bin").exists(), "bad settings write nothing");
}

/// A file of known content: positions of one random game, labels chosen
/// here.
fn known_file(path: &Path) -> Vec<Record> {
    let mut rng = StdRng::seed_from_u64(4);
    let mut pos = Position::from_setups(&Setup::random(&mut rng), &Setup::random(&mut rng));
    let mut positions = Vec::new();
    while positions.len() < 6 {
        positions.push(pos.clone());
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        pos.play(list.as_slice()[rng.random_range(0..list.len())]);
    }
    let scores = [-50_000, -3_000, 0, 700, 25_000, 1_999];
    // Game 0: red wins (positions 0..3); game 1: drawn (3..5), and a
    // repeat of position 0 in game 1.
    let mut records = Vec::new();
    for i in 0..6 {
        let p = if i == 5 { &positions[0] } else { &positions[i] };
        let (game, winner) = if i < 3 { (0, Some(Color::Red)) } else { (1, None) };
        records.push(Record {
            position: PackedPosition::from_position(p),
            score: scores[i],
            result: GameResult::for_side(winner, p.turn()),
            game,
            opening: if game == 1 { Opening::Book } else { Opening::Random },
        });
    }
    let mut w = Writer::create(path).unwrap();
    w.write_chunk(&records[..4]).unwrap();
    w.write_chunk(&records[4..]).unwrap();
    records
}

#[test]
fn summary_counts_a_known_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("known.bin");
    let records = known_file(&path);
    // Plies 2, 3, 4, 5, 6 and 2 again: red to move at the even ones.
    let red_to_move = records.iter().filter(|r| r.position.turn() == Color::Red).count();
    assert_eq!(red_to_move, 4);
    let s = summary_json(&path);
    assert_eq!(s["records"], 6);
    assert_eq!(s["games"], 2);
    assert_eq!(s["files"][0]["chunks"], 2);
    assert_eq!(s["duplicates"], 1);
    assert_eq!(s["red_to_move"], 4);
    assert_eq!(s["book_openings"], 3);
    // Game 0 (red won): red to move at 0 and 2 wins, blue at 1 loses.
    // Game 1 drawn: 3 positions.
    assert_eq!(
        s["side_to_move"],
        serde_json::json!({"wins": 2, "draws": 3, "losses": 1})
    );
    assert_eq!(s["by_colour"], serde_json::json!({"wins": 3, "draws": 3, "losses": 0}));
    assert_eq!(
        s["games_by_colour"],
        serde_json::json!({"wins": 1, "draws": 1, "losses": 0})
    );
    // Scores -50000 (< -4), -3000 (-0.5..-0.2), 0 (-0.05..0.05), 700
    // and 1999 (0.05..0.2), 25000 (2..4).
    let counts: Vec<u64> = s["scores"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(counts, vec![1, 0, 0, 0, 1, 0, 1, 2, 0, 0, 0, 1, 0]);
    assert_eq!(s["scores"]["labels"][7], "+0.05 .. +0.20");
    // Plies 2..7: all in the first bin.
    assert_eq!(s["plies"]["counts"][0], 6);
    let mean = s["mean_score"].as_f64().unwrap();
    assert!((mean - (-50_000.0 - 3_000.0 + 700.0 + 25_000.0 + 1_999.0) / 6.0).abs() < 1e-6);

    // The text form says the same, and a torn tail is named on stderr.
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    bytes.extend_from_slice(b"LDCK\x05\x00");
    std::fs::write(&path, &bytes).unwrap();
    let mut cmd = Command::new(BIN);
    cmd.arg("summary").arg(&path);
    let out = ok(cmd);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("positions              6"), "{stdout}");
    assert!(stdout.contains("duplicates             1 (16.67%)"), "{stdout}");
    assert!(
        stdout.contains("side to move           wins 2 (33.3%), draws 3 (50.0%), losses 1 (16.7%)"),
        "{stdout}"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("known.bin") && stderr.contains(&format!("torn tail of 6 bytes at byte offset {len}")),
        "{stderr}"
    );
}

fn all_records(path: &Path) -> Vec<Record> {
    let mut reader = Reader::open(path).unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk().unwrap() {
        out.extend(chunk.records);
    }
    out
}

/// The first `n` games of a CodeCup transcript in `../shared`, header
/// included.
fn codecup_rows(file: &str, n: usize) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/codecup-2026")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().take(n + 1).map(str::to_owned).collect()
}

#[test]
fn datagen_follows_recorded_games_and_labels_them_with_their_results() {
    let dir = tempfile::tempdir().unwrap();
    // Five decided tournament games, then a game lost by an illegal move,
    // which decides nothing about its positions and is left out.
    let mut rows = codecup_rows("competition-347-transcripts.csv", 5);
    let forfeit = codecup_rows("test-1-competition-350-transcripts.csv", 1);
    assert!(forfeit[1].contains("ILLEGAL"), "{}", forfeit[1]);
    rows.push(forfeit[1].clone());
    let games = dir.path().join("games.csv");
    std::fs::write(&games, rows.join("\n") + "\n").unwrap();
    // The winner of each kept game, from its statuses.
    let winners: Vec<Option<Color>> = rows[1..6]
        .iter()
        .map(|row| {
            let fields: Vec<&str> = row.split(',').collect();
            match (fields[5], fields[8]) {
                ("WIN", _) => Some(Color::Red),
                (_, "WIN") => Some(Color::Blue),
                _ => None,
            }
        })
        .collect();

    let (a, b) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
    let games_arg = games.to_str().unwrap();
    // The target is far away: the run ends with the file's last game.
    let out = ok(datagen(&a, &["--games", games_arg, "--positions", "100000"]));
    assert!(text(&out.stdout).contains("from 5 games"), "{}", text(&out.stdout));
    ok(datagen(
        &b,
        &["--games", games_arg, "--positions", "100000", "--threads", "2"],
    ));
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        "two threads write the same file"
    );

    let records = all_records(&a);
    assert!(records.len() >= 20, "{} records", records.len());
    let mut games_seen = std::collections::BTreeSet::new();
    for r in &records {
        assert_eq!(r.opening, Opening::Recorded);
        let expected = GameResult::for_side(winners[r.game as usize], r.position.turn());
        assert_eq!(r.result, expected, "game {}", r.game);
        games_seen.insert(r.game);
    }
    assert_eq!(games_seen.into_iter().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
    assert_eq!(summary_json(&a)["recorded_games"], records.len() as u64);

    // Run again: the games are done, nothing is added.
    let again = ok(datagen(&a, &["--games", games_arg, "--positions", "100000"]));
    assert!(text(&again.stderr).contains("resuming"), "{}", text(&again.stderr));
    assert_eq!(all_records(&a).len(), records.len());

    // A quarter of the plies offering: fewer positions from the same games,
    // the same on two threads.
    let (q1, q2) = (dir.path().join("q1.bin"), dir.path().join("q2.bin"));
    let quarter = [
        "--games",
        games_arg,
        "--positions",
        "100000",
        "--offer-fraction",
        "0.25",
    ];
    ok(datagen(&q1, &quarter));
    ok(datagen(&q2, &[&quarter[..], &["--threads", "2"]].concat()));
    assert_eq!(std::fs::read(&q1).unwrap(), std::fs::read(&q2).unwrap());
    let fewer = all_records(&q1).len();
    assert!(fewer > 0 && fewer < records.len() / 2, "{fewer} of {}", records.len());

    // A file that is not a game record is named.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "a,b\n1,2\n").unwrap();
    let out = run(datagen(&dir.path().join("c.bin"), &["--games", bad.to_str().unwrap()]));
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("bad.csv"), "{}", text(&out.stderr));
}

#[test]
fn summary_into_a_closed_pipe_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("known.bin");
    known_file(&path);
    // The reader goes away before the summary is written, as `| head`
    // does once it has its lines.
    let mut child = Command::new(BIN)
        .arg("summary")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
