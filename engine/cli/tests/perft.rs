//! The `leaper perft` and `leaper perft-bench` commands: divide and total
//! output, clear errors for bad input, and the counts of
//! shared/data/perft-sample.txt checked at speed.

use leaper::Position;
use std::path::Path;
use std::process::Command;

#[test]
fn perft_command_prints_divide_and_total() {
    let out = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["perft", "3", "--moves", "AWAAAAAADFFDDDAN addadffdnaaaaawa"])
        .output()
        .expect("run leaper");
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 23);
    assert_eq!(lines[22], "Nodes searched: 11374");
    let sum: u64 = lines[..22]
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 11374);
    assert!(lines[0].starts_with("a1c3: "), "{}", lines[0]);

    let fen = "1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26";
    let out = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["perft", "1", "--fen", fen])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let pos = Position::from_fen(fen).unwrap();
    assert_eq!(
        stdout.lines().last().unwrap(),
        format!("Nodes searched: {}", pos.count_moves())
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("Ac1: ")),
        "drops carry the mover's case"
    );
}

#[test]
fn perft_command_rejects_bad_input_with_a_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["perft", "2", "--moves", "AWAAAAAADFFDDDAN addadffdnaaaaawa a1a2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("move 3 'a1a2'") && stderr.contains("cannot leap"),
        "{stderr}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args(["perft", "1", "--fen", "8/8 - r 0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 rows"));
}

#[test]
fn perft_bench_checks_counts_and_reports_speed() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/perft-sample.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_leaper"))
        .args([
            "perft-bench",
            "--max-nodes",
            "1000000",
            "--runs",
            "1",
            "--threads",
            "2",
            "--file",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("C1 ") && l.contains("849295 nodes")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("total ") && l.ends_with("M nodes/s")),
        "{stdout}"
    );
}
