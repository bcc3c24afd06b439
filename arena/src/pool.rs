//! N game slots on worker threads. Jobs go in through a channel, finished
//! games come out through another, in the order they finish; the caller
//! decides what to play next (a fixed schedule, an SPRT that may stop
//! early, a tuner that asks for new trials), which keeps this module free
//! of any policy. Cancelling abandons the games in flight at once: every
//! wait on an engine also watches the cancel channel.

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

impl Drop for GamePool {
    fn drop(&mut self) {
        self.jobs = None;
        self.cancel = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
