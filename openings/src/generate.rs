//! Book generation: find good Red setups and Blue's best replies with the
//! engine's search, on several threads, resumable after a kill.
//!
//! The method follows the one the CodeCup 2026 winner described (seed
//! document 000, "Opening book"): setups cannot be enumerated against each
//! other (10.8 million squared), so a small pool of "reasonable" replies
//! stands in for all of Blue's. Screening rounds search many sampled Red
//! setups shallowly against the pool and make the best of them the next
//! pool (as Blue formations), so pool and candidates improve together; then
//! the best Red setups are searched deeper and deeper, fewer each time.
//! Every pair's value is a fixed-depth search, so results do not depend on
//! the order or the thread they were computed in: an interrupted and
//! resumed run writes the same book as an uninterrupted one.

use crate::evaluate::PairEvaluator;
use crate::suite::{canonical_red, sample_reasonable, seeded};
use atomic_write_file::AtomicWriteFile;
use leaper::{Color, Setup};
use leaper_book::{Book, BookEntry};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How a book is built. The defaults make a useful book in well under an
/// hour on 2 cores with the engine's search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerateConfig {
    /// Seed of the sampling.
    pub seed: u64,
    /// Replies every Red setup is searched against.
    pub pool_size: usize,
    /// Fresh Red setups sampled in each screening round.
    pub screen_samples: usize,
    /// Screening rounds.
    pub screen_rounds: usize,
    /// Search depth of the screening.
    pub screen_depth: u32,
    /// Entries of the finished book (the best Red setups of the screening).
    pub book_size: usize,
    /// Deepening stages: the `count` best Red setups searched to `depth`.
    pub deepen: Vec<(usize, u32)>,
    /// Worker threads.
    pub threads: usize,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        GenerateConfig {
            seed: 1,
            pool_size: 40,
            screen_samples: 1500,
            screen_rounds: 3,
            screen_depth: 1,
            book_size: 400,
            deepen: vec![(400, 2), (120, 3), (40, 4)],
            threads: 2,
        }
    }
}

impl GenerateConfig {
    /// Checks that the configuration can make a book: every count and depth
    /// at least 1, and no deepening stage asking for more setups than the
    /// book holds.
    ///
    /// # Errors
    /// [`GenerateError::Config`] naming the first setting out of range and
    /// the range accepted.
    pub fn validate(&self) -> Result<(), GenerateError> {
        let at_least_one = [
            ("threads", self.threads),
            ("pool_size", self.pool_size),
            ("screen_samples", self.screen_samples),
            ("screen_rounds", self.screen_rounds),
            ("screen_depth", self.screen_depth as usize),
            ("book_size", self.book_size),
        ];
        for (name, value) in at_least_one {
            if value == 0 {
                return Err(GenerateError::Config(format!("{name} must be at least 1 (got 0)")));
            }
        }
        for (i, &(count, depth)) in self.deepen.iter().enumerate() {
            if count == 0 || count > self.book_size || depth == 0 {
                return Err(GenerateError::Config(format!(
                    "deepen stage {} ({count}:{depth}) must search 1 to book_size ({}) setups to a depth of at least 1",
                    i + 1,
                    self.book_size
                )));
            }
        }
        Ok(())
    }
}

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The configuration cannot make a book.
    #[error("{0}")]
    Config(String),
    /// The state file could not be written or read.
    #[error("state file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The state file is not a generator state.
    #[error("state file {path} is damaged: {message}")]
    BadState {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Stopped on request; the state file holds the work so far.
    #[error("stopped; resume from {0}")]
    Stopped(PathBuf),
}

/// Where a run stands, for a progress bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The current stage, 0-based.
    pub stage: usize,
    /// Number of stages.
    pub stages: usize,
    /// A name for the stage (`screen 2/3`, `depth 3`).
    pub name: String,
    /// Red setups searched in this stage.
    pub done: usize,
    /// Red setups to search in this stage.
    pub total: usize,
}

