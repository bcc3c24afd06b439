//! Tiny training runs on synthetic targets: the validation loss falls for
//! both stages, a resumed run equals an uninterrupted one, and the export
//! is an integer network close to the trained float one; a network started
//! from a linear model predicts exactly what it does and learns from there,
//! with its own step size for the linear part and weight decay.

mod common;

use common::random_game;
use leaper_nnue::train::{
    Factors, LinearModel, Model, Sample, TrainConfig, Trainer, integer_mean_loss, mean_loss, samples_from, sigmoid,
};
use leaper_nnue::{EVAL_SCALE, FloatNetwork, LinearNet, PSQ_COLUMN, QuantNetwork, W1_ROW};
use leaper_rules::{Color, Position, Role};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// A material count for `color`, on the board and in hand.
fn material(pos: &Position, color: Color) -> f32 {
    let value = |r: Role| match r {
        Role::Alfil => 1.0,
        Role::Dabbaba => 1.5,
        Role::Ferz => 2.0,
        Role::Knight => 3.0,
        Role::Wazir => 0.0,
    };
    let board: f32 = pos
        .pieces_of(color)
        .filter_map(|sq| pos.piece_at(sq))
        .map(|p| value(p.role))
        .sum();
    let hand: f32 = Role::DROPPABLE
        .iter()
        .map(|&r| f32::from(pos.hand(color).count(r)) * value(r))
        .sum();
    board + hand
}

/// Positions from random games labelled by material: the score is 0.4
/// logit per point of material for the side to move, the result a win for
/// the side ahead.
fn synthetic(games: std::ops::Range<u64>) -> Vec<Sample> {
    let mut records = Vec::new();
    for seed in games {
        for pos in random_game(seed).0 {
            let diff = material(&pos, pos.turn()) - material(&pos, !pos.turn());
            let score = (0.4 * diff * EVAL_SCALE as f32) as i32;
            let result = if diff > 0.0 {
                1.0
            } else if diff < 0.0 {
                0.0
            } else {
                0.5
            };
            records.push((pos, score, result, seed));
        }
    }
    samples_from(records, 0.1)
}

fn config(epochs: u32, checkpoint: Option<std::path::PathBuf>) -> TrainConfig {
    TrainConfig {
        epochs,
        batch_size: 128,
        learning_rate: 3e-3,
        threads: 2,
        validation_fraction: 0.2,
        seed: 5,
        checkpoint,
        ..TrainConfig::default()
    }
}

fn run<M: Model>(trainer: &mut Trainer<M>) -> Vec<f32> {
    let mut losses = vec![trainer.validation_loss()];
    trainer
        .run(|r| {
            eprintln!(
                "{} epoch {}: train {:.4} validation {:.4}, {:.0} samples/s",
                M::KIND,
                r.epoch,
                r.train_loss,
                r.validation_loss,
                r.samples_per_second
            );
            losses.push(r.validation_loss);
        })
        .expect("no checkpoint to write");
    losses
}

#[test]
fn stage_a_linear_training_lowers_the_validation_loss() {
    let samples = synthetic(0..120);
    assert!(samples.len() > 3000, "{} samples", samples.len());
    let mut trainer = Trainer::new(LinearModel::default(), samples, config(4, None));
    let losses = run(&mut trainer);
    eprintln!("linear validation losses {losses:?}");
    let (first, last) = (losses[0], losses[losses.len() - 1]);
    // Validation is on games never trained on (split by game), where a
    // model of 120 random games' material labels gains about 0.05.
    assert!(last < first - 0.03, "{losses:?}");
    // The model learnt that material counts: a side with an extra knight
    // in hand is better.
    let w = &trainer.model().weights;
    assert!(w.iter().any(|&x| x > 0.05), "weights barely moved");
}

