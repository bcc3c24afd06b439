//! The trainer core: stage A, a linear model over the features, and stage
//! B, the network, both fitted with Adam on shuffled minibatches to the
//! target `(1 - lambda) sigmoid(score) + lambda result` under binary
//! cross-entropy, on all cores, with a held-out validation loss per epoch,
//! checkpoints and resume, and export to the integer network file.
//!
//! # Factors
//! With little data, each of the 6,360 features per perspective is seen
//! rarely, and what a piece on a square is worth is learned ten times over,
//! once per wazir bucket. [`Factors`] adds training-only rows (virtual
//! features) that every bucket's feature also activates: its kind and
//! turned square in any bucket, and its kind and offset from the own wazir
//! (see [`crate::features::square_factor`]). A feature's effective row is
//! its own plus its factors'; the trainer keeps each effective row within
//! the clip after every step and folds the factor rows into the real ones
//! when it hands out the model ([`Trainer::model`], the export), so the
//! file and the engine are unchanged.
//!
//! # A network started from a linear model
//! The network's feature rows end with the psq weight (the linear skip
//! term, see [`FloatNetwork`]), so [`FloatNetwork::from_linear`] makes a
//! network that computes what a [`LinearModel`] does, and training it
//! learns a correction. On a million or so positions the dense part
//! overfits within an epoch at the step size a network from zero wants;
//! [`TrainConfig::psq_learning_rate`] steps the linear part (psq column,
//! output bias) at its own rate and [`TrainConfig::weight_decay`] pulls
//! the rest toward zero, i.e. toward the linear model ([`Model::SKIP_COLUMN`],
//! [`Model::SKIP_TENSORS`], [`Model::DECAYED_TENSORS`] say which is which).
//! Each column of a feature row has its own clip ([`Model::column_clip`]).
//!
//! It lives in this crate beside the features and the network so that one
//! definition serves both; it uses only their public API, so it can move
//! to the training crate unchanged.
//!
//! Why hand-written: the input is ~60 active features out of 12,720, and
//! the first layer is a sum of 60 rows of a 6,360 x L1 matrix whose
//! gradient touches only those rows. The CPU tensor crates (candle-core
//! 0.11, burn 0.23 (pre-release), dfdx 0.13, tch 0.26 needing libtorch)
//! offer dense matrices or an embedding lookup, whose backward pass
//! produces (and whose optimiser updates) the whole 407k-weight matrix for
//! every batch, i.e. ~200 times the work of the sparse update here; none
//! has a sparse Adam. The forward and backward pass of this small network
//! are a few loops, written once below against the float network that is
//! also the reference of the integer one.

use crate::features::{
    FeatureList, MAX_ACTIVE, NUM_FEATURES, OFFSET_FACTORS, SQUARE_FACTORS, active_features, offset_factor,
    square_factor,
};
use crate::network::{FloatNetwork, L1, L1X2, L2, L3, PSQ_COLUMN, W1_ROW, crelu};
use crate::{EVAL_SCALE, QuantNetwork};
use leaper_rules::Position;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::path::{Path, PathBuf};

/// One training position: its features from both sides and its target.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The side to move's active features.
    pub stm: FeatureList,
    /// The other side's active features.
    pub opp: FeatureList,
    /// The target expected score of the side to move, in [0, 1].
    pub target: f32,
    /// The game it came from: positions of one game are alike, so the
    /// validation set is made of whole games (see [`Trainer::new`]).
    pub game: u64,
}

impl Sample {
    /// The sample of a position scored `score` (logit x 10,000 for the side
    /// to move) in a game whose result for the side to move was `result`
    /// (1 win, 0.5 draw, 0 loss), with result weight `lambda`; its game is
    /// 0 until [`Sample::in_game`] says otherwise.
    pub fn new(pos: &Position, score: i32, result: f32, lambda: f32) -> Sample {
        let logit = score as f32 / EVAL_SCALE as f32;
        let target = (1.0 - lambda) * sigmoid(logit) + lambda * result.clamp(0.0, 1.0);
        Sample {
            stm: active_features(pos, pos.turn()).1,
            opp: active_features(pos, !pos.turn()).1,
            target,
            game: 0,
        }
    }

    /// The same sample, from game `game`.
    pub fn in_game(self, game: u64) -> Sample {
        Sample { game, ..self }
    }
}