/// A searched Red setup: its best reply in the pool and the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Scored {
    red: u32,
    blue: u32,
    eval: i32,
    depth: u32,
}

/// Everything needed to continue a run, saved after every few results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct State {
    config: GenerateConfig,
    stage: usize,
    /// Blue setups (ranks) every Red setup is searched against.
    pool: Vec<u32>,
    /// Red setups (ranks) of the current stage.
    candidates: Vec<u32>,
    /// Results of the current stage so far.
    done: Vec<Scored>,
    /// The best Red setups known, best first.
    ranking: Vec<Scored>,
}

/// A book generation run bound to its state file.
#[derive(Debug)]
pub struct Generator {
    state: State,
    path: PathBuf,
}

fn setup(rank: u32) -> Setup {
    Setup::unrank(rank).unwrap_or_else(Setup::first)
}

impl Generator {
    /// A new run with `config`, saving its state to `path`.
    ///
    /// # Errors
    /// [`GenerateError::Config`] (before anything is written) when
    /// [`GenerateConfig::validate`] refuses `config`;
    /// [`GenerateError::Io`] when the state file cannot be written.
    pub fn new(config: GenerateConfig, path: &Path) -> Result<Generator, GenerateError> {
        config.validate()?;
        let mut rng = seeded(config.seed, 0);
        let pool = (0..config.pool_size)
            .map(|_| sample_reasonable(&mut rng, Color::Blue, 8).rank())
            .collect();
        let candidates = fresh_candidates(&config, 0, &[]);
        let state = State {
            config,
            stage: 0,
            pool,
            candidates,
            done: Vec::new(),
            ranking: Vec::new(),
        };
        let generator = Generator {
            state,
            path: path.to_path_buf(),
        };
        generator.save()?;
        Ok(generator)
    }

    /// Continues the run saved in `path`.
    ///
    /// # Errors
    /// [`GenerateError::Io`] when it cannot be read;
    /// [`GenerateError::BadState`] when it is not a state this crate wrote,
    /// or holds a configuration [`GenerateConfig::validate`] refuses.
    pub fn resume(path: &Path) -> Result<Generator, GenerateError> {
        let text = std::fs::read_to_string(path).map_err(|source| GenerateError::Io {
            path: path.into(),
            source,
        })?;
        let state: State = serde_json::from_str(&text).map_err(|e| GenerateError::BadState {
            path: path.into(),
            message: e.to_string(),
        })?;
        let bad = |message: &str| {
            Err(GenerateError::BadState {
                path: path.into(),
                message: message.into(),
            })
        };
        let all_ranks_valid = state
            .pool
            .iter()
            .chain(&state.candidates)
            .all(|&r| Setup::unrank(r).is_some());
        if !all_ranks_valid || state.stage > stages(&state.config) {
            return bad("a setup rank or the stage is out of range");
        }
        if let Err(e) = state.config.validate() {
            return bad(&e.to_string());
        }
        Ok(Generator {
            state,
            path: path.to_path_buf(),
        })
    }

    /// The configuration of this run.
    pub fn config(&self) -> &GenerateConfig {
        &self.state.config
    }

    /// Writes the state atomically (a temporary file, fsync, rename, fsync
    /// of the directory): a kill at any moment leaves the old state or the
    /// new one, never a mix.
    fn save(&self) -> Result<(), GenerateError> {
        let io = |source| GenerateError::Io {
            path: self.path.clone(),
            source,
        };
        let text = serde_json::to_vec(&self.state).map_err(|e| io(std::io::Error::other(e)))?;
        let mut file = AtomicWriteFile::open(&self.path).map_err(io)?;
        file.write_all(&text).map_err(io)?;
        file.commit().map_err(io)
    }

