//! Self-play games for fitting the evaluation: random setups for both
//! sides, a few random (but not wazir-losing) opening moves for variety,
//! then a fixed-depth or fixed-node search for every move. Quiet positions
//! met along the way are kept with the search score and the game's result.
//!
//! Each searched move gives at most one sample: the root when it is quiet,
//! else the end of the principal variation when that is.
//! A position is quiet when the side to move can capture nothing and its
//! wazir is not attacked: exactly where the quiescence search takes the
//! static evaluation as the position's value, so these are the positions
//! the evaluation has to get right. Games run on several threads; each
//! game's randomness comes from the seed and its index alone, so a run is
//! reproducible whatever the thread count.
//!
//! The record is text, one position per line (`<fen>;<score>;<result>;<game>`:
//! score in logit x 10,000 for the side to move, result `1-0`, `0-1` or
//! `1/2-1/2`), each game preceded by `# game <index> <result> <moves...>`,
//! which the rules can replay.

use leaper::eval::Eval;
use leaper::search::{Limits, Searcher, Signals, TableError, can_capture_wazir, is_mate, setup_candidates};
use leaper_rules::{Color, GameMove, Move, MoveList, Outcome, Position, Role, Setup, leaps};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How to play the games.
#[derive(Clone, Debug)]
pub struct Config {
    /// Games to play.
    pub games: usize,
    /// Search depth per move (used when `nodes` is `None`, 4 if neither).
    pub depth: Option<u32>,
    /// Nodes per move.
    pub nodes: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// Seed of all randomness.
    pub seed: u64,
    /// Regular plies played at random (never letting the wazir be taken).
    pub random_plies: u32,
    /// The evaluation the engine plays with.
    pub eval: Eval,
    /// Hash table per thread, MB.
    pub hash_mb: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            games: 10,
            depth: Some(4),
            nodes: None,
            threads: 1,
            seed: 1,
            random_plies: 4,
            eval: Eval::default(),
            hash_mb: 8,
        }
    }
}

/// A quiet position of a game and the search's score for its side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The position.
    pub fen: String,
    /// The search score for its side to move, logit x 10,000 (mates as the
    /// search reports them).
    pub score: i32,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct Game {
    /// Its index in the run.
    pub index: usize,
    /// Every move, setups first, in CodeCup notation.
    pub moves: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// Its quiet positions.
    pub samples: Vec<Sample>,
}

impl Game {
    /// The game as record lines: the `# game` line, then one line per
    /// sample.
    pub fn to_text(&self) -> String {
        let result = self.outcome.result_text();
        let mut out = format!("# game {} {} {}\n", self.index, result, self.moves.join(" "));
        for s in &self.samples {
            let _ = writeln!(out, "{};{};{};{}", s.fen, s.score, result, self.index);
        }
        out
    }
}

/// Whether the side to move can capture nothing and its wazir is safe.
pub fn is_quiet(pos: &Position) -> bool {
    let us = pos.turn();
    let own = pos.pieces_of(us);
    let enemy = pos.pieces_of(!us);
    if let Some(wazir) = pos.wazir(us)
        && pos.attackers(wazir, !us).is_nonempty()
    {
        return false;
    }
    !Role::ALL
        .into_iter()
        .any(|role| (pos.role_squares(role) & own).any(|from| (leaps(role, from) & enemy).is_nonempty()))
}

/// The sample a search yields: the root if it is quiet, else the end of
/// the principal variation if that is (where the quiescence search stood
/// pat), with the root score seen from that position's side to move.
/// Mate scores and finished games give none.
fn quiet_sample(root: &Position, pv: &[GameMove], score: i32) -> Option<Sample> {
    if is_mate(score) {
        return None;
    }
    if is_quiet(root) {
        return Some(Sample {
            fen: root.to_fen(),
            score,
        });
    }
    let mut pos = root.clone();
    for mv in pv {
        match mv {
            GameMove::Move(m) if pos.terminal().is_none() => pos.play(*m),
            _ => return None,
        }
    }
    if pos.outcome().is_some() || !is_quiet(&pos) {
        return None;
    }
    let score = if pv.len().is_multiple_of(2) { score } else { -score };
    Some(Sample {
        fen: pos.to_fen(),
        score,
    })
}

/// A random regular move after which the opponent cannot take the wazir,
/// if there is one (else any move).
fn random_move(pos: &Position, rng: &mut StdRng) -> Option<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let safe: Vec<Move> = list
        .iter()
        .copied()
        .filter(|&m| can_capture_wazir(&pos.after(m)).is_none())
        .collect();
    let pool = if safe.is_empty() { list.as_slice() } else { &safe };
    if pool.is_empty() {
        return None;
    }
    pool.get(rng.random_range(0..pool.len())).copied()
}

/// Plays game `index` of a run.
///
/// # Errors
/// [`TableError`] when the hash table cannot be had.
pub fn play_game(config: &Config, index: usize) -> Result<Game, TableError> {
    let mut rng = StdRng::seed_from_u64(config.seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut searcher = Searcher::with_evaluator(config.eval.clone(), config.hash_mb)?;
    let mut pos = Position::new();
    let mut moves = Vec::new();
    let mut red = None;
    for color in Color::ALL {
        // Mostly setups the engine's own heuristic likes (as real games
        // have), a quarter uniformly random, for variety.
        let setup = if rng.random_bool(0.75) {
            let finalists = setup_candidates(&mut rng, color, red.as_ref(), 40, 8);
            match finalists.get(rng.random_range(0..finalists.len().max(1))) {
                Some(&(setup, _)) => setup,
                None => Setup::random(&mut rng),
            }
        } else {
            Setup::random(&mut rng)
        };
        red = Some(setup);
        moves.push(GameMove::Setup(setup).to_text(color));
        pos.play_setup(&setup);
    }
    let mut samples = Vec::new();
    let limits = Limits {
        depth: if config.nodes.is_none() {
            Some(config.depth.unwrap_or(4))
        } else {
            config.depth
        },
        nodes: config.nodes,
        ..Limits::default()
    };
    let signals = Signals::default();
    let outcome = loop {
        if let Some(outcome) = pos.outcome() {
            break outcome;
        }
        let regular = pos.ply() - 2;
        let mv = if regular < config.random_plies {
            random_move(&pos, &mut rng)
        } else {
            let limits = Limits {
                start: std::time::Instant::now(),
                ..limits.clone()
            };
            let result = searcher.search(&pos, &limits, &signals, &mut ());
            if let Some(sample) = quiet_sample(&pos, &result.pv, result.score) {
                samples.push(sample);
            }
            match result.best {
                Some(GameMove::Move(m)) => Some(m),
                _ => None,
            }
        };
        let Some(mv) = mv else {
            // No move although the game goes on: cannot happen (outcome
            // covers it); end the game as the rules would.
            break Outcome {
                winner: Some(!pos.turn()),
                reason: leaper_rules::EndReason::NoLegalMove,
            };
        };
        moves.push(mv.display(pos.turn()).to_string());
        pos.play(mv);
    };
    Ok(Game {
        index,
        moves,
        outcome,
        samples,
    })
}

/// Plays `config.games` games on `config.threads` threads, handing each
/// finished game to `on_game` (on the calling thread, in the order they
/// finish).
///
/// # Errors
/// [`TableError`] when a hash table cannot be had.
pub fn run(config: &Config, mut on_game: impl FnMut(Game)) -> Result<(), TableError> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games {
                        break;
                    }
                    let game = play_game(config, index);
                    let failed = game.is_err();
                    if tx.send(game).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for game in rx {
            on_game(game?);
        }
        Ok(())
    })
}
