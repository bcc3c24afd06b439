//! One game between two started engines, as a fixed loop (fastchess's
//! `match.cpp` is the model): game over? then ask the side to move under
//! its limits, check the answer against the clock and the rules, play it.
//! Every engine failure ends the game as a forfeit by that engine, with
//! the moves played so far; nothing an engine does makes this module panic
//! or wait without a deadline. The arena keeps the clocks itself.

use std::time::Duration;

use crossbeam_channel::Receiver;
use leaper::{Color, GameMove, MoveError, MoveText, Position, Setup, SetupCase};
use protocol::SearchLimits;

use crate::player::{Allowance, Answer, EngineFailure, FailureKind, Interrupted, Player};
use crate::spec::EngineSpec;

/// How a finished game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Why it ended, as the record spells it.
    pub termination: results::Termination,
    /// The moves played, setups first, in canonical notation.
    pub moves: Vec<String>,
    /// Thinking time used by Red and by Blue.
    pub time_used: [Duration; 2],
    /// The failure that ended the game, and the side at fault.
    pub failure: Option<(Color, EngineFailure)>,
}

/// One move as it was played, for observers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveEvent {
    /// Its ply, from 1 (plies 1 and 2 are the setups).
    pub ply: u32,
    /// The side that played it.
    pub side: Color,
    /// The move in canonical notation.
    pub text: String,
    /// The engine's thinking time, zero for a setup the arena imposed.
    pub elapsed: Duration,
    /// The mover's clock after the move, if it plays on a clock.
    pub clock: Option<Duration>,
    /// The engine's last reported score, as written.
    pub score: Option<String>,
}

/// The clock and limits of one side.
#[derive(Clone, Copy, Debug)]
struct Side<'a> {
    spec: &'a EngineSpec,
    /// Time left, for engines on a clock.
    clock: Option<Duration>,
}

