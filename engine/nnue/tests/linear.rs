//! The linear model (stage A) as the engine uses it: its integer form
//! against the float model, its file's round trip and errors, and its
//! accumulators kept by the same stack as the network's, incremental and
//! lazy, equal to a refresh.

mod common;

use common::{random_game, random_move};
use leaper_nnue::train::{LinearModel, Model, Sample};
use leaper_nnue::{Accumulator, AccumulatorStack, EVAL_SCALE, EvalModel, LinearNet, NetFileError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A linear model with random weights of a few tenths of a logit.
fn random_model(seed: u64) -> LinearModel {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut model = LinearModel::default();
    model.weights.iter_mut().for_each(|w| *w = rng.random_range(-0.5..0.5));
    model.bias = 0.1;
    model
}

#[test]
fn the_integer_linear_model_equals_the_float_one_up_to_rounding() {
    let model = random_model(1);
    let net = LinearNet::from_model(&model);
    let mut checked = 0;
    for seed in 0..20 {
        for pos in random_game(seed).0.iter().filter(|p| p.terminal().is_none()) {
            let float = model.predict(&Sample::new(pos, 0, 0.5, 0.0)) * EVAL_SCALE as f32;
            let int = net.evaluate(pos) as f32;
            // Each of at most 63 weights and the bias rounded by half a unit.
            assert!((float - int).abs() <= 32.0, "float {float} integer {int} at {pos:?}");
            checked += 1;
        }
    }
    assert!(checked > 500);
}

#[test]
fn linear_accumulators_equal_a_refresh_eagerly_and_lazily() {
    let net = LinearNet::from_model(&random_model(2));
    let mut stack: AccumulatorStack<LinearNet> = AccumulatorStack::new();
    let mut rng = StdRng::seed_from_u64(3);
    let mut checked = 0;
    for seed in 100..160 {
        let (positions, moves) = random_game(seed);
        stack.reset(&net, &positions[0]);
        for (i, &mv) in moves.iter().enumerate() {
            let (before, after) = (&positions[i], &positions[i + 1]);
            // Every few plies, a lazy side trip: pushes without evaluation,
            // then evaluations on the way back.
            if i % 4 == 0 {
                let mut path = vec![before.clone()];
                for _ in 0..5 {
                    let from = path.last().cloned().unwrap_or_else(|| before.clone());
                    let Some(m) = random_move(&from, &mut rng) else {
                        break;
                    };
                    let to = from.after(m);
                    stack.push(&from, m, &to);
                    path.push(to);
                }
                while path.len() > 1 {
                    let pos = path.pop().unwrap_or_else(|| before.clone());
                    assert_eq!(stack.evaluate(&net, &pos), net.evaluate(&pos));
                    stack.pop();
                    checked += 1;
                }
            }
            stack.push(before, mv, after);
            assert_eq!(*stack.current(&net, after), Accumulator::refresh(&net, after));
            assert_eq!(stack.evaluate(&net, after), net.evaluate(after));
            checked += 1;
        }
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
fn linear_model_files_round_trip_and_damage_is_named() {
    let net = LinearNet::from_model(&random_model(4));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("model.linear");
    net.save(&path).expect("save");
    assert_eq!(LinearNet::load(&path).expect("load"), net);
    assert_eq!(
        EvalModel::load(&path).expect("load any"),
        EvalModel::Linear(net.clone())
    );

    let bytes = net.to_bytes();
    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert!(matches!(
        LinearNet::from_bytes(&bad),
        Err(NetFileError::BadMagic { .. })
    ));
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let err = LinearNet::from_bytes(&bad).expect_err("damaged payload");
    assert!(err.to_string().contains("damaged"), "{err}");
    let err = LinearNet::from_bytes(&bytes[..bytes.len() - 4]).expect_err("short");
    assert!(matches!(err, NetFileError::Length { .. }), "{err}");
    let err = LinearNet::from_bytes(&bytes[..10]).expect_err("shorter than a header");
    assert!(matches!(err, NetFileError::TooShort { found: 10, .. }), "{err}");
    // A network file is not a linear model, and says so.
    let other = leaper_nnue::QuantNetwork::zeros().to_bytes();
    let err = LinearNet::from_bytes(&other).expect_err("a network");
    assert!(err.to_string().contains("LEAPLINR"), "{err}");
    // A weight beyond what the trainer produces (with the hash redone).
    let mut bad = bytes.clone();
    bad[64..68].copy_from_slice(&i32::MAX.to_le_bytes());
    let hash = <sha2::Sha256 as sha2::Digest>::digest(&bad[64..]);
    bad[32..64].copy_from_slice(&hash);
    let err = LinearNet::from_bytes(&bad).expect_err("weight out of range");
    assert!(matches!(err, NetFileError::LinearWeightRange { index: 0, .. }), "{err}");
}

#[test]
fn an_integer_linear_model_turns_back_into_the_float_model_it_came_from() {
    let net = LinearNet::from_model(&random_model(5));
    let model = net.to_model();
    assert_eq!(LinearNet::from_model(&model), net);
    // The float model of the embedded file evaluates as the file does.
    let shipped = LinearNet::from_bytes(include_bytes!("../../data/leaper.linear")).expect("the embedded model loads");
    let back = shipped.to_model();
    for pos in random_game(7).0.iter().filter(|p| p.terminal().is_none()) {
        let float = back.predict(&Sample::new(pos, 0, 0.5, 0.0)) * EVAL_SCALE as f32;
        assert!(
            (float - shipped.evaluate(pos) as f32).abs() < 1.0,
            "{float} against {}",
            shipped.evaluate(pos)
        );
    }
}
