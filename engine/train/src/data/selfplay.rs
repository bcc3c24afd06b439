//! Self-play data generation: games from uniformly random setups or from
//! the built-in book, a few random plies, then moves chosen by fixed-node
//! searches with some randomness; at each searched ply the position at the
//! end of the principal variation is kept when it is quiet, scored by a
//! deeper search, and labelled with the game's result once the game ends.
//!
//! Move choice: the best move and, with `multipv` above 1, the next best
//! ones (each found by searching again without the moves found before, so
//! every candidate has a real search score), then a softmax over their
//! scores at `temperature` (0: always the best). Sample choice: the end of
//! the best line, where the main search handed over to the quiescence
//! search, or else the root (about a third of the line ends have the
//! wazir attacked or a capture pending). A position is kept unless the side
//! to move's wazir is attacked there, the deeper search that scores it
//! finds a capture best or a forced win (a capture sequence is pending, or
//! the evaluation is not what decides it), or the game has met it before.
//!
//! Every game is a function of the settings, the seed and its index alone
//! (each game starts with a fresh table), and games are written in index
//! order whatever the thread count, so a run is reproducible on any number
//! of threads, and a resumed run continues exactly where the file ends.

use super::engine::{Engine, Line, is_mate, safe_moves};
use super::file::{DataError, Writer};
use super::record::{GameResult, Opening, PackedPosition, Record};
use crate::replay::RecordedGame;
use leaper::book::Book;
use leaper::eval::{Eval, EvalKind};
use leaper_nnue::EvalModel;
use leaper_rules::{Color, Move, Position, Setup};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The settings that decide a run's content. A file records the settings
/// that made it, and a resumed run must use the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, clap::Args)]
pub struct Settings {
    /// Seed of all randomness: the same seed and settings give the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Nodes of each search that chooses a move.
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(100..))]
    pub move_nodes: u64,
    /// Candidate moves searched at each ply (the best, then the best of the
    /// rest, ...): the softmax chooses among them. Each costs a search.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub multipv: u32,
    /// Softmax temperature over the candidates' scores, in the engine's
    /// unit (logit x 10,000; 0: always the best). At 1000 a move 0.1 logit
    /// worse is chosen e^-1 times as often.
    #[arg(long, default_value_t = 1_000.0)]
    pub temperature: f64,
    /// Nodes of the deeper search that scores each kept position.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(100..))]
    pub score_nodes: u64,
    /// Fraction of the searched plies that offer a position to keep (each
    /// offer costs a deeper search): below 1, the same compute plays more
    /// games with fewer positions each, which are less alike. The plies
    /// that offer are drawn at random (with `--games`, the plies of the
    /// recorded games that are searched at all).
    #[arg(long, default_value_t = 1.0)]
    #[serde(default = "all_plies", skip_serializing_if = "is_all_plies")]
    pub offer_fraction: f64,
    /// Regular plies at the start of each game played uniformly at random
    /// (never a move that lets the wazir be taken at once).
    #[arg(long, default_value_t = 2)]
    pub random_plies: u32,
    /// Fraction of games that open with a setup pair from the built-in
    /// book (mirrored at random); the rest open with uniformly random
    /// setups.
    #[arg(long, default_value_t = 0.25)]
    pub book_fraction: f64,
    /// The evaluation the engine plays and scores with (the engine's
    /// `Eval` option; by default the engine's default, the best kind).
    #[arg(long, default_value = leaper::eval::DEFAULT_KIND.name())]
    pub eval: String,
    /// A model file the engine plays and scores with instead of its
    /// embedded one (the engine's `EvalFile` option): a network for
    /// `--eval nnue`, a linear model for `--eval linear`. Its content's
    /// SHA-256 is kept with the settings, so a run resumes only with the
    /// same file content.
    #[arg(long, value_name = "FILE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_file: Option<std::path::PathBuf>,
    /// The SHA-256 of `eval_file`'s content (hex), filled in by
    /// [`Settings::load_evaluator`].
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_file_sha256: Option<String>,
    /// Hash table per thread, MB (it can change the searches' results, so
    /// it is part of the settings). Each game starts by clearing it, so a
    /// small table is cheaper: 1 MB holds 65,536 entries, more than a
    /// search of some thousands of nodes stores, and generated the same
    /// file as 16 MB at `--move-nodes 600 --score-nodes 4000`, about a
    /// quarter faster.
    #[arg(long, default_value_t = 1)]
    pub hash_mb: usize,
    /// Follow the games of this record file (CodeCup transcripts or an
    /// arena `games.csv`) instead of playing new ones: the positions along
    /// each game are searched, kept and scored as in self-play and labelled
    /// with the recorded result; games that ended by a forfeit are left
    /// out. The run ends with the file's last game.
    #[arg(long, value_name = "FILE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<std::path::PathBuf>,
}

