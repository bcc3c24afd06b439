//! Time management: turning a `go`'s limits into a soft limit (do not start
//! another iteration after it) and a hard limit (stop the search at once),
//! so that a whole game fits in its clock.
//!
//! The clock is either a base with increment or a whole-game budget
//! (CodeCup: 30 s for 51 own moves, setups included). The engine knows how
//! many moves it has left before ply 102, so `movestogo` is optional. The
//! time left is shared out geometrically: each move gets
//! `TimeMoveDecayPermille` less than the one before, so the early
//! middlegame, where games are decided, gets the most; `TimeHorizonPly`
//! shares it as if the game ended earlier, since most games do. When the
//! best score drops during a search, panic mode stretches the soft limit
//! (never the hard one). Every fraction comes from [`Params`] in permill;
//! `MoveOverhead` is kept back on every move for the time the GUI and the
//! pipes take.

use super::params::Params;
use crate::rules::MAX_PLY;
use std::time::Duration;

/// The clock of the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub time: Duration,
    /// Added after each move.
    pub inc: Duration,
    /// Own moves until the clock is refilled, if the GUI says so.
    pub movestogo: Option<u32>,
}

/// The time a search may take, from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Do not start another iteration once this much of `soft` is gone.
    pub next_iteration: Duration,
    /// The target: stop after an iteration that ends beyond it.
    pub soft: Duration,
    /// Stop the search at once.
    pub hard: Duration,
}

/// The share of the time left that the current move gets when each of the
/// `moves` left gets `decay_permille` less than the one before: the first
/// term of a geometric series that sums to one.
fn geometric_share(moves: u32, decay_permille: i32) -> f64 {
    let decay = f64::from(decay_permille.clamp(0, 999)) / 1000.0;
    let moves = moves.max(1);
    if decay <= 0.0 {
        return 1.0 / f64::from(moves);
    }
    let ratio = 1.0 - decay;
    decay / (1.0 - ratio.powi(moves.min(10_000) as i32))
}

