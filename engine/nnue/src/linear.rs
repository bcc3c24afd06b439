//! The linear evaluation over the network's features (stage A of the
//! learned evaluation): one weight per wazir-relative feature, the side to
//! move's features' weights summed minus the other side's, plus a bias
//! (the value of having the move). Colour-symmetric by construction, and
//! kept incrementally by the same [`crate::AccumulatorStack`] as the
//! network, each perspective's accumulator being one number.
//!
//! Integers: weights and bias in evaluation units (logit x 10,000), i32.
//! The trainer clips float weights to ±[`LINEAR_CLIP`] logit, so a sum of
//! 31 features stays far inside i32 (31 x 80,000).
//!
//! # File
//! Little-endian, the network file's layout with its own magic:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `LEAPLINR` |
//! | 8 | 4 | format version ([`LINEAR_FORMAT_VERSION`]) |
//! | 12 | 4 | feature set version ([`crate::FEATURE_SET_VERSION`]) |
//! | 16 | 4 | features per perspective (6,360) |
//! | 20 | 4 | evaluation scale (10,000) |
//! | 24 | 8 | payload length in bytes |
//! | 32 | 32 | SHA-256 of the payload |
//! | 64 | .. | payload: the weights (i32, by feature), then the bias (i32) |

use crate::accumulator::Incremental;
use crate::features::{NUM_FEATURES, active_features};
use crate::file::{FEATURE_SET_VERSION, NetFileError, read_frame, write_atomically, write_frame};
use crate::network::EVAL_SCALE;
use crate::train::LinearModel;
use leaper_rules::Position;
use std::path::Path;

/// The first eight bytes of a linear model's file.
pub const LINEAR_MAGIC: [u8; 8] = *b"LEAPLINR";
/// The version of the linear file's layout.
pub const LINEAR_FORMAT_VERSION: u32 = 1;
/// The bound of a float weight, in logit units.
pub const LINEAR_CLIP: f32 = 8.0;
const PAYLOAD_LEN: usize = 4 * (NUM_FEATURES + 1);
/// The largest integer weight a file may hold.
const WEIGHT_BOUND: i32 = LINEAR_CLIP as i32 * EVAL_SCALE as i32;

/// The linear model in integers, as the engine evaluates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearNet {
    weights: Vec<i32>,
    bias: i32,
}

impl LinearNet {
    /// The integer form of a trained model: weights clipped to
    /// ±[`LINEAR_CLIP`], scaled to evaluation units and rounded.
    pub fn from_model(model: &LinearModel) -> LinearNet {
        let q = |w: f32| (w.clamp(-LINEAR_CLIP, LINEAR_CLIP) * EVAL_SCALE as f32).round() as i32;
        LinearNet {
            weights: model.weights.iter().map(|&w| q(w)).collect(),
            bias: q(model.bias),
        }
    }

    /// The float model whose integer form this is (weights in logit
    /// units): the start of a training run that refines it.
    /// `LinearNet::from_model(&net.to_model()) == net`.
    pub fn to_model(&self) -> LinearModel {
        let f = |w: i32| w as f32 / EVAL_SCALE as f32;
        LinearModel {
            weights: self.weights.iter().map(|&w| f(w)).collect(),
            bias: f(self.bias),
        }
    }

    /// The weight of feature `f` and the bias, in evaluation units.
    pub fn weight(&self, f: u16) -> i32 {
        self.weights.get(f as usize).copied().unwrap_or(0)
    }

    /// The bias: the value of having the move.
    pub fn bias(&self) -> i32 {
        self.bias
    }

