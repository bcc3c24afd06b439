//! Ratings for more than two players (a gauntlet, a round robin): the
//! maximum-likelihood logistic Elo of every player from all pairwise results
//! at once, anchored at a chosen player, with 95% intervals.
//!
//! Each game scores `s` in {0, 1/2, 1}; the likelihood is that of the
//! Bradley-Terry (logistic) model with a draw counted as half a win, the
//! model whose two-player solution is exactly the Elo of the score. Zero
//! counts within a pairing are regularized as fishtest does (0.001), which
//! keeps every rating finite even for a player that won every game. The
//! intervals use the sandwich covariance, with each pairing's observed
//! spread of scores, so that draws shrink them as they do for two players.

use std::collections::{BTreeMap, HashMap, VecDeque};

use thiserror::Error;

use crate::elo::elo_from_score;
use crate::normal::Z95;
use crate::tally::{Outcome, Tally, Trinomial};

/// The Elo scale factor: `E = 1 / (1 + exp(-C * diff))`.
const C: f64 = std::f64::consts::LN_10 / 400.0;

/// Newton iterations allowed; the log-likelihood is concave, so a dozen or
/// two reach machine precision from any start.
const NEWTON_STEPS: usize = 200;

/// Halvings of a Newton step allowed while it fails to raise the
/// likelihood.
const LINE_SEARCH_STEPS: usize = 60;

/// Results between pairs of players, each pairing kept once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Crosstable {
    players: Vec<String>,
    index: HashMap<String, usize>,
    /// Keyed by `(i, j)` with `i < j`, counted from player `i`'s side.
    pairings: BTreeMap<(usize, usize), Trinomial>,
}

impl Crosstable {
    /// An empty table.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn player_index(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.players.push(name.to_owned());
        self.index.insert(name.to_owned(), self.players.len() - 1);
        self.players.len() - 1
    }

    /// Adds `tally`, counted from `player`'s side, to the results between
    /// `player` and `opponent`. Games of a player against itself, and empty
    /// tallies, are ignored.
    pub fn add(&mut self, player: &str, opponent: &str, tally: Trinomial) {
        if player == opponent || tally.games() == 0 {
            return;
        }
        let (i, j) = (self.player_index(player), self.player_index(opponent));
        let (key, tally) = if i < j {
            ((i, j), tally)
        } else {
            ((j, i), tally.reversed())
        };
        *self.pairings.entry(key).or_default() += tally;
    }

    /// Adds one game with the given outcome for `player`.
    pub fn record(&mut self, player: &str, opponent: &str, outcome: Outcome) {
        let mut tally = Trinomial::default();
        tally.record(outcome);
        self.add(player, opponent, tally);
    }

    /// The players, in the order they first appeared.
    #[must_use]
    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// The results of `player` against `opponent`, from `player`'s side.
    #[must_use]
    pub fn between(&self, player: &str, opponent: &str) -> Trinomial {
        let (Some(&i), Some(&j)) = (self.index.get(player), self.index.get(opponent)) else {
            return Trinomial::default();
        };
        if i < j {
            self.pairings.get(&(i, j)).copied().unwrap_or_default()
        } else {
            self.pairings.get(&(j, i)).map(|t| t.reversed()).unwrap_or_default()
        }
    }

    /// All results of `player`, against everybody.
    #[must_use]
    pub fn total(&self, player: &str) -> Trinomial {
        self.players.iter().map(|opponent| self.between(player, opponent)).sum()
    }

    /// Merges another table into this one.
    pub fn merge(&mut self, other: &Crosstable) {
        for (&(i, j), &tally) in &other.pairings {
            self.add(&other.players[i], &other.players[j], tally);
        }
    }
}

/// One player's line in a [`RatingTable`].
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// The player's name.
    pub player: String,
    /// Logistic Elo relative to the anchor (which has 0).
    pub elo: f64,
    /// Half-width of the 95% interval of `elo`, relative to the anchor
    /// (0 for the anchor itself).
    pub elo_ci95: f64,
    /// All the player's games, from its side.
    pub tally: Trinomial,
    /// The player's mean score over its games, in `[0, 1]` (1/2 when it has
    /// none).
    pub score: f64,
}

