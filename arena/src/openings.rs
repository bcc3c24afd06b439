//! Openings: in this game an opening is a pair of setups (Red's and
//! Blue's), imposed by the arena as plies 1 and 2. They come from a file
//! (one pair per line, `RED_SETUP BLUE_SETUP [more fields...]`, `#`
//! comments; the openings crate's richer format keeps these as its first
//! two fields) taken in order or in a seeded random order, or, without a
//! file, from seeded random setups. Either way the opening of slot `s`
//! depends only on the seed and `s`, which is what lets a resumed run
//! replay exactly the games an uninterrupted one would. The random
//! choices use the workspace's seeded generator, `rand_pcg`'s `Pcg64Mcg`,
//! whose stream is fixed by its definition (and `rand`'s ranges and
//! shuffles keep their values within a minor version), so a resumed run
//! draws what the killed one drew.

use std::path::Path;

use leaper::{Color, SETUP_COUNT, Setup};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One opening: both setups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opening {
    /// Red's setup (plies 1).
    pub red: Setup,
    /// Blue's setup (ply 2).
    pub blue: Setup,
}

impl Opening {
    /// `RED_SETUP blue_setup`, as a line of an openings file.
    #[must_use]
    pub fn to_line(&self) -> String {
        format!("{} {}", self.red.to_text(Color::Red), self.blue.to_text(Color::Blue))
    }
}

/// The order in which a file's openings are used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// File order, from the first line, cycling at the end.
    #[default]
    Sequential,
    /// A permutation of the file drawn from the run's seed, cycling.
    Random,
}

/// Why an openings file was refused.
#[derive(Debug, Error)]
pub enum OpeningsError {
    /// It could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A line whose first two fields are not setups.
    #[error("line {line}: {reason}")]
    Line {
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// No opening at all.
    #[error("no opening in the file")]
    Empty,
}

/// Parses the text of an openings file.
///
/// # Errors
/// [`OpeningsError::Line`] for a line whose first two fields are not a
/// setup each, [`OpeningsError::Empty`] when no line holds an opening.
pub fn parse_openings(text: &str) -> Result<Vec<Opening>, OpeningsError> {
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("");
        let mut fields = content.split_whitespace();
        let Some(first) = fields.next() else { continue };
        let bad = |reason: String| OpeningsError::Line { line: i + 1, reason };
        let second = fields
            .next()
            .ok_or_else(|| bad("expected RED_SETUP BLUE_SETUP".to_owned()))?;
        // Either case is accepted; the position in the line gives the colour.
        let red = Setup::parse(first)
            .map_err(|e| bad(format!("red setup {first:?}: {e}")))?
            .0;
        let blue = Setup::parse(second)
            .map_err(|e| bad(format!("blue setup {second:?}: {e}")))?
            .0;
        openings.push(Opening { red, blue });
    }
    if openings.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(openings)
}

/// Reads an openings file.
///
/// # Errors
/// As for [`parse_openings`], and [`OpeningsError::Io`].
pub fn read_openings(path: &Path) -> Result<Vec<Opening>, OpeningsError> {
    let text = std::fs::read_to_string(path).map_err(|source| OpeningsError::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse_openings(&text)
}

/// Writes `openings` as an openings file (one `RED_SETUP blue_setup` line
/// each), atomically: the run directory's copy of its openings.
///
/// # Errors
/// When the file cannot be written.
pub fn write_openings(path: &Path, openings: &[Opening]) -> std::io::Result<()> {
    let text: String = openings.iter().map(|o| o.to_line() + "\n").collect();
    crate::files::write_atomic(path, text.as_bytes())
}

/// How far apart, in draws, the stretches of the seed's stream that two
/// opening slots use lie: far more than a slot ever draws, so no two slots
/// share a draw.
const SLOT_STRIDE: u128 = 1 << 32;

/// The generator of slot `slot` under `seed`: the workspace's seeded
/// generator, jumped to the slot's own stretch of the seed's stream, so a
/// slot's opening needs neither the slots before it nor any state.
fn slot_rng(seed: u64, slot: u64) -> Pcg64Mcg {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    rng.advance(u128::from(slot) * SLOT_STRIDE);
    rng
}

/// Where the openings of a run come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    /// Random setup pairs drawn from the seed.
    Random {
        /// The run's seed.
        seed: u64,
    },
    /// A list, used in the order given (already permuted if random).
    List(Vec<Opening>),
}

