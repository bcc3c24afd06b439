//! The network's shape, its float form (for training and as the reference
//! of what the network computes) and its integer form (for play), with the
//! quantization between them.
//!
//! Shape: 6,360 sparse inputs per perspective -> an accumulator of [`L1`]
//! (weights shared by both perspectives) -> clipped ReLU on each side, the
//! side to move's half first -> [`L2`] -> clipped ReLU -> [`L3`] -> clipped
//! ReLU -> 1 output, the side to move's winning chances as a logit.
//!
//! Beside the dense path, a linear skip term (the "PSQT" of Stockfish's
//! networks, here one bucket): each feature has one more weight, its psq
//! weight, and the output adds the side to move's psq sum minus the other
//! side's. With the dense output weights at zero the network is exactly a
//! linear model over the features ([`crate::LinearNet`]), which is how the
//! trainer can start it from one ([`FloatNetwork::from_linear`]) and
//! learn only a correction. In the float network the psq weight is the
//! last column of a feature's row ([`W1_ROW`] = `L1 + 1` wide), so the
//! trainer's sparse row updates, factors and folding treat it as any other
//! column; in the integer network it is an i32 in evaluation units, summed
//! beside the accumulator.
//!
//! Quantization: the accumulator holds i16 at scale [`QA`] (1.0 = 255), so
//! its clipped ReLU is a clamp to 0..=255. The first dense layer's weights
//! are i16 at scale [`QW2`] (1.0 = 8,192), the other dense weights at
//! [`QB`] (1.0 = 512), and sums i32; the two hidden layers' activations are
//! i16 at the finer scale [`QH`] (1.0 = 2,040 = 8 QA, reached by a rounded
//! shift), because their rounding, multiplied by the output weights, is
//! what the integer output loses most by. The first dense layer has its own
//! finer scale because its weights are small (RMS 0.045, the largest 0.20
//! in the networks of rounds eleven and twelve): at 1/512 a step was 4% of
//! a typical weight, and rounding them alone cost a fine-tuned network as
//! much validation loss as its round had gained (0.58149 to 0.58170).
//! i16 x i16 -> i32 is the product the x86-64 baseline (SSE2 `pmaddwd`)
//! multiplies eight at a time, and it is what the auto-vectoriser finds.
//! The two hot paths, the dense layers and the accumulator update, are
//! compiled twice, for that baseline and for AVX2, and the `multiversion`
//! crate picks one when first called: the binary runs on any x86-64, and
//! a test holds the version the CPU runs to the plain arithmetic.
//! The output is scaled to [`EVAL_SCALE`] per logit unit. Float weights
//! are clipped to [`W1_CLIP`], [`W2_CLIP`] and [`DENSE_CLIP`], so that no
//! integer overflows: 32 active features and the bias stay within i16
//! (33 x 510 < 32,767); the first dense sum with its bias within i32
//! (2 L1 = 128 inputs: 128 x 255 x 32,767 + 63 x 255 x 8,192 < 2^31), and
//! the second's too (L2 = 16 inputs: 16 x 2,040 x 32,256 + 63 x 2,040 x
//! 512 < 2^31); the output adds its bias in i64. The psq weights are clipped to
//! [`crate::LINEAR_CLIP`] as the linear model's, so a psq sum of 32
//! features stays far inside i32 (32 x 80,000).

use crate::LINEAR_CLIP;
use crate::features::{MAX_ACTIVE, NUM_FEATURES, active_features};
use crate::train::LinearModel;
use leaper_rules::Position;
use multiversion::multiversion;
use rand::Rng;
use wide::{i16x8, i32x4};

/// The width of each perspective's accumulator. 64 rather than 128: on
/// the few hundred thousand positions we have, the validation loss is the
/// same or better (0.622 against 0.624 on gen3's first 164k, 0.6115
/// against 0.6138 on 265k, factorised, best epoch), and the first dense layer, which is most of the evaluation's
/// cost, is half the work (see engine/README.md for the speed).
pub const L1: usize = 64;
/// The width of the first dense layer.
pub const L2: usize = 16;
/// The width of the second dense layer.
pub const L3: usize = 32;
/// The width of a feature's row in the float network: its [`L1`]
/// accumulator weights, then its psq weight (the linear skip term).
pub const W1_ROW: usize = L1 + 1;
/// The column of a float feature row that holds the psq weight.
pub const PSQ_COLUMN: usize = L1;
/// Both accumulators, concatenated.
pub(crate) const L1X2: usize = 2 * L1;
/// The integer that stands for 1.0 in the accumulator and the activations.
pub const QA: i32 = 255;
/// The integer that stands for 1.0 in a dense weight.
pub const QB: i32 = 512;
/// The integer that stands for 1.0 in a weight of the first dense layer:
/// 16 times finer than [`QB`] (see the module's note on quantization).
pub const QW2: i32 = 16 * QB;
/// The integer that stands for 1.0 in the hidden layers' activations.
pub const QH: i32 = 8 * QA;
/// From a first dense layer's sum (scale QA QW2) to scale QH.
const SHIFT_L2: u32 = 10;
/// From a second dense layer's sum (scale QH QB) to scale QH.
const SHIFT_L3: u32 = 9;
/// The evaluation's unit: 10,000 per logit unit of the side to move's
/// expected score.
pub const EVAL_SCALE: i64 = 10_000;
/// The bound of the feature weights and accumulator biases.
pub const W1_CLIP: f32 = 2.0;
/// The bound of the dense weights and biases, except the first dense
/// layer's weights.
pub const DENSE_CLIP: f32 = 63.0;
/// The bound of the first dense layer's weights: what i16 holds at
/// [`QW2`] (32,767 / 8,192 = 3.9999), twenty times the largest a trained
/// network has had.
pub const W2_CLIP: f32 = 3.99;