/// Every searched ply offers a position (the default, and what a file
/// whose settings do not name `offer_fraction` was made with).
fn all_plies() -> f64 {
    1.0
}

fn is_all_plies(fraction: &f64) -> bool {
    *fraction == 1.0
}

impl Settings {
    /// Checks the ranges that clap does not.
    ///
    /// # Errors
    /// A message naming the setting at fault.
    pub fn check(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.book_fraction) {
            return Err(format!("--book-fraction {} is not between 0 and 1", self.book_fraction));
        }
        if !(self.offer_fraction > 0.0 && self.offer_fraction <= 1.0) {
            return Err(format!(
                "--offer-fraction {} is not above 0 and at most 1",
                self.offer_fraction
            ));
        }
        if !(self.temperature >= 0.0 && self.temperature.is_finite()) {
            return Err(format!(
                "--temperature {} is not a finite number >= 0",
                self.temperature
            ));
        }
        if self.hash_mb == 0 {
            return Err("--hash-mb must be at least 1".into());
        }
        self.eval_kind().map(|_| ())
    }

    /// The evaluation kind `eval` names.
    fn eval_kind(&self) -> Result<EvalKind, String> {
        EvalKind::from_name(&self.eval).ok_or_else(|| {
            format!(
                "unknown evaluation '{}' (one of {})",
                self.eval,
                super::engine::eval_names().join(", ")
            )
        })
    }

    /// The evaluation the games are played and scored with: the kind
    /// `eval` names, with `eval_file`'s model when one is given. The file
    /// is read once: its content's SHA-256 goes into `eval_file_sha256`
    /// (so that the settings name the content and not only the path) and
    /// the same bytes are loaded, so the hash is that of the model played.
    ///
    /// # Errors
    /// A message when the kind is unknown, the file cannot be read or
    /// loaded, or it holds a model the kind does not evaluate with.
    pub fn load_evaluator(&mut self) -> Result<Eval, String> {
        use sha2::Digest;
        let kind = self.eval_kind()?;
        let eval = Eval::new(kind);
        let Some(path) = &self.eval_file else {
            self.eval_file_sha256 = None;
            return Ok(eval);
        };
        let bytes = std::fs::read(path).map_err(|e| format!("--eval-file {}: {e}", path.display()))?;
        let model = EvalModel::from_bytes(&bytes).map_err(|e| format!("--eval-file {}: {e}", path.display()))?;
        let digest = sha2::Sha256::digest(&bytes);
        self.eval_file_sha256 = Some(digest.iter().map(|b| format!("{b:02x}")).collect());
        let (eval, served) = eval.with_model(model);
        if served != kind {
            return Err(format!(
                "--eval-file {} holds a model for --eval {}, not for --eval {}",
                path.display(),
                served.name(),
                kind.name()
            ));
        }
        Ok(eval)
    }
}

/// One finished game's records.
#[derive(Clone, Debug)]
pub struct GameRecords {
    /// The game's index in the run.
    pub index: u64,
    /// Its kept positions, in order.
    pub records: Vec<Record>,
    /// Plies played, setups included.
    pub plies: u32,
    /// Plies chosen by search (each offers one position to keep).
    pub searched: u32,
    /// Nodes searched.
    pub nodes: u64,
}

fn game_rng(seed: u64, index: u64) -> StdRng {
    // splitmix64 of the pair, so that neighbouring seeds and indices give
    // unrelated streams.
    let mut z = seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(index)
        .wrapping_add(0x632b_e59b_d9b4_e019);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    StdRng::seed_from_u64(z ^ (z >> 31))
}

