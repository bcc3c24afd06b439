//! The engine's evaluation: the [`Evaluator`] trait the search calls,
//! [`Material`], and [`Eval`], the engine's evaluator, in logit x 10,000 of
//! the side to move's expected score, with the hand-made features of the
//! `full` model (`features`) and its weights and their file (`weights`).
//! The tools that fit the weights and train the models live in the
//! `leaper-train` crate.
//!
//! Five evaluations sit behind the one type, chosen by [`EvalKind`]:
//! `material` (the search's plain count), `psq` (the published piece-square
//! model of seed 000: 50 piece-square and 30 hand weights and a tempo) and
//! `full` (the same terms refitted with 70 features about the enemy wazir,
//! weights fitted to this engine's self-play games and shipped in
//! `full.txt`), and `nnue` (the learned network of the `leaper-nnue` crate,
//! evaluated through an accumulator stack that the search updates move by
//! move; the network comes embedded, [`shipped_network`], or from a file,
//! [`Eval::with_network`]), and `linear` (the linear model over the
//! network's wazir-relative features, `leaper_nnue::LinearNet`, kept by
//! the same accumulator stack; the model comes embedded,
//! [`shipped_linear`], or from a file, [`Eval::with_model`]); `nnue` is
//! the default ([`DEFAULT_KIND`]: it beat `linear` by an SPRT at a time
//! control, as `linear` had beaten `full`; see engine/README.md). The UCI option `Eval` picks one; the server hands
//! the searcher an [`Eval`] of that kind. This module reads no environment and
//! holds no global setting: other weights come in as a value
//! ([`Eval::with_full_weights`]).

pub mod features;
mod material;
pub mod weights;

pub use features::{FEATURES, FeatureSet, difference, feature_name, side_features};
pub use weights::{Weights, WeightsError};

pub use material::{Evaluator, Material};

use crate::rules::{Move, Position, Role};
use features::Sink;
use leaper_nnue::{AccumulatorStack, EvalModel, LinearNet, QuantNetwork};
use std::sync::{Arc, OnceLock};

/// Evaluations never leave ±this (a logit of 30): far inside the mate band.
pub const EVAL_BOUND: i32 = 300_000;

/// The shipped weights of the full model.
const FULL_WEIGHTS: &str = include_str!("full.txt");

/// The shipped network of the nnue evaluation (the `leaper-nnue` file
/// format), if this build embeds one: nnue6, psq9 trained on with 2.2 M
/// positions of lin9's self-play (see engine/train/README.md, "round
/// six").
const SHIPPED_NETWORK: Option<&[u8]> = Some(include_bytes!("../../data/leaper.nnue"));

/// The shipped model of the linear evaluation (the `leaper-nnue` linear
/// file format): `leaper-data train --model linear` on the gen2 self-play
/// data (see engine/train/README.md).
const SHIPPED_LINEAR: &[u8] = include_bytes!("../../data/leaper.linear");

/// Which evaluation to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EvalKind {
    /// Material only ([`Material`]).
    Material,
    /// The published piece-square model.
    Psq,
    /// Piece-square, hand and enemy-wazir features, fitted to self-play.
    Full,
    /// The learned network (NNUE), updated incrementally along the search.
    Nnue,
    /// The linear model over the network's features, updated the same way.
    Linear,
}

impl EvalKind {
    /// All kinds, as the `Eval` option lists them.
    pub const ALL: [EvalKind; 5] = [
        EvalKind::Material,
        EvalKind::Psq,
        EvalKind::Full,
        EvalKind::Nnue,
        EvalKind::Linear,
    ];

