//! The arena's side of the two engine protocols: a [`UciEngine`] (started
//! once, handshaken, reused across games with `ucinewgame` + `isready`) and
//! a [`CodeCupEngine`] (a fresh process per game that answers one line per
//! line, as under the CodeCup referee). Both turn every misbehaviour into an
//! [`EngineFailure`] value, never a panic or an endless wait: each read has
//! a deadline. All protocol text goes through the `protocol` crate.
//!
//! Every answer belongs to its question: a UCI engine gets `isready` in the
//! same write as each `position` + `go`, and everything it wrote before the
//! `readyok` (a repeated or late `bestmove`, say) is a protocol violation,
//! counted and kept for the record, never taken as the answer. A CodeCup
//! engine cannot be pinged; lines it wrote between answers are violations
//! likewise when its next turn comes.

use std::fmt;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use leaper::MoveText;
use protocol::{Command, EngineMessage, PlayerMessage, RefereeMessage, SearchLimits, SetOption, StartPosition};
use serde::Serialize;

use crate::process::{EngineLine, EngineProcess, ReadError};
use crate::spec::{EngineSpec, Proto};

/// How long an engine may take to answer `uci` or `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a CodeCup engine may take to exit after `Quit`, and a UCI
/// engine after `quit`, before it is killed.
pub const QUIT_GRACE: Duration = Duration::from_millis(200);

/// What went wrong with an engine; each kind ends the game as a loss for
/// the engine at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// It used more than its clock (or its move time) plus the margin.
    TimeForfeit,
    /// No answer within the stall time (no clock applied), or no answer
    /// to `uci`/`isready`.
    Stall,
    /// A well-formed move the rules forbid, or `bestmove (none)` with a
    /// move to play.
    IllegalMove,
    /// An answer that is no move at all.
    MalformedMove,
    /// The process could not be started, died, or closed its output with
    /// a failure status.
    Crash,
    /// The process exited with status 0 in the middle of a game.
    Exit,
}

impl FailureKind {
    /// Every kind, in declaration order.
    pub const ALL: [FailureKind; 6] = [
        Self::TimeForfeit,
        Self::Stall,
        Self::IllegalMove,
        Self::MalformedMove,
        Self::Crash,
        Self::Exit,
    ];

    /// The kebab-case name used in events and summaries.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::TimeForfeit => "time-forfeit",
            Self::Stall => "stall",
            Self::IllegalMove => "illegal-move",
            Self::MalformedMove => "malformed-move",
            Self::Crash => "crash",
            Self::Exit => "exit",
        }
    }

    /// The termination written in the game record (which folds a
    /// malformed move into `illegal-move` and an exit into `crash`).
    #[must_use]
    pub fn termination(self) -> results::Termination {
        match self {
            Self::TimeForfeit => results::Termination::TimeForfeit,
            Self::Stall => results::Termination::Stall,
            Self::IllegalMove | Self::MalformedMove => results::Termination::IllegalMove,
            Self::Crash | Self::Exit => results::Termination::Crash,
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One engine failure: its kind and what was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngineFailure {
    /// The kind.
    pub kind: FailureKind,
    /// What happened, for people.
    pub detail: String,
    /// The last lines the engine wrote to stderr.
    pub stderr: Vec<String>,
}

impl EngineFailure {
    fn new(kind: FailureKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: detail.into(),
            stderr: Vec::new(),
        }
    }
}

impl fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

/// Why a wait for an engine ended without an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interrupted {
    /// The engine failed.
    Failed(EngineFailure),
    /// The run is stopping; the game is abandoned.
    Cancelled,
}

impl From<EngineFailure> for Interrupted {
    /// A failure, unless the arena is stopping and ending the engines
    /// itself (then the game is abandoned, not charged to the engine).
    fn from(failure: EngineFailure) -> Self {
        if crate::process::stopping() {
            Self::Cancelled
        } else {
            Self::Failed(failure)
        }
    }
}

/// An engine's answer to one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The move as the engine wrote it (shape-checked only).
    pub mv: MoveText,
    /// From the arena's request to the engine's answer.
    pub elapsed: Duration,
    /// The score of its last `info` line, as written (`cp 12`, `mate 3`).
    pub score: Option<String>,
}

/// What one search may take and what exceeding it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allowance {
    /// The longest wait for the answer.
    pub time: Duration,
    /// The failure when it passes.
    pub on_timeout: FailureKind,
}