    /// Runs to the end, or until `stop` is set (then the work so far is
    /// saved and [`GenerateError::Stopped`] returned). `make_evaluator`
    /// makes one evaluator per worker thread.
    pub fn run<E: PairEvaluator>(
        &mut self,
        make_evaluator: impl Fn() -> E + Sync,
        stop: &AtomicBool,
        mut progress: impl FnMut(&Progress),
    ) -> Result<Book, GenerateError> {
        let total_stages = stages(&self.state.config);
        while self.state.stage < total_stages {
            let depth = stage_depth(&self.state.config, self.state.stage);
            let done: HashSet<u32> = self.state.done.iter().map(|s| s.red).collect();
            let todo: Vec<u32> = self
                .state
                .candidates
                .iter()
                .copied()
                .filter(|r| !done.contains(r))
                .collect();
            let pool: Vec<Setup> = self.state.pool.iter().map(|&r| setup(r)).collect();
            let name = stage_name(&self.state.config, self.state.stage);
            let total = self.state.candidates.len();
            let stage = self.state.stage;
            let mut report = |done: usize| {
                progress(&Progress {
                    stage,
                    stages: total_stages,
                    name: name.clone(),
                    done,
                    total,
                })
            };
            report(self.state.done.len());
            let next = AtomicUsize::new(0);
            let (tx, rx) = mpsc::channel::<Scored>();
            let threads = self.state.config.threads.max(1);
            let mut last_save = Instant::now();
            let mut result = Ok(());
            std::thread::scope(|s| {
                for _ in 0..threads {
                    let tx = tx.clone();
                    let (next, todo, pool, make_evaluator) = (&next, &todo, &pool, &make_evaluator);
                    s.spawn(move || {
                        let mut evaluator = make_evaluator();
                        loop {
                            if stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&red) = todo.get(i) else { break };
                            let scored = best_reply(&mut evaluator, red, pool, depth);
                            if tx.send(scored).is_err() {
                                break;
                            }
                        }
                    });
                }
                drop(tx);
                for scored in rx {
                    self.state.done.push(scored);
                    report(self.state.done.len());
                    if last_save.elapsed() > Duration::from_secs(2) && result.is_ok() {
                        result = self.save();
                        last_save = Instant::now();
                    }
                }
            });
            result?;
            if self.state.done.len() < self.state.candidates.len() {
                self.save()?;
                return Err(GenerateError::Stopped(self.path.clone()));
            }
            self.finish_stage();
            self.save()?;
        }
        Ok(self.book())
    }

    /// Moves the results of a finished stage into the ranking and sets up
    /// the next stage.
    fn finish_stage(&mut self) {
        let config = self.state.config.clone();
        let mut done = std::mem::take(&mut self.state.done);
        sort_best_first(&mut done);
        let screening = self.state.stage < config.screen_rounds;
        if screening {
            self.state.ranking = done;
            self.state.ranking.truncate(config.book_size.max(config.pool_size));
            // The best Red formations become Blue's replies.
            self.state.pool = self
                .state
                .ranking
                .iter()
                .take(config.pool_size)
                .map(|s| setup(s.red).for_other_side().rank())
                .collect();
        } else {
            for scored in done {
                if let Some(entry) = self.state.ranking.iter_mut().find(|s| s.red == scored.red) {
                    *entry = scored;
                }
            }
            sort_best_first(&mut self.state.ranking);
        }
        self.state.stage += 1;
        let stage = self.state.stage;
        self.state.candidates = if stage < config.screen_rounds {
            let keep: Vec<u32> = self
                .state
                .ranking
                .iter()
                .take(config.pool_size)
                .map(|s| s.red)
                .collect();
            fresh_candidates(&config, stage, &keep)
        } else if stage < stages(&config) {
            let (count, _) = config.deepen[stage - config.screen_rounds];
            self.state.ranking.truncate(config.book_size);
            self.state.ranking.iter().take(count).map(|s| s.red).collect()
        } else {
            self.state.ranking.truncate(config.book_size);
            Vec::new()
        };
    }

    /// The book as it stands: the best Red setups with their best replies.
    pub fn book(&self) -> Book {
        Book::new(
            self.state
                .ranking
                .iter()
                .map(|s| BookEntry {
                    red: setup(s.red),
                    blue: setup(s.blue),
                    eval: s.eval,
                    depth: s.depth,
                    weight: None,
                })
                .collect(),
        )
    }
}

