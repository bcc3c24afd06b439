//! The real `leaper` binary as a child process behind pipes, for the
//! protocol tests. Every read has a deadline, so an engine that hangs fails
//! its test instead of hanging it; stderr is drained on its own thread so a
//! full pipe cannot block the engine.

#![allow(dead_code)]

use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long any single expected line may take (generous: the machine is
/// shared and tests run in parallel).
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// A running engine.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far, for failure messages.
    pub transcript: Vec<String>,
}

impl Engine {
    /// Starts `leaper` with `args`.
    pub fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_leaper"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start leaper");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = stderr.read_to_end(&mut sink);
        });
        Engine {
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
        }
    }

    /// Writes one line (a failed write means the engine died: the test's
    /// next read reports it).
    pub fn send(&mut self, line: &str) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
        }
    }

    /// Writes raw bytes.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(bytes).and_then(|()| stdin.flush());
        }
    }

    /// Closes stdin (end of input).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` at the deadline or end of output.
    pub fn try_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// The next line; fails the test at the deadline.
    pub fn line(&mut self) -> String {
        match self.try_line(READ_TIMEOUT) {
            Some(line) => line,
            None => panic!(
                "no line from the engine within {READ_TIMEOUT:?}; so far:\n{}",
                self.tail()
            ),
        }
    }

    /// Reads lines until one satisfies `done`; returns all of them, that
    /// one last.
    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + READ_TIMEOUT;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(line) = self.try_line(left) else {
                panic!(
                    "engine did not finish within {READ_TIMEOUT:?}; so far:\n{}",
                    self.tail()
                );
            };
            let finished = done(&line);
            lines.push(line);
            if finished {
                return lines;
            }
        }
    }

    /// Reads lines up to and including the next `bestmove`.
    pub fn bestmove(&mut self) -> Vec<String> {
        self.until(|l| l.starts_with("bestmove"))
    }

    /// `isready` and its `readyok`; returns the lines before it.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// Waits for the process to exit; fails the test at the deadline.
    pub fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + READ_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("engine did not exit within {READ_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The last lines read, for failure messages.
    pub fn tail(&self) -> String {
        let from = self.transcript.len().saturating_sub(30);
        self.transcript[from..].join("\n")
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
