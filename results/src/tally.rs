//! Typed tallies of match results: [`Trinomial`] counts single games,
//! [`Pentanomial`] counts game pairs (the same opening played with the
//! colours swapped). Both add, so results from many workers or files merge by
//! summing; the [`Tally`] trait lets the estimates and the SPRT take either.

use std::iter::Sum;
use std::ops::{Add, AddAssign};

use crate::estimate::{Estimates, estimates_of};
use crate::mle::Frequencies;

/// The result of one game from one player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player won.
    Win,
    /// The game was drawn.
    Draw,
    /// The player lost.
    Loss,
}

impl Outcome {
    /// The points the player scored: 1, 1/2 or 0.
    #[must_use]
    pub fn score(self) -> f64 {
        match self {
            Self::Win => 1.0,
            Self::Draw => 0.5,
            Self::Loss => 0.0,
        }
    }

    /// The same game seen from the opponent's side.
    #[must_use]
    pub fn reversed(self) -> Self {
        match self {
            Self::Win => Self::Loss,
            Self::Draw => Self::Draw,
            Self::Loss => Self::Win,
        }
    }

    /// Half-points scored: 2, 1 or 0.
    fn half_points(self) -> u8 {
        match self {
            Self::Win => 2,
            Self::Draw => 1,
            Self::Loss => 0,
        }
    }
}

/// Wins, draws and losses of single games, from one player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Trinomial {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Trinomial {
    /// A tally with the given counts.
    #[must_use]
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Self { wins, draws, losses }
    }

    /// Counts one more game.
    pub fn record(&mut self, outcome: Outcome) {
        let slot = match outcome {
            Outcome::Win => &mut self.wins,
            Outcome::Draw => &mut self.draws,
            Outcome::Loss => &mut self.losses,
        };
        *slot = slot.saturating_add(1);
    }

    /// The same games seen from the opponent's side.
    #[must_use]
    pub fn reversed(self) -> Self {
        Self::new(self.losses, self.draws, self.wins)
    }

    /// The counts from the lowest score to the highest: losses, draws, wins.
    pub(crate) fn low_to_high(self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }
}

/// Game pairs by the points the player scored in the pair: `ll` (0),
/// `ld` (1/2), `dd` (1), `wd` (3/2) and `ww` (2).
///
/// A pair with one win and one loss also scores 1 and is counted in `dd`, as
/// fishtest does: only the pair's score matters to the statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    /// Pairs with two losses.
    pub ll: u64,
    /// Pairs with a loss and a draw.
    pub ld: u64,
    /// Pairs with two draws, or a win and a loss.
    pub dd: u64,
    /// Pairs with a win and a draw.
    pub wd: u64,
    /// Pairs with two wins.
    pub ww: u64,
}

impl Pentanomial {
    /// A tally with the given counts, from the worst pair to the best.
    #[must_use]
    pub fn new(ll: u64, ld: u64, dd: u64, wd: u64, ww: u64) -> Self {
        Self { ll, ld, dd, wd, ww }
    }

    /// Counts one more pair, from the outcomes of its two games.
    pub fn record_pair(&mut self, first: Outcome, second: Outcome) {
        let slot = match first.half_points() + second.half_points() {
            0 => &mut self.ll,
            1 => &mut self.ld,
            2 => &mut self.dd,
            3 => &mut self.wd,
            _ => &mut self.ww,
        };
        *slot = slot.saturating_add(1);
    }

    /// The number of pairs.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.low_to_high().iter().fold(0u64, |sum, &n| sum.saturating_add(n))
    }

    /// The same pairs seen from the opponent's side.
    #[must_use]
    pub fn reversed(self) -> Self {
        Self::new(self.ww, self.wd, self.dd, self.ld, self.ll)
    }

    /// The counts from the lowest pair score to the highest.
    pub(crate) fn low_to_high(self) -> [u64; 5] {
        [self.ll, self.ld, self.dd, self.wd, self.ww]
    }
}

mod sealed {
    use crate::mle::Frequencies;

    /// Keeps [`super::Tally`] to the two tallies of this crate.
    pub trait Sealed {
        fn frequencies(&self) -> Frequencies;
    }
}

/// The frequencies of any tally, for the statistics in this crate.
pub(crate) fn frequencies_of<T: Tally + ?Sized>(tally: &T) -> Frequencies {
    tally.frequencies()
}