#[test]
fn stage_b_network_training_lowers_the_validation_loss_and_exports() {
    let samples = synthetic(0..120);
    let mut rng = StdRng::seed_from_u64(3);
    let mut trainer = Trainer::new(FloatNetwork::random(&mut rng), samples, config(4, None));
    let losses = run(&mut trainer);
    eprintln!("network validation losses {losses:?}");
    let (first, last) = (losses[0], losses[losses.len() - 1]);
    // Validation is on games never trained on (split by game), where a
    // model of 120 random games' material labels gains about 0.05.
    assert!(last < first - 0.03, "{losses:?}");
    assert!(losses.windows(2).filter(|w| w[1] < w[0]).count() >= 3, "{losses:?}");

    // The export is the integer form of what was trained.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("trained.nnue");
    let exported = trainer.export(&path).expect("export");
    let loaded = QuantNetwork::load(&path).expect("load");
    assert_eq!(loaded, exported);
    let model = trainer.model();
    let (positions, _) = random_game(9999);
    for pos in positions.iter().filter(|p| p.terminal().is_none()) {
        let f = model.evaluate(pos);
        let q = loaded.evaluate(pos) as f32 / EVAL_SCALE as f32;
        assert!((f - q).abs() < 0.1, "float {f} integer {q} at {pos:?}");
    }
    // Its predictions follow the labels: check the sign on clear cases.
    let agree = trainer
        .validation()
        .iter()
        .filter(|s| (s.target - 0.5).abs() > 0.2)
        .filter(|s| (sigmoid(model.predict(s)) > 0.5) == (s.target > 0.5))
        .count();
    let clear = trainer
        .validation()
        .iter()
        .filter(|s| (s.target - 0.5).abs() > 0.2)
        .count();
    assert!(
        agree * 10 > clear * 7,
        "{agree} of {clear} clear validation samples on the right side"
    );
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let samples = synthetic(200..240);
    let dir = tempfile::tempdir().expect("temp dir");
    let ckpt = dir.path().join("run.ckpt");
    let net = FloatNetwork::random(&mut StdRng::seed_from_u64(8));

    let mut whole = Trainer::new(net.clone(), samples.clone(), config(3, None));
    whole.run(|_| {}).expect("run");

    let mut first = Trainer::new(net.clone(), samples.clone(), config(2, Some(ckpt.clone())));
    first.run(|_| {}).expect("run with checkpoints");
    drop(first);
    let mut second = Trainer::new(net, samples, config(3, Some(ckpt.clone())));
    second.resume(&ckpt).expect("resume");
    assert_eq!(second.epoch, 2);
    let mut epochs = Vec::new();
    second.run(|r| epochs.push(r.epoch)).expect("run on");
    assert_eq!(epochs, vec![3]);
    assert_eq!(
        second.model(),
        whole.model(),
        "resumed weights differ from an uninterrupted run"
    );

    // A damaged or foreign checkpoint is refused with the reason.
    let bytes = std::fs::read(&ckpt).expect("read");
    std::fs::write(&ckpt, &bytes[..bytes.len() / 2]).expect("write");
    let err = second.resume(&ckpt).expect_err("truncated checkpoint");
    assert!(err.to_string().contains("middle of a field"), "{err}");
    let mut linear = Trainer::new(LinearModel::default(), Vec::new(), config(1, None));
    std::fs::write(&ckpt, &bytes).expect("write");
    let err = linear.resume(&ckpt).expect_err("checkpoint of another model");
    assert!(err.to_string().contains("nnue model, not linear"), "{err}");
}