/// The network in floating point: what the trainer changes, and the
/// reference of what the integer network approximates. Matrices are
/// row-major by output: `w2[o * 2 * L1 + i]`.
///
/// Output: `b4 + w4 . h2 + psq(stm) - psq(opp)`, where `psq(side)` sums
/// the psq weights (column [`PSQ_COLUMN`] of `w1`) of that side's active
/// features.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// Feature rows: `w1[f * W1_ROW + j]` for accumulator column `j <
    /// L1`, and `w1[f * W1_ROW + PSQ_COLUMN]` the feature's psq weight.
    pub w1: Vec<f32>,
    /// Accumulator bias, `L1`.
    pub b1: Vec<f32>,
    /// First dense layer, `L2 x 2 L1`.
    pub w2: Vec<f32>,
    /// Its bias, `L2`.
    pub b2: Vec<f32>,
    /// Second dense layer, `L3 x L2`.
    pub w3: Vec<f32>,
    /// Its bias, `L3`.
    pub b3: Vec<f32>,
    /// Output weights, `L3`.
    pub w4: Vec<f32>,
    /// Output bias.
    pub b4: f32,
}

/// Clipped ReLU in float.
#[inline]
pub(crate) fn crelu(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

impl FloatNetwork {
    /// All weights zero.
    pub fn zeros() -> FloatNetwork {
        FloatNetwork {
            w1: vec![0.0; NUM_FEATURES * W1_ROW],
            b1: vec![0.0; L1],
            w2: vec![0.0; L2 * L1X2],
            b2: vec![0.0; L2],
            w3: vec![0.0; L3 * L2],
            b3: vec![0.0; L3],
            w4: vec![0.0; L3],
            b4: 0.0,
        }
    }

    /// Random weights for training from scratch: uniform with the fan-in
    /// scaling that keeps activations of order one, feature weights small
    /// (about 31 of them add up); the psq weights zero.
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> FloatNetwork {
        let mut net = FloatNetwork::zeros();
        let mut fill = |v: &mut Vec<f32>, bound: f32| v.iter_mut().for_each(|w| *w = rng.random_range(-bound..bound));
        fill(&mut net.w1, 0.1);
        fill(&mut net.b1, 0.1);
        fill(&mut net.w2, (1.0 / L1X2 as f32).sqrt());
        fill(&mut net.w3, (1.0 / L2 as f32).sqrt());
        fill(&mut net.w4, (1.0 / L3 as f32).sqrt());
        net.b1.iter_mut().for_each(|b| *b += 0.25);
        net.w1.chunks_exact_mut(W1_ROW).for_each(|row| row[PSQ_COLUMN] = 0.0);
        net
    }

    /// A network that computes what `linear` does: random hidden layers
    /// as [`FloatNetwork::random`], but the psq weights are the linear
    /// model's weights, the output bias its bias, and the output weights
    /// `w4` zero, so that the dense path adds nothing until training moves
    /// `w4`. Training then learns a correction to the linear model.
    pub fn from_linear<R: Rng + ?Sized>(linear: &LinearModel, rng: &mut R) -> FloatNetwork {
        let mut net = FloatNetwork::random(rng);
        for (row, &w) in net.w1.chunks_exact_mut(W1_ROW).zip(&linear.weights) {
            row[PSQ_COLUMN] = w;
        }
        net.w4.iter_mut().for_each(|w| *w = 0.0);
        net.b4 = linear.bias;
        net
    }

    /// Gives every dead accumulator column (zero feature weights, zero
    /// bias and zero first-layer weights on both halves: what a narrower
    /// network file loads with, see [`QuantNetwork::from_bytes`]) random
    /// feature weights and a bias as [`FloatNetwork::random`] does, leaving
    /// its first-layer weights zero. The network computes exactly what it
    /// did, but the column is alive: its activations give its first-layer
    /// weights a gradient, and once those move, its feature weights learn
    /// too (a dead column's gradients are all zero). Returns how many
    /// columns were revived.
    pub fn revive_dead_columns<R: Rng + ?Sized>(&mut self, rng: &mut R) -> usize {
        let mut revived = 0;
        for j in 0..L1 {
            let dead = self.b1[j] == 0.0
                && self.w1.chunks_exact(W1_ROW).all(|row| row[j] == 0.0)
                && self
                    .w2
                    .chunks_exact(L1X2)
                    .all(|row| row[j] == 0.0 && row[L1 + j] == 0.0);
            if !dead {
                continue;
            }
            for row in self.w1.chunks_exact_mut(W1_ROW) {
                row[j] = rng.random_range(-0.1..0.1);
            }
            self.b1[j] = 0.25 + rng.random_range(-0.1..0.1);
            revived += 1;
        }
        revived
    }

    /// The psq weight of feature `f`.
    pub fn psq(&self, f: u16) -> f32 {
        self.w1[f as usize * W1_ROW + PSQ_COLUMN]
    }

    /// The bound of column `j` of a feature row: [`W1_CLIP`] for the
    /// accumulator's, [`LINEAR_CLIP`] for the psq weight.
    #[inline]
    pub fn column_clip(j: usize) -> f32 {
        if j == PSQ_COLUMN { LINEAR_CLIP } else { W1_CLIP }
    }

    /// Clamps every weight to what quantization can hold.
    pub fn clip(&mut self) {
        let clamp = |v: &mut Vec<f32>, bound: f32| v.iter_mut().for_each(|w| *w = w.clamp(-bound, bound));
        for row in self.w1.chunks_exact_mut(W1_ROW) {
            for (j, w) in row.iter_mut().enumerate() {
                let bound = FloatNetwork::column_clip(j);
                *w = w.clamp(-bound, bound);
            }
        }
        clamp(&mut self.b1, W1_CLIP);
        clamp(&mut self.w2, W2_CLIP);
        for v in [&mut self.b2, &mut self.w3, &mut self.b3, &mut self.w4] {
            clamp(v, DENSE_CLIP);
        }
        self.b4 = self.b4.clamp(-DENSE_CLIP, DENSE_CLIP);
    }

    /// The accumulator of a feature list (before the clipped ReLU), with
    /// the features' psq sum in its last entry ([`PSQ_COLUMN`]).
    pub fn accumulate(&self, features: &[u16]) -> [f32; W1_ROW] {
        let mut acc = [0.0; W1_ROW];
        acc[..L1].copy_from_slice(&self.b1);
        for &f in features {
            let row = &self.w1[f as usize * W1_ROW..(f as usize + 1) * W1_ROW];
            acc.iter_mut().zip(row).for_each(|(a, w)| *a += w);
        }
        acc
    }

    /// The output (logit of the side to move) from both accumulators (as
    /// [`FloatNetwork::accumulate`] makes them, psq sums last), keeping
    /// the activations for backpropagation.
    pub fn forward_from(&self, stm: &[f32; W1_ROW], opp: &[f32; W1_ROW]) -> Activations {
        let mut h0 = [0.0; L1X2];
        for j in 0..L1 {
            h0[j] = crelu(stm[j]);
            h0[L1 + j] = crelu(opp[j]);
        }
        let mut z1 = [0.0; L2];
        for (o, z) in z1.iter_mut().enumerate() {
            let row = &self.w2[o * L1X2..(o + 1) * L1X2];
            *z = self.b2[o] + row.iter().zip(&h0).map(|(w, x)| w * x).sum::<f32>();
        }
        let h1 = z1.map(crelu);
        let mut z2 = [0.0; L3];
        for (o, z) in z2.iter_mut().enumerate() {
            let row = &self.w3[o * L2..(o + 1) * L2];
            *z = self.b3[o] + row.iter().zip(&h1).map(|(w, x)| w * x).sum::<f32>();
        }
        let h2 = z2.map(crelu);
        let dense = self.w4.iter().zip(&h2).map(|(w, x)| w * x).sum::<f32>();
        // In the linear model's order (bias, + stm, - opp), so that a
        // network with w4 = 0 computes exactly what the model does.
        let out = self.b4 + dense + stm[PSQ_COLUMN] - opp[PSQ_COLUMN];
        Activations {
            stm: *stm,
            opp: *opp,
            z1,
            z2,
            out,
        }
    }

    /// The evaluation of `pos` in logit units for the side to move.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let (_, stm) = active_features(pos, pos.turn());
        let (_, opp) = active_features(pos, !pos.turn());
        self.forward_from(&self.accumulate(stm.as_slice()), &self.accumulate(opp.as_slice()))
            .out
    }

    /// The integer network: weights clipped as in [`FloatNetwork::clip`],
    /// then scaled and rounded.
    pub fn quantize(&self) -> QuantNetwork {
        let q16 = |w: f32, bound: f32, scale: i32| (w.clamp(-bound, bound) * scale as f32).round() as i16;
        let q32 = |w: f32, scale: i32| (w.clamp(-DENSE_CLIP, DENSE_CLIP) * scale as f32).round() as i32;
        let mut net = QuantNetwork::zeros();
        for (f, row) in net.w1.iter_mut().enumerate() {
            for (j, w) in row.iter_mut().enumerate() {
                *w = q16(self.w1[f * W1_ROW + j], W1_CLIP, QA);
            }
            let psq = self.w1[f * W1_ROW + PSQ_COLUMN].clamp(-LINEAR_CLIP, LINEAR_CLIP);
            net.psq[f] = (psq * EVAL_SCALE as f32).round() as i32;
        }
        for j in 0..L1 {
            net.b1[j] = q16(self.b1[j], W1_CLIP, QA);
        }
        for o in 0..L2 {
            for i in 0..L1X2 {
                net.w2[o][i] = q16(self.w2[o * L1X2 + i], W2_CLIP, QW2);
            }
            net.b2[o] = q32(self.b2[o], QA * QW2);
        }
        for o in 0..L3 {
            for i in 0..L2 {
                net.w3[o][i] = q16(self.w3[o * L2 + i], DENSE_CLIP, QB);
            }
            net.b3[o] = q32(self.b3[o], QH * QB);
        }
        for i in 0..L3 {
            net.w4[i] = q16(self.w4[i], DENSE_CLIP, QB);
        }
        net.b4 = q32(self.b4, QH * QB);
        net.pack();
        net
    }
}

