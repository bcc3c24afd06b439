//! Accumulators along a search path: one entry per ply, each made from its
//! parent by the few features a move changes (or anew when a frame
//! changes, i.e. when a wazir moves), and dropped on unmake by popping.
//!
//! The searcher owns one [`AccumulatorStack`] per thread: `reset` at the
//! root, `push(before, mv, after)` right after making a move,
//! `push_null()` after a null move, `pop()` on unmake, `evaluate(pos)` at
//! any node. Popping needs no arithmetic: the parent's entry is still
//! there.
//!
//! The updates are lazy: `push` only records what the move changes (the
//! features that leave and enter, or that a perspective's frame changed)
//! and the arithmetic is done when a position is evaluated, walking back
//! to the nearest entry that is computed and applying the recorded changes
//! forward. Many searched nodes are never evaluated (hash cuts, finished
//! games, a wazir that can be taken at once, the children of cut-offs), and
//! those then cost no accumulator work at all. A refresh recorded on the
//! way back is done on the evaluated position itself, since the positions
//! in between are no longer at hand (and one refresh is cheaper than a
//! refresh plus updates); not from scratch, but from the last accumulator
//! (or psq sum) computed so in the same colour and frame, changed by the
//! pieces and hand counts that differ: the accumulator cache of chess
//! engines (a "Finny table"), emptied at each `reset`.
//!
//! The same machinery serves every model that sums per-feature rows: the
//! network ([`QuantNetwork`], a row of [`crate::L1`] per feature and a psq
//! weight, kept as a [`HalfAccumulator`]) and the linear
//! model ([`crate::LinearNet`], one number per feature), through
//! [`Incremental`].

use crate::features::{
    FeatureDelta, FeatureList, FeatureSource, Frame, active_features, for_each_feature, move_deltas, source_delta,
};
use crate::network::{HalfAccumulator, QuantNetwork};
use leaper_rules::{Color, Move, Position};

/// A model whose first stage is a sum over the active features of one
/// perspective, kept incrementally by [`AccumulatorStack`].
pub trait Incremental: Clone + std::fmt::Debug + PartialEq + Eq {
    /// One perspective's sum.
    type Values: Clone + std::fmt::Debug + PartialEq + Eq;
    /// A sum to be overwritten.
    fn zero() -> Self::Values;
    /// The sum of a feature list, from scratch.
    fn refresh(&self, features: &[u16], acc: &mut Self::Values);
    /// `src` changed by a delta, into `dst`.
    fn update_from(&self, src: &Self::Values, dst: &mut Self::Values, removed: &[u16], added: &[u16]);
    /// The evaluation (logit x 10,000 for the side to move) from the side
    /// to move's and the other side's sums.
    fn output(&self, stm: &Self::Values, opp: &Self::Values) -> i32;
}

impl Incremental for QuantNetwork {
    type Values = HalfAccumulator;

    fn zero() -> HalfAccumulator {
        HalfAccumulator::ZERO
    }

    #[inline]
    fn refresh(&self, features: &[u16], acc: &mut HalfAccumulator) {
        QuantNetwork::refresh(self, features, acc);
    }

    #[inline]
    fn update_from(&self, src: &HalfAccumulator, dst: &mut HalfAccumulator, removed: &[u16], added: &[u16]) {
        QuantNetwork::update_from(self, src, dst, removed, added);
    }

    #[inline]
    fn output(&self, stm: &HalfAccumulator, opp: &HalfAccumulator) -> i32 {
        QuantNetwork::output(self, stm, opp)
    }
}

/// Both perspectives' accumulators of one position, indexed by colour,
/// with the frames they were computed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator<N: Incremental = QuantNetwork> {
    /// Red's and Blue's accumulators.
    pub values: [N::Values; 2],
    /// Red's and Blue's frames.
    pub frames: [Frame; 2],
}

impl<N: Incremental> Accumulator<N> {
    /// Both accumulators computed from scratch.
    pub fn refresh(net: &N, pos: &Position) -> Accumulator<N> {
        let mut acc = Accumulator {
            values: [N::zero(), N::zero()],
            frames: [Frame::default(); 2],
        };
        for color in Color::ALL {
            acc.refresh_side(net, pos, color);
        }
        acc
    }