fn stages(config: &GenerateConfig) -> usize {
    config.screen_rounds + config.deepen.len()
}

fn stage_depth(config: &GenerateConfig, stage: usize) -> u32 {
    if stage < config.screen_rounds {
        config.screen_depth
    } else {
        config.deepen[stage - config.screen_rounds].1
    }
}

fn stage_name(config: &GenerateConfig, stage: usize) -> String {
    if stage < config.screen_rounds {
        format!(
            "screen {}/{} (depth {})",
            stage + 1,
            config.screen_rounds,
            config.screen_depth
        )
    } else {
        format!("depth {}", stage_depth(config, stage))
    }
}

/// Best first; ties by rank, so the order never depends on timing.
fn sort_best_first(list: &mut [Scored]) {
    list.sort_by(|a, b| b.eval.cmp(&a.eval).then(a.red.cmp(&b.red)));
}

/// The candidates of screening round `round`: the kept setups and fresh
/// samples, distinct up to mirror.
fn fresh_candidates(config: &GenerateConfig, round: usize, keep: &[u32]) -> Vec<u32> {
    let mut rng = seeded(config.seed, 1 + round as u64);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let samples = (0..config.screen_samples).map(|_| sample_reasonable(&mut rng, Color::Red, 8).rank());
    for rank in keep.iter().copied().chain(samples) {
        if seen.insert(canonical_red(&setup(rank))) {
            out.push(rank);
        }
    }
    out
}