/// What a float forward pass computed, kept for its backward pass.
#[derive(Clone, Debug)]
pub struct Activations {
    /// The side to move's accumulator before the clipped ReLU, its psq
    /// sum last.
    pub stm: [f32; W1_ROW],
    /// The other side's accumulator before the clipped ReLU, its psq sum
    /// last.
    pub opp: [f32; W1_ROW],
    /// The first dense layer before its clipped ReLU.
    pub z1: [f32; L2],
    /// The second dense layer before its clipped ReLU.
    pub z2: [f32; L3],
    /// The output logit.
    pub out: f32,
}

const _: () = assert!((QA * QW2) >> SHIFT_L2 == QH && QB >> SHIFT_L3 == 1);
// The bound on the first dense sum in the module's note: every input at
// QA, every weight at i16's largest, the bias at its clip.
const _: () =
    assert!(L1X2 as i64 * QA as i64 * i16::MAX as i64 + DENSE_CLIP as i64 * QA as i64 * QW2 as i64 <= i32::MAX as i64);

/// The network in integers, as the engine evaluates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantNetwork {
    pub(crate) w1: Vec<[i16; L1]>,
    /// The psq weight of each feature, in evaluation units (logit x
    /// [`EVAL_SCALE`], as [`crate::LinearNet`]'s weights).
    pub(crate) psq: Vec<i32>,
    pub(crate) b1: [i16; L1],
    pub(crate) w2: Box<[[i16; L1X2]; L2]>,
    pub(crate) b2: [i32; L2],
    pub(crate) w3: [[i16; L2]; L3],
    /// `w3` rearranged for [`second_dense`]: entry `p` holds, for each
    /// group of four outputs, the weights of inputs `2p` and `2p + 1`
    /// interleaved output by output. Derived from `w3`, never saved.
    pub(crate) w3_pairs: [[[i16; 8]; L3 / 4]; L2 / 2],
    pub(crate) b3: [i32; L3],
    pub(crate) w4: [i16; L3],
    pub(crate) b4: i32,
}

