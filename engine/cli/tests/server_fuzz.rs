//! Bad input never panics and never kills the server: a million random and
//! mutated lines through `Server::handle_line` (the function the stdin loop
//! calls) with the output captured, and a smaller run against the real
//! process over pipes. Both check that every `go` got exactly one
//! `bestmove` and every output line is a well-formed message, and that the
//! server still answers and plays afterwards.
//!
//! `LEAPER_FUZZ_LINES` overrides the number of in-process lines.

mod process;

use leaper::server::{Flow, Output, Server};
use leaper::{MoveList, Position, Setup};
use parking_lot::Mutex;
use protocol::{Command, EngineMessage};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// Lines of a plausible session, for mutation.
const CORPUS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "debug on",
    "debug off",
    "d",
    "spsa",
    "stop",
    "ponderhit",
    "position startpos",
    "position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6 a3c4",
    "position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6 a3c4 D@e5",
    "position fen 1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26 moves a3c4",
    "position fen W7/8/8/8/8/6D1/5D2/7w Aaaaaaaaaaaaaaaaddddddffffnn r 40 moves Af6",
    "position fen W7/8/8/8/8/6D1/5D2/8 Aaaaaaaaaaaaaaaaddddddffffnn b 41",
    "go",
    "go depth 3",
    "go nodes 500",
    "go movetime 5",
    "go wtime 100 btime 100 winc 1 binc 1 movestogo 3",
    "go infinite",
    "go ponder wtime 50 btime 50",
    "go depth 2 searchmoves b5d3 a3c4 Df8",
    "go mate 2",
    "go wtime 18446744073709551615 btime 18446744073709551615 winc 18446744073709551615 movestogo 4294967295",
    "go movetime 18446744073709551615 nodes 18446744073709551615 depth 4294967295",
    "go perft 1",
    "go perft 2",
    "setoption name Hash value 2",
    "setoption name MoveOverhead value 5",
    "setoption name OwnBook value true",
    "setoption name Ponder value false",
    "setoption name Threads value 1",
    "setoption name MultiPV value 1",
    "setoption name Seed value 7",
    "setoption name AspirationWindow value 300",
    "setoption name futility margin value 100",
    "setoption name TimeMaxPermille value 500",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "1e3",
    "0x10",
    "",
];

const WORDS: &[&str] = &[
    "go",
    "position",
    "startpos",
    "fen",
    "moves",
    "depth",
    "nodes",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "infinite",
    "ponder",
    "perft",
    "searchmoves",
    "setoption",
    "name",
    "value",
    "Hash",
    "stop",
    "isready",
    "b5d3",
    "Df8",
    "D@f8",
    "a1a1",
    "AWNAADADAFFAADDA",
    "aaaaaffdaddadnwa",
    "WWWWWWWWWWWWWWWW",
    "(none)",
    "-",
    "r",
    "b",
    "\t",
    "\u{0}",
    "é",
    "\u{feff}",
    "\r",
];

/// A random legal game from the empty board, as its moves.
fn random_game(rng: &mut StdRng) -> Vec<String> {
    let mut pos = Position::new();
    let mut moves = Vec::new();
    for _ in 0..102 {
        if pos.outcome().is_some() {
            break;
        }
        let mv = if pos.is_setup_phase() {
            leaper::GameMove::Setup(Setup::random(rng))
        } else {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            leaper::GameMove::Move(list.as_slice()[rng.random_range(0..list.len())])
        };
        moves.push(mv.to_text(pos.turn()));
        pos.play_game_move(&mv);
    }
    moves
}

/// Random games, made once; lines use their prefixes.
struct Games(Vec<Vec<String>>);

impl Games {
    fn new(rng: &mut StdRng) -> Games {
        Games((0..200).map(|_| random_game(rng)).collect())
    }

    /// A `position startpos moves ...` line with a random prefix of a game.
    fn position(&self, rng: &mut StdRng) -> String {
        let game = &self.0[rng.random_range(0..self.0.len())];
        let plies = rng.random_range(0..=game.len());
        format!("position startpos moves {}", game[..plies].join(" "))
    }
}