    /// The evaluation of `pos` from scratch: logit x 10,000 of the side to
    /// move.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let (_, stm) = active_features(pos, pos.turn());
        let (_, opp) = active_features(pos, !pos.turn());
        let (mut a, mut b) = (0, 0);
        Incremental::refresh(self, stm.as_slice(), &mut a);
        Incremental::refresh(self, opp.as_slice(), &mut b);
        Incremental::output(self, &a, &b)
    }

    /// The model as a file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(PAYLOAD_LEN);
        for w in self.weights.iter().chain(std::iter::once(&self.bias)) {
            payload.extend_from_slice(&w.to_le_bytes());
        }
        write_frame(LINEAR_MAGIC, &header_values(), &payload)
    }

    /// Reads a model from a file's bytes.
    ///
    /// # Errors
    /// A [`NetFileError`] naming the first thing that is wrong: magic,
    /// version, a header field, the length, the hash, a weight out of range.
    pub fn from_bytes(bytes: &[u8]) -> Result<LinearNet, NetFileError> {
        let payload = read_frame(bytes, LINEAR_MAGIC, &header_values(), PAYLOAD_LEN)?;
        let mut values: Vec<i32> = payload
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if let Some((index, &value)) = values
            .iter()
            .enumerate()
            .find(|(_, v)| v.unsigned_abs() > WEIGHT_BOUND as u32)
        {
            return Err(NetFileError::LinearWeightRange {
                index,
                value,
                bound: WEIGHT_BOUND,
            });
        }
        let bias = values.pop().unwrap_or(0);
        Ok(LinearNet { weights: values, bias })
    }

    /// Writes the model to `path` atomically.
    ///
    /// # Errors
    /// The file system's error.
    pub fn save(&self, path: &Path) -> Result<(), NetFileError> {
        write_atomically(path, &self.to_bytes())?;
        Ok(())
    }

    /// Reads a linear model's file.
    ///
    /// # Errors
    /// The file system's error or what [`LinearNet::from_bytes`] finds.
    pub fn load(path: &Path) -> Result<LinearNet, NetFileError> {
        LinearNet::from_bytes(&std::fs::read(path)?)
    }
}

impl Incremental for LinearNet {
    type Values = i32;

    fn zero() -> i32 {
        0
    }

    #[inline]
    fn refresh(&self, features: &[u16], acc: &mut i32) {
        *acc = features.iter().map(|&f| self.weight(f)).sum();
    }

    #[inline]
    fn update_from(&self, src: &i32, dst: &mut i32, removed: &[u16], added: &[u16]) {
        *dst = *src - removed.iter().map(|&f| self.weight(f)).sum::<i32>()
            + added.iter().map(|&f| self.weight(f)).sum::<i32>();
    }

    #[inline]
    fn output(&self, stm: &i32, opp: &i32) -> i32 {
        self.bias + stm - opp
    }
}

/// The header's u32 fields after the magic, in order, with their names.
fn header_values() -> [(&'static str, u32); 4] {
    [
        ("format version", LINEAR_FORMAT_VERSION),
        ("feature set version", FEATURE_SET_VERSION),
        ("features", NUM_FEATURES as u32),
        ("evaluation scale", EVAL_SCALE as u32),
    ]
}

/// What an evaluation file holds: a network or a linear model, told apart
/// by the magic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalModel {
    /// A `LEAPNNUE` file.
    Network(Box<crate::QuantNetwork>),
    /// A `LEAPLINR` file.
    Linear(LinearNet),
}

impl EvalModel {
    /// Reads either kind of file, by its magic.
    ///
    /// # Errors
    /// The file system's error or what the file's kind finds wrong.
    pub fn load(path: &Path) -> Result<EvalModel, NetFileError> {
        EvalModel::from_bytes(&std::fs::read(path)?)
    }

    /// Reads either kind of file's bytes, by the magic.
    ///
    /// # Errors
    /// What the file's kind finds wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<EvalModel, NetFileError> {
        if bytes.starts_with(&LINEAR_MAGIC) {
            LinearNet::from_bytes(bytes).map(EvalModel::Linear)
        } else {
            crate::QuantNetwork::from_bytes(bytes).map(|net| EvalModel::Network(Box::new(net)))
        }
    }
}