    fn refresh_side(&mut self, net: &N, pos: &Position, color: Color) {
        let (frame, list) = active_features(pos, color);
        net.refresh(list.as_slice(), &mut self.values[color.index()]);
        self.frames[color.index()] = frame;
    }
}

/// One ply of the path: the accumulators (valid per perspective where
/// `computed` says so), and how each perspective's features changed from
/// the parent's.
#[derive(Clone, Debug)]
struct Entry<N: Incremental> {
    acc: Accumulator<N>,
    computed: [bool; 2],
    /// For the network: the psq sum of the perspective is up to date (it
    /// is whenever `computed` is, and may be alone; see
    /// [`AccumulatorStack::psq_sums`]).
    psq_done: [bool; 2],
    delta: [FeatureDelta; 2],
}

/// The change a null move makes: none.
const NO_CHANGE: FeatureDelta = FeatureDelta::Update {
    removed: [0; 2],
    removed_len: 0,
    added: [0; 2],
    added_len: 0,
};

/// A stack of accumulators, one per ply of the current search path. Its
/// storage grows to the deepest ply reached and is then reused.
#[derive(Clone, Debug)]
pub struct AccumulatorStack<N: Incremental = QuantNetwork> {
    entries: Vec<Entry<N>>,
    len: usize,
    /// Accumulators from scratch, by colour and frame: the last one
    /// computed and what it was computed from (see [`Refreshed`]); emptied
    /// by `reset`.
    refresh_cache: Vec<Option<Refreshed<N>>>,
    /// The network's psq sums from scratch, by colour and frame: the last
    /// one computed and what it was computed from (see
    /// [`AccumulatorStack::psq_sums`]); emptied by `reset`.
    psq_cache: Vec<Option<PsqCached>>,
}

/// An accumulator of one perspective in one frame and the source of the
/// features it sums: a wazir move changes every feature of its side, but
/// in the same frame a later accumulator is this one changed by the few
/// features that differ (the accumulator cache of chess engines, which
/// they call a "Finny table").
#[derive(Clone, Debug)]
struct Refreshed<N: Incremental> {
    source: FeatureSource,
    values: N::Values,
}

/// The entry of `color` and `frame` in a refresh cache (2 x
/// [`Frame::COUNT`] entries, allocated at first use).
#[inline]
fn cache_slot<T: Clone>(cache: &mut Vec<Option<T>>, color: Color, frame: Frame) -> &mut Option<T> {
    if cache.is_empty() {
        cache.resize(2 * Frame::COUNT, None);
    }
    &mut cache[color.index() * Frame::COUNT + frame.index()]
}

/// A psq sum of one perspective in one frame and the source of the
/// features it sums. A wazir move changes every feature of its side, so
/// the sum is needed from scratch; but positions of one search are alike,
/// and in the same frame the new sum is an old one changed by the few
/// features that differ, instead of some thirty lookups.
#[derive(Clone, Copy, Debug)]
struct PsqCached {
    source: FeatureSource,
    psq: i32,
}

impl<N: Incremental> Default for AccumulatorStack<N> {
    fn default() -> Self {
        AccumulatorStack::new()
    }
}

impl<N: Incremental> AccumulatorStack<N> {
    /// An empty stack; call [`AccumulatorStack::reset`] before use.
    pub fn new() -> AccumulatorStack<N> {
        AccumulatorStack {
            entries: Vec::with_capacity(128),
            len: 0,
            refresh_cache: Vec::new(),
            psq_cache: Vec::new(),
        }
    }

    /// Starts a new path at `pos` (the root), computed from scratch.
    pub fn reset(&mut self, net: &N, pos: &Position) {
        let root = Entry {
            acc: Accumulator::refresh(net, pos),
            computed: [true; 2],
            psq_done: [true; 2],
            delta: [NO_CHANGE; 2],
        };
        if self.entries.is_empty() {
            self.entries.push(root);
        } else {
            self.entries[0] = root;
        }
        self.len = 1;
        // The cache holds sums of the network of the previous path.
        self.refresh_cache.clear();
        self.psq_cache.clear();
    }

