//! Setup books and opening suites for 0.1.
//!
//! In this game the "opening" is the pair of setups, 10,810,800 choices per
//! side. The engine needs good setups fast (a book), and the arena needs
//! suites of setup pairs that are varied and balanced, so that a game pair
//! measures strength rather than luck. The book format itself lives in the
//! `leaper-book` crate (`openings/book`), which the engine also reads its
//! own book with; this crate builds books
//! ([`generate`]), draws suites from them ([`make_suite`]) and describes
//! them ([`BookStats`]). Nothing here prints: progress goes to a callback.

mod evaluate;
mod generate;
mod stats;
mod suite;

pub use evaluate::{EngineEvaluator, PairEvaluator};
pub use generate::{GenerateConfig, GenerateError, Generator, Progress};
pub use leaper_book::{Book, BookEntry, BookLineError};
pub use stats::{BookStats, Histogram};
pub use suite::{SuiteError, SuiteSource, canonical_red, make_suite};
