//! Openings: in this game an opening is a pair of setups (Red's and
//! Blue's), imposed by the arena as plies 1 and 2. They come from a file
//! (one pair per line, `RED_SETUP BLUE_SETUP [more fields...]`, `#`
//! comments; the openings crate's richer format keeps these as its first
//! two fields) taken in order or in a seeded random order, or, without a
//! file, from seeded random setups. Either way the opening of slot `s`
//! depends only on the seed and `s`, which is what lets a resumed run
//! replay exactly the games an uninterrupted one would.

use std::path::Path;

use leaper::{Color, SETUP_COUNT, Setup};
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

/// SplitMix64: a tiny, fixed, well-mixed generator. The arena's random
/// choices use it rather than `rand`'s generators, whose streams may
/// change between versions: a run resumed after an upgrade must still
/// play the same openings.
#[must_use]
pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A uniform-enough value in `0..n` from `(seed, a, b)`.
fn draw(seed: u64, a: u64, b: u64, n: u64) -> u64 {
    let x = splitmix64(seed ^ splitmix64(a ^ splitmix64(b)));
    // Multiply-shift maps 64 bits onto 0..n with a bias below n / 2^64.
    ((u128::from(x) * u128::from(n)) >> 64) as u64
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
            // Fisher-Yates with the arena's own generator.
            for i in (1..openings.len()).rev() {
                let j = draw(seed, 0x0BE7, i as u64, i as u64 + 1) as usize;
                openings.swap(i, j);
            }
        }
        Self::List(openings)
    }

    /// The opening of slot `slot`.
    #[must_use]
    pub fn opening(&self, slot: u64) -> Opening {
        match self {
            Self::Random { seed } => {
                let setup = |side| {
                    let rank = draw(*seed, slot, side, u64::from(SETUP_COUNT));
                    // Ranks below SETUP_COUNT always unrank.
                    u32::try_from(rank)
                        .ok()
                        .and_then(Setup::unrank)
                        .unwrap_or_else(Setup::first)
                };
                Opening {
                    red: setup(1),
                    blue: setup(2),
                }
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
