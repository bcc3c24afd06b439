//! The search behind `go`: iterative deepening over a principal variation
//! search with aspiration windows, a transposition table, staged move
//! ordering, pruning and reductions, and a quiescence search, driven by
//! [`Limits`] (depth, nodes, time, clock, infinite) and stopped from
//! another thread through [`Signals`]. With more than one thread (lazy
//! SMP) helper threads search the same root into the shared table and the
//! main thread's result is played.
//!
//! This module never prints. A [`Searcher`] owns what outlives one search
//! (the hash table, history, one evaluator per thread); [`Searcher::search`] returns a
//! [`SearchResult`] and reports each finished iteration to a [`Reporter`],
//! which the server turns into `info` lines. Every tunable number comes
//! from [`Params`]. Setups (plies 1 and 2) are chosen by sampling, see
//! `setup`.
//!
//! ```
//! use leaper::search::{Limits, Searcher, Signals};
//! use leaper::{Position, SetupCase};
//!
//! let mut pos = Position::new();
//! for text in ["AWNAADADAFFAADDA", "aaaaaffdaddadnwa"] {
//!     let mv = pos.parse_move(text, SetupCase::Strict).unwrap();
//!     pos.play_game_move(&mv);
//! }
//! let mut searcher = Searcher::new(16).unwrap();
//! let limits = Limits { depth: Some(3), ..Limits::default() };
//! let result = searcher.search(&pos, &limits, &Signals::default(), &mut ());
//! assert!(result.best.is_some());
//! ```

mod alphabeta;
mod correction;
mod ordering;
mod params;
mod score;
mod setup;
mod time;
mod tt;

pub use alphabeta::{can_capture_wazir, table_key, terminal_score};
pub use ordering::MAX_SEARCH_PLY;
pub use params::{ParamError, Params, Switch, Tunable};
pub use score::{INFINITY, MATE, MATE_BOUND, ScoreReport, is_mate, loss_at, win_at};
pub use setup::{candidates as setup_candidates, heuristic as setup_heuristic};
pub use time::{Budget, Clock, own_moves_left};
pub use tt::{Table, TableError};

use crate::book::Book;
use crate::eval::{Eval, Evaluator};
use crate::rules::{GameMove, MAX_PLY, Move, Position, Role};
use alphabeta::{Context, Deadline, Setting, wazir_attack};
use ordering::{Frame, Heuristics};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What may end a search. Absent limits do not apply; with none at all the
/// search runs until [`Signals::stop`] (as `go infinite`).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Most nodes.
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// The side to move's clock.
    pub clock: Option<Clock>,
    /// Search until stopped; the result waits for the stop.
    pub infinite: bool,
    /// Pondering: no time limit while [`Signals::pondering`] is set.
    pub ponder: bool,
    /// Kept back from every move's time for the GUI and the pipes.
    pub move_overhead: Duration,
    /// Search only these root moves (empty: all).
    pub searchmoves: Vec<Move>,
    /// When the `go` arrived: time limits count from here.
    pub start: Instant,
    /// Hashes ([`Position::hash`]) of the game's positions before this
    /// one, oldest first: a position that repeats one of them scores as a
    /// draw.
    pub history: Vec<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: None,
            nodes: None,
            movetime: None,
            clock: None,
            infinite: false,
            ponder: false,
            move_overhead: Duration::from_millis(10),
            searchmoves: Vec::new(),
            start: Instant::now(),
            history: Vec::new(),
        }
    }
}

impl Limits {
    /// Whether only a stop ends the search (`go infinite`, or no limit).
    fn until_stopped(&self) -> bool {
        self.infinite
            || (self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none() && self.clock.is_none())
    }

    /// Whether the search is bounded by time alone.
    fn time_only(&self) -> bool {
        !self.infinite && self.depth.is_none() && self.nodes.is_none()
    }
}