/// Turns a read error into a failure (or a cancellation), looking at the
/// process to tell a crash from an orderly exit.
fn read_failure(process: &mut EngineProcess, error: ReadError, waiting_for: &str, timeout: FailureKind) -> Interrupted {
    let exited = |status: ExitStatus| {
        if status.success() {
            EngineFailure::new(
                FailureKind::Exit,
                format!("exited (status 0) while the arena waited for {waiting_for}"),
            )
        } else {
            EngineFailure::new(
                FailureKind::Crash,
                format!("{status} while the arena waited for {waiting_for}"),
            )
        }
    };
    let failure = match error {
        ReadError::Cancelled => return Interrupted::Cancelled,
        ReadError::Timeout => EngineFailure::new(timeout, format!("no {waiting_for} in time")),
        ReadError::Exited(status) => exited(status),
        // The output closed: give the process a moment to finish dying so
        // that its status tells a crash from an exit.
        ReadError::Disconnected => match process.wait_exit(Duration::from_millis(200)) {
            Some(status) => exited(status),
            None => EngineFailure::new(
                FailureKind::Crash,
                format!("closed its output while the arena waited for {waiting_for}"),
            ),
        },
    };
    EngineFailure {
        stderr: process.stderr_tail(),
        ..failure
    }
    .into()
}

/// Waits for the line that answers a request sent at `sent`, within the
/// allowance: a late line is a timeout even if it arrived before the
/// arena looked. Returns the line and the engine's thinking time.
fn read_answer(
    process: &mut EngineProcess,
    sent: Instant,
    allowance: Allowance,
    cancel: Option<&Receiver<()>>,
    waiting_for: &str,
) -> Result<(EngineLine, Duration), Interrupted> {
    let line = process
        .recv(sent + allowance.time, cancel)
        .map_err(|e| read_failure(process, e, waiting_for, allowance.on_timeout))?;
    let elapsed = line.at.saturating_duration_since(sent);
    if elapsed > allowance.time {
        return Err(read_failure(
            process,
            ReadError::Timeout,
            waiting_for,
            allowance.on_timeout,
        ));
    }
    Ok((line, elapsed))
}

/// An answer that is no move at all.
fn malformed(process: &EngineProcess, text: &str) -> Interrupted {
    EngineFailure {
        stderr: process.stderr_tail(),
        ..EngineFailure::new(
            FailureKind::MalformedMove,
            format!("unreadable answer {:?}", clip(text)),
        )
    }
    .into()
}

/// Starts the process of `spec`; a failure to start is a crash.
fn spawn(spec: &EngineSpec) -> Result<EngineProcess, EngineFailure> {
    EngineProcess::spawn(spec).map_err(|e| EngineFailure::new(FailureKind::Crash, e.to_string()))
}

/// What an engine's output did wrong since it was last asked, for the
/// record: the lines it wrote where no answer was due (how many, and the
/// first few, clipped), and the lines the arena dropped because its queue
/// was full.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Violations {
    /// Lines out of turn.
    pub count: u64,
    /// The first [`Violations::KEPT`] of them.
    pub lines: Vec<String>,
    /// Lines dropped (see [`EngineProcess::dropped_lines`]).
    pub dropped: u64,
}

/// The violations of one engine not yet taken, and its dropped-line count
/// when they were last taken.
#[derive(Debug, Default)]
struct OutputLog {
    seen: Violations,
    dropped_before: u64,
}

impl OutputLog {
    fn take(&mut self, process: &EngineProcess) -> Violations {
        let dropped = process.dropped_lines();
        let taken = Violations {
            dropped: dropped - self.dropped_before,
            ..std::mem::take(&mut self.seen)
        };
        self.dropped_before = dropped;
        taken
    }
}

impl Violations {
    /// Lines kept for the record, at most.
    pub const KEPT: usize = 8;

    fn add(&mut self, text: Option<&str>) {
        self.count += 1;
        if self.lines.len() < Self::KEPT {
            self.lines
                .push(text.map_or_else(|| "<over-long line>".to_owned(), clip));
        }
    }
}

fn write_failure(process: &mut EngineProcess, error: &std::io::Error) -> EngineFailure {
    let kind = match process.wait_exit(Duration::from_millis(200)) {
        Some(status) if status.success() => FailureKind::Exit,
        _ => FailureKind::Crash,
    };
    EngineFailure {
        kind,
        detail: format!("cannot write to the engine: {error}"),
        stderr: process.stderr_tail(),
    }
}

/// A UCI engine process after its handshake.
#[derive(Debug)]
pub struct UciEngine {
    spec: Arc<EngineSpec>,
    process: EngineProcess,
    id_name: Option<String>,
    offered: Vec<String>,
    declared: Vec<protocol::UciOption>,
    startup: Duration,
    games: u64,
    violations: OutputLog,
}

