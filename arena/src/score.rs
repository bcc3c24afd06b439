//! The running score of a run, fed one game record at a time: per pairing
//! a trinomial of games and a pentanomial of complete pairs (a pair counts
//! only when both of its games are recorded, as in fastchess's
//! `ScoreBoard::updatePair`), terminations, and forfeits per engine. The
//! same records read back from `games.csv` rebuild the same score, which
//! is how a resumed run continues where the killed one stopped.

use std::collections::{BTreeMap, HashMap};

use results::{
    Crosstable, Estimates, GameRecord, Outcome, Pentanomial, RatingTable, Sprt, SprtStatus, Tally, Trinomial,
    rating_table,
};
use serde::Serialize;

/// The results between two engines, from the first one's side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairingScore {
    /// The first engine (in config order).
    pub first: String,
    /// The second engine.
    pub second: String,
    /// All games.
    pub trinomial: Trinomial,
    /// Complete pairs.
    pub pentanomial: Pentanomial,
}

/// The score of a run.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    players: Vec<String>,
    pairings: Vec<PairingScore>,
    /// The first game of each incomplete pair: pairing and the first
    /// engine's outcome.
    pending: HashMap<u64, (usize, Outcome)>,
    terminations: BTreeMap<String, u64>,
    failures: BTreeMap<String, BTreeMap<String, u64>>,
    violations: BTreeMap<String, ViolationCount>,
    games: u64,
}

/// An engine's protocol violations over a run: lines written out of turn
/// (see [`crate::Violations`]) and lines the arena dropped from its output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ViolationCount {
    /// Lines out of turn.
    pub violations: u64,
    /// Lines dropped.
    pub dropped_lines: u64,
}

impl Scoreboard {
    /// An empty score for `players` (config order) and `pairings` (pairs
    /// of indices into it).
    #[must_use]
    pub fn new(players: &[String], pairings: &[(usize, usize)]) -> Self {
        Self {
            players: players.to_vec(),
            pairings: pairings
                .iter()
                .map(|&(a, b)| PairingScore {
                    first: players[a].clone(),
                    second: players[b].clone(),
                    ..PairingScore::default()
                })
                .collect(),
            failures: players.iter().map(|p| (p.clone(), BTreeMap::new())).collect(),
            violations: players.iter().map(|p| (p.clone(), ViolationCount::default())).collect(),
            ..Self::default()
        }
    }

    /// Counts one game. Returns true when it completed a pair. Games
    /// between engines outside the pairings are ignored.
    pub fn add(&mut self, record: &GameRecord) -> bool {
        let Some(index) = self.pairings.iter().position(|p| {
            (p.first == record.red && p.second == record.blue) || (p.first == record.blue && p.second == record.red)
        }) else {
            return false;
        };
        let pairing = &mut self.pairings[index];
        let Some(outcome) = record.outcome_for(&pairing.first) else {
            return false;
        };
        self.games += 1;
        pairing.trinomial.record(outcome);
        *self
            .terminations
            .entry(record.termination.as_str().to_owned())
            .or_default() += 1;
        if record.termination.is_forfeit() {
            let loser = match record.result {
                results::GameResult::RedWins => &record.blue,
                _ => &record.red,
            };
            *self
                .failures
                .entry(loser.clone())
                .or_default()
                .entry(record.termination.as_str().to_owned())
                .or_default() += 1;
        }
        match self.pending.remove(&record.pair) {
            Some((first_index, first)) if first_index == index => {
                pairing.pentanomial.record_pair(first, outcome);
                true
            }
            Some(other) => {
                // A pair holds games of one pairing only; keep the older.
                self.pending.insert(record.pair, other);
                false
            }
            None => {
                self.pending.insert(record.pair, (index, outcome));
                false
            }
        }
    }

    /// Games counted.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The engines, in config order.
    #[must_use]
    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// Every pairing's score.
    #[must_use]
    pub fn pairings(&self) -> &[PairingScore] {
        &self.pairings
    }