impl OpeningSource {
    /// A source over `openings` in `order`, permuted with `seed` if random.
    #[must_use]
    pub fn from_list(mut openings: Vec<Opening>, order: Order, seed: u64) -> Self {
        if order == Order::Random {
            openings.shuffle(&mut Pcg64Mcg::seed_from_u64(seed));
        }
        Self::List(openings)
    }

    /// The opening of slot `slot`.
    #[must_use]
    pub fn opening(&self, slot: u64) -> Opening {
        match self {
            Self::Random { seed } => {
                let mut rng = slot_rng(*seed, slot);
                // Ranks below SETUP_COUNT always unrank.
                let mut setup = || Setup::unrank(rng.random_range(0..SETUP_COUNT)).unwrap_or_else(Setup::first);
                let red = setup();
                Opening { red, blue: setup() }
            }
            Self::List(list) => list[usize::try_from(slot % list.len() as u64).unwrap_or(0)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_parse_with_comments_and_extra_fields() {
        let text =
            "# openings\n\nAWNAADADAFFAADDA aaaaaffdaddadnwa 0.52 # scored\n  awnaadadaffaadda AAAAAFFDADDADNWA\n";
        let openings = parse_openings(text).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].to_line(), "AWNAADADAFFAADDA aaaaaffdaddadnwa");
        assert_eq!(openings[1], openings[0]);
        assert!(matches!(parse_openings("# none\n"), Err(OpeningsError::Empty)));
        assert!(matches!(
            parse_openings("AWNAADADAFFAADDA\n"),
            Err(OpeningsError::Line { line: 1, .. })
        ));
        assert!(matches!(
            parse_openings("x\nAWNAADADAFFAADDA WWWWWWWWWWWWWWWW\n"),
            Err(OpeningsError::Line { line: 1, .. })
        ));
    }

    #[test]
    fn random_openings_depend_on_seed_and_slot_only() {
        let a = OpeningSource::Random { seed: 7 };
        let b = OpeningSource::Random { seed: 7 };
        let c = OpeningSource::Random { seed: 8 };
        assert_eq!(a.opening(12), b.opening(12));
        assert_ne!(a.opening(12), a.opening(13));
        assert_ne!(a.opening(12), c.opening(12));
        assert_ne!(a.opening(0).red, a.opening(0).blue);
    }

    #[test]
    fn lists_cycle_and_shuffle_deterministically() {
        let list: Vec<Opening> = (0..10u32)
            .map(|i| Opening {
                red: Setup::unrank(i).unwrap(),
                blue: Setup::unrank(i + 100).unwrap(),
            })
            .collect();
        let seq = OpeningSource::from_list(list.clone(), Order::Sequential, 1);
        assert_eq!(seq.opening(3), list[3]);
        assert_eq!(seq.opening(13), list[3]);
        let shuffled = OpeningSource::from_list(list.clone(), Order::Random, 1);
        let again = OpeningSource::from_list(list.clone(), Order::Random, 1);
        let order: Vec<_> = (0..10).map(|s| shuffled.opening(s)).collect();
        assert_eq!(order, (0..10).map(|s| again.opening(s)).collect::<Vec<_>>());
        assert_ne!(order, list);
        let mut sorted = order.clone();
        sorted.sort_by_key(|o| o.red.rank());
        assert_eq!(sorted, list);
    }
}
