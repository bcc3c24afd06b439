//! Measurements of the engine: `bench` (a fixed set of positions searched
//! to a fixed depth with a fresh table, whose total node count is a
//! signature of the search: equal counts mean equal behaviour), and
//! `bench-stop` (how long the engine, as a real process behind pipes,
//! takes to answer `stop` during `go infinite`).

use crate::eval::Eval;
use crate::rules::{Position, SetupCase};
use crate::search::{Limits, Params, Searcher, Signals, TableError};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The bench positions: moves from the empty board (prefixes of CodeCup
/// 2026 games, from quiet openings to drop-heavy middlegames) or a FEN.
pub const POSITIONS: &[&str] = &[
    "moves WFNADAAADDFDAAAA dawaaaadfnaadfda a5c5 g4e2 b4d4 g1e1 d4f4 g2e4 f4h4 e2g4",
    "moves DAWAADNADAFFAAAD dffaaaadwnaaaadd b6d4 h6f4 b4c5 g5e3 c5b6 h2f3 a4c6 g7e5 a3a4 f3d2 b3c2 h7f7 b8d8 f7f5",
    "moves WNDDAAAAFFDDAAAA aanfaafaddaadadw b7d5 h5f5 a2c3 g3e4 b3d3 h3f1 a4c4 e4c3 a5c3 f1d3 b5d3 f5d5 Ab3 d5d3 \
     Ne5 g8e6 e5g6 h8g8 b1c2 ae4 g6e5 e4c2",
    "moves WNAAAAAADFFDADDA aaddafdaaafdawan b8d6 h7f5 b5d7 h8f7 d7f5 g6f5 b7d7 f7e5 d7d5 f5e6 a5c3 e5g6 Ae8 e6d5 \
     e8g6 h6g6 Ne5 g6f6 a7c5 f6f5 b3c4 d5c4 a6c4 ad5 Fe6 g8e6 c4e6 g4e4",
    "moves WNAAAADDDFFAAAAD afadndfadaaaadaw a8c8 h7f5 a4c6 g6e6 a3c5 h2f4 c5e7 g5f3 b7d5 f3e5 e7g5 h8h7 a7c7 g7f6 \
     a6c4 e6c6 b6d4 c6c8 c7c5 e5c6 d4f6 h6f6 b8b6 c6d4 Fe7 f6h6 b4d6 f4d6 b6d6 d4b5 Af3 g2f3 d5f3 h5f3 c4e2 g4e4",
    "moves WNAAAADDDFFAAAAD fdaaaadnfdaaaadw a3c5 h7f7 b6d4 h8h7 a6c4 h5f3 b8d8 f7f5 b5d3 f5f7 d8d6 f7d7 a7c7 d7b7 \
     a8c8 b7d7 c8c6 f3d5 c6e6 ae4 e6g6 e4g6 Ae6 g4e6 c4e6 d5b3 e6g8 d7d5 b1b3 ad1 d3b1 fb8 b3d3 d5d3 b1d3 d1f3 Ae3 \
     df7 e3g1 b8c7 a5c7 de8",
    "moves WDDAFDAAAFANAADA fdaaaadnfdaaaadw a2c2 g7e7 a7c5 e7c7 c5e3 g5e3 b4d5 c7a7 a5b4 ac1 a3c3 h5f3 c3e3 f3d5 \
     e3g3 g1f2 b3d5 nc7 d5f3 c7a6 b8d6 f2g3 f3h1 de7 b2c1 g6e4 Ae5 de1 c1d2 g4e6 e5g3 e4c2 a4c2 dc1 a1a2 h6f4 g3e1 \
     f4d6 b4a3 e6c4 a2b2 c1a1 Aa2 a1a3 a2c4 fa1 b2b3 ad1 b3a3 a1b2 a3a2 a6b4 a2b2 h4f6 Dd3 h2f2 d2c3 g2e2 c4e2 b4a6 \
     Fg3 a6c5 d3d1 c5b7 b2a2 f2f4 g3f4 dc1 c3b4 d6f8 e1g3 b7d6 b1d3 h3f1 d1f1 d6e8 Ae3 f8d6",
    "moves ANDADADFFAADAAAW dfaaanfdddaaaawa b5d3 g7f6 a5c5 g6e7 a6c8 g8e8 b6d8 e8c8 b4b6 c8a8 b8a8 fa6 Dd7 a6b7 \
     d7b7 ac8 d3f5 e7f5 Fg6 h7g7 g6h7 g7h7 b7d7 aa6 b6b8 ad6 a3a5 d6b8 a2b4 fd6 b4d5 d6c5 d5f6 h4f6 Fg6 h7g7 a7c7 \
     f6d8 c7e7 g5e7 a5c5 nb6 a8a7 e7c5 a7b7 db5",
    "fen W7/8/8/8/8/6D1/5D2/7w Aaaaaaaaaaaaaaaaddddddffffnn r 40",
];

/// The default bench depth.
pub const DEFAULT_DEPTH: u32 = 8;

/// The node count of `leaper bench` at [`DEFAULT_DEPTH`]: the search's
/// signature, checked by a test. A change that alters the search (or the
/// default evaluation) on purpose updates it here, and only here.
pub const SIGNATURE: u64 = 1_466_066;

/// One bench position's figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchLine {
    /// Its index in [`POSITIONS`].
    pub index: usize,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The best move, as text.
    pub best: String,
}

