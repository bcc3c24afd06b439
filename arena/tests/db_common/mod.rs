//! A fresh PostgreSQL database for one test: created through the server's
//! `postgres` database as `leaper_t_<pid>_<n>` and dropped when the guard
//! goes. The server is `LEAPER_TEST_PG` (a URL without a database name,
//! default `postgres://root@127.0.0.1:5432`). When it cannot be reached the
//! test is skipped with a note, or fails if `LEAPER_REQUIRE_POSTGRES=1`
//! (as in CI).

#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A database that is dropped with this guard.
#[derive(Debug)]
pub struct TestDb {
    server: String,
    name: String,
    /// The URL of the database.
    pub url: String,
}

fn server() -> String {
    std::env::var("LEAPER_TEST_PG").unwrap_or_else(|_| "postgres://root@127.0.0.1:5432".to_owned())
}

/// A fresh database, or `None` (after a printed note) when PostgreSQL is
/// unreachable and not required.
pub fn fresh(test: &str) -> Option<TestDb> {
    let server = server();
    let admin = format!("{server}/postgres");
    let mut client = match postgres::Client::connect(&admin, postgres::NoTls) {
        Ok(client) => client,
        Err(error) => {
            let shown = arena::db::redact_url(&admin);
            if std::env::var("LEAPER_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") {
                panic!(
                    "{test}: PostgreSQL is required (LEAPER_REQUIRE_POSTGRES=1) but {shown} is unreachable: {error}"
                );
            }
            eprintln!(
                "{test}: skipped: PostgreSQL at {shown} is unreachable ({error}); set LEAPER_REQUIRE_POSTGRES=1 to make this a failure"
            );
            return None;
        }
    };
    let name = format!(
        "leaper_t_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .expect("drop a leftover test database");
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("create the test database");
    Some(TestDb {
        url: format!("{server}/{name}"),
        server,
        name,
    })
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&format!("{}/postgres", self.server), postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}