/// Samples from the trainer's input: `(position, score in logit x 10,000,
/// result in [0, 1], game)` for the side to move, where `game` tells the
/// games apart (across files too). Finished games (a wazir captured) carry
/// no evaluation and are skipped.
pub fn samples_from<I>(records: I, lambda: f32) -> Vec<Sample>
where
    I: IntoIterator<Item = (Position, i32, f32, u64)>,
{
    records
        .into_iter()
        .filter(|(pos, ..)| pos.terminal().is_none())
        .map(|(pos, score, result, game)| Sample::new(&pos, score, result, lambda).in_game(game))
        .collect()
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Binary cross-entropy of predicting `sigmoid(logit)` for target `y`,
/// computed stably from the logit.
#[inline]
pub fn bce_with_logit(logit: f32, y: f32) -> f32 {
    logit.max(0.0) - logit * y + (-logit.abs()).exp().ln_1p()
}

/// A model the trainer can fit: its parameters as flat tensors, the first
/// of which is indexed by feature (one row of `ROW` per feature) and gets
/// sparse updates.
pub trait Model: Clone + Send + Sync {
    /// The width of a feature's row in tensor 0.
    const ROW: usize;
    /// A name for checkpoints: a checkpoint of another model is refused.
    const KIND: &'static str;
    /// The column of a feature row that is a linear skip weight (the
    /// network's psq weight), if any: it steps at
    /// [`TrainConfig::psq_learning_rate`] and is not decayed.
    const SKIP_COLUMN: Option<usize> = None;
    /// The tensors besides tensor 0 that step with the skip column (the
    /// network's output bias, the linear model's own).
    const SKIP_TENSORS: &'static [usize] = &[];
    /// The tensors that [`TrainConfig::weight_decay`] pulls toward zero
    /// (in tensor 0, every column but the skip column).
    const DECAYED_TENSORS: &'static [usize] = &[];
    /// The tensors besides tensor 0 that step with the feature rows (the
    /// network's accumulator bias): with tensor 0's other columns they
    /// step at [`TrainConfig::accumulator_learning_rate`].
    const ACCUMULATOR_TENSORS: &'static [usize] = &[];
    /// The bound of column `j` of a feature row (what [`Model::clip`]
    /// clamps it to), which a feature's row plus its factors' must keep
    /// too.
    fn column_clip(j: usize) -> f32;
    /// The parameters.
    fn tensors(&self) -> Vec<&[f32]>;
    /// The parameters, to change.
    fn tensors_mut(&mut self) -> Vec<&mut [f32]>;
    /// Tensor 0, the feature rows, to resize: the trainer appends factor
    /// rows to it and folds them away again.
    fn feature_rows_mut(&mut self) -> &mut Vec<f32>;
    /// The output logit for the side to move's and the other side's active
    /// rows (features, and factors when the model has their rows).
    fn predict_lists(&self, stm: &[u16], opp: &[u16]) -> f32;
    /// The output logit for a sample.
    fn predict(&self, sample: &Sample) -> f32 {
        self.predict_lists(sample.stm.as_slice(), sample.opp.as_slice())
    }
    /// Adds the gradient of the loss at (`stm`, `opp`, `target`) to `grad`
    /// (shaped as [`Model::tensors`]) and returns the loss.
    fn backward(&self, stm: &[u16], opp: &[u16], target: f32, grad: &mut [Vec<f32>]) -> f32;
    /// Clamps the parameters to what their integer form can hold.
    fn clip(&mut self);
}

/// Which factors (training-only shared rows, see the module's notes) a
/// trainer adds to every feature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Factors {
    /// None: each feature has its own row only.
    #[default]
    None,
    /// The square factor: kind and turned square (or hand slot), any
    /// bucket ([`crate::features::square_factor`]).
    Squares,
    /// The square factor and the offset factor: kind and place relative
    /// to the own wazir ([`crate::features::offset_factor`]).
    SquaresAndOffsets,
}

/// The most rows a feature list expands to: each feature and two factors.
const MAX_EXPANDED: usize = 3 * MAX_ACTIVE;

impl Factors {
    /// The factor rows this adds after the [`NUM_FEATURES`] real ones.
    pub fn rows(self) -> usize {
        match self {
            Factors::None => 0,
            Factors::Squares => SQUARE_FACTORS,
            Factors::SquaresAndOffsets => SQUARE_FACTORS + OFFSET_FACTORS,
        }
    }

    /// A short name, for checkpoints and messages.
    pub fn name(self) -> &'static str {
        match self {
            Factors::None => "none",
            Factors::Squares => "squares",
            Factors::SquaresAndOffsets => "squares+offsets",
        }
    }

    /// The factor rows of feature `f`, at most two.
    #[inline]
    fn of(self, f: u16) -> impl Iterator<Item = u16> {
        let base = NUM_FEATURES as u16;
        let square = (self != Factors::None).then(|| base + square_factor(f));
        let offset = (self == Factors::SquaresAndOffsets)
            .then(|| offset_factor(f).map(|o| base + SQUARE_FACTORS as u16 + o))
            .flatten();
        square.into_iter().chain(offset)
    }

    /// `list` with each feature followed by its factor rows, into `out`;
    /// returns how many.
    #[inline]
    fn expand(self, list: &[u16], out: &mut [u16; MAX_EXPANDED]) -> usize {
        let mut n = 0;
        for &f in list.iter().take(MAX_ACTIVE) {
            out[n] = f;
            n += 1;
            for r in self.of(f) {
                out[n] = r;
                n += 1;
            }
        }
        n
    }
}

/// A sample's rows under `factors`, and its target: what the model's
/// forward and backward passes take.
#[inline]
fn with_rows<T>(factors: Factors, s: &Sample, f: impl FnOnce(&[u16], &[u16]) -> T) -> T {
    if factors == Factors::None {
        return f(s.stm.as_slice(), s.opp.as_slice());
    }
    let (mut a, mut b) = ([0u16; MAX_EXPANDED], [0u16; MAX_EXPANDED]);
    let na = factors.expand(s.stm.as_slice(), &mut a);
    let nb = factors.expand(s.opp.as_slice(), &mut b);
    f(&a[..na], &b[..nb])
}

