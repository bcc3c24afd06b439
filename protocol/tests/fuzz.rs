//! A deterministic fuzz test: well over a million lines, mutated from
//! valid ones (truncated, bytes flipped, tokens duplicated, dropped,
//! swapped or replaced by huge numbers, random bytes inserted, lines
//! spliced), decoded as the engine decodes its input, and fed to every
//! parser. No parser may panic; every line that parses must format to a
//! line that parses back to the same value; errors must stay short. The
//! line reader gets the same bytes as one stream.

use std::io::BufReader;

use leaper_rules::{MoveText, Position};
use protocol::{Command, EngineMessage, Line, LineReader, PlayerMessage, RefereeMessage};

/// SplitMix64: tiny, seedable, good enough to drive mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const CORPUS: &[&str] = &[
    "uci",
    "debug on",
    "isready",
    "setoption name Hash value 64",
    "setoption name Move Overhead value 10",
    "setoption name Clear Hash",
    "ucinewgame",
    "position startpos",
    "position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa a3c4 g4e6 Df8 a@c3",
    "position fen 1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26 moves a3c4",
    "go wtime 30000 btime 29120 winc 10 binc 10 movestogo 40",
    "go movetime 100 depth 12 nodes 1000000 mate 3 infinite ponder searchmoves b5d3 Df8",
    "go wtime -5 btime -18446744073709551616",
    "go perft 5",
    "stop",
    "ponderhit",
    "quit",
    "d",
    "spsa",
    "id name leaper 0.1.0",
    "id author leaper developers",
    "option name Hash type spin default 64 min 1 max 65536",
    "option name Ponder type check default false",
    "option name Clear Hash type button",
    "option name EvalFile type string default <empty>",
    "option name Style type combo default Normal var Solid var Normal var Risky",
    "uciok",
    "readyok",
    "info depth 12 seldepth 25 score cp -4 nodes 1893311 nps 1510000 time 1254 pv a3c4 g4e6 c4a3",
    "info depth 3 multipv 2 score mate -3 upperbound hashfull 1000 currmove Df8 currmovenumber 9 string hi  there",
    "info string gameover 1-0",
    "info string error: bad move `b5d9` at token 4",
    "bestmove a3c4 ponder g4e6",
    "bestmove (none)",
    "b5d3: 1234",
    "Nodes searched: 10810800",
    "NullMoveMargin, int, 1100, 0, 10000, 500, 0.002",
    "Start",
    "Quit",
    "AWNAADADAFFAADDA",
    "b5d3",
    "ac3",
    "8/8/8/8/8/8/8/8 - r 0",
];

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "+1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "99999999999999999999999999999999999999999999999999",
    "-99999999999999999999999999999999999999999999999999",
    "1e9",
    "0x10",
    "NaN",
    "inf",
    "1.5",
];

fn tokens(line: &[u8]) -> Vec<Vec<u8>> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
    match rng.below(10) {
        0 => line.truncate(rng.below(line.len() + 1)),
        1 => {
            if !line.is_empty() {
                let i = rng.below(line.len());
                line[i] ^= 1 << rng.below(8);
            }
        }
        2 => {
            let i = rng.below(line.len() + 1);
            let n = 1 + rng.below(4);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            line.splice(i..i, bytes);
        }
        3..=7 => {
            let mut t = tokens(line);
            if t.is_empty() {
                return;
            }
            let i = rng.below(t.len());
            match rng.below(6) {
                0 => {
                    let dup = t[i].clone();
                    t.insert(i, dup);
                }
                1 => {
                    t.remove(i);
                }
                2 => {
                    let j = rng.below(t.len());
                    t.swap(i, j);
                }
                3 => t[i] = rng.pick(NUMBERS).as_bytes().to_vec(),
                4 => {
                    // A token from another line: keywords in the wrong place.
                    let other = tokens(rng.pick(CORPUS).as_bytes());
                    t.insert(i, rng.pick(&other).clone());
                }
                _ => t[i].make_ascii_uppercase(),
            }
            *line = t.join(&b" "[..]);
        }
        8 => {
            let other = rng.pick(CORPUS).as_bytes();
            let cut = rng.below(line.len() + 1);
            line.truncate(cut);
            line.extend_from_slice(&other[rng.below(other.len() + 1)..]);
        }
        _ => {
            // Extra whitespace of every kind between tokens.
            let i = rng.below(line.len() + 1);
            line.insert(i, *rng.pick(b" \t\r\x0b\x0c"));
        }
    }
}

