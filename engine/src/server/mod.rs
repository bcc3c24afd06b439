//! The engine server: the UCI state machine ([`Server`]), the CodeCup game
//! loop (`codecup`), and the `bench` and `bench-stop` measurements.
//!
//! Every line goes through [`Server::handle_line`], the one function the
//! stdin loop calls and the fuzz test drives. It parses with the
//! `protocol` crate, checks moves and positions with the rules, answers
//! anything malformed with `info string error: ...` and keeps its state.
//! Searches and perft run on a worker thread that owns the [`Searcher`], so
//! `isready`, `stop` and `quit` are served while it thinks; a [`Signals`]
//! stop flag ends a search within a node. Every `go` gets exactly one
//! `bestmove`: a command that changes the state while a search runs (a new
//! `position`, `go`, `setoption`, ...) first stops that search, whose
//! `bestmove` comes out before the command takes effect.

pub mod bench;
pub mod codecup;
mod options;
mod perft;

pub use options::{Change, DEFAULT_HASH_MB, EngineOptions, OptionError};
pub use perft::perft_stoppable;

use crate::eval::Eval;
use crate::rules::{Color, GameMove, MoveList, MoveText, Position, SetupCase};
use crate::search::{Clock, Iteration, Limits, Params, ScoreReport, SearchResult, Searcher, Signals, TableError};
use crossbeam_channel::{Receiver, Sender};
use leaper_nnue::EvalModel;
use parking_lot::Mutex;
use protocol::{
    BestMove, Command, EngineMessage, Id, Info, Line, ParseError, Score, SearchLimits, SpsaParam, StartPosition,
    UciOption,
};
use std::fmt;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where the engine's lines go: stdout in the binary, a buffer in tests.
/// Each line is written whole and flushed, under a lock, so the lines of
/// the server and of the search thread never interleave.
#[derive(Clone)]
pub struct Output {
    inner: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Output")
    }
}

impl Output {
    /// Lines to `writer`.
    pub fn new(writer: impl Write + Send + 'static) -> Output {
        Output {
            inner: Arc::new(Mutex::new(Box::new(writer))),
        }
    }

    /// Lines to stdout.
    pub fn stdout() -> Output {
        Output::new(std::io::stdout())
    }

    /// Writes one line and flushes. A closed pipe is not an error here: the
    /// GUI is gone and end of input will follow.
    pub fn send(&self, line: impl fmt::Display) {
        let mut w = self.inner.lock();
        let _ = writeln!(w, "{line}").and_then(|()| w.flush());
    }

    /// Writes several lines at once, under one lock.
    pub fn send_all<I: IntoIterator<Item = String>>(&self, lines: I) {
        let mut w = self.inner.lock();
        for line in lines {
            if writeln!(w, "{line}").is_err() {
                break;
            }
        }
        let _ = w.flush();
    }
}

/// Whether the input loop goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit`: stop reading.
    Quit,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The hash table could not be allocated.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The search thread could not be started.
    #[error("cannot start the search thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// Work for the search thread.
enum Job {
    Search(Box<SearchJob>),
    Perft {
        pos: Box<Position>,
        depth: u32,
    },
    Resize(usize),
    Clear,
    /// `Eval`: the evaluator to search with.
    Eval(Box<Eval>),
    Seed(u64),
    Threads(usize),
    /// `OwnBook` and `BookVariety`.
    Book {
        on: bool,
        variety: usize,
    },
}

struct SearchJob {
    pos: Position,
    limits: Limits,
    params: Params,
}

/// What the search thread reports back.
#[derive(Debug)]
enum Event {
    /// A search or perft is over (its last line is out).
    Done,
    /// A resize finished.
    Resized(Result<(), TableError>),
    /// The tables were cleared.
    Cleared,
}

/// A search score as the protocol reports it.
pub fn protocol_score(score: i32) -> Score {
    match ScoreReport::from_score(score) {
        ScoreReport::Cp(cp) => Score::cp(cp),
        ScoreReport::Mate(n) => Score::mate(n),
    }
}