    /// The first engine's results against everybody: the numbers a match
    /// reports and an SPRT tests.
    #[must_use]
    pub fn main(&self) -> PairingScore {
        let first = self.players.first().cloned().unwrap_or_default();
        let mut total = PairingScore {
            first: first.clone(),
            second: self.players.get(1).cloned().unwrap_or_default(),
            ..PairingScore::default()
        };
        for p in &self.pairings {
            if p.first == first {
                total.trinomial += p.trinomial;
                total.pentanomial += p.pentanomial;
            } else if p.second == first {
                total.trinomial += p.trinomial.reversed();
                total.pentanomial += p.pentanomial.reversed();
            }
        }
        if self.players.len() > 2 {
            total.second = "all".to_owned();
        }
        total
    }

    /// Games per termination, by name.
    #[must_use]
    pub fn terminations(&self) -> &BTreeMap<String, u64> {
        &self.terminations
    }

    /// Counts `count` violations and `dropped` dropped lines of `engine`.
    pub fn add_violations(&mut self, engine: &str, count: u64, dropped: u64) {
        let tally = self.violations.entry(engine.to_owned()).or_default();
        tally.violations += count;
        tally.dropped_lines += dropped;
    }

    /// Protocol violations per engine.
    #[must_use]
    pub fn violations(&self) -> &BTreeMap<String, ViolationCount> {
        &self.violations
    }

    /// Forfeits per engine and termination.
    #[must_use]
    pub fn failures(&self) -> &BTreeMap<String, BTreeMap<String, u64>> {
        &self.failures
    }

    /// Maximum-likelihood ratings of all engines, anchored at the first;
    /// `None` before the games link every engine to it.
    #[must_use]
    pub fn ratings(&self) -> Option<RatingTable> {
        let mut table = Crosstable::new();
        for p in &self.pairings {
            table.add(&p.first, &p.second, p.trinomial);
        }
        rating_table(&table, self.players.first()?).ok()
    }

    /// A snapshot for reports.
    #[must_use]
    pub fn standings(&self, total: u64, sprt: Option<&Sprt>) -> Standings {
        let main = self.main();
        // As `arena stats` does: pairs when there are any, else games.
        let estimates = if main.pentanomial.pairs() > 0 {
            main.pentanomial.estimates()
        } else {
            main.trinomial.estimates()
        };
        let sprt = sprt.map(|s| (s.config(), status_of(s, &main)));
        Standings {
            done: self.games,
            total,
            main,
            estimates,
            sprt,
            terminations: self.terminations.clone(),
            failures: self.failures.clone(),
            violations: self.violations.clone(),
        }
    }
}

/// The SPRT state of a pairing's score, as `arena stats` computes it: from
/// the pairs when there are any, else from the games.
#[must_use]
pub fn status_of(sprt: &Sprt, score: &PairingScore) -> SprtStatus {
    if score.pentanomial.pairs() > 0 {
        sprt.status(&score.pentanomial)
    } else {
        sprt.status(&score.trinomial)
    }
}

/// Where a run stands: what progress bars and summaries show.
#[derive(Clone, Debug)]
pub struct Standings {
    /// Games recorded.
    pub done: u64,
    /// Games planned.
    pub total: u64,
    /// The first engine's results.
    pub main: PairingScore,
    /// Its estimates, from the complete pairs (from the games while no pair
    /// is complete).
    pub estimates: Estimates,
    /// The SPRT's design and state, if one runs.
    pub sprt: Option<(results::SprtConfig, SprtStatus)>,
    /// Games per termination.
    pub terminations: BTreeMap<String, u64>,
    /// Forfeits per engine and termination.
    pub failures: BTreeMap<String, BTreeMap<String, u64>>,
    /// Protocol violations and dropped output lines per engine.
    pub violations: BTreeMap<String, ViolationCount>,
}

/// One line of the `players` table in `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRow {
    /// The engine.
    pub name: String,
    /// Logistic Elo relative to the first engine.
    pub elo: f64,
    /// Half-width of its 95% interval.
    pub elo_ci95: f64,
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Mean score.
    pub score: f64,
}

