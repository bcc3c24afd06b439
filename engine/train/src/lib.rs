//! leaper-train: the tools that make leaper's evaluation from its own
//! games, kept out of the engine library so that the engine does not carry
//! them. [`data`] generates self-play positions scored by a deeper search
//! and stores them in a compact checksummed binary format that trainers
//! read back.

pub mod data;