/// One perspective's sums in the integer network: the accumulator (before
/// the clipped ReLU) and the psq sum of its active features (evaluation
/// units), kept together by the same updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfAccumulator {
    /// The accumulator, at scale [`QA`].
    pub acc: [i16; L1],
    /// The psq sum.
    pub psq: i32,
}

impl HalfAccumulator {
    /// All zero.
    pub const ZERO: HalfAccumulator = HalfAccumulator { acc: [0; L1], psq: 0 };
}

/// One dense layer with clipped ReLU: i16 inputs, i16 weights (at scale
/// QW2 in the first dense layer), i32 sums, outputs shifted (rounding) to scale QH and clamped to 0..=QH.
#[inline]
fn dense_crelu<const I: usize, const O: usize, const SHIFT: u32>(
    input: &[i16; I],
    w: &[[i16; I]; O],
    b: &[i32; O],
) -> [i16; O] {
    let mut out = [0i16; O];
    for ((o, row), bias) in out.iter_mut().zip(w).zip(b) {
        let sum = dot(input, row).wrapping_add(*bias);
        *o = (sum.wrapping_add(1 << (SHIFT - 1)) >> SHIFT).clamp(0, QH) as i16;
    }
    out
}

/// The second dense layer (16 inputs, 32 outputs) as [`dense_crelu`]
/// computes it, but by input pairs: each pair is broadcast and multiplied
/// with its interleaved weights for four outputs at a time, so the 32 sums
/// build up in eight vectors without the horizontal sums that 32 short dot
/// products would need. Integer sums are exact: the result is the same.
#[inline]
fn second_dense(input: &[i16; L2], w: &[[[i16; 8]; L3 / 4]; L2 / 2], b: &[i32; L3]) -> [i16; L3] {
    let mut sums = [i32x4::ZERO; L3 / 4];
    for (pair, groups) in input.as_chunks::<2>().0.iter().zip(w) {
        let [x0, x1] = *pair;
        let x = i16x8::new([x0, x1, x0, x1, x0, x1, x0, x1]);
        for (sum, group) in sums.iter_mut().zip(groups) {
            *sum += x.dot(i16x8::new(*group));
        }
    }
    let mut out = [0i16; L3];
    for ((o, sum), bias) in out
        .as_chunks_mut::<4>()
        .0
        .iter_mut()
        .zip(sums)
        .zip(b.as_chunks::<4>().0)
    {
        for ((o, s), bias) in o.iter_mut().zip(sum.to_array()).zip(bias) {
            let s = s.wrapping_add(*bias);
            *o = (s.wrapping_add(1 << (SHIFT_L3 - 1)) >> SHIFT_L3).clamp(0, QH) as i16;
        }
    }
    out
}