/// `model` (with `factors`' rows after its real ones) with each factor
/// row added into the rows of the features it serves, and the factor rows
/// dropped: the model that computes the same on real features alone.
pub fn fold<M: Model>(model: &M, factors: Factors) -> M {
    let mut out = model.clone();
    let rows = out.feature_rows_mut();
    if factors != Factors::None && rows.len() == (NUM_FEATURES + factors.rows()) * M::ROW {
        for f in 0..NUM_FEATURES {
            for r in factors.of(f as u16) {
                let r = r as usize * M::ROW;
                for j in 0..M::ROW {
                    rows[f * M::ROW + j] += rows[r + j];
                }
            }
        }
    }
    rows.truncate(NUM_FEATURES * M::ROW);
    out
}

/// Keeps each feature's effective row (its own plus its factors') within
/// the clip by moving its own row: what folding gives is then what the
/// integer form holds, unclipped.
fn clip_folded<M: Model>(model: &mut M, factors: Factors) {
    if factors == Factors::None {
        return;
    }
    let rows = model.feature_rows_mut();
    let mut shared = vec![0f32; M::ROW];
    for f in 0..NUM_FEATURES {
        shared.iter_mut().for_each(|x| *x = 0.0);
        for r in factors.of(f as u16) {
            let r = r as usize * M::ROW;
            shared.iter_mut().zip(&rows[r..r + M::ROW]).for_each(|(s, w)| *s += w);
        }
        let own = &mut rows[f * M::ROW..(f + 1) * M::ROW];
        for (j, (w, s)) in own.iter_mut().zip(&shared).enumerate() {
            let bound = M::column_clip(j);
            *w = w.clamp(-bound - s, bound - s);
        }
    }
}

/// Stage A: a linear model. The evaluation for the side to move is the
/// sum of its features' weights minus the sum of the other side's, plus a
/// bias (the value of having the move): colour-symmetric by construction.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearModel {
    /// One weight per feature.
    pub weights: Vec<f32>,
    /// The side to move's bonus.
    pub bias: f32,
}

impl Default for LinearModel {
    fn default() -> Self {
        LinearModel {
            weights: vec![0.0; NUM_FEATURES],
            bias: 0.0,
        }
    }
}

impl LinearModel {
    /// The evaluation of `pos` in logit units for the side to move.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        self.predict(&Sample::new(pos, 0, 0.5, 0.0))
    }
}

impl Model for LinearModel {
    const ROW: usize = 1;
    const KIND: &'static str = "linear";

    fn column_clip(_: usize) -> f32 {
        crate::LINEAR_CLIP
    }

    fn tensors(&self) -> Vec<&[f32]> {
        vec![&self.weights, std::slice::from_ref(&self.bias)]
    }

    fn tensors_mut(&mut self) -> Vec<&mut [f32]> {
        vec![&mut self.weights, std::slice::from_mut(&mut self.bias)]
    }

    fn feature_rows_mut(&mut self) -> &mut Vec<f32> {
        &mut self.weights
    }

    fn predict_lists(&self, stm: &[u16], opp: &[u16]) -> f32 {
        let sum = |l: &[u16]| l.iter().map(|&f| self.weights[f as usize]).sum::<f32>();
        self.bias + sum(stm) - sum(opp)
    }

    fn backward(&self, stm: &[u16], opp: &[u16], target: f32, grad: &mut [Vec<f32>]) -> f32 {
        let out = self.predict_lists(stm, opp);
        let d = sigmoid(out) - target;
        for &f in stm {
            grad[0][f as usize] += d;
        }
        for &f in opp {
            grad[0][f as usize] -= d;
        }
        grad[1][0] += d;
        bce_with_logit(out, target)
    }

    fn clip(&mut self) {
        let bound = crate::LINEAR_CLIP;
        self.weights.iter_mut().for_each(|w| *w = w.clamp(-bound, bound));
        self.bias = self.bias.clamp(-bound, bound);
    }
}

impl Model for FloatNetwork {
    const ROW: usize = W1_ROW;
    const KIND: &'static str = "nnue";
    const SKIP_COLUMN: Option<usize> = Some(PSQ_COLUMN);
    // Indices into `tensors()`: w1 0, b1 1, w2 2, b2 3, w3 4, b3 5, w4 6, b4 7.
    const SKIP_TENSORS: &'static [usize] = &[7];
    const DECAYED_TENSORS: &'static [usize] = &[0, 2, 4, 6];
    const ACCUMULATOR_TENSORS: &'static [usize] = &[1];

    fn column_clip(j: usize) -> f32 {
        FloatNetwork::column_clip(j)
    }

    fn tensors(&self) -> Vec<&[f32]> {
        vec![
            &self.w1,
            &self.b1,
            &self.w2,
            &self.b2,
            &self.w3,
            &self.b3,
            &self.w4,
            std::slice::from_ref(&self.b4),
        ]
    }

    fn tensors_mut(&mut self) -> Vec<&mut [f32]> {
        vec![
            &mut self.w1,
            &mut self.b1,
            &mut self.w2,
            &mut self.b2,
            &mut self.w3,
            &mut self.b3,
            &mut self.w4,
            std::slice::from_mut(&mut self.b4),
        ]
    }

    fn feature_rows_mut(&mut self) -> &mut Vec<f32> {
        &mut self.w1
    }

