//! `leaper bench` and `leaper bench-stop` as the CLI runs them: the bench's
//! last line is `<nodes> nodes <nps> nps` and its node count is the same on
//! every run (it is the search's signature); `bench-stop` reports a median
//! stop latency. Timing figures are printed, never asserted.

use std::process::Command;

fn leaper(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_leaper")).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "leaper {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The node count of the last line, checked for the `N nodes M nps` shape.
fn bench_nodes(output: &str) -> u64 {
    let last = output.lines().last().unwrap_or_default();
    let words: Vec<&str> = last.split(' ').collect();
    match words.as_slice() {
        [nodes, "nodes", nps, "nps"] if nps.parse::<u64>().is_ok() => nodes.parse().unwrap(),
        _ => panic!("last line `{last}` is not `<nodes> nodes <nps> nps`"),
    }
}

#[test]
fn bench_node_counts_are_deterministic() {
    let first = bench_nodes(&leaper(&["bench", "--depth", "4"]));
    let second = bench_nodes(&leaper(&["bench", "--depth", "4"]));
    assert_eq!(first, second);
    assert!(first > 10_000, "{first}");
    assert!(bench_nodes(&leaper(&["bench", "--depth", "2"])) < first);
}

#[test]
fn bench_stop_reports_a_median() {
    let out = leaper(&["bench-stop", "--runs", "3", "--think-ms", "30"]);
    eprintln!("{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("stop ")).count(), 4, "{out}");
    assert!(out.lines().last().unwrap().starts_with("stop latency median "), "{out}");
}

#[test]
fn bench_matches_the_committed_signature() {
    let nodes = bench_nodes(&leaper(&["bench"]));
    assert_eq!(
        nodes,
        leaper::server::bench::SIGNATURE,
        "the search changed: if on purpose, set SIGNATURE in engine/src/server/bench.rs to {nodes}"
    );
}