/// The `info` line of a finished iteration.
pub fn iteration_info(it: &Iteration, turn: Color) -> Info {
    Info {
        depth: Some(it.depth),
        seldepth: Some(it.seldepth),
        score: Some(protocol_score(it.score)),
        nodes: Some(it.nodes),
        nps: Some(it.nps()),
        hashfull: Some(it.hashfull.min(1000)),
        time: Some(it.elapsed.as_millis() as u64),
        pv: MoveText::line(&it.pv, turn),
        ..Info::default()
    }
}

/// The `bestmove` line of a result.
pub fn bestmove_message(result: &SearchResult, turn: Color) -> EngineMessage {
    EngineMessage::BestMove(result.best.map(|best| BestMove {
        best: MoveText::of(best, turn),
        ponder: result.ponder.map(|m| MoveText::of(m, !turn)),
    }))
}

fn worker_loop(mut searcher: Searcher, jobs: Receiver<Job>, events: Sender<Event>, signals: Arc<Signals>, out: Output) {
    while let Ok(job) = jobs.recv() {
        let event = match job {
            Job::Search(job) => {
                run_search(&mut searcher, &job, &signals, &out);
                Event::Done
            }
            Job::Perft { pos, depth } => {
                run_perft(&pos, depth, &signals, &out);
                Event::Done
            }
            Job::Resize(mb) => Event::Resized(searcher.resize(mb)),
            Job::Clear => {
                searcher.clear();
                Event::Cleared
            }
            Job::Eval(eval) => {
                searcher.set_evaluator(*eval);
                continue;
            }
            Job::Seed(seed) => {
                searcher.set_seed(seed);
                continue;
            }
            Job::Threads(threads) => {
                searcher.set_threads(threads);
                continue;
            }
            Job::Book { on, variety } => {
                searcher.set_book(on.then(crate::book::builtin), variety);
                continue;
            }
        };
        if events.send(event).is_err() {
            break;
        }
    }
}

/// Runs one search and prints its `info` lines and its one `bestmove`,
/// even if the search itself fails.
fn run_search(searcher: &mut Searcher, job: &SearchJob, signals: &Signals, out: &Output) {
    let turn = job.pos.turn();
    let mut report = |it: &Iteration| out.send(EngineMessage::Info(iteration_info(it, turn)));
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        searcher.search_with(&job.pos, &job.limits, &job.params, signals, &mut report)
    }));
    match result {
        Ok(result) => out.send(bestmove_message(&result, turn)),
        Err(_) => {
            // Never reached by design; if it is, the GUI still gets a move.
            out.send(EngineMessage::Info(Info::error("internal error in the search")));
            let mut list = MoveList::new();
            job.pos.legal_moves(&mut list);
            let best = list.iter().next().map(|&m| MoveText::of(GameMove::Move(m), turn));
            out.send(EngineMessage::BestMove(
                best.map(|best| BestMove { best, ponder: None }),
            ));
            searcher.clear();
        }
    }
}

fn run_perft(pos: &Position, depth: u32, signals: &Signals, out: &Output) {
    let turn = pos.turn();
    let total = perft_stoppable(pos, depth, &signals.stop, |mv, n| {
        out.send(EngineMessage::PerftMove {
            mv: MoveText::of(mv, turn),
            nodes: n,
        });
    });
    match total {
        Some(total) => out.send(EngineMessage::PerftTotal(total)),
        // No total: a reader waiting for `Nodes searched` must not take a
        // partial count for the answer.
        None => out.send(EngineMessage::Info(Info::string("perft stopped"))),
    }
}

/// The string option naming a network file for the nnue evaluation.
pub const EVAL_FILE_OPTION: &str = "EvalFile";

/// The UCI engine: the position, the options, and the search thread.
#[derive(Debug)]
pub struct Server {
    out: Output,
    pos: Position,
    /// Hashes of the game's positions before `pos`, for repetitions.
    history: Vec<u64>,
    options: EngineOptions,
    /// The evaluator of the `Eval` option's kind (its weights are the
    /// ones the server was made with).
    eval: Eval,
    /// The `EvalFile` last loaded (empty: the embedded network).
    eval_file: String,
    params: Params,
    debug: bool,
    signals: Arc<Signals>,
    jobs: Option<Sender<Job>>,
    events: Receiver<Event>,
    worker: Option<JoinHandle<()>>,
    busy: bool,
}

