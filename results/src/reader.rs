//! Reading game record files back: rows become [`GameRecord`]s, damaged
//! rows (a torn last line from a killed run, a field that does not parse)
//! are skipped and reported with their file and line, and several files
//! merge into one [`RecordSet`] whose games turn into tallies, crosstables
//! and rating tables. A bad row never stops the reading; only a missing
//! file or one that is not a record file at all is an error.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::rating::Crosstable;
use crate::record::{GameRecord, RECORD_HEADER, RowError};
use crate::tally::{Outcome, Pentanomial, Trinomial};

/// Why a file could not be read at all.
#[derive(Debug, Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("cannot read {path}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file does not start with the record header.
    #[error("{path}: not a game record file (first line {found:?})")]
    Header {
        /// The file concerned.
        path: PathBuf,
        /// Its first line, as far as it is text.
        found: String,
    },
}

/// A row that was skipped, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedRow {
    /// The file it is in.
    pub path: PathBuf,
    /// Its line number, from 1 (the header is line 1).
    pub line: u64,
    /// What is wrong with it.
    pub error: RowError,
}

impl fmt::Display for DamagedRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.error)
    }
}

/// A game and the line it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocatedRecord {
    /// Its line number, from 1 (the header is line 1).
    pub line: u64,
    /// The game.
    pub record: GameRecord,
}

/// Everything read from one record file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordFile {
    /// The file read.
    pub path: PathBuf,
    /// Its valid games, in file order.
    pub games: Vec<LocatedRecord>,
    /// Its skipped rows, in file order.
    pub damaged: Vec<DamagedRow>,
}

/// Reads one record file.
///
/// # Errors
/// [`ReadError::Io`] when it cannot be read; [`ReadError::Header`] when its
/// first line is not the record header. Damaged rows are not errors: they
/// are listed in [`RecordFile::damaged`].
pub fn read_record_file(path: impl AsRef<Path>) -> Result<RecordFile, ReadError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_record_file(path, &bytes)
}

/// Reads several record files into one set.
///
/// # Errors
/// The first file that [`read_record_file`] refuses.
pub fn read_record_files<P: AsRef<Path>>(paths: &[P]) -> Result<RecordSet, ReadError> {
    let files = paths.iter().map(read_record_file).collect::<Result<_, _>>()?;
    Ok(RecordSet { files })
}

/// Parses the contents of a record file; `path` only labels reports.
///
/// # Errors
/// [`ReadError::Header`] when the first line is not the record header.
pub fn parse_record_file(path: impl AsRef<Path>, bytes: &[u8]) -> Result<RecordFile, ReadError> {
    let path = path.as_ref().to_path_buf();
    let mut file = RecordFile {
        path: path.clone(),
        ..RecordFile::default()
    };
    // Everything after the last line end was cut short by a killed writer:
    // the writer ends every row with one, in the same write as the row.
    let (complete, tail) = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => bytes.split_at(end + 1),
        None => (&bytes[..0], bytes),
    };
    let complete_lines = complete.iter().filter(|&&b| b == b'\n').count() as u64;
    if complete.is_empty() {
        if tail.is_empty() {
            return Ok(file);
        }
        if RECORD_HEADER.join(",").as_bytes().starts_with(tail) {
            file.damaged.push(DamagedRow {
                path,
                line: 1,
                error: RowError::Torn,
            });
            return Ok(file);
        }
        return Err(header_error(path, tail));
    }

    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(complete);
    let mut row = csv::ByteRecord::new();
    let mut header_seen = false;
    loop {
        match reader.read_byte_record(&mut row) {
            Ok(false) => break,
            Ok(true) => {}
            // Reading from memory with flexible rows cannot fail; stop
            // rather than risk looping on the same error.
            Err(_) => break,
        }
        let line = row.position().map_or(0, csv::Position::line);
        if !header_seen {
            if row.iter().ne(RECORD_HEADER.iter().map(|h| h.as_bytes())) {
                let first = complete.split(|&b| b == b'\n').next().unwrap_or(&[]);
                return Err(header_error(path, first));
            }
            header_seen = true;
            continue;
        }
        match GameRecord::from_fields(&row) {
            Ok(record) => file.games.push(LocatedRecord { line, record }),
            Err(error) => file.damaged.push(DamagedRow {
                path: path.clone(),
                line,
                error,
            }),
        }
    }
    if !tail.is_empty() {
        file.damaged.push(DamagedRow {
            path,
            line: complete_lines + 1,
            error: RowError::Torn,
        });
    }
    Ok(file)
}

