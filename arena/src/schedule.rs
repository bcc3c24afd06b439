//! The games of a run, numbered from 0. Game `i` is a pure function of the
//! config and `i`: its round, pairing, pair, colours and opening. Games
//! `2k` and `2k + 1` form pair `k`: the same opening with the colours
//! reversed. Within a round every pairing plays the same openings, so a
//! gauntlet's opponents face the same positions. A resumed run therefore
//! needs only the ids of the games already played.

use std::sync::Arc;

use crate::config::{Mode, RunConfig, SetupChoice};
use crate::openings::{Opening, OpeningSource};
use crate::slot::GameJob;
use crate::spec::EngineSpec;

/// The games of a run.
#[derive(Clone, Debug)]
pub struct Schedule {
    engines: Vec<Arc<EngineSpec>>,
    pairings: Vec<(usize, usize)>,
    games: u64,
    rounds: u64,
    openings: Option<OpeningSource>,
}

impl Schedule {
    /// The schedule of `config`, with the openings read from its file (if
    /// any). Without a file, setups are drawn from the seed, unless the
    /// config lets the engines choose.
    #[must_use]
    pub fn new(config: &RunConfig, file_openings: Option<Vec<Opening>>) -> Self {
        let n = config.engines.len();
        let pairings = match config.mode {
            Mode::Match => vec![(0, 1)],
            Mode::Gauntlet => (1..n).map(|j| (0, j)).collect(),
            Mode::Roundrobin => (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect(),
        };
        let openings = match (file_openings, &config.openings) {
            (Some(list), Some(c)) => Some(OpeningSource::from_list(list, c.order, config.seed)),
            _ if config.setups == SetupChoice::Engine => None,
            _ => Some(OpeningSource::Random { seed: config.seed }),
        };
        Self {
            engines: config.engines.iter().cloned().map(Arc::new).collect(),
            pairings,
            games: config.games.max(2),
            rounds: config.rounds.max(1),
            openings,
        }
    }

    /// The number of games.
    #[must_use]
    pub fn len(&self) -> u64 {
        (self.pairings.len() as u64)
            .saturating_mul(self.games)
            .saturating_mul(self.rounds)
    }

    /// Whether there is no game at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The engines, in config order.
    #[must_use]
    pub fn engines(&self) -> &[Arc<EngineSpec>] {
        &self.engines
    }

    /// The pairings, as indices into the engines: `(first, second)`.
    #[must_use]
    pub fn pairings(&self) -> &[(usize, usize)] {
        &self.pairings
    }

    /// Game `id`, or `None` past the end.
    #[must_use]
    pub fn job(&self, id: u64) -> Option<GameJob> {
        if id >= self.len() {
            return None;
        }
        let per_round = self.pairings.len() as u64 * self.games;
        let round = id / per_round;
        let in_round = id % per_round;
        let pairing = usize::try_from(in_round / self.games).ok()?;
        let k = in_round % self.games;
        let (a, b) = self.pairings[pairing];
        let (red, blue) = if k.is_multiple_of(2) { (a, b) } else { (b, a) };
        let slot = round * (self.games / 2) + k / 2;
        let setups = self.openings.as_ref().map(|o| {
            let opening = o.opening(slot);
            (opening.red, opening.blue)
        });
        Some(GameJob {
            id,
            pair: id / 2,
            round,
            red: Arc::clone(&self.engines[red]),
            blue: Arc::clone(&self.engines[blue]),
            setups,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::build_engines;

    fn config(mode: Mode, names: &[&str], games: u64, rounds: u64) -> RunConfig {
        let engines: Vec<Vec<(String, String)>> = names
            .iter()
            .map(|n| vec![("cmd".to_owned(), format!("/bin/{n}"))])
            .collect();
        RunConfig {
            mode,
            engines: build_engines(&[("depth".to_owned(), "1".to_owned())], &engines).unwrap(),
            games,
            rounds,
            ..RunConfig::default()
        }
    }

    #[test]
    fn pairs_swap_colours_on_the_same_opening() {
        let schedule = Schedule::new(&config(Mode::Match, &["a", "b"], 6, 2), None);
        assert_eq!(schedule.len(), 12);
        for pair in 0..6 {
            let first = schedule.job(2 * pair).unwrap();
            let second = schedule.job(2 * pair + 1).unwrap();
            assert_eq!((first.pair, second.pair), (pair, pair));
            assert_eq!(first.red.name, "a");
            assert_eq!(second.red.name, "b");
            assert_eq!(first.setups, second.setups);
            assert!(first.setups.is_some());
        }
        assert_ne!(schedule.job(0).unwrap().setups, schedule.job(2).unwrap().setups);
        assert_eq!(schedule.job(6).unwrap().round, 1);
        assert!(schedule.job(12).is_none());
    }

    #[test]
    fn gauntlet_opponents_share_each_rounds_openings() {
        let schedule = Schedule::new(&config(Mode::Gauntlet, &["a", "b", "c"], 2, 1), None);
        let (ab, ac) = (schedule.job(0).unwrap(), schedule.job(2).unwrap());
        assert_eq!((ab.blue.name.as_str(), ac.blue.name.as_str()), ("b", "c"));
        assert_eq!(ab.setups, ac.setups);
        let rr = Schedule::new(&config(Mode::Roundrobin, &["a", "b", "c", "d"], 2, 1), None);
        assert_eq!(rr.pairings().len(), 6);
        assert_eq!(rr.len(), 12);
    }

    #[test]
    fn jobs_depend_on_the_seed_and_id_only() {
        let c = config(Mode::Match, &["a", "b"], 100, 1);
        let (s1, s2) = (Schedule::new(&c, None), Schedule::new(&c, None));
        assert_eq!(s1.job(57), s2.job(57));
        let other = Schedule::new(&RunConfig { seed: 2, ..c.clone() }, None);
        assert_ne!(s1.job(57).unwrap().setups, other.job(57).unwrap().setups);
        let engine_setups = Schedule::new(
            &RunConfig {
                setups: SetupChoice::Engine,
                ..c
            },
            None,
        );
        assert_eq!(engine_setups.job(0).unwrap().setups, None);
    }
}
