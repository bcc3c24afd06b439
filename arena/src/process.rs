//! An engine as a child process over pipes. The arena never trusts an
//! engine to behave:
//!
//! - stdout is read on its own thread into a bounded queue, so every read
//!   has a deadline and returns a line, a timeout, the end of output or
//!   the exit of the process (never blocks forever). A UCI engine's `info`
//!   lines are read on that thread and never queued (only the score the
//!   record needs is kept, handed over with the next `bestmove`), lines
//!   the arena never needs are dropped and counted past a byte budget, and
//!   the rest wait for room (the engine waits on its pipe), so no engine
//!   output can grow the arena's memory;
//! - stderr is drained on another thread so a chatty engine cannot fill
//!   the pipe and deadlock, and its last lines are kept for failure
//!   reports;
//! - the process itself is watched while the arena waits: an engine that
//!   dies while a child of its own still holds its stdout open is seen to
//!   exit at once, not when its clock runs out;
//! - each engine runs in a process group of its own, and ending an engine
//!   ends its whole group (`SIGTERM`, a grace, then `SIGKILL`), so helpers
//!   an engine started do not outlive it. [`stop_all_engines`] ends every
//!   group at once (the arena's Ctrl-C handler).
//!
//! Each line carries the instant it was read, so the time the arena takes
//! to look at it is not charged to the engine's clock. Dropping the process
//! kills its group.

use std::collections::VecDeque;
use std::io::{self, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, never, select};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use parking_lot::Mutex;
use protocol::{EngineMessage, Line, LineReader};
use thiserror::Error;

use crate::spec::{EngineSpec, Proto};

/// Lines of stderr kept for failure reports.
const STDERR_TAIL: usize = 8;

/// The longest stdout line kept; longer lines are reported by length.
const MAX_LINE: usize = 64 * 1024;

/// Lines queued between an engine's reader thread and its game, at most.
/// With [`MAX_LINE`] this bounds what one engine can make the arena hold
/// to 16 MiB.
const QUEUE_LINES: usize = 256;

/// Bytes of lines the arena does not need (anything but the answers it
/// waits for) queued at most; beyond, such lines are dropped and counted
/// (only lines of 1 KiB and more on average can reach it before the
/// queue's line count fills).
const QUEUE_SPARE_BYTES: usize = 256 * 1024;

/// How often a read that waits for a line looks whether the process is
/// still alive.
const WATCH_TICK: Duration = Duration::from_millis(5);

/// After the process exited, how long a read still waits for lines it
/// wrote before dying (they may be in the pipe or the queue).
const EXIT_LINGER: Duration = Duration::from_millis(20);

/// How long an engine's group gets between `SIGTERM` and `SIGKILL`.
pub const TERM_GRACE: Duration = Duration::from_millis(200);

/// A line the engine wrote, or a line too long to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineLine {
    /// When the arena's reader thread got it.
    pub at: Instant,
    /// The text, or `None` for an over-long line.
    pub text: Option<String>,
    /// For a UCI `bestmove`: the score of the last `info` line with one
    /// since the previous `readyok` or `bestmove`, as written (`cp 12`).
    pub score: Option<String>,
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
    /// The process exited (perhaps with a child still holding its output).
    #[error("the engine exited ({0})")]
    Exited(ExitStatus),
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

/// What the reader thread counts, shared with the process.
#[derive(Debug, Default)]
struct Counters {
    /// Lines dropped because the queue was full.
    dropped: AtomicU64,
    /// Bytes of droppable lines in the queue.
    spare_bytes: AtomicUsize,
}

/// The process groups of the engines alive, whether the arena is
/// stopping (then no engine is started any more), and whether the
/// engines alive when it began stopping are gone.
#[derive(Debug)]
struct Groups {
    live: Vec<i32>,
    stopping: bool,
    stopped: bool,
}

static GROUPS: Mutex<Groups> = Mutex::new(Groups {
    live: Vec::new(),
    stopping: false,
    stopped: false,
});

/// Whether [`stop_all_engines`] was called: failures seen from then on
/// are the arena's doing, not the engines'.
#[must_use]
pub fn stopping() -> bool {
    GROUPS.lock().stopping
}