fn header_error(path: PathBuf, line: &[u8]) -> ReadError {
    let found = String::from_utf8_lossy(line).trim_end().to_owned();
    ReadError::Header { path, found }
}

impl RecordFile {
    /// The valid games, in file order.
    pub fn records(&self) -> impl Iterator<Item = &GameRecord> {
        self.games.iter().map(|g| &g.record)
    }

    /// The results of `player` in this file. Pairs are formed by the `pair`
    /// column; a pair counts in the pentanomial only when exactly two of its
    /// games, both with `player`, are present.
    #[must_use]
    pub fn match_tally(&self, player: &str) -> MatchTally {
        let mut tally = MatchTally {
            player: player.to_owned(),
            ..MatchTally::default()
        };
        let mut pairs: BTreeMap<u64, Vec<Outcome>> = BTreeMap::new();
        for record in self.records() {
            let opponent = record.opponent_of(player);
            match (record.outcome_for(player), opponent) {
                (Some(outcome), Some(opponent)) if opponent != player => {
                    tally.trinomial.record(outcome);
                    if !tally.opponents.iter().any(|o| o == opponent) {
                        tally.opponents.push(opponent.to_owned());
                    }
                    pairs.entry(record.pair).or_default().push(outcome);
                }
                _ => tally.other_games += 1,
            }
        }
        for outcomes in pairs.values() {
            if let [first, second] = outcomes[..] {
                tally.pentanomial.record_pair(first, second);
            } else {
                tally.unpaired_games += outcomes.len() as u64;
            }
        }
        tally
    }
}

/// The games of several record files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordSet {
    /// The files, in the order given.
    pub files: Vec<RecordFile>,
}

impl RecordSet {
    /// Every valid game, file by file.
    pub fn records(&self) -> impl Iterator<Item = &GameRecord> {
        self.files.iter().flat_map(RecordFile::records)
    }

    /// Every skipped row, file by file.
    pub fn damaged(&self) -> impl Iterator<Item = &DamagedRow> {
        self.files.iter().flat_map(|f| f.damaged.iter())
    }

    /// The Red player of the first valid game: the natural "first engine"
    /// of a match, since a match's first game gives Red to its first engine.
    #[must_use]
    pub fn first_player(&self) -> Option<&str> {
        self.records().next().map(|r| r.red.as_str())
    }

    /// Every player, in order of first appearance.
    #[must_use]
    pub fn players(&self) -> Vec<&str> {
        let mut players: Vec<&str> = Vec::new();
        for record in self.records() {
            for name in [record.red.as_str(), record.blue.as_str()] {
                if !players.contains(&name) {
                    players.push(name);
                }
            }
        }
        players
    }

    /// The results of `player` over all files, summed file by file (pair
    /// numbers are local to a file).
    #[must_use]
    pub fn match_tally(&self, player: &str) -> MatchTally {
        let mut total = MatchTally {
            player: player.to_owned(),
            ..MatchTally::default()
        };
        for file in &self.files {
            total.merge(&file.match_tally(player));
        }
        total
    }

    /// All pairwise results, for a [`crate::rating_table`].
    #[must_use]
    pub fn crosstable(&self) -> Crosstable {
        let mut table = Crosstable::new();
        for record in self.records() {
            table.record(&record.red, &record.blue, record.result.red_outcome());
        }
        table
    }
}

/// One player's results read from record files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchTally {
    /// The player counted for.
    pub player: String,
    /// Everybody it played, in order of first appearance.
    pub opponents: Vec<String>,
    /// All its games.
    pub trinomial: Trinomial,
    /// Its complete pairs.
    pub pentanomial: Pentanomial,
    /// Its games whose pair is incomplete (or has more than two games), so
    /// are missing from the pentanomial.
    pub unpaired_games: u64,
    /// Games it did not play (or played against itself).
    pub other_games: u64,
}

impl MatchTally {
    /// Adds another tally of the same player.
    pub fn merge(&mut self, other: &MatchTally) {
        for opponent in &other.opponents {
            if !self.opponents.contains(opponent) {
                self.opponents.push(opponent.clone());
            }
        }
        self.trinomial += other.trinomial;
        self.pentanomial += other.pentanomial;
        self.unpaired_games += other.unpaired_games;
        self.other_games += other.other_games;
    }
}