fn mutate(line: &str, rng: &mut StdRng) -> String {
    let mut tokens: Vec<String> = line.split(' ').map(str::to_string).collect();
    for _ in 0..rng.random_range(1..4) {
        let n = tokens.len();
        match rng.random_range(0..9) {
            0 if n > 0 => {
                tokens.remove(rng.random_range(0..n));
            }
            1 if n > 0 => {
                let t = tokens[rng.random_range(0..n)].clone();
                tokens.insert(rng.random_range(0..=n), t);
            }
            2 if n > 1 => tokens.swap(rng.random_range(0..n), rng.random_range(0..n)),
            3 => tokens.insert(
                rng.random_range(0..=n),
                NUMBERS[rng.random_range(0..NUMBERS.len())].into(),
            ),
            4 => tokens.insert(rng.random_range(0..=n), WORDS[rng.random_range(0..WORDS.len())].into()),
            5 if n > 0 => {
                let i = rng.random_range(0..n);
                if tokens[i].parse::<i64>().is_ok() {
                    tokens[i] = NUMBERS[rng.random_range(0..NUMBERS.len())].into();
                }
            }
            6 if n > 0 => {
                // Flip a byte of one token (keeping it text).
                let i = rng.random_range(0..n);
                let mut bytes = tokens[i].clone().into_bytes();
                if !bytes.is_empty() {
                    let j = rng.random_range(0..bytes.len());
                    bytes[j] = rng.random_range(0x20..0x7f);
                }
                tokens[i] = String::from_utf8_lossy(&bytes).into_owned();
            }
            7 if n > 0 => tokens.truncate(rng.random_range(0..n)),
            _ => {
                if let Some(t) = tokens.first_mut() {
                    *t = t.to_uppercase();
                }
            }
        }
    }
    tokens.join(" ")
}

/// One line of input: random bytes, a corpus line, a real game, or a
/// mutation of those.
fn random_line(rng: &mut StdRng, games: &Games) -> String {
    let line = match rng.random_range(0..20) {
        0 => {
            let len = rng.random_range(0..80);
            let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        1 => {
            let n = rng.random_range(1..12);
            (0..n)
                .map(|_| WORDS[rng.random_range(0..WORDS.len())])
                .collect::<Vec<_>>()
                .join(" ")
        }
        2..=4 => games.position(rng),
        5..=11 => CORPUS[rng.random_range(0..CORPUS.len())].to_string(),
        12..=14 => {
            let base = games.position(rng);
            mutate(&base, rng)
        }
        _ => mutate(CORPUS[rng.random_range(0..CORPUS.len())], rng),
    };
    // Tables of many GB are tested by name, not by a fuzzer allocating them.
    if let Ok(Command::SetOption(o)) = line.parse::<Command>()
        && o.name_is("Hash")
        && o.value
            .as_deref()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .is_some_and(|v| v > 64)
    {
        return "setoption name Hash value 64".to_string();
    }
    line
}

/// What the captured output held.
#[derive(Default)]
struct Tally {
    lines: u64,
    bestmoves: u64,
    readyoks: u64,
    errors: u64,
    internal_errors: u64,
    malformed: Vec<String>,
    partial: Vec<u8>,
}

fn is_diagram(line: &str) -> bool {
    line.starts_with("   12345678")
        || (line.len() == 11 && line.starts_with(' ') && line.as_bytes()[1].is_ascii_lowercase())
        || line.starts_with("hand red: ")
        || line.starts_with("to move: ")
        || line.starts_with("fen: ")
        || line.starts_with("hash: ")
}

impl Tally {
    fn line(&mut self, line: &str) {
        self.lines += 1;
        match line.parse::<EngineMessage>() {
            Ok(EngineMessage::BestMove(_)) => self.bestmoves += 1,
            Ok(EngineMessage::ReadyOk) => self.readyoks += 1,
            Ok(EngineMessage::Info(info)) if info.error_text().is_some() => {
                self.errors += 1;
                // The search thread caught a panic: a bug, even if the GUI got a move.
                if info.error_text().is_some_and(|t| t.starts_with("internal error")) {
                    self.internal_errors += 1;
                }
            }
            Ok(_) => {}
            Err(_) if is_diagram(line) => {}
            Err(e) => {
                if self.malformed.len() < 10 {
                    self.malformed.push(format!("{line:?}: {e}"));
                }
            }
        }
    }
}

/// A writer that tallies lines instead of keeping them.
struct TallyWriter(Arc<Mutex<Tally>>);

impl Write for TallyWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut tally = self.0.lock();
        tally.partial.extend_from_slice(buf);
        while let Some(end) = tally.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = tally.partial.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..end]).into_owned();
            tally.line(&text);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_million_random_and_mutated_lines_never_break_the_server() {
    let count: usize = std::env::var("LEAPER_FUZZ_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut server = Server::new(Output::new(TallyWriter(Arc::clone(&tally)))).unwrap();
    let mut rng = StdRng::seed_from_u64(0x1ea9e5);
    let games = Games::new(&mut rng);
    let mut gos = 0u64;
    for i in 0..count {
        let line = random_line(&mut rng, &games);
        let is_go = matches!(line.parse::<Command>(), Ok(Command::Go(_)));
        gos += u64::from(is_go);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| server.handle_line(&line)));
        match outcome {
            Ok(Flow::Continue | Flow::Quit) => {}
            Err(_) => panic!("line {i} panicked the server: {line:?}"),
        }
        // Searches are stopped at once, as the next command would.
        if is_go || line.starts_with("go") {
            server.handle_line("stop");
        }
    }
    server.stop_and_wait();
    // The server still answers and plays.
    server.handle_line("isready");
    server.handle_line("position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa");
    server.handle_line("go depth 2");
    gos += 1;
    server.wait();
    drop(server);
    let tally = tally.lock();
    assert!(tally.malformed.is_empty(), "malformed output: {:#?}", tally.malformed);
    assert_eq!(tally.internal_errors, 0, "the search panicked");
    assert_eq!(tally.bestmoves, gos, "one bestmove per go");
    assert!(tally.readyoks > 0);
    assert!(tally.errors > count as u64 / 20, "only {} errors", tally.errors);
    eprintln!(
        "{count} lines: {gos} go, {} output lines, {} errors",
        tally.lines, tally.errors
    );
}

