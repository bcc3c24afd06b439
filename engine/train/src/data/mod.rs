//! Self-play training data: generating it (`selfplay`, driving the engine
//! through the small adapter `engine`), its binary format (`record` for
//! one position and its labels, `file` for the checksummed chunks around
//! them), reading it back ([`samples`] for trainers), summarising it
//! (`summary`), and the command-line front ends (`cli`) that the binaries
//! wire in.
//!
//! ```no_run
//! // A trainer's loop over a file.
//! for sample in leaper_train::data::samples("gen1/data.bin")? {
//!     let s = sample?;
//!     let target = s.result.as_f32();
//!     let _ = (s.position.turn(), s.score, s.ply, target);
//! }
//! # Ok::<(), leaper_train::data::DataError>(())
//! ```

pub mod cli;
mod engine;
mod file;
mod record;
mod selfplay;
mod summary;

pub use engine::{Engine, Line, eval_names};
pub use file::{
    CHUNK_HEADER_SIZE, Chunk, DataError, Existing, HEADER_SIZE, MAX_CHUNK_RECORDS, Reader, Records, TornTail, VERSION,
    Writer,
};
pub use record::{GameResult, Opening, PackedPosition, RECORD_SIZE, Record, RecordError};
pub use selfplay::{GameRecords, GenError, Progress, RunReport, Settings, generate, play_game, wazir_attacked};
pub use summary::{Balance, FileSummary, Histogram, PLY_BIN, SCORE_EDGES, Summary, summarize};

use leaper_rules::Position;
use std::path::Path;

/// A training position, decoded: what a trainer reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The position (quiet, the game going on).
    pub position: Position,
    /// The deeper search's score for the side to move, in the engine's
    /// evaluation unit (logit x 10,000).
    pub score: i32,
    /// The game's result for the side to move.
    pub result: GameResult,
    /// Plies played before it, setups included.
    pub ply: u32,
    /// The game it came from (its index in the run): split training and
    /// validation sets by game, as positions of one game are alike.
    pub game: u32,
}

/// Iterator over a file's samples (see [`samples`]).
#[derive(Debug)]
pub struct Samples {
    records: Records,
    index: u64,
}

impl Samples {
    /// The torn tail dropped at the end, if any (known once the iteration
    /// has reached it); a trainer should report it.
    pub fn torn_tail(&self) -> Option<&TornTail> {
        self.records.reader().torn_tail()
    }
}

impl Iterator for Samples {
    type Item = Result<Sample, DataError>;

    fn next(&mut self) -> Option<Self::Item> {
        let record = match self.records.next()? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let index = self.index;
        self.index += 1;
        Some(
            record
                .position
                .to_position()
                .map(|position| Sample {
                    position,
                    score: record.score,
                    result: record.result,
                    ply: record.position.ply(),
                    game: record.game,
                })
                .map_err(|source| DataError::BadSample {
                    path: self.records.reader().path().to_path_buf(),
                    index,
                    source,
                }),
        )
    }
}

/// Opens `path` and yields its positions with their labels. A torn tail
/// ends the iteration quietly (see [`Samples::torn_tail`]); damage before
/// it is an error item.
///
/// # Errors
/// [`DataError`] when the file cannot be opened or is not a data file of
/// this version.
pub fn samples(path: impl AsRef<Path>) -> Result<Samples, DataError> {
    Ok(Samples {
        records: Reader::open(path)?.records(),
        index: 0,
    })
}