    /// How many positions are on the path (1 after `reset`).
    pub fn depth(&self) -> usize {
        self.len
    }

    /// The accumulator of the current position, brought up to date first
    /// (`pos` must be the current position).
    ///
    /// # Panics
    /// Before the first [`AccumulatorStack::reset`].
    pub fn current(&mut self, net: &N, pos: &Position) -> &Accumulator<N> {
        for color in Color::ALL {
            self.compute(net, pos, color);
        }
        &self.entries[self.len - 1].acc
    }

    /// Records the change of a new ply: the next entry's frames and deltas,
    /// nothing computed yet.
    fn push_entry(&mut self, deltas: impl FnOnce([Frame; 2]) -> [FeatureDelta; 2]) {
        debug_assert!(self.len > 0, "push before reset");
        if self.len == self.entries.len() {
            let copy = self.entries[self.len - 1].clone();
            self.entries.push(copy);
        }
        let (parent, child) = self.parent_and_child(self.len);
        let deltas = deltas(parent.acc.frames);
        for (i, d) in deltas.into_iter().enumerate() {
            child.acc.frames[i] = match d {
                FeatureDelta::Refresh(frame) => frame,
                FeatureDelta::Update { .. } => parent.acc.frames[i],
            };
            child.delta[i] = d;
            child.computed[i] = false;
            child.psq_done[i] = false;
        }
        self.len += 1;
    }

    /// Records the move `mv` that took `before` (the current position) to
    /// `after`. The arithmetic waits until a position is evaluated.
    pub fn push(&mut self, before: &Position, mv: Move, after: &Position) {
        self.push_entry(|frames| move_deltas(before, mv, after, frames));
    }

    /// Records a null move (the side to move passes): the features, which
    /// are relative to each colour, do not change.
    pub fn push_null(&mut self) {
        self.push_entry(|_| [NO_CHANGE; 2]);
    }

    /// Goes back one ply (unmake). The root is never popped.
    pub fn pop(&mut self) {
        debug_assert!(self.len > 1, "pop past the root");
        if self.len > 1 {
            self.len -= 1;
        }
    }

    /// Brings `color`'s accumulator of the current position (`pos`) up to
    /// date: from the nearest computed entry below by the recorded changes,
    /// or from scratch when a refresh comes first.
    fn compute(&mut self, net: &N, pos: &Position, color: Color) {
        let i = color.index();
        let top = self.len - 1;
        let Some(k) = self.last_done(i, |e| e.computed[i]) else {
            self.refresh_cached(net, pos, color);
            self.entries[top].computed[i] = true;
            self.entries[top].psq_done[i] = true;
            return;
        };
        for j in k + 1..=top {
            let (parent, child) = self.parent_and_child(j);
            let delta = &child.delta[i];
            net.update_from(
                &parent.acc.values[i],
                &mut child.acc.values[i],
                delta.removed(),
                delta.added(),
            );
            child.computed[i] = true;
            child.psq_done[i] = true;
        }
    }

    /// Computes `color`'s accumulator of the top entry (whose frame is
    /// recorded) from the cached one of the same colour and frame, changed
    /// by the features that differ, or from scratch if there is none; and
    /// caches the result.
    fn refresh_cached(&mut self, net: &N, pos: &Position, color: Color) {
        let i = color.index();
        let top = self.len - 1;
        let frame = self.entries[top].acc.frames[i];
        let source = FeatureSource::of(pos, color);
        let slot = cache_slot(&mut self.refresh_cache, color, frame);
        let values = &mut self.entries[top].acc.values[i];
        match slot {
            Some(cached) => {
                let (mut removed, mut added) = (FeatureList::default(), FeatureList::default());
                source_delta(color, frame, &cached.source, &source, |f, is_added| {
                    if is_added { added.push(f) } else { removed.push(f) }
                });
                net.update_from(&cached.values, values, removed.as_slice(), added.as_slice());
                cached.source = source;
                cached.values.clone_from(values);
            }
            None => {
                let mut list = FeatureList::default();
                for_each_feature(pos, color, frame, |f| list.push(f));
                net.refresh(list.as_slice(), values);
                *slot = Some(Refreshed {
                    source,
                    values: values.clone(),
                });
            }
        }
    }