impl UciEngine {
    /// Starts the engine: `uci` (waits for `uciok`), its options, and
    /// `isready` (waits for `readyok`).
    ///
    /// # Errors
    /// A crash if it cannot be started or dies, a stall if it does not
    /// answer within [`HANDSHAKE_TIMEOUT`]; `Cancelled` if `cancel` fires.
    pub fn start(spec: Arc<EngineSpec>, cancel: Option<&Receiver<()>>) -> Result<Self, Interrupted> {
        let mut process = spawn(&spec)?;
        let started = process.started();
        process
            .send(&Command::Uci.to_string())
            .map_err(|e| write_failure(&mut process, &e))?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut id_name = None;
        let mut offered = Vec::new();
        let mut declared = Vec::new();
        loop {
            let line = process
                .recv(deadline, cancel)
                .map_err(|e| read_failure(&mut process, e, "uciok", FailureKind::Stall))?;
            let Some(text) = line.text else { continue };
            match text.parse::<EngineMessage>() {
                Ok(EngineMessage::UciOk) => break,
                Ok(EngineMessage::Id(protocol::Id::Name(name))) => id_name = Some(name),
                Ok(EngineMessage::Option(option)) => {
                    offered.push(option.name.clone());
                    declared.push(option);
                }
                _ => {}
            }
        }
        let mut engine = Self {
            spec: Arc::clone(&spec),
            process,
            id_name,
            offered,
            declared,
            startup: Duration::ZERO,
            games: 0,
            violations: OutputLog::default(),
        };
        for (name, value) in &spec.options {
            engine.send(&Command::SetOption(SetOption::new(name, Some(value))).to_string())?;
        }
        // Banners and complaints about options are no violation.
        engine.sync(cancel, false)?;
        engine.startup = started.elapsed();
        Ok(engine)
    }

    /// The spec the engine currently follows.
    #[must_use]
    pub fn spec(&self) -> &Arc<EngineSpec> {
        &self.spec
    }

    /// The name the engine gave in `id name`.
    #[must_use]
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    /// The options the engine listed.
    #[must_use]
    pub fn offered_options(&self) -> &[String] {
        &self.offered
    }

    /// The options the engine listed, with their types.
    #[must_use]
    pub fn declared_options(&self) -> &[protocol::UciOption] {
        &self.declared
    }