impl Server {
    /// A server writing to `out`, at the start position, with default
    /// options and its search thread started.
    ///
    /// # Errors
    /// [`ServerError`] if the hash table or the thread cannot be had.
    pub fn new(out: Output) -> Result<Server, ServerError> {
        Server::with_eval(out, Eval::default())
    }

    /// A server like [`Server::new`] whose evaluator is `eval`: its kind is
    /// the `Eval` option's default, and the option changes the kind only,
    /// keeping `eval`'s weights.
    ///
    /// # Errors
    /// [`ServerError`] if the hash table or the thread cannot be had.
    pub fn with_eval(out: Output, eval: Eval) -> Result<Server, ServerError> {
        let options = EngineOptions {
            eval: eval.kind(),
            ..EngineOptions::default()
        };
        let mut searcher = Searcher::with_evaluator(eval.clone(), options.hash_mb)?;
        searcher.set_book(
            options.own_book.then(crate::book::builtin),
            options.book_variety as usize,
        );
        let signals = Arc::new(Signals::default());
        let (job_tx, job_rx) = crossbeam_channel::unbounded();
        let (event_tx, event_rx) = crossbeam_channel::unbounded();
        let worker = {
            let signals = Arc::clone(&signals);
            let out = out.clone();
            std::thread::Builder::new()
                .name("search".into())
                .spawn(move || worker_loop(searcher, job_rx, event_tx, signals, out))?
        };
        Ok(Server {
            out,
            pos: Position::new(),
            history: Vec::new(),
            options,
            eval,
            eval_file: String::new(),
            params: Params::default(),
            debug: false,
            signals,
            jobs: Some(job_tx),
            events: event_rx,
            worker: Some(worker),
            busy: false,
        })
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The current tunable parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The current standard options.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Whether a search or perft is running.
    pub fn is_searching(&mut self) -> bool {
        if self.busy && self.events.try_recv().is_ok() {
            self.busy = false;
        }
        self.busy
    }

    /// Waits until the running search or perft (if any) ends by itself.
    pub fn wait(&mut self) {
        if self.busy {
            let _ = self.events.recv();
            self.busy = false;
        }
    }

    /// Stops the running search or perft (if any) and waits until its last
    /// line is out.
    pub fn stop_and_wait(&mut self) {
        if self.busy {
            self.signals.stop.store(true, Ordering::Relaxed);
            self.signals.pondering.store(false, Ordering::Relaxed);
            self.wait();
        }
    }

    fn error(&self, what: impl fmt::Display) {
        self.out.send(EngineMessage::Info(Info::error(what)));
    }

    /// Sends a job to the search thread.
    fn submit(&mut self, job: Job) -> bool {
        let sent = self.jobs.as_ref().is_some_and(|jobs| jobs.send(job).is_ok());
        if !sent {
            self.error("the search thread is gone");
        }
        sent
    }

    /// Handles one input line as read (a line too long to keep included).
    pub fn handle_input(&mut self, line: &Line) -> Flow {
        match line {
            Line::Text(text) => self.handle_line(text),
            Line::TooLong { len } => {
                self.error(format!("input line of {len} bytes ignored: too long"));
                Flow::Continue
            }
        }
    }

    /// Handles one line of input: the function the stdin loop calls.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let received = Instant::now();
        let command = match line.parse::<Command>() {
            Ok(command) => command,
            Err(ParseError::Empty) => return Flow::Continue,
            Err(err) => {
                // Unknown commands too: UCI ignores them, and so does the
                // state here, but a person typing deserves to know.
                self.error(err);
                return Flow::Continue;
            }
        };
        match command {
            Command::Uci => self.uci(),
            Command::Debug(on) => self.debug = on,
            Command::IsReady => {
                // Earlier commands are done: the server handles them in order,
                // and table jobs are waited for.
                self.out.send(EngineMessage::ReadyOk);
            }
            Command::SetOption(option) => {
                self.stop_and_wait();
                self.set_option(&option.name, option.value.as_deref());
            }
            Command::UciNewGame => {
                self.stop_and_wait();
                if self.submit(Job::Clear) {
                    let _ = self.events.recv();
                }
                self.pos = Position::new();
                self.history.clear();
            }
            Command::Position { start, moves } => {
                self.stop_and_wait();
                match build_game(&start, &moves) {
                    Ok((pos, history)) => {
                        self.pos = pos;
                        self.history = history;
                    }
                    Err(what) => self.error(what),
                }
            }
            Command::Go(limits) => {
                self.stop_and_wait();
                self.go(&limits, received);
            }
            Command::Perft(depth) => {
                self.stop_and_wait();
                self.signals.stop.store(false, Ordering::Relaxed);
                let pos = Box::new(self.pos.clone());
                if self.submit(Job::Perft { pos, depth }) {
                    self.busy = true;
                }
            }
            Command::Stop => self.stop_and_wait(),
            Command::PonderHit => self.signals.pondering.store(false, Ordering::Relaxed),
            Command::Quit => {
                self.stop_and_wait();
                return Flow::Quit;
            }
            Command::Display => self.out.send_all(self.pos.diagram().lines().map(str::to_string)),
            Command::Spsa => self.out.send_all(Params::TUNABLES.iter().map(|t| {
                EngineMessage::Spsa(SpsaParam {
                    name: t.uci_name(),
                    value: self.params.value(t.field).unwrap_or(t.default),
                    min: t.min,
                    max: t.max,
                    c_end: t.c_end,
                    r_end: t.r_end,
                })
                .to_string()
            })),
        }
        Flow::Continue
    }