    fn predict_lists(&self, stm: &[u16], opp: &[u16]) -> f32 {
        self.forward_from(&self.accumulate(stm), &self.accumulate(opp)).out
    }

    fn backward(&self, stm: &[u16], opp: &[u16], target: f32, grad: &mut [Vec<f32>]) -> f32 {
        let act = self.forward_from(&self.accumulate(stm), &self.accumulate(opp));
        let dout = sigmoid(act.out) - target;
        let inside = |x: f32| if x > 0.0 && x < 1.0 { 1.0 } else { 0.0 };
        let h1 = act.z1.map(crelu);
        let h2 = act.z2.map(crelu);
        let mut h0 = [0.0; L1X2];
        for j in 0..L1 {
            h0[j] = crelu(act.stm[j]);
            h0[L1 + j] = crelu(act.opp[j]);
        }
        // Output layer.
        let mut dz2 = [0.0; L3];
        for o in 0..L3 {
            grad[6][o] += dout * h2[o];
            dz2[o] = dout * self.w4[o] * inside(act.z2[o]);
        }
        grad[7][0] += dout;
        // Second dense layer.
        let mut dh1 = [0.0; L2];
        for o in 0..L3 {
            let d = dz2[o];
            if d == 0.0 {
                continue;
            }
            grad[5][o] += d;
            let (g, w) = (&mut grad[4][o * L2..(o + 1) * L2], &self.w3[o * L2..(o + 1) * L2]);
            for i in 0..L2 {
                g[i] += d * h1[i];
                dh1[i] += d * w[i];
            }
        }
        // First dense layer.
        let mut dh0 = [0.0; L1X2];
        for o in 0..L2 {
            let d = dh1[o] * inside(act.z1[o]);
            if d == 0.0 {
                continue;
            }
            grad[3][o] += d;
            let (g, w) = (
                &mut grad[2][o * L1X2..(o + 1) * L1X2],
                &self.w2[o * L1X2..(o + 1) * L1X2],
            );
            for i in 0..L1X2 {
                g[i] += d * h0[i];
                dh0[i] += d * w[i];
            }
        }
        // Accumulators: the bias and the active features' rows, whose
        // last column, the psq weight, adds to the output directly.
        let mut dstm = [0.0; W1_ROW];
        let mut dopp = [0.0; W1_ROW];
        for j in 0..L1 {
            dstm[j] = dh0[j] * inside(act.stm[j]);
            dopp[j] = dh0[L1 + j] * inside(act.opp[j]);
            grad[1][j] += dstm[j] + dopp[j];
        }
        dstm[PSQ_COLUMN] = dout;
        dopp[PSQ_COLUMN] = -dout;
        for (list, d) in [(stm, &dstm), (opp, &dopp)] {
            for &f in list {
                let row = &mut grad[0][f as usize * W1_ROW..(f as usize + 1) * W1_ROW];
                row.iter_mut().zip(d).for_each(|(g, d)| *g += d);
            }
        }
        bce_with_logit(act.out, target)
    }

    fn clip(&mut self) {
        FloatNetwork::clip(self);
    }
}

/// One step's sizes, by the parts of the model that take them.
#[derive(Clone, Copy, Debug)]
struct StepSizes {
    /// The dense layers (and whatever has no size of its own).
    rest: f32,
    /// The skip column and tensors.
    psq: f32,
    /// The feature rows' other columns and the accumulator tensors.
    accumulator: f32,
}

/// The default step size factor per epoch: over ten epochs the step falls
/// to about a seventh.
pub const DEFAULT_LR_DECAY: f32 = 0.8;

/// The trainer's settings.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Passes over the training set.
    pub epochs: u32,
    /// Samples per minibatch.
    pub batch_size: usize,
    /// Adam's step size in the first epoch.
    pub learning_rate: f32,
    /// The step size's factor per epoch: epoch `e` (0-based) steps by
    /// `learning_rate * lr_decay^e`, large steps first and fine ones last.
    pub lr_decay: f32,
    /// Adam's first-moment decay.
    pub beta1: f32,
    /// Adam's second-moment decay.
    pub beta2: f32,
    /// Worker threads for the gradient and the validation loss.
    pub threads: usize,
    /// The share of samples held out for validation: whole games, drawn
    /// by a seeded shuffle of the games.
    pub validation_fraction: f32,
    /// Seeds the split and every epoch's order.
    pub seed: u64,
    /// Where to write a checkpoint after every epoch, if anywhere.
    pub checkpoint: Option<PathBuf>,
    /// The factor rows trained beside the features' own.
    pub factors: Factors,
    /// The step size of the skip weights (the network's psq column and
    /// output bias) in the first epoch, decaying as `learning_rate` does;
    /// `None`: `learning_rate`. A network started from a linear model
    /// wants its linear part to move less than its new dense part.
    pub psq_learning_rate: Option<f32>,
    /// The step size of the feature rows' other columns and of the
    /// [`Model::ACCUMULATOR_TENSORS`] in the first epoch, decaying as
    /// `learning_rate` does; `None`: `learning_rate`. At zero the
    /// accumulator stays as it started, so a network loaded from its
    /// integer file fits its dense layers to the accumulator the engine
    /// really computes, and its export loses nothing: since the first
    /// dense layer's finer scale (format 3) the accumulator's rounding is
    /// what export costs, and a short round at zero after a normal one
    /// wins it back (engine/train/README.md, round thirteen).
    pub accumulator_learning_rate: Option<f32>,
    /// Decoupled (AdamW) weight decay of the model's
    /// [`Model::DECAYED_TENSORS`] (the network's accumulator and dense
    /// weights, not the biases, not the psq weights): each step multiplies
    /// them by `1 - step size x weight_decay`, pulling the network toward
    /// its linear part. Rows of tensor 0 decay when a batch touches them.
    pub weight_decay: f32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 10,
            batch_size: 4096,
            learning_rate: 1e-3,
            lr_decay: DEFAULT_LR_DECAY,
            beta1: 0.9,
            beta2: 0.999,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            validation_fraction: 0.05,
            seed: 1,
            checkpoint: None,
            factors: Factors::None,
            psq_learning_rate: None,
            accumulator_learning_rate: None,
            weight_decay: 0.0,
        }
    }
}

