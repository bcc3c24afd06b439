//! `arena serve`: binds the server, says where it listens and which runs
//! it shows, then answers requests until Ctrl-C.

use anyhow::{Context, Result};
use arena::serve::{ServeArgs, Server};

/// Starts the server of `args` and serves until the process is ended.
///
/// # Errors
/// When a directory is not a run, the database cannot be read or the
/// address cannot be bound.
pub fn run(args: &ServeArgs) -> Result<()> {
    let args = ServeArgs {
        pg_env: crate::db_cli::pg_env(),
        ..args.clone()
    };
    let server = Server::bind(&args).context("arena serve")?;
    // The first line names the address, so scripts (and the tests) can
    // start the server on port 0 and read where it went.
    println!("serving on http://{}/", server.addr());
    let db = server.db_url().unwrap_or_default();
    for (i, run) in server.runs().iter().enumerate() {
        match run.db_run() {
            Some(id) => println!("  run {i}: {} (run {id} of {db})", run.name()),
            None => println!("  run {i}: {} ({})", run.name(), run.dir().display()),
        }
    }
    if !server.addr().ip().is_loopback() {
        eprintln!("arena serve: warning: {} is reachable from the network", server.addr());
    }
    server.serve();
    Ok(())
}
