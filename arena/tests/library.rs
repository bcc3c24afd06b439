//! The library API the tuner builds on, driven directly: a [`GameSlot`]
//! plays pairs and reuses its engines across option changes (only the
//! changed options are re-sent, no restart), and a [`GamePool`] with a
//! [`PairCollector`] turns games finishing in any order into pairs.

mod common;

use std::sync::Arc;
use std::time::Duration;

use arena::{EngineSpec, GameJob, GameObserver, GamePool, GameSlot, OpeningSource, PairCollector, PoolResult};
use common::mock_bin;
use parking_lot::Mutex;
use results::Pentanomial;

fn mock(name: &str, extra: &[&str]) -> Arc<EngineSpec> {
    let mut tokens = vec![
        format!("cmd={}", mock_bin().display()),
        format!("name={name}"),
        "depth=1".to_owned(),
    ];
    tokens.extend(extra.iter().map(|s| (*s).to_owned()));
    Arc::new(EngineSpec::from_tokens(&tokens).unwrap())
}

#[derive(Default)]
struct Starts(Mutex<Vec<String>>);

impl GameObserver for Starts {
    fn engine_started(&self, spec: &EngineSpec, _startup: Duration) {
        self.0.lock().push(spec.name.clone());
    }
}

#[test]
fn a_slot_plays_pairs_and_reuses_engines_across_option_changes() {
    let starts = Starts::default();
    let mut slot = GameSlot::new(None);
    let openings = OpeningSource::Random { seed: 3 };
    let mut penta = Pentanomial::default();
    for trial in 0..3u64 {
        // A tuner's trial: the same engines with new option values.
        let plus = mock("plus", &[&format!("option.Seed={}", 10 + trial)]);
        let minus = mock("minus", &[&format!("option.Seed={}", 20 + trial)]);
        let o = openings.opening(trial);
        let pair = slot
            .play_pair(&plus, &minus, trial, Some((o.red, o.blue)), &starts)
            .unwrap();
        assert_eq!(
            (pair.first.job.red.name.as_str(), pair.second.job.red.name.as_str()),
            ("plus", "minus")
        );
        assert_eq!(pair.first.outcome.moves[..2], pair.second.outcome.moves[..2]);
        let (a, b) = pair.outcomes_for("plus").unwrap();
        penta.record_pair(a, b);
    }
    assert_eq!(penta.pairs(), 3);
    let mut started = starts.0.lock().clone();
    started.sort();
    assert_eq!(started, ["minus", "plus"], "one process each for all six games");
}

#[test]
fn a_pool_returns_games_in_any_order_and_the_collector_pairs_them() {
    let pool = GamePool::new(2, Arc::new(arena::NoObserver));
    let (a, b) = (mock("a", &["option.Seed=1"]), mock("b", &["option.Seed=2"]));
    for pair in 0..4u64 {
        for (id, red, blue) in [(2 * pair, &a, &b), (2 * pair + 1, &b, &a)] {
            assert!(pool.submit(GameJob {
                id,
                pair,
                round: 0,
                red: Arc::clone(red),
                blue: Arc::clone(blue),
                setups: None,
            }));
        }
    }
    let mut collector = PairCollector::new();
    let mut pairs = Vec::new();
    for _ in 0..8 {
        let result = pool
            .results()
            .recv_timeout(Duration::from_secs(30))
            .expect("a game within 30 s");
        let PoolResult::Finished(game) = result else {
            panic!("abandoned")
        };
        if let Some(pair) = collector.add(*game) {
            pairs.push(pair);
        }
    }
    assert_eq!(collector.waiting(), 0);
    assert_eq!(pairs.len(), 4);
    for p in &pairs {
        assert_eq!(p.first.job.id + 1, p.second.job.id);
        assert!(p.outcomes_for("a").is_some() && p.outcomes_for("zz").is_none());
    }
    pool.shutdown();
}