/// What one epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based.
    pub epoch: u32,
    /// Mean training loss over the epoch's batches.
    pub train_loss: f32,
    /// Mean loss on the held-out samples.
    pub validation_loss: f32,
    /// Training samples per second.
    pub samples_per_second: f64,
    /// The step size of the epoch.
    pub learning_rate: f32,
}

/// Adam's state: first and second moments per tensor, and the step count.
/// Rows of tensor 0 are updated only when a batch touched them (a "lazy"
/// Adam, as for embeddings): an untouched row neither moves nor decays.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    m: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    step: u64,
}

impl Adam {
    fn new<M: Model>(model: &M) -> Adam {
        let zeros: Vec<Vec<f32>> = model.tensors().iter().map(|t| vec![0.0; t.len()]).collect();
        Adam {
            m: zeros.clone(),
            v: zeros,
            step: 0,
        }
    }

    /// One step of `params[range]` (of tensor `t`) with its gradient:
    /// Adam's, then the decoupled weight decay `decay` (0: none).
    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
        params: &mut [f32],
        grad: &[f32],
        t: usize,
        range: std::ops::Range<usize>,
        cfg: &TrainConfig,
        step_size: f32,
        decay: f32,
    ) {
        let bc1 = 1.0 - cfg.beta1.powi(self.step.min(1 << 20) as i32);
        let bc2 = 1.0 - cfg.beta2.powi(self.step.min(1 << 20) as i32);
        let lr = step_size * bc2.sqrt() / bc1;
        let shrink = 1.0 - step_size * decay;
        let (m, v) = (&mut self.m[t][range.clone()], &mut self.v[t][range.clone()]);
        for (((p, g), m), v) in params[range.clone()].iter_mut().zip(&grad[range]).zip(m).zip(v) {
            *m = cfg.beta1 * *m + (1.0 - cfg.beta1) * g;
            *v = cfg.beta2 * *v + (1.0 - cfg.beta2) * g * g;
            *p = *p * shrink - lr * *m / (v.sqrt() + 1e-8);
        }
    }
}

/// A worker's gradient: tensors shaped as the model's, with the feature
/// rows it touched so that only those are read and zeroed.
struct Grad {
    tensors: Vec<Vec<f32>>,
    touched: Vec<u16>,
    marked: Vec<bool>,
    loss: f64,
}

impl Grad {
    fn new<M: Model>(model: &M) -> Grad {
        let tensors: Vec<Vec<f32>> = model.tensors().iter().map(|t| vec![0.0; t.len()]).collect();
        let rows = tensors[0].len() / M::ROW;
        Grad {
            tensors,
            touched: Vec::new(),
            marked: vec![false; rows],
            loss: 0.0,
        }
    }

    fn add<M: Model>(&mut self, model: &M, s: &Sample, factors: Factors) {
        let loss = with_rows(factors, s, |stm, opp| {
            for &f in stm.iter().chain(opp) {
                if !self.marked[f as usize] {
                    self.marked[f as usize] = true;
                    self.touched.push(f);
                }
            }
            model.backward(stm, opp, s.target, &mut self.tensors)
        });
        self.loss += f64::from(loss);
    }

    /// Adds `other` into `self` and clears `other`.
    fn absorb<M: Model>(&mut self, other: &mut Grad) {
        for (a, b) in self.tensors.iter_mut().zip(other.tensors.iter_mut()).skip(1) {
            a.iter_mut().zip(b.iter_mut()).for_each(|(x, y)| {
                *x += *y;
                *y = 0.0;
            });
        }
        for &f in &other.touched {
            let r = f as usize * M::ROW..(f as usize + 1) * M::ROW;
            let (a, b) = (&mut self.tensors[0][r.clone()], &mut other.tensors[0][r]);
            a.iter_mut().zip(b.iter_mut()).for_each(|(x, y)| {
                *x += *y;
                *y = 0.0;
            });
            other.marked[f as usize] = false;
            if !self.marked[f as usize] {
                self.marked[f as usize] = true;
                self.touched.push(f);
            }
        }
        other.touched.clear();
        self.loss += other.loss;
        other.loss = 0.0;
    }
}

/// Mean loss of `model` over `samples`, on `threads` threads.
pub fn mean_loss<M: Model>(model: &M, samples: &[Sample], threads: usize) -> f32 {
    mean_loss_with(model, Factors::None, samples, threads)
}

