//! A game slot: what one worker thread owns to play games one after
//! another. It keeps the UCI engines of its last game running and reuses
//! them (`ucinewgame` + `isready`) unless their spec says `restart=on`;
//! an engine that failed is killed and started afresh for its next game;
//! CodeCup engines get a fresh process every game. This is the unit the
//! tuner reuses: give it [`GameJob`]s and it returns [`FinishedGame`]s.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Receiver;
use leaper::{Color, Setup};

use crate::game::{GameOutcome, MoveEvent, play_game};
use crate::player::{EngineFailure, FailureKind, Interrupted, Player, UciEngine, Violations};
use crate::spec::{EngineSpec, Proto};

/// One game to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameJob {
    /// The game's number in its run.
    pub id: u64,
    /// Its pair: the two games of a pair share an opening, colours
    /// reversed.
    pub pair: u64,
    /// Its round.
    pub round: u64,
    /// The engine playing Red.
    pub red: Arc<EngineSpec>,
    /// The engine playing Blue.
    pub blue: Arc<EngineSpec>,
    /// Setups the arena imposes (Red's, Blue's), or `None` to let the
    /// engines choose.
    pub setups: Option<(Setup, Setup)>,
}

impl GameJob {
    /// The spec of the engine playing `color`.
    #[must_use]
    pub fn spec(&self, color: Color) -> &Arc<EngineSpec> {
        match color {
            Color::Red => &self.red,
            Color::Blue => &self.blue,
        }
    }
}

/// A game played to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedGame {
    /// What was played.
    pub job: GameJob,
    /// How it ended.
    pub outcome: GameOutcome,
    /// What each engine (Red, Blue) wrote out of turn during the game
    /// (and, for a reused engine, while it was prepared for it).
    pub violations: [Violations; 2],
}

impl FinishedGame {
    /// The game as a row of the results crate's record.
    #[must_use]
    pub fn to_record(&self) -> results::GameRecord {
        let o = &self.outcome;
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        results::GameRecord {
            game: self.job.id,
            pair: self.job.pair,
            round: self.job.round,
            red: self.job.red.name.clone(),
            blue: self.job.blue.name.clone(),
            red_setup: o.moves.first().cloned().unwrap_or_default(),
            blue_setup: o.moves.get(1).cloned().unwrap_or_default(),
            result: match o.winner {
                Some(Color::Red) => results::GameResult::RedWins,
                Some(Color::Blue) => results::GameResult::BlueWins,
                None => results::GameResult::Draw,
            },
            termination: o.termination,
            plies: u32::try_from(o.moves.len()).unwrap_or(u32::MAX),
            red_ms: ms(o.time_used[0]),
            blue_ms: ms(o.time_used[1]),
            moves: o.moves.clone(),
        }
    }
}

/// The two games of a pair: the same opening, colours reversed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedPair {
    /// The game in which the first engine had Red.
    pub first: FinishedGame,
    /// The game with the colours reversed.
    pub second: FinishedGame,
}

impl FinishedPair {
    /// The outcomes of both games for the engine named `player`, to feed
    /// [`results::Pentanomial::record_pair`]; `None` if it played neither.
    #[must_use]
    pub fn outcomes_for(&self, player: &str) -> Option<(results::Outcome, results::Outcome)> {
        let a = self.first.to_record().outcome_for(player)?;
        let b = self.second.to_record().outcome_for(player)?;
        Some((a, b))
    }
}

/// Collects finished games, which a [`crate::GamePool`] returns in any
/// order, into complete pairs (by [`GameJob::pair`]).
#[derive(Debug, Default)]
pub struct PairCollector {
    waiting: HashMap<u64, FinishedGame>,
}

impl PairCollector {
    /// An empty collector.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a game; returns its pair once both games are in.
    pub fn add(&mut self, game: FinishedGame) -> Option<FinishedPair> {
        match self.waiting.remove(&game.job.pair) {
            Some(other) => {
                let (first, second) = if other.job.id < game.job.id {
                    (other, game)
                } else {
                    (game, other)
                };
                Some(FinishedPair { first, second })
            }
            None => {
                self.waiting.insert(game.job.pair, game);
                None
            }
        }
    }

    /// Games still waiting for their pair's other game.
    #[must_use]
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

/// What a slot reports while it plays.
pub trait GameObserver: Send + Sync {
    /// A game is about to start (its engines are being prepared).
    fn game_started(&self, _job: &GameJob) {}
    /// A move was played.
    fn move_played(&self, _job: &GameJob, _mv: &MoveEvent) {}
    /// An engine failed; the game ends (or never starts) as its loss.
    fn engine_failed(&self, _job: &GameJob, _side: Color, _failure: &EngineFailure) {}
    /// An engine process was started, taking `startup` to be ready.
    fn engine_started(&self, _spec: &EngineSpec, _startup: Duration) {}
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl GameObserver for NoObserver {}

/// Engines kept between games: at most this many idle processes per slot.
const KEEP: usize = 2;

/// A worker's engines and the games it plays with them.
#[derive(Debug)]
pub struct GameSlot {
    idle: Vec<UciEngine>,
    cancel: Option<Receiver<()>>,
}

impl GameSlot {
    /// A slot with no engine running yet. When `cancel` receives or
    /// disconnects, the game being played is abandoned.
    #[must_use]
    pub fn new(cancel: Option<Receiver<()>>) -> Self {
        Self {
            idle: Vec::new(),
            cancel,
        }
    }

