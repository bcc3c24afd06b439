//! The integer network against the float one, incremental accumulators
//! against a full refresh, and the network file's round trip and errors,
//! all with the psq (linear skip) weights in play; and a file of the
//! previous format version, without psq weights, loading; and a narrower
//! network's file loading into this build's width.

mod common;

use common::{MoveKinds, count_kind, random_game, random_move};
use leaper_nnue::{
    Accumulator, AccumulatorStack, EVAL_SCALE, FORMAT_VERSION, FloatNetwork, L1, L2, NUM_FEATURES, NetFileError,
    PSQ_COLUMN, QA, QB, QW2, QuantNetwork, W1_ROW,
};
use leaper_rules::Position;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A random network whose outputs span a few logit units, as a trained
/// one's do (the initial weights alone give outputs near zero), with
/// random psq weights of the size a linear model's have.
fn random_nets(seed: u64) -> (FloatNetwork, QuantNetwork) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut float = FloatNetwork::random(&mut rng);
    float.w1.iter_mut().for_each(|w| *w *= 3.0);
    float.w4.iter_mut().for_each(|w| *w *= 15.0);
    for row in float.w1.chunks_exact_mut(W1_ROW) {
        row[PSQ_COLUMN] = rng.random_range(-0.6..0.6);
    }
    float.clip();
    let quant = float.quantize();
    (float, quant)
}

/// The stated tolerance: the integer network's output is within this many
/// logit units (0.05 = 500 evaluation units, about 1.25 points of expected
/// score near equality) of the float network's, and within
/// [`MEAN_TOLERANCE_LOGIT`] on average, for networks whose outputs span a
/// few logit units. Rounding each feature weight to 1/255, each first
/// dense weight to 1/8,192 and each hidden activation to 1/2,040 is
/// amplified by the output weights; measured here: mean 0.0047, worst
/// 0.028 (with the first dense layer at 1/512, before format version 3:
/// mean 0.0080, worst 0.051, when the bounds were 0.1 and 0.02).
const TOLERANCE_LOGIT: f32 = 0.05;
const MEAN_TOLERANCE_LOGIT: f32 = 0.01;

#[test]
fn integer_network_is_within_tolerance_of_the_float_network() {
    let (mut worst, mut sum, mut n, mut spread) = (0f32, 0f32, 0usize, 0f32);
    for net_seed in 0..3 {
        let (float, quant) = random_nets(net_seed);
        for seed in 0..40 {
            let (positions, _) = random_game(500 + seed);
            for pos in positions.iter().filter(|p| p.terminal().is_none()) {
                let f = float.evaluate(pos);
                let q = quant.evaluate(pos) as f32 / EVAL_SCALE as f32;
                let diff = (f - q).abs();
                worst = worst.max(diff);
                spread = spread.max(f.abs());
                sum += diff;
                n += 1;
            }
        }
    }
    eprintln!(
        "{n} positions: mean |int - float| {:.5} logit, worst {worst:.5} (outputs up to {spread:.3})",
        sum / n as f32
    );
    assert!(
        spread > 1.0,
        "the random networks' outputs barely vary ({spread}): the test would prove little"
    );
    assert!(worst <= TOLERANCE_LOGIT, "worst difference {worst} logit");
    assert!(
        sum / n as f32 <= MEAN_TOLERANCE_LOGIT,
        "mean difference {} logit",
        sum / n as f32
    );
}