/// Training with factors: the loss falls, the model handed out (factor
/// rows folded into the features') predicts what the factorised model
/// does, and its integer export is within the integer network's tolerance
/// of it; the factors change what is learnt.
#[test]
fn factorised_training_folds_into_an_equivalent_network() {
    let samples = synthetic(0..60);
    let net = FloatNetwork::random(&mut StdRng::seed_from_u64(5));
    let cfg = TrainConfig {
        factors: Factors::SquaresAndOffsets,
        ..config(3, None)
    };
    let mut trainer = Trainer::new(net.clone(), samples.clone(), cfg);
    let losses = run(&mut trainer);
    assert!(losses[losses.len() - 1] < losses[0] - 0.02, "{losses:?}");
    let folded = trainer.model();
    assert_eq!(folded.w1.len(), FloatNetwork::zeros().w1.len());
    assert!(folded.w1.iter().all(|w| w.abs() <= leaper_nnue::W1_CLIP + 1e-5));
    let (mut worst, mut n) = (0f32, 0);
    for s in trainer.validation().iter().chain(trainer.training()) {
        worst = worst.max((trainer.predict(s) - folded.predict(s)).abs());
        n += 1;
    }
    assert!(
        n > 1000 && worst < 1e-4,
        "folded differs by {worst} logit over {n} samples"
    );
    let fold_loss = mean_loss(&folded, trainer.validation(), 1);
    assert!((fold_loss - trainer.validation_loss()).abs() < 1e-5);

    let dir = tempfile::tempdir().expect("temp dir");
    let exported = trainer.export(&dir.path().join("f.nnue")).expect("export");
    for pos in random_game(4242).0.iter().filter(|p| p.terminal().is_none()) {
        let f = folded.evaluate(pos);
        let q = exported.evaluate(pos) as f32 / EVAL_SCALE as f32;
        assert!((f - q).abs() < 0.1, "float {f} integer {q} at {pos:?}");
    }

    let mut plain = Trainer::new(net, samples, config(3, None));
    run(&mut plain);
    let moved = (plain.model().w1.iter().zip(&folded.w1))
        .filter(|(a, b)| (*a - *b).abs() > 1e-3)
        .count();
    assert!(moved > 10_000, "only {moved} feature weights differ with factors");
}

/// The linear model folds the same way, and a checkpoint of a run with
/// other factors is refused by name.
#[test]
fn factorised_linear_training_folds_and_checkpoints_name_the_factors() {
    let samples = synthetic(0..60);
    let dir = tempfile::tempdir().expect("temp dir");
    let ckpt = dir.path().join("lin.ckpt");
    let cfg = TrainConfig {
        factors: Factors::Squares,
        ..config(2, Some(ckpt.clone()))
    };
    let mut trainer = Trainer::new(LinearModel::default(), samples.clone(), cfg);
    let losses = run(&mut trainer);
    assert!(losses[losses.len() - 1] < losses[0] - 0.02, "{losses:?}");
    let folded = trainer.model();
    assert_eq!(folded.weights.len(), LinearModel::default().weights.len());
    for s in trainer.validation() {
        let (a, b) = (trainer.predict(s), folded.predict(s));
        assert!((a - b).abs() < 1e-4, "factorised {a} folded {b}");
    }
    let mut other = Trainer::new(LinearModel::default(), samples, config(2, None));
    let err = other.resume(&ckpt).expect_err("other factors");
    assert!(err.to_string().contains("linear+squares model, not linear"), "{err}");
}

/// The validation set is made of whole games: no game has positions on
/// both sides, it holds about the asked share, and the split follows the
/// seed. The step size decays per epoch as configured.
#[test]
fn validation_holds_whole_games_and_the_step_size_decays() {
    let samples = synthetic(300..360);
    let total = samples.len();
    let cfg = TrainConfig {
        lr_decay: 0.5,
        ..config(1, None)
    };
    let trainer = Trainer::new(LinearModel::default(), samples.clone(), cfg.clone());
    let held: std::collections::HashSet<u64> = trainer.validation().iter().map(|s| s.game).collect();
    let trained: std::collections::HashSet<u64> = trainer.training().iter().map(|s| s.game).collect();
    assert!(held.is_disjoint(&trained), "a game on both sides");
    assert_eq!(trainer.validation().len() + trainer.training().len(), total);
    let share = trainer.validation().len() as f32 / total as f32;
    // Whole games of ~50 positions each: within a game or two of 20%.
    assert!((0.15..0.3).contains(&share), "validation share {share}");
    assert!(
        held.len() >= 8 && trained.len() >= 40,
        "{} held, {} trained",
        held.len(),
        trained.len()
    );
    let again = Trainer::new(LinearModel::default(), samples.clone(), cfg.clone());
    let again: std::collections::HashSet<u64> = again.validation().iter().map(|s| s.game).collect();
    assert_eq!(held, again, "the same seed, the same split");
    let other = Trainer::new(LinearModel::default(), samples, TrainConfig { seed: 6, ..cfg });
    let other: std::collections::HashSet<u64> = other.validation().iter().map(|s| s.game).collect();
    assert_ne!(held, other, "another seed, another split");

    assert_eq!(trainer.learning_rate(0), 3e-3);
    assert_eq!(trainer.learning_rate(2), 3e-3 * 0.25);
    let mut trainer = trainer;
    let mut rates = Vec::new();
    trainer.run(|r| rates.push(r.learning_rate)).expect("run");
    assert_eq!(rates, vec![3e-3]);
}

