//! An engine as a child process over pipes. The arena never trusts an
//! engine to behave: stdout is read on its own thread into a channel, so
//! every read has a deadline and returns a line, a timeout or a
//! disconnection (never blocks forever); stderr is drained on another
//! thread so a chatty engine cannot fill the pipe and deadlock, and its last
//! lines are kept for failure reports. Each line carries the instant it was
//! read, so the time the arena takes to look at it is not charged to the
//! engine's clock. Dropping the process kills it.

use std::collections::VecDeque;
use std::io::{self, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, never, select};
use parking_lot::Mutex;
use protocol::{Line, LineReader};
use thiserror::Error;

use crate::spec::EngineSpec;

/// Lines of stderr kept for failure reports.
const STDERR_TAIL: usize = 8;

/// The longest stdout line kept; longer lines are reported by length.
const MAX_LINE: usize = 64 * 1024;

/// A line the engine wrote, or a line too long to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineLine {
    /// When the arena's reader thread got it.
    pub at: Instant,
    /// The text, or `None` for an over-long line.
    pub text: Option<String>,
}

/// Why a read returned no line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ReadError {
    /// The deadline passed.
    #[error("no answer in time")]
    Timeout,
    /// The engine closed its output (it exited or crashed).
    #[error("the engine closed its output")]
    Disconnected,
    /// The caller's cancel channel fired (the run is stopping).
    #[error("cancelled")]
    Cancelled,
}

/// Why an engine could not be started.
#[derive(Debug, Error)]
#[error("cannot start {cmd}: {source}")]
pub struct SpawnError {
    /// The program.
    pub cmd: String,
    /// What the system said.
    #[source]
    pub source: io::Error,
}

/// A running engine process.
#[derive(Debug)]
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<EngineLine>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    started: Instant,
}

impl EngineProcess {
    /// Starts the engine of `spec` with piped stdin, stdout and stderr.
    ///
    /// # Errors
    /// [`SpawnError`] when the program cannot be started.
    pub fn spawn(spec: &EngineSpec) -> Result<Self, SpawnError> {
        let started = Instant::now();
        let mut command = Command::new(&spec.cmd);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        let mut child = command.spawn().map_err(|source| SpawnError {
            cmd: spec.cmd.display().to_string(),
            source,
        })?;
        let stdin = child.stdin.take();
        let (tx, lines) = crossbeam_channel::unbounded();
        if let Some(stdout) = child.stdout.take() {
            // The thread ends at end of input, which the kill in `Drop`
            // guarantees; it is never joined, so a grandchild holding the
            // pipe open cannot hang the arena.
            let spawned = thread::Builder::new().name("engine-stdout".into()).spawn(move || {
                let mut reader = LineReader::with_max_len(BufReader::with_capacity(16 * 1024, stdout), MAX_LINE);
                while let Ok(Some(line)) = reader.read_line() {
                    let text = match line {
                        Line::Text(t) => Some(t),
                        Line::TooLong { .. } => None,
                    };
                    if tx
                        .send(EngineLine {
                            at: Instant::now(),
                            text,
                        })
                        .is_err()
                    {
                        break;
                    }
                }
            });
            if let Err(source) = spawned {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SpawnError {
                    cmd: spec.cmd.display().to_string(),
                    source,
                });
            }
        }
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        if let Some(pipe) = child.stderr.take() {
            let tail = Arc::clone(&stderr);
            let _ = thread::Builder::new().name("engine-stderr".into()).spawn(move || {
                let mut reader = LineReader::with_max_len(BufReader::new(pipe), 4096);
                while let Ok(Some(line)) = reader.read_line() {
                    let text = match line {
                        Line::Text(t) => t,
                        Line::TooLong { len } => format!("<{len} bytes>"),
                    };
                    let mut tail = tail.lock();
                    if tail.len() == STDERR_TAIL {
                        tail.pop_front();
                    }
                    tail.push_back(text);
                }
            });
        }
        Ok(Self {
            child,
            stdin,
            lines,
            stderr,
            started,
        })
    }

    /// When the process was started.
    #[must_use]
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The operating system's id of the process.
    #[must_use]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends `text` (one or more lines, without the final line end) in a
    /// single write.
    ///
    /// # Errors
    /// The write error, typically a broken pipe from an engine that exited.
    pub fn send(&mut self, text: &str) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::from(io::ErrorKind::BrokenPipe))?;
        let mut buf = Vec::with_capacity(text.len() + 1);
        buf.extend_from_slice(text.as_bytes());
        buf.push(b'\n');
        stdin.write_all(&buf)
    }

    /// The next line, waiting until `deadline` at most; `cancel` (if given)
    /// interrupts the wait when it receives or disconnects.
    ///
    /// # Errors
    /// [`ReadError::Timeout`], [`ReadError::Disconnected`] or
    /// [`ReadError::Cancelled`].
    pub fn recv(&self, deadline: Instant, cancel: Option<&Receiver<()>>) -> Result<EngineLine, ReadError> {
        // A line already read wins over a deadline that has passed: it is
        // the line's own timestamp that the caller checks.
        if let Ok(line) = self.lines.try_recv() {
            return Ok(line);
        }
        let timeout = deadline.saturating_duration_since(Instant::now());
        let never = never();
        let cancel = cancel.unwrap_or(&never);
        select! {
            recv(self.lines) -> line => line.map_err(|_| ReadError::Disconnected),
            recv(cancel) -> _ => Err(ReadError::Cancelled),
            default(timeout) => Err(ReadError::Timeout),
        }
    }

    /// Drops every line already read and not yet taken.
    pub fn discard_pending(&self) {
        while self.lines.try_recv().is_ok() {}
    }

    /// Waits up to `grace` for the process to exit by itself.
    pub fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(1)),
                _ => return None,
            }
        }
    }

    /// Closes stdin, waits up to `grace` for the process to exit, and kills
    /// it otherwise.
    pub fn shutdown(&mut self, grace: Duration) {
        self.stdin = None;
        if self.wait_exit(grace).is_none() {
            self.kill();
        }
    }

    /// Kills the process (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The last lines the engine wrote to stderr.
    #[must_use]
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lock().iter().cloned().collect()
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}