    /// The options of the spec that the engine did not list.
    #[must_use]
    pub fn unknown_options(&self) -> Vec<String> {
        self.spec
            .options
            .iter()
            .filter(|(name, _)| !self.offered.iter().any(|o| protocol::option_names_match(o, name)))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// From spawning to the first `readyok`.
    #[must_use]
    pub fn startup(&self) -> Duration {
        self.startup
    }

    /// Games started with this process.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Lines of output dropped since the start because the arena's queue
    /// was full (see [`EngineProcess::dropped_lines`]).
    #[must_use]
    pub fn dropped_lines(&self) -> u64 {
        self.process.dropped_lines()
    }

    /// The protocol violations since the last call (lines written between
    /// a `bestmove` and the `readyok` before the next search), and the
    /// lines dropped since.
    pub fn take_violations(&mut self) -> Violations {
        self.violations.take(&self.process)
    }

    fn send(&mut self, text: &str) -> Result<(), EngineFailure> {
        self.process
            .send(text)
            .map_err(|e| write_failure(&mut self.process, &e))
    }

    /// Sends `isready` and waits for `readyok`, dropping anything before
    /// (counted as violations if `violations`).
    fn sync(&mut self, cancel: Option<&Receiver<()>>, violations: bool) -> Result<(), Interrupted> {
        self.send(&Command::IsReady.to_string())?;
        let allowance = Allowance {
            time: HANDSHAKE_TIMEOUT,
            on_timeout: FailureKind::Stall,
        };
        self.wait_ready(Instant::now(), allowance, cancel, violations)
    }

    /// Waits for the `readyok` of an `isready` sent at `sent`; lines
    /// before it are the answers to no question.
    fn wait_ready(
        &mut self,
        sent: Instant,
        allowance: Allowance,
        cancel: Option<&Receiver<()>>,
        violations: bool,
    ) -> Result<(), Interrupted> {
        loop {
            let (line, _) = read_answer(&mut self.process, sent, allowance, cancel, "readyok")?;
            if line.text.as_deref().map(str::trim) == Some("readyok") {
                return Ok(());
            }
            if violations {
                self.violations.seen.add(line.text.as_deref());
            }
        }
    }

    /// Switches to another spec of the same process (see
    /// [`EngineSpec::same_process`]): sends the options whose values
    /// differ. Used by callers that vary options between games (the tuner).
    ///
    /// # Errors
    /// A failure when the engine cannot be written to.
    pub fn reconfigure(&mut self, spec: Arc<EngineSpec>) -> Result<(), EngineFailure> {
        for (name, value) in &spec.options {
            if self.spec.option(name) != Some(value.as_str()) {
                self.send(&Command::SetOption(SetOption::new(name, Some(value))).to_string())?;
            }
        }
        self.spec = spec;
        Ok(())
    }

    /// Prepares a new game: `ucinewgame`, then `isready` and `readyok`.
    ///
    /// # Errors
    /// As for [`UciEngine::start`].
    pub fn new_game(&mut self, cancel: Option<&Receiver<()>>) -> Result<(), Interrupted> {
        self.games += 1;
        self.send(&Command::UciNewGame.to_string())?;
        // A fresh process has answered nothing yet; a reused one must
        // have written nothing since its last `bestmove`.
        self.sync(cancel, self.games > 1)
    }

    /// Sends `isready`, the position and `go` in one write, waits for
    /// `readyok` (what comes before is a violation, never the answer), then
    /// for `bestmove` within the allowance. Unknown lines are skipped; the
    /// score is that of the last `info` line; a `bestmove` line that does
    /// not parse is a malformed move.
    ///
    /// # Errors
    /// The failure, or `Cancelled`.
    pub fn search(
        &mut self,
        moves: &[MoveText],
        limits: SearchLimits,
        allowance: Allowance,
        cancel: Option<&Receiver<()>>,
    ) -> Result<Answer, Interrupted> {
        let position = Command::Position {
            start: StartPosition::StartPos,
            moves: moves.to_vec(),
        };
        let request = format!("{}\n{position}\n{}", Command::IsReady, Command::Go(limits));
        self.send(&request)?;
        let sent = Instant::now();
        self.wait_ready(sent, allowance, cancel, true)?;
        loop {
            let (line, elapsed) = read_answer(&mut self.process, sent, allowance, cancel, "bestmove")?;
            let Some(text) = line.text else { continue };
            if text.split_ascii_whitespace().next() != Some("bestmove") {
                continue;
            }
            return match text.parse::<EngineMessage>() {
                Ok(EngineMessage::BestMove(Some(best))) => Ok(Answer {
                    mv: best.best,
                    elapsed,
                    score: line.score,
                }),
                Ok(EngineMessage::BestMove(None)) => Err(EngineFailure {
                    stderr: self.process.stderr_tail(),
                    ..EngineFailure::new(FailureKind::IllegalMove, "bestmove (none) in an unfinished game")
                }
                .into()),
                Ok(_) | Err(_) => Err(malformed(&self.process, &text)),
            };
        }
    }

    /// Sends `quit`; a background thread waits [`QUIT_GRACE`] for the exit,
    /// then kills, so the slot does not wait for the engine to wind down.
    pub fn quit(mut self) {
        let _ = self.process.send(&Command::Quit.to_string());
        reap(self.process);
    }
}

/// Lets a process that was told to quit exit on its own, off the caller's
/// thread; it is killed after [`QUIT_GRACE`] (or at once if no thread can
/// be started, when the closure and so the process are dropped).
fn reap(mut process: EngineProcess) {
    let spawned = std::thread::Builder::new()
        .name("engine-quit".into())
        .spawn(move || process.shutdown(QUIT_GRACE));
    if let Ok(handle) = spawned {
        let mut reapers = REAPERS.lock();
        reapers.retain(|h| !h.is_finished());
        reapers.push(handle);
    }
}

/// The threads reaping engines that were told to quit.
static REAPERS: parking_lot::Mutex<Vec<std::thread::JoinHandle<()>>> = parking_lot::Mutex::new(Vec::new());

/// Waits until every engine told to quit has exited or been killed (at
/// most [`QUIT_GRACE`] after its `quit`), so that none outlives the arena
/// unreaped.
pub fn wait_for_quitting_engines() {
    let reapers = std::mem::take(&mut *REAPERS.lock());
    for handle in reapers {
        let _ = handle.join();
    }
}

/// The first 80 characters of an engine's line, for reports.
fn clip(text: &str) -> String {
    text.chars().take(80).collect()
}

/// A CodeCup-protocol engine: one process for one game.
#[derive(Debug)]
pub struct CodeCupEngine {
    process: EngineProcess,
    startup: Duration,
    violations: OutputLog,
}

impl CodeCupEngine {
    /// Starts the engine and sends its `initstr` lines.
    ///
    /// # Errors
    /// A crash when it cannot be started or written to.
    pub fn start(spec: &EngineSpec) -> Result<Self, EngineFailure> {
        let mut process = spawn(spec)?;
        if !spec.initstr.is_empty() {
            let init = spec.initstr.join("\n");
            process.send(&init).map_err(|e| write_failure(&mut process, &e))?;
        }
        let startup = process.started().elapsed();
        Ok(Self {
            process,
            startup,
            violations: OutputLog::default(),
        })
    }