/// The i32 dot product of two i16 vectors, eight pairs at a time with the
/// `wide` crate's safe packed multiply-add (SSE2 `pmaddwd`). The compiler
/// finds that instruction by itself only in long loops: for the second
/// dense layer (16 inputs) it multiplied in 32 bits, three times slower.
#[inline]
fn dot<const I: usize>(a: &[i16; I], b: &[i16; I]) -> i32 {
    let (ca, ra) = a.as_chunks::<8>();
    let (cb, rb) = b.as_chunks::<8>();
    let mut acc = i32x4::ZERO;
    for (x, y) in ca.iter().zip(cb) {
        acc += i16x8::new(*x).dot(i16x8::new(*y));
    }
    let mut sum = acc.to_array().iter().fold(0i32, |s, &x| s.wrapping_add(x));
    for (x, y) in ra.iter().zip(rb) {
        sum = sum.wrapping_add(i32::from(*x) * i32::from(*y));
    }
    sum
}

impl QuantNetwork {
    /// All weights zero.
    pub fn zeros() -> QuantNetwork {
        QuantNetwork {
            w1: vec![[0; L1]; NUM_FEATURES],
            psq: vec![0; NUM_FEATURES],
            b1: [0; L1],
            w2: Box::new([[0; L1X2]; L2]),
            b2: [0; L2],
            w3: [[0; L2]; L3],
            w3_pairs: [[[0; 8]; L3 / 4]; L2 / 2],
            b3: [0; L3],
            w4: [0; L3],
            b4: 0,
        }
    }

    /// The psq weight of feature `f`, in evaluation units.
    pub fn psq(&self, f: u16) -> i32 {
        self.psq.get(f as usize).copied().unwrap_or(0)
    }

    /// The sums of a feature list, from scratch.
    pub fn refresh(&self, features: &[u16], acc: &mut HalfAccumulator) {
        acc.acc = self.b1;
        acc.psq = 0;
        for &f in features.iter().take(MAX_ACTIVE) {
            add_row(&mut acc.acc, &self.w1[f as usize]);
            acc.psq = acc.psq.wrapping_add(self.psq[f as usize]);
        }
    }

    /// Applies a change of features to a perspective's sums.
    #[inline]
    pub fn update(&self, acc: &mut HalfAccumulator, removed: &[u16], added: &[u16]) {
        for &f in removed {
            sub_row(&mut acc.acc, &self.w1[f as usize]);
            acc.psq = acc.psq.wrapping_sub(self.psq[f as usize]);
        }
        for &f in added {
            add_row(&mut acc.acc, &self.w1[f as usize]);
            acc.psq = acc.psq.wrapping_add(self.psq[f as usize]);
        }
    }

    /// Copies `src` into `dst` changed by a delta in one pass: the common
    /// make-move update, which reads the parent's accumulator once.
    #[inline]
    pub fn update_from(&self, src: &HalfAccumulator, dst: &mut HalfAccumulator, removed: &[u16], added: &[u16]) {
        update_from(self, src, dst, removed, added);
    }

    /// Fills `w3_pairs` from `w3`; called whenever `w3` is set.
    pub(crate) fn pack(&mut self) {
        for (p, groups) in self.w3_pairs.iter_mut().enumerate() {
            for (g, group) in groups.iter_mut().enumerate() {
                for m in 0..4 {
                    group[2 * m] = self.w3[4 * g + m][2 * p];
                    group[2 * m + 1] = self.w3[4 * g + m][2 * p + 1];
                }
            }
        }
    }