/// Samples of a single game cannot be split by game: it all stays for
/// training rather than leaving nothing to train on.
#[test]
fn one_game_stays_for_training() {
    let samples: Vec<Sample> = synthetic(400..401).into_iter().map(|s| s.in_game(7)).collect();
    let n = samples.len();
    let trainer = Trainer::new(LinearModel::default(), samples, config(1, None));
    assert_eq!((trainer.training().len(), trainer.validation().len()), (n, 0));
}

/// A linear model as a file holds it (trained briefly on `samples`, then
/// through its integer form, as `--init FILE` reads it).
fn linear_start(samples: &[Sample]) -> LinearModel {
    let mut trainer = Trainer::new(LinearModel::default(), samples.to_vec(), config(1, None));
    run(&mut trainer);
    LinearNet::from_model(&trainer.model()).to_model()
}

/// `--model nnue --init FILE.linear`: the network starts as the linear
/// model (psq weights = its weights, output bias = its bias, output
/// weights zero), so its predictions are the model's exactly, with or
/// without factor rows, its validation loss at epoch 0 is the model's,
/// and its integer form evaluates as the linear model's within a unit.
/// Training from there lowers the validation loss.
#[test]
fn a_network_started_from_a_linear_model_predicts_it_and_then_improves() {
    let samples = synthetic(0..120);
    let linear = linear_start(&samples);
    let net = FloatNetwork::from_linear(&linear, &mut StdRng::seed_from_u64(4));
    assert!(net.w4.iter().all(|&w| w == 0.0));
    for s in &samples {
        assert_eq!(net.predict(s), linear.predict(s));
    }
    let integer = net.quantize();
    let linear_int = LinearNet::from_model(&linear);
    for seed in 0..10 {
        for pos in random_game(700 + seed).0.iter().filter(|p| p.terminal().is_none()) {
            let (a, b) = (integer.evaluate(pos), linear_int.evaluate(pos));
            assert!((a - b).abs() <= 1, "network {a} linear {b} at {pos:?}");
        }
    }
    for factors in [Factors::None, Factors::Squares, Factors::SquaresAndOffsets] {
        let cfg = TrainConfig {
            factors,
            psq_learning_rate: Some(1e-3),
            weight_decay: 0.1,
            ..config(3, None)
        };
        let lin = Trainer::new(linear.clone(), samples.clone(), cfg.clone());
        let mut trainer = Trainer::new(net.clone(), samples.clone(), cfg);
        let (a, b) = (trainer.validation_loss(), lin.validation_loss());
        assert!((a - b).abs() < 1e-6, "{factors:?}: network {a}, linear model {b}");
        if factors == Factors::Squares {
            let losses = run(&mut trainer);
            eprintln!("network from a linear model: validation losses {losses:?}");
            assert!(losses[losses.len() - 1] < losses[0] - 0.002, "{losses:?}");
            assert!(trainer.model().w4.iter().any(|&w| w != 0.0));
            // The integer form keeps the validation loss, and at the start
            // it is the integer linear model's.
            let held = trainer.validation();
            let integer = integer_mean_loss(&trainer.model().quantize(), held);
            let float = losses[losses.len() - 1];
            assert!((integer - float).abs() < 1e-3, "integer {integer}, float {float}");
            let (a, b) = (
                integer_mean_loss(&net.quantize(), held),
                integer_mean_loss(&linear_int, held),
            );
            assert!((a - b).abs() < 1e-5, "network {a}, linear model {b}");
        }
    }
}