    /// Lines of output dropped because the arena's queue was full.
    #[must_use]
    pub fn dropped_lines(&self) -> u64 {
        self.process.dropped_lines()
    }

    /// Tells the engine the moves already played (the imposed setups), as
    /// the one line `KEYWORD MOVE...` of its [`EngineSpec::opening_line`]
    /// extension, before its first `Start` or move.
    ///
    /// # Errors
    /// A crash or exit when it cannot be written to.
    pub fn tell_opening(&mut self, keyword: &str, moves: &[MoveText]) -> Result<(), EngineFailure> {
        let mut line = keyword.to_owned();
        for mv in moves {
            line.push(' ');
            line.push_str(&mv.to_string());
        }
        self.process
            .send(&line)
            .map_err(|e| write_failure(&mut self.process, &e))
    }

    /// The protocol violations since the last call (lines written between
    /// an answer and the next turn), and the lines dropped since.
    pub fn take_violations(&mut self) -> Violations {
        self.violations.take(&self.process)
    }

    /// From spawning to the engine being ready for `Start`.
    #[must_use]
    pub fn startup(&self) -> Duration {
        self.startup
    }

    /// Sends `Start` (no move yet) or the opponent's last move, and waits
    /// for the one line of the answer.
    ///
    /// # Errors
    /// The failure, or `Cancelled`.
    pub fn search(
        &mut self,
        last: Option<MoveText>,
        allowance: Allowance,
        cancel: Option<&Receiver<()>>,
    ) -> Result<Answer, Interrupted> {
        // The referee protocol has no ping: what came since the last
        // answer can only be set aside before the next question.
        while let Some(line) = self.process.try_recv() {
            self.violations.seen.add(line.text.as_deref());
        }
        let message = last.map_or(RefereeMessage::Start, RefereeMessage::Move);
        self.process
            .send(&message.to_string())
            .map_err(|e| write_failure(&mut self.process, &e))?;
        let sent = Instant::now();
        let (line, elapsed) = read_answer(&mut self.process, sent, allowance, cancel, "a move")?;
        let text = line.text.unwrap_or_default();
        match text.parse::<PlayerMessage>() {
            Ok(PlayerMessage(mv)) => Ok(Answer {
                mv,
                elapsed,
                score: None,
            }),
            Err(_) => Err(malformed(&self.process, &text)),
        }
    }

    /// Sends `Quit`; a background thread waits [`QUIT_GRACE`] for the exit,
    /// then kills.
    pub fn quit(mut self) {
        let _ = self.process.send(&RefereeMessage::Quit.to_string());
        reap(self.process);
    }
}

/// An engine ready to play one game, in either protocol.
#[derive(Debug)]
pub enum Player {
    /// A UCI engine.
    Uci(UciEngine),
    /// A CodeCup engine.
    CodeCup(CodeCupEngine),
}

impl Player {
    /// Starts an engine for a new game (UCI engines also get
    /// `ucinewgame`).
    ///
    /// # Errors
    /// The failure, or `Cancelled`.
    pub fn start(spec: Arc<EngineSpec>, cancel: Option<&Receiver<()>>) -> Result<Self, Interrupted> {
        match spec.proto {
            Proto::Uci => {
                let mut engine = UciEngine::start(spec, cancel)?;
                engine.new_game(cancel)?;
                Ok(Self::Uci(engine))
            }
            Proto::Codecup => Ok(Self::CodeCup(CodeCupEngine::start(&spec)?)),
        }
    }

    /// Lines of output the engine's process dropped so far because the
    /// arena's queue was full.
    #[must_use]
    pub fn dropped_lines(&self) -> u64 {
        match self {
            Self::Uci(e) => e.dropped_lines(),
            Self::CodeCup(e) => e.dropped_lines(),
        }
    }

    /// The protocol violations since the last call.
    pub fn take_violations(&mut self) -> Violations {
        match self {
            Self::Uci(e) => e.take_violations(),
            Self::CodeCup(e) => e.take_violations(),
        }
    }

    /// Ends the engine's game politely (`quit` / `Quit`) and stops it.
    pub fn quit(self) {
        match self {
            Self::Uci(e) => e.quit(),
            Self::CodeCup(e) => e.quit(),
        }
    }
}
