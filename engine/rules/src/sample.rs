//! Random play for tests and samplers: the positions of games played with
//! random legal moves from random setups. One generator for every crate
//! whose tests need varied positions (drops, captures, full hands, both
//! sides to move), so they all draw from the same distribution.

use super::moves::MoveList;
use super::position::Position;
use super::setup::Setup;
use rand::Rng;

/// Every position, up to but not including the end, of `games` games
/// played from random setups with uniformly random legal moves, except
/// that when captures exist one is played with probability `capture_bias`
/// (so that hands fill up). The same `rng` state gives the same positions.
pub fn random_game_positions<R: Rng + ?Sized>(rng: &mut R, games: usize, capture_bias: f64) -> Vec<Position> {
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::from_setups(&Setup::random(rng), &Setup::random(rng));
        while pos.outcome().is_none() {
            out.push(pos.clone());
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let mut caps = MoveList::new();
            pos.captures(&mut caps);
            let pool = if !caps.is_empty() && rng.random_bool(capture_bias) {
                &caps
            } else {
                &list
            };
            pos.play(pool.as_slice()[rng.random_range(0..pool.len())]);
        }
    }
    out
}