/// The linear part's own step size: at zero, the psq weights and the
/// output bias stay exactly where they started (factor rows included,
/// once folded) while the rest trains; and weight decay shrinks the dense
/// weights but not the psq weights.
#[test]
fn the_linear_part_steps_at_its_own_rate_and_weight_decay_spares_it() {
    let samples = synthetic(0..60);
    let linear = linear_start(&samples);
    let net = FloatNetwork::from_linear(&linear, &mut StdRng::seed_from_u64(8));
    let psq = |n: &FloatNetwork| n.w1.chunks_exact(W1_ROW).map(|r| r[PSQ_COLUMN]).collect::<Vec<_>>();
    let frozen = TrainConfig {
        factors: Factors::Squares,
        psq_learning_rate: Some(0.0),
        ..config(2, None)
    };
    let mut trainer = Trainer::new(net.clone(), samples.clone(), frozen);
    run(&mut trainer);
    let trained = trainer.model();
    assert_eq!(psq(&trained), psq(&net));
    assert_eq!(trained.b4, net.b4);
    assert_ne!(trained.w2, net.w2);

    let norm = |v: &[f32]| v.iter().map(|w| w * w).sum::<f32>();
    let dense_norm = |n: &FloatNetwork| {
        let w1: f32 = n.w1.chunks_exact(W1_ROW).map(|r| norm(&r[..PSQ_COLUMN])).sum();
        w1 + norm(&n.w2) + norm(&n.w3)
    };
    let trained_with = |decay: f32| {
        let cfg = TrainConfig {
            weight_decay: decay,
            ..config(2, None)
        };
        let mut trainer = Trainer::new(net.clone(), samples.clone(), cfg);
        run(&mut trainer);
        trainer.model()
    };
    let (plain, decayed) = (trained_with(0.0), trained_with(20.0));
    eprintln!(
        "dense weights' squared norm: {} without decay, {} with",
        dense_norm(&plain),
        dense_norm(&decayed)
    );
    assert!(dense_norm(&decayed) < 0.9 * dense_norm(&plain));
    let psq_norm = |n: &FloatNetwork| norm(&psq(n));
    assert!(psq_norm(&decayed) > 0.5 * psq_norm(&plain));
}

/// The accumulator's own step size: at zero, the feature rows (but their
/// psq column) and the accumulator bias stay exactly where they started,
/// factor rows included once folded, while the dense layers and the psq
/// weights train and the validation loss still falls.
#[test]
fn the_accumulator_steps_at_its_own_rate() {
    let samples = synthetic(0..60);
    let linear = linear_start(&samples);
    let net = FloatNetwork::from_linear(&linear, &mut StdRng::seed_from_u64(9));
    let accumulator = |n: &FloatNetwork| {
        n.w1.chunks_exact(W1_ROW)
            .flat_map(|r| r[..PSQ_COLUMN].to_vec())
            .collect::<Vec<_>>()
    };
    let psq = |n: &FloatNetwork| n.w1.chunks_exact(W1_ROW).map(|r| r[PSQ_COLUMN]).collect::<Vec<_>>();
    let frozen = TrainConfig {
        factors: Factors::Squares,
        accumulator_learning_rate: Some(0.0),
        weight_decay: 1.0,
        ..config(2, None)
    };
    let mut trainer = Trainer::new(net.clone(), samples.clone(), frozen);
    let before = trainer.validation_loss();
    run(&mut trainer);
    let trained = trainer.model();
    assert_eq!(accumulator(&trained), accumulator(&net), "feature weights kept");
    assert_eq!(trained.b1, net.b1, "accumulator bias kept");
    assert_ne!(trained.w2, net.w2, "the dense layers train");
    assert_ne!(psq(&trained), psq(&net), "the psq weights train");
    assert!(
        trainer.validation_loss() < before,
        "{} -> {}",
        before,
        trainer.validation_loss()
    );

    // Without the option the accumulator trains with the rest.
    let mut trainer = Trainer::new(net.clone(), samples, config(2, None));
    run(&mut trainer);
    assert_ne!(accumulator(&trainer.model()), accumulator(&net));
}