/// Flags another thread sets to steer a running search.
#[derive(Debug, Default)]
pub struct Signals {
    /// Stop now and return the best move so far. Checked at every node.
    pub stop: AtomicBool,
    /// Set while pondering; clearing it (`ponderhit`) starts the clock.
    pub pondering: AtomicBool,
}

/// A finished iteration, as `info` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iteration {
    /// Its depth.
    pub depth: u32,
    /// The deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// The score for the side to move (see [`ScoreReport`]).
    pub score: i32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Hash table use, permill.
    pub hashfull: u32,
    /// The principal variation.
    pub pv: Vec<GameMove>,
}

impl Iteration {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-6)) as u64
    }
}

/// Receives the progress of a search.
pub trait Reporter {
    /// Called after each finished iteration.
    fn iteration(&mut self, iteration: &Iteration);
}

impl Reporter for () {
    fn iteration(&mut self, _: &Iteration) {}
}

impl<F: FnMut(&Iteration)> Reporter for F {
    fn iteration(&mut self, iteration: &Iteration) {
        self(iteration)
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` only when the game is over.
    pub best: Option<GameMove>,
    /// The expected reply.
    pub ponder: Option<GameMove>,
    /// The score of `best` for the side to move.
    pub score: i32,
    /// The last finished iteration.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The principal variation, `best` first.
    pub pv: Vec<GameMove>,
}

/// A search engine: the hash table, move-ordering history and evaluator
/// that outlive a single search.
#[derive(Debug)]
pub struct Searcher<E: Evaluator = Eval> {
    tt: Table,
    heur: Heuristics,
    /// The main thread's evaluator.
    eval: E,
    /// The helper threads' own histories, killers and evaluators (clones
    /// of `eval`).
    helpers: Vec<(Heuristics, E)>,
    threads: usize,
    seed: u64,
    /// The setup book and how many of its best Red setups to choose among.
    book: Option<(Arc<Book>, usize)>,
    /// Setups chosen so far (kept across `clear`): successive games of one
    /// process draw different setups, reproducibly from the seed.
    setups_chosen: u64,
}

impl Searcher<Eval> {
    /// A searcher with the engine's default evaluation (see [`crate::eval`])
    /// and a table of `hash_mb` MB.
    ///
    /// # Errors
    /// [`TableError`] when the table does not fit in memory.
    pub fn new(hash_mb: usize) -> Result<Searcher<Eval>, TableError> {
        Searcher::with_evaluator(Eval::default(), hash_mb)
    }
}

/// The most search threads.
pub const MAX_THREADS: usize = 256;

/// How one iteration of the main thread ended.
enum IterationEnd {
    /// Finished with this score.
    Done(i32),
    /// Stopped; `true` if a move beat the window first (the root PV holds
    /// it).
    Stopped(bool),
}

/// One iteration at `depth` with aspiration windows around `prev` (the
/// last iteration's score), the best move moved to the front of `order`.
fn iterate<E: Evaluator>(
    ctx: &mut Context<'_, E>,
    pos: &Position,
    order: &mut Vec<Move>,
    depth: i32,
    prev: Option<i32>,
) -> IterationEnd {
    let params = ctx.params;
    let center = prev.filter(|&p| params.aspiration && depth >= params.aspiration_min_depth && !is_mate(p));
    let mut delta = params.aspiration_window.max(1);
    let (mut alpha, mut beta) = match center {
        Some(c) => ((c - delta).max(-INFINITY), (c + delta).min(INFINITY)),
        None => (-INFINITY, INFINITY),
    };
    loop {
        let (score, index) = ctx.root(pos, order, depth, alpha, beta);
        if ctx.stopped {
            // A move that beat alpha in an unfinished iteration is still
            // better than the previous best.
            return IterationEnd::Stopped(index.is_some() && score > alpha && !ctx.root_pv().is_empty());
        }
        if let Some(i) = index
            && score > alpha
        {
            let mv = order.remove(i);
            order.insert(0, mv);
        }
        if score <= alpha && alpha > -INFINITY {
            beta = (alpha + beta) / 2;
            alpha = (score - delta).max(-INFINITY);
        } else if score >= beta && beta < INFINITY {
            beta = (score + delta).min(INFINITY);
        } else {
            return IterationEnd::Done(score);
        }
        delta = delta.saturating_mul(2);
        if delta > MATE / 4 {
            alpha = -INFINITY;
            beta = INFINITY;
        }
    }
}

/// A helper thread of lazy SMP: iterative deepening on its own, filling
/// the shared table, until the main thread is done. Odd helpers run a ply
/// ahead, so that the threads do not all search the same tree.
fn helper<E: Evaluator>(ctx: &mut Context<'_, E>, pos: &Position, mut order: Vec<Move>, max_depth: i32, id: usize) {
    let mut prev = None;
    for depth in 1..=max_depth {
        let depth = (depth + (id % 2) as i32).min(max_depth);
        match iterate(ctx, pos, &mut order, depth, prev) {
            IterationEnd::Done(score) => prev = Some(score),
            IterationEnd::Stopped(_) => return,
        }
    }
}

impl<E: Evaluator> Searcher<E> {
    /// A searcher with evaluator `eval` and a table of `hash_mb` MB.
    ///
    /// # Errors
    /// [`TableError`] when the table does not fit in memory.
    pub fn with_evaluator(eval: E, hash_mb: usize) -> Result<Searcher<E>, TableError> {
        Ok(Searcher {
            tt: Table::new(hash_mb)?,
            heur: Heuristics::default(),
            helpers: Vec::new(),
            threads: 1,
            eval,
            seed: 0,
            book: None,
            setups_chosen: 0,
        })
    }

    /// Replaces the table by one of `hash_mb` MB (emptied).
    ///
    /// # Errors
    /// [`TableError`] when it does not fit; the old table stays.
    pub fn resize(&mut self, hash_mb: usize) -> Result<(), TableError> {
        Table::check(hash_mb)?;
        // Free the old table first so that both never coexist.
        self.tt = Table::new(0)?;
        self.tt = Table::new(hash_mb)?;
        Ok(())
    }

    /// Forgets everything learned (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.heur.clear();
        self.helpers.iter_mut().for_each(|(heur, _)| heur.clear());
    }

    /// Searches with `threads` threads (1 to [`MAX_THREADS`]) sharing the
    /// table.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
        self.helpers.truncate(self.threads - 1);
    }

    /// Seeds the sampling of setups (0 by default). With the same seed, a
    /// fresh searcher repeats its sequence of setups; each setup it chooses
    /// moves the sequence on, so successive games differ.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Plays setups from `book` (`None`: no book). As Red it picks among
    /// the `variety` best entries (1: always the best; the choice follows
    /// the seed); as Blue it answers a Red setup the book knows (or its
    /// mirror) at once, and otherwise searches the book's replies.
    pub fn set_book(&mut self, book: Option<Arc<Book>>, variety: usize) {
        self.book = book.map(|b| (b, variety.max(1)));
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &E {
        &self.eval
    }

    /// Evaluates with `eval` from the next search on (every thread gets a
    /// clone of it).
    pub fn set_evaluator(&mut self, eval: E) {
        for (_, helper) in &mut self.helpers {
            *helper = eval.clone();
        }
        self.eval = eval;
    }

    /// Searches `pos` under `limits` with the default parameters.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        signals: &Signals,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.search_with(pos, limits, &Params::default(), signals, reporter)
    }

    /// Searches `pos` under `limits` with parameters `params`, reporting
    /// each finished iteration. Returns when a limit is reached or
    /// `signals.stop` is set; under `go infinite` (or while pondering) it
    /// waits for the stop even when the search has nothing left to do.
    pub fn search_with(
        &mut self,
        pos: &Position,
        limits: &Limits,
        params: &Params,
        signals: &Signals,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.tt.new_search();
        self.heur.new_search();
        self.helpers.iter_mut().for_each(|(heur, _)| heur.new_search());
        let result = if pos.outcome().is_some() {
            SearchResult {
                best: None,
                ponder: None,
                score: 0,
                depth: 0,
                seldepth: 0,
                nodes: 0,
                elapsed: limits.start.elapsed(),
                pv: Vec::new(),
            }
        } else if pos.is_setup_phase() {
            self.choose_setup(pos, limits, params, signals, reporter)
        } else {
            self.search_moves(pos, limits, params, signals, reporter)
        };
        while !signals.stop.load(Ordering::Relaxed)
            && (limits.until_stopped() || (limits.ponder && signals.pondering.load(Ordering::Relaxed)))
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        result
    }

    /// A result of one move found without iterating (a wazir capture, a
    /// setup): reported as one iteration at depth 1 and returned.
    fn one_move_result(
        &self,
        best: GameMove,
        score: i32,
        nodes: u64,
        limits: &Limits,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        let elapsed = limits.start.elapsed();
        reporter.iteration(&Iteration {
            depth: 1,
            seldepth: 1,
            score,
            nodes,
            elapsed,
            hashfull: self.tt.hashfull(),
            pv: vec![best],
        });
        SearchResult {
            best: Some(best),
            ponder: None,
            score,
            depth: 1,
            seldepth: 1,
            nodes,
            elapsed,
            pv: vec![best],
        }
    }

    /// The root moves worth searching, best guess first: the saving moves
    /// when the wazir is attacked, else all.
    fn root_moves(&self, pos: &Position, limits: &Limits) -> Vec<Move> {
        let tt_move = self.tt.probe(table_key(pos)).and_then(|h| h.mv);
        let values = Role::ALL.map(|role| self.eval.piece_value(role));
        let mut frame = Frame::default();
        match wazir_attack(pos) {
            Some((wazir, attackers)) => {
                frame.start_evasions(pos, wazir, attackers, tt_move, &self.heur, &values);
                if frame.is_empty() {
                    // Lost anyway: play any move.
                    frame.start(pos, tt_move, [None; 2], false, None);
                }
            }
            None => frame.start(pos, tt_move, self.heur.killers(0), false, None),
        }
        let mut moves = Vec::new();
        while let Some(mv) = frame.next(pos, &self.heur, &values) {
            moves.push(mv);
        }
        if !limits.searchmoves.is_empty() {
            let allowed: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| limits.searchmoves.contains(m))
                .collect();
            if !allowed.is_empty() {
                moves = allowed;
            }
        }
        moves
    }

    fn search_moves(
        &mut self,
        pos: &Position,
        limits: &Limits,
        params: &Params,
        signals: &Signals,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        let to_game = |moves: &[Move]| moves.iter().map(|&m| GameMove::Move(m)).collect::<Vec<_>>();
        if let Some(mv) = can_capture_wazir(pos) {
            return self.one_move_result(GameMove::Move(mv), win_at(1), 1, limits, reporter);
        }
        let mut order = self.root_moves(pos, limits);
        let budget = if limits.infinite {
            None
        } else if let Some(movetime) = limits.movetime {
            Some(Budget::fixed(movetime, limits.move_overhead))
        } else {
            limits
                .clock
                .map(|clock| Budget::for_clock(&clock, pos.ply(), limits.move_overhead, params))
        };
        let remaining = MAX_PLY.saturating_sub(pos.ply()).max(1);
        let max_depth = limits
            .depth
            .unwrap_or(u32::MAX)
            .clamp(1, remaining.min(MAX_SEARCH_PLY as u32 - 8)) as i32;
        while self.helpers.len() + 1 < self.threads {
            self.helpers.push((Heuristics::default(), self.eval.clone()));
        }
        let helpers_stop = AtomicBool::new(false);
        let helper_nodes = AtomicU64::new(0);
        let Searcher {
            tt,
            heur,
            helpers,
            eval,
            ..
        } = self;
        let tt: &Table = tt;
        let deadline = Deadline {
            start: limits.start,
            hard: budget.map(|b| b.hard),
            nodes: limits.nodes.unwrap_or(u64::MAX).max(1),
        };
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for (id, (helper_heur, helper_eval)) in helpers.iter_mut().enumerate() {
                let s = Setting {
                    tt,
                    eval: helper_eval,
                    heur: helper_heur,
                    params,
                    stop: &helpers_stop,
                    pondering: &signals.pondering,
                    deadline: Deadline {
                        hard: None,
                        nodes: u64::MAX,
                        ..deadline
                    },
                    shared_nodes: Some(&helper_nodes),
                    history: &limits.history,
                    root: pos,
                };
                let order = order.clone();
                handles.push(scope.spawn(move || {
                    let mut ctx = Context::new(s);
                    helper(&mut ctx, pos, order, max_depth, id);
                    ctx.nodes
                }));
            }
            let mut ctx = Context::new(Setting {
                tt,
                eval,
                heur,
                params,
                stop: &signals.stop,
                pondering: &signals.pondering,
                deadline,
                shared_nodes: None,
                history: &limits.history,
                root: pos,
            });
            let mut best = SearchResult {
                best: order.first().map(|&m| GameMove::Move(m)),
                ponder: None,
                score: 0,
                depth: 0,
                seldepth: 0,
                nodes: 0,
                elapsed: Duration::ZERO,
                pv: order.first().map(|&m| vec![GameMove::Move(m)]).unwrap_or_default(),
            };
            let mut prev = None;
            let mut panic = 1000u32;
            for depth in 1..=max_depth {
                let score = match iterate(&mut ctx, pos, &mut order, depth, prev) {
                    IterationEnd::Done(score) => score,
                    IterationEnd::Stopped(improved) => {
                        if improved {
                            best.best = ctx.root_pv().first().map(|&m| GameMove::Move(m));
                            best.pv = to_game(ctx.root_pv());
                        }
                        break;
                    }
                };
                // Panic: the best score fell, so look longer for a better move.
                if let Some(prev) = prev
                    && depth >= 4
                    && score < prev - params.panic_threshold
                {
                    let grown = u64::from(panic) * params.panic_multiplier_permille.max(1000) as u64 / 1000;
                    panic = grown.min(params.panic_cap_permille.max(1000) as u64) as u32;
                }
                prev = Some(score);
                best.score = score;
                best.depth = depth as u32;
                best.seldepth = ctx.seldepth.max(depth) as u32;
                best.pv = to_game(ctx.root_pv());
                best.best = best.pv.first().copied().or(best.best);
                let elapsed = limits.start.elapsed();
                reporter.iteration(&Iteration {
                    depth: best.depth,
                    seldepth: best.seldepth,
                    score,
                    nodes: ctx.nodes + helper_nodes.load(Ordering::Relaxed),
                    elapsed,
                    hashfull: ctx.tt.hashfull(),
                    pv: best.pv.clone(),
                });
                let pondering = limits.ponder && signals.pondering.load(Ordering::Relaxed);
                if !limits.infinite && !pondering {
                    let out_of_time = budget.is_some_and(|b| elapsed >= b.stretched(panic).0);
                    let forced = order.len() == 1 && limits.time_only();
                    let solved = is_mate(score) && MATE - score.abs() <= depth;
                    if out_of_time || forced || solved {
                        break;
                    }
                }
            }
            helpers_stop.store(true, Ordering::Relaxed);
            let helper_total: u64 = handles.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            best.nodes = ctx.nodes + helper_total;
            best.elapsed = limits.start.elapsed();
            best.ponder = best.pv.get(1).copied();
            best
        })
    }
}
