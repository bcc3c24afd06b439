//! `go perft` for the server: the rules' perft, split by root move, but
//! checking the stop flag at every node so that `stop` (or a new command)
//! ends even a count that would take days, such as depth 3 from the empty
//! board. The counting rules are those of [`crate::rules::perft`], which
//! the tests compare it with.

use crate::rules::{GameMove, MoveList, Position, SETUP_COUNT, Setup};
use std::sync::atomic::{AtomicBool, Ordering};

fn count(pos: &Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth == 0 {
        return Some(1);
    }
    if pos.terminal().is_some() {
        return Some(0);
    }
    if pos.is_setup_phase() {
        if depth == 1 {
            return Some(u64::from(SETUP_COUNT));
        }
        let mut total = 0;
        for setup in Setup::all() {
            let mut child = pos.clone();
            child.play_setup(&setup);
            total += count(&child, depth - 1, stop)?;
        }
        return Some(total);
    }
    if depth == 1 {
        return Some(pos.count_moves());
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut total = 0;
    for &mv in &list {
        total += count(&pos.after(mv), depth - 1, stop)?;
    }
    Some(total)
}

/// The number of move sequences of exactly `depth` plies from `pos`,
/// passing each root move and its count to `visit` as they are found.
/// `None` if `stop` was set before the end.
pub fn perft_stoppable(
    pos: &Position,
    depth: u32,
    stop: &AtomicBool,
    mut visit: impl FnMut(GameMove, u64),
) -> Option<u64> {
    if depth == 0 || pos.terminal().is_some() {
        return count(pos, depth, stop);
    }
    let mut total = 0;
    if pos.is_setup_phase() {
        for setup in Setup::all() {
            let mut child = pos.clone();
            child.play_setup(&setup);
            let n = count(&child, depth - 1, stop)?;
            visit(GameMove::Setup(setup), n);
            total += n;
        }
        return Some(total);
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    for &mv in &list {
        let n = count(&pos.after(mv), depth - 1, stop)?;
        visit(GameMove::Move(mv), n);
        total += n;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{SetupCase, perft};

    #[test]
    fn counts_agree_with_the_rules_and_stop_works() {
        let mut pos = Position::new();
        for text in ["AWNAADADAFFAADDA", "aaaaaffdaddadnwa", "b5d3"] {
            let mv = pos.parse_move(text, SetupCase::Strict).unwrap();
            pos.play_game_move(&mv);
        }
        let go = AtomicBool::new(false);
        for depth in 0..=3 {
            let mut sum = 0;
            let total = perft_stoppable(&pos, depth, &go, |_, n| sum += n);
            assert_eq!(total, Some(perft(&pos, depth)), "depth {depth}");
            assert!(depth == 0 || sum == perft(&pos, depth));
        }
        let stop = AtomicBool::new(true);
        assert_eq!(perft_stoppable(&Position::new(), 3, &stop, |_, _| {}), None);
    }
}
