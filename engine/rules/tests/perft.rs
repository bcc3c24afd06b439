//! Perft counts of shared/data/perft-sample.txt, serial and parallel (the
//! counts were computed by two independent implementations).

use leaper_rules::{Position, SetupCase, parse_perft_cases, perft};
use std::path::Path;

/// Counts above this are skipped so the suite stays fast (the benchmark
/// `leaper perft-bench` runs them all).
const NODE_LIMIT: u64 = 300_000_000;

fn sample() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/perft-sample.txt");
    std::fs::read_to_string(path).expect("shared/data/perft-sample.txt beside the checkout")
}

fn position(moves: &str) -> Position {
    let mut pos = Position::new();
    for text in moves.split_whitespace() {
        let mv = pos.parse_move(text, SetupCase::Strict).expect("sample moves are legal");
        pos.play_game_move(&mv);
    }
    pos
}

#[test]
fn sample_counts_match() {
    let cases = parse_perft_cases(&sample()).expect("well-formed sample");
    assert!(cases.len() >= 5);
    let mut checked = 0;
    for case in &cases {
        let pos = position(&case.moves);
        // The mirrored position has the same counts.
        let mirror = pos.mirror();
        for &(depth, expected) in case.counts.iter().filter(|(_, n)| *n <= NODE_LIMIT) {
            assert_eq!(perft(&pos, depth), expected, "{} depth {depth}", case.id);
            if !pos.is_setup_phase() && expected < 10_000_000 {
                assert_eq!(perft(&mirror, depth), expected, "{} mirrored, depth {depth}", case.id);
            }
            checked += 1;
        }
    }
    assert!(checked >= 14, "only {checked} counts checked");
}

#[test]
fn empty_board_depth_one_is_every_setup() {
    assert_eq!(perft(&Position::new(), 1), 10_810_800);
    assert_eq!(perft(&Position::new(), 0), 1);
}

#[test]
fn parallel_perft_equals_serial() {
    let pos = position("AWAAAAAADFFDDDAN addadffdnaaaaawa");
    assert_eq!(leaper_rules::perft_parallel(&pos, 4, 3), 264113);
    let after_red = position("AAAAAAWANADDDFFD");
    assert_eq!(leaper_rules::perft_parallel(&after_red, 2, 2), 237837600);
}