/// Mean loss over `samples` of an integer model (a [`QuantNetwork`] or a
/// [`crate::LinearNet`], as a file holds it and the engine evaluates it):
/// what quantization keeps of a float model's validation loss.
pub fn integer_mean_loss<N: crate::Incremental>(net: &N, samples: &[Sample]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let (mut stm, mut opp) = (N::zero(), N::zero());
    let total: f64 = samples
        .iter()
        .map(|s| {
            net.refresh(s.stm.as_slice(), &mut stm);
            net.refresh(s.opp.as_slice(), &mut opp);
            let logit = net.output(&stm, &opp) as f32 / EVAL_SCALE as f32;
            f64::from(bce_with_logit(logit, s.target))
        })
        .sum();
    (total / samples.len() as f64) as f32
}

/// Mean loss of `model`, whose feature rows are followed by `factors`'
/// rows, over `samples`.
fn mean_loss_with<M: Model>(model: &M, factors: Factors, samples: &[Sample], threads: usize) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let chunk = samples.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|s| {
                            let logit = with_rows(factors, s, |stm, opp| model.predict_lists(stm, opp));
                            f64::from(bce_with_logit(logit, s.target))
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(f64::NAN)).sum()
    });
    (total / samples.len() as f64) as f32
}

/// Splits `samples` into (validation, training) by game: the games (by
/// [`Sample::game`]) in an order shuffled with `seed` go to validation
/// until it holds `fraction` of the samples, so no game has positions on
/// both sides (its positions are alike, and a validation loss over seen
/// games would reward learning the games). At least one game stays for
/// training. The same samples, fraction and seed give the same split, which
/// is how a network can be scored later on the games its training held
/// out (`leaper-data loss`).
pub fn split_by_game(samples: Vec<Sample>, fraction: f32, seed: u64) -> (Vec<Sample>, Vec<Sample>) {
    let mut per_game: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for s in &samples {
        *per_game.entry(s.game).or_default() += 1;
    }
    let mut games: Vec<(u64, usize)> = per_game.into_iter().collect();
    games.sort_unstable();
    games.shuffle(&mut StdRng::seed_from_u64(seed));
    let wanted = (samples.len() as f32 * fraction).round() as usize;
    let mut held_games = std::collections::HashSet::new();
    let mut held = 0;
    for &(game, n) in games.iter().skip(1) {
        if held >= wanted {
            break;
        }
        held_games.insert(game);
        held += n;
    }
    samples.into_iter().partition(|s| held_games.contains(&s.game))
}

/// A trainer: the model, its optimiser state, the data split, and where it
/// is in the schedule.
#[derive(Debug)]
pub struct Trainer<M: Model> {
    /// The model being fitted, with the factor rows of `config.factors`
    /// after its feature rows.
    model: M,
    adam: Adam,
    /// Epochs completed.
    pub epoch: u32,
    config: TrainConfig,
    train: Vec<Sample>,
    validation: Vec<Sample>,
}

impl<M: Model> Trainer<M> {
    /// A trainer for `model` on `samples`, split into training and
    /// validation sets by game with [`split_by_game`]
    /// (`config.validation_fraction`, `config.seed`). The model's feature
    /// rows are followed by `config.factors`' rows, starting at zero (so the model computes
    /// what it did); rows past those are dropped.
    pub fn new(mut model: M, samples: Vec<Sample>, config: TrainConfig) -> Trainer<M> {
        model
            .feature_rows_mut()
            .resize((NUM_FEATURES + config.factors.rows()) * M::ROW, 0.0);
        let (validation, train) = split_by_game(samples, config.validation_fraction, config.seed);
        Trainer {
            adam: Adam::new(&model),
            model,
            epoch: 0,
            config,
            train,
            validation,
        }
    }

    /// The model as trained so far, its factor rows folded into the
    /// features' own: it computes what the trained model does, on real
    /// features alone.
    pub fn model(&self) -> M {
        fold(&self.model, self.config.factors)
    }

    /// The trained model's output logit for `sample`, computed with its
    /// factor rows as training does (what [`Trainer::model`] folds).
    pub fn predict(&self, sample: &Sample) -> f32 {
        with_rows(self.config.factors, sample, |stm, opp| {
            self.model.predict_lists(stm, opp)
        })
    }

    /// The held-out samples.
    pub fn validation(&self) -> &[Sample] {
        &self.validation
    }

    /// The training samples.
    pub fn training(&self) -> &[Sample] {
        &self.train
    }

    /// The step size of epoch `epoch` (0-based).
    pub fn learning_rate(&self, epoch: u32) -> f32 {
        self.decayed(self.config.learning_rate, epoch)
    }

    /// A first epoch's step size `base` after the decay of `epoch` epochs.
    fn decayed(&self, base: f32, epoch: u32) -> f32 {
        base * self.config.lr_decay.powi(epoch.min(1 << 16) as i32)
    }

    /// The step size of the accumulator's weights in epoch `epoch`
    /// (0-based).
    pub fn accumulator_learning_rate(&self, epoch: u32) -> f32 {
        self.decayed(
            self.config
                .accumulator_learning_rate
                .unwrap_or(self.config.learning_rate),
            epoch,
        )
    }

