//! Weights of the linear evaluation and their text file: one line per
//! feature, `<name> <value>`, values in logit x 10,000; `#` starts a
//! comment; a feature not listed weighs 0. The shipped weights are compiled
//! in with `include_str!`, so the engine reads no file at run time.

use super::features::{FEATURES, HAND, HAND_SIZES, NORMALIZED_SQUARES, PSQ, feature_name};
use std::fmt::Write as _;

/// The name of the side-to-move bonus in the weights file.
pub const TEMPO_NAME: &str = "tempo";

/// The weights of a linear evaluation: one per feature, plus the tempo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Per feature, logit x 10,000.
    pub features: [i32; FEATURES],
    /// Bonus for the side to move.
    pub tempo: i32,
}

/// Why a weights file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// A line that is not `<name> <integer>`.
    #[error("line {line}: expected '<feature> <integer>', found '{text}'")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// The line, shortened.
        text: String,
    },
    /// A name that is no feature.
    #[error("line {line}: unknown feature '{name}'")]
    Unknown {
        /// 1-based line number.
        line: usize,
        /// The name.
        name: String,
    },
}

/// The published piece-square model of the CodeCup 2026 winner (seed 000),
/// in thousandths of a logit: per role, the ten normalized squares; then
/// the k-th piece of each role in hand; then the tempo.
const SEED_PSQ: [[i32; NORMALIZED_SQUARES]; 5] = [
    [83, 89, 163, 222, 112, 194, 203, 311, 313, 365],
    [74, 60, 115, 185, 59, 181, 212, 320, 330, 309],
    [18, 49, 62, 126, 206, 226, 247, 289, 286, 250],
    [188, 221, 282, 318, 265, 343, 419, 449, 442, 405],
    [655, 626, 25, -148, 599, 44, -304, -283, -514, -701],
];
const SEED_HAND: [i32; 30] = [
    186, 111, 80, 71, 64, 73, 70, 91, 53, 55, -107, -85, 0, 0, 0, 0, // alfil
    307, 148, 89, 40, 23, 68, -236, 0, // dabbaba
    324, 207, 154, 34, // ferz
    442, 344, // knight
];
const SEED_TEMPO: i32 = 352;

impl Weights {
    /// All zero.
    pub const fn zero() -> Weights {
        Weights {
            features: [0; FEATURES],
            tempo: 0,
        }
    }

    /// The published piece-square model (seed 000), scaled to logit x
    /// 10,000; the wazir features weigh 0.
    pub fn seed() -> Weights {
        let mut w = Weights::zero();
        for (role, row) in SEED_PSQ.iter().enumerate() {
            for (sq, &v) in row.iter().enumerate() {
                w.features[PSQ + role * NORMALIZED_SQUARES + sq] = v * 10;
            }
        }
        debug_assert_eq!(HAND_SIZES.iter().sum::<usize>(), SEED_HAND.len());
        for (i, &v) in SEED_HAND.iter().enumerate() {
            w.features[HAND + i] = v * 10;
        }
        w.tempo = SEED_TEMPO * 10;
        w
    }

    /// Reads a weights file.
    ///
    /// # Errors
    /// [`WeightsError`] for a malformed line or an unknown feature.
    pub fn parse(text: &str) -> Result<Weights, WeightsError> {
        let mut w = Weights::zero();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(WeightsError::Syntax {
                    line: i + 1,
                    text: line.chars().take(60).collect(),
                });
            };
            let value: i32 = value.parse().map_err(|_| WeightsError::Syntax {
                line: i + 1,
                text: line.chars().take(60).collect(),
            })?;
            if name == TEMPO_NAME {
                w.tempo = value;
                continue;
            }
            let index = (0..FEATURES)
                .find(|&f| feature_name(f) == name)
                .ok_or_else(|| WeightsError::Unknown {
                    line: i + 1,
                    name: name.chars().take(60).collect(),
                })?;
            w.features[index] = value;
        }
        Ok(w)
    }

    /// The weights as a file [`Weights::parse`] reads back, after a comment
    /// header.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let _ = writeln!(out, "{TEMPO_NAME} {}", self.tempo);
        for (i, &v) in self.features.iter().enumerate() {
            let _ = writeln!(out, "{} {v}", feature_name(i));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_round_trip_through_text() {
        let seed = Weights::seed();
        assert_eq!(seed.tempo, 3520);
        assert_eq!(seed.features[PSQ + 3 * NORMALIZED_SQUARES + 7], 4490, "knight on c3");
        assert_eq!(Weights::parse(&seed.to_text("seed\nweights")), Ok(seed));
        assert!(matches!(
            Weights::parse("tempo 1\nnonsense 3"),
            Err(WeightsError::Unknown { line: 2, .. })
        ));
        assert!(matches!(
            Weights::parse("tempo x"),
            Err(WeightsError::Syntax { line: 1, .. })
        ));
        assert!(matches!(Weights::parse("tempo 1 2"), Err(WeightsError::Syntax { .. })));
        assert_eq!(Weights::parse("# nothing\n\n"), Ok(Weights::zero()));
    }
}
