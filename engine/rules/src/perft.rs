//! Perft: counting move sequences of a fixed length, the standard check of a
//! move generator against independent implementations.
//!
//! A sequence counts if it has exactly `depth` plies; a finished game (wazir
//! captured, ply 102) has no moves. The last ply is counted, not generated
//! ("bulk counting"), and in the setup phase depth 1 is the number of setups.

use super::moves::{GameMove, MoveList};
use super::position::Position;
use super::setup::{SETUP_COUNT, Setup};

/// The number of move sequences of exactly `depth` plies from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.terminal().is_some() {
        return 0;
    }
    if pos.is_setup_phase() {
        if depth == 1 {
            return SETUP_COUNT as u64;
        }
        return Setup::all()
            .map(|setup| {
                let mut child = pos.clone();
                child.play_setup(&setup);
                perft(&child, depth - 1)
            })
            .sum();
    }
    if depth == 1 {
        return pos.count_moves();
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().map(|&mv| perft(&pos.after(mv), depth - 1)).sum()
}

/// Perft split by root move: each legal root move with its count, in
/// generation order (every setup in rank order during the setup phase).
/// `visit` receives each root move and its count as they are computed, so a
/// caller can print the 10,810,800 setup lines without holding them.
pub fn perft_divide(pos: &Position, depth: u32, mut visit: impl FnMut(GameMove, u64)) -> u64 {
    let mut total = 0;
    if depth == 0 || pos.terminal().is_some() {
        return perft(pos, depth);
    }
    if pos.is_setup_phase() {
        for setup in Setup::all() {
            let mut child = pos.clone();
            child.play_setup(&setup);
            let n = perft(&child, depth - 1);
            visit(GameMove::Setup(setup), n);
            total += n;
        }
        return total;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    for &mv in &list {
        let n = perft(&pos.after(mv), depth - 1);
        visit(GameMove::Move(mv), n);
        total += n;
    }
    total
}

/// [`perft`] on `threads` threads, splitting the root moves (or, in the
/// setup phase, the ranks of the setups) between them. Same result.
pub fn perft_parallel(pos: &Position, depth: u32, threads: usize) -> u64 {
    let threads = threads.max(1);
    if threads == 1 || depth < 2 || pos.terminal().is_some() {
        return perft(pos, depth);
    }
    if pos.is_setup_phase() {
        let chunk = SETUP_COUNT.div_ceil(threads as u32);
        return std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads as u32)
                .map(|t| {
                    s.spawn(move || {
                        let (start, end) = (t * chunk, ((t + 1) * chunk).min(SETUP_COUNT));
                        let first = Setup::unrank(start);
                        std::iter::successors(first, Setup::next)
                            .take(end.saturating_sub(start) as usize)
                            .map(|setup| {
                                let mut child = pos.clone();
                                child.play_setup(&setup);
                                perft(&child, depth - 1)
                            })
                            .sum::<u64>()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
        });
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let moves = list.as_slice();
    let chunk = moves.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let workers: Vec<_> = moves
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|&mv| perft(&pos.after(mv), depth - 1)).sum::<u64>()))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    })
}

/// A perft test case: a position reached by moves from the empty board and
/// its expected counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    /// Its name (`id` line).
    pub id: String,
    /// Every move from the empty board (`moves` line).
    pub moves: String,
    /// `(depth, count)` pairs (`perft` lines).
    pub counts: Vec<(u32, u64)>,
}

/// Reads perft cases in the format of `data/perft-sample.txt`: blocks of
/// `id`, `moves` and `perft <depth> <count>` lines; `#` starts a comment.
/// A malformed line is an error naming its line number.
pub fn parse_perft_cases(text: &str) -> Result<Vec<PerftCase>, String> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let at = || format!("line {}: '{line}'", i + 1);
        match key {
            "id" => cases.push(PerftCase {
                id: rest.trim().to_string(),
                moves: String::new(),
                counts: Vec::new(),
            }),
            "moves" | "perft" => {
                let case = cases
                    .last_mut()
                    .ok_or_else(|| format!("{}: no 'id' line before it", at()))?;
                if key == "moves" {
                    case.moves = rest.trim().to_string();
                } else {
                    let mut nums = rest.split_whitespace().map(str::parse::<u64>);
                    match (nums.next(), nums.next(), nums.next()) {
                        (Some(Ok(depth)), Some(Ok(count)), None) if depth < 64 => {
                            case.counts.push((depth as u32, count))
                        }
                        _ => return Err(format!("{}: expected 'perft <depth> <count>'", at())),
                    }
                }
            }
            _ => return Err(format!("{}: unknown key '{key}'", at())),
        }
    }
    Ok(cases)
}
