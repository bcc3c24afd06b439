//! The error every line parser of this crate returns, and the shared
//! tokenizer and number readers that produce it. Keeping one error type for
//! all lines lets the engine and the arena treat "this line was not
//! understood" uniformly: print `info string error: {err}` or ignore it.

use std::fmt;

use thiserror::Error;

use leaper_rules::{FenError, MoveText, ParseMoveError};

/// Why a line of text could not be parsed into a message.
///
/// Token indices count whitespace-separated tokens from 0, the command word
/// being token 0. Token texts quoted in errors are cut to 40 characters so
/// that an error about a huge line stays small.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseError {
    /// The line holds nothing but whitespace. UCI ignores such lines.
    #[error("empty line")]
    Empty,
    /// The first token is not a command or message of this protocol. UCI
    /// says the receiver ignores such lines.
    #[error("unknown command `{0}`")]
    Unknown(String),
    /// The line ended where something else was required.
    #[error("missing {expected} at token {index}")]
    Missing {
        /// Where the missing token should have been.
        index: usize,
        /// What was required there, for example "a number after `wtime`".
        expected: String,
    },
    /// A token that does not belong where it stands.
    #[error("unexpected `{token}` at token {index}, expected {expected}")]
    Unexpected {
        /// Index of the token.
        index: usize,
        /// The token (cut to 40 characters).
        token: String,
        /// What could have stood there.
        expected: String,
    },
    /// A parameter given twice, such as `go depth 3 depth 4`.
    #[error("`{token}` repeated at token {index}")]
    Duplicate {
        /// Index of the second occurrence.
        index: usize,
        /// The repeated keyword.
        token: String,
    },
    /// A number that does not parse or is out of range.
    #[error("bad number `{token}` at token {index}: {reason}")]
    Number {
        /// Index of the token.
        index: usize,
        /// The token (cut to 40 characters).
        token: String,
        /// What is wrong with it.
        reason: NumberError,
    },
    /// A token that should be a move but is not shaped like one.
    #[error("bad move `{token}` at token {index}: {reason}")]
    Move {
        /// Index of the token.
        index: usize,
        /// The token (cut to 40 characters).
        token: String,
        /// What is wrong with it.
        reason: ParseMoveError,
    },
    /// The fields of `position fen` that are not a position a game can
    /// reach.
    #[error("bad fen at token {index}: {reason}")]
    Fen {
        /// Index of the field at fault (the board's for piece counts).
        index: usize,
        /// What is wrong with it.
        reason: FenError,
    },
    /// Well-formed tokens that contradict each other, such as a spin
    /// option whose default lies outside its min..max.
    #[error("{what} at token {index}")]
    Inconsistent {
        /// Index of the token that made the contradiction apparent.
        index: usize,
        /// What contradicts what.
        what: String,
    },
}

impl ParseError {
    /// True for [`Empty`](Self::Empty) and [`Unknown`](Self::Unknown): lines
    /// that UCI says the receiver silently ignores, as opposed to known
    /// commands that were malformed.
    pub fn is_ignorable(&self) -> bool {
        matches!(self, Self::Empty | Self::Unknown(_))
    }
}

/// What is wrong with a number token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum NumberError {
    /// Not an optional `-` followed by ASCII digits.
    #[error("not an integer")]
    NotAnInteger,
    /// An integer outside the range the field allows.
    #[error("out of range {min}..={max}")]
    OutOfRange {
        /// Smallest allowed value.
        min: i128,
        /// Largest allowed value.
        max: i128,
    },
    /// Not a finite decimal number.
    #[error("not a finite decimal number")]
    NotADecimal,
}

/// Longest token text (in characters) quoted in an error.
const EXCERPT_CHARS: usize = 40;

/// Cuts `token` to [`EXCERPT_CHARS`] characters for an error message, so
/// that a megabyte of garbage is not echoed back in an `info string`.
pub(crate) fn excerpt(token: &str) -> String {
    match token.char_indices().nth(EXCERPT_CHARS) {
        None => token.to_owned(),
        Some((end, _)) => format!("{}...", &token[..end]),
    }
}