    fn uci(&self) {
        let mut lines = vec![
            EngineMessage::Id(Id::Name(format!("leaper {}", env!("CARGO_PKG_VERSION")))).to_string(),
            EngineMessage::Id(Id::Author(env!("CARGO_PKG_AUTHORS").replace(':', ", "))).to_string(),
        ];
        let mut options = self.options.uci_options(&self.params);
        options.insert(
            EngineOptions::STANDARD,
            UciOption::string(EVAL_FILE_OPTION, self.eval_file.as_str()),
        );
        lines.extend(options.into_iter().map(|o| EngineMessage::Option(o).to_string()));
        lines.push(EngineMessage::UciOk.to_string());
        self.out.send_all(lines);
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        if protocol::option_names_match(EVAL_FILE_OPTION, name) {
            self.set_eval_file(value.unwrap_or_default().trim());
            return;
        }
        match self.options.parse_change(&self.params, name, value) {
            Ok(Change::Options(mut next)) => {
                if next.hash_mb != self.options.hash_mb && !self.resize(next.hash_mb) {
                    next.hash_mb = self.options.hash_mb;
                }
                if !self.eval.has_model(next.eval) {
                    self.error(format!(
                        "option Eval: {} needs a model file and none is loaded (this build embeds none); \
                         set EvalFile to one first",
                        next.eval.name()
                    ));
                    next.eval = self.eval.kind();
                }
                if next.eval != self.eval.kind() {
                    self.eval = self.eval.with_kind(next.eval);
                    self.submit(Job::Eval(Box::new(self.eval.clone())));
                }
                if next.seed != self.options.seed {
                    self.submit(Job::Seed(next.seed));
                }
                if next.threads != self.options.threads {
                    self.submit(Job::Threads(next.threads as usize));
                }
                if (next.own_book, next.book_variety) != (self.options.own_book, self.options.book_variety) {
                    self.submit(Job::Book {
                        on: next.own_book,
                        variety: next.book_variety as usize,
                    });
                }
                self.options = next;
            }
            Ok(Change::Params(next)) => self.params = next,
            Err(err) => self.error(err),
        }
    }