impl Side<'_> {
    fn margin(&self) -> Duration {
        Duration::from_millis(self.spec.limits.timemargin_ms)
    }

    /// How long the engine may think now, and what exceeding it means.
    fn allowance(&self) -> Allowance {
        let limits = &self.spec.limits;
        match (self.clock, limits.movetime_ms) {
            (Some(clock), _) => Allowance {
                time: clock + self.margin(),
                on_timeout: FailureKind::TimeForfeit,
            },
            (None, Some(ms)) => Allowance {
                time: Duration::from_millis(ms) + self.margin(),
                on_timeout: FailureKind::TimeForfeit,
            },
            (None, None) => Allowance {
                time: Duration::from_millis(limits.stalltime_ms),
                on_timeout: FailureKind::Stall,
            },
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The `go` limits for the side to move: both clocks as far as they
/// exist, and the mover's fixed limits.
fn go_limits(sides: &[Side<'_>; 2], mover: Color) -> SearchLimits {
    let mut go = SearchLimits::default();
    let [red, blue] = sides;
    if let (Some(clock), Some(tc)) = (red.clock, red.spec.limits.tc) {
        go.wtime = Some(millis(clock));
        go.winc = Some(tc.inc_ms);
    }
    if let (Some(clock), Some(tc)) = (blue.clock, blue.spec.limits.tc) {
        go.btime = Some(millis(clock));
        go.binc = Some(tc.inc_ms);
    }
    let limits = &sides[mover.index()].spec.limits;
    go.movetime = limits.movetime_ms;
    go.nodes = limits.nodes;
    go.depth = limits.depth;
    go
}

/// Plays one game. `players` and `specs` are indexed by colour (Red
/// first). With `setups`, the arena imposes both setups (they are plies 1
/// and 2, played without asking the engines); without, the engines choose
/// their own. `on_move` sees every move as it is played.
///
/// Returns `None` when `cancel` fires (the game is abandoned unrecorded).
pub fn play_game(
    players: [&mut Player; 2],
    specs: [&EngineSpec; 2],
    setups: Option<(Setup, Setup)>,
    cancel: Option<&Receiver<()>>,
    on_move: &mut dyn FnMut(&MoveEvent),
) -> Option<GameOutcome> {
    let mut sides = [0, 1].map(|i| Side {
        spec: specs[i],
        clock: specs[i].limits.tc.map(|tc| tc.base()),
    });
    let [red, blue] = players;
    let mut players = [red, blue];
    let mut pos = Position::new();
    let mut tokens: Vec<MoveText> = Vec::with_capacity(104);
    let mut moves: Vec<String> = Vec::with_capacity(104);
    let mut time_used = [Duration::ZERO; 2];

    if let Some((red_setup, blue_setup)) = setups {
        for (setup, color) in [(red_setup, Color::Red), (blue_setup, Color::Blue)] {
            let token = MoveText::of(GameMove::Setup(setup), color);
            let text = token.to_string();
            pos.play_game_move(&GameMove::Setup(setup));
            tokens.push(token);
            on_move(&MoveEvent {
                ply: pos.ply(),
                side: color,
                text: text.clone(),
                elapsed: Duration::ZERO,
                clock: sides[color.index()].clock,
                score: None,
            });
            moves.push(text);
        }
    }

    let finish = |winner, termination, moves, time_used, failure| GameOutcome {
        winner,
        termination,
        moves,
        time_used,
        failure,
    };

    // CodeCup engines hear the imposed setups in one line before anything
    // else (the slot imposes setups only on those that accept it).
    if setups.is_some() {
        for (i, player) in players.iter_mut().enumerate() {
            if let (Player::CodeCup(engine), Some(keyword)) = (&mut **player, &sides[i].spec.opening_line)
                && let Err(failure) = engine.tell_opening(keyword, &tokens)
            {
                let mover = if i == 0 { Color::Red } else { Color::Blue };
                let termination = failure.kind.termination();
                return Some(finish(
                    Some(!mover),
                    termination,
                    moves,
                    time_used,
                    Some((mover, failure)),
                ));
            }
        }
    }

    loop {
        if let Some(outcome) = pos.outcome() {
            let termination = match outcome.reason {
                leaper::EndReason::WazirCaptured => results::Termination::WazirCaptured,
                leaper::EndReason::PlyLimit => results::Termination::PlyLimit,
                leaper::EndReason::NoLegalMove => results::Termination::NoLegalMove,
            };
            return Some(finish(outcome.winner, termination, moves, time_used, None));
        }
        let mover = pos.turn();
        let side = sides[mover.index()];
        let allowance = side.allowance();
        let answer: Result<Answer, Interrupted> = match &mut players[mover.index()] {
            Player::Uci(engine) => engine.search(&tokens, go_limits(&sides, mover), allowance, cancel),
            Player::CodeCup(engine) => {
                // After imposed setups the first regular move is Red's
                // `Start`, as it is at ply 0 in a game without them.
                let last = if setups.is_some() && tokens.len() == 2 {
                    None
                } else {
                    tokens.last().copied()
                };
                engine.search(last, allowance, cancel)
            }
        };
        let forfeit = |failure: EngineFailure, moves, time_used| {
            let termination = failure.kind.termination();
            Some(finish(
                Some(!mover),
                termination,
                moves,
                time_used,
                Some((mover, failure)),
            ))
        };
        let answer = match answer {
            Ok(answer) => answer,
            Err(Interrupted::Cancelled) => return None,
            Err(Interrupted::Failed(failure)) => {
                if matches!(failure.kind, FailureKind::TimeForfeit | FailureKind::Stall) {
                    time_used[mover.index()] += allowance.time;
                }
                return forfeit(failure, moves, time_used);
            }
        };
        time_used[mover.index()] += answer.elapsed;
        let mv = match pos.move_from_text(answer.mv, SetupCase::Strict) {
            Ok(mv) => mv,
            Err(error) => {
                let kind = match error {
                    MoveError::Illegal(_) => FailureKind::IllegalMove,
                    MoveError::Syntax(_) | MoveError::Setup(_) => FailureKind::MalformedMove,
                };
                let failure = EngineFailure {
                    kind,
                    detail: format!("\"{}\" at ply {}: {error}", answer.mv, pos.ply() + 1),
                    stderr: Vec::new(),
                };
                return forfeit(failure, moves, time_used);
            }
        };
        if let (Some(clock), Some(tc)) = (side.clock, side.spec.limits.tc) {
            sides[mover.index()].clock = Some(clock.saturating_sub(answer.elapsed) + tc.inc());
        }
        let token = MoveText::of(mv, mover);
        let text = token.to_string();
        pos.play_game_move(&mv);
        tokens.push(token);
        on_move(&MoveEvent {
            ply: pos.ply(),
            side: mover,
            text: text.clone(),
            elapsed: answer.elapsed,
            clock: sides[mover.index()].clock,
            score: answer.score,
        });
        moves.push(text);
    }
}