#[test]
fn incremental_accumulators_equal_a_full_refresh_after_random_games() {
    let (_, net) = random_nets(11);
    let mut stack = AccumulatorStack::new();
    let mut kinds = MoveKinds::default();
    let mut rng = StdRng::seed_from_u64(99);
    let mut side_trips = 0;
    for seed in 0..120 {
        let (positions, moves) = random_game(2000 + seed);
        stack.reset(&net, &positions[0]);
        for (i, &mv) in moves.iter().enumerate() {
            let (before, after) = (&positions[i], &positions[i + 1]);
            count_kind(before, mv, &mut kinds);
            // A side trip down a few random plies and back, as a search does.
            if i % 5 == 0 {
                let saved = stack.current(&net, before).clone();
                let mut path = vec![before.clone()];
                for _ in 0..4 {
                    let Some(m) = random_move(path.last().unwrap_or(before), &mut rng) else {
                        break;
                    };
                    let from = path.last().cloned().unwrap_or_else(|| before.clone());
                    let to = from.after(m);
                    stack.push(&from, m, &to);
                    assert_eq!(*stack.current(&net, &to), Accumulator::refresh(&net, &to));
                    path.push(to);
                }
                stack.push_null();
                stack.pop();
                for _ in 1..path.len() {
                    stack.pop();
                }
                assert_eq!(
                    *stack.current(&net, before),
                    saved,
                    "seed {seed} ply {i}: popping restores the parent"
                );
                side_trips += 1;
            }
            stack.push(before, mv, after);
            let scratch = Accumulator::refresh(&net, after);
            assert_eq!(
                *stack.current(&net, after),
                scratch,
                "seed {seed} ply {i}: {after:?} after {mv:?}"
            );
            assert_eq!(stack.evaluate(&net, after), net.evaluate(after));
        }
        assert_eq!(stack.depth(), moves.len() + 1);
    }
    eprintln!("{kinds:?}, {side_trips} side trips");
    assert!(kinds.drops > 300 && kinds.captures > 300 && kinds.wazir_moves > 300 && kinds.wazir_captures > 30);
}

/// Walks random paths of up to 8 plies from every `step`-th position of
/// 60 random games (seeds from `first_game`), the stack reset at each
/// path's start: `at_push` sees each position right after its move is
/// pushed, `at_unwind` each position on the way back up, the leaf first,
/// before it is popped. Returns the positions unwound and the wazir moves
/// pushed (each a refresh for the mover's perspective).
fn walk_paths(
    net: &QuantNetwork,
    first_game: u64,
    step: usize,
    rng: &mut StdRng,
    mut at_push: impl FnMut(&mut AccumulatorStack, &Position, &mut StdRng),
    mut at_unwind: impl FnMut(&mut AccumulatorStack, &Position),
) -> (usize, usize) {
    let mut stack = AccumulatorStack::new();
    let (mut unwound, mut wazir_moves) = (0, 0);
    for seed in 0..60 {
        let (positions, _) = random_game(first_game + seed);
        for start in (0..positions.len().saturating_sub(1)).step_by(step) {
            stack.reset(net, &positions[start]);
            let mut path = vec![positions[start].clone()];
            for _ in 0..8 {
                let from = path.last().cloned().unwrap_or_else(|| positions[start].clone());
                let Some(m) = random_move(&from, rng) else {
                    break;
                };
                let to = from.after(m);
                wazir_moves += usize::from(from.wazir(from.turn()) != to.wazir(from.turn()));
                stack.push(&from, m, &to);
                at_push(&mut stack, &to, rng);
                path.push(to);
            }
            while let Some(pos) = path.pop() {
                at_unwind(&mut stack, &pos);
                unwound += 1;
                if !path.is_empty() {
                    stack.pop();
                }
            }
        }
    }
    (unwound, wazir_moves)
}

/// The lazy path: pushes that are never evaluated cost nothing and leave
/// the entries uncomputed; evaluating deep down applies the recorded
/// changes (or a recorded refresh) at once, and evaluating again after
/// popping back to a skipped ply computes that ply correctly too.
#[test]
fn lazy_accumulators_equal_a_full_refresh_when_evaluated_late() {
    let (_, net) = random_nets(12);
    let mut rng = StdRng::seed_from_u64(5);
    // Down each path without evaluating; then at the leaf and at every
    // ply on the way back up.
    let (checked, wazir_moves) = walk_paths(
        &net,
        3000,
        7,
        &mut rng,
        |_, _, _| {},
        |stack, pos| {
            assert_eq!(*stack.current(&net, pos), Accumulator::refresh(&net, pos));
            assert_eq!(stack.evaluate(&net, pos), net.evaluate(pos));
        },
    );
    assert!(
        checked > 1000 && wazir_moves > 100,
        "{checked} checked, {wazir_moves} wazir moves"
    );
}