/// Searches `red` against every reply in `pool`; Blue picks the lowest.
fn best_reply<E: PairEvaluator>(evaluator: &mut E, red: u32, pool: &[Setup], depth: u32) -> Scored {
    let red_setup = setup(red);
    let mut best = Scored {
        red,
        blue: pool.first().map_or(0, Setup::rank),
        eval: i32::MAX,
        depth,
    };
    for blue in pool {
        let eval = evaluator.evaluate(&red_setup, blue, depth);
        if eval < best.eval || (eval == best.eval && blue.rank() < best.blue) {
            best = Scored {
                red,
                blue: blue.rank(),
                eval,
                depth,
            };
        }
    }
    if pool.is_empty() {
        best.eval = 0;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use leaper::search::setup_heuristic;

    #[derive(Clone)]
    struct Static;
    impl PairEvaluator for Static {
        fn evaluate(&mut self, red: &Setup, blue: &Setup, depth: u32) -> i32 {
            setup_heuristic(red, Color::Red, Some(blue)) - setup_heuristic(blue, Color::Blue, Some(red)) + depth as i32
        }
    }

    fn small() -> GenerateConfig {
        GenerateConfig {
            seed: 3,
            pool_size: 6,
            screen_samples: 40,
            screen_rounds: 2,
            screen_depth: 1,
            book_size: 12,
            deepen: vec![(12, 2), (4, 3)],
            threads: 2,
        }
    }

    /// Runs a new generation with `config` to its end, with its state in `path`.
    fn run_to_end(config: GenerateConfig, path: &Path) -> Book {
        Generator::new(config, path)
            .unwrap()
            .run(|| Static, &AtomicBool::new(false), |_| {})
            .unwrap()
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("leaper-openings-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("state.json")
    }

    #[test]
    fn builds_a_sorted_book_of_the_asked_size() {
        let path = temp("full");
        let book = run_to_end(small(), &path);
        assert_eq!(book.len(), 12);
        let evals: Vec<i32> = book.entries().iter().map(|e| e.eval).collect();
        assert!(evals.windows(2).all(|w| w[0] >= w[1]), "{evals:?}");
        // The four best were searched deepest.
        assert!(book.entries()[..4].iter().all(|e| e.depth == 3));
        let reds: HashSet<Setup> = book.entries().iter().map(|e| canonical_red(&e.red)).collect();
        assert_eq!(reds.len(), 12);
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    #[test]
    fn a_stopped_run_resumes_to_the_same_book() {
        let full_path = temp("ref");
        let reference = run_to_end(small(), &full_path);
        let path = temp("resume");
        let stop = AtomicBool::new(false);
        let mut stops = 0;
        let mut generator = Generator::new(small(), &path).unwrap();
        // Stop in the middle of the second stage.
        let stopped = generator.run(
            || Static,
            &stop,
            |p| {
                if p.stage == 1 && p.done >= 10 {
                    stop.store(true, Ordering::Relaxed);
                    stops += 1;
                }
            },
        );
        assert!(matches!(stopped, Err(GenerateError::Stopped(_))));
        assert!(stops > 0);
        drop(generator);
        let mut resumed = Generator::resume(&path).unwrap();
        let book = resumed.run(|| Static, &AtomicBool::new(false), |_| {}).unwrap();
        assert_eq!(book.entries(), reference.entries());
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
        std::fs::remove_dir_all(full_path.parent().unwrap()).ok();
    }

    #[test]
    fn a_damaged_state_file_is_an_error() {
        let path = temp("bad");
        std::fs::write(&path, "{ not json").unwrap();
        assert!(matches!(Generator::resume(&path), Err(GenerateError::BadState { .. })));
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    /// Counts the pairs it scores, to show what a run does not redo.
    struct Counting<'a>(&'a AtomicUsize);
    impl PairEvaluator for Counting<'_> {
        fn evaluate(&mut self, red: &Setup, blue: &Setup, depth: u32) -> i32 {
            self.0.fetch_add(1, Ordering::Relaxed);
            Static.evaluate(red, blue, depth)
        }
    }

    #[test]
    fn every_entry_holds_the_value_of_its_pair_at_its_depth() {
        let path = temp("values");
        let book = run_to_end(small(), &path);
        for e in book.entries() {
            assert_eq!(Static.evaluate(&e.red, &e.blue, e.depth), e.eval, "{e:?}");
            assert!(e.depth == 2 || e.depth == 3, "{e:?}");
        }
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    #[test]
    fn a_book_of_one_holds_the_best_setup() {
        let path = temp("one");
        let config = GenerateConfig {
            book_size: 1,
            deepen: vec![(1, 2)],
            ..small()
        };
        let book = run_to_end(config, &path);
        assert_eq!(book.len(), 1);
        let best = book.entries()[0];
        assert_eq!(best.depth, 2);
        // The same screening with a larger book ranks the same setup first
        // before deepening; both deepen it to depth 2.
        let wide = GenerateConfig {
            book_size: 12,
            deepen: vec![(1, 2)],
            ..small()
        };
        let path = temp("one-wide");
        let wide = run_to_end(wide, &path);
        assert_eq!(wide.entries().iter().find(|e| e.depth == 2), Some(&best));
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    #[test]
    fn bad_configs_are_refused_before_anything_is_written() {
        let cases: [(&str, GenerateConfig); 9] = [
            ("threads", GenerateConfig { threads: 0, ..small() }),
            (
                "pool_size",
                GenerateConfig {
                    pool_size: 0,
                    ..small()
                },
            ),
            (
                "screen_samples",
                GenerateConfig {
                    screen_samples: 0,
                    ..small()
                },
            ),
            (
                "screen_rounds",
                GenerateConfig {
                    screen_rounds: 0,
                    ..small()
                },
            ),
            (
                "screen_depth",
                GenerateConfig {
                    screen_depth: 0,
                    ..small()
                },
            ),
            (
                "book_size",
                GenerateConfig {
                    book_size: 0,
                    deepen: vec![],
                    ..small()
                },
            ),
            (
                "deepen stage 2 (0:3)",
                GenerateConfig {
                    deepen: vec![(12, 2), (0, 3)],
                    ..small()
                },
            ),
            (
                "deepen stage 1 (13:2)",
                GenerateConfig {
                    deepen: vec![(13, 2)],
                    ..small()
                },
            ),
            (
                "deepen stage 1 (4:0)",
                GenerateConfig {
                    deepen: vec![(4, 0)],
                    ..small()
                },
            ),
        ];
        let path = temp("config");
        for (name, config) in cases {
            let err = Generator::new(config, &path).unwrap_err();
            assert!(matches!(err, GenerateError::Config(_)), "{name}: {err}");
            assert!(err.to_string().starts_with(name), "{name}: {err}");
            assert!(!path.exists(), "{name}: a state file was written");
        }
        // No deepening at all is a valid (screening-only) run.
        let config = GenerateConfig {
            deepen: vec![],
            ..small()
        };
        let book = run_to_end(config, &path);
        assert_eq!(book.len(), 12);
        assert!(book.entries().iter().all(|e| e.depth == 1));
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    #[test]
    fn a_state_file_with_a_bad_config_is_refused_on_resume() {
        let path = temp("bad-config");
        Generator::new(small(), &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"threads\":2", "\"threads\":0")).unwrap();
        let err = Generator::resume(&path).unwrap_err();
        assert!(
            matches!(&err, GenerateError::BadState { message, .. } if message.contains("threads must be at least 1")),
            "{err}"
        );
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    #[test]
    fn progress_walks_every_stage_and_the_state_file_stays_alone() {
        let path = temp("progress");
        let mut seen: Vec<Progress> = Vec::new();
        Generator::new(small(), &path)
            .unwrap()
            .run(|| Static, &AtomicBool::new(false), |p| seen.push(p.clone()))
            .unwrap();
        let stages: Vec<usize> = seen.iter().map(|p| p.stage).collect();
        assert!(stages.windows(2).all(|w| w[0] <= w[1]), "{stages:?}");
        assert_eq!((stages[0], *stages.last().unwrap()), (0, 3));
        for stage in 0..4 {
            let last = seen.iter().rfind(|p| p.stage == stage).unwrap();
            assert_eq!(last.done, last.total, "stage {stage} ends complete");
            assert_eq!(last.stages, 4);
        }
        assert_eq!(seen.last().unwrap().name, "depth 3");
        assert!(seen[0].name.starts_with("screen 1/2"));
        // The atomic writes leave no temporary file beside the state.
        let files: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(files.len(), 1, "{files:?}");
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    #[test]
    fn a_finished_run_resumes_to_its_book_without_searching() {
        let path = temp("finished");
        let book = run_to_end(small(), &path);
        let count = AtomicUsize::new(0);
        let again = Generator::resume(&path)
            .unwrap()
            .run(|| Counting(&count), &AtomicBool::new(false), |_| {})
            .unwrap();
        assert_eq!(again.entries(), book.entries());
        assert_eq!(count.load(Ordering::Relaxed), 0);
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    #[test]
    fn different_seeds_make_different_pools() {
        let a = Generator::new(small(), &temp("seed-a")).unwrap();
        let b = Generator::new(GenerateConfig { seed: 4, ..small() }, &temp("seed-b")).unwrap();
        assert_ne!(a.state.pool, b.state.pool);
        assert_ne!(a.state.candidates, b.state.candidates);
        // The same seed gives the same start.
        let again = Generator::new(small(), &temp("seed-a")).unwrap();
        assert_eq!(again.state, a.state);
        std::fs::remove_dir_all(temp("seed-a").parent().unwrap()).ok();
        std::fs::remove_dir_all(temp("seed-b").parent().unwrap()).ok();
    }
}