#[test]
fn the_real_process_survives_random_lines_over_pipes() {
    let mut rng = StdRng::seed_from_u64(0xbad_11e5);
    let games = Games::new(&mut rng);
    let mut engine = process::Engine::start(&["uci"]);
    let (mut gos, mut readies) = (0, 0);
    let mut batch = Vec::new();
    for _ in 0..20_000 {
        // Over a pipe a newline would split the line in two.
        let line = random_line(&mut rng, &games).replace('\n', " ");
        match line.parse::<Command>() {
            Ok(Command::Quit) => continue,
            Ok(Command::Go(_)) => gos += 1,
            Ok(Command::IsReady) => readies += 1,
            _ => {}
        }
        batch.extend_from_slice(line.as_bytes());
        batch.push(b'\n');
    }
    // Raw bytes too: invalid UTF-8, NULs, a CR-only line, a huge line.
    batch.extend_from_slice(b"\xff\xfe\x00go\r\n\r\nisready\x00\n");
    batch.extend_from_slice(&vec![b'g'; 3 << 20]);
    batch.extend_from_slice(b"\nstop\n");
    // The reader thread drains stdout meanwhile, so this cannot deadlock.
    engine.send_bytes(&batch);
    engine.send("isready");
    let mut tally = Tally::default();
    while tally.readyoks < readies + 1 {
        let line = engine.line();
        tally.line(&line);
    }
    assert!(tally.malformed.is_empty(), "malformed output: {:#?}", tally.malformed);
    assert_eq!(tally.internal_errors, 0, "the search panicked");
    assert_eq!(tally.bestmoves, gos, "one bestmove per go");
    engine.send("position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa");
    engine.send("go depth 2");
    let last = engine.bestmove();
    assert!(
        last.last()
            .is_some_and(|l| l.starts_with("bestmove ") && l != "bestmove (none)")
    );
    engine.send("quit");
    assert!(engine.wait().success());
}
