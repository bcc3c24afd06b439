//! The engine's evaluation: [`Eval`], the default [`Evaluator`] of the
//! search, a linear model in logit x 10,000 of the side to move's expected
//! score, with its features (`features`), its weights and their file
//! (`weights`), and the tools that fit them: a self-play generator
//! (`selfplay`) and a logistic-regression fitter (`fit`).
//!
//! Three evaluations sit behind the one type, chosen by [`EvalKind`]:
//! `material` (the search's plain count), `psq` (the published piece-square
//! model of seed 000: 50 piece-square and 30 hand weights and a tempo) and
//! `full` (the same terms refitted with 70 features about the enemy wazir,
//! weights fitted to this engine's self-play games and shipped in
//! `full.txt`). The UCI option `Eval` picks one for the whole process.

pub mod features;
pub mod fit;
pub mod selfplay;
pub mod weights;

pub use features::{FEATURES, FeatureSet, difference, feature_name, side_features};
pub use weights::{Weights, WeightsError};

use crate::rules::{Position, Role};
use crate::search::{Evaluator, Material};
use features::Sink;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Evaluations never leave ±this (a logit of 30): far inside the mate band.
pub const EVAL_BOUND: i32 = 300_000;

/// The shipped weights of the full model.
const FULL_WEIGHTS: &str = include_str!("full.txt");

/// Which evaluation to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EvalKind {
    /// Material only ([`Material`]).
    Material,
    /// The published piece-square model.
    Psq,
    /// Piece-square, hand and enemy-wazir features, fitted to self-play.
    Full,
}

impl EvalKind {
    /// All kinds, as the `Eval` option lists them.
    pub const ALL: [EvalKind; 3] = [EvalKind::Material, EvalKind::Psq, EvalKind::Full];

    /// The option value naming it.
    pub const fn name(self) -> &'static str {
        match self {
            EvalKind::Material => "material",
            EvalKind::Psq => "psq",
            EvalKind::Full => "full",
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
pub const DEFAULT_KIND: EvalKind = EvalKind::Full;

static PROCESS_KIND: AtomicU8 = AtomicU8::new(DEFAULT_KIND as u8);

/// Sets the kind that evaluators made by [`Eval::default`] use, for the
/// whole process (the UCI option `Eval`).
pub fn set_process_kind(kind: EvalKind) {
    PROCESS_KIND.store(kind as u8, Ordering::Relaxed);
}

/// The kind set by [`set_process_kind`] ([`DEFAULT_KIND`] until then).
pub fn process_kind() -> EvalKind {
    match PROCESS_KIND.load(Ordering::Relaxed) {
        0 => EvalKind::Material,
        1 => EvalKind::Psq,
        _ => EvalKind::Full,
    }
}

/// An environment variable naming a weights file that replaces the
/// shipped full-model weights, for trying fitted weights in the arena
/// without a rebuild. Unset (or unreadable) means the shipped ones.
pub const WEIGHTS_ENV: &str = "LEAPER_EVAL_WEIGHTS";

/// The full-model weights, read once: those of [`WEIGHTS_ENV`] if it names
/// a readable weights file, else the shipped ones. A shipped file that does
/// not parse (a test guards against it) falls back to the published weights.
pub fn full_weights() -> &'static Weights {
    static FULL: OnceLock<Weights> = OnceLock::new();
    FULL.get_or_init(|| {
        std::env::var_os(WEIGHTS_ENV)
            .and_then(|path| std::fs::read_to_string(path).ok())
            .and_then(|text| Weights::parse(&text).ok())
            .unwrap_or_else(|| Weights::parse(FULL_WEIGHTS).unwrap_or_else(|_| Weights::seed()))
    })
}

/// The published piece-square weights.
pub fn psq_weights() -> &'static Weights {
    static PSQ: OnceLock<Weights> = OnceLock::new();
    PSQ.get_or_init(Weights::seed)
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

/// The engine's evaluator: material, the published piece-square model, or
/// the full fitted model.
#[derive(Clone, Debug)]
pub struct Eval {
    /// `None`: follow [`process_kind`].
    kind: Option<EvalKind>,
    material: Material,
    psq: &'static Weights,
    full: &'static Weights,
}

impl Default for Eval {
    /// Follows the process-wide kind (the `Eval` option).
    fn default() -> Eval {
        Eval {
            kind: None,
            material: Material::default(),
            psq: psq_weights(),
            full: full_weights(),
        }
    }
}

impl Eval {
    /// An evaluator of a fixed kind, whatever the `Eval` option says.
    pub fn new(kind: EvalKind) -> Eval {
        Eval {
            kind: Some(kind),
            ..Eval::default()
        }
    }

    /// The kind it evaluates with now.
    pub fn kind(&self) -> EvalKind {
        self.kind.unwrap_or_else(process_kind)
    }
}

impl Evaluator for Eval {
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        match self.kind() {
            EvalKind::Material => self.material.evaluate(pos),
            EvalKind::Psq => linear(pos, self.psq, FeatureSet::Psq),
            EvalKind::Full => linear(pos, self.full, FeatureSet::Full),
        }
    }

    fn piece_value(&self, role: Role) -> i32 {
        // Move ordering and margins keep the material scale whatever the
        // evaluation, so switching it changes nothing else in the search.
        self.material.piece_value(role)
    }
}

#[cfg(test)]
mod tests;
