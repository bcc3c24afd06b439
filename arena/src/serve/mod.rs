//! `arena serve`: a small web server on loopback that shows runs while they
//! go. The pages (HTML, CSS, JavaScript, all in this binary) ask the JSON
//! endpoints below for their data every few seconds; the charts are SVG
//! drawn here; the game viewer gets each position from the rules crate.
//!
//! Safety: the runs are those of the directories on the command line (and
//! runs that appear later inside the folders among them), then those of the
//! database of `--db` (exported into the server's own cache directory). A
//! URL names a run by its number in that list and a game by its id, and
//! the files read are always the run's own, by their fixed names: no part of a URL ever becomes a path,
//! and anything that is not one of the routes is a 404.
//!
//! Routes (all `GET`):
//! - `/`, `/run/N`, `/run/N/game/G`: the pages;
//! - `/assets/NAME`: the embedded style sheet and script;
//! - `/api/runs`: every run's overview;
//! - `/api/run/N`: one run's overview, chart point count and latest games;
//! - `/api/run/N/llr.svg`, `/api/run/N/elo.svg`: its charts;
//! - `/api/run/N/traces.svg`: a tuning run's parameter traces (its file);
//! - `/api/run/N/game/G`: a game replayed, position by position.

mod charts;
mod runs;
mod viewer;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use thiserror::Error;
use tiny_http::{Header, Method, Request, Response};

use crate::tune::TRACES_FILE;

pub use charts::{elo_svg, llr_svg};
pub use runs::{GameRow, Point, Run, Runs};
pub use viewer::game_json;

/// The default address: loopback only, so nothing is shown to the network
/// unless asked.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// How many games a run's page lists (the newest).
const LISTED_GAMES: usize = 500;

/// Threads answering requests: a slow request (a long game file) does not
/// hold up the others.
const WORKERS: usize = 4;

/// `arena serve`'s arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Run directories to show (of `match`, `gauntlet`, `roundrobin` or
    /// `tune`), or folders whose subdirectories are runs.
    #[arg(required_unless_present = "db", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Also show the runs of this PostgreSQL database (`postgres://...`),
    /// as `arena match --db` creates them.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// What `--db`'s URL leaves out (the binary reads the `PG*`
    /// variables into it).
    #[arg(skip)]
    pub pg_env: crate::db::PgEnv,
    /// The address to listen on; port 0 picks a free one.
    #[arg(long, default_value = DEFAULT_ADDR)]
    pub addr: SocketAddr,
}

/// Why the server cannot start.
#[derive(Debug, Error)]
pub enum ServeError {
    /// A directory given is neither a run nor a folder of runs.
    #[error("{0}: not a run directory of the arena (no config.json or tune.json in it or in its subdirectories)")]
    NotARun(PathBuf),
    /// A run's saved settings could not be read.
    #[error("{dir}: {reason}")]
    BadRun {
        /// The run's directory.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The database could not be read (its URL shown without password).
    #[error("{0}")]
    Db(String),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {reason}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// What the system said.
        reason: String,
    },
}

/// A bound server and its runs.
pub struct Server {
    http: Arc<tiny_http::Server>,
    addr: SocketAddr,
    runs: Arc<Runs>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("addr", &self.addr)
            .field("runs", &self.runs)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Finds the runs of `args.dirs` (and of `args.db`) and binds
    /// `args.addr`.
    ///
    /// # Errors
    /// [`Runs::find_with_db`]'s; [`ServeError::Bind`] when the address is
    /// taken or not local.
    pub fn bind(args: &ServeArgs) -> Result<Self, ServeError> {
        let runs = Runs::find_with_db(&args.dirs, args.db.as_deref(), &args.pg_env)?;
        let http = tiny_http::Server::http(args.addr).map_err(|e| ServeError::Bind {
            addr: args.addr,
            reason: e.to_string(),
        })?;
        let addr = http.server_addr().to_ip().unwrap_or(args.addr);
        Ok(Self {
            http: Arc::new(http),
            addr,
            runs: Arc::new(runs),
        })
    }

    /// The address bound (with the port chosen, if 0 was asked).
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The runs shown, in their URL order.
    #[must_use]
    pub fn runs(&self) -> Vec<Arc<Run>> {
        self.runs.all()
    }

    /// The database's URL without its password, when `--db` was given.
    #[must_use]
    pub fn db_url(&self) -> Option<String> {
        self.runs.db_url()
    }

    /// Answers requests until the process ends.
    pub fn serve(self) {
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                let http = Arc::clone(&self.http);
                let runs = Arc::clone(&self.runs);
                std::thread::spawn(move || {
                    while let Ok(request) = http.recv() {
                        answer(&runs, request);
                    }
                })
            })
            .collect();
        for worker in workers {
            let _ = worker.join();
        }
    }
}

