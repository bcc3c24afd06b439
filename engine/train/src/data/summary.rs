//! What a set of data files holds: counts, the balance of results (for the
//! side to move and by colour), how games opened, histograms of scores and
//! plies, and how many positions repeat one met before. A value that the
//! binary prints as text or JSON.

use super::file::{DataError, Reader};
use super::record::{GameResult, Opening};
use leaper_rules::Color;
use serde::Serialize;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// Upper edges of the score bins, logit x 10,000 (a last bin takes the
/// rest).
pub const SCORE_EDGES: [i32; 12] = [
    -40_000, -20_000, -10_000, -5_000, -2_000, -500, 500, 2_000, 5_000, 10_000, 20_000, 40_000,
];
/// Width of the ply bins.
pub const PLY_BIN: u32 = 10;

/// One file's share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileSummary {
    /// The file.
    pub path: PathBuf,
    /// Its records.
    pub records: u64,
    /// Its valid chunks.
    pub chunks: u64,
    /// Distinct games.
    pub games: u64,
    /// The torn tail that was dropped, as a message.
    pub torn_tail: Option<String>,
}

/// Wins, draws and losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Balance {
    /// Won by the side to move / by red.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost by the side to move / won by blue.
    pub losses: u64,
}

impl Balance {
    fn total(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    fn add(&mut self, result: GameResult) {
        match result {
            GameResult::Win => self.wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Loss => self.losses += 1,
        }
    }
}

/// A histogram: `counts[i]` for the bin named `labels[i]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Histogram {
    /// The bins' names.
    pub labels: Vec<String>,
    /// The counts.
    pub counts: Vec<u64>,
}

/// The summary of one or more files.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Each file.
    pub files: Vec<FileSummary>,
    /// Records in all.
    pub records: u64,
    /// Games in all (distinct per file).
    pub games: u64,
    /// Results for the side to move of each position.
    pub side_to_move: Balance,
    /// Results by colour per position: `wins` red won, `losses` blue won.
    pub by_colour: Balance,
    /// Results by colour per game: `wins` red won, `losses` blue won.
    pub games_by_colour: Balance,
    /// Positions with red to move.
    pub red_to_move: u64,
    /// Positions from games that opened from the book.
    pub book_openings: u64,
    /// Positions from recorded games followed (`datagen --games`).
    pub recorded_games: u64,
    /// Mean score, logit x 10,000.
    pub mean_score: f64,
    /// Mean of |score|.
    pub mean_abs_score: f64,
    /// Scores.
    pub scores: Histogram,
    /// Plies.
    pub plies: Histogram,
    /// Positions whose board, hands and side to move were met before (in
    /// any file).
    pub duplicates: u64,
}

fn score_labels() -> Vec<String> {
    let logit = |v: i32| format!("{:+.2}", f64::from(v) / 10_000.0);
    let mut labels = vec![format!("< {}", logit(SCORE_EDGES[0]))];
    for w in SCORE_EDGES.windows(2) {
        labels.push(format!("{} .. {}", logit(w[0]), logit(w[1])));
    }
    labels.push(format!(">= {}", logit(SCORE_EDGES[SCORE_EDGES.len() - 1])));
    labels
}

fn score_bin(score: i32) -> usize {
    SCORE_EDGES.iter().position(|&e| score < e).unwrap_or(SCORE_EDGES.len())
}

