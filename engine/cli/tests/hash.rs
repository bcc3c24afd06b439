//! A large hash table is ready at once (issue 18.8): `leaper` answers
//! `readyok` after `setoption name Hash value 4000` without touching the
//! 4 GB, and a new game right after does not clear a table that is still
//! empty; a small table keeps working after a search and a new game. A
//! real process over real pipes; the times are printed, and the bound is
//! generous (the table used to take 10 to 20 s).

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

struct Leaper {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Leaper {
    fn send(&mut self, text: &str) {
        writeln!(self.stdin, "{text}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads lines until one starts with `word`; returns it.
    fn wait_for(&mut self, word: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "no `{word}` before the end"
            );
            if line.starts_with(word) {
                return line;
            }
        }
    }

    /// `isready` and the time to its `readyok`.
    fn ready_time(&mut self) -> Duration {
        let start = Instant::now();
        self.send("isready");
        self.wait_for("readyok");
        start.elapsed()
    }
}

#[test]
fn a_large_hash_is_ready_at_once() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut leaper = Leaper {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
    };
    leaper.send("uci");
    leaper.wait_for("uciok");
    leaper.send("setoption name Hash value 4000");
    let resized = leaper.ready_time();
    leaper.send("ucinewgame");
    let new_game = leaper.ready_time();
    eprintln!("readyok after Hash=4000: {resized:?}; after ucinewgame: {new_game:?}");
    assert!(resized < Duration::from_secs(5), "{resized:?}");
    assert!(new_game < Duration::from_secs(5), "{new_game:?}");

    // A small table still works through a search and a new game.
    leaper.send("setoption name Hash value 16");
    leaper.ready_time();
    leaper.send("position startpos");
    leaper.send("go depth 3");
    let best = leaper.wait_for("bestmove");
    assert!(best.split_whitespace().nth(1).is_some_and(|m| m != "(none)"), "{best}");
    leaper.send("ucinewgame");
    leaper.ready_time();
    leaper.send("position startpos");
    leaper.send("go depth 3");
    leaper.wait_for("bestmove");
    leaper.send("quit");
    assert!(child.wait().unwrap().success());
}
