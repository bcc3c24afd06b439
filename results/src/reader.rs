//! Reading game record files back: rows become [`GameRecord`]s, and
//! several files merge into one [`RecordSet`] whose games turn into
//! tallies, crosstables and rating tables.
//!
//! The reader is strict where the numbers would otherwise be wrong, and
//! forgiving only of what a crash leaves: a torn last line (the game being
//! written when the run was killed) is dropped and reported once, while any
//! other damaged row (a missing column, a bad result string), a game id
//! recorded twice (a hand-merged or doubly-written record) or the same file
//! named twice stops the reading with the file, the line and the column.

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
    /// A row other than a torn last line is damaged.
    #[error("{0}")]
    Row(DamagedRow),
    /// A game id is recorded more than once; counting it would count the
    /// game twice.
    #[error(
        "{path}: game {game} is recorded on lines {}{}",
        join_lines(lines),
        others_note(*other_ids)
    )]
    DuplicateGame {
        /// The file concerned.
        path: PathBuf,
        /// The first id, in file order, that is recorded twice.
        game: u64,
        /// Every line that records it.
        lines: Vec<u64>,
        /// How many other ids are recorded more than once.
        other_ids: usize,
    },
    /// A row names a player the caller does not know (see
    /// [`RecordFile::check_players`]).
    #[error(
        "{path}:{line}: column {column} ({field}): unknown player {name:?} (this run's players: {})",
        known.join(", ")
    )]
    UnknownPlayer {
        /// The file concerned.
        path: PathBuf,
        /// The row's line.
        line: u64,
        /// The column, numbered from 1.
        column: usize,
        /// `red` or `blue`.
        field: &'static str,
        /// The name found.
        name: String,
        /// The names allowed.
        known: Vec<String>,
    },
    /// The same file was named twice; its games would count twice.
    #[error("{0} is named twice")]
    SameFileTwice(PathBuf),
}

/// `3 and 9`, `3, 9 and 12`.
fn join_lines(lines: &[u64]) -> String {
    let text: Vec<String> = lines.iter().map(u64::to_string).collect();
    match text.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => text.join(""),
    }
}

fn others_note(other_ids: usize) -> String {
    match other_ids {
        0 => String::new(),
        1 => " (and 1 other id is recorded more than once)".to_owned(),
        n => format!(" (and {n} other ids are recorded more than once)"),
    }
}

/// A damaged row: where it is and what is wrong with it.
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
    /// Its games, in file order.
    pub games: Vec<LocatedRecord>,
    /// What was dropped: at most the torn last line of a killed run, for
    /// the caller to warn about (every other damage is a [`ReadError`]).
    pub damaged: Vec<DamagedRow>,
}

/// Reads one record file.
///
/// # Errors
/// [`ReadError::Io`] when it cannot be read; otherwise as
/// [`parse_record_file`]. A torn last line is not an error: it is dropped
/// and listed in [`RecordFile::damaged`].
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
/// The first file that [`read_record_file`] refuses;
/// [`ReadError::SameFileTwice`] when a file is named twice (by any path).
pub fn read_record_files<P: AsRef<Path>>(paths: &[P]) -> Result<RecordSet, ReadError> {
    let mut seen = Vec::new();
    for path in paths {
        let path = path.as_ref();
        if let Ok(real) = std::fs::canonicalize(path) {
            if seen.contains(&real) {
                return Err(ReadError::SameFileTwice(path.to_path_buf()));
            }
            seen.push(real);
        }
    }
    let files = paths.iter().map(read_record_file).collect::<Result<_, _>>()?;
    Ok(RecordSet { files })
}

/// Parses the contents of a record file; `path` only labels reports.
///
/// # Errors
/// [`ReadError::Header`] when the first line is not the record header;
/// [`ReadError::Row`] for the first damaged row other than a torn last
/// line; [`ReadError::DuplicateGame`] when a game id is recorded twice.
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
            Err(error) => {
                return Err(ReadError::Row(DamagedRow { path, line, error }));
            }
        }
    }
    check_unique_ids(&file)?;
    if !tail.is_empty() {
        file.damaged.push(DamagedRow {
            path,
            line: complete_lines + 1,
            error: RowError::Torn,
        });
    }
    Ok(file)
}

/// Refuses a file in which a game id is recorded more than once.
fn check_unique_ids(file: &RecordFile) -> Result<(), ReadError> {
    let mut lines: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for game in &file.games {
        lines.entry(game.record.game).or_default().push(game.line);
    }
    let mut repeated: Vec<(u64, &Vec<u64>)> = lines
        .iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(&game, at)| (game, at))
        .collect();
    // The first repeated id in file order: the one whose second line is
    // first, so the message names what a reader meets first.
    repeated.sort_by_key(|(_, at)| at[1]);
    match repeated.first() {
        None => Ok(()),
        Some(&(game, at)) => Err(ReadError::DuplicateGame {
            path: file.path.clone(),
            game,
            lines: at.clone(),
            other_ids: repeated.len() - 1,
        }),
    }
}

fn header_error(path: PathBuf, line: &[u8]) -> ReadError {
    let found = String::from_utf8_lossy(line).trim_end().to_owned();
    ReadError::Header { path, found }
}

impl RecordFile {
    /// The games, in file order.
    pub fn records(&self) -> impl Iterator<Item = &GameRecord> {
        self.games.iter().map(|g| &g.record)
    }

    /// Checks that every game is between players in `known` (a run's
    /// engines), so that a record of another run, or a hand-edited name,
    /// is not counted as this run's.
    ///
    /// # Errors
    /// [`ReadError::UnknownPlayer`] for the first name not in `known`, with
    /// its line and column.
    pub fn check_players<S: AsRef<str>>(&self, known: &[S]) -> Result<(), ReadError> {
        for game in &self.games {
            let record = &game.record;
            for (field, name) in [("red", &record.red), ("blue", &record.blue)] {
                if !known.iter().any(|k| k.as_ref() == name) {
                    return Err(ReadError::UnknownPlayer {
                        path: self.path.clone(),
                        line: game.line,
                        column: RECORD_HEADER.iter().position(|h| *h == field).map_or(0, |i| i + 1),
                        field,
                        name: name.clone(),
                        known: known.iter().map(|k| k.as_ref().to_owned()).collect(),
                    });
                }
            }
        }
        Ok(())
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
    /// Every game, file by file.
    pub fn records(&self) -> impl Iterator<Item = &GameRecord> {
        self.files.iter().flat_map(RecordFile::records)
    }

    /// Every dropped torn last line, file by file.
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
