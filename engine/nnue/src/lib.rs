//! The learned evaluation of 0.1 (an NNUE) in a crate of its own, so that
//! the engine (inference) and the trainer share one definition of the
//! features, the network's shape, its quantization and its file format.
//! It depends on the rules and on nothing of the search.
//!
//! - [`features`]: wazir-relative piece-square and hand features per
//!   perspective, their symmetries, and their change with a move.
//! - [`FloatNetwork`] (training, reference) and [`QuantNetwork`] (play):
//!   sparse input -> accumulator per perspective -> clipped ReLU -> two
//!   small dense layers -> one output in logit units x 10,000 for the side
//!   to move, plus a linear skip term (one psq weight per feature, the
//!   side to move's sum minus the other's), so that a network can start as
//!   a linear model and learn a correction.
//! - [`LinearNet`]: the linear model over the same features (stage A),
//!   its own file kind, and [`EvalModel`] to load either file.
//! - [`AccumulatorStack`]: incremental accumulators along a search path,
//!   for any [`Incremental`] model.
//! - [`train`]: the trainer core (stage A linear, stage B the network).

mod accumulator;
pub mod features;
mod file;
mod linear;
mod network;
pub mod train;

pub use accumulator::{Accumulator, AccumulatorStack, Incremental};
pub use features::{
    FeatureDelta, FeatureList, Frame, MAX_ACTIVE, NUM_FEATURES, Transform, active_features, move_delta, move_deltas,
};
pub use file::{FEATURE_SET_VERSION, FORMAT_VERSION, MAGIC, NetFileError};
pub use linear::{EvalModel, LINEAR_CLIP, LINEAR_FORMAT_VERSION, LINEAR_MAGIC, LinearNet};
pub use network::{
    Activations, DENSE_CLIP, EVAL_SCALE, FloatNetwork, HalfAccumulator, L1, L2, L3, PSQ_COLUMN, QA, QB, QH, QW2,
    QuantNetwork, W1_CLIP, W1_ROW, W2_CLIP,
};