    /// The step size of the skip weights in epoch `epoch` (0-based).
    pub fn psq_learning_rate(&self, epoch: u32) -> f32 {
        self.decayed(
            self.config.psq_learning_rate.unwrap_or(self.config.learning_rate),
            epoch,
        )
    }

    /// Mean loss on the held-out samples.
    pub fn validation_loss(&self) -> f32 {
        mean_loss_with(&self.model, self.config.factors, &self.validation, self.config.threads)
    }

    /// Trains until `config.epochs` epochs are done (counting those of a
    /// resumed checkpoint), calling `report` after each; writes a
    /// checkpoint after each when configured.
    ///
    /// # Errors
    /// Writing a checkpoint failed.
    pub fn run(&mut self, mut report: impl FnMut(&EpochReport)) -> std::io::Result<()> {
        while self.epoch < self.config.epochs {
            let r = self.train_epoch();
            report(&r);
            if let Some(path) = self.config.checkpoint.clone() {
                self.save_checkpoint(&path)?;
            }
        }
        Ok(())
    }

    /// One pass over the training set in a fresh order.
    pub fn train_epoch(&mut self) -> EpochReport {
        let start = std::time::Instant::now();
        let threads = self.config.threads.max(1);
        let mut order: Vec<u32> = (0..self.train.len() as u32).collect();
        order.shuffle(&mut StdRng::seed_from_u64(
            self.config.seed ^ ((u64::from(self.epoch) + 1) * 0x9e37_79b9),
        ));
        let mut grads: Vec<Grad> = (0..threads).map(|_| Grad::new(&self.model)).collect();
        let (mut loss_sum, mut n) = (0f64, 0usize);
        let step_size = self.learning_rate(self.epoch);
        let psq_step_size = self.psq_learning_rate(self.epoch);
        let steps = StepSizes {
            rest: step_size,
            psq: psq_step_size,
            accumulator: self.accumulator_learning_rate(self.epoch),
        };
        let factors = self.config.factors;
        for batch in order.chunks(self.config.batch_size.max(1)) {
            let per = batch.len().div_ceil(threads);
            let (model, train) = (&self.model, &self.train);
            std::thread::scope(|scope| {
                for (g, part) in grads.iter_mut().zip(batch.chunks(per)) {
                    scope.spawn(move || {
                        for &i in part {
                            g.add(model, &train[i as usize], factors);
                        }
                    });
                }
            });
            let (first, rest) = grads.split_at_mut(1);
            for other in rest {
                first[0].absorb::<M>(other);
            }
            loss_sum += first[0].loss;
            n += batch.len();
            self.apply(&mut first[0], batch.len(), steps);
        }
        self.epoch += 1;
        let samples_per_second = n as f64 / start.elapsed().as_secs_f64().max(1e-9);
        EpochReport {
            epoch: self.epoch,
            train_loss: (loss_sum / n.max(1) as f64) as f32,
            validation_loss: self.validation_loss(),
            samples_per_second,
            learning_rate: step_size,
        }
    }

    /// One Adam step with the summed gradient of `len` samples, then the
    /// clip; clears the gradient. The skip column and tensors step by
    /// `steps.psq` without decay, the feature rows' other columns and the
    /// accumulator tensors by `steps.accumulator`, the rest by
    /// `steps.rest`, with the configured decay where
    /// [`Model::DECAYED_TENSORS`] says.
    fn apply(&mut self, grad: &mut Grad, len: usize, steps: StepSizes) {
        let StepSizes {
            rest: step_size,
            psq: psq_step_size,
            accumulator: accumulator_step_size,
        } = steps;
        let scale = 1.0 / len.max(1) as f32;
        self.adam.step += 1;
        let cfg = self.config.clone();
        let decay_of = |t: usize| {
            if M::DECAYED_TENSORS.contains(&t) {
                cfg.weight_decay
            } else {
                0.0
            }
        };
        let mut params = self.model.tensors_mut();
        for (t, (p, g)) in params.iter_mut().zip(grad.tensors.iter_mut()).enumerate() {
            if t == 0 {
                for &f in &grad.touched {
                    let r = f as usize * M::ROW..(f as usize + 1) * M::ROW;
                    g[r.clone()].iter_mut().for_each(|x| *x *= scale);
                    match M::SKIP_COLUMN {
                        Some(c) => {
                            let skip = r.start + c;
                            let decay = decay_of(0);
                            let size = accumulator_step_size;
                            self.adam.update(p, g, 0, r.start..skip, &cfg, size, decay);
                            self.adam.update(p, g, 0, skip..skip + 1, &cfg, psq_step_size, 0.0);
                            self.adam.update(p, g, 0, skip + 1..r.end, &cfg, size, decay);
                        }
                        None => self
                            .adam
                            .update(p, g, 0, r.clone(), &cfg, accumulator_step_size, decay_of(0)),
                    }
                    g[r].iter_mut().for_each(|x| *x = 0.0);
                    grad.marked[f as usize] = false;
                }
            } else {
                g.iter_mut().for_each(|x| *x *= scale);
                let (size, decay) = if M::SKIP_TENSORS.contains(&t) {
                    (psq_step_size, 0.0)
                } else if M::ACCUMULATOR_TENSORS.contains(&t) {
                    (accumulator_step_size, decay_of(t))
                } else {
                    (step_size, decay_of(t))
                };
                self.adam.update(p, g, t, 0..g.len(), &cfg, size, decay);
                g.iter_mut().for_each(|x| *x = 0.0);
            }
        }
        grad.touched.clear();
        grad.loss = 0.0;
        drop(params);
        self.model.clip();
        clip_folded(&mut self.model, self.config.factors);
    }

