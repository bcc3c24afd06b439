//! An `arena worker` process for the database tests (`db_runs.rs`,
//! `db_tune.rs`): started on a test database with its own engine cache,
//! its stdout lines read on a thread so that a test can wait for a line
//! (a batch claimed, a trial recorded) while the worker goes on, then
//! killed, frozen or waited for with a bound.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::common::{arena_bin, wait_bounded};
use nix::unistd::Pid;

/// How long a test waits for a worker's line or exit.
pub const LIMIT: Duration = Duration::from_secs(120);

/// A worker process whose stdout lines come through a channel.
pub struct Worker {
    pub child: Child,
    lines: Receiver<String>,
    /// The lines read so far.
    pub seen: Vec<String>,
}

impl Worker {
    /// `arena worker --db URL --name NAME --lease LEASE --idle-exit --cache CACHE`.
    pub fn start(url: &str, name: &str, lease: &str, cache: &Path) -> Self {
        let mut child = Command::new(arena_bin())
            .args([
                "worker",
                "--db",
                url,
                "--name",
                name,
                "--lease",
                lease,
                "--idle-exit",
                "--cache",
            ])
            .arg(cache)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("arena worker starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a line containing `text`.
    pub fn wait_for(&mut self, text: &str) -> String {
        let deadline = Instant::now() + LIMIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no line with {text:?} from the worker; it said:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// The worker's process id, for signals.
    pub fn pid(&self) -> Pid {
        Pid::from_raw(i32::try_from(self.child.id()).expect("pid"))
    }

    /// Waits (at most [`LIMIT`]) for the worker to exit successfully;
    /// returns all it printed (stdout, stderr).
    pub fn finish(mut self) -> (String, String) {
        let out = wait_bounded(self.child, LIMIT, "a worker");
        self.seen.extend(self.lines.try_iter());
        let stdout = self.seen.join("\n");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "the worker failed ({})\nstdout:\n{stdout}\nstderr:\n{stderr}",
            out.status
        );
        (stdout, stderr)
    }
}