/// A response: status, content type, body.
type Reply = (u16, &'static str, Vec<u8>);

const HTML: &str = "text/html; charset=utf-8";
const JSON: &str = "application/json";
const SVG: &str = "image/svg+xml";
const TEXT: &str = "text/plain; charset=utf-8";

fn answer(runs: &Runs, request: Request) {
    let (status, kind, body) = if *request.method() == Method::Get || *request.method() == Method::Head {
        route(runs, request.url())
    } else {
        (405, TEXT, b"only GET is served\n".to_vec())
    };
    let mut response = Response::from_data(body).with_status_code(status);
    for (name, value) in [
        ("Content-Type", kind),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'",
        ),
    ] {
        if let Ok(header) = Header::from_bytes(name, value) {
            response.add_header(header);
        }
    }
    // A client gone away is no concern of the server's.
    let _ = request.respond(response);
}

fn not_found() -> Reply {
    (404, TEXT, b"not found\n".to_vec())
}

fn json_reply(value: &Value) -> Reply {
    (200, JSON, value.to_string().into_bytes())
}

/// The answer to `url`. Only the exact shapes of the routes match; a run
/// or game number must be plain decimal digits.
fn route(runs: &Runs, url: &str) -> Reply {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    let run = |text: &str| {
        number(text)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| runs.get(i).map(|r| (i, r)))
    };
    match parts.as_slice() {
        [""] => (200, HTML, assets::INDEX.as_bytes().to_vec()),
        ["run", n] if run(n).is_some() => (200, HTML, assets::RUN.as_bytes().to_vec()),
        ["run", n, "game", g] if run(n).is_some_and(|(_, r)| number(g).is_some_and(|g| r.has_game(g))) => {
            (200, HTML, assets::GAME.as_bytes().to_vec())
        }
        ["assets", "style.css"] => (200, "text/css; charset=utf-8", assets::STYLE.as_bytes().to_vec()),
        ["assets", "app.js"] => (
            200,
            "text/javascript; charset=utf-8",
            assets::SCRIPT.as_bytes().to_vec(),
        ),
        ["api", "runs"] => {
            runs.rescan();
            let all = runs.all();
            json_reply(&json!(
                all.iter().enumerate().map(|(i, r)| r.overview(i)).collect::<Vec<_>>()
            ))
        }
        ["api", "run", n] => run(n).map_or_else(not_found, |(i, r)| json_reply(&r.details(i, LISTED_GAMES))),
        ["api", "run", n, chart @ ("llr.svg" | "elo.svg")] => run(n).map_or_else(not_found, |(_, r)| {
            let (points, bounds) = r.points();
            let svg = if *chart == "llr.svg" {
                llr_svg(&points, bounds)
            } else {
                elo_svg(&points)
            };
            match svg {
                Ok(svg) => (200, SVG, svg.into_bytes()),
                Err(e) => (500, TEXT, e.into_bytes()),
            }
        }),
        ["api", "run", n, "traces.svg"] => match run(n) {
            Some((_, r)) if r.is_tune() => match std::fs::read(r.file(TRACES_FILE)) {
                Ok(bytes) => (200, SVG, bytes),
                Err(_) => not_found(),
            },
            _ => not_found(),
        },
        ["api", "run", n, "game", g] => match (run(n), number(g)) {
            (Some((_, r)), Some(g)) => match r.game(g) {
                Ok(Some(record)) => json_reply(&game_json(&record)),
                Ok(None) => not_found(),
                Err(e) => (500, TEXT, e.into_bytes()),
            },
            _ => not_found(),
        },
        _ => not_found(),
    }
}

/// A number written as plain decimal digits (no sign, no spaces, no
/// escapes), or `None`.
fn number(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

mod assets {
    //! The pages and their style and script, embedded in the binary so the
    //! server needs nothing but itself and the runs.
    pub const INDEX: &str = include_str!("assets/index.html");
    pub const RUN: &str = include_str!("assets/run.html");
    pub const GAME: &str = include_str!("assets/game.html");
    pub const STYLE: &str = include_str!("assets/style.css");
    pub const SCRIPT: &str = include_str!("assets/app.js");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_numbers_name_runs_and_games() {
        assert_eq!(number("12"), Some(12));
        for bad in ["", "-1", "+1", "1 ", "..", "%2e%2e", "0x1", "99999999999999999999"] {
            assert_eq!(number(bad), None, "{bad}");
        }
    }

    #[test]
    fn paths_outside_the_routes_are_not_found() {
        let none = Runs::find(&[]).unwrap();
        for url in [
            "/run/../../etc/passwd",
            "/run/%2e%2e/%2e%2e/etc/passwd",
            "/api/run/0/../../../etc/passwd",
            "/assets/../Cargo.toml",
            "/etc/passwd",
            "/api/run/0",
            "/run/0",
        ] {
            let (status, _, _) = route(&none, url);
            assert_eq!(status, 404, "{url}");
        }
        assert_eq!(route(&none, "/").0, 200);
        assert_eq!(route(&none, "/api/runs").2, b"[]");
    }
}