/// An integer network turned back into floats quantizes to itself, byte
/// for byte (its biases are far below where float rounding could change
/// one), and the float network evaluates as the integer one within the
/// stated tolerance.
#[test]
fn an_integer_network_turns_back_into_a_float_network_that_quantizes_to_it() {
    for seed in 30..33 {
        let (_, net) = random_nets(seed);
        let float = net.to_float();
        let again = float.quantize();
        assert!(
            again.to_bytes() == net.to_bytes(),
            "seed {seed}: the network changed on the way back"
        );
        let mut worst = 0f32;
        for game in 0..10 {
            let (positions, _) = random_game(9000 + game);
            for pos in positions
                .iter()
                .filter(|p| p.wazir(p.turn()).is_some() && p.wazir(!p.turn()).is_some())
            {
                let q = net.evaluate(pos);
                worst = worst.max((float.evaluate(pos) - q as f32 / EVAL_SCALE as f32).abs());
            }
        }
        assert!(worst <= TOLERANCE_LOGIT, "float {worst} logit from the integer network");
    }
}

/// The psq sums alone, brought up to date along a path with some
/// positions' accumulators computed in full and others' sums only, equal
/// a refresh's at every ply, and asking for the sums first leaves the
/// accumulators to be computed right afterwards.
#[test]
fn psq_sums_alone_equal_a_full_refresh_along_mixed_paths() {
    let (_, net) = random_nets(14);
    let mut rng = StdRng::seed_from_u64(8);
    let psq_of = |scratch: &Accumulator, pos: &Position| {
        let us = pos.turn().index();
        [scratch.values[us].psq, scratch.values[1 - us].psq]
    };
    let mut on_the_way_down = 0;
    let (unwound, wazir_moves) = walk_paths(
        &net,
        5000,
        5,
        &mut rng,
        |stack, pos, rng| {
            // Nothing, the sums alone, or the sums and then everything.
            let scratch = Accumulator::refresh(&net, pos);
            let ask = rng.random_range(0..3);
            if ask >= 1 {
                assert_eq!(stack.psq_sums(&net, pos), psq_of(&scratch, pos));
                on_the_way_down += 1;
            }
            if ask == 2 {
                assert_eq!(*stack.current(&net, pos), scratch);
            }
        },
        |stack, pos| {
            let scratch = Accumulator::refresh(&net, pos);
            assert_eq!(stack.psq_sums(&net, pos), psq_of(&scratch, pos));
            assert_eq!(*stack.current(&net, pos), scratch);
        },
    );
    assert!(
        unwound > 1000 && on_the_way_down > 1000 && wazir_moves > 100,
        "{unwound} and {on_the_way_down} checked, {wazir_moves} wazir moves"
    );
}

/// The dense path's bounds hold the output less the psq sums' difference
/// on every position of random games, for networks whose outputs span a
/// few logit units.
#[test]
fn the_dense_path_stays_within_its_bounds() {
    for seed in 20..24 {
        let (_, net) = random_nets(seed);
        let (low, high) = net.dense_bounds();
        assert!(low < high, "bounds {low}..{high}");
        let (mut seen_low, mut seen_high) = (i32::MAX, i32::MIN);
        for game in 0..20 {
            let (positions, _) = random_game(7000 + game);
            for pos in positions
                .iter()
                .filter(|p| p.wazir(p.turn()).is_some() && p.wazir(!p.turn()).is_some())
            {
                let acc = Accumulator::refresh(&net, pos);
                let us = pos.turn().index();
                let dense = net.evaluate(pos) - (acc.values[us].psq - acc.values[1 - us].psq);
                assert!(
                    (low..=high).contains(&dense),
                    "dense path {dense} outside {low}..={high}"
                );
                seen_low = seen_low.min(dense);
                seen_high = seen_high.max(dense);
            }
        }
        assert!(seen_low < seen_high, "the dense path never varied: {seen_low}");
    }
}

#[test]
fn network_file_round_trips() {
    let (_, net) = random_nets(5);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("net.nnue");
    net.save(&path).expect("save");
    let loaded = QuantNetwork::load(&path).expect("load");
    assert_eq!(loaded, net);
    let (positions, _) = random_game(3);
    for pos in &positions {
        assert_eq!(loaded.evaluate(pos), net.evaluate(pos));
    }
    // Nothing but the file is left beside it (the temporary was renamed).
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1);
}

