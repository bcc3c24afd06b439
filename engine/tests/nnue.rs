//! The nnue and linear evaluations inside the search: searches with them
//! return legal moves (one and two threads), and every evaluation the
//! search asks for, made through the incremental (and lazy) accumulator
//! stack, equals the model's evaluation of that position from scratch, with
//! the stack's path following the search's (checked by an evaluator that
//! wraps [`Eval`]).

use leaper::eval::{EVAL_BOUND, Eval, EvalKind, Evaluator};
use leaper::search::{Limits, Searcher, Signals};
use leaper::{GameMove, Move, MoveList, Position, Role};
use leaper_nnue::train::LinearModel;
use leaper_nnue::{FloatNetwork, LinearNet, PSQ_COLUMN, QuantNetwork, W1_ROW};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A random network (the test must not depend on a trained one).
fn network(seed: u64) -> Arc<QuantNetwork> {
    Arc::new(FloatNetwork::random(&mut StdRng::seed_from_u64(seed)).quantize())
}

fn nnue_eval(net: &Arc<QuantNetwork>) -> Eval {
    Eval::new(EvalKind::Nnue).with_network(Arc::clone(net))
}

/// A random position reached by up to `plies` random moves after random setups.
fn random_position(rng: &mut StdRng, plies: usize) -> Position {
    let mut pos = Position::from_setups(&leaper::Setup::random(rng), &leaper::Setup::random(rng));
    for _ in 0..plies {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            break;
        }
        let next = pos.after(list.as_slice()[rng.random_range(0..list.len())]);
        if next.terminal().is_some() {
            break;
        }
        pos = next;
    }
    pos
}

/// Wraps [`Eval`] and checks each evaluation against the network from
/// scratch, and that the position evaluated is the end of the path the
/// search has pushed.
#[derive(Clone)]
struct Checked {
    inner: Eval,
    /// The model's evaluation from scratch.
    scratch: Arc<dyn Fn(&Position) -> i32 + Send + Sync>,
    path: Vec<Position>,
    /// Positions checked (shared by the threads' clones).
    checked: Arc<AtomicU64>,
    /// Pushes seen.
    pushes: Arc<AtomicU64>,
    /// Bounds asked for, and those that were not the exact value.
    bounded: Arc<AtomicU64>,
    lazy: Arc<AtomicU64>,
}

impl Evaluator for Checked {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let score = self.inner.evaluate(pos);
        if let Some(top) = self.path.last() {
            assert_eq!(top.hash(), pos.hash(), "evaluated a position off the pushed path");
            self.checked.fetch_add(1, Ordering::Relaxed);
        }
        assert_eq!(score, (self.scratch)(pos), "incremental and scratch evaluations differ");
        score
    }

    /// Bounds that hold the exact value.
    fn bounds(&mut self, pos: &Position) -> (i32, i32) {
        let (low, high) = self.inner.bounds(pos);
        if let Some(top) = self.path.last() {
            assert_eq!(top.hash(), pos.hash(), "bounded a position off the pushed path");
        }
        let exact = (self.scratch)(pos);
        assert!(low <= exact && exact <= high, "bounds {low}..={high} for {exact}");
        if low == high {
            // An exact value, checked as `evaluate`'s are.
            self.checked.fetch_add(1, Ordering::Relaxed);
        }
        self.bounded.fetch_add(1, Ordering::Relaxed);
        self.lazy.fetch_add(u64::from(low != high), Ordering::Relaxed);
        (low, high)
    }

    fn piece_value(&self, role: Role) -> i32 {
        self.inner.piece_value(role)
    }

    fn begin(&mut self, root: &Position) {
        self.inner.begin(root);
        self.path = vec![root.clone()];
    }

    fn push(&mut self, before: &Position, mv: Move, after: &Position) {
        assert_eq!(
            self.path.last().map(Position::hash),
            Some(before.hash()),
            "push from off the path"
        );
        self.pushes.fetch_add(1, Ordering::Relaxed);
        self.inner.push(before, mv, after);
        self.path.push(after.clone());
    }

    fn push_null(&mut self) {
        self.inner.push_null();
        let null = self.path.last().expect("null move before begin").null_move();
        self.path.push(null);
    }

    fn pop(&mut self) {
        self.inner.pop();
        self.path.pop();
        assert!(!self.path.is_empty(), "popped the root");
    }

    fn end(&mut self) {
        self.inner.end();
        assert_eq!(self.path.len(), 1, "the search ended off the root");
        self.path.clear();
    }
}

fn is_legal(pos: &Position, best: Option<&GameMove>) -> bool {
    let Some(GameMove::Move(mv)) = best else {
        return false;
    };
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.as_slice().contains(mv)
}

/// A random network with psq weights of the size a linear model's have,
/// so that the psq sums alone often settle a window.
fn network_with_psq(seed: u64) -> Arc<QuantNetwork> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut float = FloatNetwork::random(&mut rng);
    for row in float.w1.chunks_exact_mut(W1_ROW) {
        row[PSQ_COLUMN] = rng.random_range(-0.6..0.6);
    }
    Arc::new(float.quantize())
}