/// Whether the side to move's wazir is attacked: such a position is never
/// kept, as the search settles it by force.
pub fn wazir_attacked(pos: &Position) -> bool {
    let us = pos.turn();
    pos.wazir(us)
        .is_some_and(|wazir| pos.attackers(wazir, !us).is_nonempty())
}

/// Whether `mv` takes a piece in `pos`.
fn is_capture(pos: &Position, mv: Move) -> bool {
    !mv.is_drop() && pos.piece_at(mv.to()).is_some()
}

/// The position at the end of `pv` from `pos`, if the game goes on there.
fn line_end(pos: &Position, pv: &[Move]) -> Option<Position> {
    let mut end = pos.clone();
    for &mv in pv {
        if end.terminal().is_some() {
            return None;
        }
        end.play(mv);
    }
    end.outcome().is_none().then_some(end)
}

/// A candidate drawn by a softmax of the scores at `temperature`.
fn choose(candidates: &[(Move, i32)], temperature: f64, rng: &mut StdRng) -> Option<Move> {
    let best = candidates.iter().max_by_key(|c| c.1)?;
    if temperature <= 0.0 || candidates.len() == 1 {
        return Some(best.0);
    }
    let weights: Vec<f64> = candidates
        .iter()
        .map(|c| ((f64::from(c.1) - f64::from(best.1)) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (c, w) in candidates.iter().zip(&weights) {
        if x < *w {
            return Some(c.0);
        }
        x -= w;
    }
    Some(best.0)
}

/// Follows recorded game `index` of `games` with `engine`, keeping and
/// scoring positions as [`play_game`] does; `None` when `stop` is set
/// first or the games are done.
pub fn follow_game(
    settings: &Settings,
    index: u64,
    engine: &mut Engine,
    games: &[RecordedGame],
    stop: &AtomicBool,
) -> Option<GameRecords> {
    let game = games.get(usize::try_from(index).ok()?)?;
    engine.new_game();
    let mut pos = Position::from_setups(&game.setups.0, &game.setups.1);
    let mut kept: Vec<(PackedPosition, i32)> = Vec::new();
    let mut seen = HashSet::new();
    let mut nodes = 0;
    let mut searched = 0;
    // The game's own stream decides which plies offer (drawn only below
    // 1, so that a default run's file is what it was before the option);
    // a ply that does not offer is not searched at all.
    let mut rng = game_rng(settings.seed, index);
    for &mv in &game.moves {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let offers = settings.offer_fraction >= 1.0 || rng.random_bool(settings.offer_fraction);
        if offers && let Some(first) = engine.search(&pos, settings.move_nodes, &[]) {
            nodes += first.nodes;
            searched += 1;
            keep_quiet(settings, engine, &pos, &first, &mut kept, &mut seen, &mut nodes);
        }
        pos.play(mv);
    }
    Some(GameRecords {
        index,
        records: label(kept, game.winner, index, Opening::Recorded),
        plies: pos.ply(),
        searched,
        nodes,
    })
}

/// The kept positions of a game as records, labelled with its result.
fn label(kept: Vec<(PackedPosition, i32)>, winner: Option<Color>, index: u64, opening: Opening) -> Vec<Record> {
    let game = u32::try_from(index).unwrap_or(u32::MAX);
    kept.into_iter()
        .map(|(position, score)| Record {
            position,
            score,
            result: GameResult::for_side(winner, position.turn()),
            game,
            opening,
        })
        .collect()
}

/// Plays game `index` with `engine`; `None` when `stop` is set first.
pub fn play_game(
    settings: &Settings,
    index: u64,
    engine: &mut Engine,
    book: &Book,
    stop: &AtomicBool,
) -> Option<GameRecords> {
    let mut rng = game_rng(settings.seed, index);
    engine.new_game();
    let entries = book.entries();
    let (red, blue, opening) = if !entries.is_empty() && rng.random_bool(settings.book_fraction) {
        let mut entry = entries[rng.random_range(0..entries.len())];
        if rng.random_bool(0.5) {
            entry = entry.mirror();
        }
        (entry.red, entry.blue, Opening::Book)
    } else {
        (Setup::random(&mut rng), Setup::random(&mut rng), Opening::Random)
    };
    let mut pos = Position::from_setups(&red, &blue);
    let mut kept: Vec<(PackedPosition, i32)> = Vec::new();
    let mut seen = HashSet::new();
    let mut nodes = 0;
    let mut searched = 0;
    let winner = loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if let Some(outcome) = pos.outcome() {
            break outcome.winner;
        }
        let mv = if pos.ply() - 2 < settings.random_plies {
            let moves = safe_moves(&pos);
            moves.get(rng.random_range(0..moves.len().max(1))).copied()
        } else {
            searched += 1;
            searched_move(settings, engine, &pos, &mut rng, &mut kept, &mut seen, &mut nodes)
        };
        let Some(mv) = mv else {
            // No move while the game goes on cannot happen (`outcome`
            // covers it); score it as the rules would.
            break Some(!pos.turn());
        };
        pos.play(mv);
    };
    Some(GameRecords {
        index,
        records: label(kept, winner, index, opening),
        plies: pos.ply(),
        searched,
        nodes,
    })
}

/// A short search (a `PROBE_DIVISOR`th of a move search) looks at a line's
/// end before the deeper one scores it: when it already finds a capture
/// best, the position is dropped without paying for the deeper search.
/// About a fifth of the line ends are dropped so.
const PROBE_DIVISOR: u64 = 4;

/// Chooses the move at `pos` by search and softmax, keeping the end of the
/// best line, or else `pos` itself, scored deeper, in `kept` when it
/// qualifies.
fn searched_move(
    settings: &Settings,
    engine: &mut Engine,
    pos: &Position,
    rng: &mut StdRng,
    kept: &mut Vec<(PackedPosition, i32)>,
    seen: &mut HashSet<u64>,
    nodes: &mut u64,
) -> Option<Move> {
    let first = engine.search(pos, settings.move_nodes, &[])?;
    *nodes += first.nodes;
    let mut candidates = vec![(first.best, first.score)];
    if first.depth > 0 && !is_mate(first.score) {
        for _ in 1..settings.multipv {
            let exclude: Vec<Move> = candidates.iter().map(|c| c.0).collect();
            match engine.search(pos, settings.move_nodes, &exclude) {
                Some(line) => {
                    *nodes += line.nodes;
                    if line.depth == 0 {
                        break;
                    }
                    candidates.push((line.best, line.score));
                }
                None => break,
            }
        }
    }
    // At the default every ply offers, without a draw, so that the random
    // stream (and the file) is what it was before the option.
    if settings.offer_fraction >= 1.0 || rng.random_bool(settings.offer_fraction) {
        keep_quiet(settings, engine, pos, &first, kept, seen, nodes);
    }
    choose(&candidates, settings.temperature, rng)
}

/// Keeps the end of `first`'s line (the search of `pos`), or else `pos`
/// itself, scored deeper, in `kept` when it qualifies.
fn keep_quiet(
    settings: &Settings,
    engine: &mut Engine,
    pos: &Position,
    first: &Line,
    kept: &mut Vec<(PackedPosition, i32)>,
    seen: &mut HashSet<u64>,
    nodes: &mut u64,
) {
    if first.depth > 0 {
        // The line's end, probed first; else the root, whose search has
        // just said whether a capture is best there.
        let end = line_end(pos, &first.pv).filter(|end| {
            !wazir_attacked(end) && !seen.contains(&end.hash()) && {
                let probe = engine.search(end, (settings.move_nodes / PROBE_DIVISOR).max(100), &[]);
                *nodes += probe.as_ref().map_or(0, |p| p.nodes);
                probe.is_some_and(|p| p.depth == 0 || !is_capture(end, p.best))
            }
        });
        let candidate = end.or_else(|| {
            (!wazir_attacked(pos) && !is_capture(pos, first.best) && !seen.contains(&pos.hash())).then(|| pos.clone())
        });
        if let Some(candidate) = candidate
            && let Some(scored) = engine.search(&candidate, settings.score_nodes, &[])
        {
            *nodes += scored.nodes;
            seen.insert(candidate.hash());
            if scored.depth > 0 && !is_mate(scored.score) && !is_capture(&candidate, scored.best) {
                kept.push((PackedPosition::from_position(&candidate), scored.score));
            }
        }
    }
}

/// How a run went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Games finished and written this run.
    pub games: u64,
    /// Records written this run.
    pub records: u64,
    /// Plies of those games chosen by search: the positions offered.
    pub searched: u64,
    /// Nodes searched by those games.
    pub nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// Where a run stands, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Records in the file (including the chunk not yet written).
    pub records: u64,
    /// Games written this run.
    pub games: u64,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// The file.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A worker's engine could not be made.
    #[error("cannot set up the engine: {0}")]
    Engine(String),
    /// The record file of `--games` could not be read.
    #[error("cannot read the games to follow: {0}")]
    Games(String),
}