/// Reads `paths` whole and summarises them. Torn tails are dropped and
/// named in the file's summary.
///
/// # Errors
/// [`DataError`] for a file that cannot be read or is damaged.
pub fn summarize(paths: &[impl AsRef<Path>]) -> Result<Summary, DataError> {
    let bins = PLY_BIN as usize;
    let ply_bins = leaper_rules::MAX_PLY as usize / bins + 1;
    let mut s = Summary {
        files: Vec::new(),
        records: 0,
        games: 0,
        side_to_move: Balance::default(),
        by_colour: Balance::default(),
        games_by_colour: Balance::default(),
        red_to_move: 0,
        book_openings: 0,
        recorded_games: 0,
        mean_score: 0.0,
        mean_abs_score: 0.0,
        scores: Histogram {
            labels: score_labels(),
            counts: vec![0; SCORE_EDGES.len() + 1],
        },
        plies: Histogram {
            labels: (0..ply_bins)
                .map(|i| {
                    let hi = ((i + 1) * bins - 1).min(leaper_rules::MAX_PLY as usize);
                    format!("{}..{}", i * bins, hi)
                })
                .collect(),
            counts: vec![0; ply_bins],
        },
        duplicates: 0,
    };
    let mut seen = HashSet::new();
    let (mut sum, mut abs_sum) = (0f64, 0f64);
    for path in paths {
        let mut reader = Reader::open(path)?;
        let mut file = FileSummary {
            path: path.as_ref().to_path_buf(),
            records: 0,
            chunks: 0,
            games: 0,
            torn_tail: None,
        };
        let mut games = std::collections::HashMap::new();
        while let Some(chunk) = reader.next_chunk()? {
            file.chunks += 1;
            for r in &chunk.records {
                file.records += 1;
                s.side_to_move.add(r.result);
                let for_red = if r.position.turn() == Color::Red {
                    s.red_to_move += 1;
                    r.result
                } else {
                    flip(r.result)
                };
                s.by_colour.add(for_red);
                games.insert(r.game, for_red);
                match r.opening {
                    Opening::Book => s.book_openings += 1,
                    Opening::Recorded => s.recorded_games += 1,
                    Opening::Random => {}
                }
                sum += f64::from(r.score);
                abs_sum += f64::from(r.score).abs();
                s.scores.counts[score_bin(r.score)] += 1;
                s.plies.counts[(r.position.ply() as usize / bins).min(ply_bins - 1)] += 1;
                if !seen.insert(r.position.key()) {
                    s.duplicates += 1;
                }
            }
        }
        file.torn_tail = reader.torn_tail().map(ToString::to_string);
        file.games = games.len() as u64;
        for result in games.values() {
            s.games_by_colour.add(*result);
        }
        s.records += file.records;
        s.games += file.games;
        s.files.push(file);
    }
    if s.records > 0 {
        s.mean_score = sum / s.records as f64;
        s.mean_abs_score = abs_sum / s.records as f64;
    }
    Ok(s)
}

fn flip(result: GameResult) -> GameResult {
    match result {
        GameResult::Win => GameResult::Loss,
        GameResult::Draw => GameResult::Draw,
        GameResult::Loss => GameResult::Win,
    }
}

fn pct(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

fn balance_line(f: &mut fmt::Formatter<'_>, name: &str, words: [&str; 3], b: &Balance) -> fmt::Result {
    let t = b.total();
    writeln!(
        f,
        "{name:<22} {} {} ({:.1}%), {} {} ({:.1}%), {} {} ({:.1}%)",
        words[0],
        b.wins,
        pct(b.wins, t),
        words[1],
        b.draws,
        pct(b.draws, t),
        words[2],
        b.losses,
        pct(b.losses, t)
    )
}

fn histogram(f: &mut fmt::Formatter<'_>, title: &str, h: &Histogram, total: u64) -> fmt::Result {
    writeln!(f, "{title}:")?;
    let max = h.counts.iter().copied().max().unwrap_or(0).max(1);
    for (label, &count) in h.labels.iter().zip(&h.counts) {
        let bar = "#".repeat((count * 40).div_ceil(max) as usize);
        writeln!(f, "  {label:>16} {count:>10} {:>5.1}% {bar}", pct(count, total))?;
    }
    Ok(())
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in &self.files {
            writeln!(
                f,
                "{}: {} positions, {} games, {} chunks",
                file.path.display(),
                file.records,
                file.games,
                file.chunks
            )?;
        }
        let n = self.records;
        writeln!(f, "positions              {n}")?;
        writeln!(
            f,
            "games                  {} ({:.1} positions a game)",
            self.games,
            if self.games == 0 {
                0.0
            } else {
                n as f64 / self.games as f64
            }
        )?;
        writeln!(
            f,
            "duplicates             {} ({:.2}%)",
            self.duplicates,
            pct(self.duplicates, n)
        )?;
        writeln!(
            f,
            "red to move            {} ({:.1}%)",
            self.red_to_move,
            pct(self.red_to_move, n)
        )?;
        writeln!(
            f,
            "book openings          {} ({:.1}% of positions)",
            self.book_openings,
            pct(self.book_openings, n)
        )?;
        if self.recorded_games > 0 {
            writeln!(
                f,
                "from recorded games    {} ({:.1}% of positions)",
                self.recorded_games,
                pct(self.recorded_games, n)
            )?;
        }
        balance_line(f, "side to move", ["wins", "draws", "losses"], &self.side_to_move)?;
        balance_line(f, "positions by colour", ["red", "draw", "blue"], &self.by_colour)?;
        balance_line(f, "games by colour", ["red", "draw", "blue"], &self.games_by_colour)?;
        writeln!(
            f,
            "score                  mean {:+.0}, mean |score| {:.0} (logit x 10,000)",
            self.mean_score, self.mean_abs_score
        )?;
        histogram(f, "scores (logit)", &self.scores, n)?;
        histogram(f, "plies", &self.plies, n)
    }
}
