//! The features after random games: incremental changes equal a
//! recomputation from scratch for both perspectives, and every board
//! symmetry (and the colour swap) leaves a position's features unchanged.

mod common;

use common::{MoveKinds, count_kind, random_game};
use leaper_nnue::features::{self, FeatureDelta, Transform, frame, swap_colors};
use leaper_nnue::{MAX_ACTIVE, NUM_FEATURES, active_features, move_delta, move_deltas};
use leaper_rules::{Color, Role};

fn sorted(list: &[u16]) -> Vec<u16> {
    let mut v = list.to_vec();
    v.sort_unstable();
    v
}

#[test]
fn incremental_features_equal_scratch_after_random_games() {
    let mut kinds = MoveKinds::default();
    let (mut updates, mut refreshes, mut tie_refreshes) = (0usize, 0usize, 0usize);
    for seed in 0..150 {
        let (positions, moves) = random_game(seed);
        let mut sets: Vec<(features::Frame, Vec<u16>)> = Color::ALL
            .iter()
            .map(|&c| {
                let (f, l) = active_features(&positions[0], c);
                (f, sorted(l.as_slice()))
            })
            .collect();
        for (i, &mv) in moves.iter().enumerate() {
            let (before, after) = (&positions[i], &positions[i + 1]);
            count_kind(before, mv, &mut kinds);
            let wazir_moved = mv
                .from()
                .is_some_and(|f| before.piece_at(f).is_some_and(|p| p.role == Role::Wazir));
            // Both perspectives at once, as a push computes them, are each
            // perspective's own.
            let frames = [sets[0].0, sets[1].0];
            assert_eq!(
                move_deltas(before, mv, after, frames),
                Color::ALL.map(|c| move_delta(before, mv, after, c, frames[c.index()])),
                "seed {seed} ply {i}"
            );
            for color in Color::ALL {
                let (frame_before, set) = &mut sets[color.index()];
                match move_delta(before, mv, after, color, *frame_before) {
                    FeatureDelta::Refresh(frame_after) => {
                        refreshes += 1;
                        let own_wazir_moved = wazir_moved && before.turn() == color;
                        if !own_wazir_moved && after.wazir(color).is_some() {
                            tie_refreshes += 1;
                        }
                        let (f, l) = active_features(after, color);
                        assert_eq!(f, frame_after);
                        *frame_before = f;
                        *set = sorted(l.as_slice());
                    }
                    delta => {
                        updates += 1;
                        assert!(
                            !(wazir_moved && before.turn() == color),
                            "own wazir moved without a refresh"
                        );
                        for r in delta.removed() {
                            let at = set.iter().position(|x| x == r);
                            assert!(at.is_some(), "seed {seed} ply {i}: removed {r} was not active");
                            set.remove(at.unwrap_or(0));
                        }
                        set.extend_from_slice(delta.added());
                        set.sort_unstable();
                    }
                }
                let (f, scratch) = active_features(after, color);
                assert_eq!(*frame_before, f, "seed {seed} ply {i} {color}: frame");
                assert_eq!(
                    *set,
                    sorted(scratch.as_slice()),
                    "seed {seed} ply {i} {color}: {after:?} after {mv:?}"
                );
                assert!(scratch.len() <= MAX_ACTIVE);
                assert!(scratch.as_slice().iter().all(|&x| (x as usize) < NUM_FEATURES));
            }
        }
    }
    eprintln!("{kinds:?}; {updates} updates, {refreshes} refreshes ({tie_refreshes} by a diagonal tie-break)");
    assert!(
        kinds.drops > 500 && kinds.captures > 500 && kinds.wazir_moves > 500,
        "{kinds:?}"
    );
    assert!(kinds.wazir_captures > 50, "{kinds:?}");
    assert!(updates > 10 * refreshes / 2, "{updates} updates, {refreshes} refreshes");
    assert!(tie_refreshes > 0, "no frame change by a tie-break was seen");
}

#[test]
fn features_are_invariant_under_the_board_symmetries_and_colour_swap() {
    let (mut checked, mut ties) = (0usize, 0usize);
    for seed in 1000..1060 {
        let (positions, _) = random_game(seed);
        // A finished game (a wazir captured) has no frame to speak of and is
        // never evaluated: its features are a fixed fallback.
        for pos in positions.iter().step_by(3).filter(|p| p.terminal().is_none()) {
            for color in Color::ALL {
                let reference = sorted(active_features(pos, color).1.as_slice());
                let f = frame(pos, color);
                if let Some(w) = pos.wazir(color) {
                    let (r, c) = (w.row().min(7 - w.row()), w.col().min(7 - w.col()));
                    if r == c {
                        ties += 1;
                    }
                    let canon = f.transform.apply(w);
                    assert!(canon.row() <= canon.col() && canon.col() <= 3, "{w} -> {canon}");
                }
                for t in Transform::ALL {
                    let image = t.apply_position(pos).expect("a symmetric image of a game position");
                    assert_eq!(image.occupied().count(), pos.occupied().count());
                    let features = sorted(active_features(&image, color).1.as_slice());
                    assert_eq!(features, reference, "{t:?} of {pos:?} for {color}");
                    assert_eq!(frame(&image, color).bucket, f.bucket);
                    checked += 1;
                }
                let swapped = swap_colors(pos).expect("the colour swap of a game position");
                let features = sorted(active_features(&swapped, !color).1.as_slice());
                assert_eq!(features, reference, "colour swap of {pos:?} for {color}");
            }
        }
    }
    eprintln!("{checked} symmetric images checked, {ties} with the own wazir on a diagonal");
    assert!(ties > 100, "too few diagonal (tie-break) cases: {ties}");
}

#[test]
fn features_tell_apart_positions_that_are_no_images_of_each_other() {
    // The features lose nothing but the symmetry: two positions of a game
    // with equal features for both colours are images of each other.
    let mut positions = Vec::new();
    for seed in 7..12 {
        positions.extend(random_game(seed).0);
    }
    let mut pairs = 0;
    for (i, a) in positions.iter().enumerate() {
        for b in &positions[i + 1..] {
            pairs += 1;
            let same = Color::ALL
                .iter()
                .all(|&c| sorted(active_features(a, c).1.as_slice()) == sorted(active_features(b, c).1.as_slice()));
            if same {
                let image = Transform::ALL.iter().any(|t| {
                    let Ok(img) = t.apply_position(a) else { return false };
                    Color::ALL
                        .iter()
                        .all(|&c| img.pieces_of(c) == b.pieces_of(c) && img.hand(c) == b.hand(c))
                        && Role::ALL.iter().all(|&r| img.role_squares(r) == b.role_squares(r))
                });
                assert!(image, "{a:?} and {b:?} share features");
            }
        }
    }
    assert!(pairs > 1000, "{pairs} pairs");
}

#[test]
fn setup_phase_images_are_errors_not_panics() {
    use leaper_rules::{Position, Setup};
    let mut pos = Position::new();
    pos.play_setup(&Setup::first());
    // Red's setup turned upside down stands on Blue's rows: no position.
    let flipped = Transform::ALL[1].apply_position(&pos);
    assert!(flipped.is_err(), "{flipped:?}");
    assert!(swap_colors(&pos).is_err());
    assert!(Transform::IDENTITY.apply_position(&pos).is_ok());
    // And the features of setup-phase positions are defined (no wazir of
    // Blue's yet: the fallback frame).
    assert_eq!(frame(&pos, Color::Blue), features::Frame::default());
    assert_eq!(active_features(&pos, Color::Red).1.len(), 15);
}