/// A line split on ASCII whitespace, remembering where each token starts so
/// that rest-of-line fields (`info string`, `id name`) keep their spacing.
pub(crate) struct Tokens<'a> {
    line: &'a str,
    tokens: Vec<(usize, &'a str)>,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(line: &'a str) -> Self {
        let bytes = line.as_bytes();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            // ASCII whitespace never occurs inside a multi-byte character,
            // so both ends are character boundaries.
            tokens.push((start, &line[start..i]));
        }
        Tokens { line, tokens }
    }

    pub(crate) fn len(&self) -> usize {
        self.tokens.len()
    }

    pub(crate) fn get(&self, index: usize) -> Option<&'a str> {
        self.tokens.get(index).map(|&(_, t)| t)
    }

    /// The text from token `index` to the end of the line, trailing
    /// whitespace removed; empty if there is no such token.
    pub(crate) fn rest(&self, index: usize) -> &'a str {
        match self.tokens.get(index) {
            None => "",
            Some(&(start, _)) => trim_ascii_end(&self.line[start..]),
        }
    }

    /// Like [`rest`](Self::rest), with each CR or LF inside replaced by a
    /// space, as [`write_one_line`] would write it.
    pub(crate) fn rest_one_line(&self, index: usize) -> String {
        self.rest(index).replace(['\n', '\r'], " ")
    }

    /// Tokens `from..to` joined by single spaces.
    pub(crate) fn join(&self, from: usize, to: usize) -> String {
        let mut out = String::new();
        for &(_, t) in &self.tokens[from..to] {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(t);
        }
        out
    }

    /// The token at `index`, or a [`ParseError::Missing`] naming `expected`.
    pub(crate) fn require(&self, index: usize, expected: &str) -> Result<&'a str, ParseError> {
        self.get(index).ok_or_else(|| ParseError::Missing {
            index,
            expected: expected.to_owned(),
        })
    }

    /// Fails with [`ParseError::Unexpected`] if a token stands at `index`.
    pub(crate) fn expect_end(&self, index: usize) -> Result<(), ParseError> {
        match self.get(index) {
            None => Ok(()),
            Some(token) => Err(unexpected(index, token, "end of line")),
        }
    }

    /// Parses token `index + 1` as the number that keyword `index` takes.
    pub(crate) fn number_after<T: TryFrom<i128>>(
        &self,
        index: usize,
        range: (i128, i128),
        clamp_negative: bool,
    ) -> Result<T, ParseError> {
        let keyword = self.get(index).unwrap_or_default();
        let token = self.require(index + 1, &format!("a number after `{keyword}`"))?;
        parse_int(index + 1, token, range, clamp_negative)
    }

    /// A [`ParseError::Duplicate`] for keyword `index`.
    pub(crate) fn duplicate(&self, index: usize) -> ParseError {
        ParseError::Duplicate {
            index,
            token: self.get(index).unwrap_or_default().to_owned(),
        }
    }

    /// Keyword `index` of a `go` or `info` line, read into `slot` unless
    /// an earlier one filled it: [`Tokens::number_after`], once. Gives
    /// the index after the number.
    pub(crate) fn number_once<T: TryFrom<i128>>(
        &self,
        slot: &mut Option<T>,
        index: usize,
        range: (i128, i128),
        clamp_negative: bool,
    ) -> Result<usize, ParseError> {
        if slot.is_some() {
            return Err(self.duplicate(index));
        }
        *slot = Some(self.number_after(index, range, clamp_negative)?);
        Ok(index + 2)
    }

    /// A flag keyword at `index`, set once. Gives the index after it.
    pub(crate) fn flag_once(&self, flag: &mut bool, index: usize) -> Result<usize, ParseError> {
        if *flag {
            return Err(self.duplicate(index));
        }
        *flag = true;
        Ok(index + 1)
    }

    /// The moves after keyword `index` up to the next token that
    /// `is_keyword` (or the end), once per line (`seen`). Gives the moves
    /// and the index of that next keyword.
    pub(crate) fn moves_once(
        &self,
        seen: &mut bool,
        index: usize,
        is_keyword: fn(&str) -> bool,
    ) -> Result<(Vec<MoveText>, usize), ParseError> {
        self.flag_once(seen, index)?;
        let end = (index + 1..self.len())
            .find(|&j| self.get(j).is_some_and(is_keyword))
            .unwrap_or(self.len());
        Ok((self.moves(index + 1, end)?, end))
    }

    /// Tokens `from..to` as moves.
    pub(crate) fn moves(&self, from: usize, to: usize) -> Result<Vec<MoveText>, ParseError> {
        (from..to).map(|i| self.move_at(i)).collect()
    }

    /// Token `index` (which must exist) as a move.
    pub(crate) fn move_at(&self, index: usize) -> Result<MoveText, ParseError> {
        let token = self.get(index).unwrap_or_default();
        token.parse().map_err(|reason| ParseError::Move {
            index,
            token: excerpt(token),
            reason,
        })
    }
}