    /// The evaluation from the side to move's and the other side's sums:
    /// logit x [`EVAL_SCALE`] of the side to move, the dense path's output
    /// plus the psq sums' difference.
    pub fn output(&self, stm: &HalfAccumulator, opp: &HalfAccumulator) -> i32 {
        let sum = dense_path(self, &stm.acc, &opp.acc);
        let dense = (sum * EVAL_SCALE / i64::from(QH * QB)) as i32;
        dense.wrapping_add(stm.psq).wrapping_sub(opp.psq)
    }

    /// The float network this one stands for: every weight divided by its
    /// scale (the inverse of [`FloatNetwork::quantize`], which gives this
    /// network back, up to float rounding of the largest biases). For
    /// training on from a shipped network (`leaper-data train --init
    /// FILE.nnue`).
    pub fn to_float(&self) -> FloatNetwork {
        let mut net = FloatNetwork::zeros();
        for (f, row) in self.w1.iter().enumerate() {
            for (j, &w) in row.iter().enumerate() {
                net.w1[f * W1_ROW + j] = f32::from(w) / QA as f32;
            }
            net.w1[f * W1_ROW + PSQ_COLUMN] = (f64::from(self.psq[f]) / EVAL_SCALE as f64) as f32;
        }
        for j in 0..L1 {
            net.b1[j] = f32::from(self.b1[j]) / QA as f32;
        }
        for o in 0..L2 {
            for i in 0..L1X2 {
                net.w2[o * L1X2 + i] = f32::from(self.w2[o][i]) / QW2 as f32;
            }
            net.b2[o] = (f64::from(self.b2[o]) / f64::from(QA * QW2)) as f32;
        }
        for o in 0..L3 {
            for i in 0..L2 {
                net.w3[o * L2 + i] = f32::from(self.w3[o][i]) / QB as f32;
            }
            net.b3[o] = (f64::from(self.b3[o]) / f64::from(QH * QB)) as f32;
        }
        for i in 0..L3 {
            net.w4[i] = f32::from(self.w4[i]) / QB as f32;
        }
        net.b4 = (f64::from(self.b4) / f64::from(QH * QB)) as f32;
        net
    }

    /// The least and the greatest value the dense path (the output less
    /// the psq sums' difference) can take for any accumulators, by interval
    /// arithmetic through the layers: every clipped activation lies in its
    /// range, so each sum lies between its bias plus the negative weights
    /// times the inputs' greatest values and its bias plus the positive
    /// ones. A sound bound, not a guess: a search may skip the dense path
    /// when the psq sums alone, moved by either bound, fall outside its
    /// window.
    pub fn dense_bounds(&self) -> (i32, i32) {
        fn range(lo_in: &[i32], hi_in: &[i32], row: &[i16], bias: i32) -> (i64, i64) {
            let (mut lo, mut hi) = (i64::from(bias), i64::from(bias));
            for ((&w, &a), &b) in row.iter().zip(lo_in).zip(hi_in) {
                let (x, y) = (i64::from(w) * i64::from(a), i64::from(w) * i64::from(b));
                lo += x.min(y);
                hi += x.max(y);
            }
            (lo, hi)
        }
        let crelu = |sum: i64, shift: u32| ((sum + (1 << (shift - 1))) >> shift).clamp(0, i64::from(QH)) as i32;
        let lo0 = [0i32; L1X2];
        let hi0 = [QA; L1X2];
        let (mut lo1, mut hi1) = ([0i32; L2], [0i32; L2]);
        for (k, row) in self.w2.iter().enumerate() {
            let (lo, hi) = range(&lo0, &hi0, row, self.b2[k]);
            (lo1[k], hi1[k]) = (crelu(lo, SHIFT_L2), crelu(hi, SHIFT_L2));
        }
        let (mut lo2, mut hi2) = ([0i32; L3], [0i32; L3]);
        for (j, row) in self.w3.iter().enumerate() {
            let (lo, hi) = range(&lo1, &hi1, row, self.b3[j]);
            (lo2[j], hi2[j]) = (crelu(lo, SHIFT_L3), crelu(hi, SHIFT_L3));
        }
        let (lo, hi) = range(&lo2, &hi2, &self.w4, self.b4);
        let scale = |sum: i64| (sum * EVAL_SCALE / i64::from(QH * QB)) as i32;
        (scale(lo), scale(hi))
    }

    /// The evaluation of `pos` from scratch (the accumulators computed
    /// anew): logit x [`EVAL_SCALE`] of the side to move.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let (_, stm) = active_features(pos, pos.turn());
        let (_, opp) = active_features(pos, !pos.turn());
        let (mut a, mut b) = (HalfAccumulator::ZERO, HalfAccumulator::ZERO);
        self.refresh(stm.as_slice(), &mut a);
        self.refresh(opp.as_slice(), &mut b);
        self.output(&a, &b)
    }
}

