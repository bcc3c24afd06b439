//! leaper-train: what fits the engine's evaluation, kept out of the engine
//! library so that the engine carries no training code.
//!
//! [`selfplay`] plays the engine against itself and records quiet
//! positions with scores and results; [`fit`] fits the linear evaluation's
//! weights to such records (and to CodeCup transcripts) by logistic
//! regression; [`replay`] checks recorded games against the rules (the
//! fitter reads transcripts through it, and `leaper replay` checks files
//! with it); [`data`] generates self-play positions scored by a deeper
//! search and stores them in a compact checksummed binary format that
//! trainers read back (binary `leaper-data`); [`cli`] holds the `selfplay` and `fit` subcommands that the
//! `leaper` binary wires in. The libraries return values; only `cli`
//! prints.

pub mod cli;
pub mod data;
pub mod fit;
pub mod replay;
pub mod selfplay;
pub mod train_cli;

#[cfg(test)]
mod tests;