    /// The option value naming it.
    pub const fn name(self) -> &'static str {
        match self {
            EvalKind::Material => "material",
            EvalKind::Psq => "psq",
            EvalKind::Full => "full",
            EvalKind::Nnue => "nnue",
            EvalKind::Linear => "linear",
        }
    }

    /// The kind an option value names (ASCII case ignored).
    pub fn from_name(name: &str) -> Option<EvalKind> {
        EvalKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The strongest kind: what the engine uses unless told otherwise.
pub const DEFAULT_KIND: EvalKind = EvalKind::Nnue;

/// The shipped weights of the full model, parsed once. A shipped file that
/// does not parse (a test guards against it) falls back to the published
/// weights.
pub fn shipped_full_weights() -> Arc<Weights> {
    static FULL: OnceLock<Arc<Weights>> = OnceLock::new();
    Arc::clone(FULL.get_or_init(|| Arc::new(Weights::parse(FULL_WEIGHTS).unwrap_or_else(|_| Weights::seed()))))
}

/// The embedded network, parsed once; `None` when this build embeds none
/// (or, which a test guards against, the embedded file does not load).
pub fn shipped_network() -> Option<Arc<QuantNetwork>> {
    static NET: OnceLock<Option<Arc<QuantNetwork>>> = OnceLock::new();
    NET.get_or_init(|| SHIPPED_NETWORK.and_then(|bytes| QuantNetwork::from_bytes(bytes).ok().map(Arc::new)))
        .clone()
}

/// The embedded linear model, parsed once; `None` only if the embedded
/// file does not load (a test guards against it).
pub fn shipped_linear() -> Option<Arc<LinearNet>> {
    static LINEAR: OnceLock<Option<Arc<LinearNet>>> = OnceLock::new();
    LINEAR
        .get_or_init(|| LinearNet::from_bytes(SHIPPED_LINEAR).ok().map(Arc::new))
        .clone()
}

/// The published piece-square weights.
fn psq_weights() -> Arc<Weights> {
    static PSQ: OnceLock<Arc<Weights>> = OnceLock::new();
    Arc::clone(PSQ.get_or_init(|| Arc::new(Weights::seed())))
}

/// Sums the weights of the features it receives.
struct Sum<'a> {
    weights: &'a [i32; FEATURES],
    total: i32,
}

impl Sink for Sum<'_> {
    #[inline]
    fn add(&mut self, index: usize, value: i32) {
        self.total += self.weights.get(index).copied().unwrap_or(0) * value;
    }
}

/// The linear evaluation of `pos` with `weights` over the features `set`,
/// for the side to move, clamped to ±[`EVAL_BOUND`].
#[inline]
pub fn linear(pos: &Position, weights: &Weights, set: FeatureSet) -> i32 {
    let us = pos.turn();
    let mut own = Sum {
        weights: &weights.features,
        total: 0,
    };
    side_features(pos, us, set, &mut own);
    let mut enemy = Sum {
        weights: &weights.features,
        total: 0,
    };
    side_features(pos, !us, set, &mut enemy);
    (own.total - enemy.total + weights.tempo).clamp(-EVAL_BOUND, EVAL_BOUND)
}

/// The engine's evaluator: material, the published piece-square model,
/// the full fitted model, or the network. A plain value: each searcher
/// owns its own (one per search thread), so two searchers in one process
/// may evaluate differently, and each thread's clone has its own
/// accumulator stack.
#[derive(Clone, Debug)]
pub struct Eval {
    kind: EvalKind,
    material: Material,
    psq: Arc<Weights>,
    full: Arc<Weights>,
    network: Option<Arc<QuantNetwork>>,
    /// The network's [`QuantNetwork::dense_bounds`], worked out when the
    /// network is set, for [`Evaluator::bounds`].
    dense_bounds: (i32, i32),
    linear: Option<Arc<LinearNet>>,
    /// The accumulators along the current search path (nnue).
    stack: AccumulatorStack,
    /// The same for the linear model.
    linear_stack: AccumulatorStack<LinearNet>,
    /// Whether the kind's stack follows the search: set by
    /// [`Evaluator::begin`] when the kind is nnue or linear and its model
    /// is there, cleared by [`Evaluator::end`]; the other kinds never set
    /// it, so their cost per move is one untaken branch.
    tracking: bool,
    /// Evaluations of the network by position key, kept across searches
    /// (see [`EvalCache`]); emptied when the model or kind changes.
    cache: EvalCache,
}

/// A small direct-mapped table of network evaluations by the position's
/// Zobrist key. The search evaluates every node it does not cut by the
/// hash table, and iterative deepening and re-searches come back to the
/// same positions: a hit skips the network's dense layers and the
/// accumulator updates that lead to the position. The evaluation depends
/// on the position alone (the features see neither the ply nor the
/// history), so a hit returns what the network would; keys are compared
/// in full.
#[derive(Clone, Debug, Default)]
struct EvalCache {
    entries: Vec<(u64, i32)>,
}