/// A tally the statistics accept: [`Trinomial`] or [`Pentanomial`].
pub trait Tally: sealed::Sealed {
    /// The number of games counted (twice the pairs for a pentanomial).
    fn games(&self) -> u64;

    /// The number of pairs counted, or `None` for single games.
    fn pairs(&self) -> Option<u64>;

    /// Elo, nElo, LOS, draw ratio and score, with 95% intervals.
    fn estimates(&self) -> Estimates {
        estimates_of(self.frequencies(), self.games(), self.pairs())
    }
}

impl sealed::Sealed for Trinomial {
    fn frequencies(&self) -> Frequencies {
        Frequencies::Trinomial(self.low_to_high())
    }
}

impl Tally for Trinomial {
    fn games(&self) -> u64 {
        self.wins.saturating_add(self.draws).saturating_add(self.losses)
    }

    fn pairs(&self) -> Option<u64> {
        None
    }
}

impl sealed::Sealed for Pentanomial {
    fn frequencies(&self) -> Frequencies {
        Frequencies::Pentanomial(self.low_to_high())
    }
}

impl Tally for Pentanomial {
    fn games(&self) -> u64 {
        self.pairs().saturating_mul(2)
    }

    fn pairs(&self) -> Option<u64> {
        Some(Pentanomial::pairs(self))
    }
}

// Counts saturate rather than wrap or panic: no real match comes near
// u64::MAX games, and a saturated count is still a finite, usable input.
impl Add for Trinomial {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self::new(
            self.wins.saturating_add(rhs.wins),
            self.draws.saturating_add(rhs.draws),
            self.losses.saturating_add(rhs.losses),
        )
    }
}

impl AddAssign for Trinomial {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl Sum for Trinomial {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), Add::add)
    }
}

impl Add for Pentanomial {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self::new(
            self.ll.saturating_add(rhs.ll),
            self.ld.saturating_add(rhs.ld),
            self.dd.saturating_add(rhs.dd),
            self.wd.saturating_add(rhs.wd),
            self.ww.saturating_add(rhs.ww),
        )
    }
}

impl AddAssign for Pentanomial {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl Sum for Pentanomial {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_add_field_by_field() {
        let a = Trinomial::new(1, 2, 3);
        let b = Trinomial::new(10, 20, 30);
        assert_eq!(a + b, Trinomial::new(11, 22, 33));
        let mut c = a;
        c += b;
        assert_eq!(c, a + b);
        assert_eq!([a, b].into_iter().sum::<Trinomial>(), a + b);

        let p = Pentanomial::new(1, 2, 3, 4, 5);
        let q = Pentanomial::new(5, 4, 3, 2, 1);
        assert_eq!(p + q, Pentanomial::new(6, 6, 6, 6, 6));
        assert_eq!([p, q].into_iter().sum::<Pentanomial>(), p + q);
        assert_eq!(p.pairs(), 15);
        assert_eq!(Tally::games(&p), 30);
    }

    #[test]
    fn addition_saturates_instead_of_panicking() {
        let big = Trinomial::new(u64::MAX, 0, 0);
        assert_eq!((big + big).wins, u64::MAX);
        assert_eq!(Tally::games(&Trinomial::new(u64::MAX, 1, 1)), u64::MAX);
    }

    #[test]
    fn a_win_and_a_loss_make_a_dd_pair() {
        let mut p = Pentanomial::default();
        p.record_pair(Outcome::Win, Outcome::Loss);
        p.record_pair(Outcome::Draw, Outcome::Draw);
        p.record_pair(Outcome::Loss, Outcome::Draw);
        p.record_pair(Outcome::Win, Outcome::Win);
        p.record_pair(Outcome::Draw, Outcome::Win);
        p.record_pair(Outcome::Loss, Outcome::Loss);
        assert_eq!(p, Pentanomial::new(1, 1, 2, 1, 1));
    }

    #[test]
    fn reversal_swaps_the_sides() {
        assert_eq!(Trinomial::new(3, 2, 1).reversed(), Trinomial::new(1, 2, 3));
        assert_eq!(
            Pentanomial::new(1, 2, 3, 4, 5).reversed(),
            Pentanomial::new(5, 4, 3, 2, 1)
        );
        assert_eq!(Outcome::Win.reversed(), Outcome::Loss);
    }
}