    /// `setoption name EvalFile value <path>`: loads the network the nnue
    /// evaluation uses; a file that does not load is named with what is
    /// wrong, and the previous network stays.
    fn set_eval_file(&mut self, path: &str) {
        if path.is_empty() {
            self.error(format!(
                "option {EVAL_FILE_OPTION} needs a file: setoption name {EVAL_FILE_OPTION} value <path>"
            ));
            return;
        }
        // A network (for nnue) or a linear model (for linear), by the
        // file's magic.
        match EvalModel::load(Path::new(path)) {
            Ok(model) => {
                self.eval = self.eval.with_model(model).0;
                self.eval_file = path.to_string();
                self.submit(Job::Eval(Box::new(self.eval.clone())));
            }
            Err(err) => self.error(format!(
                "option {EVAL_FILE_OPTION}: cannot load the network {path}: {err}; keeping the previous network"
            )),
        }
    }

    /// Resizes the table to `mb` MB; false (and said why) if it failed.
    fn resize(&mut self, mb: usize) -> bool {
        if !self.submit(Job::Resize(mb)) {
            return false;
        }
        match self.events.recv() {
            Ok(Event::Resized(Ok(()))) => true,
            Ok(Event::Resized(Err(err))) => {
                self.error(format!("option Hash: {err}"));
                false
            }
            _ => {
                self.error("the search thread did not answer");
                false
            }
        }
    }

    fn go(&mut self, go: &SearchLimits, received: Instant) {
        if let Some(outcome) = self.pos.outcome() {
            self.out.send(EngineMessage::Info(Info::game_over(outcome)));
            self.out.send(EngineMessage::BestMove(None));
            return;
        }
        let turn = self.pos.turn();
        let mut searchmoves = Vec::new();
        for (i, token) in go.searchmoves.iter().enumerate() {
            match self.pos.move_from_text(*token, SetupCase::Strict) {
                Ok(GameMove::Move(mv)) => searchmoves.push(mv),
                Ok(GameMove::Setup(_)) => {}
                Err(err) => self.error(format!("go searchmoves: move {} `{token}` ignored: {err}", i + 1)),
            }
        }
        let ms = Duration::from_millis;
        // A clock for either side means time management, as in Stockfish: a
        // missing clock for the side to move is an empty one, not infinity.
        let (time, inc) = go.clock(turn == Color::Red);
        let time = time.or((go.wtime.is_some() || go.btime.is_some()).then_some(0));
        let limits = Limits {
            depth: go.depth,
            nodes: go.nodes,
            movetime: go.movetime.map(ms),
            clock: time.map(|t| Clock {
                time: ms(t),
                inc: ms(inc.unwrap_or(0)),
                movestogo: go.movestogo,
            }),
            infinite: go.infinite,
            ponder: go.ponder,
            move_overhead: ms(self.options.move_overhead_ms),
            searchmoves,
            start: received,
            history: self.history.clone(),
        };
        self.signals.stop.store(false, Ordering::Relaxed);
        self.signals.pondering.store(go.ponder, Ordering::Relaxed);
        let job = SearchJob {
            pos: self.pos.clone(),
            limits,
            params: self.params,
        };
        if self.submit(Job::Search(Box::new(job))) {
            self.busy = true;
        } else {
            self.out.send(EngineMessage::BestMove(None));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop_and_wait();
        self.jobs = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// The position a `position` command describes, or what is wrong with it
/// and where.
pub fn build_position(start: &StartPosition, moves: &[MoveText]) -> Result<Position, String> {
    build_game(start, moves).map(|(pos, _)| pos)
}

/// The position a `position` command describes with the hashes of the
/// positions before it (after both setups, oldest first), which the search
/// needs to see repetitions; or what is wrong with it and where.
pub fn build_game(start: &StartPosition, moves: &[MoveText]) -> Result<(Position, Vec<u64>), String> {
    let mut history = Vec::new();
    let (mut pos, first_move_token) = match start {
        StartPosition::StartPos => (Position::new(), 3),
        StartPosition::Fen(pos) => (Position::clone(pos), 7),
    };
    for (i, &text) in moves.iter().enumerate() {
        let mv = pos.move_from_text(text, SetupCase::Strict).map_err(|e| {
            format!(
                "position: move {} `{text}` (token {}) at ply {}: {e}",
                i + 1,
                first_move_token + i,
                pos.ply()
            )
        })?;
        if !pos.is_setup_phase() {
            history.push(pos.hash());
        }
        pos.play_game_move(&mv);
    }
    Ok((pos, history))
}