/// Entries of [`EvalCache`]: 2^16 of 16 bytes, 1 MiB per search thread.
const EVAL_CACHE_ENTRIES: usize = 1 << 16;
/// The score of an empty entry: outside every evaluation's range.
const EMPTY_SCORE: i32 = i32::MIN;

impl EvalCache {
    #[inline]
    fn get(&self, key: u64) -> Option<i32> {
        let &(k, score) = self.entries.get(key as usize & (EVAL_CACHE_ENTRIES - 1))?;
        (k == key && score != EMPTY_SCORE).then_some(score)
    }

    #[inline]
    fn put(&mut self, key: u64, score: i32) {
        if let Some(e) = self.entries.get_mut(key as usize & (EVAL_CACHE_ENTRIES - 1)) {
            *e = (key, score);
        }
    }

    /// Starts bringing `key`'s entry into the cache (the processor's
    /// prefetch hint: it neither waits nor faults), so that the probe of a
    /// position just made finds it there after the accumulator's update.
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(entry) = self.entries.get(key as usize & (EVAL_CACHE_ENTRIES - 1)) {
            safe_arch::prefetch_t0(entry);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Allocates the table at first use.
    fn ensure(&mut self) {
        if self.entries.is_empty() {
            self.entries = vec![(0, EMPTY_SCORE); EVAL_CACHE_ENTRIES];
        }
    }
}

impl Default for Eval {
    /// The [`DEFAULT_KIND`] with the shipped weights.
    fn default() -> Eval {
        Eval::new(DEFAULT_KIND)
    }
}

impl Eval {
    /// An evaluator of `kind` with the shipped weights.
    pub fn new(kind: EvalKind) -> Eval {
        Eval::with_full_weights(kind, shipped_full_weights())
    }

    /// An evaluator of `kind` whose full model uses `full` instead of the
    /// shipped weights (as the binary's `LEAPER_EVAL_WEIGHTS` asks).
    pub fn with_full_weights(kind: EvalKind, full: Arc<Weights>) -> Eval {
        let network = shipped_network();
        Eval {
            dense_bounds: network.as_deref().map_or((0, 0), QuantNetwork::dense_bounds),
            kind,
            material: Material::default(),
            psq: psq_weights(),
            full,
            network,
            linear: shipped_linear(),
            stack: AccumulatorStack::new(),
            linear_stack: AccumulatorStack::new(),
            tracking: false,
            cache: EvalCache::default(),
        }
    }

    /// The same weights, evaluating with `kind`. (A nnue evaluator without
    /// a network evaluates as `full`; see [`Eval::network`].)
    pub fn with_kind(&self, kind: EvalKind) -> Eval {
        Eval {
            kind,
            tracking: false,
            cache: EvalCache::default(),
            ..self.clone()
        }
    }

    /// The same kind and weights with `network` for the nnue evaluation
    /// (as the `EvalFile` option asks).
    pub fn with_network(&self, network: Arc<QuantNetwork>) -> Eval {
        Eval {
            dense_bounds: network.dense_bounds(),
            network: Some(network),
            tracking: false,
            cache: EvalCache::default(),
            ..self.clone()
        }
    }

    /// The same kind and weights with `linear` for the linear evaluation.
    pub fn with_linear(&self, linear: Arc<LinearNet>) -> Eval {
        Eval {
            linear: Some(linear),
            tracking: false,
            cache: EvalCache::default(),
            ..self.clone()
        }
    }

    /// The same kind and weights with a model file's content (as the
    /// `EvalFile` option asks): a network for nnue, a linear model for
    /// linear. Returns the kind the model serves.
    pub fn with_model(&self, model: EvalModel) -> (Eval, EvalKind) {
        match model {
            EvalModel::Network(net) => (self.with_network(Arc::new(*net)), EvalKind::Nnue),
            EvalModel::Linear(linear) => (self.with_linear(Arc::new(linear)), EvalKind::Linear),
        }
    }

    /// Whether `kind` has what it evaluates with: nnue a network, linear a
    /// linear model (without one they evaluate as `full`).
    pub fn has_model(&self, kind: EvalKind) -> bool {
        match kind {
            EvalKind::Nnue => self.network.is_some(),
            EvalKind::Linear => self.linear.is_some(),
            _ => true,
        }
    }

    /// The linear model of the linear evaluation, if one was loaded.
    pub fn linear_model(&self) -> Option<&Arc<LinearNet>> {
        self.linear.as_ref()
    }

