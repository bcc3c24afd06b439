//! N game slots on worker threads. Jobs go in through a channel, finished
//! games come out through another, in the order they finish; the caller
//! decides what to play next (a fixed schedule, an SPRT that may stop
//! early, a tuner that asks for new trials), which keeps this module free
//! of any policy. Cancelling abandons the games in flight at once: every
//! wait on an engine also watches the cancel channel.
//!
//! [`play_fed`] is the one loop that feeds a pool, for matches, gauntlets,
//! round robins and tuning alike: a [`Feed`] says what to play next and
//! what a finished game means; the loop keeps two games queued per slot.

use std::sync::Arc;
use std::thread::{self, JoinHandle};

use crossbeam_channel::{Receiver, Sender};

use crate::slot::{FinishedGame, GameJob, GameObserver, GameSlot};

/// What a worker hands back for each job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolResult {
    /// The game was played to its end.
    Finished(Box<FinishedGame>),
    /// The game was abandoned because the pool was cancelled.
    Abandoned(GameJob),
}

/// Worker threads playing games.
#[derive(Debug)]
pub struct GamePool {
    jobs: Option<Sender<GameJob>>,
    results: Receiver<PoolResult>,
    cancel: Option<Sender<()>>,
    workers: Vec<JoinHandle<()>>,
}

impl GamePool {
    /// Starts `concurrency` workers (at least one), each with its own
    /// [`GameSlot`], reporting to `observer`.
    #[must_use]
    pub fn new(concurrency: usize, observer: Arc<dyn GameObserver>) -> Self {
        let (job_tx, job_rx) = crossbeam_channel::unbounded::<GameJob>();
        let (result_tx, results) = crossbeam_channel::unbounded();
        let (cancel, cancel_rx) = crossbeam_channel::bounded::<()>(0);
        let workers = (0..concurrency.max(1))
            .map(|i| {
                let jobs = job_rx.clone();
                let results = result_tx.clone();
                let cancel = cancel_rx.clone();
                let observer = Arc::clone(&observer);
                thread::Builder::new()
                    .name(format!("game-slot-{i}"))
                    .spawn(move || {
                        let mut slot = GameSlot::new(Some(cancel.clone()));
                        for job in jobs {
                            let cancelled =
                                matches!(cancel.try_recv(), Err(crossbeam_channel::TryRecvError::Disconnected));
                            let result = if cancelled { None } else { slot.play(&job, &*observer) };
                            let result = match result {
                                Some(game) => PoolResult::Finished(Box::new(game)),
                                None => PoolResult::Abandoned(job),
                            };
                            if results.send(result).is_err() {
                                break;
                            }
                        }
                    })
                    .expect("the system cannot start a worker thread")
            })
            .collect();
        Self {
            jobs: Some(job_tx),
            results,
            cancel: Some(cancel),
            workers,
        }
    }

    /// Queues a job. Returns false after [`GamePool::cancel`].
    pub fn submit(&self, job: GameJob) -> bool {
        self.jobs.as_ref().is_some_and(|jobs| jobs.send(job).is_ok())
    }

    /// The finished (or abandoned) games, as they come.
    #[must_use]
    pub fn results(&self) -> &Receiver<PoolResult> {
        &self.results
    }

    /// Abandons the games in flight and every queued job: each comes back
    /// as [`PoolResult::Abandoned`].
    pub fn cancel(&mut self) {
        self.cancel = None;
    }

    /// Stops taking jobs, lets the workers finish what is queued (or
    /// abandon it after [`GamePool::cancel`]), and joins them; their
    /// engines are told to quit, and waited for (or killed).
    pub fn shutdown(mut self) {
        self.jobs = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        crate::player::wait_for_quitting_engines();
    }
}

/// The policy of a run played by [`play_fed`].
pub trait Feed {
    /// Why the run cannot go on.
    type Error;
    /// The next game to play, or `None` when there is none for now (the
    /// feed is asked again after each finished game).
    ///
    /// # Errors
    /// When the next game cannot be made.
    fn next_job(&mut self) -> Result<Option<GameJob>, Self::Error>;
    /// A game was played to its end. `Ok(false)` stops the run: the games
    /// in flight are abandoned.
    ///
    /// # Errors
    /// When the game cannot be counted; the run stops.
    fn finished(&mut self, game: FinishedGame) -> Result<bool, Self::Error>;
}

/// Plays the games `feed` gives on `concurrency` slots reporting to
/// `observer`, at most two per slot in flight, until the feed has none
/// left and all are played, or it stops the run or fails. The pool is shut
/// down (its engines quit) before this returns.
///
/// # Errors
/// The feed's error.
pub fn play_fed<F: Feed>(concurrency: usize, observer: Arc<dyn GameObserver>, feed: &mut F) -> Result<(), F::Error> {
    let mut pool = GamePool::new(concurrency, observer);
    let limit = concurrency.max(1) * 2;
    let mut in_flight = 0usize;
    let outcome = loop {
        // Once the arena is stopping (Ctrl-C, SIGTERM) no game can start:
        // take no more, or every job left would be started and abandoned
        // at once, each leaving a `game-started` behind in the log.
        while in_flight < limit && !crate::process::stopping() {
            match feed.next_job() {
                Ok(Some(job)) => {
                    if !pool.submit(job) {
                        break;
                    }
                    in_flight += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    pool.cancel();
                    pool.shutdown();
                    return Err(e);
                }
            }
        }
        if in_flight == 0 {
            break Ok(());
        }
        let Ok(result) = pool.results().recv() else {
            break Ok(());
        };
        in_flight -= 1;
        let PoolResult::Finished(game) = result else { continue };
        match feed.finished(*game) {
            Ok(true) => {}
            Ok(false) => {
                pool.cancel();
                break Ok(());
            }
            Err(e) => {
                pool.cancel();
                break Err(e);
            }
        }
    };
    pool.shutdown();
    outcome
}

impl Drop for GamePool {
    fn drop(&mut self) {
        self.jobs = None;
        self.cancel = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