/// The header's length in a file of this version (with QW2).
const HEADER: usize = 92;
/// The header's length in a file of version 2 or 1 (without QW2).
const OLD_HEADER: usize = 88;

/// Re-hashes a payload after editing it, so that a test reaches the checks
/// behind the hash; the header's length follows from its version.
fn rehash(bytes: &mut [u8]) {
    use sha2::Digest;
    let header = if bytes[8] >= 3 { HEADER } else { OLD_HEADER };
    let digest = sha2::Sha256::digest(&bytes[header..]);
    bytes[header - 32..header].copy_from_slice(&digest);
}

#[test]
fn damaged_network_files_are_rejected_with_the_reason() {
    let (_, net) = random_nets(6);
    let good = net.to_bytes();
    let dir = tempfile::tempdir().expect("temp dir");
    let load = |bytes: &[u8]| {
        let path = dir.path().join("bad.nnue");
        std::fs::write(&path, bytes).expect("write");
        QuantNetwork::load(&path).expect_err("a damaged file loads")
    };

    let err = load(&good[..40]);
    assert!(
        matches!(
            err,
            NetFileError::TooShort {
                found: 40,
                header: HEADER
            }
        ),
        "{err}"
    );

    let mut bytes = good.clone();
    bytes[0] = b'X';
    let err = load(&bytes);
    assert!(matches!(err, NetFileError::BadMagic { .. }), "{err}");
    assert!(err.to_string().contains("magic"), "{err}");

    let mut bytes = good.clone();
    bytes[8] = 9;
    let err = load(&bytes);
    assert!(
        matches!(err, NetFileError::Version { found: 9, expected } if expected == FORMAT_VERSION),
        "{err}"
    );

    let mut bytes = good.clone();
    bytes[20..24].copy_from_slice(&256u32.to_le_bytes());
    let err = load(&bytes);
    assert!(
        matches!(
            err,
            NetFileError::Dimension {
                field: "L1",
                found: 256,
                expected
            } if expected == L1 as u64
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!("network file has L1 = 256; this build's network has {}", L1)
    );

    let mut bytes = good.clone();
    bytes[12] = 2;
    let err = load(&bytes);
    assert!(
        matches!(
            err,
            NetFileError::Dimension {
                field: "feature set version",
                ..
            }
        ),
        "{err}"
    );

    let err = load(&good[..good.len() - 10]);
    assert!(matches!(err, NetFileError::Length { .. }), "{err}");
    let mut bytes = good.clone();
    bytes.push(0);
    let err = load(&bytes);
    assert!(matches!(err, NetFileError::Length { .. }), "{err}");

    let mut bytes = good.clone();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    let err = load(&bytes);
    assert!(matches!(err, NetFileError::Hash { .. }), "{err}");
    assert!(err.to_string().contains("damaged"), "{err}");

    // A weight beyond its bound, under a valid hash: a feature weight
    // beyond what keeps the accumulator within i16 (feature 0's entry 7),
    // a first dense bias beyond what keeps its sum within i32 (the
    // second), and a psq weight beyond the linear model's clip (the last i32 of the
    // payload is the last feature's).
    let psq_at = good.len() - 4;
    let w1_bound = leaper_nnue::W1_CLIP as i32 * QA;
    let b2_at = HEADER + 2 * (NUM_FEATURES * L1 + L1 + L2 * 2 * L1);
    let b2_bound = 63 * QA * QW2;
    let cases = [
        (HEADER + 2 * 7, 9000i16.to_le_bytes().to_vec(), "w1", 7, 9000, w1_bound),
        (
            b2_at + 4,
            (-b2_bound - 1).to_le_bytes().to_vec(),
            "b2",
            1,
            -b2_bound - 1,
            b2_bound,
        ),
        (
            psq_at,
            (-90_000i32).to_le_bytes().to_vec(),
            "psq",
            NUM_FEATURES - 1,
            -90_000,
            80_000,
        ),
    ];
    for (at, new, want_layer, want_index, want_value, want_bound) in cases {
        let mut bytes = good.clone();
        bytes[at..at + new.len()].copy_from_slice(&new);
        rehash(&mut bytes);
        let err = load(&bytes);
        assert!(
            matches!(
                err,
                NetFileError::WeightRange { layer, index, value, bound }
                    if layer == want_layer && index == want_index && value == want_value
                        && bound == want_bound
            ),
            "{err}"
        );
    }

    let err = QuantNetwork::load(&dir.path().join("missing.nnue")).expect_err("missing file");
    assert!(matches!(err, NetFileError::Io(_)), "{err}");
}

/// Asserts that `bytes`, a header whose dimensions do not fit its payload,
/// are refused for the payload's length.
fn assert_payload_length_error(bytes: &[u8]) {
    let err = QuantNetwork::from_bytes(bytes).expect_err("a mislabelled file loads");
    assert!(
        matches!(
            err,
            NetFileError::Dimension {
                field: "payload length",
                ..
            }
        ),
        "{err}"
    );
}

/// `float` with its first dense layer on the coarser grid of format
/// version 2 (weights in steps of 1/512, biases of 1/(255 x 512)), so
/// that its integer form can be written in that version exactly.
fn on_the_old_grid(mut float: FloatNetwork) -> FloatNetwork {
    let (qb, qab) = (QB as f32, (QA * QB) as f32);
    float.w2.iter_mut().for_each(|w| *w = (*w * qb).round() / qb);
    float.b2.iter_mut().for_each(|b| *b = (*b * qab).round() / qab);
    float
}

/// The file of `current` (a file of this version) written in format
/// `version` (2, or 1 without the psq weights): the header without QW2,
/// the first dense layer's weights and biases divided by QW2 / QB = 16
/// (they must be multiples of it), and its length and hash redone.
fn old_version_file(current: &[u8], version: u32) -> Vec<u8> {
    let rescale = QW2 / QB;
    let mut payload = current[HEADER..].to_vec();
    let w2_at = 2 * (NUM_FEATURES * L1 + L1);
    let b2_at = w2_at + 2 * L2 * 2 * L1;
    for w in payload[w2_at..b2_at].chunks_exact_mut(2) {
        let v = i32::from(i16::from_le_bytes([w[0], w[1]]));
        assert_eq!(v % rescale, 0, "a first-layer weight off the old grid");
        w.copy_from_slice(&((v / rescale) as i16).to_le_bytes());
    }
    for b in payload[b2_at..b2_at + 4 * L2].chunks_exact_mut(4) {
        let v = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        assert_eq!(v % rescale, 0, "a first-layer bias off the old grid");
        b.copy_from_slice(&(v / rescale).to_le_bytes());
    }
    if version == 1 {
        payload.truncate(payload.len() - 4 * NUM_FEATURES);
    }
    // The header up to QB, then QH and the evaluation scale (QW2 left
    // out), then the length and a hash to be redone.
    let mut old = current[..40].to_vec();
    old[8..12].copy_from_slice(&version.to_le_bytes());
    old.extend_from_slice(&current[44..52]);
    old.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    old.extend_from_slice(&[0; 32]);
    assert_eq!(old.len(), OLD_HEADER);
    old.extend_from_slice(&payload);
    rehash(&mut old);
    old
}

/// A file of format version 2 (the first dense layer at QB) loads as the
/// network it was written from, which evaluates as it did, and saves as
/// this version; a first-layer weight too large for the finer scale is
/// refused by name, and so is a version 2 header on a version 3 payload.
#[test]
fn a_version_2_network_file_loads_at_the_finer_first_layer_scale() {
    let (float, _) = random_nets(8);
    let float = on_the_old_grid(float);
    let net = float.quantize();
    let current = net.to_bytes();
    let old = old_version_file(&current, 2);
    let loaded = QuantNetwork::from_bytes(&old).expect("a version 2 file loads");
    assert_eq!(loaded, net);
    assert_eq!(loaded.to_bytes(), current);
    for seed in 0..5 {
        let (positions, _) = random_game(80 + seed);
        for pos in positions.iter().filter(|p| p.terminal().is_none()) {
            assert_eq!(loaded.evaluate(pos), net.evaluate(pos));
        }
    }

    // Weight 3 of the first row at 2,048 / 512 = 4.0: within the old
    // file's range, beyond i16 at 8,192.
    let mut bytes = old.clone();
    let at = OLD_HEADER + 2 * (NUM_FEATURES * L1 + L1) + 2 * 3;
    bytes[at..at + 2].copy_from_slice(&2048i16.to_le_bytes());
    rehash(&mut bytes);
    let err = QuantNetwork::from_bytes(&bytes).expect_err("a weight that cannot be rescaled");
    assert!(
        matches!(
            err,
            NetFileError::WeightRange {
                layer: "w2",
                index: 3,
                value: 2048,
                bound: 2047
            }
        ),
        "{err}"
    );
    assert_eq!(err.to_string(), "network file w2[3] = 2048 is outside +-2047");

    let mut bytes = current.clone();
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    let err = QuantNetwork::from_bytes(&bytes).expect_err("a version 2 header on a version 3 file");
    assert!(matches!(err, NetFileError::Dimension { field: "QH", .. }), "{err}");
}

/// The networks the engine ships load, save as this version and load
/// again as the same network, evaluating every position alike. Those of
/// format version 2 (r8d, shipped until the eighteenth session) give back their own bytes
/// when written in version 2 again: the finer scale changed how they are
/// stored, not what they compute. Those of this version save unchanged.
#[test]
fn the_shipped_networks_convert_to_this_version_unchanged() {
    for name in ["leaper.nnue", "candidate.nnue"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data")
            .join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        let old = QuantNetwork::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let saved = old.to_bytes();
        match version {
            2 => assert_eq!(old_version_file(&saved, 2), bytes, "{name}: written back in version 2"),
            FORMAT_VERSION => assert_eq!(saved, bytes, "{name}: saved anew"),
            other => panic!("{name}: format version {other}"),
        }
        let new = QuantNetwork::from_bytes(&saved).unwrap_or_else(|e| panic!("{name} saved anew: {e}"));
        assert_eq!(new, old, "{name}");
        let mut evaluated = 0;
        for seed in 0..10 {
            let (positions, _) = random_game(700 + seed);
            for pos in positions.iter().filter(|p| p.terminal().is_none()) {
                assert_eq!(new.evaluate(pos), old.evaluate(pos), "{name}");
                evaluated += 1;
            }
        }
        assert!(evaluated > 100, "{name}: only {evaluated} positions");
    }
}

/// A file of format version 1 (version 2 without the psq weights: the
/// payload ends with b4) still loads, as the same network with zero psq
/// weights, and evaluates as it did; a version 1 header on a longer
/// payload is a length error.
#[test]
fn a_previous_version_network_file_loads_with_zero_psq_weights() {
    let (mut float, _) = random_nets(7);
    for row in float.w1.chunks_exact_mut(W1_ROW) {
        row[PSQ_COLUMN] = 0.0;
    }
    let float = on_the_old_grid(float);
    let net = float.quantize();
    let current = net.to_bytes();
    let old = old_version_file(&current, 1);
    let loaded = QuantNetwork::from_bytes(&old).expect("a version 1 file loads");
    assert_eq!(loaded, net);
    for seed in 0..5 {
        let (positions, _) = random_game(40 + seed);
        for pos in positions.iter().filter(|p| p.terminal().is_none()) {
            assert_eq!(loaded.evaluate(pos), net.evaluate(pos));
            let f = float.evaluate(pos);
            let q = loaded.evaluate(pos) as f32 / EVAL_SCALE as f32;
            assert!((f - q).abs() <= TOLERANCE_LOGIT, "{f} against {q}");
        }
    }
    // A version 1 header in front of a version 2 payload.
    let mut bytes = old_version_file(&current, 2);
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    assert_payload_length_error(&bytes);
}

/// The file of `bytes` (a network of this build's width whose columns
/// from `l1` on are unused) rewritten as a network `l1` wide: the first
/// `l1` entries of each feature row, of the bias and of each half of each
/// first-layer row, the rest of the payload as it was.
fn narrow_file(bytes: &[u8], l1: usize) -> Vec<u8> {
    let payload = &bytes[HEADER..];
    let mut out = Vec::new();
    let mut at = 0;
    let mut take = |out: &mut Vec<u8>, keep: usize, skip: usize| {
        out.extend_from_slice(&payload[at..at + 2 * keep]);
        at += 2 * (keep + skip);
    };
    for _ in 0..NUM_FEATURES {
        take(&mut out, l1, L1 - l1);
    }
    take(&mut out, l1, L1 - l1);
    for _ in 0..2 * L2 {
        take(&mut out, l1, L1 - l1);
    }
    out.extend_from_slice(&payload[at..]);
    let mut file = bytes[..HEADER].to_vec();
    file[20..24].copy_from_slice(&(l1 as u32).to_le_bytes());
    file[HEADER - 40..HEADER - 32].copy_from_slice(&(out.len() as u64).to_le_bytes());
    file.extend_from_slice(&out);
    rehash(&mut file);
    file
}

/// A file of a network half this build's width loads with the other
/// accumulator columns dead and evaluates exactly as the network it was
/// written from; the trainer's revival of those columns (random feature
/// weights, output weights still zero) changes no output, and finds no
/// dead column in a network that has none.
#[test]
fn a_narrower_network_file_loads_as_the_same_network() {
    let half = L1 / 2;
    let (mut float, full) = random_nets(9);
    for row in float.w1.chunks_exact_mut(W1_ROW) {
        row[half..L1].iter_mut().for_each(|w| *w = 0.0);
    }
    float.b1[half..].iter_mut().for_each(|b| *b = 0.0);
    for row in float.w2.chunks_exact_mut(2 * L1) {
        row[half..L1].iter_mut().for_each(|w| *w = 0.0);
        row[L1 + half..].iter_mut().for_each(|w| *w = 0.0);
    }
    let net = float.quantize();
    let narrow = narrow_file(&net.to_bytes(), half);
    assert!(narrow.len() < net.to_bytes().len());
    let loaded = QuantNetwork::from_bytes(&narrow).expect("a narrower file loads");
    assert_eq!(loaded, net);

    let dead = loaded.to_float();
    let mut revived = dead.clone();
    let mut rng = StdRng::seed_from_u64(9);
    assert_eq!(revived.revive_dead_columns(&mut rng), L1 - half);
    assert!(revived.w1.chunks_exact(W1_ROW).any(|row| row[L1 - 1] != 0.0));
    assert!(revived.b1[half..].iter().all(|&b| b > 0.1));
    assert_eq!(full.to_float().revive_dead_columns(&mut rng), 0);
    for seed in 0..4 {
        let (positions, _) = random_game(60 + seed);
        for pos in positions.iter().filter(|p| p.terminal().is_none()) {
            assert_eq!(loaded.evaluate(pos), net.evaluate(pos));
            assert_eq!(revived.evaluate(pos), dead.evaluate(pos));
        }
    }

    // A narrower header in front of a full-width payload is a length error.
    let mut bytes = net.to_bytes();
    bytes[20..24].copy_from_slice(&(half as u32).to_le_bytes());
    assert_payload_length_error(&bytes);
}

/// The psq term is what the integer network adds to its dense path: the
/// same network with its psq weights zeroed differs by exactly the psq
/// sums' difference, which is the linear model's sum.
#[test]
fn the_integer_psq_term_is_the_difference_of_the_psq_sums() {
    let (float, net) = random_nets(8);
    let mut zeroed = float.clone();
    for row in zeroed.w1.chunks_exact_mut(W1_ROW) {
        row[PSQ_COLUMN] = 0.0;
    }
    let dense = zeroed.quantize();
    let (positions, _) = random_game(77);
    let mut moved = 0;
    for pos in positions.iter().filter(|p| p.terminal().is_none()) {
        let (_, stm) = leaper_nnue::active_features(pos, pos.turn());
        let (_, opp) = leaper_nnue::active_features(pos, !pos.turn());
        let sum = |l: &leaper_nnue::FeatureList| l.as_slice().iter().map(|&f| net.psq(f)).sum::<i32>();
        let psq = sum(&stm) - sum(&opp);
        moved += usize::from(psq != 0);
        assert_eq!(net.evaluate(pos), dense.evaluate(pos) + psq);
    }
    assert!(moved > 10);
}