/// The dense path of [`QuantNetwork::output`] from the two accumulators
/// (the side to move's first): clipped ReLU, the two hidden layers, and the
/// output's sum before scaling. Compiled for AVX2 as well as for the
/// x86-64 baseline and chosen once at run time by the `multiversion`
/// crate (no `unsafe` here): the clamps and the first dense layer's long
/// dot products are what the compiler widens to 256 bits. In the bench
/// (callgrind, depth 8) the AVX2 version runs 30% fewer instructions than
/// the baseline's (235 M against 337 M), though the search as a whole
/// gains only 0.5 to 1.6% in time, since it waits mostly on memory.
#[multiversion(targets("x86_64+avx2"))]
fn dense_path(net: &QuantNetwork, stm: &[i16; L1], opp: &[i16; L1]) -> i64 {
    let mut h0 = [0i16; L1X2];
    for j in 0..L1 {
        h0[j] = stm[j].clamp(0, QA as i16);
        h0[L1 + j] = opp[j].clamp(0, QA as i16);
    }
    let h1 = dense_crelu::<L1X2, L2, SHIFT_L2>(&h0, &net.w2, &net.b2);
    let h2 = second_dense(&h1, &net.w3_pairs, &net.b3);
    i64::from(dot(&h2, &net.w4)) + i64::from(net.b4)
}

/// [`QuantNetwork::update_from`], compiled for AVX2 as well as for the
/// x86-64 baseline and chosen at run time (`multiversion`), as
/// [`dense_path`] is: the row loops are what the compiler vectorises, and
/// 256-bit registers do each in half the instructions (with it,
/// `Eval::evaluate`, where the updates are inlined, ran 114 M instructions
/// in that bench against 177 M).
#[multiversion(targets("x86_64+avx2"))]
fn update_from(net: &QuantNetwork, src: &HalfAccumulator, dst: &mut HalfAccumulator, removed: &[u16], added: &[u16]) {
    let psq = |f: &u16| net.psq[*f as usize];
    let (s, d) = (&src.acc, &mut dst.acc);
    match (removed, added) {
        ([r], [a]) => {
            let (r1, a1) = (&net.w1[*r as usize], &net.w1[*a as usize]);
            for j in 0..L1 {
                d[j] = s[j].wrapping_sub(r1[j]).wrapping_add(a1[j]);
            }
            dst.psq = src.psq.wrapping_sub(psq(r)).wrapping_add(psq(a));
        }
        ([r1, r2], [a1]) => {
            let (w_r1, w_r2, w_a1) = (&net.w1[*r1 as usize], &net.w1[*r2 as usize], &net.w1[*a1 as usize]);
            for j in 0..L1 {
                d[j] = s[j].wrapping_sub(w_r1[j]).wrapping_sub(w_r2[j]).wrapping_add(w_a1[j]);
            }
            dst.psq = src
                .psq
                .wrapping_sub(psq(r1))
                .wrapping_sub(psq(r2))
                .wrapping_add(psq(a1));
        }
        ([r1, r2], [a1, a2]) => {
            let (w_r1, w_r2) = (&net.w1[*r1 as usize], &net.w1[*r2 as usize]);
            let (w_a1, w_a2) = (&net.w1[*a1 as usize], &net.w1[*a2 as usize]);
            for j in 0..L1 {
                d[j] = s[j]
                    .wrapping_sub(w_r1[j])
                    .wrapping_sub(w_r2[j])
                    .wrapping_add(w_a1[j])
                    .wrapping_add(w_a2[j]);
            }
            dst.psq = src
                .psq
                .wrapping_sub(psq(r1))
                .wrapping_sub(psq(r2))
                .wrapping_add(psq(a1))
                .wrapping_add(psq(a2));
        }
        _ => {
            *dst = *src;
            net.update(dst, removed, added);
        }
    }
}

#[inline]
fn add_row(acc: &mut [i16; L1], row: &[i16; L1]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(*w);
    }
}