    /// The nearest entry at or below the top for which `done` holds, or
    /// `None` when a refresh of perspective `i` comes first on the way
    /// down (the top is then computed from scratch; the root is always
    /// done, so the walk ends).
    fn last_done(&self, i: usize, done: impl Fn(&Entry<N>) -> bool) -> Option<usize> {
        let mut k = self.len - 1;
        while !done(&self.entries[k]) {
            if let FeatureDelta::Refresh(_) = self.entries[k].delta[i] {
                return None;
            }
            k -= 1;
        }
        Some(k)
    }

    /// Entry `j - 1` to read and entry `j` to write.
    fn parent_and_child(&mut self, j: usize) -> (&Entry<N>, &mut Entry<N>) {
        let (head, tail) = self.entries.split_at_mut(j);
        (&head[j - 1], &mut tail[0])
    }

    /// The evaluation of `pos`, the current position: logit x 10,000 for
    /// the side to move.
    pub fn evaluate(&mut self, net: &N, pos: &Position) -> i32 {
        let acc = self.current(net, pos);
        let us = pos.turn();
        net.output(&acc.values[us.index()], &acc.values[(!us).index()])
    }
}

impl AccumulatorStack<QuantNetwork> {
    /// The psq sums of the current position (`pos`), the side to move's
    /// first, brought up to date without the accumulators: the linear
    /// skip term alone, one i32 per changed feature, for a search that
    /// needs only to know whether the evaluation is surely outside its
    /// window (see [`QuantNetwork::dense_bounds`]). The accumulators stay
    /// as they were, computed later when asked for.
    pub fn psq_sums(&mut self, net: &QuantNetwork, pos: &Position) -> [i32; 2] {
        for color in Color::ALL {
            self.compute_psq(net, pos, color);
        }
        let top = &self.entries[self.len - 1].acc.values;
        let us = pos.turn();
        [top[us.index()].psq, top[(!us).index()].psq]
    }

    /// [`AccumulatorStack::compute`] for the psq sum of `color` alone.
    fn compute_psq(&mut self, net: &QuantNetwork, pos: &Position, color: Color) {
        let i = color.index();
        let top = self.len - 1;
        let Some(k) = self.last_done(i, |e| e.psq_done[i]) else {
            self.psq_from_scratch(net, pos, color);
            return;
        };
        for j in k + 1..=top {
            let (parent, child) = self.parent_and_child(j);
            let delta = &child.delta[i];
            let mut psq = parent.acc.values[i].psq;
            for &f in delta.removed() {
                psq = psq.wrapping_sub(net.psq(f));
            }
            for &f in delta.added() {
                psq = psq.wrapping_add(net.psq(f));
            }
            child.acc.values[i].psq = psq;
            child.psq_done[i] = true;
        }
    }

    /// [`AccumulatorStack::compute_psq`] when a refresh comes first: from
    /// the cached sum of the same colour and frame, or from scratch. Kept
    /// out of line, so that the common path (a step or two of deltas)
    /// stays small.
    #[inline(never)]
    fn psq_from_scratch(&mut self, net: &QuantNetwork, pos: &Position, color: Color) {
        let i = color.index();
        let top = self.len - 1;
        // The frame is known: the entry's, recorded at the refresh.
        let frame = self.entries[top].acc.frames[i];
        let source = FeatureSource::of(pos, color);
        let slot = cache_slot(&mut self.psq_cache, color, frame);
        let sum = match slot {
            Some(cached) => {
                let mut sum = cached.psq;
                source_delta(color, frame, &cached.source, &source, |f, added| {
                    sum = if added {
                        sum.wrapping_add(net.psq(f))
                    } else {
                        sum.wrapping_sub(net.psq(f))
                    };
                });
                sum
            }
            None => {
                let mut sum = 0i32;
                for_each_feature(pos, color, frame, |f| sum = sum.wrapping_add(net.psq(f)));
                sum
            }
        };
        *slot = Some(PsqCached { source, psq: sum });
        self.entries[top].acc.values[i].psq = sum;
        self.entries[top].psq_done[i] = true;
    }
}