/// `summary.json`: the keys of `arena stats --json`, then the run's own.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Games counted (all games of the first engine).
    pub games: u64,
    /// Complete pairs.
    pub pairs: u64,
    /// Logistic Elo of the first engine against the others.
    pub elo: f64,
    /// Half-width of its 95% interval.
    pub elo_ci95: f64,
    /// Normalized Elo.
    pub nelo: f64,
    /// Half-width of its 95% interval.
    pub nelo_ci95: f64,
    /// Likelihood of superiority.
    pub los: f64,
    /// The SPRT's log-likelihood ratio (for the run's SPRT, or without one
    /// for `arena stats`' default design).
    pub llr: Option<f64>,
    /// Its lower bound.
    pub lower_bound: Option<f64>,
    /// Its upper bound.
    pub upper_bound: Option<f64>,
    /// Its decision: `continue`, `accept-h0`, `accept-h1`.
    pub decision: Option<&'static str>,
    /// Whether the run has an SPRT (which stops it at a decision).
    pub sprt: bool,
    /// The first engine.
    pub player: String,
    /// Its wins, draws and losses.
    pub wdl: [u64; 3],
    /// Its pairs `[ll, ld, dd, wd, ww]`.
    pub pentanomial: [u64; 5],
    /// Ratings of every engine.
    pub players: Vec<PlayerRow>,
    /// Forfeits per engine and termination.
    pub failures: BTreeMap<String, BTreeMap<String, u64>>,
    /// Protocol violations and dropped output lines per engine.
    pub violations: BTreeMap<String, ViolationCount>,
    /// Games per termination.
    pub terminations: BTreeMap<String, u64>,
    /// Games planned.
    pub planned: u64,
    /// Whether the run is over (all games played or the SPRT decided).
    pub finished: bool,
}

impl Summary {
    /// The summary of a scoreboard.
    #[must_use]
    pub fn new(board: &Scoreboard, standings: &Standings, finished: bool) -> Self {
        let e = &standings.estimates;
        let p = standings.main.pentanomial;
        let t = standings.main.trinomial;
        // Without an SPRT, the keys still hold `arena stats`' default design
        // ([0, 5] normalized, 5% errors), so both tools give the same keys.
        let status = standings.sprt.map(|(_, s)| s).or_else(|| {
            Sprt::new(results::SprtConfig::default())
                .ok()
                .map(|s| status_of(&s, &standings.main))
        });
        let ratings = board.ratings();
        let players = board
            .players()
            .iter()
            .map(|name| {
                let tally: Trinomial = board
                    .pairings()
                    .iter()
                    .map(|pr| {
                        if &pr.first == name {
                            pr.trinomial
                        } else if &pr.second == name {
                            pr.trinomial.reversed()
                        } else {
                            Trinomial::default()
                        }
                    })
                    .sum();
                let rating = ratings
                    .as_ref()
                    .and_then(|r| r.ratings.iter().find(|x| &x.player == name));
                let games = tally.games();
                #[allow(clippy::cast_precision_loss)]
                let score = if games == 0 {
                    0.5
                } else {
                    (tally.wins as f64 + tally.draws as f64 / 2.0) / games as f64
                };
                PlayerRow {
                    name: name.clone(),
                    elo: rating.map_or(0.0, |r| r.elo),
                    elo_ci95: rating.map_or(0.0, |r| r.elo_ci95),
                    games,
                    wins: tally.wins,
                    draws: tally.draws,
                    losses: tally.losses,
                    score,
                }
            })
            .collect();
        Self {
            games: t.games(),
            pairs: p.pairs(),
            elo: e.elo,
            elo_ci95: e.elo_ci95,
            nelo: e.nelo,
            nelo_ci95: e.nelo_ci95,
            los: e.los,
            llr: status.map(|s| s.llr),
            lower_bound: status.map(|s| s.lower_bound),
            upper_bound: status.map(|s| s.upper_bound),
            decision: status.map(|s| s.decision.name()),
            sprt: standings.sprt.is_some(),
            player: standings.main.first.clone(),
            wdl: [t.wins, t.draws, t.losses],
            pentanomial: [p.ll, p.ld, p.dd, p.wd, p.ww],
            players,
            failures: standings.failures.clone(),
            violations: standings.violations.clone(),
            terminations: standings.terminations.clone(),
            planned: standings.total,
            finished,
        }
    }
}