/// `p` permill of `d`, exact and saturating (a GUI may send any clock).
fn permille(d: Duration, p: i32) -> Duration {
    let nanos = d.as_nanos().saturating_mul(p.max(0) as u128) / 1000;
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// The own moves the side to move has left at `ply` (this one included):
/// the game ends after ply 102, Blue making the last move.
pub const fn own_moves_left(ply: u32) -> u32 {
    let left = MAX_PLY.saturating_sub(ply);
    left.div_ceil(2)
}

/// The fewest own moves the clock is ever shared over while more remain:
/// past the horizon a move gets about a seventh of what is left (at the
/// default decay), not all of it.
const MIN_PLANNED_MOVES: u32 = 8;

/// The own moves the time left is shared over at `ply`: those left before
/// the horizon ply (`TimeHorizonPly`), at least [`MIN_PLANNED_MOVES`],
/// never more than the `moves` that really remain. Most games end well
/// before ply 102 (lost and won ones, against Wazir Drop around ply 68), so
/// planning for all 102 plies leaves time on the clock at the end.
fn planned_moves(moves: u32, ply: u32, horizon_ply: i32) -> u32 {
    let horizon = u32::try_from(horizon_ply).unwrap_or(0).min(MAX_PLY);
    let before_horizon = horizon.saturating_sub(ply).div_ceil(2);
    before_horizon.max(MIN_PLANNED_MOVES).min(moves)
}

impl Budget {
    /// A fixed time per move (`go movetime`): all of it, less the overhead.
    pub fn fixed(movetime: Duration, overhead: Duration) -> Budget {
        let t = movetime.saturating_sub(overhead).max(Duration::from_millis(1));
        Budget {
            next_iteration: t,
            soft: t,
            hard: t,
        }
    }

    /// The budget for one move at `ply` with `clock` left.
    ///
    /// The clock keeps back, for every move still to play, the overhead
    /// (and a millisecond of slack) that the increment does not pay for,
    /// and eight overheads more; a move never uses more than
    /// `time_max_permille` of the rest. So even if every move ran to its
    /// hard limit, the clock would last the game. The rest is shared
    /// geometrically over the moves left, plus the part of the increment
    /// the overhead leaves.
    pub fn for_clock(clock: &Clock, ply: u32, overhead: Duration, params: &Params) -> Budget {
        let slack = Duration::from_millis(1);
        let moves_left = own_moves_left(ply).max(1);
        let mtg = clock.movestogo.map_or(moves_left, |m| m.clamp(1, moves_left));
        let unpaid = overhead.saturating_add(slack).saturating_sub(clock.inc);
        // Besides what the increments do not pay for, eight overheads are
        // kept back against the machine stalling the process (a loaded
        // machine delays moves by 50 to 400 ms now and then).
        let reserve = unpaid
            .saturating_mul(mtg)
            .saturating_add(overhead.saturating_mul(8))
            .saturating_add(slack);
        let available = clock.time.saturating_sub(reserve);
        // Only the part of the increment that the overhead leaves is spent.
        let inc = if mtg > 1 {
            permille(
                clock.inc.saturating_sub(overhead.saturating_add(slack)),
                params.time_inc_permille,
            )
        } else {
            Duration::ZERO
        };
        let share = geometric_share(
            planned_moves(mtg, ply, params.time_horizon_ply),
            params.time_move_decay_permille,
        );
        let base = available.mul_f64(share.clamp(0.0, 1.0)).saturating_add(inc);
        let soft = permille(base, params.time_soft_permille);
        let hard = permille(soft, params.time_hard_permille).min(permille(available, params.time_max_permille));
        let soft = soft.min(hard);
        Budget {
            next_iteration: permille(soft, params.time_next_iter_permille).max(slack),
            soft: soft.max(slack),
            hard: hard.max(slack),
        }
    }
}

impl Budget {
    /// The `(next_iteration, soft)` limits stretched by panic mode to
    /// `factor_permille` of their size, never beyond the hard limit.
    pub fn stretched(&self, factor_permille: u32) -> (Duration, Duration) {
        let factor = i32::try_from(factor_permille).unwrap_or(i32::MAX);
        (
            permille(self.next_iteration, factor).min(self.hard),
            permille(self.soft, factor).min(self.hard),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_left_count_to_ply_102() {
        assert_eq!(own_moves_left(0), 51);
        assert_eq!(own_moves_left(1), 51);
        assert_eq!(own_moves_left(2), 50);
        assert_eq!(own_moves_left(101), 1);
        assert_eq!(own_moves_left(102), 0);
    }

    /// Plays a game's moves for one side, each taking `spend(budget)` plus
    /// the overhead; returns the time left at the end, or the ply at which
    /// the flag fell.
    fn simulate(time: Duration, inc: Duration, red: bool, spend: fn(&Budget) -> Duration) -> Result<Duration, u32> {
        simulate_with(&Params::default(), time, inc, red, spend)
    }

    /// [`simulate`] with other tunables.
    fn simulate_with(
        params: &Params,
        time: Duration,
        inc: Duration,
        red: bool,
        spend: fn(&Budget) -> Duration,
    ) -> Result<Duration, u32> {
        let overhead = Duration::from_millis(10);
        let mut left = time;
        let mut ply = if red { 2 } else { 3 };
        while ply < MAX_PLY {
            let clock = Clock {
                time: left,
                inc,
                movestogo: None,
            };
            let budget = Budget::for_clock(&clock, ply, overhead, params);
            assert!(budget.next_iteration <= budget.soft && budget.soft <= budget.hard);
            let used = spend(&budget) + overhead;
            if used >= left {
                return Err(ply);
            }
            left = left - used + inc;
            ply += 2;
        }
        Ok(left)
    }

    #[test]
    fn a_clock_lasts_the_game_even_if_every_move_runs_to_its_hard_limit() {
        for (time, inc) in [(30_000, 0), (1_000, 10), (800, 0), (5_000, 100)] {
            let (time, inc) = (Duration::from_millis(time), Duration::from_millis(inc));
            for red in [true, false] {
                let left = simulate(time, inc, red, |b| b.hard);
                assert!(left.is_ok(), "{time:?}+{inc:?} red {red}: flag at ply {:?}", left.err());
                let typical = simulate(time, inc, red, |b| b.soft).unwrap_or_default();
                // Time is spent, not hoarded: at most a fifth is left over.
                assert!(typical < time / 5 + inc * 10, "{time:?}+{inc:?}: {typical:?} left");
            }
        }
    }

    #[test]
    fn a_short_horizon_moves_time_forward_and_still_lasts_the_game() {
        assert_eq!(planned_moves(50, 2, 102), 50);
        assert_eq!(planned_moves(50, 2, 80), 39);
        assert_eq!(planned_moves(12, 78, 80), MIN_PLANNED_MOVES);
        assert_eq!(planned_moves(3, 96, 80), 3);
        assert_eq!(planned_moves(5, 2, 102), 5, "movestogo is never exceeded");
        let short = Params {
            time_horizon_ply: 80,
            ..Params::default()
        };
        let clock = Clock {
            time: Duration::from_millis(4_000),
            inc: Duration::ZERO,
            movestogo: None,
        };
        let plan = |params: &Params, ply| Budget::for_clock(&clock, ply, Duration::from_millis(10), params).soft;
        // The same clock at ply 40: more now when the game is planned to
        // end at ply 80, the same once the horizon's floor and the real
        // moves left agree.
        assert!(plan(&short, 40) > plan(&Params::default(), 40));
        assert_eq!(plan(&short, 90), plan(&Params::default(), 90));
        for (time, inc) in [(5_000, 0), (30_000, 0), (1_000, 10)] {
            let (time, inc) = (Duration::from_millis(time), Duration::from_millis(inc));
            for red in [true, false] {
                let left = simulate_with(&short, time, inc, red, |b| b.hard);
                assert!(left.is_ok(), "{time:?}+{inc:?} red {red}: flag at ply {:?}", left.err());
            }
        }
    }

    #[test]
    fn absurd_clocks_do_not_overflow() {
        let clock = Clock {
            time: Duration::from_millis(u64::MAX),
            inc: Duration::from_millis(u64::MAX),
            movestogo: Some(u32::MAX),
        };
        let budget = Budget::for_clock(&clock, 2, Duration::from_millis(u64::MAX), &Params::default());
        assert!(budget.soft <= budget.hard);
        let budget = Budget::for_clock(&clock, 2, Duration::ZERO, &Params::default());
        assert!(budget.hard > Duration::from_secs(1));
    }

    #[test]
    fn time_is_shared_geometrically() {
        let params = Params::default();
        let clock = |ms| Clock {
            time: Duration::from_millis(ms),
            inc: Duration::ZERO,
            movestogo: None,
        };
        let early = Budget::for_clock(&clock(29_000), 4, Duration::ZERO, &params);
        let late = Budget::for_clock(&clock(29_000), 80, Duration::ZERO, &params);
        // The same clock lasts fewer moves late in the game, so each gets
        // more; early moves still get more than an equal share.
        assert!(late.soft > early.soft, "{early:?} {late:?}");
        assert!(early.soft > Duration::from_millis(29_000 / 50), "{early:?}");
        let (next, soft) = early.stretched(4000);
        assert!(soft <= early.hard && next <= soft && soft > early.soft);
    }

    #[test]
    fn increments_are_spent() {
        let params = Params::default();
        let clock = Clock {
            time: Duration::from_millis(1000),
            inc: Duration::from_millis(100),
            movestogo: None,
        };
        let budget = Budget::for_clock(&clock, 10, Duration::ZERO, &params);
        assert!(budget.soft > Duration::from_millis(75), "{budget:?}");
        assert!(budget.hard <= Duration::from_millis(400));
    }
}