#[inline]
fn sub_row(acc: &mut [i16; L1], row: &[i16; L1]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(*w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    /// The paired second layer computes exactly what the row-by-row one
    /// does, on random weights, biases and activations in their ranges.
    #[test]
    fn the_paired_second_layer_equals_the_row_by_row_one() {
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..200 {
            let mut net = QuantNetwork::zeros();
            for row in net.w3.iter_mut() {
                row.iter_mut().for_each(|w| *w = rng.random_range(-32_256..=32_256));
            }
            net.b3
                .iter_mut()
                .for_each(|b| *b = rng.random_range(-63 * QH * QB..=63 * QH * QB));
            net.pack();
            let input: [i16; L2] = std::array::from_fn(|_| rng.random_range(0..=QH as i16));
            assert_eq!(
                second_dense(&input, &net.w3_pairs, &net.b3),
                dense_crelu::<L2, L3, SHIFT_L3>(&input, &net.w3, &net.b3)
            );
        }
    }

    /// A layer as the module's note defines it, in i64 one product at a
    /// time: the reference the vectorised code is held to.
    fn reference_layer<const I: usize, const O: usize>(
        input: &[i16; I],
        w: &[[i16; I]; O],
        b: &[i32; O],
        shift: u32,
    ) -> [i16; O] {
        std::array::from_fn(|o| {
            let sum = input
                .iter()
                .zip(&w[o])
                .map(|(&x, &w)| i64::from(x) * i64::from(w))
                .sum::<i64>()
                + i64::from(b[o]);
            ((sum + (1 << (shift - 1))) >> shift).clamp(0, i64::from(QH)) as i16
        })
    }

    /// Whichever version of the dense path and of the accumulator update
    /// the CPU runs (AVX2 or the x86-64 baseline, chosen at run time), it
    /// computes what the plain one-product-at-a-time arithmetic does, on
    /// random weights and random accumulators.
    #[test]
    fn the_dispatched_code_equals_the_plain_arithmetic() {
        let mut rng = StdRng::seed_from_u64(2);
        let mut net = QuantNetwork::zeros();
        for round in 0..100 {
            // Even rounds: weights and biases at their clips, where the
            // sums come closest to overflowing. Odd rounds: the sizes of
            // trained networks, where few hidden units sit at their clamps,
            // so that every input counts in the output.
            let (w2_max, w_max, b_max) = if round % 2 == 0 {
                (i16::MAX, 32_256, 63)
            } else {
                (2_000, 1_000, 1)
            };
            for row in net.w1.iter_mut().take(64) {
                row.iter_mut().for_each(|w| *w = rng.random_range(-510..=510));
            }
            for row in net.w2.iter_mut() {
                row.iter_mut().for_each(|w| *w = rng.random_range(-w2_max..=w2_max));
            }
            net.b2
                .iter_mut()
                .for_each(|b| *b = rng.random_range(-b_max * QA * QW2..=b_max * QA * QW2));
            for row in net.w3.iter_mut() {
                row.iter_mut().for_each(|w| *w = rng.random_range(-w_max..=w_max));
            }
            net.b3
                .iter_mut()
                .for_each(|b| *b = rng.random_range(-b_max * QH * QB..=b_max * QH * QB));
            net.w4.iter_mut().for_each(|w| *w = rng.random_range(-w_max..=w_max));
            net.b4 = rng.random_range(-b_max * QH * QB..=b_max * QH * QB);
            net.psq
                .iter_mut()
                .take(64)
                .for_each(|p| *p = rng.random_range(-80_000..=80_000));
            net.pack();
            let half = |rng: &mut StdRng| HalfAccumulator {
                acc: std::array::from_fn(|_| rng.random_range(-600..=600)),
                psq: rng.random_range(-1_000_000..=1_000_000),
            };
            let (stm, opp) = (half(&mut rng), half(&mut rng));

            let mut h0 = [0i16; L1X2];
            for j in 0..L1 {
                h0[j] = stm.acc[j].clamp(0, QA as i16);
                h0[L1 + j] = opp.acc[j].clamp(0, QA as i16);
            }
            let h1 = reference_layer(&h0, &net.w2, &net.b2, SHIFT_L2);
            let h2 = reference_layer(&h1, &net.w3, &net.b3, SHIFT_L3);
            let sum = h2
                .iter()
                .zip(&net.w4)
                .map(|(&x, &w)| i64::from(x) * i64::from(w))
                .sum::<i64>()
                + i64::from(net.b4);
            let expected = (sum * EVAL_SCALE / i64::from(QH * QB)) as i32 + stm.psq - opp.psq;
            assert_eq!(net.output(&stm, &opp), expected);

            // Every shape of delta update_from handles, against the sums
            // taken row by row.
            let features =
                |rng: &mut StdRng, n: usize| -> Vec<u16> { (0..n).map(|_| rng.random_range(0..64)).collect() };
            for (nr, na) in [(1, 1), (2, 1), (2, 2), (0, 3), (3, 0)] {
                let (removed, added) = (features(&mut rng, nr), features(&mut rng, na));
                let mut got = HalfAccumulator::ZERO;
                net.update_from(&stm, &mut got, &removed, &added);
                let mut want = stm;
                for &f in &removed {
                    for j in 0..L1 {
                        want.acc[j] = want.acc[j].wrapping_sub(net.w1[f as usize][j]);
                    }
                    want.psq -= net.psq[f as usize];
                }
                for &f in &added {
                    for j in 0..L1 {
                        want.acc[j] = want.acc[j].wrapping_add(net.w1[f as usize][j]);
                    }
                    want.psq += net.psq[f as usize];
                }
                assert_eq!(got, want, "removed {removed:?}, added {added:?}");
            }
        }
    }
}