    /// The network of the nnue evaluation, if there is one (embedded or
    /// loaded).
    pub fn network(&self) -> Option<&Arc<QuantNetwork>> {
        self.network.as_ref()
    }

    /// The kind it evaluates with.
    pub fn kind(&self) -> EvalKind {
        self.kind
    }

    /// The full model's weights.
    pub fn full_weights(&self) -> &Arc<Weights> {
        &self.full
    }
}

impl Evaluator for Eval {
    #[inline]
    fn evaluate(&mut self, pos: &Position) -> i32 {
        match self.kind {
            EvalKind::Material => self.material.evaluate(pos),
            EvalKind::Psq => linear(pos, &self.psq, FeatureSet::Psq),
            EvalKind::Full => linear(pos, &self.full, FeatureSet::Full),
            EvalKind::Nnue => match &self.network {
                Some(net) if self.tracking => {
                    let key = pos.hash();
                    if let Some(score) = self.cache.get(key) {
                        debug_assert_eq!(score, net.evaluate(pos).clamp(-EVAL_BOUND, EVAL_BOUND));
                        return score;
                    }
                    let score = self.stack.evaluate(net, pos);
                    debug_assert_eq!(score, net.evaluate(pos), "incremental nnue evaluation differs");
                    let score = score.clamp(-EVAL_BOUND, EVAL_BOUND);
                    self.cache.put(key, score);
                    score
                }
                Some(net) => net.evaluate(pos).clamp(-EVAL_BOUND, EVAL_BOUND),
                None => linear(pos, &self.full, FeatureSet::Full),
            },
            EvalKind::Linear => match &self.linear {
                Some(model) if self.tracking => {
                    let score = self.linear_stack.evaluate(model, pos);
                    debug_assert_eq!(score, model.evaluate(pos), "incremental linear evaluation differs");
                    score.clamp(-EVAL_BOUND, EVAL_BOUND)
                }
                Some(model) => model.evaluate(pos).clamp(-EVAL_BOUND, EVAL_BOUND),
                None => linear(pos, &self.full, FeatureSet::Full),
            },
        }
    }

    #[inline]
    fn bounds(&mut self, pos: &Position) -> (i32, i32) {
        if self.kind == EvalKind::Nnue
            && self.tracking
            && let Some(net) = &self.network
        {
            if let Some(score) = self.cache.get(pos.hash()) {
                return (score, score);
            }
            // The psq sums alone, moved by the dense path's sound bounds.
            let [us, them] = self.stack.psq_sums(net, pos);
            let linear = us.wrapping_sub(them);
            let (low, high) = self.dense_bounds;
            let bound = |b: i32| linear.saturating_add(b).clamp(-EVAL_BOUND, EVAL_BOUND);
            return (bound(low), bound(high));
        }
        let score = self.evaluate(pos);
        (score, score)
    }

    #[inline]
    fn begin(&mut self, root: &Position) {
        match (self.kind, &self.network, &self.linear) {
            (EvalKind::Nnue, Some(net), _) => {
                self.stack.reset(net, root);
                self.cache.ensure();
                self.tracking = true;
            }
            (EvalKind::Linear, _, Some(model)) => {
                self.linear_stack.reset(model, root);
                self.tracking = true;
            }
            _ => {}
        }
    }

    #[inline]
    fn push(&mut self, before: &Position, mv: Move, after: &Position) {
        if self.tracking {
            if self.kind == EvalKind::Nnue {
                self.cache.prefetch(after.hash());
                self.stack.push(before, mv, after);
            } else {
                self.linear_stack.push(before, mv, after);
            }
        }
    }

    #[inline]
    fn push_null(&mut self) {
        if self.tracking {
            if self.kind == EvalKind::Nnue {
                self.stack.push_null();
            } else {
                self.linear_stack.push_null();
            }
        }
    }

    #[inline]
    fn pop(&mut self) {
        if self.tracking {
            if self.kind == EvalKind::Nnue {
                self.stack.pop();
            } else {
                self.linear_stack.pop();
            }
        }
    }

    #[inline]
    fn end(&mut self) {
        self.tracking = false;
    }

    fn piece_value(&self, role: Role) -> i32 {
        // Move ordering and margins keep the material scale whatever the
        // evaluation, so switching it changes nothing else in the search.
        self.material.piece_value(role)
    }
}

#[cfg(test)]
mod tests;