    /// The model's name in checkpoints: its kind, and its factors when it
    /// has some (a checkpoint with other factors is refused by name).
    fn kind_name(&self) -> String {
        match self.config.factors {
            Factors::None => M::KIND.to_string(),
            f => format!("{}+{}", M::KIND, f.name()),
        }
    }

    /// Writes the model, Adam's state and the epoch count to `path`
    /// atomically.
    ///
    /// # Errors
    /// The file system's error.
    pub fn save_checkpoint(&self, path: &Path) -> std::io::Result<()> {
        let mut out = Vec::new();
        out.extend_from_slice(CHECKPOINT_MAGIC);
        out.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        let kind = self.kind_name();
        let kind = kind.as_bytes();
        out.extend_from_slice(&(kind.len() as u32).to_le_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(&self.epoch.to_le_bytes());
        out.extend_from_slice(&self.adam.step.to_le_bytes());
        for group in [
            self.model.tensors(),
            self.adam.m.iter().map(|v| &v[..]).collect(),
            self.adam.v.iter().map(|v| &v[..]).collect(),
        ] {
            for t in group {
                out.extend_from_slice(&(t.len() as u64).to_le_bytes());
                t.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            }
        }
        crate::file::write_atomically(path, &out)
    }

    /// Restores the model, Adam's state and the epoch count from a
    /// checkpoint written by [`Trainer::save_checkpoint`]; training then
    /// goes on where it stopped (the data split and each epoch's order
    /// come from the seed, so give the same samples and seed).
    ///
    /// # Errors
    /// A message naming what does not fit: magic, version, model kind,
    /// a tensor's length, or a short file.
    pub fn resume(&mut self, path: &Path) -> Result<(), CheckpointError> {
        let bytes = std::fs::read(path).map_err(CheckpointError::Io)?;
        let mut r = ByteReader { bytes: &bytes, at: 0 };
        if r.take(8)? != CHECKPOINT_MAGIC {
            return Err(CheckpointError::Format("not a leaper checkpoint (bad magic)".into()));
        }
        let version = r.u32()?;
        if version != CHECKPOINT_VERSION {
            return Err(CheckpointError::Format(format!(
                "checkpoint version {version}, expected {CHECKPOINT_VERSION}"
            )));
        }
        let kind_len = r.u32()? as usize;
        let kind = r.take(kind_len)?;
        if kind != self.kind_name().as_bytes() {
            return Err(CheckpointError::Format(format!(
                "checkpoint of a {} model, not {}",
                String::from_utf8_lossy(kind),
                self.kind_name()
            )));
        }
        let epoch = r.u32()?;
        let step = r.u64()?;
        let mut model = self.model.clone();
        let mut adam = self.adam.clone();
        {
            let mut targets: Vec<&mut [f32]> = model.tensors_mut();
            targets.extend(adam.m.iter_mut().map(|v| &mut v[..]));
            targets.extend(adam.v.iter_mut().map(|v| &mut v[..]));
            for (i, t) in targets.into_iter().enumerate() {
                let len = r.u64()? as usize;
                if len != t.len() {
                    return Err(CheckpointError::Format(format!(
                        "checkpoint tensor {i} has {len} values, the model {}",
                        t.len()
                    )));
                }
                for x in t.iter_mut() {
                    *x = f32::from_le_bytes(r.array()?);
                }
            }
        }
        if r.at != bytes.len() {
            return Err(CheckpointError::Format(format!(
                "{} bytes after the checkpoint's end",
                bytes.len() - r.at
            )));
        }
        adam.step = step;
        self.model = model;
        self.adam = adam;
        self.epoch = epoch;
        Ok(())
    }
}

impl Trainer<FloatNetwork> {
    /// The integer network of the current weights, written to `path`.
    ///
    /// # Errors
    /// The file system's error.
    pub fn export(&self, path: &Path) -> Result<QuantNetwork, crate::NetFileError> {
        let net = self.model().quantize();
        net.save(path)?;
        Ok(net)
    }
}

impl Trainer<LinearModel> {
    /// The integer linear model of the current weights, written to `path`.
    ///
    /// # Errors
    /// The file system's error.
    pub fn export(&self, path: &Path) -> Result<crate::LinearNet, crate::NetFileError> {
        let net = crate::LinearNet::from_model(&self.model());
        net.save(path)?;
        Ok(net)
    }
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"LEAPCKPT";
/// 2 since the network's feature rows hold the psq weight (a version 1
/// network checkpoint's tensors no longer fit).
const CHECKPOINT_VERSION: u32 = 2;

/// Why a checkpoint could not be resumed.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The file system refused.
    #[error("checkpoint i/o: {0}")]
    Io(std::io::Error),
    /// The content does not fit this trainer.
    #[error("checkpoint: {0}")]
    Format(String),
}

struct ByteReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> ByteReader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], CheckpointError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                CheckpointError::Format(format!(
                    "checkpoint ends at byte {} in the middle of a field",
                    self.bytes.len()
                ))
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], CheckpointError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, CheckpointError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, CheckpointError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
}