pub(crate) fn trim_ascii_end(s: &str) -> &str {
    s.trim_end_matches(|c: char| c.is_ascii_whitespace())
}

pub(crate) fn unexpected(index: usize, token: &str, expected: &str) -> ParseError {
    ParseError::Unexpected {
        index,
        token: excerpt(token),
        expected: expected.to_owned(),
    }
}

/// The ranges of the integer types used in messages, for [`parse_int`].
pub(crate) const U32: (i128, i128) = (0, u32::MAX as i128);
pub(crate) const U64: (i128, i128) = (0, u64::MAX as i128);
pub(crate) const I32: (i128, i128) = (i32::MIN as i128, i32::MAX as i128);
pub(crate) const I64: (i128, i128) = (i64::MIN as i128, i64::MAX as i128);

/// Reads an integer: an optional `-`, then ASCII digits (no `+`, no
/// spaces). With `clamp_negative`, any negative integer reads as 0, for
/// UCI clock fields where negative values are legal.
pub(crate) fn parse_int<T: TryFrom<i128>>(
    index: usize,
    token: &str,
    (min, max): (i128, i128),
    clamp_negative: bool,
) -> Result<T, ParseError> {
    let error = |reason| ParseError::Number {
        index,
        token: excerpt(token),
        reason,
    };
    let (negative, digits) = match token.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, token),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(NumberError::NotAnInteger));
    }
    let value = if negative && clamp_negative {
        0
    } else {
        // Saturating accumulation: anything past i128 is out of range of
        // every field anyway, and a 1 MiB run of digits must not panic.
        let mut v: i128 = 0;
        for b in digits.bytes() {
            v = v.saturating_mul(10).saturating_add(i128::from(b - b'0'));
        }
        if negative { -v } else { v }
    };
    match T::try_from(value) {
        Ok(v) if (min..=max).contains(&value) => Ok(v),
        _ => Err(error(NumberError::OutOfRange { min, max })),
    }
}

/// Writes `text` with every CR or LF replaced by a space, so that a
/// message always formats as exactly one line.
pub(crate) fn write_one_line(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    if text.contains(['\n', '\r']) {
        f.write_str(&text.replace(['\n', '\r'], " "))
    } else {
        f.write_str(text)
    }
}

/// Writes the words of `text` joined by single spaces: the form a
/// multi-word UCI field (an option name or value) has once tokenized.
pub(crate) fn write_words(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    for (i, word) in text.split_ascii_whitespace().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        f.write_str(word)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_offsets_for_rest_of_line() {
        let t = Tokens::new("  info string  two  spaces \r\n");
        assert_eq!(t.len(), 4);
        assert_eq!(t.get(0), Some("info"));
        assert_eq!(t.rest(2), "two  spaces");
        assert_eq!(t.rest(9), "");
        assert_eq!(t.join(1, 4), "string two spaces");
    }

    #[test]
    fn integers_are_range_checked_without_panicking() {
        assert_eq!(parse_int::<u64>(0, "18446744073709551615", U64, false), Ok(u64::MAX));
        let huge = "9".repeat(100_000);
        assert!(matches!(
            parse_int::<u64>(3, &huge, U64, false),
            Err(ParseError::Number {
                index: 3,
                reason: NumberError::OutOfRange { .. },
                ..
            })
        ));
        assert_eq!(parse_int::<u64>(0, "-5", U64, true), Ok(0));
        assert_eq!(parse_int::<u64>(0, &format!("-{huge}"), U64, true), Ok(0));
        assert!(parse_int::<u64>(0, "-5", U64, false).is_err());
        assert!(parse_int::<u64>(0, "+5", U64, false).is_err());
        assert!(parse_int::<u64>(0, "-", U64, true).is_err());
        assert_eq!(parse_int::<i32>(0, "-2147483648", I32, false), Ok(i32::MIN));
        assert!(parse_int::<i32>(0, "2147483648", I32, false).is_err());
    }

    #[test]
    fn excerpts_cut_long_tokens_on_char_boundaries() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(100);
        assert_eq!(excerpt(&long), format!("{}...", "é".repeat(40)));
    }
}
