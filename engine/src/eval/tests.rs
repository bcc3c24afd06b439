//! Tests of the evaluation: symmetry, bounds and the shipped weights.

use super::*;
use crate::rules::{Color, Piece, Setup, Square};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// `pos` with every square moved by `map`, colours swapped when `swap`
/// (the side to move too, so the same side stays on move relative to its
/// pieces).
fn transformed(pos: &Position, map: impl Fn(Square) -> Square, swap: bool) -> Position {
    let mut board = [None; 64];
    for sq in Square::ALL {
        if let Some(p) = pos.piece_at(sq) {
            let color = if swap { !p.color } else { p.color };
            board[map(sq).index()] = Some(Piece::new(color, p.role));
        }
    }
    let hands = Color::ALL.map(|color| *pos.hand(if swap { !color } else { color }));
    let (turn, ply) = if swap {
        (!pos.turn(), if pos.ply() < 101 { pos.ply() + 1 } else { pos.ply() - 1 })
    } else {
        (pos.turn(), pos.ply())
    };
    Position::from_parts(board, hands, turn, ply).unwrap_or_else(|e| panic!("{pos:?} transformed: {e}"))
}

/// Positions of random games from random setups, the game still going on.
fn random_positions(seed: u64, games: usize) -> Vec<Position> {
    crate::rules::random_game_positions(&mut StdRng::seed_from_u64(seed), games, 0.5)
}

#[test]
fn evaluation_is_symmetric_finite_and_bounded() {
    let mut evals = [
        Eval::new(EvalKind::Psq),
        Eval::new(EvalKind::Full),
        Eval::new(EvalKind::Material),
    ];
    let flip_rows = |sq: Square| Square::from_coords(7 - sq.row() as i32, sq.col() as i32).unwrap_or(sq);
    let transpose = |sq: Square| Square::from_coords(sq.col() as i32, sq.row() as i32).unwrap_or(sq);
    for pos in random_positions(7, 6) {
        let mirrored = pos.mirror();
        let flipped = transformed(&pos, flip_rows, true);
        let turned = transformed(&pos, transpose, false);
        for eval in &mut evals {
            let v = eval.evaluate(&pos);
            assert!(v.abs() <= EVAL_BOUND, "{v} out of bounds in {pos:?}");
            assert_eq!(eval.evaluate(&mirrored), v, "{:?} mirror of {pos:?}", eval.kind());
            assert_eq!(eval.evaluate(&flipped), v, "{:?} colour flip of {pos:?}", eval.kind());
            if eval.kind() != EvalKind::Material {
                assert_eq!(eval.evaluate(&turned), v, "{:?} transpose of {pos:?}", eval.kind());
            }
        }
        // The same board with the other side to move: the feature parts
        // are antisymmetric, so only the tempo and the to-move blocks differ.
        let diff = difference(&pos, FeatureSet::Psq);
        let swapped = transformed(&flipped, flip_rows, false);
        let other: Vec<f32> = difference(&swapped, FeatureSet::Psq);
        for (a, b) in diff.iter().zip(&other) {
            assert_eq!(*a, *b);
        }
    }
}

#[test]
fn shipped_weights_parse_and_the_default_is_the_network() {
    assert!(Weights::parse(FULL_WEIGHTS).is_ok());
    assert_eq!(DEFAULT_KIND, EvalKind::Nnue);
    assert!(Eval::default().has_model(EvalKind::Nnue));
    assert!(Eval::default().has_model(EvalKind::Linear));
    assert_eq!(Eval::new(EvalKind::Psq).kind(), EvalKind::Psq);
    for kind in EvalKind::ALL {
        assert_eq!(EvalKind::from_name(&kind.name().to_uppercase()), Some(kind));
    }
    // The published model: a knight on c3 is worth 0.449, so with equal
    // material the start of the game favours the side to move by the tempo.
    let setup = Setup::first();
    let pos = Position::from_setups(&setup, &setup.for_other_side());
    assert_eq!(Eval::new(EvalKind::Psq).evaluate(&pos), 3520);
}

#[test]
fn the_embedded_network_loads_and_evaluates_within_bounds() {
    let net = shipped_network().expect("the embedded network loads");
    let mut eval = Eval::new(EvalKind::Nnue);
    assert!(eval.network().is_some_and(|n| Arc::ptr_eq(n, &net)));
    let mut rng = StdRng::seed_from_u64(9);
    let pos = Position::from_setups(&Setup::random(&mut rng), &Setup::random(&mut rng));
    let score = eval.evaluate(&pos);
    assert_eq!(score, net.evaluate(&pos));
    assert!(score.abs() < EVAL_BOUND);
}

#[test]
fn the_embedded_linear_model_loads_and_is_the_linear_kinds_model() {
    let model = shipped_linear().expect("the embedded linear model loads");
    let mut eval = Eval::new(EvalKind::Linear);
    assert!(eval.has_model(EvalKind::Linear));
    assert!(eval.linear_model().is_some_and(|m| Arc::ptr_eq(m, &model)));
    let mut rng = StdRng::seed_from_u64(11);
    let pos = Position::from_setups(&Setup::random(&mut rng), &Setup::random(&mut rng));
    let score = eval.evaluate(&pos);
    assert_eq!(score, model.evaluate(&pos));
    // A trained model, not zeros: random setup pairs do not all score the
    // same.
    let scores: Vec<i32> = (0..8)
        .map(|_| {
            let pos = Position::from_setups(&Setup::random(&mut rng), &Setup::random(&mut rng));
            eval.evaluate(&pos)
        })
        .collect();
    assert!(scores.iter().any(|&s| s != scores[0]), "{scores:?}");
}