/// Why a bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A position of the list is broken (a bug in the list).
    #[error("bench position {index}: {what}")]
    Position {
        /// Its index.
        index: usize,
        /// What is wrong.
        what: String,
    },
    /// No hash table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Running the engine process failed.
    #[error("bench-stop: {0}")]
    Io(#[from] std::io::Error),
    /// The engine process misbehaved.
    #[error("bench-stop: {0}")]
    Engine(String),
}

/// The position of a [`POSITIONS`] entry.
pub fn bench_position(index: usize, text: &str) -> Result<Position, BenchError> {
    let bad = |what: String| BenchError::Position { index, what };
    let (mut pos, moves) = if let Some(fen) = text.strip_prefix("fen ") {
        (Position::from_fen(fen).map_err(|e| bad(e.to_string()))?, "")
    } else {
        (Position::new(), text.strip_prefix("moves ").unwrap_or(text))
    };
    for mv in moves.split_whitespace() {
        let mv = pos
            .parse_move(mv, SetupCase::Strict)
            .map_err(|e| bad(format!("{mv}: {e}")))?;
        pos.play_game_move(&mv);
    }
    Ok(pos)
}

/// Searches every bench position to `depth` with a fresh 16 MB table,
/// default parameters and evaluator `eval`, calling `each` after each
/// position.
///
/// # Errors
/// [`BenchError`] if a position is broken or the table cannot be had.
pub fn run(depth: u32, eval: &Eval, mut each: impl FnMut(&BenchLine)) -> Result<Vec<BenchLine>, BenchError> {
    let params = Params::default();
    let mut lines = Vec::new();
    for (index, text) in POSITIONS.iter().enumerate() {
        let pos = bench_position(index, text)?;
        let mut searcher = Searcher::with_evaluator(eval.clone(), 16)?;
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let start = Instant::now();
        let result = searcher.search_with(&pos, &limits, &params, &Signals::default(), &mut ());
        let line = BenchLine {
            index,
            nodes: result.nodes,
            elapsed: start.elapsed(),
            best: result.best.map_or_else(|| "(none)".into(), |m| m.to_text(pos.turn())),
        };
        each(&line);
        lines.push(line);
    }
    Ok(lines)
}

/// Starts `exe uci` and measures, `runs` times, the wall time from writing
/// `stop` (after `think` of `go infinite`) to reading the `bestmove`.
///
/// # Errors
/// [`BenchError`] if the process cannot be run or does not answer within
/// five seconds.
pub fn stop_latency(exe: &Path, runs: usize, think: Duration) -> Result<Vec<Duration>, BenchError> {
    let mut child = Command::new(exe)
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| BenchError::Engine("no stdin".into()))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| BenchError::Engine("no stdout".into()))?;
    let (tx, rx) = crossbeam_channel::unbounded::<(Instant, String)>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    let wait_for = |prefix: &str| -> Result<Instant, BenchError> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok((at, line)) if line.starts_with(prefix) => return Ok(at),
                Ok(_) => {}
                Err(_) => return Err(BenchError::Engine(format!("no `{prefix}` within 5 s"))),
            }
        }
    };
    // The time is taken before writing, so the write itself counts.
    let mut send = |line: &str| -> Result<Instant, BenchError> {
        let at = Instant::now();
        writeln!(stdin, "{line}")?;
        stdin.flush()?;
        Ok(at)
    };
    send("uci")?;
    wait_for("uciok")?;
    let mut latencies = Vec::new();
    let games = POSITIONS.iter().filter_map(|p| p.strip_prefix("moves "));
    for moves in games.cycle().take(runs) {
        send(&format!("position startpos moves {moves}"))?;
        send("isready")?;
        wait_for("readyok")?;
        send("go infinite")?;
        std::thread::sleep(think);
        let sent = send("stop")?;
        let answered = wait_for("bestmove")?;
        latencies.push(answered.saturating_duration_since(sent));
    }
    let _ = send("quit");
    let _ = child.wait();
    Ok(latencies)
}