#[test]
fn incremental_evaluation_equals_scratch_along_real_searches() {
    let net = network_with_psq(11);
    let scratch = Arc::clone(&net);
    let (bounded, lazy) = searches_check(nnue_eval(&net), Arc::new(move |pos: &Position| scratch.evaluate(pos)));
    eprintln!("{bounded} bounds asked for, {lazy} inexact");
    // The search asks for bounds (stand pat and pruning tests), and the
    // network answers from its psq sums where no exact value is cached.
    assert!(bounded > 1000 && lazy > 100, "{bounded} bounds, {lazy} inexact");
}

/// The linear model: random weights of a few tenths of a logit.
fn linear_model(seed: u64) -> Arc<LinearNet> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut model = LinearModel::default();
    model.weights.iter_mut().for_each(|w| *w = rng.random_range(-0.5..0.5));
    model.bias = 0.05;
    Arc::new(LinearNet::from_model(&model))
}

#[test]
fn incremental_linear_evaluation_equals_scratch_along_real_searches() {
    let model = linear_model(21);
    let eval = Eval::new(EvalKind::Linear).with_linear(Arc::clone(&model));
    assert!(eval.has_model(EvalKind::Linear));
    let (bounded, lazy) = searches_check(eval, Arc::new(move |pos: &Position| model.evaluate(pos)));
    assert!(bounded > 1000 && lazy == 0, "{bounded} bounds, {lazy} inexact");
}

#[test]
fn linear_searches_return_legal_moves_and_by_default_use_the_embedded_model() {
    let model = linear_model(22);
    let mut searcher =
        Searcher::with_evaluator(Eval::new(EvalKind::Linear).with_linear(Arc::clone(&model)), 8).unwrap();
    searcher.set_threads(2);
    let mut rng = StdRng::seed_from_u64(23);
    for _ in 0..4 {
        let pos = random_position(&mut rng, 30);
        let limits = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        let result = searcher.search(&pos, &limits, &Signals::default(), &mut ());
        assert!(is_legal(&pos, result.best.as_ref()), "{pos:?}: {:?}", result.best);
    }
    let mut shipped = Eval::new(EvalKind::Linear);
    let embedded = leaper::eval::shipped_linear().expect("the embedded linear model loads");
    assert!(shipped.linear_model().is_some_and(|m| Arc::ptr_eq(m, &embedded)));
    for _ in 0..20 {
        let pos = random_position(&mut rng, 30);
        assert_eq!(
            shipped.evaluate(&pos),
            embedded.evaluate(&pos).clamp(-EVAL_BOUND, EVAL_BOUND)
        );
    }
}

/// Searches random positions with `inner` wrapped in [`Checked`]; returns
/// the bounds asked for and those that were not exact.
fn searches_check(inner: Eval, scratch: Arc<dyn Fn(&Position) -> i32 + Send + Sync>) -> (u64, u64) {
    let checked = Arc::new(AtomicU64::new(0));
    let pushes = Arc::new(AtomicU64::new(0));
    let bounded = Arc::new(AtomicU64::new(0));
    let lazy = Arc::new(AtomicU64::new(0));
    let eval = Checked {
        inner,
        scratch,
        path: Vec::new(),
        checked: Arc::clone(&checked),
        pushes: Arc::clone(&pushes),
        bounded: Arc::clone(&bounded),
        lazy: Arc::clone(&lazy),
    };
    let mut searcher = Searcher::with_evaluator(eval, 8).unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    for _ in 0..12 {
        let plies = rng.random_range(0..50);
        let pos = random_position(&mut rng, plies);
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::default()
        };
        let result = searcher.search(&pos, &limits, &Signals::default(), &mut ());
        assert!(is_legal(&pos, result.best.as_ref()), "{pos:?}: {:?}", result.best);
    }
    let (checked, pushes) = (checked.load(Ordering::Relaxed), pushes.load(Ordering::Relaxed));
    eprintln!("{checked} evaluations checked after {pushes} pushes");
    assert!(
        checked > 10_000 && pushes > 10_000,
        "{checked} evaluations, {pushes} pushes"
    );
    (bounded.load(Ordering::Relaxed), lazy.load(Ordering::Relaxed))
}

#[test]
fn nnue_searches_return_legal_moves_on_two_threads() {
    let net = network(12);
    let mut searcher = Searcher::with_evaluator(nnue_eval(&net), 8).unwrap();
    searcher.set_threads(2);
    let mut rng = StdRng::seed_from_u64(6);
    for _ in 0..6 {
        let plies = rng.random_range(0..60);
        let pos = random_position(&mut rng, plies);
        let limits = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        let result = searcher.search(&pos, &limits, &Signals::default(), &mut ());
        assert!(is_legal(&pos, result.best.as_ref()), "{pos:?}: {:?}", result.best);
        assert!(result.nodes > 0);
    }
}

#[test]
fn nnue_eval_outside_a_search_is_from_scratch() {
    let net = network(13);
    let mut eval = nnue_eval(&net);
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..50 {
        let pos = random_position(&mut rng, 40);
        assert_eq!(eval.evaluate(&pos), net.evaluate(&pos));
    }
}