/// Ratings of all players, strongest first.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingTable {
    /// The player fixed at 0 Elo.
    pub anchor: String,
    /// One line per player, by decreasing Elo.
    pub ratings: Vec<Rating>,
}

/// Why no rating table could be computed.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RatingError {
    /// The anchor has played no game in the table.
    #[error("anchor {0:?} has played no game")]
    UnknownAnchor(String),
    /// A player is not linked to the anchor by any chain of games, so its
    /// rating relative to the anchor is undefined.
    #[error("player {player:?} is not linked to the anchor by any chain of games")]
    Disconnected {
        /// The first such player.
        player: String,
    },
}

/// One pairing, regularized, as the solver sees it.
#[derive(Clone, Copy, Debug)]
struct Pairing {
    i: usize,
    j: usize,
    games: f64,
    /// Points of player `i`.
    points: f64,
    /// Regularized counts from `i`'s side: (wins, draws, losses).
    counts: (f64, f64, f64),
}

/// `ln(1 / (1 + exp(-x)))` without overflow.
fn ln_sigmoid(x: f64) -> f64 {
    if x > 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

fn log_likelihood(pairings: &[Pairing], r: &[f64]) -> f64 {
    pairings
        .iter()
        .map(|p| {
            let x = C * (r[p.i] - r[p.j]);
            p.points * ln_sigmoid(x) + (p.games - p.points) * ln_sigmoid(-x)
        })
        .sum()
}

/// Solves `a * x = b` by Gaussian elimination with partial pivoting; `None`
/// when `a` is singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col].clone();
        for row in col + 1..n {
            let factor = a[row][col] / pivot_row[col];
            if factor != 0.0 {
                for (x, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= factor * p;
                }
                b[row] -= factor * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Maximum-likelihood ratings of every player in `table`, relative to
/// `anchor`.
///
/// # Errors
/// [`RatingError::UnknownAnchor`] when the anchor has no game in the table;
/// [`RatingError::Disconnected`] when some player is not linked to the
/// anchor through games.
pub fn rating_table(table: &Crosstable, anchor: &str) -> Result<RatingTable, RatingError> {
    let Some(&anchor_index) = table.index.get(anchor) else {
        return Err(RatingError::UnknownAnchor(anchor.to_owned()));
    };
    let n = table.players.len();
    check_connected(table, anchor_index)?;

    let pairings: Vec<Pairing> = table
        .pairings
        .iter()
        .map(|(&(i, j), t)| {
            #[allow(clippy::cast_precision_loss)]
            let reg = |c: u64| if c == 0 { 1e-3 } else { c as f64 };
            let (w, d, l) = (reg(t.wins), reg(t.draws), reg(t.losses));
            Pairing {
                i,
                j,
                games: w + d + l,
                points: w + d / 2.0,
                counts: (w, d, l),
            }
        })
        .collect();

    // Free parameters: every player but the anchor, in table order.
    let free: Vec<usize> = (0..n).filter(|&k| k != anchor_index).collect();
    let slot = |player: usize| free.iter().position(|&k| k == player);

    let mut r = vec![0.0; n];
    // A first guess from each player's overall score speeds Newton up.
    for &k in &free {
        let t = table.total(&table.players[k]);
        r[k] = elo_from_score(t.estimates().score);
    }
    let mut ll = log_likelihood(&pairings, &r);
    for _ in 0..NEWTON_STEPS {
        let (gradient, hessian) = derivatives(&pairings, &r, &free, &slot);
        // Newton: hessian * step = -gradient (hessian negative definite).
        let Some(step) = solve(hessian, gradient.iter().map(|g| -g).collect()) else {
            break;
        };
        let mut scale = 1.0;
        let mut improved = false;
        for _ in 0..LINE_SEARCH_STEPS {
            let mut trial = r.clone();
            for (s, &k) in step.iter().zip(&free) {
                trial[k] += scale * s;
            }
            let trial_ll = log_likelihood(&pairings, &trial);
            if trial_ll.is_finite() && trial_ll >= ll {
                r = trial;
                ll = trial_ll;
                improved = true;
                break;
            }
            scale /= 2.0;
        }
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs())) * scale;
        if !improved || largest < 1e-10 {
            break;
        }
    }

    let ci95 = intervals(&pairings, &r, &free, &slot);
    let mut ratings: Vec<Rating> = (0..n)
        .map(|k| {
            let tally = table.total(&table.players[k]);
            Rating {
                player: table.players[k].clone(),
                elo: r[k],
                elo_ci95: slot(k).map_or(0.0, |s| ci95[s]),
                score: tally.estimates().score,
                tally,
            }
        })
        .collect();
    ratings.sort_by(|a, b| b.elo.total_cmp(&a.elo).then_with(|| a.player.cmp(&b.player)));
    Ok(RatingTable {
        anchor: anchor.to_owned(),
        ratings,
    })
}

/// Fails unless every player is reachable from the anchor through games.
fn check_connected(table: &Crosstable, anchor: usize) -> Result<(), RatingError> {
    let n = table.players.len();
    let mut neighbours = vec![Vec::new(); n];
    for &(i, j) in table.pairings.keys() {
        neighbours[i].push(j);
        neighbours[j].push(i);
    }
    let mut seen = vec![false; n];
    seen[anchor] = true;
    let mut queue = VecDeque::from([anchor]);
    while let Some(k) = queue.pop_front() {
        for &m in &neighbours[k] {
            if !seen[m] {
                seen[m] = true;
                queue.push_back(m);
            }
        }
    }
    match seen.iter().position(|s| !s) {
        Some(k) => Err(RatingError::Disconnected {
            player: table.players[k].clone(),
        }),
        None => Ok(()),
    }
}

/// Gradient and Hessian of the log-likelihood in the free ratings.
fn derivatives(
    pairings: &[Pairing],
    r: &[f64],
    free: &[usize],
    slot: &impl Fn(usize) -> Option<usize>,
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let m = free.len();
    let mut gradient = vec![0.0; m];
    let mut hessian = vec![vec![0.0; m]; m];
    for p in pairings {
        let e = sigmoid(C * (r[p.i] - r[p.j]));
        let g = C * (p.points - p.games * e);
        let h = C * C * p.games * e * (1.0 - e);
        let (si, sj) = (slot(p.i), slot(p.j));
        if let Some(a) = si {
            gradient[a] += g;
            hessian[a][a] -= h;
        }
        if let Some(b) = sj {
            gradient[b] -= g;
            hessian[b][b] -= h;
        }
        if let (Some(a), Some(b)) = (si, sj) {
            hessian[a][b] += h;
            hessian[b][a] += h;
        }
    }
    (gradient, hessian)
}

/// Half-widths of the 95% intervals of the free ratings: the sandwich
/// covariance `H^-1 J H^-1`, where `J` uses each pairing's observed spread
/// of scores around the fitted expectation.
fn intervals(pairings: &[Pairing], r: &[f64], free: &[usize], slot: &impl Fn(usize) -> Option<usize>) -> Vec<f64> {
    let m = free.len();
    let (_, hessian) = derivatives(pairings, r, free, slot);
    let mut meat = vec![vec![0.0; m]; m];
    for p in pairings {
        let e = sigmoid(C * (r[p.i] - r[p.j]));
        let (w, d, l) = p.counts;
        let spread = w * (1.0 - e).powi(2) + d * (0.5 - e).powi(2) + l * e * e;
        let v = C * C * spread;
        let (si, sj) = (slot(p.i), slot(p.j));
        if let Some(a) = si {
            meat[a][a] += v;
        }
        if let Some(b) = sj {
            meat[b][b] += v;
        }
        if let (Some(a), Some(b)) = (si, sj) {
            meat[a][b] -= v;
            meat[b][a] -= v;
        }
    }
    // Columns of H^-1, then H^-1 J H^-1 one column at a time.
    let inverse_columns: Vec<Option<Vec<f64>>> = (0..m)
        .map(|c| {
            let mut unit = vec![0.0; m];
            unit[c] = 1.0;
            solve(hessian.clone(), unit)
        })
        .collect();
    (0..m)
        .map(|k| {
            let Some(column) = &inverse_columns[k] else {
                return 0.0;
            };
            // (H^-1 J H^-1)_kk = column^T J column, H being symmetric.
            let variance: f64 = (0..m)
                .map(|a| column[a] * (0..m).map(|b| meat[a][b] * column[b]).sum::<f64>())
                .sum();
            let half = Z95 * variance.max(0.0).sqrt();
            if half.is_finite() { half } else { 0.0 }
        })
        .collect()
}