/// Ends every engine's process group (`SIGTERM`, up to `grace`, then
/// `SIGKILL`) and starts no engine after. For the arena's Ctrl-C handler,
/// just before it exits.
pub fn stop_all_engines(grace: Duration) {
    let live = {
        let mut groups = GROUPS.lock();
        groups.stopping = true;
        groups.live.clone()
    };
    for &group in &live {
        let _ = killpg(Pid::from_raw(group), Signal::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && live.iter().any(|&g| killpg(Pid::from_raw(g), None).is_ok()) {
        thread::sleep(Duration::from_millis(2));
    }
    for &group in &live {
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
    GROUPS.lock().stopped = true;
}

/// Waits until [`stop_all_engines`] has ended every engine (it has been
/// called, or is being called on another thread): then the arena may exit
/// without leaving one behind.
pub fn wait_engines_stopped() {
    while !GROUPS.lock().stopped {
        thread::sleep(Duration::from_millis(2));
    }
}

/// How the reader thread files a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A UCI `info` line: read on the reader thread, never queued.
    Info,
    /// A line the arena waits for: queued, waiting for room if need be.
    Needed,
    /// Anything else: queued within a byte budget, else dropped and
    /// counted.
    Spare,
}

fn kind_of(proto: Proto, text: Option<&str>) -> Kind {
    let Some(text) = text else { return Kind::Spare };
    if proto == Proto::Codecup {
        // Every line is an answer.
        return Kind::Needed;
    }
    match text.split_ascii_whitespace().next() {
        Some("info") => Kind::Info,
        Some("bestmove" | "readyok" | "uciok" | "id" | "option") => Kind::Needed,
        _ => Kind::Spare,
    }
}

/// The score of an `info` line, as written without `score `.
fn info_score(text: &str) -> Option<String> {
    if !text.contains(" score ") {
        return None;
    }
    match text.parse::<EngineMessage>() {
        Ok(EngineMessage::Info(info)) => info.score.map(|s| {
            let text = s.to_string();
            text.strip_prefix("score ").unwrap_or(&text).to_owned()
        }),
        _ => None,
    }
}

/// Reads the engine's stdout to its end, filing each line (see [`Kind`]).
fn read_stdout(stdout: impl io::Read, proto: Proto, tx: &Sender<EngineLine>, counters: &Counters) {
    let mut reader = LineReader::with_max_len(BufReader::with_capacity(64 * 1024, stdout), MAX_LINE);
    let mut score = None;
    while let Ok(Some(line)) = reader.read_line() {
        let text = match line {
            Line::Text(t) => Some(t),
            Line::TooLong { .. } => None,
        };
        let kind = kind_of(proto, text.as_deref());
        let sent = match kind {
            Kind::Info => {
                if let Some(s) = text.as_deref().and_then(info_score) {
                    score = Some(s);
                }
                continue;
            }
            Kind::Needed => {
                let first = text.as_deref().and_then(|t| t.split_ascii_whitespace().next());
                let score = match first {
                    Some("bestmove") => score.take(),
                    Some("readyok") => {
                        score = None;
                        None
                    }
                    _ => None,
                };
                tx.send(EngineLine {
                    at: Instant::now(),
                    text,
                    score,
                })
                .is_ok()
            }
            Kind::Spare => {
                // Dropped only past the byte budget: short lines (a
                // tuner's parameter list, say) wait for room instead.
                let bytes = text.as_ref().map_or(0, String::len) + 1;
                if counters.spare_bytes.load(Ordering::Relaxed) + bytes > QUEUE_SPARE_BYTES {
                    counters.dropped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                counters.spare_bytes.fetch_add(bytes, Ordering::Relaxed);
                tx.send(EngineLine {
                    at: Instant::now(),
                    text,
                    score: None,
                })
                .is_ok()
            }
        };
        if !sent {
            break;
        }
    }
}

/// A running engine process.
#[derive(Debug)]
pub struct EngineProcess {
    child: Child,
    /// The process group, `None` once it has been ended.
    group: Option<Pid>,
    proto: Proto,
    stdin: Option<ChildStdin>,
    lines: Receiver<EngineLine>,
    counters: Arc<Counters>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    started: Instant,
    /// The exit status once seen, and until when lines still count.
    exit: Option<(ExitStatus, Instant)>,
}

impl EngineProcess {
    /// Starts the engine of `spec` with piped stdin, stdout and stderr, in
    /// a process group of its own.
    ///
    /// # Errors
    /// [`SpawnError`] when the program cannot be started, or the arena is
    /// stopping (see [`stop_all_engines`]).
    pub fn spawn(spec: &EngineSpec) -> Result<Self, SpawnError> {
        let spawn_error = |source| SpawnError {
            cmd: spec.cmd.display().to_string(),
            source,
        };
        let started = Instant::now();
        let mut command = Command::new(&spec.cmd);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        // Under the lock, so that a concurrent `stop_all_engines` either
        // sees this group or keeps it from being started.
        let mut child = {
            let mut groups = GROUPS.lock();
            if groups.stopping {
                return Err(spawn_error(io::Error::other("the arena is stopping")));
            }
            let child = command.spawn().map_err(spawn_error)?;
            groups.live.push(child.id().cast_signed());
            child
        };
        let group = Pid::from_raw(child.id().cast_signed());
        let stdin = child.stdin.take();
        let (tx, lines) = crossbeam_channel::bounded(QUEUE_LINES);
        let counters = Arc::new(Counters::default());
        let mut process = Self {
            child,
            group: Some(group),
            proto: spec.proto,
            stdin,
            lines,
            counters: Arc::clone(&counters),
            stderr: Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL))),
            started,
            exit: None,
        };
        if let Some(stdout) = process.child.stdout.take() {
            // The thread ends at end of input or when the process is
            // dropped (its queue's receiver goes); it is never joined, so
            // a grandchild holding the pipe open cannot hang the arena.
            let proto = spec.proto;
            thread::Builder::new()
                .name("engine-stdout".into())
                .spawn(move || read_stdout(stdout, proto, &tx, &counters))
                .map_err(spawn_error)?;
        }
        if let Some(pipe) = process.child.stderr.take() {
            let tail = Arc::clone(&process.stderr);
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
        Ok(process)
    }

    /// When the process was started.
    #[must_use]
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The operating system's id of the process (and of its group).
    #[must_use]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The protocol the process was started for.
    #[must_use]
    pub fn proto(&self) -> Proto {
        self.proto
    }

    /// Lines of output dropped since the start because the arena's queue
    /// was full (never an answer the arena waits for).
    #[must_use]
    pub fn dropped_lines(&self) -> u64 {
        self.counters.dropped.load(Ordering::Relaxed)
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

    /// Takes a line off the queue, updating the spare-bytes count.
    fn took(&self, line: EngineLine) -> EngineLine {
        if kind_of(self.proto, line.text.as_deref()) == Kind::Spare {
            let bytes = line.text.as_ref().map_or(0, String::len) + 1;
            self.counters.spare_bytes.fetch_sub(bytes, Ordering::Relaxed);
        }
        line
    }

    /// The next line, waiting until `deadline` at most; `cancel` (if given)
    /// interrupts the wait when it receives or disconnects. While it waits
    /// it watches the process: once it has exited, lines that arrive within
    /// a few milliseconds (it wrote them before dying) are still returned,
    /// then only [`ReadError::Exited`], whatever its children still write.
    ///
    /// # Errors
    /// [`ReadError::Timeout`], [`ReadError::Disconnected`],
    /// [`ReadError::Exited`] or [`ReadError::Cancelled`].
    pub fn recv(&mut self, deadline: Instant, cancel: Option<&Receiver<()>>) -> Result<EngineLine, ReadError> {
        // Lines that come after the exit are from processes the engine
        // left behind: the engine itself is gone.
        if let Some((status, until)) = self.exit
            && Instant::now() >= until
        {
            return Err(ReadError::Exited(status));
        }
        // A line already read wins over a deadline that has passed: it is
        // the line's own timestamp that the caller checks.
        if let Ok(line) = self.lines.try_recv() {
            return Ok(self.took(line));
        }
        let never = never();
        let cancel = cancel.unwrap_or(&never);
        loop {
            let now = Instant::now();
            if self.exit.is_none()
                && let Ok(Some(status)) = self.child.try_wait()
            {
                self.exit = Some((status, now + EXIT_LINGER));
            }
            let limit = self.exit.map_or(deadline, |(_, until)| until.min(deadline));
            if now >= limit {
                return Err(self
                    .exit
                    .map_or(ReadError::Timeout, |(status, _)| ReadError::Exited(status)));
            }
            let wait = (limit - now).min(WATCH_TICK);
            select! {
                recv(self.lines) -> line => return match line {
                    Ok(line) => Ok(self.took(line)),
                    Err(_) => Err(self.exit.map_or(ReadError::Disconnected, |(status, _)| ReadError::Exited(status))),
                },
                recv(cancel) -> _ => return Err(ReadError::Cancelled),
                default(wait) => {}
            }
        }
    }

    /// A line already read and not yet taken, without waiting.
    pub fn try_recv(&self) -> Option<EngineLine> {
        self.lines.try_recv().ok().map(|line| self.took(line))
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

    /// Closes stdin, waits up to `grace` for the process to exit, then
    /// ends its whole group: `SIGTERM`, up to [`TERM_GRACE`], `SIGKILL`.
    pub fn shutdown(&mut self, grace: Duration) {
        self.stdin = None;
        let _ = self.wait_exit(grace);
        self.end_group(TERM_GRACE);
    }

    /// Kills the process and its group (`SIGKILL`) and reaps it.
    pub fn kill(&mut self) {
        self.end_group(Duration::ZERO);
    }

    /// Ends the process group: `SIGTERM`, up to `grace` for the process to
    /// exit, then `SIGKILL` to whatever of the group remains; reaps the
    /// process.
    fn end_group(&mut self, grace: Duration) {
        self.stdin = None;
        let Some(group) = self.group.take() else { return };
        // The group id stays ours while any member lives, and a group
        // left empty is only reused after the pids wrap around, so the
        // signals reach nobody else.
        if !grace.is_zero() && killpg(group, Signal::SIGTERM).is_ok() {
            let deadline = Instant::now() + grace;
            while Instant::now() < deadline {
                let leader_gone = !matches!(self.child.try_wait(), Ok(None));
                if leader_gone && killpg(group, None).is_err() {
                    break;
                }
                thread::sleep(Duration::from_millis(2));
            }
        }
        let _ = killpg(group, Signal::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
        GROUPS.lock().live.retain(|&g| g != group.as_raw());
    }

    /// The last lines the engine wrote to stderr.
    #[must_use]
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lock().iter().cloned().collect()
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
