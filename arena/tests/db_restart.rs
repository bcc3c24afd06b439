//! A database restarted in the middle of a run: the test starts a
//! PostgreSQL server of its own (initdb in a scratch directory, its own
//! port), so that stopping it disturbs no other test; a worker playing a
//! batch loses its connections, retries with backoff, and records the
//! batch once the server is back. Skipped with a note when the server's
//! programs (`initdb`, `pg_ctl`) are missing, unless
//! `LEAPER_REQUIRE_POSTGRES=1`.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{arena_bin, mock_engine, run_ok, scratch, strings};

const LIMIT: Duration = Duration::from_secs(120);

fn program(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.filter_map(Result::ok).map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs.reverse();
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// A private server, stopped and removed on drop.
struct Server {
    pg_ctl: PathBuf,
    data: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

impl Server {
    fn command(&self, program: &Path) -> Command {
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    fn ctl(&self, args: &[&str]) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        let out = self
            .command(&self.pg_ctl)
            .arg("-D")
            .arg(&self.data)
            .args(["-o", &options, "-l"])
            .arg(self.dir.join("log"))
            .args(["-w"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("pg_ctl runs");
        assert!(
            out.status.success(),
            "pg_ctl {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn url(&self) -> String {
        format!("postgres://root@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self
            .command(&self.pg_ctl)
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn private_server() -> Option<Server> {
    let (Some(initdb), Some(pg_ctl)) = (program("initdb"), program("pg_ctl")) else {
        assert!(
            !std::env::var("LEAPER_REQUIRE_POSTGRES").is_ok_and(|v| v == "1"),
            "LEAPER_REQUIRE_POSTGRES=1 but initdb or pg_ctl is missing"
        );
        eprintln!("db_restart: skipped: no initdb or pg_ctl to start a private PostgreSQL server");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("leaper-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // initdb refuses root: the server then runs as `postgres`.
    let uid = Command::new("id").arg("-u").output().expect("id runs");
    let as_postgres = String::from_utf8_lossy(&uid.stdout).trim() == "0";
    if as_postgres {
        let status = Command::new("chown")
            .arg("postgres:")
            .arg(&dir)
            .status()
            .expect("chown runs");
        assert!(
            status.success(),
            "running as root, the private server needs the user postgres"
        );
    }
    let port = 20_000 + u16::try_from(std::process::id() % 20_000).unwrap();
    let server = Server {
        pg_ctl,
        data: dir.join("data"),
        dir,
        port,
        as_postgres,
    };
    let out = server
        .command(&initdb)
        .arg("-D")
        .arg(&server.data)
        .args(["-A", "trust", "-U", "root", "--no-sync"])
        .output()
        .expect("initdb runs");
    assert!(
        out.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.ctl(&["start"]);
    Some(server)
}

#[test]
fn a_database_restarted_mid_batch_loses_nothing_and_counts_nothing_twice() {
    let Some(server) = private_server() else { return };
    let url = server.url();
    let dir = scratch("db-restart");
    let mut args = strings(&["match", "--db", &url, "--quiet", "--detach", "--games", "8"]);
    args.extend(mock_engine("a", &["option.DelayMs=15"]));
    args.extend(mock_engine("b", &["option.DelayMs=15"]));
    args.extend(strings(&["--each", "depth=1"]));
    let created = run_ok(&args, LIMIT);
    assert!(String::from_utf8_lossy(&created.stdout).starts_with("run 1\n"));

    let mut worker = Command::new(arena_bin())
        .args([
            "worker",
            "--db",
            &url,
            "--name",
            "steady",
            "--lease",
            "3",
            "--idle-exit",
            "--cache",
        ])
        .arg(dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("worker starts");
    let mut stdout = BufReader::new(worker.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("games 0..7"), "{line}");
    std::thread::sleep(Duration::from_millis(500));
    server.ctl(&["-m", "fast", "stop"]);
    std::thread::sleep(Duration::from_secs(2));
    server.ctl(&["start"]);

    let deadline = Instant::now() + LIMIT;
    while worker.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the worker did not finish");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = worker.wait_with_output().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{rest}\n{err}");
    assert!(rest.contains("8 games recorded (run complete)"), "{rest}\n{err}");
    assert!(err.contains("retrying"), "the worker saw the database go: {err}");

    let export = dir.join("export");
    run_ok(
        &strings(&["export", "--db", &url, "1", "--out", export.to_str().unwrap()]),
        LIMIT,
    );
    let games = common::games(&export);
    let mut ids: Vec<u64> = games.iter().map(|g| g.game).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..8).collect::<Vec<_>>());
    let stats = run_ok(
        &strings(&[
            "stats",
            "--from",
            export.join("games.csv").to_str().unwrap(),
            "--player",
            "a",
            "--json",
        ]),
        LIMIT,
    );
    let from_csv: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let summary = common::summary(&export);
    for key in ["games", "pairs", "elo", "nelo", "los"] {
        assert_eq!(from_csv[key], summary[key], "{key}");
    }
}
