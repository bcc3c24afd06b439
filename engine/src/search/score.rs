//! Search scores: logit x 10,000 for ordinary positions, and a band near
//! ±[`MATE`] for positions where a wazir capture is forced, counted in
//! plies from the root so that a quicker capture scores higher.

/// The score of capturing the enemy wazir at the root itself; a capture
/// `n` plies below the root scores `MATE - n`.
pub const MATE: i32 = 1_000_000;

/// Scores beyond ±`MATE_BOUND` are forced wazir captures.
pub const MATE_BOUND: i32 = MATE - 1_000;

/// Larger than any score.
pub const INFINITY: i32 = MATE + 1;

/// The score for the side to move when the enemy wazir falls `ply` plies
/// below the root.
#[inline]
pub const fn win_at(ply: i32) -> i32 {
    MATE - ply
}

/// The score for the side to move when its own wazir falls (or it is left
/// without a move) `ply` plies below the root.
#[inline]
pub const fn loss_at(ply: i32) -> i32 {
    -MATE + ply
}

/// Whether a score announces a forced wazir capture, by either side.
#[inline]
pub const fn is_mate(score: i32) -> bool {
    score.abs() > MATE_BOUND
}

/// A score as the protocol reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreReport {
    /// 100 per logit (score / 100).
    Cp(i32),
    /// The side to move captures the wazir on its n-th move; negative: its
    /// own wazir falls after n moves of the opponent.
    Mate(i32),
}

impl ScoreReport {
    /// The report of a root score.
    pub const fn from_score(score: i32) -> ScoreReport {
        if score > MATE_BOUND {
            // A capture on ply d of the line is the mover's ((d + 1) / 2)-th move.
            ScoreReport::Mate((MATE - score + 1) / 2)
        } else if score < -MATE_BOUND {
            ScoreReport::Mate(-((MATE + score) / 2))
        } else {
            ScoreReport::Cp(score / 100)
        }
    }
}

/// A mate score as stored in the table: relative to the stored position
/// rather than to the root.
#[inline]
pub const fn to_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score + ply
    } else if score < -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// A stored score brought back relative to the root.
#[inline]
pub const fn from_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score - ply
    } else if score < -MATE_BOUND {
        score + ply
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances_count_own_moves() {
        // Capturing at once is mate in 1; after our move, their move and our
        // capture (ply 3) it is mate in 2.
        assert_eq!(ScoreReport::from_score(win_at(1)), ScoreReport::Mate(1));
        assert_eq!(ScoreReport::from_score(win_at(3)), ScoreReport::Mate(2));
        // Our wazir falls on ply 2 (their first move): mated in 1.
        assert_eq!(ScoreReport::from_score(loss_at(2)), ScoreReport::Mate(-1));
        assert_eq!(ScoreReport::from_score(loss_at(4)), ScoreReport::Mate(-2));
        assert_eq!(ScoreReport::from_score(12_345), ScoreReport::Cp(123));
        assert_eq!(from_table(to_table(win_at(7), 3), 3), win_at(7));
    }
}