    /// A ready engine for `spec`: an idle one of the same process
    /// (options adjusted) or a new one; then `ucinewgame`.
    fn acquire(&mut self, spec: &Arc<EngineSpec>, observer: &dyn GameObserver) -> Result<Player, Interrupted> {
        let cancel = self.cancel.as_ref();
        if spec.proto == Proto::Codecup {
            let player = Player::start(Arc::clone(spec), cancel)?;
            if let Player::CodeCup(engine) = &player {
                observer.engine_started(spec, engine.startup());
            }
            return Ok(player);
        }
        let reused = if spec.restart {
            None
        } else {
            self.idle
                .iter()
                .position(|e| e.spec().same_process(spec))
                .map(|i| self.idle.remove(i))
        };
        let mut engine = match reused {
            Some(mut engine) => {
                engine.reconfigure(Arc::clone(spec))?;
                engine
            }
            None => {
                let engine = UciEngine::start(Arc::clone(spec), cancel)?;
                observer.engine_started(spec, engine.startup());
                engine
            }
        };
        engine.new_game(cancel)?;
        Ok(Player::Uci(engine))
    }

    /// Puts an engine that finished its game cleanly back for reuse.
    fn release(&mut self, player: Player) {
        match player {
            Player::Uci(engine) if !engine.spec().restart => {
                self.idle.push(engine);
                while self.idle.len() > KEEP {
                    self.idle.remove(0).quit();
                }
            }
            other => other.quit(),
        }
    }

    /// Plays one game. Returns `None` if the slot's cancel channel fired
    /// (the game is abandoned and not recorded).
    pub fn play(&mut self, job: &GameJob, observer: &dyn GameObserver) -> Option<FinishedGame> {
        // A job queued before the arena began stopping is not started.
        if crate::process::stopping() {
            return None;
        }
        observer.game_started(job);
        // A CodeCup engine can be told setups only through its opening-line
        // extension: games with one that has none let the engines choose.
        let untellable = |spec: &EngineSpec| spec.proto == Proto::Codecup && spec.opening_line.is_none();
        let setups = if untellable(&job.red) || untellable(&job.blue) {
            None
        } else {
            job.setups
        };
        let red = match self.acquire(&job.red, observer) {
            Ok(player) => player,
            Err(interrupted) => return self.forfeit_at_start(job, Color::Red, interrupted, observer),
        };
        let blue = match self.acquire(&job.blue, observer) {
            Ok(player) => player,
            Err(interrupted) => {
                self.release(red);
                return self.forfeit_at_start(job, Color::Blue, interrupted, observer);
            }
        };
        let mut players = [red, blue];
        let [red_player, blue_player] = &mut players;
        let outcome = play_game(
            [red_player, blue_player],
            [&job.red, &job.blue],
            setups,
            self.cancel.as_ref(),
            &mut |mv| observer.move_played(job, mv),
        );
        let [mut red, mut blue] = players;
        let violations = [red.take_violations(), blue.take_violations()];
        let Some(outcome) = outcome else {
            red.quit();
            blue.quit();
            return None;
        };
        let failed = outcome.failure.as_ref().map(|(side, failure)| {
            observer.engine_failed(job, *side, failure);
            *side
        });
        for (player, color) in [(red, Color::Red), (blue, Color::Blue)] {
            if failed == Some(color) {
                drop(player); // Killed: a failed engine is started afresh.
            } else {
                self.release(player);
            }
        }
        Some(FinishedGame {
            job: job.clone(),
            outcome,
            violations,
        })
    }

    /// Plays both games of a pair on this slot: `first` has Red in the
    /// first game, `second` in the other, on the same setups (or on the
    /// engines' own). The games get ids `2 * pair` and `2 * pair + 1`.
    /// Returns `None` if the slot's cancel channel fired.
    pub fn play_pair(
        &mut self,
        first: &Arc<EngineSpec>,
        second: &Arc<EngineSpec>,
        pair: u64,
        setups: Option<(Setup, Setup)>,
        observer: &dyn GameObserver,
    ) -> Option<FinishedPair> {
        let job = |id, red: &Arc<EngineSpec>, blue: &Arc<EngineSpec>| GameJob {
            id,
            pair,
            round: 0,
            red: Arc::clone(red),
            blue: Arc::clone(blue),
            setups,
        };
        let a = self.play(&job(2 * pair, first, second), observer)?;
        let b = self.play(&job(2 * pair + 1, second, first), observer)?;
        Some(FinishedPair { first: a, second: b })
    }

    /// The game lost by `side` before its first move, because its engine
    /// could not be started or prepared.
    fn forfeit_at_start(
        &mut self,
        job: &GameJob,
        side: Color,
        interrupted: Interrupted,
        observer: &dyn GameObserver,
    ) -> Option<FinishedGame> {
        let Interrupted::Failed(failure) = interrupted else {
            return None;
        };
        observer.engine_failed(job, side, &failure);
        let failure = EngineFailure {
            kind: match failure.kind {
                // Whatever went wrong before the game is not a move.
                FailureKind::IllegalMove | FailureKind::MalformedMove => FailureKind::Crash,
                kind => kind,
            },
            ..failure
        };
        Some(FinishedGame {
            job: job.clone(),
            outcome: GameOutcome {
                winner: Some(!side),
                termination: failure.kind.termination(),
                moves: Vec::new(),
                time_used: [Duration::ZERO; 2],
                failure: Some((side, failure)),
            },
            violations: Default::default(),
        })
    }
}

impl Drop for GameSlot {
    fn drop(&mut self) {
        for engine in self.idle.drain(..) {
            engine.quit();
        }
    }
}