/// Feeds one decoded line to every parser and checks what parses.
/// Returns how many parsers accepted it.
fn check(line: &str) -> usize {
    let mut accepted = 0;
    match line.parse::<Command>() {
        Ok(c) => {
            accepted += 1;
            let text = c.to_string();
            assert!(!text.contains(['\n', '\r']), "{line:?}");
            assert_eq!(text.parse::<Command>(), Ok(c), "{line:?} -> {text:?}");
        }
        Err(e) => assert!(e.to_string().len() < 400, "{line:?}: {e}"),
    }
    match line.parse::<EngineMessage>() {
        Ok(m) => {
            accepted += 1;
            let text = m.to_string();
            assert!(!text.contains(['\n', '\r']), "{line:?}");
            assert_eq!(text.parse::<EngineMessage>(), Ok(m), "{line:?} -> {text:?}");
        }
        Err(e) => assert!(e.to_string().len() < 400, "{line:?}: {e}"),
    }
    if let Ok(m) = line.parse::<RefereeMessage>() {
        accepted += 1;
        assert_eq!(m.to_string().parse::<RefereeMessage>(), Ok(m));
    }
    if let Ok(m) = line.parse::<PlayerMessage>() {
        assert_eq!(m.to_string().parse::<PlayerMessage>(), Ok(m));
    }
    if let Ok(m) = line.parse::<MoveText>() {
        assert_eq!(m.to_string().parse::<MoveText>(), Ok(m));
    }
    if let Ok(pos) = Position::from_fen(line) {
        assert_eq!(Position::from_fen(&pos.to_fen()), Ok(pos));
    }
    accepted
}

#[test]
fn a_million_mutated_lines_never_panic_and_round_trip() {
    const LINES: usize = 1_200_000;
    let mut rng = Rng(0x1ea9e4);
    let mut stream = Vec::new();
    let mut parsed = 0;
    for n in 0..LINES {
        let mut line = rng.pick(CORPUS).as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut rng, &mut line);
        }
        if n % 1000 == 0 {
            // Pure noise now and then.
            line = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
        }
        let text = String::from_utf8_lossy(&line);
        if check(&text) > 0 {
            parsed += 1;
        }
        if n < 20_000 {
            stream.extend_from_slice(&line);
            stream.push(b'\n');
        }
    }
    // The mutations must leave a fair share of lines valid, or the
    // round-trip checks above would have tested little.
    assert!(parsed > LINES / 10, "only {parsed} of {LINES} lines parsed");

    // The same bytes as one stream, with a small limit so that some lines
    // are too long.
    let reader = LineReader::with_max_len(BufReader::with_capacity(7, &stream[..]), 40);
    let mut count = 0;
    for line in reader {
        match line.unwrap() {
            Line::Text(text) => {
                assert!(!text.contains('\n') && text.len() <= 40 * 3);
                check(&text);
            }
            Line::TooLong { len } => assert!(len > 40),
        }
        count += 1;
    }
    assert_eq!(count, stream.iter().filter(|&&b| b == b'\n').count());
}

#[test]
fn huge_lines_give_short_errors_quickly() {
    let many_moves = format!("position startpos moves {}", "a3c4 ".repeat(200_000));
    let bad_tail = format!("{many_moves}x9");
    let huge_number = format!("go depth {}", "9".repeat(1 << 20));
    let huge_token = format!("go {}", "x".repeat(1 << 20));
    let long_string = format!("info string {}", "ab ".repeat(300_000));
    for line in [&many_moves, &bad_tail, &huge_number, &huge_token, &long_string] {
        check(line);
    }
    let Ok(Command::Position { moves, .. }) = many_moves.parse::<Command>() else {
        panic!("200000 moves should parse");
    };
    assert_eq!(moves.len(), 200_000);
    let error = bad_tail.parse::<Command>().unwrap_err().to_string();
    assert!(error.starts_with("bad move `x9` at token 200003"), "{error}");
}
