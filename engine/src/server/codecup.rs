//! CodeCup mode: one whole game against the referee (RULES.md), one line
//! in and one line out, on the engine's own clock.
//!
//! Red gets `Start`, Blue gets Red's setup; then each line is the
//! opponent's move and the answer is ours. The clock is the whole-game
//! budget (30 s in the tournament) less the time spent from reading each
//! line to writing the answer; each move gets its share from the search's
//! time manager, with a twentieth of the budget kept back against the
//! machine being slower than we measure. `Quit` or end of input ends the
//! game. Anything unexpected is logged to stderr and the game goes on:
//! stdout carries moves only.
//!
//! The referee starts a new process for every game, so a Red setup fixed
//! by the build would be the same in every game: an opponent could learn
//! it, and a match against one opponent would be one game repeated. Red
//! therefore draws its setup from the book's [`DEFAULT_BOOK_VARIETY`] best,
//! by [`CodeCupConfig::seed`], which the binary takes from the system's
//! entropy unless told a seed to reproduce a game.

use super::Output;
use crate::eval::Eval;
use crate::rules::{GameMove, MoveText, Position, SetupCase};
use crate::search::{Clock, Limits, Params, ScoreReport, Searcher, Signals, TableError};
use protocol::{Line, ParseError, PlayerMessage, RefereeMessage};
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// How to play a CodeCup game.
#[derive(Clone, Debug)]
pub struct CodeCupConfig {
    /// The whole game's thinking time.
    pub budget: Duration,
    /// Kept back from every move for pipes and scheduling.
    pub move_overhead: Duration,
    /// Hash table size, MB.
    pub hash_mb: usize,
    /// Chooses Red's setup among the book's best (and varies the sampled
    /// setups): the same seed, the same game against the same moves.
    pub seed: u64,
    /// How many of the book's best Red setups to draw from (1: always the
    /// best).
    pub book_variety: usize,
    /// The evaluation to play with.
    pub eval: Eval,
}

impl Default for CodeCupConfig {
    fn default() -> CodeCupConfig {
        CodeCupConfig {
            budget: Duration::from_secs(30),
            move_overhead: Duration::from_millis(10),
            hash_mb: super::DEFAULT_HASH_MB,
            seed: 0,
            book_variety: DEFAULT_BOOK_VARIETY,
            eval: Eval::default(),
        }
    }
}

/// Red's setup is drawn from this many of the book's best. The built-in
/// book's four best Red setups are within 0.05 logit of the best (about a
/// point of expected score), so the draw costs next to nothing.
pub const DEFAULT_BOOK_VARIETY: usize = 4;

/// Why a CodeCup game could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum CodeCupError {
    /// Reading the referee's lines failed.
    #[error("reading from the referee: {0}")]
    Input(#[from] io::Error),
    /// No hash table.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// How a game went, for the log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameSummary {
    /// Moves answered.
    pub moves: u32,
    /// Thinking time used.
    pub used: Duration,
    /// The final position in FEN.
    pub fen: String,
}

/// Plays one game: `first` is a line already read (the one that chose
/// this mode), `lines` the rest of the input. Answers go to `out`, the log
/// to `log`.
///
/// # Errors
/// [`CodeCupError`] when the input cannot be read or the table not had;
/// malformed or illegal referee lines are logged and skipped.
pub fn play(
    first: Option<Line>,
    lines: impl Iterator<Item = io::Result<Line>>,
    out: &Output,
    log: &mut dyn Write,
    config: &CodeCupConfig,
) -> Result<GameSummary, CodeCupError> {
    let mut searcher = Searcher::with_evaluator(config.eval.clone(), config.hash_mb)?;
    searcher.set_seed(config.seed);
    searcher.set_book(Some(crate::book::builtin()), config.book_variety);
    let params = Params::default();
    let signals = Signals::default();
    let mut pos = Position::new();
    // Hashes of the positions before `pos`, for repetitions.
    let mut history: Vec<u64> = Vec::new();
    let mut summary = GameSummary::default();
    for line in first.into_iter().map(Ok).chain(lines) {
        let received = Instant::now();
        let text = match line? {
            Line::Text(text) => text,
            Line::TooLong { len } => {
                let _ = writeln!(log, "leaper: ignored an input line of {len} bytes");
                continue;
            }
        };
        match text.parse::<RefereeMessage>() {
            Ok(RefereeMessage::Quit) => break,
            Ok(RefereeMessage::Start) if pos.ply() == 0 => {}
            Ok(RefereeMessage::Start) => {
                let _ = writeln!(log, "leaper: ignored Start at ply {}", pos.ply());
                continue;
            }
            Ok(RefereeMessage::Move(token)) => {
                // The referee accepted setups in either case; so do we.
                match pos.move_from_text(token, SetupCase::Lenient) {
                    Ok(mv) => {
                        if !pos.is_setup_phase() {
                            history.push(pos.hash());
                        }
                        pos.play_game_move(&mv);
                    }
                    Err(err) => {
                        let _ = writeln!(log, "leaper: ignored move `{token}` at ply {}: {err}", pos.ply());
                        continue;
                    }
                }
            }
            Err(ParseError::Empty) => continue,
            Err(err) => {
                let _ = writeln!(log, "leaper: ignored referee line: {err}");
                continue;
            }
        }
        if let Some(outcome) = pos.outcome() {
            let _ = writeln!(log, "leaper: game over: {outcome}");
            continue;
        }
        let remaining = config.budget.saturating_sub(summary.used);
        let limits = Limits {
            clock: Some(Clock {
                time: remaining.saturating_sub(config.budget / 20),
                inc: Duration::ZERO,
                movestogo: None,
            }),
            move_overhead: config.move_overhead,
            start: received,
            history: history.clone(),
            ..Limits::default()
        };
        let result = searcher.search_with(&pos, &limits, &params, &signals, &mut ());
        let Some(best) = result.best else {
            let _ = writeln!(log, "leaper: no move at ply {}", pos.ply());
            continue;
        };
        let turn = pos.turn();
        out.send(PlayerMessage(MoveText::of(best, turn)));
        if !pos.is_setup_phase() {
            history.push(pos.hash());
        }
        pos.play_game_move(&best);
        summary.used += received.elapsed();
        summary.moves += 1;
        let score = match ScoreReport::from_score(result.score) {
            ScoreReport::Cp(cp) => format!("cp {cp}"),
            ScoreReport::Mate(n) => format!("mate {n}"),
        };
        let _ = writeln!(
            log,
            "leaper: ply {} {} {} depth {} nodes {} time {} ms, {} ms left",
            pos.ply(),
            match best {
                GameMove::Setup(_) => "setup",
                GameMove::Move(_) => "move",
            },
            score,
            result.depth,
            result.nodes,
            received.elapsed().as_millis(),
            config.budget.saturating_sub(summary.used).as_millis()
        );
    }
    summary.fen = pos.to_fen();
    Ok(summary)
}
