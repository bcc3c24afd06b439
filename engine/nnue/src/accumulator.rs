//! Accumulators along a search path: one entry per ply, each made from its
//! parent by the few features a move changes (or anew when a frame
//! changes, i.e. when a wazir moves), and dropped on unmake by popping.
//!
//! The searcher owns one [`AccumulatorStack`] per thread: `reset` at the
//! root, `push(before, mv, after)` right after making a move,
//! `push_null()` after a null move, `pop()` on unmake, `evaluate(pos)` at
//! any node. Popping needs no arithmetic: the parent's entry is still
//! there.

use crate::features::{FeatureDelta, Frame, active_features, move_delta};
use crate::network::{L1, QuantNetwork};
use leaper_rules::{Color, Move, Position};

/// Both perspectives' accumulators of one position, indexed by colour,
/// with the frames they were computed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// Red's and Blue's accumulators.
    pub values: [[i16; L1]; 2],
    /// Red's and Blue's frames.
    pub frames: [Frame; 2],
}

impl Accumulator {
    /// Both accumulators computed from scratch.
    pub fn refresh(net: &QuantNetwork, pos: &Position) -> Accumulator {
        let mut acc = Accumulator {
            values: [[0; L1]; 2],
            frames: [Frame::default(); 2],
        };
        for color in Color::ALL {
            acc.refresh_side(net, pos, color);
        }
        acc
    }

    fn refresh_side(&mut self, net: &QuantNetwork, pos: &Position, color: Color) {
        let (frame, list) = active_features(pos, color);
        net.refresh(list.as_slice(), &mut self.values[color.index()]);
        self.frames[color.index()] = frame;
    }
}

/// A stack of accumulators, one per ply of the current search path. Its
/// storage grows to the deepest ply reached and is then reused.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    entries: Vec<Accumulator>,
    len: usize,
}

impl Default for AccumulatorStack {
    fn default() -> Self {
        AccumulatorStack::new()
    }
}

impl AccumulatorStack {
    /// An empty stack; call [`AccumulatorStack::reset`] before use.
    pub fn new() -> AccumulatorStack {
        AccumulatorStack {
            entries: Vec::with_capacity(128),
            len: 0,
        }
    }

    /// Starts a new path at `pos` (the root), computed from scratch.
    pub fn reset(&mut self, net: &QuantNetwork, pos: &Position) {
        let root = Accumulator::refresh(net, pos);
        if self.entries.is_empty() {
            self.entries.push(root);
        } else {
            self.entries[0] = root;
        }
        self.len = 1;
    }

    /// How many positions are on the path (1 after `reset`).
    pub fn depth(&self) -> usize {
        self.len
    }

    /// The accumulator of the current position.
    ///
    /// # Panics
    /// Before the first [`AccumulatorStack::reset`].
    pub fn current(&self) -> &Accumulator {
        &self.entries[self.len - 1]
    }

    /// A new entry for the next ply, returned with its parent.
    fn next_entry(&mut self) -> (&Accumulator, &mut Accumulator) {
        debug_assert!(self.len > 0, "push before reset");
        if self.len == self.entries.len() {
            let copy = self.entries[self.len - 1].clone();
            self.entries.push(copy);
        }
        let (head, tail) = self.entries.split_at_mut(self.len);
        self.len += 1;
        (&head[head.len() - 1], &mut tail[0])
    }

    /// Records the move `mv` that took `before` (the current position) to
    /// `after`.
    pub fn push(&mut self, net: &QuantNetwork, before: &Position, mv: Move, after: &Position) {
        let (parent, child) = self.next_entry();
        for color in Color::ALL {
            let i = color.index();
            match move_delta(before, mv, after, color, parent.frames[i]) {
                FeatureDelta::Refresh(_) => child.refresh_side(net, after, color),
                delta => {
                    net.update_from(&parent.values[i], &mut child.values[i], delta.removed(), delta.added());
                    child.frames[i] = parent.frames[i];
                }
            }
        }
    }

    /// Records a null move (the side to move passes): the features, which
    /// are relative to each colour, do not change.
    pub fn push_null(&mut self) {
        let (parent, child) = self.next_entry();
        child.clone_from(parent);
    }

    /// Goes back one ply (unmake). The root is never popped.
    pub fn pop(&mut self) {
        debug_assert!(self.len > 1, "pop past the root");
        if self.len > 1 {
            self.len -= 1;
        }
    }

    /// The evaluation of `pos`, the current position: logit x 10,000 for
    /// the side to move.
    pub fn evaluate(&self, net: &QuantNetwork, pos: &Position) -> i32 {
        let acc = self.current();
        let us = pos.turn();
        net.output(&acc.values[us.index()], &acc.values[(!us).index()])
    }
}
