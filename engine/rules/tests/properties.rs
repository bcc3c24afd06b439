//! Property tests over random games: the incremental hash, and each side's
//! part of it, equals the hash from scratch, every generated move formats
//! and parses back to itself, generation agrees with bulk counting, the
//! position string round-trips, pieces are conserved, and mirrored
//! positions behave alike.

use leaper_rules::{Color, GameMove, MoveList, Position, Role, SETUP_COUNT, Setup, SetupCase, perft};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Pieces of each role on the board and in hands together.
fn material(pos: &Position) -> [usize; 5] {
    let mut counts = [0usize; 5];
    for role in Role::ALL {
        counts[role.index()] = pos.role_squares(role).count() as usize
            + Color::ALL
                .iter()
                .map(|&c| pos.hand(c).count(role) as usize)
                .sum::<usize>();
    }
    counts
}

fn check_invariants(pos: &Position) -> Result<(), TestCaseError> {
    prop_assert_eq!(pos.hash(), pos.compute_hash());
    for color in Color::ALL {
        prop_assert_eq!(pos.side_hash(color), pos.compute_side_hash(color));
    }
    let fen = pos.to_fen();
    let back = Position::from_fen(&fen).map_err(|e| TestCaseError::fail(format!("{fen}: {e}")))?;
    prop_assert_eq!(&back, pos);
    prop_assert_eq!(back.hash(), pos.hash());
    if !pos.is_setup_phase() {
        let counts = material(pos);
        for role in Role::DROPPABLE {
            prop_assert_eq!(counts[role.index()], 2 * role.count_per_side() as usize);
        }
        let wazirs = counts[Role::Wazir.index()];
        prop_assert!(wazirs == 2 || (wazirs == 1 && pos.terminal().is_some()));
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        prop_assert_eq!(list.len() as u64, pos.count_moves());
        prop_assert!(list.len() <= leaper_rules::MAX_MOVES);
        for &mv in &list {
            let text = mv.display(pos.turn()).to_string();
            prop_assert_eq!(
                pos.parse_move(&text, SetupCase::Strict),
                Ok(GameMove::Move(mv)),
                "{}",
                text
            );
        }
        let mirror = pos.mirror();
        prop_assert_eq!(mirror.count_moves(), pos.count_moves());
        prop_assert_eq!(mirror.outcome(), pos.outcome());
    }
    Ok(())
}

/// Plays a random game from random setups, checking invariants at every ply.
fn random_game(seed: u64, drop_bias: bool) -> Result<Position, TestCaseError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Position::new();
    check_invariants(&pos)?;
    for _ in 0..2 {
        let setup = Setup::random(&mut rng);
        let text = setup.to_text(pos.turn());
        prop_assert_eq!(pos.parse_move(&text, SetupCase::Strict), Ok(GameMove::Setup(setup)));
        pos.play_setup(&setup);
        check_invariants(&pos)?;
    }
    let mut list = MoveList::new();
    while pos.outcome().is_none() {
        list.clear();
        pos.legal_moves(&mut list);
        prop_assert!(!list.is_empty());
        // Prefer captures half the time so games reach drops and wazir captures.
        let captures: Vec<_> = list
            .iter()
            .copied()
            .filter(|m| m.from().is_some() && pos.piece_at(m.to()).is_some())
            .collect();
        let drops: Vec<_> = list.iter().copied().filter(|m| m.is_drop()).collect();
        let mv = if !captures.is_empty() && rng.random_bool(0.5) {
            captures[rng.random_range(0..captures.len())]
        } else if drop_bias && !drops.is_empty() && rng.random_bool(0.5) {
            drops[rng.random_range(0..drops.len())]
        } else {
            list.as_slice()[rng.random_range(0..list.len())]
        };
        let hash_before = pos.hash();
        pos.play(mv);
        prop_assert_ne!(pos.hash(), hash_before);
        check_invariants(&pos)?;
    }
    Ok(pos)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_games_keep_every_invariant(seed in any::<u64>(), drop_bias in any::<bool>()) {
        let end = random_game(seed, drop_bias)?;
        prop_assert!(end.outcome().is_some());
        prop_assert!(end.ply() <= 102);
    }

    #[test]
    fn setup_rank_round_trips(rank in 0..SETUP_COUNT) {
        let setup = Setup::unrank(rank).unwrap();
        prop_assert_eq!(setup.rank(), rank);
        prop_assert_eq!(Setup::unrank(setup.mirror().rank()).unwrap(), setup.mirror());
    }

    #[test]
    fn mirrored_setups_have_equal_perft(red in 0..SETUP_COUNT, blue in 0..SETUP_COUNT) {
        let (red, blue) = (Setup::unrank(red).unwrap(), Setup::unrank(blue).unwrap());
        let pos = Position::from_setups(&red, &blue);
        let mirrored = Position::from_setups(&red.mirror(), &blue.mirror());
        prop_assert_eq!(perft(&pos, 3), perft(&mirrored, 3));
    }
}

#[test]
fn random_setups_are_spread_over_all_ranks() {
    // Uniformity, coarsely: 16 equal rank buckets each get their share.
    let mut rng = StdRng::seed_from_u64(7);
    let mut buckets = [0u32; 16];
    let n = 32_000;
    for _ in 0..n {
        buckets[(Setup::random(&mut rng).rank() as u64 * 16 / SETUP_COUNT as u64) as usize] += 1;
    }
    for (i, &b) in buckets.iter().enumerate() {
        // Expected 2000 each, standard deviation about 43: 6 sigma.
        assert!((1740..=2260).contains(&b), "bucket {i} has {b}");
    }
}