/// Plays games from index `first_game` on `threads` threads with `eval`
/// (from [`Settings::load_evaluator`]) and appends their records to
/// `writer`, `chunk_records` or more at a time (whole games per chunk),
/// until the file holds `target` records. Games are written in index
/// order. `on_progress` is called after every game.
///
/// # Errors
/// [`GenError`] when the file cannot be written or an engine made.
#[allow(clippy::too_many_arguments)]
pub fn generate(
    settings: &Settings,
    eval: &Eval,
    threads: usize,
    chunk_records: usize,
    writer: &mut Writer,
    first_game: u64,
    target: u64,
    mut on_progress: impl FnMut(Progress),
) -> Result<RunReport, GenError> {
    let start = Instant::now();
    let mut report = RunReport::default();
    if writer.records() >= target {
        return Ok(report);
    }
    let book = leaper::book::builtin();
    let recorded = match &settings.games {
        Some(path) => Some(
            crate::replay::read_games(path)
                .map_err(|e| GenError::Games(format!("{}: {e}", path.display())))?
                .games,
        ),
        None => None,
    };
    let recorded = recorded.as_deref();
    // Each worker searches with its own copy of the evaluator (the
    // weights are shared).
    let next = AtomicU64::new(first_game);
    let stop = AtomicBool::new(false);
    let (tx, rx) = crossbeam_channel::unbounded::<Result<GameRecords, String>>();
    let result = std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, stop, book) = (&next, &stop, &book);
            scope.spawn(move || {
                let engine = Engine::new(eval.clone(), settings.hash_mb);
                let mut engine = match engine {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let game = match recorded {
                        Some(games) => follow_game(settings, index, &mut engine, games, stop),
                        None => play_game(settings, index, &mut engine, book, stop),
                    };
                    match game {
                        Some(game) => {
                            if tx.send(Ok(game)).is_err() {
                                break;
                            }
                        }
                        None => break,
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut expect = first_game;
        let mut buffer: Vec<Record> = Vec::new();
        let outcome = 'run: {
            for game in &rx {
                let game = match game {
                    Ok(g) => g,
                    Err(e) => break 'run Err(GenError::Engine(e)),
                };
                waiting.insert(game.index, game);
                while let Some(game) = waiting.remove(&expect) {
                    expect += 1;
                    report.games += 1;
                    report.nodes += game.nodes;
                    report.searched += u64::from(game.searched);
                    buffer.extend(game.records);
                    let total = writer.records() + buffer.len() as u64;
                    on_progress(Progress {
                        records: total,
                        games: report.games,
                    });
                    if total >= target || buffer.len() >= chunk_records {
                        if let Err(e) = writer.write_chunk(&buffer) {
                            break 'run Err(e.into());
                        }
                        report.records += buffer.len() as u64;
                        buffer.clear();
                    }
                    if total >= target {
                        break 'run Ok(());
                    }
                }
            }
            // Recorded games ran out before the target: the last games
            // still go to the file.
            if !stop.load(Ordering::Relaxed) && !buffer.is_empty() {
                if let Err(e) = writer.write_chunk(&buffer) {
                    break 'run Err(e.into());
                }
                report.records += buffer.len() as u64;
            }
            Ok(())
        };
        stop.store(true, Ordering::Relaxed);
        drop(rx);
        outcome
    });
    result?;
    report.elapsed = start.elapsed();
    Ok(report)
}
